//! Every text that reaches a terminal or a CI log, in every format, with hostile input: a
//! file name holding a line break and a workflow command, and names, paths and values holding
//! ESC, BEL, C1 controls, bidirectional overrides, zero-width characters and line separators.
//! Not one of them may come out raw, and no line of `--format github` may start a workflow
//! command other than probesim's own `::error`.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What must never be printed raw (the hostile input holds each of them).
const RAW: &[char] = &[
    '\u{1b}', '\u{7}', '\u{0}', '\u{7f}', '\u{85}', '\u{9b}', '\u{202e}', '\u{2066}', '\u{200b}',
    '\u{200f}', '\u{2028}', '\u{2029}', '\u{feff}', '\r',
];

/// The hostile part of names and values: each of [`RAW`].
const HOSTILE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{0}\u{7f}\u{85}\u{9b}\u{202e}\u{2066}\u{200b}\u{200f}\u{2028}\u{2029}\u{feff}\r";

fn yaml_escaped(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            c if c.is_ascii_graphic() && c != '"' && c != '\\' => c.to_string(),
            ' ' => " ".to_owned(),
            c => format!("\\u{:04x}", u32::from(c)),
        })
        .collect()
}

fn scenario(valid: bool) -> String {
    let h = yaml_escaped(HOSTILE);
    let policy = if valid {
        "Always".to_owned()
    } else {
        format!("Always{h}")
    };
    format!(
        r#"name: "web{h}"
duration: 2m
pod:
  apiVersion: v1
  kind: Pod
  metadata: {{name: web}}
  spec:
    restartPolicy: "{policy}"
    containers:
    - name: web
      image: "nginx{h}"
      livenessProbe:
        httpGet: {{path: "/healthz{h}", port: 8080}}
        periodSeconds: 10
        failureThreshold: 2
apps:
  web:
    probes:
      liveness: "2x200 then 500"
expect:
  - at: 1m
    container: web
    restartCount: 0
"#
    )
}

/// A directory with a scenario whose file name holds a line break, a workflow command, ESC,
/// BEL and a bidirectional override: `valid` or with an API-validation error.
fn files(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("escaping")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let stem =
        "evil\n::add-mask::x\n::error file=README.md,line=1::owned\u{1b}[2J\u{7}\u{202e}\u{2028}";
    let valid = dir.join(format!("{stem}.yaml"));
    let invalid = dir.join(format!("{stem}-invalid.yaml"));
    std::fs::write(&valid, scenario(true)).unwrap();
    std::fs::write(&invalid, scenario(false)).unwrap();
    (dir, valid, invalid)
}

fn run(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_probesim"))
        .args(args)
        .current_dir(support::root())
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .expect("probesim runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_clean(what: &str, text: &str) {
    for c in RAW {
        assert!(
            !text.contains(*c),
            "{what}: U+{:04X} printed raw in:\n{}",
            u32::from(*c),
            text.escape_debug()
        );
    }
}

#[test]
fn no_format_prints_a_hostile_character_raw() {
    let (dir, valid, invalid) = files("formats");
    let valid = valid.to_str().unwrap();
    let invalid = invalid.to_str().unwrap();
    let dir = dir.to_str().unwrap();
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for format in [
        "timeline", "json", "jsonl", "summary", "get", "describe", "svg", "html",
    ] {
        runs.push(vec!["run", valid, "--format", format]);
        runs.push(vec!["run", valid, "--format", format, "-v"]);
    }
    runs.push(vec!["run", invalid]);
    runs.push(vec!["explain", valid]);
    for format in ["text", "json", "junit", "github"] {
        runs.push(vec!["check", dir, "--format", format]);
        runs.push(vec![
            "check",
            valid,
            invalid,
            "--format",
            format,
            "--kubernetes",
            "1.30,1.37",
        ]);
    }
    for format in ["text", "json", "sarif"] {
        runs.push(vec![
            "analyze",
            valid,
            "--format",
            format,
            "--require",
            "web.hangDetection.kill.max<=1s",
        ]);
        runs.push(vec!["analyze", invalid, "--format", format]);
    }
    for format in ["text", "json"] {
        runs.push(vec![
            "recommend",
            valid,
            "--format",
            format,
            "--detect-hang-within",
            "1m",
            "--candidates",
            "1",
        ]);
    }
    for args in &runs {
        let (stdout, stderr) = run(args);
        let what = format!("probesim {}", args.join(" ").escape_debug());
        assert_clean(&format!("{what} (stdout)"), &stdout);
        assert_clean(&format!("{what} (stderr)"), &stderr);
        if args.contains(&"github") {
            for line in stdout.lines() {
                assert!(
                    !line.starts_with("::") || line.starts_with("::error file="),
                    "{what}: an injected workflow command: {line:?}"
                );
            }
            assert!(!stdout.contains("\n::add-mask::"), "{what}");
        }
        if (args.contains(&"json") || args.contains(&"sarif")) && !stdout.is_empty() {
            // Each JSON document still parses, the hostile text escaped, not dropped.
            let doc: Result<serde_json::Value, _> = serde_json::from_str(&stdout);
            assert!(doc.is_ok(), "{what}: not JSON: {stdout}");
        }
        if args.contains(&"jsonl") {
            for line in stdout.lines() {
                assert!(
                    serde_json::from_str::<serde_json::Value>(line).is_ok(),
                    "{what}: {line}"
                );
            }
        }
    }
}

#[test]
fn an_emitted_scenario_takes_no_setting_from_a_file_name() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("escaping")
        .join("emit");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let manifest = dir.join("web\nseed: 99\nduration: 1s\n\u{2028}.yaml");
    std::fs::copy(
        support::root().join("examples/manifests/deployment.yaml"),
        &manifest,
    )
    .unwrap();
    let (stdout, stderr) = run(&[
        "run",
        manifest.to_str().unwrap(),
        "--app",
        "web: liveness=ok",
        "--for",
        "5m",
        "--emit-scenario",
    ]);
    assert_clean("--emit-scenario", &stdout);
    assert!(!stdout.contains("\nseed: 99"), "{stdout}{stderr}");
    assert!(!stdout.contains("\nduration: 1s"), "{stdout}");
    assert!(stdout.starts_with("# Built by probesim from "), "{stdout}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("duration:"))
            .count(),
        1,
        "{stdout}"
    );

    // The library's replay file, the same way.
    let test = probesim::Test::manifest(manifest.to_str().unwrap())
        .unwrap()
        .app("web: liveness=ok")
        .horizon("5m");
    let replay = test.replay().unwrap();
    assert_clean("Test::replay", &replay);
    assert!(!replay.contains("\nseed: 99"), "{replay}");
}
