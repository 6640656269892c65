//! The recommender: the simplest probe settings that meet timing requirements in the worst
//! phase, each checked by a full analysis before it is offered.
//!
//! The search keeps each probe's handler and varies its timing (period, failure threshold,
//! timeout, initial delay) over a small grid of values people actually write. The probes are
//! searched in the order their figures depend on each other: liveness for hang detection,
//! then a startup probe (or none) for the start-up budget with that liveness, then readiness
//! for the time to not-Ready. Every configuration is judged by simulation ([`Analyzer`]), the
//! configurations of a step spread over every core ([`Sweep`]); the combined candidates are
//! analysed once more, with every figure, and only those meeting every requirement are kept.

use core::fmt;

use probesim_core::{ProbeSpec, ProbeTiming, SimDuration};

use std::sync::Arc;

use crate::analyze::{AnalysisError, Analyzer, Hms, Want, Work};
use crate::figure::ContainerFigures;
use crate::subject::Subject;
use crate::sweep::Sweep;

/// What the probes must achieve, each in the worst phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requirements {
    /// `--startup-up-to`: `startupBudget.min` at least this.
    pub startup_up_to: Option<SimDuration>,
    /// `--detect-hang-within`: `hangDetection.kill.max` at most this.
    pub detect_hang_within: Option<SimDuration>,
    /// `--not-ready-within`: `readiness.toNotReady.max` at most this.
    pub not_ready_within: Option<SimDuration>,
}

impl Requirements {
    /// Whether a container's figures meet every requirement.
    #[must_use]
    pub fn met_by(&self, f: &ContainerFigures) -> bool {
        self.startup_met(f) && self.hang_met(f) && self.not_ready_met(f)
    }

    fn startup_met(&self, f: &ContainerFigures) -> bool {
        self.startup_up_to.is_none_or(|need| {
            // No probe that can kill: nothing limits the start.
            f.startup_budget
                .as_ref()
                .is_none_or(|b| b.min.value.is_none_or(|v| v >= need))
        })
    }

    fn hang_met(&self, f: &ContainerFigures) -> bool {
        self.detect_hang_within
            .is_none_or(|d| f.hang.kill.max.value.is_some_and(|v| v <= d))
    }

    fn not_ready_met(&self, f: &ContainerFigures) -> bool {
        self.not_ready_within.is_none_or(|d| {
            f.readiness
                .to_not_ready
                .as_ref()
                .is_some_and(|n| n.max.value.is_some_and(|v| v <= d))
        })
    }
}

/// Why no search could run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecommendError {
    /// The container has no probe whose handler the new probes could use.
    NoHandler {
        /// The container.
        container: String,
    },
    /// `--startup-up-to` asks for more than [`MAX_STARTUP_UP_TO`].
    StartupBeyond {
        /// What was asked.
        need: SimDuration,
    },
    /// The search needs more than [`MAX_SEARCH_WORK`] steps of simulation.
    TooCostly {
        /// The container.
        container: String,
    },
    /// The engine got stuck.
    Analysis(AnalysisError),
}

