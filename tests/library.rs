//! The user library (`probesim` without its `cli` feature): loading, behaviour, queries,
//! errors, replays, strategies, and the property-testing guide, whose test file is the example
//! team repository's.

use probesim::strategy::{self, seed};
use probesim::{
    ErrorKind, KillCause, KillReason, Phase, ProbeKind, SimDuration, SimTime, Test, TimingMode,
};
use proptest::prelude::*;

const POD: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx
    ports: [{name: http, containerPort: 8080}]
    readinessProbe: {httpGet: {port: http, path: /ready}, periodSeconds: 5}
    livenessProbe: {httpGet: {port: 8080, path: /healthz}, periodSeconds: 10, failureThreshold: 3}
";

fn web() -> Test {
    Test::manifest_text(POD, "web.yaml")
}

fn secs(t: SimTime) -> u64 {
    t.whole_secs()
}

// R13: liveness kills after failureThreshold failures; readiness follows the same port.
#[test]
fn queries_read_kills_restarts_readiness_and_status() {
    let run = web()
        .endpoint(":8080", "refused for 20s then ok")
        .horizon("2m")
        .run()
        .unwrap();
    // Liveness ticks at 10, 20 (refused), 30 (ok): two failures of three, no kill.
    assert!(run.kills().is_empty(), "{:?}", run.kills());
    let ready = run.ready_intervals();
    assert_eq!(ready.len(), 1, "{ready:?}");
    let became = ready[0].from;
    assert!(
        (20..=26).contains(&secs(became)),
        "Ready at {became}, after the port opened at 20 s"
    );
    assert_eq!(ready[0].to, None);
    assert_eq!(
        run.time_to_ready(),
        Some(became.saturating_since(SimTime::ZERO))
    );
    assert!(!run.status_at(SimTime::from_secs(19)).ready);
    let at = run.status_at(became);
    assert!(at.ready && at.phase == Phase::Running);
    assert!(at.container("web").is_some_and(|c| c.ready && c.started));
    assert_eq!(run.final_status(), run.status_at(run.horizon()));
    assert!(run.pod_status().conditions.ready);
    assert_eq!(run.container_ready_intervals("web"), ready);

    let run = web()
        .endpoint(":8080", "refused")
        .horizon("3m")
        .run()
        .unwrap();
    let kills = run.kills();
    assert!(!kills.is_empty());
    assert!(kills.iter().all(|k| k.cause == KillCause::Liveness
        && k.reason == KillReason::LivenessProbe
        && k.container == "web"));
    let first = run.first_kill().unwrap();
    assert!((30..=31).contains(&secs(first.at)), "{first:?}");
    assert_eq!(first.grace, SimDuration::from_secs(30));
    let restarts = run.restarts("web");
    assert!(!restarts.is_empty() && restarts.iter().all(|t| *t >= first.at));
    assert!(run.restart_count("web") >= 1);
    assert!(run.ready_intervals().is_empty());
    assert_eq!(run.time_to_ready(), None);
    assert!(run.probe_runs() > 10);
}

#[test]
fn closures_answer_in_place_of_scripts() {
    let run = web()
        .endpoint(":8080", "refused")
        .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| {
            probesim::Response::now(probesim::Answer::Ok)
        })
        .horizon("2m")
        .run()
        .unwrap();
    assert!(
        run.kills().is_empty(),
        "liveness answered ok by the closure"
    );
    assert!(run.ready_intervals().is_empty(), "readiness still refused");
    assert!(run.replay().contains("closures answered some probes"));
    let e = web()
        .container("nginx")
        .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| {
            probesim::Response::now(probesim::Answer::Ok)
        })
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    assert_eq!(
        e.to_string(),
        "error: web.yaml: no container named \"nginx\" in the pod (it has web)"
    );
}

#[test]
fn probes_without_a_script_are_noted() {
    let run = web()
        .probe(ProbeKind::Liveness, "ok")
        .horizon("1m")
        .run()
        .unwrap();
    assert_eq!(
        run.notes(),
        [
            "web.yaml: no `sigterm:` for \"web\" (no preStop hook): each process is taken to die of SIGTERM as soon as it arrives (exit code 143); write `apps.<name>.sigterm` or pass `--sigterm 'NAME: ignore'` (or \"exit after 5s\") to say otherwise",
            "web.yaml: container \"web\": its readinessProbe (http :8080/ready) has no script and answers ok to every request; give it one with --app 'web: readiness=SCRIPT'"
        ]
    );
}

