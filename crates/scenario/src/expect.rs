//! Expectations (`expect:` in a scenario, docs/scenario-format.md#expect) and their checking.
//!
//! The types below are what the scenario loader produces. Checking runs as a streaming
//! [`Sink`] wrapper: it keeps the state it needs, never the history.

use core::fmt::{self, Write as _};

use probesim_core::cycle::{exact_hash, Visitor};
use probesim_core::{
    ContainerState, ContainerStatus, Event, EventKind, FastForward, Flow, Phase, SimDuration,
    SimTime, Sink,
};

/// A span of milliseconds in the scenario files' duration syntax (`0s`, `500ms`, `2.5s`,
/// `1m30s`, `30m`), the form the reader wrote; used in expectation messages.
#[derive(Clone, Copy, Debug)]
struct Span(u64);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        probesim_script::write_duration(SimDuration::from_millis(self.0), f)
    }
}

/// A number or a `{min, max}` range (`restartCount: 9`, `count: {min: 1}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CountRange {
    /// Inclusive lower bound.
    pub min: Option<u64>,
    /// Inclusive upper bound.
    pub max: Option<u64>,
}

impl CountRange {
    /// Exactly `n`.
    #[must_use]
    pub fn exactly(n: u64) -> CountRange {
        CountRange {
            min: Some(n),
            max: Some(n),
        }
    }

    /// Does `n` lie in the range?
    #[must_use]
    pub fn contains(&self, n: u64) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }
}

/// State assertions at one instant (`- at: 30m`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StateChecks {
    /// `restartCount` (container).
    pub restart_count: Option<CountRange>,
    /// `ready` (container).
    pub ready: Option<bool>,
    /// `started` (container).
    pub started: Option<bool>,
    /// `state`: running | waiting | terminated (container).
    pub state: Option<String>,
    /// `reason` of the waiting or terminated state (container).
    pub reason: Option<String>,
    /// `exitCode` of the terminated state (container).
    pub exit_code: Option<i32>,
    /// `lastState.terminated.exitCode` (container).
    pub last_exit_code: Option<i32>,
    /// `phase` (pod).
    pub phase: Option<String>,
    /// `podReady`: the pod's Ready condition (pod).
    pub pod_ready: Option<bool>,
}

/// Which timeline events an `events:` / `timeline:` expectation counts. Every field set must
/// match; `message` is a substring match on the rendered message.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventFilter {
    /// The timeline `kind` (`event` for `events:`; any kind of docs/cli.md#--format-json for
    /// `timeline:`).
    pub kind: String,
    /// Container name.
    pub container: Option<String>,
    /// Probe type (`liveness`, …) for probe/result events.
    pub probe: Option<String>,
    /// `outcome` of probe events (`success`, `failure`, `warning`, `error`).
    pub outcome: Option<String>,
    /// `result` of result events (`Success`, `Failure`, `Unknown`).
    pub result: Option<String>,
    /// Kubernetes Event `reason`, or kill `reason`, or exit `reason`.
    pub reason: Option<String>,
    /// Kubernetes Event `type` (`Normal`, `Warning`).
    pub event_type: Option<String>,
    /// `cause` of kill events (`liveness`, `pod-completed`, …).
    pub cause: Option<String>,
    /// `state` of status events (`running`, `waiting`, `terminated`).
    pub state: Option<String>,
    /// `phase` of phase events (`Pending`, `Running`, `Succeeded`, `Failed`).
    pub phase: Option<String>,
    /// Substring of a Kubernetes Event message.
    pub message: Option<String>,
    /// `exitCode` of exit events.
    pub exit_code: Option<i32>,
}

/// One assertion of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expectation {
    /// The API state at an instant.
    At {
        /// When (inclusive: events at exactly this instant have happened).
        at: SimTime,
        /// The container that container-level checks are about.
        container: Option<String>,
        /// What must hold.
        checks: StateChecks,
    },
    /// How many matching events happen in a window.
    Count {
        /// Which events.
        filter: EventFilter,
        /// `[from, to]`, both inclusive.
        between: (SimTime, SimTime),
        /// How many (default `{min: 1}`).
        count: CountRange,
    },
    /// `readyWithin`, `neverNotReadyLongerThan`, `maxRestarts`, `firstKill`, `noKill`.
    Goal(Goal),
}

