//! Command-line edits of a scenario file: `--set` on the pod, and `--app`, `--exit`,
//! `--sigterm` and `--pull` over the file's `apps`. Each argument is a source of its own, so a
//! problem points into the flag; the edited tree then goes through the same reading and
//! validation as the file.

use std::borrow::Cow;

use probesim_kube::catalog;
use probesim_kube::error::{Diagnostic, InputError, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{self, Node, NodeKind};

use crate::argument::{self, AppArg};
use crate::set::{self, kind_of};

use super::{Edits, Loader};

impl Edits {
    /// Whether nothing is edited.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.apps.is_empty() && self.sets.is_empty()
    }

    /// The edits as a run's header lists them, in the order they apply: every `--set`, then
    /// the behaviour flags (`--set livenessProbe.failureThreshold=1`, `--app 'web: …'`).
    #[must_use]
    pub fn listing(&self) -> Vec<String> {
        let sets = self
            .sets
            .iter()
            .map(|s| format!("{} {}", set::OPTION, shell_word(s)));
        let apps = self
            .apps
            .iter()
            .map(|a| format!("{} {}", a.flag.option(), shell_word(&a.value)));
        sets.chain(apps).collect()
    }

    /// The texts of the arguments, by source: the behaviour flags first (sources 1, 2, …), then
    /// every `--set`.
    pub(super) fn texts(&self) -> impl Iterator<Item = &str> {
        self.apps
            .iter()
            .map(|a| a.value.as_str())
            .chain(self.sets.iter().map(String::as_str))
    }

    /// The sources of the arguments, in the order of [`Edits::texts`].
    pub(super) fn sources(&self) -> Vec<Source> {
        let mut out: Vec<Source> = self
            .apps
            .iter()
            .map(|a| Source {
                name: a.flag.option().to_owned(),
                text: a.value.clone(),
                argument: true,
            })
            .collect();
        out.extend(set::sources(&self.sets));
        out
    }

    /// The scenario file `text` with the edits written into it: a file that `probesim run`
    /// replays to the edited run without any flag. Without edits it is `text` itself; with
    /// some, the file is written anew from its tree (comments and layout are not kept).
    ///
    /// # Errors
    /// The file cannot be read, or an edit cannot be placed (the pod comes from a `manifest:`
    /// file, a path names no container); problems point into the flags as when loading.
    pub fn write_into(&self, text: &str, display_path: &str) -> Result<String, InputError> {
        if self.is_empty() {
            return Ok(text.to_owned());
        }
        let fail = |items: Vec<Diagnostic>, sources: Vec<Source>| InputError {
            file: display_path.to_owned(),
            items,
            sources,
        };
        let mut root = yaml::parse(text).map_err(|e| {
            fail(
                vec![Diagnostic::new(FieldPath::root(), e.mark, e.message)],
                Vec::new(),
            )
        })?;
        let NodeKind::Map(entries) = &mut root.kind else {
            return Err(fail(
                vec![Diagnostic::new(
                    FieldPath::root(),
                    Some(root.mark),
                    "expected a scenario (a mapping)",
                )],
                Vec::new(),
            ));
        };
        let mut problems = Vec::new();
        let pod = entries.iter().position(|(k, _)| k.text == "pod");
        if !self.sets.is_empty() {
            match pod {
                Some(p) => problems.extend(set::apply(
                    &mut entries[p].1,
                    &self.sets,
                    self.first_set(),
                )),
                None => problems.push(Diagnostic::new(
                    FieldPath::new("manifest"),
                    None,
                    "the pod comes from a `manifest:` file, which --set does not rewrite: embed the manifest under `pod:` to save the edits",
                )),
            }
        }
        if !self.apps.is_empty() {
            let containers = pod
                .map(|p| catalog::container_names(&entries[p].1, kind_of(&entries[p].1)))
                .unwrap_or_default();
            let (read, _, more) = argument::read(&self.apps, 1, &containers);
            problems.extend(more);
            match entries.iter_mut().find(|(k, _)| k.text == "apps") {
                Some((_, apps)) => merge(apps, read.node()),
                None => entries.push((
                    yaml::Key {
                        text: "apps".to_owned(),
                        mark: root.mark,
                    },
                    read.node(),
                )),
            }
        }
        if !problems.is_empty() {
            return Err(fail(problems, self.sources()));
        }
        let mut out = format!(
            "# Written by probesim with these edits: {}\n",
            self.listing().join(" ")
        );
        if let NodeKind::Map(entries) = &root.kind {
            crate::emit::map_entries(&mut out, entries, 0);
        }
        Ok(out)
    }

    /// The source of the first `--set`.
    pub(super) fn first_set(&self) -> u32 {
        u32::try_from(self.apps.len() + 1).unwrap_or(u32::MAX)
    }
}

/// A value as a shell word: bare when it is made of safe characters, else in single quotes.
fn shell_word(value: &str) -> String {
    let safe = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if safe {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', "'\\''"))
    }
}

/// Lays `over` on `base`: mappings merge key by key, anything else replaces.
fn merge(base: &mut Node, over: Node) {
    if base.is_null() {
        *base = over;
        return;
    }
    match (&mut base.kind, over.kind) {
        (NodeKind::Map(entries), NodeKind::Map(more)) => {
            for (key, value) in more {
                match entries.iter_mut().find(|(k, _)| k.text == key.text) {
                    Some((_, slot)) => merge(slot, value),
                    None => entries.push((key, value)),
                }
            }
        }
        (_, kind) => {
            *base = Node {
                kind,
                mark: over.mark,
            }
        }
    }
}

