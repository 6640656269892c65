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
    after_help = "Exit codes: 0 success, 1 an expectation, requirement or finding gate does not hold, 2 bad input.\n\
Examples:\n  probesim run scenarios/kubia-unhealthy.yaml\n  probesim run scenarios/kubia-unhealthy.yaml --format json --for 10m\n  probesim run deploy.yaml --app 'web: liveness=refused for 90s then ok'\n  probesim check scenarios/\n  probesim explain scenarios/kubia-unhealthy.yaml\n  probesim analyze deploy.yaml --require 'web.hangDetection.kill.max<=45s'\n  probesim recommend deploy.yaml --container web --startup-up-to 90s --detect-hang-within 30s"
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
    /// Compute probe timing figures over every phase, with findings and requirements.
    Analyze(Box<AnalyzeArgs>),
    /// Find the simplest probe settings that meet timing requirements.
    Recommend(Box<RecommendArgs>),
    /// Simulate one scenario and tell, step by step, what happens and why; then a verdict.
    Explain(Box<ExplainArgs>),
    /// Simulate two runs and show them side by side: two files, or one file and a variant of
    /// it (`--set`, `--app`, …), aligned by time with their differences marked.
    Compare(Box<CompareArgs>),
    /// Open a playground in the browser: a page on 127.0.0.1 that simulates again at every
    /// change of the probes, the app, the release, the horizon or the YAML itself.
    Serve(ServeArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    Completions(CompletionsArgs),
    /// Print a manual page, in roff (`probesim man | man -l -`; `probesim man check` for
    /// probesim-check(1)).
    Man(ManArgs),
    /// Print the JSON Schema of scenario files, for editors that validate and complete YAML.
    Schema,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario file (YAML or JSON), or a Kubernetes manifest (Pod, Deployment, Job, …; a
    /// multi-document file or a List), or `-` for standard input.
    #[arg(value_name = "SCENARIO")]
    pub scenario: String,

    /// Output format: timeline (a human-readable table), json (one document), jsonl (one event
    /// per line, then the final status), summary (final status and event counts; constant
    /// memory), get (what `kubectl get pod -w` prints), describe (`kubectl describe pod` at
    /// the end, or at --at), svg (a swim-lane picture) or html (a self-contained report
    /// with the picture).
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

    /// Timing of the runtime's steps, overriding the scenario's `timing`: realistic (latencies,
    /// pulls and the kubelet's jitter as on a real node; the default) or exact (zero-latency canonical
    /// timing).
    #[arg(long, value_name = "T", value_parser = ["realistic", "exact"])]
    pub timing: Option<String>,
    /// Delay of the pod's first container start after its sync (its offset on the probe
    /// workers' tick grid, at most 1h), overriding the scenario's `phase`.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub phase: Option<String>,

    /// Draw the kubelet's jitters (requeue, resync) from the seed, as `kubelet.jitter: true`.
    #[arg(long)]
    pub jitter: bool,

    /// The runtime's latencies (`--runtime-start` and friends).
    #[command(flatten)]
    pub runtime: RuntimeArgs,

    /// Simulate N timings (jitter seeds derived from the seed, start phases within the longest
    /// probe period, under realistic timing the runtime's latencies within their ranges) and print, for every kill, restart, readiness change and CrashLoopBackOff,
    /// its earliest and latest instant and the share of timings it happens in (timeline or
    /// json).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub spread: Option<u32>,

    /// Show every event in the timeline, including pod syncs, as the exact table.
    #[arg(long, short = 'v')]
    pub verbose: bool,

    /// describe only: the instant to describe the pod at (e.g. 27m; default: the end).
    #[arg(long, value_name = "T")]
    pub at: Option<String>,

    /// Timeline only: show only these kinds of lines, e.g. probe,kill,exit.
    #[arg(long, value_name = "KIND[,KIND…]")]
    pub only: Option<String>,

    /// Timeline only: show only this container's lines.
    #[arg(long, value_name = "NAME")]
    pub container: Option<String>,

    /// The manifest options (`--select`, `--app`, `--exit`, `--sigterm`, `--pull`).
    #[command(flatten)]
    pub manifest: ManifestArgs,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,

    /// Manifest only: print the scenario built from the manifest and the options (a file that
    /// replays to the same timeline) instead of running it.
    #[arg(long)]
    pub emit_scenario: bool,
    /// summary: simulate every cycle step by step, even where the state repeats (by default a
    /// summary jumps over whole repeated cycles; the output is the same either way). The other
    /// formats always simulate every event.
    #[arg(long)]
    pub no_fast_forward: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Scenario files or directories (searched recursively for *.yaml, *.yml and *.json), or
    /// `-` for one scenario on standard input.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Print only failures and the final count.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Output format: text (one line per scenario), json (one document), junit (JUnit XML for
    /// CI test reports) or github (GitHub Actions annotations at the failing lines).
    #[arg(long, short = 'f', value_name = "F", default_value = "text")]
    pub format: String,

    /// Run every scenario under each of these Kubernetes releases (a version matrix), e.g.
    /// `1.30,1.37`, or `all` for 1.19 to 1.37; one result per scenario and release.
    #[arg(long, value_name = "VERSIONS")]
    pub kubernetes: Option<String>,

    /// Timing of the runtime's steps, overriding the scenario's `timing`: realistic (latencies,
    /// pulls and the kubelet's jitter as on a real node; the default) or exact (zero-latency canonical
    /// timing).
    #[arg(long, value_name = "T", value_parser = ["realistic", "exact"])]
    pub timing: Option<String>,

    /// Also compare each scenario's timeline with the snapshot file beside it (`NAME.snap`;
    /// `NAME@1.30.snap` under --kubernetes); a difference or a missing snapshot fails.
    #[arg(long)]
    pub snapshot: bool,

    /// With --snapshot: write the snapshots that are missing or differ instead of failing.
    /// Refused under CI (the environment variable CI is `true`) unless --force is given.
    #[arg(long, requires = "snapshot")]
    pub update: bool,

    /// With --update: write snapshots even under CI.
    #[arg(long, requires = "update")]
    pub force: bool,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,

    /// How many scenarios to simulate at once (default: the number of CPU cores); the output
    /// is the same, in the same order, whatever the number.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Simulate every cycle step by step, even where the state repeats (by default the check
    /// jumps over whole repeated cycles; the verdicts are the same either way).
    #[arg(long)]
    pub no_fast_forward: bool,

    /// What if: sets a field of every scenario's pod before it is validated, e.g.
    /// livenessProbe.failureThreshold=1 (repeatable; see `probesim run --help`).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,

    /// Check every expectation over N timings (jitter seeds derived from the scenario's seed,
    /// start phases within its longest probe period): the share of timings that pass, and a
    /// failing one to replay with `probesim run --seed S --phase P --jitter`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10000))]
    pub timings: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The command whose page to print (run, check, …); without it, probesim(1).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// A scenario file, or a Kubernetes manifest with workloads (every workload is analysed
    /// unless --select names one), or `-` for standard input.
    #[arg(value_name = "FILE")]
    pub file: String,

    /// Output format: text (one line per figure), json (one document) or sarif (SARIF 2.1.0
    /// findings for code-scanning tools).
    #[arg(long, short = 'f', value_name = "F", default_value = "text")]
    pub format: String,

    /// Manifest only: the workload to analyse, as KIND/NAME, NAMESPACE/KIND/NAME or NAME.
    #[arg(long, value_name = "KIND/NAME")]
    pub select: Option<String>,

    /// Kubernetes version whose semantics to use (1.19 … 1.37).
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,

    /// How a container answers its probes, 'NAME: KEY=SCRIPT; …', as for `run` (repeatable; on
    /// a scenario file, replaces the scripts of the same keys in its `apps`); a script that
    /// fails at first declares a start-up time.
    #[arg(long, value_name = "'NAME: KEY=SCRIPT'")]
    pub app: Vec<String>,

    /// A container's process exits by itself, 'NAME: CODE after DURATION' (repeatable; on a
    /// scenario file, replaces its `exit`).
    #[arg(long, value_name = "'NAME: CODE after D'")]
    pub exit: Vec<String>,

    /// What a container's process does on SIGTERM, 'NAME: ignore' or 'NAME: exit [CODE] after
    /// DURATION' (repeatable; on a scenario file, replaces its `sigterm`).
    #[arg(long, value_name = "'NAME: ignore'")]
    pub sigterm: Vec<String>,

    /// How long each image pull of a container takes, 'NAME: DURATION' (repeatable; on a
    /// scenario file, replaces its `pull`).
    #[arg(long, value_name = "'NAME: D'")]
    pub pull: Vec<String>,

    /// Leave out the findings with this id (repeatable, or ids separated by commas), as the
    /// annotation probesim.io/ignore does in a manifest.
    #[arg(long, value_name = "ID")]
    pub ignore: Vec<String>,

    /// A requirement on a figure, 'CONTAINER.FIGURE.min|max OP DURATION', e.g.
    /// 'web.startupBudget.min>=90s' or 'web.hangDetection.kill.max<=45s' (repeatable); exit 1
    /// when one does not hold.
    #[arg(long, value_name = "EXPR")]
    pub require: Vec<String>,

    /// Exit 1 when a finding of this severity or worse is reported: warning or error.
    #[arg(long, value_name = "SEVERITY")]
    pub fail_on: Option<String>,

    /// How long the app takes to start (it fails its probes until then); reported when the
    /// probes do not guarantee that much (startup-budget-below-expected).
    #[arg(long, value_name = "DURATION")]
    pub expect_startup: Option<String>,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,
    /// What if: sets a field of the pod before it is validated, as if the file said so, e.g.
    /// livenessProbe.failureThreshold=1 (repeatable; see `probesim run --help`).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RecommendArgs {
    /// A scenario file, or a Kubernetes manifest with workloads, or `-` for standard input.
    #[arg(value_name = "FILE")]
    pub file: String,

    /// The container whose probes to tune (default: the only container).
    #[arg(long, value_name = "NAME")]
    pub container: Option<String>,

    /// Manifest only: the workload, as KIND/NAME, NAMESPACE/KIND/NAME or NAME.
    #[arg(long, value_name = "KIND/NAME")]
    pub select: Option<String>,

    /// Kubernetes version whose semantics to use (1.19 … 1.37).
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,

    /// The app may take up to this long to start: startupBudget.min must reach it.
    #[arg(long, value_name = "DURATION")]
    pub startup_up_to: Option<String>,

    /// A hang must be detected (the container killed) within this: hangDetection.kill.max.
    #[arg(long, value_name = "DURATION")]
    pub detect_hang_within: Option<String>,

    /// A failing app must turn the pod not Ready within this: readiness.toNotReady.max, also
    /// when only the readiness endpoint fails.
    #[arg(long, value_name = "DURATION")]
    pub not_ready_within: Option<String>,

    /// Through any failure shorter than this (every probe refused), at any phase, the
    /// container is not killed and the pod stays Ready.
    #[arg(long, value_name = "DURATION")]
    pub tolerate_blip: Option<String>,

    /// Through any stall shorter than this (every probe timing out), at any phase, the
    /// container is not killed.
    #[arg(long, value_name = "DURATION")]
    pub tolerate_stall: Option<String>,

    /// Output format: text (YAML ready to paste, with figures) or json.
    #[arg(long, short = 'f', value_name = "F", default_value = "text")]
    pub format: String,

    /// How many candidates to print.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub candidates: usize,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,
    /// What if: sets a field of the pod before it is validated, as if the file said so, e.g.
    /// livenessProbe.failureThreshold=1 (repeatable; see `probesim run --help`).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
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

    /// Timing of the runtime's steps, overriding the scenario's `timing`: realistic (latencies,
    /// pulls and the kubelet's jitter as on a real node; the default) or exact (zero-latency canonical
    /// timing).
    #[arg(long, value_name = "T", value_parser = ["realistic", "exact"])]
    pub timing: Option<String>,
    /// Delay of the pod's first container start after its sync, as for `run`.
    #[arg(long, value_name = "DURATION", allow_hyphen_values = true)]
    pub phase: Option<String>,

    /// Draw the kubelet's jitters from the seed, as for `run`.
    #[arg(long)]
    pub jitter: bool,

    /// The runtime's latencies, as for `run`.
    #[command(flatten)]
    pub runtime: RuntimeArgs,

    /// The manifest options, as for `run`.
    #[command(flatten)]
    pub manifest: ManifestArgs,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,
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
            timing: self.timing.clone(),
            phase: self.phase.clone(),
            jitter: self.jitter,
            runtime: self.runtime.clone(),
            spread: None,
            verbose: false,
            at: None,
            only: None,
            container: None,
            manifest: self.manifest.clone(),
            emit_scenario: false,
            no_fast_forward: false,
            allow_outside_tree: self.allow_outside_tree,
        }
    }
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The scenario file or manifest to open (default: the bundled kubia-unhealthy scenario).
    #[arg(value_name = "FILE")]
    pub scenario: Option<String>,

    /// The port to listen on, on 127.0.0.1 only (0: any free port, printed at the start).
    #[arg(long, value_name = "PORT", default_value_t = 8026)]
    pub port: u16,

    /// Stop after answering this many requests (for tests).
    #[arg(long, value_name = "N", hide = true)]
    pub max_requests: Option<u64>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first run's scenario file or manifest (A).
    #[arg(value_name = "A")]
    pub a: String,

    /// The second run's file (B); without it, B is A with the edits (`--set`, `--app`, …).
    #[arg(value_name = "B")]
    pub b: Option<String>,

    /// Output format: text (the two timelines merged by time, the kubectl rows of both and the
    /// analysis figures that differ), svg (both pictures, one above the other) or html (a page
    /// with both pictures and the merged timeline).
    #[arg(long, short = 'f', value_name = "F", default_value = "text")]
    pub format: String,

    /// Virtual time to simulate both runs, overriding the files' `duration`.
    #[arg(long = "for", value_name = "DURATION", allow_hyphen_values = true)]
    pub for_: Option<String>,

    /// Seed of both runs' random generators, overriding the files' `seed`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub seed: Option<u64>,

    /// Kubernetes version whose semantics both runs use (1.19 … 1.37).
    #[arg(long, value_name = "VERSION")]
    pub kubernetes: Option<String>,

    /// Timing of the runtime's steps, overriding the files' `timing`: realistic (latencies,
    /// pulls and the kubelet's jitter as on a real node; the default) or exact (zero-latency canonical
    /// timing).
    #[arg(long, value_name = "T", value_parser = ["realistic", "exact"])]
    pub timing: Option<String>,

    /// Text only: leave the analysis figures out (they take a few hundred simulations).
    #[arg(long)]
    pub no_analysis: bool,

    /// The edits of run B (`--set`, `--app`, `--exit`, `--sigterm`, `--pull`), and `--select`
    /// for both.
    #[command(flatten)]
    pub manifest: ManifestArgs,

    /// Let `manifest:` references leave the scenario's tree: by default a reference must
    /// resolve (links followed) under the working directory or the scenario's own directory.
    #[arg(long)]
    pub allow_outside_tree: bool,
}

