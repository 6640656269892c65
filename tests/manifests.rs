//! One test per example manifest under `examples/manifests/`: it must load as the command line
//! loads it (`probesim run FILE`), and the scenario `--emit-scenario` prints for it must load
//! and replay to the identical timeline, text and JSON, with options that change every
//! container's behaviour (each pulls its image for a second and exits by itself after four
//! minutes, so the run has restarts).

mod support;

use std::path::Path;

use libtest_mimic::Failed;
use probesim_core::SimTime;
use probesim_kube::catalog;
use probesim_kube::yaml::SourceId;
use probesim_report::render;
use probesim_report::Format;
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::scenario::{ManifestRun, Overrides, Scenario};

fn round_trip(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    if !catalog::is_manifest(&text) {
        return Err(format!("{name}: not recognised as a manifest").into());
    }
    // The workload probesim chooses, or `web` in a file that has several.
    let selection = catalog::select(&text, SourceId::MAIN, None)
        .or_else(|_| catalog::select(&text, SourceId::MAIN, Some("web")))
        .map_err(|e| format!("{name}: {}", e.message("--select")))?;
    let select = Some(format!(
        "{}/{}",
        selection.workload.kind, selection.workload.id.name
    ));
    let apps = catalog::container_names(&selection.node, selection.workload.kind)
        .into_iter()
        .flat_map(|c| {
            [
                AppArg {
                    flag: AppFlag::Exit,
                    value: format!("{c}: 3 after 4m"),
                },
                AppArg {
                    flag: AppFlag::Pull,
                    value: format!("{c}: 1s"),
                },
            ]
        })
        .collect();
    let run = ManifestRun {
        select,
        apps,
        kubernetes: None,
    };
    let mut built = Scenario::from_manifest(&text, &name, &run).map_err(|e| e.render(&text))?;
    built
        .scenario
        .apply(&Overrides {
            duration: Some(SimTime::from_secs(300)),
            seed: Some(11),
            kubernetes: None,
            timing: None,
        })
        .map_err(|e| e.render(&text))?;
    let yaml = built.to_yaml();
    let again = Scenario::from_str(&yaml, "saved/elsewhere.yaml").map_err(|e| {
        format!(
            "{name}: the emitted scenario does not load:\n{}",
            e.render(&yaml)
        )
    })?;
    for format in [Format::Timeline, Format::Json] {
        let a = render(&built.scenario, format, true, Vec::new()).map_err(|e| e.to_string())?;
        let b = render(&again, format, true, Vec::new()).map_err(|e| e.to_string())?;
        if a != b {
            return Err(format!(
                "{name}: the emitted scenario replays differently:\n{}",
                support::diff(&String::from_utf8_lossy(&a), &String::from_utf8_lossy(&b))
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    support::run_per_file(
        &["examples", "manifests"],
        &["yaml", "yml", "json"],
        round_trip,
    );
}