#[test]
fn errors_read_as_the_command_line_prints_them() {
    let e = web()
        .probe(ProbeKind::Liveness, "5x200 then refsued")
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    let text = e.to_string();
    assert!(
        text.starts_with("error: apps.web.probes.liveness: unknown outcome \"refsued\", did you mean \"refused\"?\n --> --app\n"),
        "{text}"
    );
    let e = Test::manifest("no/such/file.yaml").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::File);
    assert_eq!(
        e.to_string(),
        "error: no/such/file.yaml: cannot read file: no such file or directory"
    );
    let e = web().kubernetes("1.12").run().unwrap_err();
    assert!(
        e.to_string().contains("unsupported Kubernetes version"),
        "{e}"
    );
    let e = web().horizon("2d").run().unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: --for: invalid duration \"2d\": unknown unit \"d\" (use ms, s, m or h)"
    );
    let e = Test::scenario("scenarios/kubia-unhealthy.yaml")
        .unwrap()
        .app("liveness=ok")
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
    assert!(e
        .to_string()
        .starts_with("error: --app applies only to a Kubernetes manifest"));
}

// The error text is the binary's, byte for byte.
#[cfg(feature = "cli")]
#[test]
fn errors_match_the_binary() {
    let dir = std::env::temp_dir().join(format!("probesim-library-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("web.yaml");
    std::fs::write(&file, POD).unwrap();
    let path = file.to_str().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["run", path, "--app", "web: liveness=5x200 then refsued"])
        .output()
        .unwrap();
    let e = Test::manifest(path)
        .unwrap()
        .container("web")
        .probe(ProbeKind::Liveness, "5x200 then refsued")
        .run()
        .unwrap_err();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("{e}\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

// A failing case's scenario file is one `probesim run` replays: the same kills, at the same
// times.
#[cfg(feature = "cli")]
#[test]
fn the_binary_replays_a_run() {
    let run = web()
        .endpoint(":8080", "(70% 200 | 30% timeout) after 10ms..900ms")
        .seed(11)
        .horizon("10m")
        .run()
        .unwrap();
    assert!(!run.kills().is_empty());
    let dir = std::env::temp_dir().join(format!("probesim-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("replay.yaml");
    std::fs::write(&file, run.replay()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["run", file.to_str().unwrap(), "--format", "jsonl"])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kills: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"kind\": \"kill\""))
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["t"].as_f64().map_or(0, |t| (t * 1000.0).round() as u64)
        })
        .collect();
    let ours: Vec<u64> = run
        .kills()
        .iter()
        .map(|k| k.at.saturating_since(SimTime::ZERO).as_millis())
        .collect();
    assert_eq!(kills, ours);
}

#[test]
fn scenario_files_load_with_overrides() {
    let run = Test::scenario("scenarios/kubia-unhealthy.yaml")
        .unwrap()
        .seed(3)
        .horizon("5m")
        .run()
        .unwrap();
    assert_eq!(run.seed(), 3);
    assert_eq!(run.horizon(), SimTime::from_secs(300));
    assert!(run.kills_for(KillCause::Liveness).len() >= 2);
    assert!(run
        .replay()
        .contains("# replay: probesim run scenarios/kubia-unhealthy.yaml --seed 3"));
}

// What if: `Test::set` edits the pod as `--set` does. kubia's liveness probe (period 10 s) fails
// from 60 s on: with failureThreshold 1 the first kill is at 60 s, not 80 s (P34: the failure
// is recorded once the run of failures reaches the threshold; R13); the replay file holds the edit.
#[test]
fn set_edits_the_pod_as_the_flag_does() {
    let kubia = || Test::scenario("scenarios/kubia-unhealthy.yaml").unwrap();
    let first = |run: &probesim::Run| run.first_kill().map(|k| k.at);
    let plain = kubia().horizon("5m").run().unwrap();
    assert_eq!(first(&plain), Some(SimTime::from_secs(80)));
    let edited = kubia()
        .set("livenessProbe.failureThreshold", "1")
        .horizon("5m")
        .run()
        .unwrap();
    assert_eq!(first(&edited), Some(SimTime::from_secs(60)));
    assert!(
        edited.replay().contains("failureThreshold: 1"),
        "{}",
        edited.replay()
    );
    let replayed = Test::scenario_text(edited.replay(), "replay.yaml")
        .horizon("5m")
        .run()
        .unwrap();
    assert_eq!(replayed.kills(), edited.kills());
    // A manifest too: the pod's grace period.
    let graced = web()
        .probe(ProbeKind::Liveness, "500")
        .set("spec.terminationGracePeriodSeconds", "7")
        .horizon("5m")
        .run()
        .unwrap();
    assert!(graced
        .kills()
        .iter()
        .all(|k| k.grace == SimDuration::from_secs(7)));
    assert!(!graced.kills().is_empty());
    // A bad value is the flag's positioned error.
    let e = kubia()
        .set("livenessProbe.successThreshold", "2")
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    let text = e.to_string();
    assert!(
        text.contains(
            "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
        ) && text.contains(" --> --set"),
        "{text}"
    );
}

// docs/script-language.md#randomness: random outcomes draw from the simulation's seeded generator.
#[test]
fn random_scripts_replay_per_seed_and_differ_across_seeds() {
    let kills = |seed| {
        web()
            .endpoint(":8080", "(50% 200 | 50% 503) after 0s..3s")
            .seed(seed)
            .horizon("30m")
            .run()
            .unwrap()
            .kills()
    };
    let a = kills(1);
    assert_eq!(a, kills(1));
    assert!((2..20).any(|s| kills(s) != a));
}

// R65, R67, docs/semantics.md#runtime-durations: realistic timing (the default) pulls `nginx`
// (`:latest`, pulled on every start: 1.5s, then 500ms) and starts 200ms later; the kills stay on
// the liveness grid and each restart comes 720ms after its kill (20ms until the signal, a 500ms
// re-pull, 200ms to create and start). Test::timing_mode(Exact) is the zero-latency timing, and its
// replay file says `timing: exact`, so it gives the same run.
#[test]
fn realistic_timing_adds_the_runtime_durations_and_replays() {
    let test = || web().endpoint(":8080", "refused").horizon("3m");
    let exact = test().timing_mode(TimingMode::Exact).run().unwrap();
    let realistic = test().run().unwrap();
    let ms = |ts: Vec<SimTime>| ts.iter().map(|t| t.as_millis()).collect::<Vec<_>>();
    assert_eq!(ms(exact.restarts("web")), [30_000, 60_000, 90_000, 120_000]);
    assert_eq!(
        ms(realistic.restarts("web")),
        [30_720, 60_720, 90_720, 120_720]
    );
    assert!(exact.replay().contains("timing: exact\n"));
    let replay = Test::scenario_text(exact.replay(), "replay.yaml")
        .run()
        .unwrap();
    assert_eq!(replay.restarts("web"), exact.restarts("web"));
}

// R66, docs/semantics.md#one-instant-restarts: the issue's hung ingress (readiness and liveness
// on one endpoint, readiness threshold 1, liveness 3): the liveness kill comes while the pod is
// not Ready, and no readiness probe at the kill is answered by the replacement before the status
// names it, so the pod stays not Ready through the kill under both timings and every seed; it
// turns Ready again only at a readiness success of the replacement, a period or more later.
#[test]
fn no_ready_blip_at_a_liveness_kill() {
    const INGRESS: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: ingress}
spec:
  containers:
  - name: controller
    image: example/ingress:1.0
    readinessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, failureThreshold: 1}
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 10, failureThreshold: 3}
";
    for mode in [TimingMode::Exact, TimingMode::Realistic] {
        for seed in [0, 1, 7, 42] {
            let run = Test::manifest_text(INGRESS, "ingress.yaml")
                .kubernetes("1.37")
                .endpoint(":8080", "ok for 60s then timeout")
                .sigterm("exit after 0s")
                .horizon("3m")
                .seed(seed)
                .timing_mode(mode)
                .run()
                .unwrap();
            let kill = run.kills().first().map(|k| k.at).expect("a liveness kill");
            assert!(
                (80..=100).contains(&secs(kill)),
                "{mode:?} seed {seed}: kill at {kill}"
            );
            for interval in run.ready_intervals() {
                let (before, after) = (
                    kill.saturating_since(interval.from),
                    interval.from.saturating_since(kill),
                );
                assert!(
                    before >= SimDuration::from_secs(20) || after >= SimDuration::from_secs(5),
                    "{mode:?} seed {seed}: Ready at {} right after the kill at {kill}: {:?}",
                    interval.from,
                    run.ready_intervals()
                );
            }
            assert!(
                !run.status_at(kill).ready,
                "{mode:?} seed {seed}: Ready at the kill"
            );
        }
    }
}

