//! What-if edits of the pod, given on the command line: `--set PATH=VALUE`.
//!
//! ```text
//! --set livenessProbe.failureThreshold=1          the only container's probe
//! --set kubia.livenessProbe.periodSeconds=5       the container named kubia
//! --set spec.terminationGracePeriodSeconds=5      the pod spec (of a workload's template, too)
//! --set 'readinessProbe={httpGet: {port: 8080}}'  a whole field, in YAML flow syntax
//! --set livenessProbe=null                        a field removed
//! ```
//!
//! A path is a list of fields separated by `.`, each optionally followed by `[N]` to pick an
//! item of a list. It starts at the pod when its first field is `spec` or `metadata` (the
//! template's, for a workload), at a container when its first field is that container's name
//! (regular or init), and at the only regular container otherwise. The value is read as YAML,
//! so `1` is a number, `true` a boolean and `{…}` a mapping; `null` (or nothing) removes the
//! field.
//!
//! The edit is made on the manifest's tree before anything reads it, so the value goes through
//! exactly the decoding, defaults and validation a value written in the file would; every node
//! the edit brings in points into the argument (a [`Source`] of its own), so an error shows the
//! flag and underlines the value or the field at fault.

use probesim_kube::error::{Diagnostic, Source};
use probesim_kube::field_path::FieldPath;
use probesim_kube::workload::WorkloadKind;
use probesim_kube::yaml::{self, Key, Mark, Node, NodeKind, SourceId};

/// The option, as messages name it.
pub const OPTION: &str = "--set";

/// One step of a path: a field, and the list item it picks, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Step {
    field: String,
    index: Option<usize>,
    /// Where the field's name starts in the argument (1-based column).
    col: usize,
    /// How many characters the step takes (`field[N]`).
    width: usize,
}

/// One `--set` value, read.
#[derive(Clone, Debug, PartialEq)]
struct Edit {
    steps: Vec<Step>,
    value: Node,
}

/// The sources of `--set` arguments, in order: argument `i` is source `first + i`.
#[must_use]
pub fn sources(sets: &[String]) -> Vec<Source> {
    sets.iter()
        .map(|s| Source {
            name: OPTION.to_owned(),
            text: s.clone(),
            argument: true,
        })
        .collect()
}

/// Applies every `--set` argument to `workload` (a Pod or a workload manifest, as written),
/// argument `i` being source `first + i`. Returns the problems with the arguments themselves
/// (a malformed path or value, a container that does not exist); the edited manifest is judged
/// later, by the same reader and validation as the file.
pub fn apply(workload: &mut Node, sets: &[String], first: u32) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for (i, arg) in sets.iter().enumerate() {
        let id = SourceId(first.saturating_add(u32::try_from(i).unwrap_or(u32::MAX)));
        match read(arg, id).and_then(|edit| place(workload, &edit, id).map(|()| edit)) {
            Ok(_) => {}
            Err(d) => problems.push(d),
        }
    }
    problems
}

fn problem(id: SourceId, col: usize, width: usize, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(
        FieldPath::new(OPTION),
        Some(Mark::new(1, col).in_source(id)),
        message,
    )
    .with_width(width)
}

/// Reads `PATH=VALUE`.
fn read(arg: &str, id: SourceId) -> Result<Edit, Diagnostic> {
    let Some(eq) = arg.find('=') else {
        return Err(problem(
            id,
            1,
            arg.chars().count(),
            "expected PATH=VALUE, e.g. livenessProbe.failureThreshold=1",
        ));
    };
    let (path, value) = (&arg[..eq], &arg[eq + 1..]);
    let steps = steps(path, id)?;
    let offset = path.chars().count() + 1;
    let mut value = yaml::parse_in(value, id).map_err(|e| {
        let mark = e.mark.map(|m| shifted(m, offset));
        Diagnostic::new(FieldPath::new(OPTION), mark, e.message)
    })?;
    shift(&mut value, offset);
    if value.mark.line == 1 && value.mark.col <= offset {
        // An empty value has no position of its own: point just past the `=`.
        value.mark = Mark::new(1, offset + 1).in_source(id);
    }
    Ok(Edit { steps, value })
}

