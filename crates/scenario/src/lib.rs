//! probesim-scenario: scenario files and manifest runs in, a simulation out.
//!
//! In: the text of a scenario file (YAML or JSON) with a display path, or of a Kubernetes
//! manifest plus the `--app`, `--exit`, `--sigterm`, `--pull` and `--select` arguments. Out: a
//! validated [`Scenario`](scenario::Scenario) (the pod, each container's behaviour, the
//! kubelet's knobs, the semantics profile, the horizon, the expectations), a
//! [`Simulation`](probesim_core::Simulation) built from it, the scenario text for
//! `--emit-scenario`, and the verdict of its expectations ([`run::check`]). Every problem is
//! reported together with its field path, line and column
//! ([`InputError`](probesim_kube::error::InputError): the kube crate's error, which scenario
//! files share with the manifests they hold). The crate never does I/O: it opens no file (the
//! manifests scenarios reference are read by the caller, through
//! [`ManifestReader`](scenario::ManifestReader)) and reads no clock and no environment.
//!
//! The Kubernetes objects themselves (YAML tree, manifests, workloads, catalogs, the API server's
//! defaults and validation) are [`probesim_kube`]'s, which callers import by name; how a run
//! looks (the report formats) is probesim-report's.
//!
//! ```
//! use probesim_scenario::scenario::{Overrides, Scenario};
//!
//! let text = r#"
//! duration: 30m
//! pod:
//!   apiVersion: v1
//!   kind: Pod
//!   metadata: {name: kubia}
//!   spec:
//!     containers:
//!     - name: kubia
//!       image: luksa/kubia
//!       livenessProbe:
//!         httpGet: {path: /, port: 8080}
//!         successThreshold: 2
//! "#;
//! let error = Scenario::load(text, "kubia.yaml", &Overrides::default()).unwrap_err();
//! assert_eq!(
//!     error.to_string(),
//!     "kubia.yaml:13:27: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"
//! );
//! ```

#![warn(missing_docs)]

pub mod argument;
mod emit;
pub mod expect;
// Shared with probesim-report's tests, which use the fixtures these tests leave out.
#[cfg(test)]
#[allow(dead_code)]
mod fixtures;
pub mod limit;
pub mod run;
pub mod scenario;
pub mod set;
pub mod timing;
