//! The run kept as compact, owned facts: what `explain` narrates and the pictures draw.
//!
//! A [`TraceSink`] takes the same event stream as every other report (behind the event
//! recorder, so Kubernetes Events carry their counts) and keeps only what a reader can see:
//! probe runs, verdicts, kills, exits, starts, back-off refusals, readiness, the phase and the
//! Events. Texts are interned: a month of identical `Unhealthy` events holds one message.
//! Nothing is re-simulated: every view built on a [`Trace`] is a function of the stream.
//! A periodic run is kept bounded while it is recorded: repetitions past the first few are a
//! counted [`What::Gap`] ([`compact`]), and [`Trace::replay`] reads the run back whole.

use std::collections::BTreeMap;

pub mod compact;

pub use compact::{Expand, Where};
use std::convert::Infallible;

use probesim_core::{
    Event, EventKind, EventType, ExitReason, Flow, KillReason, Outcome, Phase, PodSpec, ProbeKind,
    ProbeResult, SimDuration, SimTime, Sink,
};

/// One fact of the run, at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item {
    /// When.
    pub t: SimTime,
    /// What.
    pub what: What,
}

/// What happened; containers are engine indices (init containers first), texts are indices
/// into [`Trace::texts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// One probe execution, known at `t`, started `took` earlier.
    Probe {
        /// Container.
        c: usize,
        /// Probe type.
        probe: ProbeKind,
        /// Outcome.
        outcome: Outcome,
        /// How long it ran.
        took: SimDuration,
        /// Its output.
        output: usize,
    },
    /// The worker's stored verdict changed (a threshold was crossed, or an initial value).
    Result {
        /// Container.
        c: usize,
        /// Probe type.
        probe: ProbeKind,
        /// The new value.
        result: ProbeResult,
    },
    /// The kubelet began to kill a container.
    Kill {
        /// Container.
        c: usize,
        /// Why.
        reason: KillReason,
        /// Grace period.
        grace: SimDuration,
    },
    /// A process ended.
    Exit {
        /// Container.
        c: usize,
        /// Exit code.
        code: i32,
        /// The runtime's reason.
        reason: ExitReason,
    },
    /// A new instance started.
    Start {
        /// Container.
        c: usize,
        /// Its restart count.
        restart_count: u32,
    },
    /// A start refused by back-off.
    BackOff {
        /// Container.
        c: usize,
        /// The back-off in force.
        backoff: SimDuration,
    },
    /// A container's API `ready` changed.
    Ready {
        /// Container.
        c: usize,
        /// New value.
        ready: bool,
    },
    /// The pod's `Ready` condition changed.
    PodReady {
        /// New value.
        ready: bool,
    },
    /// The phase changed.
    Phase {
        /// New phase.
        phase: Phase,
    },
    /// A Kubernetes Event.
    Event {
        /// The container it is about (`None`: the pod).
        c: Option<usize>,
        /// Normal or Warning.
        event_type: EventType,
        /// Its reason.
        reason: &'static str,
        /// Its message.
        message: usize,
        /// The recorder's count (1 when first seen).
        count: u32,
        /// Whether the spam filter let it through.
        sent: bool,
    },
    /// The pod was deleted.
    Delete {
        /// The deletion grace period.
        grace: SimDuration,
    },
    /// The pod object is gone.
    Deleted,
    /// The kubelet restarted.
    KubeletRestart,
    /// `times` more repetitions of the `len` items just before, each `cycle` after the one
    /// before it, left out while recording ([`compact`]); at the time the first would begin.
    /// [`Trace::expand`] reads them back.
    Gap {
        /// How many repetitions are left out.
        times: u64,
        /// How many items one repetition holds (the items just before the gap).
        len: u32,
        /// The length of one repetition.
        cycle: SimDuration,
    },
}

