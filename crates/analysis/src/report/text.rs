//! The text report: one line per figure, with the numbers and the phases producing them.

use core::fmt::Write as _;

use probesim_core::{ProbeKind, Sigterm, SimDuration};

use crate::figure::{ContainerFigures, Figure};
use crate::report::WorkloadReport;

fn v(d: Option<SimDuration>) -> String {
    d.map_or_else(|| "never".to_owned(), |d| format!("{d}s"))
}

fn cols(f: &Figure) -> String {
    format!("min {:<9} max {:<9}", v(f.min.value), v(f.max.value))
}

/// `after X at best (phase), Y at worst (phase)` for figures where smaller is better, or
/// `never` when the thing never happens.
fn best_worst(f: &Figure) -> String {
    match (f.min.value, f.max.value) {
        (None, None) => "never, in every phase".to_owned(),
        (a, b) if a == b => format!("{} in every phase", v(a)),
        (a, b) => format!(
            "{} at best ({}), {} at worst ({})",
            v(a),
            f.min.phase,
            v(b),
            f.max.phase
        ),
    }
}

fn line(out: &mut String, name: &str, values: &str, text: &str) {
    let _ = writeln!(out, "    {name:<24} {values} {text}");
}

fn container(out: &mut String, w: &WorkloadReport, c: &ContainerFigures) {
    let spec = w.subject.pod.container(c.index);
    let _ = writeln!(
        out,
        "  {} {}: {} simulations, {} phases of a {}s tick cycle{}{}",
        if c.sidecar { "sidecar" } else { "container" },
        c.name,
        c.simulations,
        c.space.offsets.len() * c.space.seeds.len(),
        c.space.cycle,
        if c.space.jitter {
            format!(
                ", start-up jitter sampled with {} seeds",
                c.space.seeds.len()
            )
        } else {
            String::new()
        },
        if c.space.truncated {
            " (cycle truncated)"
        } else {
            ""
        }
    );
    match &c.startup_budget {
        None => line(
            out,
            "startupBudget",
            &format!("{:<28}", "none"),
            "no liveness or startup probe: nothing kills a slow start",
        ),
        Some(b) => {
            let text = if b.min.value == b.max.value {
                format!(
                    "an app refusing every probe from its start survives {} in every phase",
                    v(b.min.value)
                )
            } else {
                format!(
                    "an app refusing every probe from its start survives {} at worst ({}), {} at best ({})",
                    v(b.min.value),
                    b.min.phase.of_start(),
                    v(b.max.value),
                    b.max.phase.of_start()
                )
            };
            line(out, "startupBudget", &cols(b), &text);
        }
    }
    let h = &c.hang;
    line(
        out,
        "hangDetection.kill",
        &cols(&h.kill),
        &format!(
            "from a hang of the Ready app (every probe times out) to its kill: {}",
            best_worst(&h.kill)
        ),
    );
    let sigterm = match spec.app.sigterm {
        Sigterm::Ignore => "SIGTERM ignored".to_owned(),
        Sigterm::Exit { after, .. } => format!("exits {after}s after SIGTERM"),
    };
    let grace = spec
        .probe(ProbeKind::Liveness)
        .and_then(|p| p.termination_grace_period_seconds())
        .unwrap_or(w.subject.pod.termination_grace_period_seconds);
    line(
        out,
        "hangDetection.exit",
        &cols(&h.exit),
        &format!(
            "from the hang to the process gone ({sigterm}, grace period {grace}s): {}",
            best_worst(&h.exit)
        ),
    );
    line(
        out,
        "hangDetection.restarted",
        &cols(&h.restarted),
        &format!(
            "from the hang to the replacement running: {}",
            best_worst(&h.restarted)
        ),
    );
    let r = &c.readiness;
    line(
        out,
        "readiness.toReady",
        &cols(&r.to_ready),
        &format!(
            "from the start of a healthy app to pod Ready: {}",
            best_worst(&r.to_ready)
        ),
    );
    match &r.to_not_ready {
        Some(f) => line(
            out,
            "readiness.toNotReady",
            &cols(f),
            &format!(
                "from a Ready app failing every probe to pod not Ready: {}",
                best_worst(f)
            ),
        ),
        None => line(
            out,
            "readiness.toNotReady",
            &format!("{:<28}", "none"),
            "the pod never becomes Ready",
        ),
    }
    match &c.crash_loop {
        None => line(
            out,
            "crashLoop",
            &format!("{:<28}", "none"),
            "restartPolicy Never: a crashed container is not restarted",
        ),
        Some(l) => {
            line(
                out,
                "crashLoop.backOff",
                &cols(&l.back_off),
                &format!(
                    "from the first start of a process exiting with 1 a second after each start to CrashLoopBackOff in its status: {}",
                    best_worst(&l.back_off)
                ),
            );
            let restarts: Vec<String> = l.restarts.iter().map(|d| format!("{d}s")).collect();
            line(
                out,
                "crashLoop.restarts",
                &format!("{:<28}", format!("{} in the first hour", l.restarts.len())),
                &format!(
                    "such a process restarts at {} after its first start",
                    restarts.join(", ")
                ),
            );
            line(
                out,
                "crashLoop.cycle",
                &cols(&l.cycle),
                &format!(
                    "the steady cycle between restarts is {}",
                    best_worst(&l.cycle)
                ),
            );
        }
    }
}

/// The text report of every workload.
#[must_use]
pub fn text(kubernetes: &str, workloads: &[WorkloadReport]) -> String {
    let mut out = String::new();
    for (i, w) in workloads.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{} ({}), Kubernetes {kubernetes}",
            w.subject.name, w.subject.file
        );
        if let Some(line) = w.subject.overridden_line() {
            let _ = writeln!(out, "  {line}");
        }
        if w.containers.is_empty() {
            out.push_str("  no container has probes\n");
        }
        for c in &w.containers {
            container(&mut out, w, c);
        }
        if w.findings.is_empty() {
            out.push_str("  findings: none\n");
        } else {
            let _ = writeln!(out, "  findings:");
        }
        for f in &w.findings {
            let at = f.at.map_or_else(String::new, |(l, c)| format!(":{l}:{c}"));
            let _ = writeln!(
                out,
                "    {}[{}] {}{at}: {}: {}",
                f.rule.severity, f.rule.id, w.subject.file, f.path, f.message
            );
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "      fix, simulated: {}: {}", fix.change, fix.effect);
            }
        }
        for (f, by) in &w.suppressed {
            let at = f.at.map_or_else(String::new, |(l, c)| format!(":{l}:{c}"));
            let _ = writeln!(
                out,
                "  suppressed: {} {}{at}: {} (by {by})",
                f.rule.id, w.subject.file, f.path
            );
        }
    }
    out
}
