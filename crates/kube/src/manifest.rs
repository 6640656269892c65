//! The manifest of the pod to simulate as written: the fields probesim reads, each with its
//! position, unvalidated.
//!
//! The object is a Pod or a workload whose pod template is simulated (a Deployment, a Job, …;
//! see [`WorkloadKind`]). Reading checks types and field names only, as the apiserver's strict
//! decoding does: a field of the wrong type or an unknown field is an error, while real
//! Kubernetes fields that the simulator does not model (`resources`, `volumeMounts`,
//! `nodeSelector`, a Deployment's `replicas` or `strategy`, …) are accepted and ignored.
//! Defaults and API validation come next, in [`crate::validate`].

mod read;

use probesim_core::ProbeKind;

use crate::workload::WorkloadKind;
use crate::yaml::Mark;

pub use self::read::{read, BETA_CRON_JOB};

/// A value together with where it was written (or, for defaults, where its parent starts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Its position.
    pub mark: Mark,
}

impl<T> At<T> {
    /// A value at a position.
    pub fn new(value: T, mark: Mark) -> At<T> {
        At { value, mark }
    }
}

/// A Kubernetes `IntOrString` (probe ports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntOrString {
    /// A number.
    Int(i64),
    /// A name (or a number written as a string).
    Str(String),
}

/// The manifest of a Pod, or of a workload with a pod template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodManifest {
    /// Where the manifest starts.
    pub mark: Mark,
    /// The object's kind: a Pod, or the workload whose pod template is simulated.
    pub kind: WorkloadKind,
    /// The object's own `metadata` (a workload's, not its template's).
    pub metadata: Metadata,
    /// The pod's labels: the Pod's `metadata.labels`, or the template's (values as written,
    /// unchecked; used to tell which Services select the pod).
    pub labels: Vec<(String, String)>,
    /// The pod's `spec` (the template's `spec` for a workload).
    pub spec: PodSpecManifest,
    /// `status.podIP` (Pods only).
    pub pod_ip: Option<At<String>>,
    /// A CronJob written as `batch/v1beta1` (the only version before 1.21, gone in 1.25): where.
    pub beta_cron_job: Option<Mark>,
}

/// `metadata`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// Where `metadata` starts (the pod's start when absent).
    pub mark: Mark,
    /// `name`.
    pub name: Option<At<String>>,
    /// `generateName`.
    pub generate_name: Option<At<String>>,
    /// `namespace`.
    pub namespace: Option<At<String>>,
    /// `uid`.
    pub uid: Option<At<String>>,
}

/// `spec`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodSpecManifest {
    /// Where `spec` starts (the pod's start when absent).
    pub mark: Mark,
    /// `containers`.
    pub containers: Vec<ContainerManifest>,
    /// `initContainers`.
    pub init_containers: Vec<ContainerManifest>,
    /// `restartPolicy`.
    pub restart_policy: Option<At<String>>,
    /// `terminationGracePeriodSeconds`.
    pub termination_grace_period_seconds: Option<At<i64>>,
    /// `activeDeadlineSeconds` (validated, not simulated).
    pub active_deadline_seconds: Option<At<i64>>,
    /// Where the Job spec around this template (a Job's, or a CronJob's job template) sets
    /// `podFailurePolicy`, which only a `Never` restart policy may go with.
    pub pod_failure_policy: Option<Mark>,
    /// `hostNetwork` (validated: host ports must match container ports).
    pub host_network: bool,
    /// `readinessGates`: where, and how many.
    pub readiness_gates: Option<At<usize>>,
}

/// One entry of `containers` or `initContainers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerManifest {
    /// Where the entry starts.
    pub mark: Mark,
    /// `name`.
    pub name: Option<At<String>>,
    /// `image`.
    pub image: Option<At<String>>,
    /// `imagePullPolicy`.
    pub image_pull_policy: Option<At<String>>,
    /// `ports`.
    pub ports: Vec<PortManifest>,
    /// `env`.
    pub env: Vec<EnvManifest>,
    /// `startupProbe`, `readinessProbe`, `livenessProbe` by [`ProbeKind::index`].
    pub probes: [Option<ProbeManifest>; 3],
    /// `restartPolicy` (init containers: `Always` makes a sidecar).
    pub restart_policy: Option<At<String>>,
    /// Where `restartPolicyRules` is, if set.
    pub restart_policy_rules: Option<Mark>,
    /// The entries of `restartPolicyRules`, in order.
    pub restart_rules: Vec<RestartRuleManifest>,
    /// `lifecycle.preStop`, if set.
    pub pre_stop: Option<PreStopManifest>,
}

