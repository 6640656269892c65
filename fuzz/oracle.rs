//! What every input must come to, whatever its bytes: a typed error that renders, or a value
//! that runs. Shared by the `cargo fuzz` targets (`fuzz/fuzz_targets/`) and the stable smoke test
//! (`tests/hardening.rs`); each check panics when the input breaks a promise.

// Each user calls some of the checks.
#![allow(dead_code)]

use std::io;

use probesim_core::{Attempt, Behaviour, ProbeKind, SimDuration, SimTime};
use probesim_report::{render, render_explain, Format};
use probesim_scenario::run::{check, RunFailure};
use probesim_scenario::scenario::{ManifestRun, NoFiles, Scenario};
use probesim_script::{parse, parse_exit, parse_sigterm, ScriptPlayer};

/// The longest virtual time a fuzzed scenario is run for: enough to reach kills, restarts and
/// back-off, short enough for millions of runs.
const HORIZON: SimTime = SimTime::from_secs(120);

/// A behaviour script: an error points inside the text; a script prints in a canonical form that
/// parses back to itself, and plays.
pub fn script(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    match parse(text) {
        Err(e) => {
            let span = e.span();
            assert!(
                text.get(span.clone()).is_some(),
                "error span {span:?} is not inside {text:?}"
            );
            assert!(!e.to_string().is_empty());
        }
        Ok(script) => {
            let canonical = script.to_string();
            let again = parse(&canonical)
                .unwrap_or_else(|e| panic!("{text:?} prints as {canonical:?}, which fails: {e}"));
            assert_eq!(again, script, "{text:?} -> {canonical:?}");
            assert_eq!(again.to_string(), canonical);
            let mut player = ScriptPlayer::new(script);
            for i in 0..64u64 {
                let _ = player.respond(&Attempt {
                    container: 0,
                    probe: ProbeKind::Liveness,
                    instance: i / 16,
                    uptime: SimDuration::from_millis(i * 7_919),
                    now: SimTime::from_millis(i * 7_919),
                });
            }
        }
    }
    let _ = parse_exit(text).map_err(|e| e.to_string());
    let _ = parse_sigterm(text).map_err(|e| e.to_string());
}

/// A scenario file (its `manifest:` references cannot be read here): an error renders with its
/// snippets; a scenario runs into its expectations and into a report.
pub fn scenario(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    match Scenario::from_str_with(&text, "fuzz.yaml", &mut NoFiles) {
        Err(e) => rendered(&e.render(&text)),
        Ok(s) => run(s),
    }
}

/// A Kubernetes manifest run without options, as `probesim run FILE` runs it.
pub fn manifest(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let _ = probesim_kube::catalog::is_manifest(&text);
    match Scenario::from_manifest(&text, "fuzz.yaml", &ManifestRun::default()) {
        Err(e) => rendered(&e.render(&text)),
        Ok(built) => {
            let _ = built.to_yaml();
            run(built.scenario);
        }
    }
}

fn rendered(message: &str) {
    assert!(message.starts_with("error: "), "{message:?}");
    flag_unescaped("an error", message);
}

