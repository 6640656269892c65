//! The pod's Events as the API server holds them: what the kubelet's recorder sent (after
//! aggregation, dedup and the spam filter, R54, R55), plus the scheduler's `Scheduled` event,
//! minus what `--event-ttl` has expired.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use probesim_core::{EventType, KubeEvent, ObjectRef, PodSpec, SimDuration, SimTime};

/// `--event-ttl` of the API server (default 1 h): an Event object expires this long after its
/// last update (R53).
pub const EVENT_TTL: SimDuration = SimDuration::from_secs(3600);

/// The node the pod runs on, as `describe` names it: the model has one node, named as on
/// minikube, where the book's readers ran their pods.
pub const NODE_NAME: &str = "minikube";

/// Who reported an Event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reporter {
    /// The scheduler, through the `events.k8s.io` API: no `source`, no `firstTimestamp`, a
    /// `reportingController` of `default-scheduler` and an `eventTime`.
    Scheduler,
    /// The kubelet, through the legacy recorder: `source {component: kubelet, host: <node>}`.
    Kubelet,
}

/// One Event object on the API server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiEvent {
    /// Normal or Warning.
    pub event_type: EventType,
    /// `reason`.
    pub reason: &'static str,
    /// The involved object's `fieldPath` (empty for the pod itself).
    pub field_path: String,
    /// `message`, as last written.
    pub message: String,
    /// `count` (1 for the scheduler's event).
    pub count: u32,
    /// `firstTimestamp` (the scheduler's `eventTime`).
    pub first: SimTime,
    /// `lastTimestamp`: the last update.
    pub last: SimTime,
    /// Who reported it.
    pub reporter: Reporter,
}

/// The Events of one pod on the API server, fed with the recorder-annotated Kubernetes Events
/// of the timeline ([`EventStore::record`]).
///
/// Each sent event creates an object, or updates the object of its series: the recorder's
/// key (field path, type, reason and message, or the aggregation group for a combined event)
/// together with the series' first occurrence, so that a restarted kubelet, whose recorder
/// starts afresh, creates new objects. An event the spam filter held back never arrives; the
/// next one of its series that does carries the count that accumulated meanwhile.
#[derive(Clone, Debug, Default)]
pub struct EventStore {
    events: Vec<ApiEvent>,
    series: BTreeMap<(String, SimTime), usize>,
    key: String,
}

impl EventStore {
    /// The store of a pod just scheduled: it holds the scheduler's `Scheduled` event at the
    /// origin (`Successfully assigned <ns>/<pod> to minikube`).
    #[must_use]
    pub fn new(pod: &PodSpec) -> EventStore {
        let mut store = EventStore::default();
        store.events.push(ApiEvent {
            event_type: EventType::Normal,
            reason: "Scheduled",
            field_path: String::new(),
            message: format!(
                "Successfully assigned {}/{} to {NODE_NAME}",
                pod.namespace, pod.name
            ),
            count: 1,
            first: SimTime::ZERO,
            last: SimTime::ZERO,
            reporter: Reporter::Scheduler,
        });
        store
    }

    /// Takes one Kubernetes Event of the timeline at `t`. Without a recorder verdict
    /// (`recorded: None`) it counts as a first occurrence that was sent.
    pub fn record(&mut self, t: SimTime, e: &KubeEvent<'_>) {
        let (count, first, sent, combined) = match e.recorded {
            Some(r) => (r.count, r.first, r.sent, r.combined),
            None => (1, t, true, false),
        };
        if !sent {
            return;
        }
        let mut message = String::new();
        let _ = write!(message, "{}", e.message);
        self.key.clear();
        let _ = write!(self.key, "{}\u{1}{}\u{1}", e.event_type.as_str(), e.reason);
        if !combined {
            let _ = write!(self.key, "{}\u{1}{message}", e.object);
        }
        match self.series.get(&(self.key.clone(), first)) {
            Some(&i) => {
                let ev = &mut self.events[i];
                ev.count = count;
                ev.last = t;
                ev.message = message;
            }
            None => {
                self.series
                    .insert((self.key.clone(), first), self.events.len());
                self.events.push(ApiEvent {
                    event_type: e.event_type,
                    reason: e.reason,
                    field_path: object_path(e.object),
                    message,
                    count,
                    first,
                    last: t,
                    reporter: Reporter::Kubelet,
                });
            }
        }
    }

