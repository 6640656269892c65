//! `probesim run`.

use std::io::{self, Write};

use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::Profile;
use probesim_kube::catalog;
use probesim_report::spread::{Observer, Occurrence, Spread};
use probesim_report::{render_explain, render_observed, render_with, Filter, Format, ViewOptions};
use probesim_scenario::argument::{AppArg, AppFlag};
use probesim_scenario::run::RunFailure;
use probesim_scenario::scenario::{
    horizon, Edits, ManifestRun, Overrides, RuntimeKnobs, Scenario, TimingMode,
};
use probesim_scenario::timing::{self, Timing};

use crate::args::{ManifestArgs, RunArgs, RuntimeArgs};
use crate::cmd::{print_error, print_notes, read_input, references, scenario_file};
use crate::exit::ExitStatus;

/// The options that only make sense with a manifest, with the ones given.
fn manifest_options(args: &RunArgs) -> Vec<&'static str> {
    let mut given = Vec::new();
    for (name, set) in [
        ("--select", args.manifest.select.is_some()),
        ("--emit-scenario", args.emit_scenario),
    ] {
        if set {
            given.push(name);
        }
    }
    given
}

/// The behaviour options, in a fixed order: every `--app`, then `--pull`, `--exit`, `--sigterm`.
pub fn app_args(args: &ManifestArgs) -> Vec<AppArg> {
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
    run_as(args, false)
}

/// `probesim explain`: the same input as `run`, told as a story.
pub fn explain(args: &RunArgs) -> ExitStatus {
    run_as(args, true)
}

fn run_as(args: &RunArgs, explain: bool) -> ExitStatus {
    let format: Format = match args.format.parse() {
        Ok(f) => f,
        Err(e) => {
            print_error(&format!("--format: {e}"));
            return ExitStatus::Error;
        }
    };
    let at = match args.at.as_deref().map(probesim_script::parse_duration) {
        None => None,
        Some(Ok(d)) => Some(probesim_core::SimTime::ZERO.saturating_add(d)),
        Some(Err(e)) => {
            print_error(&format!("--at: {e}"));
            return ExitStatus::Error;
        }
    };
    if at.is_some() && format != Format::Describe {
        print_error("--at applies only to --format describe");
        return ExitStatus::Error;
    }
    let kinds = match args.only.as_deref().map(Filter::parse_kinds) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(e)) => {
            print_error(&format!("--only: {e}"));
            return ExitStatus::Error;
        }
    };
    if (kinds.is_some() || args.container.is_some()) && format != Format::Timeline {
        print_error("--only and --container apply only to --format timeline");
        return ExitStatus::Error;
    }
    let scenario = match load_scenario(args) {
        Ok(Loaded::Scenario(s)) => *s,
        Ok(Loaded::Done(status)) | Err(status) => return status,
    };
    let display = display_name(&args.scenario);
    if let Some(name) = &args.container {
        let pod = scenario.simulation();
        if pod.pod().index_of(name).is_none() {
            let names: Vec<&str> = pod
                .pod()
                .all_containers()
                .map(|c| c.name.as_str())
                .collect();
            print_error(&format!(
                "--container: {display} has no container `{name}` (it has {})",
                names.join(", ")
            ));
            return ExitStatus::Error;
        }
    }
    if let (Some(t), Ok(end)) = (at, probesim_scenario::run::horizon(&scenario)) {
        if t > end {
            print_error(&format!(
                "--at: {}s is past the end of the run ({}s); use --for to simulate longer",
                t, end
            ));
            return ExitStatus::Error;
        }
    }
    if let Some(n) = args.spread {
        if explain || !matches!(format, Format::Timeline | Format::Json) {
            print_error("--spread applies only to run --format timeline or json");
            return ExitStatus::Error;
        }
        return spread(&scenario, display, n as usize, format == Format::Json);
    }
    let view = ViewOptions {
        readable: !args.verbose,
        verbose: args.verbose,
        filter: Filter {
            kinds,
            container: args.container.clone(),
        },
        colour: format == Format::Timeline && !args.verbose && colour_wanted(),
        at,
        fast_forward: !args.no_fast_forward,
    };
    // The timeline for people ends with the timings that disagree, simulated on the other
    // cores while it is written.
    let summary = format == Format::Timeline
        && !explain
        && !args.verbose
        && view.filter.kinds.is_none()
        && view.filter.container.is_none()
        && probesim_scenario::run::horizon(&scenario).is_ok_and(|end| {
            probesim_scenario::run::estimate_events(&scenario, end) <= SUMMARY_EVENT_CAP
        });
    let (rendered, spread) =
        std::thread::scope(|s| {
            // The other timing is simulated on another core while the printed run, observed as
            // it is written, is the summary's first timing.
            let other = summary.then(|| s.spawn(|| other_timing(&scenario)));
            let stdout = io::BufWriter::new(io::stdout().lock());
            let mut observer = Observer::new();
            let rendered = if explain {
                render_explain(&scenario, stdout)
            } else if summary {
                render_observed(&scenario, format, &view, stdout, &mut observer)
            } else {
                render_with(&scenario, format, &view, stdout)
            };
            let spread = other.and_then(|h| h.join().ok()).and_then(Result::ok).map(
                |(timing, occurrences)| {
                    Spread::of(
                        &scenario,
                        &[this_timing(&scenario), timing],
                        vec![observer.into_occurrences(), occurrences],
                    )
                },
            );
            (rendered, spread)
        });
    match rendered {
        Ok(mut w) => match spread
            .map_or(Ok(()), |s| s.write_summary(&mut w))
            .and_then(|()| w.flush())
        {
            Ok(()) => ExitStatus::Success,
            Err(e) => io_failure(&e),
        },
        // A picture past its byte limit (before anything was written).
        Err(RunFailure::Io(e)) if e.kind() == io::ErrorKind::FileTooLarge => {
            print_error(&format!("{display}: {e}"));
            ExitStatus::Error
        }
        Err(RunFailure::Io(e)) => io_failure(&e),
        Err(
            e @ (RunFailure::NoDuration
            | RunFailure::TooLarge { .. }
            | RunFailure::TooManyEvents { .. }),
        ) => {
            print_error(&format!("{display}: {e}"));
            ExitStatus::Error
        }
        Err(e) => {
            print_error(&format!("{display}: {e}"));
            ExitStatus::Error
        }
    }
}

