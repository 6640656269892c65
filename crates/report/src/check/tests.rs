use probesim_scenario::expect::Failure;
use serde_json::Value;

use super::*;

fn failing() -> CheckResult {
    CheckResult {
        file: "dir/fail.yaml".into(),
        kubernetes: Some("1.30".into()),
        expectations: 3,
        failures: vec![
            Failure {
                index: 1,
                line: Some(28),
                message: "at 1m container web: restartCount expected 0, saw 2".into(),
            },
            Failure {
                index: 2,
                line: None,
                message: "events {reason: \"<&>\"}: count expected 1, saw 0".into(),
            },
        ],
        snapshot: None,
        invalid: None,
    }
}

fn passing() -> CheckResult {
    CheckResult {
        file: "ok.yaml".into(),
        kubernetes: Some("1.37".into()),
        expectations: 1,
        failures: Vec::new(),
        snapshot: None,
        invalid: None,
    }
}

fn invalid() -> CheckResult {
    CheckResult::invalid(
        "bad.yaml",
        None,
        vec![Problem {
            file: "bad.yaml".into(),
            line: Some(14),
            col: Some(27),
            message:
                "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
                    .into(),
        }],
    )
}

fn report(format: CheckFormat, options: ReportOptions, results: Vec<CheckResult>) -> String {
    let mut r = CheckReport::new(format, Vec::new(), options);
    for result in results {
        r.result(result).unwrap();
    }
    String::from_utf8(r.finish().unwrap()).unwrap()
}

#[test]
fn verdicts_follow_failures_snapshots_and_problems() {
    assert_eq!(passing().verdict(), Verdict::Passed);
    assert_eq!(failing().verdict(), Verdict::Failed);
    assert_eq!(invalid().verdict(), Verdict::Invalid);
    let mut snap = passing();
    snap.snapshot = Some(SnapshotCheck {
        path: "ok.snap".into(),
        state: SnapshotState::Missing,
    });
    assert_eq!(snap.verdict(), Verdict::Failed);
    snap.snapshot = Some(SnapshotCheck {
        path: "ok.snap".into(),
        state: SnapshotState::Written,
    });
    assert_eq!(snap.verdict(), Verdict::Passed);
}

#[test]
fn text_labels_releases_only_in_a_matrix() {
    let plain = report(
        CheckFormat::Text,
        ReportOptions::default(),
        vec![passing(), failing(), invalid()],
    );
    assert_eq!(
        plain,
        "ok      ok.yaml (1 expectation)\n\
         FAILED  dir/fail.yaml: expect[1] (line 28): at 1m container web: restartCount expected 0, saw 2\n\
         \x20       expect[2]: events {reason: \"<&>\"}: count expected 1, saw 0\n\
         invalid bad.yaml\n\
         1 passed, 1 failed, 1 invalid\n"
    );
    let matrix = report(
        CheckFormat::Text,
        ReportOptions {
            quiet: true,
            label_release: true,
        },
        vec![passing(), failing()],
    );
    assert!(
        matrix.starts_with("FAILED  dir/fail.yaml [1.30]: expect[1]"),
        "{matrix}"
    );
    assert!(
        !matrix.contains("ok.yaml"),
        "quiet leaves out passes: {matrix}"
    );
}

