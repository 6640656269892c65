//! What a [`Run`](crate::Run) keeps of the timeline, and how it keeps a long one small.
//!
//! The [`Recorder`] keeps the happenings the queries read (kills, starts, readiness, statuses)
//! and counts probe runs. It takes part in steady-state fast-forward, as the command line's
//! summary does: when the simulation finds that the state repeats (a crash loop at its
//! back-off cap, a pod whose probes keep answering alike) and jumps `k` cycles at once, the
//! recorder keeps the happenings of the one cycle it saw and notes that they repeat `k` times,
//! each a cycle later. Ten simulated years of a crash loop then hold one cycle, not a million.
//! [`Timeline::iter`] gives the happenings back in order, the repeats expanded as it goes.
//!
//! A jump tells the recorder only what it moves: the walk of its state
//! ([`FastForward::visit_cycle`]) holds the number of happenings kept `n`, and `n²`, both as
//! identifiers that are never compared; a jump of `k` cycles of `c` happenings each, from a
//! cycle that began with `m` kept, moves them by `k·c` and `k·c·(n + m)`, from which `c` and
//! `k` follow. The time of the last pod sync, compared as an offset from now, moves by `k`
//! cycle lengths, which gives the length. Events the run simulates one by one are counted for
//! the event limit; skipped cycles are not (they cost nothing to keep).

use core::convert::Infallible;

use probesim_core::cycle::Visitor;
use probesim_core::{
    ContainerStatus, Event, EventKind, FastForward, Flow, Phase, SimDuration, SimTime, Sink,
};

use crate::run::Kill;

/// What the queries need of the timeline, kept as it streams by (probe runs are counted, not
/// kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Happening {
    Kill(Kill),
    Start {
        container: String,
        restart_count: u32,
    },
    Ready {
        container: String,
        ready: bool,
    },
    Started {
        container: String,
        started: bool,
    },
    Status {
        container: String,
        status: ContainerStatus,
    },
    PodReady(bool),
    Phase(Phase),
}

impl Happening {
    /// The same happening `cycles` cycles of `period` later, in which the container restarts
    /// `restarts` times: its times move by the cycles' length and its restart counts by the
    /// restarts, as the simulation's own walk moves them in a jump.
    fn later(&self, cycles: u64, period: SimDuration, restarts: impl Fn(&str) -> u64) -> Happening {
        let by = SimDuration::from_millis(period.as_millis().saturating_mul(cycles));
        let grown = |n: u32, c: &str| {
            let more = restarts(c).saturating_mul(cycles);
            u32::try_from(u64::from(n).saturating_add(more)).unwrap_or(u32::MAX)
        };
        match self {
            Happening::Kill(k) => Happening::Kill(Kill {
                at: k.at.saturating_add(by),
                ..k.clone()
            }),
            Happening::Start {
                container,
                restart_count,
            } => Happening::Start {
                container: container.clone(),
                restart_count: grown(*restart_count, container),
            },
            Happening::Status { container, status } => {
                let mut status = *status;
                status.visit_cycle(&mut Later {
                    by,
                    more: restarts(container).saturating_mul(cycles),
                });
                Happening::Status {
                    container: container.clone(),
                    status,
                }
            }
            h => h.clone(),
        }
    }
}

/// Moves a container status on by whole cycles: its times by `by`, its restart count by `more`.
struct Later {
    by: SimDuration,
    more: u64,
}

impl Visitor for Later {
    fn exact(&mut self, _value: u64) {}

    fn time(&mut self, t: &mut SimTime) {
        *t = t.saturating_add(self.by);
    }

    fn past(&mut self, t: &mut SimTime, _horizon: SimDuration) {
        *t = t.saturating_add(self.by);
    }

    fn saturating(&mut self, _n: &mut u64, _cap: u64, _max: u64) {}

    fn count(&mut self, n: &mut u64, _limit: Option<u64>, max: u64) {
        *n = n.saturating_add(self.more).min(max);
    }

    fn id(&mut self, _id: &mut u64, _base: u64, _max: u64) {}
}

/// The happenings of one cycle, repeated by a jump: the `len` kept just before index `at`
/// happen `times` more times, the `r`-th copy `r × period` after the original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Repeat {
    at: usize,
    len: usize,
    times: u64,
    period: SimDuration,
}

/// The timeline a run keeps: happenings in order, with the cycles fast-forward repeated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Timeline {
    kept: Vec<(SimTime, Happening)>,
    repeats: Vec<Repeat>,
}

impl Timeline {
    /// Every happening in time order, repeated cycles expanded.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (SimTime, Happening)> + '_ {
        Expand {
            timeline: self,
            next: 0,
            repeat: 0,
            copy: None,
            restarts: Vec::new(),
        }
    }

    /// The happenings kept one by one (repeats not expanded).
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.kept.len()
    }
}

/// The iterator of [`Timeline::iter`].
struct Expand<'a> {
    timeline: &'a Timeline,
    /// The next kept happening to hand out.
    next: usize,
    /// The next repeat not finished.
    repeat: usize,
    /// Inside a repeat: which copy (from 1) and which kept happening of its cycle.
    copy: Option<(u64, usize)>,
    /// Inside a repeat: each container's restarts in one cycle.
    restarts: Vec<(&'a str, u64)>,
}

