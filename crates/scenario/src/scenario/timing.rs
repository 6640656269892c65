//! How long the runtime's steps take (`timing:`, `runtime:`, docs/scenario-format.md#timing):
//! `exact` is the canonical zero-latency timing (docs/semantics.md#order), `realistic` gives every knob the
//! file leaves out the default of docs/semantics.md#runtime-durations. The knobs the file sets
//! are kept as written ([`TimingBase`]), so that `--timing` can choose again after loading.

use core::fmt;

use probesim_core::{AppSpec, KubeletConfig, SelfExit, SimDuration};

use probesim_kube::decode;
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{Node, Value};

use super::{Loader, Scenario};

/// The fields of `runtime:`.
pub(super) const RUNTIME_FIELDS: &[&str] = &["start", "kill", "pull", "initRun"];

/// Which timing a scenario runs with (`timing:`, `--timing`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimingMode {
    /// The canonical timing: runtime steps take no time, the kubelet's jitters take their
    /// lower bounds, pulls take only what the file says.
    Exact,
    /// Every knob the file leaves out takes the default measured on real nodes
    /// (docs/semantics.md#runtime-durations): jitter drawn from the seed, create and start
    /// latency, kill latency, image pulls, plain init containers that complete. The default.
    #[default]
    Realistic,
}

impl TimingMode {
    /// Both timings, in the order the docs list them.
    pub const ALL: [TimingMode; 2] = [TimingMode::Realistic, TimingMode::Exact];

    /// The name as written in a scenario and on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TimingMode::Exact => "exact",
            TimingMode::Realistic => "realistic",
        }
    }

    /// The timing of a name, if it is one.
    #[must_use]
    pub fn parse(text: &str) -> Option<TimingMode> {
        TimingMode::ALL.into_iter().find(|t| t.name() == text)
    }
}

impl fmt::Display for TimingMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Realistic default: `CreateContainer` plus `StartContainer` on containerd
/// (docs/semantics.md#runtime-durations).
pub const DEFAULT_START: SimDuration = SimDuration::from_millis(200);
/// Realistic default: from the kubelet's `StopContainer` to the signal reaching the process.
pub const DEFAULT_KILL: SimDuration = SimDuration::from_millis(20);
/// Realistic default: the first pull of an image the node does not have.
pub const DEFAULT_PULL_FIRST: SimDuration = SimDuration::from_millis(1500);
/// Realistic default: a pull of an image the node has (a manifest check with the registry).
pub const DEFAULT_PULL_THEN: SimDuration = SimDuration::from_millis(500);
/// Realistic default: how long a plain init container (no `exit:`) runs before it exits 0.
pub const DEFAULT_INIT_RUN: SimDuration = SimDuration::from_secs(1);

/// The `runtime:` knobs as the file writes them (or `--runtime-start` and friends give them,
/// [`Scenario::set_runtime`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RuntimeKnobs {
    /// `runtime.start`: create and start latency.
    pub start: Option<SimDuration>,
    /// `runtime.kill`: from the stop to the signal's delivery.
    pub kill: Option<SimDuration>,
    /// `runtime.pull`: the image pulls (first, then each pull of an image the node has) of
    /// every container whose `apps` entry says nothing of pulls.
    pub pull: Option<(SimDuration, Option<SimDuration>)>,
    /// `runtime.initRun`: how long a plain init container runs.
    pub init_run: Option<SimDuration>,
}

/// What a container's `apps` entry sets of the knobs a timing gives defaults to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppWritten {
    /// `pull` is given (in the file or with `--pull`).
    pub pull: bool,
    /// `image` is given.
    pub image: bool,
}

