//! Engine tests: each drives a whole pod through the public API and pins the rules it names.

use super::*;
use crate::sink::{Record, VecSink};
use crate::spec::{ContainerSpec, Port, ProbeSpec, ProbeTiming, Scheme, SelfExit};

/// An HTTP GET of `/` on port 8080 (the engine's test modules share it).
pub(super) fn http() -> Handler {
    Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port: Port::Number(8080),
        path: "/".into(),
    }
}

fn probe(handler: Handler, f: impl FnOnce(&mut ProbeTiming)) -> ProbeSpec {
    let mut timing = ProbeTiming::default();
    f(&mut timing);
    ProbeSpec::new(handler, timing).expect("valid probe")
}

fn container(name: &str) -> ContainerSpec {
    ContainerSpec::new(name, "example/app:1.0")
}

/// Answers by request number within the instance (1-based) and uptime.
fn per_instance(f: impl Fn(u32, SimDuration) -> Response + 'static) -> Box<dyn Behaviour> {
    let (mut instance, mut n) = (u64::MAX, 0);
    Box::new(move |a: &Attempt| {
        if a.instance != instance {
            (instance, n) = (a.instance, 0);
        }
        n += 1;
        f(n, a.uptime)
    })
}

struct Run {
    records: Vec<Record>,
    sim: Simulation,
}

impl Run {
    fn times(&self, kind: &str) -> Vec<String> {
        self.records
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.t.to_string())
            .collect()
    }

    fn texts(&self, kind: &str) -> Vec<String> {
        self.records
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| format!("{} {}", r.t, r.text))
            .collect()
    }

    fn events(&self, reason: &str) -> Vec<String> {
        self.records
            .iter()
            .filter(|r| {
                r.kind == "event"
                    && r.text
                        .split(':')
                        .next()
                        .is_some_and(|h| h.ends_with(reason))
            })
            .map(|r| format!("{} {}", r.t, r.text))
            .collect()
    }
}

fn run_with(
    pod: PodSpec,
    profile: Profile,
    kubelet: KubeletConfig,
    bind: Vec<(usize, ProbeKind, Box<dyn Behaviour>)>,
    secs: u64,
) -> Run {
    let mut behaviours = Behaviours::new(&pod);
    for (c, kind, b) in bind {
        let i = behaviours.add(b);
        behaviours.bind(c, kind, i);
    }
    let mut sim = Simulation::new(pod, profile, kubelet, 7, behaviours);
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(secs), &mut sink)
        .expect("run");
    Run {
        records: sink.records,
        sim,
    }
}

fn run(pod: PodSpec, bind: Vec<(usize, ProbeKind, Box<dyn Behaviour>)>, secs: u64) -> Run {
    run_with(pod, Profile::newest(), KubeletConfig::default(), bind, secs)
}

fn kubia() -> PodSpec {
    let mut c = container("kubia").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    c.app.sigterm = Sigterm::Ignore;
    PodSpec::new("kubia-unhealthy").with_container(c)
}

fn five_ok_then_500() -> Box<dyn Behaviour> {
    per_instance(|n, _| Response::now(Answer::Status(if n <= 5 { 200 } else { 500 })))
}

fn crash_loop(policy: RestartPolicy) -> PodSpec {
    let mut c = container("app");
    c.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(2),
    });
    let mut pod = PodSpec::new("crash").with_container(c);
    pod.restart_policy = policy;
    pod
}

#[test]
fn liveness_kills_after_the_third_failure_with_the_liveness_text() {
    // R1, R13, R14, R23, P33, P34: five successes, failures at 60, 70, 80; the sync at 80 kills.
    let r = run(
        kubia(),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        120,
    );
    let probes = r.texts("probe");
    // P35: no probes while held during the kill (90, 100, 110).
    assert_eq!(probes.len(), 9, "{probes:#?}");
    assert!(probes[4].starts_with("50 liveness probe: success"));
    assert_eq!(
        probes[5],
        "60 liveness probe: failure (HTTP probe failed with statuscode: 500)"
    );
    assert_eq!(
        r.texts("result"),
        [
            "10 liveness result -> Success",
            "80 liveness result -> Failure",
            "120 liveness result -> Success"
        ]
    );
    assert_eq!(r.texts("kill"), ["80 kill (LivenessProbe), grace 30s"]);
    assert_eq!(
        r.events("Killing"),
        ["80 Normal Killing: Container kubia failed liveness probe, will be restarted"]
    );
}

