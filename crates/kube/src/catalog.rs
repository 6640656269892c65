//! What a manifest file holds, and which of its workloads to simulate.
//!
//! A manifest file is a YAML (or JSON) stream: one or more documents separated by `---` (empty
//! documents are skipped), each an object or a `kind: List` of objects. [`select`] reads it in
//! one pass, one document (or `List` entry) at a time: for each object it keeps a short
//! summary (kind, name, line, whether it has probes; a Service's selector) and drops the tree,
//! except for the one workload it will hand back. Memory therefore stays bounded by the
//! largest object, however many documents the file has.
//!
//! Objects that have no pod to simulate (ConfigMaps, Secrets, Ingresses, …) are skipped and
//! listed in a note. Services are kept: [`Catalog::notes`] tells which of them select the
//! simulated pod.

use crate::decode;
use crate::error::Diagnostic;
use crate::field_path::FieldPath;
use crate::workload::{Selector, WorkloadId, WorkloadKind};
use crate::yaml::{Key, Mark, Node, NodeKind, SourceId, Stream, Style, Unit, Value};

/// How many names a note or an error lists before it says "and N more".
const LISTED: usize = 8;

/// A workload of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    /// Its name (`Deployment/web`).
    pub id: WorkloadId,
    /// Its kind.
    pub kind: WorkloadKind,
    /// Where it starts.
    pub mark: Mark,
    /// Whether any of its containers (init containers included) has a probe.
    pub has_probes: bool,
}

/// A Service of the file: kept, because later analysis needs to know which pods it selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Service {
    /// Its name (`Service/web`).
    pub id: WorkloadId,
    /// Where it starts.
    pub mark: Mark,
    /// `spec.selector` (values as written).
    pub selector: Vec<(String, String)>,
}

/// An object of the file that has no pod to simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its name (`ConfigMap/web-config`).
    pub id: WorkloadId,
    /// Where it starts.
    pub mark: Mark,
    /// A workload kind close to its kind, which was perhaps meant (`Deploymnet`).
    pub suggestion: Option<WorkloadKind>,
}

impl Skipped {
    /// `ConfigMap/x (line 3)`, or `Deploymnet/web (line 1; did you mean kind Deployment?)`.
    fn describe(&self) -> String {
        match self.suggestion {
            Some(kind) => format!(
                "{} (line {}; did you mean kind {kind}?)",
                self.id, self.mark.line
            ),
            None => format!("{} (line {})", self.id, self.mark.line),
        }
    }
}

/// What a manifest file holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Catalog {
    /// Every workload, in file order.
    pub workloads: Vec<Workload>,
    /// Every Service, in file order.
    pub services: Vec<Service>,
    /// Every other object, in file order.
    pub skipped: Vec<Skipped>,
}

/// The workload chosen for simulation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// What the file holds.
    pub catalog: Catalog,
    /// The chosen workload.
    pub workload: Workload,
    /// Its manifest, as written.
    pub node: Node,
}

/// Why no workload could be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SelectError {
    /// The file cannot be read as manifests: YAML syntax, or objects without a kind (every
    /// problem found, with positions).
    Invalid(Vec<Diagnostic>),
    /// The selector is not of the form `[NAMESPACE/]KIND/NAME` or `NAME`.
    BadSelector(String),
    /// No object has a pod to simulate.
    NoWorkload {
        /// The objects that were skipped.
        skipped: Vec<String>,
    },
    /// Nothing matches the selector.
    NoMatch {
        /// The selector as given.
        selector: String,
        /// Every workload of the file.
        workloads: Vec<String>,
        /// A close name, if any.
        suggestion: Option<String>,
    },
    /// Several workloads match the selector.
    Ambiguous {
        /// The selector as given.
        selector: String,
        /// The workloads it matches.
        matches: Vec<String>,
    },
    /// Several workloads have probes (or none has, and there are several), and no selector
    /// says which one to simulate.
    Choose {
        /// The candidates, with their lines.
        candidates: Vec<String>,
        /// Whether the candidates are the workloads with probes (else: all workloads).
        with_probes: bool,
    },
}

