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
use crate::figure::{ContainerFigures, Figure};
use crate::finding::findings;
use crate::robust::{to_not_ready_alone, tolerance, Tolerance};
use crate::subject::Subject;
use crate::sweep::Sweep;

/// What the probes must achieve, each in the worst phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requirements {
    /// `--startup-up-to`: `startupBudget.min` at least this.
    pub startup_up_to: Option<SimDuration>,
    /// `--detect-hang-within`: `hangDetection.kill.max` at most this.
    pub detect_hang_within: Option<SimDuration>,
    /// `--not-ready-within`: `readiness.toNotReady.max` at most this, and met by readiness
    /// alone: also when only the readiness endpoint fails and liveness keeps answering.
    pub not_ready_within: Option<SimDuration>,
    /// `--tolerate-blip`: through any failure shorter than this (every probe refused), at any
    /// phase, the container is not killed and the pod stays Ready.
    pub tolerate_blip: Option<SimDuration>,
    /// `--tolerate-stall`: through any stall shorter than this (every probe timing out), at
    /// any phase, the container is not killed.
    pub tolerate_stall: Option<SimDuration>,
}

/// The robustness figures of a configuration, computed for the requirements that ask them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Robustness {
    /// From the readiness endpoint failing alone to pod not Ready (for `not_ready_within`).
    pub not_ready_alone: Option<Figure>,
    /// What a blip just shorter than `tolerate_blip` did.
    pub blip: Option<Tolerance>,
    /// What a stall just shorter than `tolerate_stall` did.
    pub stall: Option<Tolerance>,
}

impl Requirements {
    /// Whether a container's figures meet every requirement.
    #[must_use]
    pub fn met_by(&self, f: &ContainerFigures) -> bool {
        self.startup_met(f) && self.hang_met(f) && self.not_ready_met(f)
    }

    /// Whether the robustness figures meet the requirements that ask them.
    #[must_use]
    pub fn robust(&self, r: &Robustness) -> bool {
        let alone = self.not_ready_within.is_none_or(|d| {
            r.not_ready_alone
                .is_some_and(|n| n.max.value.is_some_and(|v| v <= d))
        });
        let blip = self.tolerate_blip.is_none_or(|_| {
            r.blip
                .is_some_and(|t| t.killed.is_none() && t.not_ready.is_none())
        });
        let stall = self
            .tolerate_stall
            .is_none_or(|_| r.stall.is_some_and(|t| t.killed.is_none()));
        alone && blip && stall
    }