proptest! {
    // The phase and duration strategies stay in their ranges.
    #[test]
    fn phases_and_seconds_stay_in_range(
        p in strategy::phase(SimDuration::from_secs(10)),
        s in strategy::seconds(5..=90),
    ) {
        prop_assert!(p < SimDuration::from_secs(10));
        prop_assert!((5..=90).contains(&(s.as_millis() / 1000)) && s.as_millis() % 1000 == 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    // A generated pod runs through the manifest reader, and its replay file, read back as a
    // scenario, gives the same run.
    #[test]
    fn generated_pods_run_and_replay(case in strategy::pod(), seed in seed()) {
        let run = case.test().seed(seed).horizon("5m").run()?;
        // The status rebuilt from the events is the engine's own at the horizon.
        let status = run.final_status();
        let engine = run.pod_status();
        prop_assert_eq!(status.phase, engine.phase);
        prop_assert_eq!(status.ready, engine.conditions.ready);
        let theirs: Vec<_> = engine.init_containers.iter().chain(&engine.containers).copied().collect();
        let ours: Vec<_> = status.containers.iter().map(|(_, s)| *s).collect();
        prop_assert_eq!(ours, theirs);
        let replay = Test::scenario_text(run.replay(), "replay.yaml").run()?;
        prop_assert_eq!(run.kills(), replay.kills(), "{}", run.replay());
        prop_assert_eq!(run.ready_intervals(), replay.ready_intervals());
        prop_assert_eq!(run.final_status(), replay.final_status());
    }
}

/// The fenced blocks of `lang` in a Markdown text.
fn blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line == format!("```{lang}") => current = Some(String::new()),
            Some(_) if line == "```" => out.extend(current.take()),
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn the_guide_shows_the_team_repository_test_and_its_dependencies() {
    let guide = std::fs::read_to_string("docs/property-testing.md").unwrap();
    let test = std::fs::read_to_string("examples/team-repo/tests/probes.rs").unwrap();
    assert_eq!(blocks(&guide, "rust"), [test]);
    let toml = blocks(&guide, "toml");
    assert_eq!(toml.len(), 2);
    // The profile settings that make a user's debug test build fast (docs/property-testing.md#speed).
    assert_eq!(toml[1], "[profile.dev.package.\"*\"]\nopt-level = 2\n");
    // The same dev-dependencies as the team repository's, with probesim from a checkout
    // beside the user's repository instead of the path of this one.
    let manifest = std::fs::read_to_string("examples/team-repo/Cargo.toml").unwrap();
    let deps = &manifest[manifest.find("[dev-dependencies]").unwrap()..];
    let local = deps.replace(
        "probesim = { path = \"../..\",",
        "probesim = { path = \"../probesim\",",
    );
    assert_eq!(toml[0], local);
}

const TEAM_WEB: &str = "examples/team-repo/deploy/web.yaml";

/// A duration as `--format json` writes it: whole seconds as integers, others with their
/// milliseconds.
fn json_secs(d: Option<SimDuration>) -> serde_json::Value {
    match d {
        None => serde_json::Value::Null,
        Some(d) if d.as_millis() % 1000 == 0 => serde_json::json!(d.as_millis() / 1000),
        Some(d) => serde_json::json!(d.as_millis() as f64 / 1000.0),
    }
}

fn json_phase(p: &probesim::figures::GridPhase) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("start".into(), json_secs(Some(p.start)));
    if let Some(c) = p.change {
        m.insert("change".into(), json_secs(Some(c)));
    }
    if let Some(s) = p.seed {
        m.insert("seed".into(), serde_json::json!(s));
    }
    if let Some(r) = p.restart {
        m.insert("restart".into(), json_secs(Some(r)));
    }
    serde_json::Value::Object(m)
}

fn json_figure(f: Option<&probesim::Figure>) -> serde_json::Value {
    f.map_or(serde_json::Value::Null, |f| {
        serde_json::json!({
            "min": json_secs(f.min.value),
            "max": json_secs(f.max.value),
            "phases": {"min": json_phase(&f.min.phase), "max": json_phase(&f.max.phase)},
        })
    })
}

// The library's figures are the CLI's: `probesim analyze --format json` on the same file.
#[test]
fn figures_equal_what_probesim_analyze_reports() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["analyze", TEAM_WEB, "--format", "json"])
        .output()
        .expect("probesim runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let cli = &report["workloads"][0]["containers"][0];
    assert_eq!(cli["name"], "web");

    let run = Test::manifest(TEAM_WEB)
        .unwrap()
        .horizon("1s")
        .run()
        .unwrap();
    let all = run.figures().unwrap();
    assert_eq!(all.len(), 1);
    let web = run.figures_of("web").unwrap();
    assert_eq!(web, all[0]);
    assert_eq!(
        cli["startupBudget"],
        json_figure(web.startup_budget.as_ref())
    );
    for (key, f) in [
        ("kill", &web.hang.kill),
        ("exit", &web.hang.exit),
        ("restarted", &web.hang.restarted),
    ] {
        assert_eq!(cli["hangDetection"][key], json_figure(Some(f)), "{key}");
    }
    assert_eq!(
        cli["readiness"]["toReady"],
        json_figure(Some(&web.readiness.to_ready))
    );
    assert_eq!(
        cli["readiness"]["toNotReady"],
        json_figure(web.readiness.to_not_ready.as_ref())
    );
    let crash = web.crash_loop.as_ref().expect("restartPolicy Always loops");
    assert_eq!(
        cli["crashLoop"]["backOff"],
        json_figure(Some(&crash.back_off))
    );
    assert_eq!(cli["crashLoop"]["cycle"], json_figure(Some(&crash.cycle)));
    let restarts: Vec<serde_json::Value> =
        crash.restarts.iter().map(|d| json_secs(Some(*d))).collect();
    assert_eq!(
        cli["crashLoop"]["restarts"],
        serde_json::Value::Array(restarts)
    );
    assert_eq!(
        cli["sweep"]["simulations"],
        serde_json::json!(web.simulations)
    );

    // A container without probes is named in a typed error, worded as the CLI's.
    let e = run.figures_of("db").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    assert_eq!(
        e.to_string(),
        format!(
            "error: {TEAM_WEB}: no container named \"db\" has probes (containers with probes: web)"
        )
    );
}

