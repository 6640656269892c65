use probesim_core::{Replay, SimDuration};

use super::*;

/// A kept cycle of lines, as a JSON sink writes them: each line after `,\n    `.
fn cycle(lines: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(b",\n    ");
        out.extend_from_slice(l.as_bytes());
    }
    out
}

/// Lines of cycle `n` of a crash loop 520 s long: times, an Event's count and a restart count
/// move; a message with digits in it does not.
fn kubia(n: u64) -> Vec<String> {
    let t = 60 + 520 * n;
    vec![
        format!(
            r#"{{"t": {t}, "kind": "probe", "container": "kubia", "output": "HTTP probe failed with statuscode: 500", "duration": 0}}"#
        ),
        format!(
            r#"{{"t": {t}.5, "kind": "event", "reason": "Unhealthy", "count": {}, "firstTimestamp": 60}}"#,
            3 + 3 * n
        ),
        format!(
            r#"{{"t": {}, "kind": "start", "container": "kubia", "restartCount": {}}}"#,
            t + 300,
            5 + n
        ),
    ]
}

/// Keeps `cycles` (the first after `Begin`, a `Mark` after each), then asks for `emit` more.
fn replay(cycles: &[Vec<u8>], emit: u64) -> Option<Vec<u8>> {
    let mut c = Cycles::default();
    let mut w = Vec::new();
    let mut out = Vec::new();
    assert!(c.step(Replay::Begin, &mut w, &mut out).unwrap());
    for bytes in cycles {
        assert!(c.keeping());
        c.keep(bytes);
        assert!(c.step(Replay::Mark, &mut w, &mut out).unwrap());
    }
    let step = Replay::Emit {
        cycles: emit,
        period: SimDuration::from_secs(520),
    };
    let wrote = c.step(step, &mut w, &mut out).unwrap();
    c.step(Replay::End, &mut w, &mut out).unwrap();
    assert!(!c.keeping());
    if wrote {
        Some(w)
    } else {
        assert!(w.is_empty(), "a refused replay writes nothing");
        None
    }
}

#[test]
fn later_cycles_are_the_last_kept_one_with_each_number_moved_on() {
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&kubia(n))).collect();
    let written = replay(&kept, 40).expect("replays");
    let expected: Vec<u8> = (3..43).flat_map(|n| cycle(&kubia(n))).collect();
    assert_eq!(
        String::from_utf8(written).unwrap(),
        String::from_utf8(expected).unwrap()
    );
}

#[test]
fn numbers_that_grow_a_digit_are_laid_out_afresh() {
    // Times pass 1,000, 10,000 and 100,000 s, the count 100, within the replayed cycles.
    let lines = |n: u64| {
        vec![format!(
            r#"{{"t": {}, "count": {}, "grace": 30}}"#,
            7 + 997 * n,
            1 + 9 * n
        )]
    };
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&lines(n))).collect();
    let written = replay(&kept, 200).expect("replays");
    let expected: Vec<u8> = (3..203).flat_map(|n| cycle(&lines(n))).collect();
    assert_eq!(written, expected);
}

#[test]
fn only_two_kept_cycles_are_not_enough() {
    let kept: Vec<Vec<u8>> = (0..2).map(|n| cycle(&kubia(n))).collect();
    assert_eq!(replay(&kept, 5), None);
}

#[test]
fn a_cycle_that_changes_otherwise_is_refused() {
    let refused = |third: Vec<String>| {
        let kept = vec![cycle(&kubia(0)), cycle(&kubia(1)), cycle(&third)];
        replay(&kept, 5)
    };
    // A number that moves by another step in the third cycle.
    let mut other = kubia(2);
    other[2] = other[2].replace("\"restartCount\": 7", "\"restartCount\": 8");
    assert_eq!(refused(other), None);
    // A string that changes, even only in a digit.
    let mut text = kubia(2);
    text[0] = text[0].replace("statuscode: 500", "statuscode: 501");
    assert_eq!(refused(text), None);
    // A line more, or one fewer.
    let mut more = kubia(2);
    more.push(more[0].clone());
    assert_eq!(refused(more), None);
    assert_eq!(refused(kubia(2)[..2].to_vec()), None);
    // A fraction that changes.
    let mut fraction = kubia(2);
    fraction[1] = fraction[1].replace(".5,", ".25,");
    assert_eq!(refused(fraction), None);
    // The unchanged third cycle replays (the cases above are refused for their change).
    assert!(refused(kubia(2)).is_some());
}

