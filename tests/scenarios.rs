//! One test per scenario file under `scenarios/`: it must load, run twice to the same bytes
//! (timeline and JSON), satisfy its own expectations, and match its reviewed golden timeline
//! (`<name>.snap` beside it).
//!
//! Scenarios under `scenarios/pending/` state what the kubelet does where the engine does not
//! follow it yet: each must load and run deterministically, and at least one of its expectations
//! must fail today. When the engine changes and they all hold, the test fails and says to move
//! the file into the bundled set with a reviewed golden.

mod support;

use std::path::Path;

use libtest_mimic::Failed;
use probesim_report::render;
use probesim_report::Format;
use probesim_scenario::run::check;
use probesim_scenario::scenario::Scenario;

fn replay(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let scenario = Scenario::from_str_with(&text, &name, &mut support::RepoFiles)
        .map_err(|e| e.render(&text))?;
    let run = |format| -> Result<String, Failed> {
        let bytes =
            render(&scenario, format, false, Vec::new()).map_err(|e| format!("{name}: {e}"))?;
        String::from_utf8(bytes).map_err(|e| format!("{name}: output is not UTF-8: {e}").into())
    };
    let (first, second) = (run(Format::Timeline)?, run(Format::Timeline)?);
    if first != second {
        return Err(format!(
            "{name}: two runs differ:\n{}",
            support::diff(&first, &second)
        )
        .into());
    }
    let (json, json_again) = (run(Format::Json)?, run(Format::Json)?);
    if json != json_again {
        return Err(format!("{name}: two JSON runs differ").into());
    }
    let doc: serde_json::Value = serde_json::from_str(&json)
        .map_err(|e| format!("{name}: the JSON timeline does not parse: {e}"))?;
    for field in [
        "probesim",
        "scenario",
        "kubernetes",
        "seed",
        "duration",
        "events",
        "final",
    ] {
        if doc.get(field).is_none() {
            return Err(format!("{name}: the JSON timeline lacks `{field}`").into());
        }
    }
    let failures = check(&scenario).map_err(|e| format!("{name}: {e}"))?;
    if !failures.is_empty() {
        let list: Vec<String> = failures.iter().map(ToString::to_string).collect();
        return Err(format!("{name}: expectations do not hold:\n  {}", list.join("\n  ")).into());
    }
    if scenario.expect.is_empty() {
        return Err(format!("{name}: a curated scenario must carry expectations").into());
    }
    support::compare_golden(&path.with_extension("snap"), &first).map_err(Failed::from)
}

/// A pending scenario: deterministic, and still failing at least one expectation.
fn pending(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let scenario = Scenario::from_str_with(&text, &name, &mut support::RepoFiles)
        .map_err(|e| e.render(&text))?;
    let run = || -> Result<Vec<u8>, Failed> {
        render(&scenario, Format::Json, false, Vec::new())
            .map_err(|e| format!("{name}: {e}").into())
    };
    if run()? != run()? {
        return Err(format!("{name}: two runs differ").into());
    }
    if scenario.expect.is_empty() {
        return Err(format!("{name}: a pending scenario must carry expectations").into());
    }
    let failures = check(&scenario).map_err(|e| format!("{name}: {e}"))?;
    if failures.is_empty() {
        return Err(format!(
            "{name}: every expectation holds now: move it out of scenarios/pending/, give it a \
             reviewed golden, and update docs/semantics.md"
        )
        .into());
    }
    Ok(())
}

fn main() {
    support::run_per_file(&["scenarios"], &["yaml", "yml", "json"], |path| {
        if support::rel(path).starts_with("scenarios/pending/") {
            pending(path)
        } else {
            replay(path)
        }
    });
}