impl What {
    /// The container the fact is about.
    #[must_use]
    pub const fn container(&self) -> Option<usize> {
        match *self {
            What::Probe { c, .. }
            | What::Result { c, .. }
            | What::Kill { c, .. }
            | What::Exit { c, .. }
            | What::Start { c, .. }
            | What::BackOff { c, .. }
            | What::Ready { c, .. } => Some(c),
            What::Event { c, .. } => c,
            What::PodReady { .. }
            | What::Phase { .. }
            | What::Delete { .. }
            | What::Deleted
            | What::KubeletRestart
            | What::Gap { .. } => None,
        }
    }

    /// The fact without what changes from one repetition of a cycle to the next (restart
    /// counts, event counts, the spam filter's verdict): two cycles whose facts have equal
    /// shapes at equal offsets are the same cycle.
    #[must_use]
    pub const fn shape(&self) -> What {
        match *self {
            What::Start { c, .. } => What::Start {
                c,
                restart_count: 0,
            },
            What::Event {
                c,
                event_type,
                reason,
                message,
                ..
            } => What::Event {
                c,
                event_type,
                reason,
                message,
                count: 0,
                sent: true,
            },
            other => other,
        }
    }
}

impl What {
    /// Whether two facts have the same [`What::shape`], without building the shapes (an
    /// Event's reason is compared as a pointer first: the same reason is the same text).
    #[inline(always)]
    #[must_use]
    pub fn same_shape(&self, other: &What) -> bool {
        match (self, other) {
            // The most frequent fact, compared field by field without a second dispatch.
            (
                What::Probe {
                    c,
                    probe,
                    outcome,
                    took,
                    output,
                },
                What::Probe {
                    c: c2,
                    probe: p2,
                    outcome: o2,
                    took: t2,
                    output: out2,
                },
            ) => c == c2 && probe == p2 && outcome == o2 && took == t2 && output == out2,
            (What::Start { c: a, .. }, What::Start { c: b, .. }) => a == b,
            (
                What::Event {
                    c,
                    event_type,
                    reason,
                    message,
                    ..
                },
                What::Event {
                    c: c2,
                    event_type: t2,
                    reason: r2,
                    message: m2,
                    ..
                },
            ) => {
                c == c2
                    && event_type == t2
                    && message == m2
                    && (core::ptr::eq(*reason, *r2) || reason == r2)
            }
            (a, b) => a == b,
        }
    }
}

/// Everything a picture or an explanation needs from a run.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Container names by engine index (init containers first).
    pub names: Vec<String>,
    /// Whether each container is an init container.
    pub init: Vec<bool>,
    /// The facts, in stream order.
    pub items: Vec<Item>,
    /// Interned texts (probe outputs, event messages).
    pub texts: Vec<String>,
    /// The end of the run (the horizon).
    pub end: SimTime,
}

impl Trace {
    /// The text behind an index.
    #[must_use]
    pub fn text(&self, i: usize) -> &str {
        self.texts.get(i).map_or("", String::as_str)
    }

    /// Whether the `Result` at item `i` is a worker's initial value for a new container (P25)
    /// rather than a threshold crossing ([`Trace::result_cause`]).
    #[must_use]
    pub fn is_initial(&self, i: usize) -> bool {
        self.result_cause(i) == Some(ResultCause::Initial)
    }

    /// What made the worker store the `Result` at item `i` (`None` for any other item). A
    /// crossing is placed right after the probe run that made it, at the same instant (P34);
    /// a result with no run of that probe at its instant is either the Failure of a container
    /// that is not running (P27) or the initial value the worker records when it first sees a
    /// container instance (P25), which can come a sync after the start, when earlier runs have
    /// probed the status the kubelet still held.
    #[must_use]
    pub fn result_cause(&self, i: usize) -> Option<ResultCause> {
        let What::Result { c, probe, result } = self.items.get(i)?.what else {
            return None;
        };
        let t = self.items[i].t;
        let mut running = None;
        let mut cause = None;
        for item in self.items[..i].iter().rev() {
            match item.what {
                What::Probe {
                    c: pc, probe: pp, ..
                } if pc == c && pp == probe && cause.is_none() => {
                    if item.t == t {
                        return Some(ResultCause::Crossing);
                    }
                    cause = Some(ResultCause::Initial);
                }
                What::Result {
                    c: rc, probe: rp, ..
                } if rc == c && rp == probe && cause.is_none() => {
                    cause = Some(ResultCause::Initial);
                }
                What::Start { c: sc, .. } if sc == c => {
                    running.get_or_insert(true);
                    cause.get_or_insert(ResultCause::Initial);
                }
                What::Exit { c: ec, .. } if ec == c => {
                    running.get_or_insert(false);
                }
                What::KubeletRestart => {
                    cause.get_or_insert(ResultCause::Initial);
                }
                _ => {}
            }
            if running.is_some() && cause.is_some() {
                break;
            }
        }
        if running == Some(false) && result == ProbeResult::Failure {
            return Some(ResultCause::NotRunning);
        }
        Some(ResultCause::Initial)
    }