/// The knobs a timing gives defaults to, as the file writes them: the timing is applied to
/// these ([`Scenario::apply_timing`]), again whenever it changes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimingBase {
    /// `kubelet:` as written (its `jitter` as written or `false`).
    pub kubelet: KubeletConfig,
    /// `kubelet.jitter` is given.
    pub jitter: bool,
    /// `runtime:`.
    pub runtime: RuntimeKnobs,
    /// Per container, in engine order (init containers first), its app as written.
    pub apps: Vec<AppSpec>,
    /// Per container, in engine order, which knobs its `apps` entry gives.
    pub written: Vec<AppWritten>,
    /// The notes the timing added to [`Scenario::notes`] (taken out again when it changes).
    pub notes: Vec<String>,
}

impl Loader<'_> {
    /// `timing: realistic | exact`.
    pub(super) fn timing(&mut self, node: Option<&Node>) -> Option<TimingMode> {
        let node = node?;
        let path = FieldPath::new("timing");
        let expected = "\"realistic\" or \"exact\"";
        match node.value() {
            Value::Str(s) => match TimingMode::parse(s) {
                Some(t) => Some(t),
                None => {
                    let hint = match decode::suggest(s, TimingMode::ALL.iter().map(|t| t.name())) {
                        Some(h) => format!(", did you mean {h:?}?"),
                        None => String::new(),
                    };
                    self.report(
                        &path,
                        Some(node.mark),
                        format!("unknown timing {s:?}: expected {expected}{hint}"),
                    );
                    None
                }
            },
            _ => {
                decode::type_error(&mut self.d, node, &path, expected);
                None
            }
        }
    }

    /// `runtime: {start: 200ms, kill: 20ms, pull: "1.5s then 500ms", initRun: 1s}`.
    pub(super) fn runtime_knobs(&mut self, node: Option<&Node>) -> RuntimeKnobs {
        let mut k = RuntimeKnobs::default();
        let Some(node) = node else {
            return k;
        };
        let path = FieldPath::new("runtime");
        let Some(f) = decode::fields(&mut self.d, node, &path, RUNTIME_FIELDS, &[]) else {
            return k;
        };
        for (field, slot) in [
            ("start", &mut k.start),
            ("kill", &mut k.kill),
            ("initRun", &mut k.init_run),
        ] {
            if let Some(n) = f.get(field) {
                *slot = self.duration(n, &path.child(field));
            }
        }
        if let Some(n) = f.get("pull") {
            k.pull = self.pull(n, &path.child("pull"));
        }
        k
    }
}

impl Scenario {
    /// This scenario under `timing`: the knobs the file sets keep their values, the others take
    /// that timing's defaults (as `--timing` would give them).
    #[must_use]
    pub fn with_timing(&self, timing: TimingMode) -> Scenario {
        let mut s = self.clone();
        if s.timing != timing {
            s.timing = timing;
            s.apply_timing();
        }
        s
    }

    /// Sets the `runtime:` knobs `knobs` gives, as if the file wrote them (`--runtime-start`,
    /// `--runtime-kill`, `--runtime-pull`, `--runtime-init-run`, and the latencies a
    /// [`crate::timing::Timing`] draws): each one given replaces the file's and is kept under
    /// both timings; the others stay as they are. Changes nothing when `knobs` gives none.
    pub fn set_runtime(&mut self, knobs: &RuntimeKnobs) {
        if *knobs == RuntimeKnobs::default() {
            return;
        }
        let r = &mut self.timing_base.runtime;
        r.start = knobs.start.or(r.start);
        r.kill = knobs.kill.or(r.kill);
        r.pull = knobs.pull.or(r.pull);
        r.init_run = knobs.init_run.or(r.init_run);
        self.apply_timing();
    }

