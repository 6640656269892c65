//! The parser's tests: scripts that parse, and the errors of those that do not.

use super::*;

fn error(text: &str) -> String {
    match parse(text) {
        Ok(script) => panic!("{text:?} parsed as {script}"),
        Err(e) => e.to_string(),
    }
}

fn steps(text: &str) -> Vec<Step> {
    match parse(text) {
        Ok(script) => script.steps().to_vec(),
        Err(e) => panic!("{text:?}: {e}"),
    }
}

fn step(count: Option<u64>, answer: Answer, latency_ms: u64, limit: Option<Limit>) -> Step {
    Step::new(
        count.and_then(NonZeroU64::new),
        answer,
        SimDuration::from_millis(latency_ms),
        limit,
    )
}

fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

#[test]
fn counts_take_every_spelling_of_times() {
    let expected = vec![
        step(Some(5), Answer::Status(200), 0, None),
        step(None, Answer::Status(500), 0, None),
    ];
    for text in [
        "5x200 then 500",
        "5 x 200 then 500",
        "5×200 then 500",
        "5 × 200, 500",
        "5x 200,500",
        "5 x200 ,500",
        "5x200\nthen\n500",
    ] {
        assert_eq!(steps(text), expected, "{text}");
    }
}

#[test]
fn every_outcome_is_read() {
    let cases = [
        ("100", Answer::Status(100)),
        ("599", Answer::Status(599)),
        ("ok", Answer::Ok),
        ("fail", Answer::Fail),
        ("open", Answer::Open),
        ("refused", Answer::Refused),
        ("timeout", Answer::Timeout),
        ("exit 0", Answer::Exit(0)),
        ("exit 255", Answer::Exit(255)),
        ("serving", Answer::Serving),
        ("not-serving", Answer::NotServing),
        ("unknown", Answer::Unknown),
        ("error", Answer::Error),
    ];
    for (text, answer) in cases {
        assert_eq!(steps(text), vec![step(None, answer, 0, None)], "{text}");
    }
}

#[test]
fn latency_and_time_limits_are_read() {
    assert_eq!(
        steps("refused for 20s then open"),
        vec![
            step(None, Answer::Refused, 0, Some(Limit::For(secs(20)))),
            step(None, Answer::Open, 0, None),
        ]
    );
    assert_eq!(
        steps("3x500 after 1.5s until 1m then ok after 250ms"),
        vec![
            step(
                Some(3),
                Answer::Status(500),
                1500,
                Some(Limit::Until(secs(60)))
            ),
            step(None, Answer::Ok, 250, None),
        ]
    );
    assert_eq!(
        steps("exit 1 after 30 for 2"),
        vec![step(
            None,
            Answer::Exit(1),
            30_000,
            Some(Limit::For(secs(2)))
        )]
    );
}

#[test]
fn pod_prefix_and_repeat_are_read() {
    let script = parse("pod: ok for 1m then fail").unwrap();
    assert!(script.is_pod_scoped() && !script.is_repeating());
    let script = parse("pod : 2x200, 500 repeat").unwrap();
    assert!(script.is_pod_scoped() && script.is_repeating());
    let script = parse("pod:200").unwrap();
    assert!(script.is_pod_scoped());
    let script = parse("200 after 2s repeat").unwrap();
    assert!(!script.is_pod_scoped() && script.is_repeating());
}

#[test]
fn bad_words_get_a_suggestion() {
    assert_eq!(
        error("5x200 then refsued"),
        r#"1:12: unknown outcome "refsued", did you mean "refused"?"#
    );
    assert_eq!(
        error("OK"),
        r#"1:1: unknown outcome "OK", did you mean "ok"?"#
    );
    assert_eq!(
        error("not_serving"),
        r#"1:1: unknown outcome "not_serving", did you mean "not-serving"?"#
    );
    assert_eq!(
        error("exit1"),
        r#"1:1: unknown outcome "exit1", did you mean "exit 1"?"#
    );
    assert_eq!(
        error("5x200 thne 500"),
        r#"1:7: unknown word "thne", did you mean "then"?"#
    );
    assert_eq!(
        error("200 repaet"),
        r#"1:5: unknown word "repaet", did you mean "repeat"?"#
    );
    assert_eq!(
        error("ok aftr 2s"),
        r#"1:4: unknown word "aftr", did you mean "after"?"#
    );
    assert_eq!(
        error("healthy"),
        r#"1:1: unknown outcome "healthy" (expected a status like 200, ok, fail, open, refused, timeout, exit N, serving, not-serving, unknown or error)"#
    );
    assert_eq!(
        error("ok and then fail"),
        r#"1:4: unexpected "and", expected "after", "for", "until", "then", "," or "repeat""#
    );
}

#[test]
fn counts_must_be_positive() {
    assert_eq!(error("0x200"), "1:1: count must be at least 1");
    assert_eq!(error("ok then 0 × fail"), "1:9: count must be at least 1");
    assert_eq!(error("99999999999999999999x200"), "1:1: count too large");
    assert_eq!(
        error("x200"),
        r#"1:1: expected a count before "x", like 5x200"#
    );
    assert_eq!(
        error("ok x"),
        r#"1:4: unexpected "x" after the outcome (a count comes first, like 5x200)"#
    );
}

