//! The kubelet's event recorder: what becomes of a Kubernetes Event on its way to the API server
//! (client-go `tools/record`, R54, R55).
//!
//! [`Recorder`] is a [`Sink`] adapter. It passes every timeline event through, and annotates each
//! Kubernetes Event with what the client-side correlator made of it ([`Recorded`]):
//!
//! 1. **aggregation**: events with the same type and reason (for this pod, whatever the
//!    container) whose messages differ are counted per group; once a group has seen ten distinct
//!    messages within ten minutes, further events of the group are sent as one combined event
//!    with the message `(combined from similar events): <message>`;
//! 2. **deduplication**: an event whose full key (object field path, type, reason, message, or
//!    the group for combined events) was seen before gets the previous count plus one and the
//!    first occurrence's timestamp;
//! 3. **spam filter**: a token bucket per pod (per pod and event type from 1.32), burst 25,
//!    refilled at one token per 300 s. An event without a token is not sent, but steps 1 and 2
//!    have counted it, so the next event that gets through carries the accumulated count.
//!
//! Where Go picks an arbitrary element (the aggregation set drops "any" message once it is
//! full), the recorder drops the smallest message in byte order. Memory is bounded by the number
//! of distinct messages, not by the horizon.
//!
//! Go keys all of this by strings it formats for every event. Here an event is looked up by its
//! structured parts (type, reason, object, the message's fields: see `key`), and a message is
//! rendered only the first time such a key is seen; from then on groups and counts refer to the
//! rendered message by an index, so every decision is the one the texts would give.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::cycle::{count32, exact_hash, Visitor};
use crate::event::{Event, EventKind, EventType, KubeEvent, Message, Recorded};
use crate::sink::{FastForward, Flow, Sink};
use crate::time::{SimDuration, SimTime};

pub mod key;

/// Distinct messages per group before events are combined (`defaultAggregateMaxEvents`).
const AGGREGATE_MAX_EVENTS: usize = 10;
/// How long an aggregation group remembers its messages (`defaultAggregateIntervalInSeconds`).
const AGGREGATE_INTERVAL: SimDuration = SimDuration::from_secs(600);
/// Spam filter burst (`defaultSpamBurst`).
const SPAM_BURST: u64 = 25;
/// Spam filter refill: one token per this long (`defaultSpamQPS` = 1/300).
const SPAM_REFILL: SimDuration = SimDuration::from_secs(300);

/// One aggregation group: the events of one type and reason (step 1).
#[derive(Debug)]
struct Group {
    /// The group's key (its place in [`Recorder::groups`] stands for it).
    event_type: EventType,
    /// The group's key, continued.
    reason: &'static str,
    /// The distinct messages seen within the interval, as indices into [`Keys::texts`], in no
    /// particular order; at most [`AGGREGATE_MAX_EVENTS`] − 1 between events.
    messages: Vec<u32>,
    /// When the group last saw an event.
    last: Option<SimTime>,
    /// The deduplication state of the group's combined events (their key is the group's).
    combined: Option<Observation>,
}

#[derive(Debug, Clone, Copy)]
struct Observation {
    count: u32,
    first: SimTime,
}

/// A token bucket that refills continuously (`golang.org/x/time/rate`), in exact integer units:
/// one token is `SPAM_REFILL` milliseconds' worth of refill.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    level: u64,
    at: SimTime,
}

impl Bucket {
    fn full(at: SimTime) -> Bucket {
        Bucket {
            level: SPAM_BURST * SPAM_REFILL.as_millis(),
            at,
        }
    }

    fn try_accept(&mut self, now: SimTime) -> bool {
        let cap = SPAM_BURST * SPAM_REFILL.as_millis();
        self.level = self
            .level
            .saturating_add(now.saturating_since(self.at).as_millis())
            .min(cap);
        self.at = now;
        if self.level >= SPAM_REFILL.as_millis() {
            self.level -= SPAM_REFILL.as_millis();
            true
        } else {
            false
        }
    }
}

/// Annotates Kubernetes Events with the event recorder's verdict; see the module docs.
///
/// Its state is what the correlator remembers (`groups`, `observed`, `buckets`: what a kubelet
/// restart forgets) and a cache (`keys`) that maps an event's structured parts to the group,
/// message and deduplication entry it belongs to. The cache only saves formatting: it grows with
/// the distinct events seen and never changes a verdict.
#[derive(Debug)]
pub struct Recorder<S> {
    inner: S,
    spam_by_type: bool,
    /// The aggregation groups, in the order they were first seen.
    groups: Vec<Group>,
    /// The deduplication state of uncombined events: by (object, type, reason, rendered
    /// message), indexed as [`Slots::observed`] says; `None` once a kubelet restart forgot it.
    observed: Vec<Option<Observation>>,
    /// The spam filter's buckets: the pod's (or its `Normal` events' from 1.32), then its
    /// `Warning` events' from 1.32.
    buckets: [Option<Bucket>; 2],
    /// Where each event's state lives.
    keys: Keys,
}

