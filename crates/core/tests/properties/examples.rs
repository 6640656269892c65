//! Single cases the properties once found, and start-up budgets of slow starters, each pinned
//! as an example.

use super::*;

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
