//! P63: what an answer printed reaches the probe's `output`, the `Unhealthy` message and every
//! format end to end: cut to the kubelet's 10 KiB, and escaped on the way out like every text
//! from input.

mod support;

use probesim_report::{render, Format};
use probesim_scenario::scenario::Scenario;

/// A pod whose exec liveness probe fails at once with the script `script` (YAML-quoted).
fn exec_pod(script: &str) -> String {
    format!(
        r#"name: printed
duration: 12s
pod:
  apiVersion: v1
  kind: Pod
  metadata:
    name: printed
  spec:
    containers:
    - name: app
      image: busybox:1.36
      livenessProbe:
        exec:
          command: [cat, /tmp/health]
        periodSeconds: 10
apps:
  app:
    probes:
      liveness: {script}
"#
    )
}

fn run(text: &str, format: Format) -> String {
    let scenario = Scenario::from_str_with(text, "printed.yaml", &mut support::RepoFiles)
        .unwrap_or_else(|e| panic!("{}", e.render(text)));
    let bytes = render(&scenario, format, false, Vec::new()).expect("runs");
    String::from_utf8(bytes).expect("UTF-8")
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    run(text, Format::Jsonl)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

// P63: the JSON timeline's probe `output` and the event's `message` carry the text.
#[test]
fn the_json_timeline_carries_the_printed_text() {
    let lines = json_lines(&exec_pod(r#"'exit 1 "no such file\n"'"#));
    let probe = lines
        .iter()
        .find(|l| l["kind"] == "probe")
        .expect("a probe event");
    assert_eq!(probe["outcome"], "failure");
    assert_eq!(probe["output"], "no such file\n");
    assert_eq!(probe["duration"], 0);
    let unhealthy = lines
        .iter()
        .find(|l| l["kind"] == "event" && l["reason"] == "Unhealthy")
        .expect("an Unhealthy event");
    assert_eq!(
        unhealthy["message"],
        "Liveness probe failed: no such file\n"
    );
    // The existing fields are all still there.
    for field in [
        "t",
        "type",
        "object",
        "count",
        "firstTimestamp",
        "reachedApiServer",
    ] {
        assert!(unhealthy.get(field).is_some(), "{field}");
    }
}

// P63: the first 10240 bytes, in the probe's output and in the message.
#[test]
fn a_long_output_is_cut_at_ten_kibibytes() {
    let script = format!("'exit 1 \"{}\"'", "x".repeat(10_241));
    let lines = json_lines(&exec_pod(&script));
    let probe = lines.iter().find(|l| l["kind"] == "probe").unwrap();
    assert_eq!(probe["output"].as_str().unwrap().len(), 10_240);
    let unhealthy = lines.iter().find(|l| l["reason"] == "Unhealthy").unwrap();
    assert_eq!(
        unhealthy["message"].as_str().unwrap(),
        format!("Liveness probe failed: {}", "x".repeat(10_240))
    );
}

// P63: control characters in a text reach no terminal raw, in any format.
#[test]
fn a_hostile_text_is_escaped_in_every_format() {
    let text = exec_pod(r#""exit 1 \"\u001b]0;owned\u0007\u202e\u2028 end\"""#);
    for format in [
        Format::Timeline,
        Format::Json,
        Format::Jsonl,
        Format::Get,
        Format::Describe,
    ] {
        let out = run(&text, format);
        for c in ['\u{1b}', '\u{7}', '\u{202e}', '\u{2028}'] {
            assert!(!out.contains(c), "{format:?} printed {c:?} raw");
        }
    }
    let timeline = run(&text, Format::Timeline);
    assert!(
        timeline.contains("Liveness probe failed: \\u{1b}]0;owned\\u{7}"),
        "{timeline}"
    );
}
