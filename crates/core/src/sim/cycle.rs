//! Steady-state fast-forward (see [`crate::cycle`]): the walk over the simulation's state, and
//! the detector that compares the state at the end of each pod sync with an earlier one and
//! jumps whole cycles when they match.
//!
//! The detector is Brent's: it keeps one saved snapshot and compares every new one with it,
//! saving a new one after 1, 2, 4, 8 … comparisons, so a cycle of λ syncs is found within a few
//! multiples of λ syncs after the state becomes periodic, with memory for two snapshots.
//!
//! Comparing costs a walk of the whole state, so a run that never repeats must not pay for it
//! at every sync (docs/fast-forward.md#what-it-costs):
//!
//! - when the generator drew since the last sync compared, no state before can come back (its
//!   position is an exact value and only grows), so the state is not even recorded;
//! - after failed comparisons the detector backs off: the steps between two comparisons double
//!   at every other save of Brent's once a save's power reaches [`BACK_OFF_FROM`], so the
//!   comparisons of a long run that never repeats grow as the square root of its steps. The
//!   spacing stays the same for at least two rounds of Brent's, so a saved state that is not
//!   yet on the cycle of compared states is followed by one that is, compared as often.

use crate::cycle::{count32, exact_hash, Apply, Capture};
use crate::cycle::{Snapshot, Visitor};
use crate::event::{ContainerState, ContainerStatus, Terminated};
use crate::sink::Sink;
use crate::time::{SimDuration, SimTime};

use super::{ContainerId, Simulation};

/// The fast-forward detector of one simulation.
#[derive(Clone, Debug)]
pub(super) struct Detector {
    /// Fast-forward is wanted (it is off for `--no-fast-forward`, and once a part of the run
    /// says it cannot be visited).
    pub(super) enabled: bool,
    saved: Snapshot,
    has_saved: bool,
    current: Snapshot,
    /// Brent's power and the comparisons since the last save.
    power: u64,
    lam: u64,
    plan: Vec<u64>,
    /// Simulated time skipped so far.
    pub(super) skipped: SimDuration,
    /// Steps taken since the last snapshot, and the size of that snapshot: a snapshot is taken
    /// only once the steps since the last one outnumber an eighth of its values (times
    /// `spacing`), so comparing costs at most a small share of simulating (a pod of 2,500
    /// containers syncs thousands of times while its probes start).
    pub(super) steps: u64,
    last_size: u64,
    /// The back-off after failed comparisons: a factor on the steps between two snapshots,
    /// 1 after a jump, doubled at every other save once Brent's power reaches
    /// [`BACK_OFF_FROM`]; and the saves since it last grew.
    spacing: u64,
    saves: u64,
    /// The generator's position at the last sync that was due for a comparison: when it moved
    /// since, the state cannot be one seen before.
    word: Option<u128>,
    /// Syncs that were due and compared, and those not recorded because the generator moved
    /// (tests read them).
    pub(super) compared: u64,
    pub(super) drawn: u64,
}

/// The power of Brent's (comparisons before the next save) from which failed comparisons make
/// the detector back off.
pub(super) const BACK_OFF_FROM: u64 = 32;

impl Detector {
    pub(super) fn new() -> Detector {
        Detector {
            enabled: true,
            saved: Snapshot::default(),
            has_saved: false,
            current: Snapshot::default(),
            power: 1,
            lam: 0,
            plan: Vec::new(),
            skipped: SimDuration::ZERO,
            steps: 0,
            last_size: 0,
            spacing: 1,
            saves: 0,
            word: None,
            compared: 0,
            drawn: 0,
        }
    }

    /// Whether to compare at this sync's end. Which syncs are compared depends only on the run
    /// (the steps between syncs, the back-off), so once the run repeats, so do the compared
    /// states.
    pub(super) fn due(&self) -> bool {
        self.enabled && self.steps.saturating_mul(8) >= self.last_size.saturating_mul(self.spacing)
    }