#[test]
fn statuses_and_exit_codes_must_be_in_range() {
    assert_eq!(
        error("600"),
        "1:1: invalid HTTP status 600 (must be 100 to 599)"
    );
    assert_eq!(
        error("99"),
        "1:1: invalid HTTP status 99 (must be 100 to 599)"
    );
    assert_eq!(
        error("99999999999999999999999"),
        "1:1: invalid HTTP status 99999999999999999999999 (must be 100 to 599)"
    );
    assert_eq!(
        error("2OO"),
        r#"1:1: invalid HTTP status "2OO" (must be 100 to 599)"#
    );
    assert_eq!(
        error("5 200"),
        r#"1:1: expected "x" after the count 5, like 5x200"#
    );
    assert_eq!(
        error("exit 256"),
        "1:6: exit code must be 0 to 255, found 256"
    );
    assert_eq!(
        error("exit -1"),
        "1:6: exit code must be 0 to 255, found -1"
    );
    assert_eq!(
        error("exit"),
        r#"1:5: expected an exit code after "exit", found the end of the text"#
    );
    assert_eq!(
        error("exit then 0"),
        r#"1:6: expected an exit code after "exit", found "then""#
    );
}

#[test]
fn bad_durations_point_at_the_duration() {
    assert_eq!(
        error("ok for 2d"),
        r#"1:8: invalid duration "2d": unknown unit "d" (use ms, s, m or h)"#
    );
    assert_eq!(
        error("ok after 1.0001s"),
        r#"1:10: invalid duration "1.0001s": finer than a millisecond"#
    );
    assert_eq!(
        error("ok until 99999999999999999h"),
        r#"1:10: duration too large: "99999999999999999h""#
    );
    assert_eq!(
        error("ok for"),
        r#"1:7: expected a duration after "for", found the end of the text"#
    );
    assert_eq!(
        error("ok for, fail"),
        r#"1:7: expected a duration after "for", found ",""#
    );
}

#[test]
fn modifiers_come_once_and_in_order() {
    assert_eq!(
        error("ok for 10s after 2s"),
        r#"1:12: "after" must come before "for""#
    );
    assert_eq!(
        error("ok until 10s after 2s"),
        r#"1:14: "after" must come before "until""#
    );
    assert_eq!(
        error("ok after 1s after 2s"),
        r#"1:13: a step takes one "after""#
    );
    assert_eq!(
        error("ok for 1s until 2s"),
        r#"1:11: a step takes one "for" or "until""#
    );
}

#[test]
fn empty_and_unfinished_scripts_are_errors() {
    assert_eq!(error(""), "1:1: empty script");
    assert_eq!(error("  \n "), "1:1: empty script");
    assert_eq!(
        error("pod:"),
        "1:5: expected an outcome (like 200, ok, refused or exit 1), found the end of the text"
    );
    assert_eq!(
        error("ok then"),
        "1:8: expected an outcome (like 200, ok, refused or exit 1), found the end of the text"
    );
    assert_eq!(
        error("ok,,fail"),
        r#"1:4: expected an outcome (like 200, ok, refused or exit 1), found ",""#
    );
    assert_eq!(
        error("then ok"),
        r#"1:1: expected an outcome (like 200, ok, refused or exit 1), found "then""#
    );
    assert_eq!(
        error("5x"),
        "1:3: expected an outcome (like 200, ok, refused or exit 1), found the end of the text"
    );
}

#[test]
fn trailing_garbage_is_an_error() {
    assert_eq!(
        error("ok repeat fail"),
        r#"1:11: unexpected "fail" after "repeat", which ends the script"#
    );
    assert_eq!(
        error("200 500"),
        r#"1:5: expected "then" or "," before the next step, found "500""#
    );
    assert_eq!(
        error("ok fail"),
        r#"1:4: expected "then" or "," before the next step, found "fail""#
    );
    assert_eq!(
        error("ok then pod: fail"),
        r#"1:9: "pod:" must start the script"#
    );
    assert_eq!(
        error("ok: fail"),
        r#"1:3: unexpected ":", expected "after", "for", "until", "then", "," or "repeat""#
    );
    assert_eq!(
        error("pod ok"),
        r#"1:1: expected ":" after "pod", as in "pod: ok""#
    );
}

#[test]
fn repeat_must_let_time_pass() {
    let message = "script can loop forever without time passing: \"repeat\" needs a step \
                   without \"for\" or \"until\", or \"for\" durations adding up to more than zero";
    assert_eq!(error("ok for 0s repeat"), format!("1:11: {message}"));
    assert_eq!(
        error("ok for 0s then fail for 0ms repeat"),
        format!("1:29: {message}")
    );
    assert_eq!(error("ok until 30s repeat"), format!("1:14: {message}"));
    assert_eq!(
        error("ok until 30s then fail until 10s repeat"),
        format!("1:34: {message}")
    );
    assert_eq!(error("3x500 for 0s repeat"), format!("1:14: {message}"));
    // Each of these lets requests or time go by in every round.
    for text in [
        "ok repeat",
        "2x200, 500 repeat",
        "ok for 0s then fail repeat",
        "ok until 30s then fail for 1ms repeat",
        "3x500 until 10s then 2x ok repeat",
        "ok for 0s",
        "ok until 30s",
    ] {
        assert!(parse(text).is_ok(), "{text}");
    }
}