    /// Whether any robustness figure is asked.
    fn asks_robustness(&self) -> bool {
        self.not_ready_within.is_some()
            || self.tolerate_blip.is_some()
            || self.tolerate_stall.is_some()
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
#[non_exhaustive]
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
    /// Its robustness figures, those the requirements ask.
    pub robustness: Robustness,
    /// How far the configuration is from the file's ([`change`]): probes added or removed and
    /// fields changed.
    pub complexity: u32,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct Search {
    /// The figures of the container's probes as the file has them.
    pub current: ContainerFigures,
    /// Their robustness figures, those the requirements ask.
    pub current_robustness: Robustness,
    /// Whether the file's probes already meet every requirement: then there are no
    /// candidates, and nothing is to change.
    pub already: bool,
    /// The candidates, the smallest change from the file first.
    pub candidates: Vec<Candidate>,
    /// When no configuration meets every requirement: each requirement that binds (left out,
    /// the others are met), with the value the best configuration meeting the others reaches
    /// for it.
    pub binding: Vec<Binding>,
    /// The fastest hang detection (`hangDetection.kill.max`) of every liveness probe judged.
    pub best_hang: Option<SimDuration>,
    /// Configurations judged.
    pub configurations: u64,
    /// Simulations run.
    pub simulations: u64,
    /// Threads used.
    pub threads: usize,
}

/// A requirement of an impossible set that binds.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The requirement, as [`crate::report::describe`] words it.
    pub requirement: String,
    /// What the best configuration meeting every other requirement achieves for it (the
    /// value of its figure, or what the disturbance did).
    pub best: String,
}

const LIVENESS_PERIODS: &[i32] = &[1, 2, 3, 5, 10, 15, 20, 30];
const LIVENESS_FAILURES: &[i32] = &[1, 2, 3, 4, 5, 6];
const TIMEOUTS: &[i32] = &[1, 2, 3, 5];
const READINESS_PERIODS: &[i32] = &[1, 2, 3, 5, 10];
const READINESS_FAILURES: &[i32] = &[1, 2, 3];
const STARTUP_PERIODS: &[i32] = &[10, 5, 2];
const MAX_THRESHOLD: i32 = 1000;

/// How far a probe is from `before` (the file's probe of its kind): for a new probe, one for
/// the probe and one per field it sets away from the API defaults (P53); for a changed one, one
/// per field changed; one for a probe removed.
///
/// An initial delay counts three: it postpones the probe at every start, fast ones included, so
/// a startup probe (which lets a fast start through at once) ranks before a liveness delay of
/// the same budget (the advice of the Kubernetes documentation for slow starts).
fn distance(before: Option<&ProbeSpec>, p: Option<&ProbeSpec>) -> u32 {
    let Some(p) = p else {
        return u32::from(before.is_some());
    };
    let (new, d) = match before {
        Some(b) => (0, b.timing()),
        None => (1, ProbeTiming::default()),
    };
    new + 3 * u32::from(p.initial_delay_seconds() != d.initial_delay_seconds)
        + u32::from(p.timeout_seconds() != d.timeout_seconds)
        + u32::from(p.period_seconds() != d.period_seconds)
        + u32::from(p.success_threshold() != d.success_threshold)
        + u32::from(p.failure_threshold() != d.failure_threshold)
        + u32::from(p.termination_grace_period_seconds() != d.termination_grace_period_seconds)
}

/// How far a configuration is from the file's: the sum over the three probes.
#[must_use]
pub fn change(before: &[Option<ProbeSpec>; 3], after: &[Option<ProbeSpec>; 3]) -> u32 {
    before
        .iter()
        .zip(after)
        .map(|(b, a)| distance(b.as_ref(), a.as_ref()))
        .sum()
}

/// A probe with `template`'s handler (and probe-level grace) and new timing. With `keep` (the
/// template is the file's probe of the same kind) the fields the search does not vary, the
/// initial delay and the success threshold, stay as the file has them.
fn with_timing(
    template: &ProbeSpec,
    period: i32,
    failure: i32,
    timeout: i32,
    keep: bool,
) -> Option<ProbeSpec> {
    let timing = ProbeTiming {
        initial_delay_seconds: if keep {
            template.initial_delay_seconds()
        } else {
            0
        },
        timeout_seconds: timeout,
        period_seconds: period,
        success_threshold: if keep {
            template.success_threshold()
        } else {
            1
        },
        failure_threshold: failure,
        termination_grace_period_seconds: template.termination_grace_period_seconds(),
    };
    ProbeSpec::new(template.handler().clone(), timing).ok()
}

/// `p` with another initial delay.
fn with_delay(p: &ProbeSpec, delay: i32) -> Option<ProbeSpec> {
    let mut t = p.timing();
    t.initial_delay_seconds = delay;
    ProbeSpec::new(p.handler().clone(), t).ok()
}

struct Searcher<'a> {
    subject: &'a Subject,
    container: usize,
    sweep: Sweep,
    configurations: u64,
    simulations: u64,
    work: Arc<Work>,
    known: &'a mut Known,
}

/// What the search has already judged, so that a configuration met again (the probes as
/// written, a liveness judged for hang detection and then for the start-up budget, every
/// configuration of the searches for the requirement that binds) is not simulated again.
#[derive(Default)]
struct Known {
    figures: Vec<([Option<ProbeSpec>; 3], Want, ContainerFigures)>,
    robustness: Vec<([Option<ProbeSpec>; 3], Requirements, Robustness)>,
}

