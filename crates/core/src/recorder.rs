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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::event::{Event, EventKind, EventType, KubeEvent, Message, Recorded};
use crate::sink::{Flow, Sink};
use crate::time::{SimDuration, SimTime};

/// Distinct messages per group before events are combined (`defaultAggregateMaxEvents`).
const AGGREGATE_MAX_EVENTS: usize = 10;
/// How long an aggregation group remembers its messages (`defaultAggregateIntervalInSeconds`).
const AGGREGATE_INTERVAL: SimDuration = SimDuration::from_secs(600);
/// Spam filter burst (`defaultSpamBurst`).
const SPAM_BURST: u64 = 25;
/// Spam filter refill: one token per this long (`defaultSpamQPS` = 1/300).
const SPAM_REFILL: SimDuration = SimDuration::from_secs(300);

#[derive(Debug, Default)]
struct Group {
    messages: BTreeSet<String>,
    last: Option<SimTime>,
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
#[derive(Debug)]
pub struct Recorder<S> {
    inner: S,
    spam_by_type: bool,
    groups: BTreeMap<(EventType, &'static str), Group>,
    observed: BTreeMap<String, Observation>,
    buckets: [Option<Bucket>; 2],
    key: String,
    message: String,
}

impl<S> Recorder<S> {
    /// Wraps `inner`. `spam_by_type` selects the ≥1.32 spam key, which includes the event type
    /// (see [`Profile::event_spam_key_has_type`](crate::profile::Profile::event_spam_key_has_type)).
    pub fn new(inner: S, spam_by_type: bool) -> Recorder<S> {
        Recorder {
            inner,
            spam_by_type,
            groups: BTreeMap::new(),
            observed: BTreeMap::new(),
            buckets: [None, None],
            key: String::new(),
            message: String::new(),
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
        self.groups.clear();
        self.observed.clear();
        self.buckets = [None, None];
    }

    fn correlate(&mut self, t: SimTime, e: &KubeEvent<'_>) -> Recorded {
        self.message.clear();
        let _ = write!(self.message, "{}", e.message);
        // 1. Aggregation by (type, reason); the field path is not part of the key.
        let group = self.groups.entry((e.event_type, e.reason)).or_default();
        if group
            .last
            .is_some_and(|last| t.saturating_since(last) > AGGREGATE_INTERVAL)
        {
            group.messages.clear();
        }
        if !group.messages.contains(self.message.as_str()) {
            group.messages.insert(self.message.clone());
        }
        group.last = Some(t);
        let combined = group.messages.len() >= AGGREGATE_MAX_EVENTS;
        if combined {
            group.messages.pop_first();
        }
        // 2. Deduplication on the full key (or the group key for combined events).
        self.key.clear();
        let _ = write!(self.key, "{}\u{1}{}\u{1}", e.event_type.as_str(), e.reason);
        if !combined {
            let _ = write!(self.key, "{}\u{1}{}", e.object, self.message);
        }
        let observation = match self.observed.get_mut(self.key.as_str()) {
            Some(o) => {
                o.count = o.count.saturating_add(1);
                *o
            }
            None => {
                let o = Observation { count: 1, first: t };
                self.observed.insert(self.key.clone(), o);
                o
            }
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

impl<S: Sink> Sink for Recorder<S> {
    type Error = S::Error;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, S::Error> {
        let EventKind::Event(e) = event.kind else {
            if let EventKind::KubeletRestart = event.kind {
                self.forget();
            }
            return self.inner.event(event);
        };
        let recorded = self.correlate(event.t, &e);
        let message = if recorded.combined {
            Message::Combined(&e.message)
        } else {
            e.message
        };
        let annotated = KubeEvent {
            recorded: Some(recorded),
            message,
            ..e
        };
        self.inner.event(&Event {
            t: event.t,
            kind: EventKind::Event(annotated),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{KillMessage, ObjectRef};
    use crate::sink::VecSink;

    fn killing(t: u64, container: &str, sink: &mut Recorder<VecSink>) {
        let e = KubeEvent {
            event_type: EventType::Normal,
            reason: "Killing",
            object: ObjectRef::Container(container),
            message: Message::Killing {
                container,
                kind: KillMessage::Stopping,
            },
            recorded: None,
        };
        let _ = sink.event(&Event {
            t: SimTime::from_secs(t),
            kind: EventKind::Event(e),
        });
    }

    #[test]
    fn repeats_are_counted_from_the_first_occurrence() {
        // R54 step 2.
        let mut r = Recorder::new(VecSink::default(), true);
        killing(10, "a", &mut r);
        killing(20, "a", &mut r);
        let texts: Vec<_> = r.into_inner().records.into_iter().map(|x| x.text).collect();
        assert_eq!(
            texts[1],
            "Normal Killing: Stopping container a (x2 since 10s)"
        );
    }

    #[test]
    fn a_kubelet_restart_starts_a_new_correlator() {
        // R54: the correlator's caches and buckets are in the kubelet's memory.
        let mut r = Recorder::new(VecSink::default(), true);
        for i in 0..30 {
            killing(i, "a", &mut r);
        }
        let _ = r.event(&Event {
            t: SimTime::from_secs(40),
            kind: EventKind::KubeletRestart,
        });
        killing(41, "a", &mut r);
        let texts: Vec<_> = r.into_inner().records.into_iter().map(|x| x.text).collect();
        assert!(texts[29].ends_with("(x30 since 0s, not sent)"), "{texts:?}");
        assert_eq!(texts[31], "Normal Killing: Stopping container a");
    }

    #[test]
    fn the_burst_of_25_is_spent_then_one_event_per_300_seconds_gets_through() {
        // R54 step 3.
        let mut r = Recorder::new(VecSink::default(), true);
        for i in 0..30 {
            killing(i, "a", &mut r);
        }
        killing(329, "a", &mut r);
        let texts: Vec<_> = r.into_inner().records.into_iter().map(|x| x.text).collect();
        assert!(texts[24].ends_with("(x25 since 0s)"));
        assert!(texts[25].ends_with("(x26 since 0s, not sent)"));
        // 25 tokens at 0; 29 s of refill is not enough; at 329 s more than 300 s have passed
        // since the bucket was last full.
        assert!(texts[30].ends_with("(x31 since 0s)"), "{}", texts[30]);
    }

    #[test]
    fn ten_distinct_messages_in_one_group_become_combined_events() {
        // R54 step 1, R55.
        let mut r = Recorder::new(VecSink::default(), true);
        let names: Vec<String> = (0..11).map(|i| format!("c{i}")).collect();
        for (i, n) in names.iter().enumerate() {
            killing(i as u64, n, &mut r);
        }
        let texts: Vec<_> = r.into_inner().records.into_iter().map(|x| x.text).collect();
        assert_eq!(texts[8], "Normal Killing: Stopping container c8");
        assert_eq!(
            texts[9],
            "Normal Killing: (combined from similar events): Stopping container c9"
        );
        assert_eq!(
            texts[10],
            "Normal Killing: (combined from similar events): Stopping container c10 (x2 since 9s)"
        );
    }
}
