//! Semantics profiles: one per Kubernetes minor version, as data.
//!
//! Every behaviour that differs between releases is a field here, set in one table
//! ([`Profile::for_minor`]) from the release history in docs/versions.md. Engine code reads fields;
//! it never compares version numbers.

use core::fmt;

use crate::event::{
    BackOffWording, ExecTimeoutWording, LifecycleWording, PresentWording, PulledWording,
};
use crate::time::SimDuration;

/// The oldest modelled minor (1.19).
pub const OLDEST_MINOR: u8 = 19;
/// The newest modelled minor (1.37).
pub const NEWEST_MINOR: u8 = 37;

/// When `UpdatePodStatus` sends a manual trigger to a readiness worker (P45, P18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadinessTrigger {
    /// Never (1.19).
    Never,
    /// Only while the readiness cache has no entry for the container (1.21).
    NoEntry,
    /// Whenever a started container is not ready (≥1.22).
    NotReady,
}

/// How an exec probe's timeout is reported (P48).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecTimeout {
    /// Not recognised: outcome unknown with an error (retried, discarded), whose text is the
    /// runtime client's error of the release.
    Error(ExecTimeoutWording),
    /// A failure with the given output wording.
    Failure(ExecTimeoutWording),
}

/// How the pod worker requeues after a back-off error (R7, R8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackOffRequeue {
    /// A fixed delay (`kubelet.backoffRequeue`, 10 s) (≤1.34).
    Fixed,
    /// At the back-off expiry, at most `kubelet.resync` later (≥1.35).
    AtExpiry,
}

/// A feature gate a scenario may override (`featureGates:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Gate {
    /// `StartupProbe` (1.19 only; locked on from 1.20).
    StartupProbe,
    /// `ExecProbeTimeout` (1.20–1.34 settable; locked on from 1.35).
    ExecProbeTimeout,
    /// `ProbeTerminationGracePeriod` (1.21–1.27 settable).
    ProbeTerminationGracePeriod,
    /// `GRPCContainerProbe` (1.23–1.26 settable).
    GrpcContainerProbe,
    /// `SidecarContainers` (1.28–1.32 settable).
    SidecarContainers,
    /// `KubeletCrashLoopBackOffMax` (≥1.32).
    KubeletCrashLoopBackOffMax,
    /// `ReduceDefaultCrashLoopBackOffDecay` (≥1.33).
    ReduceDefaultCrashLoopBackOffDecay,
    /// `ContainerRestartRules` (≥1.34).
    ContainerRestartRules,
    /// `ChangeContainerStatusOnKubeletRestart` (≥1.35, deprecated, default off).
    ChangeContainerStatusOnKubeletRestart,
    /// `KubeletEnsureSecretPulledImages` (≥1.33, default on from 1.35).
    KubeletEnsureSecretPulledImages,
}

impl Gate {
    /// Every gate, in a fixed order.
    pub const ALL: [Gate; 10] = [
        Gate::StartupProbe,
        Gate::ExecProbeTimeout,
        Gate::ProbeTerminationGracePeriod,
        Gate::GrpcContainerProbe,
        Gate::SidecarContainers,
        Gate::KubeletCrashLoopBackOffMax,
        Gate::ReduceDefaultCrashLoopBackOffDecay,
        Gate::ContainerRestartRules,
        Gate::ChangeContainerStatusOnKubeletRestart,
        Gate::KubeletEnsureSecretPulledImages,
    ];