impl Loader<'_> {
    /// The pod's manifest with every `--set` applied.
    pub(super) fn edit_pod<'n>(&mut self, mut pod: Cow<'n, Node>) -> Cow<'n, Node> {
        if self.edits.sets.is_empty() {
            return pod;
        }
        let problems = set::apply(pod.to_mut(), &self.edits.sets, self.edits.first_set());
        self.d.extend(problems);
        pod
    }

    /// The file's `apps` with the behaviour flags laid over them: a flag replaces the file's
    /// value of the same field (`sigterm`, `probes.liveness`, an endpoint), and leaves the
    /// others. `pod` names the containers, for a flag without `NAME:`.
    pub(super) fn edit_apps<'n>(
        &mut self,
        apps: Option<&'n Node>,
        pod: Option<&Node>,
    ) -> Option<Cow<'n, Node>> {
        if self.edits.apps.is_empty() {
            return apps.map(Cow::Borrowed);
        }
        let containers = pod
            .map(|p| catalog::container_names(p, kind_of(p)))
            .unwrap_or_default();
        let args: &[AppArg] = &self.edits.apps;
        let (read, _, problems) = argument::read(args, 1, &containers);
        self.d.extend(problems);
        let mut out = match apps {
            Some(n) => n.clone(),
            None => read.node(),
        };
        if apps.is_some() {
            merge(&mut out, read.node());
        }
        Some(Cow::Owned(out))
    }
}

#[cfg(test)]
mod tests {
    use crate::argument::{AppArg, AppFlag};
    use crate::scenario::tests::with_pod;
    use crate::scenario::{Edits, NoFiles, Overrides, Scenario};

    fn load(text: &str, edits: &Edits) -> Result<Scenario, String> {
        Scenario::load_edited(text, "s.yaml", &mut NoFiles, &Overrides::default(), edits)
            .map_err(|e| e.render(text))
    }

    fn sets(values: &[&str]) -> Edits {
        Edits {
            apps: Vec::new(),
            sets: values.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn a_set_value_is_validated_like_the_file_and_points_at_the_flag() {
        let text = with_pod("");
        let s = load(&text, &sets(&["livenessProbe.failureThreshold=1"])).unwrap();
        let probe = s.pod.containers[0]
            .probe(probesim_core::ProbeKind::Liveness)
            .unwrap();
        assert_eq!(probe.failure_threshold(), 1);
        assert_eq!(
            s.overridden,
            ["--set livenessProbe.failureThreshold=1"],
            "the header lists it"
        );
        // The API server's rule and wording, at the flag.
        let e = load(&text, &sets(&["livenessProbe.successThreshold=2"])).unwrap_err();
        assert_eq!(
            e,
            "error: spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1\n --> --set\n  |\n  | livenessProbe.successThreshold=2\n  |                                ^\n"
        );
        // A misspelt field is found by the manifest reader, at the field in the flag.
        let e = load(&text, &sets(&["livenessProbe.failureThreshhold=1"])).unwrap_err();
        assert!(
            e.starts_with("error: spec.containers[0].livenessProbe: unknown field \"failureThreshhold\", did you mean \"failureThreshold\"?\n --> --set\n"),
            "{e}"
        );
        assert!(
            e.ends_with(
                "  | livenessProbe.failureThreshhold=1\n  |               ^^^^^^^^^^^^^^^^^^^\n"
            ),
            "{e}"
        );
    }

    #[test]
    fn edits_written_into_the_file_replay_to_the_edited_run() {
        let text = with_pod("apps:\n  kubia:\n    sigterm: ignore\n");
        let edits = Edits {
            apps: vec![AppArg {
                flag: AppFlag::Sigterm,
                value: "exit 0 after 1s".to_owned(),
            }],
            sets: vec!["livenessProbe.failureThreshold=1".to_owned()],
        };
        let written = edits.write_into(&text, "s.yaml").unwrap();
        assert!(written.starts_with("# Written by probesim with these edits: --set livenessProbe.failureThreshold=1 --sigterm 'exit 0 after 1s'\n"), "{written}");
        let replayed = load(&written, &Edits::default()).unwrap();
        let edited = load(&text, &edits).unwrap();
        assert_eq!(replayed.pod, edited.pod);
        assert_eq!(replayed.bindings, edited.bindings);
        // No edits: the file itself, comments and all.
        assert_eq!(Edits::default().write_into(&text, "s.yaml").unwrap(), text);
    }

    #[test]
    fn behaviour_flags_replace_the_files_fields_and_keep_the_others() {
        let text = with_pod(
            "apps:\n  kubia:\n    sigterm: ignore\n    pull: 2s\n    probes:\n      liveness: \"5x200 then 500\"\n",
        );
        let edits = Edits {
            apps: vec![
                AppArg {
                    flag: AppFlag::Sigterm,
                    value: "exit 0 after 1s".to_owned(),
                },
                AppArg {
                    flag: AppFlag::App,
                    value: "liveness=ok".to_owned(),
                },
            ],
            sets: Vec::new(),
        };
        let edited = load(&text, &edits).unwrap();
        let plain = load(&text, &Edits::default()).unwrap();
        let (a, b) = (edited.pod.containers[0].app, plain.pod.containers[0].app);
        assert_eq!(a.pull, b.pull, "pull is kept");
        assert_ne!(a.sigterm, b.sigterm, "sigterm is replaced");
        assert_ne!(
            edited.bindings, plain.bindings,
            "the liveness script is replaced"
        );
        assert_eq!(
            edited.overridden,
            ["--sigterm 'exit 0 after 1s'", "--app liveness=ok"]
        );
        // A bad script points into the flag.
        let bad = Edits {
            apps: vec![AppArg {
                flag: AppFlag::App,
                value: "kubia: liveness=ok thne fail".to_owned(),
            }],
            sets: Vec::new(),
        };
        let e = load(&text, &bad).unwrap_err();
        assert!(e.contains(" --> --app\n"), "{e}");
    }
}
