//! The engine's shortcuts' own state: the agenda of the probe workers and its dirty list, the
//! cached earliest kubelet-wide deadline, parked workers, and the steady lane. None of it is
//! the kubelet's: every field is derived from the model's state, or a switch tests turn off
//! to compare with the plain path.

use super::agenda::{Agenda, Key, Slot};
use super::steady::{Lane, Steady};
use super::worker::Worker;
use super::{PerWorker, WorkerId};
use crate::cycle::{exact_hash, Visitor};

/// See the module docs.
#[derive(Clone)]
pub(super) struct Shortcuts {
    /// Each worker's next deadline, recomputed only for workers marked dirty, and which worker
    /// is due first.
    pub(super) agenda: Agenda,
    pub(super) dirty: Vec<WorkerId>,
    pub(super) is_dirty: PerWorker<bool>,
    /// The earliest kubelet-wide item, recomputed only when one may have changed.
    pub(super) global_due: (Key, Slot),
    pub(super) globals_dirty: bool,
    /// Workers that were parked (some may have been unparked or re-created since), each once.
    pub(super) parked: Vec<WorkerId>,
    /// Per worker: whether it is listed in `parked`.
    pub(super) listed: PerWorker<bool>,
    /// Something a parked worker's doProbe reads may have changed: look at them before the
    /// next item is chosen.
    pub(super) recheck_parked: bool,
    /// The item chosen last (the one being or just dispatched).
    pub(super) last_due: (Key, Slot),
    /// Whether held workers are parked (always; tests compare with runs that do not park).
    pub(super) parking: bool,
    /// Per worker, what its steady ticks need, if it can have them (`steady`).
    pub(super) steady: PerWorker<Option<Steady>>,
    /// Whether steady ticks take their shortcut (whenever a worker can have them; tests compare
    /// with runs that do not).
    pub(super) steady_ticks: bool,
    /// The ticks of workers whose ticks are steady, in agenda order (`steady`).
    pub(super) lane: Lane,
}

impl Shortcuts {
    /// The shortcuts of a run with these workers, each with what its steady ticks need.
    pub(super) fn new(steady: PerWorker<Option<Steady>>, workers: &[Worker]) -> Shortcuts {
        Shortcuts {
            // Without a worker that can have steady ticks, the lane is never used.
            steady_ticks: steady.iter().any(Option::is_some),
            steady,
            lane: Lane::new(workers.len()),
            parked: Vec::new(),
            listed: PerWorker::from_vec(vec![false; workers.len()]),
            recheck_parked: false,
            last_due: (Key::NEVER, Slot::Idle),
            parking: true,
            agenda: Agenda::new(workers),
            dirty: Vec::with_capacity(workers.len()),
            is_dirty: PerWorker::from_vec(vec![false; workers.len()]),
            global_due: (Key::NEVER, Slot::Idle),
            globals_dirty: true,
        }
    }
}

impl Shortcuts {
    /// Walks what of the shortcuts' state decides the model's order for fast-forward: which
    /// held workers are parked, in the order they are looked at again.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor) {
        let Shortcuts {
            // The agenda and its bookkeeping are derived from the workers and timers walked
            // elsewhere, and rebuilt after a jump (`clock_jumped`).
            agenda: _,
            dirty: _,
            is_dirty: _,
            global_due: _,
            globals_dirty: _,
            parked,
            listed,
            recheck_parked,
            // Moved with the clock after a jump (`clock_jumped`).
            last_due: _,
            parking,
            // The steady lane's shortcut state: dropped at a jump (`lane.epoch`), and a
            // setting.
            steady: _,
            steady_ticks: _,
            lane: _,
        } = self;
        exact_hash(v, &(&*parked, &*listed, *recheck_parked, *parking));
    }
}
