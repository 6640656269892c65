//! How the containers behave, given on the command line instead of a scenario's `apps`:
//! `--app`, `--exit`, `--sigterm` and `--pull` (`probesim run MANIFEST --app '…'`).
//!
//! ```text
//! --app     'web: liveness=refused for 90s then ok; http :8080/ready=5x200 then 503'
//! --exit    'web: 1 after 2s'
//! --sigterm 'web: ignore'
//! --pull    'web: 3s'
//! ```
//!
//! Each value starts with the container's name and a colon (it may be left out when the pod
//! has one container). An `--app` value holds `KEY=SCRIPT` pairs separated by `;`, where KEY is
//! a probe type (`liveness`, `readiness`, `startup`) or an endpoint (`http :8080/healthz`, as
//! in a scenario's `endpoints`); a script never holds `=` or `;`, so a pair's key is
//! everything before its last `=`, and a `;` inside an endpoint's command is kept. Flags may be
//! repeated; all of them together become the scenario's `apps`, each value a source of its own
//! so that errors point into it.

use crate::emit;
use probesim_kube::error::{Diagnostic, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::yaml::{Key, Mark, Node, NodeKind, SourceId, Style};

/// Which option a value was given with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppFlag {
    /// `--app NAME: KEY=SCRIPT; …`: scripts for probes and endpoints.
    App,
    /// `--exit NAME: CODE after D`.
    Exit,
    /// `--sigterm NAME: ignore | exit [N] after D`.
    Sigterm,
    /// `--pull NAME: D`.
    Pull,
}

impl AppFlag {
    /// The option as typed.
    #[must_use]
    pub const fn option(self) -> &'static str {
        match self {
            AppFlag::App => "--app",
            AppFlag::Exit => "--exit",
            AppFlag::Sigterm => "--sigterm",
            AppFlag::Pull => "--pull",
        }
    }

    /// The `apps.<name>` field it sets.
    const fn field(self) -> &'static str {
        match self {
            AppFlag::App => "probes",
            AppFlag::Exit => "exit",
            AppFlag::Sigterm => "sigterm",
            AppFlag::Pull => "pull",
        }
    }
}

/// One command-line value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppArg {
    /// The option.
    pub flag: AppFlag,
    /// The value as given.
    pub value: String,
}

/// A piece of an argument with its position.
#[derive(Clone, Debug)]
struct Piece {
    text: String,
    mark: Mark,
}

/// One container's behaviour, gathered from every argument that names it.
#[derive(Clone, Debug)]
struct App {
    name: Piece,
    pull: Option<Piece>,
    exit: Option<Piece>,
    sigterm: Option<Piece>,
    probes: Vec<(Piece, Piece)>,
    endpoints: Vec<(Piece, Piece)>,
}

/// The `apps` built from the command line.
#[derive(Clone, Debug, Default)]
pub struct ArgApps {
    apps: Vec<App>,
}

const PROBE_TYPES: [&str; 3] = ["liveness", "readiness", "startup"];

/// The position of byte `offset` of `text`, as a column of line 1 of `source`.
fn mark_at(text: &str, offset: usize, source: SourceId) -> Mark {
    let col = text.get(..offset).map_or(0, |t| t.chars().count()) + 1;
    Mark::new(1, col).in_source(source)
}

/// `text[range]` trimmed, with the mark of its first character.
fn piece(text: &str, start: usize, end: usize, source: SourceId) -> Piece {
    let raw = &text[start..end];
    let lead = raw.len() - raw.trim_start().len();
    Piece {
        text: raw.trim().to_owned(),
        mark: mark_at(text, start + lead, source),
    }
}

/// Splits `NAME:` off a value: the name and where the rest starts, if the value starts with a
/// container name followed by a colon (no space between them: `tcp :8080` is not a name).
fn split_name(value: &str) -> Option<(usize, usize, usize)> {
    let start = value.len() - value.trim_start().len();
    let colon = value.find(':')?;
    let name = &value[start..colon];
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    is_name.then_some((start, colon, colon + 1))
}

