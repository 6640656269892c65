//! What a probe execution printed, or the prober's error text ([`ProbeOutput`]), rendered on
//! demand from the handler it ran, with the version-dependent wording of an exec timeout (P48).

use core::fmt;

use crate::spec::Handler;
use crate::time::SimDuration;

/// Wording of an exec timeout's output by version (P48).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExecTimeoutWording {
    /// 1.19: the runtime's own gRPC error, passed through unchanged (containerd's
    /// `execInternal` wraps the context error; the kubelet's `ExecSync` did not yet translate
    /// it): `rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout <T>
    /// exceeded: context deadline exceeded`.
    Runtime,
    /// 1.20–1.22: the empty captured output.
    Empty,
    /// 1.23–1.30: `command "<cmd>" timed out`.
    Quoted,
    /// ≥1.31: `command timed out: "<cmd>" timed out after <T>`.
    After,
}

/// What a probe execution printed, or the prober's error text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputKind {
    /// Nothing (success of exec, tcp; HTTP success with an empty body).
    Empty,
    /// `HTTP probe failed with statuscode: <code>` (P50).
    HttpStatus(u16),
    /// A 3xx that is not followed: the body, prefixed from 1.24 (P50).
    HttpRedirect {
        /// Whether the `Probe terminated redirects, Response body: ` prefix is printed.
        prefixed: bool,
    },
    /// The connection was refused (HTTP transport error).
    HttpRefused,
    /// No answer within the timeout (HTTP client timeout).
    HttpTimeout,
    /// The process died while answering: the connection closed before a response.
    HttpReset,
    /// TCP dial refused.
    TcpRefused,
    /// TCP dial timed out.
    TcpTimeout,
    /// gRPC `service healthy`.
    GrpcHealthy,
    /// gRPC `service unhealthy (responded with "<STATUS>")`.
    GrpcUnhealthy(&'static str),
    /// gRPC connection refused.
    GrpcRefused,
    /// gRPC connect deadline (the probe's timeout).
    GrpcTimeout(SimDuration),
    /// An exec probe that ran past its timeout.
    ExecTimeout(ExecTimeoutWording, SimDuration),
    /// An exec into a container whose process is gone (error).
    ExecGone,
    /// An exec'd command that died with its container while running: the runtime reports exit
    /// 137 (SIGKILL) and the prober's output is what the command had printed, which is not
    /// modelled (empty).
    ExecKilled,
    /// A scripted prober error.
    ScriptedError,
    /// The port could not be resolved (P39, error).
    BadPort,
    /// An exec'd command that exited and printed this text (P63).
    ExecOutput(TextRef),
    /// An HTTP success whose response body is this text (P63).
    HttpBody(TextRef),
    /// A 3xx that is not followed, with its response body (P50, P63).
    HttpRedirectBody {
        /// Whether the `Probe terminated redirects, Response body: ` prefix is printed.
        prefixed: bool,
        /// The body.
        body: TextRef,
    },
}

/// How much of a command's output or a response body the prober keeps (P63): 10 KiB, the
/// kubelet's `maxReadLength` (exec) and `maxRespBodyLength` (HTTP).
pub const MAX_PROBE_OUTPUT: usize = 10 * 1024;

/// A text an answer printed (P63): the behaviour that gave it and its index among that
/// behaviour's texts ([`crate::Behaviour::text`]). Resolved only when the output is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextRef {
    /// The behaviour's index in the simulation.
    pub behaviour: u32,
    /// The text's index among the behaviour's texts.
    pub index: u32,
}

/// Where the texts of [`TextRef`]s are kept: the simulation's behaviours.
pub trait Texts: fmt::Debug {
    /// The text `text` names (empty when it names none).
    fn text(&self, text: TextRef) -> &str;
}

