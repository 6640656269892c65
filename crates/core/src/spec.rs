//! Validated pod, container and probe specifications.
//!
//! These are the engine's inputs after API defaulting and validation (P53–P62), which the
//! scenario layer performs. Constructors re-check the invariants the engine relies on, so code
//! downstream never re-validates a field.

use core::fmt;

use crate::time::SimDuration;

/// The three probe types, in the order the prober manager creates their workers (P6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProbeKind {
    /// `startupProbe`.
    Startup,
    /// `readinessProbe`.
    Readiness,
    /// `livenessProbe`.
    Liveness,
}

impl ProbeKind {
    /// Worker creation order (P6).
    pub const ALL: [ProbeKind; 3] = [
        ProbeKind::Startup,
        ProbeKind::Readiness,
        ProbeKind::Liveness,
    ];

    /// Index into per-kind arrays (`[T; 3]`).
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name used in the JSON timeline (`liveness`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startup",
            ProbeKind::Readiness => "readiness",
            ProbeKind::Liveness => "liveness",
        }
    }

    /// Capitalised name used in event messages (`Liveness probe failed: …`, P41).
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            ProbeKind::Startup => "Startup",
            ProbeKind::Readiness => "Readiness",
            ProbeKind::Liveness => "Liveness",
        }
    }

    /// The manifest field holding this probe (`livenessProbe`).
    #[must_use]
    pub const fn field(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startupProbe",
            ProbeKind::Readiness => "readinessProbe",
            ProbeKind::Liveness => "livenessProbe",
        }
    }
}

impl fmt::Display for ProbeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The pod's `restartPolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RestartPolicy {
    /// Restart whatever the exit code (the API default).
    #[default]
    Always,
    /// Restart only after a non-zero exit code.
    OnFailure,
    /// Never restart.
    Never,
}

impl RestartPolicy {
    /// The API spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RestartPolicy::Always => "Always",
            RestartPolicy::OnFailure => "OnFailure",
            RestartPolicy::Never => "Never",
        }
    }
}

/// One of a regular container's `restartPolicyRules` (KEP-5307, gate `ContainerRestartRules`):
/// `action: Restart` when the exit code is (`In`) or is not (`NotIn`) one of `values`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestartRule {
    /// `exitCodes.operator`: `In` when true, `NotIn` when false.
    pub exit_code_in: bool,
    /// `exitCodes.values`.
    pub values: Vec<i32>,
}

impl RestartRule {
    /// Whether the rule matches a container that exited with `code`
    /// (`findMatchingContainerRestartRule`, pkg/api/v1/pod/util.go).
    #[must_use]
    pub fn matches(&self, code: i32) -> bool {
        self.values.contains(&code) == self.exit_code_in
    }
}

/// A container's `imagePullPolicy` after defaulting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PullPolicy {
    /// Pull on every container start.
    Always,
    /// Pull only when the node does not have the image yet.
    IfNotPresent,
    /// Never pull.
    Never,
}

/// The scheme of an `httpGet` probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// `HTTP`.
    Http,
    /// `HTTPS`.
    Https,
}

impl Scheme {
    /// Lower-case URL scheme.
    #[must_use]
    pub const fn url(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// A probe port after the kubelet's resolution (P39): a usable number, or the error the prober
/// returns at every attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Port {
    /// A port in 1…65535.
    Number(u16),
    /// A named port with no matching `containerPort` and not a decimal number:
    /// `strconv.Atoi: parsing "<name>": invalid syntax`.
    Unparsable(String),
    /// A number outside 1…65535: `invalid port number: <n>`.
    OutOfRange(i64),
}

impl Port {
    /// The usable port number, if any.
    #[must_use]
    pub fn number(&self) -> Option<u16> {
        match self {
            Port::Number(n) => Some(*n),
            Port::Unparsable(_) | Port::OutOfRange(_) => None,
        }
    }
}

/// How a probe reaches the application (P38, first non-nil handler).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handler {
    /// `exec`: the command's words, `$(VAR)` references already expanded (P48).
    Exec {
        /// argv.
        command: Vec<String>,
    },
    /// `httpGet` (P49, P50).
    HttpGet {
        /// `HTTP` or `HTTPS`.
        scheme: Scheme,
        /// `httpGet.host`; `None` means the pod IP.
        host: Option<String>,
        /// Resolved port.
        port: Port,
        /// Path (defaulted to `/`), query kept.
        path: String,
    },
    /// `tcpSocket` (P51).
    TcpSocket {
        /// `tcpSocket.host`; `None` means the pod IP.
        host: Option<String>,
        /// Resolved port.
        port: Port,
    },
    /// `grpc` (P52).
    Grpc {
        /// 1…65535.
        port: u16,
        /// `grpc.service`, defaulted to "".
        service: String,
    },
}