    /// Gives the knobs the file leaves out the defaults of `self.timing`, from
    /// [`Scenario::timing_base`]; the timing's notes replace the previous ones.
    pub(super) fn apply_timing(&mut self) {
        let realistic = self.timing == TimingMode::Realistic;
        let base = &self.timing_base;
        let mut kubelet = base.kubelet;
        let pick = |given: Option<SimDuration>, default: SimDuration| match given {
            Some(d) => d,
            None if realistic => default,
            None => SimDuration::ZERO,
        };
        kubelet.start_latency = pick(base.runtime.start, DEFAULT_START);
        kubelet.kill_latency = pick(base.runtime.kill, DEFAULT_KILL);
        if realistic && !base.jitter {
            kubelet.jitter = true;
        }
        let init_run = pick(base.runtime.init_run, DEFAULT_INIT_RUN);
        let pull = base
            .runtime
            .pull
            .or(realistic.then_some((DEFAULT_PULL_FIRST, Some(DEFAULT_PULL_THEN))));
        let mut notes = Vec::new();
        let file = self.file.clone();
        let inits = self.pod.init_containers.len();
        let mut plain = Vec::new();
        for (c, (app, written)) in base.apps.iter().zip(&base.written).enumerate() {
            let mut app = *app;
            if let (Some((first, then)), false, false) = (pull, written.pull, app.pulls()) {
                app.pull = first;
                app.pull_then = then;
            }
            let spec = if c < inits {
                &mut self.pod.init_containers[c]
            } else {
                &mut self.pod.containers[c - inits]
            };
            let is_plain_init = c < inits && !spec.restartable && app.exit.is_none();
            if is_plain_init && (realistic || base.runtime.init_run.is_some()) {
                app.exit = Some(SelfExit {
                    code: 0,
                    after: init_run,
                });
                plain.push(spec.name.clone());
            }
            spec.app = app;
        }
        if !plain.is_empty() {
            let names = plain
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            let run = probesim_script::format_duration(init_run);
            notes.push(format!(
                "{file}: init container {names} has no `exit:`, so it is taken to complete: exit code 0 after {run} (timing: {}); write `apps.<name>.exit` to say otherwise",
                self.timing
            ));
        }
        if realistic {
            let assumed: Vec<String> = self
                .pod
                .containers
                .iter()
                .enumerate()
                .filter(|(i, c)| {
                    let killable = c.probe(probesim_core::ProbeKind::Liveness).is_some()
                        || c.probe(probesim_core::ProbeKind::Startup).is_some()
                        || self.delete_at.is_some();
                    let given = self.timing_base.apps[inits + i].sigterm
                        != probesim_core::Sigterm::default();
                    killable && !given
                })
                .map(|(_, c)| {
                    let hook = match c.app.pre_stop {
                        None => "no preStop hook".to_owned(),
                        Some(d) => format!(
                            "its preStop hook takes {}",
                            probesim_script::format_duration(d)
                        ),
                    };
                    format!("{:?} ({hook})", c.name)
                })
                .collect();
            if !assumed.is_empty() {
                notes.push(format!(
                    "{file}: no `sigterm:` for {}: each process is taken to die of SIGTERM as soon as it arrives (exit code 143); write `apps.<name>.sigterm` or pass `--sigterm 'NAME: ignore'` (or \"exit after 5s\") to say otherwise",
                    assumed.join(", ")
                ));
            }
        }
        if let Some(name) = self.never_starts() {
            notes.push(format!(
                "{file}: init container {name:?} never exits (no `exit:`), so the pod's containers never start; write `apps.{name}.exit` (\"0 after 5s\") or `timing: realistic`"
            ));
        }
        self.kubelet = kubelet;
        let old = std::mem::replace(&mut self.timing_base.notes, notes.clone());
        self.notes.retain(|n| !old.contains(n));
        self.notes.extend(notes);
    }

