//! `probesim analyze`: a thin adapter over probesim-analysis.

use std::io::{self, Write};

use probesim_analysis::finding::{rule, Severity, RULES};
use probesim_analysis::report::{self, WorkloadReport};
use probesim_analysis::requirement::{Requirement, Verdict};
use probesim_analysis::subject::{self, LoadOptions, Subject};
use probesim_analysis::sweep::Sweep;
use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
use probesim_core::Profile;
use probesim_scenario::argument::{AppArg, AppFlag};

use crate::args::AnalyzeArgs;
use crate::cmd::{print_error, read_input, references, scenario_file};
use crate::exit::ExitStatus;

/// The output formats of `analyze`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Sarif,
}

/// A sweep over every core of the machine.
pub fn machine_sweep() -> Sweep {
    Sweep::new(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// Checks `--kubernetes` before anything is read.
pub fn check_kubernetes(version: Option<&String>) -> Result<(), ExitStatus> {
    if let Some(version) = version {
        if Profile::parse(version).is_none() {
            print_error(&format!(
                "--kubernetes: unsupported Kubernetes version {version:?}: probesim models 1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"
            ));
            return Err(ExitStatus::Error);
        }
    }
    Ok(())
}

/// Reads the file's subjects, or prints why not.
pub fn load_subjects(
    file: &str,
    options: &LoadOptions,
    allow_outside_tree: bool,
) -> Result<(Vec<Subject>, String), ExitStatus> {
    let display = if file == "-" { "<stdin>" } else { file };
    let text = read_input(file).map_err(|e| {
        print_error(&e);
        ExitStatus::Error
    })?;
    let mut files = references(scenario_file(file), allow_outside_tree);
    let subjects = subject::load(&text, display, options, &mut files).map_err(|e| {
        print_error(&e);
        ExitStatus::Error
    })?;
    let kubernetes = subjects
        .first()
        .map_or_else(|| Profile::newest().version(), |s| s.profile.version());
    Ok((subjects, kubernetes))
}

/// The behaviour options as `run` takes them, in the order given per option.
pub fn app_args(options: &[(AppFlag, &Vec<String>)]) -> Vec<AppArg> {
    options
        .iter()
        .flat_map(|(flag, values)| {
            values.iter().map(|v| AppArg {
                flag: *flag,
                value: v.clone(),
            })
        })
        .collect()
}

pub fn analyze(args: &AnalyzeArgs) -> ExitStatus {
    match analyze_inner(args) {
        Ok(s) | Err(s) => s,
    }
}

fn analyze_inner(args: &AnalyzeArgs) -> Result<ExitStatus, ExitStatus> {
    let format = match args.format.as_str() {
        "text" => Format::Text,
        "json" => Format::Json,
        "sarif" => Format::Sarif,
        other => {
            print_error(&format!(
                "--format: unknown format `{other}` (expected text, json or sarif)"
            ));
            return Err(ExitStatus::Error);
        }
    };
    let mut requirements = Vec::new();
    for text in &args.require {
        match Requirement::parse(text) {
            Ok(r) => requirements.push(r),
            Err(e) => {
                print_error(&e.to_string());
                return Err(ExitStatus::Error);
            }
        }
    }
    let fail_on = match args.fail_on.as_deref() {
        None => None,
        Some(s @ ("warning" | "error")) => Severity::parse(s),
        Some(other) => {
            print_error(&format!(
                "--fail-on: unknown severity `{other}` (expected warning or error)"
            ));
            return Err(ExitStatus::Error);
        }
    };
    let expect_startup = match args.expect_startup.as_deref() {
        None => None,
        Some(d) => match probesim_script::parse_duration(d) {
            Ok(d) => Some(d),
            Err(e) => {
                print_error(&format!("--expect-startup: {e}"));
                return Err(ExitStatus::Error);
            }
        },
    };
    check_kubernetes(args.kubernetes.as_ref())?;
    let options = LoadOptions {
        select: args.select.clone(),
        kubernetes: args.kubernetes.clone(),
        apps: app_args(&[
            (AppFlag::App, &args.app),
            (AppFlag::Exit, &args.exit),
            (AppFlag::Sigterm, &args.sigterm),
            (AppFlag::Pull, &args.pull),
        ]),
        sets: args.set.clone(),
    };
    let mut ignore = Vec::new();
    for id in args.ignore.iter().flat_map(|v| v.split(',')).map(str::trim) {
        match rule(id) {
            Some(r) => ignore.push((r.id, "--ignore".to_owned())),
            None => {
                print_error(&format!(
                    "--ignore: unknown finding id {id:?} (the ids are {})",
                    RULES.iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
                ));
                return Err(ExitStatus::Error);
            }
        }
    }
    let (subjects, kubernetes) = load_subjects(&args.file, &options, args.allow_outside_tree)?;
    let sweep = machine_sweep();
    let mut reports = Vec::new();
    for mut s in subjects {
        s.expect_startup = expect_startup;
        for (id, by) in &ignore {
            if s.ignores(id).is_none() {
                s.ignore.push((id, by.clone()));
            }
        }
        match WorkloadReport::of(s, sweep) {
            Ok(r) => reports.push(r),
            Err(e) => {
                print_error(&e.to_string());
                return Err(ExitStatus::Error);
            }
        }
    }
    // Requirements name containers: every one must exist with probes.
    let mut verdicts: Vec<Verdict> = Vec::new();
    for g in &requirements {
        let before = verdicts.len();
        for r in &reports {
            for c in r.containers.iter().filter(|c| c.name == g.container) {
                verdicts.push(g.check(&r.subject.name, c));
            }
        }
        if verdicts.len() == before {
            let names: Vec<&str> = reports
                .iter()
                .flat_map(|r| r.containers.iter().map(|c| c.name.as_str()))
                .collect();
            print_error(&format!(
                "--require {:?}: no container named {:?} has probes (containers with probes: {})",
                g.text,
                g.container,
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
            return Err(ExitStatus::Error);
        }
    }
    let mut out = match format {
        Format::Text => report::text(&kubernetes, &reports),
        Format::Json => report::json(&kubernetes, &reports, &verdicts),
        Format::Sarif => report::sarif(env!("CARGO_PKG_VERSION"), &reports),
    };
    if format == Format::Text && !verdicts.is_empty() {
        out.push_str("requirements:\n");
        for v in &verdicts {
            let word = if v.holds { "met" } else { "NOT MET" };
            out.push_str(&format!("  {word}: {v}\n"));
        }
    }
    if format == Format::Text {
        // Names from the input (the scenario's, a container's), in the figures and in the
        // requirement lines, must not drive the terminal.
        out = probesim_kube::printable::printable_lines(&out).into_owned();
    }
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return Ok(ExitStatus::Success);
        }
        print_error(&format!("cannot write to standard output: {e}"));
        return Err(ExitStatus::Error);
    }
    let mut status = ExitStatus::Success;
    for v in verdicts.iter().filter(|v| !v.holds) {
        print_error(&format!("requirement not met: {v}"));
        status = ExitStatus::Failure;
    }
    if let Some(level) = fail_on {
        let n = reports
            .iter()
            .flat_map(|r| r.findings.iter())
            .filter(|f| f.rule.severity >= level)
            .count();
        if n > 0 {
            print_error(&format!(
                "{n} finding{} at {level} or worse (--fail-on {level})",
                if n == 1 { "" } else { "s" }
            ));
            status = ExitStatus::Failure;
        }
    }
    Ok(status)
}