impl Handler {
    /// The handler's name as in the manifest.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Handler::Exec { .. } => "exec",
            Handler::HttpGet { .. } => "httpGet",
            Handler::TcpSocket { .. } => "tcpSocket",
            Handler::Grpc { .. } => "grpc",
        }
    }
}

/// Why a spec could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    field: &'static str,
    message: String,
}

impl SpecError {
    fn new(field: &'static str, message: impl Into<String>) -> SpecError {
        SpecError {
            field,
            message: message.into(),
        }
    }

    /// The offending field, relative to the value being built.
    #[must_use]
    pub fn field(&self) -> &'static str {
        self.field
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SpecError {}

/// One probe after defaulting (P53) and validation (P55–P60).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeSpec {
    handler: Handler,
    initial_delay_seconds: i32,
    timeout_seconds: i32,
    period_seconds: i32,
    success_threshold: i32,
    failure_threshold: i32,
    termination_grace_period_seconds: Option<i64>,
}

/// The numeric fields of a probe, as stored by the API server (after defaulting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeTiming {
    /// `initialDelaySeconds` (may be negative in stored objects only if validation was bypassed;
    /// the engine treats a negative delay as 0, as the kubelet's comparison does).
    pub initial_delay_seconds: i32,
    /// `timeoutSeconds` ≥ 1.
    pub timeout_seconds: i32,
    /// `periodSeconds` ≥ 1.
    pub period_seconds: i32,
    /// `successThreshold` ≥ 1.
    pub success_threshold: i32,
    /// `failureThreshold` ≥ 1.
    pub failure_threshold: i32,
    /// Probe-level `terminationGracePeriodSeconds` (> 0 when set).
    pub termination_grace_period_seconds: Option<i64>,
}

impl Default for ProbeTiming {
    /// The API defaults (P53): delay 0, timeout 1, period 10, success 1, failure 3.
    fn default() -> ProbeTiming {
        ProbeTiming {
            initial_delay_seconds: 0,
            timeout_seconds: 1,
            period_seconds: 10,
            success_threshold: 1,
            failure_threshold: 3,
            termination_grace_period_seconds: None,
        }
    }
}

impl ProbeSpec {
    /// Builds a probe from defaulted values.
    ///
    /// # Errors
    /// A timeout, period or threshold below 1, a probe-level grace period ≤ 0, or an exec
    /// handler without a command.
    pub fn new(handler: Handler, timing: ProbeTiming) -> Result<ProbeSpec, SpecError> {
        let positive = [
            ("timeoutSeconds", timing.timeout_seconds),
            ("periodSeconds", timing.period_seconds),
            ("successThreshold", timing.success_threshold),
            ("failureThreshold", timing.failure_threshold),
        ];
        for (field, value) in positive {
            if value < 1 {
                return Err(SpecError::new(field, format!("{value} must be at least 1")));
            }
        }
        if let Some(g) = timing.termination_grace_period_seconds {
            if g <= 0 {
                return Err(SpecError::new(
                    "terminationGracePeriodSeconds",
                    format!("{g} must be greater than 0"),
                ));
            }
        }
        if let Handler::Exec { command } = &handler {
            if command.is_empty() {
                return Err(SpecError::new("exec.command", "must not be empty"));
            }
        }
        Ok(ProbeSpec {
            handler,
            initial_delay_seconds: timing.initial_delay_seconds,
            timeout_seconds: timing.timeout_seconds,
            period_seconds: timing.period_seconds,
            success_threshold: timing.success_threshold,
            failure_threshold: timing.failure_threshold,
            termination_grace_period_seconds: timing.termination_grace_period_seconds,
        })
    }