/// The timeline's summary is left out of runs estimated at more events than this (about 45
/// minutes of one probe every 10 s): the printed run goes step by step while it is observed,
/// and the other timing is simulated event by event, and past this their share of the
/// command's cost grows.
const SUMMARY_EVENT_CAP: u64 = 1_000;

/// The timing the printed run has: the scenario's own seed and phase, its latencies as they
/// are (docs/cli.md#--spread).
fn this_timing(scenario: &Scenario) -> Timing {
    Timing::new(scenario.seed, scenario.phase)
}

/// The closing summary's other timing (the first of `--spread`'s), observed.
fn other_timing(scenario: &Scenario) -> Result<(Timing, Vec<Occurrence>), RunFailure> {
    let timing = timing::timings(scenario, 1)[0];
    let observed = probesim_report::spread::observe_timing(scenario, timing)?;
    Ok((timing, observed))
}

/// The scenario under `n` timings, matched event by event.
fn spread_of(scenario: &Scenario, n: usize) -> Result<Spread, RunFailure> {
    let timings = timing::timings(scenario, n);
    let runs = crate::cmd::spread::each_timing(&timings, |t| {
        probesim_report::spread::observe_timing(scenario, t)
    });
    let observed = runs.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(Spread::of(scenario, &timings, observed))
}

/// `run --spread N`: the scenario under `n` timings, matched event by event.
fn spread(scenario: &Scenario, display: &str, n: usize, json: bool) -> ExitStatus {
    let spread = match spread_of(scenario, n) {
        Ok(s) => s,
        Err(e) => {
            print_error(&format!("{display}: {e}"));
            return ExitStatus::Error;
        }
    };
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let written = if json {
        spread.write_json(&mut stdout, &scenario.name)
    } else {
        spread.write_text(&mut stdout)
    };
    match written.and_then(|()| stdout.flush()) {
        Ok(()) => ExitStatus::Success,
        Err(e) => io_failure(&e),
    }
}

/// Colour when standard output is a terminal and `NO_COLOR` is not set to a non-empty value
/// (no-color.org).
fn colour_wanted() -> bool {
    use std::io::IsTerminal as _;
    io::stdout().is_terminal() && !no_color_set()
}

#[expect(
    clippy::disallowed_methods,
    reason = "the CLI's one read of the environment: NO_COLOR turns the timeline's colour off"
)]
fn no_color_set() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// A closed pipe (`probesim run … | head`) is success; other write errors are reported.
fn io_failure(e: &io::Error) -> ExitStatus {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return ExitStatus::Success;
    }
    print_error(&format!("cannot write to standard output: {e}"));
    ExitStatus::Error
}

/// `--runtime-start`, `--runtime-kill`, `--runtime-pull` and `--runtime-init-run`, read.
fn runtime_knobs(args: &RuntimeArgs) -> Result<RuntimeKnobs, ExitStatus> {
    let read = |flag: &str, text: &str| {
        probesim_script::parse_duration(text.trim()).map_err(|e| {
            print_error(&format!("{flag}: {e}"));
            ExitStatus::Error
        })
    };
    let one =
        |flag: &str, value: &Option<String>| value.as_deref().map(|t| read(flag, t)).transpose();
    let pull = match args.runtime_pull.as_deref() {
        None => None,
        Some(text) => Some(match text.split_once(" then ") {
            Some((first, then)) => (
                read("--runtime-pull", first)?,
                Some(read("--runtime-pull", then)?),
            ),
            None => (read("--runtime-pull", text)?, None),
        }),
    };
    Ok(RuntimeKnobs {
        start: one("--runtime-start", &args.runtime_start)?,
        kill: one("--runtime-kill", &args.runtime_kill)?,
        pull,
        init_run: one("--runtime-init-run", &args.runtime_init_run)?,
    })
}

