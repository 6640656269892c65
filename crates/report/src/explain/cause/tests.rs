//! Each cause on a small pod, and each printed fix checked against a direct run of a scenario
//! written with the change.

use probesim_scenario::scenario::Scenario;

use super::*;
use crate::render::{trace_run, Changed};

/// A scenario of one container `web` with `probes` (YAML lines under the container) and
/// `script` on `http :8080/healthz`, under exact timing (the instants below are canonical).
fn pod(probes: &str, script: &str) -> String {
    format!(
        "name: t\nduration: 30m\ntiming: exact\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: t}}\n  spec:\n    containers:\n    - image: x\n      name: web\n{probes}apps:\n  web:\n    endpoints:\n      \"http :8080/healthz\": \"{script}\"\n"
    )
}

fn liveness(fields: &str) -> String {
    format!("      livenessProbe:\n        httpGet: {{path: /healthz, port: 8080}}\n{fields}")
}

fn diagnose(yaml: &str) -> Option<Diagnosis> {
    let scenario = Scenario::from_str(yaml, "t.yaml").expect("a valid scenario");
    let run = trace_run(&scenario).expect("it runs");
    let rerun = Changed(&scenario);
    let bench = Bench {
        pod: &run.pod,
        trace: &run.trace,
        rerun: &rerun,
        span: run.duration,
    };
    bench.diagnose(0)
}

/// The summary of a run of `yaml` itself, simulated directly.
fn direct(yaml: &str) -> Summary {
    let scenario = Scenario::from_str(yaml, "t.yaml").expect("a valid scenario");
    summary(&trace_run(&scenario).expect("it runs").trace, 0)
}

#[test]
fn a_slow_start_is_killed_while_starting_and_a_startup_probe_fixes_it() {
    // The Online Boutique frontend given a 45 s start: liveness kills it before it answers.
    let yaml = pod(
        &liveness("        initialDelaySeconds: 10\n"),
        "refused for 45s then ok",
    );
    let d = diagnose(&yaml).expect("a diagnosis");
    assert_eq!(
        d.cause,
        Cause::StillStarting {
            kind: ProbeKind::Liveness,
            healthy: SimDuration::from_secs(50)
        }
    );
    let fix = d.fix.expect("a measured fix");
    assert_eq!(
        fix.change,
        "add startupProbe {initialDelaySeconds: 10, failureThreshold: 8} with the handler of the livenessProbe"
    );
    // The same pod written with that startup probe, run directly.
    let changed = pod(
        &format!(
            "{}      startupProbe:\n        httpGet: {{path: /healthz, port: 8080}}\n        initialDelaySeconds: 10\n        failureThreshold: 8\n",
            liveness("        initialDelaySeconds: 10\n")
        ),
        "refused for 45s then ok",
    );
    let s = direct(&changed);
    assert_eq!(s.kills, 0);
    assert_eq!(
        fix.effect,
        format!(
            "0 restarts in 30m, Ready at {}",
            At(s.first_ready.expect("ready"))
        )
    );
}

#[test]
fn an_outage_the_app_outlives_is_fixed_by_a_larger_threshold_over_generated_configs() {
    // For a few periods, thresholds and outage lengths: the cause is an outage, and the
    // printed threshold, written into the file and run directly, kills nothing and gives the
    // printed effect.
    for period in [5, 10] {
        for threshold in [1, 3] {
            for outage in [40, 120] {
                let fields = format!(
                    "        periodSeconds: {period}\n        failureThreshold: {threshold}\n"
                );
                let script = format!("pod: ok for 5m then fail for {outage}s then ok");
                let yaml = pod(&liveness(&fields), &script);
                let what = format!("period {period}, threshold {threshold}, outage {outage}s");
                let d = diagnose(&yaml).expect(&what);
                assert!(
                    matches!(d.cause, Cause::Outage { from, .. } if from >= SimTime::from_secs(300)),
                    "{what}: {:?}",
                    d.cause
                );
                let fix = d.fix.unwrap_or_else(|| panic!("{what}: no fix"));
                let n: i32 = fix
                    .change
                    .rsplit(' ')
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{what}: {}", fix.change));
                assert!(
                    fix.change
                        .starts_with(&format!("livenessProbe.failureThreshold: {threshold} → ")),
                    "{what}: {}",
                    fix.change
                );
                let fields =
                    format!("        periodSeconds: {period}\n        failureThreshold: {n}\n");
                let s = direct(&pod(&liveness(&fields), &script));
                assert_eq!(s.kills, 0, "{what}");
                assert!(
                    fix.effect
                        .starts_with(&format!("{} restarts in 30m", s.restarts)),
                    "{what}: {}",
                    fix.effect
                );
                // The smallest threshold that works: one less still kills.
                let fields = format!(
                    "        periodSeconds: {period}\n        failureThreshold: {}\n",
                    n - 1
                );
                assert!(
                    direct(&pod(&liveness(&fields), &script)).kills > 0,
                    "{what}: {n} is not the smallest"
                );
            }
        }
    }
}

