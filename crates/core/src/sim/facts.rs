//! How the model says what changed, and how the shortcuts hear of it.
//!
//! Model code never touches a shortcut's cache. It states a fact with one of the methods here,
//! and each method tells every cache that depends on it:
//!
//! | fact | agenda | kubelet-wide due | parking | steady lane | incremental status |
//! |---|---|---|---|---|---|
//! | [`Simulation::worker_changed`] | the worker's key | | | the worker leaves | |
//! | [`Simulation::container_changed`] | | | | | the container, actionable set |
//! | [`Simulation::trigger_taken`] | | | | | the container |
//! | [`Simulation::kubelet_timers_changed`] | | recomputed | | | |
//! | [`Simulation::status_may_change`] | | | rechecked | | |
//! | [`Simulation::kubelet_item_runs`] | | recomputed | rechecked | checks again | |
//! | [`Simulation::general_step`] | | | | checks again | |
//! | [`Simulation::clock_jumped`] | every key | recomputed | | checks again | |
//!
//! Fast-forward needs no fact: it compares the model's state itself and rebuilds the caches
//! after a jump ([`Simulation::clock_jumped`]). A fact stated too often costs time, never
//! correctness; one left out is a bug the both-ways tests (`hot_path_tests`, `status_tests`)
//! are there to catch. Where a fact is stated but no run can show its absence today (the
//! `status_may_change` of the step that runs a probe result's sync), a step-by-step test in
//! `hot_path_tests` pins that it is stated.

use super::{ContainerId, Simulation, WorkerId};
use crate::time::SimDuration;

impl Simulation {
    /// Worker `w` changed: its timers, or anything a steady tick of it reads. Its key is looked
    /// up again before the next item is chosen, and its ticks leave the steady lane.
    pub(super) fn worker_changed(&mut self, w: WorkerId) {
        let shortcuts = &mut self.shortcuts;
        if !shortcuts.is_dirty[w] {
            shortcuts.is_dirty[w] = true;
            shortcuts.dirty.push(w);
        }
    }

    /// An input of container `c`'s status changed (and is already written): the next status
    /// recomputes it, and whether a sync keeps it (`actionable`) is looked at again.
    pub(super) fn container_changed(&mut self, c: ContainerId) {
        self.update_actionable(c);
        if let Some(dirty) = self.status.dirty.get_mut(c) {
            if !*dirty {
                *dirty = true;
                self.status.queue.push(c);
            }
        }
    }

    /// [`Simulation::container_changed`] for worker `w`'s container.
    pub(super) fn worker_container_changed(&mut self, w: WorkerId) {
        let c = self.prober.workers[w].container;
        self.container_changed(c);
    }

    /// Every container's status inputs changed.
    pub(super) fn all_containers_changed(&mut self) {
        for c in self.status.dirty.ids() {
            self.container_changed(c);
        }
    }

    /// A worker of container `c` took its manual trigger (P18): a status that triggers it again
    /// has something to do, so the next status recomputes the container. Its inputs did not
    /// change: the actionable set stays.
    pub(super) fn trigger_taken(&mut self, c: ContainerId) {
        if !self.status.dirty[c] {
            self.status.dirty[c] = true;
            self.status.queue.push(c);
        }
    }

    /// A kubelet-wide deadline (a timer, a process's exit, a pull's end, a sync's gate) may
    /// have moved: the earliest one is looked up again.
    pub(super) fn kubelet_timers_changed(&mut self) {
        self.shortcuts.globals_dirty = true;
    }

    /// The status that held workers' doProbe reads may be rewritten (a sync runs inside the
    /// current step): parked workers are looked at again before the next item.
    pub(super) fn status_may_change(&mut self) {
        self.shortcuts.recheck_parked = true;
    }

    /// A kubelet-wide item runs: any deadline and the status may change.
    pub(super) fn kubelet_item_runs(&mut self) {
        self.kubelet_timers_changed();
        self.status_may_change();
    }

    /// Something other than a burst of steady ticks runs: every worker in the steady lane has
    /// its checks run again at its next tick.
    pub(super) fn general_step(&mut self) {
        if self.shortcuts.steady_ticks {
            self.shortcuts.lane.epoch += 1;
        }
    }

    /// Fast-forward moved the clock `by` whole cycles: every deadline is looked up again, and
    /// the item dispatched last (which a parked worker's return is ordered against) moves with
    /// the clock.
    pub(super) fn clock_jumped(&mut self, by: SimDuration) {
        let last = &mut self.shortcuts.last_due.0;
        if *last != super::Key::NEVER {
            *last = last.later_by(by);
        }
        for w in self.prober.workers.ids() {
            self.worker_changed(w);
        }
        self.kubelet_timers_changed();
        self.shortcuts.lane.epoch += 1;
    }
}
