//! Engine tests: each drives a whole pod through the public API and pins the rules it names.

use super::*;
use crate::behaviour::Answer;
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
    assert!(probes[4].starts_with("50 liveness success"));
    assert_eq!(
        probes[5],
        "60 liveness failure (HTTP probe failed with statuscode: 500)"
    );
    assert_eq!(
        r.texts("result"),
        [
            "10 liveness result: Success",
            "80 liveness result: Failure",
            "120 liveness result: Success"
        ]
    );
    assert_eq!(r.texts("kill"), ["80 LivenessProbe, grace period 30s"]);
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
    assert_eq!(r.texts("exit"), ["110 exit code 137 (Error)"]);
    assert_eq!(
        r.texts("start"),
        [
            "0 new instance, restartCount 0",
            "110 new instance, restartCount 1"
        ]
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
        Some("770 start refused: back-off 2m40s")
    );
    assert!(backoffs
        .iter()
        .any(|b| b == "1040 start refused: back-off 5m0s"));
    // R34: CrashLoopBackOff shows from the PLEG sync right after the death.
    assert!(r.texts("status").contains(
        &"771 waiting (CrashLoopBackOff: back-off 2m40s), restartCount 6, last exit 137 (Error) at 770s"
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
            &"6 terminated (Error, exit code 1), restartCount 1, last exit 1 (Error) at 2s"
                .to_owned()
        ),
        "{status:#?}"
    );
    assert!(
        status.contains(
            &"15 waiting (CrashLoopBackOff: back-off 10s), restartCount 1, last exit 1 (Error) at 5s"
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
        ["80 Unknown (cause liveness), grace period 30s"]
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
    assert_eq!(r.texts("kill"), ["80 LivenessProbe, grace period 5s"]);
    assert_eq!(r.texts("exit"), ["85 exit code 137 (Error)"]);
}

#[test]
fn grace_period_is_at_least_two_seconds() {
    // R21, R24.
    let mut pod = kubia();
    pod.termination_grace_period_seconds = 0;
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 100);
    assert_eq!(r.texts("kill"), ["80 LivenessProbe, grace period 2s"]);
    assert_eq!(r.texts("exit"), ["82 exit code 137 (Error)"]);
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
            "83 exit code 143 (Error)",
        ),
        (
            Sigterm::Exit {
                code: Some(0),
                after: SimDuration::from_secs(3),
            },
            "83 exit code 0 (Completed)",
        ),
        (
            Sigterm::Exit {
                code: None,
                after: SimDuration::from_secs(40),
            },
            "110 exit code 137 (Error)",
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
    assert_eq!(r.texts("exit"), ["95 exit code 3 (Error)"]);
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
            "35 liveness success after 25s",
            "35 liveness success",
            "40 liveness success",
            "50 liveness success"
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
        ["11 liveness failure after 1s (Get \"http://10.0.0.5:8080/\": context deadline exceeded (Client.Timeout exceeded while awaiting headers))"]
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
        "10 liveness error (rpc error: code = Unknown desc = probe error (scripted))"
    );
    assert_eq!(
        r.texts("result"),
        ["10 liveness result: Success", "20 liveness result: Failure"]
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
    // R4: the sync that the initial Failure asks for waits for the relist at 2; the container
    // is ready by then, so it sends no trigger (docs/semantics.md#pacing, E1).
    assert_eq!(r.times("probe"), ["1", "11", "21"]);
    assert_eq!(r.texts("ready"), ["1 ready: true"]);
    assert_eq!(r.texts("podReady"), ["1 pod Ready: true"]);
}

