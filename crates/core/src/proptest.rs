//! Strategies that generate only valid engine inputs, for property tests here and in the crates
//! that build on the core (feature `proptest`).
//!
//! Every value is one the API server would store after defaulting and validation (P53–P62): at most
//! one probe of each kind per container, thresholds and periods of at least 1, `successThreshold` 1
//! for liveness and startup probes (P59), a probe-level grace period only on liveness and startup
//! probes (P60), usable port numbers (P58), non-empty exec commands (P57), container names unique
//! across init and regular containers, probes on init containers only for sidecars (P61) and
//! sidecars only where the profile runs them (R58), and gRPC probes only where the profile runs
//! them (P52). Behaviours answer only with outcomes that can apply to the probe's handler
//! (docs/script-language.md#outcomes), and are bound by engine index: init containers first.
//!
//! A [`Case`] may also delete the pod through the API and restart the kubelet at some instant.
//!
//! Sizes are kept small on purpose (1–3 regular containers, 0–2 init containers, periods of
//! seconds, pulls of at most 3 s) so that a property can simulate tens of minutes per case and
//! still run in milliseconds.

use ::proptest::prelude::*;

use crate::behaviour::{Answer, Attempt, Behaviour, BehaviourShortcuts, HandlerFamily, Response};
use crate::profile::{Gate, Profile, NEWEST_MINOR, OLDEST_MINOR};
use crate::sim::{Behaviours, KubeletConfig, Simulation};
use crate::spec::{
    AppSpec, ContainerSpec, Handler, PodSpec, Port, ProbeKind, ProbeSpec, ProbeTiming, PullPolicy,
    RestartPolicy, Scheme, SelfExit, Sigterm,
};
use crate::time::{SimDuration, SimTime};

/// The numbers of a probe of `kind` after defaulting: delay 0–30 s, timeout 1–5 s, period
/// mostly 5–30 s and sometimes 1–4 s, failure threshold 1–6; a success threshold of 1 for
/// liveness and startup probes (P59) and 1–3 for readiness; a probe-level grace period of 1–60 s
/// sometimes on liveness and startup probes, never on readiness (P60).
pub fn probe_timing(kind: ProbeKind) -> impl Strategy<Value = ProbeTiming> {
    let success = match kind {
        ProbeKind::Readiness => 1_i32..=3,
        ProbeKind::Liveness | ProbeKind::Startup => 1_i32..=1,
    };
    let grace = match kind {
        ProbeKind::Readiness => Just(None).boxed(),
        ProbeKind::Liveness | ProbeKind::Startup => {
            prop_oneof![3 => Just(None), 1 => (1_i64..=60).prop_map(Some)].boxed()
        }
    };
    (
        prop_oneof![3 => Just(0_i32), 1 => 1_i32..=30],
        1_i32..=5,
        prop_oneof![3 => 5_i32..=30, 1 => 1_i32..=4],
        success,
        1_i32..=6,
        grace,
    )
        .prop_map(
            |(initial_delay_seconds, timeout_seconds, period_seconds, success, failure, grace)| {
                ProbeTiming {
                    initial_delay_seconds,
                    timeout_seconds,
                    period_seconds,
                    success_threshold: success,
                    failure_threshold: failure,
                    termination_grace_period_seconds: grace,
                }
            },
        )
}

/// A port number in 1…65535, mostly a usual one.
fn port_number() -> impl Strategy<Value = u16> {
    prop_oneof![
        3 => prop::sample::select(vec![80_u16, 443, 8080, 9090]),
        1 => 1_u16..=u16::MAX,
    ]
}

/// A probe target host: mostly none (the pod IP), sometimes an IPv4 or IPv6 literal.
fn host() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        4 => Just(None),
        1 => prop::sample::select(vec!["127.0.0.1", "::1", "10.0.0.9"])
            .prop_map(|h| Some(h.to_owned())),
    ]
}

