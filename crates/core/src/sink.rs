//! Where events go: the engine streams every event to a [`Sink`] as it happens and keeps no
//! history of its own.

use std::convert::Infallible;

use crate::cycle::Visitor;
use crate::event::{Event, EventKind};
use crate::time::SimTime;

/// Whether the run should go on after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep simulating.
    Continue,
    /// Stop the run after this event.
    Stop,
}

/// Receives timeline events in order.
pub trait Sink {
    /// What can go wrong while consuming an event (an I/O error for writers).
    type Error;

    /// Takes one event. Returning [`Flow::Stop`] ends the run early.
    ///
    /// # Errors
    /// Whatever the sink cannot do; the run stops and returns it.
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Self::Error>;

    /// Takes one event about a container, with the container's engine index in the
    /// simulation's pod ([`PodSpec::container`](crate::PodSpec::container): init containers
    /// first). The engine sends probe runs this way; a sink that keeps something per container
    /// may find it by the index instead of by the name, trusting that an index names the same
    /// container for the whole run. The default is [`Sink::event`].
    ///
    /// # Errors
    /// As [`Sink::event`].
    #[inline]
    fn container_event(
        &mut self,
        event: &Event<'_>,
        container: usize,
    ) -> Result<Flow, Self::Error> {
        let _ = container;
        self.event(event)
    }

    /// A pod sync ended at `at` (the next sync waits for a relist strictly after it, R4, and
    /// the next periodic resync counts from it, R6). Not an event of the timeline: it is only
    /// for sinks that reason about the pod worker's pacing (the analysis's change trials). The
    /// default does nothing.
    #[inline]
    fn sync_ended(&mut self, at: SimTime) {
        let _ = at;
    }

    /// The sink's part in steady-state fast-forward ([`cycle`](crate::cycle)), if it takes
    /// part: a sink that can be moved on by whole cycles without seeing their events implements
    /// [`FastForward`] and returns itself here. The default, `None`, keeps the run step by step
    /// (a listing must print every event).
    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        None
    }
}

/// Opt-in acceleration for a [`Sink`]: what steady-state fast-forward needs to move the sink on
/// by whole cycles ([`cycle`](crate::cycle)). Offered through [`Sink::fast_forward`]; it
/// changes nothing a sink is told, only how many of the repeated events it is told one by one.
pub trait FastForward {
    /// Walks the sink's own state with `v` and returns `true`, or returns `false` when the sink
    /// cannot be moved on by whole cycles after all (a wrapper whose inner sink cannot). A sink
    /// that returns `true` promises that its state after a cycle of events is its state before
    /// it, moved as the walk's tags say; every value that a cycle changes is visited.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool;

    /// The earliest instant at or after `from` at which the sink starts treating events
    /// differently (an `at:` check falls due, a counting window opens or closes); a jump never
    /// spans one. `SimTime::MAX` when there is none (the default).
    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        let _ = from;
        SimTime::MAX
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    type Error = S::Error;
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Self::Error> {
        (**self).event(event)
    }
    #[inline]
    fn container_event(
        &mut self,
        event: &Event<'_>,
        container: usize,
    ) -> Result<Flow, Self::Error> {
        (**self).container_event(event, container)
    }
    #[inline]
    fn sync_ended(&mut self, at: SimTime) {
        (**self).sync_ended(at);
    }
    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        (**self).fast_forward()
    }
}

/// One event, owned and rendered: what [`VecSink`] keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// When.
    pub t: SimTime,
    /// The JSON `kind`.
    pub kind: &'static str,
    /// The container, if the event is about one.
    pub container: Option<String>,
    /// The event in the timeline's words ([`EventKind::describe`], instants in seconds).
    pub text: String,
}

impl Record {
    /// Renders an event in the words the timelines print.
    #[must_use]
    pub fn of(event: &Event<'_>) -> Record {
        let mut text = String::new();
        // Writing to a `String` with `seconds` cannot fail.
        let _ = event.kind.describe(&mut text, &crate::event::seconds);
        Record {
            t: event.t,
            kind: event.kind.name(),
            container: event.kind.container().map(str::to_owned),
            text,
        }
    }
}

/// Keeps every event as a [`Record`] (for tests and small runs; it grows with the horizon).
#[derive(Clone, Debug, Default)]
pub struct VecSink {
    /// The events so far.
    pub records: Vec<Record>,
}

