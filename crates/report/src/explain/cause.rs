//! Why a container restarts or leaves the Service, told apart by simulation, each cause with
//! the change that fixes it, measured.
//!
//! The kills of a liveness or startup probe have different causes that a timeline alone does
//! not tell apart: the story runs the same pod once more with the container's liveness and
//! startup probes unable to kill (their failureThreshold out of reach; same seed, same horizon,
//! so the run is the original one up to the first kill) and reads what the app would have done:
//! become healthy (it was killed while still starting, or during an outage it would have
//! outlived) or go on failing (a restart cured it, or it fails again after every restart). A
//! proposed change is kept only when a run of the changed pod confirms it; its measured effect
//! is printed with it.

use probesim_core::{Outcome, PodSpec, ProbeKind, ProbeSpec, SimDuration, SimTime};

use super::{plural, At, Rerun, Took};
use crate::trace::compact::{ahead, Periodic};
use crate::trace::{Item, Trace, What};

/// What a container's trouble comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Cause {
    /// Killed by its liveness or startup probe before it ever became healthy, although it
    /// would have: `healthy` after its start (`kind` is the probe whose failures killed it).
    StillStarting {
        /// The probe whose failures killed it.
        kind: ProbeKind,
        /// How long after its start it would have passed that probe.
        healthy: SimDuration,
    },
    /// Killed during an outage it would have outlived: failures from `from` until `until`.
    Outage {
        /// The first failure.
        from: SimTime,
        /// The first success after it.
        until: SimTime,
    },
    /// Killed, then healthy for good: the restart cured it (`kills` times).
    Cured {
        /// Kills before it settled.
        kills: u64,
        /// When the failures began that would have gone on without a kill.
        failing_from: SimTime,
    },
    /// Fails again after every restart (`never`: no instance ever passes).
    Returns {
        /// No liveness or startup probe of any instance ever succeeded.
        never: bool,
    },
    /// Its readiness probe turns it NotReady `times` times after it was Ready, with no kill.
    Flaps {
        /// How often.
        times: u64,
    },
}

/// A change, simulated: what to change and the measured effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Measured {
    /// `livenessProbe.failureThreshold: 3 → 13`.
    pub(super) change: String,
    /// `0 restarts in 30m, Ready at 47s`.
    pub(super) effect: String,
    /// The changed probes.
    pub(super) probes: [Option<ProbeSpec>; 3],
}

/// One container's diagnosis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Diagnosis {
    /// The container (engine index).
    pub(super) c: usize,
    /// The cause.
    pub(super) cause: Cause,
    /// The change that fixes it, measured (`None`: no probe change does, or none was found).
    pub(super) fix: Option<Measured>,
    /// A measured change that does not fix it, for the record (a larger threshold that only
    /// stretches each cycle).
    pub(super) futile: Option<Measured>,
}

/// What a run shows about one container and the pod, for measuring a change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Summary {
    /// Restarts of every container.
    pub(super) restarts: u64,
    /// Liveness and startup kills of the container.
    pub(super) kills: u64,
    /// When the pod was first Ready.
    pub(super) first_ready: Option<SimTime>,
    /// When the pod first turned NotReady at or after the instant watched ([`summary_watching`];
    /// none without one), having been Ready, and when it was Ready again: one, not every
    /// NotReady of a crash loop (121,296 in a year of kubia).
    pub(super) not_ready: Vec<(SimTime, Option<SimTime>)>,
    /// The container's Ready turned false after it had been Ready, with no kill or exit.
    pub(super) flaps: u64,
}

/// A failureThreshold no run reaches.
const NEVER: i32 = i32::MAX;

/// A startup threshold with room for a start half as slow again as the one seen.
fn spare(need: i32) -> i32 {
    need.saturating_add((need.saturating_add(1)) / 2)
}

/// Reads a run.
pub(super) fn summary(trace: &Trace, c: usize) -> Summary {
    summary_watching(trace, c, None)
}