impl Searcher<'_> {
    /// Judges configurations in parallel, each analysed on one thread.
    fn judge(
        &mut self,
        configs: &[[Option<ProbeSpec>; 3]],
        want: Want,
    ) -> Result<Vec<ContainerFigures>, AnalysisError> {
        // A configuration judged before, with every figure or with these, is not run again.
        fn known<'k>(
            known: &'k Known,
            probes: &[Option<ProbeSpec>; 3],
            want: Want,
        ) -> Option<&'k ContainerFigures> {
            known
                .figures
                .iter()
                .find(|(p, w, _)| p == probes && (*w == want || *w == Want::ALL))
                .map(|(_, _, f)| f)
        }
        let mut fresh: Vec<[Option<ProbeSpec>; 3]> = Vec::new();
        for c in configs {
            if known(self.known, c, want).is_none() && !fresh.contains(c) {
                fresh.push(c.clone());
            }
        }
        let judged = self.judge_fresh(&fresh, want)?;
        for (c, f) in fresh.into_iter().zip(judged) {
            self.known.figures.push((c, want, f));
        }
        Ok(configs
            .iter()
            .filter_map(|c| known(self.known, c, want).cloned())
            .collect())
    }

    /// Judges configurations not judged before.
    fn judge_fresh(
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

impl Searcher<'_> {
    /// The robustness figures `req` asks of a configuration.
    fn robustness(
        &mut self,
        probes: &[Option<ProbeSpec>; 3],
        req: &Requirements,
    ) -> Result<Robustness, AnalysisError> {
        if !req.asks_robustness() {
            return Ok(Robustness::default());
        }
        if let Some((_, _, r)) = self
            .known
            .robustness
            .iter()
            .find(|(p, q, _)| p == probes && q == req)
        {
            return Ok(*r);
        }
        let mut s = self.subject.clone();
        s.pod.containers[self.container].probes = probes.clone();
        let engine = s.pod.init_containers.len() + self.container;
        // The robustness sweeps draw on the search's budget like every other analysis.
        let a = Analyzer::sharing(&s, Sweep::single(), Arc::clone(&self.work));
        let sweep = self.sweep;
        let just_under = |d: SimDuration| d.saturating_sub(SimDuration::from_millis(1));
        let out = Robustness {
            not_ready_alone: match req.not_ready_within {
                Some(_) => to_not_ready_alone(&a, engine, sweep)?,
                None => None,
            },
            blip: match req.tolerate_blip {
                Some(d) => Some(tolerance(&a, engine, just_under(d), false, sweep)?),
                None => None,
            },
            stall: match req.tolerate_stall {
                Some(d) => Some(tolerance(&a, engine, just_under(d), true, sweep)?),
                None => None,
            },
        };
        self.configurations += 1;
        self.simulations += a.simulations();
        self.known.robustness.push((probes.clone(), *req, out));
        Ok(out)
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
    recommend_within(
        subject,
        container,
        req,
        sweep,
        n,
        &Work::new(MAX_SEARCH_WORK),
    )
}

/// [`recommend`], drawing every simulation step from `work`: the analyses of every
/// configuration, the robustness sweeps (`tolerate_blip`, `tolerate_stall`, readiness failing
/// alone) and, for an impossible set, the searches that find the requirement that binds.
/// [`recommend`] gives it [`MAX_SEARCH_WORK`] steps.
///
/// # Errors
/// As [`recommend`]; [`RecommendError::TooCostly`] once `work` is spent.
pub fn recommend_within(
    subject: &Subject,
    container: usize,
    req: &Requirements,
    sweep: Sweep,
    n: usize,
    work: &Arc<Work>,
) -> Result<Search, RecommendError> {
    let mut known = Known::default();
    let mut found = search_once(subject, container, req, sweep, n, work, &mut known)?;
    if found.already || !found.candidates.is_empty() {
        return Ok(found);
    }
    // Impossible: which requirement binds, and how close the others let it come.
    let fields: [(Requirements, &str); 5] = [
        (
            Requirements {
                startup_up_to: None,
                ..*req
            },
            "startup",
        ),
        (
            Requirements {
                detect_hang_within: None,
                ..*req
            },
            "hang",
        ),
        (
            Requirements {
                not_ready_within: None,
                ..*req
            },
            "notReady",
        ),
        (
            Requirements {
                tolerate_blip: None,
                ..*req
            },
            "blip",
        ),
        (
            Requirements {
                tolerate_stall: None,
                ..*req
            },
            "stall",
        ),
    ];
    for (others, which) in fields {
        if others == *req || others == Requirements::default() {
            continue;
        }
        let alone = Requirements {
            startup_up_to: req.startup_up_to.filter(|_| which == "startup"),
            detect_hang_within: req.detect_hang_within.filter(|_| which == "hang"),
            not_ready_within: req.not_ready_within.filter(|_| which == "notReady"),
            tolerate_blip: req.tolerate_blip.filter(|_| which == "blip"),
            tolerate_stall: req.tolerate_stall.filter(|_| which == "stall"),
        };
        let sub = search_once(subject, container, &others, sweep, 1, work, &mut known)?;
        found.configurations += sub.configurations;
        found.simulations += sub.simulations;
        let (figures, probes) = match sub.candidates.first() {
            Some(c) => (c.figures.clone(), c.probes.clone()),
            None if sub.already => (
                sub.current.clone(),
                subject.pod.containers[container].probes.clone(),
            ),
            None => continue,
        };
        let mut searcher = Searcher {
            subject,
            container,
            sweep,
            configurations: 0,
            simulations: 0,
            work: Arc::clone(work),
            known: &mut known,
        };
        let rob = searcher.robustness(&probes, &alone)?;
        found.simulations += searcher.simulations;
        let secs =
            |v: Option<SimDuration>| v.map_or_else(|| "never".to_owned(), |d| format!("{d}s"));
        let tol = |t: Option<Tolerance>| match t {
            Some(t) if t.killed.is_some() => "killed".to_owned(),
            Some(t) if t.not_ready.is_some() => "not Ready".to_owned(),
            _ => "survived".to_owned(),
        };
        let best = match which {
            "startup" => format!(
                "startupBudget.min {}",
                secs(figures.startup_budget.and_then(|b| b.min.value))
            ),
            "hang" => format!(
                "hangDetection.kill.max {} (the fastest of every liveness probe searched)",
                secs(found.best_hang.or(figures.hang.kill.max.value))
            ),
            "notReady" => format!(
                "readiness.toNotReady.max {} when readiness fails alone",
                secs(rob.not_ready_alone.and_then(|n| n.max.value))
            ),
            "blip" => format!("a blip: {}", tol(rob.blip)),
            _ => format!("a stall: {}", tol(rob.stall)),
        };
        found.binding.push(Binding {
            requirement: crate::report::describe(&alone),
            best,
        });
    }
    Ok(found)
}

/// One search for every requirement of `req`.
fn search_once(
    subject: &Subject,
    container: usize,
    req: &Requirements,
    sweep: Sweep,
    n: usize,
    work: &Arc<Work>,
    known: &mut Known,
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
        work: Arc::clone(work),
        known,
    };
    // 0. The file's probes: when they already meet every requirement, nothing is to change.
    let current = searcher
        .judge(core::slice::from_ref(&spec.probes), Want::ALL)?
        .remove(0);
    let current_robustness = searcher.robustness(&spec.probes, req)?;
    if req.met_by(&current) && req.robust(&current_robustness) {
        return Ok(Search {
            current,
            current_robustness,
            already: true,
            candidates: Vec::new(),
            binding: Vec::new(),
            best_hang: None,
            configurations: searcher.configurations,
            simulations: searcher.simulations,
            threads: sweep.threads(),
        });
    }
    // 1. Liveness, for hang detection (the startup probe does not matter once started).
    let mut livenesses: Vec<Option<ProbeSpec>> = Vec::new();
    let mut best_hang = None;
    // A blip or a stall can only be killed by a liveness probe: without one, none is added
    // for them.
    let liveness_asked = req.detect_hang_within.is_some()
        || (l0.is_some() && (req.tolerate_stall.is_some() || req.tolerate_blip.is_some()));
    if liveness_asked {
        let base = l0.as_ref().unwrap_or(&template);
        let mut configs = Vec::new();
        if l0.is_some() {
            configs.push([None, None, l0.clone()]);
        }
        for &period in LIVENESS_PERIODS {
            for &failure in LIVENESS_FAILURES {
                for &timeout in TIMEOUTS {
                    if timeout >= period && !(period == 1 && timeout == 1) {
                        continue;
                    }
                    if let Some(p) = with_timing(base, period, failure, timeout, l0.is_some()) {
                        configs.push([None, None, Some(p)]);
                    }
                }
            }
        }
        let figures = searcher.judge(&configs, ONLY_HANG)?;
        best_hang = figures.iter().filter_map(|f| f.hang.kill.max.value).min();
        let mut ok: Vec<(u32, i32, ProbeSpec)> = configs
            .into_iter()
            .zip(&figures)
            .filter(|(_, f)| req.hang_met(f))
            .filter_map(|([_, _, l], _)| l)
            .map(|l| (distance(l0.as_ref(), Some(&l)), -l.period_seconds(), l))
            .collect();
        // The smallest change first; then the most tolerant threshold (a threshold of 1 kills
        // on one slow answer), the fewest probes per second and the longest timeout.
        ok.sort_by_key(|(c, p, l)| (*c, -l.failure_threshold(), *p, -l.timeout_seconds()));
        ok.dedup_by(|a, b| a.2 == b.2);
        // A blip or a stall must not kill: judged on the liveness alone (readiness never
        // kills), in rank order until three pass.
        let kill_asked = Requirements {
            tolerate_blip: req.tolerate_blip,
            tolerate_stall: req.tolerate_stall,
            ..Requirements::default()
        };
        for (_, _, l) in ok {
            if livenesses.len() == 3 {
                break;
            }
            let probes = [None, None, Some(l.clone())];
            let r = searcher.robustness(&probes, &kill_asked)?;
            let killed = r.blip.is_some_and(|t| t.killed.is_some())
                || r.stall.is_some_and(|t| t.killed.is_some());
            if !killed {
                livenesses.push(Some(l));
            }
        }
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
                with_timing(base, period, failure, 1, s0.is_some())
                    .map(|s| [Some(s), None, liveness.clone()])
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
    if req.not_ready_within.is_some() || (req.tolerate_blip.is_some() && r0.is_some()) {
        let base = r0.as_ref().unwrap_or(&template);
        let liveness = livenesses.first().cloned().flatten();
        let mut configs = Vec::new();
        if r0.is_some() {
            configs.push([None, r0.clone(), liveness.clone()]);
        }
        for &period in READINESS_PERIODS {
            for &failure in READINESS_FAILURES {
                if let Some(p) = with_timing(base, period, failure, 1, r0.is_some()) {
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
            .map(|r| (distance(r0.as_ref(), Some(&r)), -r.period_seconds(), r))
            .collect();
        ok.sort_by_key(|(c, p, r)| (*c, -r.failure_threshold(), *p));
        ok.dedup_by(|a, b| a.2 == b.2);
        // Met by readiness alone, and Ready through a blip: in rank order until two pass.
        let asked = Requirements {
            not_ready_within: req.not_ready_within,
            tolerate_blip: req.tolerate_blip,
            ..Requirements::default()
        };
        for (_, _, r) in ok {
            if readinesses.len() == 2 {
                break;
            }
            let probes = [None, Some(r.clone()), liveness.clone()];
            let rob = searcher.robustness(&probes, &asked)?;
            let alone = req.not_ready_within.is_none_or(|d| {
                rob.not_ready_alone
                    .is_some_and(|n| n.max.value.is_some_and(|v| v <= d))
            });
            let blip = rob.blip.is_none_or(|t| t.not_ready.is_none());
            if alone && blip {
                readinesses.push(Some(r));
            }
        }
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
    let original = spec.probes.clone();
    combos.retain(|c| *c != original);
    combos.sort_by_key(|c| change(&original, c));
    combos.truncate(n.saturating_mul(2).max(n));
    let figures = searcher.judge(&combos, Want::ALL)?;
    // Never a configuration that a finding of probesim flags where the file's is not flagged.
    let flagged = |probes: &[Option<ProbeSpec>; 3], f: &ContainerFigures| -> Vec<&'static str> {
        let mut s = subject.clone();
        s.pod.containers[container].probes = probes.clone();
        findings(&s, core::slice::from_ref(f))
            .into_iter()
            .filter(|g| g.container == spec.name)
            .map(|g| g.rule.id)
            .collect()
    };
    let before = flagged(&original, &current);
    let n = n.max(1);
    let mut candidates: Vec<Candidate> = Vec::new();
    for (probes, figures) in combos.into_iter().zip(figures) {
        if candidates.len() == n
            || !req.met_by(&figures)
            || !flagged(&probes, &figures)
                .iter()
                .all(|id| before.contains(id))
        {
            continue;
        }
        let robustness = searcher.robustness(&probes, req)?;
        if req.robust(&robustness) {
            candidates.push(Candidate {
                complexity: change(&original, &probes),
                probes,
                figures,
                robustness,
            });
        }
    }
    Ok(Search {
        current,
        current_robustness,
        already: false,
        candidates,
        binding: Vec::new(),
        best_hang,
        configurations: searcher.configurations,
        simulations: searcher.simulations,
        threads: sweep.threads(),
    })
}