/// Whether the team's web app, refusing every probe for `refuse` after its start (which an
/// image pull of `pull` moves against the tick grid), is killed within five minutes.
fn killed_starting(refuse: SimDuration, pull: SimDuration) -> bool {
    let run = Test::manifest(TEAM_WEB)
        .unwrap()
        .endpoint(
            ":8080",
            &format!("refused for {} then ok", probesim::format_duration(refuse)),
        )
        .pull(&probesim::format_duration(pull))
        .horizon("5m")
        // The figures are computed under canonical timing (docs/semantics.md#runtime-durations).
        .timing_mode(TimingMode::Exact)
        .run()
        .unwrap();
    let kills = run.kills();
    assert!(
        kills.iter().all(|k| k.cause == KillCause::Startup),
        "{kills:?}"
    );
    !kills.is_empty()
}

// P30, P34: the start-up budget is the boundary direct runs see: an app that starts within
// startupBudget.min survives at every phase, one slower than startupBudget.max is killed.
#[test]
fn startup_budget_bounds_direct_runs() {
    let run = Test::manifest(TEAM_WEB)
        .unwrap()
        .horizon("1s")
        .run()
        .unwrap();
    let budget = run
        .figures_of("web")
        .unwrap()
        .startup_budget
        .expect("a startup probe");
    let min = budget.min.value.expect("a bounded budget");
    let max = budget.max.value.expect("a bounded budget");
    assert!(min <= max);
    let ms = SimDuration::from_millis;
    for pull in [ms(0), ms(1), ms(2_500), ms(4_999), ms(7_300)] {
        assert!(
            !killed_starting(min, pull),
            "T = min {min}s, pull {pull}s: killed"
        );
        assert!(
            !killed_starting(min.saturating_sub(ms(1_000)), pull),
            "T = min - 1s, pull {pull}s: killed"
        );
        assert!(
            killed_starting(max.saturating_add(ms(1)), pull),
            "T = max {max}s + 1ms, pull {pull}s: not killed"
        );
    }
}

