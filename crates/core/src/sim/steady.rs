//! The steady tick: a probe tick whose whole effect is one successful probe run.
//!
//! Once a container runs and its probes keep passing, almost every tick of a liveness or
//! readiness worker does the same thing: doProbe passes its checks (P22–P30), the attempt gets
//! the behaviour's one constant answer at once, the probe succeeds, the success run grows by
//! one and the results cache already holds the success (P33, P34, P42), so nothing but the
//! `probe` event and the worker's next tick changes. [`Simulation::steady_tick`] recognises
//! that case from the state the general path reads and does just that; any other tick (a
//! trigger, a stop, a new instance, a failure, an answer that takes time, a scripted
//! behaviour) goes the general way. The verdict of each check is the general path's, so the
//! two cannot disagree; `hot_path_tests` compares runs with and without it.

use super::worker::{classify, probe_due, StatusReading, Target};
use super::*;

/// How far from the back of the lane a tick may be inserted; one that would go deeper (a pod
/// of many different periods) stays on the agenda.
const LANE_DEPTH: usize = 8;

/// What a worker's steady tick needs that does not change during the run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Steady {
    /// The output of the constant successful answer.
    output: OutputKind,
    /// The probe's `initialDelaySeconds` (P29).
    initial_delay: i64,
    /// An exec probe: it needs the worker's own container instance
    /// (docs/semantics.md#exec-target).
    exec: bool,
}

impl Steady {
    /// Per worker, its steady tick when it can have one: a liveness or readiness probe whose
    /// handler resolves its port (P39) and whose behaviour answers one constant response that
    /// succeeds at once.
    pub(super) fn of_workers(
        pod: &PodSpec,
        profile: &Profile,
        behaviours: &Behaviours,
        workers: &[Worker],
    ) -> PerWorker<Option<Steady>> {
        PerWorker::from_vec(
            workers
                .iter()
                .map(|w| {
                    if w.kind == ProbeKind::Startup {
                        return None;
                    }
                    let probe = pod.container(w.container.index()).probe(w.kind)?;
                    let handler = probe.handler();
                    if let Handler::HttpGet { port, .. } | Handler::TcpSocket { port, .. } = handler
                    {
                        port.number()?;
                    }
                    let response = behaviours.constant_of(w.container.index(), w.kind)?;
                    let (outcome, output, duration) =
                        classify(handler, response, probe.timeout(), profile);
                    (outcome == Outcome::Success && duration.is_zero()).then(|| Steady {
                        output,
                        initial_delay: i64::from(probe.initial_delay_seconds()),
                        exec: matches!(handler, Handler::Exec { .. }),
                    })
                })
                .collect(),
        )
    }
}

/// The steady lane: the next ticks of workers whose ticks are steady, as agenda nodes
/// ([`agenda::Agenda::node`]), in agenda order. A worker's tick moves here after a steady tick,
/// and back to the agenda as soon as anything marks the worker (`next_due_item`); an entry
/// whose worker left is dropped when it comes up. Workers of one period go to the back: a
/// steady tick costs a pop and a push on a ring, not a walk up the agenda's tree.
///
/// A steady tick changes nothing that another one reads, so a worker whose tick passed the
/// checks stays steady until anything else is dispatched: the run loop counts those dispatches
/// (`epoch`), and a worker's checks run again only at its first tick after one.
#[derive(Clone, Debug)]
pub(super) struct Lane {
    /// A ring of a power-of-two size (or empty).
    ring: Vec<u128>,
    /// Where the first entry is.
    head: usize,
    /// How many entries there are.
    len: usize,
    /// Per worker, the entry that stands for its next tick (0: none, the tick is the agenda's).
    held: PerWorker<u128>,
    /// Per worker, the epoch in which its tick last passed the checks.
    checked: PerWorker<u64>,
    /// Dispatches other than steady ticks so far.
    pub(super) epoch: u64,
    /// Steady ticks so far, each placed once after it ran (tests check that the shortcut is
    /// taken).
    #[cfg(test)]
    pub(super) ran: u64,
}

impl Lane {
    /// An empty lane for `workers` workers.
    pub(super) fn new(workers: usize) -> Lane {
        Lane {
            ring: Vec::new(),
            head: 0,
            len: 0,
            held: PerWorker::from_vec(vec![0; workers]),
            checked: PerWorker::from_vec(vec![u64::MAX; workers]),
            epoch: 0,
            #[cfg(test)]
            ran: 0,
        }
    }