/// The steps of a path, each with its position.
fn steps(path: &str, id: SourceId) -> Result<Vec<Step>, Diagnostic> {
    if path.trim().is_empty() {
        return Err(problem(
            id,
            1,
            1,
            "the path is empty: expected PATH=VALUE, e.g. livenessProbe.failureThreshold=1",
        ));
    }
    let mut out = Vec::new();
    let mut col = 1;
    for part in path.split('.') {
        let width = part.chars().count();
        let (field, index) = match part.find('[') {
            None => (part, None),
            Some(open) => {
                let digits = part[open + 1..].strip_suffix(']');
                match digits.and_then(|d| d.parse::<usize>().ok()) {
                    Some(n) => (&part[..open], Some(n)),
                    None => {
                        return Err(problem(
                            id,
                            col,
                            width,
                            format!("invalid path step {part:?}: expected FIELD or FIELD[N]"),
                        ))
                    }
                }
            }
        };
        let plain = !field.is_empty()
            && field
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        if !plain {
            return Err(problem(
                id,
                col,
                width.max(1),
                format!(
                    "invalid path step {part:?}: expected a field name (letters, digits, `-` and `_`)"
                ),
            ));
        }
        out.push(Step {
            field: field.to_owned(),
            index,
            col,
            width: width.max(1),
        });
        col += width + 1;
    }
    Ok(out)
}

fn shifted(mark: Mark, offset: usize) -> Mark {
    if mark.line == 1 {
        Mark {
            col: mark.col + offset,
            ..mark
        }
    } else {
        mark
    }
}

/// Moves the value's marks past `PATH=`, on the argument's first line.
fn shift(node: &mut Node, offset: usize) {
    node.mark = shifted(node.mark, offset);
    match &mut node.kind {
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                k.mark = shifted(k.mark, offset);
                shift(v, offset);
            }
        }
        NodeKind::Seq(items) => {
            for v in items {
                shift(v, offset);
            }
        }
        NodeKind::Scalar { .. } | NodeKind::Null => {}
    }
}

/// The kind of the manifest (a Pod when it does not say).
pub(crate) fn kind_of(workload: &Node) -> WorkloadKind {
    workload
        .get("kind")
        .and_then(Node::as_str)
        .and_then(WorkloadKind::from_kind)
        .unwrap_or(WorkloadKind::Pod)
}

