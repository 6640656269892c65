//! Goldens of the kubectl views and the timeline for people (`tests/views/<name>`), one test
//! each: a curated scenario, optionally under another release, rendered as `get`, `describe`
//! (at the end or at an instant) or the readable `timeline`, twice (the bytes must agree), and
//! compared with the reviewed file. The cases cover every scenario group and the releases at
//! which these views change: 1.19 (From `kubelet, <node>`, no RESTARTS "ago"), 1.21 (From the
//! component), 1.22 ("ago"), 1.29 (the printer knows sidecars), 1.35 (field paths in
//! messages), 1.37 (probe thresholds by name).

mod support;

use libtest_mimic::Failed;
use probesim_core::{SimDuration, SimTime};
use probesim_report::{render_with, Format, ViewOptions};
use probesim_scenario::scenario::{Overrides, Scenario};

/// (golden name, scenario, release, format, describe's instant in seconds).
type Case = (
    &'static str,
    &'static str,
    Option<&'static str>,
    Format,
    Option<u64>,
);

const CASES: &[Case] = &[
    (
        "kubia-1.19-describe-27m",
        "scenarios/kubia-unhealthy-1.19.yaml",
        None,
        Format::Describe,
        Some(1620),
    ),
    (
        "kubia-1.19-get",
        "scenarios/kubia-unhealthy-1.19.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "kubia-1.19-timeline",
        "scenarios/kubia-unhealthy-1.19.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "kubia-1.21-get",
        "scenarios/kubia-unhealthy.yaml",
        Some("1.21"),
        Format::Get,
        None,
    ),
    (
        "kubia-1.21-describe",
        "scenarios/kubia-unhealthy.yaml",
        Some("1.21"),
        Format::Describe,
        None,
    ),
    (
        "kubia-1.36-describe",
        "scenarios/kubia-unhealthy.yaml",
        Some("1.36"),
        Format::Describe,
        None,
    ),
    (
        "kubia-describe",
        "scenarios/kubia-unhealthy.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "kubia-get",
        "scenarios/kubia-unhealthy.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "kubia-timeline",
        "scenarios/kubia-unhealthy.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "liveness-tcp-refused-then-open-timeline",
        "scenarios/liveness/tcp-socket-refused-then-open.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "liveness-failure-run-survives-a-crash-timeline",
        "scenarios/liveness/failure-run-survives-a-crash.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "liveness-exec-timeout-1.19-describe",
        "scenarios/liveness/exec-timeout-outcome-1-19.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "readiness-flapping-get",
        "scenarios/readiness/readiness-flapping.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "readiness-flapping-timeline",
        "scenarios/readiness/readiness-flapping.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "sidecar-startup-restarts-get",
        "scenarios/sidecars/23-14-sidecar-startup-probe-fails-restarts.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "startup-same-instant-get",
        "scenarios/startup/same-instant-startup-success-unseen-by-liveness.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "startup-slow-starter-saved-describe",
        "scenarios/startup/slow-starter-saved-by-startup-probe.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "startup-slow-starter-saved-timeline",
        "scenarios/startup/slow-starter-saved-by-startup-probe.yaml",
        None,
        Format::Timeline,
        None,
    ),
    (
        "crash-loop-get",
        "scenarios/restart-backoff/crash-loop-exit-1-after-2s.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "crash-loop-1.22-get",
        "scenarios/restart-backoff/crash-loop-exit-1-after-2s.yaml",
        Some("1.22"),
        Format::Get,
        None,
    ),
    (
        "crash-loop-describe",
        "scenarios/restart-backoff/crash-loop-exit-1-after-2s.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "delete-prestop-get",
        "scenarios/termination/delete-with-prestop-hook.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "delete-prestop-describe-end",
        "scenarios/termination/delete-with-prestop-hook.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "delete-prestop-describe-66s",
        "scenarios/termination/delete-with-prestop-hook.yaml",
        None,
        Format::Describe,
        Some(66),
    ),
    (
        "never-restart-describe",
        "scenarios/termination/restart-policy-never-liveness-failure.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "kubelet-restart-describe",
        "scenarios/kubelet-restart/back-off-forgotten.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "sidecar-liveness-get",
        "scenarios/sidecars/23-03-sidecar-liveness-exec-cat-restarts.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "sidecar-liveness-1.29-describe",
        "scenarios/sidecars/23-03-sidecar-liveness-exec-cat-restarts.yaml",
        Some("1.29"),
        Format::Describe,
        None,
    ),
    (
        "conformance-05-1.19-get",
        "scenarios/conformance/05-liveness-http-healthz-restarts-1.19.yaml",
        None,
        Format::Get,
        None,
    ),
    (
        "conformance-05-describe",
        "scenarios/conformance/05-liveness-http-healthz-restarts.yaml",
        None,
        Format::Describe,
        None,
    ),
    (
        "deployment-get",
        "scenarios/workloads/deployment-from-manifest-file.yaml",
        None,
        Format::Get,
        None,
    ),
];