impl OutputKind {
    /// The output once the answer's printed text (P63) is known: an exec command's exit and an
    /// HTTP success or redirect carry it; an HTTP failure does not (the kubelet reports only
    /// the status code, whatever the body), nor does anything else.
    #[must_use]
    pub fn printing(self, handler: &Handler, text: Option<TextRef>) -> OutputKind {
        let Some(text) = text else { return self };
        match (self, handler) {
            (OutputKind::Empty, Handler::Exec { .. }) => OutputKind::ExecOutput(text),
            (OutputKind::Empty, Handler::HttpGet { .. }) => OutputKind::HttpBody(text),
            (OutputKind::HttpRedirect { prefixed }, Handler::HttpGet { .. }) => {
                OutputKind::HttpRedirectBody {
                    prefixed,
                    body: text,
                }
            }
            (kind, _) => kind,
        }
    }
}

/// Writes `text` as the prober keeps it (P63): its first [`MAX_PROBE_OUTPUT`] bytes. A
/// character the cut splits leaves bytes that are not UTF-8; the API server's JSON shows each
/// such byte as U+FFFD, and so does this.
pub fn write_truncated(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    if text.len() <= MAX_PROBE_OUTPUT {
        return f.write_str(text);
    }
    let mut whole = MAX_PROBE_OUTPUT;
    while !text.is_char_boundary(whole) {
        whole -= 1;
    }
    f.write_str(&text[..whole])?;
    for _ in whole..MAX_PROBE_OUTPUT {
        f.write_str("\u{fffd}")?;
    }
    Ok(())
}

/// A probe's output, rendered on demand from the handler it ran.
#[derive(Clone, Copy, Debug)]
pub struct ProbeOutput<'a> {
    /// The probe's handler.
    pub handler: &'a Handler,
    /// The pod IP (target of handlers without a host).
    pub pod_ip: &'a str,
    /// What happened.
    pub kind: OutputKind,
    /// Where the texts that answers printed are kept (P63); `None` where no answer prints one.
    pub texts: Option<&'a dyn Texts>,
}

impl ProbeOutput<'_> {
    fn text(&self, text: TextRef) -> &str {
        self.texts.map_or("", |t| t.text(text))
    }
}