impl fmt::Display for RecommendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecommendError::NoHandler { container } => write!(
                f,
                "container {container} has no probe: add one (its handler says how to reach the app) and probesim recommends its timing"
            ),
            RecommendError::StartupBeyond { need } => write!(
                f,
                "--startup-up-to {} is more than the recommender searches ({} at most): a start that slow needs a startup probe with failureThreshold \u{d7} periodSeconds above it, which probesim analyze can check",
                Hms(*need),
                Hms(MAX_STARTUP_UP_TO)
            ),
            RecommendError::TooCostly { container } => write!(
                f,
                "container {container}: the search needs more than {MAX_SEARCH_WORK} simulation steps, its limit; ask for less, or analyse the probes you have with probesim analyze (docs/analysis.md, \"Limits\")"
            ),
            RecommendError::Analysis(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RecommendError {}

impl From<AnalysisError> for RecommendError {
    fn from(e: AnalysisError) -> RecommendError {
        match e {
            // The configurations judged in parallel share the search's budget: whichever
            // reaches the limit first, the search says the same.
            AnalysisError::TooCostly { container, .. } => RecommendError::TooCostly { container },
            e => RecommendError::Analysis(e),
        }
    }
}

/// The longest start-up `--startup-up-to` may ask for: a day. The search tries startup probes
/// up to a failure threshold of 1000 and liveness initial delays up to the budget, each judged
/// by a full analysis whose simulations span the budget.
pub const MAX_STARTUP_UP_TO: SimDuration = SimDuration::from_secs(86_400);

/// The most simulation work one search may do, in the steps of [`crate::analyze::MAX_WORK`]
/// (a search judges a few hundred configurations).
pub const MAX_SEARCH_WORK: u64 = 50 * crate::analyze::MAX_WORK;

/// One recommended configuration, with its figures.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The probes, indexed like [`probesim_core::ProbeKind::ALL`] (startup, readiness, liveness).
    pub probes: [Option<ProbeSpec>; 3],
    /// The figures of the container with these probes.
    pub figures: ContainerFigures,
    /// How far the configuration is from the API defaults (probes and changed fields).
    pub complexity: u32,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct Search {
    /// The candidates, simplest first.
    pub candidates: Vec<Candidate>,
    /// Configurations judged.
    pub configurations: u64,
    /// Simulations run.
    pub simulations: u64,
    /// Threads used.
    pub threads: usize,
}

const LIVENESS_PERIODS: &[i32] = &[1, 2, 3, 5, 10, 15, 20, 30];
const LIVENESS_FAILURES: &[i32] = &[1, 2, 3, 4, 5, 6];
const TIMEOUTS: &[i32] = &[1, 2, 3, 5];
const READINESS_PERIODS: &[i32] = &[1, 2, 3, 5, 10];
const READINESS_FAILURES: &[i32] = &[1, 2, 3];
const STARTUP_PERIODS: &[i32] = &[10, 5, 2];
const MAX_THRESHOLD: i32 = 1000;

/// Fields that differ from the API defaults (P53), plus one for the probe itself.
///
/// An initial delay counts three: it postpones the probe at every start, fast ones included, so
/// a startup probe (which lets a fast start through at once) ranks before a liveness delay of
/// the same budget (the advice of the Kubernetes documentation for slow starts).
fn complexity(p: &ProbeSpec) -> u32 {
    let d = ProbeTiming::default();
    1 + 3 * u32::from(p.initial_delay_seconds() != d.initial_delay_seconds)
        + u32::from(p.timeout_seconds() != d.timeout_seconds)
        + u32::from(p.period_seconds() != d.period_seconds)
        + u32::from(p.success_threshold() != d.success_threshold)
        + u32::from(p.failure_threshold() != d.failure_threshold)
}

fn total(probes: &[Option<ProbeSpec>; 3]) -> u32 {
    probes.iter().flatten().map(complexity).sum()
}

/// A probe with `template`'s handler (and probe-level grace) and new timing.
fn with_timing(template: &ProbeSpec, period: i32, failure: i32, timeout: i32) -> Option<ProbeSpec> {
    let timing = ProbeTiming {
        initial_delay_seconds: 0,
        timeout_seconds: timeout,
        period_seconds: period,
        success_threshold: 1,
        failure_threshold: failure,
        termination_grace_period_seconds: template.termination_grace_period_seconds(),
    };
    ProbeSpec::new(template.handler().clone(), timing).ok()
}

/// `p` with another initial delay.
fn with_delay(p: &ProbeSpec, delay: i32) -> Option<ProbeSpec> {
    let timing = ProbeTiming {
        initial_delay_seconds: delay,
        timeout_seconds: p.timeout_seconds(),
        period_seconds: p.period_seconds(),
        success_threshold: p.success_threshold(),
        failure_threshold: p.failure_threshold(),
        termination_grace_period_seconds: p.termination_grace_period_seconds(),
    };
    ProbeSpec::new(p.handler().clone(), timing).ok()
}

struct Searcher<'a> {
    subject: &'a Subject,
    container: usize,
    sweep: Sweep,
    configurations: u64,
    simulations: u64,
    work: Arc<Work>,
}

