//! `--format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub code scanning and others).

use crate::finding::RULES;
use crate::report::ordered::J;
use crate::report::WorkloadReport;

/// Where the findings are documented, for each rule's `helpUri`.
const DOCS: &str = "docs/findings.md";

/// The findings as one SARIF 2.1.0 log: one run, every rule with its help text, one result per
/// finding with its file, line and column.
#[must_use]
pub fn sarif(version: &str, workloads: &[WorkloadReport]) -> String {
    let rules = RULES
        .iter()
        .map(|r| {
            J::Obj(vec![
                ("id", J::str(r.id)),
                ("name", J::str(r.id)),
                (
                    "shortDescription",
                    J::Obj(vec![("text", J::str(r.summary))]),
                ),
                (
                    "help",
                    J::Obj(vec![
                        ("text", J::str(r.help)),
                        ("markdown", J::str(format!("{}\n\n{}", r.summary, r.help))),
                    ]),
                ),
                ("helpUri", J::str(format!("{DOCS}#{}", r.id))),
                (
                    "defaultConfiguration",
                    J::Obj(vec![("level", J::str(r.severity.as_str()))]),
                ),
            ])
        })
        .collect();
    let mut results = Vec::new();
    for w in workloads {
        let shown = w.findings.iter().map(|f| (f, None));
        let hidden = w.suppressed.iter().map(|(f, by)| (f, Some(by)));
        for (f, by) in shown.chain(hidden) {
            let index = RULES.iter().position(|r| r.id == f.rule.id).unwrap_or(0);
            let mut physical = vec![(
                "artifactLocation",
                J::Obj(vec![("uri", J::str(w.subject.file.replace('\\', "/")))]),
            )];
            if let Some((line, col)) = f.at {
                physical.push((
                    "region",
                    J::Obj(vec![
                        ("startLine", J::int(line as u64)),
                        ("startColumn", J::int(col as u64)),
                    ]),
                ));
            }
            // A suppressed finding is kept with its suppression, as SARIF records them (an
            // annotation in the manifest is `inSource`, `--ignore` is `external`).
            let suppressions = by.map(|by| {
                let kind = if by.starts_with("annotation") {
                    "inSource"
                } else {
                    "external"
                };
                (
                    "suppressions",
                    J::Arr(vec![J::Obj(vec![
                        ("kind", J::str(kind)),
                        ("justification", J::str(format!("suppressed by {by}"))),
                    ])]),
                )
            });
            results.push(J::Obj(vec![
                ("ruleId", J::str(f.rule.id)),
                ("ruleIndex", J::int(index as u64)),
                ("level", J::str(f.rule.severity.as_str())),
                ("message", J::Obj(vec![("text", J::str(f.message.clone()))])),
                (
                    "locations",
                    J::Arr(vec![J::Obj(vec![
                        ("physicalLocation", J::Obj(physical)),
                        (
                            "logicalLocations",
                            J::Arr(vec![J::Obj(vec![
                                ("name", J::str(f.path.clone())),
                                (
                                    "fullyQualifiedName",
                                    J::str(format!("{}/{}", w.subject.name, f.path)),
                                ),
                                ("kind", J::str("member")),
                            ])]),
                        ),
                    ])]),
                ),
            ]));
            if let (Some(s), Some(J::Obj(result))) = (suppressions, results.last_mut()) {
                result.push(s);
            }
        }
    }
    J::Obj(vec![
        (
            "$schema",
            J::str("https://json.schemastore.org/sarif-2.1.0.json"),
        ),
        ("version", J::str("2.1.0")),
        (
            "runs",
            J::Arr(vec![J::Obj(vec![
                (
                    "tool",
                    J::Obj(vec![(
                        "driver",
                        J::Obj(vec![
                            ("name", J::str("probesim")),
                            ("version", J::str(version)),
                            ("rules", J::Arr(rules)),
                        ]),
                    )]),
                ),
                ("results", J::Arr(results)),
            ])]),
        ),
    ])
    .render()
}