    /// The handler.
    #[must_use]
    pub fn handler(&self) -> &Handler {
        &self.handler
    }

    /// `initialDelaySeconds`.
    #[must_use]
    pub fn initial_delay_seconds(&self) -> i32 {
        self.initial_delay_seconds
    }

    /// `timeoutSeconds`.
    #[must_use]
    pub fn timeout_seconds(&self) -> i32 {
        self.timeout_seconds
    }

    /// `periodSeconds`.
    #[must_use]
    pub fn period_seconds(&self) -> i32 {
        self.period_seconds
    }

    /// `successThreshold`.
    #[must_use]
    pub fn success_threshold(&self) -> i32 {
        self.success_threshold
    }

    /// `failureThreshold`.
    #[must_use]
    pub fn failure_threshold(&self) -> i32 {
        self.failure_threshold
    }

    /// Probe-level `terminationGracePeriodSeconds`.
    #[must_use]
    pub fn termination_grace_period_seconds(&self) -> Option<i64> {
        self.termination_grace_period_seconds
    }

    /// The timing fields, as [`ProbeSpec::new`] takes them (to build a probe with the same
    /// timing and another handler, or with one field changed).
    #[must_use]
    pub fn timing(&self) -> ProbeTiming {
        ProbeTiming {
            initial_delay_seconds: self.initial_delay_seconds(),
            timeout_seconds: self.timeout_seconds(),
            period_seconds: self.period_seconds(),
            success_threshold: self.success_threshold(),
            failure_threshold: self.failure_threshold(),
            termination_grace_period_seconds: self.termination_grace_period_seconds(),
        }
    }

    /// The period as a span.
    #[must_use]
    pub fn period(&self) -> SimDuration {
        SimDuration::from_secs(u64::from(self.period_seconds.unsigned_abs()))
    }

    /// The timeout as a span.
    #[must_use]
    pub fn timeout(&self) -> SimDuration {
        SimDuration::from_secs(u64::from(self.timeout_seconds.unsigned_abs()))
    }
}

/// How the container's process behaves when sent SIGTERM (docs/scenario-format.md#sigterm, R25).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sigterm {
    /// Ignores it: SIGKILL at the end of the grace period, exit code 137.
    Ignore,
    /// Exits `after` the signal; with `code: None` it dies of the signal (143), otherwise it
    /// handles the signal and exits with its own code.
    Exit {
        /// The process's own exit code, or `None` for death by signal.
        code: Option<i32>,
        /// Time from the signal to the exit.
        after: SimDuration,
    },
}

impl Default for Sigterm {
    /// `exit after 0s`: dies of the signal at once.
    fn default() -> Sigterm {
        Sigterm::Exit {
            code: None,
            after: SimDuration::ZERO,
        }
    }
}

/// A process that exits by itself (`exit: "1 after 2s"`), measured from each instance's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfExit {
    /// The exit code.
    pub code: i32,
    /// Uptime at which the process exits.
    pub after: SimDuration,
}

/// How the container's image and process behave (docs/scenario-format.md#apps), apart from probe
/// answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AppSpec {
    /// Time each image pull takes (the first one, when `pull_then` is set); zero, with
    /// `pull_then` unset or zero, means no pull events at all.
    pub pull: SimDuration,
    /// Time the pulls after the node has the image take (`pull: {first, then}`): a pull of an
    /// image already there only checks the registry's manifest. `None`: every pull takes `pull`.
    pub pull_then: Option<SimDuration>,
    /// The node has the image before the pod arrives (`image: present`): `IfNotPresent` never
    /// pulls, `Always` pulls take `pull_then`.
    pub image_present: bool,
    /// Exit by itself at this uptime.
    pub exit: Option<SelfExit>,
    /// Reaction to SIGTERM.
    pub sigterm: Sigterm,
    /// `lifecycle.preStop`: how long the hook runs when the container is stopped (R24);
    /// `None` when the container has no preStop hook.
    pub pre_stop: Option<SimDuration>,
}

