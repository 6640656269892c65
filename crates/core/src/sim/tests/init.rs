//! Init containers and sidecars (R18, R58–R62, P6, P24, P46).

use super::*;

fn init_then_app(init_exit: SelfExit) -> PodSpec {
    let mut init = container("setup");
    init.app.exit = Some(init_exit);
    PodSpec::new("p")
        .with_init_container(init)
        .with_container(container("app"))
}

#[test]
fn regular_containers_start_after_the_init_container_completes() {
    // R18, computeInitContainerActions: the PLEG sync after the init container's exit starts
    // the regular container; until then it waits in PodInitializing and the pod is Pending.
    let pod = init_then_app(SelfExit {
        code: 0,
        after: SimDuration::from_secs(5),
    });
    let r = run(pod, vec![], 10);
    assert_eq!(
        r.texts("start"),
        [
            "0 new instance, restartCount 0",
            "6 new instance, restartCount 0"
        ]
    );
    assert_eq!(
        r.records
            .iter()
            .filter(|x| x.kind == "start")
            .map(|x| x.container.clone().unwrap_or_default())
            .collect::<Vec<_>>(),
        ["setup", "app"]
    );
    let st = r.sim.status();
    assert_eq!(st.init_containers[0].state.reason(), Some("Completed"));
    assert!(st.init_containers[0].ready);
    assert!(st.conditions.initialized);
    assert_eq!(r.texts("phase"), ["7 phase Running"]);
    let app: Vec<_> = r
        .records
        .iter()
        .filter(|x| x.kind == "status" && x.container.as_deref() == Some("app"))
        .map(|x| format!("{} {}", x.t, x.text))
        .collect();
    assert_eq!(
        app,
        [
            "0 waiting (PodInitializing), restartCount 0",
            "7 running (since 6s), restartCount 0"
        ]
    );
}

#[test]
fn a_failing_init_container_is_retried_with_back_off_and_blocks_the_pod() {
    // R18, R30: OnFailure/Always retry the init container through doBackOff.
    let pod = init_then_app(SelfExit {
        code: 1,
        after: SimDuration::from_secs(1),
    });
    let r = run(pod, vec![], 60);
    assert_eq!(r.times("start"), ["0", "2", "13", "34"]);
    assert_eq!(r.sim.status().phase, Phase::Pending);
    assert_eq!(
        r.sim.status().containers[0].state.reason(),
        Some("PodInitializing")
    );
    assert!(!r.sim.status().conditions.initialized);
}

#[test]
fn a_failed_init_container_fails_a_never_pod() {
    // R18, R43 rule 1.
    let mut pod = init_then_app(SelfExit {
        code: 1,
        after: SimDuration::from_secs(1),
    });
    pod.restart_policy = RestartPolicy::Never;
    let r = run(pod, vec![], 30);
    assert_eq!(r.times("start"), ["0"]);
    assert_eq!(r.texts("phase"), ["2 phase Failed"]);
}

#[test]
fn a_sidecar_without_startup_probe_lets_the_next_container_start_at_the_next_sync() {
    // R59, computeInitContainerActions: a running sidecar is initialized once seen running.
    let pod = PodSpec::new("p")
        .with_init_container(sidecar("proxy"))
        .with_container(container("app"));
    let r = run(pod, vec![], 10);
    assert_eq!(
        r.texts("start"),
        [
            "0 new instance, restartCount 0",
            "1 new instance, restartCount 0"
        ]
    );
    assert_eq!(r.sim.status().phase, Phase::Running);
    assert!(r.sim.status().conditions.ready);
}

#[test]
fn a_sidecar_failing_liveness_is_restarted_even_in_a_never_pod() {
    // R60: "Init container X failed liveness probe", no suffix, restarted regardless of policy.
    let mut proxy = sidecar("proxy").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    proxy.app.sigterm = Sigterm::Exit {
        code: None,
        after: SimDuration::ZERO,
    };
    let mut pod = PodSpec::new("p")
        .with_init_container(proxy)
        .with_container(container("app"));
    pod.restart_policy = RestartPolicy::Never;
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 100);
    assert_eq!(
        r.events("Killing"),
        ["80 Normal Killing: Init container proxy failed liveness probe"]
    );
    let killing = r
        .records
        .iter()
        .find(|x| x.text.contains("Killing"))
        .map(|x| x.container.clone());
    assert_eq!(killing, Some(Some("proxy".to_owned())));
    assert_eq!(r.times("start"), ["0", "1", "80"]);
    assert_eq!(r.sim.status().init_containers[0].restart_count, 1);
}

#[test]
fn a_pod_stays_initialized_while_its_sidecar_crash_loops() {
    // R42, GeneratePodInitializedCondition: once a regular container has started, a sidecar
    // that dies and waits in back-off does not make the pod uninitialized again.
    let mut proxy = sidecar("proxy");
    proxy.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(5),
    });
    let pod = PodSpec::new("p")
        .with_init_container(proxy)
        .with_container(container("app"));
    let r = run(pod, vec![], 40);
    let st = r.sim.status();
    // The sidecar died at 26 s and waits out a 20 s back-off.
    assert_eq!(st.init_containers[0].state.reason(), Some("Error"));
    assert!(!st.init_containers[0].started);
    assert!(st.conditions.initialized);
    assert_eq!(st.phase, Phase::Running);
}

#[test]
fn sidecars_do_not_keep_a_finished_pod_alive() {
    // R61, R43: the regular container completes; the pod is killed, the sidecar last.
    let r = run(job_with_a_sidecar(), vec![], 30);
    assert_eq!(
        r.events("Killing"),
        ["7 Normal Killing: Stopping container proxy"]
    );
    assert_eq!(r.sim.status().phase, Phase::Succeeded);
}

#[test]
fn sidecar_probes_get_workers_after_the_regular_containers() {
    // P6 (≥1.28): regular containers first, then restartable init containers.
    let proxy = sidecar("proxy").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let app = container("app").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let pod = PodSpec::new("p")
        .with_init_container(proxy)
        .with_container(app);
    // A young kubelet would jitter; an old one starts both grids at 0, so both workers tick at
    // 10, 20, … unless a trigger moved them. Keep triggers out: the 1.21 profile only triggers
    // workers without a cached entry, and the grid is not reset before 1.32.
    let profile = Profile::for_minor(31).expect("1.31");
    let r = run_with(pod, profile, KubeletConfig::default(), vec![], 30);
    let at_20: Vec<_> = r
        .records
        .iter()
        .filter(|x| x.kind == "probe" && x.t == SimTime::from_secs(20))
        .map(|x| x.container.clone().unwrap_or_default())
        .collect();
    assert_eq!(at_20, ["app", "proxy"]);
    assert!(r.sim.status().init_containers[0].ready);
    assert!(r.sim.status().conditions.ready);
}

#[test]
fn startup_probes_are_ignored_in_1_19_with_the_startup_probe_gate_off() {
    // P6 (1.19): without the gate no startup worker exists, so the container counts as started.
    let c = container("app").with_probe(ProbeKind::Startup, probe(http(), |_| {}));
    let mut profile = Profile::for_minor(19).expect("1.19");
    profile
        .set_gate("StartupProbe", false)
        .expect("settable in 1.19");
    let r = run_with(
        PodSpec::new("p").with_container(c),
        profile,
        KubeletConfig::default(),
        vec![],
        30,
    );
    assert!(r.times("probe").is_empty());
    assert_eq!(r.texts("started"), ["1 started: true"]);
}