/// The names of the containers of a list (`containers`, `initContainers`) of the pod spec.
fn names(spec: Option<&Node>, list: &str) -> Vec<String> {
    spec.and_then(|s| s.get(list))
        .and_then(Node::as_seq)
        .map(|cs| {
            cs.iter()
                .map(|c| {
                    c.get("name")
                        .and_then(Node::as_str)
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Follows `path` (fields of the manifest, as `spec.template`) from `node`.
fn follow<'n>(node: &'n Node, path: &FieldPath) -> Option<&'n Node> {
    let text = path.to_string();
    if text.is_empty() {
        return Some(node);
    }
    text.split('.').try_fold(node, |n, step| n.get(step))
}

/// The full path of the edit in the manifest: the steps the user wrote, after the pod spec or
/// container they start from.
fn resolve(workload: &Node, edit: &Edit, id: SourceId) -> Result<Vec<Step>, Diagnostic> {
    let kind = kind_of(workload);
    let at = |field: &str, col: usize| Step {
        field: field.to_owned(),
        index: None,
        col,
        width: 1,
    };
    let first = &edit.steps[0];
    let prefix = |path: FieldPath| -> Vec<Step> {
        let text = path.to_string();
        if text.is_empty() {
            Vec::new()
        } else {
            text.split('.').map(|f| at(f, first.col)).collect()
        }
    };
    if first.field == "spec" || first.field == "metadata" {
        let mut steps = prefix(kind.template_path());
        steps.extend(edit.steps.iter().cloned());
        return Ok(steps);
    }
    let spec = follow(workload, &kind.pod_spec_path());
    let regular = names(spec, "containers");
    let init = names(spec, "initContainers");
    let mut steps = prefix(kind.pod_spec_path());
    let (list, index, rest) = if let Some(i) = regular.iter().position(|n| *n == first.field) {
        ("containers", i, &edit.steps[1..])
    } else if let Some(i) = init.iter().position(|n| *n == first.field) {
        ("initContainers", i, &edit.steps[1..])
    } else if regular.len() == 1 {
        ("containers", 0, &edit.steps[..])
    } else {
        let message = if regular.is_empty() {
            format!(
                "the pod has no containers, so {:?} names none; start the path at `spec` to edit the pod",
                first.field
            )
        } else {
            let all: Vec<String> = regular.iter().chain(&init).cloned().collect();
            format!(
                "{:?} is not a container of the pod, which has several ({}): start the path with the container's name, e.g. {}.livenessProbe.periodSeconds=5",
                first.field,
                all.join(", "),
                regular[0]
            )
        };
        return Err(problem(id, first.col, first.width, message));
    };
    if rest.is_empty() {
        return Err(problem(
            id,
            first.col,
            first.width,
            format!(
                "{:?} names a container: add the field to set, e.g. {}.livenessProbe.failureThreshold=1",
                first.field, first.field
            ),
        ));
    }
    steps.push(Step {
        field: list.to_owned(),
        index: Some(index),
        col: first.col,
        width: first.width,
    });
    steps.extend(rest.iter().cloned());
    Ok(steps)
}

/// The steps as the API server writes a path (`spec.containers[0].image`).
fn field_path(steps: &[Step]) -> FieldPath {
    steps.iter().fold(FieldPath::root(), |p, s| {
        let p = p.child(&s.field);
        match s.index {
            Some(n) => p.index(n),
            None => p,
        }
    })
}

fn empty_map(mark: Mark) -> Node {
    Node {
        kind: NodeKind::Map(Vec::new()),
        mark,
    }
}

/// Sets the value at the edit's path, making the mappings on the way that do not exist yet.
fn place(workload: &mut Node, edit: &Edit, id: SourceId) -> Result<(), Diagnostic> {
    let steps = resolve(workload, edit, id)?;
    let mut node = workload;
    let last = steps.len() - 1;
    for (i, step) in steps.iter().enumerate() {
        let mark = Mark::new(1, step.col).in_source(id);
        if node.is_null() {
            *node = empty_map(mark);
        }
        let found = node.describe();
        let NodeKind::Map(entries) = &mut node.kind else {
            return Err(problem(
                id,
                step.col,
                step.width,
                format!(
                    "cannot set a field inside {found}: `{}` is not a mapping",
                    field_path(&steps[..i])
                ),
            ));
        };
        let position = entries.iter().position(|(k, _)| k.text == step.field);
        if i == last && step.index.is_none() {
            if edit.value.is_null() {
                // `null` removes the field, as if it had never been written.
                if let Some(p) = position {
                    entries.remove(p);
                }
                return Ok(());
            }
            let key = Key {
                text: step.field.clone(),
                mark,
            };
            match position {
                Some(p) => entries[p] = (key, edit.value.clone()),
                None => entries.push((key, edit.value.clone())),
            }
            return Ok(());
        }
        let p = match position {
            Some(p) => p,
            None if step.index.is_none() => {
                entries.push((
                    Key {
                        text: step.field.clone(),
                        mark,
                    },
                    empty_map(mark),
                ));
                entries.len() - 1
            }
            None => {
                return Err(problem(
                    id,
                    step.col,
                    step.width,
                    format!("there is no `{}` list to pick an item of", step.field),
                ))
            }
        };
        node = &mut entries[p].1;
        if let Some(n) = step.index {
            let NodeKind::Seq(items) = &mut node.kind else {
                return Err(problem(
                    id,
                    step.col,
                    step.width,
                    format!("`{}` is not a list", step.field),
                ));
            };
            let count = items.len();
            let Some(item) = items.get_mut(n) else {
                return Err(problem(
                    id,
                    step.col,
                    step.width,
                    format!(
                        "`{}` has {count} item{}: no index {n}",
                        step.field,
                        if count == 1 { "" } else { "s" }
                    ),
                ));
            };
            if i == last {
                *item = edit.value.clone();
                return Ok(());
            }
            node = item;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    livenessProbe:\n      httpGet: {port: 80}\n";

    fn edited(text: &str, sets: &[&str]) -> (Node, Vec<String>) {
        let mut node = yaml::parse(text).unwrap();
        let sets: Vec<String> = sets.iter().map(|s| (*s).to_owned()).collect();
        let problems = apply(&mut node, &sets, 1)
            .into_iter()
            .map(|d| format!("{}: {d}", d.mark.unwrap()))
            .collect();
        (node, problems)
    }

    fn at<'n>(node: &'n Node, path: &str) -> Option<&'n Node> {
        path.split('.')
            .try_fold(node, |n, step| match step.parse::<usize>() {
                Ok(i) => n.as_seq()?.get(i),
                Err(_) => n.get(step),
            })
    }

    #[test]
    fn a_path_starts_at_the_only_container() {
        let (node, problems) = edited(POD, &["livenessProbe.failureThreshold=1"]);
        assert!(problems.is_empty(), "{problems:?}");
        let v = at(&node, "spec.containers.0.livenessProbe.failureThreshold").unwrap();
        assert_eq!(v.as_int(), Some(1));
        // The value points into the argument, past `PATH=`.
        assert_eq!(v.mark, Mark::new(1, 32).in_source(SourceId(1)));
        // The fields already there are kept.
        assert!(at(&node, "spec.containers.0.livenessProbe.httpGet.port").is_some());
    }

    #[test]
    fn a_path_starts_at_a_named_container_or_the_pod() {
        let two = POD.replace(
            "  containers:\n",
            "  initContainers:\n  - {name: setup, image: busybox}\n  containers:\n  - {name: side, image: busybox}\n",
        );
        let (node, problems) = edited(
            &two,
            &[
                "web.livenessProbe.periodSeconds=5",
                "setup.image=alpine",
                "spec.terminationGracePeriodSeconds=5",
                "metadata.name=q",
            ],
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            at(&node, "spec.containers.1.livenessProbe.periodSeconds").and_then(Node::as_int),
            Some(5)
        );
        assert_eq!(
            at(&node, "spec.initContainers.0.image").and_then(Node::as_str),
            Some("alpine")
        );
        assert_eq!(
            at(&node, "spec.terminationGracePeriodSeconds").and_then(Node::as_int),
            Some(5)
        );
        assert_eq!(at(&node, "metadata.name").and_then(Node::as_str), Some("q"));
        let (_, problems) = edited(&two, &["livenessProbe.periodSeconds=5"]);
        assert_eq!(
            problems,
            ["1:1: --set: \"livenessProbe\" is not a container of the pod, which has several (side, web, setup): start the path with the container's name, e.g. side.livenessProbe.periodSeconds=5"]
        );
    }

    #[test]
    fn a_workload_is_edited_in_its_template() {
        let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n";
        let (node, problems) = edited(
            deployment,
            &[
                "spec.terminationGracePeriodSeconds=5",
                "readinessProbe={httpGet: {port: 80}}",
                "metadata.labels.app=web",
            ],
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            at(&node, "spec.template.spec.terminationGracePeriodSeconds").and_then(Node::as_int),
            Some(5)
        );
        let port = at(
            &node,
            "spec.template.spec.containers.0.readinessProbe.httpGet.port",
        )
        .unwrap();
        assert_eq!(port.as_int(), Some(80));
        // Inside a flow value, positions are counted from the start of the argument.
        assert_eq!(port.mark, Mark::new(1, 33).in_source(SourceId(2)));
        assert_eq!(
            at(&node, "spec.template.metadata.labels.app").and_then(Node::as_str),
            Some("web")
        );
    }

    #[test]
    fn null_removes_a_field_and_indexes_pick_items() {
        let (node, problems) = edited(
            POD,
            &["livenessProbe=null", "spec.containers[0].image=busybox"],
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert!(at(&node, "spec.containers.0.livenessProbe").is_none());
        assert_eq!(
            at(&node, "spec.containers.0.image").and_then(Node::as_str),
            Some("busybox")
        );
    }

    #[test]
    fn malformed_arguments_are_placed_in_the_argument() {
        let (_, problems) = edited(
            POD,
            &[
                "livenessProbe.failureThreshold",
                "=1",
                "livenessProbe..periodSeconds=1",
                "spec.containers[9].image=x",
                "image.tag=1",
                "livenessProbe.periodSeconds=[1",
                "web=1",
            ],
        );
        assert_eq!(
            problems,
            [
                "1:1: --set: expected PATH=VALUE, e.g. livenessProbe.failureThreshold=1",
                "1:1: --set: the path is empty: expected PATH=VALUE, e.g. livenessProbe.failureThreshold=1",
                "1:15: --set: invalid path step \"\": expected a field name (letters, digits, `-` and `_`)",
                "1:6: --set: `containers` has 1 item: no index 9",
                "1:7: --set: cannot set a field inside the string \"nginx\": `spec.containers[0].image` is not a mapping",
                "1:31: --set: while parsing a flow sequence, expected ',' or ']'",
                "1:1: --set: \"web\" names a container: add the field to set, e.g. web.livenessProbe.failureThreshold=1",
            ]
        );
    }
}