#[test]
fn ignored_sigterm_ends_in_sigkill_after_the_grace_period_and_an_immediate_restart() {
    // R16, R25, R26: exit 137 thirty seconds after the kill; the same sync restarts at once.
    let r = run(
        kubia(),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        120,
    );
    assert_eq!(r.texts("exit"), ["110 exited with code 137 (Error)"]);
    assert_eq!(
        r.texts("start"),
        ["0 started (restartCount 0)", "110 started (restartCount 1)"]
    );
}

#[test]
fn kubia_restarts_six_times_at_once_then_backs_off() {
    // R16 (stale snapshot), R27, R30, R31: 160 s, then every other cycle waits 300 s.
    let r = run(
        kubia(),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        1800,
    );
    assert_eq!(
        r.times("start"),
        ["0", "110", "220", "330", "440", "550", "660", "930", "1340", "1450"]
    );
    let backoffs = r.texts("backoff");
    assert_eq!(
        backoffs.first().map(String::as_str),
        Some("770 start refused: in back-off 2m40s")
    );
    assert!(backoffs
        .iter()
        .any(|b| b == "1040 start refused: in back-off 5m0s"));
    // R34: CrashLoopBackOff shows from the PLEG sync right after the death.
    assert!(r.texts("status").contains(
        &"771 waiting (CrashLoopBackOff), restartCount 6, lastState exitCode=137 finishedAt=770"
            .to_owned()
    ));
    // R36, docs/cli.md#--format-json (`final`).
    let st = r.sim.status().containers[0];
    assert_eq!(st.restart_count, 9);
    assert_eq!(st.state.reason(), Some("CrashLoopBackOff"));
    assert_eq!(
        st.last_state.map(|t| (t.exit_code, t.finished_at)),
        Some((137, SimTime::from_secs(1560)))
    );
    assert_eq!(r.sim.status().phase, Phase::Running); // R44
}

#[test]
fn back_off_message_names_the_container_and_pod() {
    // R33 (≥1.26 wording).
    let r = run(
        kubia(),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        800,
    );
    let uid = PodSpec::new("kubia-unhealthy").uid;
    assert_eq!(
        r.events("BackOff")[0],
        format!("770 Warning BackOff: Back-off restarting failed container kubia in pod kubia-unhealthy_default({uid})")
    );
}

#[test]
fn crash_loop_restarts_at_the_back_off_expiry_on_1_35_and_later() {
    // R8, R30, R31: waits 0, 10, 20, 40, 80, 160, 300 after each exit (+1 s PLEG for the first).
    let r = run(crash_loop(RestartPolicy::Always), vec![], 1000);
    assert_eq!(
        r.times("start"),
        ["0", "3", "15", "37", "79", "161", "323", "625", "927"]
    );
    assert_eq!(r.times("exit")[..4], ["2", "5", "17", "39"]);
    // R6, R8: hops of at most 60 s while waiting 300 s.
    let syncs: Vec<_> = r
        .texts("sync")
        .into_iter()
        .filter(|s| s.ends_with("(backoff)"))
        .collect();
    assert!(
        syncs.contains(&"386 pod sync (backoff)".to_owned()),
        "{syncs:#?}"
    );
}

#[test]
fn crash_loop_back_off_is_polled_every_ten_seconds_before_1_35() {
    // R7, R12: requeue exactly 10 s while in back-off.
    let profile = Profile::for_minor(34).expect("1.34");
    let r = run_with(
        crash_loop(RestartPolicy::Always),
        profile,
        KubeletConfig::default(),
        vec![],
        100,
    );
    assert_eq!(r.times("start"), ["0", "3", "16", "39", "82"]);
}

#[test]
fn crash_loop_back_off_reason_appears_one_sync_late() {
    // R34: the PLEG sync shows Error; CrashLoopBackOff appears at the requeue sync.
    let r = run(crash_loop(RestartPolicy::Always), vec![], 16);
    let status = r.texts("status");
    assert!(
        status.contains(
            &"6 terminated (Error) exitCode=1, restartCount 1, lastState exitCode=1 finishedAt=2"
                .to_owned()
        ),
        "{status:#?}"
    );
    assert!(
        status.contains(
            &"15 waiting (CrashLoopBackOff), restartCount 1, lastState exitCode=1 finishedAt=5"
                .to_owned()
        ),
        "{status:#?}"
    );
}

