//! `probesim check` end to end, where an exact golden is not the point: the report formats
//! read by real parsers (JUnit XML, JSON, GitHub annotations), the same bytes whatever
//! `--jobs`, the version matrix, snapshots written and compared in a scratch directory, the
//! walk over entries that cannot be read, and the generated files (schema, completions, man
//! page) checked by the tools that consume them.

#[path = "support/schema.rs"]
mod schema;
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const FIXTURES: &str = "tests/cmd/fixtures";

fn probesim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(args)
        // `check --update` is refused under CI, where these tests also run.
        .env_remove("CI")
        .current_dir(support::root())
        .stdin(Stdio::null())
        .output()
        .expect("probesim runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("stderr is UTF-8")
}

/// A fresh scratch directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("check")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

/// A passing, a failing and an invalid scenario.
fn mixed() -> [String; 3] {
    [
        fixture("quick-restart.yaml"),
        fixture("failing-expectation.yaml"),
        fixture("invalid-probe.yaml"),
    ]
}

fn attr<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> &'a str {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> lacks the attribute {name}", node.tag_name().name()))
}

fn number(node: roxmltree::Node<'_, '_>, name: &str) -> usize {
    attr(node, name)
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a count"))
}

#[test]
fn junit_report_has_the_structure_ci_systems_read() {
    let [a, b, c] = mixed();
    let out = probesim(&["check", "--format", "junit", &a, &b, &c]);
    assert_eq!(out.status.code(), Some(2), "an invalid scenario wins");
    let text = stdout(&out);
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 1);
    let suite = suites[0];
    assert_eq!(suite.tag_name().name(), "testsuite");
    attr(suite, "name");
    let cases: Vec<_> = suite.children().filter(|n| n.is_element()).collect();
    assert!(cases.iter().all(|c| c.tag_name().name() == "testcase"));
    assert_eq!(cases.len(), 3);
    // The counts agree with what the cases hold, on the suite and on the root.
    let holding = |tag: &str| {
        cases
            .iter()
            .filter(|c| c.children().any(|n| n.tag_name().name() == tag))
            .count()
    };
    for node in [root, suite] {
        assert_eq!(number(node, "tests"), cases.len());
        assert_eq!(number(node, "failures"), holding("failure"));
        assert_eq!(number(node, "errors"), holding("error"));
        assert_eq!(number(node, "skipped"), 0);
    }
    for case in &cases {
        attr(*case, "name");
        attr(*case, "classname");
    }
    assert_eq!(attr(cases[0], "name"), "quick-restart.yaml");
    assert_eq!(attr(cases[0], "classname"), FIXTURES);
    assert_eq!(attr(cases[1], "file"), b);
    let failure = cases[1]
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("the failing scenario holds a failure");
    assert_eq!(attr(failure, "type"), "expectation");
    assert!(attr(failure, "message").starts_with("expect[1] (line 28): at 1m container web"));
    let body = failure.text().unwrap_or_default();
    assert!(body.contains("expect[2] (line 31)"), "{body}");
    let error = cases[2]
        .children()
        .find(|n| n.has_tag_name("error"))
        .expect("the invalid scenario holds an error");
    assert_eq!(
        error.text(),
        Some(
            "tests/cmd/fixtures/invalid-probe.yaml:14:27: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
        )
    );
}

#[test]
fn json_report_lists_every_result() {
    let [a, b, c] = mixed();
    let out = probesim(&["check", "--format", "json", "-q", &a, &b, &c]);
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("one JSON document");
    let results = doc["results"].as_array().expect("results");
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["passed", "failed", "invalid"]);
    assert_eq!(results[0]["kubernetes"], "1.37");
    assert_eq!(results[0]["expectations"], 2);
    assert_eq!(results[1]["failures"][0]["index"], 1);
    assert_eq!(results[1]["failures"][0]["line"], 28);
    assert_eq!(results[2]["errors"][0]["line"], 14);
    assert_eq!(
        (&doc["passed"], &doc["failed"], &doc["invalid"]),
        (&1.into(), &1.into(), &1.into())
    );
    // The error text still goes to standard error, for people reading the log.
    assert!(stderr(&out).contains("  --> tests/cmd/fixtures/invalid-probe.yaml:14:27"));
}