/// Where the state of one kind of event lives.
#[derive(Clone, Copy, Debug)]
struct Slots {
    /// Index into [`Recorder::groups`].
    group: u32,
    /// The rendered message, as an index into [`Keys::texts`].
    text: u32,
    /// Index into [`Recorder::observed`].
    observed: u32,
}

/// The recorder's cache: from an event's structured parts to its [`Slots`], and the rendered
/// messages, each once.
#[derive(Debug, Default)]
struct Keys {
    /// By the bytes of [`key::encode`].
    slots: BTreeMap<Box<[u8]>, Slots>,
    /// Every distinct rendered message, by index.
    texts: Vec<Box<str>>,
    /// The index of each rendered message.
    text_ids: BTreeMap<Box<str>, u32>,
    /// The index into [`Recorder::observed`] of each (group, rendered message, object key).
    observed_ids: BTreeMap<(u32, u32, Box<[u8]>), u32>,
    /// Scratch space for a key.
    scratch: Vec<u8>,
    /// Scratch space for a rendered message.
    message: String,
}

impl Keys {
    /// The slots of `e`, found from its structured parts; a new kind of event gets new slots
    /// (its message rendered once), and new groups and deduplication entries where its group
    /// or its rendered message are new.
    fn slots(
        &mut self,
        e: &KubeEvent<'_>,
        groups: &mut Vec<Group>,
        observed: &mut Vec<Option<Observation>>,
    ) -> Slots {
        key::encode(&mut self.scratch, e);
        if let Some(s) = self.slots.get(self.scratch.as_slice()) {
            return *s;
        }
        let group = match groups
            .iter()
            .position(|g| g.event_type == e.event_type && g.reason == e.reason)
        {
            Some(i) => i,
            None => {
                groups.push(Group {
                    event_type: e.event_type,
                    reason: e.reason,
                    messages: Vec::new(),
                    last: None,
                    combined: None,
                });
                groups.len() - 1
            }
        };
        self.message.clear();
        let _ = write!(self.message, "{}", e.message);
        let text = match self.text_ids.get(self.message.as_str()) {
            Some(&t) => t,
            None => {
                let t = index(self.texts.len());
                self.texts.push(self.message.as_str().into());
                self.text_ids.insert(self.message.as_str().into(), t);
                t
            }
        };
        let group = index(group);
        let mut object = Vec::new();
        key::object(&mut object, e.object);
        let entry = (group, text, object.into_boxed_slice());
        let observed = match self.observed_ids.get(&entry) {
            Some(&o) => o,
            None => {
                let o = index(observed.len());
                observed.push(None);
                self.observed_ids.insert(entry, o);
                o
            }
        };
        let s = Slots {
            group,
            text,
            observed,
        };
        self.slots.insert(self.scratch.as_slice().into(), s);
        s
    }
}

/// A table index. Tables grow by one entry per distinct event, far below `u32::MAX` in any run
/// that fits in memory.
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl<S> Recorder<S> {
    /// Wraps `inner`. `spam_by_type` selects the ≥1.32 spam key, which includes the event type
    /// (see [`Profile::event_spam_key_has_type`](crate::profile::Profile::event_spam_key_has_type)).
    pub fn new(inner: S, spam_by_type: bool) -> Recorder<S> {
        Recorder {
            inner,
            spam_by_type,
            groups: Vec::new(),
            observed: Vec::new(),
            buckets: [None, None],
            keys: Keys::default(),
        }
    }

    /// The wrapped sink.
    pub fn into_inner(self) -> S {
        self.inner
    }

    /// The wrapped sink, borrowed.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// A kubelet restart: the correlator lives in the kubelet process, so the new one starts
    /// with no groups, no counts and full buckets. Its events become new Event objects.
    fn forget(&mut self) {
        for g in &mut self.groups {
            g.messages.clear();
            g.last = None;
            g.combined = None;
        }
        self.observed.fill(None);
        self.buckets = [None, None];
    }

    fn correlate(&mut self, t: SimTime, e: &KubeEvent<'_>) -> Recorded {
        let slots = self.keys.slots(e, &mut self.groups, &mut self.observed);
        // 1. Aggregation by (type, reason); the field path is not part of the key.
        let group = &mut self.groups[slots.group as usize];
        if group
            .last
            .is_some_and(|last| t.saturating_since(last) > AGGREGATE_INTERVAL)
        {
            group.messages.clear();
        }
        if !group.messages.contains(&slots.text) {
            group.messages.push(slots.text);
        }
        group.last = Some(t);
        let combined = group.messages.len() >= AGGREGATE_MAX_EVENTS;
        if combined {
            // Go drops an arbitrary message; this drops the smallest in byte order.
            let texts = &self.keys.texts;
            if let Some((i, _)) = group
                .messages
                .iter()
                .enumerate()
                .min_by(|a, b| texts[*a.1 as usize].cmp(&texts[*b.1 as usize]))
            {
                group.messages.swap_remove(i);
            }
        }
        // 2. Deduplication on the full key (or the group key for combined events).
        let entry = if combined {
            &mut group.combined
        } else {
            &mut self.observed[slots.observed as usize]
        };
        let observation = match entry {
            Some(o) => {
                o.count = o.count.saturating_add(1);
                *o
            }
            None => *entry.insert(Observation { count: 1, first: t }),
        };
        // 3. The spam filter, per pod (and per type from 1.32).
        let slot = usize::from(self.spam_by_type && e.event_type == EventType::Warning);
        let bucket = self.buckets[slot].get_or_insert_with(|| Bucket::full(t));
        let sent = bucket.try_accept(t);
        Recorded {
            count: observation.count,
            first: observation.first,
            sent,
            combined,
        }
    }
}

