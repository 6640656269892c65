//! Bounded time and memory on hostile but valid input: each test names the finding it pins and
//! the bound it must meet. Bounds are work counts where the code exposes them, otherwise a
//! timeout many times the expected cost (these are not benchmarks: `cargo bench` measures).

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Runs `work` on its own thread and fails when it has not finished within `limit`, which is
/// chosen many times the expected cost so that a slow machine never trips it, while a cost that
/// grows with the input (quadratic parsing, an unbounded sweep) does.
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    thread::Builder::new()
        .name(what.to_owned())
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = send.send(work());
        })
        .expect("spawn the worker");
    match receive.recv_timeout(limit) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: not finished within {limit:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: the worker panicked"),
    }
}

/// A behaviour script of 256 k steps (2.3 MB) parses in time linear in its length: it once took
/// a rescan from the start of the text for every outcome (64 k steps took 29.5 s, 256 k never
/// finished). A linear parse takes well under a second even in a debug build.
#[test]
fn a_script_of_256k_steps_parses_in_linear_time() {
    const STEPS: usize = 256 * 1024;
    let script = within(Duration::from_secs(60), "parse 256 k steps", || {
        let text = vec!["200 for 1s"; STEPS].join(", ");
        probesim_script::parse(&text).map(|s| s.steps().len())
    });
    assert_eq!(script, Ok(STEPS));
    // The last outcome's position is still counted right after a linear scan (one line, so
    // the column is its character offset plus one).
    let mut text = vec!["200"; 1000].join(",\n");
    text.push_str(", exit 1");
    let error = probesim_script::parse(&text)
        .expect("a valid script")
        .check_handler(probesim_core::HandlerFamily::Http)
        .expect_err("exit 1 cannot answer an httpGet probe");
    assert_eq!((error.line(), error.column()), (1000, 6));
}

/// Runs the binary with `args` and gives its exit code and standard error, failing when it has
/// not finished within `limit`.
fn probesim(limit: Duration, args: &[&str]) -> (Option<i32>, String) {
    let args: Vec<String> = args.iter().map(|&a| a.to_owned()).collect();
    let what = format!("probesim {}", args.join(" "));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start probesim");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let id = child.id();
    let output = thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let _ = send.send(child.wait());
    });
    match receive.recv_timeout(limit) {
        Ok(status) => {
            let code = status.expect("wait for probesim").code();
            (code, output.join().unwrap_or_default())
        }
        Err(_) => {
            // Stop the child this test started, by its id, before failing.
            let _ = std::process::Command::new("kill")
                .args(["-9", &id.to_string()])
                .status();
            panic!("{what}: not finished within {limit:?}");
        }
    }
}

