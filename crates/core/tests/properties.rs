//! Properties of the engine on generated pods, profiles, kubelet knobs, seeds and applications.
//!
//! Each property is stated in domain words and cites the rule it protects (`P…` probe layer, `R…`
//! runtime layer, both in docs/rules.md; `docs/…` the project's docs). The inputs come from
//! `probesim_core::proptest`, which yields only valid values: pods with init containers and
//! sidecars, preStop hooks, and cases that delete the pod or restart the kubelet. Containers are
//! named by their engine index, init containers first. A failing case is shrunk and its seed saved
//! under `proptest-regressions/` (commit that file).

use std::convert::Infallible;

use ::proptest::prelude::*;
use ::proptest::test_runner::FileFailurePersistence;
use probesim_core::proptest::{
    case, case_with, deletion, handler, kubelet_restart, pod_for, probe_timing, profile, Case,
};
use probesim_core::{
    Answer, Attempt, Behaviours, ContainerSpec, ContainerState, ContainerStatus, Event, EventKind,
    Flow, Gate, Handler, KillReason, KubeletConfig, Outcome, Phase, PodSpec, PodStatus, Port,
    ProbeKind, ProbeResult, ProbeSpec, ProbeTiming, Profile, Record, Response, RestartPolicy,
    RunEnd, RunError, Scheme, SelfExit, SimDuration, SimTime, Simulation, Sink, SyncTrigger,
    VecSink, WaitingReason,
};

/// Cases per property: enough to find the interesting interleavings, few enough for debug
/// builds to finish in seconds.
const CASES: u32 = 96;

#[expect(
    clippy::disallowed_methods,
    reason = "a longer hunt is asked for by the environment"
)]
fn config(cases: u32) -> ProptestConfig {
    // `PROPTEST_CASES` raises the count for a longer hunt (`PROPTEST_CASES=2000 cargo test
    // --release -p probesim-core --test properties`).
    let asked = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok());
    let cases = asked.map_or(cases, |n: u32| n.max(cases));
    ProptestConfig {
        cases,
        // Filtered properties (one container, …) reject most generated cases: the budget of
        // rejects grows with the count, so a longer hunt does not give up on them.
        max_local_rejects: cases.saturating_mul(64).max(65_536),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

/// A horizon of 10 to 30 simulated minutes.
fn horizon() -> impl Strategy<Value = SimTime> {
    (600_u64..=1800).prop_map(SimTime::from_secs)
}

/// What one event said, owned, with the container as its engine index (init containers first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Probe {
        c: usize,
        probe: ProbeKind,
        outcome: Outcome,
        began: SimTime,
    },
    Result {
        c: usize,
        probe: ProbeKind,
        result: ProbeResult,
    },
    Kill {
        c: usize,
        reason: KillReason,
        grace: SimDuration,
    },
    Exit {
        c: usize,
        code: i32,
    },
    Start {
        c: usize,
        restart_count: u32,
    },
    BackOff {
        c: usize,
        backoff: SimDuration,
    },
    Ready {
        c: usize,
        ready: bool,
    },
    Started {
        c: usize,
        started: bool,
    },
    Status {
        c: usize,
        status: ContainerStatus,
    },
    Phase(Phase),
    Sync(SyncTrigger),
    Delete {
        grace: SimDuration,
    },
    Deleted,
    KubeletRestart,
    Other,
}

/// A sink that keeps every event as a [`Seen`], matching on the event kinds (no text).
struct Trace {
    names: Vec<String>,
    events: Vec<(SimTime, Seen)>,
}

impl Trace {
    fn new(pod: &PodSpec) -> Trace {
        Trace {
            names: pod.all_containers().map(|c| c.name.clone()).collect(),
            events: Vec::new(),
        }
    }

    fn index(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("event about an unknown container {name:?}"))
    }
}

impl Sink for Trace {
    type Error = Infallible;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, Infallible> {
        let seen = match event.kind {
            EventKind::Probe {
                container,
                probe,
                outcome,
                duration,
                ..
            } => Seen::Probe {
                c: self.index(container),
                probe,
                outcome,
                began: SimTime::from_millis(
                    event
                        .t
                        .as_millis()
                        .checked_sub(duration.as_millis())
                        .unwrap_or_else(|| panic!("a probe began before t=0: {event:?}")),
                ),
            },
            EventKind::Result {
                container,
                probe,
                result,
            } => Seen::Result {
                c: self.index(container),
                probe,
                result,
            },
            EventKind::Kill {
                container,
                reason,
                grace,
                ..
            } => Seen::Kill {
                c: self.index(container),
                reason,
                grace,
            },
            EventKind::Exit {
                container,
                exit_code,
                ..
            } => Seen::Exit {
                c: self.index(container),
                code: exit_code,
            },
            EventKind::Start {
                container,
                restart_count,
            } => Seen::Start {
                c: self.index(container),
                restart_count,
            },
            EventKind::BackOff { container, backoff } => Seen::BackOff {
                c: self.index(container),
                backoff,
            },
            EventKind::Ready { container, ready } => Seen::Ready {
                c: self.index(container),
                ready,
            },
            EventKind::Started { container, started } => Seen::Started {
                c: self.index(container),
                started,
            },
            EventKind::Status { container, status } => Seen::Status {
                c: self.index(container),
                status: *status,
            },
            EventKind::Phase { phase } => Seen::Phase(phase),
            EventKind::Sync { trigger } => Seen::Sync(trigger),
            EventKind::Delete { grace } => Seen::Delete { grace },
            EventKind::Deleted => Seen::Deleted,
            EventKind::KubeletRestart => Seen::KubeletRestart,
            EventKind::PodReady { .. } | EventKind::Event(_) => Seen::Other,
            _ => Seen::Other,
        };
        self.events.push((event.t, seen));
        Ok(Flow::Continue)
    }
}

/// More events than this at one instant means the run spins: no valid pod produces nearly as
/// many (the engine's own step budget is far larger, and slow to reach in debug builds).
const SPIN: usize = 5_000;

/// Passes events on to a sink, and stops the run when one instant does not settle.
struct Guard<S> {
    inner: S,
    at: SimTime,
    here: usize,
    spun: Option<SimTime>,
}

impl<S> Guard<S> {
    fn new(inner: S) -> Guard<S> {
        Guard {
            inner,
            at: SimTime::ZERO,
            here: 0,
            spun: None,
        }
    }
}

impl<S: Sink> Sink for Guard<S> {
    type Error = S::Error;

    fn event(&mut self, event: &Event<'_>) -> Result<Flow, S::Error> {
        if event.t == self.at {
            self.here += 1;
        } else {
            (self.at, self.here) = (event.t, 1);
        }
        let flow = self.inner.event(event)?;
        if self.here > SPIN {
            self.spun = Some(event.t);
            return Ok(Flow::Stop);
        }
        Ok(flow)
    }
}

/// The outcome of one run: every event, the final API status, and whether every instant
/// settled (`Err(t)`: the run spun at `t` and was cut short there).
struct Run {
    events: Vec<(SimTime, Seen)>,
    status: PodStatus,
    settled: Result<(), SimTime>,
}

/// Runs to the horizon. A run that does not settle is cut short and reported in
/// `Run::settled`; the events up to that point are kept so that every other property still
/// checks them.
fn simulate(mut sim: Simulation, horizon: SimTime) -> Run {
    let mut guard = Guard::new(Trace::new(sim.pod()));
    let settled = match sim.run_until(horizon, &mut guard) {
        Ok(_) => guard.spun.map_or(Ok(()), Err),
        Err(RunError::StepBudget { at }) => Err(at),
        Err(RunError::Sink(never)) => match never {},
    };
    Run {
        events: guard.inner.events,
        status: sim.status().clone(),
        settled,
    }
}

