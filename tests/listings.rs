//! The listing formats run the scenario once and are bounded while they print: at most
//! `MAX_LISTED_EVENTS` events, the same error as the count made before printing used to give,
//! and at most `MAX_OUTPUT_BYTES` bytes (issue 23: hostile input whose every event is large).
//! Each test says what a user sees; the limits are lowered so that the runs stay small.

mod support;

use probesim_report::{render_bounded, Format, Limits, ViewOptions};
use probesim_scenario::limit::check_listed;
use probesim_scenario::run::{horizon, RunFailure, MAX_LISTED_EVENTS};
use probesim_scenario::scenario::{NoFiles, Scenario};

fn scenario(text: &str) -> Scenario {
    Scenario::from_str_with(text, "test.yaml", &mut NoFiles)
        .unwrap_or_else(|e| panic!("{}", e.render(text)))
}

/// The bundled flaky endpoint (random outcomes and latencies from the seed) for three days
/// (about 47,000 events): a run that never repeats, so fast-forward cannot measure it cheaply.
fn random_day() -> Scenario {
    let path = support::root().join("scenarios/endpoints/random-outcomes-per-seed.yaml");
    let text = std::fs::read_to_string(path).expect("the bundled scenario");
    scenario(&text.replace("duration: 10m", "duration: 72h"))
}

/// A container that exits at once under a 1 s back-off cap, for a day: 21,600 events an hour,
/// a run that repeats from its first minute (under exact timing: jitter would make every cycle
/// differ).
const CRASH_LOOP: &str = "\
duration: 24h
kubernetes: \"1.37\"
timing: exact
kubelet:
  maxContainerRestartPeriod: 1s
pod:
  apiVersion: v1
  kind: Pod
  metadata: {name: web}
  spec:
    containers:
    - {name: web, image: nginx}
apps:
  web:
    exit: \"1 after 0s\"
";

/// Past the HOLD_EVENTS (20,000) held back before the run is measured.
const EVENTS: u64 = 30_000;

fn limits(events: u64) -> Limits {
    Limits {
        events,
        bytes: probesim_report::MAX_OUTPUT_BYTES,
    }
}

fn view(fast_forward: bool) -> ViewOptions {
    ViewOptions {
        readable: true,
        fast_forward,
        ..ViewOptions::default()
    }
}

/// Renders, expecting an error (the output is returned beside it).
fn refused(
    s: &Scenario,
    format: Format,
    view: &ViewOptions,
    limits: Limits,
) -> (RunFailure, Vec<u8>) {
    let mut out = Vec::new();
    match render_bounded(s, format, view, &mut out, limits) {
        Err(e) => (e, out),
        Ok(_) => panic!("{format}: {} bytes printed and no error", out.len()),
    }
}

/// The whole output, without limits.
fn unlimited(s: &Scenario, format: Format, view: &ViewOptions) -> Vec<u8> {
    let limits = Limits {
        events: u64::MAX,
        bytes: u64::MAX,
    };
    render_bounded(s, format, view, Vec::new(), limits).expect("no limit")
}

/// What the count made before printing says: the error every listing must give.
fn counted(s: &Scenario, format: &'static str, limit: u64) -> String {
    let end = horizon(s).expect("a duration");
    match check_listed(s, end, format, limit) {
        Err(e @ RunFailure::TooManyEvents { .. }) => e.to_string(),
        other => panic!("{format}: the count should refuse the run: {other:?}"),
    }
}

/// A run that repeats is measured with fast-forward as soon as the held output is large
/// enough, and refused with nothing printed, with the count's error: the time the limit is
/// passed is the step-by-step run's.
#[test]
fn a_repeating_run_past_the_limit_prints_nothing() {
    let s = scenario(CRASH_LOOP);
    for format in Format::ALL.into_iter().filter(|f| f.lists_events()) {
        let (error, out) = refused(&s, format, &view(true), limits(EVENTS));
        assert!(
            matches!(error, RunFailure::TooManyEvents { limit: EVENTS, .. }),
            "{format}: {error}"
        );
        assert_eq!(error.to_string(), counted(&s, format.as_str(), EVENTS));
        assert!(out.is_empty(), "{format}: {} bytes printed", out.len());
    }
}

