//! `probesim recommend`: a thin adapter over probesim-analysis.

use std::io::{self, Write};

use probesim_analysis::recommend::{recommend as search, Requirements};
use probesim_analysis::report::{recommendation_json, recommendation_text};
use probesim_analysis::subject::LoadOptions;
use probesim_core::SimDuration;

use crate::args::RecommendArgs;
use crate::cmd::analyze::{check_kubernetes, load_subjects, machine_sweep};
use crate::cmd::print_error;
use crate::exit::ExitStatus;

fn duration(option: &str, value: Option<&String>) -> Result<Option<SimDuration>, ExitStatus> {
    match value.map(|v| probesim_script::parse_duration(v)) {
        None => Ok(None),
        Some(Ok(d)) => Ok(Some(d)),
        Some(Err(e)) => {
            print_error(&format!("{option}: {e}"));
            Err(ExitStatus::Error)
        }
    }
}

pub fn recommend(args: &RecommendArgs) -> ExitStatus {
    match inner(args) {
        Ok(s) | Err(s) => s,
    }
}

fn inner(args: &RecommendArgs) -> Result<ExitStatus, ExitStatus> {
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => {
            print_error(&format!(
                "--format: unknown format `{other}` (expected text or json)"
            ));
            return Err(ExitStatus::Error);
        }
    };
    let req = Requirements {
        startup_up_to: duration("--startup-up-to", args.startup_up_to.as_ref())?,
        detect_hang_within: duration("--detect-hang-within", args.detect_hang_within.as_ref())?,
        not_ready_within: duration("--not-ready-within", args.not_ready_within.as_ref())?,
        tolerate_blip: duration("--tolerate-blip", args.tolerate_blip.as_ref())?,
        tolerate_stall: duration("--tolerate-stall", args.tolerate_stall.as_ref())?,
    };
    if req == Requirements::default() {
        print_error(
            "nothing to recommend for: give at least one of --startup-up-to, --detect-hang-within, --not-ready-within, --tolerate-blip and --tolerate-stall",
        );
        return Err(ExitStatus::Error);
    }
    if args.candidates == 0 {
        print_error("--candidates: must be at least 1");
        return Err(ExitStatus::Error);
    }
    check_kubernetes(args.kubernetes.as_ref())?;
    let options = LoadOptions {
        select: args.select.clone(),
        kubernetes: args.kubernetes.clone(),
        apps: Vec::new(),
        sets: args.set.clone(),
    };
    let (subjects, _) = load_subjects(&args.file, &options, args.allow_outside_tree)?;
    // The container: named, or the only one of the (only) workload.
    let mut found = Vec::new();
    for (w, s) in subjects.iter().enumerate() {
        for (i, c) in s.pod.containers.iter().enumerate() {
            if args.container.as_ref().is_none_or(|n| *n == c.name) {
                found.push((w, i));
            }
        }
    }
    let (w, index) = match found.as_slice() {
        [one] => *one,
        [] => {
            let names: Vec<String> = subjects
                .iter()
                .flat_map(|s| s.pod.containers.iter().map(|c| c.name.clone()))
                .collect();
            print_error(&format!(
                "--container: no container named {:?} (the file has {})",
                args.container.as_deref().unwrap_or_default(),
                names.join(", ")
            ));
            return Err(ExitStatus::Error);
        }
        _ => {
            let names: Vec<String> = found
                .iter()
                .map(|(w, i)| {
                    format!(
                        "{} in {}",
                        subjects[*w].pod.containers[*i].name, subjects[*w].name
                    )
                })
                .collect();
            print_error(&format!(
                "several containers match ({}): choose one with --container and, for several workloads, --select",
                names.join(", ")
            ));
            return Err(ExitStatus::Error);
        }
    };
    let subject = &subjects[w];
    let found = match search(subject, index, &req, machine_sweep(), args.candidates) {
        Ok(s) => s,
        Err(e) => {
            print_error(&e.to_string());
            return Err(ExitStatus::Error);
        }
    };
    let out = if json {
        recommendation_json(subject, index, &req, &found)
    } else {
        // Names from the input (the scenario's, a container's) must not drive the terminal.
        probesim_kube::printable::printable_lines(&recommendation_text(
            subject, index, &req, &found,
        ))
        .into_owned()
    };
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() != io::ErrorKind::BrokenPipe {
            print_error(&format!("cannot write to standard output: {e}"));
            return Err(ExitStatus::Error);
        }
    }
    if found.candidates.is_empty() && !found.already {
        print_error("no configuration in the search space meets every requirement");
        return Ok(ExitStatus::Failure);
    }
    Ok(ExitStatus::Success)
}