/// One expectation together with where it was written, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    /// Index in the scenario's `expect` list.
    pub index: usize,
    /// 1-based line in the scenario file, where known.
    pub line: Option<usize>,
    /// The assertion.
    pub expectation: Expectation,
    /// `timings: N`: also checked under the first N timings of the scenario
    /// ([`crate::timing`], as `probesim check --timings N` checks every expectation).
    pub timings: Option<u32>,
}

impl fmt::Display for CountRange {
    /// `9`, `at least 1`, `at most 3`, `between 8 and 10`, `any number`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => write!(f, "{a}"),
            (Some(a), Some(b)) => write!(f, "between {a} and {b}"),
            (Some(a), None) => write!(f, "at least {a}"),
            (None, Some(b)) => write!(f, "at most {b}"),
            (None, None) => f.write_str("any number"),
        }
    }
}

/// Is `want` unset, or equal to `got`?
fn same(want: Option<&str>, got: Option<&str>) -> bool {
    want.is_none_or(|w| got == Some(w))
}

impl EventFilter {
    /// Does a timeline event match every field this filter sets? An empty `kind` matches every
    /// kind. A field that the event's kind does not have (an `outcome` for a `kill`) never
    /// matches. `reason` is the Kubernetes Event's, the kill's or the exit's reason; `message` a
    /// substring of the Kubernetes Event's message, rendered into `buf` (scratch space, reused)
    /// only when every other field matched.
    #[must_use]
    pub fn matches(&self, kind: &EventKind<'_>, buf: &mut String) -> bool {
        if !self.kind.is_empty() && self.kind != kind.name() {
            return false;
        }
        if !same(self.container.as_deref(), kind.container()) {
            return false;
        }
        let (mut probe, mut outcome, mut result) = (None, None, None);
        let (mut reason, mut event_type, mut exit_code, mut message) = (None, None, None, None);
        let (mut cause, mut state, mut phase) = (None, None, None);
        match kind {
            EventKind::Probe {
                probe: p,
                outcome: o,
                ..
            } => (probe, outcome) = (Some(p.as_str()), Some(o.as_str())),
            EventKind::Result {
                probe: p,
                result: r,
                ..
            } => (probe, result) = (Some(p.as_str()), Some(r.as_str())),
            EventKind::Kill {
                reason: r,
                cause: c,
                ..
            } => (reason, cause) = (Some(r.as_str()), Some(c.as_str())),
            EventKind::Exit {
                exit_code: c,
                reason: r,
                ..
            } => (exit_code, reason) = (Some(*c), Some(r.as_str())),
            EventKind::Event(e) => {
                (reason, event_type, message) =
                    (Some(e.reason), Some(e.event_type.as_str()), Some(e.message));
            }
            EventKind::Status { status, .. } => state = Some(status.state.name()),
            EventKind::Phase { phase: p } => phase = Some(p.as_str()),
            EventKind::Start { .. }
            | EventKind::BackOff { .. }
            | EventKind::Ready { .. }
            | EventKind::Started { .. }
            | EventKind::PodReady { .. }
            | EventKind::Sync { .. }
            | EventKind::Delete { .. }
            | EventKind::Deleted
            | EventKind::KubeletRestart => {}
            _ => {}
        }
        let fields_match = same(self.probe.as_deref(), probe)
            && same(self.outcome.as_deref(), outcome)
            && same(self.result.as_deref(), result)
            && same(self.reason.as_deref(), reason)
            && same(self.event_type.as_deref(), event_type)
            && same(self.cause.as_deref(), cause)
            && same(self.state.as_deref(), state)
            && same(self.phase.as_deref(), phase)
            && self.exit_code.is_none_or(|c| exit_code == Some(c));
        if !fields_match {
            return false;
        }
        match (&self.message, message) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(want), Some(m)) => {
                buf.clear();
                // Writing into a String cannot fail.
                let _ = write!(buf, "{m}");
                buf.contains(want.as_str())
            }
        }
    }
}

