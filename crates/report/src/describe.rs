//! `--format describe`: what `kubectl describe pod` prints at an instant.

use probesim_kube::printable::printable_lines;
use std::fmt::Write as _;
use std::io::{self, Write};

use probesim_core::{
    ContainerSpec, ContainerState, ContainerStatus, Event, EventKind, Flow, Handler, PodSpec,
    PodStatus, Port, ProbeKind, ProbeSpec, Profile, SimDuration, SimTime, Sink, Terminated,
};

use crate::events::{ApiEvent, EventStore, Reporter, NODE_NAME};
use crate::human_duration;
use crate::tabwriter::TabWriter;

/// The wall-clock instant standing for the timeline's origin in `describe`'s timestamps
/// (`Start Time`, `Started`, `Finished`): Mon, 01 Jan 2024 00:00:00 +0000, in Unix seconds.
/// The simulation has no wall clock; a fixed one keeps the output byte-stable.
pub const ORIGIN_UNIX_SECS: u64 = 1_704_067_200;

/// The node's address in the `Node:` line (minikube's, with its default Docker driver).
pub const NODE_IP: &str = "192.168.49.2";

/// What changed in `kubectl describe` between the releases modelled (R51–R53).
#[derive(Clone, Copy, Debug)]
struct Kubectl {
    minor: u8,
}

impl Kubectl {
    /// From shows `source.component` only, else `reportingController` (KCTL 81135b0, 1.20);
    /// before, `<component>, <host>`.
    fn source_is_component(self) -> bool {
        self.minor >= 20
    }

    /// Messages are prefixed with the involved object's field path (KCTL 60fa575, 1.35).
    fn message_has_field_path(self) -> bool {
        self.minor >= 35
    }

    /// Probe thresholds print as `successThreshold=1 failureThreshold=3` (KCTL 5c1c16b, 1.37).
    fn threshold_names(self) -> bool {
        self.minor >= 37
    }
}

/// Writes `kubectl describe pod` at `at` to `out`: the pod's header (name, namespace, node,
/// start time, status), each container's image, State, Last State, Ready, Restart Count and
/// probe lines, the Conditions, and the Events the API server holds at `at` (R51–R55).
///
/// `status` is the pod's API status at `at` (the simulation's, or
/// [`PodTracker`](crate::PodTracker)'s for an instant inside a recorded run), `deletion_grace`
/// the grace period of a deletion already requested, and `events` the store fed with the
/// run's events up to `at` (later ones are ignored). The layout is kubectl's: one tabwriter
/// (minwidth 0, padding 2) for the pod and its containers, flushed before the Events table,
/// which is aligned on its own.
///
/// Once the pod object is gone from the API server, kubectl's answer is printed instead:
/// `Error from server (NotFound): pods "<name>" not found`.
///
/// What the model cannot know is left out rather than invented: container and image IDs,
/// ports, mounts, volumes, QoS class and tolerations. Timestamps count from
/// [`ORIGIN_UNIX_SECS`]; the node is [`NODE_NAME`] at [`NODE_IP`].
pub fn describe_pod(
    out: &mut String,
    at: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
    deletion_grace: Option<SimDuration>,
    events: &EventStore,
    profile: &Profile,
) {
    if status.removed {
        // The kubelet confirmed the deletion: the API server has no such pod any more.
        let _ = writeln!(
            out,
            "Error from server (NotFound): pods \"{}\" not found",
            pod.name
        );
        return;
    }
    let kubectl = Kubectl {
        minor: profile.minor(),
    };
    let mut t = String::new();
    let _ = writeln!(t, "Name:\t{}", pod.name);
    let _ = writeln!(t, "Namespace:\t{}", pod.namespace);
    t.push_str("Priority:\t0\n");
    t.push_str("Service Account:\tdefault\n");
    let _ = writeln!(t, "Node:\t{NODE_NAME}/{NODE_IP}");
    let _ = writeln!(t, "Start Time:\t{}", Rfc1123z(SimTime::ZERO));
    t.push_str("Labels:\t<none>\nAnnotations:\t<none>\n");
    match (status.deletion_timestamp, status.phase.is_terminal()) {
        (Some(deleted), false) => {
            let _ = writeln!(
                t,
                "Status:\tTerminating (lasts {})",
                human_duration(at.saturating_since(deleted))
            );
            let grace = deletion_grace.unwrap_or_default().whole_secs();
            let _ = writeln!(t, "Termination Grace Period:\t{grace}s");
        }
        _ => {
            let _ = writeln!(t, "Status:\t{}", status.phase.as_str());
        }
    }
    let _ = writeln!(t, "IP:\t{}", pod.pod_ip);
    let _ = writeln!(t, "IPs:\n  IP:\t{}", pod.pod_ip);
    if !pod.init_containers.is_empty() {
        containers(
            &mut t,
            "Init Containers",
            &pod.init_containers,
            &status.init_containers,
            kubectl,
        );
    }
    containers(
        &mut t,
        "Containers",
        &pod.containers,
        &status.containers,
        kubectl,
    );
    t.push_str("Conditions:\n  Type\tStatus\n");
    let c = status.conditions;
    let mut conditions = Vec::new();
    if let Some(r) = c.ready_to_start_containers {
        conditions.push(("PodReadyToStartContainers", r));
    }
    conditions.extend([
        ("Initialized", c.initialized),
        ("Ready", c.ready),
        ("ContainersReady", c.containers_ready),
        ("PodScheduled", c.pod_scheduled),
    ]);
    for (name, value) in conditions {
        let _ = writeln!(t, "  {name} \t{} ", title_bool(value));
    }
    let mut tabs = TabWriter::describe();
    tabs.flush(&t, out);
    t.clear();
    describe_events(&mut t, at, events, profile);
    tabs.flush(&t, out);
}

