//! probesim-kube: Kubernetes objects in, validated pod specs out.
//!
//! In: the text of Kubernetes manifests (YAML or JSON, one object, a multi-document stream or a
//! `List`) with a display path for messages. Out: a positioned tree ([`yaml::Node`], every value
//! with its line and column, within fixed limits on size and depth), the typed objects
//! ([`manifest::PodManifest`], a workload's pod template found through [`workload`], a file's
//! objects in a [`catalog`]), and a pod that went through the API server's defaults, a release's
//! field drops and the API server's validation with its own wording
//! ([`validate::ValidatedPod`], holding a [`probesim_core::PodSpec`]). Every problem comes out as
//! a [`error::Diagnostic`] with its [`field_path::FieldPath`] and position, all of them together.
//!
//! The crate never does I/O (it reads no file, no clock, no environment): callers pass the text.
//! It knows nothing of scenario files, behaviour scripts or reports.

#![warn(missing_docs)]

pub mod catalog;
pub mod decode;
pub mod error;
pub mod field_path;
pub mod manifest;
pub mod printable;
pub mod validate;
pub mod workload;
pub mod yaml;
