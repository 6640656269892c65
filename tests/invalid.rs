//! One test per file under `tests/invalid/`: loading it must fail, never panic, and the error
//! text must match the reviewed `<name>.snap` beside it exactly.
//!
//! A file is loaded the way `probesim run FILE` loads it: a scenario (whose `manifest:`
//! references are read from the repository), or a Kubernetes manifest without options.

mod support;

use std::path::Path;

use libtest_mimic::Failed;
use probesim_kube::catalog;
use probesim_kube::error::InputError;
use probesim_scenario::scenario::{ManifestRun, Scenario};

fn load(text: &str, name: &str) -> Result<(), InputError> {
    if catalog::is_manifest(text) {
        Scenario::from_manifest(text, name, &ManifestRun::default()).map(|_| ())
    } else {
        Scenario::from_str_with(text, name, &mut support::RepoFiles).map(|_| ())
    }
}

fn reject(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let outcome = std::panic::catch_unwind(|| load(&text, &name));
    let rendered = match outcome {
        Err(_) => return Err(format!("{name}: loading panicked").into()),
        Ok(Ok(_)) => {
            return Err(
                format!("{name}: loaded without error, but it is meant to be invalid").into(),
            )
        }
        Ok(Err(e)) => e.render(&text),
    };
    support::compare_golden(&path.with_extension("snap"), &rendered).map_err(Failed::from)
}

fn main() {
    support::run_per_file(&["tests", "invalid"], &["yaml", "yml", "json"], reject);
}
