//! One test per file under `tests/invalid/`: loading it must fail, never panic, and the error
//! text must match the reviewed `<name>.snap` beside it exactly.
//!
//! A file is loaded the way `probesim run FILE` loads it: a scenario (whose `manifest:`
//! references are read from the repository), or a Kubernetes manifest without options.

mod support;

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use probesim_scenario::catalog;
use probesim_scenario::error::ScenarioError;
use probesim_scenario::scenario::{ManifestRun, Scenario};

fn load(text: &str, name: &str) -> Result<(), ScenarioError> {
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
    let args = Arguments::from_args();
    let root = support::root().join("tests").join("invalid");
    let trials = support::files(&root, &["yaml", "yml", "json"])
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            Trial::test(name, move || reject(&path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
