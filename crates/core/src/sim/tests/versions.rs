//! Version differences: each profile switch against its neighbours (docs/versions.md).

use super::*;

#[test]
fn exec_timeouts_are_reported_by_version() {
    // P48: 1.19 an error (retried, discarded) with the runtime's raw gRPC error; 1.20–1.22 a
    // failure with empty output; 1.23–1.30 `command "…" timed out`; from 1.31 `command timed
    // out: "…" timed out after 1s`. With `ExecProbeTimeout` off (1.20–1.34) an error whose text
    // is the runtime client's error of the release.
    let exec = || Handler::Exec {
        command: vec!["sleep".into(), "10".into()],
    };
    let cases = [
        (
            19,
            true,
            "Liveness probe errored: rpc error: code = DeadlineExceeded desc = failed to exec in container: timeout 1s exceeded: context deadline exceeded",
        ),
        (22, true, "Liveness probe failed: "),
        (22, false, "Liveness probe errored: command \"sleep 10\" timed out"),
        (25, true, "Liveness probe failed: command \"sleep 10\" timed out"),
        (30, false, "Liveness probe errored: command \"sleep 10\" timed out"),
        (
            31,
            true,
            "Liveness probe failed: command timed out: \"sleep 10\" timed out after 1s",
        ),
        (
            34,
            false,
            "Liveness probe errored: command timed out: \"sleep 10\" timed out after 1s",
        ),
    ];
    for (m, gate, text) in cases {
        let mut profile = minor(m);
        if !gate {
            profile
                .set_gate("ExecProbeTimeout", false)
                .expect("settable");
        }
        let c = container("app").with_probe(ProbeKind::Liveness, probe(exec(), |_| {}));
        let b = per_instance(|_, _| Response {
            answer: Answer::Exit(0),
            latency: SimDuration::from_secs(10),
        });
        let old = KubeletConfig::default();
        let r = run_with(
            PodSpec::new("p").with_container(c),
            profile.clone(),
            old,
            vec![(0, ProbeKind::Liveness, b)],
            40,
        );
        let first = r.events("Unhealthy").into_iter().next().unwrap_or_default();
        assert!(first.ends_with(text), "1.{m}: {first}");
    }
}

#[test]
fn redirect_warnings_gain_their_prefix_in_1_24() {
    // P50.
    for (m, text) in [
        (23, "Liveness probe warning: "),
        (
            24,
            "Liveness probe warning: Probe terminated redirects, Response body: ",
        ),
    ] {
        let c = container("app").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
        let b = per_instance(|_, _| Response::now(Answer::Status(301)));
        let r = run_with(
            PodSpec::new("p").with_container(c),
            minor(m),
            KubeletConfig::default(),
            vec![(0, ProbeKind::Liveness, b)],
            30,
        );
        let first = r
            .events("ProbeWarning")
            .into_iter()
            .next()
            .unwrap_or_default();
        assert!(first.ends_with(text), "1.{m}: {first:?}");
    }
}

#[test]
fn event_wording_follows_the_release() {
    // R33, R56.
    let texts = |m: u8| {
        let r = run_with(
            crash_loop(RestartPolicy::Always),
            minor(m),
            KubeletConfig::default(),
            vec![],
            20,
        );
        let created = r.events("Created").into_iter().next().unwrap_or_default();
        let started = r.events("Started").into_iter().next().unwrap_or_default();
        let backoff = r.events("BackOff").into_iter().next().unwrap_or_default();
        (created, started, backoff)
    };
    let (c, s, b) = texts(25);
    assert!(c.ends_with("Created container app") && s.ends_with("Started container app"));
    assert!(b.ends_with("Back-off restarting failed container"), "{b}");
    let (c, _, b) = texts(26);
    assert!(c.ends_with("Created container app"));
    assert!(
        b.contains("Back-off restarting failed container app in pod crash_default("),
        "{b}"
    );
    let (c, s, _) = texts(33);
    assert!(c.ends_with("Created container: app") && s.ends_with("Started container app"));
    let (c, s, _) = texts(35);
    assert!(c.ends_with("Container created") && s.ends_with("Container started"));
}