/// Reads a run, keeping when the pod first turns NotReady at or after `watch`.
pub(super) fn summary_watching(trace: &Trace, c: usize, watch: Option<SimTime>) -> Summary {
    let mut r = Reading::new(c, watch);
    trace.read(&mut r);
    r.s
}

/// [`summary_watching`] as it reads, fact by fact (a gap's repetitions by their count once
/// they are alike: [`Periodic`]).
#[derive(Clone, Debug)]
pub(super) struct Reading {
    c: usize,
    watch: Option<SimTime>,
    pub(super) s: Summary,
    ready: bool,
    c_ready: bool,
    stopping: bool,
    verdict: Option<SimTime>,
}

impl Reading {
    pub(super) fn new(c: usize, watch: Option<SimTime>) -> Reading {
        Reading {
            c,
            watch,
            s: Summary::default(),
            ready: false,
            c_ready: false,
            stopping: false,
            verdict: None,
        }
    }
}

impl Periodic for Reading {
    fn fact(&mut self, item: &Item) {
        let (c, s) = (self.c, &mut self.s);
        match item.what {
            What::Start {
                c: sc,
                restart_count,
            } => {
                if restart_count > 0 {
                    s.restarts += 1;
                }
                if sc == c {
                    self.stopping = false;
                }
            }
            What::Result {
                c: rc,
                probe: ProbeKind::Liveness | ProbeKind::Startup,
                result: probesim_core::ProbeResult::Failure,
            } if rc == c => self.verdict = Some(item.t),
            What::Kill { c: kc, reason, .. } if kc == c => {
                self.stopping = true;
                // A whole-pod stop right at a liveness or startup verdict is that verdict's
                // kill (R15: with restartPolicy Never nothing runs again).
                let at_verdict =
                    reason == probesim_core::KillReason::Unknown && self.verdict == Some(item.t);
                if at_verdict
                    || matches!(
                        reason,
                        probesim_core::KillReason::LivenessProbe
                            | probesim_core::KillReason::StartupProbe
                    )
                {
                    s.kills += 1;
                }
            }
            What::Exit { c: ec, .. } if ec == c => self.stopping = true,
            What::Ready { c: rc, ready: r } if rc == c => {
                if self.c_ready && !r && !self.stopping {
                    s.flaps += 1;
                }
                self.c_ready = r;
            }
            What::PodReady { ready: r } => {
                if r {
                    s.first_ready.get_or_insert(item.t);
                    if let Some(last) = s.not_ready.last_mut() {
                        last.1.get_or_insert(item.t);
                    }
                } else if self.ready
                    && s.not_ready.is_empty()
                    && self.watch.is_some_and(|w| item.t >= w)
                {
                    s.not_ready.push((item.t, None));
                }
                self.ready = r;
            }
            _ => {}
        }
    }

    fn steady(&self, before: &Self, cycle: SimDuration, from: SimTime) -> bool {
        // The instant watched is the one thing not moved on with the cycle: past it (or with
        // its NotReady found), every repetition compares with it alike.
        let watched = self.watch.is_none_or(|w| w <= from) || !self.s.not_ready.is_empty();
        watched
            && (self.ready, self.c_ready, self.stopping)
                == (before.ready, before.c_ready, before.stopping)
            && (self.verdict == before.verdict.map(|t| ahead(t, cycle, 1))
                // No verdict in the repetition: the one before it matches no later kill.
                || (self.verdict == before.verdict && self.verdict.is_none_or(|t| t < from)))
            && self.s.first_ready == before.s.first_ready
            && self.s.not_ready == before.s.not_ready
    }

    fn repeat(&mut self, before: &Self, n: u64, cycle: SimDuration) {
        let s = &mut self.s;
        s.restarts += (s.restarts - before.s.restarts) * n;
        s.kills += (s.kills - before.s.kills) * n;
        s.flaps += (s.flaps - before.s.flaps) * n;
        if self.verdict != before.verdict {
            self.verdict = self.verdict.map(|t| ahead(t, cycle, n));
        }
    }
}