impl CompareArgs {
    /// The `run` arguments of run A (`b` false) or B (`b` true): B is its own file, or A's
    /// file with the edits.
    pub fn as_run(&self, b: bool) -> RunArgs {
        let manifest = if b {
            self.manifest.clone()
        } else {
            ManifestArgs {
                select: self.manifest.select.clone(),
                app: Vec::new(),
                exit: Vec::new(),
                sigterm: Vec::new(),
                pull: Vec::new(),
                set: Vec::new(),
            }
        };
        let scenario = match (&self.b, b) {
            (Some(other), true) => other.clone(),
            _ => self.a.clone(),
        };
        RunArgs {
            scenario,
            format: "timeline".to_owned(),
            for_: self.for_.clone(),
            seed: self.seed,
            kubernetes: self.kubernetes.clone(),
            timing: self.timing.clone(),
            phase: None,
            jitter: false,
            runtime: RuntimeArgs::default(),
            spread: None,
            verbose: false,
            at: None,
            only: None,
            container: None,
            manifest,
            emit_scenario: false,
            no_fast_forward: false,
            allow_outside_tree: self.allow_outside_tree,
        }
    }
}

/// The runtime's latencies, as the scenario's `runtime:` knobs: each one given replaces the
/// file's and stays fixed under `--spread` (the replay lines of `--spread` and
/// `check --timings` give these).
#[derive(Clone, Debug, Default, Args)]
pub struct RuntimeArgs {
    /// How long the runtime takes to create and start a container, as `runtime.start`.
    #[arg(long, value_name = "DURATION")]
    pub runtime_start: Option<String>,