/// One entry of a container's `restartPolicyRules` (KEP-5307).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartRuleManifest {
    /// Where the entry starts.
    pub mark: Mark,
    /// `action`.
    pub action: Option<At<String>>,
    /// `exitCodes`: where it starts, its `operator` and its `values`.
    pub exit_codes: Option<ExitCodesManifest>,
}

/// A restart rule's `exitCodes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitCodesManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `operator`.
    pub operator: Option<At<String>>,
    /// Where `values` is, if set.
    pub values_mark: Option<Mark>,
    /// `values`.
    pub values: Vec<At<i64>>,
}

/// A container's `lifecycle.preStop` hook (R24): probesim needs to know that it exists and,
/// for a `sleep` hook, how long it sleeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreStopManifest {
    /// Where the hook starts.
    pub mark: Mark,
    /// `sleep.seconds` of a sleep hook.
    pub sleep_seconds: Option<At<i64>>,
}

impl ContainerManifest {
    /// The probe of a kind.
    #[must_use]
    pub fn probe(&self, kind: ProbeKind) -> Option<&ProbeManifest> {
        self.probes[kind.index()].as_ref()
    }

    /// The container's name, or "" when missing.
    #[must_use]
    pub fn name_str(&self) -> &str {
        self.name.as_ref().map_or("", |n| n.value.as_str())
    }
}

/// One entry of a container's `ports`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortManifest {
    /// Where the entry starts.
    pub mark: Mark,
    /// `name`.
    pub name: Option<At<String>>,
    /// `containerPort`.
    pub container_port: Option<At<i64>>,
    /// `hostPort`.
    pub host_port: Option<At<i64>>,
    /// `protocol`.
    pub protocol: Option<At<String>>,
}

/// One entry of a container's `env`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvManifest {
    /// Where the entry starts.
    pub mark: Mark,
    /// `name`.
    pub name: Option<At<String>>,
    /// `value` (literal values only; `valueFrom` is not modelled and expands to "", P48).
    pub value: Option<At<String>>,
}

/// A probe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeManifest {
    /// Where the probe starts.
    pub mark: Mark,
    /// `exec`.
    pub exec: Option<ExecManifest>,
    /// `httpGet`.
    pub http_get: Option<HttpGetManifest>,
    /// `tcpSocket`.
    pub tcp_socket: Option<TcpSocketManifest>,
    /// `grpc`.
    pub grpc: Option<GrpcManifest>,
    /// `initialDelaySeconds`.
    pub initial_delay_seconds: Option<At<i64>>,
    /// `timeoutSeconds`.
    pub timeout_seconds: Option<At<i64>>,
    /// `periodSeconds`.
    pub period_seconds: Option<At<i64>>,
    /// `successThreshold`.
    pub success_threshold: Option<At<i64>>,
    /// `failureThreshold`.
    pub failure_threshold: Option<At<i64>>,
    /// `terminationGracePeriodSeconds`.
    pub termination_grace_period_seconds: Option<At<i64>>,
}

/// `exec`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `command`.
    pub command: Vec<At<String>>,
}

/// `httpGet`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpGetManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `path`.
    pub path: Option<At<String>>,
    /// `port`.
    pub port: Option<At<IntOrString>>,
    /// `host`.
    pub host: Option<At<String>>,
    /// `scheme`.
    pub scheme: Option<At<String>>,
    /// `httpHeaders`.
    pub http_headers: Vec<HeaderManifest>,
}

/// One entry of `httpHeaders`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `name`.
    pub name: Option<At<String>>,
    /// `value`.
    pub value: Option<At<String>>,
}

/// `tcpSocket`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSocketManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `port`.
    pub port: Option<At<IntOrString>>,
    /// `host`.
    pub host: Option<At<String>>,
}

/// `grpc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrpcManifest {
    /// Where it starts.
    pub mark: Mark,
    /// `port`.
    pub port: Option<At<i64>>,
    /// `service`.
    pub service: Option<At<String>>,
}

#[cfg(test)]
mod tests;