    fn restart(&mut self) {
        self.has_saved = false;
        self.power = 1;
        self.lam = 0;
    }

    /// After a jump (or when fast-forward is turned on): compare as often as at the start.
    fn reset_back_off(&mut self) {
        self.spacing = 1;
        self.saves = 0;
    }

    /// `current` becomes the saved snapshot, and Brent's power doubles; every other save from
    /// [`BACK_OFF_FROM`] on, the spacing of comparisons doubles too.
    fn save(&mut self) {
        core::mem::swap(&mut self.saved, &mut self.current);
        self.has_saved = true;
        self.power = self.power.saturating_mul(2);
        self.lam = 0;
        self.saves += 1;
        if self.power >= BACK_OFF_FROM && self.saves >= 2 {
            self.spacing = self.spacing.saturating_mul(2);
            self.saves = 0;
        }
    }
}

/// The time between two equal snapshots, when it is a whole number of seconds: status times
/// are floored to seconds, so only whole-second cycles keep them in step.
fn whole_period(earlier: &Snapshot, later: &Snapshot) -> Option<SimDuration> {
    let period = later.at().saturating_since(earlier.at());
    (!period.is_zero() && period.as_millis() % 1000 == 0).then_some(period)
}

impl Simulation {
    /// Turns steady-state fast-forward on (the default) or off. Fast-forward only ever happens
    /// for sinks and behaviours that can be visited ([`Sink::fast_forward`](crate::Sink::fast_forward)); it gives the same
    /// events' effect on them and the same state as the step-by-step run.
    pub fn set_fast_forward(&mut self, on: bool) {
        self.cycle.enabled = on;
        self.cycle.restart();
        self.cycle.reset_back_off();
        self.cycle.word = None;
    }

    /// How much simulated time fast-forward has skipped so far (zero when it never jumped).
    #[must_use]
    pub fn fast_forwarded(&self) -> SimDuration {
        self.cycle.skipped
    }

    /// At the end of a pod sync: compares the state with the saved one and jumps whole cycles
    /// towards `until` when they match.
    pub(super) fn cycle_point<S: Sink>(&mut self, until: SimTime, sink: &mut S) {
        let word = self.rng.get_word_pos();
        if self.cycle.word.replace(word) != Some(word) {
            // The generator drew since the last sync compared (or this is the first): no state
            // before this one comes back, and this one only if nothing draws until the next.
            self.cycle.restart();
            self.cycle.steps = 0;
            self.cycle.drawn += 1;
            return;
        }
        self.cycle.compared += 1;
        let (current, visited) = self.capture(sink);
        if !visited {
            self.cycle.enabled = false;
            self.cycle.current = current;
            return;
        }
        if self.cycle.has_saved && self.cycle.saved.same_state(&current) {
            let saved = core::mem::take(&mut self.cycle.saved);
            let jumped = whole_period(&saved, &current)
                .is_some_and(|period| self.jump(&saved, &current, period, until, sink));
            self.cycle.saved = saved;
            self.cycle.current = current;
            self.cycle.restart();
            if jumped {
                self.cycle.reset_back_off();
                return;
            }
        } else {
            self.cycle.current = current;
        }
        self.cycle.lam += 1;
        if !self.cycle.has_saved || self.cycle.lam >= self.cycle.power {
            self.cycle.save();
        }
    }

    /// Records the state now into the spare snapshot; whether every part could be visited.
    fn capture<S: Sink>(&mut self, sink: &mut S) -> (Snapshot, bool) {
        let mut current = core::mem::take(&mut self.cycle.current);
        current.begin(self.now);
        let visited = self.visit_state(&mut Capture::new(&mut current), sink);
        self.cycle.steps = 0;
        self.cycle.last_size = current.len() as u64;
        (current, visited)
    }

