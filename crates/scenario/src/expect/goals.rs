//! Expectations that say what users mean (docs/scenario-format.md#goals-what-users-mean):
//! `readyWithin`, `neverNotReadyLongerThan`, `maxRestarts`, `firstKill` and `noKill`. Each is
//! checked while the run streams by, keeping a few numbers (when Ready began or ended, a count, the
//! first kill), never the history; a failing one says what was seen and when.

use core::fmt::{self, Write as _};
use std::collections::VecDeque;

use probesim_core::cycle::{exact_hash, opt_time, Visitor};
use probesim_core::{Event, EventKind, SimDuration, SimTime};

use super::Span;

/// One of the goal expectations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goal {
    /// `readyWithin: 2m`: the pod's Ready condition (or the container's `ready`, with
    /// `container`) is True at some instant no later than this.
    ReadyWithin {
        /// The latest instant.
        within: SimTime,
        /// The container, or the pod.
        container: Option<String>,
    },
    /// `neverNotReadyLongerThan: 10s`: once first Ready, the pod (or container) is never not
    /// Ready for longer than this; a pod never Ready fails.
    NeverNotReadyLongerThan {
        /// The longest stretch allowed.
        limit: SimDuration,
        /// The container, or the pod.
        container: Option<String>,
    },
    /// `maxRestarts: 3`: at most this many restarts (starts of a new instance with restartCount
    /// 1 or more) in the window, of the container or of all containers; with `within`, at most
    /// this many in any span of that length inside the window.
    MaxRestarts {
        /// The most allowed.
        max: u64,
        /// The container, or every container.
        container: Option<String>,
        /// `[from, to]`, both inclusive (`to` is `SimTime::MAX` for the whole run).
        between: (SimTime, SimTime),
        /// The length of the sliding span (both ends included), if any.
        within: Option<SimDuration>,
    },
    /// `firstKill: {min: 5m, max: 20m}`: the first kill (of the container, or of any) comes no
    /// earlier than `min` and no later than `max`. With `min` only, no kill at all passes.
    FirstKill {
        /// The earliest instant allowed.
        min: Option<SimTime>,
        /// The instant by which a kill must have come.
        max: Option<SimTime>,
        /// The container, or any.
        container: Option<String>,
    },
    /// `noKill: true`: no kill in the whole run (of the container, or of any).
    NoKill {
        /// The container, or any.
        container: Option<String>,
    },
}

impl Goal {
    /// The container the goal is about, if any.
    #[must_use]
    pub fn container(&self) -> Option<&str> {
        match self {
            Goal::ReadyWithin { container, .. }
            | Goal::NeverNotReadyLongerThan { container, .. }
            | Goal::MaxRestarts { container, .. }
            | Goal::FirstKill { container, .. }
            | Goal::NoKill { container } => container.as_deref(),
        }
    }
}

/// `pod`, or `container kubia`.
struct Subject<'a>(Option<&'a str>);

impl fmt::Display for Subject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(c) => write!(f, "container {c}"),
            None => f.write_str("pod"),
        }
    }
}

fn span(t: SimTime) -> Span {
    Span(t.as_millis())
}

/// A kill as a goal remembers it: when, whose, and why.
#[derive(Clone, Debug, Default)]
struct SeenKill {
    t: SimTime,
    /// `kubia: Unknown, cause liveness`.
    what: String,
}

/// What one goal has seen so far.
#[derive(Clone, Debug, Default)]
pub(super) struct GoalState {
    /// The subject's readiness now.
    ready: bool,
    /// When it was first Ready.
    first_ready: Option<SimTime>,
    /// Since when it is not Ready (after the first Ready).
    not_ready_since: Option<SimTime>,
    /// The first stretch longer than the limit, and how many there were.
    too_long: Option<(SimTime, SimTime)>,
    stretches: u64,
    /// Restarts counted, and when the one past the limit came.
    restarts: u64,
    over_limit_at: Option<SimTime>,
    /// With `within`: the restarts of the current span (at most `max + 1`), and the first span
    /// that held more than `max` (from, to, how many).
    recent: VecDeque<SimTime>,
    crowded: Option<(SimTime, SimTime, usize)>,
    /// The first kill.
    kill: Option<SeenKill>,
}