/// Reads the arguments into `apps`, each value being source `first_source + i`. The pod's
/// regular containers (`containers`) name the container of a value without `NAME:`, when there
/// is only one.
///
/// Returns the apps, the sources to name the arguments in errors, and the problems found.
#[must_use]
pub fn read(
    args: &[AppArg],
    first_source: u32,
    containers: &[String],
) -> (ArgApps, Vec<Source>, Vec<Diagnostic>) {
    let mut out = ArgApps::default();
    let mut sources = Vec::new();
    let mut d = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let id = SourceId(first_source + u32::try_from(i).unwrap_or(u32::MAX - first_source));
        sources.push(Source {
            name: arg.flag.option().to_owned(),
            text: arg.value.clone(),
            argument: true,
        });
        let v = arg.value.as_str();
        let path = FieldPath::new(arg.flag.option());
        let (name, rest_start) = match split_name(v) {
            Some((start, end, rest)) => (piece(v, start, end, id), rest),
            None => match containers {
                [only] => (
                    Piece {
                        text: only.clone(),
                        mark: mark_at(v, 0, id),
                    },
                    0,
                ),
                _ => {
                    let example = containers.first().map_or("web", String::as_str);
                    let listed = if containers.is_empty() {
                        "the pod has no containers".to_owned()
                    } else {
                        format!(
                            "the pod has {} containers ({})",
                            containers.len(),
                            containers.join(", ")
                        )
                    };
                    d.push(Diagnostic::new(
                        path,
                        Some(mark_at(v, 0, id)),
                        format!(
                            "start with the container's name, as in \"{example}: …\": {listed}"
                        ),
                    ));
                    continue;
                }
            },
        };
        let app = match out.apps.iter().position(|a| a.name.text == name.text) {
            Some(i) => &mut out.apps[i],
            None => {
                out.apps.push(App {
                    name: name.clone(),
                    pull: None,
                    exit: None,
                    sigterm: None,
                    probes: Vec::new(),
                    endpoints: Vec::new(),
                });
                let last = out.apps.len() - 1;
                &mut out.apps[last]
            }
        };
        let rest = piece(v, rest_start, v.len(), id);
        let single = match arg.flag {
            AppFlag::App => {
                read_pairs(v, rest_start, id, app, &path, &mut d);
                continue;
            }
            AppFlag::Exit => &mut app.exit,
            AppFlag::Sigterm => &mut app.sigterm,
            AppFlag::Pull => &mut app.pull,
        };
        if rest.text.is_empty() {
            d.push(Diagnostic::new(
                path,
                Some(rest.mark),
                format!("missing value after \"{}:\"", name.text),
            ));
        } else if single.is_some() {
            d.push(Diagnostic::new(
                path,
                Some(rest.mark),
                format!(
                    "{} is given twice for container {:?}",
                    arg.flag.option(),
                    name.text
                ),
            ));
        } else {
            *single = Some(rest);
        }
    }
    (out, sources, d)
}

/// The `KEY=SCRIPT` pairs of an `--app` value, from byte `start`.
fn read_pairs(
    v: &str,
    start: usize,
    id: SourceId,
    app: &mut App,
    path: &FieldPath,
    d: &mut Vec<Diagnostic>,
) {
    let mut pair_start = start;
    let mut offset = start;
    let mut any = false;
    let segments: Vec<&str> = v[start..].split(';').collect();
    let count = segments.len();
    for (i, segment) in segments.into_iter().enumerate() {
        let end = offset + segment.len();
        let pair = &v[pair_start..end];
        let last = i + 1 == count;
        if (!pair.contains('=') || in_text(pair)) && !last {
            // A `;` inside an endpoint's command or a script's text: the pair goes on.
            offset = end + 1;
            continue;
        }
        if !pair.trim().is_empty() {
            any = true;
            match script_eq(pair) {
                None => d.push(Diagnostic::new(
                    path.clone(),
                    Some(piece(v, pair_start, end, id).mark),
                    "expected KEY=SCRIPT, where KEY is liveness, readiness, startup or an endpoint like \"http :8080/healthz\"",
                )),
                Some(eq) => {
                    let key = piece(v, pair_start, pair_start + eq, id);
                    let script = piece(v, pair_start + eq + 1, end, id);
                    add_pair(app, key, script, path, d);
                }
            }
        }
        pair_start = end + 1;
        offset = end + 1;
    }
    if !any {
        d.push(Diagnostic::new(
            path.clone(),
            Some(mark_at(v, start, id)),
            "expected KEY=SCRIPT pairs, like \"liveness=5x200 then 500\"",
        ));
    }
}

