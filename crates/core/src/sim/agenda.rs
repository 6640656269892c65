//! The probe workers' agenda: which worker is due next, in logarithmic time.
//!
//! A tournament tree over the workers' deadline keys: each leaf is a worker, each inner node the
//! winner of its two children, the root the worker that runs next. Changing one worker's key
//! replays only the matches on its path to the root, so a pod with a hundred containers costs a
//! few comparisons more per probe run than a pod with one, not a scan of every deadline.
//!
//! The order is the one of contract §2.3.1: the earliest (time, class) first; ties in creation
//! order (P6), except that a container's startup tick yields to the other ticks of the same
//! container at the same instant (ticks due together read the status from before any of them
//! ran). Workers of one container are created next to each other, so the tie order is
//! (the container's first worker, "a startup tick", worker index): a total order, which is what
//! a tournament needs.

use super::{Class, Key, Worker};
use crate::spec::ProbeKind;

/// An empty leaf: after every worker, whatever its key.
const EMPTY: u128 = u128::MAX;

/// See the module docs.
#[derive(Clone, Debug)]
pub(super) struct Agenda {
    /// Each worker's current key.
    keys: Vec<Key>,
    /// The fixed part of each worker's tie order: its container's first worker from bit 33, its
    /// own index in the low 32 bits (bit 32 says "a startup tick").
    ties: Vec<u64>,
    /// Whether the worker is a startup worker.
    startup: Vec<bool>,
    /// Leaves at `leaves + w`, inner nodes at `1..leaves`. A node holds its winner's key in the
    /// high 64 bits and its tie order (which ends in the worker's index) in the low 64, so a
    /// match is one integer `min`.
    tree: Vec<u128>,
    leaves: usize,
}

impl Agenda {
    /// An agenda for these workers, every key [`Key::NEVER`].
    pub(super) fn new(workers: &[Worker]) -> Agenda {
        let mut agenda = Agenda {
            keys: Vec::with_capacity(workers.len()),
            ties: Vec::with_capacity(workers.len()),
            startup: Vec::with_capacity(workers.len()),
            tree: Vec::new(),
            leaves: 0,
        };
        let mut first: Vec<Option<usize>> = Vec::new();
        for (i, w) in workers.iter().enumerate() {
            if first.len() <= w.container {
                first.resize(w.container + 1, None);
            }
            let f = *first[w.container].get_or_insert(i);
            agenda.add(f, w.kind);
        }
        agenda.rebuild();
        agenda
    }

    /// Adds a worker whose container's first worker is `first`.
    fn add(&mut self, first: usize, kind: ProbeKind) {
        let index = self.keys.len();
        self.keys.push(Key::NEVER);
        self.ties
            .push(((first as u64) << 33) | (index as u64 & 0xffff_ffff));
        self.startup.push(kind == ProbeKind::Startup);
    }

    /// Appends a worker (tests build fake workers this way); `workers` already holds it.
    #[cfg(test)]
    pub(super) fn push(&mut self, workers: &[Worker]) {
        let index = self.keys.len();
        if let Some(w) = workers.get(index) {
            let first = workers
                .iter()
                .position(|x| x.container == w.container)
                .unwrap_or(index);
            self.add(first, w.kind);
            self.rebuild();
        }
    }

    fn rebuild(&mut self) {
        self.leaves = self.keys.len().next_power_of_two().max(1);
        self.tree = vec![EMPTY; 2 * self.leaves];
        for w in 0..self.keys.len() {
            self.tree[self.leaves + w] = self.node(w);
        }
        for i in (1..self.leaves).rev() {
            self.tree[i] = self.tree[2 * i].min(self.tree[2 * i + 1]);
        }
    }

    /// Worker `w`'s key.
    pub(super) fn key(&self, w: usize) -> Key {
        self.keys[w]
    }

    /// Sets worker `w`'s key and replays its matches, up to the first that keeps its winner.
    pub(super) fn set(&mut self, w: usize, key: Key) {
        if self.keys[w] == key {
            return;
        }
        self.keys[w] = key;
        let mut i = self.leaves + w;
        self.tree[i] = self.node(w);
        while i > 1 {
            i /= 2;
            let winner = self.tree[2 * i].min(self.tree[2 * i + 1]);
            if self.tree[i] == winner {
                break;
            }
            self.tree[i] = winner;
        }
    }

    /// The worker due first and its key ([`Key::NEVER`] when none is due).
    pub(super) fn first(&self) -> (Key, usize) {
        match self.tree[1] {
            EMPTY => (Key::NEVER, 0),
            #[expect(clippy::cast_possible_truncation, reason = "the fields of a node")]
            v => (Key((v >> 64) as u64), (v as u32) as usize),
        }
    }

    /// Worker `w`'s node: its key, then its tie order.
    fn node(&self, w: usize) -> u128 {
        let key = self.keys[w];
        let yields = self.startup[w] && key.class() == Class::Tick as u64;
        (u128::from(key.0) << 64) | u128::from(self.ties[w] | (u64::from(yields) << 32))
    }
}

#[cfg(test)]
mod tests {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    use super::*;
    use crate::time::{SimDuration, SimTime};

    /// The agenda's first worker as the former linear scan chose it (contract §2.3.1, P6).
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
        // Contract §2.3.1: same-instant ticks, a startup tick after its container's other ticks.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for containers in [1usize, 2, 3, 5, 17] {
            let mut workers = Vec::new();
            for c in 0..containers {
                for kind in ProbeKind::ALL {
                    if rng.next_u32() % 4 != 0 {
                        workers.push(Worker::idle(c, kind, SimDuration::from_secs(1)));
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
                agenda.set(w, key);
                let (k, first) = agenda.first();
                let (sk, sfirst) = scan(&workers, &keys);
                assert_eq!(k, sk);
                if sk != Key::NEVER {
                    assert_eq!(first, sfirst, "keys {keys:?}");
                }
            }
        }
    }
}
