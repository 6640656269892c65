//! prober_test.go and feature_gate_test.go (docs/rules.md#the-kubelets-own-unit-tests)

use super::*;

/// `TestProbe` (prober_test.go), the cases the engine can express, for every probe type:
/// a failing probe → Failure; a succeeding one → Success; an exec error → Failure with an
/// error, which the worker throws away after three attempts with one "errored" event. Not in the
/// original: an HTTP warning (a 3xx) counts as Success.
///
/// P3 (outcome → result), P31 (errors discarded: no run counting, nothing recorded), P40 (three
/// attempts for errors only), P41 (events).
///
/// Not expressible: "no probe" (workers exist only for probes that are set, P6/P37) and "no
/// handler" (a probe always has a handler after validation); "unknown outcome without error"
/// does not occur, the engine's handlers classify such answers as failures directly.
#[test]
fn test_probe() {
    for profile in profiles(ALL) {
        for kind in ProbeKind::ALL {
            let started = kind != ProbeKind::Startup;
            let title = kind.title();
            let cases = [
                (FAILURE, Some(ProbeResult::Failure), 1),
                (SUCCESS, Some(ProbeResult::Success), 1),
                (Answer::Error, None, 3),
            ];
            for (answer, result, attempts) in cases {
                let mut b = Bench::single(profile.clone(), kind, |_| {});
                b.set_status(Phase::Running, running(1, started));
                b.set_answer(answer);
                let what = ctx(&profile, format_args!("{kind}, {answer}"));
                assert!(b.do_probe(), "{what}");
                assert_eq!(b.calls.get(), attempts, "{what}: attempts");
                match result {
                    Some(r) => {
                        assert_eq!(b.worker().last_result, r, "{what}");
                        assert_eq!(b.result(), Some(r), "{what}");
                    }
                    None => {
                        // The initial value only; nothing was counted (P33 would have made the
                        // run 1 whatever the result).
                        assert_eq!(b.worker().last_result, ProbeResult::Success, "{what}");
                        assert_eq!(b.worker().result_run, 0, "{what}");
                        assert_eq!(b.result(), Some(b.worker().initial_value()), "{what}");
                    }
                }
                let unhealthy: Vec<_> = b
                    .events()
                    .into_iter()
                    .filter(|e| e.contains("Unhealthy"))
                    .collect();
                match answer {
                    Answer::Error => assert_eq!(
                        unhealthy,
                        [format!("Warning Unhealthy: {title} probe errored: rpc error: code = Unknown desc = probe error (scripted)")],
                        "{what}"
                    ),
                    Answer::Ok => assert!(unhealthy.is_empty(), "{what}"),
                    _ => assert_eq!(unhealthy, [format!("Warning Unhealthy: {title} probe failed: ")], "{what}"),
                }
            }
            // A warning is a success for the worker (P3.2).
            let http = Handler::HttpGet {
                scheme: Scheme::Http,
                host: None,
                port: Port::Number(8080),
                path: "/".into(),
            };
            let probe = ProbeSpec::new(http, test_timing(|_| {})).expect("valid probe");
            let mut b = Bench::new(profile.clone(), test_pod(kind, probe), 0, kind);
            b.set_status(Phase::Running, running(1, started));
            b.set_answer(Answer::Status(302));
            assert!(b.do_probe());
            assert_eq!(
                b.result(),
                Some(ProbeResult::Success),
                "{}",
                ctx(&profile, "3xx")
            );
        }
    }
}

/// An httpGet liveness probe on the test pod, with the pod IP of the original's fixtures.
fn http_bench(profile: Profile, handler: Handler) -> Bench {
    let probe = ProbeSpec::new(handler, test_timing(|_| {})).expect("valid probe");
    let mut pod = test_pod(ProbeKind::Liveness, probe);
    pod.pod_ip = "127.0.0.1".into();
    let mut b = Bench::new(profile, pod, 0, ProbeKind::Liveness);
    b.set_status(Phase::Running, running(1, true));
    b
}