impl fmt::Display for ProbeOutput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn host<'h>(h: &'h Option<String>, ip: &'h str) -> &'h str {
            h.as_deref().unwrap_or(ip)
        }
        match (self.kind, self.handler) {
            (OutputKind::Empty, _) => Ok(()),
            (OutputKind::ExecOutput(text) | OutputKind::HttpBody(text), _) => {
                write_truncated(f, self.text(text))
            }
            (OutputKind::HttpRedirectBody { prefixed, body }, _) => {
                if prefixed {
                    f.write_str("Probe terminated redirects, Response body: ")?;
                }
                write_truncated(f, self.text(body))
            }
            (OutputKind::HttpStatus(code), _) => {
                write!(f, "HTTP probe failed with statuscode: {code}")
            }
            (OutputKind::HttpRedirect { prefixed }, _) => {
                if prefixed {
                    f.write_str("Probe terminated redirects, Response body: ")?;
                }
                Ok(())
            }
            (OutputKind::HttpRefused | OutputKind::HttpTimeout | OutputKind::HttpReset, Handler::HttpGet { scheme, host: h, port, path }) => {
                let hp = host(h, self.pod_ip);
                let n = port.number().unwrap_or(0);
                // The path is a URL reference: Go writes a relative one with a leading `/`.
                let before_query = path.split(['?', '#']).next().unwrap_or_default();
                let slash = if before_query.is_empty() || before_query.starts_with('/') { "" } else { "/" };
                write!(f, "Get \"{}://{}:{n}{slash}{path}\": ", scheme.url(), bracket(hp))?;
                if self.kind == OutputKind::HttpReset {
                    f.write_str("EOF")
                } else if self.kind == OutputKind::HttpRefused {
                    write!(f, "dial tcp {}:{n}: connect: connection refused", bracket(hp))
                } else {
                    f.write_str("context deadline exceeded (Client.Timeout exceeded while awaiting headers)")
                }
            }
            (OutputKind::TcpRefused | OutputKind::TcpTimeout, Handler::TcpSocket { host: h, port }) => {
                let n = port.number().unwrap_or(0);
                write!(f, "dial tcp {}:{n}: ", bracket(host(h, self.pod_ip)))?;
                if self.kind == OutputKind::TcpRefused {
                    f.write_str("connect: connection refused")
                } else {
                    f.write_str("i/o timeout")
                }
            }
            (OutputKind::GrpcHealthy, _) => f.write_str("service healthy"),
            (OutputKind::GrpcUnhealthy(status), _) => {
                write!(f, "service unhealthy (responded with \"{status}\")")
            }
            (OutputKind::GrpcRefused, Handler::Grpc { port, .. }) => write!(
                f,
                "error: failed to connect service at \"{ip}:{port}\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp {ip}:{port}: connect: connection refused\"",
                ip = bracket(self.pod_ip)
            ),
            (OutputKind::GrpcTimeout(timeout), Handler::Grpc { port, .. }) => write!(
                f,
                "timeout: failed to connect service \"{}:{port}\" within {}: context deadline exceeded",
                bracket(self.pod_ip),
                timeout.go()
            ),
            (OutputKind::ExecKilled, _) => Ok(()),
            (OutputKind::ExecTimeout(wording, timeout), Handler::Exec { command }) => match wording {
                ExecTimeoutWording::Runtime => write!(
                    f,
                    "rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout {} exceeded: context deadline exceeded",
                    timeout.go()
                ),
                ExecTimeoutWording::Empty => Ok(()),
                ExecTimeoutWording::Quoted => {
                    f.write_str("command \"")?;
                    write_joined(f, command)?;
                    f.write_str("\" timed out")
                }
                ExecTimeoutWording::After => {
                    f.write_str("command timed out: \"")?;
                    write_joined(f, command)?;
                    write!(f, "\" timed out after {}", timeout.go())
                }
            },
            (OutputKind::ExecGone, _) => f.write_str(
                "rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state",
            ),
            (OutputKind::ScriptedError, _) => {
                f.write_str("rpc error: code = Unknown desc = probe error (scripted)")
            }
            (OutputKind::BadPort, Handler::HttpGet { port, .. } | Handler::TcpSocket { port, .. }) => {
                match port {
                    crate::spec::Port::Unparsable(name) => {
                        write!(f, "strconv.Atoi: parsing \"{name}\": invalid syntax")
                    }
                    crate::spec::Port::OutOfRange(n) => write!(f, "invalid port number: {n}"),
                    crate::spec::Port::Number(n) => write!(f, "invalid port number: {n}"),
                }
            }
            // A kind that does not belong to the handler: print nothing rather than guess.
            _ => Ok(()),
        }
    }
}

fn bracket(host: &str) -> Bracketed<'_> {
    Bracketed(host)
}

/// An IPv6 literal in a host:port pair gets brackets, as Go's `net.JoinHostPort` adds them.
struct Bracketed<'a>(&'a str);

impl fmt::Display for Bracketed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.contains(':') {
            write!(f, "[{}]", self.0)
        } else {
            f.write_str(self.0)
        }
    }
}