    /// The gate's name as in `--feature-gates`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Gate::StartupProbe => "StartupProbe",
            Gate::ExecProbeTimeout => "ExecProbeTimeout",
            Gate::ProbeTerminationGracePeriod => "ProbeTerminationGracePeriod",
            Gate::GrpcContainerProbe => "GRPCContainerProbe",
            Gate::SidecarContainers => "SidecarContainers",
            Gate::KubeletCrashLoopBackOffMax => "KubeletCrashLoopBackOffMax",
            Gate::ReduceDefaultCrashLoopBackOffDecay => "ReduceDefaultCrashLoopBackOffDecay",
            Gate::ContainerRestartRules => "ContainerRestartRules",
            Gate::ChangeContainerStatusOnKubeletRestart => "ChangeContainerStatusOnKubeletRestart",
            Gate::KubeletEnsureSecretPulledImages => "KubeletEnsureSecretPulledImages",
        }
    }

    /// Looks a gate up by name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Gate> {
        Gate::ALL.into_iter().find(|g| g.name() == name)
    }

    /// `(first minor with the gate, last minor where it can be changed, default per minor)`.
    const fn history(self, minor: u8) -> GateState {
        match self {
            Gate::StartupProbe => match minor {
                19 => GateState::Settable(true),
                20..=22 => GateState::Locked(true),
                _ => GateState::Absent(true),
            },
            Gate::ExecProbeTimeout => match minor {
                0..=19 => GateState::Absent(false),
                20..=34 => GateState::Settable(true),
                _ => GateState::Locked(true),
            },
            Gate::ProbeTerminationGracePeriod => match minor {
                0..=20 => GateState::Absent(false),
                21..=24 => GateState::Settable(false),
                25..=27 => GateState::Settable(true),
                28 => GateState::Locked(true),
                _ => GateState::Absent(true),
            },
            Gate::GrpcContainerProbe => match minor {
                0..=22 => GateState::Absent(false),
                23 => GateState::Settable(false),
                24..=26 => GateState::Settable(true),
                27..=28 => GateState::Locked(true),
                _ => GateState::Absent(true),
            },
            Gate::SidecarContainers => match minor {
                0..=27 => GateState::Absent(false),
                28 => GateState::Settable(false),
                29..=32 => GateState::Settable(true),
                _ => GateState::Locked(true),
            },
            Gate::KubeletCrashLoopBackOffMax => match minor {
                0..=31 => GateState::Absent(false),
                32..=34 => GateState::Settable(false),
                _ => GateState::Settable(true),
            },
            Gate::ReduceDefaultCrashLoopBackOffDecay => match minor {
                0..=32 => GateState::Absent(false),
                _ => GateState::Settable(false),
            },
            Gate::ContainerRestartRules => match minor {
                0..=33 => GateState::Absent(false),
                34 => GateState::Settable(false),
                _ => GateState::Settable(true),
            },
            Gate::ChangeContainerStatusOnKubeletRestart => match minor {
                0..=34 => GateState::Absent(true),
                _ => GateState::Settable(false),
            },
            // kube_features.go: alpha in 1.33 (off), beta in 1.35 (on).
            Gate::KubeletEnsureSecretPulledImages => match minor {
                0..=32 => GateState::Absent(false),
                33..=34 => GateState::Settable(false),
                _ => GateState::Settable(true),
            },
        }
    }
}

/// Whether a gate exists in a release and what it defaults to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GateState {
    /// Not a gate in this release; the behaviour is fixed to the value.
    Absent(bool),
    /// A gate with this default, which may be overridden.
    Settable(bool),
    /// A gate locked to this value.
    Locked(bool),
}

impl GateState {
    const fn value(self) -> bool {
        match self {
            GateState::Absent(v) | GateState::Settable(v) | GateState::Locked(v) => v,
        }
    }
}

/// Why a gate override was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GateError {
    /// No gate by that name is modelled.
    Unknown(String),
    /// The gate does not exist in this release.
    NotInRelease {
        /// Gate name.
        gate: &'static str,
        /// The release.
        minor: u8,
    },
    /// The gate is locked to a value in this release.
    Locked {
        /// Gate name.
        gate: &'static str,
        /// The release.
        minor: u8,
        /// The locked value.
        value: bool,
    },
}

impl fmt::Display for GateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateError::Unknown(name) => write!(f, "unknown feature gate {name:?}"),
            GateError::NotInRelease { gate, minor } => {
                write!(
                    f,
                    "feature gate {gate} does not exist in Kubernetes 1.{minor}"
                )
            }
            GateError::Locked { gate, minor, value } => {
                write!(
                    f,
                    "feature gate {gate} is locked to {value} in Kubernetes 1.{minor}"
                )
            }
        }
    }
}

impl std::error::Error for GateError {}