#[test]
fn json_lists_every_result_with_its_failures() {
    let text = report(
        CheckFormat::Json,
        ReportOptions {
            quiet: true,
            label_release: false,
        },
        vec![passing(), failing(), invalid()],
    );
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["probesim"], 1);
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "quiet does not shorten a document");
    assert_eq!(results[0]["status"], "passed");
    assert_eq!(results[1]["status"], "failed");
    assert_eq!(results[1]["kubernetes"], "1.30");
    assert_eq!(results[1]["failures"][0]["line"], 28);
    assert!(results[1]["failures"][1].get("line").is_none());
    assert_eq!(
        results[1]["failures"][1]["message"],
        "events {reason: \"<&>\"}: count expected 1, saw 0"
    );
    assert_eq!(results[2]["status"], "invalid");
    assert_eq!(results[2]["kubernetes"], Value::Null);
    assert_eq!(results[2]["errors"][0]["column"], 27);
    assert_eq!(
        (doc["passed"].as_u64(), doc["failed"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(doc["invalid"], 1);
}

#[test]
fn an_empty_json_report_is_a_document() {
    let text = report(CheckFormat::Json, ReportOptions::default(), Vec::new());
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["results"], Value::Array(Vec::new()));
}

#[test]
fn github_annotations_point_at_the_expectations_line() {
    let text = report(
        CheckFormat::Github,
        ReportOptions {
            quiet: false,
            label_release: true,
        },
        vec![passing(), failing(), invalid()],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "ok      ok.yaml [1.37]");
    assert_eq!(
        lines[1],
        "::error file=dir/fail.yaml,line=28,title=probesim check (Kubernetes 1.30)::expect[1]: at 1m container web: restartCount expected 0, saw 2"
    );
    assert!(
        lines[2].starts_with("::error file=dir/fail.yaml,title="),
        "{}",
        lines[2]
    );
    assert_eq!(
        lines[3],
        "::error file=bad.yaml,line=14,col=27,title=probesim check::spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
    );
    assert_eq!(lines[4], "1 passed, 1 failed, 1 invalid");
}

#[test]
fn github_escapes_messages_and_properties() {
    // A line break is kept as the runner's %0A; CR, ESC, BEL and bidi come out as escapes.
    assert_eq!(
        github::data("50%\r\nnext\u{1b}]0;t\u{7}\u{202e}\u{2028}"),
        "50%25\\u{d}%0Anext\\u{1b}]0;t\\u{7}\\u{202e}\\u{2028}"
    );
    assert_eq!(github::property("a:b,c%"), "a%3Ab%2Cc%25");
    // A file name cannot end the command and start another on a line of its own.
    assert_eq!(
        github::property("x\n::add-mask::y\r"),
        "x\\u{a}%3A%3Aadd-mask%3A%3Ay\\u{d}"
    );
}

#[test]
fn xml_escapes_markup_breaks_and_forbidden_characters() {
    assert_eq!(
        junit::escape("a<b>&\"c'\n\u{1}\u{fffe}"),
        "a&lt;b&gt;&amp;&quot;c&apos;&#10;\\u{1}\u{fffd}"
    );
    assert_eq!(
        junit::escape_text("x < y\nz\u{0}\u{9b}\u{202e}"),
        "x &lt; y\nz\\u{0}\\u{9b}\\u{202e}"
    );
}

#[test]
fn junit_counts_and_names_each_case() {
    let text = report(
        CheckFormat::Junit,
        ReportOptions {
            quiet: false,
            label_release: true,
        },
        vec![passing(), failing(), invalid()],
    );
    assert!(text.contains(
        "<testsuites name=\"probesim check\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\">"
    ));
    assert!(text
        .contains("<testcase name=\"fail.yaml [1.30]\" classname=\"dir\" file=\"dir/fail.yaml\">"));
    assert!(text.contains("<testcase name=\"ok.yaml [1.37]\" classname=\".\" file=\"ok.yaml\"/>"));
    assert!(text.contains("reason: \"&lt;&amp;&gt;\"}"), "{text}");
    assert!(text.contains("<error message=\"spec.containers[0]"));
}

#[test]
fn snapshot_diff_shows_the_first_difference() {
    assert_eq!(snapshot_diff("a\nb\n", "a\nb\n"), None);
    let (line, diff) = snapshot_diff("a\nb\nc\n", "a\nB\nc\n").unwrap();
    assert_eq!(line, 2);
    assert_eq!(diff, "  a\n- b\n+ B\n  c\n");
    let (line, diff) = snapshot_diff("a\n", "a\nextra\n").unwrap();
    assert_eq!((line, diff.as_str()), (2, "  a\n+ extra\n"));
    assert_eq!(snapshot_diff("a\n", "a").map(|d| d.0), Some(2));
}

#[test]
fn formats_parse_from_their_names() {
    for f in CheckFormat::ALL {
        assert_eq!(f.as_str().parse::<CheckFormat>(), Ok(f));
    }
    assert_eq!(
        "xml".parse::<CheckFormat>().unwrap_err().to_string(),
        "unknown format `xml` (expected text, json, junit or github)"
    );
}