impl AppSpec {
    /// Whether pulls are modelled at all (their events are emitted).
    #[must_use]
    pub fn pulls(&self) -> bool {
        !self.pull.is_zero() || self.pull_then.is_some_and(|t| !t.is_zero())
    }

    /// How long one pull takes, given whether the node already has the image.
    #[must_use]
    pub fn pull_time(&self, image_present: bool) -> SimDuration {
        match self.pull_then {
            Some(then) if image_present => then,
            _ => self.pull,
        }
    }
}

/// One container, regular or init.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerSpec {
    /// `name`, unique in the pod.
    pub name: String,
    /// `image`.
    pub image: String,
    /// `imagePullPolicy` after defaulting from the tag.
    pub pull_policy: PullPolicy,
    /// Probes by [`ProbeKind::index`].
    pub probes: [Option<ProbeSpec>; 3],
    /// For init containers: `restartPolicy: Always` makes it a sidecar.
    pub restartable: bool,
    /// For regular containers: its own `restartPolicy` (gate `ContainerRestartRules`), which
    /// overrides the pod's.
    pub restart_policy: Option<RestartPolicy>,
    /// For regular containers: its `restartPolicyRules`, in order (only with
    /// [`ContainerSpec::restart_policy`]).
    pub restart_rules: Vec<RestartRule>,
    /// The process's behaviour.
    pub app: AppSpec,
}

impl ContainerSpec {
    /// A container with no probes, pull policy `IfNotPresent` and the default app behaviour.
    #[must_use]
    pub fn new(name: impl Into<String>, image: impl Into<String>) -> ContainerSpec {
        ContainerSpec {
            name: name.into(),
            image: image.into(),
            pull_policy: PullPolicy::IfNotPresent,
            probes: [None, None, None],
            restartable: false,
            restart_policy: None,
            restart_rules: Vec::new(),
            app: AppSpec::default(),
        }
    }

    /// Whether the container is restarted after exiting with `code` in a pod whose policy is
    /// `pod` (`ContainerShouldRestart`, pkg/api/v1/pod/util.go): the first matching rule
    /// restarts it, else its own policy decides, else the pod's.
    #[must_use]
    pub fn should_restart(&self, pod: RestartPolicy, code: i32) -> bool {
        let policy = match self.restart_policy {
            Some(own) => {
                if self.restart_rules.iter().any(|r| r.matches(code)) {
                    return true;
                }
                own
            }
            None => pod,
        };
        match policy {
            RestartPolicy::Always => true,
            RestartPolicy::OnFailure => code != 0,
            RestartPolicy::Never => false,
        }
    }

    /// Whether the container is restarted after a liveness or startup kill in a pod whose
    /// policy is `pod`: its own policy when set, the rules aside since it has not exited
    /// (computePodActions, kuberuntime_manager.go), else the pod's.
    #[must_use]
    pub fn restarts_after_probe_kill(&self, pod: RestartPolicy) -> bool {
        self.restart_policy.unwrap_or(pod) != RestartPolicy::Never
    }

    /// Sets one probe (builder style, for tests and examples).
    #[must_use]
    pub fn with_probe(mut self, kind: ProbeKind, probe: ProbeSpec) -> ContainerSpec {
        self.probes[kind.index()] = Some(probe);
        self
    }

    /// The probe of a kind.
    #[must_use]
    #[inline]
    pub fn probe(&self, kind: ProbeKind) -> Option<&ProbeSpec> {
        self.probes[kind.index()].as_ref()
    }
}