/// A run of failures of one probe that reached the original threshold, in a run where the
/// probe could not kill.
#[derive(Clone, Copy, Debug)]
struct Streak {
    kind: ProbeKind,
    /// The first failure.
    from: SimTime,
    /// Failures in a row.
    failures: u32,
    /// The success that ended it.
    until: Option<SimTime>,
    /// A probe of this kind succeeded before it, in the same instance.
    healthy_before: bool,
    /// The instance's start.
    started: SimTime,
}

/// Container `c`'s liveness and startup failure runs that reach their threshold: the first and
/// the last (by their first failure), the longest an instance lived before one began and the
/// most failures in a liveness run (0 without one).
#[derive(Clone, Copy, Debug, Default)]
struct Streaks {
    first: Option<Streak>,
    last: Option<Streak>,
    lived: Option<SimDuration>,
    liveness: u32,
}

/// The failure runs of container `c`'s liveness and startup probes that reach `threshold`.
fn streaks<F: Fn(ProbeKind) -> u32 + Copy>(trace: &Trace, c: usize, threshold: F) -> Streaks {
    let mut r = StreakReading::new(c, threshold);
    trace.read(&mut r);
    r.finish()
}

/// [`streaks`] as it reads ([`Periodic`]).
#[derive(Clone, Copy, Debug)]
struct StreakReading<F> {
    c: usize,
    threshold: F,
    found: Streaks,
    /// How many runs were found, and which of them is `found.last`.
    pushed: u64,
    last_seq: u64,
    started: SimTime,
    healthy: [bool; 3],
    open: [Option<Streak>; 3],
}

impl<F: Fn(ProbeKind) -> u32 + Copy> StreakReading<F> {
    fn new(c: usize, threshold: F) -> Self {
        StreakReading {
            c,
            threshold,
            found: Streaks::default(),
            pushed: 0,
            last_seq: 0,
            started: SimTime::ZERO,
            healthy: [false; 3],
            open: [None; 3],
        }
    }

    /// Takes note of a run found (as a sort by first failure, stable, would order them).
    fn push(&mut self, s: Streak) {
        self.pushed += 1;
        let f = &mut self.found;
        if f.first.is_none_or(|x| s.from < x.from) {
            f.first = Some(s);
        }
        if f.last.is_none_or(|x| s.from >= x.from) {
            f.last = Some(s);
            self.last_seq = self.pushed;
        }
        let lived = s.from.saturating_since(s.started);
        f.lived = Some(f.lived.map_or(lived, |l| l.max(lived)));
        if s.kind == ProbeKind::Liveness {
            f.liveness = f.liveness.max(s.failures);
        }
    }

    fn finish(mut self) -> Streaks {
        for s in self.open.into_iter().flatten() {
            if s.failures >= (self.threshold)(s.kind) {
                self.push(s);
            }
        }
        self.found
    }
}

/// `s` moved on by `n` cycles.
fn moved(s: Streak, cycle: SimDuration, n: u64) -> Streak {
    Streak {
        from: ahead(s.from, cycle, n),
        until: s.until.map(|t| ahead(t, cycle, n)),
        started: ahead(s.started, cycle, n),
        ..s
    }
}

impl<F: Fn(ProbeKind) -> u32 + Copy> Periodic for StreakReading<F> {
    fn fact(&mut self, item: &Item) {
        let c = self.c;
        match item.what {
            What::Start { c: sc, .. } if sc == c => {
                self.started = item.t;
                self.healthy = [false; 3];
                for k in 0..3 {
                    if let Some(s) = self.open[k].take() {
                        if s.failures >= (self.threshold)(s.kind) {
                            self.push(s);
                        }
                    }
                }
            }
            What::Probe {
                c: pc,
                probe,
                outcome,
                ..
            } if pc == c && probe != ProbeKind::Readiness => {
                let k = probe.index();
                match outcome {
                    Outcome::Failure => {
                        let s = self.open[k].get_or_insert(Streak {
                            kind: probe,
                            from: item.t,
                            failures: 0,
                            until: None,
                            healthy_before: self.healthy[k],
                            started: self.started,
                        });
                        s.failures += 1;
                    }
                    Outcome::Success | Outcome::Warning => {
                        if let Some(mut s) = self.open[k].take() {
                            if s.failures >= (self.threshold)(probe) {
                                s.until = Some(item.t);
                                self.push(s);
                            }
                        }
                        self.healthy[k] = true;
                    }
                    Outcome::Error => {}
                }
            }
            _ => {}
        }
    }