#[test]
fn on_failure_does_not_restart_a_clean_exit_and_the_pod_succeeds() {
    // R17, R43.
    let mut pod = crash_loop(RestartPolicy::OnFailure);
    pod.containers[0].app.exit = Some(SelfExit {
        code: 0,
        after: SimDuration::from_secs(2),
    });
    let r = run(pod, vec![], 100);
    assert_eq!(r.times("start"), ["0"]);
    assert_eq!(r.sim.status().phase, Phase::Succeeded);
    assert_eq!(r.texts("phase"), ["1 phase Running", "3 phase Succeeded"]);
}

#[test]
fn never_policy_kills_the_whole_pod_and_fails_it() {
    // R15, R19, R45: the Killing text is "Stopping container", no restart, phase Failed.
    let mut pod = kubia();
    pod.restart_policy = RestartPolicy::Never;
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 600);
    assert_eq!(
        r.events("Killing"),
        ["80 Normal Killing: Stopping container kubia"]
    );
    assert_eq!(
        r.texts("kill"),
        ["80 kill (Unknown, cause liveness), grace 30s"]
    );
    assert_eq!(r.times("start"), ["0"]);
    assert_eq!(r.texts("phase"), ["1 phase Running", "111 phase Failed"]);
    // P35: the worker holds after its verdict; P23: it stops once the phase is terminal.
    assert_eq!(r.times("probe").last().map(String::as_str), Some("80"));
}

#[test]
fn never_policy_with_two_containers_kills_only_the_failing_one() {
    // R15: keepCount > 0, so the liveness text without the restart suffix.
    let mut pod = kubia();
    pod.restart_policy = RestartPolicy::Never;
    pod.containers.push(container("sidecar"));
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 200);
    assert_eq!(
        r.events("Killing"),
        ["80 Normal Killing: Container kubia failed liveness probe"]
    );
    assert_eq!(r.sim.status().phase, Phase::Running);
}

#[test]
fn probe_level_grace_period_overrides_the_pods() {
    // R22: livenessProbe.terminationGracePeriodSeconds 5 beats the pod's 500.
    let mut pod = kubia();
    pod.termination_grace_period_seconds = 500;
    let p = probe(http(), |t| t.termination_grace_period_seconds = Some(5));
    pod.containers[0].probes[ProbeKind::Liveness.index()] = Some(p);
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 100);
    assert_eq!(r.texts("kill"), ["80 kill (LivenessProbe), grace 5s"]);
    assert_eq!(r.texts("exit"), ["85 exited with code 137 (Error)"]);
}

#[test]
fn grace_period_is_at_least_two_seconds() {
    // R21, R24.
    let mut pod = kubia();
    pod.termination_grace_period_seconds = 0;
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 100);
    assert_eq!(r.texts("kill"), ["80 kill (LivenessProbe), grace 2s"]);
    assert_eq!(r.texts("exit"), ["82 exited with code 137 (Error)"]);
}

#[test]
fn sigterm_reactions_decide_the_exit_code() {
    // R25, docs/semantics.md#kills: death by signal 143; a handler's own code; restart regardless.
    let cases = [
        (
            Sigterm::Exit {
                code: None,
                after: SimDuration::from_secs(3),
            },
            "83 exited with code 143 (Error)",
        ),
        (
            Sigterm::Exit {
                code: Some(0),
                after: SimDuration::from_secs(3),
            },
            "83 exited with code 0 (Completed)",
        ),
        (
            Sigterm::Exit {
                code: None,
                after: SimDuration::from_secs(40),
            },
            "110 exited with code 137 (Error)",
        ),
    ];
    for (sigterm, exit) in cases {
        let mut pod = kubia();
        pod.containers[0].app.sigterm = sigterm;
        pod.restart_policy = RestartPolicy::OnFailure;
        let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 120);
        assert_eq!(r.texts("exit"), [exit]);
        assert_eq!(
            r.times("start")[1],
            exit.split(' ').next().unwrap_or_default()
        );
    }
}

#[test]
fn a_scripted_exit_before_the_signal_outcome_wins() {
    // docs/semantics.md#kills.
    let mut pod = kubia();
    pod.containers[0].app.exit = Some(SelfExit {
        code: 3,
        after: SimDuration::from_secs(95),
    });
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 100);
    assert_eq!(r.texts("exit"), ["95 exited with code 3 (Error)"]);
}