/// The pod, as the kubelet sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodSpec {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace` (default `default`).
    pub namespace: String,
    /// `metadata.uid`, used in back-off messages.
    pub uid: String,
    /// The pod IP used by probes without a host (`status.podIP`, default `10.0.0.5`).
    pub pod_ip: String,
    /// `spec.restartPolicy`.
    pub restart_policy: RestartPolicy,
    /// `spec.terminationGracePeriodSeconds` (default 30).
    pub termination_grace_period_seconds: i64,
    /// `spec.initContainers`, in order; those with `restartable` set are sidecars.
    pub init_containers: Vec<ContainerSpec>,
    /// `spec.containers`, in order.
    pub containers: Vec<ContainerSpec>,
    /// How many `spec.readinessGates` the pod has. Nothing in the simulation sets their
    /// conditions, so a pod with any is never `Ready` (R42).
    pub readiness_gates: usize,
}

impl PodSpec {
    /// A pod named `name` in `default`, with API defaults and no containers.
    #[must_use]
    pub fn new(name: impl Into<String>) -> PodSpec {
        let name = name.into();
        PodSpec {
            uid: format!(
                "00000000-0000-4000-8000-{:012x}",
                fnv(name.as_bytes()) & 0xffff_ffff_ffff
            ),
            name,
            namespace: "default".to_owned(),
            pod_ip: "10.0.0.5".to_owned(),
            restart_policy: RestartPolicy::Always,
            termination_grace_period_seconds: 30,
            init_containers: Vec::new(),
            containers: Vec::new(),
            readiness_gates: 0,
        }
    }

    /// Adds an init container (builder style); `restartable` makes it a sidecar.
    #[must_use]
    pub fn with_init_container(mut self, c: ContainerSpec) -> PodSpec {
        self.init_containers.push(c);
        self
    }

    /// All containers: init containers first, then regular containers. The position in this
    /// order is the container index used by the engine ([`Attempt::container`],
    /// [`Behaviours::bind`]).
    ///
    /// [`Attempt::container`]: crate::behaviour::Attempt::container
    /// [`Behaviours::bind`]: crate::sim::Behaviours::bind
    pub fn all_containers(&self) -> impl Iterator<Item = &ContainerSpec> {
        self.init_containers.iter().chain(&self.containers)
    }

    /// How many containers there are, init containers included.
    #[must_use]
    pub fn container_count(&self) -> usize {
        self.init_containers.len() + self.containers.len()
    }

    /// The container at an engine index (init containers first).
    ///
    /// # Panics
    /// If `index` is not below [`PodSpec::container_count`].
    #[must_use]
    #[inline]
    pub fn container(&self, index: usize) -> &ContainerSpec {
        match index.checked_sub(self.init_containers.len()) {
            Some(i) => &self.containers[i],
            None => &self.init_containers[index],
        }
    }

    /// Whether the engine index names an init container.
    #[must_use]
    pub fn is_init(&self, index: usize) -> bool {
        index < self.init_containers.len()
    }

    /// The object an event about the container at `index` refers to
    /// (`spec.initContainers{x}` or `spec.containers{x}`).
    #[must_use]
    pub fn object_ref(&self, index: usize) -> crate::event::ObjectRef<'_> {
        let name = &self.container(index).name;
        if self.is_init(index) {
            crate::event::ObjectRef::InitContainer(name)
        } else {
            crate::event::ObjectRef::Container(name)
        }
    }

    /// The engine index of the container named `name`.
    #[must_use]
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.all_containers().position(|c| c.name == name)
    }

    /// Adds a container (builder style).
    #[must_use]
    pub fn with_container(mut self, c: ContainerSpec) -> PodSpec {
        self.containers.push(c);
        self
    }
}

/// A stable 64-bit FNV-1a hash (for derived default identifiers; never for hash maps).
#[must_use]
pub fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_defaults_are_the_api_defaults() {
        // P53
        let t = ProbeTiming::default();
        assert_eq!(
            (
                t.timeout_seconds,
                t.period_seconds,
                t.success_threshold,
                t.failure_threshold
            ),
            (1, 10, 1, 3)
        );
    }

    #[test]
    fn zero_period_is_rejected() {
        let timing = ProbeTiming {
            period_seconds: 0,
            ..ProbeTiming::default()
        };
        let err = ProbeSpec::new(
            Handler::Exec {
                command: vec!["true".into()],
            },
            timing,
        )
        .unwrap_err();
        assert_eq!(err.field(), "periodSeconds");
    }
}