/// A scratch file under the target directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, text: &str) -> Scratch {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bounds");
        std::fs::create_dir_all(&dir).expect("scratch directory");
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write the scratch file");
        Scratch(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 path")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A 40 MiB file holding a 20 M-item flow sequence (under the 64 MiB input limit) is refused
/// for its node count after reading about 100 k nodes: telling a manifest from a scenario once
/// read the whole first document first (46 s).
#[test]
fn a_20m_item_sequence_is_refused_after_the_node_limit() {
    let mut text = String::from("duration: 1m\nitems_of_nothing: [");
    text.push_str(&"1,".repeat(20_000_000));
    text.push_str("1]\n");
    let file = Scratch::new("flow-20m.yaml", &text);
    drop(text);
    let (code, stderr) = probesim(Duration::from_secs(120), &["run", file.path()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("more than 100000 nodes"), "{stderr}");
}

/// Loads the analysis subjects of a scenario text.
fn subjects(text: &str) -> Vec<probesim_analysis::subject::Subject> {
    probesim_analysis::subject::load(
        text,
        "bounds.yaml",
        &probesim_analysis::subject::LoadOptions::default(),
        &mut support::RepoFiles,
    )
    .expect("a valid scenario")
}

/// A scenario whose one container `app` has a liveness probe with `field`, or `containers`
/// such containers (`app0`, `app1`, …) when `field` is empty.
fn probed(field: &str, containers: usize) -> String {
    let mut text = String::from(
        "name: bounds\nkubernetes: \"1.37\"\nduration: 1m\npod:\n  apiVersion: v1\n  kind: Pod\n  \
         metadata: {name: p}\n  spec:\n    containers:\n",
    );
    for i in 0..containers {
        let name = if containers == 1 {
            "app".to_owned()
        } else {
            format!("app{i}")
        };
        text.push_str(&format!(
            "    - name: {name}\n      image: x\n      livenessProbe:\n        \
             httpGet: {{path: /, port: 8080}}\n"
        ));
        if !field.is_empty() {
            text.push_str(&format!("        {field}\n"));
        }
    }
    text
}

/// The valid timings that once made `analyze` run for ever (or for minutes), and 1,000
/// containers.
fn hostile_pods() -> Vec<(&'static str, String)> {
    vec![
        ("periodSeconds: 86400", probed("periodSeconds: 86400", 1)),
        (
            "failureThreshold: 2147483647",
            probed("failureThreshold: 2147483647", 1),
        ),
        (
            "initialDelaySeconds: 2147483647",
            probed("initialDelaySeconds: 2147483647", 1),
        ),
        ("1000 containers", probed("", 1000)),
    ]
}

/// The analysis draws every simulation step from one budget and stops with a typed error when
/// it is spent: on each hostile timing it gives up having done at most one trial past the
/// limit (each trial is itself bounded by the limit in events and in quiet stretches), while
/// kubia fits in it.
#[test]
fn analysis_work_is_bounded_by_its_budget() {
    use probesim_analysis::analyze::{AnalysisError, Analyzer, Want, Work};
    use probesim_analysis::sweep::Sweep;
    const LIMIT: u64 = 1_000_000;
    for (what, text) in hostile_pods() {
        let subject = subjects(&text).remove(0);
        let result = within(Duration::from_secs(300), what, move || {
            let analyzer = Analyzer::sharing(&subject, Sweep::new(2), Work::new(LIMIT));
            let figures = analyzer.all(Want::ALL);
            (figures.map(|f| f.len()), analyzer.work())
        });
        match result {
            (Err(AnalysisError::TooCostly { limit, .. }), work) => {
                assert_eq!(limit, LIMIT, "{what}");
                assert!(
                    work <= 3 * LIMIT + 2,
                    "{what}: {work} steps for a limit of {LIMIT}"
                );
            }
            other => panic!("{what}: expected the work limit, got {other:?}"),
        }
    }
    let kubia = std::fs::read_to_string(support::root().join("scenarios/kubia-unhealthy.yaml"))
        .expect("kubia");
    let subject = subjects(&kubia).remove(0);
    let analyzer = Analyzer::sharing(&subject, Sweep::single(), Work::new(LIMIT));
    assert!(analyzer.all(Want::ALL).is_ok());
    assert!(
        analyzer.work() > 10_000 && analyzer.work() < LIMIT / 2,
        "{}",
        analyzer.work()
    );
}

/// `analyze` on the command line and `Run::figures()` in the library answer the timings that
/// never ended with the limit's error, at once: their simulations alone would pass it.
#[test]
fn analyze_refuses_endless_timings_at_once() {
    for field in [
        "failureThreshold: 2147483647",
        "initialDelaySeconds: 2147483647",
    ] {
        let file = Scratch::new("endless.yaml", &probed(field, 1));
        let (code, stderr) = probesim(Duration::from_secs(120), &["analyze", file.path()]);
        assert_eq!(code, Some(2), "{field}: {stderr}");
        assert!(
            stderr
                .contains("container app: the analysis needs more than 20000000 simulation steps"),
            "{field}: {stderr}"
        );
        let text = probed(field, 1);
        let figures = within(Duration::from_secs(120), field, move || {
            probesim::Test::scenario_text(&text, "endless.yaml")
                .run()
                .and_then(|run| run.figures())
                .map(|f| f.len())
        });
        let error = figures.expect_err("the limit");
        assert!(
            error.to_string().contains("simulation steps"),
            "{field}: {error}"
        );
    }
}

/// `recommend --startup-up-to 1000h` answers at once: past a day the recommender does not
/// search (it once judged liveness initial delays of up to the budget, each a full analysis
/// whose simulations span it: 24h took 5.4 s, 1000h never ended).
#[test]
fn recommend_refuses_a_startup_beyond_its_search_at_once() {
    let kubia = support::root().join("scenarios/kubia-unhealthy.yaml");
    let kubia = kubia.to_str().expect("a UTF-8 path");
    let (code, stderr) = probesim(
        Duration::from_secs(60),
        &[
            "recommend",
            kubia,
            "--container",
            "kubia",
            "--startup-up-to",
            "1000h",
        ],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr
            .contains("--startup-up-to 1000h is more than the recommender searches (24h at most)"),
        "{stderr}"
    );
}

/// `--format describe` has no fast-forward, so it is held to the event limit like the listing
/// formats: 100 years of kubia took 21 s (and `--for`/`--at` further out effectively hung);
/// now the count (which fast-forwards) refuses it before the view runs.
#[test]
fn describe_is_held_to_the_event_limit() {
    let kubia = support::root().join("scenarios/kubia-unhealthy.yaml");
    let kubia = kubia.to_str().expect("a UTF-8 path");
    for args in [
        &["run", kubia, "--for", "876000h", "--format", "describe"][..],
        &[
            "run",
            kubia,
            "--for",
            "100000000h",
            "--at",
            "99999999h",
            "--format",
            "describe",
        ][..],
    ] {
        let (code, stderr) = probesim(Duration::from_secs(120), args);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains("too large for --format describe")
                && stderr.contains("events would be simulated one by one"),
            "{stderr}"
        );
    }
}

/// A healthy pod probed every second by two probes, for a day: 172,800 probe runs. The
/// picture once drew one element per run (21 MB of svg); runs closer together than a pixel
/// are one mark, so the picture is bounded by its width, and still says how many runs each
/// mark holds.
#[test]
fn a_day_of_probes_every_second_draws_in_bounded_bytes() {
    let text = "name: dense\nkubernetes: \"1.37\"\nduration: 24h\ntiming: exact\npod:\n  apiVersion: v1\n  kind: Pod\n  \
                metadata: {name: p}\n  spec:\n    containers:\n    - name: app\n      image: x\n      \
                ports: [{containerPort: 8080}]\n      \
                livenessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}\n      \
                readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}\n\
                apps:\n  app:\n    probes: {liveness: ok, readiness: ok}\n";
    let file = Scratch::new("dense.yaml", text);
    for format in ["svg", "html"] {
        let path = file.path().to_owned();
        let out = within(Duration::from_secs(300), format, move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_probesim"))
                .args(["run", &path, "--format", format])
                .output()
                .expect("run probesim")
        });
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout.len() < 200_000,
            "{format}: {} bytes",
            out.stdout.len()
        );
        let picture = String::from_utf8_lossy(&out.stdout);
        assert!(
            picture.contains("t=1s to t=24h: 86400 liveness runs, each a success"),
            "{format}: the dense mark says what it holds"
        );
    }
}