impl Iterator for Expand<'_> {
    type Item = (SimTime, Happening);

    fn next(&mut self) -> Option<Self::Item> {
        let Timeline { kept, repeats } = self.timeline;
        loop {
            if let Some((copy, i)) = self.copy {
                let r = repeats[self.repeat];
                let (t, h) = &kept[i];
                let by = SimDuration::from_millis(r.period.as_millis().saturating_mul(copy));
                let restarts = |c: &str| {
                    self.restarts
                        .iter()
                        .find(|(name, _)| *name == c)
                        .map_or(0, |(_, n)| *n)
                };
                let moved = h.later(copy, r.period, restarts);
                self.copy = if i + 1 < r.at {
                    Some((copy, i + 1))
                } else if copy < r.times {
                    Some((copy + 1, r.at - r.len))
                } else {
                    self.repeat += 1;
                    None
                };
                return Some((t.saturating_add(by), moved));
            }
            match repeats.get(self.repeat) {
                Some(r) if r.at == self.next => {
                    if r.times == 0 || r.len == 0 {
                        self.repeat += 1;
                    } else {
                        self.copy = Some((1, r.at - r.len));
                        // A container restarts once per start of a new instance in the cycle.
                        self.restarts.clear();
                        for (_, h) in &kept[r.at - r.len..r.at] {
                            if let Happening::Start { container, .. } = h {
                                match self.restarts.iter_mut().find(|(n, _)| n == container) {
                                    Some((_, n)) => *n += 1,
                                    None => self.restarts.push((container, 1)),
                                }
                            }
                        }
                    }
                }
                _ => {
                    let (t, h) = kept.get(self.next)?;
                    self.next += 1;
                    return Some((*t, h.clone()));
                }
            }
        }
    }
}

/// The sink that keeps the timeline.
#[derive(Debug)]
pub(crate) struct Recorder {
    timeline: Timeline,
    probes: u64,
    /// When the last pod sync began (a point that moves with every cycle).
    last_sync: SimTime,
    /// Events simulated one by one, and the most allowed.
    stepped: u64,
    limit: u64,
    exceeded_at: Option<SimTime>,
}

impl Recorder {
    /// A recorder that stops the run at the first event simulated one by one past `limit`.
    pub(crate) fn new(limit: u64) -> Recorder {
        Recorder {
            timeline: Timeline::default(),
            probes: 0,
            last_sync: SimTime::ZERO,
            stepped: 0,
            limit,
            exceeded_at: None,
        }
    }

    /// When the run passed the limit, if it did (it stopped there).
    pub(crate) fn exceeded_at(&self) -> Option<SimTime> {
        self.exceeded_at
    }

    /// The timeline and the probe runs counted.
    pub(crate) fn finish(self) -> (Timeline, u64) {
        (self.timeline, self.probes)
    }
}