impl VecSink {
    /// The records of one kind.
    pub fn of_kind<'s>(&'s self, kind: &'s str) -> impl Iterator<Item = &'s Record> + 's {
        self.records.iter().filter(move |r| r.kind == kind)
    }
}

impl Sink for VecSink {
    type Error = Infallible;
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        self.records.push(Record::of(event));
        Ok(Flow::Continue)
    }
}

/// Counts events per container and kind without keeping them; memory does not grow with the
/// horizon and counting allocates only when a new container name is first seen.
#[derive(Clone, Debug, Default)]
pub struct CountSink {
    /// Per container (`""` for pod-level events): counts indexed like [`EventKind::NAMES`].
    pub per_container: Vec<(String, [u64; EventKind::NAMES.len()])>,
    /// Probe executions (all containers).
    pub probes: u64,
    /// All events.
    pub total: u64,
    /// Slots by the address of the container name: events borrow names from one pod spec, so
    /// an address match skips the search by name.
    slots: NameSlots,
}

impl CountSink {
    /// The count of one kind for one container (`""` for pod-level events).
    #[must_use]
    pub fn count(&self, container: &str, kind: &str) -> u64 {
        let Some(k) = EventKind::NAMES.iter().position(|n| *n == kind) else {
            return 0;
        };
        self.per_container
            .iter()
            .find(|(c, _)| c == container)
            .map_or(0, |(_, counts)| counts[k])
    }
}

impl CountSink {
    /// The entry of `container` in `per_container`, added at its first event; `index` is its
    /// engine index when the event came with one.
    fn entry(&mut self, index: Option<usize>, container: &str) -> usize {
        self.slots.slot_at(
            index,
            container,
            &mut self.per_container,
            |names, i| names[i].0 == container,
            |names| match names.iter().position(|(c, _)| c == container) {
                Some(i) => i,
                None => {
                    names.push((container.to_owned(), [0; EventKind::NAMES.len()]));
                    names.len() - 1
                }
            },
        )
    }
}

impl CountSink {
    /// Counts one event, of the container at `index` when the engine said which.
    #[inline]
    fn add(&mut self, event: &Event<'_>, index: Option<usize>) {
        self.total += 1;
        if matches!(event.kind, EventKind::Probe { .. }) {
            self.probes += 1;
        }
        let slot = match index.and_then(|i| self.slots.known(i)) {
            Some(slot) => slot,
            None => self.entry(index, event.kind.container().unwrap_or("")),
        };
        self.per_container[slot].1[event.kind.index()] += 1;
    }
}

impl Sink for CountSink {
    type Error = Infallible;
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        self.add(event, None);
        Ok(Flow::Continue)
    }

    #[inline]
    fn container_event(&mut self, event: &Event<'_>, container: usize) -> Result<Flow, Infallible> {
        self.add(event, Some(container));
        Ok(Flow::Continue)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl FastForward for CountSink {
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        v.exact(self.per_container.len() as u64);
        for (_, counts) in &mut self.per_container {
            for n in counts {
                v.count(n, None, u64::MAX);
            }
        }
        v.count(&mut self.probes, None, u64::MAX);
        v.count(&mut self.total, None, u64::MAX);
        true
    }
}

/// Finds a sink's slot for a container from the address of the name an event borrows.
///
/// The engine's events borrow container names from its one pod spec, so the same container
/// always comes with the same address: a binary search over the addresses seen, then one
/// comparison that confirms the name, replaces a search by name over every container (which
/// made a sink's cost per event grow with the number of containers). A name at an unknown
/// address takes the slow path once. The table is bounded: addresses beyond a few per slot are
/// not remembered.
#[derive(Clone, Debug, Default)]
pub struct NameSlots {
    /// `(address, length, slot)`, sorted.
    by_addr: Vec<(usize, usize, usize)>,
    /// Recent hits `(address, length, slot)` by a hash of the address, tried first: a pod of
    /// a few containers finds each of them here without the binary search.
    recent: [(usize, usize, usize); RECENT],
    /// Per engine index ([`Sink::container_event`]), its slot once an event named it
    /// ([`UNKNOWN`] before).
    by_index: Vec<usize>,
}

/// [`NameSlots::by_index`] for an index not seen yet.
const UNKNOWN: usize = usize::MAX;

/// Entries of [`NameSlots::recent`] (a power of two).
const RECENT: usize = 16;