/// A picture past its byte limit is refused with `FileTooLarge` and a message naming the
/// format, before anything is written (the command line's limit is 64 MiB).
#[test]
fn a_picture_past_its_byte_limit_is_refused() {
    let path = support::root().join("scenarios/kubia-unhealthy.yaml");
    let text = std::fs::read_to_string(&path).expect("kubia");
    let scenario = probesim_scenario::scenario::Scenario::load_with(
        &text,
        "scenarios/kubia-unhealthy.yaml",
        &mut support::RepoFiles,
        &probesim_scenario::scenario::Overrides::default(),
    )
    .expect("kubia loads");
    for (html, limit, refused) in [
        (false, 10_000, true),
        (true, 10_000, true),
        (false, 1 << 20, false),
    ] {
        let mut sim = scenario.simulation();
        let version = sim.profile().version();
        let info = probesim_report::RunInfo {
            scenario: &scenario.name,
            kubernetes: &version,
            seed: scenario.seed,
            duration: probesim_core::SimDuration::from_secs(1800),
            overridden: &[],
        };
        let mut sink = probesim_report::PictureSink::new(Vec::new(), html, &info, None, sim.pod())
            .with_byte_limit(limit);
        let end = probesim_core::SimTime::from_secs(1800);
        sim.run_until(end, &mut sink).expect("kubia runs");
        match sink.finish(end, sim.pod(), sim.status()) {
            Err(e) if refused => {
                assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
                let format = if html { "html" } else { "svg" };
                assert_eq!(
                    e.to_string(),
                    format!("the picture is too large for --format {format}: more than 10000 bytes would be written (the limit); use a shorter --for, or --format summary")
                );
            }
            Ok(bytes) if !refused => assert!(bytes.len() <= limit && bytes.len() > 10_000),
            other => panic!("html {html}, limit {limit}: {:?}", other.map(|b| b.len())),
        }
    }
}