#[test]
fn initial_delay_uses_the_truncated_start_time() {
    // P29: start at 0.4 s is normalised to 0; with D=5 the tick at 5 already probes.
    let mut c = container("app").with_probe(
        ProbeKind::Liveness,
        probe(http(), |t| {
            t.initial_delay_seconds = 5;
            t.period_seconds = 1;
        }),
    );
    c.app.pull = SimDuration::from_millis(400);
    let r = run(PodSpec::new("p").with_container(c), vec![], 6);
    assert_eq!(r.times("probe"), ["5", "6"]);
}

#[test]
fn the_tick_grid_belongs_to_the_worker_not_the_container() {
    // P15: a container that starts at 2.5 s is probed at 10, 20, … .
    let mut c = container("app").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    c.app.pull = SimDuration::from_millis(2500);
    let r = run(PodSpec::new("p").with_container(c), vec![], 30);
    assert_eq!(r.times("probe"), ["10", "20", "30"]);
    assert_eq!(
        r.events("Pulling"),
        ["0 Normal Pulling: Pulling image \"example/app:1.0\""]
    );
    assert_eq!(r.events("Pulled"), ["2.5 Normal Pulled: Successfully pulled image \"example/app:1.0\" in 2.5s (2.5s including waiting)"]);
    assert_eq!(r.times("start"), ["2.5"]);
}

#[test]
fn a_probe_slower_than_its_period_keeps_one_tick_and_the_phase() {
    // P17 / E3: a 25 s probe at 10 keeps the tick at 20, drops 30, runs again at 35, then 40.
    let slow = per_instance(|n, _| Response {
        answer: Answer::Status(200),
        latency: SimDuration::from_secs(if n == 1 { 25 } else { 0 }),
    });
    let c = container("app").with_probe(
        ProbeKind::Liveness,
        probe(http(), |t| t.timeout_seconds = 30),
    );
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, slow)],
        50,
    );
    assert_eq!(
        r.texts("probe"),
        [
            "35 liveness probe: success after 25s",
            "35 liveness probe: success",
            "40 liveness probe: success",
            "50 liveness probe: success"
        ]
    );
}

#[test]
fn latency_at_or_past_the_timeout_is_a_timeout_failure() {
    // P50, docs/script-language.md#latency-after.
    let slow = per_instance(|_, _| Response {
        answer: Answer::Status(200),
        latency: SimDuration::from_secs(2),
    });
    let c = container("app").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, slow)],
        11,
    );
    assert_eq!(
        r.texts("probe"),
        ["11 liveness probe: failure after 1s (Get \"http://10.0.0.5:8080/\": context deadline exceeded (Client.Timeout exceeded while awaiting headers))"]
    );
}

#[test]
fn exec_timeouts_use_the_newest_wording() {
    // P48 (≥1.31).
    let exec = Handler::Exec {
        command: vec!["cat".into(), "/tmp/health".into()],
    };
    let c = container("app").with_probe(ProbeKind::Liveness, probe(exec, |_| {}));
    let b = per_instance(|_, _| Response {
        answer: Answer::Exit(0),
        latency: SimDuration::from_secs(10),
    });
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, b)],
        11,
    );
    assert_eq!(r.events("Unhealthy"), ["11 Warning Unhealthy: Liveness probe failed: command timed out: \"cat /tmp/health\" timed out after 1s"]);
}

#[test]
fn probe_errors_are_retried_three_times_then_discarded() {
    // P31, P40, P41: three answers consumed, one errored event, no result.
    let c = container("app").with_probe(
        ProbeKind::Liveness,
        probe(http(), |t| t.failure_threshold = 1),
    );
    let b = per_instance(|n, _| {
        Response::now(if n <= 3 {
            Answer::Error
        } else {
            Answer::Status(500)
        })
    });
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, b)],
        20,
    );
    assert_eq!(
        r.texts("probe")[0],
        "10 liveness probe: error (rpc error: code = Unknown desc = probe error (scripted))"
    );
    assert_eq!(
        r.texts("result"),
        [
            "10 liveness result -> Success",
            "20 liveness result -> Failure"
        ]
    );
    assert_eq!(r.events("Unhealthy")[0], "10 Warning Unhealthy: Liveness probe errored: rpc error: code = Unknown desc = probe error (scripted)");
}