impl SelectError {
    /// The message, where `option` names the way to choose: `--select` on the command line,
    /// `select` in a scenario file.
    #[must_use]
    pub fn message(&self, option: &str) -> String {
        let how = |arg: &str| {
            if option.starts_with('-') {
                format!("{option} {arg}")
            } else {
                format!("`{option}: {arg}`")
            }
        };
        match self {
            SelectError::Invalid(items) => items
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
            SelectError::BadSelector(message) => message.clone(),
            SelectError::NoWorkload { skipped } if skipped.is_empty() => {
                "the manifest file holds no objects".to_owned()
            }
            SelectError::NoWorkload { skipped } => format!(
                "no object in the manifest file has a pod to simulate (a {}); found {}",
                WorkloadKind::list(),
                listed(skipped)
            ),
            SelectError::NoMatch {
                selector,
                workloads,
                suggestion,
            } => {
                let hint = match suggestion {
                    Some(s) => format!("; did you mean {s:?}?"),
                    None if workloads.is_empty() => String::new(),
                    None => format!("; the file has {}", listed(workloads)),
                };
                format!("no workload matches {selector:?}{hint}")
            }
            SelectError::Ambiguous { selector, matches } => format!(
                "{selector:?} matches {} workloads: {}; add the kind and namespace ({})",
                matches.len(),
                listed(matches),
                how("NAMESPACE/KIND/NAME")
            ),
            SelectError::Choose {
                candidates,
                with_probes,
            } => {
                let what = if *with_probes {
                    format!(
                        "{} workloads in the manifest file have probes",
                        candidates.len()
                    )
                } else {
                    format!(
                        "the manifest file has {} workloads and none has probes",
                        candidates.len()
                    )
                };
                format!(
                    "{what}: {}; choose one with {}",
                    listed(candidates),
                    how("KIND/NAME")
                )
            }
        }
    }
}

/// `a, b, c` or `a, b, …, and 12 more`.
fn listed(names: &[String]) -> String {
    if names.len() <= LISTED {
        return names.join(", ");
    }
    format!(
        "{}, and {} more",
        names[..LISTED].join(", "),
        names.len() - LISTED
    )
}

impl Catalog {
    /// Notes for the user about the file: the objects that were skipped, and the Services that
    /// select the simulated pod (whose labels are `labels`).
    #[must_use]
    pub fn notes(&self, chosen: &Workload, labels: &[(String, String)]) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.skipped.is_empty() {
            let names: Vec<String> = self.skipped.iter().map(Skipped::describe).collect();
            let objects = if names.len() == 1 {
                "object"
            } else {
                "objects"
            };
            notes.push(format!(
                "skipped {} {objects} without a pod to simulate: {}",
                names.len(),
                listed(&names)
            ));
        }
        for service in self.selecting(chosen, labels) {
            notes.push(format!("{} selects the pods of {}", service.id, chosen.id));
        }
        notes
    }

    /// The Services that select the pods of `chosen` (whose labels are `labels`): same
    /// namespace, a selector that is not empty, and every pair of it among the labels.
    #[must_use]
    pub fn selecting(&self, chosen: &Workload, labels: &[(String, String)]) -> Vec<&Service> {
        let namespace = |id: &WorkloadId| id.namespace.clone().unwrap_or_else(|| "default".into());
        self.services
            .iter()
            .filter(|service| {
                !service.selector.is_empty()
                    && namespace(&service.id) == namespace(&chosen.id)
                    && service
                        .selector
                        .iter()
                        .all(|pair| labels.iter().any(|l| l == pair))
            })
            .collect()
    }
}