    /// The probe types each container has, in [`ProbeKind::ALL`] order.
    #[must_use]
    pub fn probes(pod: &PodSpec, c: usize) -> Vec<ProbeKind> {
        let spec = pod.container(c);
        ProbeKind::ALL
            .into_iter()
            .filter(|k| spec.probe(*k).is_some())
            .collect()
    }
}

/// Why a worker stored a result ([`Trace::result_cause`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultCause {
    /// A run of probe results reached its threshold (P34).
    Crossing,
    /// The worker's initial value for a container instance it sees for the first time (P25),
    /// or for a new kubelet's worker.
    Initial,
    /// The container is not running, so the worker stores Failure (P27).
    NotRunning,
}

/// Builds a [`Trace`] from the event stream.
#[derive(Debug)]
pub struct TraceSink {
    trace: Trace,
    compactor: compact::Compactor,
    interned: BTreeMap<String, usize>,
    buf: String,
}

impl TraceSink {
    /// An empty trace for `pod`'s containers.
    #[must_use]
    pub fn new(pod: &PodSpec) -> TraceSink {
        let n = pod.container_count();
        TraceSink {
            trace: Trace {
                names: (0..n).map(|i| pod.container(i).name.clone()).collect(),
                init: (0..n).map(|i| pod.is_init(i)).collect(),
                ..Trace::default()
            },
            compactor: compact::Compactor::default(),
            interned: BTreeMap::new(),
            buf: String::new(),
        }
    }

    /// The trace, ending at `end`.
    #[must_use]
    pub fn finish(mut self, end: SimTime) -> Trace {
        self.trace.end = end;
        compact::tidy(&mut self.trace.items);
        self.trace
    }

    fn index(&self, name: &str) -> usize {
        self.trace.names.iter().position(|n| n == name).unwrap_or(0)
    }

    fn intern(&mut self, text: impl core::fmt::Display) -> usize {
        use core::fmt::Write as _;
        self.buf.clear();
        let _ = write!(self.buf, "{text}");
        if let Some(&i) = self.interned.get(self.buf.as_str()) {
            return i;
        }
        let i = self.trace.texts.len();
        self.trace.texts.push(self.buf.clone());
        self.interned.insert(self.buf.clone(), i);
        i
    }
}