#[test]
fn github_annotations_point_at_the_expectation_items() {
    let b = fixture("failing-expectation.yaml");
    let out = probesim(&["check", "--format", "github", &b]);
    assert_eq!(out.status.code(), Some(1));
    let source = std::fs::read_to_string(support::root().join(&b)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let annotations: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("::error "))
        .map(str::to_owned)
        .collect();
    assert_eq!(annotations.len(), 2);
    for a in &annotations {
        let props = a["::error ".len()..].split("::").next().unwrap();
        let line: usize = props
            .split(',')
            .find_map(|p| p.strip_prefix("line="))
            .expect("a line")
            .parse()
            .unwrap();
        assert!(props.starts_with(&format!("file={b},")), "{a}");
        assert!(
            lines[line - 1].trim_start().starts_with("- "),
            "line {line} is not an expectation item: {:?}",
            lines[line - 1]
        );
    }
}

#[test]
fn the_output_is_the_same_whatever_the_number_of_jobs() {
    let run = |jobs: &str| {
        let o = probesim(&["check", "scenarios", "tests/cmd/fixtures", "--jobs", jobs]);
        (o.status.code(), stdout(&o), stderr(&o))
    };
    let one = run("1");
    assert!(one.1.lines().count() > 90, "{}", one.1);
    assert_eq!(run("2"), one);
    assert_eq!(run("7"), one);
}