    /// Makes room for one more worker (tests add fake workers).
    #[cfg(test)]
    pub(super) fn push_worker(&mut self) {
        self.held.push(0);
        self.checked.push(u64::MAX);
    }

    /// Empties the lane and forgets every check.
    fn clear(&mut self) {
        self.len = 0;
        self.held.fill(0);
        self.epoch += 1;
    }

    /// Whether worker `w`'s next tick is in the lane.
    #[inline]
    pub(super) fn holds(&self, w: WorkerId) -> bool {
        self.held.get(w).is_some_and(|&n| n != 0)
    }

    /// Worker `w`'s next tick is the agenda's again.
    #[inline]
    pub(super) fn leave(&mut self, w: WorkerId) {
        if let Some(n) = self.held.get_mut(w) {
            *n = 0;
        }
    }

    /// The first entry that still stands for its worker's next tick, dropping any before it
    /// that do not.
    #[inline]
    pub(super) fn head(&mut self) -> Option<u128> {
        while let Some(head) = self.front() {
            if self.held[WorkerId::new((head as u32) as usize)] == head {
                return Some(head);
            }
            self.pop();
        }
        None
    }

    /// The first entry.
    #[inline]
    fn front(&self) -> Option<u128> {
        if self.len == 0 {
            None
        } else {
            self.ring.get(self.head).copied()
        }
    }

    /// Drops the first entry.
    #[inline]
    pub(super) fn pop(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) & (self.ring.len() - 1);
            self.len -= 1;
        }
    }

    /// Entry `i` from the front.
    #[inline]
    fn at(&self, i: usize) -> u128 {
        self.ring[(self.head + i) & (self.ring.len() - 1)]
    }

    /// Puts worker `w`'s next tick in order, unless that is deeper than [`LANE_DEPTH`] from the
    /// back: appended in the usual case, inserted otherwise.
    #[inline]
    fn place(&mut self, w: WorkerId, node: u128) -> bool {
        #[cfg(test)]
        {
            self.ran += 1;
        }
        self.push(w, node) || self.insert(w, node)
    }

    /// Appends worker `w`'s next tick when it goes last and there is room (after a pop there
    /// is): a steady tick's usual case.
    #[inline(always)]
    fn push(&mut self, w: WorkerId, node: u128) -> bool {
        let size = self.ring.len();
        if self.len == 0 || self.len >= size {
            return false;
        }
        let mask = size - 1;
        if self.ring[(self.head + self.len - 1) & mask] >= node {
            return false;
        }
        self.ring[(self.head + self.len) & mask] = node;
        self.len += 1;
        self.held[w] = node;
        true
    }

    /// Inserts worker `w`'s next tick in order, unless it would go deeper than [`LANE_DEPTH`].
    #[inline(never)]
    fn insert(&mut self, w: WorkerId, node: u128) -> bool {
        if self.len == self.ring.len() {
            self.grow();
        }
        let mask = self.ring.len() - 1;
        let mut i = self.len;
        while i > 0 && self.at(i - 1) > node {
            i -= 1;
            if self.len - i > LANE_DEPTH {
                return false;
            }
        }
        let mut j = self.len;
        while j > i {
            self.ring[(self.head + j) & mask] = self.ring[(self.head + j - 1) & mask];
            j -= 1;
        }
        self.ring[(self.head + i) & mask] = node;
        self.len += 1;
        self.held[w] = node;
        true
    }

    /// Doubles the ring, its entries from the start.
    #[cold]
    fn grow(&mut self) {
        let mut ring = vec![0; (self.ring.len() * 2).max(8)];
        for (i, slot) in ring.iter_mut().enumerate().take(self.len) {
            *slot = self.at(i);
        }
        self.ring = ring;
        self.head = 0;
    }
}

impl Simulation {
    /// Turns the steady-tick shortcut on (the default) or off. Off, every probe tick runs
    /// through the general path; the events and the state are the same either way, and the
    /// switch is there to compare the two.
    pub fn set_steady_ticks(&mut self, on: bool) {
        // Ticks held in the lane go back to the agenda, and every worker's checks run again.
        for w in self.prober.workers.ids() {
            if self.shortcuts.lane.holds(w) {
                self.worker_changed(w);
            }
        }
        self.shortcuts.lane.clear();
        self.shortcuts.steady_ticks = on && self.shortcuts.steady.iter().any(Option::is_some);
    }