#[test]
fn an_unresolvable_named_port_errors_at_every_probe() {
    // P39.
    let h = Handler::TcpSocket {
        host: None,
        port: Port::Unparsable("metrics".into()),
    };
    let c = container("app").with_probe(ProbeKind::Liveness, probe(h, |_| {}));
    let r = run(PodSpec::new("p").with_container(c), vec![], 10);
    assert_eq!(r.events("Unhealthy"), ["10 Warning Unhealthy: Liveness probe errored: strconv.Atoi: parsing \"metrics\": invalid syntax"]);
    assert_eq!(r.times("kill"), Vec::<String>::new());
}

#[test]
fn redirects_are_warnings_that_count_as_success() {
    // P50: 3xx → ProbeWarning with the ≥1.24 prefix; no failure.
    let c = container("app").with_probe(
        ProbeKind::Liveness,
        probe(http(), |t| t.failure_threshold = 1),
    );
    let b = per_instance(|_, _| Response::now(Answer::Status(302)));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, b)],
        20,
    );
    assert_eq!(r.events("ProbeWarning")[0], "10 Warning ProbeWarning: Liveness probe warning: Probe terminated redirects, Response body: ");
    assert!(r.times("kill").is_empty());
}

#[test]
fn tcp_and_grpc_outputs_follow_the_handlers() {
    // P51, P52.
    let tcp = Handler::TcpSocket {
        host: None,
        port: Port::Number(8080),
    };
    let grpc = Handler::Grpc {
        port: 9090,
        service: String::new(),
    };
    let c = container("app")
        .with_probe(ProbeKind::Liveness, probe(tcp, |_| {}))
        .with_probe(ProbeKind::Readiness, probe(grpc, |_| {}));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![
            (
                0,
                ProbeKind::Liveness,
                per_instance(|_, _| Response::now(Answer::Refused)),
            ),
            (
                0,
                ProbeKind::Readiness,
                per_instance(|_, _| Response::now(Answer::NotServing)),
            ),
        ],
        10,
    );
    let unhealthy = r.events("Unhealthy");
    assert!(unhealthy.contains(&"10 Warning Unhealthy: Liveness probe failed: dial tcp 10.0.0.5:8080: connect: connection refused".to_owned()), "{unhealthy:#?}");
    assert!(unhealthy.contains(&"1 Warning Unhealthy: Readiness probe failed: service unhealthy (responded with \"NOT_SERVING\")".to_owned()), "{unhealthy:#?}");
}

#[test]
fn readiness_is_probed_by_the_trigger_of_the_first_status_and_the_grid_resets() {
    // P18, P19, P45 (≥1.32): the PLEG sync at 1 triggers a probe; the next ticks are 11, 21.
    let c = container("app").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let r = run(PodSpec::new("p").with_container(c), vec![], 21);
    // The initial Failure's own sync triggers a second probe at 1
    // (docs/semantics.md#updates-at-once, E1).
    assert_eq!(r.times("probe"), ["1", "1", "11", "21"]);
    assert_eq!(r.texts("ready"), ["1 ready=true"]);
    assert_eq!(r.texts("podReady"), ["1 pod Ready=true"]);
}

#[test]
fn readiness_grid_is_not_reset_before_1_32() {
    // P19: 1.31 keeps the original grid; the triggered probe is extra.
    let c = container("app").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let profile = Profile::for_minor(31).expect("1.31");
    let r = run_with(
        PodSpec::new("p").with_container(c),
        profile,
        KubeletConfig::default(),
        vec![],
        20,
    );
    assert_eq!(r.times("probe"), ["1", "1", "10", "20"]);
}

#[test]
fn failing_readiness_is_reprobed_at_every_sync() {
    // P45 (≥1.22) / E9: every sync while not ready triggers one extra probe.
    let c = container("app").with_probe(
        ProbeKind::Readiness,
        probe(http(), |t| t.period_seconds = 30),
    );
    let b = per_instance(|_, _| Response::now(Answer::Status(503)));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Readiness, b)],
        70,
    );
    // 1: the PLEG sync's trigger, then the trigger of the sync that the initial Failure caused
    // (docs/semantics.md#updates-at-once); 31: tick; 61: the resync's trigger (grid reset to 91).
    assert_eq!(r.times("probe"), ["1", "1", "31", "61"]);
    // P42: the cache only changes once.
    assert_eq!(r.texts("result"), ["1 readiness result -> Failure"]);
}

