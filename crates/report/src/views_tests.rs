//! Tests of the kubectl views and the timeline for people, on real runs of the book's pod.

use probesim_core::{Handler, Port, ProbeSpec, ProbeTiming, Profile, Scheme, SimDuration, SimTime};
use probesim_scenario::scenario::Scenario;

use crate::{probe_line, render_with, Filter, Format, Rfc1123z, ViewOptions};

/// The book's kubia-unhealthy pod under `kubernetes`, with an image pull of `pull`.
fn kubia(kubernetes: &str, duration: &str, pull: &str) -> Scenario {
    let yaml = format!(
        "name: kubia\nkubernetes: \"{kubernetes}\"\nduration: {duration}\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {{name: kubia-liveness}}\n  spec:\n    containers:\n    - image: luksa/kubia-unhealthy\n      name: kubia\n      livenessProbe:\n        httpGet: {{path: /, port: 8080}}\napps:\n  kubia:\n    pull: {pull}\n    sigterm: ignore\n    probes: {{liveness: \"5x200 then 500\"}}\n"
    );
    Scenario::from_str(&yaml, "kubia.yaml").expect("a valid scenario")
}

fn render(scenario: &Scenario, format: Format, view: &ViewOptions) -> String {
    let bytes = render_with(scenario, format, view, Vec::new()).expect("a run");
    String::from_utf8(bytes).expect("UTF-8")
}

fn readable() -> ViewOptions {
    ViewOptions {
        readable: true,
        ..ViewOptions::default()
    }
}

#[test]
fn get_prints_the_printer_cells_of_every_watch_event() {
    // R46–R49: the API server's printer at each change; RESTARTS "ago" from 1.22.
    let out = render(&kubia("1.37", "30m", "0s"), Format::Get, &readable());
    let mut lines = out.lines();
    assert_eq!(
        lines.next(),
        Some("NAME             READY   STATUS              RESTARTS   AGE")
    );
    for line in lines {
        let cells: Vec<String> = line.split("   ").map(|c| c.trim().to_owned()).collect();
        assert!(cells.len() >= 4, "{line}");
    }
    assert!(
        out.contains("   0/1     CrashLoopBackOff    6 (1s ago)   12m\n"),
        "{out}"
    );
    // RememberWidths: the first "ago" cell is wider than RESTARTS was, and pushes AGE right.
    assert!(
        out.contains("\nkubia-liveness   1/1     Running             1 (1s ago)   111s\n"),
        "{out}"
    );
    let old = render(&kubia("1.21", "30m", "0s"), Format::Get, &readable());
    assert!(!old.contains("ago"), "{old}");
    assert!(
        old.contains("0/1     CrashLoopBackOff    6          12m\n"),
        "{old}"
    );
}

#[test]
fn get_prints_a_row_for_a_watch_event_that_changes_no_column() {
    // R46: kubectl prints every watch event. The startup probe's success sets `started` at
    // 20 s, a status write no column shows; readiness follows at 25 s.
    let yaml = "name: started\nduration: 40s\ntiming: exact\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: web}\n  spec:\n    containers:\n    - name: web\n      image: example/web:1.0\n      startupProbe:\n        httpGet: {path: /, port: 8080}\n        periodSeconds: 10\n        failureThreshold: 5\n      readinessProbe:\n        httpGet: {path: /ready, port: 8080}\n        periodSeconds: 5\n        initialDelaySeconds: 25\napps:\n  web:\n    probes: {startup: \"1x500 then 200\"}\n";
    let scenario = Scenario::from_str(yaml, "started.yaml").expect("a valid scenario");
    let out = render(&scenario, Format::Get, &readable());
    assert_eq!(
        out,
        "\
NAME   READY   STATUS              RESTARTS   AGE
web    0/1     ContainerCreating   0          0s
web    0/1     Running             0          1s
web    0/1     Running             0          20s
web    1/1     Running             0          25s
"
    );
}

