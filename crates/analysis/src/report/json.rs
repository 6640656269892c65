//! `--format json`.

use crate::figure::{ContainerFigures, Figure, GridPhase};
use crate::report::ordered::J;
use crate::report::WorkloadReport;
use crate::requirement::Verdict;

fn phase(p: &GridPhase) -> J {
    let mut m = vec![("start", J::secs(p.start))];
    if let Some(c) = p.change {
        m.push(("change", J::secs(c)));
    }
    if let Some(r) = p.restart {
        m.push(("restart", J::secs(r)));
    }
    if let Some(s) = p.seed {
        m.push(("seed", J::int(s)));
    }
    J::Obj(m)
}

/// A figure: `{"min": …, "max": …, "phases": {"min": {…}, "max": {…}}}`.
pub(crate) fn figure(f: &Figure) -> J {
    J::Obj(vec![
        ("min", J::opt_secs(f.min.value)),
        ("max", J::opt_secs(f.max.value)),
        (
            "phases",
            J::Obj(vec![
                ("min", phase(&f.min.phase)),
                ("max", phase(&f.max.phase)),
            ]),
        ),
    ])
}

/// The figures of one container, as in the `containers` list.
pub(crate) fn figures(c: &ContainerFigures) -> Vec<(&'static str, J)> {
    vec![
        (
            "startupBudget",
            c.startup_budget.as_ref().map_or(J::Null, figure),
        ),
        (
            "hangDetection",
            J::Obj(vec![
                ("kill", figure(&c.hang.kill)),
                ("exit", figure(&c.hang.exit)),
                ("restarted", figure(&c.hang.restarted)),
            ]),
        ),
        (
            "readiness",
            J::Obj(vec![
                ("toReady", figure(&c.readiness.to_ready)),
                (
                    "toNotReady",
                    c.readiness.to_not_ready.as_ref().map_or(J::Null, figure),
                ),
            ]),
        ),
        (
            "crashLoop",
            c.crash_loop.as_ref().map_or(J::Null, |l| {
                J::Obj(vec![
                    (
                        "restarts",
                        J::Arr(l.restarts.iter().map(|d| J::secs(*d)).collect()),
                    ),
                    ("backOff", figure(&l.back_off)),
                    ("cycle", figure(&l.cycle)),
                ])
            }),
        ),
    ]
}

fn container(c: &ContainerFigures) -> J {
    let mut m = vec![("name", J::str(c.name.clone()))];
    if c.sidecar {
        m.push(("sidecar", J::Bool(true)));
    }
    m.extend(figures(c));
    m.push((
        "sweep",
        J::Obj(vec![
            ("cycle", J::secs(c.space.cycle)),
            ("offsets", J::int(c.space.offsets.len() as u64)),
            ("seeds", J::int(c.space.seeds.len() as u64)),
            ("jitter", J::Bool(c.space.jitter)),
            ("truncated", J::Bool(c.space.truncated)),
            ("simulations", J::int(c.simulations)),
        ]),
    ));
    J::Obj(m)
}

/// The analysis as one JSON document:
/// `{"probesim": 1, "kubernetes": …, "workloads": [{"name": …, "containers": […], "findings": […]}]}`,
/// each workload with `"overridden": ["--set …", …]` after its `file` when the command line
/// edited it,
/// with `"requirements": [{"require": …, "workload": …, "value": …, "phase": …, "holds": …}]`
/// when requirements were checked.
#[must_use]
pub fn json(kubernetes: &str, workloads: &[WorkloadReport], requirements: &[Verdict]) -> String {
    let workloads = workloads
        .iter()
        .map(|w| {
            let mut head = vec![
                ("name", J::str(w.subject.name.clone())),
                ("file", J::str(w.subject.file.clone())),
            ];
            if !w.subject.overridden.is_empty() {
                head.push(("overridden", w.subject.overridden_json()));
            }
            head.extend([
                (
                    "containers",
                    J::Arr(w.containers.iter().map(container).collect()),
                ),
                (
                    "findings",
                    J::Arr(
                        w.findings
                            .iter()
                            .map(|f| {
                                let mut m = vec![
                                    ("id", J::str(f.rule.id)),
                                    ("severity", J::str(f.rule.severity.as_str())),
                                    ("container", J::str(f.container.clone())),
                                    ("path", J::str(f.path.clone())),
                                ];
                                if let Some((line, col)) = f.at {
                                    m.push(("line", J::int(line as u64)));
                                    m.push(("column", J::int(col as u64)));
                                }
                                m.push(("message", J::str(f.message.clone())));
                                if let Some(fix) = &f.fix {
                                    m.push((
                                        "fix",
                                        J::Obj(vec![
                                            ("change", J::str(fix.change.clone())),
                                            ("effect", J::str(fix.effect.clone())),
                                        ]),
                                    ));
                                }
                                J::Obj(m)
                            })
                            .collect(),
                    ),
                ),
            ]);
            J::Obj(head)
        })
        .collect();
    let mut doc = vec![
        ("probesim", J::int(1u8)),
        ("kubernetes", J::str(kubernetes)),
        ("workloads", J::Arr(workloads)),
    ];
    if !requirements.is_empty() {
        let verdicts = requirements
            .iter()
            .map(|v| {
                J::Obj(vec![
                    ("require", J::str(v.requirement.text.clone())),
                    ("workload", J::str(v.workload.clone())),
                    ("container", J::str(v.requirement.container.clone())),
                    ("value", J::opt_secs(v.value)),
                    ("phase", v.phase.as_ref().map_or(J::Null, phase)),
                    ("holds", J::Bool(v.holds)),
                ])
            })
            .collect();
        doc.push(("requirements", J::Arr(verdicts)));
    }
    J::Obj(doc).render()
}
