//! The probe workers' agenda: which worker is due next, in logarithmic time.
//!
//! A tournament tree over the workers' deadline keys: each leaf is a worker, each inner node the
//! winner of its four children, the root the worker that runs next. Changing one worker's key
//! replays only the matches on its path to the root, so a pod with a hundred containers costs a
//! few comparisons more per probe run than a pod with one, not a scan of every deadline.
//!
//! The order is the one of docs/semantics.md#order: the earliest (time, class) first; ties in
//! creation
//! order (P6), except that a container's startup tick yields to the other ticks of the same
//! container at the same instant (ticks due together read the status from before any of them
//! ran). Workers of one container are created next to each other, so the tie order is
//! (the container's first worker, "a startup tick", worker index): a total order, which is what
//! a tournament needs.

use super::{ContainerId, Worker, WorkerId};
use crate::spec::ProbeKind;
use crate::time::{SimDuration, SimTime};

/// The agenda's classes, in the order they run at one instant (docs/semantics.md#order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    Relist = 0,
    Runtime = 1,
    Sync = 2,
    Tick = 3,
    Wake = 4,
    Completion = 5,
    /// Probe result updates reach the pod worker after every probe of their instant (R63,
    /// docs/semantics.md#one-sync).
    Update = 6,
}

/// A deadline key: time in the high bits, class in the low three, so one integer comparison
/// orders (time, class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Key(u64);

impl Key {
    pub(super) const NEVER: Key = Key(u64::MAX);

    pub(super) fn new(at: SimTime, class: Class) -> Key {
        Key(at
            .as_millis()
            .saturating_mul(8)
            .saturating_add(class as u64))
    }

    pub(super) fn at(self) -> SimTime {
        SimTime::from_millis(self.0 / 8)
    }

    pub(super) fn class(self) -> u64 {
        self.0 % 8
    }

    /// The same key `by` later (fast-forward moves the clock by whole cycles).
    pub(super) fn later_by(self, by: SimDuration) -> Key {
        Key(self.0.saturating_add(by.as_millis().saturating_mul(8)))
    }

    /// A kubelet-wide item's place among the agenda's nodes: before every worker at its key.
    pub(super) fn node(self) -> u128 {
        u128::from(self.0) << 64
    }

    /// The first place among the agenda's nodes after every item at this key.
    pub(super) fn node_after(self) -> u128 {
        u128::from(self.0.saturating_add(1)) << 64
    }

    /// The key of an agenda node.
    pub(super) fn of_node(node: u128) -> Key {
        Key((node >> 64) as u64)
    }

    /// The node of this key with the tie order of `node` (its low half: the same worker).
    pub(super) fn with_tie_of(self, node: u128) -> u128 {
        self.node() | (node & u128::from(u64::MAX))
    }
}

pub(super) fn key_of(at: Option<SimTime>, class: Class) -> Key {
    at.map_or(Key::NEVER, |t| Key::new(t, class))
}

/// Which agenda item is due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    Idle,
    Create,
    Relist,
    Exit(ContainerId),
    PullEnd,
    SyncDue,
    Requeue,
    Delete,
    KubeletRestart,
    /// The first of the probe result updates waiting for the pod worker (R1, R2).
    ProbeUpdate,
    Worker(WorkerId),
}

/// An empty leaf: after every worker, whatever its key.
const EMPTY: u128 = u128::MAX;

/// Bit 32 of a tie order: "a startup tick" (kept in a node only while its key is a tick).
const STARTUP_TICK: u64 = 1 << 32;

/// Children per inner node: a match is among four, so a pod of nine workers has two levels of
/// matches above its leaves, and one of 7,500 has seven.
const ARITY: usize = 4;

/// See the module docs.
#[derive(Clone, Debug)]
pub(super) struct Agenda {
    /// The fixed part of each worker's tie order: its container's first worker from bit 33, its
    /// own index in the low 32 bits, and bit 32 set for a startup worker.
    ties: Vec<u64>,
    /// The tree as a flat array: the root at 0, the children of node `p` at `4p + 1 ..= 4p + 4`
    /// (next to each other, so a match reads one slice), the leaves from `first_leaf` on. A
    /// node holds its winner's key in the high 64 bits and its tie order (which ends in the
    /// worker's index) in the low 64, so a match is an integer `min`; a leaf is its worker's
    /// key, which is why no separate list of keys is kept.
    tree: Vec<u128>,
    first_leaf: usize,
}

impl Agenda {
    /// An agenda for these workers, every key [`Key::NEVER`].
    pub(super) fn new(workers: &[Worker]) -> Agenda {
        let mut agenda = Agenda {
            ties: Vec::with_capacity(workers.len()),
            tree: Vec::new(),
            first_leaf: 0,
        };
        let mut first: Vec<Option<usize>> = Vec::new();
        for (i, w) in workers.iter().enumerate() {
            let c = w.container.index();
            if first.len() <= c {
                first.resize(c + 1, None);
            }
            let f = *first[c].get_or_insert(i);
            agenda.add(f, w.kind);
        }
        agenda.rebuild();
        agenda
    }

    /// Adds a worker whose container's first worker is `first`.
    fn add(&mut self, first: usize, kind: ProbeKind) {
        let index = self.ties.len();
        let startup = if kind == ProbeKind::Startup {
            STARTUP_TICK
        } else {
            0
        };
        self.ties
            .push(((first as u64) << 33) | startup | (index as u64 & 0xffff_ffff));
    }