fn run(case: &Case, horizon: SimTime) -> Run {
    simulate(case.simulation(), horizon)
}

/// The rendered records and final status of a run that stops at each of `horizons` in turn.
fn records(case: &Case, horizons: &[SimTime]) -> (Vec<Record>, PodStatus, Option<SimTime>) {
    let mut sim = case.simulation();
    let mut guard = Guard::new(VecSink::default());
    for &h in horizons {
        match sim.run_until(h, &mut guard) {
            Ok(RunEnd::Horizon) => {}
            Ok(RunEnd::Stopped) | Err(RunError::StepBudget { .. }) => break,
            Err(RunError::Sink(never)) => match never {},
        }
    }
    (guard.inner.records, sim.status().clone(), guard.spun)
}

/// The back-offs a profile and node can show: initial, doubled each time, capped (R28).
fn back_off_curve(profile: &Profile, kubelet: &KubeletConfig) -> Vec<SimDuration> {
    let (initial, max) = profile.crash_loop_backoff(kubelet.max_container_restart_period);
    let mut curve = vec![initial];
    let mut b = initial;
    while b < max {
        b = b.saturating_mul(2).min(max);
        curve.push(b);
    }
    curve
}

fn is_running(status: &ContainerStatus) -> bool {
    matches!(status.state, ContainerState::Running { .. })
}

/// A sidecar: an init container with `restartPolicy: Always` (R58).
fn is_sidecar(pod: &PodSpec, c: usize) -> bool {
    pod.is_init(c) && pod.container(c).restartable
}

/// An init container that is not a sidecar (R18).
fn is_regular_init(pod: &PodSpec, c: usize) -> bool {
    pod.is_init(c) && !pod.container(c).restartable
}

/// Whether a status of container `c` shows `ready` and `started` only where they can be: while
/// running (P45, R39, R40), except that a regular init container is `ready` once it exited
/// with 0 (P46).
fn flags_fit_the_state(pod: &PodSpec, c: usize, status: &ContainerStatus) -> bool {
    if is_regular_init(pod, c) {
        let completed = matches!(status.state, ContainerState::Terminated(t) if t.exit_code == 0);
        (is_running(status) || !status.started) && (completed || !status.ready)
    } else {
        is_running(status) || !(status.ready || status.started)
    }
}

/// Whether container `c` was running just before a kubelet restart at `t`.
fn kept_through(restart: Option<&(SimTime, Vec<bool>)>, t: SimTime, c: usize) -> bool {
    restart.is_some_and(|(at, kept)| *at == t && kept[c])
}

/// Whether each container's process is running, from the starts and exits seen so far.
fn running_after(events: &[(SimTime, Seen)], n: usize) -> Vec<bool> {
    let mut alive = vec![false; n];
    for (_, seen) in events {
        match *seen {
            Seen::Start { c, .. } => alive[c] = true,
            Seen::Exit { c, .. } => alive[c] = false,
            _ => {}
        }
    }
    alive
}