impl fmt::Display for EventFilter {
    /// `events {reason: BackOff, message: "kubia"}` for Kubernetes Events,
    /// `timeline {kind: kill, container: kubia}` for other kinds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if self.kind == "event" {
            f.write_str("events {")?;
        } else {
            f.write_str("timeline {")?;
            if !self.kind.is_empty() {
                write!(f, "kind: {}", self.kind)?;
                sep = ", ";
            }
        }
        let texts = [
            ("container", &self.container),
            ("probe", &self.probe),
            ("outcome", &self.outcome),
            ("result", &self.result),
            ("reason", &self.reason),
            ("type", &self.event_type),
            ("cause", &self.cause),
            ("state", &self.state),
            ("phase", &self.phase),
        ];
        for (name, value) in texts {
            if let Some(v) = value {
                write!(f, "{sep}{name}: {v}")?;
                sep = ", ";
            }
        }
        if let Some(m) = &self.message {
            write!(f, "{sep}message: {m:?}")?;
            sep = ", ";
        }
        if let Some(c) = self.exit_code {
            write!(f, "{sep}exitCode: {c}")?;
        }
        f.write_str("}")
    }
}

/// An expectation that does not hold: which one, and what was expected and seen.
///
/// Displays as `expect[0] (line 42): at 30m container kubia: restartCount expected 9, saw 8`
/// (without ` (line N)` when the line is unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// [`Expect::index`].
    pub index: usize,
    /// [`Expect::line`].
    pub line: Option<usize>,
    /// What was expected and what was seen, e.g.
    /// `at 30m container kubia: restartCount expected 9, saw 8`.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expect[{}]", self.index)?;
        if let Some(line) = self.line {
            write!(f, " (line {line})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for Failure {}

/// Checks expectations while the run streams by, forwarding every event to `inner`.
///
/// It keeps only what the checks need, never the history: the latest API view of each container
/// an `at` expectation names (from `status` events, and `ready`/`started` events, which may
/// change without one), the pod phase and its Ready condition, and one counter per `events`
/// expectation. Before any event a container is waiting (`ContainerCreating`) with restartCount
/// 0, not ready and not started; the pod is `Pending` and not Ready.
///
/// An `at: T` expectation is evaluated on the state after every event at `T` (so at the first
/// event later than `T`, or at [`ExpectSink::finish`] when the run ends at or after `T`); one
/// whose `T` lies after the end of the run fails. An `events` expectation counts matching
/// events with `from ≤ t ≤ to`; it fails when the count is out of range, or when its window
/// closes after the end of the run. A [`Goal`] keeps a few numbers of its own (when the pod
/// became Ready or not, a restart count, the first kill) and is judged at the end.
///
/// # Examples
/// ```
/// use probesim_core::{Event, EventKind, SimTime, Sink, VecSink};
/// use probesim_scenario::expect::{CountRange, EventFilter, Expect, ExpectSink, Expectation};
///
/// let expects = [Expect {
///     index: 0,
///     line: Some(12),
///     timings: None,
///     expectation: Expectation::Count {
///         filter: EventFilter { kind: "kill".into(), ..EventFilter::default() },
///         between: (SimTime::ZERO, SimTime::from_secs(60)),
///         count: CountRange { min: Some(1), max: None },
///     },
/// }];
/// let mut sink = ExpectSink::new(VecSink::default(), &expects);
/// sink.event(&Event { t: SimTime::from_secs(5), kind: EventKind::Phase { phase: probesim_core::Phase::Running } })?;
/// let (inner, failures) = sink.finish(SimTime::from_secs(60));
/// assert_eq!(inner.records.len(), 1);
/// assert_eq!(
///     failures[0].to_string(),
///     "expect[0] (line 12): timeline {kind: kill} between 0s and 1m: count expected at least 1, saw 0"
/// );
/// # Ok::<(), std::convert::Infallible>(())
/// ```
#[derive(Debug)]
pub struct ExpectSink<'e, S> {
    inner: S,
    expects: &'e [Expect],
    /// The containers named by `at` expectations, with their latest API view and since when
    /// its state (and reason) is what it is (`None`: since before any status).
    containers: Vec<(&'e str, ContainerStatus, Option<SimTime>)>,
    phase: Phase,
    pod_ready: bool,
    /// Positions in `expects` of the `at` expectations, by time.
    pending: Vec<usize>,
    /// How many of `pending` have been evaluated.
    evaluated: usize,
    /// Matching events so far, per position in `expects` (`events` expectations only).
    counts: Vec<u64>,
    /// What each goal expectation has seen, per position in `expects` (others: unused).
    goals: Vec<GoalState>,
    failures: Vec<Failure>,
    buf: String,
}

impl<'e, S> ExpectSink<'e, S> {
    /// Wraps `inner`, checking `expects`.
    #[must_use]
    pub fn new(inner: S, expects: &'e [Expect]) -> ExpectSink<'e, S> {
        let mut containers: Vec<(&'e str, ContainerStatus, Option<SimTime>)> = Vec::new();
        let mut pending = Vec::new();
        for (i, e) in expects.iter().enumerate() {
            if let Expectation::At { container, .. } = &e.expectation {
                pending.push(i);
                if let Some(c) = container.as_deref() {
                    if !containers.iter().any(|(n, _, _)| *n == c) {
                        containers.push((c, ContainerStatus::default(), None));
                    }
                }
            }
        }
        pending.sort_by_key(|&i| (at_of(&expects[i]), i));
        ExpectSink {
            inner,
            expects,
            containers,
            phase: Phase::Pending,
            pod_ready: false,
            pending,
            evaluated: 0,
            counts: vec![0; expects.len()],
            goals: vec![GoalState::default(); expects.len()],
            failures: Vec::new(),
            buf: String::new(),
        }
    }

    /// Ends the check at `end` (the instant the run reached): evaluates the `at` expectations
    /// not yet due, closes the `events` windows, and returns the inner sink with every failure,
    /// in the order of the expectations.
    #[must_use]
    pub fn finish(mut self, end: SimTime) -> (S, Vec<Failure>) {
        self.evaluate_before(end.saturating_add(probesim_core::SimDuration::from_millis(1)));
        for &i in &self.pending[self.evaluated..] {
            let e = &self.expects[i];
            self.failures.push(failure(
                e,
                format!(
                    "at {}: the run ended at {}, before this instant",
                    Span(at_of(e).as_millis()),
                    Span(end.as_millis())
                ),
            ));
        }
        for (i, e) in self.expects.iter().enumerate() {
            if let Expectation::Goal(goal) = &e.expectation {
                if let Some(message) = self.goals[i].verdict(goal, end) {
                    self.failures.push(failure(e, message));
                }
                continue;
            }
            let Expectation::Count {
                filter,
                between: (from, to),
                count,
            } = &e.expectation
            else {
                continue;
            };
            let seen = self.counts[i];
            // A window without `between` covers the whole run, however long it is.
            let whole_run = *to == SimTime::MAX;
            let shown_to = if whole_run { end } else { *to };
            let window = format_args!(
                "{filter} between {} and {}",
                Span(from.as_millis()),
                Span(shown_to.as_millis())
            );
            let message = if *to > end && !whole_run {
                format!(
                    "{window}: the run ended at {}, before the window closed (count so far {seen})",
                    Span(end.as_millis())
                )
            } else if !count.contains(seen) {
                format!("{window}: count expected {count}, saw {seen}")
            } else {
                continue;
            };
            self.failures.push(failure(e, message));
        }
        self.failures.sort_by_key(|f| f.index);
        (self.inner, self.failures)
    }

    /// Evaluates every pending `at` expectation whose instant is before `t`.
    fn evaluate_before(&mut self, t: SimTime) {
        while let Some(&i) = self.pending.get(self.evaluated) {
            let e = &self.expects[i];
            if at_of(e) >= t {
                break;
            }
            self.evaluated += 1;
            if let Some(message) = self.check_state(e) {
                self.failures.push(failure(e, message));
            }
        }
    }

    /// The failing checks of an `at` expectation against the current state, or `None`.
    fn check_state(&self, e: &Expect) -> Option<String> {
        let Expectation::At {
            at,
            container,
            checks,
        } = &e.expectation
        else {
            return None;
        };
        let mut problems = String::new();
        let mut problem = |args: fmt::Arguments<'_>| {
            if !problems.is_empty() {
                problems.push_str("; ");
            }
            // Writing into a String cannot fail.
            let _ = problems.write_fmt(args);
        };
        if let Some(want) = &checks.phase {
            if want != self.phase.as_str() {
                problem(format_args!(
                    "phase expected {want}, saw {}",
                    self.phase.as_str()
                ));
            }
        }
        if let Some(want) = checks.pod_ready {
            if want != self.pod_ready {
                problem(format_args!(
                    "podReady expected {want}, saw {}",
                    self.pod_ready
                ));
            }
        }
        let status = container
            .as_deref()
            .and_then(|c| self.containers.iter().find(|(n, _, _)| *n == c))
            .map(|(_, s, since)| (s, *since));
        match status {
            Some((s, since)) => check_container(checks, s, since, &mut problem),
            None if has_container_checks(checks) => {
                problem(format_args!("container-level checks need `container`"));
            }
            None => {}
        }
        if problems.is_empty() {
            return None;
        }
        let mut message = format!("at {}", Span(at.as_millis()));
        if let Some(c) = container {
            let _ = write!(message, " container {c}");
        }
        let _ = write!(message, ": {problems}");
        Some(message)
    }

    /// Updates the tracked state with one event and counts it.
    fn observe(&mut self, event: &Event<'_>) {
        match event.kind {
            EventKind::Status { container, status } => {
                if let Some((_, s, since)) =
                    self.containers.iter_mut().find(|(n, _, _)| *n == container)
                {
                    let same_state = s.state.name() == status.state.name()
                        && s.state.reason() == status.state.reason();
                    if !same_state || since.is_none() {
                        *since = Some(event.t);
                    }
                    *s = *status;
                }
            }
            EventKind::Ready { container, ready } => {
                if let Some((_, s, _)) =
                    self.containers.iter_mut().find(|(n, _, _)| *n == container)
                {
                    s.ready = ready;
                }
            }
            EventKind::Started { container, started } => {
                if let Some((_, s, _)) =
                    self.containers.iter_mut().find(|(n, _, _)| *n == container)
                {
                    s.started = started;
                }
            }
            EventKind::PodReady { ready } => self.pod_ready = ready,
            EventKind::Phase { phase } => self.phase = phase,
            EventKind::Probe { .. }
            | EventKind::Result { .. }
            | EventKind::Kill { .. }
            | EventKind::Exit { .. }
            | EventKind::Start { .. }
            | EventKind::BackOff { .. }
            | EventKind::Sync { .. }
            | EventKind::Delete { .. }
            | EventKind::Deleted
            | EventKind::KubeletRestart
            | EventKind::Event(_) => {}
            _ => {}
        }
        for (i, e) in self.expects.iter().enumerate() {
            match &e.expectation {
                Expectation::Count {
                    filter,
                    between: (from, to),
                    ..
                } => {
                    if (*from..=*to).contains(&event.t)
                        && filter.matches(&event.kind, &mut self.buf)
                    {
                        self.counts[i] += 1;
                    }
                }
                Expectation::Goal(goal) => self.goals[i].observe(goal, event),
                Expectation::At { .. } => {}
            }
        }
    }
}

impl<S: Sink> Sink for ExpectSink<'_, S> {
    type Error = S::Error;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, S::Error> {
        self.evaluate_before(event.t);
        self.observe(event);
        self.inner.event(event)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        self.inner.fast_forward()?;
        Some(self)
    }
}

impl<S: Sink> FastForward for ExpectSink<'_, S> {
    /// Fast-forward: the tracked states, the counters and what each goal has seen. The `at`
    /// instants and the windows' ends are boundaries ([`FastForward::next_boundary`]), so a jump never
    /// skips an `at` check nor counts across a window's edge.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        for (_, status, since) in &mut self.containers {
            status.visit_cycle(v);
            // Only shown, in a failed `at` check's message: never compared (a container that
            // runs on keeps the instant its state began), moved like the other values.
            v.exact(u64::from(since.is_some()));
            if let Some(t) = since {
                v.past(t, SimDuration::ZERO);
            }
        }
        exact_hash(v, &(self.phase, self.pod_ready, self.evaluated));
        v.exact(self.failures.len() as u64);
        for n in &mut self.counts {
            v.count(n, None, u64::MAX);
        }
        for (e, goal) in self.expects.iter().zip(&mut self.goals) {
            if let Expectation::Goal(g) = &e.expectation {
                goal.visit_cycle(g, v);
            }
        }
        self.inner.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }

    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        let mut first = self
            .inner
            .fast_forward()
            .map_or(SimTime::MAX, |f| f.next_boundary(from));
        let mut consider = |t: SimTime| {
            if t >= from && t < first {
                first = t;
            }
        };
        for &i in &self.pending[self.evaluated..] {
            consider(at_of(&self.expects[i]));
        }
        for e in self.expects {
            match &e.expectation {
                Expectation::Count {
                    between: (a, b), ..
                }
                | Expectation::Goal(Goal::MaxRestarts {
                    between: (a, b), ..
                }) => {
                    consider(*a);
                    consider(*b);
                }
                Expectation::At { .. } | Expectation::Goal(_) => {}
            }
        }
        first
    }
}