/// What loading produced: the scenario to run, or the end of the command (`--emit-scenario`
/// printed the scenario).
pub enum Loaded {
    /// The scenario, overrides and edits applied.
    Scenario(Box<Scenario>),
    /// Nothing left to run.
    Done(ExitStatus),
}

/// How messages name the input.
pub fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Reads the scenario or manifest `args` name, with the overrides (`--for`, `--seed`,
/// `--kubernetes`) and edits (`--set`, `--app`, …) applied; errors are printed.
pub fn load_scenario(args: &RunArgs) -> Result<Loaded, ExitStatus> {
    // Options are checked before the file is read: their errors name the option.
    let duration = match args.for_.as_deref().map(probesim_script::parse_duration) {
        None => None,
        Some(Ok(d)) => match horizon(d) {
            Ok(t) => Some(t),
            Err(message) => {
                // The same limit as the scenario's `duration`.
                print_error(&format!("--for: {message}"));
                return Err(ExitStatus::Error);
            }
        },
        Some(Err(e)) => {
            print_error(&format!("--for: {e}"));
            return Err(ExitStatus::Error);
        }
    };
    let phase = match args.phase.as_deref().map(probesim_script::parse_duration) {
        None => None,
        Some(Ok(d)) => match probesim_scenario::scenario::phase(d) {
            Ok(d) => Some(d),
            Err(message) => {
                print_error(&format!("--phase: {message}"));
                return Err(ExitStatus::Error);
            }
        },
        Some(Err(e)) => {
            print_error(&format!("--phase: {e}"));
            return Err(ExitStatus::Error);
        }
    };
    let runtime = runtime_knobs(&args.runtime)?;
    if let Some(version) = &args.kubernetes {
        if Profile::parse(version).is_none() {
            print_error(&format!(
                "--kubernetes: unsupported Kubernetes version {version:?}: probesim models 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"
            ));
            return Err(ExitStatus::Error);
        }
    }
    let display = display_name(&args.scenario);
    let text = match read_input(&args.scenario) {
        Ok(t) => t,
        Err(e) => {
            print_error(&e);
            return Err(ExitStatus::Error);
        }
    };
    let overrides = Overrides {
        duration,
        seed: args.seed,
        kubernetes: args.kubernetes.clone(),
        timing: args.timing.as_deref().and_then(TimingMode::parse),
    };
    let mut scenario = if catalog::is_manifest(&text) {
        let run = ManifestRun {
            select: args.manifest.select.clone(),
            apps: app_args(&args.manifest),
            kubernetes: args.kubernetes.clone(),
        };
        let mut built =
            match Scenario::from_manifest_edited(&text, display, &run, &args.manifest.set) {
                Ok(b) => b,
                Err(e) => {
                    print_error(&e.render(&text));
                    return Err(ExitStatus::Error);
                }
            };
        if let Err(e) = built.scenario.apply(&overrides) {
            print_error(&e.render(&text));
            return Err(ExitStatus::Error);
        }
        built.scenario.set_runtime(&runtime);
        if let Some(p) = phase {
            built.scenario.phase = p;
        }
        built.scenario.kubelet.jitter |= args.jitter;
        if args.emit_scenario {
            let mut stdout = io::stdout().lock();
            return Ok(Loaded::Done(
                match stdout
                    .write_all(built.to_yaml().as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    Ok(()) => ExitStatus::Success,
                    Err(e) => io_failure(&e),
                },
            ));
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
                "{options} {verb} only to a Kubernetes manifest, and {display} is a scenario file: choose a workload with its `manifest` and `select`"
            ));
            return Err(ExitStatus::Error);
        }
        let edits = Edits {
            apps: app_args(&args.manifest),
            sets: args.manifest.set.clone(),
        };
        let mut files = references(scenario_file(&args.scenario), args.allow_outside_tree);
        let mut scenario =
            match Scenario::load_edited(&text, display, &mut files, &overrides, &edits) {
                Ok(s) => s,
                Err(e) => {
                    print_error(&e.render(&text));
                    return Err(ExitStatus::Error);
                }
            };
        scenario.set_runtime(&runtime);
        print_notes(&scenario.notes);
        scenario
    };
    if let Some(p) = phase {
        scenario.phase = p;
    }
    scenario.kubelet.jitter |= args.jitter;
    Ok(Loaded::Scenario(Box::new(scenario)))
}