    /// After a steady tick of worker `w`: its next tick goes to the lane, or to the agenda
    /// when the lane cannot take it in order. `from_lane`: the tick came from the lane, so the
    /// agenda holds no tick of the worker.
    #[inline]
    pub(super) fn place_steady(&mut self, w: WorkerId, from_lane: bool) {
        let tick = Key::new(self.prober.workers[w].next_tick, Class::Tick);
        if self
            .shortcuts
            .lane
            .place(w, self.shortcuts.agenda.node(w, tick))
        {
            if !from_lane {
                self.shortcuts.agenda.set(w, Key::NEVER);
            }
        } else {
            self.shortcuts.agenda.set(w, tick);
        }
    }

    /// Runs worker `w`'s tick due now the steady way if that is all it would do, and says
    /// whether it did; the general path (`worker_due`) runs it otherwise.
    #[inline]
    pub(super) fn steady_tick<S: Sink>(&mut self, w: WorkerId, out: &mut Out<'_, S>) -> bool {
        if !self.steady_run(w) {
            return false;
        }
        self.shortcuts.lane.checked[w] = self.shortcuts.lane.epoch;
        steady_effect(
            &mut self.prober.workers[w],
            &self.pod,
            &self.shortcuts.steady,
            w,
            self.now,
            out,
        );
        true
    }

    /// Whether worker `w`'s tick due now is steady.
    fn steady_run(&self, w: WorkerId) -> bool {
        let Some(steady) = self.shortcuts.steady[w] else {
            return false;
        };
        let worker = &self.prober.workers[w];
        // P16, P17: an idle worker with nothing else pending runs one doProbe for the tick.
        if worker.in_flight.is_some()
            || worker.wake_at.is_some()
            || worker.pending_tick
            || worker.pending_trigger
            || worker.stopping()
            || worker.parked
            // P26.
            || worker.on_hold
            // P33: the run of successes goes on.
            || worker.last_result != ProbeResult::Success
        {
            return false;
        }
        // doProbe's own checks: P22–P25, the instance the worker knows; P27, P29, P30 (the
        // initial delay, once past, for good: the instance stays the same while nothing else
        // runs).
        let c = worker.container;
        let StatusReading::Known(id) = self.read_status(c, worker.container_id) else {
            return false;
        };
        if !probe_due(
            worker.kind,
            &self.status.view[c],
            self.now,
            steady.initial_delay,
        ) {
            return false;
        }
        // docs/semantics.md#exec-target: the attempt reaches a running process (an exec, the
        // worker's own; docs/semantics.md#one-instant-restarts: not one replaced this instant).
        if !matches!(
            self.probe_target(c, steady.exec, Some(id)),
            Target::Process(_)
        ) {
            return false;
        }
        // P34, P42: the cache holds the success that the run goes on confirming, so whether or
        // not the run has reached the threshold, nothing is stored.
        self.prober.cache[w] == Some((id, ProbeResult::Success))
    }

    /// Runs the lane's ticks, from its head on, while they are steady and come before
    /// everything else (the agenda's first worker, the kubelet-wide items and the horizon
    /// `until`): nothing else is due in between and a steady tick changes nothing that anything
    /// else reads, so this is the run loop's work without its look-ups. Returns how many ran (the
    /// run loop counts them as steps); the run stops after one the sink stopped at or failed on
    /// (`out` says which).
    ///
    /// # Errors
    /// A step budget exhausted at one instant.
    pub(super) fn steady_burst<S: Sink>(
        &mut self,
        until: SimTime,
        steps_here: &mut u32,
        out: &mut Out<'_, S>,
    ) -> Result<u64, RunError<S::Error>> {
        let after_until = Key::new(until, Class::Completion).node_after();
        let mut burst = Burst {
            limit: self
                .shortcuts
                .agenda
                .root()
                .min(self.shortcuts.global_due.0.node())
                .min(after_until),
            ran: 0,
            last: self.shortcuts.last_due,
        };
        loop {
            let pause = self.burst_run(&mut burst, steps_here, out);
            match pause {
                Pause::Check(w) => {
                    // The first tick of `w` since something else ran: the checks, at its time.
                    let before = self.now;
                    if let Some(head) = self.shortcuts.lane.front() {
                        self.now = Key::of_node(head).at();
                    }
                    let steady = self.steady_run(w);
                    self.now = before;
                    if !steady {
                        break;
                    }
                    self.shortcuts.lane.checked[w] = self.shortcuts.lane.epoch;
                }
                Pause::Overflow(w, tick) => {
                    // The lane could not take the next tick in order: the agenda has it.
                    self.shortcuts.lane.leave(w);
                    self.shortcuts.agenda.set(w, tick);
                    burst.limit = burst.limit.min(self.shortcuts.agenda.root());
                    if out.error.is_some() || out.stop {
                        break;
                    }
                }
                Pause::Budget(at) => return Err(RunError::StepBudget { at }),
                Pause::Done => break,
            }
        }
        self.shortcuts.last_due = burst.last;
        Ok(burst.ran)
    }