/// The output of one refused HTTP or TCP probe against `handler`.
fn refused_output(profile: Profile, handler: Handler) -> String {
    let mut b = http_bench(profile, handler);
    b.set_answer(Answer::Refused);
    assert!(b.do_probe());
    let event = b
        .events()
        .into_iter()
        .find(|e| e.contains("Unhealthy"))
        .expect("a failure event");
    event
        .strip_prefix("Warning Unhealthy: Liveness probe failed: ")
        .expect("the failure template")
        .to_owned()
}

/// `TestFormatURL` (prober_test.go): scheme, host, port and path (with a query kept) make the
/// probe URL, here as the Go HTTP client prints it in a refused probe's output.
///
/// P49 (URL construction), P50 (transport errors show the URL).
#[test]
fn test_format_url() {
    let cases = [
        (Scheme::Http, "localhost", 93, "", "http://localhost:93"),
        (
            Scheme::Https,
            "localhost",
            93,
            "/path",
            "https://localhost:93/path",
        ),
        (
            Scheme::Http,
            "localhost",
            93,
            "?foo",
            "http://localhost:93?foo",
        ),
        (
            Scheme::Https,
            "localhost",
            93,
            "/path?bar",
            "https://localhost:93/path?bar",
        ),
    ];
    for profile in profiles(ALL) {
        for (scheme, host, port, path, url) in cases {
            let handler = Handler::HttpGet {
                scheme,
                host: Some(host.into()),
                port: Port::Number(port),
                path: path.into(),
            };
            let output = refused_output(profile.clone(), handler);
            assert_eq!(
                output,
                format!("Get \"{url}\": dial tcp {host}:{port}: connect: connection refused"),
                "{}",
                ctx(&profile, url)
            );
        }
    }
}

/// `TestGetURLParts`' last case (host "hostname", port 76, path "path") through the kubelet's
/// `formatURL`: the path is parsed as a URL reference and Go's `URL.String` puts a `/` between
/// the host and a path that does not start with one, so the URL is `http://hostname:76/path`.
/// API validation only requires the path to be non-empty, so such a path reaches the kubelet.
///
/// P49.
#[test]
fn test_format_url_relative_path() {
    for profile in profiles(ALL) {
        let handler = Handler::HttpGet {
            scheme: Scheme::Http,
            host: Some("hostname".into()),
            port: Port::Number(76),
            path: "path".into(),
        };
        assert_eq!(
            refused_output(profile.clone(), handler),
            "Get \"http://hostname:76/path\": dial tcp hostname:76: connect: connection refused",
            "{}",
            ctx(&profile, "relative path")
        );
    }
}

/// The engine's side of `TestGetURLParts` / `TestGetTCPAddrParts`: the port arrives resolved
/// (named-port lookup and decimal parsing happen when a scenario is validated, in
/// crates/scenario), so what is left is how an unusable port fails (the resolution error at every
/// attempt, retried, reported once as "errored", nothing recorded, the application never
/// reached) and where a usable one sends the probe: `make` builds a handler without a host,
/// whose refused output on port 76 is `first`; `given` has a host and its refused output is
/// `second`.
fn port_parts(make: impl Fn(Port) -> Handler, given: Handler, first: &str, second: &str) {
    let bad = [
        (Port::OutOfRange(-1), "invalid port number: -1"),
        (
            Port::Unparsable(String::new()),
            "strconv.Atoi: parsing \"\": invalid syntax",
        ),
        (
            Port::Unparsable("not-found".into()),
            "strconv.Atoi: parsing \"not-found\": invalid syntax",
        ),
    ];
    for profile in profiles(ALL) {
        for (port, error) in bad.clone() {
            let mut b = http_bench(profile.clone(), make(port));
            assert!(b.do_probe());
            let what = ctx(&profile, error);
            assert_eq!(b.calls.get(), 0, "{what}: the application is not reached");
            assert_eq!(
                b.result(),
                Some(ProbeResult::Success),
                "{what}: only the initial value"
            );
            assert_eq!(b.worker().result_run, 0, "{what}");
            assert_eq!(
                b.events(),
                [format!(
                    "Warning Unhealthy: Liveness probe errored: {error}"
                )],
                "{what}"
            );
        }
        // Usable ports: the probe's host, else the pod IP (127.0.0.1 in these fixtures).
        let output = refused_output(profile.clone(), make(Port::Number(76)));
        assert_eq!(output, first, "{}", ctx(&profile, first));
        let output = refused_output(profile.clone(), given.clone());
        assert_eq!(output, second, "{}", ctx(&profile, second));
    }
}