#[test]
fn startup_probe_holds_liveness_and_readiness_until_it_succeeds() {
    // P30, P35, P45, R2: startup fails twice, then succeeds; readiness is triggered at once.
    let startup = probe(http(), |t| {
        t.period_seconds = 2;
        t.failure_threshold = 30;
    });
    let c = container("app")
        .with_probe(ProbeKind::Startup, startup)
        .with_probe(ProbeKind::Readiness, probe(http(), |_| {}))
        .with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    let b = per_instance(|_, up| {
        Response::now(Answer::Status(if up < SimDuration::from_secs(5) {
            500
        } else {
            200
        }))
    });
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Startup, b)],
        12,
    );
    let probes = r.texts("probe");
    assert_eq!(
        probes[..4],
        [
            "2 startup probe: failure (HTTP probe failed with statuscode: 500)",
            "4 startup probe: failure (HTTP probe failed with statuscode: 500)",
            "6 startup probe: success",
            "6 readiness probe: success"
        ]
    );
    assert_eq!(r.texts("started"), ["6 started=true"]);
    assert_eq!(r.texts("ready"), ["6 ready=true"]);
    assert!(probes.contains(&"10 liveness probe: success".to_owned()));
    // P35 (≥1.32): the startup worker holds after its verdict.
    assert_eq!(probes.iter().filter(|p| p.contains("startup")).count(), 3);
}

#[test]
fn startup_failure_kills_with_the_startup_text() {
    // R13.3, R14, P36.
    let startup = probe(http(), |t| t.failure_threshold = 3);
    let mut c = container("app").with_probe(ProbeKind::Startup, startup);
    c.app.sigterm = Sigterm::Exit {
        code: None,
        after: SimDuration::ZERO,
    };
    let b = per_instance(|_, _| Response::now(Answer::Refused));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Startup, b)],
        31,
    );
    assert_eq!(
        r.texts("result"),
        [
            "10 startup result -> Unknown",
            "30 startup result -> Failure"
        ]
    );
    assert_eq!(
        r.events("Killing"),
        ["30 Normal Killing: Container app failed startup probe, will be restarted"]
    );
    assert_eq!(r.texts("exit"), ["30 exited with code 143 (Error)"]);
}

#[test]
fn counters_survive_a_crash_so_the_next_instance_dies_after_one_failure() {
    // P25, P36d / E5(b).
    let mut c = container("app").with_probe(ProbeKind::Liveness, probe(http(), |_| {}));
    c.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(25),
    });
    let b = per_instance(|_, _| Response::now(Answer::Status(500)));
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, b)],
        31,
    );
    assert_eq!(r.times("start"), ["0", "26"]);
    assert_eq!(r.texts("kill"), ["30 kill (LivenessProbe), grace 30s"]);
}

#[test]
fn workers_sleep_a_seeded_fraction_of_the_period_only_on_a_young_kubelet() {
    // P14: startedAgo 1 h → no sleep; startedAgo 0 → a seeded sleep, the same for the same seed.
    let pod = || {
        PodSpec::new("p")
            .with_container(container("app").with_probe(ProbeKind::Liveness, probe(http(), |_| {})))
    };
    let old = run(pod(), vec![], 20);
    assert_eq!(old.times("probe"), ["10", "20"]);
    let young = KubeletConfig {
        started_ago: SimDuration::ZERO,
        ..KubeletConfig::default()
    };
    let a = run_with(pod(), Profile::newest(), young, vec![], 40);
    let b = run_with(pod(), Profile::newest(), young, vec![], 40);
    assert_eq!(a.records, b.records);
    assert_ne!(a.times("probe")[0], "10");
}

#[test]
fn status_goes_from_pending_to_running_at_the_first_relist() {
    // R5, R11, R38–R43.
    let r = run(
        PodSpec::new("p").with_container(container("app")),
        vec![],
        5,
    );
    assert_eq!(r.texts("phase"), ["1 phase Running"]);
    assert_eq!(r.texts("status"), ["1 running, restartCount 0"]);
    assert_eq!(
        r.sim.status().conditions.ready_to_start_containers,
        Some(true)
    );
}