/// Any handler with valid fields (P56–P58): `exec` with a non-empty command, `httpGet` and
/// `tcpSocket` with a usable port number, `grpc` with a port in 1…65535.
pub fn handler() -> impl Strategy<Value = Handler> {
    let command = prop::sample::select(vec![
        vec!["cat", "/tmp/healthy"],
        vec!["true"],
        vec!["sh", "-c", "exit 0"],
    ])
    .prop_map(|words| Handler::Exec {
        command: words.into_iter().map(str::to_owned).collect(),
    });
    let http = (
        prop_oneof![3 => Just(Scheme::Http), 1 => Just(Scheme::Https)],
        host(),
        port_number(),
        prop::sample::select(vec!["/", "/healthz", "/ready?full=1"]),
    )
        .prop_map(|(scheme, host, port, path)| Handler::HttpGet {
            scheme,
            host,
            port: Port::Number(port),
            path: path.to_owned(),
        });
    let tcp = (host(), port_number()).prop_map(|(host, port)| Handler::TcpSocket {
        host,
        port: Port::Number(port),
    });
    let grpc =
        (port_number(), prop::sample::select(vec!["", "liveness"])).prop_map(|(port, service)| {
            Handler::Grpc {
                port,
                service: service.to_owned(),
            }
        });
    prop_oneof![1 => command, 2 => http, 1 => tcp, 1 => grpc]
}

/// A valid probe of `kind`: any [`handler`] with [`probe_timing`] for that kind.
pub fn probe_spec(kind: ProbeKind) -> impl Strategy<Value = ProbeSpec> {
    (handler(), probe_timing(kind))
        .prop_filter_map(
            "the timing strategy yields only valid numbers",
            |(handler, timing)| ProbeSpec::new(handler, timing).ok(),
        )
        // Boxed, as are the other building blocks of a pod: a value tree of nested tuples is large,
        // and a case nests many of them (debug builds would need more than a test thread's stack).
        .boxed()
}

/// How a process behaves apart from probe answers: a pull of 0–3 s (mostly none; sometimes later
/// pulls of 0–1 s, or the image already on the node), sometimes an
/// exit by itself with code 0–3 after 1–600 s of uptime, and SIGTERM either ignored or followed
/// by an exit (by the signal or with code 0–3) after 0–10 s (docs/scenario-format.md#apps).
pub fn app_spec() -> impl Strategy<Value = AppSpec> {
    let pull = prop_oneof![
        2 => Just(SimDuration::ZERO),
        1 => (1_u64..=3000).prop_map(SimDuration::from_millis),
    ];
    let exit = prop_oneof![
        1 => Just(None),
        1 => (0_i32..=3, 1_u64..=600).prop_map(|(code, secs)| Some(SelfExit {
            code,
            after: SimDuration::from_secs(secs),
        })),
    ];
    let sigterm = prop_oneof![
        1 => Just(Sigterm::Ignore),
        2 => (prop::option::of(0_i32..=3), 0_u64..=10_000).prop_map(|(code, ms)| {
            Sigterm::Exit {
                code,
                after: SimDuration::from_millis(ms),
            }
        }),
    ];
    let pre_stop = prop_oneof![
        3 => Just(None),
        1 => (0_u64..=10_000).prop_map(|ms| Some(SimDuration::from_millis(ms))),
    ];
    // R67: sometimes later pulls of their own length, sometimes the image already on the node.
    let then = prop_oneof![
        3 => Just(None),
        1 => (0_u64..=1000).prop_map(|ms| Some(SimDuration::from_millis(ms))),
    ];
    (
        pull,
        exit,
        sigterm,
        pre_stop,
        then,
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(pull, exit, sigterm, pre_stop, pull_then, image_present)| AppSpec {
                pull,
                pull_then,
                image_present,
                exit,
                sigterm,
                pre_stop,
            },
        )
        .boxed()
}

/// One regular container with 0–3 probes (at most one of each kind), an [`app_spec`], and a
/// name from a small set; [`pod`] makes the names unique.
pub fn container() -> impl Strategy<Value = ContainerSpec> {
    probed_container(&["app", "web", "sidecar", "cache"])
}

