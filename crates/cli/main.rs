//! The `probesim` command line: `probesim run` and `probesim check` (contract §1).
//!
//! Installed as `kubectl-probesim`, the same binary works as a kubectl plugin.

mod args;
mod cmd;
mod exit;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::exit::ExitStatus;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    };
    let _ = io::stderr().flush();
    status.into()
}
