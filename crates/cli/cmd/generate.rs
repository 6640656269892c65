//! `probesim completions`, `probesim man` and `probesim schema`: files generated from the
//! command line's definition and from the scenario format, printed on standard output.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::cmd::print_error;
use crate::exit::ExitStatus;

/// The JSON Schema of scenario files (draft 2020-12), kept beside the code that reads them and
/// checked against every bundled scenario by `tests/check.rs`.
pub const SCENARIO_SCHEMA: &str = include_str!("../../../schema/scenario.schema.json");

/// A completion script for `shell`.
pub fn completions(shell: Shell) -> ExitStatus {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "probesim", &mut out);
    write_stdout(&out)
}

/// A manual page in roff: `probesim(1)`, or a command's own (`probesim-check(1)`).
pub fn man(command: Option<&str>) -> ExitStatus {
    let top = Cli::command();
    let page = match command {
        None => top,
        Some(name) => {
            let Some(sub) = top.find_subcommand(name).filter(|s| s.get_name() != "help") else {
                let names: Vec<&str> = top
                    .get_subcommands()
                    .map(clap::Command::get_name)
                    .filter(|n| *n != "help")
                    .collect();
                print_error(&format!(
                    "man: no command {name:?} (the commands are {})",
                    names.join(", ")
                ));
                return ExitStatus::Error;
            };
            // clap names commands with `&'static str`; the process prints one page and ends.
            let full: &'static str = Box::leak(format!("probesim-{}", sub.get_name()).into());
            sub.clone()
                .name(full)
                .bin_name(format!("probesim {}", sub.get_name()))
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        print_error(&format!("cannot render the manual page: {e}"));
        return ExitStatus::Error;
    }
    write_stdout(&out)
}

/// The JSON Schema of scenario files.
pub fn schema() -> ExitStatus {
    write_stdout(SCENARIO_SCHEMA.as_bytes())
}

/// Writes `bytes` to standard output; a reader that went away is no failure.
fn write_stdout(bytes: &[u8]) -> ExitStatus {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => ExitStatus::Success,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(e) => {
            print_error(&format!("cannot write to standard output: {e}"));
            ExitStatus::Error
        }
    }
}