impl Sink for Recorder {
    type Error = Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        if self.stepped >= self.limit {
            self.exceeded_at = Some(event.t);
            return Ok(Flow::Stop);
        }
        self.stepped += 1;
        let happening = match &event.kind {
            EventKind::Probe { .. } => {
                self.probes += 1;
                None
            }
            EventKind::Sync { .. } => {
                self.last_sync = event.t;
                None
            }
            EventKind::Kill {
                container,
                reason,
                grace,
                cause,
            } => Some(Happening::Kill(Kill {
                at: event.t,
                container: (*container).to_owned(),
                reason: *reason,
                cause: *cause,
                grace: *grace,
            })),
            EventKind::Start {
                container,
                restart_count,
            } => Some(Happening::Start {
                container: (*container).to_owned(),
                restart_count: *restart_count,
            }),
            EventKind::Ready { container, ready } => Some(Happening::Ready {
                container: (*container).to_owned(),
                ready: *ready,
            }),
            EventKind::Started { container, started } => Some(Happening::Started {
                container: (*container).to_owned(),
                started: *started,
            }),
            EventKind::Status { container, status } => Some(Happening::Status {
                container: (*container).to_owned(),
                status: **status,
            }),
            EventKind::PodReady { ready } => Some(Happening::PodReady(*ready)),
            EventKind::Phase { phase } => Some(Happening::Phase(*phase)),
            _ => None,
        };
        if let Some(h) = happening {
            self.timeline.kept.push((event.t, h));
        }
        Ok(Flow::Continue)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl FastForward for Recorder {
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        let Recorder {
            timeline,
            probes,
            last_sync,
            // The limit counts what is simulated one by one; a jump simulates nothing.
            stepped: _,
            limit: _,
            // Set only when the run stops.
            exceeded_at: _,
        } = self;
        let n = timeline.kept.len() as u64;
        let Some(square) = n.checked_mul(n) else {
            return false;
        };
        let (mut len, mut sq, mut sync) = (n, square, *last_sync);
        // Identifiers against themselves: never compared, moved by a jump.
        v.id(&mut len, n, u64::MAX);
        v.id(&mut sq, square, u64::MAX);
        v.time(&mut sync);
        v.count(probes, None, u64::MAX);
        if sync == *last_sync {
            // Recorded, not moved.
            return true;
        }
        // Moved by a jump of k cycles: k·c more happenings, k·c·(n + m) more on the square.
        let moved = sync.saturating_since(*last_sync).as_millis();
        *last_sync = sync;
        let (kc, kcs) = (len - n, sq - square);
        if kc == 0 {
            // The cycle keeps nothing (probe runs only, counted above).
            return true;
        }
        let m = (kcs / kc).saturating_sub(n);
        let c = n.saturating_sub(m);
        if c == 0 || kc % c != 0 {
            return true;
        }
        let k = kc / c;
        timeline.repeats.push(Repeat {
            at: timeline.kept.len(),
            len: usize::try_from(c).unwrap_or(0),
            times: k,
            period: SimDuration::from_millis(moved / k),
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probesim_scenario::scenario::Scenario;

    fn record(scenario: &Scenario, fast_forward: bool) -> (Timeline, u64) {
        let mut sim = scenario.simulation();
        sim.set_fast_forward(fast_forward);
        let mut recorder = Recorder::new(u64::MAX);
        let end = scenario.duration.unwrap_or(SimTime::ZERO);
        sim.run_until(end, &mut recorder).unwrap();
        assert_eq!(sim.fast_forwarded().is_zero(), !fast_forward);
        recorder.finish()
    }

    // R35: a crash loop at its back-off cap repeats; a pod whose probes keep passing too. The
    // fast-forwarded timeline, expanded, is the one simulated step by step.
    #[test]
    fn repeated_cycles_expand_to_the_step_by_step_timeline() {
        let kubia = include_str!("../../scenarios/kubia-unhealthy.yaml");
        let healthy = kubia.replace("\"5x200 then 500\"", "ok");
        for (text, horizon, looping) in [(kubia, "48h", true), (&healthy, "3h", false)] {
            let text = text.replace("duration: 30m", &format!("duration: {horizon}"));
            let scenario = Scenario::from_str(&text, "kubia.yaml").unwrap();
            let (slow, slow_probes) = record(&scenario, false);
            let (fast, fast_probes) = record(&scenario, true);
            assert_eq!(fast_probes, slow_probes);
            if looping {
                // About 330 cycles of 520 s: a dozen are kept, found before the jump.
                assert!(
                    fast.kept() * 20 < slow.kept(),
                    "{} kept of {}",
                    fast.kept(),
                    slow.kept()
                );
            }
            let expanded: Vec<_> = fast.iter().collect();
            let stepped: Vec<_> = slow.iter().collect();
            assert_eq!(expanded.len(), stepped.len());
            assert!(expanded == stepped, "the expanded timeline differs");
        }
    }

    /// Every bundled scenario that loads on its own (no `manifest:` file), run for six hours:
    /// fast-forwarded and expanded, its timeline is the step-by-step one.
    #[test]
    fn bundled_scenarios_expand_to_their_step_by_step_timelines() {
        let mut dirs = vec![std::path::PathBuf::from("scenarios")];
        let mut checked = 0;
        let mut jumped = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "yaml") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let Ok(mut scenario) = Scenario::from_str(&text, "s.yaml") else {
                    continue;
                };
                scenario.duration = Some(SimTime::from_millis(6 * 3_600_000));
                let (slow, _) = record_any(&scenario, false);
                let (fast, _) = record_any(&scenario, true);
                if fast.repeats.iter().any(|r| r.times > 0) {
                    jumped += 1;
                }
                let expanded: Vec<_> = fast.iter().collect();
                let stepped: Vec<_> = slow.iter().collect();
                assert!(expanded == stepped, "{}", path.display());
                checked += 1;
            }
        }
        assert!(
            checked > 50 && jumped > 10,
            "{checked} checked, {jumped} jumped"
        );
    }

    fn record_any(scenario: &Scenario, fast_forward: bool) -> (Timeline, u64) {
        let mut sim = scenario.simulation();
        sim.set_fast_forward(fast_forward);
        let mut recorder = Recorder::new(u64::MAX);
        let end = scenario.duration.unwrap_or(SimTime::ZERO);
        sim.run_until(end, &mut recorder).unwrap();
        recorder.finish()
    }

    #[test]
    fn a_run_past_its_limit_stops_at_the_first_event_over() {
        let scenario = Scenario::from_str(
            include_str!("../../scenarios/kubia-unhealthy.yaml"),
            "k.yaml",
        )
        .unwrap();
        let mut sim = scenario.simulation();
        let mut recorder = Recorder::new(50);
        sim.run_until(SimTime::from_millis(3_600_000), &mut recorder)
            .unwrap();
        let at = recorder.exceeded_at().unwrap();
        assert!(
            at > SimTime::ZERO && at < SimTime::from_millis(600_000),
            "{at}"
        );
        assert_eq!(recorder.stepped, 50);
    }
}