// P30, P34: the guide's figures snippet (docs/property-testing.md), run on the team's file.
#[test]
fn the_guide_figures_snippet_holds() -> Result<(), probesim::Error> {
    let guide = std::fs::read_to_string("docs/property-testing.md").unwrap();
    let snippet = &blocks(&guide, "rust,ignore")[0];
    assert!(snippet.contains("run.figures_of(\"web\")?"), "{snippet}");
    let run = Test::manifest(TEAM_WEB)?.horizon("1s").run()?;
    let web = run.figures_of("web")?;
    let budget = web.startup_budget.expect("a startup probe");
    assert!(
        budget.min.value.unwrap() >= SimDuration::from_secs(90),
        "{}",
        budget.min.phase
    );
    let kill = web.hang.kill.max.value.unwrap();
    assert!(kill <= SimDuration::from_secs(35), "{kill}s");
    Ok(())
}

// A prepared test runs each case as a fresh Test with the same calls runs it: the same
// timeline and the same replay file, for any script, seed and horizon.
proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn a_prepared_case_is_the_fresh_test(
        script in strategy::script_for(probesim::HandlerFamily::Http),
        seed in seed(),
        minutes in 1_u64..20,
    ) {
        let script = script.to_string();
        let horizon = SimDuration::from_secs(minutes * 60);
        let prepared = web().endpoint(":8080", "ok").prepare()?;
        let case = prepared.case().endpoint(":8080", &script).seed(seed).horizon_of(horizon).run()?;
        let fresh = web().endpoint(":8080", &script).seed(seed).horizon_of(horizon).run()?;
        prop_assert_eq!(case.kills(), fresh.kills());
        prop_assert_eq!(case.restarts("web"), fresh.restarts("web"));
        prop_assert_eq!(case.ready_intervals(), fresh.ready_intervals());
        prop_assert_eq!(case.final_status(), fresh.final_status());
        prop_assert_eq!(case.notes(), fresh.notes());
        prop_assert_eq!(case.replay(), fresh.replay());
    }
}

