//! Exec probes against the runtime: an attempt cut short by the container's death, the target
//! of an exec, and the `timeout` answer (docs/semantics.md#mid-answer,
//! docs/semantics.md#exec-target, docs/script-language.md#outcomes; P48).

use super::*;

fn exec(cmd: &str) -> Handler {
    Handler::Exec {
        command: cmd.split(' ').map(String::from).collect(),
    }
}

#[test]
fn an_exec_in_flight_when_its_container_exits_is_a_failure() {
    // docs/semantics.md#mid-answer: the command dies with the container (ExecSync returns exit
    // 137), so the attempt
    // ends at the exit, as a failure with the (empty) command output, not a prober error.
    let mut c = container("app").with_probe(
        ProbeKind::Liveness,
        probe(exec("cat /tmp/healthy"), |t| t.timeout_seconds = 5),
    );
    c.app.exit = Some(SelfExit {
        code: 1,
        after: SimDuration::from_secs(12),
    });
    let b = per_instance(|_, _| Response {
        answer: Answer::Exit(0),
        latency: SimDuration::from_secs(3),
    });
    let r = run(
        PodSpec::new("p").with_container(c),
        vec![(0, ProbeKind::Liveness, b)],
        12,
    );
    assert_eq!(r.texts("probe"), ["12 liveness failure after 2s"]);
    assert_eq!(
        r.events("Unhealthy"),
        ["12 Warning Unhealthy: Liveness probe failed: "]
    );
}

#[test]
fn a_readiness_exec_into_a_replaced_container_is_an_error() {
    // docs/semantics.md#exec-target: liveness kills at 25 s (grace 10 s); the kill's sync
    // triggers the readiness
    // worker, whose ticker restarts then (P19), so it ticks at 35 s, right after the exit and
    // the restart, before the relist at 36 s regenerates the status. Its exec names the killed
    // container's ID, which has exited, so the runtime refuses it even though instance 2
    // already runs. Nothing is recorded for the dead container and the pod does not turn Ready
    // before the relist at 36 s.
    let mut c = container("app")
        .with_probe(
            ProbeKind::Liveness,
            probe(http(), |t| {
                t.period_seconds = 5;
                t.failure_threshold = 1;
            }),
        )
        .with_probe(ProbeKind::Readiness, probe(exec("cat /tmp/ready"), |_| {}));
    c.app.sigterm = Sigterm::Ignore;
    let mut pod = PodSpec::new("p").with_container(c);
    pod.termination_grace_period_seconds = 10;
    let live = per_instance(|_, up| {
        Response::now(Answer::Status(if up < SimDuration::from_secs(25) {
            200
        } else {
            500
        }))
    });
    // Pod time: the readiness endpoint answers once the pod has run 35 s.
    let ready: Box<dyn Behaviour> = Box::new(|a: &Attempt| {
        Response::now(Answer::Exit(i32::from(a.now < SimTime::from_secs(35))))
    });
    let r = run(
        pod,
        vec![
            (0, ProbeKind::Liveness, live),
            (0, ProbeKind::Readiness, ready),
        ],
        45,
    );
    assert_eq!(r.times("kill"), ["25"]);
    let errored: Vec<String> = r
        .events("Unhealthy")
        .into_iter()
        .filter(|e| e.starts_with("35 "))
        .collect();
    assert_eq!(
        errored,
        ["35 Warning Unhealthy: Readiness probe errored: rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state"],
        "{:#?}",
        r.records.iter().map(|x| format!("{} {} {}", x.t, x.kind, x.text)).collect::<Vec<_>>()
    );
    let ready_at: Vec<String> = r
        .texts("ready")
        .into_iter()
        .filter(|t| t.ends_with("true"))
        .collect();
    assert_eq!(ready_at, ["36 ready: true"], "{:?}", r.texts("ready"));
}

#[test]
fn a_timeout_answer_is_an_exec_that_outlasts_its_timeout() {
    // docs/script-language.md#outcomes, P48: `timeout` on exec reads exactly as `exit 0 after D`
    // with D at or above
    // timeoutSeconds, on every release (an error before exec timeouts, a failure after).
    for m in [19, 22, 25, 37] {
        let pod = || {
            PodSpec::new("p").with_container(
                container("app").with_probe(ProbeKind::Liveness, probe(exec("sleep 10"), |_| {})),
            )
        };
        let timeline = |answer: Answer, latency: u64| {
            let b = per_instance(move |_, _| Response {
                answer,
                latency: SimDuration::from_secs(latency),
            });
            let r = run_with(
                pod(),
                Profile::for_minor(m).expect("modelled minor"),
                KubeletConfig::default(),
                vec![(0, ProbeKind::Liveness, b)],
                120,
            );
            r.records
                .iter()
                .map(|x| format!("{} {} {}", x.t, x.kind, x.text))
                .collect::<Vec<_>>()
        };
        let timed_out = timeline(Answer::Timeout, 0);
        assert!(
            timed_out.iter().any(|l| l.contains("Liveness probe")),
            "1.{m}: {timed_out:?}"
        );
        assert_eq!(timed_out, timeline(Answer::Exit(0), 30), "1.{m}");
    }
}
