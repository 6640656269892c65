//! Fixes for findings, each simulated before it is offered: the container's probes with the
//! change, analysed again with every figure, kept only when the finding is gone, no finding the
//! original did not have appears, and the figure the finding is about moved the right way.
//! The fix then carries its change and the measured effect (`startupBudget.min 29.001s →
//! 60.001s`).

use probesim_core::{ProbeKind, ProbeSpec, ProbeTiming, SimDuration};

use crate::analyze::{AnalysisError, Analyzer, Want};
use crate::figure::{ContainerFigures, Figure};
use crate::finding::{self, Finding};
use crate::recommend::{recommend, RecommendError, Requirements};
use crate::subject::Subject;
use crate::sweep::Sweep;

/// A simulated fix of one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What to change, field by field (`livenessProbe.timeoutSeconds: 5 → 4`, `add startupProbe
    /// {periodSeconds: 10, failureThreshold: 5} with the handler of the livenessProbe`).
    pub change: String,
    /// The measured effect on the figure the finding is about (`hangDetection.kill.max 50.999s →
    /// 45.999s`).
    pub effect: String,
    /// The container's probes with the fix, indexed like [`ProbeKind::ALL`].
    pub probes: [Option<ProbeSpec>; 3],
    /// The container, in the engine's numbering (init containers first).
    pub container: usize,
    /// The figures of the container with the fix.
    pub figures: ContainerFigures,
}

fn s(v: Option<SimDuration>) -> String {
    v.map_or_else(|| "never".to_owned(), |d| format!("{d}s"))
}

/// `p` with its timing fields changed by `f`; `None` when the result is not a valid probe.
#[must_use]
pub fn retime(p: &ProbeSpec, f: impl FnOnce(&mut ProbeTiming)) -> Option<ProbeSpec> {
    let mut t = p.timing();
    f(&mut t);
    ProbeSpec::new(p.handler().clone(), t).ok()
}

/// The fields of a probe that differ from `before` (all of them against the API defaults for
/// a new probe), as `name: value` pairs.
fn fields(before: Option<&ProbeSpec>, after: &ProbeSpec) -> Vec<(&'static str, String, String)> {
    let b = before.map_or_else(ProbeTiming::default, ProbeSpec::timing);
    let a = after.timing();
    let grace = |g: Option<i64>| g.map_or_else(|| "unset".to_owned(), |g| g.to_string());
    let mut out = Vec::new();
    let mut field = |name: &'static str, x: i32, y: i32| {
        if x != y {
            out.push((name, x.to_string(), y.to_string()));
        }
    };
    field(
        "initialDelaySeconds",
        b.initial_delay_seconds,
        a.initial_delay_seconds,
    );
    field("periodSeconds", b.period_seconds, a.period_seconds);
    field("timeoutSeconds", b.timeout_seconds, a.timeout_seconds);
    field("successThreshold", b.success_threshold, a.success_threshold);
    field("failureThreshold", b.failure_threshold, a.failure_threshold);
    if b.termination_grace_period_seconds != a.termination_grace_period_seconds {
        out.push((
            "terminationGracePeriodSeconds",
            grace(b.termination_grace_period_seconds),
            grace(a.termination_grace_period_seconds),
        ));
    }
    out
}

/// The change from `before` to `after`, probe by probe, field by field.
#[must_use]
pub fn describe_change(before: &[Option<ProbeSpec>; 3], after: &[Option<ProbeSpec>; 3]) -> String {
    let mut parts = Vec::new();
    for kind in ProbeKind::ALL {
        let (b, a) = (&before[kind.index()], &after[kind.index()]);
        match (b, a) {
            (None, None) => {}
            (Some(_), None) => parts.push(format!("remove {}", kind.field())),
            (None, Some(a)) => {
                let list: Vec<String> = fields(None, a)
                    .into_iter()
                    .map(|(n, _, v)| format!("{n}: {v}"))
                    .collect();
                let like = ProbeKind::ALL
                    .into_iter()
                    .find(|k| {
                        before[k.index()]
                            .as_ref()
                            .is_some_and(|p| p.handler() == a.handler())
                    })
                    .map_or_else(String::new, |k| {
                        format!(" with the handler of the {}", k.field())
                    });
                parts.push(format!(
                    "add {} {{{}}}{like}",
                    kind.field(),
                    list.join(", ")
                ));
            }
            (Some(b), Some(a)) => {
                for (n, x, y) in fields(Some(b), a) {
                    parts.push(format!("{}.{n}: {x} → {y}", kind.field()));
                }
            }
        }
    }
    parts.join("; ")
}