/// `TestGetURLParts` (prober_test.go), the engine's side (see [`port_parts`]): an httpGet probe
/// with an unusable port errors with the resolution error; a usable one targets the probe's
/// host, else the pod IP.
///
/// P39 (resolution errors and their texts), P40, P31, P41, P49.
#[test]
fn test_get_url_parts() {
    let http = |port| Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port,
        path: String::new(),
    };
    let given = Handler::HttpGet {
        scheme: Scheme::Http,
        host: Some("hostname".into()),
        port: Port::Number(118),
        path: "/path".into(),
    };
    port_parts(
        http,
        given,
        "Get \"http://127.0.0.1:76\": dial tcp 127.0.0.1:76: connect: connection refused",
        "Get \"http://hostname:118/path\": dial tcp hostname:118: connect: connection refused",
    );
}

/// `TestGetTCPAddrParts` (prober_test.go), the engine's side (see [`port_parts`]): the same for
/// a tcpSocket probe.
///
/// P39, P40, P31, P41, P51.
#[test]
fn test_get_tcp_addr_parts() {
    let tcp = |port| Handler::TcpSocket { host: None, port };
    let given = Handler::TcpSocket {
        host: Some("1.2.3.4".into()),
        port: Port::Number(118),
    };
    port_parts(
        tcp,
        given,
        "dial tcp 127.0.0.1:76: connect: connection refused",
        "dial tcp 1.2.3.4:118: connect: connection refused",
    );
}

/// `TestProbeScheduleFeatureGate` (feature_gate_test.go, master), the part that is released
/// behaviour: with `MutableContainerProbes` off (every modelled minor), a probe that takes 3 s
/// with a period of 10 s starts every 10 s (fixed rate). The gate-on schedule (every 13 s) is
/// upstream work not in any release modelled (docs/rules.md#upstream-work-that-is-not-simulated).
///
/// P15, P17.
#[test]
fn test_probe_schedule_feature_gate() {
    for profile in profiles(ALL) {
        let probe = exec_probe(|t| {
            t.period_seconds = 10;
            t.timeout_seconds = 5;
        });
        let pod = test_pod(ProbeKind::Liveness, probe);
        let mut behaviours = Behaviours::new(&pod);
        let b = behaviours.add(Box::new(|_: &Attempt| Response {
            answer: SUCCESS,
            latency: SimDuration::from_secs(3),
        }));
        behaviours.bind(0, ProbeKind::Liveness, b);
        let mut sim = Simulation::new(
            pod,
            profile.clone(),
            KubeletConfig::default(),
            7,
            behaviours,
        );
        let mut sink = VecSink::default();
        sim.run_until(SimTime::from_secs(60), &mut sink)
            .expect("run");
        // A probe record is written when the probe ends: it began 3 s earlier.
        let starts: Vec<u64> = sink
            .of_kind("probe")
            .map(|r| r.t.as_millis().saturating_sub(3000))
            .collect();
        assert!(
            starts.len() >= 4,
            "{}",
            ctx(&profile, format_args!("{starts:?}"))
        );
        for pair in starts.windows(2) {
            assert_eq!(
                pair[1] - pair[0],
                10_000,
                "{}",
                ctx(&profile, format_args!("{starts:?}"))
            );
        }
    }
}