/// Writes the Events table of `kubectl describe` at `at` (tab-separated, for the
/// tabwriter): `Events:  <none>`, or the header, the dashes and one row per Event the API
/// server holds at `at`, with Age `<last> (x<count> over <first>)`, From and Message in the
/// release's form (R53).
fn describe_events(t: &mut String, at: SimTime, events: &EventStore, profile: &Profile) {
    let kubectl = Kubectl {
        minor: profile.minor(),
    };
    let live = events.at(at);
    if live.is_empty() {
        t.push_str("Events:\t<none>\n");
        return;
    }
    t.push_str("Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    t.push_str("  ----\t------\t----\t----\t-------\n");
    for e in live {
        let _ = writeln!(
            t,
            "  {}\t{}\t{}\t{}\t{}",
            e.event_type.as_str(),
            e.reason,
            age(at, e),
            from(e, kubectl),
            message(e, kubectl)
        );
    }
}

/// Writes only the Events table of `kubectl describe pod` at `at`, aligned as kubectl aligns
/// it (the part of [`describe_pod`] after the Conditions).
pub fn describe_events_table(
    out: &mut String,
    at: SimTime,
    events: &EventStore,
    profile: &Profile,
) {
    let mut t = String::new();
    describe_events(&mut t, at, events, profile);
    TabWriter::describe().flush(&t, out);
}

/// Whole seconds, as `metav1.Time` keeps them.
fn secs(t: SimTime) -> SimTime {
    SimTime::from_secs(t.whole_secs())
}

fn age(at: SimTime, e: &ApiEvent) -> String {
    let first = human_duration(at.saturating_since(secs(e.first)));
    if e.count > 1 {
        let last = human_duration(at.saturating_since(secs(e.last)));
        format!("{last} (x{} over {first})", e.count)
    } else {
        first
    }
}

fn from(e: &ApiEvent, kubectl: Kubectl) -> String {
    match (e.reporter, kubectl.source_is_component()) {
        (Reporter::Scheduler, true) => "default-scheduler".to_owned(),
        // R53: 1.19 shows the empty source of an events.k8s.io event.
        (Reporter::Scheduler, false) => String::new(),
        (Reporter::Kubelet, true) => "kubelet".to_owned(),
        (Reporter::Kubelet, false) => format!("kubelet, {NODE_NAME}"),
    }
}

fn message(e: &ApiEvent, kubectl: Kubectl) -> String {
    if kubectl.message_has_field_path() && !e.field_path.is_empty() {
        format!("{}: {}", e.field_path, e.message.trim())
    } else {
        e.message.trim().to_owned()
    }
}

fn title_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

fn containers(
    t: &mut String,
    label: &str,
    specs: &[ContainerSpec],
    statuses: &[ContainerStatus],
    kubectl: Kubectl,
) {
    let none = if specs.is_empty() { " <none>" } else { "" };
    let _ = writeln!(t, "{label}:{none}");
    for (spec, st) in specs.iter().zip(statuses) {
        let _ = writeln!(t, "  {}:", spec.name);
        let _ = writeln!(t, "    Image:\t{}", spec.image);
        state(t, "State", &st.state);
        if let Some(last) = st.last_state {
            state(t, "Last State", &ContainerState::Terminated(last));
        }
        let _ = writeln!(t, "    Ready:\t{}", title_bool(st.ready));
        let _ = writeln!(t, "    Restart Count:\t{}", st.restart_count);
        for (kind, title) in [
            (ProbeKind::Liveness, "Liveness"),
            (ProbeKind::Readiness, "Readiness"),
            (ProbeKind::Startup, "Startup"),
        ] {
            if let Some(p) = spec.probe(kind) {
                let _ = writeln!(t, "    {title}:\t{}", probe_text(p, kubectl));
            }
        }
    }
}

fn state(t: &mut String, name: &str, state: &ContainerState) {
    match *state {
        ContainerState::Running { started_at } => {
            let _ = writeln!(t, "    {name}:\tRunning");
            let _ = writeln!(t, "      Started:\t{}", Rfc1123z(started_at));
        }
        ContainerState::Waiting(reason) => {
            let _ = writeln!(t, "    {name}:\tWaiting");
            if let Some(r) = reason {
                let _ = writeln!(t, "      Reason:\t{}", r.as_str());
            }
        }
        ContainerState::Terminated(Terminated {
            exit_code,
            reason,
            started_at,
            finished_at,
        }) => {
            let _ = writeln!(t, "    {name}:\tTerminated");
            let _ = writeln!(t, "      Reason:\t{}", reason.as_str());
            let _ = writeln!(t, "      Exit Code:\t{exit_code}");
            let _ = writeln!(t, "      Started:\t{}", Rfc1123z(started_at));
            let _ = writeln!(t, "      Finished:\t{}", Rfc1123z(finished_at));
        }
        _ => {}
    }
}

/// `DescribeProbe`: `http-get http://:8080/ delay=0s timeout=1s period=10s #success=1
/// #failure=3` (R51), with the thresholds named from 1.37.
#[must_use]
pub fn probe_line(p: &ProbeSpec, profile: &Profile) -> String {
    probe_text(
        p,
        Kubectl {
            minor: profile.minor(),
        },
    )
}

fn probe_text(p: &ProbeSpec, kubectl: Kubectl) -> String {
    let attrs = if kubectl.threshold_names() {
        format!(
            "delay={}s timeout={}s period={}s successThreshold={} failureThreshold={}",
            p.initial_delay_seconds(),
            p.timeout_seconds(),
            p.period_seconds(),
            p.success_threshold(),
            p.failure_threshold()
        )
    } else {
        format!(
            "delay={}s timeout={}s period={}s #success={} #failure={}",
            p.initial_delay_seconds(),
            p.timeout_seconds(),
            p.period_seconds(),
            p.success_threshold(),
            p.failure_threshold()
        )
    };
    let port = |port: &Port| match port {
        Port::Number(n) => n.to_string(),
        Port::Unparsable(name) => name.clone(),
        Port::OutOfRange(n) => n.to_string(),
    };
    match p.handler() {
        Handler::Exec { command } => format!("exec [{}] {attrs}", command.join(" ")),
        Handler::HttpGet {
            scheme,
            host,
            port: pt,
            path,
        } => {
            let host = host.as_deref().unwrap_or("");
            let host = if host.contains(':') {
                format!("[{host}]")
            } else {
                host.to_owned()
            };
            format!(
                "http-get {}://{host}:{}{path} {attrs}",
                scheme.url(),
                port(pt)
            )
        }
        Handler::TcpSocket { host, port: pt } => format!(
            "tcp-socket {}:{} {attrs}",
            host.as_deref().unwrap_or(""),
            port(pt)
        ),
        Handler::Grpc { port, service } => format!("grpc <pod>:{port} {service} {attrs}"),
    }
}

/// A timeline instant as Go's `time.RFC1123Z` prints it, counted from [`ORIGIN_UNIX_SECS`]:
/// `Mon, 01 Jan 2024 00:27:00 +0000`.
#[derive(Clone, Copy, Debug)]
pub struct Rfc1123z(pub SimTime);

impl std::fmt::Display for Rfc1123z {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let unix = ORIGIN_UNIX_SECS + self.0.whole_secs();
        let (days, rem) = (unix / 86_400, unix % 86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{}, {d:02} {} {y} {:02}:{:02}:{:02} +0000",
            DAYS[usize::try_from(days % 7).unwrap_or(0)],
            MONTHS[usize::from(m - 1)],
            rem / 3600,
            (rem / 60) % 60,
            rem % 60
        )
    }
}