    /// Moves the state on by as many whole cycles of `period` as fit, from `later` (the state
    /// now, one cycle after `earlier`); whether it moved. It does not when no whole cycle
    /// fits before the horizon or the sink's boundary, or when the two states do not make a
    /// cycle that can be extrapolated.
    fn jump<S: Sink>(
        &mut self,
        earlier: &Snapshot,
        later: &Snapshot,
        period: SimDuration,
        until: SimTime,
        sink: &mut S,
    ) -> bool {
        let Some(wanted) = self.cycles_wanted(earlier.at(), period, until, sink) else {
            return false;
        };
        let mut plan = core::mem::take(&mut self.cycle.plan);
        let k = earlier.plan(later, wanted, &mut plan);
        if let Some(k) = k {
            self.apply_jump(&plan, k, period, sink);
        }
        self.cycle.plan = plan;
        k.is_some()
    }

    /// How many whole cycles of `period` fit before `until` and before the sink's next
    /// boundary (counted from `from`, the start of the reference cycle); `None` for none.
    fn cycles_wanted<S: Sink>(
        &self,
        from: SimTime,
        period: SimDuration,
        until: SimTime,
        sink: &mut S,
    ) -> Option<u64> {
        let p = period.as_millis();
        let mut wanted = until.saturating_since(self.now).as_millis() / p;
        // Never over a boundary of the sink, counted from the start of the reference cycle.
        let boundary = sink
            .fast_forward()
            .map_or(SimTime::MAX, |f| f.next_boundary(from));
        if boundary <= self.now {
            return None;
        }
        if boundary != SimTime::MAX {
            let room = boundary
                .saturating_since(self.now)
                .as_millis()
                .saturating_sub(1)
                / p;
            wanted = wanted.min(room);
        }
        (wanted > 0).then_some(wanted)
    }

    /// Writes a planned jump of `k` cycles of `period` into the state and moves the clock.
    fn apply_jump<S: Sink>(&mut self, plan: &[u64], k: u64, period: SimDuration, sink: &mut S) {
        let mut apply = Apply::new(plan);
        let visited = self.visit_state(&mut apply, sink);
        debug_assert!(visited && apply.done(), "the walk changed between visits");
        let by = SimDuration::from_millis(period.as_millis().saturating_mul(k));
        self.now = self.now.saturating_add(by);
        self.cycle.skipped = self.cycle.skipped.saturating_add(by);
        self.clock_jumped(by);
    }

    /// Per behaviour, the one container whose probes use it (`None` inside when several do);
    /// per container, how long its start matters to its probes' initial delays, and whether a
    /// behaviour it uses still reads uptime.
    fn readers(&mut self) -> (Vec<Option<Option<usize>>>, Vec<SimDuration>, Vec<bool>) {
        let mut users: Vec<Option<Option<usize>>> = vec![None; self.behaviours.entries.len()];
        let n = self.pod.container_count();
        let mut uptime = vec![false; n];
        for (c, bound) in self.behaviours.bindings.iter().enumerate() {
            for i in bound.iter().flatten() {
                let user = &mut users[*i];
                *user = match *user {
                    None => Some(Some(c)),
                    Some(Some(other)) if other == c => Some(Some(c)),
                    Some(_) => Some(None),
                };
                if self.behaviours.entries[*i]
                    .shortcuts()
                    .is_none_or(|s| s.reads_uptime())
                {
                    uptime[c] = true;
                }
            }
        }
        let young = (0..n)
            .map(|c| {
                let spec = self.pod.container(c);
                let delay = crate::spec::ProbeKind::ALL
                    .iter()
                    .filter_map(|&k| spec.probe(k))
                    .map(|p| u64::from(p.initial_delay_seconds().unsigned_abs()))
                    .max()
                    .unwrap_or(0);
                SimDuration::from_secs(delay.saturating_add(1))
            })
            .collect();
        (users, young, uptime)
    }