#[test]
fn describe_at_27_minutes_on_1_19_reads_like_the_book() {
    // R51–R55 on the pod of Kubernetes in Action, ch. 4.
    let scenario = kubia("1.19", "30m", "2s");
    let view = ViewOptions {
        at: Some(SimTime::from_secs(27 * 60)),
        ..readable()
    };
    let out = render(&scenario, Format::Describe, &view);
    for line in [
        "Name:             kubia-liveness\n",
        "Status:           Running\n",
        "    State:          Waiting\n      Reason:       CrashLoopBackOff\n",
        "    Last State:     Terminated\n      Reason:       Error\n      Exit Code:    137\n",
        "    Restart Count:  9\n",
        "    Liveness:       http-get http://:8080/ delay=0s timeout=1s period=10s #success=1 #failure=3\n",
        "Events:\n  Type     Reason     Age",
    ] {
        assert!(out.contains(line), "{line:?} missing from\n{out}");
    }
    // 1.19: the scheduler's event has an empty From, the kubelet's name the node.
    let scheduled = out
        .lines()
        .find(|l| l.contains("Normal   Scheduled"))
        .expect("a Scheduled event");
    assert!(scheduled.contains("27m   "), "{scheduled}");
    assert!(!scheduled.contains("kubelet"), "{scheduled}");
    let unhealthy = out
        .lines()
        .find(|l| l.contains("Unhealthy"))
        .expect("an Unhealthy event");
    assert!(unhealthy.contains(" (x"), "{unhealthy}");
    assert!(unhealthy.contains("kubelet, minikube"), "{unhealthy}");
    assert!(unhealthy.ends_with("Liveness probe failed: HTTP probe failed with statuscode: 500"));
    // Nothing the recorder saw after 27 minutes: the run stops there.
    assert!(!out.contains("28m"), "{out}");
}

#[test]
fn describe_names_the_source_and_the_field_path_by_release() {
    // R53: From is the component from 1.20; messages carry the field path from 1.35.
    let line = |kubernetes: &str| {
        let out = render(
            &kubia(kubernetes, "5m", "0s"),
            Format::Describe,
            &readable(),
        );
        out.lines()
            .find(|l| l.contains("Killing"))
            .expect("a Killing event")
            .to_owned()
    };
    let old = line("1.20");
    assert!(old.contains("  kubelet  "), "{old}");
    assert!(old.ends_with("  Container kubia failed liveness probe, will be restarted"));
    let new = line("1.35");
    assert!(
        new.ends_with(
            "  spec.containers{kubia}: Container kubia failed liveness probe, will be restarted"
        ),
        "{new}"
    );
}

#[test]
fn describe_forgets_events_an_hour_after_their_last_update() {
    // R53: --event-ttl. After two hours only what was updated in the last hour is left, and
    // the scheduler's event of the first second is gone.
    let out = render(&kubia("1.37", "2h", "0s"), Format::Describe, &readable());
    let events = &out[out.find("Events:").expect("events")..];
    assert!(!events.contains("Scheduled"), "{events}");
    assert!(events.contains("BackOff"), "{events}");
}

#[test]
fn readable_timeline_counts_toward_the_threshold_and_folds_the_unhealthy_event() {
    let out = render(&kubia("1.37", "5m", "0s"), Format::Timeline, &readable());
    assert!(
        out.contains(" 1m10s  kubia      probe     liveness failure 2/3 (HTTP probe failed with statuscode: 500)  Warning Unhealthy [x2 since 1m]\n"),
        "{out}"
    );
    assert!(
        out.contains("liveness result: Success (the worker's initial value)"),
        "{out}"
    );
    // The verdict names the run that reached the threshold (P-rules of the worker).
    assert!(
        out.contains("liveness result: Failure (3 failures in a row reach failureThreshold 3)\n"),
        "{out}"
    );
    // One line per probe: no separate Unhealthy line repeats it.
    assert!(!out.contains("event     Warning Unhealthy"), "{out}");
    assert_eq!(out.matches("\nLegend:\n").count(), 1, "{out}");
    assert!(!out.contains('\u{1b}'));
    // TIME is a duration; the exact seconds stay in the JSON.
    assert!(out.contains("\n    3m10s  kubia      kill "), "{out}");
}

#[test]
fn readable_timeline_filters_kinds_and_containers_and_colours_on_request() {
    let scenario = kubia("1.37", "5m", "0s");
    let view = ViewOptions {
        filter: Filter {
            kinds: Some(Filter::parse_kinds("kill,exit").expect("kinds")),
            container: Some("kubia".to_owned()),
        },
        colour: true,
        ..readable()
    };
    let out = render(&scenario, Format::Timeline, &view);
    let body: Vec<&str> = out.lines().skip(3).take_while(|l| !l.is_empty()).collect();
    assert!(!body.is_empty());
    for line in &body {
        assert!(
            line.contains("  kill      ") || line.contains("  exit      "),
            "{line}"
        );
        assert!(
            line.contains("\u{1b}[31m"),
            "kills and exits are red: {line:?}"
        );
    }
    // Without colour, no escape at all; an unknown kind is refused with the list.
    let err = Filter::parse_kinds("kill,restart").unwrap_err();
    assert!(err.starts_with("unknown kind `restart` (expected one or more of probe, result"));
}