impl GoalState {
    /// Fast-forward: what the goal has seen. First occurrences (the first Ready, the first
    /// stretch too long, the first kill, the first crowded span) never change once set, so they
    /// compare exactly; counts grow, a restart count only up to the one past `max`, which a
    /// jump leaves for the step-by-step run to reach; open stretches and the restarts of the
    /// current span are points on the clock.
    pub(super) fn visit_cycle(&mut self, goal: &Goal, v: &mut dyn Visitor) {
        v.exact(u64::from(self.ready));
        exact_hash(v, &self.first_ready);
        opt_time(v, &mut self.not_ready_since);
        exact_hash(v, &self.too_long);
        v.count(&mut self.stretches, None, u64::MAX);
        let limit = match goal {
            Goal::MaxRestarts { max, .. } => Some(max.saturating_add(1)),
            _ => None,
        };
        v.count(&mut self.restarts, limit, u64::MAX);
        exact_hash(v, &self.over_limit_at);
        v.exact(self.recent.len() as u64);
        for t in &mut self.recent {
            v.time(t);
        }
        exact_hash(v, &self.crowded);
        exact_hash(v, &self.kill.as_ref().map(|k| (k.t, &k.what)));
    }

    /// Takes one event into account.
    pub(super) fn observe(&mut self, goal: &Goal, event: &Event<'_>) {
        let t = event.t;
        let wanted = |c: &str| goal.container().is_none_or(|w| w == c);
        match (goal, &event.kind) {
            (
                Goal::ReadyWithin { container, .. }
                | Goal::NeverNotReadyLongerThan { container, .. },
                kind,
            ) => {
                let ready = match (container.as_deref(), kind) {
                    (Some(c), EventKind::Ready { container, ready }) if *container == c => *ready,
                    (None, EventKind::PodReady { ready }) => *ready,
                    _ => return,
                };
                self.readiness(goal, t, ready);
            }
            (
                Goal::MaxRestarts {
                    max,
                    between,
                    within,
                    ..
                },
                EventKind::Start {
                    container,
                    restart_count,
                },
            ) if *restart_count > 0
                && wanted(container)
                && (between.0..=between.1).contains(&t) =>
            {
                self.restarts += 1;
                if self.restarts == max.saturating_add(1) {
                    self.over_limit_at = Some(t);
                }
                if let Some(w) = within {
                    self.recent.push_back(t);
                    while self
                        .recent
                        .front()
                        .is_some_and(|&first| t.saturating_since(first) > *w)
                    {
                        self.recent.pop_front();
                    }
                    let n = self.recent.len();
                    if u64::try_from(n).unwrap_or(u64::MAX) > *max {
                        if self.crowded.is_none() {
                            self.crowded = self.recent.front().map(|&first| (first, t, n));
                        }
                        // Only the newest `max` can share a later span with a new restart.
                        self.recent.pop_front();
                    }
                }
            }
            (
                Goal::FirstKill { .. } | Goal::NoKill { .. },
                EventKind::Kill {
                    container,
                    reason,
                    cause,
                    ..
                },
            ) if self.kill.is_none() && wanted(container) => {
                let mut what = format!("{container}: {}", reason.as_str());
                if !cause.implied_by(*reason) {
                    let _ = write!(what, ", cause {}", cause.as_str());
                }
                self.kill = Some(SeenKill { t, what });
            }
            _ => {}
        }
    }

    fn readiness(&mut self, goal: &Goal, t: SimTime, ready: bool) {
        if ready == self.ready {
            return;
        }
        self.ready = ready;
        if ready {
            self.first_ready.get_or_insert(t);
            if let (Some(since), Goal::NeverNotReadyLongerThan { limit, .. }) =
                (self.not_ready_since.take(), goal)
            {
                self.stretch(since, t, *limit);
            }
        } else if self.first_ready.is_some() {
            self.not_ready_since = Some(t);
        }
    }

    fn stretch(&mut self, from: SimTime, to: SimTime, limit: SimDuration) {
        if to.saturating_since(from) > limit {
            self.stretches += 1;
            self.too_long.get_or_insert((from, to));
        }
    }