/// A character no text that reaches a terminal or a CI log may carry raw: a control other than
/// line feed and tab (C0, DEL and the C1 range), a bidi control (U+061C, U+200E, U+200F,
/// U+202A to U+202E, U+2066 to U+2069), a zero-width character (U+200B to U+200D, U+FEFF) or a
/// line break other than `\n` (U+2028, U+2029; U+0085 is C1).
#[must_use]
pub fn unescaped(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// Panics when `text` (what `what` printed) holds an [`unescaped`] character.
pub fn flag_unescaped(what: &str, text: &str) {
    if let Some((at, c)) = text.char_indices().find(|&(_, c)| unescaped(c)) {
        let mut from = at.saturating_sub(60);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (at + 60).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        panic!(
            "{what}: raw U+{:04X} at byte {at}: {:?}",
            u32::from(c),
            &text[from..to]
        );
    }
}

/// The most bytes a report of a run of at most [`HORIZON`] may take: far more than any
/// 120-second run prints, far less than an unbounded one reaches.
const MAX_REPORT_BYTES: usize = 16 << 20;

fn run(mut s: Scenario) {
    s.duration = Some(s.duration.map_or(HORIZON, |d| d.min(HORIZON)));
    match check(&s) {
        Ok(_) => {}
        Err(e @ RunFailure::Stuck(_)) => panic!("{e}"),
        Err(e) => panic!("unexpected failure of a bounded run: {e}"),
    }
    // Every format, the pictures among them, and the story: bounded, and escaped.
    for format in Format::ALL {
        match render(&s, format, false, Vec::new()) {
            Ok(bytes) => report(format.as_str(), &bytes),
            Err(RunFailure::TooLarge { .. } | RunFailure::TooManyEvents { .. }) => {}
            Err(RunFailure::Io(e)) if e.kind() == io::ErrorKind::FileTooLarge => {}
            Err(e) => panic!("--format {format}: {e}"),
        }
    }
    match render_explain(&s, Vec::new()) {
        Ok(bytes) => report("explain", &bytes),
        Err(RunFailure::TooLarge { .. } | RunFailure::TooManyEvents { .. }) => {}
        Err(e) => panic!("explain: {e}"),
    }
}

/// A report's bytes: text, bounded, escaped.
fn report(what: &str, bytes: &[u8]) {
    assert!(
        bytes.len() <= MAX_REPORT_BYTES,
        "{what}: {} bytes for at most {HORIZON:?} of a run",
        bytes.len()
    );
    let text = std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{what}: not UTF-8: {e}"));
    flag_unescaped(what, text);
}

/// The simulation steps a fuzzed analysis may take: a few hundred times less than the command
/// line's budget, so that an input costs milliseconds; past it the analysis must stop with its
/// typed error.
const FUZZ_WORK: u64 = 200_000;

/// A scenario or manifest analysed as `probesim analyze FILE` analyses it: an error renders, an
/// analysis ends in figures or in the budget's error having done at most one simulation past
/// the budget, and its text report is escaped.
pub fn analyze(bytes: &[u8]) {
    analyze_within(bytes, FUZZ_WORK);
}

/// [`analyze`] within a budget of `budget` simulation steps.
pub fn analyze_within(bytes: &[u8], budget: u64) {
    use probesim_analysis::analyze::{AnalysisError, Analyzer, Want, Work};
    use probesim_analysis::subject::{load, LoadOptions};
    use probesim_analysis::sweep::Sweep;

    let text = String::from_utf8_lossy(bytes);
    let subjects = match load(&text, "fuzz.yaml", &LoadOptions::default(), &mut NoFiles) {
        Ok(s) => s,
        Err(message) => return rendered(&message),
    };
    for subject in &subjects {
        let analyzer = Analyzer::sharing(subject, Sweep::single(), Work::new(budget));
        match analyzer.all(Want::ALL) {
            Ok(_) | Err(AnalysisError::TooCostly { .. }) => {}
            Err(e) => panic!("{e}"),
        }
        // One simulation past the budget at most, itself bounded by the budget twice over.
        assert!(
            analyzer.work() <= 3 * budget + 2,
            "{} steps for a budget of {budget}",
            analyzer.work()
        );
    }
}

/// The library, as a property test uses it: the file read through its reader (`path` holds
/// the input), as a manifest and as a scenario, run for a bounded horizon; an error displays
/// escaped.
pub fn library(path: &str) {
    for test in [
        probesim::Test::manifest(path),
        probesim::Test::scenario(path),
    ] {
        let outcome = test
            .and_then(|t| t.horizon("2m").run())
            .map(|run| run.kills().len());
        if let Err(e) = outcome {
            flag_unescaped("the library's error", &e.to_string());
        }
    }
}