impl<S: Sink> Recorder<S> {
    /// Passes `e` on with the recorder's verdict. Kept out of [`Sink::event`], so that passing
    /// every other event on costs a call and nothing more.
    #[inline(never)]
    fn annotate(&mut self, t: SimTime, e: &KubeEvent<'_>) -> Result<Flow, S::Error> {
        let recorded = self.correlate(t, e);
        let message = if recorded.combined {
            Message::Combined(&e.message)
        } else {
            e.message
        };
        let annotated = KubeEvent {
            recorded: Some(recorded),
            message,
            ..*e
        };
        self.inner.event(&Event {
            t,
            kind: EventKind::Event(annotated),
        })
    }
}

fn visit_observation(v: &mut dyn Visitor, o: &mut Option<Observation>) {
    v.exact(u64::from(o.is_some()));
    if let Some(o) = o {
        count32(v, &mut o.count, None);
        v.exact(o.first.as_millis());
    }
}

impl<S: Sink> Sink for Recorder<S> {
    type Error = S::Error;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, S::Error> {
        match &event.kind {
            EventKind::Event(e) => self.annotate(event.t, e),
            EventKind::KubeletRestart => {
                self.forget();
                self.inner.event(event)
            }
            _ => self.inner.event(event),
        }
    }

    fn container_event(&mut self, event: &Event<'_>, container: usize) -> Result<Flow, S::Error> {
        match &event.kind {
            EventKind::Event(_) | EventKind::KubeletRestart => self.event(event),
            _ => self.inner.container_event(event, container),
        }
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        self.inner.fast_forward()?;
        Some(self)
    }
}

impl<S: Sink> FastForward for Recorder<S> {
    /// Fast-forward: the correlator's state, then the wrapped sink's. A group remembers its
    /// messages only for [`AGGREGATE_INTERVAL`], so its last event compares only up to that
    /// age; counts are counts; a first timestamp never changes once set; a bucket's level is
    /// compared exactly and its last refill as a point on the clock. The key tables only ever
    /// grow, so their sizes say whether they are the same.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        let window = AGGREGATE_INTERVAL.saturating_add(SimDuration::from_millis(1));
        v.exact(self.groups.len() as u64);
        for g in &mut self.groups {
            exact_hash(v, &g.messages);
            v.exact(u64::from(g.last.is_some()));
            if let Some(t) = &mut g.last {
                v.past(t, window);
            }
            visit_observation(v, &mut g.combined);
        }
        v.exact(self.observed.len() as u64);
        for o in &mut self.observed {
            visit_observation(v, o);
        }
        for b in &mut self.buckets {
            v.exact(u64::from(b.is_some()));
            if let Some(b) = b {
                v.exact(b.level);
                v.time(&mut b.at);
            }
        }
        v.exact(self.keys.slots.len() as u64);
        v.exact(self.keys.texts.len() as u64);
        v.exact(self.keys.observed_ids.len() as u64);
        self.inner.fast_forward().is_some_and(|f| f.visit_cycle(v))
    }

    fn next_boundary(&mut self, from: SimTime) -> SimTime {
        self.inner
            .fast_forward()
            .map_or(SimTime::MAX, |f| f.next_boundary(from))
    }
}

#[cfg(test)]
mod tests;
