//! The recommender's output: YAML ready to paste, or JSON.

use core::fmt::Write as _;

use probesim_core::{ProbeKind, ProbeSpec};

use crate::figure::{ContainerFigures, Figure};
use crate::recommend::{Requirements, Search};
use crate::report::json::figures;
use crate::report::ordered::J;
use crate::subject::Subject;

/// A probe as a manifest writes it: the handler kept from the manifest, then its timing.
fn probe(subject: &Subject, container: usize, kind: ProbeKind, p: &ProbeSpec) -> J {
    // The handler of this probe as written, else of the probe the new one copies.
    let handler = subject
        .handler(container, kind)
        .or_else(|| {
            [
                ProbeKind::Liveness,
                ProbeKind::Readiness,
                ProbeKind::Startup,
            ]
            .into_iter()
            .find_map(|k| subject.handler(container, k))
        })
        .unwrap_or(J::Obj(Vec::new()));
    let mut fields = match handler {
        J::Obj(f) => f,
        other => vec![("handler", other)],
    };
    if p.initial_delay_seconds() != 0 {
        fields.push((
            "initialDelaySeconds",
            J::int(p.initial_delay_seconds().unsigned_abs()),
        ));
    }
    fields.push(("periodSeconds", J::int(p.period_seconds().unsigned_abs())));
    fields.push(("timeoutSeconds", J::int(p.timeout_seconds().unsigned_abs())));
    fields.push((
        "failureThreshold",
        J::int(p.failure_threshold().unsigned_abs()),
    ));
    if p.success_threshold() != 1 {
        fields.push((
            "successThreshold",
            J::int(p.success_threshold().unsigned_abs()),
        ));
    }
    if let Some(g) = p.termination_grace_period_seconds() {
        fields.push(("terminationGracePeriodSeconds", J::Num(g.to_string())));
    }
    J::Obj(fields)
}

const ORDER: [ProbeKind; 3] = [
    ProbeKind::Startup,
    ProbeKind::Liveness,
    ProbeKind::Readiness,
];

fn key(kind: ProbeKind) -> &'static str {
    kind.field()
}

fn v(f: &Figure, max: bool) -> String {
    let e = if max { f.max } else { f.min };
    e.value
        .map_or_else(|| "never".to_owned(), |d| format!("{d}s"))
}

/// The requirements as the figures they constrain.
#[must_use]
pub fn describe(req: &Requirements) -> String {
    let mut parts = Vec::new();
    if let Some(d) = req.startup_up_to {
        parts.push(format!("startupBudget.min >= {d}s"));
    }
    if let Some(d) = req.detect_hang_within {
        parts.push(format!("hangDetection.kill.max <= {d}s"));
    }
    if let Some(d) = req.not_ready_within {
        parts.push(format!("readiness.toNotReady.max <= {d}s"));
    }
    if parts.is_empty() {
        "no requirement".to_owned()
    } else {
        parts.join(", ")
    }
}

fn summary(f: &ContainerFigures) -> String {
    let budget = f
        .startup_budget
        .as_ref()
        .map_or_else(|| "unlimited".to_owned(), |b| v(b, false));
    let not_ready = f
        .readiness
        .to_not_ready
        .as_ref()
        .map_or_else(|| "never".to_owned(), |n| v(n, true));
    format!(
        "startupBudget.min {budget}, hangDetection.kill.max {}, hangDetection.restarted.max {}, readiness.toReady.max {}, readiness.toNotReady.max {not_ready}",
        v(&f.hang.kill, true),
        v(&f.hang.restarted, true),
        v(&f.readiness.to_ready, true)
    )
}

/// The candidates as YAML to paste under the container, each with its figures in comments.
#[must_use]
pub fn recommendation_text(
    subject: &Subject,
    container: usize,
    req: &Requirements,
    search: &Search,
) -> String {
    let name = &subject.pod.containers[container].name;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} ({}), container {name}: {}",
        subject.name,
        subject.file,
        describe(req)
    );
    if let Some(line) = subject.overridden_line() {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(
        out,
        "# searched {} configurations with {} simulations on {} thread{}; every candidate below was checked by a full analysis",
        search.configurations,
        search.simulations,
        search.threads,
        if search.threads == 1 { "" } else { "s" }
    );
    if search.candidates.is_empty() {
        out.push_str("# no configuration in the search space meets every requirement\n");
    }
    for (i, c) in search.candidates.iter().enumerate() {
        let _ = writeln!(out, "\n# candidate {}: {}", i + 1, summary(&c.figures));
        for kind in ORDER {
            if let Some(p) = &c.probes[kind.index()] {
                let _ = writeln!(out, "{}:", key(kind));
                out.push_str(&probe(subject, container, kind, p).yaml(2));
            }
        }
    }
    out
}

/// The candidates as JSON: `{"candidates": [{"startupProbe": …, "livenessProbe": …,
/// "readinessProbe": …, "figures": …}]}`, with `"overridden": ["--set …", …]` after
/// `container` when the command line edited the pod.
#[must_use]
pub fn recommendation_json(
    subject: &Subject,
    container: usize,
    req: &Requirements,
    search: &Search,
) -> String {
    let opt = |d: Option<probesim_core::SimDuration>| J::opt_secs(d);
    let candidates = search
        .candidates
        .iter()
        .map(|c| {
            let mut m = Vec::new();
            for kind in ORDER {
                m.push((
                    key(kind),
                    c.probes[kind.index()]
                        .as_ref()
                        .map_or(J::Null, |p| probe(subject, container, kind, p)),
                ));
            }
            m.push(("figures", J::Obj(figures(&c.figures))));
            J::Obj(m)
        })
        .collect();
    let mut doc = vec![
        ("probesim", J::int(1u8)),
        ("workload", J::str(subject.name.clone())),
        (
            "container",
            J::str(subject.pod.containers[container].name.clone()),
        ),
    ];
    if !subject.overridden.is_empty() {
        doc.push(("overridden", subject.overridden_json()));
    }
    doc.extend([
        (
            "requirements",
            J::Obj(vec![
                ("startupUpTo", opt(req.startup_up_to)),
                ("detectHangWithin", opt(req.detect_hang_within)),
                ("notReadyWithin", opt(req.not_ready_within)),
            ]),
        ),
        ("configurations", J::int(search.configurations)),
        ("simulations", J::int(search.simulations)),
        ("threads", J::int(search.threads as u64)),
        ("candidates", J::Arr(candidates)),
    ]);
    J::Obj(doc).render()
}