#[test]
fn exact_table_is_unchanged_by_the_readable_view() {
    // `-v` keeps today's table: seconds, separate Unhealthy lines, pod syncs.
    let view = ViewOptions {
        verbose: true,
        ..ViewOptions::default()
    };
    let out = render(&kubia("1.37", "2m", "0s"), Format::Timeline, &view);
    assert!(out.contains(" 70s  kubia      event     Warning Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500  [x2 since 60s]\n"), "{out}");
    assert!(
        out.contains("(pod)      sync      pod sync (create)"),
        "{out}"
    );
    assert!(!out.contains("Legend"));
}

#[test]
fn probe_lines_follow_describe_probe() {
    // R51.
    let probe = |handler| ProbeSpec::new(handler, ProbeTiming::default()).expect("valid");
    let p119 = Profile::for_minor(19).expect("1.19");
    let exec = probe(Handler::Exec {
        command: vec!["cat".into(), "/tmp/health".into()],
    });
    assert_eq!(
        probe_line(&exec, &p119),
        "exec [cat /tmp/health] delay=0s timeout=1s period=10s #success=1 #failure=3"
    );
    let tcp = probe(Handler::TcpSocket {
        host: None,
        port: Port::Number(8080),
    });
    assert_eq!(
        probe_line(&tcp, &Profile::newest()),
        "tcp-socket :8080 delay=0s timeout=1s period=10s successThreshold=1 failureThreshold=3"
    );
    let https = probe(Handler::HttpGet {
        scheme: Scheme::Https,
        host: Some("example.com".into()),
        port: Port::Unparsable("web".into()),
        path: "/healthz".into(),
    });
    assert!(
        probe_line(&https, &p119).starts_with("http-get https://example.com:web/healthz delay=0s")
    );
    let grpc = probe(Handler::Grpc {
        port: 5000,
        service: String::new(),
    });
    assert!(probe_line(&grpc, &p119).starts_with("grpc <pod>:5000  delay=0s"));
}

#[test]
fn timestamps_print_as_rfc1123z_from_the_fixed_origin() {
    assert_eq!(
        Rfc1123z(SimTime::ZERO).to_string(),
        "Mon, 01 Jan 2024 00:00:00 +0000"
    );
    assert_eq!(
        Rfc1123z(SimTime::from_secs(27 * 60 + 5)).to_string(),
        "Mon, 01 Jan 2024 00:27:05 +0000"
    );
    // 59 days later: the leap day.
    let leap = SimTime::ZERO.saturating_add(SimDuration::from_secs(59 * 86_400 + 3_661));
    assert_eq!(
        Rfc1123z(leap).to_string(),
        "Thu, 29 Feb 2024 01:01:01 +0000"
    );
}

#[test]
fn describe_of_a_removed_pod_is_not_found() {
    let yaml = "name: gone\nduration: 2m\ndeleteAt: {at: 10}\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: web}\n  spec:\n    containers:\n    - {name: app, image: nginx}\n";
    let scenario = Scenario::from_str(yaml, "gone.yaml").expect("valid");
    assert_eq!(
        render(&scenario, Format::Describe, &readable()),
        "Error from server (NotFound): pods \"web\" not found\n"
    );
    let during = ViewOptions {
        at: Some(SimTime::from_secs(10)),
        ..readable()
    };
    let out = render(&scenario, Format::Describe, &during);
    assert!(
        out.contains(
            "Status:                    Terminating (lasts 0s)\nTermination Grace Period:  30s\n"
        ),
        "{out}"
    );
}

#[test]
fn every_release_has_the_three_views() {
    use probesim_core::profile::{NEWEST_MINOR, OLDEST_MINOR};
    for minor in OLDEST_MINOR..=NEWEST_MINOR {
        let scenario = kubia(&format!("1.{minor}"), "15m", "0s");
        let get = render(&scenario, Format::Get, &readable());
        assert!(
            get.starts_with("NAME             READY   STATUS "),
            "1.{minor}: {get}"
        );
        assert!(get.contains("CrashLoopBackOff"), "1.{minor}: {get}");
        assert_eq!(get.contains(" ago)"), minor >= 22, "1.{minor}: {get}");
        let describe = render(&scenario, Format::Describe, &readable());
        assert!(
            describe.contains("    Restart Count:  "),
            "1.{minor}: {describe}"
        );
        assert!(
            describe.contains("Exit Code:    137"),
            "1.{minor}: {describe}"
        );
        assert_eq!(
            describe.contains("#success=1 #failure=3"),
            minor < 37,
            "1.{minor}"
        );
        let timeline = render(&scenario, Format::Timeline, &readable());
        assert!(
            timeline.contains("liveness failure 3/3"),
            "1.{minor}: {timeline}"
        );
    }
}

