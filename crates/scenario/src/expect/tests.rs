//! Expectations checked over hand-made events and statuses.

use probesim_core::{ContainerStatus, Event, EventKind, SimTime, Sink, VecSink};

use super::*;
use crate::fixtures::{crash_looping, every_kind, http};

fn secs(s: u64) -> SimTime {
    SimTime::from_secs(s)
}

fn at(index: usize, t: u64, container: Option<&str>, checks: StateChecks) -> Expect {
    Expect {
        index,
        line: Some(10 + index),
        timings: None,
        expectation: Expectation::At {
            at: secs(t),
            container: container.map(str::to_owned),
            checks,
        },
    }
}

fn count(index: usize, filter: EventFilter, from: u64, to: u64, count: CountRange) -> Expect {
    Expect {
        index,
        line: None,
        timings: None,
        expectation: Expectation::Count {
            filter,
            between: (secs(from), secs(to)),
            count,
        },
    }
}

fn run(expects: &[Expect], events: &[Event<'_>], end: u64) -> (VecSink, Vec<String>) {
    let mut sink = ExpectSink::new(VecSink::default(), expects);
    for e in events {
        assert_eq!(sink.event(e), Ok(Flow::Continue));
    }
    let (inner, failures) = sink.finish(secs(end));
    (inner, failures.iter().map(ToString::to_string).collect())
}

#[test]
fn a_window_without_between_covers_the_whole_run() {
    let (handler, cs) = (http(), crash_looping(1, 110));
    let events = every_kind(&handler, &cs);
    let filter = EventFilter {
        kind: "kill".into(),
        ..EventFilter::default()
    };
    let whole = Expect {
        index: 0,
        line: None,
        timings: None,
        expectation: Expectation::Count {
            filter: filter.clone(),
            between: (SimTime::ZERO, SimTime::MAX),
            count: CountRange::exactly(1),
        },
    };
    let (_, failures) = run(std::slice::from_ref(&whole), &events, 200);
    assert_eq!(failures, Vec::<String>::new());
    let none = Expect {
        expectation: Expectation::Count {
            filter,
            between: (SimTime::ZERO, SimTime::MAX),
            count: CountRange::exactly(0),
        },
        ..whole
    };
    let (_, failures) = run(&[none], &events, 200);
    assert_eq!(
        failures,
        ["expect[0]: timeline {kind: kill} between 0s and 3m20s: count expected 0, saw 1"]
    );
}

#[test]
fn every_event_is_forwarded() {
    let (handler, cs) = (http(), crash_looping(1, 110));
    let events = every_kind(&handler, &cs);
    let (inner, failures) = run(&[], &events, 200);
    assert_eq!(inner.records.len(), events.len());
    assert!(failures.is_empty());
}

#[test]
fn state_before_any_event_is_container_creating() {
    let checks = StateChecks {
        restart_count: Some(CountRange::exactly(0)),
        ready: Some(false),
        started: Some(false),
        state: Some("waiting".into()),
        reason: Some("ContainerCreating".into()),
        phase: Some("Pending".into()),
        pod_ready: Some(false),
        ..StateChecks::default()
    };
    let (_, failures) = run(&[at(0, 0, Some("kubia"), checks)], &[], 10);
    assert_eq!(failures, Vec::<String>::new());
    // A failing state check says the state has been so since before any status.
    let running = StateChecks {
        state: Some("running".into()),
        ..StateChecks::default()
    };
    let (_, failures) = run(&[at(0, 5, Some("kubia"), running)], &[], 10);
    assert_eq!(
        failures,
        ["expect[0] (line 10): at 5s container kubia: state expected running, saw waiting (no status yet)"]
    );
}

#[test]
fn at_sees_every_event_at_its_instant_and_none_after() {
    let (handler, cs) = (http(), crash_looping(1, 110));
    let events = every_kind(&handler, &cs);
    let expects = [
        // At 110 the exit and ready=false have happened, the status at 111 has not.
        at(
            0,
            110,
            Some("kubia"),
            StateChecks {
                ready: Some(false),
                started: Some(true),
                restart_count: Some(CountRange::exactly(0)),
                pod_ready: Some(false),
                phase: Some("Running".into()),
                ..StateChecks::default()
            },
        ),
        at(
            1,
            111,
            Some("kubia"),
            StateChecks {
                restart_count: Some(CountRange::exactly(1)),
                state: Some("waiting".into()),
                reason: Some("CrashLoopBackOff".into()),
                last_exit_code: Some(137),
                ..StateChecks::default()
            },
        ),
    ];
    let (_, failures) = run(&expects, &events, 1800);
    assert_eq!(failures, Vec::<String>::new());
}

#[test]
fn failing_checks_say_what_was_expected_and_seen() {
    let (handler, cs) = (http(), crash_looping(8, 110));
    let events = every_kind(&handler, &cs);
    let expects = [
        at(
            0,
            1800,
            Some("kubia"),
            StateChecks {
                restart_count: Some(CountRange::exactly(9)),
                ..StateChecks::default()
            },
        ),
        at(
            1,
            120,
            Some("kubia"),
            StateChecks {
                restart_count: Some(CountRange {
                    min: Some(1),
                    max: Some(3),
                }),
                state: Some("running".into()),
                reason: Some("Error".into()),
                exit_code: Some(1),
                ready: Some(true),
                ..StateChecks::default()
            },
        ),
        at(
            2,
            30,
            None,
            StateChecks {
                phase: Some("Pending".into()),
                pod_ready: Some(true),
                ..StateChecks::default()
            },
        ),
    ];
    let (_, failures) = run(&expects, &events, 1800);
    assert_eq!(
            failures,
            [
                "expect[0] (line 10): at 30m container kubia: restartCount expected 9, saw 8",
                "expect[1] (line 11): at 2m container kubia: restartCount expected between 1 and 3, \
                 saw 8; ready expected true, saw false; state expected running, saw waiting since 1m51s; \
                 reason expected Error, saw CrashLoopBackOff since 1m51s; exitCode expected 1, saw none",
                "expect[2] (line 12): at 30s: phase expected Pending, saw Running; podReady expected true, saw false",
            ]
        );
}

#[test]
fn at_after_the_end_of_the_run_fails() {
    let checks = StateChecks {
        phase: Some("Running".into()),
        ..StateChecks::default()
    };
    let (_, failures) = run(&[at(0, 2400, None, checks)], &[], 1800);
    assert_eq!(
        failures,
        ["expect[0] (line 10): at 40m: the run ended at 30m, before this instant"]
    );
}

#[test]
fn ready_and_started_events_update_the_container() {
    let events = [
        Event {
            t: secs(5),
            kind: EventKind::Status {
                container: "kubia",
                status: &ContainerStatus::default(),
            },
        },
        Event {
            t: secs(7),
            kind: EventKind::Started {
                container: "kubia",
                started: true,
            },
        },
        Event {
            t: secs(9),
            kind: EventKind::Ready {
                container: "kubia",
                ready: true,
            },
        },
        Event {
            t: secs(9),
            kind: EventKind::Ready {
                container: "other",
                ready: false,
            },
        },
    ];
    let checks = |ready, started| StateChecks {
        ready: Some(ready),
        started: Some(started),
        ..StateChecks::default()
    };
    let expects = [
        at(0, 6, Some("kubia"), checks(false, false)),
        at(1, 8, Some("kubia"), checks(false, true)),
        at(2, 9, Some("kubia"), checks(true, true)),
    ];
    let (_, failures) = run(&expects, &events, 10);
    assert_eq!(failures, Vec::<String>::new());
}

#[test]
fn counts_match_kubernetes_events_by_reason_and_message() {
    let (handler, cs) = (http(), crash_looping(1, 110));
    let events = every_kind(&handler, &cs);
    let killing = |message: &str| EventFilter {
        kind: "event".into(),
        reason: Some("Killing".into()),
        message: Some(message.into()),
        ..EventFilter::default()
    };
    let expects = [
        count(
            0,
            killing("failed liveness"),
            0,
            1800,
            CountRange::exactly(1),
        ),
        count(1, killing("startup"), 0, 1800, CountRange::exactly(0)),
        // Windows are inclusive at both ends.
        count(2, killing("kubia"), 80, 81, CountRange::exactly(1)),
        count(3, killing("kubia"), 81, 1800, CountRange::exactly(0)),
        count(
            4,
            EventFilter {
                kind: "event".into(),
                reason: Some("BackOff".into()),
                message: Some("kubia".into()),
                ..EventFilter::default()
            },
            0,
            1800,
            CountRange {
                min: Some(1),
                max: None,
            },
        ),
    ];
    let (_, failures) = run(&expects, &events, 1800);
    assert_eq!(
        failures,
        [
            r#"expect[4]: events {reason: BackOff, message: "kubia"} between 0s and 30m: count expected at least 1, saw 0"#
        ]
    );
}

#[test]
fn filters_match_the_fields_of_each_kind() {
    let (handler, cs) = (http(), crash_looping(1, 110));
    let events = every_kind(&handler, &cs);
    let mut buf = String::new();
    let n = |f: EventFilter, buf: &mut String| {
        events.iter().filter(|e| f.matches(&e.kind, buf)).count()
    };
    let f = |kind: &str| EventFilter {
        kind: kind.into(),
        ..EventFilter::default()
    };
    assert_eq!(n(f("probe"), &mut buf), 2);
    let failures = EventFilter {
        outcome: Some("failure".into()),
        probe: Some("liveness".into()),
        container: Some("kubia".into()),
        ..f("probe")
    };
    assert_eq!(n(failures, &mut buf), 1);
    let readiness = EventFilter {
        probe: Some("readiness".into()),
        ..f("probe")
    };
    assert_eq!(n(readiness, &mut buf), 0);
    let result = EventFilter {
        result: Some("Failure".into()),
        ..f("result")
    };
    assert_eq!(n(result, &mut buf), 1);
    let kill = EventFilter {
        reason: Some("LivenessProbe".into()),
        ..f("kill")
    };
    assert_eq!(n(kill, &mut buf), 1);
    // The kill's cause (the fixture's kill is a liveness kill).
    let cause = |c: &str| EventFilter {
        cause: Some(c.into()),
        ..f("kill")
    };
    assert_eq!(n(cause("liveness"), &mut buf), 1);
    assert_eq!(n(cause("pod-completed"), &mut buf), 0);
    // A status event's state, a phase event's phase (the fixture: waiting, Running).
    let state = |s: &str| EventFilter {
        state: Some(s.into()),
        ..f("status")
    };
    assert_eq!(n(state("waiting"), &mut buf), 1);
    assert_eq!(n(state("running"), &mut buf), 0);
    let phase = |p: &str| EventFilter {
        phase: Some(p.into()),
        ..f("phase")
    };
    assert_eq!(n(phase("Running"), &mut buf), 1);
    assert_eq!(n(phase("Failed"), &mut buf), 0);
    let exit = EventFilter {
        exit_code: Some(137),
        reason: Some("Error".into()),
        ..f("exit")
    };
    assert_eq!(n(exit, &mut buf), 1);
    let exit0 = EventFilter {
        exit_code: Some(0),
        ..f("exit")
    };
    assert_eq!(n(exit0, &mut buf), 0);
    let normal = EventFilter {
        event_type: Some("Normal".into()),
        ..f("event")
    };
    assert_eq!(n(normal, &mut buf), 1);
    // A field the kind does not have never matches.
    let odd = EventFilter {
        outcome: Some("failure".into()),
        ..f("kill")
    };
    assert_eq!(n(odd, &mut buf), 0);
    // Pod-level events have no container.
    let pod_phase = EventFilter {
        container: Some("kubia".into()),
        ..f("phase")
    };
    assert_eq!(n(pod_phase, &mut buf), 0);
    // No kind: every event.
    assert_eq!(n(EventFilter::default(), &mut buf), events.len());
}

#[test]
fn a_window_closing_after_the_run_fails() {
    let filter = EventFilter {
        kind: "kill".into(),
        container: Some("kubia".into()),
        ..EventFilter::default()
    };
    let (_, failures) = run(
        &[count(0, filter, 0, 3600, CountRange::default())],
        &[],
        1800,
    );
    assert_eq!(
        failures,
        [
            "expect[0]: timeline {kind: kill, container: kubia} between 0s and 1h: the run ended \
              at 30m, before the window closed (count so far 0)"
        ]
    );
}

#[test]
fn count_ranges_read_naturally() {
    let r = |min, max| CountRange { min, max }.to_string();
    assert_eq!(r(Some(9), Some(9)), "9");
    assert_eq!(r(Some(8), Some(10)), "between 8 and 10");
    assert_eq!(r(Some(1), None), "at least 1");
    assert_eq!(r(None, Some(3)), "at most 3");
    assert_eq!(r(None, None), "any number");
}

#[test]
fn failures_without_a_line_omit_it() {
    let f = Failure {
        index: 3,
        line: None,
        message: "m".into(),
    };
    assert_eq!(f.to_string(), "expect[3]: m");
}