impl Searcher<'_> {
    /// Judges configurations in parallel, each analysed on one thread.
    fn judge(
        &mut self,
        configs: &[[Option<ProbeSpec>; 3]],
        want: Want,
    ) -> Result<Vec<ContainerFigures>, AnalysisError> {
        let (subject, container) = (self.subject, self.container);
        let engine = subject.pod.init_containers.len() + container;
        // Fewer configurations than threads: spread each one's phases instead.
        let inner = if configs.len() < self.sweep.threads() {
            self.sweep
        } else {
            Sweep::single()
        };
        let outer = if configs.len() < self.sweep.threads() {
            Sweep::single()
        } else {
            self.sweep
        };
        let results = outer.run(configs, |probes| {
            let mut s = subject.clone();
            s.pod.containers[container].probes = probes.clone();
            let a = Analyzer::sharing(&s, inner, Arc::clone(&self.work));
            a.container(engine, want)
        });
        let results: Result<Vec<_>, _> = results.into_iter().collect();
        let results = results?;
        self.configurations += configs.len() as u64;
        self.simulations += results.iter().map(|f| f.simulations).sum::<u64>();
        Ok(results)
    }
}

const ONLY_HANG: Want = Want {
    startup: false,
    hang: true,
    readiness: false,
    crash_loop: false,
};
const ONLY_STARTUP: Want = Want {
    startup: true,
    hang: false,
    readiness: false,
    crash_loop: false,
};
const ONLY_READINESS: Want = Want {
    startup: false,
    hang: false,
    readiness: true,
    crash_loop: false,
};