    /// The loop of [`Simulation::steady_burst`], over the fields it touches, until it has to
    /// look at something else.
    #[inline]
    fn burst_run<S: Sink>(
        &mut self,
        burst: &mut Burst,
        steps_here: &mut u32,
        out: &mut Out<'_, S>,
    ) -> Pause {
        let Simulation {
            shortcuts: Shortcuts { lane, steady, .. },
            prober: Prober { workers, .. },
            pod,
            now,
            ..
        } = self;
        let epoch = lane.epoch;
        while let Some(head) = lane.head() {
            if head >= burst.limit {
                return Pause::Done;
            }
            let w = WorkerId::new((head as u32) as usize);
            if lane.checked[w] != epoch {
                return Pause::Check(w);
            }
            let key = Key::of_node(head);
            let at = key.at();
            // The first tick is the item the run loop chose, already counted and at `now`.
            if burst.ran > 0 {
                if at == *now {
                    *steps_here += 1;
                    if *steps_here > STEP_BUDGET {
                        return Pause::Budget(at);
                    }
                } else {
                    *steps_here = 0;
                }
            }
            *now = at;
            lane.pop();
            let next = steady_effect(&mut workers[w], pod, steady, w, at, out);
            burst.ran += 1;
            burst.last = (key, Slot::Worker(w));
            // The next tick, with the same tie order (a node's low half).
            let tick = Key::new(next, Class::Tick);
            let node = tick.with_tie_of(head);
            if !lane.place(w, node) {
                return Pause::Overflow(w, tick);
            }
            if out.error.is_some() || out.stop {
                return Pause::Done;
            }
        }
        Pause::Done
    }
}

/// A steady tick's whole effect on `worker` (worker `w`), at `at`: the next tick of the grid
/// (P17), which it returns, the longer run (P33) and the successful probe run.
#[inline]
fn steady_effect<S: Sink>(
    worker: &mut Worker,
    pod: &PodSpec,
    steady: &PerWorker<Option<Steady>>,
    w: WorkerId,
    at: SimTime,
    out: &mut Out<'_, S>,
) -> SimTime {
    worker.next_tick = worker.next_tick.saturating_add(worker.period);
    worker.result_run = worker.result_run.saturating_add(1);
    let (c, kind) = (worker.container, worker.kind);
    if let Some(event) = probe_run(pod, steady, w, c, kind) {
        out.emit_for(at, c, event);
    }
    worker.next_tick
}

/// The `probe` event of worker `w`'s steady tick: container `c`'s probe `kind` succeeded at once
/// with the constant answer's output.
#[inline]
fn probe_run<'p>(
    pod: &'p PodSpec,
    steady: &PerWorker<Option<Steady>>,
    w: WorkerId,
    c: ContainerId,
    kind: ProbeKind,
) -> Option<EventKind<'p>> {
    let steady = steady.get(w).copied().flatten()?;
    let spec = pod.container(c.index());
    let probe = spec.probe(kind)?;
    Some(EventKind::Probe {
        container: &spec.name,
        probe: kind,
        outcome: Outcome::Success,
        output: ProbeOutput {
            handler: probe.handler(),
            pod_ip: &pod.pod_ip,
            kind: steady.output,
            texts: None,
        },
        duration: SimDuration::ZERO,
    })
}

/// Where [`Simulation::steady_burst`] is.
struct Burst {
    /// The first node that is not the lane's to run.
    limit: u128,
    /// Steady ticks run.
    ran: u64,
    /// The item dispatched last.
    last: (Key, Slot),
}

/// Why [`Simulation::burst_run`] stopped.
enum Pause {
    /// Nothing more to run now (or the sink stopped or failed).
    Done,
    /// Worker `w`'s tick at the head needs its checks.
    Check(WorkerId),
    /// Worker `w`'s next tick did not fit in the lane.
    Overflow(WorkerId, Key),
    /// Too many steps at this instant.
    Budget(SimTime),
}