    /// What failed, once the run ended at `end`, or `None`.
    pub(super) fn verdict(&mut self, goal: &Goal, end: SimTime) -> Option<String> {
        let subject = Subject(goal.container());
        match goal {
            Goal::ReadyWithin { within, .. } => {
                let head = format!("readyWithin {}", span(*within));
                match self.first_ready {
                    Some(t) if t <= *within => None,
                    Some(t) => Some(format!("{head}: {subject} first Ready at {}", span(t))),
                    None if end < *within => Some(format!(
                        "{head}: the run ended at {}, before this instant, with the {subject} not yet Ready",
                        span(end)
                    )),
                    None => Some(format!(
                        "{head}: {subject} never Ready (the run ended at {})",
                        span(end)
                    )),
                }
            }
            Goal::NeverNotReadyLongerThan { limit, .. } => {
                let head = format!("neverNotReadyLongerThan {}", Span(limit.as_millis()));
                if self.first_ready.is_none() {
                    return Some(format!(
                        "{head}: {subject} never Ready (the run ended at {})",
                        span(end)
                    ));
                }
                let open = self.not_ready_since.take();
                if let Some(since) = open {
                    self.stretch(since, end, *limit);
                }
                let (from, to) = self.too_long?;
                let until = if open == Some(from) && to == end {
                    format!("until the run ended at {}", span(end))
                } else {
                    format!("to {}", span(to))
                };
                let more = match self.stretches {
                    1 => String::new(),
                    n => format!(" ({n} stretches longer than {})", Span(limit.as_millis())),
                };
                Some(format!(
                    "{head}: {subject} not Ready for {} from {} {until}{more}",
                    Span(to.saturating_since(from).as_millis()),
                    span(from)
                ))
            }
            Goal::MaxRestarts {
                max,
                between: (from, to),
                within,
                ..
            } => {
                let subject = match goal.container() {
                    Some(c) => format!("container {c}"),
                    None => "the containers".to_owned(),
                };
                let whole_run = *to == SimTime::MAX;
                let shown_to = if whole_run { end } else { *to };
                let head = format!(
                    "maxRestarts {max} between {} and {}",
                    span(*from),
                    span(shown_to)
                );
                let seen = self.restarts;
                if let Some(w) = within {
                    if let Some((a, b, n)) = self.crowded {
                        return Some(format!(
                            "{head} within {}: {subject} restarted {n} times from {} to {}",
                            Span(w.as_millis()),
                            span(a),
                            span(b)
                        ));
                    }
                } else if let Some(t) = self.over_limit_at {
                    return Some(format!(
                        "{head}: {subject} restarted {seen} times; restart {}, past the limit, at {}",
                        max.saturating_add(1),
                        span(t)
                    ));
                }
                (!whole_run && *to > end).then(|| {
                    format!(
                        "{head}: the run ended at {}, before the window closed (restarts so far {seen})",
                        span(end)
                    )
                })
            }
            Goal::FirstKill { min, max, .. } => {
                let mut head = String::from("firstKill");
                if let Some(m) = min {
                    let _ = write!(head, " no earlier than {}", span(*m));
                }
                if let Some(m) = max {
                    let sep = if min.is_some() { " and" } else { "" };
                    let _ = write!(head, "{sep} by {}", span(*m));
                }
                let who = match goal.container() {
                    Some(c) => format!(" of container {c}"),
                    None => String::new(),
                };
                match (&self.kill, min, max) {
                    (Some(k), Some(m), _) if k.t < *m => Some(format!(
                        "{head}: first kill{who} at {} ({})",
                        span(k.t),
                        k.what
                    )),
                    (Some(k), _, Some(m)) if k.t > *m => Some(format!(
                        "{head}: first kill{who} at {} ({})",
                        span(k.t),
                        k.what
                    )),
                    (Some(_), _, _) => None,
                    (None, _, Some(m)) if end < *m => Some(format!(
                        "{head}: the run ended at {}, before {}, with no kill{who}",
                        span(end),
                        span(*m)
                    )),
                    (None, _, Some(_)) => Some(format!(
                        "{head}: no kill{who} (the run ended at {})",
                        span(end)
                    )),
                    (None, Some(m), None) if end < *m => Some(format!(
                        "{head}: the run ended at {}, before {}",
                        span(end),
                        span(*m)
                    )),
                    (None, _, None) => None,
                }
            }
            Goal::NoKill { .. } => {
                let who = match goal.container() {
                    Some(c) => format!(" of container {c}"),
                    None => String::new(),
                };
                self.kill
                    .as_ref()
                    .map(|k| format!("noKill{who}: killed at {} ({})", span(k.t), k.what))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{KillCause, KillReason, Sink, VecSink};

    use super::*;
    use crate::expect::{Expect, ExpectSink, Expectation};

    fn secs(s: u64) -> SimTime {
        SimTime::from_secs(s)
    }

    fn pod_ready(t: u64, ready: bool) -> Event<'static> {
        Event {
            t: secs(t),
            kind: EventKind::PodReady { ready },
        }
    }

    fn start(t: u64, container: &'static str, restart_count: u32) -> Event<'static> {
        Event {
            t: secs(t),
            kind: EventKind::Start {
                container,
                restart_count,
            },
        }
    }

    fn kill(
        t: u64,
        container: &'static str,
        reason: KillReason,
        cause: KillCause,
    ) -> Event<'static> {
        Event {
            t: secs(t),
            kind: EventKind::Kill {
                container,
                reason,
                cause,
                grace: SimDuration::from_secs(30),
            },
        }
    }

    /// The failure messages of `goals` over `events`, the run ending at `end`.
    fn check(goals: &[Goal], events: &[Event<'_>], end: u64) -> Vec<String> {
        let expects: Vec<Expect> = goals
            .iter()
            .enumerate()
            .map(|(index, g)| Expect {
                index,
                line: None,
                timings: None,
                expectation: Expectation::Goal(g.clone()),
            })
            .collect();
        let mut sink = ExpectSink::new(VecSink::default(), &expects);
        for e in events {
            sink.event(e).unwrap();
        }
        let (_, failures) = sink.finish(secs(end));
        failures.iter().map(ToString::to_string).collect()
    }

    fn never_longer(limit: u64) -> Goal {
        Goal::NeverNotReadyLongerThan {
            limit: SimDuration::from_secs(limit),
            container: None,
        }
    }

    #[test]
    fn ready_within_is_the_first_ready_instant() {
        let events = [pod_ready(5, true), pod_ready(9, false), pod_ready(12, true)];
        let within = |s: u64| Goal::ReadyWithin {
            within: secs(s),
            container: None,
        };
        assert!(check(&[within(5)], &events, 60).is_empty());
        assert_eq!(
            check(&[within(4)], &events, 60),
            ["expect[0]: readyWithin 4s: pod first Ready at 5s"]
        );
        assert_eq!(
            check(&[within(4)], &[], 60),
            ["expect[0]: readyWithin 4s: pod never Ready (the run ended at 1m)"]
        );
        assert_eq!(
            check(&[within(90)], &[], 60),
            ["expect[0]: readyWithin 1m30s: the run ended at 1m, before this instant, with the pod not yet Ready"]
        );
        // A container's `ready`, not the pod's.
        let web = Goal::ReadyWithin {
            within: secs(5),
            container: Some("web".into()),
        };
        let ready = Event {
            t: secs(3),
            kind: EventKind::Ready {
                container: "web",
                ready: true,
            },
        };
        assert!(check(std::slice::from_ref(&web), &[ready], 60).is_empty());
        assert_eq!(check(&[web], &events, 60).len(), 1);
    }

    #[test]
    fn not_ready_stretches_are_measured_after_the_first_ready() {
        // Not Ready before the first Ready does not count; 9-12 s is 3 s, 20-30 s is 10 s.
        let events = [
            pod_ready(5, true),
            pod_ready(9, false),
            pod_ready(12, true),
            pod_ready(20, false),
            pod_ready(30, true),
        ];
        assert!(check(&[never_longer(10)], &events, 60).is_empty());
        assert_eq!(
            check(&[never_longer(2)], &events, 60),
            ["expect[0]: neverNotReadyLongerThan 2s: pod not Ready for 3s from 9s to 12s (2 stretches longer than 2s)"]
        );
        assert_eq!(
            check(&[never_longer(5)], &events, 60),
            ["expect[0]: neverNotReadyLongerThan 5s: pod not Ready for 10s from 20s to 30s"]
        );
        // A stretch still open when the run ends counts up to the end.
        let open = [pod_ready(5, true), pod_ready(40, false)];
        assert_eq!(
            check(&[never_longer(10)], &open, 60),
            ["expect[0]: neverNotReadyLongerThan 10s: pod not Ready for 20s from 40s until the run ended at 1m"]
        );
        assert!(check(&[never_longer(20)], &open, 60).is_empty());
        // Never Ready is no pass.
        assert_eq!(
            check(&[never_longer(10)], &[], 60),
            ["expect[0]: neverNotReadyLongerThan 10s: pod never Ready (the run ended at 1m)"]
        );
    }

    #[test]
    fn restarts_are_counted_in_the_window_per_container() {
        let events = [
            start(0, "web", 0),
            start(10, "web", 1),
            start(20, "side", 1),
            start(30, "web", 2),
            start(40, "web", 3),
        ];
        let max = |max: u64, container: Option<&str>, to: u64| Goal::MaxRestarts {
            max,
            container: container.map(str::to_owned),
            between: (SimTime::ZERO, if to == 0 { SimTime::MAX } else { secs(to) }),
            within: None,
        };
        assert!(check(&[max(3, Some("web"), 0)], &events, 60).is_empty());
        assert_eq!(
            check(&[max(3, None, 0)], &events, 60),
            ["expect[0]: maxRestarts 3 between 0s and 1m: the containers restarted 4 times; restart 4, past the limit, at 40s"]
        );
        assert!(check(&[max(1, Some("web"), 29)], &events, 60).is_empty());
        assert_eq!(
            check(&[max(1, Some("web"), 90)], &events, 60),
            ["expect[0]: maxRestarts 1 between 0s and 1m30s: container web restarted 3 times; restart 2, past the limit, at 30s"]
        );
        assert_eq!(
            check(&[max(5, Some("web"), 90)], &events, 60),
            ["expect[0]: maxRestarts 5 between 0s and 1m30s: the run ended at 1m, before the window closed (restarts so far 3)"]
        );
    }

    #[test]
    fn restarts_within_a_sliding_span() {
        // Restarts at 10, 30, 45 and 100 s: three within 35 s (10-45), never three within 30 s.
        let events = [
            start(10, "web", 1),
            start(30, "web", 2),
            start(45, "web", 3),
            start(100, "web", 4),
        ];
        let goal = |max: u64, within: u64| Goal::MaxRestarts {
            max,
            container: None,
            between: (SimTime::ZERO, SimTime::MAX),
            within: Some(SimDuration::from_secs(within)),
        };
        assert!(check(&[goal(2, 34)], &events, 120).is_empty());
        assert_eq!(
            check(&[goal(2, 35)], &events, 120),
            ["expect[0]: maxRestarts 2 between 0s and 2m within 35s: the containers restarted 3 times from 10s to 45s"]
        );
        // Four in all, but never two within 10 s.
        assert!(check(&[goal(1, 10)], &events, 120).is_empty());
        assert_eq!(check(&[goal(0, 10)], &events, 120).len(), 1);
    }

    #[test]
    fn the_first_kill_and_no_kill() {
        let events = [
            kill(20, "side", KillReason::Unknown, KillCause::PodCompleted),
            kill(40, "web", KillReason::LivenessProbe, KillCause::Liveness),
        ];
        let first = |min: Option<u64>, max: Option<u64>, c: Option<&str>| Goal::FirstKill {
            min: min.map(secs),
            max: max.map(secs),
            container: c.map(str::to_owned),
        };
        assert!(check(&[first(Some(30), Some(40), Some("web"))], &events, 60).is_empty());
        assert_eq!(
            check(&[first(Some(30), None, None)], &events, 60),
            ["expect[0]: firstKill no earlier than 30s: first kill at 20s (side: Unknown, cause pod-completed)"]
        );
        assert_eq!(
            check(&[first(None, Some(30), Some("web"))], &events, 60),
            ["expect[0]: firstKill by 30s: first kill of container web at 40s (web: LivenessProbe)"]
        );
        // With min only, no kill passes; with max, no kill fails.
        assert!(check(&[first(Some(30), None, None)], &[], 60).is_empty());
        assert_eq!(
            check(&[first(None, Some(30), None)], &[], 60),
            ["expect[0]: firstKill by 30s: no kill (the run ended at 1m)"]
        );
        let no_kill = |c: Option<&str>| Goal::NoKill {
            container: c.map(str::to_owned),
        };
        assert!(check(&[no_kill(Some("other"))], &events, 60).is_empty());
        assert_eq!(
            check(&[no_kill(Some("web"))], &events, 60),
            ["expect[0]: noKill of container web: killed at 40s (web: LivenessProbe)"]
        );
    }
}
