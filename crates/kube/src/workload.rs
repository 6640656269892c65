//! The kinds of Kubernetes object whose pod probesim simulates, and how to name them.
//!
//! A Pod is simulated as it is; the other kinds are simulated through their pod template, the
//! pod their controller would create: `spec.template` (Deployment, ReplicaSet, StatefulSet,
//! DaemonSet, ReplicationController, Job) or `spec.jobTemplate.spec.template` (CronJob). Field
//! paths in messages are the workload's own (`spec.template.spec.containers[0]…`), as the
//! apiserver prints them.

use core::fmt;

use crate::field_path::FieldPath;

/// A kind of object that has a pod to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum WorkloadKind {
    /// `v1` Pod.
    Pod,
    /// `apps/v1` Deployment.
    Deployment,
    /// `apps/v1` ReplicaSet.
    ReplicaSet,
    /// `apps/v1` StatefulSet.
    StatefulSet,
    /// `apps/v1` DaemonSet.
    DaemonSet,
    /// `v1` ReplicationController.
    ReplicationController,
    /// `batch/v1` Job.
    Job,
    /// `batch/v1` CronJob.
    CronJob,
}

impl WorkloadKind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [WorkloadKind; 8] = [
        WorkloadKind::Pod,
        WorkloadKind::Deployment,
        WorkloadKind::ReplicaSet,
        WorkloadKind::StatefulSet,
        WorkloadKind::DaemonSet,
        WorkloadKind::ReplicationController,
        WorkloadKind::Job,
        WorkloadKind::CronJob,
    ];

    /// The `kind` as written in a manifest.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::ReplicationController => "ReplicationController",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
        }
    }

    /// The `apiVersion` the apiserver serves the kind under.
    #[must_use]
    pub const fn api_version(self) -> &'static str {
        match self {
            WorkloadKind::Pod | WorkloadKind::ReplicationController => "v1",
            WorkloadKind::Deployment
            | WorkloadKind::ReplicaSet
            | WorkloadKind::StatefulSet
            | WorkloadKind::DaemonSet => "apps/v1",
            WorkloadKind::Job | WorkloadKind::CronJob => "batch/v1",
        }
    }

    /// The kind named exactly `kind`.
    #[must_use]
    pub fn from_kind(kind: &str) -> Option<WorkloadKind> {
        WorkloadKind::ALL.into_iter().find(|k| k.name() == kind)
    }

    /// The kind a selector names, the way kubectl accepts it: the kind, its plural or its short
    /// name, in any case, optionally with its API group (`deploy`, `deployments.apps`,
    /// `Deployment`).
    #[must_use]
    pub fn from_selector(word: &str) -> Option<WorkloadKind> {
        let lower = word.to_ascii_lowercase();
        let bare = lower
            .strip_suffix(".apps")
            .or_else(|| lower.strip_suffix(".batch"))
            .unwrap_or(&lower);
        WorkloadKind::ALL.into_iter().find(|k| {
            let name = k.name().to_ascii_lowercase();
            bare == name || bare == format!("{name}s") || Some(bare) == k.short_name()
        })
    }

    /// kubectl's short name.
    const fn short_name(self) -> Option<&'static str> {
        match self {
            WorkloadKind::Pod => Some("po"),
            WorkloadKind::Deployment => Some("deploy"),
            WorkloadKind::ReplicaSet => Some("rs"),
            WorkloadKind::StatefulSet => Some("sts"),
            WorkloadKind::DaemonSet => Some("ds"),
            WorkloadKind::ReplicationController => Some("rc"),
            WorkloadKind::Job => None,
            WorkloadKind::CronJob => Some("cj"),
        }
    }

    /// Where the pod template is: the object itself for a Pod.
    #[must_use]
    pub fn template_path(self) -> FieldPath {
        match self {
            WorkloadKind::Pod => FieldPath::root(),
            WorkloadKind::CronJob => FieldPath::new("spec")
                .child("jobTemplate")
                .child("spec")
                .child("template"),
            _ => FieldPath::new("spec").child("template"),
        }
    }

    /// Where the pod spec is (`spec`, `spec.template.spec`, …).
    #[must_use]
    pub fn pod_spec_path(self) -> FieldPath {
        self.template_path().child("spec")
    }

    /// The restart policies the kind's controller accepts on its pod template, when it narrows
    /// the Pod's (`Always` for controllers that keep pods running, `OnFailure` or `Never` for
    /// Jobs), and the word its `activeDeadlineSeconds` message uses for the controller.
    #[must_use]
    pub const fn template_rules(self) -> Option<(&'static [&'static str], Option<&'static str>)> {
        match self {
            WorkloadKind::Pod => None,
            // A Deployment's template is validated as its ReplicaSet's.
            WorkloadKind::Deployment | WorkloadKind::ReplicaSet => {
                Some((&["Always"], Some("ReplicaSet")))
            }
            WorkloadKind::StatefulSet => Some((&["Always"], Some("StatefulSet"))),
            WorkloadKind::DaemonSet => Some((&["Always"], Some("DaemonSet"))),
            WorkloadKind::ReplicationController => {
                Some((&["Always"], Some("ReplicationController")))
            }
            WorkloadKind::Job | WorkloadKind::CronJob => Some((&["OnFailure", "Never"], None)),
        }
    }

    /// A Job, or a CronJob (whose template is a Job's).
    #[must_use]
    pub const fn is_job(self) -> bool {
        matches!(self, WorkloadKind::Job | WorkloadKind::CronJob)
    }

    /// The kinds as a sentence: `Pod, Deployment, …, Job or CronJob`.
    #[must_use]
    pub fn list() -> String {
        let names: Vec<&str> = WorkloadKind::ALL.iter().map(|k| k.name()).collect();
        match names.split_last() {
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a workload is named: `Deployment/web`, or `prod/Deployment/web` when the manifest gives
/// a namespace.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WorkloadId {
    /// The kind as written (a supported kind, or any other for skipped objects).
    pub kind: String,
    /// `metadata.name` (or `generateName`), "" when missing.
    pub name: String,
    /// `metadata.namespace`, when given.
    pub namespace: Option<String>,
}

impl fmt::Display for WorkloadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}/")?;
        }
        let name = if self.name.is_empty() {
            "(no name)"
        } else {
            &self.name
        };
        write!(f, "{}/{name}", self.kind)
    }
}

