//! The scenario loader's frame: the top-level fields of a scenario file, in order, and the
//! readers of durations and instants every part shares. Each concern reads its own fields in a
//! sibling module (`knobs`, `manifest_ref`, `apps`, `endpoints`, `expectations`).

use probesim_core::{Profile, SimDuration, SimTime};
use probesim_script::parse_duration;

use probesim_kube::decode::{self, Diags, Fields};
use probesim_kube::error::{InputError, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::manifest;
use probesim_kube::validate::{self, ValidatedPod};
use probesim_kube::yaml::{self, Mark, Node, Value};

use super::knobs::apply_gates;
use super::{
    default_name, has_content, horizon, unsupported_version, Loader, ManifestReader, Scenario,
    DURATION_TYPE, SCENARIO_FIELDS,
};

impl<'s> Loader<'s> {
    pub(super) fn new(
        texts: Vec<&'s str>,
        sources: Vec<Source>,
        reader: Option<&'s mut dyn ManifestReader>,
    ) -> Loader<'s> {
        Loader {
            texts,
            sources,
            reader,
            kubernetes: None,
            notes: Vec::new(),
            services: Vec::new(),
            edits: super::Edits::default(),
            written: Vec::new(),
            d: Diags::new(),
        }
    }

    pub(super) fn into_error(self, file: &str) -> InputError {
        InputError {
            file: file.to_owned(),
            items: self.d,
            sources: self.sources,
        }
    }

    pub(super) fn report(
        &mut self,
        path: &FieldPath,
        mark: Option<Mark>,
        message: impl Into<String>,
    ) {
        decode::report(&mut self.d, path, mark, message);
    }

    pub(super) fn scenario(&mut self, root: &Node, display_path: &str) -> Option<Scenario> {
        if root.is_null() {
            // A file of comments and blank lines has no position to point at.
            let main = self.texts.first().copied().unwrap_or_default();
            let mark = has_content(main).then_some(root.mark);
            self.report(
                &FieldPath::root(),
                mark,
                "empty scenario: expected a mapping with at least `pod` and `duration`",
            );
            return None;
        }
        let f = decode::fields(&mut self.d, root, &FieldPath::root(), SCENARIO_FIELDS, &[])?;
        let name = self.opt_string(&f, "name", &FieldPath::new("name"));
        if let (Some(""), Some(n)) = (name.as_deref(), f.get("name")) {
            self.report(
                &FieldPath::new("name"),
                Some(n.mark),
                "must not be empty (leave `name` out to use the file name)",
            );
        }
        let description = self.opt_string(&f, "description", &FieldPath::new("description"));
        let mut profile = match f.get("kubernetes") {
            None => Profile::newest(),
            Some(n) => match n.scalar_text() {
                Some(v) => match Profile::parse(v) {
                    Some(p) => p,
                    None => {
                        self.report(
                            &FieldPath::new("kubernetes"),
                            Some(n.mark),
                            unsupported_version(v),
                        );
                        Profile::newest()
                    }
                },
                None => {
                    decode::type_error(
                        &mut self.d,
                        n,
                        &FieldPath::new("kubernetes"),
                        "a version like \"1.37\"",
                    );
                    Profile::newest()
                }
            },
        };
        // An unknown override is reported by `Scenario::apply`.
        if let Some(p) = self.kubernetes.as_deref().and_then(Profile::parse) {
            profile = p;
        }
        let feature_gates = self.feature_gates(f.get("featureGates"));
        apply_gates(&mut profile, &feature_gates, &mut self.d);
        let seed = f.get("seed").and_then(|n| {
            decode::integer(
                &mut self.d,
                n,
                &FieldPath::new("seed"),
                0,
                i128::from(u64::MAX),
                "an integer from 0 to 18446744073709551615",
            )
            .and_then(|s| u64::try_from(s).ok())
        });
        let phase = f.get("phase").and_then(|n| {
            let d = self.duration(n, &FieldPath::new("phase"))?;
            match super::phase(d) {
                Ok(d) => Some(d),
                Err(message) => {
                    self.report(&FieldPath::new("phase"), Some(n.mark), message);
                    None
                }
            }
        });
        let duration = f
            .get("duration")
            .and_then(|n| self.instant(n, &FieldPath::new("duration")));
        let kubelet = self.kubelet(f.get("kubelet"));
        let jitter_given = f.get("kubelet").and_then(|k| k.get("jitter")).is_some();
        let timing = self.timing(f.get("timing")).unwrap_or_default();
        let runtime = self.runtime_knobs(f.get("runtime"));
        let kubelet_restart_at = f
            .get("kubelet")
            .and_then(|k| k.get("restartAt"))
            .and_then(|n| self.instant(n, &FieldPath::new("kubelet").child("restartAt")));
        let delete_at = f.get("deleteAt").and_then(|n| self.deletion(n));

        let pod_node = self.pod_node(&f, display_path).map(|n| self.edit_pod(n));
        let apps_node = self.edit_apps(f.get("apps"), pod_node.as_deref());
        let pod = match pod_node {
            None => None,
            Some(n) => match manifest::read(&n, &FieldPath::root()) {
                Err(ds) => {
                    self.d.extend(ds);
                    None
                }
                Ok(mut m) => {
                    self.apply_release(&mut m, &profile);
                    match validate::validate_for(&mut m, &profile) {
                        Ok(v) => {
                            for w in validate::warnings_for(&m) {
                                self.notes
                                    .push(format!("{display_path}: the API server warns: {w}"));
                            }
                            self.note_readiness_gates(&m, display_path);
                            for (mark, n) in validate::unmatched_port_names(&m) {
                                // The pod may come from a `manifest:` file: name that file.
                                let file = match mark.source.0.checked_sub(1) {
                                    Some(i) => self
                                        .sources
                                        .get(i as usize)
                                        .map_or(display_path, |s| s.name.as_str()),
                                    None => display_path,
                                };
                                self.notes.push(format!("{file}:{}: {n}", mark.line));
                            }
                            Some((m, v))
                        }
                        Err(ds) => {
                            self.d.extend(ds);
                            None
                        }
                    }
                }
            },
        };
        let (manifest, mut validated) = match pod {
            Some((m, v)) => (Some(m), Some(v)),
            None => (None, None),
        };
        let mut bindings = Vec::new();
        let mut init_bindings = Vec::new();
        if let Some(apps) = apps_node.as_deref() {
            self.apps(
                apps,
                manifest.as_ref().zip(validated.as_mut()),
                &mut bindings,
                &mut init_bindings,
            );
        }
        let expect = match f.get("expect") {
            Some(n) => self.expectations(n, validated.as_ref()),
            None => Vec::new(),
        };
        let ValidatedPod {
            mut pod,
            init_containers,
        } = validated?;
        pod.init_containers = init_containers;
        let name = name.unwrap_or_else(|| default_name(display_path, &pod.name));
        let count = pod.container_count();
        let mut written = vec![super::AppWritten::default(); count];
        for (c, w) in self.written.drain(..) {
            if let Some(slot) = written.get_mut(c) {
                *slot = w;
            }
        }
        let timing_base = super::TimingBase {
            kubelet,
            jitter: jitter_given,
            runtime,
            apps: (0..count).map(|c| pod.container(c).app).collect(),
            written,
            notes: Vec::new(),
        };
        let mut scenario = Scenario {
            name,
            description,
            file: display_path.to_owned(),
            profile,
            feature_gates,
            seed: seed.unwrap_or(0),
            phase: phase.unwrap_or(SimDuration::ZERO),
            duration,
            kubelet,
            timing,
            timing_base,
            kubelet_restart_at,
            delete_at,
            pod,
            bindings,
            init_bindings,
            expect,
            notes: std::mem::take(&mut self.notes),
            services: std::mem::take(&mut self.services),
            overridden: self.edits.listing(),
        };
        let fallbacks = scenario.fallback_notes();
        scenario.notes.extend(fallbacks);
        scenario.apply_timing();
        Some(scenario)
    }

    pub(super) fn opt_string(
        &mut self,
        f: &Fields<'_>,
        field: &str,
        path: &FieldPath,
    ) -> Option<String> {
        decode::string(&mut self.d, f.get(field)?, path)
    }

    /// The entries of a user-keyed mapping (null reads as empty).
    pub(super) fn map_entries<'a>(
        &mut self,
        node: &'a Node,
        path: &FieldPath,
    ) -> Option<&'a [(yaml::Key, Node)]> {
        match node.value() {
            Value::Map(entries) => Some(entries),
            Value::Null => Some(&[]),
            _ => {
                decode::type_error(&mut self.d, node, path, "a mapping");
                None
            }
        }
    }

    /// A duration: a Go-style string or a plain number of seconds.
    pub(super) fn duration(&mut self, node: &Node, path: &FieldPath) -> Option<SimDuration> {
        let text = match node.value() {
            Value::Str(s) => s.to_owned(),
            Value::Int(_) => node.scalar_text().unwrap_or_default().to_owned(),
            Value::Float(_) => {
                let text = node.scalar_text().unwrap_or_default();
                // A number with an exponent (`1e3`, JSON's `1.5E2`) is spelt out in decimal
                // digits, which the duration syntax reads as seconds.
                match text.trim().parse::<f64>() {
                    Ok(x) if text.contains(['e', 'E']) && x.is_finite() => format!("{x}"),
                    _ => text.to_owned(),
                }
            }
            _ => {
                decode::type_error(&mut self.d, node, path, DURATION_TYPE);
                return None;
            }
        };
        match parse_duration(text.trim()) {
            Ok(d) => Some(d),
            Err(e) => {
                self.report(path, Some(node.mark), e.to_string());
                None
            }
        }
    }

    /// A duration read as an instant on the timeline.
    pub(super) fn instant(&mut self, node: &Node, path: &FieldPath) -> Option<SimTime> {
        let d = self.duration(node, path)?;
        match horizon(d) {
            Ok(t) => Some(t),
            Err(message) => {
                self.report(path, Some(node.mark), message);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{AppSpec, Gate};

    use super::*;

    use crate::scenario::tests::{errors, load, with_pod, POD};
    use crate::scenario::*;

    #[test]
    fn defaults() {
        let s = load(&with_pod("")).unwrap();
        assert_eq!(s.name, "kubia");
        assert_eq!(s.description, None);
        assert_eq!(s.profile.minor(), probesim_core::profile::NEWEST_MINOR);
        assert_eq!(s.seed, 0);
        assert_eq!(s.duration, Some(SimTime::from_secs(600)));
        // Realistic timing, the default: jitter on, the runtime's latencies.
        assert_eq!(s.timing, TimingMode::Realistic);
        assert_eq!(
            s.kubelet,
            KubeletConfig {
                jitter: true,
                start_latency: timing::DEFAULT_START,
                kill_latency: timing::DEFAULT_KILL,
                ..KubeletConfig::default()
            }
        );
        assert!(s.bindings.is_empty() && s.expect.is_empty());
        assert_eq!(
            s.pod.containers[0].app,
            AppSpec {
                pull: timing::DEFAULT_PULL_FIRST,
                pull_then: Some(timing::DEFAULT_PULL_THEN),
                ..AppSpec::default()
            }
        );
        for stdin in ["-", "<stdin>"] {
            let s = Scenario::from_str(&with_pod(""), stdin).unwrap();
            assert_eq!(s.name, "kubia", "standard input takes the pod's name");
        }
    }

    #[test]
    fn scenario_fields_are_read() {
        let s = load(&format!(
            "name: custom\ndescription: a test\nkubernetes: 1.20\nseed: 18446744073709551615\nduration: 90\ntiming: exact\n\
             featureGates: {{ExecProbeTimeout: false}}\n\
             kubelet: {{startedAgo: 5s, plegPeriod: 500ms, probeSyncDelay: 0.25, resync: 1m, backoffRequeue: 20s, jitter: true, maxContainerRestartPeriod: 30s}}\n{POD}"
        ))
        .unwrap();
        assert_eq!(
            (s.name.as_str(), s.description.as_deref()),
            ("custom", Some("a test"))
        );
        assert_eq!(s.profile.minor(), 20);
        assert!(!s.profile.gate(Gate::ExecProbeTimeout));
        assert_eq!(s.seed, u64::MAX);
        assert_eq!(s.duration, Some(SimTime::from_secs(90)));
        assert_eq!(
            s.kubelet,
            KubeletConfig {
                started_ago: SimDuration::from_secs(5),
                pleg_period: SimDuration::from_millis(500),
                probe_sync_delay: SimDuration::from_millis(250),
                resync: SimDuration::from_secs(60),
                backoff_requeue: SimDuration::from_secs(20),
                jitter: true,
                max_container_restart_period: Some(SimDuration::from_secs(30)),
                ..KubeletConfig::default()
            }
        );
    }

    #[test]
    fn the_start_phase_is_read_and_bounded() {
        // docs/scenario-format.md#phase: a duration, 0 by default, at most 1h.
        assert_eq!(load(&with_pod("")).unwrap().phase, SimDuration::ZERO);
        let s = load(&format!("phase: 3.25s\n{}", with_pod(""))).unwrap();
        assert_eq!(s.phase, SimDuration::from_millis(3250));
        assert_eq!(
            errors(&format!("phase: 61m\n{}", with_pod(""))),
            ["1:8: phase: the start phase must be at most 1h (the offset of the first start on the probe workers' tick grid), found 1h1m"]
        );
        assert_eq!(
            errors(&format!("phase: -1s\n{}", with_pod(""))).len(),
            1,
            "a negative phase is refused"
        );
    }

    #[test]
    fn scenario_level_errors_are_collected_with_positions() {
        let text = format!(
            "durations: 10m\nkubernetes: \"1.18\"\nseed: -1\nkubelet:\n  resynk: 1m\n  plegPeriod: 0s\n  maxContainerRestartPeriod: 10m\n  jitter: yes\nfeatureGates:\n  ExecProbeTimeout: false\n  ReduceDefaultCrashLoopBackOffDecai: true\n{POD}"
        );
        assert_eq!(
            errors(&text),
            [
                "1:1: unknown field \"durations\", did you mean \"duration\"?",
                "2:13: kubernetes: unsupported Kubernetes version \"1.18\": probesim models 1.19 to 1.37",
                "10:3: featureGates.ExecProbeTimeout: feature gate ExecProbeTimeout is locked to true in Kubernetes 1.37",
                "11:3: featureGates.ReduceDefaultCrashLoopBackOffDecai: unknown feature gate \"ReduceDefaultCrashLoopBackOffDecai\", did you mean \"ReduceDefaultCrashLoopBackOffDecay\"?",
                "3:7: seed: expected an integer from 0 to 18446744073709551615, found -1",
                "5:3: kubelet: unknown field \"resynk\", did you mean \"resync\"?",
                "6:15: kubelet.plegPeriod: must be greater than 0",
                "8:11: kubelet.jitter: expected a boolean (true or false), found the string \"yes\"",
                "7:30: kubelet.maxContainerRestartPeriod: must be between 1s and 300s",
            ]
        );
    }

    #[test]
    fn durations_are_go_strings_or_seconds() {
        for (text, ms) in [
            ("90", 90_000),
            ("1.5", 1_500),
            ("1m30s", 90_000),
            ("\"2h\"", 7_200_000),
            ("0", 0),
            ("1e3", 1_000_000),
            ("1.5E2", 150_000),
            ("2e-3", 2),
        ] {
            let s =
                load(&with_pod("").replace("duration: 10m", &format!("duration: {text}"))).unwrap();
            assert_eq!(s.duration, Some(SimTime::from_millis(ms)), "{text}");
        }
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: 10x")),
            ["1:11: duration: invalid duration \"10x\": unknown unit \"x\" (use ms, s, m or h)"]
        );
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: 99999999999999999999h")),
            ["1:11: duration: duration too large: \"99999999999999999999h\""]
        );
        assert_eq!(
            errors(&with_pod("").replace("duration: 10m", "duration: [1]")),
            ["1:11: duration: expected a duration like 10s, 1m30s or a number of seconds, found a sequence"]
        );
    }

    #[test]
    fn json_scenarios_load() {
        let text = r#"{
  "duration": "1m",
  "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kubia"},
          "spec": {"containers": [{"name": "kubia", "image": "luksa/kubia",
                                   "livenessProbe": {"tcpSocket": {"port": 8080}}}]}},
  "apps": {"kubia": {"endpoints": {"tcp :8080": "refused for 20s then open"}}},
  "expect": [{"at": 30, "container": "kubia", "restartCount": {"min": 0, "max": 1}}]
}"#;
        let s = Scenario::from_str(text, "kubia.json").unwrap();
        assert_eq!(s.name, "kubia");
        assert_eq!(s.bindings.len(), 1);
        assert_eq!(s.expect.len(), 1);
        let e = Scenario::from_str(
            &text.replace("\"livenessProbe\"", "\"livenesProbe\""),
            "kubia.json",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e.lines().next().unwrap(),
            "kubia.json:5:36: spec.containers[0]: unknown field \"livenesProbe\", did you mean \"livenessProbe\"?"
        );
    }

    #[test]
    fn hostile_yaml_is_an_error_not_a_hang() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
        }
        let e = Scenario::from_str(&text, "bomb.yaml").unwrap_err();
        assert!(e.to_string().contains("document too large"), "{e}");
        let deep = format!("pod: {}{}", "{a: ".repeat(1000), "}".repeat(1000));
        assert!(Scenario::from_str(&deep, "deep.yaml").is_err());
    }
}
