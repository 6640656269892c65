//! What every input must come to, whatever its bytes: a typed error that renders, or a value
//! that runs. Shared by the `cargo fuzz` targets (`fuzz/fuzz_targets/`) and the stable smoke test
//! (`tests/hardening.rs`); each check panics when the input breaks a promise.

// Each user calls some of the checks.
#![allow(dead_code)]

use std::io;

use probesim_core::{Attempt, Behaviour, ProbeKind, SimDuration, SimTime};
use probesim_report::{render, Format};
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
    let _ = probesim_scenario::catalog::is_manifest(&text);
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
    assert!(
        !message
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "raw control character in {message:?}"
    );
}

fn run(mut s: Scenario) {
    s.duration = Some(s.duration.map_or(HORIZON, |d| d.min(HORIZON)));
    match check(&s) {
        Ok(_) => {}
        Err(e @ RunFailure::Stuck(_)) => panic!("{e}"),
        Err(e) => panic!("unexpected failure of a bounded run: {e}"),
    }
    match render(&s, Format::Summary, false, io::sink()) {
        Ok(_) | Err(RunFailure::TooLarge { .. } | RunFailure::TooManyEvents { .. }) => {}
        Err(e) => panic!("{e}"),
    }
}
