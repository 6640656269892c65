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
        parts.push(format!(
            "readiness.toNotReady.max <= {d}s, also when only readiness fails"
        ));
    }
    if let Some(d) = req.tolerate_blip {
        parts.push(format!(
            "no kill and no NotReady through a failure shorter than {d}s"
        ));
    }
    if let Some(d) = req.tolerate_stall {
        parts.push(format!("no kill through a stall shorter than {d}s"));
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

/// The figures a candidate is judged on, each with whether a smaller value is better.
fn headline(f: &ContainerFigures) -> [(&'static str, Option<probesim_core::SimDuration>, bool); 5] {
    [
        (
            "startupBudget.min",
            f.startup_budget.as_ref().and_then(|b| b.min.value),
            false,
        ),
        ("hangDetection.kill.max", f.hang.kill.max.value, true),
        (
            "hangDetection.restarted.max",
            f.hang.restarted.max.value,
            true,
        ),
        (
            "readiness.toReady.max",
            f.readiness.to_ready.max.value,
            true,
        ),
        (
            "readiness.toNotReady.max",
            f.readiness.to_not_ready.as_ref().and_then(|n| n.max.value),
            true,
        ),
    ]
}

/// Every figure that differs from the file's, `name before → after`, marked `(worse)` where it
/// gets worse. A start-up budget that no probe limits reads `unlimited`.
#[must_use]
pub fn changes(before: &ContainerFigures, after: &ContainerFigures) -> Vec<(String, bool)> {
    let show = |name: &str, v: Option<probesim_core::SimDuration>, f: &ContainerFigures| match v {
        Some(d) => format!("{d}s"),
        None if name == "startupBudget.min" && f.startup_budget.is_none() => "unlimited".to_owned(),
        None => "never".to_owned(),
    };
    let order = |v: Option<probesim_core::SimDuration>| {
        v.map_or((true, probesim_core::SimDuration::ZERO), |d| (false, d))
    };
    headline(before)
        .into_iter()
        .zip(headline(after))
        .filter(|((_, a, _), (_, b, _))| a != b)
        .map(|((name, a, smaller), (_, b, _))| {
            let worse = if smaller {
                order(b) > order(a)
            } else {
                order(b) < order(a)
            };
            (
                format!(
                    "{name} {} → {}",
                    show(name, a, before),
                    show(name, b, after)
                ),
                worse,
            )
        })
        .collect()
}

/// The robustness figures asked, in words: `readiness alone: toNotReady.max 9.999s; a blip of
/// 4.999s: not killed, stays Ready`.
fn robustness(req: &Requirements, r: &crate::recommend::Robustness) -> Option<String> {
    let mut parts = Vec::new();
    if req.not_ready_within.is_some() {
        parts.push(format!(
            "readiness failing alone: toNotReady.max {}",
            r.not_ready_alone
                .as_ref()
                .map_or_else(|| "never".to_owned(), |n| v(n, true))
        ));
    }
    let told = |what: &str, d: probesim_core::SimDuration, t: Option<crate::robust::Tolerance>| {
        let d = d.saturating_sub(probesim_core::SimDuration::from_millis(1));
        match t {
            None => format!("a {what} of {d}s: not simulated"),
            Some(t) => {
                let kill = t
                    .killed
                    .map_or_else(|| "not killed".to_owned(), |p| format!("killed ({p})"));
                let ready = t
                    .not_ready
                    .map_or_else(|| "stays Ready".to_owned(), |p| format!("not Ready ({p})"));
                format!("a {what} of {d}s at any phase: {kill}, {ready}")
            }
        }
    };
    if let Some(d) = req.tolerate_blip {
        parts.push(told("failure", d, r.blip));
    }
    if let Some(d) = req.tolerate_stall {
        parts.push(told("stall", d, r.stall));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
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
    let count = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let _ = write!(
        out,
        "# searched {} with {}",
        count(search.configurations, "configuration"),
        count(search.simulations, "simulation"),
    );
    if !search.candidates.is_empty() {
        out.push_str("; every candidate below was checked by a full analysis");
    }
    out.push('\n');
    if search.already {
        let _ = writeln!(
            out,
            "# the probes as written already meet every requirement ({}): nothing to change",
            summary(&search.current)
        );
    } else if search.candidates.is_empty() {
        out.push_str("# no configuration in the search space meets every requirement\n");
        for b in &search.binding {
            let _ = writeln!(
                out,
                "# binding: {}; the other requirements can be met, and then this reaches at best {}",
                b.requirement, b.best
            );
        }
        if search.binding.is_empty() {
            out.push_str("# no single requirement left out lets the others be met\n");
        }
    } else {
        let _ = writeln!(out, "# as written: {}", summary(&search.current));
        if let Some(r) = robustness(req, &search.current_robustness) {
            let _ = writeln!(out, "# as written: {r}");
        }
    }
    for (i, c) in search.candidates.iter().enumerate() {
        let _ = writeln!(out, "\n# candidate {}: {}", i + 1, summary(&c.figures));
        if let Some(r) = robustness(req, &c.robustness) {
            let _ = writeln!(out, "# {r}");
        }
        let list = changes(&search.current, &c.figures);
        if !list.is_empty() {
            let text: Vec<String> = list
                .iter()
                .map(|(t, worse)| {
                    if *worse {
                        format!("{t} (worse)")
                    } else {
                        t.clone()
                    }
                })
                .collect();
            let _ = writeln!(out, "# changes: {}", text.join(", "));
        }
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
            m.push((
                "changes",
                J::Arr(
                    changes(&search.current, &c.figures)
                        .into_iter()
                        .map(|(text, worse)| {
                            J::Obj(vec![("figure", J::str(text)), ("worse", J::Bool(worse))])
                        })
                        .collect(),
                ),
            ));
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
                ("tolerateBlip", opt(req.tolerate_blip)),
                ("tolerateStall", opt(req.tolerate_stall)),
            ]),
        ),
        ("configurations", J::int(search.configurations)),
        ("simulations", J::int(search.simulations)),
        ("alreadyMet", J::Bool(search.already)),
        ("current", J::Obj(figures(&search.current))),
        ("candidates", J::Arr(candidates)),
    ]);
    J::Obj(doc).render()
}