    /// How long a stop takes to reach the process, as `runtime.kill`.
    #[arg(long, value_name = "DURATION")]
    pub runtime_kill: Option<String>,

    /// The image pulls of every container that sets none, 'FIRST then LATER' or one
    /// duration, as `runtime.pull`.
    #[arg(long, value_name = "'D then D'")]
    pub runtime_pull: Option<String>,

    /// How long a plain init container runs before it exits 0, as `runtime.initRun`.
    #[arg(long, value_name = "DURATION")]
    pub runtime_init_run: Option<String>,
}

/// The options that build a scenario from a manifest, shared by `run` and `explain`.
#[derive(Clone, Debug, Args)]
pub struct ManifestArgs {
    /// Manifest only: the workload to simulate, as KIND/NAME, NAMESPACE/KIND/NAME or NAME
    /// (needed when several workloads have probes).
    #[arg(long, value_name = "KIND/NAME")]
    pub select: Option<String>,

    /// How a container answers its probes, 'NAME: KEY=SCRIPT; …' where KEY is liveness,
    /// readiness, startup or an endpoint like `http :8080/healthz` (repeatable; NAME may be left
    /// out when the pod has one container). On a scenario file, replaces the scripts of the
    /// same keys in its `apps`.
    #[arg(long, value_name = "'NAME: KEY=SCRIPT'")]
    pub app: Vec<String>,

    /// A container's process exits by itself, 'NAME: CODE after DURATION' (repeatable; on a
    /// scenario file, replaces its `exit`).
    #[arg(long, value_name = "'NAME: CODE after D'")]
    pub exit: Vec<String>,

    /// What a container's process does on SIGTERM, 'NAME: ignore' or 'NAME: exit [CODE] after
    /// DURATION' (repeatable; on a scenario file, replaces its `sigterm`).
    #[arg(long, value_name = "'NAME: ignore'")]
    pub sigterm: Vec<String>,

    /// How long each image pull of a container takes, 'NAME: DURATION' (repeatable; on a
    /// scenario file, replaces its `pull`).
    #[arg(long, value_name = "'NAME: D'")]
    pub pull: Vec<String>,

    /// What if: sets a field of the pod before it is validated, as if the file said so, e.g.
    /// livenessProbe.failureThreshold=1 (the only container), web.livenessProbe.periodSeconds=5
    /// (a container by name), spec.terminationGracePeriodSeconds=5 (the pod); the value is
    /// YAML, and null removes the field (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
}