/// Where an address goes in [`NameSlots::recent`] (names are separate allocations, so the
/// low bits below the allocator's alignment say little).
fn recent_index(addr: usize) -> usize {
    ((addr >> 4) ^ (addr >> 9)) & (RECENT - 1)
}

impl NameSlots {
    /// The slot of the container at engine index `index` ([`Sink::container_event`]), if an
    /// event with that index was looked up before ([`NameSlots::slot_at`]): an index names the
    /// same container for the whole run.
    #[inline]
    #[must_use]
    pub fn known(&self, index: usize) -> Option<usize> {
        match self.by_index.get(index) {
            Some(&s) if s != UNKNOWN => Some(s),
            _ => None,
        }
    }

    /// [`NameSlots::slot`] for an event that came with the engine index of its container, if it
    /// did: an index seen before gives its slot ([`NameSlots::known`]), a new one is found by
    /// name and kept. The table is about as long as the slots: an index far past them is looked
    /// up by name every time instead.
    pub fn slot_at<T: ?Sized>(
        &mut self,
        index: Option<usize>,
        name: &str,
        table: &mut T,
        is: impl Fn(&T, usize) -> bool,
        search: impl FnOnce(&mut T) -> usize,
    ) -> usize {
        let Some(index) = index else {
            return self.slot(name, table, is, search);
        };
        if let Some(slot) = self.known(index) {
            return slot;
        }
        let slot = self.slot(name, table, is, search);
        if index < 4 * (slot + 1) + 64 {
            if self.by_index.len() <= index {
                self.by_index.resize(index + 1, UNKNOWN);
            }
            self.by_index[index] = slot;
        }
        slot
    }

    /// The slot of `name` in `table`. `is` confirms that slot `i` holds `name`; `search` finds
    /// (or adds) the slot by name when the address is new or stale.
    pub fn slot<T: ?Sized>(
        &mut self,
        name: &str,
        table: &mut T,
        is: impl Fn(&T, usize) -> bool,
        search: impl FnOnce(&mut T) -> usize,
    ) -> usize {
        let id = (name.as_ptr() as usize, name.len());
        let r = recent_index(id.0);
        let (a, l, slot) = self.recent[r];
        if (a, l) == id && is(table, slot) {
            return slot;
        }
        let found = self.by_addr.binary_search_by(|&(a, l, _)| (a, l).cmp(&id));
        if let Ok(i) = found {
            let slot = self.by_addr[i].2;
            if is(table, slot) {
                self.recent[r] = (id.0, id.1, slot);
                return slot;
            }
        }
        let slot = search(table);
        match found {
            Ok(i) => self.by_addr[i].2 = slot,
            Err(i) if self.by_addr.len() < 4 * (slot + 1) + 64 => {
                self.by_addr.insert(i, (id.0, id.1, slot));
            }
            Err(_) => {}
        }
        self.recent[r] = (id.0, id.1, slot);
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_names_not_addresses() {
        // Two different allocations of one name count together; a new name gets its own row.
        let mut sink = CountSink::default();
        let names = ["a".to_owned(), "a".to_owned(), "b".to_owned()];
        for name in names.iter().chain(&names) {
            let _ = sink.event(&Event {
                t: SimTime::ZERO,
                kind: EventKind::Ready {
                    container: name,
                    ready: true,
                },
            });
        }
        assert_eq!(sink.count("a", "ready"), 4);
        assert_eq!(sink.count("b", "ready"), 2);
        assert_eq!(sink.per_container.len(), 2);
    }

    #[test]
    fn many_containers_each_find_their_own_slot() {
        // More names than recent entries, looked up in turns: every lookup lands on the
        // name's own slot, through the recent entries, the search, or a collision between
        // them.
        let names: Vec<String> = (0..100).map(|i| format!("container-{i}")).collect();
        let mut table: Vec<String> = Vec::new();
        let mut slots = NameSlots::default();
        for round in 0..3 {
            for (i, name) in names.iter().enumerate().rev().skip(round) {
                let slot = slots.slot(
                    name,
                    &mut table,
                    |t, s| t[s] == *name,
                    |t| match t.iter().position(|n| n == name) {
                        Some(s) => s,
                        None => {
                            t.push(name.clone());
                            t.len() - 1
                        }
                    },
                );
                assert_eq!(table[slot], *name, "name {i}, round {round}");
            }
        }
        assert_eq!(table.len(), names.len());
    }
}