impl Sink for TraceSink {
    type Error = Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        let what = match event.kind {
            EventKind::Probe {
                container,
                probe,
                outcome,
                output,
                duration,
            } => What::Probe {
                c: self.index(container),
                probe,
                outcome,
                took: duration,
                output: self.intern(output),
            },
            EventKind::Result {
                container,
                probe,
                result,
            } => What::Result {
                c: self.index(container),
                probe,
                result,
            },
            EventKind::Kill {
                container,
                reason,
                grace,
                ..
            } => What::Kill {
                c: self.index(container),
                reason,
                grace,
            },
            EventKind::Exit {
                container,
                exit_code,
                reason,
            } => What::Exit {
                c: self.index(container),
                code: exit_code,
                reason,
            },
            EventKind::Start {
                container,
                restart_count,
            } => What::Start {
                c: self.index(container),
                restart_count,
            },
            EventKind::BackOff { container, backoff } => What::BackOff {
                c: self.index(container),
                backoff,
            },
            EventKind::Ready { container, ready } => What::Ready {
                c: self.index(container),
                ready,
            },
            EventKind::PodReady { ready } => What::PodReady { ready },
            EventKind::Phase { phase } => What::Phase { phase },
            EventKind::Event(e) => {
                let c = event.kind.container().map(|name| self.index(name));
                let (count, sent) = e.recorded.map_or((1, true), |r| (r.count, r.sent));
                What::Event {
                    c,
                    event_type: e.event_type,
                    reason: e.reason,
                    message: self.intern(e.message),
                    count,
                    sent,
                }
            }
            EventKind::Delete { grace } => What::Delete { grace },
            EventKind::Deleted => What::Deleted,
            EventKind::KubeletRestart => What::KubeletRestart,
            EventKind::Started { .. } | EventKind::Status { .. } | EventKind::Sync { .. } => {
                return Ok(Flow::Continue)
            }
            _ => return Ok(Flow::Continue),
        };
        self.trace.items.push(Item { t: event.t, what });
        self.compactor.pushed(&mut self.trace.items);
        Ok(Flow::Continue)
    }
}

/// A stretch of the run that is drawn or told, or a run of repetitions folded into one mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Items `from..to` (indices into [`Trace::items`]), covering `t0..t1`, shown in full.
    Shown {
        /// First item.
        from: usize,
        /// One past the last item.
        to: usize,
        /// Start time.
        t0: SimTime,
        /// End time.
        t1: SimTime,
    },
    /// Items `from..to`, covering `t0..t1`: `times` more repetitions of the `cycle` (a span of
    /// that length) shown just before.
    Repeated {
        /// First item.
        from: usize,
        /// One past the last item.
        to: usize,
        /// Start time.
        t0: SimTime,
        /// End time.
        t1: SimTime,
        /// How many repetitions are folded.
        times: u64,
        /// The length of one repetition.
        cycle: SimDuration,
        /// How many container instances one repetition starts.
        instances: usize,
    },
}

impl Part {
    /// The time the span covers.
    #[must_use]
    pub const fn times(&self) -> (SimTime, SimTime) {
        match *self {
            Part::Shown { t0, t1, .. } | Part::Repeated { t0, t1, .. } => (t0, t1),
        }
    }

    /// The items it covers.
    #[must_use]
    pub const fn items(&self) -> core::ops::Range<usize> {
        match *self {
            Part::Shown { from, to, .. } | Part::Repeated { from, to, .. } => from..to,
        }
    }
}

/// The longest block of segments looked for when folding repetitions (kubia alternates two
/// kinds of restart, so at least 2).
const MAX_BLOCK: usize = 4;

/// A block must repeat at least this often in a row to be folded.
const MIN_REPEATS: usize = 3;