#[test]
fn in_1_19_readiness_results_change_the_status_without_a_sync() {
    // P44, R2 (1.19): the prober manager writes `ready` itself; no pod sync follows. The
    // readiness worker's first doProbe comes after its start-up sleep (P14: always in 1.19).
    let c = container("app").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let r = run_with(
        PodSpec::new("p").with_container(c),
        minor(19),
        KubeletConfig::default(),
        vec![],
        30,
    );
    let ready = r.texts("ready");
    assert_eq!(ready.len(), 1, "{ready:?}");
    let t = r.records.iter().find(|x| x.kind == "ready").map(|x| x.t);
    let syncs_then: Vec<_> = r
        .records
        .iter()
        .filter(|x| x.kind == "sync" && Some(x.t) == t)
        .collect();
    assert!(syncs_then.is_empty(), "{syncs_then:?}");
}

#[test]
fn in_1_19_a_container_without_readiness_probe_is_ready_only_at_the_next_sync_after_startup() {
    // P44 (issue #95140): the startup success writes `started`, but `ready` is computed by the
    // next pod sync, here the periodic one 60 s after the PLEG sync at 1.
    let startup = probe(http(), |t| t.period_seconds = 2);
    let c = container("app").with_probe(ProbeKind::Startup, startup);
    let r = run_with(
        PodSpec::new("p").with_container(c),
        minor(19),
        KubeletConfig::default(),
        vec![],
        70,
    );
    assert_eq!(r.texts("ready"), ["61 ready: true"]);
    let r = run_with(
        PodSpec::new("p").with_container(
            container("app")
                .with_probe(ProbeKind::Startup, probe(http(), |t| t.period_seconds = 2)),
        ),
        minor(21),
        KubeletConfig::default(),
        vec![],
        70,
    );
    assert_eq!(r.texts("ready"), ["2 ready: true"]);
}

#[test]
fn in_1_21_only_a_readiness_worker_without_a_cached_result_is_triggered() {
    // P45: 1.21 triggers while the cache has no entry; from 1.22 while not ready (E9).
    let run_at = |m: u8| {
        let c = container("app").with_probe(
            ProbeKind::Readiness,
            probe(http(), |t| t.period_seconds = 30),
        );
        let b = per_instance(|_, _| Response::now(Answer::Status(503)));
        let r = run_with(
            PodSpec::new("p").with_container(c),
            minor(m),
            KubeletConfig::default(),
            vec![(0, ProbeKind::Readiness, b)],
            70,
        );
        r.times("probe")
    };
    assert_eq!(run_at(21), ["1", "30", "60"]);
    // 2: the initial Failure's sync waits for the relist (R4); 62: the resync after it.
    assert_eq!(run_at(22), ["1", "2", "30", "60", "62"]);
}

#[test]
fn probe_level_grace_periods_count_from_1_25_by_default() {
    // R22, P60: gate ProbeTerminationGracePeriod beta off 1.22–1.24, on from 1.25.
    for (m, grace) in [(24, "30s"), (25, "5s")] {
        let mut pod = kubia();
        pod.containers[0].probes[ProbeKind::Liveness.index()] = Some(probe(http(), |t| {
            t.termination_grace_period_seconds = Some(5)
        }));
        let r = run_with(
            pod,
            minor(m),
            KubeletConfig {
                started_ago: SimDuration::from_secs(3600),
                ..KubeletConfig::default()
            },
            vec![(0, ProbeKind::Liveness, five_ok_then_500())],
            200,
        );
        let kill = r.texts("kill").into_iter().next().unwrap_or_default();
        assert!(
            kill.ends_with(&format!("grace period {grace}")),
            "1.{m}: {kill}"
        );
    }
}

#[test]
fn the_pod_ready_to_start_containers_condition_arrives_in_1_29() {
    // R42.
    let pod = || PodSpec::new("p").with_container(container("app"));
    let r = run_with(pod(), minor(28), KubeletConfig::default(), vec![], 5);
    assert_eq!(r.sim.status().conditions.ready_to_start_containers, None);
    let r = run_with(pod(), minor(29), KubeletConfig::default(), vec![], 5);
    assert_eq!(
        r.sim.status().conditions.ready_to_start_containers,
        Some(true)
    );
}