/// Which figure a finding is about, and whether smaller is better.
fn figure_of(id: &str, kind: Option<ProbeKind>) -> Option<(&'static str, bool)> {
    Some(match (id, kind) {
        ("startup-budget-below-expected" | "liveness-before-ready", _) => {
            ("startupBudget.min", false)
        }
        ("timeout-not-less-than-period", Some(ProbeKind::Liveness)) => {
            ("hangDetection.kill.max", true)
        }
        ("timeout-not-less-than-period", Some(ProbeKind::Readiness)) => {
            ("readiness.toNotReady.max", true)
        }
        ("timeout-not-less-than-period", Some(ProbeKind::Startup)) => ("startupBudget.max", true),
        ("initial-delay-shadowed-by-startup", Some(ProbeKind::Readiness)) => {
            ("readiness.toReady.min", true)
        }
        ("initial-delay-shadowed-by-startup", Some(ProbeKind::Liveness)) => {
            ("startupBudget.min", true)
        }
        ("grace-dominates-recovery", _) => ("hangDetection.restarted.max", true),
        _ => return None,
    })
}

/// Reads a figure by name (`None` inside: never; outer `None`: not computed).
fn read(f: &ContainerFigures, name: &str) -> Option<Option<SimDuration>> {
    let min = |x: &Figure| x.min.value;
    let max = |x: &Figure| x.max.value;
    Some(match name {
        "startupBudget.min" => f.startup_budget.as_ref().and_then(min),
        "startupBudget.max" => f.startup_budget.as_ref().and_then(max),
        "hangDetection.kill.max" => max(&f.hang.kill),
        "hangDetection.restarted.max" => max(&f.hang.restarted),
        "readiness.toReady.min" => min(&f.readiness.to_ready),
        "readiness.toNotReady.max" => f.readiness.to_not_ready.as_ref().and_then(max),
        _ => return None,
    })
}

/// Orders values with never after every duration.
fn key(v: Option<SimDuration>) -> (bool, SimDuration) {
    v.map_or((true, SimDuration::ZERO), |d| (false, d))
}

/// The probe kind a finding's path names (`….livenessProbe.timeoutSeconds`).
fn kind_of(path: &str) -> Option<ProbeKind> {
    ProbeKind::ALL
        .into_iter()
        .find(|k| path.contains(&format!(".{}", k.field())))
}

/// The start-up time a finding's container must survive, from what the subject declares.
fn needed_startup(subject: &Subject, container: usize) -> Option<SimDuration> {
    let init = subject.pod.init_containers.len();
    let regular = container.checked_sub(init)?;
    subject
        .declared_startup
        .iter()
        .filter(|(c, _, _)| *c == regular)
        .map(|(_, d, _)| *d)
        .chain(subject.expect_startup)
        .max()
}