/// A container named from `names` with 0–3 probes (at most one of each kind) and an
/// [`app_spec`].
fn probed_container(names: &[&'static str]) -> impl Strategy<Value = ContainerSpec> + use<> {
    (
        prop::sample::select(names.to_vec()),
        prop::sample::select(vec!["example/app:1.0", "example/app:latest", "busybox"]),
        prop_oneof![
            3 => Just(PullPolicy::IfNotPresent),
            2 => Just(PullPolicy::Always),
            1 => Just(PullPolicy::Never),
        ],
        prop::option::of(probe_spec(ProbeKind::Startup)),
        prop::option::of(probe_spec(ProbeKind::Readiness)),
        prop::option::of(probe_spec(ProbeKind::Liveness)),
        app_spec(),
    )
        .prop_map(
            |(name, image, pull_policy, startup, readiness, liveness, app)| {
                let mut c = ContainerSpec::new(name, image);
                c.pull_policy = pull_policy;
                c.probes = [startup, readiness, liveness];
                c.app = app;
                c
            },
        )
        .boxed()
}

/// A regular init container (R18): no probes (P61), and a process that exits by itself after
/// 1–60 s, mostly with code 0 (it completes) and sometimes with 1–3 (it fails).
pub fn init_container() -> impl Strategy<Value = ContainerSpec> {
    (
        prop::sample::select(vec!["init", "setup", "migrate", "app"]),
        prop::sample::select(vec!["busybox", "example/migrate:1.0"]),
        prop_oneof![
            3 => Just(PullPolicy::IfNotPresent),
            1 => Just(PullPolicy::Always),
        ],
        app_spec(),
        prop_oneof![3 => Just(0_i32), 1 => 1_i32..=3],
        1_u64..=60,
    )
        .prop_map(|(name, image, pull_policy, mut app, code, secs)| {
            app.exit = Some(SelfExit {
                code,
                after: SimDuration::from_secs(secs),
            });
            let mut c = ContainerSpec::new(name, image);
            c.pull_policy = pull_policy;
            c.app = app;
            c
        })
        .boxed()
}

/// A sidecar: an init container with `restartPolicy: Always` (R58–R62), 0–3 probes and any
/// [`app_spec`].
pub fn sidecar() -> impl Strategy<Value = ContainerSpec> {
    probed_container(&["proxy", "mesh", "sidecar"]).prop_map(|mut c| {
        c.restartable = true;
        c
    })
}

/// 0–2 init containers, about half the time none: regular ones ([`init_container`]) and
/// sidecars ([`sidecar`]) in any order.
pub fn init_containers() -> impl Strategy<Value = Vec<ContainerSpec>> {
    prop_oneof![
        1 => Just(Vec::new()),
        1 => prop::collection::vec(prop_oneof![init_container(), sidecar()], 1..=2),
    ]
}

/// A pod of 0–2 [`init_containers`] and 1–3 [`container`]s with names unique across both (a
/// repeated name gets its engine index as a suffix), any restart policy, and a grace period of
/// 0–60 s.
pub fn pod() -> impl Strategy<Value = PodSpec> {
    (
        init_containers(),
        prop::collection::vec(container(), 1..=3),
        prop_oneof![
            Just(RestartPolicy::Always),
            Just(RestartPolicy::OnFailure),
            Just(RestartPolicy::Never),
        ],
        prop_oneof![3 => Just(30_i64), 2 => 0_i64..=60],
    )
        .prop_map(|(init, containers, restart_policy, grace)| {
            let mut pod = PodSpec::new("prop");
            pod.restart_policy = restart_policy;
            pod.termination_grace_period_seconds = grace;
            let ni = init.len();
            for (i, mut c) in init.into_iter().enumerate() {
                if pod.all_containers().any(|other| other.name == c.name) {
                    c.name = format!("{}-{i}", c.name);
                }
                pod.init_containers.push(c);
            }
            for (i, mut c) in containers.into_iter().enumerate() {
                if pod.all_containers().any(|other| other.name == c.name) {
                    c.name = format!("{}-{}", c.name, ni + i);
                }
                pod.containers.push(c);
            }
            pod
        })
        .boxed()
}

/// The profile of any modelled minor (1.19 … 1.37), sometimes with feature gates overridden
/// where that release allows it (`--feature-gates`); refused overrides are skipped.
pub fn profile() -> impl Strategy<Value = Profile> {
    (
        OLDEST_MINOR..=NEWEST_MINOR,
        prop::collection::vec(
            (prop::sample::select(Gate::ALL.to_vec()), any::<bool>()),
            0..=2,
        ),
    )
        .prop_filter_map("every minor in range is modelled", |(minor, overrides)| {
            let mut profile = Profile::for_minor(minor)?;
            for (gate, value) in overrides {
                // An override the release refuses is simply not applied.
                let _ = profile.set_gate(gate.name(), value);
            }
            Some(profile)
        })
}

/// The kubelet's timing knobs: mostly the canonical defaults, sometimes a young kubelet (P14),
/// a probe-sync delay of up to 2 s, another resync period, jitter from the seeded generator,
/// a node-level maximum back-off of 1–300 s (R28), or create/start and kill latencies of up to
/// 500 ms (R65, R66).
pub fn kubelet() -> impl Strategy<Value = KubeletConfig> {
    let started_ago = prop_oneof![
        3 => Just(SimDuration::from_secs(3600)),
        1 => Just(SimDuration::ZERO),
        1 => (0_u64..=60_000).prop_map(SimDuration::from_millis),
    ];
    let probe_sync_delay = prop_oneof![
        3 => Just(SimDuration::ZERO),
        1 => (1_u64..=2000).prop_map(SimDuration::from_millis),
    ];
    let resync = prop_oneof![
        3 => Just(SimDuration::from_secs(60)),
        1 => (10_u64..=90).prop_map(SimDuration::from_secs),
    ];
    let max = prop_oneof![
        4 => Just(None),
        1 => (1_u64..=300).prop_map(|s| Some(SimDuration::from_secs(s))),
    ];
    // R65, R66: the runtime's latencies, mostly none (timing: exact), else up to half a second.
    let latency = || {
        prop_oneof![
            2 => Just(SimDuration::ZERO),
            1 => (1_u64..=500).prop_map(SimDuration::from_millis),
        ]
    };
    (
        (started_ago, probe_sync_delay, resync, any::<bool>(), max),
        (latency(), latency()),
    )
        .prop_map(
            |((started_ago, probe_sync_delay, resync, jitter, max), (start, kill))| KubeletConfig {
                started_ago,
                probe_sync_delay,
                resync,
                jitter,
                max_container_restart_period: max,
                start_latency: start,
                kill_latency: kill,
                ..KubeletConfig::default()
            },
        )
}

/// A deterministic application: a non-empty table of responses, answered in turn and cycled,
/// starting over with each new container instance (a restarted process forgets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerTable {
    responses: Vec<Response>,
    instance: Option<u64>,
    next: usize,
}