#[test]
fn sidecar_readiness_counts_in_pod_readiness_from_1_29() {
    // R42: a sidecar that never becomes ready keeps the pod un-Ready from 1.29 only.
    let proxy = sidecar("proxy").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let pod = || {
        PodSpec::new("p")
            .with_init_container(proxy.clone())
            .with_container(container("app"))
    };
    let ready = |p: Profile| {
        let refused = per_instance(|_, _| Response::now(Answer::Refused));
        let r = run_with(
            pod(),
            p,
            KubeletConfig::default(),
            vec![(0, ProbeKind::Readiness, refused)],
            60,
        );
        r.sim.status().conditions.ready
    };
    let mut p28 = minor(28);
    p28.set_gate("SidecarContainers", true).expect("settable");
    assert!(ready(p28));
    assert!(!ready(minor(29)));
}

#[test]
fn sidecars_are_signalled_at_once_in_1_28() {
    // R24, R61: the termination ordering came with the sidecar beta (1.29): the earlier
    // sidecar waits for the later one only from 1.29.
    let mut app = container("app");
    app.app.exit = Some(SelfExit {
        code: 0,
        after: SimDuration::from_secs(5),
    });
    let slow = |name: &str, after: u64| {
        let mut s = sidecar(name);
        s.app.sigterm = Sigterm::Exit {
            code: Some(0),
            after: SimDuration::from_secs(after),
        };
        s
    };
    let pod = || {
        let mut pod = PodSpec::new("p")
            .with_init_container(slow("first", 1))
            .with_init_container(slow("second", 4))
            .with_container(app.clone());
        pod.restart_policy = RestartPolicy::OnFailure;
        pod
    };
    let exits = |p: Profile| run_with(pod(), p, KubeletConfig::default(), vec![], 40).texts("exit");
    let mut p28 = minor(28);
    p28.set_gate("SidecarContainers", true).expect("settable");
    let at_once = exits(p28);
    let ordered = exits(minor(29));
    // The app exits at 7 s and the pod is killed at 8 s. 1.28: "first" exits 1 s later, at
    // 9 s, "second" at 12 s. 1.29: "first" waits for "second" (12 s), then takes 1 s.
    assert_eq!(
        at_once,
        [
            "7 exit code 0 (Completed)",
            "9 exit code 0 (Completed)",
            "12 exit code 0 (Completed)"
        ]
    );
    assert_eq!(
        ordered,
        [
            "7 exit code 0 (Completed)",
            "12 exit code 0 (Completed)",
            "13 exit code 0 (Completed)"
        ]
    );
}

#[test]
fn readiness_gates_keep_the_pod_from_ready() {
    // R42: Ready also needs every readiness gate's condition, which nothing here sets;
    // ContainersReady follows the containers alone.
    let mut pod = PodSpec::new("p").with_container(container("app"));
    pod.readiness_gates = 1;
    let r = run(pod, vec![], 30);
    let c = r.sim.status().conditions;
    assert!(c.containers_ready);
    assert!(!c.ready);
    assert!(r.texts("podReady").is_empty());
}

#[test]
fn a_finished_pod_is_no_longer_ready_to_start_containers() {
    // R42, GeneratePodReadyToStartContainersCondition: the whole-pod kill of a pod that is done
    // stops its sandbox, so the condition is False from the next status on.
    let r = run(job_with_a_sidecar(), vec![], 30);
    assert_eq!(r.sim.status().phase, Phase::Succeeded);
    assert_eq!(
        r.sim.status().conditions.ready_to_start_containers,
        Some(false)
    );
}

#[test]
fn a_node_maximum_caps_the_back_off_from_1_35() {
    // R28: KubeletCrashLoopBackOffMax is beta and on from 1.35; before, the node setting is
    // ignored unless the gate is turned on.
    let kubelet = KubeletConfig {
        max_container_restart_period: Some(SimDuration::from_secs(30)),
        ..KubeletConfig::default()
    };
    let backoffs = |p: Profile| {
        let r = run_with(crash_loop(RestartPolicy::Always), p, kubelet, vec![], 400);
        let mut seen: Vec<String> = r
            .records
            .iter()
            .filter(|x| x.kind == "backoff")
            .map(|x| x.text.clone())
            .collect();
        seen.dedup();
        seen
    };
    let capped = backoffs(minor(35));
    assert!(
        capped
            .iter()
            .all(|b| b.ends_with("10s") || b.ends_with("20s") || b.ends_with("30s")),
        "{capped:?}"
    );
    assert!(capped.iter().any(|b| b.ends_with("30s")));
    let uncapped = backoffs(minor(34));
    assert!(uncapped.iter().any(|b| b.ends_with("40s")), "{uncapped:?}");
    let mut on = minor(34);
    on.set_gate("KubeletCrashLoopBackOffMax", true)
        .expect("settable in 1.34");
    assert!(!backoffs(on).iter().any(|b| b.ends_with("40s")));
}