/// The candidate probes of a fix for `finding`, best first, before simulation.
fn propose(
    subject: &Subject,
    figures: &ContainerFigures,
    f: &Finding,
    sweep: Sweep,
) -> Result<Vec<[Option<ProbeSpec>; 3]>, AnalysisError> {
    let index = figures.index;
    let probes = subject.pod.container(index).probes.clone();
    let kind = kind_of(&f.path);
    let init = subject.pod.init_containers.len();
    // The recommender's candidates for a start-up budget; where one adds a startup probe, also
    // the same without the initial delays that probe makes pointless.
    let search = |need: SimDuration| -> Result<Vec<[Option<ProbeSpec>; 3]>, AnalysisError> {
        let Some(regular) = index.checked_sub(init) else {
            return Ok(Vec::new());
        };
        let req = Requirements {
            startup_up_to: Some(need),
            ..Requirements::default()
        };
        let found = match recommend(subject, regular, &req, sweep, 4) {
            Ok(found) => found.candidates,
            Err(RecommendError::Analysis(e)) => return Err(e),
            // No handler, a start beyond the search, or a search too costly: no fix offered.
            Err(_) => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        for c in found {
            out.push(c.probes.clone());
            if c.probes[ProbeKind::Startup.index()].is_some() {
                let mut undelayed = c.probes.clone();
                for k in [ProbeKind::Liveness, ProbeKind::Readiness] {
                    if let Some(p) = &c.probes[k.index()] {
                        undelayed[k.index()] = retime(p, |t| t.initial_delay_seconds = 0);
                    }
                }
                if undelayed != c.probes
                    && undelayed
                        .iter()
                        .zip(&c.probes)
                        .all(|(a, b)| a.is_some() == b.is_some())
                {
                    out.push(undelayed);
                }
            }
        }
        Ok(out)
    };
    let mut out = probes.clone();
    match f.rule.id {
        "startup-budget-below-expected" => {
            return match needed_startup(subject, index) {
                Some(need) => search(need),
                None => Ok(Vec::new()),
            };
        }
        "liveness-before-ready" => {
            return match figures.readiness.to_ready.max.value {
                Some(need) => search(need),
                None => Ok(Vec::new()),
            };
        }
        "timeout-not-less-than-period" => {
            let Some(p) = kind.and_then(|k| probes[k.index()].as_ref()) else {
                return Ok(Vec::new());
            };
            if p.period_seconds() < 2 {
                return Ok(Vec::new());
            }
            out[p_index(kind)] = retime(p, |t| t.timeout_seconds = t.period_seconds - 1);
        }
        "initial-delay-shadowed-by-startup" => {
            let Some(p) = kind.and_then(|k| probes[k.index()].as_ref()) else {
                return Ok(Vec::new());
            };
            out[p_index(kind)] = retime(p, |t| t.initial_delay_seconds = 0);
        }
        "grace-dominates-recovery" => {
            let Some(p) = &probes[ProbeKind::Liveness.index()] else {
                return Ok(Vec::new());
            };
            // A probe-level grace period shorter than detection: half of it, at least 1s.
            let kill = figures
                .hang
                .kill
                .max
                .value
                .map_or(0, SimDuration::whole_secs);
            let grace = i64::try_from(kill / 2).unwrap_or(1).max(1);
            out[ProbeKind::Liveness.index()] =
                retime(p, |t| t.termination_grace_period_seconds = Some(grace));
        }
        _ => return Ok(Vec::new()),
    }
    // A probe that could not be rebuilt is no fix.
    let rebuilt = out
        .iter()
        .zip(&probes)
        .all(|(a, b)| a.is_some() == b.is_some());
    Ok(if rebuilt { vec![out] } else { Vec::new() })
}

fn p_index(kind: Option<ProbeKind>) -> usize {
    kind.map_or(0, ProbeKind::index)
}

/// Whether a simulated fix holds: the finding is gone, no finding of the container that the
/// original did not have appears, and the figure moved the right way.
#[allow(clippy::too_many_arguments)]
fn holds(
    fixed: &Subject,
    figures: &[ContainerFigures],
    before: &[Finding],
    f: &Finding,
    after: &ContainerFigures,
    figure: &str,
    smaller: bool,
    figs: &ContainerFigures,
) -> bool {
    let mut all: Vec<ContainerFigures> = figures.to_vec();
    if let Some(slot) = all.iter_mut().find(|c| c.index == after.index) {
        *slot = after.clone();
    }
    let now = finding::findings(fixed, &all);
    let mine = |list: &[Finding]| -> Vec<&'static str> {
        list.iter()
            .filter(|g| g.container == f.container)
            .map(|g| g.rule.id)
            .collect()
    };
    let (was, is) = (mine(before), mine(&now));
    let gone = !now
        .iter()
        .any(|g| g.container == f.container && g.rule.id == f.rule.id && g.path == f.path);
    if !gone || is.iter().any(|id| !was.contains(id)) {
        return false;
    }
    let (Some(old), Some(new)) = (read(figs, figure), read(after, figure)) else {
        return false;
    };
    if smaller {
        key(new) < key(old)
    } else {
        key(new) > key(old)
    }
}

/// Proposes, simulates and attaches a fix to every finding that has one, and returns the
/// simulations run.
///
/// # Errors
/// A stuck engine.
pub fn measure(
    subject: &Subject,
    figures: &[ContainerFigures],
    findings: &mut [Finding],
    sweep: Sweep,
) -> Result<u64, AnalysisError> {
    let mut simulations = 0;
    let before = findings.to_vec();
    for f in findings.iter_mut() {
        let Some(index) = subject.pod.index_of(&f.container) else {
            continue;
        };
        let Some(figs) = figures.iter().find(|c| c.index == index) else {
            continue;
        };
        let Some((figure, smaller)) = figure_of(f.rule.id, kind_of(&f.path)) else {
            continue;
        };
        let original = &subject.pod.container(index).probes;
        for probes in propose(subject, figs, f, sweep)? {
            if &probes == original {
                continue;
            }
            let mut fixed = subject.clone();
            if index < fixed.pod.init_containers.len() {
                fixed.pod.init_containers[index].probes = probes.clone();
            } else {
                let i = index - fixed.pod.init_containers.len();
                fixed.pod.containers[i].probes = probes.clone();
            }
            let analyzer = Analyzer::new(&fixed, sweep);
            let after = analyzer.container(index, Want::ALL)?;
            simulations += analyzer.simulations();
            if !holds(&fixed, figures, &before, f, &after, figure, smaller, figs) {
                continue;
            }
            let (old, new) = (read(figs, figure).flatten(), read(&after, figure).flatten());
            f.fix = Some(Fix {
                change: describe_change(original, &probes),
                effect: format!("{figure} {} → {}", s(old), s(new)),
                probes,
                container: index,
                figures: after,
            });
            break;
        }
    }
    Ok(simulations)
}