    /// Walks everything that decides what happens next, component by component (each walk
    /// lives next to its struct), then the behaviours and the sink; `false` when a part cannot
    /// be walked.
    ///
    /// Every struct walked is destructured field by field, with no `..`: a field added to one
    /// of them does not compile until it is walked, or bound to `_` with the reason it cannot
    /// change across a cycle (or is rebuilt after a jump, [`Simulation::clock_jumped`]).
    fn visit_state<S: Sink>(&mut self, v: &mut dyn Visitor, sink: &mut S) -> bool {
        let (users, young, uptime) = self.readers();
        let Simulation {
            pod,
            // Fixed for the run.
            profile: _,
            kubelet: _,
            behaviours,
            rng,
            now,
            created,
            prober,
            runtime,
            pod_worker,
            status,
            timers,
            shortcuts,
            // The detector itself.
            cycle: _,
        } = self;
        let cx = Walk {
            now: *now,
            bases: runtime.bases(),
            young,
            uptime,
        };
        let word = rng.get_word_pos();
        v.exact(word as u64);
        v.exact((word >> 64) as u64);
        v.exact(u64::from(*created));
        runtime.visit(v, &cx);
        status.visit(v, &cx);
        pod_worker.visit(v, &cx);
        shortcuts.visit(v);
        prober.visit(v, &cx, pod);
        timers.visit(v);
        // The behaviours, each against the one container that uses it.
        for (b, user) in behaviours.entries.iter_mut().zip(users) {
            let base = user.flatten().map(|c| cx.bases[c]);
            if !b.shortcuts().is_some_and(|s| s.visit_cycle(v, base)) {
                return false;
            }
        }
        sink.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }
}

/// What the components' walks share: the clock, and per container what its values are
/// compared against.
pub(super) struct Walk {
    pub(super) now: SimTime,
    /// Per container, the next instance number its runtime hands out (taken before the walk
    /// moves it): container IDs compare against it.
    pub(super) bases: Vec<u64>,
    /// Per container, how long its start matters to its probes' initial delays.
    pub(super) young: Vec<SimDuration>,
    /// Per container, whether a behaviour it uses still reads uptime.
    pub(super) uptime: Vec<bool>,
}

impl Walk {
    /// When an instance of container `c` started matters while a probe's initial delay runs
    /// (P15) and, for as long as the container's behaviours read uptime, to them; otherwise it
    /// only shows: `None` for "a point on the clock", or the horizon of a past time.
    pub(super) fn start_horizon(&self, c: ContainerId) -> Option<SimDuration> {
        (!self.uptime[c.index()]).then_some(self.young[c.index()])
    }
}

/// A time the API shows and nothing decides by: never compared, moved like the others (it
/// moves by whole cycles when the event that sets it recurs, and not at all otherwise).
fn shown(v: &mut dyn Visitor, t: &mut SimTime) {
    v.past(t, SimDuration::ZERO);
}

fn visit_terminated(v: &mut dyn Visitor, t: &mut Terminated) {
    let Terminated {
        exit_code,
        reason,
        started_at,
        finished_at,
    } = t;
    exact_hash(v, &(*exit_code, *reason));
    shown(v, started_at);
    shown(v, finished_at);
}

impl ContainerStatus {
    /// Walks this status for fast-forward ([`cycle`](crate::cycle)): its state, its times (which
    /// only show: the simulation decides by its own records) and the restart count as a count.
    pub fn visit_cycle(&mut self, v: &mut dyn Visitor) {
        let ContainerStatus {
            state,
            last_state,
            ready,
            started,
            restart_count,
        } = self;
        match state {
            ContainerState::Waiting(reason) => {
                v.exact(0);
                exact_hash(v, reason);
            }
            ContainerState::Running { started_at } => {
                v.exact(1);
                shown(v, started_at);
            }
            ContainerState::Terminated(t) => {
                v.exact(2);
                visit_terminated(v, t);
            }
        }
        v.exact(u64::from(last_state.is_some()));
        if let Some(t) = last_state {
            visit_terminated(v, t);
        }
        v.exact(u64::from(*ready));
        v.exact(u64::from(*started));
        count32(v, restart_count, None);
    }
}
