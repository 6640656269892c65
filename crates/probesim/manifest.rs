//! A [`PodSpec`] written back as a Pod manifest and the app arguments of a [`Test`](crate::Test), so that
//! generated pods run through the same front door as a user's files, and a failing case
//! replays with `probesim run`.

use core::fmt::Write as _;

use probesim_core::{
    Handler, PodSpec, Port, ProbeKind, PullPolicy, RestartPolicy, Scheme, Sigterm,
};
use probesim_script::format_duration;

/// A YAML double-quoted string.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn port(port: &Port) -> String {
    match port {
        Port::Number(n) => n.to_string(),
        Port::Unparsable(name) => quoted(name),
        Port::OutOfRange(n) => n.to_string(),
    }
}

fn handler(h: &Handler) -> String {
    match h {
        Handler::Exec { command } => {
            let words: Vec<String> = command.iter().map(|w| quoted(w)).collect();
            format!("exec: {{command: [{}]}}", words.join(", "))
        }
        Handler::HttpGet {
            scheme,
            host,
            port: p,
            path,
        } => {
            let mut out = format!("httpGet: {{port: {}, path: {}", port(p), quoted(path));
            if matches!(scheme, Scheme::Https) {
                out.push_str(", scheme: HTTPS");
            }
            if let Some(h) = host {
                let _ = write!(out, ", host: {}", quoted(h));
            }
            out.push('}');
            out
        }
        Handler::TcpSocket { host, port: p } => match host {
            None => format!("tcpSocket: {{port: {}}}", port(p)),
            Some(h) => format!("tcpSocket: {{port: {}, host: {}}}", port(p), quoted(h)),
        },
        Handler::Grpc { port, service } if service.is_empty() => {
            format!("grpc: {{port: {port}}}")
        }
        Handler::Grpc { port, service } => {
            format!("grpc: {{port: {port}, service: {}}}", quoted(service))
        }
    }
}

/// The Pod manifest of `pod`: names, images, pull policies, probes, restart policy and grace
/// period (the app behaviour goes in [`app_args`]).
#[must_use]
pub fn pod_manifest(pod: &PodSpec) -> String {
    let mut out = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {}\nspec:\n  restartPolicy: {}\n  terminationGracePeriodSeconds: {}\n",
        quoted(&pod.name),
        match pod.restart_policy {
            RestartPolicy::Always => "Always",
            RestartPolicy::OnFailure => "OnFailure",
            RestartPolicy::Never => "Never",
        },
        pod.termination_grace_period_seconds
    );
    for (field, containers) in [
        ("initContainers", &pod.init_containers),
        ("containers", &pod.containers),
    ] {
        if containers.is_empty() {
            continue;
        }
        let _ = writeln!(out, "  {field}:");
        for c in containers {
            let _ = writeln!(
                out,
                "  - name: {}\n    image: {}",
                quoted(&c.name),
                quoted(&c.image)
            );
            let policy = match c.pull_policy {
                PullPolicy::Always => "Always",
                PullPolicy::IfNotPresent => "IfNotPresent",
                PullPolicy::Never => "Never",
            };
            let _ = writeln!(out, "    imagePullPolicy: {policy}");
            if c.restartable {
                out.push_str("    restartPolicy: Always\n");
            }
            for kind in ProbeKind::ALL {
                let Some(p) = c.probe(kind) else { continue };
                let _ = write!(
                    out,
                    "    {}:\n      {}\n      initialDelaySeconds: {}\n      timeoutSeconds: {}\n      periodSeconds: {}\n      successThreshold: {}\n      failureThreshold: {}\n",
                    kind.field(),
                    handler(p.handler()),
                    p.initial_delay_seconds(),
                    p.timeout_seconds(),
                    p.period_seconds(),
                    p.success_threshold(),
                    p.failure_threshold()
                );
                if let Some(g) = p.termination_grace_period_seconds() {
                    let _ = writeln!(out, "      terminationGracePeriodSeconds: {g}");
                }
            }
        }
    }
    out
}

/// What each container's process does apart from probe answers, as `--exit`, `--sigterm` and
/// `--pull` values (`"web: 1 after 2s"`), default behaviours left out.
#[must_use]
pub fn app_args(pod: &PodSpec) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for c in pod.init_containers.iter().chain(&pod.containers) {
        let app = &c.app;
        if let Some(e) = app.exit {
            out.push((
                "exit",
                format!("{}: {} after {}", c.name, e.code, format_duration(e.after)),
            ));
        }
        match app.sigterm {
            Sigterm::Exit { code: None, after } if after.is_zero() => {}
            Sigterm::Ignore => out.push(("sigterm", format!("{}: ignore", c.name))),
            Sigterm::Exit { code: None, after } => out.push((
                "sigterm",
                format!("{}: exit after {}", c.name, format_duration(after)),
            )),
            Sigterm::Exit {
                code: Some(code),
                after,
            } => out.push((
                "sigterm",
                format!("{}: exit {code} after {}", c.name, format_duration(after)),
            )),
        }
        if !app.pull.is_zero() {
            out.push(("pull", format!("{}: {}", c.name, format_duration(app.pull))));
        }
    }
    out
}
