//! Deletion, preStop hooks and kubelet restarts (P12, P14, P25, P45, R22–R25).

use super::*;

fn run_plan(
    pod: PodSpec,
    profile: Profile,
    kubelet: KubeletConfig,
    plan: impl FnOnce(&mut Simulation),
    secs: u64,
) -> Run {
    let behaviours = Behaviours::new(&pod);
    let mut sim = Simulation::new(pod, profile, kubelet, 7, behaviours);
    plan(&mut sim);
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(secs), &mut sink)
        .expect("run");
    Run {
        records: sink.records,
        sim,
    }
}

fn healthy() -> PodSpec {
    let mut c = container("app")
        .with_probe(ProbeKind::Readiness, probe(http(), |_| {}))
        .with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    c.app.sigterm = Sigterm::Exit {
        code: None,
        after: SimDuration::from_secs(3),
    };
    PodSpec::new("p").with_container(c)
}

#[test]
fn deletion_stops_liveness_kills_with_the_deletion_grace_and_removes_the_pod() {
    // P12 (≥1.23), R22 step 1, R23, R43 (podIsTerminal).
    let r = run_plan(
        healthy(),
        Profile::newest(),
        KubeletConfig::default(),
        |s| s.delete_at(SimTime::from_secs(95), Some(SimDuration::from_secs(10))),
        200,
    );
    assert_eq!(r.texts("delete"), ["95 pod deleted (grace period 10s)"]);
    assert_eq!(r.texts("kill"), ["95 Deletion, grace period 10s"]);
    assert_eq!(
        r.events("Killing"),
        ["95 Normal Killing: Stopping container app"]
    );
    assert_eq!(r.texts("exit"), ["98 exit code 143 (Error)"]);
    assert_eq!(
        r.texts("deleted"),
        ["99 pod object removed from the API server"]
    );
    assert_eq!(r.sim.status().phase, Phase::Failed);
    // Liveness stopped at 95: its tick at 100 would be after the deletion anyway; readiness
    // (trigger-reset grid 1, 11, …, 91) probes until the containers are gone.
    let after: Vec<_> = r
        .records
        .iter()
        .filter(|x| x.kind == "probe" && x.t > SimTime::from_secs(95))
        .collect();
    assert!(after.is_empty(), "{after:?}");
    assert_eq!(r.times("start"), ["0"]);
}

#[test]
fn before_1_23_liveness_keeps_probing_while_the_pod_terminates() {
    // P12 is absent before 1.23: the liveness worker runs until RemovePod.
    let pod = healthy();
    let profile = Profile::for_minor(22).expect("1.22");
    let r = run_plan(
        pod,
        profile,
        KubeletConfig::default(),
        |s| s.delete_at(SimTime::from_secs(95), None),
        200,
    );
    // Grace 30 s, exit after 3 s at 98; the liveness tick at 100 … is gone by then, so look at
    // a slower exit instead.
    assert_eq!(r.texts("exit"), ["98 exit code 143 (Error)"]);
    let mut slow = healthy();
    slow.containers[0].app.sigterm = Sigterm::Ignore;
    let r = run_plan(
        slow,
        Profile::for_minor(22).expect("1.22"),
        KubeletConfig::default(),
        |s| s.delete_at(SimTime::from_secs(95), None),
        200,
    );
    let liveness: Vec<_> = r
        .records
        .iter()
        .filter(|x| {
            x.kind == "probe" && x.text.starts_with("liveness") && x.t > SimTime::from_secs(95)
        })
        .map(|x| x.t.to_string())
        .collect();
    assert_eq!(liveness, ["100", "110", "120"]);
    let r = run_plan(
        {
            let mut p = healthy();
            p.containers[0].app.sigterm = Sigterm::Ignore;
            p
        },
        Profile::newest(),
        KubeletConfig::default(),
        |s| s.delete_at(SimTime::from_secs(95), None),
        200,
    );
    let liveness: Vec<_> = r
        .records
        .iter()
        .filter(|x| {
            x.kind == "probe" && x.text.starts_with("liveness") && x.t > SimTime::from_secs(95)
        })
        .collect();
    assert!(liveness.is_empty());
}

#[test]
fn a_pre_stop_hook_delays_the_signal_and_takes_its_whole_seconds_from_the_grace_period() {
    // R24: Killing at 80, hook until 85.5, SIGTERM then with 30 - 5 = 25 s left: SIGKILL at 110.5.
    let mut pod = kubia();
    pod.containers[0].app.pre_stop = Some(SimDuration::from_millis(5500));
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 120);
    assert_eq!(r.texts("exit"), ["110.5 exit code 137 (Error)"]);
    // A hook longer than the grace period is cut off; 2 s remain for the signal.
    let mut pod = kubia();
    pod.containers[0].app.pre_stop = Some(SimDuration::from_secs(45));
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 120);
    assert_eq!(r.texts("exit"), ["112 exit code 137 (Error)"]);
}

#[test]
fn a_kubelet_restart_on_1_37_keeps_a_ready_container_ready() {
    // P14 (young kubelet: seeded sleep), P25 and P45 with ChangeContainerStatusOnKubeletRestart
    // off: no initial Failure for the old container, readiness preserved.
    let r = run_plan(
        healthy(),
        Profile::newest(),
        KubeletConfig::default(),
        |s| s.restart_kubelet_at(SimTime::from_secs(300)),
        400,
    );
    assert_eq!(r.texts("kubeletRestart"), ["300 the kubelet restarted"]);
    assert_eq!(r.texts("ready"), ["1 ready: true"]);
    // The first probes after the restart record their result for the first time (an update,
    // P42), but no initial Failure precedes them.
    let results_after: Vec<_> = r
        .records
        .iter()
        .filter(|x| x.kind == "result" && x.t >= SimTime::from_secs(300))
        .map(|x| x.text.clone())
        .collect();
    assert_eq!(
        results_after,
        ["readiness result: Success", "liveness result: Success"]
    );
    // The new workers sleep a seeded part of their period, so they do not all probe at 300.
    let first = r
        .records
        .iter()
        .find(|x| x.kind == "probe" && x.t >= SimTime::from_secs(300))
        .map(|x| x.t);
    assert!(
        first.is_some_and(|t| t > SimTime::from_secs(300) && t < SimTime::from_secs(310)),
        "{first:?}"
    );
}