/// Reads a manifest file and chooses the workload to simulate: the one `selector` names; else
/// the only workload with probes; else the only workload.
///
/// # Errors
/// See [`SelectError`].
pub fn select(
    text: &str,
    source: SourceId,
    selector: Option<&str>,
) -> Result<Selection, SelectError> {
    let selector = match selector {
        None => None,
        Some(s) => Some((
            s.to_owned(),
            Selector::parse(s).map_err(SelectError::BadSelector)?,
        )),
    };
    let mut reader = Reader {
        selector: selector.as_ref().map(|(_, s)| s),
        catalog: Catalog::default(),
        diagnostics: Vec::new(),
        chosen: None,
        matches: Vec::new(),
        first_with_probes: None,
        only: None,
        untyped_items: Vec::new(),
    };
    for unit in Stream::new(text, source) {
        match unit {
            Err(e) => {
                reader
                    .diagnostics
                    .push(Diagnostic::new(FieldPath::root(), e.mark, e.message));
                return Err(SelectError::Invalid(reader.diagnostics));
            }
            Ok(Unit::Item { node, .. }) => reader.object(node, false),
            Ok(Unit::Document { root, .. }) => reader.object(root, true),
        }
    }
    let text = selector.as_ref().map(|(text, _)| text.clone());
    reader.finish(text)
}

struct Reader<'a> {
    selector: Option<&'a Selector>,
    catalog: Catalog,
    diagnostics: Vec<Diagnostic>,
    /// With a selector: the first workload it matches.
    chosen: Option<(Workload, Node)>,
    /// With a selector: every workload it matches.
    matches: Vec<String>,
    /// Without a selector: the first workload with probes.
    first_with_probes: Option<(Workload, Node)>,
    /// Without a selector: the workload, while there has been only one.
    only: Option<(Workload, Node)>,
    /// Entries of the current list document without a `kind`: a typed list
    /// (`kind: DeploymentList`, known only once the whole document is read) gives them theirs.
    untyped_items: Vec<Node>,
}

