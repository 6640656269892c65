//! Steady-state fast-forward (see [`crate::cycle`]): the walk over the simulation's state, and
//! the detector that compares the state at the end of each pod sync with an earlier one and
//! jumps whole cycles when they match.
//!
//! The detector is Brent's: it keeps one saved snapshot and compares every new one with it,
//! saving a new one after 1, 2, 4, 8 … comparisons, so a cycle of λ syncs is found within a few
//! multiples of λ syncs after the state becomes periodic, with memory for two snapshots.

use crate::cycle::{count32, exact_hash, opt_id, opt_time, Apply, Capture};
use crate::cycle::{Snapshot, Visitor};
use crate::event::{ContainerState, ContainerStatus, Terminated};
use crate::sink::Sink;
use crate::time::{SimDuration, SimTime};

use super::{
    BackOffEntry, ContainerRuntime, InFlight, Instance, Instances, Job, Key, PodStatus, PodWorker,
    Prober, Runtime, Shortcuts, Simulation, StatusManager, Timers, ViewEntry, Worker,
};

/// The fast-forward detector of one simulation.
#[derive(Debug)]
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
    /// only once the steps since the last one outnumber an eighth of its values, so comparing
    /// costs at most a small share of simulating (a pod of 2,500 containers syncs thousands of
    /// times while its probes start).
    pub(super) steps: u64,
    last_size: u64,
}

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
        }
    }

    /// Whether to compare at this sync's end. Which syncs are compared depends only on the run
    /// (the steps between syncs), so once the run repeats, so do the compared states.
    pub(super) fn due(&self) -> bool {
        self.enabled && self.steps.saturating_mul(8) >= self.last_size
    }

    fn restart(&mut self) {
        self.has_saved = false;
        self.power = 1;
        self.lam = 0;
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
    }

    /// How much simulated time fast-forward has skipped so far (zero when it never jumped).
    #[must_use]
    pub fn fast_forwarded(&self) -> SimDuration {
        self.cycle.skipped
    }

    /// At the end of a pod sync: compares the state with the saved one and jumps whole cycles
    /// towards `until` when they match.
    pub(super) fn cycle_point<S: Sink>(&mut self, until: SimTime, sink: &mut S) {
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
                return;
            }
        } else {
            self.cycle.current = current;
        }
        self.cycle.lam += 1;
        if !self.cycle.has_saved || self.cycle.lam >= self.cycle.power {
            core::mem::swap(&mut self.cycle.saved, &mut self.cycle.current);
            self.cycle.has_saved = true;
            self.cycle.power = self.cycle.power.saturating_mul(2);
            self.cycle.lam = 0;
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
        self.after_jump(by);
    }

    /// Derived state the jump does not move: every deadline is looked up again, and the item
    /// dispatched last (which a parked worker's return is ordered against) moves with the clock.
    fn after_jump(&mut self, by: SimDuration) {
        if self.shortcuts.last_due.0 != Key::NEVER {
            self.shortcuts.last_due.0 = self.shortcuts.last_due.0.later_by(by);
        }
        for w in 0..self.prober.workers.len() {
            if !self.shortcuts.is_dirty[w] {
                self.shortcuts.is_dirty[w] = true;
                self.shortcuts.dirty.push(w);
            }
        }
        self.shortcuts.globals_dirty = true;
        self.shortcuts.lane.epoch += 1;
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

    /// Walks everything that decides what happens next, then the behaviours and the sink;
    /// `false` when a part cannot be walked.
    ///
    /// Every struct walked here is destructured field by field, with no `..`: a field added to
    /// one of them does not compile until it is walked, or bound to `_` with the reason it
    /// cannot change across a cycle (or is rebuilt after a jump, [`Simulation::after_jump`]).
    #[expect(
        clippy::too_many_lines,
        reason = "one destructuring of the simulation, walked in one fixed order"
    )]
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
            prober:
                Prober {
                    workers,
                    alive: alive_workers,
                    // Fixed for the run.
                    worker_by: _,
                    cache,
                    kubelet_started,
                },
            runtime:
                ContainerRuntime {
                    containers: runtime,
                    pending_exits,
                    pleg: snapshot,
                },
            pod_worker:
                PodWorker {
                    job,
                    pending,
                    gate_after,
                    last_sync_end,
                    // Cleared before every comparison.
                    sync_ended: _,
                    terminal,
                    backoff,
                    sandbox_ready,
                    sandbox_stopped,
                    deleting,
                },
            status:
                StatusManager {
                    api: status,
                    written: status_written,
                    queue: status_queue,
                    dirty: status_dirty,
                    tally,
                    created_regular,
                    running_regular,
                    actionable,
                    // A test setting, fixed for the run.
                    #[cfg(test)]
                        full: _,
                    view,
                    reason_cache,
                },
            timers:
                Timers {
                    relist: relist_at,
                    sync_due,
                    requeue,
                    delete: delete_at,
                    restart: restart_at,
                },
            shortcuts:
                Shortcuts {
                    // The agenda and its bookkeeping are derived from the workers and timers
                    // walked here, and rebuilt after a jump (`after_jump`).
                    agenda: _,
                    dirty: _,
                    is_dirty: _,
                    global_due: _,
                    globals_dirty: _,
                    parked,
                    listed,
                    recheck_parked,
                    // Moved with the clock after a jump (`after_jump`).
                    last_due: _,
                    parking,
                    // The steady lane's shortcut state: dropped at a jump (`lane.epoch`), and a
                    // setting.
                    steady: _,
                    steady_ticks: _,
                    lane: _,
                },
            // The detector itself.
            cycle: _,
        } = self;
        let now = *now;
        let word = rng.get_word_pos();
        v.exact(word as u64);
        v.exact((word >> 64) as u64);
        v.exact(u64::from(*created));
        v.exact(u64::from(*terminal));
        let bases: Vec<u64> = runtime.iter().map(|r| r.next_id).collect();
        // When an instance started matters while a probe's initial delay runs (P15) and, for
        // as long as the container's behaviours read uptime, to them; otherwise it only shows.
        let start_horizon = |c: usize| (!uptime[c]).then_some(young[c]);
        for (c, rt) in runtime.iter_mut().enumerate() {
            let Runtime {
                instances,
                next_id,
                image_present,
                exit_at,
            } = rt;
            let base = bases[c];
            visit_instances(v, instances, base, start_horizon(c));
            v.count(next_id, None, u64::MAX);
            v.exact(u64::from(*image_present));
            v.exact(u64::from(exit_at.is_some()));
            if let Some((t, code)) = exit_at {
                v.time(t);
                exact_hash(v, code);
            }
        }
        for (c, s) in snapshot.iter_mut().enumerate() {
            visit_instances(v, s, bases[c], start_horizon(c));
        }
        opt_time(v, relist_at);
        // The API status.
        let PodStatus {
            phase,
            conditions,
            init_containers,
            containers,
            deletion_timestamp,
            removed,
        } = status;
        exact_hash(v, phase);
        exact_hash(v, conditions);
        for st in init_containers.iter_mut().chain(containers) {
            st.visit_cycle(v);
        }
        opt_time(v, deletion_timestamp);
        v.exact(u64::from(*removed));
        v.exact(u64::from(*status_written));
        for (c, entry) in view.iter_mut().enumerate() {
            let ViewEntry {
                id,
                running,
                terminated,
                started_at,
                started,
            } = entry;
            opt_id(v, id, bases[c]);
            v.exact(u64::from(*running));
            exact_hash(v, terminated);
            // P15: the start matters only until the initial delay has passed.
            v.past(started_at, young[c]);
            v.exact(u64::from(*started));
        }
        exact_hash(v, reason_cache);
        for entry in backoff.iter_mut() {
            v.exact(u64::from(entry.is_some()));
            if let Some(BackOffEntry {
                backoff,
                last_update,
            }) = entry
            {
                v.exact(backoff.as_millis());
                v.time(last_update);
            }
        }
        v.exact(u64::from(*sandbox_ready));
        v.exact(u64::from(*sandbox_stopped));
        // Which held workers are parked, in the order they are looked at again.
        exact_hash(v, &(&*parked, &*listed, *recheck_parked));
        exact_hash(v, &(*parking, *alive_workers));
        for (worker, slot) in workers.iter_mut().zip(cache.iter_mut()) {
            let Worker {
                container,
                kind,
                period,
                state,
                next_tick,
                wake_at,
                pending_tick,
                pending_trigger,
                in_flight,
                container_id,
                last_result,
                result_run,
                on_hold,
                parked,
                created_at,
            } = worker;
            // `container`, `kind` and `period` are fixed for the run.
            let base = bases[*container];
            exact_hash(v, state);
            v.exact(u64::from(*parked));
            if *parked && !period.is_zero() {
                // A parked worker's ticks are off the agenda; `next_tick` is only a point of
                // its grid, from which it comes back at the first tick not gone by: only the
                // grid's phase against now decides.
                let offset = i128::from(next_tick.as_millis()) - i128::from(now.as_millis());
                let phase = offset.rem_euclid(i128::from(period.as_millis()));
                v.exact(u64::try_from(phase).unwrap_or(u64::MAX));
                v.past(next_tick, SimDuration::ZERO);
            } else {
                v.time(next_tick);
            }
            opt_time(v, wake_at);
            v.exact(u64::from(*pending_tick));
            v.exact(u64::from(*pending_trigger));
            v.exact(u64::from(in_flight.is_some()));
            if let Some(InFlight {
                began,
                attempt,
                instance,
                ends,
                outcome,
                output,
            }) = in_flight
            {
                v.time(began);
                v.exact(u64::from(*attempt));
                v.id(instance, base, u64::MAX);
                v.time(ends);
                exact_hash(v, &(*outcome, *output));
            }
            opt_id(v, container_id, base);
            exact_hash(v, last_result);
            // P34: a run of equal results decides only until it reaches the larger threshold.
            let cap = pod.container(*container).probe(*kind).map_or(1, |p| {
                p.success_threshold()
                    .unsigned_abs()
                    .max(p.failure_threshold().unsigned_abs())
            });
            let mut run = u64::from(*result_run);
            v.saturating(&mut run, u64::from(cap), u64::from(u32::MAX));
            *result_run = u32::try_from(run).unwrap_or(u32::MAX);
            v.exact(u64::from(*on_hold));
            // Only "created at this very instant" matters (P14's churn check).
            v.past(created_at, SimDuration::from_millis(1));
            v.exact(u64::from(slot.is_some()));
            if let Some((id, result)) = slot {
                v.id(id, base, u64::MAX);
                exact_hash(v, result);
            }
        }
        v.exact(u64::from(delete_at.is_some()));
        if let Some((t, grace)) = delete_at {
            v.time(t);
            exact_hash(v, grace);
        }
        exact_hash(v, deleting);
        opt_time(v, restart_at);
        opt_time(v, kubelet_started);
        // The sync in progress.
        let Job {
            active,
            stage,
            snapshot,
            shared,
            kills,
            pod_kill,
            parallel,
            starts,
            pull_end,
            changed,
            backoff_expiry,
        } = job;
        v.exact(u64::from(*active));
        exact_hash(v, stage);
        // Empty while the sync reads the PLEG's snapshot (`shared`).
        v.exact(u64::from(*shared));
        v.exact(snapshot.len() as u64);
        for (c, s) in snapshot.iter_mut().enumerate() {
            visit_instances(v, s, bases[c], start_horizon(c));
        }
        exact_hash(v, kills);
        v.exact(u64::from(*pod_kill));
        v.exact(*parallel as u64);
        exact_hash(v, starts);
        opt_time(v, pull_end);
        v.exact(u64::from(*changed));
        opt_time(v, backoff_expiry);
        exact_hash(v, pending);
        // The incremental status's bookkeeping: which containers are to be recomputed, and
        // the counts the phase and conditions come from.
        exact_hash(v, &(*pending_exits, &*status_queue, &*status_dirty));
        exact_hash(v, &(*tally, *created_regular, *running_regular));
        exact_hash(v, actionable);
        opt_time(v, gate_after);
        // Only "ended at this very instant" matters (the churn check).
        v.exact(u64::from(last_sync_end.is_some()));
        if let Some(t) = last_sync_end {
            v.past(t, SimDuration::from_millis(1));
        }
        for slot in [sync_due, requeue] {
            v.exact(u64::from(slot.is_some()));
            if let Some((t, trigger)) = slot {
                v.time(t);
                exact_hash(v, trigger);
            }
        }
        // The behaviours, each against the one container that uses it.
        for (b, user) in behaviours.entries.iter_mut().zip(users) {
            let base = user.flatten().map(|c| bases[c]);
            if !b.shortcuts().is_some_and(|s| s.visit_cycle(v, base)) {
                return false;
            }
        }
        sink.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }
}

/// An instance; its start as a point on the clock, or with `start_horizon` as a past time that
/// matters only while younger than that.
fn visit_instance(
    v: &mut dyn Visitor,
    i: &mut Option<Instance>,
    base: u64,
    start_horizon: Option<SimDuration>,
) {
    v.exact(u64::from(i.is_some()));
    if let Some(Instance {
        id,
        restart_count,
        started_at,
        exited,
    }) = i
    {
        v.id(id, base, u64::MAX);
        v.count(restart_count, None, u64::MAX);
        match start_horizon {
            Some(h) => v.past(started_at, h),
            None => v.time(started_at),
        }
        v.exact(u64::from(exited.is_some()));
        if let Some((t, code)) = exited {
            v.time(t);
            exact_hash(v, code);
        }
    }
}

fn visit_instances(
    v: &mut dyn Visitor,
    s: &mut Instances,
    base: u64,
    start_horizon: Option<SimDuration>,
) {
    let Instances { newest, previous } = s;
    visit_instance(v, newest, base, start_horizon);
    visit_instance(v, previous, base, start_horizon);
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