#[test]
fn a_failure_after_every_start_is_told_so_and_a_larger_threshold_is_measured_futile() {
    // kubia: five good answers per instance, then 500.
    let yaml = pod(&liveness(""), "5x200 then 500");
    let d = diagnose(&yaml).expect("a diagnosis");
    assert_eq!(d.cause, Cause::Returns { never: false });
    assert!(d.fix.is_none());
    let futile = d.futile.expect("measured");
    assert_eq!(futile.change, "livenessProbe.failureThreshold: 3 → 6");
    let s = direct(&pod(
        &liveness("        failureThreshold: 6\n"),
        "5x200 then 500",
    ));
    assert!(s.kills > 0);
    assert!(
        futile
            .effect
            .contains(&format!("{} restarts in 30m", s.restarts)),
        "{}",
        futile.effect
    );
}

#[test]
fn a_probe_that_never_passes_is_told_apart() {
    let d = diagnose(&pod(&liveness(""), "refused")).expect("a diagnosis");
    assert_eq!(d.cause, Cause::Returns { never: true });
}

#[test]
fn an_instance_still_young_at_the_end_is_not_a_cure() {
    // Each instance fails after 5 minutes; the last one starts less than 5 minutes before
    // the end, so its health proves nothing.
    let d = diagnose(&pod(&liveness(""), "ok until 5m then fail")).expect("a diagnosis");
    assert_eq!(d.cause, Cause::Returns { never: false });
}

/// A rerun that answers with another scenario's run: the evidence a cure needs (failures that
/// would go on without a kill) with a run in which one kill is followed by health.
struct Standing(Trace);

impl Rerun for Standing {
    fn rerun(&self, _: usize, _: &[Option<ProbeSpec>; 3]) -> Option<Trace> {
        Some(self.0.clone())
    }
}

#[test]
fn a_hang_a_restart_cured_keeps_the_probe() {
    let cured = pod(&liveness(""), "pod: ok for 5m then fail for 50s then ok");
    let scenario = Scenario::from_str(&cured, "t.yaml").expect("valid");
    let run = trace_run(&scenario).expect("runs");
    assert_eq!(summary(&run.trace, 0).kills, 1);
    let hung = pod(&liveness(""), "pod: ok for 5m then fail");
    let hung = Scenario::from_str(&hung, "t.yaml").expect("valid");
    let mut probes = hung.pod.containers[0].probes.clone();
    probes[ProbeKind::Liveness.index()] = probes[ProbeKind::Liveness.index()]
        .as_ref()
        .and_then(|p| retime(p, |t| t.failure_threshold = NEVER));
    let standing = Standing(Changed(&hung).rerun(0, &probes).expect("runs"));
    let bench = Bench {
        pod: &run.pod,
        trace: &run.trace,
        rerun: &standing,
        span: run.duration,
    };
    let d = bench.diagnose(0).expect("a diagnosis");
    assert!(
        matches!(d.cause, Cause::Cured { kills: 1, .. }),
        "{:?}",
        d.cause
    );
    assert!(d.fix.is_none());
}

#[test]
fn readiness_flaps_are_ridden_out_by_a_measured_threshold() {
    let probes = "      readinessProbe:\n        httpGet: {path: /healthz, port: 8080}\n";
    let script = "ok for 60s then fail for 35s repeat";
    let d = diagnose(&pod(probes, script)).expect("a diagnosis");
    assert!(
        matches!(d.cause, Cause::Flaps { times } if times > 10),
        "{:?}",
        d.cause
    );
    let fix = d.fix.expect("a fix");
    let n: u32 = fix
        .change
        .strip_prefix("readinessProbe.failureThreshold: 3 → ")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{}", fix.change));
    let changed = format!("{probes}        failureThreshold: {n}\n");
    let s = direct(&pod(&changed, script));
    assert_eq!(s.flaps, 0);
    assert_eq!(s.restarts, 0);
    let fewer = format!("{probes}        failureThreshold: {}\n", n - 1);
    assert!(direct(&pod(&fewer, script)).flaps > 0);
}

#[test]
fn a_healthy_pod_has_no_diagnosis() {
    assert_eq!(diagnose(&pod(&liveness(""), "ok")), None);
}

