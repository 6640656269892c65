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
mod examples;
mod lifecycle;