/// A run that never repeats is counted while it is printed: a streaming format has written the
/// events up to the limit when it stops, with the same error as the count made first.
#[test]
fn a_run_that_never_repeats_stops_at_the_limit_as_it_prints() {
    let s = random_day();
    for format in [Format::Jsonl, Format::Json, Format::Timeline] {
        let (error, out) = refused(&s, format, &view(true), limits(EVENTS));
        assert_eq!(error.to_string(), counted(&s, format.as_str(), EVENTS));
        // What was written is the beginning of the whole output, the events before the limit.
        let all = unlimited(&s, format, &view(true));
        assert!(all.starts_with(&out), "{format}: not a prefix");
        assert!(
            out.len() > all.len() / 2 && out.len() < all.len(),
            "{format}: {} of {} bytes",
            out.len(),
            all.len()
        );
    }
    // A picture writes nothing until the end, so it still prints nothing.
    let (error, out) = refused(&s, Format::Svg, &view(true), limits(EVENTS));
    assert_eq!(error.to_string(), counted(&s, "svg", EVENTS));
    assert!(out.is_empty());
}

/// `--no-fast-forward`: nothing is measured ahead, every event is simulated once, as it is
/// printed; a repeating run past the limit stops there like any other.
#[test]
fn without_fast_forward_the_count_is_made_while_printing() {
    let s = scenario(CRASH_LOOP);
    let (error, out) = refused(&s, Format::Jsonl, &view(false), limits(EVENTS));
    assert_eq!(error.to_string(), counted(&s, "jsonl", EVENTS));
    let all = unlimited(&s, Format::Jsonl, &view(false));
    assert!(
        all.starts_with(&out) && !out.is_empty(),
        "{} bytes",
        out.len()
    );
}

/// A run within the limit prints the same bytes as without one, whether it ends before the
/// output is let out (an hour of the flaky endpoint) or after (the day).
#[test]
fn a_run_within_the_limit_prints_all_of_it() {
    for hours in ["1h", "24h"] {
        let s = random_day();
        let text = std::fs::read_to_string(
            support::root().join("scenarios/endpoints/random-outcomes-per-seed.yaml"),
        )
        .expect("the bundled scenario");
        let s = if hours == "1h" {
            scenario(&text.replace("duration: 10m", "duration: 1h"))
        } else {
            s
        };
        for format in [Format::Jsonl, Format::Json, Format::Timeline] {
            let mut bounded = Vec::new();
            render_bounded(&s, format, &view(true), &mut bounded, limits(10_000_000))
                .expect("within the limit");
            let mut unbounded = Vec::new();
            render_bounded(&s, format, &view(true), &mut unbounded, limits(u64::MAX))
                .expect("no limit");
            assert!(bounded == unbounded, "{hours} {format}: the bytes differ");
            assert!(!bounded.is_empty());
        }
    }
}

/// Issue 23: output was bounded in events, not bytes: a 1 MB `httpGet` path, quoted by every
/// failed probe's message, printed 1.2 GB of json in 10 minutes. Here a 100 KB path refused
/// every second, under a 4 MiB limit: every listing format that quotes each message stops at
/// the limit with an error that names it, having written no more than the limit (the timeline
/// for people folds repeated failures into one line and stays under it).
#[test]
fn a_listing_past_its_byte_limit_stops_with_a_clear_error() {
    let path = format!("/{}", "a".repeat(100_000));
    let text = format!(
        "name: long-path\nkubernetes: \"1.37\"\nduration: 10m\npod:\n  apiVersion: v1\n  kind: Pod\n  \
         metadata: {{name: p}}\n  spec:\n    containers:\n    - name: app\n      image: x\n      \
         ports: [{{containerPort: 8080}}]\n      \
         livenessProbe: {{httpGet: {{path: \"{path}\", port: 8080}}, periodSeconds: 1}}\n\
         apps:\n  app:\n    probes: {{liveness: refused}}\n"
    );
    let s = scenario(&text);
    let limit = 4 << 20;
    let limits = Limits {
        events: MAX_LISTED_EVENTS,
        bytes: limit,
    };
    let verbose = ViewOptions::default();
    for (format, view) in [
        (Format::Json, view(true)),
        (Format::Jsonl, view(true)),
        (Format::Timeline, verbose),
    ] {
        let (error, out) = refused(&s, format, &view, limits);
        let RunFailure::Io(e) = &error else {
            panic!("{format}: {error}");
        };
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge, "{format}: {e}");
        let message = e.to_string();
        assert!(
            message.starts_with(&format!(
                "the output is too large for --format {format}: more than 4 MiB would be written (the limit), the limit being passed at "
            )) && message.ends_with(
                "; use --format summary, which keeps no history, or a --for shorter than that"
            ),
            "{message}"
        );
        assert!(
            out.len() as u64 <= limit && out.len() as u64 > limit / 2,
            "{format}: {} bytes",
            out.len()
        );
    }
    // Without the limit the same run is far larger.
    let out = unlimited(&s, Format::Jsonl, &view(true));
    assert!(out.len() as u64 > limit, "{} bytes", out.len());
}