/// A `--select` or `select:` value: `[NAMESPACE/]KIND/NAME`, or a bare `NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    namespace: Option<String>,
    kind: Option<WorkloadKind>,
    name: String,
}

impl Selector {
    /// Reads a selector.
    ///
    /// # Errors
    /// An empty part, too many parts, or a kind probesim does not simulate.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let parts: Vec<&str> = text.trim().split('/').collect();
        let (namespace, kind, name) = match parts.as_slice() {
            [name] => (None, None, *name),
            [kind, name] => (None, Some(*kind), *name),
            [ns, kind, name] => (Some(*ns), Some(*kind), *name),
            _ => {
                return Err(format!(
                    "invalid selector {text:?}: expected KIND/NAME, NAMESPACE/KIND/NAME or NAME"
                ))
            }
        };
        if name.is_empty() || kind == Some("") || namespace == Some("") {
            return Err(format!(
                "invalid selector {text:?}: expected KIND/NAME, NAMESPACE/KIND/NAME or NAME"
            ));
        }
        let kind = match kind {
            None => None,
            Some(k) => Some(WorkloadKind::from_selector(k).ok_or_else(|| {
                format!(
                    "invalid selector {text:?}: {k:?} is not a kind probesim simulates ({})",
                    WorkloadKind::list()
                )
            })?),
        };
        Ok(Selector {
            namespace: namespace.map(str::to_owned),
            kind,
            name: name.to_owned(),
        })
    }

    /// The kind it names, if it names one.
    #[must_use]
    pub fn kind(&self) -> Option<WorkloadKind> {
        self.kind
    }

    /// The name it names.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the selector names this workload. A selector without a namespace matches the
    /// workload in any namespace.
    #[must_use]
    pub fn matches(&self, kind: WorkloadKind, id: &WorkloadId) -> bool {
        self.kind.is_none_or(|k| k == kind)
            && self.name == id.name
            && match (&self.namespace, &id.namespace) {
                (None, _) => true,
                (Some(want), Some(have)) => want == have,
                (Some(want), None) => want == "default",
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_have_their_paths_and_api_versions() {
        assert_eq!(
            WorkloadKind::CronJob.pod_spec_path().to_string(),
            "spec.jobTemplate.spec.template.spec"
        );
        assert_eq!(
            WorkloadKind::Deployment.pod_spec_path().to_string(),
            "spec.template.spec"
        );
        assert_eq!(WorkloadKind::Pod.pod_spec_path().to_string(), "spec");
        assert_eq!(WorkloadKind::Job.api_version(), "batch/v1");
        assert_eq!(
            WorkloadKind::list(),
            "Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController, Job or CronJob"
        );
    }

    #[test]
    fn selectors_take_kubectl_spellings() {
        for word in ["deploy", "Deployment", "deployments", "deployment.apps"] {
            assert_eq!(
                WorkloadKind::from_selector(word),
                Some(WorkloadKind::Deployment),
                "{word}"
            );
        }
        assert_eq!(
            WorkloadKind::from_selector("cj"),
            Some(WorkloadKind::CronJob)
        );
        assert_eq!(
            WorkloadKind::from_selector("jobs.batch"),
            Some(WorkloadKind::Job)
        );
        assert_eq!(WorkloadKind::from_selector("service"), None);
        let id = WorkloadId {
            kind: "Deployment".into(),
            name: "web".into(),
            namespace: Some("prod".into()),
        };
        assert_eq!(id.to_string(), "prod/Deployment/web");
        let yes = ["web", "deploy/web", "prod/deployment/web"];
        for s in yes {
            assert!(
                Selector::parse(s)
                    .unwrap()
                    .matches(WorkloadKind::Deployment, &id),
                "{s}"
            );
        }
        for s in ["job/web", "dev/deploy/web", "deploy/api"] {
            assert!(
                !Selector::parse(s)
                    .unwrap()
                    .matches(WorkloadKind::Deployment, &id),
                "{s}"
            );
        }
        assert!(Selector::parse("a/b/c/d").is_err());
        assert!(Selector::parse("deploy/").is_err());
        assert_eq!(
            Selector::parse("svc/web").unwrap_err(),
            "invalid selector \"svc/web\": \"svc\" is not a kind probesim simulates (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController, Job or CronJob)"
        );
    }
}
