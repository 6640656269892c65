//! The figures of every container with probes, each from sweeps of engine simulations.
//!
//! For each phase (where the container start and the application's change fall against the
//! probe tick grid and the relist grid, and the jitter seed where the profile has jitter) one
//! or more [`Trial`]s run; a figure's `min` and `max` are the extremes over the phases, each
//! with the phase that produced it. The start-up budget is found per phase by bisection on the
//! simulated outcome (killed or not), to the millisecond, for the first start and, where it
//! inherits `started` (P45), a replacement's (module `budget`).

use core::cell::RefCell;
use core::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use probesim_core::{Gate, ProbeKind, RestartPolicy, SimDuration, SimTime};

use crate::figure::{
    ContainerFigures, CrashLoop, Extreme, Figure, GridPhase, GridPhaseSpace, Hang, Readiness,
};
use crate::shift::{by_shift, Shifts};
use crate::subject::Subject;
use crate::sweep::Sweep;
use crate::trial::{App, Lean, Stop, Trace, Trial, TrialError};

mod budget;
mod changes;

pub(crate) use changes::ChangePlan;

/// The longest stretch a single trial simulates past the moment it is about.
const LONG: SimDuration = SimDuration::from_secs(2 * 86_400);
/// How long a hang or failure trial runs past the change before it is called "never".
const AFTER_CHANGE: SimDuration = SimDuration::from_secs(6 * 3600);
/// How many grid steps of a cycle are swept at most.
const MAX_STEPS: u64 = 600;
/// Seeds swept when the profile draws start-up jitter.
const JITTER_SEEDS: u64 = 8;
/// The crash-loop window.
const HOUR: SimDuration = SimDuration::from_secs(3600);

/// The most simulation work one analysis (of every container of a pod) may do, in steps: each
/// event a simulation reports counts one, and so does each stretch of simulated time as long
/// as the kubelet's shortest periodic sync (`resync`, or the back-off requeue) in which the
/// engine may step without reporting anything. kubia's analysis takes 380,829 steps, about
/// fifty times less; past the limit the analysis stops with
/// [`AnalysisError::TooCostly`] (docs/analysis.md, "Limits").
pub const MAX_WORK: u64 = 20_000_000;

/// Why an analysis failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnalysisError {
    /// The engine did not settle at one instant (a model bug).
    Stuck {
        /// The container analysed.
        container: String,
        /// The instant.
        at: SimTime,
    },
    /// The analysis would need more than [`MAX_WORK`] steps of simulation.
    TooCostly {
        /// The container analysed when the limit was reached.
        container: String,
        /// How long after its start (or after the application's change) each simulation of
        /// the container looks for a kill or Ready: the probes' initial delays, periods times
        /// thresholds and timeouts, the grace periods and an hour.
        window: SimDuration,
        /// The limit, in steps.
        limit: u64,
    },
}

impl fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisError::Stuck { container, at } => write!(
                f,
                "container {container}: the simulation did not settle at t={at}s; this is a bug in probesim, please report it with the file"
            ),
            AnalysisError::TooCostly {
                container,
                window,
                limit,
            } => write!(
                f,
                "container {container}: the analysis needs more than {limit} simulation steps, its limit: each of its simulations covers up to {} (the probes' initialDelaySeconds, periodSeconds \u{d7} failureThreshold and timeouts, the grace periods and an hour), over every phase of the tick cycle and every container of the pod; shorten those fields, or see docs/analysis.md (\"Limits\")",
                Hms(*window)
            ),
        }
    }
}

impl std::error::Error for AnalysisError {}

/// A duration as it is written on the command line: `1000h`, `24h`, `1h30m`, `2.5s`.
pub(crate) struct Hms(pub(crate) SimDuration);

impl fmt::Display for Hms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms % 1000 != 0 || ms == 0 {
            return write!(f, "{}s", self.0);
        }
        let s = ms / 1000;
        for (value, unit) in [(s / 3600, "h"), (s / 60 % 60, "m"), (s % 60, "s")] {
            if value > 0 {
                write!(f, "{value}{unit}")?;
            }
        }
        Ok(())
    }
}