fn view(
    name: &str,
    path: &str,
    kubernetes: Option<&str>,
    format: Format,
    at: Option<u64>,
) -> Result<(), Failed> {
    let text =
        std::fs::read_to_string(support::root().join(path)).map_err(|e| format!("{path}: {e}"))?;
    let overrides = Overrides {
        kubernetes: kubernetes.map(str::to_owned),
        ..Overrides::default()
    };
    let scenario = Scenario::load_with(&text, path, &mut support::RepoFiles, &overrides)
        .map_err(|e| e.render(&text))?;
    let options = ViewOptions {
        readable: true,
        at: at.map(|s| SimTime::ZERO.saturating_add(SimDuration::from_secs(s))),
        ..ViewOptions::default()
    };
    let run = || -> Result<String, Failed> {
        let bytes = render_with(&scenario, format, &options, Vec::new())
            .map_err(|e| format!("{name}: {e}"))?;
        String::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8: {e}").into())
    };
    let (first, second) = (run()?, run()?);
    if first != second {
        return Err(format!(
            "{name}: two runs differ:\n{}",
            support::diff(&first, &second)
        )
        .into());
    }
    for line in first.lines() {
        if format == Format::Get && line != line.trim_end() {
            return Err(format!("{name}: a get row ends in spaces: {line:?}").into());
        }
    }
    let golden = support::root()
        .join("tests/views")
        .join(format!("{name}.txt"));
    support::compare_golden(&golden, &first).map_err(Failed::from)
}

/// Every block of `docs/views.md` marked `<!-- golden: NAME -->` (or `<!-- golden: NAME
/// (first N lines) -->`) is the golden `tests/views/NAME.txt` (or its first N lines).
fn docs_quote_the_goldens() -> Result<(), Failed> {
    let root = support::root();
    let doc = std::fs::read_to_string(root.join("docs/views.md")).map_err(|e| e.to_string())?;
    let mut checked = 0;
    let mut rest = doc.as_str();
    while let Some(at) = rest.find("<!-- golden: ") {
        rest = &rest[at + "<!-- golden: ".len()..];
        let end = rest.find(" -->").ok_or("an unclosed golden marker")?;
        let marker = &rest[..end];
        let (name, lines) = match marker.split_once(" (first ") {
            Some((name, n)) => {
                let n: usize = n
                    .trim_end_matches(" lines)")
                    .parse()
                    .map_err(|_| format!("bad marker {marker:?}"))?;
                (name, Some(n))
            }
            None => (marker, None),
        };
        let start = rest.find("```text\n").ok_or("a marker without a block")? + 8;
        let stop = rest[start..].find("```").ok_or("an unclosed block")? + start;
        let quoted = &rest[start..stop];
        let golden = std::fs::read_to_string(root.join("tests/views").join(format!("{name}.txt")))
            .map_err(|e| format!("{name}: {e}"))?;
        let expected: String = match lines {
            Some(n) => golden.split_inclusive('\n').take(n).collect(),
            None => golden,
        };
        if quoted != expected {
            return Err(format!(
                "docs/views.md quotes {name} differently:\n{}",
                support::diff(&expected, quoted)
            )
            .into());
        }
        checked += 1;
        rest = &rest[stop..];
    }
    if checked == 0 {
        return Err("docs/views.md quotes no golden".into());
    }
    Ok(())
}

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let mut tests: Vec<libtest_mimic::Trial> = CASES
        .iter()
        .map(|&(name, path, kubernetes, format, at)| {
            libtest_mimic::Trial::test(name, move || view(name, path, kubernetes, format, at))
        })
        .collect();
    tests.push(libtest_mimic::Trial::test(
        "docs/views.md quotes the goldens",
        docs_quote_the_goldens,
    ));
    libtest_mimic::run(&args, tests).exit();
}