#[test]
fn readiness_grid_is_not_reset_before_1_32() {
    // P19: 1.31 keeps the original grid; the triggered probe is extra. R4: the initial
    // Failure's sync at 2 finds the container ready and triggers nothing.
    let c = container("app").with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let profile = Profile::for_minor(31).expect("1.31");
    let r = run_with(
        PodSpec::new("p").with_container(c),
        profile,
        KubeletConfig::default(),
        vec![],
        20,
    );
    assert_eq!(r.times("probe"), ["1", "10", "20"]);
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
    // 1: the PLEG sync's trigger; 2: the trigger of the sync that the initial Failure caused,
    // at the next relist (R4, docs/semantics.md#pacing; grid reset to 32); 32: tick; 62: the
    // resync's trigger.
    assert_eq!(r.times("probe"), ["1", "2", "32", "62"]);
    // P42: the cache only changes once.
    assert_eq!(r.texts("result"), ["1 readiness result: Failure"]);
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
            "2 startup failure (HTTP probe failed with statuscode: 500)",
            "4 startup failure (HTTP probe failed with statuscode: 500)",
            "6 startup success",
            "6 readiness success"
        ]
    );
    assert_eq!(r.texts("started"), ["6 started: true"]);
    assert_eq!(r.texts("ready"), ["6 ready: true"]);
    assert!(probes.contains(&"10 liveness success".to_owned()));
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
        ["10 startup result: Unknown", "30 startup result: Failure"]
    );
    assert_eq!(
        r.events("Killing"),
        ["30 Normal Killing: Container app failed startup probe, will be restarted"]
    );
    assert_eq!(r.texts("exit"), ["30 exit code 143 (Error)"]);
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
    assert_eq!(r.texts("kill"), ["30 LivenessProbe, grace period 30s"]);
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
    assert_eq!(r.texts("status"), ["1 running (since 0s), restartCount 0"]);
    assert_eq!(
        r.sim.status().conditions.ready_to_start_containers,
        Some(true)
    );
}

#[test]
fn never_policy_stops_the_worker_of_a_terminated_container() {
    // P27 (≤1.33 rule, and ContainerRestartRules: Never never restarts), P20, P7, R4.
    let mut pod = crash_loop(RestartPolicy::Never);
    pod.containers.push(container("other"));
    pod.containers[0] = pod.containers[0]
        .clone()
        .with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let r = run(pod, vec![], 60);
    let readiness: Vec<_> = r.texts("result");
    assert_eq!(
        readiness[..4],
        [
            "1 readiness result: Failure",
            "1 readiness result: Success",
            "11 readiness result: Failure",
            // docs/semantics.md#finished-workers: the sync this Failure asks for re-creates the
            // worker (AddPod), which records Failure and stops again; each of those syncs waits
            // for the next relist (R4), so this goes on once a second.
            "11 readiness result: Failure",
        ]
    );
    let churn: Vec<String> = (12..=60)
        .map(|t| format!("{t} readiness result: Failure"))
        .collect();
    assert_eq!(readiness[4..], churn[..]);
    // After recording Failure for the terminated container each worker exits: no more probes.
    assert!(
        r.times("probe").iter().all(|t| t == "1"),
        "{:?}",
        r.times("probe")
    );
    // The syncs of the churn: one per relist from 12 s, after the one at 11 s.
    let probe_syncs = r
        .texts("sync")
        .into_iter()
        .filter(|s| {
            s.ends_with("(probe)")
                && s.split(' ').next().and_then(|t| t.parse::<u64>().ok()) > Some(11)
        })
        .count();
    assert_eq!(probe_syncs, 49);
}

#[test]
fn the_churn_of_a_finished_container_waits_for_the_first_worker_on_1_36() {
    // P7 (≤1.36: AddPod returns at the first existing worker), P20, P27: `other`'s readiness
    // worker comes first in AddPod's order and exists, so the finished container's worker is
    // not created again.
    let mut pod = crash_loop(RestartPolicy::Never);
    pod.containers.insert(
        0,
        container("other").with_probe(ProbeKind::Readiness, probe(http(), |_| {})),
    );
    pod.containers[1] = pod.containers[1]
        .clone()
        .with_probe(ProbeKind::Readiness, probe(http(), |_| {}));
    let profile = Profile::for_minor(36).expect("1.36");
    let r = run_with(pod.clone(), profile, KubeletConfig::default(), vec![], 60);
    let failures = r
        .texts("result")
        .into_iter()
        .filter(|s| s.ends_with("Failure"))
        .count();
    // The initial Failure of each worker at 1 s, and app's worker's last one.
    assert_eq!(failures, 3, "{:?}", r.texts("result"));
    // On 1.37 AddPod skips the existing worker and the churn goes on.
    let r = run_with(pod, Profile::newest(), KubeletConfig::default(), vec![], 60);
    let failures = r
        .texts("result")
        .into_iter()
        .filter(|s| s.ends_with("Failure"))
        .count();
    assert!(failures > 40, "{:?}", r.texts("result"));
}

