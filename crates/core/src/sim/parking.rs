//! Parking: a held worker (P26) whose ticks would do nothing leaves them off the agenda until
//! what its doProbe reads before the hold changes (the status says the pod is terminal, or
//! names another instance). A shortcut: a parked worker's ticks do exactly what they would
//! have done, nothing; `hot_path_tests` compares runs with and without it.

use super::worker::StatusReading;
use super::*;

impl Simulation {
    /// Whether a tick of held worker `w` would do anything: the doProbe checks ahead of the
    /// hold (P22–P25) all pass through, unless the status says the pod is terminal or names
    /// another container instance than the one the worker knows.
    pub(super) fn held_tick_acts(&self, w: WorkerId) -> bool {
        let worker = &self.prober.workers[w];
        matches!(
            self.read_status(worker.container, worker.container_id),
            StatusReading::Terminal | StatusReading::NewInstance(_)
        )
    }

    /// After a tick: a held worker (P26) that is idle, with nothing pending, whose next tick
    /// would do nothing either, leaves its ticks off the agenda until something it reads
    /// changes (`unpark_changed`). Its grid stays where it is: `next_tick` is a point of it.
    pub(super) fn park(&mut self, w: WorkerId) {
        let worker = &self.prober.workers[w];
        if !self.shortcuts.parking
            || !worker.on_hold
            || worker.parked
            || !worker.alive()
            || !worker.running()
            || worker.in_flight.is_some()
            || worker.wake_at.is_some()
            || worker.pending_tick
            || worker.pending_trigger
            || worker.stopping()
            || worker.period.is_zero()
            || self.held_tick_acts(w)
        {
            return;
        }
        self.worker_changed(w);
        self.prober.workers[w].parked = true;
        if !self.shortcuts.listed[w] {
            self.shortcuts.listed[w] = true;
            self.shortcuts.parked.push(w);
        }
    }

    /// Puts back on the agenda every parked worker whose next tick would now do something (or
    /// that is no longer held), at the first tick of its grid that has not gone by: a tick at
    /// this very instant has gone by when it orders before the item dispatched last (ticks
    /// due at one instant read the status as the items before them left it).
    pub(super) fn unpark_changed(&mut self) {
        // `held_tick_acts` for every parked worker. A listed worker that is no longer
        // parked (a wake-up resumed its ticks, or AddPod re-created it) leaves the list; one
        // that exited stays parked, and its ticks stay off the agenda as they would anyway.
        if !self.status.written {
            return;
        }
        let mut i = 0;
        while i < self.shortcuts.parked.len() {
            let w = self.shortcuts.parked[i];
            let parked = self.prober.workers[w].parked;
            if parked && !self.held_tick_acts(w) {
                i += 1;
                continue;
            }
            if parked {
                self.unpark(w);
            }
            self.shortcuts.listed[w] = false;
            self.shortcuts.parked.swap_remove(i);
        }
    }

    /// Puts parked worker `w`'s ticks back on the agenda from the first that has not gone by
    /// (it stays listed in `parked` until the next `unpark_changed`).
    pub(super) fn unpark(&mut self, w: WorkerId) {
        let now = self.now;
        let worker = self.prober.workers[w];
        let period = worker.period.as_millis();
        let mut next = worker.next_tick;
        if next < now {
            let behind = now.saturating_since(next).as_millis();
            next = next.saturating_add(SimDuration::from_millis(
                behind.div_ceil(period).saturating_mul(period),
            ));
        }
        if next == now && self.gone_by(w, now) {
            next = next.saturating_add(worker.period);
        }
        self.worker_changed(w);
        self.prober.workers[w].parked = false;
        self.prober.workers[w].next_tick = next;
    }

    /// Whether worker `w`'s tick at `now` orders before the item dispatched last.
    fn gone_by(&self, w: WorkerId, now: SimTime) -> bool {
        let tick = self.shortcuts.agenda.node(w, Key::new(now, Class::Tick));
        let (key, slot) = self.shortcuts.last_due;
        let last = match slot {
            Slot::Worker(v) => self.shortcuts.agenda.node(v, key),
            _ => key.node(),
        };
        tick < last
    }
}