#[test]
fn positions_count_lines_and_characters() {
    let e = parse("5×200 then\n   refsued").unwrap_err();
    assert_eq!((e.offset(), e.line(), e.column()), (15, 2, 4));
    assert_eq!(e.span(), 15..22);
    let e = parse("5×200 refsued").unwrap_err();
    // `×` is two bytes but one column.
    assert_eq!((e.offset(), e.line(), e.column()), (7, 1, 7));
}

#[test]
fn render_draws_a_caret_under_the_word() {
    let source = "5x200 then\n  exit 300 repeat";
    let e = parse(source).unwrap_err();
    assert_eq!(
        e.render(source, "apps.kubia.probes.liveness"),
        "apps.kubia.probes.liveness:2:8\n\
         2 |   exit 300 repeat\n  \
           |        ^~~ exit code must be 0 to 255, found 300"
    );
    let source = "ok then";
    let e = parse(source).unwrap_err();
    assert_eq!(
        e.render(source, "x.yaml"),
        "x.yaml:1:8\n\
         1 | ok then\n  \
           |        ^ expected an outcome (like 200, ok, refused or exit 1), found the end of the text"
    );
    // A source that does not match never panics.
    let _ = e.render("", "x");
    let _ = e.render("×××", "x");
}

#[test]
fn exit_fields_are_read() {
    assert_eq!(
        parse_exit("1 after 2s"),
        Ok(SelfExit {
            code: 1,
            after: secs(2)
        })
    );
    assert_eq!(
        parse_exit("0 after 1m30s"),
        Ok(SelfExit {
            code: 0,
            after: secs(90)
        })
    );
    let e = |text| parse_exit(text).unwrap_err().to_string();
    assert_eq!(
        e(""),
        r#"1:1: empty exit, expected a code and a time like "1 after 2s""#
    );
    assert_eq!(
        e("after 2s"),
        r#"1:1: expected an exit code like "1 after 2s", found "after""#
    );
    assert_eq!(
        e("300 after 2s"),
        "1:1: exit code must be 0 to 255, found 300"
    );
    assert_eq!(
        e("1"),
        r#"1:2: expected "after" and a time, like "1 after 2s", found the end of the text"#
    );
    assert_eq!(
        e("1 after 2x"),
        r#"1:10: unexpected "x" after the exit time"#
    );
    assert_eq!(
        e("1 after 2s please"),
        r#"1:12: unexpected "please" after the exit time"#
    );
}

#[test]
fn sigterm_fields_are_read() {
    assert_eq!(parse_sigterm("ignore"), Ok(Sigterm::Ignore));
    assert_eq!(
        parse_sigterm("exit after 3s"),
        Ok(Sigterm::Exit {
            code: None,
            after: secs(3)
        })
    );
    assert_eq!(
        parse_sigterm("exit 0 after 3s"),
        Ok(Sigterm::Exit {
            code: Some(0),
            after: secs(3)
        })
    );
    assert_eq!(
        parse_sigterm(" exit after 0s "),
        Ok(Sigterm::Exit {
            code: None,
            after: SimDuration::ZERO
        })
    );
    let e = |text| parse_sigterm(text).unwrap_err().to_string();
    assert_eq!(
        e(""),
        r#"1:1: empty sigterm, expected "ignore", "exit after 3s" or "exit 0 after 3s""#
    );
    assert_eq!(
        e("ingore"),
        r#"1:1: unknown sigterm reaction "ingore", did you mean "ignore"?"#
    );
    assert_eq!(
        e("die"),
        r#"1:1: expected "ignore", "exit after 3s" or "exit 0 after 3s", found "die""#
    );
    assert_eq!(e("ignore it"), r#"1:8: unexpected "it" after "ignore""#);
    assert_eq!(
        e("exit"),
        r#"1:5: expected "after" and a time, like "exit after 3s", found the end of the text"#
    );
    assert_eq!(
        e("exit 256 after 1s"),
        "1:6: exit code must be 0 to 255, found 256"
    );
    assert_eq!(
        e("exit after 3d"),
        r#"1:12: invalid duration "3d": unknown unit "d" (use ms, s, m or h)"#
    );
}

#[test]
fn suggestions_need_a_close_word() {
    assert_eq!(suggest("refsued", &OUTCOME_WORDS), Some("refused"));
    assert_eq!(suggest("oak", &OUTCOME_WORDS), Some("ok"));
    assert_eq!(suggest("xyz", &OUTCOME_WORDS), None);
    assert_eq!(edit_distance("ab", "ba"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
}