fn sidecar(name: &str) -> ContainerSpec {
    let mut c = container(name);
    c.restartable = true;
    c
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

fn minor(m: u8) -> Profile {
    Profile::for_minor(m).expect("modelled minor")
}

mod exec_fidelity;
mod init;
mod lifecycle;
mod restart_rules;
mod runtime_durations;
mod versions;

#[test]
fn delayed_updates_each_make_their_own_sync() {
    // R1, R2, R3, R4 (docs/semantics.md#delayed-syncs): with a 250 ms delay the updates of
    // readiness failures at 21 and 21.1 reach the pod worker at 21.25 and 21.35. The first
    // starts a sync at once; the second asks for one of its own, which waits for the relist at
    // 22. Neither is absorbed by the other.
    let failing = |latency_ms: u64| {
        per_instance(move |_, up| Response {
            answer: Answer::Status(if up < SimDuration::from_secs(15) {
                200
            } else {
                503
            }),
            latency: SimDuration::from_millis(latency_ms),
        })
    };
    let readiness = || {
        probe(http(), |t| {
            t.period_seconds = 10;
            t.failure_threshold = 1;
        })
    };
    let pod = PodSpec::new("p")
        .with_container(container("a").with_probe(ProbeKind::Readiness, readiness()))
        .with_container(container("b").with_probe(ProbeKind::Readiness, readiness()));
    let kubelet = KubeletConfig {
        probe_sync_delay: SimDuration::from_millis(250),
        ..KubeletConfig::default()
    };
    let r = run_with(
        pod,
        Profile::for_minor(37).expect("1.37"),
        kubelet,
        vec![
            (0, ProbeKind::Readiness, failing(0)),
            (1, ProbeKind::Readiness, failing(100)),
        ],
        25,
    );
    let syncs: Vec<_> = r
        .texts("sync")
        .into_iter()
        .filter(|s| s.ends_with("(probe)"))
        .collect();
    assert_eq!(
        syncs[syncs.len() - 2..],
        ["21.25 pod sync (probe)", "22 pod sync (probe)"],
        "{syncs:#?}"
    );
}

#[test]
fn the_start_phase_delays_only_the_pods_first_start_off_the_tick_grid() {
    // docs/semantics.md#start-phase: the first start waits 3.5 s after its sync; the liveness
    // grid stays where the worker began (10, 20, …), so the process is 6.5 s old at its first
    // tick; the restart after the kill (R16) is not delayed.
    let mut behaviours = Behaviours::new(&kubia());
    let i = behaviours.add(five_ok_then_500());
    behaviours.bind(0, ProbeKind::Liveness, i);
    let mut sim = Simulation::new(
        kubia(),
        Profile::newest(),
        KubeletConfig::default(),
        7,
        behaviours,
    );
    sim.delay_first_start(SimDuration::from_millis(3500));
    let mut sink = VecSink::default();
    sim.run_until(SimTime::from_secs(120), &mut sink)
        .expect("run");
    let starts: Vec<String> = sink
        .records
        .iter()
        .filter(|r| r.kind == "start")
        .map(|r| format!("{} {}", r.t, r.text))
        .collect();
    assert_eq!(
        starts,
        [
            "3.5 new instance, restartCount 0",
            "110 new instance, restartCount 1"
        ]
    );
    let kills: Vec<String> = sink
        .records
        .iter()
        .filter(|r| r.kind == "kill")
        .map(|r| r.t.to_string())
        .collect();
    assert_eq!(kills, ["80"]);
}
