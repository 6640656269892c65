//! One test per file under `tests/invalid/`: loading it must fail, never panic, and the error
//! text must match the reviewed `<name>.snap` beside it exactly.

mod support;

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};
use probesim_scenario::scenario::Scenario;

fn reject(path: &Path) -> Result<(), Failed> {
    let name = support::rel(path);
    let bytes = std::fs::read(path).map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let outcome = std::panic::catch_unwind(|| Scenario::from_str(&text, &name));
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