#[test]
fn a_kubelet_restart_on_1_37_keeps_an_unready_container_unready() {
    // P45 (setReadyStateOnKubeletRestart): at the first sync after the restart the readiness
    // worker does not exist yet, which alone would make the container ready; the pod was not
    // Ready, so the container with a readiness probe stays not ready.
    let ok = container("ok").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let failing = container("failing").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let pod = PodSpec::new("p").with_container(ok).with_container(failing);
    let mut behaviours = Behaviours::new(&pod);
    let refused = behaviours.add(per_instance(|_, _| Response::now(Answer::Refused)));
    behaviours.bind(1, ProbeKind::Readiness, refused);
    let mut sim = Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        7,
        behaviours,
    );
    sim.restart_kubelet_at(SimTime::from_secs(60));
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(120), &mut sink)
        .expect("run");
    let ready: Vec<_> = sink
        .records
        .iter()
        .filter(|x| x.kind == "ready" || x.kind == "podReady")
        .map(|x| format!("{} {:?} {}", x.t, x.container, x.text))
        .collect();
    assert!(
        sink.records
            .iter()
            .all(|x| x.kind != "podReady" || x.text.ends_with("false")),
        "{ready:?}"
    );
    assert!(
        !ready
            .iter()
            .any(|x| x.contains("failing") && x.ends_with("true")),
        "{ready:?}"
    );
    assert!(!sim.status().containers[1].ready);
}

#[test]
fn after_a_kubelet_restart_a_started_sidecar_gets_startup_success_from_1_36() {
    // P25 (1.36+): the sidecar's new startup worker records Success for the old container
    // because its status already says started; 1.35 records nothing for it.
    let side = sidecar("proxy").with_probe(ProbeKind::Startup, probe(http(), |_| {}));
    let pod = || {
        PodSpec::new("p")
            .with_init_container(side.clone())
            .with_container(container("app"))
    };
    let results_after = |m: u8| {
        let r = run_plan(
            pod(),
            minor(m),
            KubeletConfig::default(),
            |s| s.restart_kubelet_at(SimTime::from_secs(60)),
            120,
        );
        assert!(r.sim.status().init_containers[0].started);
        r.records
            .iter()
            .filter(|x| x.kind == "result" && x.t >= SimTime::from_secs(60))
            .map(|x| x.text.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(results_after(37), ["startup result: Success"]);
    assert_eq!(results_after(36), ["startup result: Success"]);
    assert_eq!(results_after(35), Vec::<String>::new());
}

#[test]
fn a_kubelet_restart_before_1_35_flaps_readiness() {
    // P25: the new readiness worker records its initial Failure for the running container.
    let profile = Profile::for_minor(34).expect("1.34");
    let r = run_plan(
        healthy(),
        profile,
        KubeletConfig::default(),
        |s| s.restart_kubelet_at(SimTime::from_secs(300)),
        400,
    );
    let ready: Vec<_> = r.texts("ready");
    assert_eq!(ready.len(), 3, "{ready:?}");
    assert!(ready[1].ends_with("ready: false") && ready[2].ends_with("ready: true"));
}

#[test]
fn a_kubelet_restart_forgets_the_back_off() {
    // R27: the back-off entries live in the kubelet's memory.
    let r = run_plan(
        crash_loop(RestartPolicy::Always),
        Profile::newest(),
        KubeletConfig::default(),
        |s| s.restart_kubelet_at(SimTime::from_secs(200)),
        230,
    );
    // Without the restart: 0, 3, 15, 37, 79, 161, 323. With it, the container that died at 163
    // and waits until 323 starts at the restart's sync.
    assert_eq!(
        r.times("start"),
        ["0", "3", "15", "37", "79", "161", "200", "212"]
    );
}

#[test]
fn a_deletion_or_kubelet_restart_planned_between_two_legs_comes_at_its_instant() {
    // P14, R22, sim/facts.rs (`kubelet_timers_changed`): planned after a leg that ended between
    // two relists, a deletion or a kubelet restart comes at its instant, exactly as when it is
    // planned before the run, not at the next kubelet-wide item.
    let at = SimTime::from_millis(95_500);
    let plans: [fn(&mut Simulation, SimTime); 2] = [
        |s, at| s.delete_at(at, Some(SimDuration::from_secs(10))),
        |s, at| s.restart_kubelet_at(at),
    ];
    for plan in plans {
        let upfront = run_plan(
            healthy(),
            Profile::newest(),
            KubeletConfig::default(),
            |s| plan(s, at),
            200,
        );
        let pod = healthy();
        let behaviours = Behaviours::new(&pod);
        let mut sim = Simulation::new(
            pod,
            Profile::newest(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_millis(95_200), &mut sink)
            .expect("run");
        plan(&mut sim, at);
        sim.run_until(SimTime::from_secs(200), &mut sink)
            .expect("run");
        assert!(
            sink.records
                .iter()
                .any(|r| r.t == at && matches!(r.kind, "delete" | "kubeletRestart")),
            "{:#?}",
            sink.records
        );
        assert_eq!(sink.records, upfront.records);
    }
}