#[test]
fn a_matrix_gives_one_result_per_scenario_and_release() {
    let a = fixture("quick-restart.yaml");
    let out = probesim(&["check", &a, "--kubernetes", "1.30,v1.37,1.30"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("ok      {a} [1.30] (2 expectations)\nok      {a} [1.37] (2 expectations)\n2 passed, 0 failed\n")
    );
    let all = probesim(&["check", &a, "--kubernetes", "all", "--format", "json"]);
    let doc: Value = serde_json::from_str(&stdout(&all)).unwrap();
    let releases: Vec<&str> = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kubernetes"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (19..=37).map(|m| format!("1.{m}")).collect();
    assert_eq!(releases, expected);
    let bad = probesim(&["check", &a, "--kubernetes", "1.30,1.18"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--kubernetes: unsupported Kubernetes version \"1.18\""));
}

#[test]
fn standard_input_is_checked_as_run_reads_it() {
    let a = fixture("failing-expectation.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(["check", "-"])
        .current_dir(support::root())
        .stdin(std::fs::File::open(support::root().join(&a)).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("FAILED  <stdin>: expect[1] (line 28): at 1m container web"),
        "{}",
        stdout(&out)
    );
    let twice = probesim(&["check", "-", "-"]);
    assert_eq!(twice.status.code(), Some(2));
    let snapshot = probesim(&["check", "-", "--snapshot"]);
    assert_eq!(snapshot.status.code(), Some(2));
}

#[test]
fn snapshots_are_written_on_update_and_then_compared() {
    let dir = scratch("snapshots");
    let scenario = dir.join("quick.yaml");
    std::fs::copy(
        support::root().join(fixture("quick-restart.yaml")),
        &scenario,
    )
    .unwrap();
    let path = scenario.to_str().unwrap();
    let snap = dir.join("quick.snap");

    let missing = probesim(&["check", "--snapshot", path]);
    assert_eq!(missing.status.code(), Some(1), "a missing snapshot fails");
    assert!(stdout(&missing).contains("no such file (run with --update to write it)"));
    assert!(!snap.exists(), "check writes nothing without --update");

    let written = probesim(&["check", "--snapshot", "--update", path]);
    assert_eq!(written.status.code(), Some(0));
    assert!(
        stdout(&written).contains("written)"),
        "{}",
        stdout(&written)
    );
    // A snapshot is the full event table of the bundled goldens: `run -v` without pod syncs.
    let timeline = probesim(&[
        "run",
        path,
        "-v",
        "--only",
        "probe,result,kill,exit,start,backoff,ready,started,status,podReady,phase,event,delete,deleted,kubeletRestart",
    ]);
    assert_eq!(
        std::fs::read(&snap).unwrap(),
        timeline.stdout,
        "the snapshot is the timeline"
    );

    let matched = probesim(&["check", "--snapshot", path]);
    assert_eq!(matched.status.code(), Some(0));
    assert!(stdout(&matched).contains("matched)"));

    let edited = String::from_utf8(timeline.stdout.clone())
        .unwrap()
        .replacen("restartCount 1", "restartCount 7", 1);
    std::fs::write(&snap, &edited).unwrap();
    let differs = probesim(&["check", "--snapshot", "--format", "github", path]);
    assert_eq!(differs.status.code(), Some(1));
    let text = stdout(&differs);
    assert!(text.contains("snapshot"), "{text}");
    assert!(
        text.contains("%0A- ") && text.contains("restartCount 7"),
        "{text}"
    );
    // Annotated on the scenario file (in the pull request's diff), not on the `.snap`.
    assert!(
        text.contains(&format!(
            "::error file={path},title=probesim check::snapshot "
        )),
        "{text}"
    );

    let updated = probesim(&["check", "--snapshot", "--update", path]);
    assert!(stdout(&updated).contains("updated)"));
    assert_eq!(std::fs::read(&snap).unwrap(), timeline.stdout);

    // Under --kubernetes each release has its own snapshot.
    let matrix = probesim(&[
        "check",
        "--snapshot",
        "--update",
        "--kubernetes",
        "1.30",
        path,
    ]);
    assert_eq!(matrix.status.code(), Some(0));
    assert!(dir.join("quick@1.30.snap").exists());
    let update_alone = probesim(&["check", "--update", path]);
    assert_eq!(
        update_alone.status.code(),
        Some(2),
        "--update needs --snapshot"
    );
}

/// The issue's walk: a FIFO named `*.yaml` (opening it would block for ever), a symbolic link
/// that loops, and files sorted after them, which must still be checked.
#[cfg(unix)]
#[test]
fn the_walk_reports_what_it_cannot_read_and_goes_on() {
    let dir = scratch("walk");
    let good = std::fs::read(support::root().join(fixture("quick-restart.yaml"))).unwrap();
    std::fs::write(dir.join("a.yaml"), &good).unwrap();
    let fifo = Command::new("mkfifo")
        .arg(dir.join("b-pipe.yaml"))
        .status()
        .expect("mkfifo runs");
    assert!(fifo.success());
    std::os::unix::fs::symlink("c-loop.yaml", dir.join("c-loop.yaml")).unwrap();
    std::fs::write(dir.join("d.yaml"), &good).unwrap();
    let shown = dir.display().to_string();
    let out = probesim(&["check", &shown]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "ok      {shown}/a.yaml (2 expectations)\ninvalid {shown}/b-pipe.yaml\ninvalid {shown}/c-loop.yaml\nok      {shown}/d.yaml (2 expectations)\n2 passed, 0 failed, 2 invalid\n"
        )
    );
    let err = stderr(&out);
    assert!(
        err.contains("b-pipe.yaml: not a regular file (a FIFO): passed over unread"),
        "{err}"
    );
    assert!(err.contains("c-loop.yaml: cannot read file type:"), "{err}");
    // Named on the command line, the FIFO is not opened either.
    let named = probesim(&["check", &format!("{shown}/b-pipe.yaml")]);
    assert_eq!(named.status.code(), Some(2));
}

/// A directory that cannot be listed, for real: the tests run as root, whom no permission bit
/// stops, so the binary runs as `nobody` through `setpriv` where the machine has it (as root);
/// the walker's own unit tests cover the same path with a failing tree everywhere.
#[cfg(unix)]
#[test]
fn an_unlistable_directory_is_reported_and_files_after_it_are_checked() {
    let dir = scratch("unlistable");
    let good = std::fs::read(support::root().join(fixture("quick-restart.yaml"))).unwrap();
    std::fs::write(dir.join("a.yaml"), &good).unwrap();
    std::fs::create_dir(dir.join("b-locked")).unwrap();
    std::fs::write(dir.join("b-locked/x.yaml"), &good).unwrap();
    std::fs::write(dir.join("c.yaml"), &good).unwrap();
    set_mode(&dir.join("b-locked"), 0o000);
    let shown = dir.display().to_string();
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let mut cmd = if is_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_probesim"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_probesim"))
    };
    let out = cmd
        .args(["check", &shown])
        .current_dir(support::root())
        .output();
    set_mode(&dir.join("b-locked"), 0o755);
    let Ok(out) = out else {
        eprintln!("setpriv is not available: covered by the walker's unit tests only");
        return;
    };
    if is_root && stderr(&out).contains("setpriv:") {
        eprintln!("setpriv cannot drop privileges here: {}", stderr(&out));
        return;
    }
    assert_eq!(
        stdout(&out),
        format!(
            "ok      {shown}/a.yaml (2 expectations)\ninvalid {shown}/b-locked\nok      {shown}/c.yaml (2 expectations)\n2 passed, 0 failed, 1 invalid\n"
        ),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("b-locked: cannot read directory: permission denied"));
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A YAML tree as the JSON value an editor's schema validator sees.
fn to_json(node: &probesim_kube::yaml::Node) -> Value {
    use probesim_kube::yaml::Value as Y;
    match node.value() {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Int(i) => i64::try_from(i)
            .map(Value::from)
            .or_else(|_| u64::try_from(i).map(Value::from))
            .unwrap_or_else(|_| Value::String(i.to_string())),
        Y::Float(text) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(text.to_owned()), Value::Number),
        Y::Str(s) => Value::String(s.to_owned()),
        Y::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        Y::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.text.clone(), to_json(v)))
                .collect(),
        ),
    }
}

