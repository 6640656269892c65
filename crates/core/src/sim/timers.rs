//! The kubelet-wide deadlines: one table of the timers that belong to no probe worker and no
//! container's process (the PLEG's relist, the pod worker's sync and requeue, the pod's
//! deletion, a kubelet restart), scanned in one place ([`Timers::consider`]).

use super::agenda::{key_of, Class, Key, Slot};
use crate::cycle::{exact_hash, opt_time, Visitor};
use crate::event::SyncTrigger;
use crate::time::{SimDuration, SimTime};

/// See the module docs. Each entry is `None` when nothing is scheduled.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Timers {
    /// The next PLEG relist (R4, R5).
    pub(super) relist: Option<SimTime>,
    /// A sync the pod worker runs at this time, and why (R1, R2, R6).
    pub(super) sync_due: Option<(SimTime, SyncTrigger)>,
    /// A re-sync after back-off or an error (R6, R7).
    pub(super) requeue: Option<(SimTime, SyncTrigger)>,
    /// A scheduled deletion: when, and its grace period (the pod's when `None`).
    pub(super) delete: Option<(SimTime, Option<SimDuration>)>,
    /// A scheduled kubelet restart.
    pub(super) restart: Option<SimTime>,
}

impl Timers {
    /// Each deadline as an agenda key with its slot, in the order in which they are
    /// considered: of two at the same key, the later one in this list goes first.
    fn entries(&self) -> [(Key, Slot); 5] {
        [
            (
                key_of(self.requeue.map(|(t, _)| t), Class::Sync),
                Slot::Requeue,
            ),
            (
                key_of(self.sync_due.map(|(t, _)| t), Class::Sync),
                Slot::SyncDue,
            ),
            (
                key_of(self.delete.map(|(t, _)| t), Class::Sync),
                Slot::Delete,
            ),
            (key_of(self.restart, Class::Runtime), Slot::KubeletRestart),
            (key_of(self.relist, Class::Relist), Slot::Relist),
        ]
    }

    /// Hands every scheduled deadline to `consider`, in the order of [`Timers::entries`].
    pub(super) fn consider(&self, mut consider: impl FnMut(Key, Slot)) {
        for (key, slot) in self.entries() {
            consider(key, slot);
        }
    }
}

impl Timers {
    /// Walks every deadline for fast-forward.
    pub(super) fn visit(&mut self, v: &mut dyn Visitor) {
        let Timers {
            relist,
            sync_due,
            requeue,
            delete,
            restart,
        } = self;
        opt_time(v, relist);
        v.exact(u64::from(delete.is_some()));
        if let Some((t, grace)) = delete {
            v.time(t);
            exact_hash(v, grace);
        }
        opt_time(v, restart);
        for slot in [sync_due, requeue] {
            v.exact(u64::from(slot.is_some()));
            if let Some((t, trigger)) = slot {
                v.time(t);
                exact_hash(v, trigger);
            }
        }
    }
}
