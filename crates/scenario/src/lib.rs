//! probesim-scenario: scenario files and Kubernetes manifests in, reports out.
//!
//! A scenario (YAML or JSON) holds a real Kubernetes manifest (a Pod, or a workload such as a
//! Deployment or a Job whose pod template is simulated), how each container's process behaves
//! (behaviour scripts, exit and SIGTERM reactions, image pulls), the kubelet's timing knobs, the
//! semantics profile and the expectations `probesim check` verifies. This crate reads such a
//! file into a validated [`Scenario`](scenario::Scenario): the manifest gets the apiserver's
//! defaults and validation with the apiserver's own messages, every other field is checked, and
//! every problem is reported together with its field path, line and column
//! ([`ScenarioError`](error::ScenarioError)). It also reads manifest files with many objects
//! ([`catalog`]), builds scenarios from a manifest and command-line arguments alone
//! ([`Scenario::from_manifest`](scenario::Scenario::from_manifest)), checks expectations and
//! renders the timeline as text or JSON.
//!
//! The crate is pure: it never opens files, reads no clock and no environment. Callers pass the
//! text together with a display path used in messages (and read the manifest files scenarios
//! reference, through [`ManifestReader`](scenario::ManifestReader)); report sinks write to any
//! `io::Write`.
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
pub mod run;
pub mod scenario;

// The Kubernetes input layer, at the paths it had before it became its own crate.
use probesim_kube::decode;
pub use probesim_kube::{catalog, error, field_path, manifest, validate, workload, yaml};
