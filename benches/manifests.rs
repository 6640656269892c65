//! `cargo bench --bench manifests`: reading large manifest files in one pass.
//!
//! Each case writes a manifest file under `target/`, then a child process of this binary reads
//! it as the command line does (the whole text in memory) and chooses a workload with
//! `probesim_scenario::catalog::select`, which streams the documents and keeps one tree. The
//! child's peak resident memory (`VmHWM`) is the case's own; it includes the text, so the
//! column `reading` (peak minus the memory in use once the text is loaded) is what reading
//! adds. Cases:
//! - `docs`: a stream of N `---`-separated documents (a Deployment with probes and a Service
//!   each), the last Deployment selected;
//! - `fat`: as `docs`, each container with 100 environment variables (five times the text for
//!   the same objects: what reading keeps grows with the number of objects, not their size);
//! - `list`: one `kind: List` document with N entries, one selected in the middle.

use std::process::Command;
use std::time::Instant;

use probesim_scenario::catalog;
use probesim_scenario::yaml::SourceId;

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

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
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
    let loaded = rss_kib();
    let selector = if case != "list" {
        format!("deployment/web-{}", n - 1)
    } else {
        format!("deployment/web-{}", n / 2)
    };
    let start = Instant::now();
    let selection = catalog::select(&text, SourceId::MAIN, Some(&selector)).expect("select");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(selection.catalog.workloads.len(), n);
    let peak = peak_rss_kib();
    println!(
        "{} {secs} {peak} {}",
        text.len(),
        peak.saturating_sub(loaded)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let case = args.get(i + 1).map_or("docs", String::as_str);
        let n = args
            .get(i + 2)
            .and_then(|d| d.parse().ok())
            .unwrap_or(10_000);
        run_case(case, n);
        return;
    }
    if args.iter().any(|a| a == "--test" || a == "--list") {
        // `cargo test --benches` runs bench binaries in test mode: nothing to test here.
        return;
    }
    let exe = std::env::current_exe().expect("own path");
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
        // The fastest of three runs: the machine is shared and noisy.
        let mut best: Option<(u64, f64, u64, u64)> = None;
        for _ in 0..3 {
            let out = Command::new(&exe)
                .args(["--case", case, &n.to_string()])
                .output()
                .expect("run child");
            let text = String::from_utf8_lossy(&out.stdout);
            let f: Vec<&str> = text.split_whitespace().collect();
            let parsed = (
                f.first().and_then(|v| v.parse().ok()).unwrap_or(0),
                f.get(1).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN),
                f.get(2).and_then(|v| v.parse().ok()).unwrap_or(0),
                f.get(3).and_then(|v| v.parse().ok()).unwrap_or(0),
            );
            if best.is_none_or(|b| parsed.1 < b.1) {
                best = Some(parsed);
            }
        }
        let _ = std::fs::remove_file(path(case, n));
        let (bytes, secs, rss, reading) = best.unwrap_or((0, f64::NAN, 0, 0));
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