impl Reader<'_> {
    /// At the end of a document, its entries that had no `kind`: a typed list (`DeploymentList`)
    /// gives each the kind it lists and the list's `apiVersion`, as the API machinery does;
    /// otherwise each is an object without a kind.
    fn type_items(&mut self, list_kind: Option<&Node>, api_version: Option<&Node>) {
        let items = std::mem::take(&mut self.untyped_items);
        let item_kind = list_kind
            .and_then(Node::as_str)
            .and_then(|k| k.strip_suffix("List"))
            .filter(|k| !k.is_empty());
        for mut item in items {
            match (item_kind, &mut item.kind) {
                (Some(kind), NodeKind::Map(entries)) => {
                    let scalar = |key: &str, text: &str| {
                        (
                            Key {
                                text: key.to_owned(),
                                mark: item.mark,
                            },
                            Node {
                                kind: NodeKind::Scalar {
                                    text: text.to_owned(),
                                    style: Style::Quoted,
                                },
                                mark: item.mark,
                            },
                        )
                    };
                    if !entries.iter().any(|(k, _)| k.text == "apiVersion") {
                        if let Some(v) = api_version.and_then(Node::as_str) {
                            entries.push(scalar("apiVersion", v));
                        }
                    }
                    entries.retain(|(k, _)| k.text != "kind");
                    entries.push(scalar("kind", kind));
                    self.object(item, false);
                }
                _ => self.diagnostics.push(Diagnostic::new(
                    FieldPath::new("kind"),
                    Some(item.mark),
                    "missing field: every object in a manifest needs apiVersion and kind",
                )),
            }
        }
    }

    fn object(&mut self, node: Node, document: bool) {
        let f = match node.value() {
            Value::Null => return,
            Value::Map(_) => node.as_map().unwrap_or_default(),
            _ => {
                let what = if document {
                    "document"
                } else {
                    "entry of items"
                };
                self.diagnostics.push(Diagnostic::new(
                    FieldPath::root(),
                    Some(node.mark),
                    format!(
                        "expected a Kubernetes object (a mapping with apiVersion and kind), found {} as a {what}",
                        node.describe()
                    ),
                ));
                return;
            }
        };
        let get = |key: &str| f.iter().find(|(k, _)| k.text == key).map(|(_, v)| v);
        if document {
            self.type_items(get("kind"), get("apiVersion"));
        }
        let kind = match get("kind").filter(|n| !n.is_null()) {
            None if !document => {
                self.untyped_items.push(node);
                return;
            }
            None => {
                self.diagnostics.push(Diagnostic::new(
                    FieldPath::new("kind"),
                    Some(node.mark),
                    "missing field: every object in a manifest needs apiVersion and kind",
                ));
                return;
            }
            Some(n) => match n.as_str() {
                Some(k) => k.to_owned(),
                None => {
                    self.diagnostics.push(Diagnostic::new(
                        FieldPath::new("kind"),
                        Some(n.mark),
                        format!(
                            "expected a kind like \"Pod\" or \"Deployment\", found {}",
                            n.describe()
                        ),
                    ));
                    return;
                }
            },
        };
        // A List's entries have been read one by one already.
        if document && kind.ends_with("List") {
            return;
        }
        let metadata = get("metadata");
        let meta_str = |key: &str| {
            metadata
                .and_then(|m| m.get(key))
                .and_then(Node::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        let id = WorkloadId {
            kind: kind.clone(),
            name: meta_str("name")
                .or_else(|| meta_str("generateName"))
                .unwrap_or_default(),
            namespace: meta_str("namespace"),
        };
        let mark = node.mark;
        let Some(workload_kind) = WorkloadKind::from_kind(&kind) else {
            if kind == "Service" {
                let selector = get("spec")
                    .and_then(|s| s.get("selector"))
                    .and_then(Node::as_map)
                    .map(|entries| {
                        entries
                            .iter()
                            .filter_map(|(k, v)| {
                                Some((k.text.clone(), v.scalar_text()?.to_owned()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                self.catalog.services.push(Service { id, mark, selector });
            } else {
                let suggestion = decode::suggest(&kind, WorkloadKind::ALL.iter().map(|k| k.name()))
                    .and_then(WorkloadKind::from_kind);
                self.catalog.skipped.push(Skipped {
                    id,
                    mark,
                    suggestion,
                });
            }
            return;
        };
        let workload = Workload {
            has_probes: has_probes(&node, workload_kind),
            id,
            kind: workload_kind,
            mark,
        };
        self.catalog.workloads.push(workload.clone());
        match self.selector {
            Some(selector) => {
                if selector.matches(workload_kind, &workload.id) {
                    self.matches
                        .push(format!("{} (line {})", workload.id, mark.line));
                    if self.chosen.is_none() {
                        self.chosen = Some((workload, node));
                    }
                }
            }
            None => {
                if workload.has_probes && self.first_with_probes.is_none() {
                    self.first_with_probes = Some((workload.clone(), node.clone()));
                }
                // Kept only while it is the only one.
                self.only = if self.catalog.workloads.len() == 1 {
                    Some((workload, node))
                } else {
                    None
                };
            }
        }
    }

    fn finish(self, selector: Option<String>) -> Result<Selection, SelectError> {
        if !self.diagnostics.is_empty() {
            return Err(SelectError::Invalid(self.diagnostics));
        }
        let catalog = self.catalog;
        let names = |ws: &mut dyn Iterator<Item = &Workload>| -> Vec<String> {
            ws.map(|w| format!("{} (line {})", w.id, w.mark.line))
                .collect()
        };
        if catalog.workloads.is_empty() {
            return Err(SelectError::NoWorkload {
                skipped: catalog
                    .skipped
                    .iter()
                    .map(Skipped::describe)
                    .chain(
                        catalog
                            .services
                            .iter()
                            .map(|s| format!("{} (line {})", s.id, s.mark.line)),
                    )
                    .collect(),
            });
        }
        let chosen = if let Some(selector) = selector {
            if self.matches.len() > 1 {
                return Err(SelectError::Ambiguous {
                    selector,
                    matches: self.matches,
                });
            }
            match self.chosen {
                Some(chosen) => chosen,
                None => {
                    // A close name among the workloads of the kind named.
                    let suggestion = self.selector.and_then(|sel| {
                        let same_kind: Vec<&Workload> = catalog
                            .workloads
                            .iter()
                            .filter(|w| sel.kind().is_none_or(|k| k == w.kind))
                            .collect();
                        let name = decode::suggest(
                            sel.name(),
                            same_kind.iter().map(|w| w.id.name.as_str()),
                        )?;
                        same_kind
                            .iter()
                            .find(|w| w.id.name == name)
                            .map(|w| w.id.to_string())
                    });
                    return Err(SelectError::NoMatch {
                        selector,
                        workloads: names(&mut catalog.workloads.iter()),
                        suggestion,
                    });
                }
            }
        } else {
            let probed = catalog.workloads.iter().filter(|w| w.has_probes).count();
            match (probed, self.first_with_probes, self.only) {
                (1, Some(chosen), _) | (0, _, Some(chosen)) => chosen,
                (0, _, None) => {
                    return Err(SelectError::Choose {
                        candidates: names(&mut catalog.workloads.iter()),
                        with_probes: false,
                    })
                }
                _ => {
                    return Err(SelectError::Choose {
                        candidates: names(&mut catalog.workloads.iter().filter(|w| w.has_probes)),
                        with_probes: true,
                    })
                }
            }
        };
        let (workload, node) = chosen;
        Ok(Selection {
            catalog,
            workload,
            node,
        })
    }
}

/// Whether a text is a Kubernetes manifest (its first document has `apiVersion`, `kind` or
/// `items` at the top) rather than a scenario file. Cheap: it reads the first document only
/// and builds nothing.
#[must_use]
pub fn is_manifest(text: &str) -> bool {
    crate::yaml::first_document_keys(text)
        .iter()
        .any(|k| matches!(k.as_str(), "apiVersion" | "kind" | "items"))
}

/// The pod spec of a workload's manifest, as written.
fn pod_spec(node: &Node, kind: WorkloadKind) -> Option<&Node> {
    let mut n = node;
    for step in kind.pod_spec_path().to_string().split('.') {
        n = n.get(step)?;
    }
    Some(n)
}

/// Whether any container of the workload (init containers included) has a probe.
fn has_probes(node: &Node, kind: WorkloadKind) -> bool {
    let Some(spec) = pod_spec(node, kind) else {
        return false;
    };
    ["containers", "initContainers"].iter().any(|list| {
        spec.get(list)
            .and_then(Node::as_seq)
            .is_some_and(|containers| {
                containers.iter().any(|c| {
                    ["livenessProbe", "readinessProbe", "startupProbe"]
                        .iter()
                        .any(|p| c.get(p).is_some_and(|n| !n.is_null()))
                })
            })
    })
}

/// The names of the regular containers of a workload's manifest, as written.
#[must_use]
pub fn container_names(node: &Node, kind: WorkloadKind) -> Vec<String> {
    pod_spec(node, kind)
        .and_then(|s| s.get("containers"))
        .and_then(Node::as_seq)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c.get("name").and_then(Node::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The pod labels of a workload's manifest, as written (the template's for a workload).
#[must_use]
pub fn pod_labels(node: &Node, kind: WorkloadKind) -> Vec<(String, String)> {
    let mut n = node;
    let template = kind.template_path().to_string();
    if !template.is_empty() {
        for step in template.split('.') {
            match n.get(step) {
                Some(next) => n = next,
                None => return Vec::new(),
            }
        }
    }
    n.get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(Node::as_map)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|(k, v)| Some((k.text.clone(), v.scalar_text()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const APP: &str = "\
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        livenessProbe: {httpGet: {port: 80}}
---
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: prod}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: m, image: migrate:1}]
";

    fn pick(text: &str, selector: Option<&str>) -> Result<Selection, String> {
        select(text, SourceId::MAIN, selector).map_err(|e| e.message("--select"))
    }

    #[test]
    fn the_only_workload_with_probes_is_chosen_and_the_rest_summarised() {
        let s = pick(APP, None).unwrap();
        assert_eq!(s.workload.id.to_string(), "Deployment/web");
        assert_eq!(s.workload.mark.line, 6);
        assert_eq!(s.catalog.workloads.len(), 2);
        let labels = pod_labels(&s.node, s.workload.kind);
        assert_eq!(
            s.catalog.notes(&s.workload, &labels),
            [
                "skipped 1 object without a pod to simulate: ConfigMap/web-config (line 1)",
                "Service/web selects the pods of Deployment/web",
            ]
        );
        assert_eq!(container_names(&s.node, s.workload.kind), ["web"]);
    }

    #[test]
    fn selectors_choose_and_explain_misses() {
        let s = pick(APP, Some("prod/job/migrate")).unwrap();
        assert_eq!(s.workload.id.to_string(), "prod/Job/migrate");
        assert_eq!(
            pick(APP, Some("deploy/wbe")).unwrap_err(),
            "no workload matches \"deploy/wbe\"; did you mean \"Deployment/web\"?"
        );
        assert_eq!(
            pick(APP, Some("statefulset/db")).unwrap_err(),
            "no workload matches \"statefulset/db\"; the file has Deployment/web (line 6), prod/Job/migrate (line 27)"
        );
        let twice = format!(
            "{APP}---\n{}",
            &APP[APP.find("apiVersion: apps/v1").unwrap()..APP.find("---\n---").unwrap()]
        );
        assert_eq!(
            pick(&twice, Some("web")).unwrap_err(),
            "\"web\" matches 2 workloads: Deployment/web (line 6), Deployment/web (line 36); add the kind and namespace (--select NAMESPACE/KIND/NAME)"
        );
        assert_eq!(
            pick(&twice, None).unwrap_err(),
            "2 workloads in the manifest file have probes: Deployment/web (line 6), Deployment/web (line 36); choose one with --select KIND/NAME"
        );
    }

    #[test]
    fn lists_are_read_entry_by_entry() {
        let list = "apiVersion: v1\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: a, image: a}]}}\n- apiVersion: apps/v1\n  kind: StatefulSet\n  metadata: {name: db}\n  spec: {template: {spec: {containers: [{name: db, image: pg, readinessProbe: {exec: {command: [\"true\"]}}}]}}}\nkind: List\n";
        let s = pick(list, None).unwrap();
        assert_eq!(s.workload.id.to_string(), "StatefulSet/db");
        assert_eq!(s.workload.mark.line, 4);
        assert_eq!(
            s.node.get("kind").and_then(Node::as_str),
            Some("StatefulSet")
        );
        assert_eq!(s.catalog.workloads.len(), 2);
    }

    #[test]
    fn a_typed_list_gives_its_entries_their_kind() {
        // As the API machinery decodes a `DeploymentList`: entries without kind and apiVersion
        // take the listed kind and the list's version, even when `kind` comes after `items`.
        let list = "apiVersion: apps/v1\nitems:\n- metadata: {name: web}\n  spec: {template: {spec: {containers: [{name: web, image: nginx, livenessProbe: {tcpSocket: {port: 80}}}]}}}\nkind: DeploymentList\n";
        let s = pick(list, None).unwrap();
        assert_eq!(s.workload.id.to_string(), "Deployment/web");
        assert_eq!(
            s.node.get("apiVersion").and_then(Node::as_str),
            Some("apps/v1")
        );
        // A plain List cannot say what its entries are.
        let untyped = list.replace("kind: DeploymentList", "kind: List");
        let SelectError::Invalid(items) = select(&untyped, SourceId::MAIN, None).unwrap_err()
        else {
            panic!("not invalid")
        };
        assert_eq!(
            items[0].to_string(),
            "kind: missing field: every object in a manifest needs apiVersion and kind"
        );
    }

    #[test]
    fn objects_need_a_kind_and_files_need_a_workload() {
        let e = select("a: 1\n---\n- x\n", SourceId::MAIN, None).unwrap_err();
        let SelectError::Invalid(items) = e else {
            panic!("{e:?}")
        };
        assert_eq!(
            items.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "kind: missing field: every object in a manifest needs apiVersion and kind",
                "expected a Kubernetes object (a mapping with apiVersion and kind), found a sequence as a document",
            ]
        );
        assert_eq!(
            pick("kind: Service\nmetadata: {name: s}\n", None).unwrap_err(),
            "no object in the manifest file has a pod to simulate (a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, ReplicationController, Job or CronJob); found Service/s (line 1)"
        );
        assert_eq!(
            pick("", None).unwrap_err(),
            "the manifest file holds no objects"
        );
        // Without probes, the only workload is simulated; with several, the user chooses.
        let one = "kind: Pod\nmetadata: {name: p}\n";
        assert_eq!(pick(one, None).unwrap().workload.id.to_string(), "Pod/p");
        let two = format!("{one}---\nkind: Job\nmetadata: {{name: j}}\n");
        assert_eq!(
            pick(&two, None).unwrap_err(),
            "the manifest file has 2 workloads and none has probes: Pod/p (line 1), Job/j (line 4); choose one with --select KIND/NAME"
        );
    }

    #[test]
    fn long_lists_are_cut() {
        let names: Vec<String> = (0..10).map(|i| format!("n{i}")).collect();
        assert_eq!(listed(&names), "n0, n1, n2, n3, n4, n5, n6, n7, and 2 more");
    }

    /// A Deployment with a probe, and a Service for it.
    fn deployment(i: usize) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-{i}}}\nspec:\n  template:\n    metadata: {{labels: {{app: web-{i}}}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        readinessProbe: {{httpGet: {{port: 80}}, periodSeconds: 5}}\n---\napiVersion: v1\nkind: Service\nmetadata: {{name: web-{i}}}\nspec: {{selector: {{app: web-{i}}}}}\n"
        )
    }

    #[test]
    fn ten_thousand_documents_are_read_in_one_pass() {
        let mut text = String::new();
        for i in 0..10_000 {
            if i > 0 {
                text.push_str("---\n");
            }
            text.push_str(&deployment(i));
        }
        let s = pick(&text, Some("deploy/web-9999")).unwrap();
        assert_eq!(s.workload.id.to_string(), "Deployment/web-9999");
        assert_eq!(s.catalog.workloads.len(), 10_000);
        assert_eq!(s.catalog.services.len(), 10_000);
        let labels = pod_labels(&s.node, s.workload.kind);
        assert_eq!(
            s.catalog.notes(&s.workload, &labels),
            ["Service/web-9999 selects the pods of Deployment/web-9999"]
        );
    }

    #[test]
    fn many_candidates_are_listed_in_short() {
        let text: Vec<String> = (0..100).map(deployment).collect();
        let e = pick(&text.join("---\n"), None).unwrap_err();
        assert!(
            e.starts_with("100 workloads in the manifest file have probes: Deployment/web-0 (line 1), Deployment/web-1 (line 18), "),
            "{e}"
        );
        assert!(
            e.ends_with(", and 92 more; choose one with --select KIND/NAME"),
            "{e}"
        );
    }

    #[test]
    fn a_list_of_ten_thousand_items_is_read_item_by_item() {
        // Far more nodes than one document may have: each entry has its own budget.
        let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
        for i in 0..10_000 {
            let item = deployment(i);
            let item = &item[..item.find("---").unwrap_or(item.len())];
            for (j, line) in item.lines().enumerate() {
                text.push_str(if j == 0 { "- " } else { "  " });
                text.push_str(line);
                text.push('\n');
            }
        }
        let s = pick(&text, Some("web-5000")).unwrap();
        assert_eq!(s.workload.id.to_string(), "Deployment/web-5000");
        assert_eq!(s.catalog.workloads.len(), 10_000);
    }
}