fn schema() -> schema::Schema {
    let text = std::fs::read_to_string(support::root().join("schema/scenario.schema.json"))
        .expect("the schema file");
    let doc: Value = serde_json::from_str(&text).expect("the schema is JSON");
    schema::Schema::new(doc).expect("the schema uses only the keywords the checker knows")
}

fn schema_errors(validator: &schema::Schema, yaml: &str) -> Vec<String> {
    let tree = probesim_kube::yaml::parse(yaml).expect("YAML");
    validator.errors(&to_json(&tree))
}

#[test]
fn every_bundled_scenario_validates_against_the_schema() {
    let validator = schema();
    let mut files = support::files(&support::root().join("scenarios"), &["yaml", "yml", "json"]);
    files.extend(
        support::files(&support::root().join(FIXTURES), &["yaml"])
            .into_iter()
            .filter(|f| {
                // The fixtures that are scenarios (not manifests), and load (the fixture that
                // is not UTF-8 on purpose is no scenario).
                let Ok(text) = std::fs::read_to_string(f) else {
                    return false;
                };
                !probesim_kube::catalog::is_manifest(&text) && !f.ends_with("invalid-probe.yaml")
            }),
    );
    assert!(files.len() > 90, "{} files", files.len());
    let mut problems = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for e in schema_errors(&validator, &text) {
            problems.push(format!("{}: {e}", support::rel(f)));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_schema_refuses_what_the_loader_refuses() {
    let validator = schema();
    let base = "duration: 1m\npod: {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: i}]}}\n";
    assert!(schema_errors(&validator, base).is_empty());
    for (extra, why) in [
        ("durations: 1m\n", "an unknown top-level key"),
        ("kubelet: {resynk: 1m}\n", "an unknown knob"),
        ("expect: [{at: 1m, count: 1}]\n", "count with at"),
        (
            "expect: [{timeline: {outcome: failure}}]\n",
            "a timeline filter without kind",
        ),
        (
            "expect: [{events: {reason: X}, at: 1m}]\n",
            "two forms in one item",
        ),
        (
            "apps: {c: {sigterm: ignore, probs: {}}}\n",
            "an unknown app key",
        ),
        ("seed: -1\n", "a negative seed"),
        ("expect: [{firstKill: {}}]\n", "an empty firstKill"),
        ("expect: [{noKill: false}]\n", "noKill other than true"),
        ("kubernetes: \"1.99\"\n", "a release out of range (pattern)"),
        ("kubelet: {resync: 1x}\n", "a malformed duration (pattern)"),
        (
            "apps: {c: {endpoints: {\"ftp :21\": ok}}}\n",
            "an unknown endpoint kind (propertyNames)",
        ),
    ] {
        assert!(
            !schema_errors(&validator, &format!("{base}{extra}")).is_empty(),
            "the schema accepts {why}"
        );
    }
    let misspelt = base.replace("image: i", "image: i, livenessProbe: {periodSecond: 5}");
    assert!(
        !schema_errors(&validator, &misspelt).is_empty(),
        "a misspelt probe field"
    );
    for extra in [
        "kubernetes: \"v1.30.2\"\n",
        "kubelet: {resync: 1m30.5s}\n",
        "apps: {c: {endpoints: {\"http :8080/healthz\": ok, \":9090\": ok}}}\n",
        "expect: [{readyWithin: 2m}]\n",
        "expect: [{neverNotReadyLongerThan: 10s, container: c}]\n",
        "expect: [{maxRestarts: 3, within: 10m}]\n",
        "expect: [{firstKill: {min: 5m}}]\n",
        "expect: [{noKill: true}]\n",
        "expect: [{timeline: {kind: kill, cause: liveness}}]\n",
        "deleteAt: {at: 5m, gracePeriod: 10s}\n",
    ] {
        let errors = schema_errors(&validator, &format!("{base}{extra}"));
        assert!(errors.is_empty(), "{extra}: {errors:?}");
    }
}

/// The schema checker of tests/support/schema.rs refuses a schema with a keyword it does not
/// implement, so the scenario schema cannot come to rely on one unchecked.
#[test]
fn the_schema_checker_refuses_keywords_it_does_not_know() {
    let with = |extra: &str| {
        let doc: Value = serde_json::from_str(&format!(
            r#"{{"type": "object", "properties": {{"a": {{"type": "string"{extra}}}}}}}"#
        ))
        .expect("JSON");
        schema::Schema::new(doc)
    };
    assert!(with("").is_ok());
    for extra in [
        r#", "format": "uri""#,
        r#", "maxLength": 3"#,
        r#", "pattern": "^a{2}$""#,
        r##", "$ref": "#/$defs/missing""##,
        r#", "type": "text""#,
    ] {
        assert!(with(extra).is_err(), "accepted {extra}");
    }
}

#[test]
fn probesim_schema_prints_the_schema_file() {
    let out = probesim(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let file = std::fs::read(support::root().join("schema/scenario.schema.json")).unwrap();
    assert_eq!(out.stdout, file);
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn completion_scripts_parse_in_their_shells() {
    for (shell, check) in [("bash", "-n"), ("zsh", "-n"), ("fish", "--no-execute")] {
        let out = probesim(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        for word in ["check", "--snapshot", "--kubernetes", "completions"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
        if !have(shell) {
            eprintln!("{shell} is not installed: its script is not parsed");
            continue;
        }
        let file = scratch(&format!("completions-{shell}")).join("probesim");
        std::fs::write(&file, &script).unwrap();
        let parsed = Command::new(shell).arg(check).arg(&file).output().unwrap();
        assert!(parsed.status.success(), "{shell}: {}", stderr(&parsed));
    }
}

#[test]
fn the_man_pages_render_without_warnings() {
    let top = probesim(&["man"]);
    assert_eq!(top.status.code(), Some(0));
    let page = stdout(&top);
    assert!(page.contains(".TH probesim 1"), "{page}");
    for word in ["probesim\\-check(1)", "completions", "schema"] {
        assert!(page.contains(word), "the man page lacks {word}");
    }
    let mut pages = vec![page];
    for command in ["run", "check", "completions", "man", "schema"] {
        let out = probesim(&["man", command]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let text = stdout(&out);
        assert!(
            text.contains(&format!(".TH probesim-{command} 1")),
            "{text}"
        );
        pages.push(text);
    }
    assert!(
        pages[2].contains("\\-\\-snapshot"),
        "the check page lists its options"
    );
    assert_eq!(probesim(&["man", "nope"]).status.code(), Some(2));
    if !have("groff") {
        eprintln!("groff is not installed: the pages are not rendered");
        return;
    }
    for page in pages {
        // -k: preconv reads UTF-8, as man does; -ww: every warning.
        let mut groff = Command::new("groff")
            .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            groff
                .stdin
                .take()
                .unwrap()
                .write_all(page.as_bytes())
                .unwrap();
        }
        let rendered = groff.wait_with_output().unwrap();
        assert!(rendered.status.success());
        assert_eq!(stderr(&rendered), "", "groff warns on:\n{page}");
    }
}

/// The krew manifest is a template; `packaging/krew/render.sh` fills in every platform's
/// address and checksum, and what it writes is a krew `Plugin` whose binary is the plugin name.
#[cfg(unix)]
#[test]
fn the_krew_manifest_renders_for_a_release() {
    if !have("tar") || !have("sha256sum") {
        eprintln!("tar or sha256sum is missing: the manifest is not rendered");
        return;
    }
    let dir = scratch("krew");
    let version = env!("CARGO_PKG_VERSION");
    let content = dir.join("content");
    std::fs::create_dir(&content).unwrap();
    std::fs::write(content.join("probesim"), "binary").unwrap();
    std::fs::write(content.join("README.md"), "readme").unwrap();
    std::fs::write(content.join("LICENSE"), "license").unwrap();
    let targets = [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
    ];
    for target in targets {
        let archive = dir.join(format!("probesim-v{version}-{target}.tar.gz"));
        let tar = Command::new("tar")
            .arg("-C")
            .arg(&content)
            .arg("-czf")
            .arg(&archive)
            .args(["probesim", "README.md", "LICENSE"])
            .status()
            .unwrap();
        assert!(tar.success());
    }
    let out = Command::new("sh")
        .arg(support::root().join("packaging/krew/render.sh"))
        .arg("https://releases.test/probesim")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains('@'), "a placeholder is left: {text}");
    let doc = probesim_kube::yaml::parse(&text).expect("the manifest is YAML");
    let manifest = to_json(&doc);
    assert_eq!(
        manifest["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(manifest["kind"], "Plugin");
    assert_eq!(manifest["metadata"]["name"], "probesim");
    assert_eq!(manifest["spec"]["version"], format!("v{version}"));
    let platforms = manifest["spec"]["platforms"].as_array().unwrap();
    assert_eq!(platforms.len(), targets.len());
    for (p, target) in platforms.iter().zip(targets) {
        assert_eq!(p["bin"], "kubectl-probesim");
        assert_eq!(
            p["uri"],
            format!("https://releases.test/probesim/probesim-v{version}-{target}.tar.gz")
        );
        let sha = p["sha256"].as_str().unwrap();
        assert!(
            sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
            "{sha}"
        );
    }
    let missing = Command::new("sh")
        .arg(support::root().join("packaging/krew/render.sh"))
        .arg("https://releases.test/probesim")
        .arg(dir.join("content"))
        .output()
        .unwrap();
    assert_eq!(
        missing.status.code(),
        Some(2),
        "an archive missing is an error"
    );
}

/// Each pre-commit hook is well-formed, and its command passes on this repository's own
/// scenarios (whose `.snap` files are the scenario harness's goldens).
#[test]
fn the_pre_commit_hooks_run_on_the_bundled_scenarios() {
    let text = std::fs::read_to_string(support::root().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks = to_json(&probesim_kube::yaml::parse(&text).expect("YAML"));
    let hooks = hooks.as_array().expect("a list of hooks");
    assert_eq!(hooks.len(), 2);
    for hook in hooks {
        for key in ["id", "name", "entry", "language"] {
            assert!(hook[key].is_string(), "a hook lacks {key}: {hook}");
        }
        assert_eq!(hook["language"], "rust");
        assert_eq!(hook["pass_filenames"], false);
        let entry: Vec<&str> = hook["entry"].as_str().unwrap().split(' ').collect();
        assert_eq!(entry[0], "probesim");
        let mut args: Vec<&str> = entry[1..].to_vec();
        args.extend(
            hook["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap()),
        );
        let out = probesim(&args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
}

/// A scenario with a stray top-level `kind:` (or `apiVersion:`, `items:`) is not passed over as
/// a manifest: its expectations would never run and the exit code would say all is well.
#[test]
fn a_scenario_with_a_stray_manifest_key_is_not_passed_over() {
    let dir = scratch("stray-kind");
    let good =
        std::fs::read_to_string(support::root().join(fixture("quick-restart.yaml"))).unwrap();
    for key in ["kind: Scenario", "apiVersion: v1", "items: []"] {
        std::fs::write(dir.join("s.yaml"), format!("{key}\n{good}")).unwrap();
        let out = probesim(&["check", dir.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{key}: {}", stdout(&out));
        let field = key.split(':').next().unwrap();
        assert!(
            stderr(&out).starts_with(&format!("error: unknown field \"{field}\"")),
            "{}",
            stderr(&out)
        );
    }
    // A manifest beside the scenarios is still passed over.
    std::fs::copy(
        support::root().join("examples/manifests/pod.yaml"),
        dir.join("s.yaml"),
    )
    .unwrap();
    let out = probesim(&["check", dir.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "no scenario at all: {}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("no scenario files"),
        "{}",
        stderr(&out)
    );
}

/// A broken link that is no scenario by its name (`README.md` pointing nowhere) does not make
/// `check DIR` fail.
#[cfg(unix)]
#[test]
fn a_broken_link_that_is_no_scenario_is_passed_over() {
    let dir = scratch("broken-readme");
    std::fs::copy(
        support::root().join(fixture("quick-restart.yaml")),
        dir.join("a.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink("nowhere/README.md", dir.join("README.md")).unwrap();
    let out = probesim(&["check", dir.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}
