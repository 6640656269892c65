use super::*;
use probesim_scenario::scenario::TimingMode;

/// A pod of one container `web` with `probe` (YAML of the probe's fields) answering `script`,
/// run for `duration` under realistic timing.
fn scenario(kind: &str, probe: &str, script: &str, duration: &str) -> Scenario {
    let text = format!(
        "name: borderline-test
duration: {duration}
timing: realistic
pod:
  apiVersion: v1
  kind: Pod
  metadata: {{name: web}}
  spec:
    containers:
    - name: web
      image: nginx:1.27
      {kind}Probe:
        httpGet: {{path: /healthz, port: 8080}}
        {probe}
apps:
  web:
    probes:
      {kind}: \"{script}\"
"
    );
    Scenario::from_str(&text, "borderline-test.yaml").expect("a valid scenario")
}

fn bundled(path: &str) -> Scenario {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join(path)).expect("readable");
    Scenario::from_str(&text, path)
        .expect("a valid scenario")
        .with_timing(TimingMode::Realistic)
}

fn marks(scenario: &Scenario) -> (crate::render::TracedRun, Vec<Borderline>) {
    let run = crate::render::trace_run(scenario).expect("runs");
    let found = find(scenario, &run.pod, &run.trace);
    (run, found)
}

#[test]
fn a_back_off_check_close_to_the_expiry_is_marked_with_the_share_that_restarts_at_once() {
    // R90, R8: conformance 18 on 1.37 under realistic timing: the check after the sixth death
    // comes 10 s before the 1m20s back-off expires and waits; in 3 of the 8 timings the check
    // comes after the expiry and the container restarts at once.
    let s = bundled("scenarios/conformance/18-liveness-probe-grace-period-override.yaml");
    let (run, found) = marks(&s);
    let b = found
        .iter()
        .find(|b| b.rule == "R90")
        .expect("the back-off decision is marked");
    assert_eq!(b.at, SimTime::from_millis(175_020));
    assert!(
        matches!(run.trace.items[b.item].what, What::BackOff { .. }),
        "told with the refusal"
    );
    assert!(b.text.starts_with("restart 6 of busybox is a back-off decision: this check came 10s before the 1m20s back-off"), "{}", b.text);
    assert!(b.text.contains("restarts at once in 3 of 8 realistic timings (replay: --seed 2 --phase 1.636s --jitter --runtime-start 140ms --runtime-kill 35ms --runtime-pull '600ms then 600ms')"), "{}", b.text);
    assert!(
        b.text.contains(
            "waits for a later sync in the other 5 (replay: --seed 0 --phase 7.055s --jitter --runtime-start 450ms --runtime-kill 75ms --runtime-pull '2.6s then 600ms')"
        ),
        "{}",
        b.text
    );
    // Its kills, crossings after a success, go the same way in every timing: not marked.
    assert!(
        !found
            .iter()
            .any(|b| b.rule == "R91" && b.at < SimTime::from_secs(260)),
        "{found:?}"
    );
}

#[test]
fn a_check_far_from_the_expiry_is_no_candidate() {
    // R90: the check at the fifth death (t=105.02s, in the kill's sync, R16) judges the death
    // at 85.02s: 20 s before the 40 s back-off expires. Without the expiry's own jitter (R8,
    // 1.35+) the requeue's 5 s and the phase's 10 s cannot move it that far; the check at the
    // sixth death, 10 s before its expiry, stays a candidate. With it (1.35+: up to half the
    // back-off) both are.
    let s = bundled("scenarios/conformance/18-liveness-probe-grace-period-override.yaml");
    let run = crate::render::trace_run(&s).expect("runs");
    let backoff = s
        .profile
        .crash_loop_backoff(s.kubelet.max_container_restart_period);
    let checks = |at_expiry: bool| -> Vec<SimTime> {
        candidates(
            &run.pod,
            &run.trace,
            backoff,
            at_expiry,
            SimDuration::from_secs(10),
        )
        .iter()
        .filter(|c| matches!(c.stake, Stake::AtOnce { .. }))
        .map(|c| c.at)
        .collect()
    };
    let fixed = checks(false);
    assert!(fixed.contains(&SimTime::from_millis(175_020)), "{fixed:?}");
    assert!(!fixed.contains(&SimTime::from_millis(105_020)), "{fixed:?}");
    let jittered = checks(true);
    assert!(
        jittered.contains(&SimTime::from_millis(105_020)),
        "{jittered:?}"
    );
}

#[test]
fn a_liveness_success_one_failure_short_of_the_threshold_is_marked_with_the_share_killed() {
    // R91: failures at 10 s and 20 s (threshold 3), the app answers from 26.7 s and the tick
    // at 30 s succeeds; with the start later on the grid a third failure comes first, a kill
    // in 4 of the 8 timings.
    let s = scenario(
        "liveness",
        "periodSeconds: 10\n        failureThreshold: 3",
        "refused for 25s then 200",
        "45s",
    );
    let (_, found) = marks(&s);
    assert_eq!(found.len(), 1, "{found:?}");
    let b = &found[0];
    assert_eq!((b.rule, b.at), ("R91", SimTime::from_secs(30)));
    assert!(
        b.text
            .contains("succeeds after 2 failures in a row, one short of failureThreshold 3"),
        "{}",
        b.text
    );
    assert!(
        b.text
            .contains("killed about here in 3 of 8 realistic timings"),
        "{}",
        b.text
    );
}

#[test]
fn a_steady_app_has_no_mark() {
    // R91: a failure every time from the start is a kill in every timing, and an app that
    // never fails is never near one: nothing to mark.
    for script in ["500", "200"] {
        let s = scenario(
            "liveness",
            "periodSeconds: 10\n        failureThreshold: 3",
            script,
            "45s",
        );
        let (_, found) = marks(&s);
        assert!(found.is_empty(), "{script}: {found:?}");
    }
}

#[test]
fn a_startup_success_one_failure_short_of_a_startup_kill_is_marked() {
    // R92: the startup probe (period 10 s, threshold 3) fails at 10 s and 20 s and succeeds at
    // 30 s; with another phase its third failure comes before the app answers.
    let s = scenario(
        "startup",
        "periodSeconds: 10\n        failureThreshold: 3",
        "refused for 25s then 200",
        "45s",
    );
    let (_, found) = marks(&s);
    let b = found
        .iter()
        .find(|b| b.rule == "R92")
        .expect("the startup race is marked");
    assert!(
        b.text
            .contains("startup probe succeeds 2 failures in a row into its failureThreshold 3"),
        "{}",
        b.text
    );
    assert!(b.text.contains("killed about here in"), "{}", b.text);
}

#[test]
fn explain_marks_the_decision_under_its_step() {
    // R91: the mark is the line after the step that tells the success.
    let s = scenario(
        "liveness",
        "periodSeconds: 10\n        failureThreshold: 3",
        "refused for 25s then 200",
        "45s",
    );
    let out = crate::render_explain(&s, Vec::new()).expect("explains");
    let text = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    let k = lines
        .iter()
        .position(|l| l.starts_with("    ⚠ borderline at t=30s (R91): "))
        .expect("marked");
    assert!(lines[k - 1].starts_with("  t=30s"), "{}", lines[k - 1]);
}
