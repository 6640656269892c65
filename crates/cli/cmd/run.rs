//! `probesim run`.

use std::io::{self, Write};

use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::{Profile, SimDuration, SimTime};
use probesim_scenario::report::Format;
use probesim_scenario::run::{render, RunFailure};
use probesim_scenario::scenario::{Overrides, Scenario};

use crate::args::RunArgs;
use crate::cmd::{print_error, read_input};
use crate::exit::ExitStatus;

pub fn run(args: &RunArgs) -> ExitStatus {
    let format: Format = match args.format.parse() {
        Ok(f) => f,
        Err(e) => {
            print_error(&format!("--format: {e}"));
            return ExitStatus::Error;
        }
    };
    // Options are checked before the file is read: their errors name the option.
    let duration = match args.for_.as_deref().map(probesim_script::parse_duration) {
        None => None,
        Some(Ok(d)) => match SimTime::ZERO.checked_add(d).filter(|t| *t < SimTime::MAX) {
            Some(t) => Some(t),
            None => {
                // The same limit as the scenario's `duration`.
                let limit =
                    probesim_script::format_duration(SimDuration::from_millis(u64::MAX - 1));
                print_error(&format!(
                    "--for: duration too large for the simulation clock: at most {limit} (about 584 million years)"
                ));
                return ExitStatus::Error;
            }
        },
        Some(Err(e)) => {
            print_error(&format!("--for: {e}"));
            return ExitStatus::Error;
        }
    };
    if let Some(version) = &args.kubernetes {
        if Profile::parse(version).is_none() {
            print_error(&format!(
                "--kubernetes: unsupported Kubernetes version {version:?}: probesim models 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"
            ));
            return ExitStatus::Error;
        }
    }
    let display = if args.scenario == "-" {
        "<stdin>"
    } else {
        args.scenario.as_str()
    };
    let text = match read_input(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            print_error(&e);
            return ExitStatus::Error;
        }
    };
    let mut scenario = match Scenario::from_str(&text, display) {
        Ok(s) => s,
        Err(e) => {
            print_error(&e.render(&text));
            return ExitStatus::Error;
        }
    };
    let overrides = Overrides {
        duration,
        seed: args.seed,
        kubernetes: args.kubernetes.clone(),
    };
    if let Err(e) = scenario.apply(&overrides) {
        print_error(&e.render(&text));
        return ExitStatus::Error;
    }
    let stdout = io::stdout().lock();
    match render(&scenario, format, args.verbose, io::BufWriter::new(stdout)) {
        Ok(mut w) => match w.flush() {
            Ok(()) => ExitStatus::Success,
            Err(e) => io_failure(&e),
        },
        Err(RunFailure::Io(e)) => io_failure(&e),
        Err(e @ (RunFailure::NoDuration | RunFailure::TooLarge { .. })) => {
            print_error(&format!("{display}: {e}"));
            ExitStatus::Error
        }
        Err(e @ RunFailure::Stuck(_)) => {
            print_error(&format!("{display}: {e}"));
            ExitStatus::Error
        }
    }
}

/// A closed pipe (`probesim run … | head`) is success; other write errors are reported.
fn io_failure(e: &io::Error) -> ExitStatus {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitStatus::Success;
    }
    print_error(&format!("cannot write to standard output: {e}"));
    ExitStatus::Error
}
