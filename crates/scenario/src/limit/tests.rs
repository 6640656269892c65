use crate::run::horizon;
use crate::scenario::{NoFiles, Scenario};
use probesim_core::Recorder;

use super::*;

fn scenario(text: &str) -> Scenario {
    Scenario::from_str_with(text, "test.yaml", &mut NoFiles)
        .unwrap_or_else(|e| panic!("{}", e.render(text)))
}

/// A minute of a pod with no probes and a 1 ms resync: tens of thousands of syncs, which the
/// estimate now counts (one per resync period).
const FAST_RESYNC: &str = "\
duration: 1m
kubelet:
  resync: 1ms
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec:
    containers:
    - {name: web, image: nginx}
";

/// A container that exits at once, again and again, under a 1 s back-off cap.
const CRASH_LOOP: &str = "\
duration: 1h
timing: exact
kubernetes: \"1.37\"
kubelet:
  maxContainerRestartPeriod: 1s
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec:
    containers:
    - {name: web, image: nginx}
apps:
  web:
    exit: \"1 after 0s\"
";

/// A sidecar probed every second beside a main container without probes: the estimate counts
/// only the main containers' probes.
const SIDECAR: &str = "\
duration: 1h
timing: exact
kubernetes: \"1.37\"
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec:
    initContainers:
    - name: proxy
      image: envoy
      restartPolicy: Always
      livenessProbe: {tcpSocket: {port: 9901}, periodSeconds: 1}
    containers:
    - {name: web, image: nginx}
";

fn count(s: &Scenario) -> u64 {
    let end = horizon(s).unwrap();
    let mut sim = s.simulation();
    let mut recorder = Recorder::new(
        EventLimit::new(Discard, u64::MAX),
        sim.profile().event_spam_key_has_type,
    );
    sim.run_until(end, &mut recorder).unwrap();
    recorder.inner().passed()
}

#[test]
fn the_limit_holds_where_the_estimate_is_far_below_the_run() {
    for text in [CRASH_LOOP, SIDECAR] {
        let s = scenario(text);
        let end = horizon(&s).unwrap();
        let events = count(&s);
        let estimate = estimate_events(&s, end);
        assert!(
            estimate * 10 < events,
            "estimate {estimate}, events {events}: the case no longer shows the gap"
        );
        // A limit between the estimate and the real count: the estimate alone let it through.
        let limit = (estimate + events) / 2;
        for format in ["timeline", "json", "jsonl"] {
            match check_listed(&s, end, format, limit) {
                Err(RunFailure::TooManyEvents {
                    limit: l,
                    at,
                    format: f,
                }) => {
                    assert_eq!((l, f), (limit, format));
                    assert!(at > SimTime::ZERO && at <= end, "{at}");
                }
                other => panic!("{format}: {other:?}"),
            }
        }
        // Exactly the run's count fits; one fewer does not.
        assert!(check_listed(&s, end, "json", events).is_ok());
        assert!(check_listed(&s, end, "json", events - 1).is_err());
    }
}

#[test]
fn a_shorter_horizon_than_the_crossing_fits() {
    // The message advises a --for shorter than the time the limit is passed: that works.
    let mut s = scenario(CRASH_LOOP);
    let end = horizon(&s).unwrap();
    let Err(RunFailure::TooManyEvents { at, .. }) = check_listed(&s, end, "json", 5_000) else {
        panic!("not refused");
    };
    let shorter = SimTime::from_millis(at.as_millis() - 1);
    s.duration = Some(shorter);
    assert!(check_listed(&s, shorter, "json", 5_000).is_ok());
}

#[test]
fn a_fast_resync_is_part_of_the_estimate() {
    // One sync per resync period at least: a 1 ms resync is refused without running.
    let s = scenario(FAST_RESYNC);
    let end = horizon(&s).unwrap();
    let events = count(&s);
    let estimate = estimate_events(&s, end);
    assert!(estimate >= events, "estimate {estimate}, events {events}");
    match check_listed(&s, end, "json", events / 20) {
        Err(RunFailure::TooLarge { events: e, .. }) => assert_eq!(e, estimate),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_sink_passes_the_limit_and_stops_at_the_next_event() {
    let s = scenario(CRASH_LOOP);
    let end = horizon(&s).unwrap();
    let mut sim = s.simulation();
    let mut limited = EventLimit::new(probesim_core::VecSink::default(), 7);
    sim.run_until(end, &mut limited).unwrap();
    assert_eq!(limited.passed(), 7);
    let at = limited.exceeded_at().expect("stopped");
    let records = limited.into_inner().records;
    assert_eq!(records.len(), 7);
    assert!(records[6].t <= at);
}

#[test]
fn a_huge_horizon_is_refused_on_its_estimate_without_running() {
    let mut s = scenario(FAST_RESYNC.replace("resync: 1ms", "resync: 1m").as_str());
    let end = SimTime::from_secs(u64::from(u32::MAX));
    s.duration = Some(end);
    match check_listed(&s, end, "timeline", 1_000) {
        Err(RunFailure::TooLarge { events, .. }) => assert!(events > 10_000),
        other => panic!("{other:?}"),
    }
}

/// The count fast-forwards over repeated cycles but never over the limit: the event past the
/// limit, and when it comes, are those of the step-by-step run.
#[test]
fn fast_forward_stops_the_count_at_the_same_event() {
    let kubia = format!(
        "{}\nduration: 720h\n",
        include_str!("../../../../scenarios/kubia-unhealthy.yaml").replace("duration: 30m\n", "")
    );
    for text in [CRASH_LOOP, SIDECAR, kubia.as_str()] {
        let s = scenario(text);
        let end = horizon(&s).unwrap();
        let run = |limit: u64, fast: bool| {
            let mut sim = s.simulation();
            sim.set_fast_forward(fast);
            let mut counter = EventLimit::new(Discard, limit);
            sim.run_until(end, &mut counter).unwrap();
            (
                (counter.exceeded_at(), counter.passed(), sim.now()),
                sim.fast_forwarded(),
            )
        };
        let (all, _) = run(u64::MAX, false);
        let (fast_all, skipped) = run(u64::MAX, true);
        assert_eq!(all, fast_all);
        assert!(!skipped.is_zero(), "{text}: no jump");
        for limit in [all.1 / 3, all.1 / 2 + 7, all.1 - 1, all.1] {
            assert_eq!(run(limit, false).0, run(limit, true).0, "limit {limit}");
        }
    }
}
