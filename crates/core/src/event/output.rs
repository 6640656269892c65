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
}

impl fmt::Display for ProbeOutput<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn host<'h>(h: &'h Option<String>, ip: &'h str) -> &'h str {
            h.as_deref().unwrap_or(ip)
        }
        match (self.kind, self.handler) {
            (OutputKind::Empty, _) => Ok(()),
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
