//! A regular container's own restartPolicy and restart rules (ContainerRestartRules, KEP-5307;
//! R15, R17, R43, P27).

use super::*;
use crate::spec::RestartRule;

fn exiting(name: &str, code: i32) -> ContainerSpec {
    let mut c = container(name);
    c.app.exit = Some(SelfExit {
        code,
        after: SimDuration::from_secs(5),
    });
    c
}

#[test]
fn a_containers_own_policy_and_rules_override_the_pods_never() {
    // R17 (`ContainerShouldRestart`): the rules first, then the container's policy, then the
    // pod's. R43: a stopped container that will be restarted keeps the pod Running.
    let mut on_failure = exiting("task", 1);
    on_failure.restart_policy = Some(RestartPolicy::OnFailure);
    let mut rule = exiting("retry", 42);
    rule.restart_policy = Some(RestartPolicy::Never);
    rule.restart_rules = vec![RestartRule {
        exit_code_in: true,
        values: vec![42],
    }];
    let mut clean = exiting("clean", 0);
    clean.restart_policy = Some(RestartPolicy::OnFailure);
    let mut pod = PodSpec::new("p")
        .with_container(on_failure)
        .with_container(rule)
        .with_container(clean);
    pod.restart_policy = RestartPolicy::Never;
    let r = run(pod.clone(), vec![], 60);
    let starts = |name: &str| {
        r.records
            .iter()
            .filter(|rec| rec.kind == "start" && rec.container.as_deref() == Some(name))
            .count()
    };
    assert_eq!(starts("task"), 4, "{:?}", r.times("start"));
    assert_eq!(starts("retry"), 4);
    assert_eq!(starts("clean"), 1);
    assert_eq!(r.texts("phase"), ["1 phase Running"]);
    // Without the container-level fields the pod's Never decides: no restart, phase Failed.
    for c in &mut pod.containers {
        c.restart_policy = None;
        c.restart_rules.clear();
    }
    let r = run(pod, vec![], 60);
    assert_eq!(r.times("start"), ["0", "0", "0"]);
    assert_eq!(r.texts("phase"), ["1 phase Running", "6 phase Failed"]);
}

#[test]
fn a_probe_kill_restarts_by_the_containers_own_policy_only() {
    // R13, R15: for a running container computePodActions reads its own policy (the rules need
    // an exit code): Always in a Never pod restarts it after the kill, with "will be restarted",
    // instead of a pod kill.
    let mut pod = kubia();
    pod.restart_policy = RestartPolicy::Never;
    pod.containers[0].restart_policy = Some(RestartPolicy::Always);
    let r = run(
        pod.clone(),
        vec![(0, ProbeKind::Liveness, five_ok_then_500())],
        200,
    );
    assert_eq!(
        r.events("Killing")[0],
        "80 Normal Killing: Container kubia failed liveness probe, will be restarted"
    );
    assert_eq!(r.times("start")[..2], ["0", "110"]);
    assert_eq!(r.sim.status().phase, Phase::Running);
    // A rule that would match any exit code does not restart it after a probe kill: its own
    // Never decides, nothing is kept, and the sync kills the whole pod. (What follows that pod
    // kill, when the rule then restarts the exited container, is not pinned here.)
    pod.containers[0].restart_policy = Some(RestartPolicy::Never);
    pod.containers[0].restart_rules = vec![RestartRule {
        exit_code_in: false,
        values: vec![],
    }];
    let r = run(pod, vec![(0, ProbeKind::Liveness, five_ok_then_500())], 200);
    assert_eq!(
        r.texts("kill")[0],
        "80 Unknown (cause liveness), grace period 30s"
    );
    assert_eq!(
        r.events("Killing")[0],
        "80 Normal Killing: Stopping container kubia"
    );
}