/// Which figures to compute (the recommender asks only for what it checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    /// `startupBudget`.
    pub startup: bool,
    /// `hangDetection`.
    pub hang: bool,
    /// `readiness`.
    pub readiness: bool,
    /// `crashLoop`.
    pub crash_loop: bool,
}

impl Want {
    /// Every figure.
    pub const ALL: Want = Want {
        startup: true,
        hang: true,
        readiness: true,
        crash_loop: true,
    };
}

/// Computes figures of one subject's containers.
pub struct Analyzer<'s> {
    subject: &'s Subject,
    sweep: Sweep,
    simulations: AtomicU64,
    /// Steps of simulation done so far, shared by the analyses of one search.
    work: Arc<Work>,
    /// Sweep every phase of the pod's whole cycle and bisect start-up budgets to the
    /// millisecond ([`Analyzer::exhaustive`]).
    exhaustive: bool,
}

/// A budget of simulation steps ([`MAX_WORK`] for one analysis), shared by every analysis that
/// draws from it (the recommender's whole search draws from one).
#[derive(Debug)]
pub struct Work {
    used: AtomicU64,
    limit: u64,
}

impl Work {
    /// A budget of `limit` steps.
    #[must_use]
    pub fn new(limit: u64) -> Arc<Work> {
        Arc::new(Work {
            used: AtomicU64::new(0),
            limit,
        })
    }