#[test]
fn prepared_cases_keep_the_template_and_take_probe_scripts_and_closures() {
    let prepared = web()
        .probe(ProbeKind::Liveness, "ok")
        .probe(ProbeKind::Readiness, "ok")
        .horizon("3m")
        .prepare()
        .unwrap();
    // The template as given: nothing fails.
    let quiet = prepared.run().unwrap();
    assert!(quiet.kills().is_empty());
    // R13: a case's liveness script fails the probe three times; the next case is the
    // template's again.
    let failing = prepared
        .clone()
        .case()
        .probe(ProbeKind::Liveness, "500")
        .run()
        .unwrap();
    assert_eq!(
        failing.kills_for(KillCause::Liveness).len(),
        failing.kills().len()
    );
    assert!(!failing.kills().is_empty());
    assert!(
        failing.replay().contains("liveness: \"500\"")
            || failing.replay().contains("liveness: 500"),
        "{}",
        failing.replay()
    );
    assert!(prepared.run().unwrap().kills().is_empty());
    // A closure on a case, as on a Test.
    let closed = prepared
        .case()
        .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| {
            probesim::Response::now(probesim::Answer::Refused)
        })
        .run()
        .unwrap();
    assert_eq!(closed.kills(), failing.kills());
    assert!(closed.replay().contains("closures answered some probes"));
}

