//! `cargo bench -p probesim-core`: engine throughput and memory over long horizons.
//!
//! Each case runs in a child process of this binary so that its peak resident memory
//! (`VmHWM`) is its own. Events go to a counting sink only, so memory must not grow with the
//! horizon. Cases:
//! - `kubia`: the kubia-unhealthy pod (liveness httpGet, 200 five times then 500, SIGTERM
//!   ignored), over 1 and 30 days;
//! - `busy`: three containers, each with startup, readiness and liveness probes at
//!   `periodSeconds: 1`, over 1 and 7 days.

use std::process::Command;
use std::time::Instant;

use probesim_core::{
    Answer, Attempt, Behaviours, ContainerSpec, CountSink, Handler, KubeletConfig, PodSpec, Port,
    ProbeKind, ProbeSpec, ProbeTiming, Profile, PullPolicy, Response, Scheme, Sigterm, SimTime,
    Simulation,
};

const DAY: u64 = 86_400;

fn http() -> Handler {
    Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port: Port::Number(8080),
        path: "/".into(),
    }
}

fn kubia() -> Simulation {
    let liveness = ProbeSpec::new(http(), ProbeTiming::default()).expect("valid probe");
    let mut c = ContainerSpec::new("kubia", "luksa/kubia-unhealthy")
        .with_probe(ProbeKind::Liveness, liveness);
    c.pull_policy = PullPolicy::Always;
    c.app.sigterm = Sigterm::Ignore;
    let pod = PodSpec::new("kubia-unhealthy").with_container(c);
    let mut behaviours = Behaviours::new(&pod);
    let app = behaviours.add(Box::new({
        let (mut instance, mut n) = (u32::MAX, 0u32);
        move |a: &Attempt| {
            if a.instance != instance {
                (instance, n) = (a.instance, 0);
            }
            n = n.saturating_add(1);
            Response::now(Answer::Status(if n <= 5 { 200 } else { 500 }))
        }
    }));
    behaviours.bind(0, ProbeKind::Liveness, app);
    Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    )
}

fn busy() -> Simulation {
    let timing = ProbeTiming {
        period_seconds: 1,
        ..ProbeTiming::default()
    };
    let mut pod = PodSpec::new("busy");
    for name in ["web", "worker", "proxy"] {
        let mut c = ContainerSpec::new(name, "example/app:1.0");
        for kind in ProbeKind::ALL {
            c = c.with_probe(kind, ProbeSpec::new(http(), timing).expect("valid probe"));
        }
        pod = pod.with_container(c);
    }
    let behaviours = Behaviours::new(&pod);
    Simulation::new(
        pod,
        Profile::newest(),
        KubeletConfig::default(),
        0,
        behaviours,
    )
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[expect(clippy::disallowed_methods, reason = "a benchmark measures wall time")]
fn run_case(case: &str, days: u64) {
    let mut sim = match case {
        "kubia" => kubia(),
        "busy" => busy(),
        other => panic!("unknown case {other}"),
    };
    let mut sink = CountSink::default();
    let start = Instant::now();
    sim.run_until(SimTime::from_secs(days * DAY), &mut sink)
        .expect("run");
    let secs = start.elapsed().as_secs_f64();
    println!("{} {} {secs} {}", sink.probes, sink.total, peak_rss_kib());
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--case") {
        let case = args.get(i + 1).map_or("kubia", String::as_str);
        let days = args.get(i + 2).and_then(|d| d.parse().ok()).unwrap_or(1);
        run_case(case, days);
        return;
    }
    let exe = std::env::current_exe().expect("own path");
    println!(
        "{:<6} {:>5} {:>14} {:>12} {:>9} {:>14} {:>10}",
        "case", "days", "probe runs", "events", "seconds", "probes/s", "peak RSS"
    );
    for (case, days) in [("kubia", 1), ("kubia", 30), ("busy", 1), ("busy", 7)] {
        let mut best: Option<(u64, u64, f64, u64)> = None;
        for _ in 0..3 {
            let out = Command::new(&exe)
                .args(["--case", case, &days.to_string()])
                .output()
                .expect("child");
            let text = String::from_utf8_lossy(&out.stdout);
            let f: Vec<&str> = text.split_whitespace().collect();
            let parsed = (
                f.first().and_then(|v| v.parse().ok()).unwrap_or(0),
                f.get(1).and_then(|v| v.parse().ok()).unwrap_or(0),
                f.get(2).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN),
                f.get(3).and_then(|v| v.parse().ok()).unwrap_or(0),
            );
            if best.is_none_or(|b| parsed.2 < b.2) {
                best = Some(parsed);
            }
        }
        let (probes, events, secs, rss) = best.unwrap_or((0, 0, f64::NAN, 0));
        let rate = probes as f64 / secs;
        println!(
            "{case:<6} {days:>5} {probes:>14} {events:>12} {secs:>9.3} {rate:>14.0} {:>7} KiB",
            rss
        );
    }
}