#[test]
fn a_change_the_run_does_not_confirm_is_passed_over() {
    // A slow start, then a 40 s outage two minutes later: a startup probe would cover the start
    // but the outage still kills, so the runs reject it; the larger liveness threshold that
    // rides out both is printed instead.
    let script = "refused for 45s then ok for 2m then fail for 40s then ok";
    let d = diagnose(&pod(&liveness("        initialDelaySeconds: 10\n"), script))
        .expect("a diagnosis");
    assert!(
        matches!(d.cause, Cause::StillStarting { .. }),
        "{:?}",
        d.cause
    );
    // What the rejected candidate does, run directly: it still kills.
    let startup = format!(
        "{}      startupProbe:\n        httpGet: {{path: /healthz, port: 8080}}\n        initialDelaySeconds: 10\n        failureThreshold: 8\n",
        liveness("        initialDelaySeconds: 10\n")
    );
    assert!(direct(&pod(&startup, script)).kills > 0);
    let fix = d.fix.expect("a fix");
    assert_eq!(fix.change, "livenessProbe.failureThreshold: 3 → 5");
    let s = direct(&pod(
        &liveness("        initialDelaySeconds: 10\n        failureThreshold: 5\n"),
        script,
    ));
    assert_eq!(s.kills, 0);
}

#[test]
fn with_restart_policy_never_the_whole_pod_stop_at_the_verdict_counts_as_the_kill() {
    // R15: with Never, the liveness verdict stops the whole pod; that is still a kill while
    // starting, and the startup probe still fixes it, measured.
    let yaml = pod(
        &liveness("        initialDelaySeconds: 10\n"),
        "refused for 45s then ok",
    )
    .replace(
        "    containers:\n",
        "    restartPolicy: Never\n    containers:\n",
    );
    let d = diagnose(&yaml).expect("a diagnosis");
    assert!(
        matches!(d.cause, Cause::StillStarting { .. }),
        "{:?}",
        d.cause
    );
    let fix = d.fix.expect("a fix");
    assert!(
        fix.effect.starts_with("0 restarts in 30m, Ready at "),
        "{}",
        fix.effect
    );
}

/// kubia's crash loop traced for `hours`, or, `unkillable`, the same pod failing on with its
/// liveness probe unable to kill.
fn kubia(hours: u64, unkillable: bool) -> crate::render::TracedRun {
    let mut text = include_str!("../../../../../scenarios/kubia-unhealthy.yaml")
        .replace("duration: 30m", &format!("duration: {hours}h"));
    if unkillable {
        text = text.replace(
            "          port: 8080\n",
            "          port: 8080\n        failureThreshold: 1000000\n",
        );
    }
    let scenario = Scenario::from_str(&text, "k.yaml").expect("valid");
    trace_run(&scenario).expect("runs")
}

#[test]
fn a_gap_read_by_its_count_reads_as_its_repetitions_one_by_one() {
    // R30: at the back-off cap the trace counts the restart cycles into a gap (and, when
    // nothing kills, the probe runs of the one instance); the summaries and the failure runs
    // take its repetitions by their count, and must come out as a walk through every one of
    // them does.
    for unkillable in [false, true] {
        let run = kubia(720, unkillable);
        let trace = &run.trace;
        let (at, times, cycle) = trace
            .items
            .iter()
            .find_map(|i| match i.what {
                What::Gap { times, cycle, .. } => Some((i.t, times, cycle)),
                _ => None,
            })
            .expect("a gap");
        assert!(times > 1_000, "{times}");
        let inside = SimTime::from_millis(at.as_millis() + cycle.as_millis() * (times / 2) + 1);
        for watch in [None, Some(SimTime::from_secs(60)), Some(at), Some(inside)] {
            let mut walked = Reading::new(0, watch);
            for (_, x) in trace.replay() {
                walked.fact(&x);
            }
            let read = summary_watching(trace, 0, watch);
            assert_eq!(read, walked.s, "{watch:?}");
            assert_eq!(read.kills > 1_000, !unkillable, "{read:?}");
            if watch == Some(inside) && !unkillable {
                assert!(read.not_ready[0].0 >= inside, "{read:?}");
            }
        }
        for threshold in [3, 1_000, 1_000_000] {
            let threshold = |_: ProbeKind| threshold;
            let mut walked = StreakReading::new(0, threshold);
            for (_, x) in trace.replay() {
                walked.fact(&x);
            }
            let (walked, read) = (walked.finish(), streaks(trace, 0, threshold));
            assert_eq!(format!("{read:?}"), format!("{walked:?}"));
        }
        let read = streaks(trace, 0, |_| 3);
        if unkillable {
            // One run of failures from the sixth probe to the horizon.
            assert!(read.liveness > 200_000, "{read:?}");
        } else {
            assert!(read.last.is_some_and(|l| l.from > inside), "{read:?}");
        }
    }
}