/// The behaviour switches of one Kubernetes minor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    minor: u8,
    gates: [bool; Gate::ALL.len()],
    /// P14: every new worker sleeps a random part of its period (1.19), instead of only those
    /// created within one period of the kubelet's start.
    pub jitter_always: bool,
    /// P44, R2: readiness and startup updates trigger a pod sync (≥1.21).
    pub readiness_startup_sync: bool,
    /// P45, P18: when readiness workers get manual triggers.
    pub readiness_trigger: ReadinessTrigger,
    /// P19: consuming a manual trigger restarts the worker's ticker (≥1.32).
    pub trigger_resets_grid: bool,
    /// P35: a startup worker holds after recording Success too (≥1.32).
    pub startup_holds_on_success: bool,
    /// P7: AddPod skips only an existing key instead of returning (≥1.37).
    pub add_pod_skips_existing: bool,
    /// P50: the redirect warning's output carries the `Probe terminated redirects` prefix (≥1.24).
    pub redirect_prefix: bool,
    /// R8 vs R7: how a back-off error is requeued.
    pub backoff_requeue: BackOffRequeue,
    /// R33.
    pub backoff_wording: BackOffWording,
    /// R56 (`Created`, `Started`).
    pub lifecycle_wording: LifecycleWording,
    /// R56 (`Pulled`).
    pub pulled_wording: PulledWording,
    /// R21/R22: probe-level grace periods are honoured by the kubelet (≥1.21, field present).
    pub probe_grace_field: bool,
    /// P12: pod termination stops liveness and startup workers first (≥1.23).
    pub stop_liveness_on_termination: bool,
    /// R42: the `PodReadyToStartContainers` condition is reported.
    pub ready_to_start_condition: bool,
    /// P46: `UpdatePodStatus` sets `started` for init containers too (≥1.28).
    pub init_container_started: bool,
    /// R54: the event spam filter's key includes the event type, so Normal and Warning events
    /// have separate buckets (≥1.32).
    pub event_spam_key_has_type: bool,
    /// P27: a terminated restartable init container keeps its probe workers even in a
    /// `restartPolicy: Never` pod (1.35, backported to the 1.34 patch releases).
    pub sidecar_workers_survive_exit: bool,
    /// R43: a pod the kubelet has finished with (deleted and all containers gone) is forced to
    /// `Succeeded`/`Failed` whatever its restart policy, and `TerminatePod` marks a pod that is
    /// still `Pending` or `Running` `Failed` (≥1.27).
    pub terminal_phase_forcing: bool,
    /// P25 (1.36+, with `ChangeContainerStatusOnKubeletRestart` off): a sidecar's startup
    /// worker that meets a container whose status already says `started` records Success for
    /// it before the usual initial value (which only a container that predates the kubelet's
    /// restart skips).
    pub sidecar_startup_keeps_started: bool,
    /// R24, R61: in a pod kill a sidecar's signal waits for its turn (`terminationOrdering`,
    /// with the beta of sidecars in 1.29); 1.28's alpha stops every container at once.
    pub sidecar_termination_ordering: bool,
    /// R42: a sidecar's readiness counts in `ContainersReady` and `Ready` (from 1.29).
    pub sidecar_readiness_counts: bool,
    /// R49: the `kubectl get` RESTARTS cell adds how long ago the last restart was (≥1.22).
    pub restarts_say_ago: bool,
    /// R47–R49: the API server's `printPod` knows sidecars (≥1.29).
    pub printer_knows_sidecars: bool,
    /// P58: a port name without a letter is `must contain at least one letter (a-z)` (≥1.25);
    /// before, `must contain at least one letter or number (a-z, 0-9)`.
    pub port_name_letter_wording: bool,
    /// P61: a probe on an init container that is not a sidecar is refused `without
    /// restartPolicy=Always` (≥1.28); before, `may not be set for init containers`.
    pub init_probe_wording_names_policy: bool,
    /// The API server serves CronJobs as `batch/v1beta1` (up to 1.24).
    pub cron_job_v1beta1: bool,
    /// The API server serves CronJobs as `batch/v1` (from 1.21).
    pub cron_job_v1: bool,
}

impl Profile {
    /// The newest modelled profile (1.37).
    #[must_use]
    pub fn newest() -> Profile {
        Profile::for_minor(NEWEST_MINOR).unwrap_or_else(|| unreachable!("1.37 is modelled"))
    }