fn write_joined(f: &mut fmt::Formatter<'_>, words: &[String]) -> fmt::Result {
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        f.write_str(w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! P63: what an answer printed, in the probe's output and the prober's event messages.

    use super::*;
    use crate::event::Message;
    use crate::spec::{Port, ProbeKind, Scheme};

    /// One behaviour's texts, by index.
    #[derive(Debug)]
    struct Table(Vec<String>);

    impl Texts for Table {
        fn text(&self, text: TextRef) -> &str {
            self.0.get(text.index as usize).map_or("", String::as_str)
        }
    }

    fn http() -> Handler {
        Handler::HttpGet {
            scheme: Scheme::Http,
            host: None,
            port: Port::Number(8080),
            path: "/healthz".into(),
        }
    }

    fn exec() -> Handler {
        Handler::Exec {
            command: vec!["cat".into(), "/tmp/health".into()],
        }
    }

    const FIRST: TextRef = TextRef {
        behaviour: 0,
        index: 0,
    };

    fn rendered(handler: &Handler, kind: OutputKind, texts: &Table) -> String {
        ProbeOutput {
            handler,
            pod_ip: "10.0.0.5",
            kind,
            texts: Some(texts),
        }
        .to_string()
    }

    fn failed(handler: &Handler, kind: OutputKind, texts: &Table) -> String {
        Message::ProbeFailed {
            probe: ProbeKind::Liveness,
            output: ProbeOutput {
                handler,
                pod_ip: "10.0.0.5",
                kind,
                texts: Some(texts),
            },
        }
        .to_string()
    }

    // P63
    #[test]
    fn an_exec_failure_message_carries_the_commands_output() {
        let texts = Table(vec!["cat: /tmp/health: No such file or directory\n".into()]);
        let kind = OutputKind::Empty.printing(&exec(), Some(FIRST));
        assert_eq!(kind, OutputKind::ExecOutput(FIRST));
        assert_eq!(
            failed(&exec(), kind, &texts),
            "Liveness probe failed: cat: /tmp/health: No such file or directory\n"
        );
        // Without a text the message ends after the colon, as before.
        assert_eq!(
            failed(&exec(), OutputKind::Empty.printing(&exec(), None), &texts),
            "Liveness probe failed: "
        );
    }

    // P63, P50
    #[test]
    fn an_http_failure_never_shows_the_body() {
        let texts = Table(vec!["db down".into()]);
        let kind = OutputKind::HttpStatus(500).printing(&http(), Some(FIRST));
        assert_eq!(kind, OutputKind::HttpStatus(500));
        assert_eq!(
            failed(&http(), kind, &texts),
            "Liveness probe failed: HTTP probe failed with statuscode: 500"
        );
    }

    // P63, P50
    #[test]
    fn an_http_success_or_redirect_carries_the_body() {
        let texts = Table(vec!["moved".into()]);
        let body = OutputKind::Empty.printing(&http(), Some(FIRST));
        assert_eq!(rendered(&http(), body, &texts), "moved");
        for (prefixed, expected) in [
            (true, "Probe terminated redirects, Response body: moved"),
            (false, "moved"),
        ] {
            let kind = OutputKind::HttpRedirect { prefixed }.printing(&http(), Some(FIRST));
            assert_eq!(rendered(&http(), kind, &texts), expected);
        }
    }

    // P63: tcpSocket and grpc outputs are the prober's own, whatever the answer printed.
    #[test]
    fn other_handlers_ignore_a_printed_text() {
        let tcp = Handler::TcpSocket {
            host: None,
            port: Port::Number(8080),
        };
        assert_eq!(
            OutputKind::Empty.printing(&tcp, Some(FIRST)),
            OutputKind::Empty
        );
        assert_eq!(
            OutputKind::ExecTimeout(ExecTimeoutWording::Quoted, SimDuration::from_secs(1))
                .printing(&exec(), Some(FIRST)),
            OutputKind::ExecTimeout(ExecTimeoutWording::Quoted, SimDuration::from_secs(1))
        );
    }

    // P63: the prober keeps the first 10 KiB.
    #[test]
    fn output_is_cut_at_ten_kibibytes() {
        let exact = "a".repeat(MAX_PROBE_OUTPUT);
        let texts = Table(vec![
            exact.clone(),
            format!("{exact}b"),
            // A two-byte character across the boundary: its first byte is kept.
            format!("{}é tail", "a".repeat(MAX_PROBE_OUTPUT - 1)),
            // A four-byte character across the boundary, three bytes in.
            format!("{}\u{1f600}", "a".repeat(MAX_PROBE_OUTPUT - 3)),
        ]);
        let out = |index| {
            rendered(
                &exec(),
                OutputKind::ExecOutput(TextRef {
                    behaviour: 0,
                    index,
                }),
                &texts,
            )
        };
        assert_eq!(out(0), exact);
        assert_eq!(out(1), exact);
        assert_eq!(
            out(2),
            format!("{}\u{fffd}", "a".repeat(MAX_PROBE_OUTPUT - 1))
        );
        assert_eq!(
            out(3),
            format!(
                "{}\u{fffd}\u{fffd}\u{fffd}",
                "a".repeat(MAX_PROBE_OUTPUT - 3)
            )
        );
    }
}
