//! How each container's process behaves (`apps:`, docs/scenario-format.md#apps): image pull, exit,
//! SIGTERM and preStop reactions, and the behaviour scripts of its probes, with errors that point
//! into the script text.

use core::ops::Range;

use probesim_core::{AppSpec, ProbeKind, SimDuration};
use probesim_script::{parse_exit, parse_sigterm, ParseError, Script};

use probesim_kube::decode::{self, Fields};
use probesim_kube::error::Diagnostic;
use probesim_kube::field_path::FieldPath;
use probesim_kube::manifest::{ContainerManifest, PodManifest};
use probesim_kube::validate::ValidatedPod;
use probesim_kube::yaml::locate::locate;
use probesim_kube::yaml::{Mark, Node, Value};

use super::endpoints::{containers_by_name, ContainerRef};
use super::{Loader, ScriptBinding};

pub(super) const APP_FIELDS: &[&str] = &[
    "pull",
    "image",
    "exit",
    "sigterm",
    "preStop",
    "probes",
    "endpoints",
];

const PULL_TYPE: &str = "a duration like 2s, \"29s then 600ms\" or {first: 29s, then: 600ms}";

pub(super) const PROBE_TYPES: &[&str] = &["liveness", "readiness", "startup"];

pub(super) const SCRIPT_TYPE: &str = "a behaviour script like \"5x200 then 500\"";

/// A script as written, with what is needed to point into it.
pub(super) struct Written<'a, T> {
    pub(super) value: T,
    pub(super) node: &'a Node,
    pub(super) text: &'a str,
}

