//! The runtime's durations (R65–R67): create and start latency, the time a stop takes to reach
//! the process, and image pulls with a first pull distinct from later ones.

use super::*;

fn latencies(start_ms: u64, kill_ms: u64) -> KubeletConfig {
    KubeletConfig {
        start_latency: SimDuration::from_millis(start_ms),
        kill_latency: SimDuration::from_millis(kill_ms),
        ..KubeletConfig::default()
    }
}

#[test]
fn a_start_latency_delays_created_started_and_the_process() {
    // R65: the sync blocks in CreateContainer/StartContainer; the events and the new process
    // come at their end (the liveness kill at 80 s, SIGKILL at 110 s).
    let r = run_with(
        kubia(),
        Profile::newest(),
        latencies(250, 0),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        120,
    );
    assert_eq!(r.times("start"), ["0.25", "110.25"]);
    assert_eq!(
        r.events("Created"),
        [
            "0.25 Normal Created: Container created",
            "110.25 Normal Created: Container created"
        ]
    );
    assert_eq!(r.texts("kill"), ["80 LivenessProbe, grace period 30s"]);
}

#[test]
fn a_kill_latency_lets_the_old_process_answer_the_probe_at_the_kill() {
    // R66: the signal reaches the process 20 ms after the kill; a readiness tick at the kill's
    // instant is answered by the old, hung process, so the pod never turns Ready at the kill
    // (the "Ready blip" of zero-latency timing).
    let mut c = container("web")
        .with_probe(
            ProbeKind::Readiness,
            probe(http(), |t| {
                t.initial_delay_seconds = 10;
                t.failure_threshold = 1;
            }),
        )
        .with_probe(
            ProbeKind::Liveness,
            probe(http(), |t| {
                t.initial_delay_seconds = 10;
            }),
        );
    c.app.sigterm = Sigterm::Exit {
        code: None,
        after: SimDuration::ZERO,
    };
    let pod = PodSpec::new("web").with_container(c);
    let hung = || {
        per_instance(|_, up| {
            if up < SimDuration::from_secs(60) {
                Response::now(Answer::Status(200))
            } else {
                Response::now(Answer::Timeout)
            }
        })
    };
    let ready_changes = |kubelet: KubeletConfig| {
        let mut behaviours = Behaviours::new(&pod);
        let b = behaviours.add(hung());
        behaviours.bind(0, ProbeKind::Readiness, b);
        behaviours.bind(0, ProbeKind::Liveness, b);
        let mut sim = Simulation::new(pod.clone(), Profile::newest(), kubelet, 7, behaviours);
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_secs(100), &mut sink)
            .expect("run");
        let kill = sink.records.iter().find(|x| x.kind == "kill").map(|x| x.t);
        let ready: Vec<String> = sink
            .records
            .iter()
            .filter(|x| x.kind == "podReady")
            .map(|x| format!("{} {}", x.t, x.text))
            .collect();
        (kill, ready)
    };
    let (kill, _) = ready_changes(KubeletConfig::default());
    let kill = kill.expect("a liveness kill");
    // With latencies the process starts 0.2 s later, so uptime 60 s falls after the tick at
    // 60 and the kill one period later; at no kill is the pod Ready.
    let (kill2, realistic) = ready_changes(latencies(200, 20));
    let kill2 = kill2.expect("a liveness kill");
    assert_eq!(kill2, kill.saturating_add(SimDuration::from_secs(10)));
    assert!(
        !realistic.contains(&format!("{kill2} pod Ready: true")),
        "{realistic:?}"
    );
}

#[test]
fn a_kill_latency_delays_the_signal_and_the_grace_period() {
    // R66, R25: SIGTERM reaches the process after the latency; the grace period runs from there.
    let mut pod = kubia();
    pod.containers[0].app.sigterm = Sigterm::Exit {
        code: None,
        after: SimDuration::from_secs(2),
    };
    let r = run_with(
        pod,
        Profile::newest(),
        latencies(0, 40),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        100,
    );
    assert_eq!(r.texts("kill"), ["80 LivenessProbe, grace period 30s"]);
    assert_eq!(r.times("exit"), ["82.04"]);
    assert_eq!(r.times("start"), ["0", "82.04"]);
}

#[test]
fn the_first_pull_differs_from_the_later_ones() {
    // R67: `Always` pulls on every start: the first pull takes `pull`, the later ones (the node
    // has the image) `pull_then`; the Pulled event says how long each took.
    let mut pod = kubia();
    let c = &mut pod.containers[0];
    c.pull_policy = PullPolicy::Always;
    c.app.pull = SimDuration::from_secs(29);
    c.app.pull_then = Some(SimDuration::from_millis(600));
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 200);
    let pulled: Vec<String> = r
        .events("Pulled")
        .into_iter()
        .map(|e| e.split(" (").next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        pulled,
        [
            "29 Normal Pulled: Successfully pulled image \"example/app:1.0\" in 29s",
            "130.6 Normal Pulled: Successfully pulled image \"example/app:1.0\" in 600ms",
        ]
    );
    assert_eq!(r.times("start"), ["29", "130.6"]);
}

#[test]
fn an_image_already_present_is_not_pulled_if_not_present() {
    // R67: `image: present` with `IfNotPresent`: no pull at all, the event says so at once; with
    // `Always` the first pull already takes `pull_then`.
    let mut pod = kubia();
    let c = &mut pod.containers[0];
    c.app.pull = SimDuration::from_secs(29);
    c.app.pull_then = Some(SimDuration::from_secs(1));
    c.app.image_present = true;
    let r = run(pod.clone(), vec![], 30);
    assert_eq!(
        r.events("Pulled"),
        ["0 Normal Pulled: Container image \"example/app:1.0\" already present on machine and can be accessed by the pod"]
    );
    assert_eq!(r.times("start"), ["0"]);
    pod.containers[0].pull_policy = PullPolicy::Always;
    let r = run(pod, vec![], 30);
    assert_eq!(r.times("start"), ["1"]);
}