    /// Appends a worker (tests build fake workers this way); `workers` already holds it.
    #[cfg(test)]
    pub(super) fn push(&mut self, workers: &[Worker]) {
        let index = self.ties.len();
        if let Some(w) = workers.get(index) {
            let first = workers
                .iter()
                .position(|x| x.container == w.container)
                .unwrap_or(index);
            let keys: Vec<Key> = (0..index).map(|i| self.key(WorkerId::new(i))).collect();
            self.add(first, w.kind);
            self.rebuild();
            for (i, key) in keys.into_iter().enumerate() {
                self.set(WorkerId::new(i), key);
            }
        }
    }

    /// Every worker at [`Key::NEVER`].
    fn rebuild(&mut self) {
        // The smallest power of four that holds every worker, and the inner nodes above it.
        let (mut leaves, mut inner) = (1, 0);
        while leaves < self.ties.len() {
            inner += leaves;
            leaves *= ARITY;
        }
        self.first_leaf = inner;
        self.tree = vec![EMPTY; inner + leaves];
        for w in 0..self.ties.len() {
            self.tree[inner + w] = self.node(WorkerId::new(w), Key::NEVER);
        }
        for p in (0..inner).rev() {
            self.tree[p] = Self::winner(&self.tree, p);
        }
    }

    /// The winner among node `p`'s children.
    #[inline(always)]
    fn winner(tree: &[u128], p: usize) -> u128 {
        let c = &tree[ARITY * p + 1..ARITY * p + 1 + ARITY];
        c[0].min(c[1]).min(c[2].min(c[3]))
    }

    /// Worker `w`'s key.
    #[cfg(test)]
    pub(super) fn key(&self, w: WorkerId) -> Key {
        Key((self.tree[self.first_leaf + w.index()] >> 64) as u64)
    }

    /// Sets worker `w`'s key and replays its matches, up to the first that keeps its winner.
    pub(super) fn set(&mut self, w: WorkerId, key: Key) {
        let v = self.node(w, key);
        let mut n = self.first_leaf + w.index();
        let tree = &mut self.tree[..];
        if tree[n] == v {
            return;
        }
        tree[n] = v;
        while n > 0 {
            let p = (n - 1) / ARITY;
            let winner = Self::winner(tree, p);
            if tree[p] == winner {
                return;
            }
            tree[p] = winner;
            n = p;
        }
    }

    /// The worker due first and its key ([`Key::NEVER`] when none is due).
    #[cfg(test)]
    pub(super) fn first(&self) -> (Key, WorkerId) {
        Self::decode(self.root())
    }

    /// The root node: the first worker's, [`EMPTY`] without workers.
    pub(super) fn root(&self) -> u128 {
        self.tree[0]
    }

    /// A node's key and worker.
    pub(super) fn decode(node: u128) -> (Key, WorkerId) {
        match node {
            EMPTY => (Key::NEVER, WorkerId::new(0)),
            #[expect(clippy::cast_possible_truncation, reason = "the fields of a node")]
            v => (Key((v >> 64) as u64), WorkerId::new((v as u32) as usize)),
        }
    }

    /// Worker `w`'s node for `key`: the key, then its tie order (a startup worker's "startup
    /// tick" bit only while the key is a tick).
    pub(super) fn node(&self, w: WorkerId, key: Key) -> u128 {
        let tie = if key.class() == Class::Tick as u64 {
            self.ties[w.index()]
        } else {
            self.ties[w.index()] & !STARTUP_TICK
        };
        (u128::from(key.0) << 64) | u128::from(tie)
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    use super::*;
    use crate::time::{SimDuration, SimTime};

    /// The agenda's first worker as the former linear scan chose it (docs/semantics.md#order, P6).
    fn scan(workers: &[Worker], keys: &[Key]) -> (Key, usize) {
        let (mut best_key, mut best) = (Key::NEVER, 0);
        for (w, key) in keys.iter().enumerate() {
            if *key < best_key
                || (*key == best_key
                    && best_key.class() == Class::Tick as u64
                    && workers[best].kind == ProbeKind::Startup
                    && workers[best].container == workers[w].container)
            {
                best_key = *key;
                best = w;
            }
        }
        (best_key, best)
    }

    #[test]
    fn the_tree_picks_what_a_scan_of_every_deadline_picks() {
        // docs/semantics.md#order: same-instant ticks, a startup tick after its container's
        // other ticks.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for containers in [1usize, 2, 3, 5, 17] {
            let mut workers = Vec::new();
            for c in 0..containers {
                for kind in ProbeKind::ALL {
                    if rng.next_u32() % 4 != 0 {
                        workers.push(Worker::idle(
                            ContainerId::new(c),
                            kind,
                            SimDuration::from_secs(1),
                        ));
                    }
                }
            }
            let mut agenda = Agenda::new(&workers);
            let mut keys = vec![Key::NEVER; workers.len()];
            for _ in 0..2000 {
                if workers.is_empty() {
                    break;
                }
                let w = (rng.next_u32() as usize) % workers.len();
                // Few distinct instants and classes, so that ties are common.
                let key = match rng.next_u32() % 8 {
                    0 => Key::NEVER,
                    r => {
                        let class = [Class::Tick, Class::Tick, Class::Wake, Class::Completion]
                            [(r % 4) as usize];
                        Key::new(SimTime::from_secs(u64::from(rng.next_u32() % 3)), class)
                    }
                };
                keys[w] = key;
                agenda.set(WorkerId::new(w), key);
                let (k, first) = agenda.first();
                let (sk, sfirst) = scan(&workers, &keys);
                assert_eq!(k, sk);
                if sk != Key::NEVER {
                    assert_eq!(first, WorkerId::new(sfirst), "keys {keys:?}");
                }
            }
        }
    }
}
