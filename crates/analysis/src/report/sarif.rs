//! `--format sarif`: SARIF 2.1.0 for code-scanning tools (GitHub code scanning and others).

use serde_json::{json, Map, Value};

use crate::finding::RULES;
use crate::report::WorkloadReport;

/// Where the findings are documented, for each rule's `helpUri`.
const DOCS: &str = "docs/findings.md";

/// The findings as one SARIF 2.1.0 log: one run, every rule with its help text, one result per
/// finding with its file, line and column.
#[must_use]
pub fn sarif(version: &str, workloads: &[WorkloadReport]) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.summary},
                "help": {"text": r.help, "markdown": format!("{}\n\n{}", r.summary, r.help)},
                "helpUri": format!("{DOCS}#{}", r.id),
                "defaultConfiguration": {"level": r.severity.as_str()},
            })
        })
        .collect();
    let mut results = Vec::new();
    for w in workloads {
        for f in &w.findings {
            let index = RULES.iter().position(|r| r.id == f.rule.id).unwrap_or(0);
            let mut region = Map::new();
            if let Some((line, col)) = f.at {
                region.insert("startLine".into(), Value::from(line));
                region.insert("startColumn".into(), Value::from(col));
            }
            let mut physical = Map::new();
            physical.insert(
                "artifactLocation".into(),
                json!({"uri": w.subject.file.replace('\\', "/")}),
            );
            if !region.is_empty() {
                physical.insert("region".into(), Value::Object(region));
            }
            results.push(json!({
                "ruleId": f.rule.id,
                "ruleIndex": index,
                "level": f.rule.severity.as_str(),
                "message": {"text": f.message},
                "locations": [{
                    "physicalLocation": Value::Object(physical),
                    "logicalLocations": [{
                        "name": f.path,
                        "fullyQualifiedName": format!("{}/{}", w.subject.name, f.path),
                        "kind": "member",
                    }],
                }],
            }));
        }
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "probesim",
                "version": version,
                "informationUri": "https://example.invalid/probesim",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