impl Loader<'_> {
    /// Where the script's error is, and how many characters to underline: inside the scalar,
    /// in every style (plain or quoted over several lines, escapes, literal and folded blocks),
    /// where the source matches the value; else at the scalar's start.
    pub(super) fn script_mark(
        &self,
        node: &Node,
        text: &str,
        span: Range<usize>,
    ) -> (Mark, Option<usize>) {
        let base = node.mark;
        let fallback = (base, None);
        let (Some(style), Some(source)) = (
            node.style(),
            usize::try_from(base.source.0)
                .ok()
                .and_then(|i| self.texts.get(i)),
        ) else {
            return fallback;
        };
        let Some(start) = locate(source, base, style, text, span.start) else {
            return fallback;
        };
        // Underline the offending words where they stand on one line.
        let width = locate(source, base, style, text, span.end)
            .filter(|end| end.line == start.line && end.col > start.col)
            .map(|end| end.col - start.col);
        (start, width)
    }

    pub(super) fn script_error(
        &mut self,
        path: &FieldPath,
        node: &Node,
        text: &str,
        e: &ParseError,
    ) {
        let (mark, width) = self.script_mark(node, text, e.span());
        let mut d = Diagnostic::new(path.clone(), Some(mark), e.message());
        if let Some(w) = width {
            d = d.with_width(w);
        }
        self.d.push(d);
    }

    /// The text of a scalar holding a script (numbers allowed: `200` is a script).
    pub(super) fn script_text<'a>(
        &mut self,
        node: &'a Node,
        path: &FieldPath,
        what: &str,
    ) -> Option<&'a str> {
        match node.value() {
            Value::Str(s) => Some(s),
            Value::Int(_) | Value::Float(_) => node.scalar_text(),
            _ => {
                decode::type_error(&mut self.d, node, path, what);
                None
            }
        }
    }

    pub(super) fn script<'a>(
        &mut self,
        node: &'a Node,
        path: &FieldPath,
    ) -> Option<Written<'a, Script>> {
        let text = self.script_text(node, path, SCRIPT_TYPE)?;
        match probesim_script::parse(text) {
            Ok(script) => Some(Written {
                value: script,
                node,
                text,
            }),
            Err(e) => {
                self.script_error(path, node, text, &e);
                None
            }
        }
    }

    pub(super) fn apps(
        &mut self,
        node: &Node,
        mut pod: Option<(&PodManifest, &mut ValidatedPod)>,
        bindings: &mut Vec<ScriptBinding>,
        init_bindings: &mut Vec<ScriptBinding>,
    ) {
        let path = FieldPath::new("apps");
        let Some(entries) = self.map_entries(node, &path) else {
            return;
        };
        let by_name = pod.as_ref().map(|(m, _)| containers_by_name(m));
        for (key, app_node) in entries {
            let p = path.key(&key.text);
            let container = match (&pod, &by_name) {
                (Some((m, _)), Some(by_name)) => {
                    let found = by_name.get(key.text.as_str()).copied();
                    if found.is_none() {
                        let names = m
                            .spec
                            .containers
                            .iter()
                            .chain(&m.spec.init_containers)
                            .map(ContainerManifest::name_str);
                        let hint = match decode::suggest(&key.text, names) {
                            Some(s) => format!(", did you mean {s:?}?"),
                            None => String::new(),
                        };
                        self.report(
                            &p,
                            Some(key.mark),
                            format!("no container named {:?} in the pod{hint}", key.text),
                        );
                    }
                    found
                }
                _ => None,
            };
            let Some(f) = decode::fields(&mut self.d, app_node, &p, APP_FIELDS, &[]) else {
                continue;
            };
            let app = self.app_spec(&f, &p);
            let pre_stop = f
                .get("preStop")
                .and_then(|n| self.duration(n, &p.child("preStop")).map(|d| (n, d)));
            let probe_scripts = self.probe_scripts(f.get("probes"), &p.child("probes"));
            let endpoints = self.endpoints(f.get("endpoints"), &p.child("endpoints"));
            let (Some(container), Some((m, v))) = (container, pod.as_mut()) else {
                continue;
            };
            let pod_ip = v.pod.pod_ip.clone();
            let engine = match container {
                ContainerRef::Regular(i) => v.init_containers.len() + i,
                ContainerRef::Init(i) => i,
            };
            let (cm, spec, out, index) = match container {
                ContainerRef::Regular(i) => (
                    &m.spec.containers[i],
                    &mut v.pod.containers[i],
                    &mut *bindings,
                    i,
                ),
                ContainerRef::Init(i) => (
                    &m.spec.init_containers[i],
                    &mut v.init_containers[i],
                    &mut *init_bindings,
                    i,
                ),
            };
            self.written.push((
                engine,
                super::timing::AppWritten {
                    pull: f.get("pull").is_some(),
                    image: f.get("image").is_some(),
                },
            ));
            let hook = spec.app.pre_stop;
            spec.app = AppSpec {
                pre_stop: hook,
                ..app
            };
            if let Some((n, d)) = pre_stop {
                if hook.is_some() {
                    spec.app.pre_stop = Some(d);
                } else {
                    self.report(
                        &p.child("preStop"),
                        Some(n.mark),
                        format!(
                            "container {:?} has no lifecycle.preStop hook; add one to the manifest or remove this field",
                            spec.name
                        ),
                    );
                }
            }
            self.bind(&p, index, cm, spec, &pod_ip, probe_scripts, endpoints, out);
        }
    }

    pub(super) fn app_spec(&mut self, f: &Fields<'_>, p: &FieldPath) -> AppSpec {
        let mut app = AppSpec::default();
        if let Some(n) = f.get("pull") {
            if let Some((first, then)) = self.pull(n, &p.child("pull")) {
                app.pull = first;
                app.pull_then = then;
            }
        }
        if let Some(n) = f.get("image") {
            let ip = p.child("image");
            match n.value() {
                Value::Str("present") => app.image_present = true,
                Value::Str("absent") => app.image_present = false,
                _ => decode::type_error(&mut self.d, n, &ip, "\"present\" or \"absent\""),
            }
        }
        if let Some(n) = f.get("exit") {
            let ep = p.child("exit");
            if let Some(text) = self.script_text(n, &ep, "an exit like \"1 after 2s\"") {
                match parse_exit(text) {
                    Ok(e) => app.exit = Some(e),
                    Err(e) => self.script_error(&ep, n, text, &e),
                }
            }
        }
        if let Some(n) = f.get("sigterm") {
            let sp = p.child("sigterm");
            if let Some(text) = self.script_text(
                n,
                &sp,
                "\"ignore\", \"exit after 3s\" or \"exit 0 after 3s\"",
            ) {
                match parse_sigterm(text) {
                    Ok(s) => app.sigterm = s,
                    Err(e) => self.script_error(&sp, n, text, &e),
                }
            }
        }
        app
    }

    /// `pull: 2s` (every pull), `pull: "29s then 600ms"` or `pull: {first: 29s, then: 600ms}`
    /// (the first pull, then each pull of an image the node has).
    pub(super) fn pull(
        &mut self,
        node: &Node,
        path: &FieldPath,
    ) -> Option<(SimDuration, Option<SimDuration>)> {
        match node.value() {
            Value::Map(_) => {
                let f = decode::fields(&mut self.d, node, path, &["first", "then"], &[])?;
                let first = match f.get("first") {
                    Some(n) => self.duration(n, &path.child("first"))?,
                    None => SimDuration::ZERO,
                };
                let then = match f.get("then") {
                    Some(n) => Some(self.duration(n, &path.child("then"))?),
                    None => None,
                };
                Some((first, then))
            }
            Value::Str(s) if s.contains(" then ") => {
                let (a, b) = s.split_once(" then ")?;
                let read = |l: &mut Self, t: &str| match probesim_script::parse_duration(t.trim()) {
                    Ok(d) => Some(d),
                    Err(e) => {
                        l.report(path, Some(node.mark), format!("{e} (expected {PULL_TYPE})"));
                        None
                    }
                };
                let first = read(self, a)?;
                let then = read(self, b)?;
                Some((first, Some(then)))
            }
            Value::Str(_) | Value::Int(_) | Value::Float(_) => {
                self.duration(node, path).map(|d| (d, None))
            }
            _ => {
                decode::type_error(&mut self.d, node, path, PULL_TYPE);
                None
            }
        }
    }

    pub(super) fn probe_scripts<'a>(
        &mut self,
        node: Option<&'a Node>,
        path: &FieldPath,
    ) -> Vec<(ProbeKind, Mark, Written<'a, Script>)> {
        let mut out = Vec::new();
        let Some(node) = node else {
            return out;
        };
        let Some(f) = decode::fields(&mut self.d, node, path, PROBE_TYPES, &[]) else {
            return out;
        };
        for (key, value) in f.entries() {
            let kind = match key.text.as_str() {
                "liveness" => ProbeKind::Liveness,
                "readiness" => ProbeKind::Readiness,
                "startup" => ProbeKind::Startup,
                _ => continue,
            };
            if value.is_null() {
                decode::type_error(&mut self.d, value, &path.key(&key.text), SCRIPT_TYPE);
                continue;
            }
            if let Some(script) = self.script(value, &path.key(&key.text)) {
                out.push((kind, key.mark, script));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::{errors, load, with_pod};

    #[test]
    fn apps_set_pull_exit_and_sigterm() {
        let s = load(&with_pod(
            "apps:\n  kubia:\n    pull: 2s\n    exit: \"1 after 30s\"\n    sigterm: ignore\n",
        ))
        .unwrap();
        let app = s.pod.containers[0].app;
        assert_eq!(app.pull, SimDuration::from_secs(2));
        assert_eq!(
            app.exit,
            Some(probesim_core::SelfExit {
                code: 1,
                after: SimDuration::from_secs(30)
            })
        );
        assert_eq!(app.sigterm, probesim_core::Sigterm::Ignore);
    }

    #[test]
    fn apps_errors_point_into_the_scripts() {
        let text = with_pod(
            "apps:\n  kubi:\n    pull: 1s\n  kubia:\n    exit: \"1 afterr 2s\"\n    sigterm: exit aftr 3s\n    probes:\n      liveness: \"5x200 then refsued\"\n      livenes: ok\n",
        );
        let e = errors(&text);
        assert_eq!(
            e[0],
            "16:3: apps.kubi: no container named \"kubi\" in the pod, did you mean \"kubia\"?"
        );
        assert!(e[1].starts_with("19:14: apps.kubia.exit: "), "{}", e[1]);
        assert!(e[2].starts_with("20:19: apps.kubia.sigterm: "), "{}", e[2]);
        assert_eq!(
            e[3],
            "23:7: apps.kubia.probes: unknown field \"livenes\", did you mean \"liveness\"?"
        );
        assert_eq!(
        e[4],
        "22:29: apps.kubia.probes.liveness: unknown outcome \"refsued\", did you mean \"refused\"?"
    );
        assert_eq!(e.len(), 5, "{e:#?}");
    }

    #[test]
    fn scripts_must_fit_the_probe_handler() {
        let e = errors(&with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: 200 then exit 1\n",
        ));
        assert_eq!(e.len(), 1);
        assert!(
        e[0].starts_with(
            "18:26: apps.kubia.probes.liveness: outcome \"exit 1\" cannot answer an httpGet probe"
        ),
        "{}",
        e[0]
    );
        let e = errors(&with_pod(
            "apps:\n  kubia:\n    endpoints:\n      \"http :8080/\": serving\n",
        ));
        assert!(
            e[0].starts_with("18:22: apps.kubia.endpoints.\"http :8080/\": outcome \"serving\" cannot answer an httpGet probe"),
            "{}",
            e[0]
        );
    }

    #[test]
    fn script_errors_underline_the_offending_words() {
        let caret = |rest: &str| {
            let text = with_pod(rest);
            let rendered = load(&text).unwrap_err().render(&text);
            rendered.lines().nth(4).unwrap_or_default().to_owned()
        };
        // In a quoted script: the word, not the rest of the scalar and its closing quote.
        assert_eq!(
            caret("apps:\n  kubia:\n    probes:\n      liveness: \"5x200 thne 500\"\n"),
            "   |                        ^^^^"
        );
        assert_eq!(
            caret("apps:\n  kubia:\n    probes:\n      liveness: ok for 2d then fail\n"),
            "   |                        ^^"
        );
        // In a literal block: on the line and column where the word is written.
        let text = with_pod(
            "apps:\n  kubia:\n    probes:\n      liveness: |\n        5x200\n        then 500 forever\n",
        );
        let e = load(&text).unwrap_err();
        assert_eq!(e.items[0].mark, Some(Mark::new(20, 18)));
        assert_eq!(e.items[0].width, Some(7));
        // A folded block, a plain scalar over two lines, a double-quoted one with an escape and
        // a line continuation: the word, where it is written.
        for script in [
            ">\n        5x200\n        then 500 forever",
            "5x200\n        then 500 forever",
            "\"5x200 \\x74hen \\\n        500 forever\"",
        ] {
            let text = with_pod(&format!(
                "apps:\n  kubia:\n    probes:\n      liveness: {script}\n"
            ));
            let e = load(&text).unwrap_err();
            let at = text.lines().position(|l| l.contains("forever")).unwrap() + 1;
            let col = text.lines().nth(at - 1).unwrap().find("forever").unwrap() + 1;
            assert_eq!(
                (e.items[0].mark, e.items[0].width),
                (Some(Mark::new(at, col)), Some(7)),
                "{script}"
            );
        }
    }
}