#[test]
fn a_number_that_goes_down_or_would_overflow_is_refused() {
    let down = |n: u64| vec![format!(r#"{{"t": {}, "left": {}}}"#, 10 * n, 90 - n)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&down(n))).collect();
    assert_eq!(replay(&kept, 3), None);
    let huge = |n: u64| vec![format!(r#"{{"t": {}}}"#, u64::MAX / 4 + n * (u64::MAX / 8))];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&huge(n))).collect();
    assert_eq!(replay(&kept, 10), None);
    // Past `u64` in the kept lines themselves.
    let past = |n: u64| vec![format!(r#"{{"t": 99999999999999999999{n}}}"#)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&past(n))).collect();
    assert_eq!(replay(&kept, 1), None);
}

#[test]
fn digits_inside_strings_and_after_signs_are_literal() {
    // The same digits moving inside a string, or after a minus sign, are not numbers to move.
    let in_string = |n: u64| vec![format!(r#"{{"t": {n}, "message": "x{n}"}}"#)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&in_string(n))).collect();
    assert_eq!(replay(&kept, 1), None);
    let negative = |n: u64| vec![format!(r#"{{"t": {n}, "exitCode": -{n}}}"#)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&negative(n))).collect();
    assert_eq!(replay(&kept, 1), None);
    // An escaped quote does not end a string early.
    let escaped = |n: u64| vec![format!(r#"{{"m": "a\" {n}", "t": {n}}}"#)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&escaped(n))).collect();
    assert_eq!(replay(&kept, 1), None);
    let fixed = |n: u64| vec![format!(r#"{{"m": "a\" 7", "t": {n}, "exitCode": -1}}"#)];
    let kept: Vec<Vec<u8>> = (0..3).map(|n| cycle(&fixed(n))).collect();
    assert_eq!(
        replay(&kept, 2),
        Some(
            cycle(&fixed(3))
                .into_iter()
                .chain(cycle(&fixed(4)))
                .collect()
        )
    );
}

#[test]
fn only_the_last_three_cycles_count_and_a_full_buffer_refuses() {
    // The first kept cycle is unlike the others: once a fourth is kept it no longer matters.
    let mut kept = vec![cycle(&[r#"{"t": 1, "kind": "sync"}"#.to_owned()])];
    kept.extend((1..4).map(|n| cycle(&kubia(n))));
    let written = replay(&kept, 2).expect("replays");
    let expected: Vec<u8> = (4..6).flat_map(|n| cycle(&kubia(n))).collect();
    assert_eq!(written, expected);
    // Past the byte limit nothing is kept, and nothing replayed.
    let mut c = Cycles::default();
    let (mut w, mut out) = (Vec::new(), Vec::new());
    c.step(Replay::Begin, &mut w, &mut out).unwrap();
    c.keep(&vec![b' '; MAX_KEPT + 1]);
    assert!(!c.step(Replay::Mark, &mut w, &mut out).unwrap());
}

#[test]
fn pending_output_is_written_before_the_replayed_cycles() {
    let mut c = Cycles::default();
    let (mut w, mut out) = (Vec::new(), Vec::new());
    c.step(Replay::Begin, &mut w, &mut out).unwrap();
    for n in 0..3 {
        c.keep(&cycle(&kubia(n)));
        c.step(Replay::Mark, &mut w, &mut out).unwrap();
    }
    out.extend_from_slice(b"pending");
    let emit = Replay::Emit {
        cycles: 1,
        period: SimDuration::from_secs(520),
    };
    assert!(c.step(emit, &mut w, &mut out).unwrap());
    assert!(out.is_empty());
    let mut expected = b"pending".to_vec();
    expected.extend(cycle(&kubia(3)));
    assert_eq!(w, expected);
}