#[test]
fn a_failure_run_survives_a_crash_in_the_readable_timeline() {
    // P25, P33, E5(b): `resultRun` carries over to the new container, so the first failure
    // after the crash is the third of the run, and kills; after the kill (P35) it starts at 1.
    let text = include_str!("../../../scenarios/liveness/failure-run-survives-a-crash.yaml");
    let scenario = Scenario::from_str(text, "failure-run-survives-a-crash.yaml").expect("valid");
    let out = render(&scenario, Format::Timeline, &readable());
    let probes: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("  probe  "))
        .take(4)
        .map(|l| l.split("  probe     ").nth(1).unwrap_or_default())
        .collect();
    assert_eq!(
        probes
            .iter()
            .map(|p| p.split(" (").next().unwrap_or_default())
            .collect::<Vec<_>>(),
        [
            "liveness failure 1/3",
            "liveness failure 2/3",
            "liveness failure 3/3",
            "liveness failure 1/3"
        ],
        "{out}"
    );
}

#[test]
fn the_sinks_initial_status_is_the_simulations() {
    // `ReportSink::new` has no simulation to ask: it starts `get` from `PodStatus::initial`,
    // which must be the status a fresh simulation reports.
    for minor in [19, 29, 37] {
        let scenario = kubia(&format!("1.{minor}"), "1m", "0s");
        let sim = scenario.simulation();
        assert_eq!(
            &probesim_core::PodStatus::initial(sim.pod(), sim.profile()),
            sim.status(),
            "1.{minor}"
        );
    }
}

/// Applies every event to a [`PodTracker`](crate::PodTracker).
struct Tracking<'p> {
    pod: &'p probesim_core::PodSpec,
    tracker: crate::PodTracker,
}

impl probesim_core::Sink for Tracking<'_> {
    type Error = std::convert::Infallible;

    fn event(
        &mut self,
        event: &probesim_core::Event<'_>,
    ) -> Result<probesim_core::Flow, Self::Error> {
        self.tracker.apply(self.pod, event.t, &event.kind);
        Ok(probesim_core::Flow::Continue)
    }
}

#[test]
fn the_tracker_rebuilds_the_simulations_status_from_the_events() {
    // R36–R45 as the events report them: at the end of each run, the rebuilt status is the
    // simulation's (but for PodReadyToStartContainers, which no event reports).
    let files = [
        include_str!("../../../scenarios/kubia-unhealthy.yaml"),
        include_str!("../../../scenarios/sidecars/23-03-sidecar-liveness-exec-cat-restarts.yaml"),
        include_str!("../../../scenarios/sidecars/termination-order-job.yaml"),
        include_str!("../../../scenarios/termination/delete-with-prestop-hook.yaml"),
        include_str!("../../../scenarios/readiness/readiness-flapping.yaml"),
    ];
    for text in files {
        let scenario = Scenario::from_str(text, "s.yaml").expect("valid");
        let end = probesim_scenario::run::horizon(&scenario).expect("a horizon");
        let mut sim = scenario.simulation();
        let pod = sim.pod().clone();
        let mut sink = Tracking {
            pod: &pod,
            tracker: crate::PodTracker::new(sim.status().clone(), sim.profile()),
        };
        sim.run_until(end, &mut sink).expect("a run");
        let mut rebuilt = sink.tracker.status().clone();
        rebuilt.conditions.ready_to_start_containers =
            sim.status().conditions.ready_to_start_containers;
        assert_eq!(&rebuilt, sim.status(), "{}", scenario.name);
    }
}

#[test]
fn only_the_listing_formats_are_held_to_the_event_limit() {
    // The summary and `describe` keep no history: no limit, even of zero events.
    let scenario = kubia("1.37", "5m", "0s");
    let end = probesim_scenario::run::horizon(&scenario).expect("a duration");
    for format in Format::ALL {
        let checked = crate::check_listing(&scenario, end, format, 0);
        assert_eq!(
            checked.is_err(),
            format.lists_events(),
            "{format}: {checked:?}"
        );
    }
}

#[test]
fn the_picture_draws_a_new_instances_first_readiness_result_as_its_initial_value() {
    // P25: after the kill at 60 s a readiness run probes the status the kubelet still holds;
    // the worker records the new instance's initial Failure a sync later, at 61 s, with no run
    // of its own then. It is drawn as the initial value's circle, not as a crossing.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/cmd/fixtures/emitted-web.yaml"
    ))
    .expect("the fixture");
    let scenario = Scenario::from_str(&text, "emitted-web.yaml").expect("valid");
    let svg = render(&scenario, Format::Svg, &ViewOptions::default());
    assert!(
        svg.contains("<title>t=61s readiness worker's initial value for the new container: Failure (P25)</title>"),
        "no initial value at 61 s: {}", svg.matches("<title>t=61s").count()
    );
    assert!(!svg.contains("<title>t=61s readiness verdict: Failure"));
}