impl AnswerTable {
    /// A table of `responses`; an empty list answers `ok` at once.
    #[must_use]
    pub fn new(responses: Vec<Response>) -> AnswerTable {
        AnswerTable {
            responses,
            instance: None,
            next: 0,
        }
    }

    /// The responses, in the order they are given.
    #[must_use]
    pub fn responses(&self) -> &[Response] {
        &self.responses
    }
}

impl Behaviour for AnswerTable {
    fn respond(&mut self, attempt: &Attempt) -> Response {
        if self.instance != Some(attempt.instance) {
            self.instance = Some(attempt.instance);
            self.next = 0;
        }
        let Some(&response) = self.responses.get(self.next) else {
            return Response::now(Answer::Ok);
        };
        self.next = (self.next + 1) % self.responses.len();
        response
    }

    fn shortcuts(&mut self) -> Option<&mut dyn BehaviourShortcuts> {
        Some(self)
    }

    fn fork(&self) -> Option<Box<dyn Behaviour>> {
        Some(Box::new(self.clone()))
    }
}

impl BehaviourShortcuts for AnswerTable {
    /// A table of one response (or of none) answers the same at every attempt.
    fn constant(&self) -> Option<Response> {
        match self.responses[..] {
            [] => Some(Response::now(Answer::Ok)),
            [one] => Some(one),
            _ => None,
        }
    }
}

