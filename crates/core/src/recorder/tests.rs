//! The recorder's verdicts (R54, R55), and the structured keys against a recorder keyed by
//! formatted strings.

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
        "Normal Killing: Stopping container a  [x2 since 10s]"
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
    assert!(
        texts[29].ends_with("  [x30 since 0s, not sent]"),
        "{texts:?}"
    );
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
    assert!(texts[24].ends_with("  [x25 since 0s]"));
    assert!(texts[25].ends_with("  [x26 since 0s, not sent]"));
    // 25 tokens at 0; 29 s of refill is not enough; at 329 s more than 300 s have passed
    // since the bucket was last full.
    assert!(texts[30].ends_with("  [x31 since 0s]"), "{}", texts[30]);
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
        "Normal Killing: (combined from similar events): Stopping container c10  [x2 since 9s]"
    );
}

/// A group's rendered messages and last event.
type StringGroup = (std::collections::BTreeSet<String>, Option<SimTime>);

/// The recorder as client-go writes it: every key a formatted string, the aggregation set a set
/// of rendered messages. The structured keys must give exactly its verdicts.
#[derive(Default)]
struct StringKeyed {
    groups: BTreeMap<(EventType, &'static str), StringGroup>,
    observed: BTreeMap<String, Observation>,
    buckets: [Option<Bucket>; 2],
}

impl StringKeyed {
    fn correlate(&mut self, t: SimTime, e: &KubeEvent<'_>, spam_by_type: bool) -> Recorded {
        let message = e.message.to_string();
        let (messages, last) = self.groups.entry((e.event_type, e.reason)).or_default();
        if last.is_some_and(|l| t.saturating_since(l) > AGGREGATE_INTERVAL) {
            messages.clear();
        }
        messages.insert(message.clone());
        *last = Some(t);
        let combined = messages.len() >= AGGREGATE_MAX_EVENTS;
        if combined {
            messages.pop_first();
        }
        let mut key = format!("{}\u{1}{}\u{1}", e.event_type.as_str(), e.reason);
        if !combined {
            let _ = write!(key, "{}\u{1}{message}", e.object);
        }
        let o = self
            .observed
            .entry(key)
            .and_modify(|o| o.count += 1)
            .or_insert(Observation { count: 1, first: t });
        let slot = usize::from(spam_by_type && e.event_type == EventType::Warning);
        let sent = self.buckets[slot]
            .get_or_insert_with(|| Bucket::full(t))
            .try_accept(t);
        Recorded {
            count: o.count,
            first: o.first,
            sent,
            combined,
        }
    }
}

/// Keeps the verdicts.
#[derive(Default)]
struct Verdicts(Vec<Recorded>);

impl Sink for Verdicts {
    type Error = core::convert::Infallible;
    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Self::Error> {
        if let EventKind::Event(e) = event.kind {
            self.0.extend(e.recorded);
        }
        Ok(Flow::Continue)
    }
}

#[test]
fn structured_keys_give_the_verdicts_of_formatted_keys() {
    // R54, R55: aggregation, deduplication and the spam filter decide on rendered texts. The
    // pool has parts that differ but render alike (the ≤1.25 BackOff message names no
    // container, two lifecycle wordings read the same, an empty output and an unprefixed
    // redirect body are both empty, a handler's text is rendered), objects that differ with
    // the same message, and more than ten messages in one group.
    use crate::event::{
        BackOffWording, LifecycleWording, OutputKind, PodName, ProbeOutput, PulledWording,
    };
    use crate::spec::{Handler, Port, ProbeKind, Scheme};
    let http = Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port: Port::Number(8080),
        path: "/healthz".to_owned(),
    };
    let tcp = Handler::TcpSocket {
        host: None,
        port: Port::Number(9000),
    };
    let pod = PodName {
        name: "kubia",
        namespace: "default",
        uid: "u",
    };
    let names: Vec<String> = (0..12).map(|i| format!("c{i}")).collect();
    let failed = |handler: &'static Handler, kind| Message::ProbeFailed {
        probe: ProbeKind::Liveness,
        output: ProbeOutput {
            handler,
            pod_ip: "10.0.0.1",
            kind,
            texts: None,
        },
    };
    let http: &'static Handler = Box::leak(Box::new(http));
    let tcp: &'static Handler = Box::leak(Box::new(tcp));
    let mut pool: Vec<(EventType, &'static str, ObjectRef<'_>, Message<'_>)> = Vec::new();
    for c in ["a", "b"] {
        let obj = ObjectRef::Container(c);
        for wording in [BackOffWording::Short, BackOffWording::WithPod] {
            pool.push((
                EventType::Warning,
                "BackOff",
                obj,
                Message::BackOff {
                    container: c,
                    pod,
                    wording,
                },
            ));
        }
        for wording in [
            LifecycleWording::Named,
            LifecycleWording::NamedColon,
            LifecycleWording::Plain,
        ] {
            pool.push((
                EventType::Normal,
                "Started",
                obj,
                Message::Started {
                    container: c,
                    wording,
                },
            ));
        }
        for kind in [
            OutputKind::Empty,
            OutputKind::HttpRedirect { prefixed: false },
            OutputKind::HttpStatus(500),
            OutputKind::HttpRefused,
        ] {
            pool.push((EventType::Warning, "Unhealthy", obj, failed(http, kind)));
        }
        pool.push((
            EventType::Warning,
            "Unhealthy",
            obj,
            failed(tcp, OutputKind::TcpRefused),
        ));
        // A kind that does not belong to the handler renders empty.
        pool.push((
            EventType::Warning,
            "Unhealthy",
            obj,
            failed(tcp, OutputKind::HttpRefused),
        ));
    }
    pool.push((
        EventType::Normal,
        "Started",
        ObjectRef::InitContainer("a"),
        Message::Started {
            container: "a",
            wording: LifecycleWording::Named,
        },
    ));
    pool.push((
        EventType::Normal,
        "Pulled",
        ObjectRef::Pod,
        Message::Pulled {
            image: "i",
            took: SimDuration::from_millis(1500),
            wording: PulledWording::Short,
        },
    ));
    for n in &names {
        pool.push((
            EventType::Normal,
            "Killing",
            ObjectRef::Container(n),
            Message::Killing {
                container: n,
                kind: KillMessage::Stopping,
            },
        ));
    }
    for seed in 0..8u64 {
        for spam_by_type in [false, true] {
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut next = |n: u64| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % n
            };
            let mut ours = Recorder::new(Verdicts::default(), spam_by_type);
            let mut theirs = StringKeyed::default();
            let mut want = Vec::new();
            let mut t = SimTime::ZERO;
            for _ in 0..3000 {
                // Mostly seconds apart, sometimes past the aggregation interval or the refill.
                let step = match next(50) {
                    0 => 700,
                    1 => 301,
                    _ => next(10),
                };
                t = t.saturating_add(SimDuration::from_secs(step));
                if next(200) == 0 {
                    let restart = Event {
                        t,
                        kind: EventKind::KubeletRestart,
                    };
                    let _ = ours.event(&restart);
                    theirs = StringKeyed::default();
                    continue;
                }
                // Favour a few members so that counts grow, but reach every one.
                let i = if next(2) == 0 {
                    next(4)
                } else {
                    next(pool.len() as u64)
                };
                let (event_type, reason, object, message) = pool[i as usize];
                let e = KubeEvent {
                    event_type,
                    reason,
                    object,
                    message,
                    recorded: None,
                };
                want.push(theirs.correlate(t, &e, spam_by_type));
                let _ = ours.event(&Event {
                    t,
                    kind: EventKind::Event(e),
                });
            }
            let got = ours.into_inner().0;
            assert_eq!(got.len(), want.len());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "seed {seed}, spam_by_type {spam_by_type}, event {k}");
            }
            assert!(
                want.iter().any(|r| r.combined),
                "the pool reaches combining"
            );
            assert!(
                want.iter().any(|r| !r.sent),
                "the pool reaches the spam filter"
            );
        }
    }
}