    /// The profile of `1.<minor>`, if modelled (1.19 … 1.37).
    #[must_use]
    pub fn for_minor(minor: u8) -> Option<Profile> {
        if !(OLDEST_MINOR..=NEWEST_MINOR).contains(&minor) {
            return None;
        }
        let mut gates = [false; Gate::ALL.len()];
        for (i, g) in Gate::ALL.into_iter().enumerate() {
            gates[i] = g.history(minor).value();
        }
        Some(Profile {
            minor,
            gates,
            jitter_always: minor < 21,
            readiness_startup_sync: minor >= 21,
            readiness_trigger: match minor {
                0..=20 => ReadinessTrigger::Never,
                21 => ReadinessTrigger::NoEntry,
                _ => ReadinessTrigger::NotReady,
            },
            trigger_resets_grid: minor >= 32,
            startup_holds_on_success: minor >= 32,
            add_pod_skips_existing: minor >= 37,
            redirect_prefix: minor >= 24,
            backoff_requeue: if minor >= 35 {
                BackOffRequeue::AtExpiry
            } else {
                BackOffRequeue::Fixed
            },
            backoff_wording: if minor >= 26 {
                BackOffWording::WithPod
            } else {
                BackOffWording::Short
            },
            lifecycle_wording: match minor {
                0..=32 => LifecycleWording::Named,
                33..=34 => LifecycleWording::NamedColon,
                _ => LifecycleWording::Plain,
            },
            pulled_wording: if minor >= 28 {
                PulledWording::IncludingWaiting
            } else {
                PulledWording::Short
            },
            probe_grace_field: minor >= 21,
            stop_liveness_on_termination: minor >= 23,
            ready_to_start_condition: minor >= 29,
            sidecar_workers_survive_exit: minor >= 34,
            terminal_phase_forcing: minor >= 27,
            event_spam_key_has_type: minor >= 32,
            init_container_started: minor >= 28,
            sidecar_startup_keeps_started: minor >= 36,
            sidecar_termination_ordering: minor >= 29,
            sidecar_readiness_counts: minor >= 29,
            restarts_say_ago: minor >= 22,
            printer_knows_sidecars: minor >= 29,
            port_name_letter_wording: minor >= 25,
            init_probe_wording_names_policy: minor >= 28,
            cron_job_v1beta1: minor <= 24,
            cron_job_v1: minor >= 21,
        })
    }

    /// Parses `"1.37"` (or `"v1.37"`, or `"1.37.2"`) into that minor's profile.
    #[must_use]
    pub fn parse(version: &str) -> Option<Profile> {
        let v = version.strip_prefix('v').unwrap_or(version);
        let mut parts = v.split('.');
        let (major, minor) = (parts.next()?, parts.next()?);
        if major != "1" || parts.clone().count() > 1 {
            return None;
        }
        if let Some(patch) = parts.next() {
            patch.parse::<u32>().ok()?;
        }
        Profile::for_minor(minor.parse().ok()?)
    }

    /// The minor version (`37` for 1.37).
    #[must_use]
    pub fn minor(&self) -> u8 {
        self.minor
    }

    /// `"1.37"`.
    #[must_use]
    pub fn version(&self) -> String {
        format!("1.{}", self.minor)
    }

    /// A gate's value in this profile (after overrides).
    #[must_use]
    pub fn gate(&self, gate: Gate) -> bool {
        self.gates[gate as usize]
    }

    /// Overrides a gate, as `--feature-gates` would.
    ///
    /// # Errors
    /// The gate is unknown, absent from this release, or locked to the other value.
    pub fn set_gate(&mut self, name: &str, value: bool) -> Result<(), GateError> {
        let gate = Gate::from_name(name).ok_or_else(|| GateError::Unknown(name.to_owned()))?;
        match gate.history(self.minor) {
            GateState::Absent(_) => Err(GateError::NotInRelease {
                gate: gate.name(),
                minor: self.minor,
            }),
            GateState::Locked(v) if v != value => Err(GateError::Locked {
                gate: gate.name(),
                minor: self.minor,
                value: v,
            }),
            GateState::Locked(_) | GateState::Settable(_) => {
                self.gates[gate as usize] = value;
                Ok(())
            }
        }
    }

    /// P48: how an exec timeout is reported.
    #[must_use]
    pub fn exec_timeout(&self) -> ExecTimeout {
        if !self.gate(Gate::ExecProbeTimeout) {
            // 1.19 passes the runtime's gRPC error through; from 1.20 the runtime client turns
            // a deadline into `command "…" timed out`, from 1.31 into `command timed out: "…"
            // timed out after <T>` (cri-client's ErrCommandTimedOut), and the prober reports
            // that error when the gate is off.
            return ExecTimeout::Error(match self.minor {
                0..=19 => ExecTimeoutWording::Runtime,
                20..=30 => ExecTimeoutWording::Quoted,
                _ => ExecTimeoutWording::After,
            });
        }
        ExecTimeout::Failure(match self.minor {
            0..=22 => ExecTimeoutWording::Empty,
            23..=30 => ExecTimeoutWording::Quoted,
            _ => ExecTimeoutWording::After,
        })
    }