    /// The first init container (not a sidecar) that never exits by itself, if any: the pod's
    /// main containers then never start.
    fn never_starts(&self) -> Option<&str> {
        self.pod
            .init_containers
            .iter()
            .find(|c| !c.restartable && c.app.exit.is_none())
            .map(|c| c.name.as_str())
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::Sigterm;

    use super::*;
    use crate::scenario::tests::{errors, load, with_pod, POD};
    use crate::scenario::Overrides;

    const INIT_POD: &str = "duration: 1m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    initContainers:\n    - {name: setup, image: busybox:1.36}\n    containers:\n    - {name: app, image: app:1.0}\n";

    #[test]
    fn realistic_is_the_default_and_exact_changes_nothing() {
        // docs/semantics.md#runtime-durations: realistic unless the file or --timing says
        // otherwise; exact is the canonical timing, every knob at its zero-latency value.
        let s = load(&with_pod("")).unwrap();
        assert_eq!(s.timing, TimingMode::Realistic);
        assert!(s.kubelet.jitter);
        let s = load(&with_pod("timing: exact\n")).unwrap();
        assert_eq!(s.timing, TimingMode::Exact);
        assert_eq!(s.kubelet, KubeletConfig::default());
        assert_eq!(s.pod.containers[0].app, AppSpec::default());
        assert_eq!(
            s.with_timing(TimingMode::Realistic).kubelet.start_latency,
            DEFAULT_START
        );
    }

    #[test]
    fn realistic_gives_every_knob_left_out_its_default() {
        // R65, R66, R67: latencies, pulls and jitter; what the file sets stays.
        let s = load(&with_pod("timing: realistic\n")).unwrap();
        assert!(s.kubelet.jitter);
        assert_eq!(s.kubelet.start_latency, DEFAULT_START);
        assert_eq!(s.kubelet.kill_latency, DEFAULT_KILL);
        let app = s.pod.containers[0].app;
        assert_eq!(
            (app.pull, app.pull_then),
            (DEFAULT_PULL_FIRST, Some(DEFAULT_PULL_THEN))
        );
        let s = load(&with_pod(
            "timing: realistic\nkubelet: {jitter: false}\nruntime: {start: 1ms, kill: 0s}\napps:\n  kubia: {pull: 0s, sigterm: ignore}\n",
        ))
        .unwrap();
        assert!(!s.kubelet.jitter);
        assert_eq!(s.kubelet.start_latency, SimDuration::from_millis(1));
        assert_eq!(s.kubelet.kill_latency, SimDuration::ZERO);
        assert!(!s.pod.containers[0].app.pulls());
        assert_eq!(s.pod.containers[0].app.sigterm, Sigterm::Ignore);
    }

    #[test]
    fn timing_override_chooses_again_from_the_file_as_written() {
        let mut s = load(&with_pod("timing: realistic\nruntime: {start: 1ms}\n")).unwrap();
        s.apply(&Overrides {
            timing: Some(TimingMode::Exact),
            ..Overrides::default()
        })
        .unwrap();
        assert_eq!(s.timing, TimingMode::Exact);
        assert!(!s.kubelet.jitter);
        assert_eq!(s.kubelet.start_latency, SimDuration::from_millis(1));
        assert_eq!(s.kubelet.kill_latency, SimDuration::ZERO);
        assert!(!s.pod.containers[0].app.pulls());
        assert!(
            !s.notes.iter().any(|n| n.contains("sigterm")),
            "{:?}",
            s.notes
        );
        s.apply(&Overrides {
            timing: Some(TimingMode::Realistic),
            ..Overrides::default()
        })
        .unwrap();
        assert!(s.kubelet.jitter);
        assert_eq!(
            s.notes
                .iter()
                .filter(|n| n.contains("no `sigterm:`"))
                .count(),
            1,
            "{:?}",
            s.notes
        );
    }

    #[test]
    fn pull_is_a_duration_two_durations_or_a_mapping_and_image_may_be_present() {
        // R67.
        for pull in ["\"29s then 600ms\"", "{first: 29s, then: 600ms}"] {
            let s = load(&with_pod(&format!(
                "apps:\n  kubia: {{pull: {pull}, image: present}}\n"
            )))
            .unwrap();
            let app = s.pod.containers[0].app;
            assert_eq!(app.pull, SimDuration::from_secs(29), "{pull}");
            assert_eq!(app.pull_then, Some(SimDuration::from_millis(600)));
            assert!(app.image_present);
        }
        let s = load(&with_pod("apps:\n  kubia: {pull: 2s}\n")).unwrap();
        let app = s.pod.containers[0].app;
        assert_eq!((app.pull, app.pull_then), (SimDuration::from_secs(2), None));
    }

    #[test]
    fn runtime_pull_gives_the_pulls_of_every_container_without_its_own() {
        // R67: `runtime.pull` (`--runtime-pull`) under both timings; an `apps` pull wins.
        for timing in ["exact", "realistic"] {
            let s = load(&INIT_POD.replace(
                "duration: 1m\n",
                &format!("duration: 1m\ntiming: {timing}\nruntime: {{pull: \"2s then 300ms\"}}\napps:\n  setup: {{pull: 1s}}\n"),
            ))
            .unwrap();
            let app = s.pod.containers[0].app;
            assert_eq!(
                (app.pull, app.pull_then),
                (
                    SimDuration::from_secs(2),
                    Some(SimDuration::from_millis(300))
                ),
                "{timing}"
            );
            let init = s.pod.init_containers[0].app;
            assert_eq!(
                (init.pull, init.pull_then),
                (SimDuration::from_secs(1), None)
            );
        }
        let mut s = load(&with_pod("timing: realistic\n")).unwrap();
        s.set_runtime(&RuntimeKnobs {
            pull: Some((SimDuration::from_millis(700), None)),
            start: Some(SimDuration::from_millis(90)),
            ..RuntimeKnobs::default()
        });
        let app = s.pod.containers[0].app;
        assert_eq!(
            (app.pull, app.pull_then),
            (SimDuration::from_millis(700), None)
        );
        assert_eq!(s.kubelet.start_latency, SimDuration::from_millis(90));
        assert!(s.kubelet.jitter, "the timing's other defaults stay");
    }

    #[test]
    fn bad_timing_knobs_are_reported_where_they_are() {
        let e = errors(&format!(
            "duration: 1m\ntiming: realstic\nruntime: {{start: soon, stop: 1s}}\n{POD}apps:\n  kubia: {{pull: {{first: 1s, than: 2s}}, image: here}}\n"
        ));
        assert_eq!(
            e[0],
            "2:9: timing: unknown timing \"realstic\": expected \"realistic\" or \"exact\", did you mean \"realistic\"?"
        );
        assert!(
            e[1].starts_with("3:24: runtime: unknown field \"stop\""),
            "{e:#?}"
        );
        assert!(e[2].starts_with("3:18: runtime.start: "), "{e:#?}");
        assert!(
            e.iter()
                .any(|l| l.contains("apps.kubia.pull: unknown field \"than\"")),
            "{e:#?}"
        );
        assert!(
            e.iter()
                .any(|l| l.contains("apps.kubia.image: expected \"present\" or \"absent\"")),
            "{e:#?}"
        );
    }

    #[test]
    fn plain_init_containers_complete_under_realistic_timing_with_a_note() {
        // R65: a plain init container exits 0 after `runtime.initRun` (1 s by default); under
        // exact timing it never exits, and a note says the main containers never start.
        let s = load(&INIT_POD.replace("duration: 1m\n", "duration: 1m\ntiming: exact\n")).unwrap();
        assert_eq!(s.pod.init_containers[0].app.exit, None);
        assert!(
            s.notes
                .iter()
                .any(|n| n.contains("init container \"setup\" never exits")),
            "{:?}",
            s.notes
        );
        let s =
            load(&INIT_POD.replace("duration: 1m\n", "duration: 1m\ntiming: realistic\n")).unwrap();
        assert_eq!(
            s.pod.init_containers[0].app.exit,
            Some(SelfExit {
                code: 0,
                after: DEFAULT_INIT_RUN
            })
        );
        assert!(
            s.notes
                .iter()
                .any(|n| n.contains("init container \"setup\" has no `exit:`")),
            "{:?}",
            s.notes
        );
        assert!(
            !s.notes.iter().any(|n| n.contains("never exits")),
            "{:?}",
            s.notes
        );
    }
}
