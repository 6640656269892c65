//! The `probesim` command line: `probesim run` and `probesim check` (docs/cli.md), `probesim
//! analyze` and `probesim recommend`, and the files generated from it (`completions`, `man`,
//! `schema`).
//!
//! Installed as `kubectl-probesim`, the same binary works as a kubectl plugin.

mod args;
mod cmd;
mod exit;

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command};
use crate::exit::ExitStatus;

fn main() -> ExitCode {
    let mut command = Cli::command();
    if invoked_as_plugin() {
        // kubectl runs `kubectl probesim …` as `kubectl-probesim …`: usage and help say what the
        // user typed.
        command = command.bin_name("kubectl probesim");
    }
    let parsed = command
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout and succeed; usage errors exit with 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitStatus::Error.into()
            } else {
                ExitStatus::Success.into()
            };
        }
    };
    let status = match cli.command {
        Command::Run(args) => cmd::run::run(&args),
        Command::Check(args) => cmd::check::check(&args),
        Command::Analyze(args) => cmd::analyze::analyze(&args),
        Command::Recommend(args) => cmd::recommend::recommend(&args),
        Command::Explain(args) => cmd::run::explain(&args.as_run()),
        Command::Compare(args) => cmd::compare::compare(&args),
        Command::Serve(args) => cmd::serve::serve(&args),
        Command::Completions(args) => cmd::generate::completions(args.shell),
        Command::Man(args) => cmd::generate::man(args.command.as_deref()),
        Command::Schema => cmd::generate::schema(),
    };
    let _ = io::stderr().flush();
    status.into()
}

/// Whether the binary runs under its kubectl plugin name, `kubectl-probesim`.
fn invoked_as_plugin() -> bool {
    std::env::args_os()
        .next()
        .is_some_and(|argv0| Path::new(&argv0).file_stem() == Some("kubectl-probesim".as_ref()))
}