/// The handler family of a handler.
#[must_use]
pub fn family(handler: &Handler) -> HandlerFamily {
    match handler {
        Handler::Exec { .. } => HandlerFamily::Exec,
        Handler::HttpGet { .. } => HandlerFamily::Http,
        Handler::TcpSocket { .. } => HandlerFamily::Tcp,
        Handler::Grpc { .. } => HandlerFamily::Grpc,
    }
}

/// Any answer that can come from a probe of that handler family (docs/script-language.md#outcomes).
pub fn answer_for(family: HandlerFamily) -> impl Strategy<Value = Answer> {
    let mut answers: Vec<Answer> = [200_u16, 204, 302, 404, 500, 503]
        .into_iter()
        .map(Answer::Status)
        .chain((0..=2).map(Answer::Exit))
        .chain([
            Answer::Ok,
            Answer::Fail,
            Answer::Open,
            Answer::Refused,
            Answer::Timeout,
            Answer::Serving,
            Answer::NotServing,
            Answer::Unknown,
            Answer::Error,
        ])
        .collect();
    answers.retain(|a| a.applies_to(family));
    prop::sample::select(answers)
}

/// A response to a probe with that handler and timeout: weighted towards success so that
/// containers live long enough to be interesting; latency mostly none, sometimes up to 1.5 s past
/// the timeout (which makes the probe time out, P17).
pub fn response_for(
    family: HandlerFamily,
    timeout: SimDuration,
) -> impl Strategy<Value = Response> {
    let latency_ms = timeout.as_millis().saturating_add(1500);
    (
        prop_oneof![3 => Just(Answer::Ok), 2 => answer_for(family)],
        prop_oneof![
            3 => Just(SimDuration::ZERO),
            1 => (1_u64..=latency_ms).prop_map(SimDuration::from_millis),
        ],
    )
        .prop_map(|(answer, latency)| Response { answer, latency })
}

/// An [`AnswerTable`] of 1–6 responses fit for `probe`.
pub fn answer_table(probe: &ProbeSpec) -> impl Strategy<Value = AnswerTable> + use<> {
    prop::collection::vec(
        response_for(family(probe.handler()), probe.timeout()),
        1..=6,
    )
    .prop_map(AnswerTable::new)
}

/// Everything one run needs, generated together so that it is valid as a whole.
#[derive(Clone, Debug)]
pub struct Case {
    /// The pod.
    pub pod: PodSpec,
    /// The semantics profile.
    pub profile: Profile,
    /// The kubelet's knobs.
    pub kubelet: KubeletConfig,
    /// The seed of the simulation's generator.
    pub seed: u64,
    /// One answer table per probe: `(engine index, probe kind, table)`, init containers first.
    pub answers: Vec<(usize, ProbeKind, AnswerTable)>,
    /// A deletion through the API: when, and its grace period (the pod's when `None`).
    pub delete: Option<(SimTime, Option<SimDuration>)>,
    /// When the kubelet process restarts, if it does.
    pub kubelet_restart: Option<SimTime>,
}

impl Case {
    /// Fresh behaviours for the pod, each table at its first answer.
    #[must_use]
    pub fn behaviours(&self) -> Behaviours {
        let mut behaviours = Behaviours::new(&self.pod);
        for (container, kind, table) in &self.answers {
            let index = behaviours.add(Box::new(table.clone()));
            behaviours.bind(*container, *kind, index);
        }
        behaviours
    }

    /// A new simulation of this case, at time zero, with its deletion and kubelet restart
    /// planned.
    #[must_use]
    pub fn simulation(&self) -> Simulation {
        let mut sim = Simulation::new(
            self.pod.clone(),
            self.profile.clone(),
            self.kubelet,
            self.seed,
            self.behaviours(),
        );
        if let Some((at, grace)) = self.delete {
            sim.delete_at(at, grace);
        }
        if let Some(at) = self.kubelet_restart {
            sim.restart_kubelet_at(at);
        }
        sim
    }
}

/// A [`pod`] valid under the profile: where the profile does not run gRPC probes (the gate is
/// off, P52) their handlers become `tcpSocket` probes of the same port; where gate
/// `StartupProbe` is off (1.19 only) the API server drops startup probes, and so does this;
/// where gate `SidecarContainers` is off the API server drops an init container's
/// `restartPolicy` (R58), and the probes it would then reject (P61) are left out.
pub fn pod_for(profile: &Profile) -> impl Strategy<Value = PodSpec> + use<> {
    let profile = profile.clone();
    pod().prop_map(move |pod| fit_to(&profile, pod))
}

