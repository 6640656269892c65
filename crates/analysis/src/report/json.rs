//! `--format json`.

use serde_json::{json, Map, Value};

use crate::figure::{ContainerFigures, Extreme, Figure, Phase};
use crate::report::{seconds, WorkloadReport};

fn value(v: Option<probesim_core::SimDuration>) -> Value {
    v.map_or(Value::Null, seconds)
}

fn phase(p: &Phase) -> Value {
    let mut m = Map::new();
    m.insert("start".into(), seconds(p.start));
    if let Some(c) = p.change {
        m.insert("change".into(), seconds(c));
    }
    if let Some(s) = p.seed {
        m.insert("seed".into(), Value::from(s));
    }
    Value::Object(m)
}

fn extreme_phase(e: &Extreme) -> Value {
    phase(&e.phase)
}

/// A figure: `{"min": …, "max": …, "phases": {"min": {…}, "max": {…}}}`.
fn figure(f: &Figure) -> Value {
    json!({
        "min": value(f.min.value),
        "max": value(f.max.value),
        "phases": {"min": extreme_phase(&f.min), "max": extreme_phase(&f.max)},
    })
}

fn container(c: &ContainerFigures) -> Value {
    json!({
        "name": c.name,
        "startupBudget": c.startup_budget.as_ref().map_or(Value::Null, figure),
        "hangDetection": {
            "kill": figure(&c.hang.kill),
            "exit": figure(&c.hang.exit),
            "restarted": figure(&c.hang.restarted),
        },
        "readiness": {
            "toReady": figure(&c.readiness.to_ready),
            "toNotReady": c.readiness.to_not_ready.as_ref().map_or(Value::Null, figure),
        },
        "crashLoop": c.crash_loop.as_ref().map_or(Value::Null, |l| json!({
            "restarts": l.restarts.iter().map(|d| seconds(*d)).collect::<Vec<_>>(),
            "backOff": figure(&l.back_off),
            "cycle": figure(&l.cycle),
        })),
        "sweep": {
            "cycle": seconds(c.space.cycle),
            "offsets": c.space.offsets.len(),
            "seeds": c.space.seeds.len(),
            "jitter": c.space.jitter,
            "truncated": c.space.truncated,
            "simulations": c.simulations,
        },
    })
}

/// The analysis as one JSON document:
/// `{"probesim": 1, "kubernetes": …, "workloads": [{"name": …, "containers": […], "findings": […]}]}`.
#[must_use]
pub fn json(kubernetes: &str, workloads: &[WorkloadReport]) -> String {
    let workloads: Vec<Value> = workloads
        .iter()
        .map(|w| {
            json!({
                "name": w.subject.name,
                "file": w.subject.file,
                "containers": w.containers.iter().map(container).collect::<Vec<_>>(),
                "findings": w.findings.iter().map(|f| {
                    let mut m = Map::new();
                    m.insert("id".into(), Value::from(f.rule.id));
                    m.insert("severity".into(), Value::from(f.rule.severity.as_str()));
                    m.insert("container".into(), Value::from(f.container.clone()));
                    m.insert("path".into(), Value::from(f.path.clone()));
                    if let Some((line, col)) = f.at {
                        m.insert("line".into(), Value::from(line));
                        m.insert("column".into(), Value::from(col));
                    }
                    m.insert("message".into(), Value::from(f.message.clone()));
                    Value::Object(m)
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doc = json!({"probesim": 1, "kubernetes": kubernetes, "workloads": workloads});
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}