/// The instant of an `at` expectation (`MAX` for others, which are never pending).
fn at_of(e: &Expect) -> SimTime {
    match e.expectation {
        Expectation::At { at, .. } => at,
        Expectation::Count { .. } | Expectation::Goal(_) => SimTime::MAX,
    }
}

fn failure(e: &Expect, message: String) -> Failure {
    Failure {
        index: e.index,
        line: e.line,
        message,
    }
}

fn has_container_checks(c: &StateChecks) -> bool {
    c.restart_count.is_some()
        || c.ready.is_some()
        || c.started.is_some()
        || c.state.is_some()
        || c.reason.is_some()
        || c.exit_code.is_some()
        || c.last_exit_code.is_some()
}

/// Reports each container-level check of `checks` that `s` fails.
fn check_container(
    checks: &StateChecks,
    s: &ContainerStatus,
    since: Option<SimTime>,
    problem: &mut impl FnMut(fmt::Arguments<'_>),
) {
    // When the state seen began: ` since 25m10s`, or before any status.
    let when = match since {
        Some(t) => format!(" since {}", Span(t.as_millis())),
        None => " (no status yet)".to_owned(),
    };
    if let Some(want) = checks.restart_count {
        if !want.contains(u64::from(s.restart_count)) {
            problem(format_args!(
                "restartCount expected {want}, saw {}",
                s.restart_count
            ));
        }
    }
    if let Some(want) = checks.ready {
        if want != s.ready {
            problem(format_args!("ready expected {want}, saw {}", s.ready));
        }
    }
    if let Some(want) = checks.started {
        if want != s.started {
            problem(format_args!("started expected {want}, saw {}", s.started));
        }
    }
    if let Some(want) = &checks.state {
        if want != s.state.name() {
            problem(format_args!(
                "state expected {want}, saw {}{when}",
                s.state.name()
            ));
        }
    }
    if let Some(want) = &checks.reason {
        let seen = s.state.reason();
        if seen != Some(want.as_str()) {
            problem(format_args!(
                "reason expected {want}, saw {}{when}",
                seen.unwrap_or("none")
            ));
        }
    }
    let exit = match s.state {
        ContainerState::Terminated(t) => Some(t.exit_code),
        ContainerState::Waiting(_) | ContainerState::Running { .. } => None,
        _ => None,
    };
    compare_code(checks.exit_code, exit, "exitCode", problem);
    let last = s.last_state.map(|t| t.exit_code);
    compare_code(checks.last_exit_code, last, "lastState exitCode", problem);
}

fn compare_code(
    want: Option<i32>,
    seen: Option<i32>,
    name: &str,
    problem: &mut impl FnMut(fmt::Arguments<'_>),
) {
    let Some(want) = want else { return };
    match seen {
        Some(n) if n == want => {}
        Some(n) => problem(format_args!("{name} expected {want}, saw {n}")),
        None => problem(format_args!("{name} expected {want}, saw none")),
    }
}

mod goals;
#[cfg(test)]
mod tests;

pub use self::goals::Goal;
use self::goals::GoalState;