    /// The steps used so far.
    #[must_use]
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The limit.
    #[must_use]
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Whether the budget is spent. Whatever the order in which threads add their trials' work,
    /// the sum of every trial's work decides, so the outcome is the same on any number of
    /// threads.
    fn spent(&self) -> bool {
        self.used() > self.limit
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn ms(d: SimDuration) -> u64 {
    d.as_millis()
}

fn dur(ms: u64) -> SimDuration {
    SimDuration::from_millis(ms)
}

fn at(ms: u64) -> SimTime {
    SimTime::from_millis(ms)
}

impl<'s> Analyzer<'s> {
    /// An analyzer running its sweeps with `sweep`.
    #[must_use]
    pub fn new(subject: &'s Subject, sweep: Sweep) -> Analyzer<'s> {
        Analyzer::sharing(subject, sweep, Work::new(MAX_WORK))
    }

    /// An analyzer drawing its simulation steps from `work`, shared with other analyses.
    #[must_use]
    pub fn sharing(subject: &'s Subject, sweep: Sweep, work: Arc<Work>) -> Analyzer<'s> {
        Analyzer {
            subject,
            sweep,
            simulations: AtomicU64::new(0),
            work,
            exhaustive: false,
        }
    }

    /// The same analyzer, computing every figure the long way: each container over every
    /// phase of the whole pod's grid cycle, every trial with every probe of the pod, and each
    /// start-up budget by bisection to the millisecond. It gives the same figures (the
    /// property tests compare the two); the default way only leaves out simulations whose
    /// outcome another one already decides (docs/analysis.md, "Cost").
    #[must_use]
    pub fn exhaustive(mut self) -> Analyzer<'s> {
        self.exhaustive = true;
        self
    }

    /// The steps of simulation done so far (by every analysis sharing the budget).
    #[must_use]
    pub fn work(&self) -> u64 {
        self.work.used()
    }

    /// The simulated stretch counted as one step: the kubelet's shortest periodic sync, the
    /// longest time the engine may go on stepping without reporting an event.
    fn quiet_step(&self) -> u64 {
        let k = &self.subject.kubelet;
        ms(k.resync.min(k.backoff_requeue)).max(1)
    }

    fn too_costly(&self, container: usize) -> AnalysisError {
        AnalysisError::TooCostly {
            container: self.subject.pod.container(container).name.clone(),
            window: self.window(),
            limit: self.work.limit(),
        }
    }

    /// The subject analysed.
    #[must_use]
    pub fn subject(&self) -> &'s Subject {
        self.subject
    }

    /// Per seed, an instant long after the container is steady and Ready, on a boundary of
    /// the change's cycle: the base of every change trial.
    ///
    /// # Errors
    /// A stuck engine.
    pub fn steady_bases(
        &self,
        index: usize,
        space: &GridPhaseSpace,
    ) -> Result<Vec<(u64, SimTime)>, AnalysisError> {
        self.bases(index, space)
    }

    /// The simulations run so far.
    #[must_use]
    pub fn simulations(&self) -> u64 {
        self.simulations.load(Ordering::Relaxed)
    }

    /// Runs one trial with the engine.
    ///
    /// # Errors
    /// A stuck engine.
    /// A budget of [`MAX_WORK`] steps, shared by every trial of the analyzer: a trial whose
    /// quiet stretches alone would pass it is refused before it runs, and each trial's events
    /// and simulated time are counted against it.
    ///
    /// # Errors
    /// A stuck engine, or the budget spent ([`AnalysisError::TooCostly`]).
    pub fn run(&self, trial: &Trial) -> Result<Trace, AnalysisError> {
        self.run_with(trial, None)
    }

    /// [`Analyzer::run`], recording the uptime of each attempt of the analysed container's
    /// probes in `uptimes`.
    fn run_with(
        &self,
        trial: &Trial,
        uptimes: Option<Rc<RefCell<Vec<SimDuration>>>>,
    ) -> Result<Trace, AnalysisError> {
        let lean = self.lean(uptimes);
        self.account(trial, |left| {
            Some(trial.run_with(self.subject, left, &lean))
        })
    }

    /// What the trials of this analyzer leave out, recording the uptimes in `uptimes`.
    fn lean(&self, uptimes: Option<Rc<RefCell<Vec<SimDuration>>>>) -> Lean {
        Lean {
            idle_liveness: !self.exhaustive && self.draws_nothing(),
            uptimes,
        }
    }

    /// Runs `trial` with `run` (given the events left in the budget; `None` to run it from
    /// time zero instead), counting it as one simulation and its work against the budget.
    fn account(
        &self,
        trial: &Trial,
        run: impl FnOnce(u64) -> Option<Result<Trace, TrialError>>,
    ) -> Result<Trace, AnalysisError> {
        let quiet = self.quiet_step();
        let span = ms(trial.horizon.saturating_since(SimTime::ZERO)) / quiet;
        if self.work.spent() || span > self.work.limit() {
            return Err(self.too_costly(trial.container));
        }
        self.simulations.fetch_add(1, Ordering::Relaxed);
        // No trial runs past what is left of the budget: one that would is stopped there, and
        // the sum of every trial's work passes the limit whatever the order they ran in.
        let left = self.work.limit().saturating_sub(self.work.used());
        let trace = run(left)
            .unwrap_or_else(|| trial.run_with(self.subject, left, &self.lean(None)))
            .map_err(|e| match e {
                TrialError::Stuck(at) => AnalysisError::Stuck {
                    container: self.subject.pod.container(trial.container).name.clone(),
                    at,
                },
                TrialError::TooManyEvents => {
                    // It reported more events than the budget had left: the budget is spent.
                    self.work
                        .used
                        .fetch_add(left.saturating_add(1), Ordering::Relaxed);
                    self.too_costly(trial.container)
                }
            })?;
        let simulated = ms(trace.end.saturating_since(SimTime::ZERO)) / quiet;
        let work = trace.events.saturating_add(simulated);
        self.work.used.fetch_add(work, Ordering::Relaxed);
        if self.work.spent() {
            return Err(self.too_costly(trial.container));
        }
        Ok(trace)
    }

    /// Runs a list of simulation jobs over the analyzer's sweep, results in job order: the
    /// building block of every figure, for later work (properties, benchmarks) to reuse.
    ///
    /// # Errors
    /// The first stuck engine, in job order.
    pub fn trials(&self, trials: &[Trial]) -> Result<Vec<Trace>, AnalysisError> {
        self.collect(trials, |t| self.run(t))
    }

    /// The figures of every container that has a probe: the sidecars (init containers with
    /// `restartPolicy: Always`, where the profile has them), then the regular containers.
    ///
    /// # Errors
    /// A stuck engine.
    pub fn all(&self, want: Want) -> Result<Vec<ContainerFigures>, AnalysisError> {
        let pod = &self.subject.pod;
        let sidecars = self.subject.profile.gate(Gate::SidecarContainers);
        let mut out = Vec::new();
        for i in 0..pod.container_count() {
            let c = pod.container(i);
            let probed = c.probes.iter().any(Option::is_some);
            if probed && (!pod.is_init(i) || (c.restartable && sidecars)) {
                out.push(self.container(i, want)?);
            }
        }
        Ok(out)
    }

    /// The phases swept for a container.
    #[must_use]
    pub fn space(&self, container: usize) -> GridPhaseSpace {
        let s = self.subject;
        let c = s.pod.container(container);
        let k = &s.kubelet;
        let mut unit = gcd(1000, ms(k.pleg_period));
        for d in [k.probe_sync_delay, k.resync] {
            unit = gcd(unit, ms(d));
        }
        let unit = unit.max(1);
        let mut cycle = ms(k.pleg_period).max(1);
        let mut longest = SimDuration::ZERO;
        for p in c.probes.iter().flatten() {
            longest = longest.max(p.period());
        }
        // Pod-level figures (pod Ready) also depend on the other containers' probe grids, so
        // the cycle is that of every probe in the pod: a start that is a whole period of this
        // container's probes later can fall differently against another container's grid.
        for other in 0..s.pod.container_count() {
            for p in s.pod.container(other).probes.iter().flatten() {
                let period = ms(p.period()).max(1);
                cycle = cycle / gcd(cycle, period) * period;
            }
        }
        let steps = cycle / unit;
        let truncated = steps > MAX_STEPS;
        // P14: workers sleep a random part of their period when the kubelet is younger than
        // the period (always in 1.19); `kubelet.jitter` draws the resync and requeue jitters.
        // The seeds then move the grids. Each step is still swept at four offsets: the relist
        // grid does not move, and a start one millisecond before a relist is the one the
        // kubelet sees soonest (only two offsets per step missed kubia's worst budget on 1.19,
        // 20.013 s, and its quickest Ready, 0.001 s).
        let jitter = s.profile.jitter_always || k.started_ago < longest || k.jitter;
        let within: &[u64] = &[0, 1, unit / 2, unit.saturating_sub(1)];
        let mut offsets = Vec::new();
        for step in 0..steps.min(MAX_STEPS) {
            let base = step * unit;
            for &d in within {
                let o = base + d;
                if d < unit && offsets.last().is_none_or(|l| dur(o) > *l) {
                    offsets.push(dur(o));
                }
            }
        }
        let resync = ms(k.resync).max(1);
        let change_cycle = if k.jitter {
            cycle
        } else {
            cycle / gcd(cycle, resync) * resync
        };
        GridPhaseSpace {
            cycle: dur(cycle),
            change_cycle: dur(change_cycle),
            unit: dur(unit),
            offsets,
            seeds: if jitter {
                (0..JITTER_SEEDS).collect()
            } else {
                vec![0]
            },
            jitter,
            truncated,
        }
    }

    /// Whether the probe workers draw nothing at random: no start-up sleeps (P14) and no
    /// kubelet jitter. Then leaving a worker out changes no other worker's grid.
    fn draws_nothing(&self) -> bool {
        let s = self.subject;
        let k = &s.kubelet;
        !s.profile.jitter_always
            && !k.jitter
            && s.pod
                .all_containers()
                .flat_map(|c| c.probes.iter().flatten())
                .all(|p| k.started_ago >= p.period())
    }

    /// The container-start phases that set where the readiness worker ticks: with a readiness
    /// probe on a profile whose manual trigger restarts the ticker (P19, 1.32+), the first
    /// offset of every grid step of one readiness period; else the start on the grid alone.
    /// They are the starts of the replacement sweep, and of the change trials where the
    /// kubelet draws its resyncs (`kubelet.jitter`); otherwise the change trials consider every
    /// start ([`Analyzer::change_plan`](crate::analyze::Analyzer)), since the resyncs follow
    /// the start too.
    ///
    /// What follows a change long after the start depends on where the start fell through the
    /// readiness worker: the relist that sees the start triggers it (P18), and from 1.32 its
    /// ticker restarts there (P19), so its grid sits at that relist modulo its period while
    /// the other grids stay where the pod put them. That relist is the same for every start
    /// within one step.
    #[must_use]
    pub fn change_starts(&self, container: usize, space: &GridPhaseSpace) -> Vec<SimDuration> {
        let readiness = self
            .subject
            .pod
            .container(container)
            .probe(ProbeKind::Readiness)
            .map(|p| ms(p.period()).max(1));
        let Some(period) = readiness.filter(|_| self.subject.profile.trigger_resets_grid) else {
            return vec![SimDuration::ZERO];
        };
        let unit = ms(space.unit).max(1);
        space
            .offsets
            .iter()
            .copied()
            .filter(|o| ms(*o) % unit == 0 && ms(*o) < period)
            .collect()
    }

    /// The offsets of `space` at which the application's change decides the figures measured
    /// from a change (hang detection, time to not Ready, the robustness figures).
    ///
    /// Those trials start the pod the same way and differ only after the change, long after
    /// every container is steady. From then on the other containers' readiness and startup
    /// probes can still make a difference (a readiness failure of theirs would be a status
    /// write, and they run on their grids), but their liveness probes cannot: those containers
    /// answer every probe with success, so their liveness results never change. What happens
    /// after the change therefore repeats when the change moves by the least common multiple
    /// of the relist period, the container's own probe periods and the other containers'
    /// readiness and startup periods, a divisor of `space.cycle`; the offsets below it give
    /// every value the whole cycle gives, and since the phase of an extreme is the first one in
    /// sweep order to reach it, the same phase too. (Trials that move the container start do
    /// not repeat that way: the other containers start, turn Ready and end their startup probes
    /// at fixed instants, so those sweep the whole cycle.)
    #[must_use]
    pub fn change_offsets(&self, container: usize, space: &GridPhaseSpace) -> Vec<SimDuration> {
        if self.exhaustive {
            return space.offsets.clone();
        }
        let cycle = self.change_cycle(container);
        space
            .offsets
            .iter()
            .copied()
            .filter(|o| *o < cycle)
            .collect()
    }

    /// The cycle of [`Analyzer::change_offsets`]: the least common multiple of the relist
    /// period, the container's own probe periods and the other containers' readiness and
    /// startup periods (the whole grid cycle for [`Analyzer::exhaustive`]).
    fn change_cycle(&self, container: usize) -> SimDuration {
        let s = self.subject;
        if self.exhaustive {
            return self.space(container).cycle;
        }
        let mut cycle = ms(s.kubelet.pleg_period).max(1);
        for other in 0..s.pod.container_count() {
            for kind in ProbeKind::ALL {
                if other != container && kind == ProbeKind::Liveness {
                    continue;
                }
                if let Some(p) = s.pod.container(other).probe(kind) {
                    let period = ms(p.period()).max(1);
                    cycle = cycle / gcd(cycle, period) * period;
                }
            }
        }
        dur(cycle)
    }

    /// How each change offset is shifted against the periodic resync ([`crate::shift`]): by
    /// every multiple of the change cycle within its least common multiple with `resync`.
    /// With `kubelet.jitter` the resyncs are drawn (sampled by seed): no shift.
    #[must_use]
    pub fn change_shifts(&self, container: usize) -> Shifts {
        let k = &self.subject.kubelet;
        let step = self.change_cycle(container);
        let period = ms(k.resync).max(1);
        let cycle = ms(step).max(1);
        let count = if k.jitter {
            1
        } else {
            cycle / gcd(cycle, period) * period / cycle
        };
        Shifts {
            step,
            count,
            resync: (!self.exhaustive).then_some(k.resync),
            relist: k.pleg_period,
        }
    }

    /// Every figure of one container (an index in the engine's numbering: init containers
    /// first, then regular containers, as [`Trial::container`]).
    ///
    /// # Errors
    /// A stuck engine.
    pub fn container(&self, index: usize, want: Want) -> Result<ContainerFigures, AnalysisError> {
        let before = self.simulations();
        let space = self.space(index);
        let c = self.subject.pod.container(index);
        let can_kill =
            c.probe(ProbeKind::Liveness).is_some() || c.probe(ProbeKind::Startup).is_some();
        let start_jobs: Vec<(SimDuration, u64)> = space
            .seeds
            .iter()
            .flat_map(|seed| space.offsets.iter().map(move |o| (*o, *seed)))
            .collect();
        let bases = self.bases(index, &space)?;
        let offsets = self.change_offsets(index, &space);
        let starts = self.change_starts(index, &space);
        let startup_budget = if want.startup && can_kill {
            let mut samples = self.collect(&start_jobs, |&(o, seed)| {
                self.budget(index, &space, o, seed)
            })?;
            // P45: where a replacement inherits `started`, its start counts too, for each
            // phase of `replacement_phases` and a refusing or a hanging first instance; the
            // samples come after the first starts', which win ties.
            if self.replacement_inherits_started(index) {
                let (starts, offsets) = self.replacement_phases(&space, &starts, &offsets);
                let jobs: Vec<(SimDuration, SimDuration, bool, u64, SimTime)> = bases
                    .iter()
                    .flat_map(|&(seed, base)| {
                        let offsets = &offsets;
                        starts.iter().flat_map(move |&s| {
                            offsets.iter().flat_map(move |&o| {
                                [false, true].map(move |hang| (s, o, hang, seed, base))
                            })
                        })
                    })
                    .collect();
                let replaced = self.collect(&jobs, |&(s, o, hang, seed, base)| {
                    self.replacement_budget(index, &space, s, o, hang, seed, base)
                })?;
                samples.extend(replaced.into_iter().flatten());
            }
            Figure::of(&samples)
        } else {
            None
        };
        // Per seed, per start phase, per change phase: (start, change, seed, base).
        let plan = if want.hang || want.readiness {
            self.change_plan(index, &space)?
        } else {
            ChangePlan {
                jobs: Vec::new(),
                group: offsets.len(),
                roles: Vec::new(),
            }
        };
        // The figure of what was not asked for (`Want`): never, in the first phase.
        let none = Extreme {
            value: None,
            phase: GridPhase::default_for(&space),
        };
        let empty = Figure {
            min: none,
            max: none,
        };
        let shifts = self.change_shifts(index);
        let hang = if want.hang {
            let samples = self
                .sweep_changes(
                    &self.sweep,
                    &plan,
                    &shifts,
                    |start, seed| self.hang_trial(index, start, SimTime::MAX, seed),
                    |prefix, start, change, seed| self.hang(prefix, index, start, change, seed),
                )?
                .into_iter()
                .zip(&plan.jobs)
                .map(|(runs, &(_, _, seed, _))| {
                    runs.into_iter()
                        .map(|((v, first), change)| (v, phase(&space, first, Some(change), seed)))
                        .collect::<Vec<_>>()
                })
                .collect();
            let samples = by_shift(samples, offsets.len());
            let pick = |f: fn(&[Option<SimDuration>; 3]) -> Option<SimDuration>| {
                let s: Vec<_> = samples.iter().map(|(v, p)| (f(v), *p)).collect();
                Figure::of(&s).unwrap_or(empty)
            };
            Hang {
                kill: pick(|v| v[0]),
                exit: pick(|v| v[1]),
                restarted: pick(|v| v[2]),
            }
        } else {
            Hang {
                kill: empty,
                exit: empty,
                restarted: empty,
            }
        };
        let readiness = if want.readiness {
            let ready = self.collect(&start_jobs, |&(o, seed)| {
                let trace = self.run(&Trial {
                    container: index,
                    app: App::Healthy,
                    start_offset: o,
                    seed,
                    horizon: self.start_estimate(o).saturating_add(self.window()),
                    stop: Stop::PodReady(true),
                })?;
                let start = trace.starts.first().copied().unwrap_or(SimTime::ZERO);
                let phase = phase(&space, start, None, seed);
                let v = trace
                    .pod_ready_at(true, start)
                    .map(|t| t.saturating_since(start));
                Ok((v, phase))
            })?;
            let to_ready = Figure::of(&ready).unwrap_or(empty);
            let to_not_ready = if to_ready.max.value.is_some() {
                let samples: Vec<_> = self
                    .sweep_changes(
                        &self.sweep,
                        &plan,
                        &shifts,
                        |start, seed| {
                            self.to_not_ready_trial(
                                index,
                                App::FailAt(SimTime::MAX),
                                start,
                                SimTime::MAX,
                                seed,
                            )
                        },
                        |prefix, start, change, seed| {
                            self.to_not_ready(
                                prefix,
                                index,
                                App::FailAt(change),
                                start,
                                change,
                                seed,
                            )
                        },
                    )?
                    .into_iter()
                    .zip(&plan.jobs)
                    .map(|(runs, &(_, _, seed, _))| {
                        runs.into_iter()
                            .map(|((v, first), change)| {
                                (v, phase(&space, first, Some(change), seed))
                            })
                            .collect::<Vec<_>>()
                    })
                    .collect();
                Figure::of(&by_shift(samples, offsets.len()))
            } else {
                None
            };
            Readiness {
                to_ready,
                to_not_ready,
            }
        } else {
            Readiness {
                to_ready: empty,
                to_not_ready: None,
            }
        };
        let crash_loop =
            if want.crash_loop && self.subject.pod.restart_policy != RestartPolicy::Never {
                self.crash_loop(index, &space)?
            } else {
                None
            };
        Ok(ContainerFigures {
            name: c.name.clone(),
            index,
            sidecar: self.subject.pod.is_init(index),
            startup_budget,
            hang,
            readiness,
            crash_loop,
            space,
            simulations: self.simulations() - before,
        })
    }

    fn collect<J: Sync, R: Send>(
        &self,
        jobs: &[J],
        f: impl Fn(&J) -> Result<R, AnalysisError> + Sync,
    ) -> Result<Vec<R>, AnalysisError> {
        self.sweep.run(jobs, f).into_iter().collect()
    }

    /// When the container's first instance starts at the latest: its first pull plus the
    /// offset (a bound for horizons; the trace gives the real start).
    fn start_estimate(&self, offset: SimDuration) -> SimTime {
        let pulls: SimDuration = self
            .subject
            .pod
            .init_containers
            .iter()
            .chain(self.subject.pod.containers.iter())
            .fold(SimDuration::ZERO, |a, c| a.saturating_add(c.app.pull));
        SimTime::ZERO.saturating_add(pulls).saturating_add(offset)
    }

    /// How long after an app starts (or changes) a kill, or Ready, may still come: every
    /// probe's initial delay and a few more runs than its thresholds (each as long as its period
    /// plus its timeout), the grace period, and an hour to spare. Only a horizon: past it,
    /// "never".
    fn window(&self) -> SimDuration {
        let pod = &self.subject.pod;
        let mut d = SimDuration::from_secs(3600).saturating_add(SimDuration::from_secs(
            u64::try_from(pod.termination_grace_period_seconds).unwrap_or(0),
        ));
        // Every container's probes: pod Ready waits for all of them.
        for p in pod.all_containers().flat_map(|c| c.probes.iter().flatten()) {
            let runs = u64::try_from(p.failure_threshold())
                .unwrap_or(1)
                .saturating_add(2);
            d = d
                .saturating_add(SimDuration::from_secs(
                    u64::try_from(p.initial_delay_seconds()).unwrap_or(0),
                ))
                .saturating_add(p.period().saturating_add(p.timeout()).saturating_mul(runs));
            if let Some(g) = p.termination_grace_period_seconds() {
                d = d.saturating_add(SimDuration::from_secs(u64::try_from(g).unwrap_or(0)));
            }
        }
        d
    }

    /// Per seed, an instant long after the container is steady, on a boundary of the change's
    /// cycle (`GridPhaseSpace::change_cycle`).
    fn bases(
        &self,
        index: usize,
        space: &GridPhaseSpace,
    ) -> Result<Vec<(u64, SimTime)>, AnalysisError> {
        let c = self.subject.pod.container(index);
        let (mut delay, mut period) = (SimDuration::ZERO, SimDuration::ZERO);
        for p in c.probes.iter().flatten() {
            delay = delay.max(SimDuration::from_secs(
                u64::try_from(p.initial_delay_seconds()).unwrap_or(0),
            ));
            period = period.max(p.period());
        }
        let mut out = Vec::new();
        for seed in &space.seeds {
            let trace = self.run(&Trial {
                container: index,
                app: App::Healthy,
                start_offset: SimDuration::ZERO,
                seed: *seed,
                horizon: self
                    .start_estimate(SimDuration::ZERO)
                    .saturating_add(self.window()),
                stop: Stop::PodReady(true),
            })?;
            let start = trace.starts.first().copied().unwrap_or(SimTime::ZERO);
            let ready = trace.pod_ready_at(true, start).unwrap_or(start);
            // Change trials also move the start by up to a cycle (`change_starts`): the base
            // leaves room for the latest.
            let steady = ready
                .max(start.saturating_add(delay))
                .saturating_add(period.saturating_mul(3))
                .saturating_add(SimDuration::from_secs(60))
                .saturating_add(space.cycle);
            // On a boundary of the change's cycle, so that a change `o` after the base has the
            // phase `o`.
            let cycle = ms(space.change_cycle).max(1);
            let base = ms(steady.saturating_since(SimTime::ZERO)).div_ceil(cycle) * cycle;
            out.push((*seed, at(base)));
        }
        Ok(out)
    }

    fn crash_loop(
        &self,
        index: usize,
        space: &GridPhaseSpace,
    ) -> Result<Option<CrashLoop>, AnalysisError> {
        let jobs: Vec<(SimDuration, u64)> = space
            .seeds
            .iter()
            .flat_map(|seed| space.offsets.iter().map(move |o| (*o, *seed)))
            .collect();
        let runs = self.collect(&jobs, |&(o, seed)| {
            let trace = self.run(&Trial {
                container: index,
                app: App::Crash,
                start_offset: o,
                seed,
                horizon: self
                    .start_estimate(o)
                    .saturating_add(HOUR)
                    .saturating_add(SimDuration::from_secs(1)),
                stop: Stop::Horizon,
            })?;
            Ok((trace, seed))
        })?;
        let mut restarts = None;
        let (mut back_off, mut cycle) = (Vec::new(), Vec::new());
        for (trace, seed) in &runs {
            let Some(&first) = trace.starts.first() else {
                continue;
            };
            let within: Vec<SimDuration> = trace
                .starts
                .iter()
                .skip(1)
                .map(|t| t.saturating_since(first))
                .filter(|d| *d <= HOUR)
                .collect();
            let p = phase(space, first, None, *seed);
            back_off.push((trace.crash_loop.map(|t| t.saturating_since(first)), p));
            let steady = match within.as_slice() {
                [.., a, b] => Some(b.saturating_sub(*a)),
                _ => None,
            };
            cycle.push((steady, p));
            restarts.get_or_insert(within);
        }
        Ok(
            match (restarts, Figure::of(&back_off), Figure::of(&cycle)) {
                (Some(restarts), Some(back_off), Some(cycle)) => Some(CrashLoop {
                    restarts,
                    back_off,
                    cycle,
                }),
                _ => None,
            },
        )
    }
}

/// The phase of a trial whose container started at `start` and whose app changed at `change`.
pub(crate) fn phase_of(
    space: &GridPhaseSpace,
    start: SimTime,
    change: Option<SimTime>,
    seed: u64,
) -> GridPhase {
    phase(space, start, change, seed)
}

fn phase(space: &GridPhaseSpace, start: SimTime, change: Option<SimTime>, seed: u64) -> GridPhase {
    let modulo = |t: SimTime, cycle: SimDuration| {
        dur(ms(t.saturating_since(SimTime::ZERO)) % ms(cycle).max(1))
    };
    GridPhase {
        start: modulo(start, space.cycle),
        change: change.map(|c| modulo(c, space.change_cycle)),
        seed: space.jitter.then_some(seed),
        restart: None,
    }
}

impl GridPhase {
    fn default_for(space: &GridPhaseSpace) -> GridPhase {
        GridPhase {
            start: SimDuration::ZERO,
            change: None,
            seed: space.jitter.then_some(0),
            restart: None,
        }
    }
}