    fn steady(&self, before: &Self, cycle: SimDuration, _from: SimTime) -> bool {
        // A run opened anew in each repetition (moved on), or one going on through them (its
        // failures a counter: the threshold is compared when it ends).
        let same = |a: &Option<Streak>, b: &Option<Streak>| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                let m = moved(*b, cycle, 1);
                let key = |s: &Streak| (s.kind, s.from, s.until, s.healthy_before, s.started);
                (key(a) == key(&m) && a.failures == m.failures)
                    || (key(a) == key(b) && a.until.is_none() && a.failures >= b.failures)
            }
            _ => false,
        };
        // The runs found in this repetition come again, moved on, in the next: the last of
        // them stays the last (one found here), the first and the longest life stay. An
        // instance started in the repetition starts again in the next; one that goes on
        // through it goes on.
        (self.started == ahead(before.started, cycle, 1)
            || (self.started == before.started && self.pushed == before.pushed))
            && self.healthy == before.healthy
            && (0..3).all(|k| same(&self.open[k], &before.open[k]))
            && (self.pushed == before.pushed || self.last_seq > before.pushed)
    }

    fn repeat(&mut self, before: &Self, n: u64, cycle: SimDuration) {
        let more = self.pushed - before.pushed;
        if more > 0 {
            self.last_seq += more * n;
            self.pushed += more * n;
            self.found.last = self.found.last.map(|s| moved(s, cycle, n));
        }
        if self.started != before.started {
            self.started = ahead(self.started, cycle, n);
        }
        for (s, b) in self.open.iter_mut().zip(&before.open) {
            let (Some(s), Some(b)) = (s.as_mut(), b) else {
                continue;
            };
            if s.from == b.from {
                // Going on: its failures grow as in this repetition.
                let more = u64::from(s.failures - b.failures).saturating_mul(n);
                s.failures = s
                    .failures
                    .saturating_add(u32::try_from(more).unwrap_or(u32::MAX));
            } else {
                *s = moved(*s, cycle, n);
            }
        }
    }
}

fn retime(p: &ProbeSpec, f: impl FnOnce(&mut probesim_core::ProbeTiming)) -> Option<ProbeSpec> {
    probesim_analysis::fix::retime(p, f)
}

/// Container `c`'s probes with its liveness and startup probes unable to kill.
fn unkillable(probes: &[Option<ProbeSpec>; 3]) -> [Option<ProbeSpec>; 3] {
    let mut out = probes.clone();
    for k in [ProbeKind::Liveness, ProbeKind::Startup] {
        if let Some(p) = &probes[k.index()] {
            out[k.index()] = retime(p, |t| t.failure_threshold = NEVER).or_else(|| Some(p.clone()));
        }
    }
    out
}

/// What the story needs to measure changes of one container.
pub(super) struct Bench<'a> {
    pub(super) pod: &'a PodSpec,
    pub(super) trace: &'a Trace,
    pub(super) rerun: &'a dyn Rerun,
    pub(super) span: SimDuration,
}