    /// R28: the crash-loop back-off's `(initial, max)` for a node whose
    /// `maxContainerRestartPeriod` is `node_max`. With `KubeletCrashLoopBackOffMax` on, the
    /// node setting replaces the maximum, and the kubelet config defaults an unset one to 300 s
    /// (so the gate undoes the reduced decay's 60 s cap unless the node sets a lower one).
    #[must_use]
    pub fn crash_loop_backoff(&self, node_max: Option<SimDuration>) -> (SimDuration, SimDuration) {
        let (mut initial, mut max) = if self.gate(Gate::ReduceDefaultCrashLoopBackOffDecay) {
            (SimDuration::from_secs(1), SimDuration::from_secs(60))
        } else {
            (SimDuration::from_secs(10), SimDuration::from_secs(300))
        };
        if self.gate(Gate::KubeletCrashLoopBackOffMax) {
            max = node_max.unwrap_or(SimDuration::from_secs(300));
            initial = initial.min(max);
        }
        (initial, max)
    }

    /// P45: with gate `ChangeContainerStatusOnKubeletRestart` off (its 1.35+ default), a running
    /// container inherits `started=true` from the previous API status of the same name until its
    /// startup worker records a value for it.
    #[must_use]
    pub fn inherits_started(&self) -> bool {
        !self.gate(Gate::ChangeContainerStatusOnKubeletRestart)
    }

    /// R56: the `Pulled` message for an image already on the node. With
    /// `KubeletEnsureSecretPulledImages` on, `EnsureImageExists` asks the image pull manager
    /// whether the pod may use the present image and, when it may, says so in the message
    /// (pkg/kubelet/images/image_manager.go, 1.33+); with the gate off the old text stays.
    /// probesim's pods use no pull secrets, so a present image is always accessible.
    #[must_use]
    pub fn present_wording(&self) -> PresentWording {
        if self.gate(Gate::KubeletEnsureSecretPulledImages) {
            PresentWording::Accessible
        } else {
            PresentWording::Short
        }
    }

    /// The first modelled release that has `gate`, when this one predates it (the gate is not
    /// there yet, and its feature is not either).
    #[must_use]
    pub fn gate_arrives_in(&self, gate: Gate) -> Option<u8> {
        if gate.history(self.minor) != GateState::Absent(false) {
            return None;
        }
        (self.minor + 1..=NEWEST_MINOR).find(|&m| gate.history(m) != GateState::Absent(false))
    }

    /// P52: gRPC probes are executed.
    #[must_use]
    pub fn grpc_probes(&self) -> bool {
        self.gate(Gate::GrpcContainerProbe)
    }

