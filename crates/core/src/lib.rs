//! probesim-core: a pure, deterministic model of how the Kubernetes kubelet probes containers
//! and reacts to the results. It does no I/O, reads no clock and no environment, starts no
//! threads and keeps no global state: time is a value handed in, and the only randomness is one
//! `rand_chacha` generator seeded by the caller and owned by the [`Simulation`].
//!
//! What goes in: a validated [`PodSpec`] (probes, restart policy, grace periods, each
//! container's [`AppSpec`]), a semantics [`Profile`] (one per Kubernetes minor), the kubelet's
//! timing knobs ([`KubeletConfig`]), a seed, and one [`Behaviour`] per probe binding that says
//! how the application answers each attempt. What comes out: a stream of [`Event`]s pushed to a
//! [`Sink`] in timeline order (probe runs, result changes, kills, exits, starts, back-offs,
//! readiness and phase changes, Kubernetes Events), and the API-visible [`PodStatus`] at any
//! point. The engine jumps from deadline to deadline; it never ticks through idle time and keeps
//! no history, so a month of simulated time needs memory for the state only.
//!
//! Rules cited in comments (`P…`, `R…`) are listed in docs/rules.md, each with its kubelet
//! source, the releases it holds for and the tests that pin it.
//!
//! ```
//! use probesim_core::{
//!     Answer, Attempt, Behaviours, ContainerSpec, Handler, KubeletConfig, PodSpec, Port,
//!     ProbeKind, ProbeSpec, ProbeTiming, Profile, Response, Scheme, SimTime, Simulation, VecSink,
//! };
//!
//! let liveness = ProbeSpec::new(
//!     Handler::HttpGet { scheme: Scheme::Http, host: None, port: Port::Number(8080), path: "/".into() },
//!     ProbeTiming::default(),
//! )?;
//! let pod = PodSpec::new("kubia")
//!     .with_container(ContainerSpec::new("kubia", "luksa/kubia").with_probe(ProbeKind::Liveness, liveness));
//! let mut behaviours = Behaviours::new(&pod);
//! // 200 for the first five requests of each instance, then 500.
//! let app = behaviours.add(Box::new({
//!     let (mut instance, mut n) = (u64::MAX, 0);
//!     move |a: &Attempt| {
//!         if a.instance != instance { (instance, n) = (a.instance, 0); }
//!         n += 1;
//!         Response::now(Answer::Status(if n <= 5 { 200 } else { 500 }))
//!     }
//! }));
//! behaviours.bind(0, ProbeKind::Liveness, app);
//! let mut sim = Simulation::new(pod, Profile::newest(), KubeletConfig::default(), 0, behaviours);
//! let mut sink = VecSink::default();
//! sim.run_until(SimTime::from_secs(120), &mut sink)?;
//! let kills: Vec<_> = sink.of_kind("kill").map(|r| r.t.to_string()).collect();
//! assert_eq!(kills, ["80"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod behaviour;
pub mod cycle;
pub mod event;
mod initial;
pub mod profile;
#[cfg(any(test, feature = "proptest"))]
pub mod proptest;
pub mod recorder;
pub mod sim;
pub mod sink;
pub mod spec;
pub mod time;

pub use behaviour::{
    AlwaysOk, Answer, Attempt, Behaviour, BehaviourShortcuts, Drawing, Draws, HandlerFamily,
    Response, SeededDraws,
};
pub use event::{
    ContainerState, ContainerStatus, Event, EventKind, EventType, ExitReason, KillCause,
    KillReason, KubeEvent, Message, ObjectRef, Outcome, Phase, ProbeOutput, ProbeResult, Recorded,
    SyncTrigger, Terminated, WaitingReason,
};
pub use profile::{Gate, GateError, Profile};
pub use recorder::Recorder;
pub use sim::{Behaviours, Conditions, KubeletConfig, PodStatus, RunEnd, RunError, Simulation};
pub use sink::{CountSink, FastForward, Flow, NameSlots, Record, Sink, VecSink};
pub use spec::{
    AppSpec, ContainerSpec, Handler, PodSpec, Port, ProbeKind, ProbeSpec, ProbeTiming, PullPolicy,
    RestartPolicy, RestartRule, Scheme, SelfExit, Sigterm, SpecError,
};
pub use time::{SimDuration, SimTime};