/// Where the `=` before the script is: the last one before the script's first text in quotes
/// (P63), so a text may hold `=` (`liveness=exit 1 "a=b"`).
fn script_eq(pair: &str) -> Option<usize> {
    let first_eq = pair.find('=')?;
    let text = pair[first_eq..]
        .find('"')
        .map_or(pair.len(), |q| first_eq + q);
    pair[..text].rfind('=')
}

/// Does `pair` end inside a script's text in quotes (an odd number of unescaped `"` after the
/// first `=`)?
fn in_text(pair: &str) -> bool {
    let Some(first_eq) = pair.find('=') else {
        return false;
    };
    let (mut open, mut escaped) = (false, false);
    for c in pair[first_eq..].chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if open => escaped = true,
            '"' => open = !open,
            _ => {}
        }
    }
    open
}

fn add_pair(app: &mut App, key: Piece, script: Piece, path: &FieldPath, d: &mut Vec<Diagnostic>) {
    if key.text.is_empty() {
        d.push(Diagnostic::new(
            path.clone(),
            Some(key.mark),
            "missing key before \"=\": liveness, readiness, startup or an endpoint",
        ));
        return;
    }
    if script.text.is_empty() {
        d.push(Diagnostic::new(
            path.clone(),
            Some(script.mark),
            format!("missing script after \"{}=\"", key.text),
        ));
        return;
    }
    // A word without a space is no endpoint (those read "http :8080/…", "exec cat …"): one
    // close to a probe type is a typo of it.
    if !PROBE_TYPES.contains(&key.text.as_str()) && !key.text.contains(' ') {
        if let Some(probe) = probesim_kube::decode::suggest(&key.text, PROBE_TYPES) {
            d.push(
                Diagnostic::new(
                    path.clone(),
                    Some(key.mark),
                    format!("unknown probe type {:?}, did you mean {probe:?}?", key.text),
                )
                .with_width(key.text.chars().count()),
            );
            return;
        }
    }
    let list = if PROBE_TYPES.contains(&key.text.as_str()) {
        &mut app.probes
    } else {
        &mut app.endpoints
    };
    if list.iter().any(|(k, _)| k.text == key.text) {
        d.push(Diagnostic::new(
            path.clone(),
            Some(key.mark),
            format!(
                "{:?} is given twice for container {:?}",
                key.text, app.name.text
            ),
        ));
        return;
    }
    list.push((key, script));
}

fn scalar(p: &Piece) -> Node {
    Node {
        kind: NodeKind::Scalar {
            text: p.text.clone(),
            style: Style::Plain,
        },
        mark: p.mark,
    }
}

fn key(text: &str, mark: Mark) -> Key {
    Key {
        text: text.to_owned(),
        mark,
    }
}

