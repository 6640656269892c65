//! What is analysed: one pod (a scenario's, or a workload's pod template) with its profile and
//! kubelet knobs, and, where known, the manifest as written (for field paths and lines).
//!
//! This module and [`crate::finding`] are the only places that read the scenario crate's
//! types, so that the analysis follows that crate wherever it moves.

use probesim_core::{Answer, KubeletConfig, PodSpec, ProbeKind, Profile, SimDuration};
use probesim_scenario::field_path::FieldPath;
use probesim_scenario::manifest::{self, PodManifest};
use probesim_scenario::scenario::Scenario;
use probesim_scenario::workload::WorkloadKind;
use probesim_scenario::yaml::Node;
use probesim_script::Limit;

/// One pod to analyse.
#[derive(Clone, Debug)]
pub struct Subject {
    /// The workload's name as `probesim run --select` takes it (`Deployment/web`), or the
    /// scenario's name.
    pub name: String,
    /// The file the pod comes from (display path).
    pub file: String,
    /// The workload kind (`Pod` for scenarios).
    pub kind: WorkloadKind,
    /// The validated pod, with each container's app settings (SIGTERM, pulls, pre-stop hooks).
    pub pod: PodSpec,
    /// The semantics profile.
    pub profile: Profile,
    /// The kubelet knobs.
    pub kubelet: KubeletConfig,
    /// The Services of the manifest file that select the pod.
    pub services: Vec<String>,
    /// The manifest as written, when its positions are in `file`.
    pub manifest: Option<PodManifest>,
    /// A startup time the user declared (`--expect-startup`): the app needs this long before it
    /// answers its probes.
    pub expect_startup: Option<SimDuration>,
    /// Start-up times the scenario declares, per container index: a liveness or startup
    /// script that begins by failing for a while (`refused for 90s then ok`), with where it
    /// is written.
    pub declared_startup: Vec<(usize, SimDuration, String)>,
}

impl Subject {
    /// The subject of a loaded scenario. `manifest` is the pod's manifest node as written in
    /// the same file (the scenario's `pod:`, or the workload of a manifest file), when known.
    #[must_use]
    pub fn of(scenario: &Scenario, name: &str, manifest: Option<&Node>) -> Subject {
        let manifest = manifest.and_then(|n| manifest::read(n, &FieldPath::root()).ok());
        Subject {
            name: name.to_owned(),
            file: scenario.file.clone(),
            kind: manifest.as_ref().map_or(WorkloadKind::Pod, |m| m.kind),
            pod: scenario.pod.clone(),
            profile: scenario.profile.clone(),
            kubelet: scenario.kubelet,
            services: scenario.services.iter().map(|s| s.id.to_string()).collect(),
            manifest,
            expect_startup: None,
            declared_startup: declared_startup(scenario),
        }
    }

    /// Where the pod spec is in the manifest (`spec`, `spec.template.spec`, …).
    #[must_use]
    pub fn pod_spec_path(&self) -> String {
        self.kind.pod_spec_path().to_string()
    }

    /// Whether the pod belongs to a Job or a CronJob.
    #[must_use]
    pub fn is_job(&self) -> bool {
        self.kind.is_job()
    }
}

/// The start-up times the scenario's scripts declare: a liveness or startup script whose first
/// step fails for a time (`refused for 90s then ok`, `500 until 1m then 200`).
fn declared_startup(scenario: &Scenario) -> Vec<(usize, SimDuration, String)> {
    let mut out = Vec::new();
    for b in &scenario.bindings {
        if !b
            .probes
            .iter()
            .any(|k| matches!(k, ProbeKind::Liveness | ProbeKind::Startup))
        {
            continue;
        }
        let Some(first) = b.script.steps().first() else {
            continue;
        };
        let failing = match first.answer() {
            Answer::Status(code) => !(200..400).contains(&code),
            Answer::Exit(code) => code != 0,
            Answer::Refused
            | Answer::Timeout
            | Answer::Fail
            | Answer::NotServing
            | Answer::Unknown => true,
            Answer::Ok | Answer::Open | Answer::Serving | Answer::Error => false,
        };
        let limit = match first.limit() {
            Some(Limit::For(d) | Limit::Until(d)) if failing => d,
            _ => continue,
        };
        out.push((b.container, limit, b.origin.clone()));
    }
    out
}