impl Bench<'_> {
    fn run(&self, c: usize, probes: &[Option<ProbeSpec>; 3]) -> Option<(Trace, Summary)> {
        self.run_watching(c, probes, None)
    }

    /// [`Bench::run`], its summary watching from `watch` ([`summary_watching`]).
    fn run_watching(
        &self,
        c: usize,
        probes: &[Option<ProbeSpec>; 3],
        watch: Option<SimTime>,
    ) -> Option<(Trace, Summary)> {
        let trace = self.rerun.rerun(c, probes)?;
        let s = summary_watching(&trace, c, watch);
        Some((trace, s))
    }

    fn restarts(&self, s: &Summary) -> String {
        format!(
            "{} restart{} in {}",
            s.restarts,
            plural(s.restarts),
            Took(self.span)
        )
    }

    /// Runs each candidate in turn and keeps the first that `works`.
    fn first(
        &self,
        c: usize,
        candidates: Vec<[Option<ProbeSpec>; 3]>,
        works: impl Fn(&Summary) -> bool,
        effect: impl Fn(&Summary) -> String,
    ) -> Option<Measured> {
        self.first_watching(c, candidates, None, works, effect)
    }

    /// [`Bench::first`], the summaries watching from `watch` ([`summary_watching`]).
    fn first_watching(
        &self,
        c: usize,
        candidates: Vec<[Option<ProbeSpec>; 3]>,
        watch: Option<SimTime>,
        works: impl Fn(&Summary) -> bool,
        effect: impl Fn(&Summary) -> String,
    ) -> Option<Measured> {
        let original = &self.pod.container(c).probes;
        let mut seen = Vec::new();
        for probes in candidates {
            if &probes == original || seen.contains(&probes) {
                continue;
            }
            seen.push(probes.clone());
            let Some((_, s)) = self.run_watching(c, &probes, watch) else {
                continue;
            };
            if works(&s) {
                return Some(Measured {
                    change: probesim_analysis::fix::describe_change(original, &probes),
                    effect: effect(&s),
                    probes,
                });
            }
        }
        None
    }

    /// The diagnosis of container `c`, or `None` when nothing went wrong with it.
    pub(super) fn diagnose(&self, c: usize) -> Option<Diagnosis> {
        let original = summary(self.trace, c);
        let spec = self.pod.container(c);
        if original.kills > 0 {
            return self.killed(c, &original);
        }
        if spec.probe(ProbeKind::Readiness).is_some() && original.flaps > 0 {
            return Some(self.flapping(c, &original));
        }
        None
    }

    fn threshold(&self, c: usize, kind: ProbeKind) -> u32 {
        self.pod
            .container(c)
            .probe(kind)
            .map_or(1, |p| p.failure_threshold().unsigned_abs())
    }

    fn killed(&self, c: usize, original: &Summary) -> Option<Diagnosis> {
        let probes = self.pod.container(c).probes.clone();
        let (observed, _) = self.run(c, &unkillable(&probes))?;
        let found = streaks(&observed, c, |k| self.threshold(c, k));
        let first = found.first?;
        let last = found.last?;
        let zero = |s: &Summary| s.kills == 0;
        let mut d = Diagnosis {
            c,
            cause: Cause::Returns { never: false },
            fix: None,
            futile: None,
        };
        if last.until.is_some() && !first.healthy_before {
            // It would have become healthy: killed while still starting.
            let healthy = first.until?.saturating_since(first.started);
            d.cause = Cause::StillStarting {
                kind: first.kind,
                healthy,
            };
            let k = i32::try_from(first.failures).unwrap_or(NEVER - 1);
            let need = k.saturating_add(1);
            let mut candidates = Vec::new();
            let live = probes[ProbeKind::Liveness.index()].as_ref();
            let startup = probes[ProbeKind::Startup.index()].as_ref();
            match (first.kind, startup, live) {
                // Half as much again as the start seen, for a slower start than this one;
                // then just enough.
                (ProbeKind::Startup, Some(p), _) => {
                    for n in [spare(need), need] {
                        let mut changed = probes.clone();
                        changed[ProbeKind::Startup.index()] =
                            retime(p, |t| t.failure_threshold = n);
                        candidates.push(changed);
                    }
                }
                (_, None, Some(p)) => {
                    // A startup probe on the liveness probe's endpoint, long enough for the
                    // start seen, then one with room to spare.
                    for n in [spare(need), need] {
                        let mut changed = probes.clone();
                        changed[ProbeKind::Startup.index()] = retime(p, |t| {
                            t.failure_threshold = n;
                            t.success_threshold = 1;
                            t.termination_grace_period_seconds = None;
                        });
                        candidates.push(changed);
                    }
                }
                _ => {}
            }
            if let Some(p) = live {
                let failures = i32::try_from(found.liveness).unwrap_or(NEVER - 1);
                let mut changed = probes.clone();
                changed[ProbeKind::Liveness.index()] =
                    retime(p, |t| t.failure_threshold = failures.saturating_add(1));
                candidates.push(changed);
            }
            d.fix = self.first(c, candidates, zero, |s| {
                let ready = s.first_ready.map_or_else(
                    || "never Ready".to_owned(),
                    |t| format!("Ready at {}", At(t)),
                );
                format!("{}, {ready}", self.restarts(s))
            });
            return Some(d);
        }
        if let (Some(until), true) = (last.until, first.healthy_before) {
            // Healthy before, failing for a while, healthy again without a kill: an outage.
            d.cause = Cause::Outage {
                from: first.from,
                until,
            };
            if let Some(p) = probes[ProbeKind::Liveness.index()].as_ref() {
                let k = found.liveness;
                let k = i32::try_from(k).unwrap_or(NEVER - 2);
                let candidates = [k + 1, k + 2, k.saturating_mul(2)]
                    .into_iter()
                    .map(|n| {
                        let mut changed = probes.clone();
                        changed[ProbeKind::Liveness.index()] =
                            retime(p, |t| t.failure_threshold = n);
                        changed
                    })
                    .collect();
                d.fix = self.first_watching(c, candidates, Some(first.from), zero, |s| {
                    let back = s
                        .not_ready
                        .iter()
                        .find(|(down, _)| *down >= first.from)
                        .map_or_else(
                            || "Ready throughout the outage".to_owned(),
                            |(_, back)| match back {
                                Some(b) if *b >= until => format!(
                                    "Ready again {} after the outage ends",
                                    Took(b.saturating_since(until))
                                ),
                                Some(b) => format!("Ready again at {}", At(*b)),
                                None => "not Ready again before the end of the run".to_owned(),
                            },
                        );
                    format!("{}, {back}", self.restarts(s))
                });
            }
            return Some(d);
        }
        // The failures would go on without a kill.
        let kills_after = self.settled(c);
        if let Some(kills) = kills_after {
            d.cause = Cause::Cured {
                kills,
                failing_from: last.from,
            };
            return Some(d);
        }
        let never = !observed.items.iter().any(|i| {
            matches!(i.what, What::Probe { c: pc, probe, outcome: Outcome::Success | Outcome::Warning, .. }
                if pc == c && probe != ProbeKind::Readiness)
        }) && !self.trace.items.iter().any(|i| {
            matches!(i.what, What::Probe { c: pc, probe, outcome: Outcome::Success | Outcome::Warning, .. }
                if pc == c && probe != ProbeKind::Readiness)
        });
        d.cause = Cause::Returns { never };
        // A larger threshold stretches each cycle and keeps the restarts: measured.
        if let Some(p) = probes[ProbeKind::Liveness.index()].as_ref() {
            let n = p.failure_threshold().saturating_mul(2);
            let mut changed = probes.clone();
            changed[ProbeKind::Liveness.index()] = retime(p, |t| t.failure_threshold = n);
            d.futile = self.first(
                c,
                vec![changed],
                |s| s.kills > 0,
                |s| {
                    if s.restarts == original.restarts {
                        format!("still {}", self.restarts(s))
                    } else {
                        format!("{}, against {}", self.restarts(s), original.restarts)
                    }
                },
            );
        }
        Some(d)
    }

    /// Whether the kills of `c` stopped for good: the instance after the last kill passed its
    /// liveness (or startup) probe, nothing killed or stopped it to the end, and it has stayed
    /// healthy longer than any killed instance did before the failures that killed it (an
    /// instance still young at the end proves nothing). `Some(kills)` if so.
    fn settled(&self, c: usize) -> Option<u64> {
        let items = &self.trace.items;
        let killed = |i: &crate::trace::Item| matches!(i.what, What::Kill { c: kc, reason: probesim_core::KillReason::LivenessProbe | probesim_core::KillReason::StartupProbe, .. } if kc == c);
        let last_kill = items.iter().rposition(killed)?;
        let after = &items[last_kill..];
        let restarted = after
            .iter()
            .position(|i| matches!(i.what, What::Start { c: sc, .. } if sc == c))?;
        let rest = &after[restarted..];
        let passed = rest.iter().any(|i| {
            matches!(i.what, What::Probe { c: pc, probe, outcome: Outcome::Success | Outcome::Warning, .. }
                if pc == c && probe != ProbeKind::Readiness)
        });
        let stopped = rest[1..].iter().any(
            |i| matches!(i.what, What::Kill { c: kc, .. } | What::Exit { c: kc, .. } if kc == c),
        );
        // The longest a killed instance went from its start to the first failure of the run
        // that killed it.
        let thresholds = |k: ProbeKind| self.threshold(c, k);
        let lived = streaks(self.trace, c, thresholds)
            .lived
            .unwrap_or(SimDuration::ZERO);
        let last_life = self.trace.end.saturating_since(rest[0].t);
        let kills = summary(self.trace, c).kills;
        (passed && !stopped && last_life > lived).then_some(kills)
    }

    fn flapping(&self, c: usize, original: &Summary) -> Diagnosis {
        let probes = self.pod.container(c).probes.clone();
        let mut d = Diagnosis {
            c,
            cause: Cause::Flaps {
                times: original.flaps,
            },
            fix: None,
            futile: None,
        };
        let Some(p) = probes[ProbeKind::Readiness.index()].as_ref() else {
            return d;
        };
        // The longest run of readiness failures that ended, counting the runs at distinct
        // instants (a verdict's change triggers one more run at once, which a higher threshold
        // would not cause).
        let mut run = 0u32;
        let mut longest = 0u32;
        let mut last = None;
        let readiness = |w: &What| matches!(w, What::Probe { c: pc, probe: ProbeKind::Readiness, .. } if *pc == c);
        for (_, item) in self.trace.replay_where(readiness) {
            if let What::Probe {
                c: pc,
                probe: ProbeKind::Readiness,
                outcome,
                ..
            } = item.what
            {
                if pc != c {
                    continue;
                }
                match outcome {
                    Outcome::Failure if last != Some(item.t) => run += 1,
                    Outcome::Failure => {}
                    Outcome::Success | Outcome::Warning => {
                        longest = longest.max(run);
                        run = 0;
                    }
                    Outcome::Error => {}
                }
                last = Some(item.t);
            }
        }
        if longest < p.failure_threshold().unsigned_abs() {
            return d;
        }
        let k = i32::try_from(longest).unwrap_or(NEVER - 2);
        let candidates = [k + 1, k + 2, k.saturating_mul(2)]
            .into_iter()
            .map(|n| {
                let mut changed = probes.clone();
                changed[ProbeKind::Readiness.index()] = retime(p, |t| t.failure_threshold = n);
                changed
            })
            .collect();
        d.fix = self.first(
            c,
            candidates,
            |s| s.flaps == 0,
            |s| {
                format!(
                    "{c_name} not Ready {} time{} after it first was, against {}; {}",
                    s.flaps,
                    plural(s.flaps),
                    original.flaps,
                    self.restarts(s),
                    c_name = self.trace.names[c]
                )
            },
        );
        d
    }
}

#[cfg(test)]
mod tests;