    /// P60, R22: probe-level grace periods take effect.
    #[must_use]
    pub fn probe_grace_period(&self) -> bool {
        self.probe_grace_field && self.gate(Gate::ProbeTerminationGracePeriod)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_minor_from_19_to_37_has_a_profile() {
        for minor in 19..=37 {
            assert_eq!(Profile::for_minor(minor).map(|p| p.minor()), Some(minor));
        }
        assert!(Profile::for_minor(18).is_none());
        assert!(Profile::for_minor(38).is_none());
    }

    #[test]
    fn versions_parse_leniently_but_not_wrongly() {
        assert_eq!(Profile::parse("1.37").map(|p| p.minor()), Some(37));
        assert_eq!(Profile::parse("v1.35.2").map(|p| p.minor()), Some(35));
        assert!(Profile::parse("2.37").is_none());
        assert!(Profile::parse("1.x").is_none());
        assert!(Profile::parse("1.37.1.1").is_none());
    }

    #[test]
    fn newest_profile_requeues_at_expiry_with_plain_wording() {
        // R8, R56
        let p = Profile::newest();
        assert_eq!(p.backoff_requeue, BackOffRequeue::AtExpiry);
        assert_eq!(p.lifecycle_wording, LifecycleWording::Plain);
        assert!(p.inherits_started());
        assert_eq!(
            p.crash_loop_backoff(None),
            (SimDuration::from_secs(10), SimDuration::from_secs(300))
        );
    }

    #[test]
    fn a_present_image_is_accessible_to_the_pod_from_1_35_or_with_the_gate_in_1_33() {
        // R56: KubeletEnsureSecretPulledImages (alpha 1.33, beta and on from 1.35) changes the
        // `Pulled` message for a present image.
        let at = |m: u8| Profile::for_minor(m).expect("modelled");
        for minor in 19..=34 {
            assert_eq!(
                at(minor).present_wording(),
                PresentWording::Short,
                "1.{minor}"
            );
        }
        for minor in 35..=37 {
            assert_eq!(
                at(minor).present_wording(),
                PresentWording::Accessible,
                "1.{minor}"
            );
        }
        let mut p = at(33);
        p.set_gate("KubeletEnsureSecretPulledImages", true)
            .expect("settable in 1.33");
        assert_eq!(p.present_wording(), PresentWording::Accessible);
        let mut p = at(37);
        p.set_gate("KubeletEnsureSecretPulledImages", false)
            .expect("settable in 1.37");
        assert_eq!(p.present_wording(), PresentWording::Short);
        assert!(matches!(
            at(32).set_gate("KubeletEnsureSecretPulledImages", true),
            Err(GateError::NotInRelease { .. })
        ));
        let message = |wording| {
            crate::event::Message::AlreadyPresent {
                image: "busybox:1.36",
                wording,
            }
            .to_string()
        };
        assert_eq!(
            message(PresentWording::Short),
            "Container image \"busybox:1.36\" already present on machine"
        );
        assert_eq!(
            message(PresentWording::Accessible),
            "Container image \"busybox:1.36\" already present on machine and can be accessed by the pod"
        );
    }

    #[test]
    fn gates_refuse_overrides_their_release_did_not_allow() {
        let mut p = Profile::newest();
        assert!(matches!(
            p.set_gate("ExecProbeTimeout", false),
            Err(GateError::Locked { .. })
        ));
        assert!(matches!(
            p.set_gate("StartupProbe", true),
            Err(GateError::NotInRelease { .. })
        ));
        assert!(matches!(
            p.set_gate("Nope", true),
            Err(GateError::Unknown(_))
        ));
        assert!(p
            .set_gate("ReduceDefaultCrashLoopBackOffDecay", true)
            .is_ok());
    }

    #[test]
    fn a_release_before_a_gate_says_when_the_gate_arrives() {
        let at = |m: u8| Profile::for_minor(m).expect("modelled");
        assert_eq!(at(22).gate_arrives_in(Gate::GrpcContainerProbe), Some(23));
        assert_eq!(at(23).gate_arrives_in(Gate::GrpcContainerProbe), None);
        assert_eq!(at(27).gate_arrives_in(Gate::SidecarContainers), Some(28));
        assert_eq!(
            at(19).gate_arrives_in(Gate::ContainerRestartRules),
            Some(34)
        );
        // Gone after its graduation is not "not yet".
        assert_eq!(at(37).gate_arrives_in(Gate::StartupProbe), None);
    }

    #[test]
    fn the_startup_probe_gate_is_locked_on_from_1_20_until_its_removal() {
        // P6: StartupProbe GA in 1.20 (locked on), removed in 1.23.
        for minor in 20..=22 {
            let mut p = Profile::for_minor(minor).expect("modelled");
            assert!(p.set_gate("StartupProbe", true).is_ok(), "1.{minor}");
            assert!(
                matches!(
                    p.set_gate("StartupProbe", false),
                    Err(GateError::Locked { .. })
                ),
                "1.{minor}"
            );
        }
        let mut p = Profile::for_minor(23).expect("modelled");
        assert!(matches!(
            p.set_gate("StartupProbe", true),
            Err(GateError::NotInRelease { .. })
        ));
    }

    #[test]
    fn the_back_off_max_gate_replaces_the_reduced_cap_with_the_node_setting() {
        // R28: with KubeletCrashLoopBackOffMax on (1.35+ default), an unset node maximum is
        // the kubelet config's default of 300 s, which also replaces the reduced decay's 60 s.
        let mut p = Profile::newest();
        p.set_gate("ReduceDefaultCrashLoopBackOffDecay", true)
            .expect("settable");
        let secs = SimDuration::from_secs;
        assert_eq!(p.crash_loop_backoff(None), (secs(1), secs(300)));
        assert_eq!(p.crash_loop_backoff(Some(secs(30))), (secs(1), secs(30)));
        p.set_gate("KubeletCrashLoopBackOffMax", false)
            .expect("settable");
        assert_eq!(p.crash_loop_backoff(None), (secs(1), secs(60)));
        assert_eq!(p.crash_loop_backoff(Some(secs(30))), (secs(1), secs(60)));
        let mut p = Profile::newest();
        assert_eq!(p.crash_loop_backoff(Some(secs(5))), (secs(5), secs(5)));
        p.set_gate("KubeletCrashLoopBackOffMax", false)
            .expect("settable");
        assert_eq!(p.crash_loop_backoff(Some(secs(5))), (secs(10), secs(300)));
    }
}
