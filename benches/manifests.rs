//! `cargo bench --bench manifests`: reading large manifest files in one pass.
//!
//! Each case writes a manifest file under `target/`, then a child process of this binary reads
//! it as the command line does (the whole text in memory) and chooses a workload with
//! `probesim_kube::catalog::select`, which streams the documents and keeps one tree. The
//! child's peak resident memory (`VmHWM`) is the case's own; it includes the text, so the
//! column `reading` (peak minus the memory in use once the text is loaded) is what reading
//! adds. Cases:
//! - `docs`: a stream of N `---`-separated documents (a Deployment with probes and a Service
//!   each), the last Deployment selected;
//! - `fat`: as `docs`, each container with 100 environment variables (five times the text for
//!   the same objects: what reading keeps grows with the number of objects, not their size);
//! - `list`: one `kind: List` document with N entries, one selected in the middle.

use std::time::Instant;

#[allow(dead_code, reason = "each benchmark uses part of the shared support")]
mod support;

use probesim_kube::catalog;
use probesim_kube::yaml::SourceId;

/// A Deployment with probes and the Service in front of it.
fn objects(i: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-{i}
  labels: {{app: web-{i}}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web-{i}}}
  template:
    metadata:
      labels: {{app: web-{i}}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{{name: http, containerPort: 8080}}]
        readinessProbe: {{httpGet: {{path: /ready, port: http}}, periodSeconds: 5}}
        livenessProbe: {{httpGet: {{path: /healthz, port: http}}}}
        resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}
---
apiVersion: v1
kind: Service
metadata: {{name: web-{i}}}
spec:
  selector: {{app: web-{i}}}
  ports: [{{port: 80, targetPort: http}}]
"
    )
}

fn text(case: &str, n: usize) -> String {
    let mut out = String::new();
    match case {
        "docs" | "fat" => {
            let env: String = (0..100)
                .map(|v| format!("        - {{name: SETTING_{v}, value: \"value number {v}\"}}\n"))
                .collect();
            for i in 0..n {
                if i > 0 {
                    out.push_str("---\n");
                }
                let objects = objects(i);
                if case == "fat" {
                    out.push_str(&objects.replace(
                        "        resources:",
                        &format!("        env:\n{env}        resources:"),
                    ));
                } else {
                    out.push_str(&objects);
                }
            }
        }
        "list" => {
            out.push_str("apiVersion: v1\nkind: List\nitems:\n");
            for i in 0..n {
                for object in objects(i).split("---\n") {
                    for (j, line) in object.lines().enumerate() {
                        out.push_str(if j == 0 { "- " } else { "  " });
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
        }
        other => panic!("unknown case {other}"),
    }
    out
}

fn path(case: &str, n: usize) -> String {
    format!(
        "{}/target/bench-manifests-{case}-{n}.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn run_case(case: &str, n: usize) {
    let text = std::fs::read_to_string(path(case, n)).expect("read the manifest");
    let loaded = support::status_kib("VmRSS");
    let selector = if case != "list" {
        format!("deployment/web-{}", n - 1)
    } else {
        format!("deployment/web-{}", n / 2)
    };
    let start = Instant::now();
    let selection = catalog::select(&text, SourceId::MAIN, Some(&selector)).expect("select");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(selection.catalog.workloads.len(), n);
    let peak = support::status_kib("VmHWM");
    println!(
        "{} {secs} {peak} {}",
        text.len(),
        peak.saturating_sub(loaded)
    );
}

fn main() {
    if let Some((case, n)) = support::child_case() {
        run_case(&case, n.parse().unwrap_or(10_000));
        return;
    }
    if support::test_mode() {
        return;
    }
    println!(
        "{:<5} {:>8} {:>11} {:>9} {:>12} {:>12} {:>12}",
        "case", "objects", "text", "seconds", "objects/s", "peak RSS", "reading"
    );
    for (case, n) in [
        ("docs", 1_000),
        ("docs", 10_000),
        ("docs", 50_000),
        ("fat", 10_000),
        ("list", 10_000),
    ] {
        std::fs::write(path(case, n), text(case, n)).expect("write the manifest");
        let f = support::median_of(case, &n.to_string(), 1, 3).median;
        let _ = std::fs::remove_file(path(case, n));
        let (bytes, secs): (u64, f64) = (support::figure(&f, 0), support::figure(&f, 1));
        let (rss, reading): (u64, u64) = (support::figure(&f, 2), support::figure(&f, 3));
        // Two objects per Deployment: the Service is a document (or entry) too.
        #[expect(clippy::cast_precision_loss, reason = "a rate for display")]
        let rate = (2 * n) as f64 / secs;
        println!(
            "{case:<5} {:>8} {:>7} KiB {secs:>9.3} {rate:>12.0} {rss:>8} KiB {reading:>8} KiB",
            2 * n,
            bytes / 1024
        );
    }
}