/// What the API server stores of `pod` under `profile` (see [`pod_for`]).
#[must_use]
pub fn fit_to(profile: &Profile, mut pod: PodSpec) -> PodSpec {
    let grpc = profile.grpc_probes();
    let startup = profile.gate(Gate::StartupProbe);
    if !profile.gate(Gate::SidecarContainers) {
        for c in &mut pod.init_containers {
            c.restartable = false;
            c.probes = [None, None, None];
        }
    }
    for c in pod.init_containers.iter_mut().chain(&mut pod.containers) {
        if !startup {
            c.probes[ProbeKind::Startup.index()] = None;
        }
        if grpc {
            continue;
        }
        for slot in &mut c.probes {
            let Some(probe) = slot.as_ref() else { continue };
            if let Handler::Grpc { port, .. } = probe.handler() {
                let tcp = Handler::TcpSocket {
                    host: None,
                    port: Port::Number(*port),
                };
                *slot = ProbeSpec::new(tcp, probe.timing()).ok();
            }
        }
    }
    pod
}

/// An instant in the first ten minutes, half the time on a whole second (where it ties with the
/// kubelet's own whole-second deadlines).
fn instant() -> impl Strategy<Value = SimTime> {
    prop_oneof![
        1 => (0_u64..=600).prop_map(SimTime::from_secs),
        1 => (0_u64..=600_000).prop_map(SimTime::from_millis),
    ]
}

/// A deletion through the API (`deleteAt`): at an [`instant`] in the first ten minutes, mostly
/// with the pod's grace period and sometimes with a deletion grace period of 0–60 s.
pub fn deletion() -> impl Strategy<Value = (SimTime, Option<SimDuration>)> {
    (
        instant(),
        prop_oneof![
            2 => Just(None),
            1 => (0_u64..=60).prop_map(|s| Some(SimDuration::from_secs(s))),
        ],
    )
}

/// A kubelet restart (`kubelet.restartAt`) at an [`instant`] in the first ten minutes.
pub fn kubelet_restart() -> impl Strategy<Value = SimTime> {
    instant()
}

/// A whole [`Case`]: a [`profile`], a pod valid under it, [`kubelet`] knobs, any seed, an
/// [`answer_table`] for every probe of the pod, and a quarter of the time each a [`deletion`]
/// and a [`kubelet_restart`].
pub fn case() -> impl Strategy<Value = Case> {
    case_with(profile(), pod_for)
}

/// A [`Case`] like [`case`] whose profile comes from `profiles` and whose pod comes from
/// `pods` for that profile (which must yield only pods valid under it, like [`pod_for`]).
pub fn case_with<P, F, S>(profiles: P, pods: F) -> impl Strategy<Value = Case>
where
    P: Strategy<Value = Profile>,
    F: Fn(&Profile) -> S,
    S: Strategy<Value = PodSpec>,
{
    (profiles, kubelet(), any::<u64>())
        .prop_flat_map(move |(profile, kubelet, seed)| {
            (pods(&profile), Just(profile), Just(kubelet), Just(seed))
        })
        .prop_flat_map(|(pod, profile, kubelet, seed)| {
            let mut tables = Vec::new();
            for (c, spec) in pod.all_containers().enumerate() {
                for kind in ProbeKind::ALL {
                    if let Some(probe) = spec.probe(kind) {
                        tables.push(answer_table(probe).prop_map(move |t| (c, kind, t)));
                    }
                }
            }
            (
                Just(pod),
                Just(profile),
                Just(kubelet),
                Just(seed),
                tables,
                prop::option::weighted(0.25, deletion()),
                prop::option::weighted(0.25, kubelet_restart()),
            )
        })
        .prop_map(
            |(pod, profile, kubelet, seed, answers, delete, kubelet_restart)| Case {
                pod,
                profile,
                kubelet,
                seed,
                answers,
                delete,
                kubelet_restart,
            },
        )
}
