//! The kubelet's knobs of a scenario (`kubelet:`, docs/scenario-format.md#kubelet): its timing
//! settings, the feature gates (`featureGates:`) and a pod deletion (`delete:`).

use probesim_core::{Gate, GateError, KubeletConfig, Profile, SimDuration, SimTime};

use probesim_kube::decode::{self, Diags};
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{Node, Value};

use super::{GateOverride, Loader};

pub(super) const KUBELET_FIELDS: &[&str] = &[
    "startedAgo",
    "plegPeriod",
    "probeSyncDelay",
    "resync",
    "backoffRequeue",
    "jitter",
    "maxContainerRestartPeriod",
    "restartAt",
];

pub(super) fn apply_gates(profile: &mut Profile, gates: &[GateOverride], d: &mut Diags) {
    for g in gates {
        if let Err(e) = profile.set_gate(&g.name, g.value) {
            let message = match &e {
                GateError::Unknown(name) => {
                    match decode::suggest(name, Gate::ALL.iter().map(|g| g.name())) {
                        Some(s) => format!("unknown feature gate {name:?}, did you mean {s:?}?"),
                        None => format!("unknown feature gate {name:?}"),
                    }
                }
                GateError::NotInRelease { .. } | GateError::Locked { .. } => e.to_string(),
                _ => e.to_string(),
            };
            decode::report(
                d,
                &FieldPath::new("featureGates").key(&g.name),
                Some(g.mark),
                message,
            );
        }
    }
}

impl Loader<'_> {
    /// `deleteAt: 5m` or `deleteAt: {at: 5m, gracePeriod: 10s}`.
    pub(super) fn deletion(&mut self, node: &Node) -> Option<(SimTime, Option<SimDuration>)> {
        let path = FieldPath::new("deleteAt");
        if !matches!(node.value(), Value::Map(_)) {
            return self.instant(node, &path).map(|t| (t, None));
        }
        let f = decode::fields(&mut self.d, node, &path, &["at", "gracePeriod"], &[])?;
        let Some(at_node) = f.get("at") else {
            self.report(
                &path,
                Some(node.mark),
                "missing field \"at\": when the pod is deleted",
            );
            return None;
        };
        let at = self.instant(at_node, &path.child("at"))?;
        let grace = match f.get("gracePeriod") {
            Some(n) => Some(self.duration(n, &path.child("gracePeriod"))?),
            None => None,
        };
        Some((at, grace))
    }

    pub(super) fn feature_gates(&mut self, node: Option<&Node>) -> Vec<GateOverride> {
        let Some(node) = node else {
            return Vec::new();
        };
        let path = FieldPath::new("featureGates");
        let Some(entries) = self.map_entries(node, &path) else {
            return Vec::new();
        };
        let mut gates = Vec::new();
        for (key, value) in entries {
            if let Some(b) = decode::boolean(&mut self.d, value, &path.key(&key.text)) {
                gates.push(GateOverride {
                    name: key.text.clone(),
                    value: b,
                    mark: key.mark,
                });
            }
        }
        gates
    }

    pub(super) fn kubelet(&mut self, node: Option<&Node>) -> KubeletConfig {
        let mut k = KubeletConfig::default();
        let Some(node) = node else {
            return k;
        };
        let path = FieldPath::new("kubelet");
        let Some(f) = decode::fields(&mut self.d, node, &path, KUBELET_FIELDS, &[]) else {
            return k;
        };
        let read =
            |l: &mut Loader<'_>, field: &str, slot: &mut SimDuration, must_be_positive: bool| {
                if let Some(n) = f.get(field) {
                    let p = path.child(field);
                    if let Some(d) = l.duration(n, &p) {
                        if must_be_positive && d.is_zero() {
                            l.report(&p, Some(n.mark), "must be greater than 0");
                        } else {
                            *slot = d;
                        }
                    }
                }
            };
        read(self, "startedAgo", &mut k.started_ago, false);
        read(self, "plegPeriod", &mut k.pleg_period, true);
        read(self, "probeSyncDelay", &mut k.probe_sync_delay, false);
        read(self, "resync", &mut k.resync, true);
        read(self, "backoffRequeue", &mut k.backoff_requeue, true);
        if let Some(n) = f.get("jitter") {
            if let Some(b) = decode::boolean(&mut self.d, n, &path.child("jitter")) {
                k.jitter = b;
            }
        }
        if let Some(n) = f.get("maxContainerRestartPeriod") {
            let p = path.child("maxContainerRestartPeriod");
            if let Some(d) = self.duration(n, &p) {
                if (SimDuration::from_secs(1)..=SimDuration::from_secs(300)).contains(&d) {
                    k.max_container_restart_period = Some(d);
                } else {
                    self.report(&p, Some(n.mark), "must be between 1s and 300s");
                }
            }
        }
        k
    }
}
