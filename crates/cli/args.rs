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
Examples:\n  probesim run scenarios/kubia-unhealthy.yaml\n  probesim run scenarios/kubia-unhealthy.yaml --format json --for 10m\n  probesim run deploy.yaml --app 'web: liveness=refused for 90s then ok'\n  probesim check scenarios/\n  probesim explain scenarios/kubia-unhealthy.yaml"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate one scenario and print its timeline.
    Run(Box<RunArgs>),
    /// Simulate scenarios and check their expectations; one line per scenario.
    Check(CheckArgs),
    /// Simulate one scenario and tell, step by step, what happens and why; then a verdict.
    Explain(Box<ExplainArgs>),
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (YAML or JSON), or a Kubernetes manifest (Pod, Deployment, Job, …; a
    /// multi-document file or a List), or `-` for standard input.
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,

    /// Output format: timeline (a human-readable table), json (one document), jsonl (one event
    /// per line, then the final status) or summary (final status and event counts; constant
    /// memory); svg (a swim-lane picture) or html (a self-contained report with the picture).
    #[arg(long, short = 'f', value_name = "F", default_value = "timeline")]
    pub format: String,

    /// Virtual time to simulate, overriding the scenario's `duration` (e.g. 90s, 30m, 2h, or
    /// plain seconds; 10m for a manifest).
    #[arg(long = "for", value_name = "DURATION", allow_hyphen_values = true)]
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

    /// Manifest only: the workload to simulate, as KIND/NAME, NAMESPACE/KIND/NAME or NAME
    /// (needed when several workloads have probes).
    #[arg(long, value_name = "KIND/NAME")]
    pub select: Option<String>,

    /// Manifest only: how a container answers its probes, 'NAME: KEY=SCRIPT; …' where KEY is
    /// liveness, readiness, startup or an endpoint like `http :8080/healthz` (repeatable; NAME
    /// may be left out when the pod has one container).
    #[arg(long, value_name = "'NAME: KEY=SCRIPT'")]
    pub app: Vec<String>,

    /// Manifest only: a container's process exits by itself, 'NAME: CODE after DURATION'
    /// (repeatable).
    #[arg(long, value_name = "'NAME: CODE after D'")]
    pub exit: Vec<String>,

    /// Manifest only: what a container's process does on SIGTERM, 'NAME: ignore' or 'NAME: exit
    /// [CODE] after DURATION' (repeatable).
    #[arg(long, value_name = "'NAME: ignore'")]
    pub sigterm: Vec<String>,

    /// Manifest only: how long each image pull of a container takes, 'NAME: DURATION'
    /// (repeatable).
    #[arg(long, value_name = "'NAME: D'")]
    pub pull: Vec<String>,

    /// Manifest only: print the scenario built from the manifest and the options (a file that
    /// replays to the same timeline) instead of running it.
    #[arg(long)]
    pub emit_scenario: bool,
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

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The scenario file (YAML or JSON), or a Kubernetes manifest, or `-` for standard input.
    #[arg(value_name = "SCENARIO|MANIFEST")]
    pub scenario: String,

    /// Virtual time to simulate, overriding the scenario's `duration`.
    #[arg(long = "for", value_name = "DURATION", allow_hyphen_values = true)]
    pub for_: Option<String>,

    /// Seed of the simulation's random generator, overriding the scenario's `seed`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// Kubernetes version whose semantics to use (1.19 … 1.37), overriding `kubernetes`.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,

    /// Manifest only: the workload to simulate (as for `run`).
    #[arg(long, value_name = "KIND/NAME")]
    pub select: Option<String>,

    /// Manifest only: how a container answers its probes (as for `run`; repeatable).
    #[arg(long, value_name = "'NAME: KEY=SCRIPT'")]
    pub app: Vec<String>,

    /// Manifest only: a container's process exits by itself (as for `run`; repeatable).
    #[arg(long, value_name = "'NAME: CODE after D'")]
    pub exit: Vec<String>,

    /// Manifest only: what a container's process does on SIGTERM (as for `run`; repeatable).
    #[arg(long, value_name = "'NAME: ignore'")]
    pub sigterm: Vec<String>,

    /// Manifest only: how long each image pull of a container takes (as for `run`; repeatable).
    #[arg(long, value_name = "'NAME: D'")]
    pub pull: Vec<String>,
}

impl ExplainArgs {
    /// The same input as `run` would read it.
    pub fn as_run(&self) -> RunArgs {
        RunArgs {
            scenario: self.scenario.clone(),
            format: "timeline".to_owned(),
            for_: self.for_.clone(),
            seed: self.seed,
            kubernetes: self.kubernetes.clone(),
            verbose: false,
            select: self.select.clone(),
            app: self.app.clone(),
            exit: self.exit.clone(),
            sigterm: self.sigterm.clone(),
            pull: self.pull.clone(),
            emit_scenario: false,
        }
    }
}