impl ArgApps {
    /// Whether no argument was given.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.apps.is_empty()
    }

    /// The scenario's `apps`, with every position in the arguments.
    #[must_use]
    pub fn node(&self) -> Node {
        let entries = self
            .apps
            .iter()
            .map(|app| {
                let mut fields = Vec::new();
                for (flag, value) in [
                    (AppFlag::Pull, &app.pull),
                    (AppFlag::Exit, &app.exit),
                    (AppFlag::Sigterm, &app.sigterm),
                ] {
                    if let Some(v) = value {
                        fields.push((key(flag.field(), v.mark), scalar(v)));
                    }
                }
                for (field, pairs) in [("probes", &app.probes), ("endpoints", &app.endpoints)] {
                    if let Some((first, _)) = pairs.first() {
                        let map = pairs
                            .iter()
                            .map(|(k, s)| (key(&k.text, k.mark), scalar(s)))
                            .collect();
                        fields.push((
                            key(field, first.mark),
                            Node {
                                kind: NodeKind::Map(map),
                                mark: first.mark,
                            },
                        ));
                    }
                }
                (
                    key(&app.name.text, app.name.mark),
                    Node {
                        kind: NodeKind::Map(fields),
                        mark: app.name.mark,
                    },
                )
            })
            .collect();
        Node {
            kind: NodeKind::Map(entries),
            mark: Mark::new(1, 1),
        }
    }

    /// The `apps:` section of a scenario file, as YAML.
    #[must_use]
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("apps:");
        emit::node_value(&mut out, &self.node(), 2);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[(AppFlag, &str)]) -> Vec<AppArg> {
        list.iter()
            .map(|(flag, value)| AppArg {
                flag: *flag,
                value: (*value).to_owned(),
            })
            .collect()
    }

    fn problems(d: &[Diagnostic]) -> Vec<String> {
        d.iter()
            .map(|x| format!("{}: {x}", x.mark.map_or(0, |m| m.col)))
            .collect()
    }

    // P63: a script's text in quotes may hold `=` and `;`.
    #[test]
    fn a_scripts_text_may_hold_equals_and_semicolons() {
        let (apps, _, d) = read(
            &args(&[(
                AppFlag::App,
                r#"web: liveness=exit 1 "a=b; c"; readiness=200"#,
            )]),
            1,
            &["web".into()],
        );
        assert!(d.is_empty(), "{d:?}");
        let yaml = apps.to_yaml();
        assert!(yaml.contains(r#"liveness: "exit 1 \"a=b; c\"""#), "{yaml}");
        assert!(yaml.contains("readiness: 200"), "{yaml}");
    }

    #[test]
    fn values_become_apps_with_positions_in_the_arguments() {
        let (apps, sources, d) = read(
            &args(&[
                (
                    AppFlag::App,
                    "web: liveness=refused for 90s then ok; exec sh -c a;b=exit 0",
                ),
                (AppFlag::Exit, "web: 1 after 2s"),
                (AppFlag::App, "proxy:readiness=200"),
                (AppFlag::Pull, "web: 3s"),
            ]),
            1,
            &["web".into(), "proxy".into()],
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(sources[0].name, "--app");
        assert_eq!(
            apps.to_yaml(),
            "apps:\n  web:\n    pull: 3s\n    exit: 1 after 2s\n    probes:\n      liveness: refused for 90s then ok\n    endpoints:\n      exec sh -c a;b: exit 0\n  proxy:\n    probes:\n      readiness: 200\n"
        );
        let node = apps.node();
        let web = node.get("web").unwrap();
        let live = web.get("probes").unwrap().get("liveness").unwrap();
        assert_eq!(live.mark, Mark::new(1, 15).in_source(SourceId(1)));
        assert_eq!(
            web.get("exit").unwrap().mark,
            Mark::new(1, 6).in_source(SourceId(2))
        );
    }

    #[test]
    fn the_name_may_be_left_out_for_a_single_container() {
        let (apps, _, d) = read(
            &args(&[
                (AppFlag::App, "http :8080/=500"),
                (AppFlag::Sigterm, "ignore"),
            ]),
            1,
            &["web".into()],
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(
            apps.to_yaml(),
            "apps:\n  web:\n    sigterm: ignore\n    endpoints:\n      \"http :8080/\": 500\n"
        );
        let (_, _, d) = read(
            &args(&[(AppFlag::App, "liveness=ok")]),
            1,
            &["a".into(), "b".into()],
        );
        assert_eq!(
            problems(&d),
            ["1: --app: start with the container's name, as in \"a: …\": the pod has 2 containers (a, b)"]
        );
    }

    #[test]
    fn malformed_values_are_pointed_at() {
        let (_, _, d) = read(
            &args(&[
                (AppFlag::App, "web: readiness=ok; startup="),
                (AppFlag::App, "web: readiness=fail"),
                (AppFlag::Exit, "web:"),
                (AppFlag::Pull, "web: 1s"),
                (AppFlag::Pull, "web: 2s"),
                (AppFlag::App, "web: "),
            ]),
            1,
            &["web".into()],
        );
        assert_eq!(
            problems(&d),
            [
                "28: --app: missing script after \"startup=\"",
                "6: --app: \"readiness\" is given twice for container \"web\"",
                "5: --exit: missing value after \"web:\"",
                "6: --pull: --pull is given twice for container \"web\"",
                "5: --app: expected KEY=SCRIPT pairs, like \"liveness=5x200 then 500\"",
            ]
        );
    }
}