    /// Every object created so far, in creation order.
    #[must_use]
    pub fn all(&self) -> &[ApiEvent] {
        &self.events
    }

    /// The objects the API server still holds at `at` (created by then and updated less than
    /// [`EVENT_TTL`] before it), sorted as `kubectl describe` sorts them: by `lastTimestamp` in
    /// whole seconds, the scheduler's event (which has none) first, ties in creation order.
    #[must_use]
    pub fn at(&self, at: SimTime) -> Vec<&ApiEvent> {
        let mut live: Vec<&ApiEvent> = self
            .events
            .iter()
            .filter(|e| e.first <= at && at.saturating_since(e.last) < EVENT_TTL)
            .collect();
        live.sort_by_key(|e| match e.reporter {
            Reporter::Scheduler => None,
            Reporter::Kubelet => Some(e.last.whole_secs()),
        });
        live
    }
}

fn object_path(object: ObjectRef<'_>) -> String {
    object.to_string()
}

#[cfg(test)]
mod tests {
    use probesim_core::event::KillMessage;
    use probesim_core::{Message, Recorded};

    use super::*;
    use crate::fixtures::pod;

    fn killing(recorded: Option<Recorded>) -> KubeEvent<'static> {
        KubeEvent {
            event_type: EventType::Normal,
            reason: "Killing",
            object: ObjectRef::Container("kubia"),
            message: Message::Killing {
                container: "kubia",
                kind: KillMessage::Liveness { restart: true },
            },
            recorded,
        }
    }

    fn rec(count: u32, first: u64, sent: bool) -> Option<Recorded> {
        Some(Recorded {
            count,
            first: SimTime::from_secs(first),
            sent,
            combined: false,
        })
    }

    #[test]
    fn a_series_is_one_object_whose_count_and_last_timestamp_follow_the_sent_events() {
        // R54: dedup patches the object; a filtered event is not sent, the next one carries the
        // accumulated count.
        let mut store = EventStore::new(&pod());
        store.record(SimTime::from_secs(80), &killing(rec(1, 80, true)));
        store.record(SimTime::from_secs(190), &killing(rec(2, 80, true)));
        store.record(SimTime::from_secs(300), &killing(rec(3, 80, false)));
        let at = SimTime::from_secs(400);
        let live = store.at(at);
        assert_eq!(live.len(), 2);
        assert_eq!(live[0].reason, "Scheduled");
        assert_eq!(
            (live[1].count, live[1].first, live[1].last),
            (2, SimTime::from_secs(80), SimTime::from_secs(190))
        );
        store.record(SimTime::from_secs(410), &killing(rec(4, 80, true)));
        assert_eq!(store.at(SimTime::from_secs(420))[1].count, 4);
        // A restarted kubelet's recorder starts a new series: a new object.
        store.record(SimTime::from_secs(500), &killing(rec(1, 500, true)));
        assert_eq!(store.at(SimTime::from_secs(500)).len(), 3);
    }

    #[test]
    fn events_expire_an_hour_after_their_last_update() {
        // R53: --event-ttl 1h.
        let mut store = EventStore::new(&pod());
        store.record(SimTime::from_secs(80), &killing(rec(1, 80, true)));
        assert_eq!(store.at(SimTime::from_secs(3679)).len(), 1);
        assert_eq!(store.at(SimTime::from_secs(3599)).len(), 2);
        assert_eq!(store.at(SimTime::from_secs(3680)).len(), 0);
    }
}