/// Days since 1970-01-01 to (year, month 1–12, day 1–31), proleptic Gregorian.
fn civil_from_days(days: u64) -> (u64, u8, u8) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (
        y,
        u8::try_from(m).unwrap_or(1),
        u8::try_from(d).unwrap_or(1),
    )
}

/// `--format describe`: collects the pod's Events as the API server holds them while the run
/// streams by, then writes [`describe_pod`] at the end of the run.
#[derive(Debug)]
pub struct DescribeSink<W: Write> {
    w: W,
    profile: Profile,
    store: EventStore,
    deletion_grace: Option<SimDuration>,
}

impl<W: Write> DescribeSink<W> {
    /// A sink for `pod` under `profile`'s release.
    #[must_use]
    pub fn new(w: W, pod: &PodSpec, profile: &Profile) -> DescribeSink<W> {
        DescribeSink {
            w,
            profile: profile.clone(),
            store: EventStore::new(pod),
            deletion_grace: None,
        }
    }

    /// The Events collected so far.
    #[must_use]
    pub fn events(&self) -> &EventStore {
        &self.store
    }

    /// Writes `kubectl describe pod` at `end` for `status`, and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        let mut out = String::new();
        describe_pod(
            &mut out,
            end,
            pod,
            status,
            self.deletion_grace,
            &self.store,
            &self.profile,
        );
        // Commands and messages can carry text from the scenario.
        self.w.write_all(printable_lines(&out).as_bytes())?;
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for DescribeSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        match event.kind {
            EventKind::Event(e) => self.store.record(event.t, &e),
            EventKind::Delete { grace } => self.deletion_grace = Some(grace),
            _ => {}
        }
        Ok(Flow::Continue)
    }
}