/// Searches probe settings for `container` (an index into the pod's regular containers) that
/// meet `req`, and returns up to `n` candidates, simplest first.
///
/// # Errors
/// A container without any probe handler to reuse, or a stuck engine.
pub fn recommend(
    subject: &Subject,
    container: usize,
    req: &Requirements,
    sweep: Sweep,
    n: usize,
) -> Result<Search, RecommendError> {
    let spec = &subject.pod.containers[container];
    let [s0, r0, l0] = spec.probes.clone();
    let template = l0
        .clone()
        .or_else(|| r0.clone())
        .or_else(|| s0.clone())
        .ok_or_else(|| RecommendError::NoHandler {
            container: spec.name.clone(),
        })?;
    if let Some(need) = req.startup_up_to.filter(|&n| n > MAX_STARTUP_UP_TO) {
        return Err(RecommendError::StartupBeyond { need });
    }
    let mut searcher = Searcher {
        subject,
        container,
        sweep,
        configurations: 0,
        simulations: 0,
        work: Work::new(MAX_SEARCH_WORK),
    };
    // 1. Liveness, for hang detection (the startup probe does not matter once started).
    let mut livenesses: Vec<Option<ProbeSpec>> = Vec::new();
    if req.detect_hang_within.is_some() {
        let base = l0.as_ref().unwrap_or(&template);
        let mut configs = Vec::new();
        for &period in LIVENESS_PERIODS {
            for &failure in LIVENESS_FAILURES {
                for &timeout in TIMEOUTS {
                    if timeout >= period && !(period == 1 && timeout == 1) {
                        continue;
                    }
                    if let Some(p) = with_timing(base, period, failure, timeout) {
                        configs.push([None, None, Some(p)]);
                    }
                }
            }
        }
        let figures = searcher.judge(&configs, ONLY_HANG)?;
        let mut ok: Vec<(u32, i32, ProbeSpec)> = configs
            .into_iter()
            .zip(&figures)
            .filter(|(_, f)| req.hang_met(f))
            .filter_map(|([_, _, l], _)| l)
            .map(|l| (complexity(&l), -l.period_seconds(), l))
            .collect();
        // Simplest first; then the fewest probes per second, the most tolerant threshold and
        // the longest timeout.
        ok.sort_by_key(|(c, p, l)| (*c, *p, -l.failure_threshold(), -l.timeout_seconds()));
        livenesses.extend(ok.into_iter().take(3).map(|(_, _, l)| Some(l)));
    } else {
        livenesses.push(l0.clone());
    }
    // 2. Startup, with each liveness: none if the liveness alone gives the budget, else the
    // smallest failure threshold per period.
    let mut pairs: Vec<(Option<ProbeSpec>, Option<ProbeSpec>)> = Vec::new();
    for liveness in &livenesses {
        let Some(need) = req.startup_up_to else {
            pairs.push((s0.clone(), liveness.clone()));
            continue;
        };
        let alone = searcher.judge(&[[None, None, liveness.clone()]], ONLY_STARTUP)?;
        if alone.iter().all(|f| req.startup_met(f)) {
            pairs.push((None, liveness.clone()));
            continue;
        }
        let base = s0.as_ref().unwrap_or(&template);
        for &period in STARTUP_PERIODS {
            let probes = |failure: i32| {
                with_timing(base, period, failure, 1).map(|s| [Some(s), None, liveness.clone()])
            };
            let meets =
                |searcher: &mut Searcher<'_>, failure: i32| -> Result<bool, AnalysisError> {
                    let Some(p) = probes(failure) else {
                        return Ok(false);
                    };
                    Ok(searcher
                        .judge(&[p], ONLY_STARTUP)?
                        .iter()
                        .all(|f| req.startup_met(f)))
                };
            // Bracket, then bisect: the budget grows with the threshold.
            let guess = i32::try_from(need.whole_secs() / u64::from(period.unsigned_abs()))
                .unwrap_or(MAX_THRESHOLD)
                .clamp(1, MAX_THRESHOLD);
            let (mut lo, mut hi) = (0, guess);
            while !meets(&mut searcher, hi)? {
                lo = hi;
                if hi >= MAX_THRESHOLD {
                    hi = 0;
                    break;
                }
                hi = (hi * 2).min(MAX_THRESHOLD);
            }
            if hi == 0 {
                continue;
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if meets(&mut searcher, mid)? {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            if let Some([s, _, _]) = probes(hi) {
                pairs.push((s, liveness.clone()));
            }
        }
        // Or no startup probe and the smallest liveness initial delay giving the budget.
        if let Some(l) = liveness {
            let meets = |searcher: &mut Searcher<'_>, delay: i32| -> Result<bool, AnalysisError> {
                let Some(p) = with_delay(l, delay) else {
                    return Ok(false);
                };
                Ok(searcher
                    .judge(&[[None, None, Some(p)]], ONLY_STARTUP)?
                    .iter()
                    .all(|f| req.startup_met(f)))
            };
            let top = i32::try_from(need.whole_secs().saturating_add(1)).unwrap_or(i32::MAX);
            if meets(&mut searcher, top)? {
                let (mut lo, mut hi) = (0, top);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if meets(&mut searcher, mid)? {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                pairs.push((None, with_delay(l, hi)));
            }
        }
    }
    // 3. Readiness, with the simplest liveness.
    let mut readinesses: Vec<Option<ProbeSpec>> = Vec::new();
    if req.not_ready_within.is_some() {
        let base = r0.as_ref().unwrap_or(&template);
        let liveness = livenesses.first().cloned().flatten();
        let mut configs = Vec::new();
        for &period in READINESS_PERIODS {
            for &failure in READINESS_FAILURES {
                if let Some(p) = with_timing(base, period, failure, 1) {
                    configs.push([None, Some(p), liveness.clone()]);
                }
            }
        }
        let figures = searcher.judge(&configs, ONLY_READINESS)?;
        let mut ok: Vec<(u32, i32, ProbeSpec)> = configs
            .into_iter()
            .zip(&figures)
            .filter(|(_, f)| req.not_ready_met(f))
            .filter_map(|([_, r, _], _)| r)
            .map(|r| (complexity(&r), -r.period_seconds(), r))
            .collect();
        ok.sort_by_key(|(c, p, r)| (*c, *p, -r.failure_threshold()));
        readinesses.extend(ok.into_iter().take(2).map(|(_, _, r)| Some(r)));
    } else {
        readinesses.push(r0.clone());
    }
    // 4. Combine, simplest first, and check each with every figure.
    let mut combos: Vec<[Option<ProbeSpec>; 3]> = Vec::new();
    for (s, l) in &pairs {
        for r in &readinesses {
            let c = [s.clone(), r.clone(), l.clone()];
            if !combos.contains(&c) {
                combos.push(c);
            }
        }
    }
    combos.sort_by_key(total);
    combos.truncate(n.saturating_mul(2).max(n));
    let figures = searcher.judge(&combos, Want::ALL)?;
    let mut candidates: Vec<Candidate> = combos
        .into_iter()
        .zip(figures)
        .filter(|(_, f)| req.met_by(f))
        .map(|(probes, figures)| Candidate {
            complexity: total(&probes),
            probes,
            figures,
        })
        .collect();
    candidates.truncate(n);
    Ok(Search {
        candidates,
        configurations: searcher.configurations,
        simulations: searcher.simulations,
        threads: sweep.threads(),
    })
}