/// Splits the run at every container start and every time the pod becomes Ready into segments,
/// and folds every run of at least
/// [`MIN_REPEATS`] identical consecutive blocks (1 to [`MAX_BLOCK`] segments; identical: the
/// same [`What::shape`]s at the same offsets and the same length) into the first block, shown,
/// and one [`Part::Repeated`]. The spans cover the run from 0 to its end without gaps.
#[must_use]
pub fn fold(trace: &Trace) -> Vec<Part> {
    // The run as recorded: a gap's repetitions are segments like the others.
    let items = compact::Virtual::new(&trace.items);
    // Segment boundaries: the index and time of every Start, plus the run's ends.
    let cuts = compact::Cuts::new(&items, trace.end);
    let segments = cuts.len() - 1;
    let same = |a: usize, b: usize| -> bool {
        let (a0, at0) = cuts.get(a);
        let (a1, at1) = cuts.get(a + 1);
        let (b0, bt0) = cuts.get(b);
        let (b1, bt1) = cuts.get(b + 1);
        at1.saturating_since(at0) == bt1.saturating_since(bt0)
            && a1 - a0 == b1 - b0
            && (0..a1 - a0).all(|j| {
                let (x, y) = (items.get(a0 + j), items.get(b0 + j));
                x.t.saturating_since(at0) == y.t.saturating_since(bt0) && x.what.same_shape(&y.what)
            })
    };
    // The last segment is cut short by the horizon: never part of a fold.
    let foldable = segments.saturating_sub(1);
    let mut spans = Vec::new();
    let mut shown_from = 0;
    let mut i = 0;
    while i < foldable {
        let mut best: Option<(usize, usize)> = None; // (block, repeats)
        for k in 1..=MAX_BLOCK {
            let mut r = 1;
            while i + (r + 1) * k <= foldable && (0..k).all(|j| same(i + j, i + r * k + j)) {
                r += 1;
            }
            if r >= MIN_REPEATS && best.is_none_or(|(bk, br)| r * k > bk * br) {
                best = Some((k, r));
            }
        }
        let Some((k, r)) = best else {
            i += 1;
            continue;
        };
        // Show everything up to and including the first block, fold the rest.
        push_shown(&mut spans, &items, &cuts, shown_from, i + k);
        let (from, t0) = cuts.get(i + k);
        let (to, t1) = cuts.get(i + r * k);
        let (c, c0) = cuts.get(i);
        spans.push(Part::Repeated {
            from: items.physical(from),
            to: items.physical(to),
            t0,
            t1,
            times: (r - 1) as u64,
            cycle: t0.saturating_since(c0),
            instances: (c..from)
                .filter(|&x| matches!(items.get(x).what, What::Start { .. }))
                .count(),
        });
        i += r * k;
        shown_from = i;
    }
    push_shown(&mut spans, &items, &cuts, shown_from, segments);
    spans
}

fn push_shown(
    spans: &mut Vec<Part>,
    items: &compact::Virtual<'_>,
    cuts: &compact::Cuts,
    a: usize,
    b: usize,
) {
    if a >= b {
        return;
    }
    spans.push(Part::Shown {
        from: items.physical(cuts.get(a).0),
        to: items.physical(cuts.get(b).0),
        t0: cuts.get(a).1,
        t1: cuts.get(b).1,
    });
}