proptest! {
    #![proptest_config(config(64))]

    /// The same pod, profile, knobs, seed and application give the same timeline, event for
    /// event and byte for byte, and the same final status
    /// (docs/design.md#why-a-pure-core-with-one-door-in-and-one-door-out).
    #[test]
    fn the_same_inputs_give_the_same_timeline(case in case(), horizon in horizon()) {
        let first = records(&case, &[horizon]);
        let second = records(&case, &[horizon]);
        prop_assert_eq!(first, second);
    }

    /// Running to the horizon in several calls gives the same timeline as one call: a run
    /// continues exactly where the previous call stopped (`Simulation::run_until`,
    /// docs/semantics.md#horizon).
    #[test]
    fn running_in_steps_gives_the_same_timeline_as_one_run(
        case in case(),
        horizon in horizon(),
        cuts in prop::collection::vec(0_u64..=1_800_000, 1..=4),
    ) {
        let mut steps: Vec<SimTime> = cuts
            .into_iter()
            .map(|ms| SimTime::from_millis(ms.min(horizon.as_millis())))
            .collect();
        steps.sort_unstable();
        steps.push(horizon);
        let whole = records(&case, &[horizon]);
        let stepped = records(&case, &steps);
        prop_assert_eq!(whole, stepped);
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Every instant settles: the engine never keeps acting at one instant without time
    /// passing (docs/design.md#step-budget: the step budget is for model bugs, never for valid
    /// input).
    #[test]
    fn every_run_settles(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        prop_assert_eq!(run.settled, Ok(()), "the run spun and was cut short");
    }

    /// Events come in non-decreasing time order, nothing is reported after the horizon, and
    /// every probe began at or after the timeline origin (docs/cli.md#--format-json,
    /// docs/semantics.md#horizon).
    #[test]
    fn events_come_in_time_order_and_none_after_the_horizon(
        case in case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        for pair in run.events.windows(2) {
            prop_assert!(pair[0].0 <= pair[1].0, "out of order: {:?} then {:?}", pair[0], pair[1]);
        }
        if let Some(last) = run.events.last() {
            prop_assert!(last.0 <= horizon, "reported after the horizon {}: {:?}", horizon, last);
        }
    }

    /// restartCount never decreases in the API; the first instance of a container counts 0
    /// restarts and each later one counts one more than the one before (R16, R36); the API value
    /// grows by at most the number of starts since it was last shown.
    #[test]
    fn restart_count_never_decreases_and_counts_each_start_once(
        case in case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut starts = vec![0_u32; n];
        let mut shown: Vec<(u32, u32)> = vec![(0, 0); n]; // (restartCount, starts at that time)
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, restart_count } => {
                    prop_assert_eq!(
                        restart_count, starts[c],
                        "t={}: start number {} of container {} shows restartCount {}",
                        t, starts[c] + 1, c, restart_count
                    );
                    starts[c] += 1;
                }
                Seen::Status { c, status } => {
                    let (before, starts_then) = shown[c];
                    prop_assert!(
                        status.restart_count >= before,
                        "t={}: restartCount of container {} went from {} to {}",
                        t, c, before, status.restart_count
                    );
                    prop_assert!(
                        status.restart_count - before <= starts[c] - starts_then,
                        "t={}: restartCount of container {} went from {} to {} with {} starts",
                        t, c, before, status.restart_count, starts[c] - starts_then
                    );
                    shown[c] = (status.restart_count, starts[c]);
                }
                _ => {}
            }
        }
    }

    /// A container instance starts only after the previous one's process exited: the starts and
    /// exits of each container, init containers and sidecars included, alternate, beginning with
    /// a start (R16, R17, R36); neither a deletion nor a kubelet restart starts a second process.
    #[test]
    fn a_container_starts_again_only_after_it_exited(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let mut alive = vec![false; case.pod.container_count()];
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } => {
                    prop_assert!(!alive[c], "t={}: container {} started while running", t, c);
                    alive[c] = true;
                }
                Seen::Exit { c, .. } => {
                    prop_assert!(alive[c], "t={}: container {} exited while not running", t, c);
                    alive[c] = false;
                }
                _ => {}
            }
        }
    }

    /// A probe worker never has two probes in flight: for each container and probe kind, each
    /// probe begins no earlier than the previous one ended (P16, P17; docs/cli.md#--format-json: a
    /// probe began at `t - duration`).
    #[test]
    fn a_probe_worker_never_runs_two_probes_at_once(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let mut ended: Vec<[Option<SimTime>; 3]> = vec![[None; 3]; case.pod.container_count()];
        for (t, seen) in &run.events {
            if let Seen::Probe { c, probe, began, .. } = *seen {
                if let Some(previous) = ended[c][probe.index()] {
                    prop_assert!(
                        began >= previous,
                        "container {} {} probe began at {} before the previous one ended at {}",
                        c, probe, began, previous
                    );
                }
                ended[c][probe.index()] = Some(*t);
            }
        }
    }

    /// With restartPolicy Never no container is ever started twice (R14, R15, R17, R18), except
    /// sidecars, which are restarted whatever the pod's policy (R60).
    #[test]
    fn with_restart_policy_never_no_container_starts_twice(
        case in case().prop_map(|mut c| {
            c.pod.restart_policy = RestartPolicy::Never;
            c
        }),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut starts = vec![0_u32; case.pod.container_count()];
        for (t, seen) in &run.events {
            if let Seen::Start { c, .. } = *seen {
                if is_sidecar(&case.pod, c) {
                    continue;
                }
                starts[c] += 1;
                prop_assert!(starts[c] <= 1, "t={}: container {} started again", t, c);
            }
        }
    }

    /// The kubelet kills a container for a probe only when that probe's cached result for it is
    /// Failure: the last liveness (or startup) result reported for the container before a
    /// LivenessProbe (or StartupProbe) kill is Failure (R13, R60, P42). A kill without a probe
    /// reason is a whole-pod kill: for a deletion once the pod was deleted (R22), otherwise under
    /// restartPolicy Never (R15, R18), or, under OnFailure, of a sidecar once every regular
    /// container completed with 0 (R61: sidecars cannot keep the pod alive).
    #[test]
    fn probe_kills_follow_a_failure_of_that_probe(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut last: Vec<[Option<ProbeResult>; 3]> = vec![[None; 3]; n];
        let mut exit_code: Vec<Option<i32>> = vec![None; n];
        let mut alive = vec![false; n];
        let mut deleted = false;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Result { c, probe, result } => last[c][probe.index()] = Some(result),
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, code } => (alive[c], exit_code[c]) = (false, Some(code)),
                Seen::Delete { .. } => deleted = true,
                Seen::Kill { c, reason, .. } => {
                    let kind = match reason {
                        KillReason::LivenessProbe => ProbeKind::Liveness,
                        KillReason::StartupProbe => ProbeKind::Startup,
                        KillReason::Deletion => {
                            prop_assert!(
                                deleted,
                                "t={}: deletion kill of container {} before any deletion", t, c
                            );
                            continue;
                        }
                        KillReason::Unknown => {
                            let regular = (case.pod.init_containers.len()..n)
                                .all(|r| !alive[r] && exit_code[r] == Some(0));
                            let sidecar_of_completed_pod = case.pod.restart_policy
                                == RestartPolicy::OnFailure
                                && is_sidecar(&case.pod, c)
                                && regular;
                            prop_assert!(
                                case.pod.restart_policy == RestartPolicy::Never
                                    || sidecar_of_completed_pod,
                                "t={}: whole-pod kill of container {} under {:?}",
                                t, c, case.pod.restart_policy
                            );
                            continue;
                        }
                        _ => panic!("a kill reason this property does not know: {reason:?}"),
                    };
                    prop_assert_eq!(
                        last[c][kind.index()], Some(ProbeResult::Failure),
                        "t={}: {:?} kill of container {} after its last {} result",
                        t, reason, c, kind
                    );
                }
                _ => {}
            }
        }
    }

    /// With one container (no init container), no probe-sync delay, and a profile whose startup
    /// results trigger syncs (≥1.21), a probe kill happens at the very instant the probe's Failure
    /// result is reported, or at a later relist when its sync has to wait for one (R1, R2, R4,
    /// R12, docs/semantics.md#pacing); that Failure is still the probe's last result. (Not in
    /// general: a
    /// probe-sync delay postpones the kill by that delay, a pod worker busy with another
    /// container's kill or pull postpones it to the end of that work (R3), and 1.19–1.20 act on a
    /// startup Failure only at the next sync.)
    #[test]
    fn a_probe_kill_comes_at_the_instant_of_the_failure(
        case in case().prop_filter("one container, no probe-sync delay, 1.21 or later", |c| {
            c.pod.container_count() == 1
                && c.kubelet.probe_sync_delay.is_zero()
                && c.profile.readiness_startup_sync
        }),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        for (t, seen) in &run.events {
            let Seen::Kill { c, reason, .. } = *seen else { continue };
            let kind = match reason {
                KillReason::LivenessProbe => ProbeKind::Liveness,
                KillReason::StartupProbe => ProbeKind::Startup,
                KillReason::Unknown | KillReason::Deletion => continue,
                _ => panic!("a kill reason this property does not know: {reason:?}"),
            };
            // The probe's last result by then is a Failure, recorded at that instant, or
            // earlier when the sync waited for a relist (R4): then the kill is at a relist.
            let relist = t.as_millis() % case.kubelet.pleg_period.as_millis().max(1) == 0;
            let last = run.events.iter().rev().find_map(|(at, s)| match *s {
                Seen::Result { c: rc, probe, result } if rc == c && probe == kind && at <= t => {
                    Some((*at, result))
                }
                _ => None,
            });
            let fits = matches!(last, Some((at, ProbeResult::Failure)) if at == *t || relist);
            prop_assert!(fits, "t={}: {:?} kill after {:?}, not a {} Failure at that instant or before a relist", t, reason, last, kind);
        }
    }

    /// A status the kubelet generates shows a container `ready` or `started` only while it is
    /// running (P45, R39, R40), except a regular init container, which is `ready` once it
    /// exited with 0 (P46).
    #[test]
    fn generated_statuses_are_ready_or_started_only_while_running(
        case in case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        for (t, seen) in &run.events {
            if let Seen::Status { c, status } = *seen {
                prop_assert!(
                    flags_fit_the_state(&case.pod, c, &status),
                    "t={}: container {} written as {:?}", t, c, status
                );
            }
        }
    }

    /// The API never shows a container `ready` or `started` while its state there is not
    /// running (a regular init container: `ready` unless it completed, P46), at the end of any
    /// instant: updates between two status generations keep it so too (P45, R39, R40, R41).
    #[test]
        fn the_api_shows_ready_or_started_only_while_running(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut api = vec![ContainerStatus::default(); n];
        for (i, (t, seen)) in run.events.iter().enumerate() {
            match *seen {
                Seen::Status { c, status } => api[c] = status,
                Seen::Ready { c, ready } => api[c].ready = ready,
                Seen::Started { c, started } => api[c].started = started,
                _ => {}
            }
            let instant_ends = run.events.get(i + 1).is_none_or(|(next, _)| next > t);
            if instant_ends {
                for (c, status) in api.iter().enumerate() {
                    prop_assert!(
                        flags_fit_the_state(&case.pod, c, status),
                        "t={}: container {} is {} with ready={} started={}",
                        t, c, status.state.name(), status.ready, status.started
                    );
                }
            }
        }
        for c in 0..n {
            let status = run.status.container(c);
            prop_assert!(
                flags_fit_the_state(&case.pod, c, status),
                "final status of container {}: {:?}", c, status
            );
        }
    }

    /// Every kill grants at least 2 s (R21, R24), and the killed instance's process is gone no
    /// later than the grace period (plus the kill latency, R66) after the kill (R25,
    /// docs/semantics.md#kills); a preStop hook
    /// may add up to 2 s, since its whole seconds come off the grace period and the signal keeps at
    /// least 2 s (R24). This holds for probe kills, whole-pod kills, deletions and sidecars alike
    /// (a sidecar's wait for its turn comes off its grace period, R24, R61).
    #[test]
    fn kills_grant_two_seconds_and_end_the_process_within_the_grace_period(
        case in case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut alive = vec![false; n];
        // The deadline by which the current instance must exit, from a kill.
        let mut deadline: Vec<Option<SimTime>> = vec![None; n];
        for (t, seen) in &run.events {
            for (c, d) in deadline.iter().enumerate() {
                if let Some(d) = d {
                    prop_assert!(t <= d, "container {} still running at {} after its grace ended at {}", c, t, d);
                }
            }
            match *seen {
                Seen::Kill { c, grace, .. } => {
                    prop_assert!(grace >= SimDuration::from_secs(2), "t={}: grace {}s", t, grace);
                    if alive[c] {
                        // The whole seconds of a hook, and of a sidecar's wait for its turn,
                        // come off the grace period, and the signal keeps 2 s: each can add up
                        // to a second, and the 2 s floor the rest.
                        let spec = case.pod.container(c);
                        let hook = spec.app.pre_stop.is_some();
                        let sidecar = case.pod.is_init(c) && spec.restartable;
                        let hook_slack = SimDuration::from_secs(match (hook, sidecar) {
                            (true, true) => 3,
                            (true, false) | (false, true) => 2,
                            (false, false) => 0,
                        });
                        // R66: the signal reaches the process after the kill latency.
                        let d = t
                            .saturating_add(grace)
                            .saturating_add(hook_slack)
                            .saturating_add(case.kubelet.kill_latency);
                        deadline[c] = Some(deadline[c].map_or(d, |old| old.min(d)));
                    }
                }
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, .. } => {
                    alive[c] = false;
                    deadline[c] = None;
                }
                _ => {}
            }
        }
        for (c, d) in deadline.iter().enumerate() {
            if let Some(d) = d {
                prop_assert!(*d > horizon, "container {} never exited; its grace ended at {}", c, d);
            }
        }
    }

    /// Once the pod is Succeeded or Failed the phase never changes again, no container starts,
    /// and no probe begins afterwards (R43, R45, P23).
    #[test]
    fn a_terminal_phase_is_never_left(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let mut terminal: Option<(SimTime, Phase)> = None;
        for (t, seen) in &run.events {
            match (*seen, terminal) {
                (Seen::Phase(p), Some((since, phase))) => {
                    prop_assert!(false, "t={}: phase {:?} after {:?} since {}", t, p, phase, since);
                }
                (Seen::Phase(p), None) if p.is_terminal() => terminal = Some((*t, p)),
                (Seen::Start { c, .. }, Some((since, phase))) => {
                    prop_assert!(false, "t={}: container {} started in {:?} (since {})", t, c, phase, since);
                }
                (Seen::Probe { c, probe, began, .. }, Some((since, phase))) => {
                    prop_assert!(
                        began < since || (began == since && began < *t),
                        "t={}: container {} {} probe began at {} in {:?} (since {})",
                        t, c, probe, began, phase, since
                    );
                }
                _ => {}
            }
        }
    }

    /// Every back-off the kubelet reports (a refused start, or the CrashLoopBackOff reason) is
    /// on the profile's curve: the initial back-off doubled until the maximum, which under the
    /// defaults is 10, 20, 40, 80, 160, 300 s (R28, R30, R31, R34).
    #[test]
    fn back_offs_follow_the_profiles_doubling_curve(case in case(), horizon in horizon()) {
        let curve = back_off_curve(&case.profile, &case.kubelet);
        let run = run(&case, horizon);
        for (t, seen) in &run.events {
            let backoff = match *seen {
                Seen::BackOff { backoff, .. } => backoff,
                Seen::Status { status, .. } => match status.state {
                    ContainerState::Waiting(Some(
                        WaitingReason::CrashLoopBackOff { backoff },
                    )) => backoff,
                    _ => continue,
                },
                _ => continue,
            };
            prop_assert!(curve.contains(&backoff), "t={}: back-off {} is not on {:?}", t, backoff, curve);
        }
    }
}

