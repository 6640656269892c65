//! Hand-made pods, statuses and events for the expectation tests here and the report tests of
//! probesim-report (which includes this file by path: test fixtures are no public API).

use probesim_core::event::{KillMessage, OutputKind};
use probesim_core::{
    Conditions, ContainerSpec, ContainerState, ContainerStatus, Event, EventKind, EventType,
    ExitReason, Handler, KillCause, KillReason, KubeEvent, Message, ObjectRef, Outcome, Phase,
    PodSpec, PodStatus, Port, ProbeKind, ProbeOutput, ProbeResult, Scheme, SimDuration, SimTime,
    SyncTrigger, Terminated, WaitingReason,
};

/// `kubia-unhealthy` with one container `kubia`.
pub fn pod() -> PodSpec {
    PodSpec::new("kubia-unhealthy").with_container(ContainerSpec::new("kubia", "luksa/kubia"))
}

/// The liveness probe's handler: `GET http://:8080/`.
pub fn http() -> Handler {
    Handler::HttpGet {
        scheme: Scheme::Http,
        host: None,
        port: Port::Number(8080),
        path: "/".into(),
    }
}

/// A terminated instance.
pub fn terminated(exit_code: i32, started: u64, finished: u64) -> Terminated {
    Terminated {
        exit_code,
        reason: ExitReason::for_code(exit_code),
        started_at: SimTime::from_secs(started),
        finished_at: SimTime::from_secs(finished),
    }
}

/// Waiting in CrashLoopBackOff after `restarts` restarts, the last death at `finished`.
pub fn crash_looping(restarts: u32, finished: u64) -> ContainerStatus {
    ContainerStatus {
        state: ContainerState::Waiting(Some(WaitingReason::CrashLoopBackOff {
            backoff: SimDuration::from_secs(300),
        })),
        last_state: Some(terminated(137, finished - 30, finished)),
        ready: false,
        started: false,
        restart_count: restarts,
    }
}

/// A pod status with these containers, phase Running and the Ready condition `ready`.
pub fn status(containers: Vec<ContainerStatus>, ready: bool) -> PodStatus {
    PodStatus {
        phase: Phase::Running,
        conditions: Conditions {
            ready_to_start_containers: Some(true),
            initialized: true,
            ready,
            containers_ready: ready,
            pod_scheduled: true,
        },
        init_containers: Vec::new(),
        containers,
        deletion_timestamp: None,
        removed: false,
    }
}

/// One event of every kind, in a plausible order, borrowing `handler` and `status`.
pub fn every_kind<'a>(handler: &'a Handler, status: &'a ContainerStatus) -> Vec<Event<'a>> {
    let at = |ms: u64, kind| Event {
        t: SimTime::from_millis(ms),
        kind,
    };
    let output = |kind| ProbeOutput {
        handler,
        pod_ip: "10.0.0.5",
        kind,
        texts: None,
    };
    vec![
        at(
            0,
            EventKind::Sync {
                trigger: SyncTrigger::Create,
            },
        ),
        at(
            0,
            EventKind::Start {
                container: "kubia",
                restart_count: 0,
            },
        ),
        at(
            0,
            EventKind::Started {
                container: "kubia",
                started: true,
            },
        ),
        at(
            0,
            EventKind::Phase {
                phase: Phase::Running,
            },
        ),
        at(
            10_000,
            EventKind::Probe {
                container: "kubia",
                probe: ProbeKind::Liveness,
                outcome: Outcome::Success,
                output: output(OutputKind::Empty),
                duration: SimDuration::ZERO,
            },
        ),
        at(
            80_500,
            EventKind::Probe {
                container: "kubia",
                probe: ProbeKind::Liveness,
                outcome: Outcome::Failure,
                output: output(OutputKind::HttpStatus(500)),
                duration: SimDuration::from_millis(500),
            },
        ),
        at(
            80_500,
            EventKind::Result {
                container: "kubia",
                probe: ProbeKind::Liveness,
                result: ProbeResult::Failure,
            },
        ),
        at(
            80_500,
            EventKind::Kill {
                container: "kubia",
                reason: KillReason::LivenessProbe,
                cause: KillCause::Liveness,
                grace: SimDuration::from_secs(30),
            },
        ),
        at(
            80_500,
            EventKind::Event(KubeEvent {
                event_type: EventType::Normal,
                reason: "Killing",
                object: ObjectRef::Container("kubia"),
                message: Message::Killing {
                    container: "kubia",
                    kind: KillMessage::Liveness { restart: true },
                },
                recorded: None,
            }),
        ),
        at(
            110_000,
            EventKind::Exit {
                container: "kubia",
                exit_code: 137,
                reason: ExitReason::Error,
            },
        ),
        at(
            110_000,
            EventKind::Ready {
                container: "kubia",
                ready: false,
            },
        ),
        at(110_000, EventKind::PodReady { ready: false }),
        at(
            111_000,
            EventKind::Status {
                container: "kubia",
                status,
            },
        ),
        at(
            111_000,
            EventKind::BackOff {
                container: "kubia",
                backoff: SimDuration::from_secs(10),
            },
        ),
    ]
}
