//! A regular container's own `restartPolicy` and its `restartPolicyRules` (KEP-5307, gate
//! `ContainerRestartRules`: alpha and off in 1.34, beta and on from 1.35). Only reached where
//! the release's API server keeps the fields (`apply_release` drops or refuses them
//! elsewhere). What the API server checks (`validateContainerRestartPolicy`,
//! pkg/apis/core/validation/validation.go): the policy is one of the three values; at most 20
//! rules; each rule's `action` is `Restart` and its `exitCodes` is given, with an `operator`
//! `In` or `NotIn` and at most 255 `values`. docs/semantics.md#container-restart-rules says
//! which of these messages were read in the sources and which follow the KEP's text.

use std::collections::BTreeSet;

use crate::field_path::FieldPath;
use crate::manifest::ContainerManifest;

use super::Validator;

const POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
const MAX_RULES: usize = 20;
const MAX_VALUES: usize = 255;

impl Validator {
    /// The checks of a regular container's `restartPolicy` and `restartPolicyRules` at `path`.
    pub(super) fn container_restart_policy(&mut self, c: &ContainerManifest, path: &FieldPath) {
        if let Some(rp) = &c.restart_policy {
            if !POLICIES.contains(&rp.value.as_str()) {
                self.not_supported(&path.child("restartPolicy"), rp, POLICIES);
            }
        }
        let Some(mark) = c.restart_policy_rules else {
            return;
        };
        let rules_path = path.child("restartPolicyRules");
        if c.restart_policy.is_none() && !c.restart_rules.is_empty() {
            self.required(
                &path.child("restartPolicy"),
                mark,
                "must be specified when restartPolicyRules are used",
            );
        }
        if c.restart_rules.len() > MAX_RULES {
            self.push(
                &rules_path,
                mark,
                format!(
                    "Too many: {}: must have at most {MAX_RULES} items",
                    c.restart_rules.len()
                ),
            );
        }
        for (i, rule) in c.restart_rules.iter().enumerate() {
            let p = rules_path.index(i);
            match &rule.action {
                None => self.required(&p.child("action"), rule.mark, ""),
                Some(a) if a.value.is_empty() => self.required(&p.child("action"), a.mark, ""),
                Some(a) if a.value != "Restart" => {
                    self.not_supported(&p.child("action"), a, &["Restart"]);
                }
                Some(_) => {}
            }
            let Some(codes) = &rule.exit_codes else {
                self.required(&p.child("exitCodes"), rule.mark, "must be specified");
                continue;
            };
            let cp = p.child("exitCodes");
            match &codes.operator {
                None => self.required(&cp.child("operator"), codes.mark, ""),
                Some(o) if o.value.is_empty() => self.required(&cp.child("operator"), o.mark, ""),
                Some(o) if o.value != "In" && o.value != "NotIn" => {
                    self.not_supported(&cp.child("operator"), o, &["In", "NotIn"]);
                }
                Some(_) => {}
            }
            if codes.values.len() > MAX_VALUES {
                self.push(
                    &cp.child("values"),
                    codes.values_mark.unwrap_or(codes.mark),
                    format!(
                        "Too many: {}: must have at most {MAX_VALUES} items",
                        codes.values.len()
                    ),
                );
            }
            let mut seen = BTreeSet::new();
            for (j, v) in codes.values.iter().enumerate() {
                if !seen.insert(v.value) {
                    self.push(
                        &cp.child("values").index(j),
                        v.mark,
                        format!("Duplicate value: {}", v.value),
                    );
                }
            }
        }
    }
}