/// Time enough, after a deletion or a terminal phase, for any pod to finish stopping: a sync
/// already running may be waiting for a kill (a probe-level grace period of up to 60 s and a
/// preStop hook of up to 10 s, once per container), and the termination's own kills take up to
/// the grace period plus 2 s per sidecar.
const SETTLE: SimDuration = SimDuration::from_secs(400);

/// A [`Case`] that deletes the pod.
fn deleted_case() -> impl Strategy<Value = Case> {
    (case(), deletion()).prop_map(|(mut c, d)| {
        c.delete = Some(d);
        c
    })
}

/// A [`Case`] that restarts the kubelet.
fn restarted_case() -> impl Strategy<Value = Case> {
    (case(), kubelet_restart()).prop_map(|(mut c, at)| {
        c.kubelet_restart = Some(at);
        c
    })
}

/// A [`Case`] whose pod has at least one init container.
fn init_case() -> impl Strategy<Value = Case> {
    case_with(profile(), |p| {
        pod_for(p).prop_filter("an init container", |pod| !pod.init_containers.is_empty())
    })
}

/// A [`Case`] whose profile runs sidecars (R58) and whose pod has at least one.
fn sidecar_case() -> impl Strategy<Value = Case> {
    case_with(
        profile().prop_filter("sidecars run", |p| p.gate(Gate::SidecarContainers)),
        |p| {
            pod_for(p).prop_filter("a sidecar", |pod| {
                pod.init_containers.iter().any(|c| c.restartable)
            })
        },
    )
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Once the kubelet has begun terminating a deleted pod, every sync is a terminating one
    /// and no container starts (R17: nothing is restarted while the pod is being deleted); once
    /// the pod object is removed no probe begins and no sync runs (P10, RemovePod).
    #[test]
    fn a_deleted_pod_starts_nothing_and_once_removed_probes_nothing(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut deleted: Option<SimTime> = None;
        let mut terminating: Option<SimTime> = None;
        let mut removed: Option<SimTime> = None;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { .. } => deleted = Some(*t),
                Seen::Sync(trigger) if deleted.is_some() => {
                    prop_assert!(
                        removed.is_none(),
                        "t={}: a {:?} sync after the pod was removed", t, trigger
                    );
                    prop_assert!(
                        matches!(trigger, SyncTrigger::Terminating | SyncTrigger::Terminated),
                        "t={}: a {:?} sync of a deleted pod", t, trigger
                    );
                    terminating.get_or_insert(*t);
                }
                Seen::Start { c, .. } => {
                    prop_assert!(
                        terminating.is_none(),
                        "t={}: container {} started while the pod terminates (since {:?})",
                        t, c, terminating
                    );
                }
                Seen::Deleted => {
                    prop_assert!(deleted.is_some(), "t={}: removed without a deletion", t);
                    removed = Some(*t);
                }
                Seen::Probe { c, probe, began, .. } => {
                    if let Some(since) = removed {
                        prop_assert!(
                            began < since || (began == since && began < *t),
                            "t={}: container {} {} probe began at {}, after the pod was removed \
                             at {}",
                            t, c, probe, began, since
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// A deleted pod is gone in the end: once the deletion had time to finish, the pod object
    /// is removed and no container of it runs, in the status or in the runtime. From 1.27 its
    /// phase is Succeeded or Failed — Succeeded exactly when every regular container terminated
    /// with 0 (R43, podIsTerminal; `TerminatePod`). A pod already Succeeded or Failed when
    /// deleted stays as it was.
    #[test]
        fn a_deleted_pod_ends_succeeded_or_failed_with_every_container_stopped(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let (at, grace) = case.delete.expect("a deletion");
        let delete = run.events.iter().find_map(|(t, s)| match s {
            Seen::Delete { grace } => Some((*t, *grace)),
            _ => None,
        });
        let Some((t, resolved)) = delete else {
            let terminal_before = run.events.iter().any(|(t, s)| {
                *t <= at && matches!(s, Seen::Phase(p) if p.is_terminal())
            });
            prop_assert!(
                at > horizon || terminal_before,
                "the deletion at {} never happened (phase {:?})", at, run.status.phase
            );
            return Ok(());
        };
        prop_assert_eq!(t, at);
        let pod_grace = u64::try_from(case.pod.termination_grace_period_seconds).unwrap_or(0);
        prop_assert_eq!(resolved, grace.unwrap_or(SimDuration::from_secs(pod_grace)));
        if t.saturating_add(SETTLE) > horizon {
            return Ok(());
        }
        let status = &run.status;
        prop_assert!(status.removed, "not removed {} after the deletion at {}", SETTLE, t);
        prop_assert!(run.events.iter().any(|(_, s)| *s == Seen::Deleted));
        prop_assert_eq!(status.deletion_timestamp, Some(t));
        if case.profile.terminal_phase_forcing {
            prop_assert!(
                status.phase.is_terminal(),
                "phase {:?} after the deletion at {}", status.phase, t
            );
            let completed = status
                .containers
                .iter()
                .all(|s| matches!(s.state, ContainerState::Terminated(x) if x.exit_code == 0));
            prop_assert_eq!(
                status.phase == Phase::Succeeded, completed,
                "phase {:?} with regular containers {:?}", status.phase, status.containers
            );
        }
        let n = case.pod.container_count();
        let alive = running_after(&run.events, n);
        for (c, running) in alive.into_iter().enumerate() {
            prop_assert!(!running, "container {} still runs after the deletion at {}", c, t);
            let shown = status.container(c);
            prop_assert!(!is_running(shown), "container {} shown running: {:?}", c, shown);
        }
    }

    /// A deletion's kills use the deletion's grace period (R22 step 1, raised to 2 s, R21),
    /// except that a sidecar's wait for its turn comes off it (R24, R61).
    #[test]
    fn deletion_kills_use_the_deletions_grace_period(
        case in deleted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut grace: Option<SimDuration> = None;
        let min = SimDuration::from_secs(2);
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { grace: g } => grace = Some(g.max(min)),
                Seen::Kill { c, reason: KillReason::Deletion, grace: g } => {
                    let Some(full) = grace else {
                        prop_assert!(false, "t={}: a deletion kill before the deletion", t);
                        continue;
                    };
                    if is_sidecar(&case.pod, c) {
                        prop_assert!(
                            min <= g && g <= full,
                            "t={}: sidecar {} killed with {} of {}", t, c, g, full
                        );
                    } else {
                        prop_assert_eq!(g, full, "t={}: container {} killed with {}", t, c, g);
                    }
                }
                _ => {}
            }
        }
    }

    /// From the first sync of a terminating pod on, the liveness and startup probes of its
    /// regular containers stop (P12, ≥1.23): none begins afterwards.
    #[test]
    fn a_terminating_pod_stops_liveness_and_startup_probes(
        case in deleted_case().prop_filter("1.23 or later", |c| {
            c.profile.stop_liveness_on_termination
        }),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let mut deleted = false;
        let mut since: Option<SimTime> = None;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Delete { .. } => deleted = true,
                Seen::Sync(_) if deleted => {
                    since.get_or_insert(*t);
                }
                Seen::Probe { c, probe, began, .. } => {
                    let Some(since) = since else { continue };
                    if case.pod.is_init(c) || probe == ProbeKind::Readiness {
                        continue;
                    }
                    prop_assert!(
                        began < since || (began == since && began < *t),
                        "t={}: container {} {} probe began at {}, after termination began at {}",
                        t, c, probe, began, since
                    );
                }
                _ => {}
            }
        }
    }

    /// A kubelet restart stops no container: each container running just before it keeps its
    /// process (it exits at that instant only if it was being killed or its own exit was due
    /// then), and the new kubelet's status shows it running with the same restartCount (R36,
    /// P45). restartCount never decreases (R36).
    #[test]
    fn a_kubelet_restart_keeps_running_containers_and_their_restart_counts(
        case in restarted_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        let mut alive = vec![false; n];
        let mut since = vec![SimTime::ZERO; n];
        let mut count = vec![0_u32; n];
        let mut killed = vec![false; n];
        let mut restart: Option<(SimTime, Vec<bool>)> = None;
        let mut api = vec![ContainerStatus::default(); n];
        for (i, (t, seen)) in run.events.iter().enumerate() {
            match *seen {
                Seen::KubeletRestart => restart = Some((*t, alive.clone())),
                Seen::Start { c, restart_count } => {
                    (alive[c], since[c], count[c], killed[c]) = (true, *t, restart_count, false);
                }
                Seen::Kill { c, .. } => killed[c] = true,
                Seen::Exit { c, .. } => {
                    if kept_through(restart.as_ref(), *t, c) && alive[c] {
                        let due = case
                            .pod
                            .container(c)
                            .app
                            .exit
                            .is_some_and(|e| since[c].saturating_add(e.after) == *t);
                        prop_assert!(
                            killed[c] || due,
                            "t={}: container {} exited at the kubelet restart", t, c
                        );
                    }
                    alive[c] = false;
                }
                Seen::Status { c, status } => {
                    prop_assert!(
                        status.restart_count >= api[c].restart_count,
                        "t={}: restartCount of container {} went from {} to {}",
                        t, c, api[c].restart_count, status.restart_count
                    );
                    api[c] = status;
                }
                _ => {}
            }
            let instant_ends = run.events.get(i + 1).is_none_or(|(next, _)| next > t);
            if !instant_ends {
                continue;
            }
            for c in 0..n {
                if kept_through(restart.as_ref(), *t, c) && alive[c] {
                    prop_assert!(
                        is_running(&api[c]) && api[c].restart_count == count[c],
                        "t={}: container {} (restartCount {}) shown as {:?} after the restart",
                        t, c, count[c], api[c]
                    );
                }
            }
        }
    }

    /// Regular init containers run one at a time and in order, before any regular container:
    /// one starts only while no other runs, after every one before it exited with 0, and never
    /// once a regular container has started; and no regular container starts before every
    /// regular init container has exited with 0 (R18).
    #[test]
    fn regular_init_containers_run_one_at_a_time_in_order_before_the_app(
        case in init_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let inits: Vec<usize> = (0..pod.init_containers.len())
            .filter(|&c| is_regular_init(pod, c))
            .collect();
        let mut alive = vec![false; n];
        let mut last_exit: Vec<Option<i32>> = vec![None; n];
        let mut app_started = false;
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } if is_regular_init(pod, c) => {
                    prop_assert!(
                        !app_started,
                        "t={}: init container {} started after the app", t, c
                    );
                    for &j in &inits {
                        prop_assert!(
                            j == c || !alive[j],
                            "t={}: init containers {} and {} run together", t, c, j
                        );
                        if j < c {
                            prop_assert_eq!(
                                last_exit[j], Some(0),
                                "t={}: init container {} started before {} completed", t, c, j
                            );
                        }
                    }
                }
                Seen::Start { c, .. } if !pod.is_init(c) => {
                    for &j in &inits {
                        prop_assert!(
                            !alive[j] && last_exit[j] == Some(0),
                            "t={}: container {} started before init container {} completed", t, c, j
                        );
                    }
                    app_started = true;
                }
                _ => {}
            }
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, code } => (alive[c], last_exit[c]) = (false, Some(code)),
                _ => {}
            }
        }
    }

    /// A sidecar that exits while the pod goes on is started again, or refused by back-off,
    /// whatever the pod's restartPolicy (R60, R61): within a few minutes comes a start or a
    /// back-off for it, unless in the meantime the pod is deleted, killed as a whole, or ends.
    #[test]
    fn a_sidecar_is_restarted_whatever_the_restart_policy(
        case in sidecar_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let n = case.pod.container_count();
        // The pod ends (or is killed as a whole): a sidecar need not come back.
        let ends = |s: &Seen| match *s {
            Seen::Phase(p) => p.is_terminal(),
            Seen::Delete { .. } => true,
            Seen::Kill { reason, .. } => {
                matches!(reason, KillReason::Unknown | KillReason::Deletion)
            }
            _ => false,
        };
        let mut ended = false;
        let mut killed_with_pod = vec![false; n];
        for (i, (t, seen)) in run.events.iter().enumerate() {
            ended |= ends(seen);
            match *seen {
                Seen::Start { c, .. } => killed_with_pod[c] = false,
                Seen::Kill { c, reason: KillReason::Unknown | KillReason::Deletion, .. } => {
                    killed_with_pod[c] = true;
                }
                Seen::Exit { c, .. } if is_sidecar(&case.pod, c) && !killed_with_pod[c] => {
                    let window = t.saturating_add(SETTLE);
                    if ended || window > horizon {
                        continue;
                    }
                    let next = run.events[i + 1..]
                        .iter()
                        .take_while(|(u, _)| *u <= window)
                        .find(|(_, s)| {
                            ends(s)
                                || matches!(*s, Seen::Start { c: x, .. } if x == c)
                                || matches!(*s, Seen::BackOff { c: x, .. } if x == c)
                        });
                    prop_assert!(
                        next.is_some(),
                        "t={}: sidecar {} exited under {:?} and was not restarted by {}",
                        t, c, case.pod.restart_policy, window
                    );
                }
                _ => {}
            }
        }
    }

    /// When the whole pod is killed (R15, R61) or deleted, every running container's kill
    /// begins at the same instant (the kubelet stops them all at once; only a sidecar's signal
    /// waits for its turn): at a sidecar's kill, every regular container and every later
    /// sidecar that still runs has been killed at that instant, just before.
    #[test]
    fn a_pod_kill_begins_every_container_kill_at_once(
        case in sidecar_case(),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let mut alive = vec![false; n];
        let mut killed_at: Vec<Option<SimTime>> = vec![None; n];
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                Seen::Exit { c, .. } => alive[c] = false,
                Seen::Kill { c, reason: KillReason::Unknown | KillReason::Deletion, .. }
                    if is_sidecar(pod, c) =>
                {
                    for other in c + 1..n {
                        prop_assert!(
                            !alive[other] || killed_at[other] == Some(*t),
                            "t={}: sidecar {} killed while container {} runs on unkilled", t, c, other
                        );
                    }
                    killed_at[c] = Some(*t);
                }
                Seen::Kill { c, .. } => killed_at[c] = Some(*t),
                _ => {}
            }
        }
    }

    /// In a pod kill a sidecar outlives what it waits for: it exits no earlier than the regular
    /// containers and the later sidecars, unless its own grace period ran out first (R24, R61:
    /// the signal waits for its turn at most for what is left of the grace period) or its
    /// process ends by itself. (1.28 has no such ordering, and a kubelet restart forgets the
    /// kill: the new kubelet may start a sidecar again while the old kill runs its course.)
    #[test]
    fn sidecars_exit_after_what_they_wait_for(
        case in sidecar_case().prop_filter("no kubelet restart", |c| c.kubelet_restart.is_none()),
        horizon in horizon(),
    ) {
        let run = run(&case, horizon);
        let pod = &case.pod;
        let n = pod.container_count();
        let mut alive = vec![false; n];
        // A sidecar's kill in a pod kill: when its grace period ends, counted from the kill.
        let mut patience: Vec<Option<SimTime>> = vec![None; n];
        for (t, seen) in &run.events {
            match *seen {
                Seen::Start { c, .. } => alive[c] = true,
                // A grace period of 2 s may be the floor of a zero one, which waits for nothing.
                Seen::Kill { c, grace, reason: KillReason::Unknown | KillReason::Deletion }
                    if is_sidecar(pod, c)
                        && case.profile.sidecar_termination_ordering
                        && pod.container(c).app.exit.is_none()
                        && grace > SimDuration::from_secs(2) =>
                {
                    // A kill does not cancel an earlier one's deadline (a kubelet restart can
                    // kill again a container that is already being stopped).
                    let limit = t.saturating_add(grace);
                    patience[c] = Some(patience[c].map_or(limit, |p| p.min(limit)));
                }
                Seen::Exit { c, .. } => {
                    alive[c] = false;
                    if let Some(limit) = patience[c].take() {
                        if *t < limit {
                            // What it waits for: the regular containers and the later sidecars
                            // (regular init containers are nobody's prerequisite).
                            let waited_for = (c + 1..n)
                                .filter(|&o| !pod.is_init(o) || is_sidecar(pod, o));
                            for other in waited_for {
                                prop_assert!(
                                    !alive[other],
                                    "t={}: sidecar {} exited while container {} still runs", t, c, other
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A pod that reached Succeeded or Failed keeps no container running: the kubelet kills
    /// what is left (R45: SyncTerminatingPod, ≥1.22), sidecars included (R61, R62).
    #[test]
        fn a_terminal_pod_keeps_no_container_running(case in case(), horizon in horizon()) {
        let run = run(&case, horizon);
        let terminal = run.events.iter().find_map(|(t, s)| match s {
            Seen::Phase(p) if p.is_terminal() => Some((*t, *p)),
            _ => None,
        });
        let Some((t, phase)) = terminal else { return Ok(()) };
        if t.saturating_add(SETTLE) > horizon {
            return Ok(());
        }
        let alive = running_after(&run.events, case.pod.container_count());
        for (c, running) in alive.iter().enumerate() {
            prop_assert!(!running, "container {} still runs in a pod {:?} since {}", c, phase, t);
        }
    }
}

/// The default profile's curve is the one users know (R28, R31).
#[test]
fn the_default_back_off_curve_is_ten_seconds_doubled_to_five_minutes() {
    let curve = back_off_curve(&Profile::newest(), &KubeletConfig::default());
    let secs: Vec<u64> = curve.iter().map(|d| d.whole_secs()).collect();
    assert_eq!(secs, [10, 20, 40, 80, 160, 300]);
}

/// A pod whose one container has a startup probe that allows `margin` periods more than the
/// app needs to start, and maybe readiness and liveness probes on the same app.
#[derive(Clone, Debug)]
struct SlowStarter {
    pod: PodSpec,
    profile: Profile,
    seed: u64,
    started_ago: SimDuration,
    /// The app refuses (or fails) every probe until this uptime, then answers ok.
    start_time: SimDuration,
}

fn slow_starter() -> impl Strategy<Value = SlowStarter> {
    (
        handler(),
        probe_timing(ProbeKind::Startup),
        0_u64..=300_000,
        0_i32..=3,
        prop::option::of((handler(), probe_timing(ProbeKind::Readiness))),
        prop::option::of((handler(), probe_timing(ProbeKind::Liveness))),
        profile(),
        any::<u64>(),
        prop_oneof![Just(SimDuration::from_secs(3600)), Just(SimDuration::ZERO)],
        prop::sample::select(vec![
            RestartPolicy::Always,
            RestartPolicy::OnFailure,
            RestartPolicy::Never,
        ]),
    )
        .prop_filter_map(
            "probes must be valid and gRPC probes need a profile that runs them",
            |(h, mut timing, start_ms, extra, readiness, liveness, profile, seed, ago, policy)| {
                let period = u64::from(timing.period_seconds.unsigned_abs()) * 1000;
                // failureThreshold × periodSeconds ≥ start time + two periods.
                let needed = start_ms.div_ceil(period) + 2;
                timing.failure_threshold = i32::try_from(needed).ok()? + extra;
                let mut c = ContainerSpec::new("app", "example/app:1.0")
                    .with_probe(ProbeKind::Startup, ProbeSpec::new(h, timing).ok()?);
                for (kind, probe) in [
                    (ProbeKind::Readiness, readiness),
                    (ProbeKind::Liveness, liveness),
                ] {
                    if let Some((h, t)) = probe {
                        c = c.with_probe(kind, ProbeSpec::new(h, t).ok()?);
                    }
                }
                let grpc = c
                    .probes
                    .iter()
                    .flatten()
                    .any(|p| matches!(p.handler(), Handler::Grpc { .. }));
                if (grpc && !profile.grpc_probes()) || !profile.gate(Gate::StartupProbe) {
                    return None;
                }
                let mut pod = PodSpec::new("slow").with_container(c);
                pod.restart_policy = policy;
                Some(SlowStarter {
                    pod,
                    profile,
                    seed,
                    started_ago: ago,
                    start_time: SimDuration::from_millis(start_ms),
                })
            },
        )
}

proptest! {
    #![proptest_config(config(128))]

    /// With a startup probe whose failureThreshold × periodSeconds exceeds the app's start time
    /// by at least two periods, an app that starts within that time is never killed, and it is
    /// reported started (README; P30, P33–P35, R13). The app is `refused for X then ok` (exec:
    /// `exit 1` then `exit 0`) on every probe, a closure over the instance's uptime.
    #[test]
    fn a_startup_probe_with_two_periods_to_spare_never_kills_an_app_that_starts_in_time(
        s in slow_starter(),
    ) {
        let horizon = SimTime::from_secs(1800);
        let mut behaviours = Behaviours::new(&s.pod);
        for kind in ProbeKind::ALL {
            let Some(probe) = s.pod.containers[0].probe(kind) else { continue };
            let exec = matches!(probe.handler(), Handler::Exec { .. });
            let start_time = s.start_time;
            let app = move |a: &Attempt| {
                Response::now(match (a.uptime < start_time, exec) {
                    (true, true) => Answer::Exit(1),
                    (true, false) => Answer::Refused,
                    (false, _) => Answer::Ok,
                })
            };
            let index = behaviours.add(Box::new(app));
            behaviours.bind(0, kind, index);
        }
        let kubelet = KubeletConfig { started_ago: s.started_ago, ..KubeletConfig::default() };
        let sim = Simulation::new(s.pod.clone(), s.profile.clone(), kubelet, s.seed, behaviours);
        let run = simulate(sim, horizon);
        prop_assert_eq!(run.settled, Ok(()));
        for (t, seen) in &run.events {
            prop_assert!(!matches!(seen, Seen::Kill { .. }), "t={}: killed: {:?}", t, seen);
        }
        prop_assert!(
            run.status.containers[0].started,
            "not started by {}: {:?}", horizon, run.status.containers[0]
        );
    }
}

// Minimal reproducers of the engine bugs the properties above found, kept as regression tests:
// workers that AddPod re-creates for a container gone for good made the kubelet spin at one
// instant (now paced by the next relist, R4), and a probe answer arriving after its process
// died counted as a success (now the connection is reset when the process dies).

fn http_probe(timing: ProbeTiming) -> ProbeSpec {
    let handler = Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port: Port::Number(8080),
        path: "/".into(),
    };
    ProbeSpec::new(handler, timing).expect("a valid probe")
}

/// Found by `every_run_settles`. On 1.37 (P7: AddPod skips only existing workers), once two
/// probe workers have stopped because their containers exited for good (P27: restartPolicy
/// Never, or OnFailure after code 0), while another container keeps the pod Running, each sync
/// re-creates the stopped workers (P7, P8); a re-created worker records its initial value and
/// then Failure at once (P25, P27) and stops again, and that update requests the next sync (R1,
/// R2), which re-creates the other one, and so on, all at one instant: the run ends in
/// `RunError::StepBudget`. It does not matter whether the two workers belong to one container
/// or two, nor which kinds they are. Here: `app` (readiness and liveness) exits 0 at 2 s and is
/// not restarted, `other` keeps running; at the readiness tick at 11 s the spin begins.
#[test]
fn a_terminated_container_with_two_probes_does_not_make_the_kubelet_spin() {
    let mut app = ContainerSpec::new("app", "example/app:1.0")
        .with_probe(ProbeKind::Readiness, http_probe(ProbeTiming::default()))
        .with_probe(ProbeKind::Liveness, http_probe(ProbeTiming::default()));
    app.app.exit = Some(SelfExit {
        code: 0,
        after: SimDuration::from_secs(2),
    });
    let mut pod = PodSpec::new("p")
        .with_container(app)
        .with_container(ContainerSpec::new("other", "example/app:1.0"));
    pod.restart_policy = RestartPolicy::Never;
    let behaviours = Behaviours::new(&pod);
    let sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    );
    let run = simulate(sim, SimTime::from_secs(60));
    assert_eq!(run.settled, Ok(()));
}

/// A container whose app refuses probes until 20 s of uptime, then answers `ok` after 1.5 s,
/// and exits by itself with code 1 at `exit_after`; restartPolicy Never, profile 1.37.
fn late_success(kind: ProbeKind, exit_after: SimDuration) -> Run {
    let timing = ProbeTiming {
        timeout_seconds: 2,
        failure_threshold: 5,
        ..ProbeTiming::default()
    };
    let mut app = ContainerSpec::new("app", "example/app:1.0").with_probe(kind, http_probe(timing));
    app.app.exit = Some(SelfExit {
        code: 1,
        after: exit_after,
    });
    let mut pod = PodSpec::new("p").with_container(app);
    pod.restart_policy = RestartPolicy::Never;
    let mut behaviours = Behaviours::new(&pod);
    let answers = behaviours.add(Box::new(|a: &Attempt| {
        if a.uptime < SimDuration::from_secs(20) {
            Response::now(Answer::Refused)
        } else {
            Response {
                answer: Answer::Ok,
                latency: SimDuration::from_millis(1500),
            }
        }
    }));
    behaviours.bind(0, kind, answers);
    let sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    );
    simulate(sim, SimTime::from_secs(60))
}

/// Found by `the_api_shows_ready_or_started_only_while_running`. The readiness probe begins at 21 s
/// (answer decided then, docs/semantics.md#mid-answer), the process exits at 21.5 s, the PLEG sync
/// at 22 s writes `terminated` and phase Failed, and at 22.5 s the probe's success sets
/// `ready=true` (and pod `Ready=true`) on the terminated container; the pod is terminal, so no sync
/// ever corrects it and the final status says terminated, ready.
#[test]
fn a_readiness_success_arriving_after_the_exit_does_not_make_a_dead_container_ready() {
    let run = late_success(ProbeKind::Readiness, SimDuration::from_millis(21_500));
    let status = run.status.containers[0];
    assert_eq!(run.status.phase, Phase::Failed);
    assert_eq!(status.state.name(), "terminated");
    assert!(!status.ready, "{status:?}");
    assert!(!run.status.conditions.ready, "{:?}", run.status.conditions);
}

/// The same race for startup: the probe begins at 20 s, the process exits at 20.5 s, the
/// status at 21 s says terminated (phase Failed), and at 21.5 s the success sets
/// `started=true` on the terminated container for good.
#[test]
fn a_startup_success_arriving_after_the_exit_does_not_mark_a_dead_container_started() {
    let run = late_success(ProbeKind::Startup, SimDuration::from_millis(20_500));
    let status = run.status.containers[0];
    assert_eq!(run.status.phase, Phase::Failed);
    assert_eq!(status.state.name(), "terminated");
    assert!(!status.started, "{status:?}");
}

// Minimal reproducers of the engine bugs the properties on init containers, sidecars, deletion and
// kubelet restarts found, kept as regression tests: a pod deleted while initializing ended
// Pending, a kubelet restart marked a running init container ready, and a sidecar outlived a pod
// that its failed init container had made Failed.

/// Runs `pod` on 1.37 to `secs` with every probe answering `ok`, after `plan` (a deletion, a
/// kubelet restart), and returns the events and the final status.
fn run_pod(pod: PodSpec, plan: impl FnOnce(&mut Simulation), secs: u64) -> Run {
    run_pod_on(probesim_core::profile::NEWEST_MINOR, pod, plan, secs)
}

/// A container whose process exits by itself with `code` after `secs` seconds.
fn exiting(name: &str, code: i32, secs: u64) -> ContainerSpec {
    let mut c = ContainerSpec::new(name, "busybox");
    c.app.exit = Some(SelfExit {
        code,
        after: SimDuration::from_secs(secs),
    });
    c
}

/// Found by `a_deleted_pod_ends_succeeded_or_failed_with_every_container_stopped`. A pod
/// deleted before it initialized keeps phase Pending for good: `setup` (an init container that
/// would complete at 60 s) runs, the pod is deleted at 10 s, `setup` is killed (143) and the pod
/// object is removed at 11 s, but the final status still says Pending, because `getPhase` counts
/// the never-started `app` as waiting. The kubelet's `TerminatePod` turns a Pending or Running
/// phase into Failed before the pod is removed, and docs/versions.md ("Deletion before 1.27")
/// promises Succeeded or Failed in every profile.
#[test]
fn a_pod_deleted_while_it_initializes_ends_failed() {
    let pod = PodSpec::new("p")
        .with_init_container(exiting("setup", 0, 60))
        .with_container(ContainerSpec::new("app", "example/app:1.0"));
    let run = run_pod(pod, |s| s.delete_at(SimTime::from_secs(10), None), 120);
    assert!(run
        .events
        .contains(&(SimTime::from_secs(11), Seen::Deleted)));
    assert!(run.status.removed);
    assert_eq!(run.status.phase, Phase::Failed);
}

/// Found by `the_api_shows_ready_or_started_only_while_running`. After a kubelet restart on
/// 1.35 or later (gate `ChangeContainerStatusOnKubeletRestart` off), the restart's sync marks a
/// running regular init container `ready`, and with it the pod `Initialized`, while it still
/// runs: `setup` runs from 0 s to 60 s, the kubelet restarts at 30 s, and at 30 s the API shows
/// `setup` running with `ready: true`. A regular init container is ready only once it exited
/// with 0 (P46); the kubelet-restart preservation of `ready` (P45.3) applies to regular
/// containers and sidecars only (`UpdatePodStatus` skips non-restartable init containers
/// before computing readiness).
#[test]
fn a_kubelet_restart_does_not_make_a_running_init_container_ready() {
    let pod = PodSpec::new("p")
        .with_init_container(exiting("setup", 0, 60))
        .with_container(ContainerSpec::new("app", "example/app:1.0"));
    let run = run_pod(pod, |s| s.restart_kubelet_at(SimTime::from_secs(30)), 40);
    let setup = run.status.init_containers[0];
    assert!(is_running(&setup), "{setup:?}");
    assert!(!setup.ready, "{setup:?}");
    assert!(!run.status.conditions.initialized);
}

/// Found by `a_terminal_pod_keeps_no_container_running`. Under restartPolicy Never, a regular
/// init container that fails after a sidecar started makes the pod Failed (R43 rule 1), and
/// then the sidecar runs for ever: `proxy` (a sidecar) starts at 0 s, `setup` starts at 1 s
/// and exits with 1 at 6 s, the sync at 7 s writes phase Failed and stops there, and `proxy` is
/// never killed (it still shows running and ready at the end). The kubelet kills what is left of
/// a terminal pod (R45: SyncTerminatingPod; R18: a failed init container under Never is a
/// KillPod, which stops the sidecars, R61).
#[test]
fn a_sidecar_is_stopped_when_an_init_container_fails_a_never_pod() {
    let mut proxy = ContainerSpec::new("proxy", "example/proxy:1.0");
    proxy.restartable = true;
    let mut pod = PodSpec::new("p")
        .with_init_container(proxy)
        .with_init_container(exiting("setup", 1, 5))
        .with_container(ContainerSpec::new("app", "example/app:1.0"));
    pod.restart_policy = RestartPolicy::Never;
    let run = run_pod(pod, |_| {}, 120);
    assert_eq!(run.status.phase, Phase::Failed);
    assert!(
        run.events.iter().any(|(_, s)| matches!(
            s,
            Seen::Kill {
                c: 0,
                reason: KillReason::Unknown,
                ..
            }
        )),
        "proxy is never killed"
    );
    assert_eq!(running_after(&run.events, 3), [false, false, false]);
    assert!(!is_running(&run.status.init_containers[0]));
}

/// R43: before 1.27 nothing forces a deleted pod into a terminal phase; the restart policy
/// decides, so an `Always` pod whose only container was stopped by the deletion is removed while
/// its last phase reads Running. From 1.27 (podIsTerminal, `TerminatePod`) it ends Succeeded or
/// Failed, and one deleted while its init container runs ends Failed rather than Pending.
#[test]
fn deleted_pods_are_forced_terminal_only_from_1_27() {
    for (minor, forced) in [(26, false), (27, true)] {
        let pod = PodSpec::new("p").with_container(ContainerSpec::new("app", "example/app:1.0"));
        let run = run_pod_on(
            minor,
            pod,
            |s| s.delete_at(SimTime::from_secs(10), None),
            120,
        );
        assert!(run.status.removed, "1.{minor}");
        assert_eq!(
            run.status.phase.is_terminal(),
            forced,
            "1.{minor}: {:?}",
            run.status.phase
        );
        if !forced {
            assert_eq!(run.status.phase, Phase::Running, "1.{minor}");
        }

        let pod = PodSpec::new("p")
            .with_init_container(exiting("setup", 0, 60))
            .with_container(ContainerSpec::new("app", "example/app:1.0"));
        let run = run_pod_on(
            minor,
            pod,
            |s| s.delete_at(SimTime::from_secs(10), None),
            120,
        );
        assert!(run.status.removed, "1.{minor}");
        let expected = if forced {
            Phase::Failed
        } else {
            Phase::Pending
        };
        assert_eq!(run.status.phase, expected, "1.{minor}");
    }
}

fn run_pod_on(minor: u8, pod: PodSpec, plan: impl FnOnce(&mut Simulation), secs: u64) -> Run {
    let behaviours = Behaviours::new(&pod);
    let profile = Profile::for_minor(minor).expect("a modelled minor");
    let mut sim = Simulation::new(pod, profile, KubeletConfig::default(), 0, behaviours);
    plan(&mut sim);
    simulate(sim, SimTime::from_secs(secs))
}