#[test]
fn the_reduced_decay_gate_starts_at_one_second_and_caps_at_a_minute() {
    // R28, R31: 0, 1, 2, 4, 8, 16, 32, 60, 60 … The 1 s back-off never refuses a start: the
    // PLEG notices the exit one second later, when it has already passed. The 60 s cap holds
    // only while KubeletCrashLoopBackOffMax is off (as in 1.34).
    let backoffs = |p: Profile| {
        let r = run_with(
            crash_loop(RestartPolicy::Always),
            p,
            KubeletConfig::default(),
            vec![],
            800,
        );
        let mut seen: Vec<String> = r
            .records
            .iter()
            .filter(|x| x.kind == "backoff")
            .map(|x| x.text.rsplit(' ').next().unwrap_or_default().to_owned())
            .collect();
        seen.dedup();
        seen
    };
    let mut p = minor(34);
    p.set_gate("ReduceDefaultCrashLoopBackOffDecay", true)
        .expect("settable");
    assert_eq!(backoffs(p), ["2s", "4s", "8s", "16s", "32s", "1m0s"]);
    // From 1.35 the max gate is on, and an unset node maximum defaults to 300 s.
    let mut p = minor(37);
    p.set_gate("ReduceDefaultCrashLoopBackOffDecay", true)
        .expect("settable");
    assert_eq!(
        backoffs(p),
        ["2s", "4s", "8s", "16s", "32s", "1m4s", "2m8s", "4m16s", "5m0s"]
    );
}

#[test]
fn in_1_19_a_startup_failure_waits_for_the_next_sync_to_kill() {
    // R2 (1.19): startup results do not trigger a sync; the periodic one acts on them.
    let startup = probe(http(), |t| t.failure_threshold = 3);
    let c = container("app").with_probe(ProbeKind::Startup, startup);
    let kubelet = KubeletConfig::default();
    let refuse = || per_instance(|_, _| Response::now(Answer::Refused));
    let r = run_with(
        PodSpec::new("p").with_container(c.clone()),
        minor(19),
        kubelet,
        vec![(0, ProbeKind::Startup, refuse())],
        90,
    );
    let failure = r
        .records
        .iter()
        .find(|x| x.kind == "result" && x.text.ends_with("Failure"))
        .map(|x| x.t);
    let kill = r.records.iter().find(|x| x.kind == "kill").map(|x| x.t);
    // The PLEG sync at 1 requeues at 61: the kill comes then, not at the Failure.
    assert!(
        failure.is_some_and(|f| f < SimTime::from_secs(61)),
        "{failure:?}"
    );
    assert_eq!(kill, Some(SimTime::from_secs(61)));
    let r = run_with(
        PodSpec::new("p").with_container(c),
        minor(21),
        kubelet,
        vec![(0, ProbeKind::Startup, refuse())],
        90,
    );
    assert_eq!(r.times("kill").first().map(String::as_str), Some("30"));
}

#[test]
fn a_sidecar_gets_the_whole_grace_period_when_no_regular_container_runs() {
    // R24, R61: the termination order only waits for regular containers that are running.
    let proxy = sidecar("proxy").with_probe(ProbeKind::Startup, probe(http(), |_| {}));
    let mut proxy = proxy;
    proxy.app.sigterm = Sigterm::Ignore;
    let pod = PodSpec::new("p")
        .with_init_container(proxy)
        .with_container(container("app"));
    let refuse = per_instance(|_, _| Response::now(Answer::Refused));
    let behaviours = {
        let mut b = Behaviours::new(&pod);
        let i = b.add(refuse);
        b.bind(0, ProbeKind::Startup, i);
        b
    };
    let mut sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        7,
        behaviours,
    );
    sim.delete_at(SimTime::from_secs(25), None);
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(100), &mut sink)
        .expect("run");
    let kills: Vec<_> = sink
        .records
        .iter()
        .filter(|x| x.kind == "kill")
        .map(|x| format!("{} {}", x.t, x.text))
        .collect();
    assert_eq!(kills, ["25 Deletion, grace period 30s"]);
}
