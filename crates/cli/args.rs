//! Command-line arguments; each doc comment is the help text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Simulate how the Kubernetes kubelet probes a pod's containers and reacts: probe runs,
/// kills, restarts, back-off, readiness and status, on a virtual clock, deterministically.
#[derive(Debug, Parser)]
#[command(
    name = "probesim",
    version,
    propagate_version = true,
    max_term_width = 100
)]
#[command(
    after_help = "Exit codes: 0 success, 1 an expectation does not hold (check), 2 bad input.\n\
Examples:\n  probesim run scenarios/kubia-unhealthy.yaml\n  probesim run scenarios/kubia-unhealthy.yaml --format json --for 10m\n  probesim check scenarios/"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate one scenario and print its timeline.
    Run(RunArgs),
    /// Simulate scenarios and check their expectations; one line per scenario.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (YAML or JSON), or `-` for standard input.
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,

    /// Output format: timeline (a human-readable table), json (one document), jsonl (one event
    /// per line, then the final status) or summary (final status and event counts; constant
    /// memory).
    #[arg(long, short = 'f', value_name = "F", default_value = "timeline")]
    pub format: String,

    /// Virtual time to simulate, overriding the scenario's `duration` (e.g. 90s, 30m, 2h, or
    /// plain seconds).
    #[arg(long = "for", value_name = "DURATION")]
    pub for_: Option<String>,

    /// Seed of the simulation's random generator, overriding the scenario's `seed`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// Kubernetes version whose semantics to use (1.19 … 1.37), overriding `kubernetes`.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,

    /// Show every event in the timeline, including pod syncs.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Scenario files or directories (searched recursively for *.yaml, *.yml and *.json).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Print only failures and the final count.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