/// Runs a span of `Shown` only (no folding): the whole run.
#[must_use]
pub fn unfolded(trace: &Trace) -> Vec<Part> {
    vec![Part::Shown {
        from: 0,
        to: trace.items.len(),
        t0: SimTime::ZERO,
        t1: trace.end,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The causes of every `Result` of container 0's `probe` in a run of `yaml`, with their
    /// instants in seconds.
    fn causes(yaml: &str, probe: ProbeKind) -> Vec<(u64, ProbeResult, ResultCause)> {
        let scenario =
            probesim_scenario::scenario::Scenario::from_str(yaml, "t.yaml").expect("valid");
        let run = crate::render::trace_run(&scenario).expect("runs");
        let trace = run.trace;
        (0..trace.items.len())
            .filter_map(|i| match trace.items[i].what {
                What::Result {
                    c: 0,
                    probe: p,
                    result,
                } if p == probe => Some((
                    trace.items[i].t.as_millis() / 1000,
                    result,
                    trace.result_cause(i)?,
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_new_instances_first_readiness_result_is_its_initial_value_not_a_crossing() {
        // P25: after the kill at 50 s, a run at the start's instant probes the status the
        // kubelet still holds; the worker sees the new instance a sync later (51 s) and records
        // its initial Failure there, with no run of its own at that instant.
        let yaml = "name: t\nduration: 60s\ntiming: exact\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: t}\n  spec:\n    containers:\n    - image: x\n      name: web\n      livenessProbe:\n        httpGet: {path: /, port: 8080}\n      readinessProbe:\n        httpGet: {path: /, port: 8080}\napps:\n  web:\n    endpoints:\n      \"http :8080/\": \"4x200 then 500\"\n";
        let got = causes(yaml, ProbeKind::Readiness);
        assert!(
            got.contains(&(51, ProbeResult::Failure, ResultCause::Initial)),
            "{got:?}"
        );
        assert!(
            got.contains(&(41, ProbeResult::Failure, ResultCause::Crossing)),
            "{got:?}"
        );
        assert_eq!(got[0], (1, ProbeResult::Failure, ResultCause::Initial));
    }

    #[test]
    fn a_stopped_containers_failure_is_not_a_crossing() {
        // P27: the process exited by itself at 25 s and waits in back-off; the liveness worker
        // then stores Failure for a container that is not running.
        let yaml = "name: t\nduration: 40s\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: t}\n  spec:\n    containers:\n    - image: x\n      name: web\n      livenessProbe:\n        httpGet: {path: /, port: 8080}\n        periodSeconds: 5\napps:\n  web:\n    exit: \"1 after 2s\"\n    endpoints:\n      \"http :8080/\": \"ok\"\n";
        let got = causes(yaml, ProbeKind::Liveness);
        assert!(
            got.iter()
                .any(|(_, r, c)| *r == ProbeResult::Failure && *c == ResultCause::NotRunning),
            "{got:?}"
        );
        assert!(
            !got.iter().any(|(_, _, c)| *c == ResultCause::Crossing),
            "{got:?}"
        );
    }

    fn trace_of(starts: &[u64], end: u64) -> Trace {
        let mut items = Vec::new();
        for (n, &s) in starts.iter().enumerate() {
            items.push(Item {
                t: SimTime::from_secs(s),
                what: What::Start {
                    c: 0,
                    restart_count: n as u32,
                },
            });
            items.push(Item {
                t: SimTime::from_secs(s + 10),
                what: What::Exit {
                    c: 0,
                    code: 1,
                    reason: ExitReason::Error,
                },
            });
        }
        Trace {
            names: vec!["app".into()],
            init: vec![false],
            items,
            texts: Vec::new(),
            end: SimTime::from_secs(end),
        }
    }

    #[test]
    fn identical_cycles_fold_into_one_mark() {
        // Six 20 s cycles and a last one cut short by the horizon.
        let t = trace_of(&[0, 20, 40, 60, 80, 100, 120], 125);
        let spans = fold(&t);
        assert_eq!(spans.len(), 3, "{spans:?}");
        assert!(
            matches!(spans[0], Part::Shown { t0, t1, .. } if t0 == SimTime::ZERO && t1 == SimTime::from_secs(20))
        );
        assert!(matches!(
            spans[1],
            Part::Repeated { times: 5, instances: 1, t0, t1, .. }
                if t0 == SimTime::from_secs(20) && t1 == SimTime::from_secs(120)
        ));
        assert!(matches!(spans[2], Part::Shown { t1, .. } if t1 == SimTime::from_secs(125)));
        // Nothing is dropped: the spans tile the items and the time.
        assert_eq!(spans[0].items().start, 0);
        for w in spans.windows(2) {
            assert_eq!(w[0].items().end, w[1].items().start);
            assert_eq!(w[0].times().1, w[1].times().0);
        }
        assert_eq!(spans[2].items().end, t.items.len());
    }

    #[test]
    fn alternating_cycles_fold_as_pairs() {
        // 20 s, 50 s, 20 s, 50 s, …: a block of two.
        let t = trace_of(&[0, 20, 70, 90, 140, 160, 210, 230, 280], 290);
        let spans = fold(&t);
        assert!(
            spans.iter().any(|s| matches!(
                s,
                Part::Repeated {
                    instances: 2,
                    times: 3,
                    ..
                }
            )),
            "{spans:?}"
        );
    }

    #[test]
    fn flapping_readiness_folds_without_restarts() {
        // No restarts: Ready true every 50 s, false 40 s later.
        let mut items = Vec::new();
        for k in 0..6u64 {
            items.push(Item {
                t: SimTime::from_secs(1 + 50 * k),
                what: What::PodReady { ready: true },
            });
            items.push(Item {
                t: SimTime::from_secs(41 + 50 * k),
                what: What::PodReady { ready: false },
            });
        }
        let t = Trace {
            names: vec!["web".into()],
            init: vec![false],
            items,
            texts: Vec::new(),
            end: SimTime::from_secs(300),
        };
        let spans = fold(&t);
        assert!(
            spans.iter().any(|s| matches!(
                s,
                Part::Repeated { instances: 0, cycle, .. } if *cycle == SimDuration::from_secs(50)
            )),
            "{spans:?}"
        );
    }

    #[test]
    fn different_cycles_are_all_shown() {
        let t = trace_of(&[0, 20, 50, 90, 140], 200);
        assert_eq!(fold(&t), unfolded(&t));
    }

    /// kubia's crash loop traced for `hours`.
    fn kubia(hours: u64) -> crate::render::TracedRun {
        let text = include_str!("../../../scenarios/kubia-unhealthy.yaml")
            .replace("duration: 30m", &format!("duration: {hours}h"));
        let scenario =
            probesim_scenario::scenario::Scenario::from_str(&text, "k.yaml").expect("valid");
        crate::render::trace_run(&scenario).expect("runs")
    }

    #[test]
    fn a_crash_loops_trace_keeps_a_bounded_number_of_facts_however_long_it_runs() {
        // R30: at the back-off cap every restart cycle is the same; the trace keeps the cycles
        // before the repeats, [`compact::KEEP`] repetitions, a counted gap and the last one.
        let month = kubia(720);
        let quarter = kubia(2160);
        // The same but for where the horizon cuts the last cycle (27 facts each).
        assert!(month.trace.retained().abs_diff(quarter.trace.retained()) < 60);
        assert!(
            quarter.trace.retained() < 5_000,
            "{}",
            quarter.trace.retained()
        );
        assert!(quarter.trace.recorded() > 2 * month.trace.recorded());
        // One gap: the repeats never stop once at the cap.
        let gaps = |t: &Trace| {
            t.items
                .iter()
                .filter(|i| matches!(i.what, What::Gap { .. }))
                .count()
        };
        assert_eq!((gaps(&month.trace), gaps(&quarter.trace)), (1, 1));
        // Read back whole: every fact, the restart counts one by one up to the status's.
        let replayed: Vec<Item> = quarter.trace.replay().map(|(_, i)| i).collect();
        assert_eq!(replayed.len() as u64, quarter.trace.recorded());
        assert!(replayed.windows(2).all(|w| w[0].t <= w[1].t));
        let counts: Vec<u32> = replayed
            .iter()
            .filter_map(|i| match i.what {
                What::Start { restart_count, .. } => Some(restart_count),
                _ => None,
            })
            .collect();
        assert!(
            counts.windows(2).all(|w| w[1] == w[0] + 1),
            "restart counts"
        );
        assert_eq!(
            counts.last().copied(),
            Some(quarter.status.containers[0].restart_count)
        );
        // A reader that takes some facts only sees them as the whole replay has them, and a
        // count takes the gap by its count.
        let kinds: [fn(&What) -> bool; 3] = [
            |w| matches!(w, What::Event { .. }),
            |w| matches!(w, What::Start { .. } | What::PodReady { .. }),
            |w| w.container() == Some(0),
        ];
        for pred in kinds {
            let all: Vec<(usize, Item)> = quarter
                .trace
                .replay()
                .filter(|(_, i)| pred(&i.what))
                .collect();
            assert!(all.len() > 10_000);
            let taken: Vec<(usize, Item)> = quarter.trace.replay_where(pred).collect();
            assert!(taken == all, "{} against {}", taken.len(), all.len());
            let n = quarter.trace.retained();
            assert_eq!(quarter.trace.count(0, n, pred), all.len() as u64);
            let half = quarter
                .trace
                .expand(n / 2, n)
                .filter(|(_, i)| pred(&i.what))
                .count();
            assert_eq!(quarter.trace.count(n / 2, n, pred), half as u64);
        }
        // The fold finds the repeats through the gap: one folded column for the loop at the
        // back-off cap (14,950 cycles of two restarts), after the climb to the cap.
        let parts = fold(&quarter.trace);
        let folded: Vec<u64> = parts
            .iter()
            .filter_map(|p| match p {
                Part::Repeated { times, .. } => Some(*times),
                Part::Shown { .. } => None,
            })
            .collect();
        assert!(folded.last().is_some_and(|&n| n > 10_000), "{parts:?}");
    }
}