#[test]
fn prepared_cases_fail_as_fresh_tests_fail() {
    let prepared = web().endpoint(":8080", "ok").prepare().unwrap();
    // A script that does not parse: the message of the fresh test.
    let case = prepared
        .case()
        .endpoint(":8080", "5x200 then")
        .run()
        .unwrap_err();
    let fresh = web().endpoint(":8080", "5x200 then").run().unwrap_err();
    assert_eq!(case.kind(), ErrorKind::Input);
    assert_eq!(case.to_string(), fresh.to_string());
    // An exit code does not answer an HTTP probe.
    let case = prepared
        .case()
        .endpoint(":8080", "exit 1")
        .run()
        .unwrap_err();
    let fresh = web().endpoint(":8080", "exit 1").run().unwrap_err();
    assert_eq!(case.to_string(), fresh.to_string());
    // A key the template did not script.
    let e = prepared
        .case()
        .probe(ProbeKind::Liveness, "500")
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
    assert!(e.to_string().contains("no script for \"liveness\""), "{e}");
    // Closures belong to cases.
    let e = web()
        .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| {
            probesim::Response::now(probesim::Answer::Ok)
        })
        .prepare()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Usage);
    // A bad horizon, as the fresh test words it.
    let case = prepared.case().horizon("soon").run().unwrap_err();
    let fresh = web()
        .endpoint(":8080", "ok")
        .horizon("soon")
        .run()
        .unwrap_err();
    assert_eq!(case.to_string(), fresh.to_string());
}

// Issue 23: ten simulated years of a crash loop through the library, fast-forwarded as the
// command line's summary is (R35: the back-off reaches its 5-minute cap and the loop repeats):
// the run keeps each repeated cycle once, and every query still sees every cycle.
#[test]
fn ten_years_of_a_crash_loop_are_fast_forwarded() {
    let kubia = |horizon: &str| {
        Test::scenario("scenarios/kubia-unhealthy.yaml")
            .unwrap()
            .horizon(horizon)
            .run()
            .unwrap()
    };
    let years = kubia("87600h");
    let day = kubia("24h");
    // The first day of ten years is that day.
    let kills = years.kills();
    let first: Vec<_> = kills
        .iter()
        .filter(|k| secs(k.at) <= 86_400)
        .cloned()
        .collect();
    assert_eq!(first, day.kills());
    // Every restart follows a kill by the liveness probe, to the end.
    let restarts = years.restarts("kubia");
    assert_eq!(
        restarts.len() as u64,
        u64::from(years.restart_count("kubia"))
    );
    assert!(
        kills.len() - restarts.len() <= 1,
        "{} {}",
        kills.len(),
        restarts.len()
    );
    assert!(kills.iter().all(|k| k.cause == KillCause::Liveness));
    assert!(restarts.windows(2).all(|w| w[0] < w[1]));
    // About one restart per cycle of 5 minutes of back-off plus the instance's run and grace.
    let per_day = day.restarts("kubia").len() as u64;
    let per_ten_years = restarts.len() as u64;
    assert!(
        per_ten_years > per_day * 3600 && per_ten_years < per_day * 3700,
        "{per_day} a day, {per_ten_years} in ten years"
    );
    assert!(secs(*restarts.last().unwrap()) > 87_599 * 3600);
}

// The limit on events simulated one by one, as the command line's listing formats have it: a
// typed error that says when the run passes it. A closure keeps the run step by step.
#[test]
fn a_run_past_its_event_limit_is_a_typed_error() {
    let e = Test::scenario("scenarios/kubia-unhealthy.yaml")
        .unwrap()
        .event_limit(200)
        .run()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Limit);
    let shown = e.to_string();
    assert!(
        shown.starts_with("error: scenarios/kubia-unhealthy.yaml: the run is too large: more than 200 events would be simulated one by one, the limit being passed at "),
        "{shown}"
    );
    // Fast-forward skips what it need not simulate: a year of the crash loop fits a limit far
    // below its events.
    let year = Test::scenario("scenarios/kubia-unhealthy.yaml")
        .unwrap()
        .horizon("8760h")
        .event_limit(100_000)
        .run()
        .unwrap();
    assert!(year.probe_runs() > 900_000, "{}", year.probe_runs());
    let stepped = web()
        .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| {
            probesim::Response::now(probesim::Answer::Ok)
        })
        .horizon("1h")
        .event_limit(1_000)
        .run()
        .unwrap_err();
    assert_eq!(stepped.kind(), ErrorKind::Limit);
}

