//! `probesim run`.

use std::io::{self, Write};

use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::Profile;
use probesim_report::render;
use probesim_report::Format;
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::catalog;
use probesim_scenario::run::RunFailure;
use probesim_scenario::scenario::{horizon, ManifestRun, Overrides, Scenario};

use crate::args::RunArgs;
use crate::cmd::{print_error, print_notes, read_input, FileReader};
use crate::exit::ExitStatus;

/// The options that only make sense with a manifest, with the ones given.
fn manifest_options(args: &RunArgs) -> Vec<&'static str> {
    let mut given = Vec::new();
    for (name, set) in [
        ("--select", args.select.is_some()),
        ("--app", !args.app.is_empty()),
        ("--exit", !args.exit.is_empty()),
        ("--sigterm", !args.sigterm.is_empty()),
        ("--pull", !args.pull.is_empty()),
        ("--emit-scenario", args.emit_scenario),
    ] {
        if set {
            given.push(name);
        }
    }
    given
}

/// The behaviour options, in a fixed order: every `--app`, then `--pull`, `--exit`, `--sigterm`.
fn app_args(args: &RunArgs) -> Vec<AppArg> {
    let mut out = Vec::new();
    for (flag, values) in [
        (AppFlag::App, &args.app),
        (AppFlag::Pull, &args.pull),
        (AppFlag::Exit, &args.exit),
        (AppFlag::Sigterm, &args.sigterm),
    ] {
        out.extend(values.iter().map(|v| AppArg {
            flag,
            value: v.clone(),
        }));
    }
    out
}

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
        Some(Ok(d)) => match horizon(d) {
            Ok(t) => Some(t),
            Err(message) => {
                // The same limit as the scenario's `duration`.
                print_error(&format!("--for: {message}"));
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
    let overrides = Overrides {
        duration,
        seed: args.seed,
        kubernetes: args.kubernetes.clone(),
    };
    let scenario = if catalog::is_manifest(&text) {
        let run = ManifestRun {
            select: args.select.clone(),
            apps: app_args(args),
            kubernetes: args.kubernetes.clone(),
        };
        let mut built = match Scenario::from_manifest(&text, display, &run) {
            Ok(b) => b,
            Err(e) => {
                print_error(&e.render(&text));
                return ExitStatus::Error;
            }
        };
        if let Err(e) = built.scenario.apply(&overrides) {
            print_error(&e.render(&text));
            return ExitStatus::Error;
        }
        if args.emit_scenario {
            let mut stdout = io::stdout().lock();
            return match stdout
                .write_all(built.to_yaml().as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitStatus::Success,
                Err(e) => io_failure(&e),
            };
        }
        print_notes(&built.scenario.notes);
        built.scenario
    } else {
        let given = manifest_options(args);
        if let Some((last, rest)) = given.split_last() {
            let (options, verb) = if rest.is_empty() {
                ((*last).to_owned(), "applies")
            } else {
                (format!("{} and {last}", rest.join(", ")), "apply")
            };
            print_error(&format!(
                "{options} {verb} only to a Kubernetes manifest, and {display} is a scenario file: write the behaviour in its `apps`, and choose a workload with `manifest` and `select`"
            ));
            return ExitStatus::Error;
        }
        let scenario = match Scenario::load_with(&text, display, &mut FileReader, &overrides) {
            Ok(s) => s,
            Err(e) => {
                print_error(&e.render(&text));
                return ExitStatus::Error;
            }
        };
        print_notes(&scenario.notes);
        scenario
    };
    let stdout = io::stdout().lock();
    match render(&scenario, format, args.verbose, io::BufWriter::new(stdout)) {
        Ok(mut w) => match w.flush() {
            Ok(()) => ExitStatus::Success,
            Err(e) => io_failure(&e),
        },
        Err(RunFailure::Io(e)) => io_failure(&e),
        Err(
            e @ (RunFailure::NoDuration
            | RunFailure::TooLarge { .. }
            | RunFailure::TooManyEvents { .. }),
        ) => {
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