#[test]
fn never_policy_stops_the_worker_of_a_terminated_container() {
    // P27 (≤1.33 rule, and ContainerRestartRules: Never never restarts).
    let mut pod = crash_loop(RestartPolicy::Never);
    pod.containers.push(container("other"));
    pod.containers[0] = pod.containers[0]
        .clone()
        .with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let r = run(pod, vec![], 60);
    let readiness: Vec<_> = r.texts("result");
    assert_eq!(
        readiness,
        [
            "1 readiness result -> Failure",
            "1 readiness result -> Success",
            "11 readiness result -> Failure"
        ]
    );
    // After recording Failure for the terminated container the worker exits: no more probes.
    assert!(
        r.times("probe").iter().all(|t| t == "1"),
        "{:?}",
        r.times("probe")
    );
}

// ---------------------------------------------------------------------------------------------
// Init containers and sidecars (R18, R58–R62, P6, P24, P46).

fn sidecar(name: &str) -> ContainerSpec {
    let mut c = container(name);
    c.restartable = true;
    c
}

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
        ["0 started (restartCount 0)", "6 started (restartCount 0)"]
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
            "7 running, restartCount 0"
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
        ["0 started (restartCount 0)", "1 started (restartCount 0)"]
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

/// An `OnFailure` pod whose app completes at 5 s next to a sidecar `proxy`.
fn job_with_a_sidecar() -> PodSpec {
    let mut app = container("app");
    app.app.exit = Some(SelfExit {
        code: 0,
        after: SimDuration::from_secs(5),
    });
    let mut pod = PodSpec::new("p")
        .with_init_container(sidecar("proxy"))
        .with_container(app);
    pod.restart_policy = RestartPolicy::OnFailure;
    pod
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
    assert_eq!(r.texts("started"), ["1 started=true"]);
}

// ---------------------------------------------------------------------------------------------
// Deletion, preStop hooks and kubelet restarts (P12, P14, P25, P45, R22–R25).

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
    assert_eq!(r.texts("delete"), ["95 pod deleted, grace 10s"]);
    assert_eq!(r.texts("kill"), ["95 kill (Deletion), grace 10s"]);
    assert_eq!(
        r.events("Killing"),
        ["95 Normal Killing: Stopping container app"]
    );
    assert_eq!(r.texts("exit"), ["98 exited with code 143 (Error)"]);
    assert_eq!(r.texts("deleted"), ["99 pod object removed"]);
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
    assert_eq!(r.texts("exit"), ["98 exited with code 143 (Error)"]);
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
    assert_eq!(r.texts("exit"), ["110.5 exited with code 137 (Error)"]);
    // A hook longer than the grace period is cut off; 2 s remain for the signal.
    let mut pod = kubia();
    pod.containers[0].app.pre_stop = Some(SimDuration::from_secs(45));
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 120);
    assert_eq!(r.texts("exit"), ["112 exited with code 137 (Error)"]);
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
    assert_eq!(r.texts("kubeletRestart"), ["300 kubelet restarted"]);
    assert_eq!(r.texts("ready"), ["1 ready=true"]);
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
        ["readiness result -> Success", "liveness result -> Success"]
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
    assert_eq!(results_after(37), ["startup result -> Success"]);
    assert_eq!(results_after(36), ["startup result -> Success"]);
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
    assert!(ready[1].ends_with("ready=false") && ready[2].ends_with("ready=true"));
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

// ---------------------------------------------------------------------------------------------
// Version differences: each profile switch against its neighbours (docs/versions.md).

fn minor(m: u8) -> Profile {
    Profile::for_minor(m).expect("modelled minor")
}

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
    assert_eq!(r.texts("ready"), ["61 ready=true"]);
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
    assert_eq!(r.texts("ready"), ["2 ready=true"]);
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
    assert_eq!(run_at(22), ["1", "1", "30", "60", "61"]);
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
        assert!(kill.ends_with(&format!("grace {grace}")), "1.{m}: {kill}");
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
            "7 exited with code 0 (Completed)",
            "9 exited with code 0 (Completed)",
            "12 exited with code 0 (Completed)"
        ]
    );
    assert_eq!(
        ordered,
        [
            "7 exited with code 0 (Completed)",
            "12 exited with code 0 (Completed)",
            "13 exited with code 0 (Completed)"
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
    assert_eq!(kills, ["25 kill (Deletion), grace 30s"]);
}

mod exec_fidelity;