// Every bundled scenario states its release (docs/scenario-format.md, `kubernetes`), so none
// gets the note that a file without one runs as the newest; the same file without the line
// does.
#[test]
fn bundled_scenarios_state_their_release() {
    const NOTE: &str = "no `kubernetes:` given";
    let mut dirs = vec![std::path::PathBuf::from("scenarios")];
    let mut checked = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let name = path.to_str().unwrap();
                let run = Test::scenario(name).unwrap().horizon("1s").run();
                let run = run.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(
                    !run.notes().iter().any(|n| n.contains(NOTE)),
                    "{name}: {:?}",
                    run.notes()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 90, "{checked}");
    let text = std::fs::read_to_string("scenarios/kubia-unhealthy.yaml").unwrap();
    let unpinned = text.replace("kubernetes: \"1.37\"\n", "");
    let run = Test::scenario_text(&unpinned, "mine.yaml").run().unwrap();
    assert!(
        run.notes()[0]
            .starts_with("mine.yaml: no `kubernetes:` given, so this runs as Kubernetes 1.37"),
        "{:?}",
        run.notes()
    );
}

// docs/property-testing.md#which-input-covers-what: on 1.21+ the seed leaves the tick grid where
// it is; `Test::phase` moves the app's clock against it. kubia's liveness probe (period 10 s)
// answers 200 five times, then 500: with the start 9.5 s late, the grid's ticks at 10, 20, …
// meet a process 0.5 s old at the first, so the kill stays at 80 s; the restart after it is
// not delayed.
#[test]
fn the_phase_moves_the_first_start_and_the_seed_does_not_on_1_21_plus() {
    let base = || {
        Test::scenario("scenarios/kubia-unhealthy.yaml")
            .unwrap()
            .horizon("2m")
    };
    let plain = base().run().unwrap();
    let seeded = base().seed(42).run().unwrap();
    assert_eq!(
        plain.kills(),
        seeded.kills(),
        "the seed changes nothing on 1.37"
    );
    let late = base().phase(SimDuration::from_millis(9500)).run().unwrap();
    assert_eq!(late.kills()[0].at, SimTime::from_secs(80));
    assert!(late
        .status_at(SimTime::from_secs(9))
        .container("kubia")
        .is_some_and(|c| !c.started));
    assert!(plain
        .status_at(SimTime::from_secs(9))
        .container("kubia")
        .is_some_and(|c| c.started));
    assert_eq!(
        plain.restarts("kubia"),
        late.restarts("kubia"),
        "restarts are not moved"
    );
    assert!(late
        .replay()
        .contains("--seed 0 --phase 9.5s --kubernetes 1.37"));
    // A timing is a seed, a phase and the kubelet's jitter.
    let t = probesim::Timing::new(5, SimDuration::from_millis(1234));
    let run = base().timing(t).run().unwrap();
    assert!(run.replay().contains("--seed 5 --phase 1.234s --jitter"));
    let refused = base()
        .phase(SimDuration::from_secs(3601))
        .run()
        .unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::Input);
    assert!(refused
        .to_string()
        .contains("--phase: the start phase must be at most 1h"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    // strategy::timing: phases within the period given, and a run for every one.
    #[test]
    fn timings_draw_phases_within_the_period(t in strategy::timing(SimDuration::from_secs(10))) {
        prop_assert!(t.phase < SimDuration::from_secs(10));
        let run = Test::scenario("scenarios/kubia-unhealthy.yaml").unwrap().horizon("90s").timing(t).run().unwrap();
        prop_assert_eq!(run.kills().len(), 1);
    }
}
