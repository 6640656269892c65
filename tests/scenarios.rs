//! One test per scenario file under `scenarios/`: it must load, run twice to the same bytes
//! (timeline and JSON), satisfy its own expectations, and match its reviewed golden timeline
//! (`<name>.snap` beside it).

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

fn main() {
    support::run_per_file(&["scenarios"], &["yaml", "yml", "json"], replay);
}
