//! `--format timeline`: the human-readable table of the trace.

use core::fmt::{self, Write as _};
use std::borrow::Cow;
use std::io::{self, Write};

use probesim_core::{
    ContainerState, ContainerStatus, Event, EventKind, Flow, PodSpec, PodStatus, Profile, SimTime,
    Sink,
};
use probesim_kube::printable::printable;

use super::{human_duration, RunInfo, Span};
use crate::tabwriter::TabWriter;
use crate::Filter;

/// Width of the KIND column: the longest kind names (`podReady`).
pub(crate) const KIND_WIDTH: usize = 8;

/// What the CONTAINER column shows for pod-level events.
pub(crate) const POD_LABEL: &str = "(pod)";

/// `--format timeline`: one line per event, in fixed-width columns, for people.
///
/// ```text
/// kubia-unhealthy: Kubernetes 1.37, seed 0, duration 30m (1800s)
///
///      TIME  CONTAINER  KIND      WHAT
///       10s  kubia      probe     liveness success
///       80s  kubia      probe     liveness failure (HTTP probe failed with statuscode: 500)
///       80s  kubia      result    liveness result: Failure
///       80s  kubia      kill      LivenessProbe, grace period 30s
///       80s  kubia      event     Normal Killing: Container kubia failed liveness probe, will be restarted
///      110s  kubia      exit      exit code 137 (Error)
///      110s  (pod)      podReady  pod Ready: false
///
/// At 1800s: phase Running, pod Ready false
///   kubia  waiting (CrashLoopBackOff: back-off 5m0s), not ready, not started, restartCount 9, last exit 137 (Error) at 1560s
///
/// NAME              READY   STATUS             RESTARTS     AGE
/// kubia-unhealthy   0/1     CrashLoopBackOff   9 (4m ago)   30m
/// ```
///
/// TIME is seconds since the timeline origin (the pod's first sync), right-aligned; the column
/// is wide enough for the horizon with millisecond fractions. CONTAINER is padded to the longest
/// container name (at least `CONTAINER`); pod-level events show `(pod)`. Spans in WHAT use Go's
/// duration form (`1m20s`), as the kubelet's messages do. Without `verbose`, `sync` lines are left
/// out; with it, every event is shown.
///
/// After the events, [`TextSink::finish`] writes the final status of each container and the
/// `kubectl get pod` row at the end of the run ([`kubectl_row`]).
#[derive(Debug)]
pub struct TextSink<W: Write> {
    w: W,
    verbose: bool,
    time_width: usize,
    name_width: usize,
    /// The release whose `kubectl get` row is printed at the end.
    profile: Profile,
    filter: Filter,
    buf: String,
}

impl<W: Write> TextSink<W> {
    /// Writes the header line and the column titles. `pod` is only read for the width of the
    /// CONTAINER column.
    ///
    /// # Errors
    /// Writing failed.
    pub fn new(
        mut w: W,
        info: &RunInfo<'_>,
        pod: &PodSpec,
        verbose: bool,
    ) -> io::Result<TextSink<W>> {
        let horizon_digits = digits(info.duration.whole_secs());
        // "<whole>.<ms>s"
        let time_width = (horizon_digits + 5).max("TIME".len());
        let name_width = name_width(pod);
        let profile = Profile::parse(info.kubernetes).unwrap_or_else(Profile::newest);
        write_header(&mut w, info, time_width, name_width)?;
        Ok(TextSink {
            w,
            verbose,
            time_width,
            name_width,
            profile,
            filter: Filter::default(),
            buf: String::new(),
        })
    }

    /// Shows only the lines `filter` lets through (`--only`, `--container`).
    #[must_use]
    pub fn with_filter(mut self, filter: Filter) -> TextSink<W> {
        self.filter = filter;
        self
    }

    /// Writes the final status (one line per container) and the `kubectl get pod` table at
    /// `end`, and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        let buf = &mut self.buf;
        buf.clear();
        write_final(buf, end, pod, status, &self.profile, false).map_err(io::Error::other)?;
        self.w.write_all(buf.as_bytes())?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// The CONTAINER column's width: the longest container name, or the heading or pod label.
pub(crate) fn name_width(pod: &PodSpec) -> usize {
    pod.all_containers()
        .map(|c| c.name.chars().count())
        .chain(["CONTAINER".len(), POD_LABEL.len()])
        .max()
        .unwrap_or(0)
}

/// The first lines of both timelines: the run (the horizon as written, `30m`, plus in seconds
/// when that reads differently; the scenario's name escaped, as it comes from input) and the
/// column headings.
pub(crate) fn write_header(
    w: &mut impl Write,
    info: &RunInfo<'_>,
    time_width: usize,
    name_width: usize,
) -> io::Result<()> {
    let span = Span(info.duration.as_millis()).to_string();
    let secs = format!("{}s", info.duration);
    let in_secs = if span == secs {
        String::new()
    } else {
        format!(" ({secs})")
    };
    writeln!(
        w,
        "{}: Kubernetes {}, seed {}, duration {span}{in_secs}",
        printable(info.scenario),
        info.kubernetes,
        info.seed,
    )?;
    if let Some(line) = info.overridden_line() {
        writeln!(w, "{}", printable(&line))?;
    }
    writeln!(
        w,
        "\n{:>time_width$}  {:<name_width$}  {:<KIND_WIDTH$}  WHAT",
        "TIME", "CONTAINER", "KIND"
    )
}

impl<W: Write> Sink for TextSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        if (!self.verbose && matches!(event.kind, EventKind::Sync { .. }))
            || !self.filter.shows(&event.kind)
        {
            return Ok(Flow::Continue);
        }
        let buf = &mut self.buf;
        buf.clear();
        write!(buf, "{}s", event.t).map_err(io::Error::other)?;
        let pad = self.time_width.saturating_sub(buf.len());
        for _ in 0..pad {
            buf.insert(0, ' ');
        }
        let name = event.kind.container().unwrap_or(POD_LABEL);
        write!(
            buf,
            "  {name:<w$}  {:<KIND_WIDTH$}  ",
            event.kind.name(),
            w = self.name_width
        )
        .map_err(io::Error::other)?;
        describe(buf, &event.kind, false).map_err(io::Error::other)?;
        // Probe output and event messages can carry text from the scenario.
        if let Cow::Owned(safe) = printable(buf) {
            *buf = safe;
        }
        buf.push('\n');
        self.w.write_all(buf.as_bytes())?;
        Ok(Flow::Continue)
    }
}

/// The end of a text timeline: the pod's phase and Ready condition at `end`, one line per
/// container, then the `kubectl get pod` table ([`kubectl_row`]).
pub(crate) fn write_final(
    buf: &mut String,
    end: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
    profile: &Profile,
    human: bool,
) -> fmt::Result {
    write!(
        buf,
        "\nAt {}: phase {}, pod Ready {}\n",
        When(end, human),
        status.phase.as_str(),
        status.conditions.ready
    )?;
    if let Some(t) = status.deletion_timestamp {
        let gone = if status.removed {
            ", and the pod object is gone; its last status:"
        } else {
            ";"
        };
        writeln!(buf, "  deleted at {}{gone}", When(t, human))?;
    }
    let width = pod
        .all_containers()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    let all = status.init_containers.iter().chain(&status.containers);
    for (i, cs) in all.enumerate() {
        let name = pod.all_containers().nth(i).map_or("", |c| c.name.as_str());
        write!(buf, "  {name:<width$}  ")?;
        cs.describe_state(buf, &|buf, t| write!(buf, "{}", When(t, human)))?;
        write!(
            buf,
            ", {}, {}",
            if cs.ready { "ready" } else { "not ready" },
            if cs.started { "started" } else { "not started" }
        )?;
        cs.describe_counts(buf, &|buf, t| write!(buf, "{}", When(t, human)))?;
        buf.push('\n');
    }
    write!(buf, "\n{}", kubectl_row(end, pod, status, profile))?;
    Ok(())
}

/// An instant on the timeline: seconds (`110s`) in the exact table, a duration since the origin
/// (`1m50s`) in the timeline for people.
pub(crate) struct When(pub SimTime, pub bool);

impl fmt::Display for When {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 {
            probesim_script::write_duration(self.0.saturating_since(SimTime::ZERO), f)
        } else {
            write!(f, "{}s", self.0)
        }
    }
}

/// The number of decimal digits of `n`.
fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The WHAT column of one event: the event in words ([`EventKind::describe`]), its instants
/// as [`When`] writes them.
pub(crate) fn describe(buf: &mut String, kind: &EventKind<'_>, human: bool) -> fmt::Result {
    kind.describe(buf, &|buf, t| write!(buf, "{}", When(t, human)))
}

/// The `kubectl get pod` row for a pod's status at an instant (R46–R50).
///
/// Its `Display` prints the table as `kubectl get` does (each column padded to its widest cell
/// plus 3 spaces, at least 6 wide; the last column unpadded), header first:
///
/// ```text
/// NAME              READY   STATUS             RESTARTS     AGE
/// kubia-unhealthy   0/1     CrashLoopBackOff   9 (4m ago)   30m
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubectlRow {
    /// NAME: the pod's name.
    pub name: String,
    /// READY: `<ready and running>/<containers>` (R47).
    pub ready: String,
    /// STATUS (R48).
    pub status: String,
    /// RESTARTS (R49).
    pub restarts: String,
    /// AGE: since the timeline origin (R50).
    pub age: String,
}

impl KubectlRow {
    /// The column titles.
    pub const HEADERS: [&'static str; 5] = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"];

    /// The cells, in column order.
    #[must_use]
    pub fn cells(&self) -> [&str; 5] {
        [
            &self.name,
            &self.ready,
            &self.status,
            &self.restarts,
            &self.age,
        ]
    }
}

impl fmt::Display for KubectlRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // kubectl's tabwriter (minwidth 6, padding 3, last cell not padded), one flush.
        let mut text = Self::HEADERS.join("\t");
        text.push('\n');
        text.push_str(&self.cells().join("\t"));
        text.push('\n');
        let mut out = String::new();
        TabWriter::get().flush(&text, &mut out);
        f.write_str(&out)
    }
}

/// Computes the `kubectl get pod` row at `now` for `profile`'s release, as the API server's
/// `printPod` does:
/// - STATUS starts from the phase. Init containers are walked in order: one that exited 0 is
///   skipped, and so (from 1.29) is a started sidecar; the first other one decides
///   (`Init:<reason>` or `Init:<i>/<n>`) and ends the walk (R48 step 2). After that, unless the
///   pod is still initializing (and, from 1.29, its `Initialized` condition is not True), the
///   regular containers are walked from last to first, each setting its waiting reason, else its
///   terminated reason; `Completed` with a ready, running container becomes `Running`, or
///   `NotReady` when the pod is not Ready (R48 steps 3–4);
/// - READY counts ready, running regular containers and, from 1.29, started and ready sidecars
///   out of the regular containers plus the sidecars (R47);
/// - RESTARTS sums the restart counts of the init containers walked; once the regular containers
///   are walked, it is theirs plus (from 1.29) the sidecars' (R49). From 1.22 a non-zero sum
///   gets ` (<ago> ago)`, measured from the latest `lastState.finishedAt` among the containers
///   it saw: before 1.29 that includes the init containers walked; from 1.29, once the regular
///   containers are walked, only the sidecars and the regular containers;
/// - AGE is [`human_duration`] of `now`, the origin standing in for the creation time (R50).
#[must_use]
pub fn kubectl_row(
    now: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
    profile: &Profile,
) -> KubectlRow {
    fn note_last(latest: &mut Option<SimTime>, c: &ContainerStatus) {
        if let Some(last) = c.last_state {
            *latest = Some(latest.map_or(last.finished_at, |l| l.max(last.finished_at)));
        }
    }
    let sidecar_aware = profile.printer_knows_sidecars;
    let mut reason: String = status.phase.as_str().to_owned();
    let (mut ready, mut restarts) = (0usize, 0u64);
    let mut last_finished: Option<SimTime> = None;
    let (mut sidecar_restarts, mut sidecar_last_finished) = (0u64, None);
    let mut total = status.containers.len();
    if sidecar_aware {
        total += pod.init_containers.iter().filter(|s| s.restartable).count();
    }
    let n_init = pod.init_containers.len();
    let mut initializing = false;
    for (i, (spec, c)) in pod
        .init_containers
        .iter()
        .zip(&status.init_containers)
        .enumerate()
    {
        let sidecar = sidecar_aware && spec.restartable;
        restarts += u64::from(c.restart_count);
        note_last(&mut last_finished, c);
        if sidecar {
            sidecar_restarts += u64::from(c.restart_count);
            note_last(&mut sidecar_last_finished, c);
        }
        reason = match c.state {
            ContainerState::Terminated(t) if t.exit_code == 0 => continue,
            _ if sidecar && c.started => {
                if c.ready {
                    ready += 1;
                }
                continue;
            }
            ContainerState::Terminated(t) => format!("Init:{}", t.reason.as_str()),
            ContainerState::Waiting(Some(w)) if w.as_str() != "PodInitializing" => {
                format!("Init:{}", w.as_str())
            }
            _ => format!("Init:{i}/{n_init}"),
        };
        initializing = true;
        break;
    }
    let mut has_running = false;
    if !initializing || (sidecar_aware && status.conditions.initialized) {
        if sidecar_aware {
            restarts = sidecar_restarts;
            last_finished = sidecar_last_finished;
        } else {
            restarts = 0;
        }
        for c in status.containers.iter().rev() {
            restarts += u64::from(c.restart_count);
            note_last(&mut last_finished, c);
            match c.state {
                ContainerState::Waiting(Some(w)) => reason = w.as_str().to_owned(),
                ContainerState::Terminated(t) => reason = t.reason.as_str().to_owned(),
                ContainerState::Running { .. } if c.ready => {
                    has_running = true;
                    ready += 1;
                }
                ContainerState::Waiting(None) | ContainerState::Running { .. } => {}
                _ => {}
            }
        }
    }
    // R48 step 5: a pod being deleted shows Terminating until its phase is terminal.
    if status.deletion_timestamp.is_some() && !status.phase.is_terminal() {
        reason = "Terminating".to_owned();
    }
    let mut reason = reason.as_str();
    // Terminated reasons are never empty here (R26), so `Signal:N` / `ExitCode:N` do not arise.
    if reason == "Completed" && has_running {
        reason = if status.conditions.ready {
            "Running"
        } else {
            "NotReady"
        };
    }
    let mut restarts_cell = restarts.to_string();
    if let (true, Some(finished)) = (profile.restarts_say_ago && restarts != 0, last_finished) {
        let ago = human_duration(now.saturating_since(finished));
        restarts_cell = format!("{restarts} ({ago} ago)");
    }
    KubectlRow {
        name: pod.name.clone(),
        ready: format!("{ready}/{total}"),
        status: reason.to_owned(),
        restarts: restarts_cell,
        age: human_duration(now.saturating_since(SimTime::ZERO)),
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{ContainerSpec, ContainerStatus, Phase, SimDuration};

    use super::*;
    use crate::fixtures::{crash_looping, every_kind, http, pod, status, terminated};

    /// The profile of `1.<minor>`.
    fn at(minor: u8) -> Profile {
        Profile::for_minor(minor).expect("a modelled minor")
    }

    fn info(kubernetes: &str) -> RunInfo<'_> {
        RunInfo {
            scenario: "kubia-unhealthy",
            kubernetes,
            seed: 0,
            duration: SimDuration::from_secs(1800),
            overridden: &[],
        }
    }

    fn timeline(verbose: bool) -> String {
        let (handler, cs) = (http(), crash_looping(1, 110));
        let pod = pod();
        let mut sink = TextSink::new(Vec::new(), &info("1.37"), &pod, verbose).unwrap();
        for e in &every_kind(&handler, &cs) {
            sink.event(e).unwrap();
        }
        let st = status(vec![crash_looping(9, 1560)], false);
        let out = sink.finish(SimTime::from_secs(1800), &pod, &st).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn timeline_is_a_fixed_width_table() {
        let expected = "\
kubia-unhealthy: Kubernetes 1.37, seed 0, duration 30m (1800s)

     TIME  CONTAINER  KIND      WHAT
       0s  kubia      start     new instance, restartCount 0
       0s  kubia      started   started: true
       0s  (pod)      phase     phase Running
      10s  kubia      probe     liveness success
    80.5s  kubia      probe     liveness failure after 500ms (HTTP probe failed with statuscode: 500)
    80.5s  kubia      result    liveness result: Failure
    80.5s  kubia      kill      LivenessProbe, grace period 30s
    80.5s  kubia      event     Normal Killing: Container kubia failed liveness probe, will be restarted
     110s  kubia      exit      exit code 137 (Error)
     110s  kubia      ready     ready: false
     110s  (pod)      podReady  pod Ready: false
     111s  kubia      status    waiting (CrashLoopBackOff: back-off 5m0s), restartCount 1, last exit 137 (Error) at 110s
     111s  kubia      backoff   start refused: back-off 10s

At 1800s: phase Running, pod Ready false
  kubia  waiting (CrashLoopBackOff: back-off 5m0s), not ready, not started, restartCount 9, last exit 137 (Error) at 1560s

NAME              READY   STATUS             RESTARTS     AGE
kubia-unhealthy   0/1     CrashLoopBackOff   9 (4m ago)   30m
";
        assert_eq!(timeline(false), expected);
    }

    #[test]
    fn sync_lines_appear_only_when_verbose() {
        assert!(!timeline(false).contains("sync"));
        let verbose = timeline(true);
        assert!(
            verbose.contains("       0s  (pod)      sync      pod sync (create)\n"),
            "{verbose}"
        );
    }

    #[test]
    fn no_line_ends_in_spaces() {
        for line in timeline(true).lines() {
            assert_eq!(line, line.trim_end());
        }
    }

    #[test]
    fn kubectl_status_takes_the_first_container_with_a_reason() {
        // R48 step 3: the walk goes from last to first, so the first container wins.
        let pod = pod().with_container(ContainerSpec::new("sidecar", "busybox"));
        let running = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::from_secs(5),
            },
            ready: true,
            started: true,
            ..ContainerStatus::default()
        };
        let st = status(vec![crash_looping(3, 100), running], false);
        let row = kubectl_row(SimTime::from_secs(127), &pod, &st, &at(37));
        assert_eq!(row.ready, "1/2");
        assert_eq!(row.status, "CrashLoopBackOff");
        assert_eq!(row.restarts, "3 (27s ago)");
        assert_eq!(row.age, "2m7s");
    }

    #[test]
    fn kubectl_restarts_of_a_crash_looping_init_container_say_how_long_ago() {
        // R48 step 2, R49: while initializing, the init containers' restarts count, and their
        // lastState gives the "ago".
        let init = ContainerSpec::new("init", "busybox");
        let pod = PodSpec::new("p")
            .with_init_container(init)
            .with_container(ContainerSpec::new("app", "nginx"));
        let mut st = status(vec![ContainerStatus::default()], false);
        st.phase = Phase::Pending;
        st.conditions.initialized = false;
        st.init_containers = vec![crash_looping(3, 40)];
        let row = kubectl_row(SimTime::from_secs(83), &pod, &st, &at(37));
        assert_eq!(
            (
                row.ready.as_str(),
                row.status.as_str(),
                row.restarts.as_str()
            ),
            ("0/1", "Init:CrashLoopBackOff", "3 (43s ago)")
        );
        assert_eq!(
            kubectl_row(SimTime::from_secs(83), &pod, &st, &at(21)).restarts,
            "3"
        );
    }

    #[test]
    fn kubectl_walks_the_regular_containers_once_the_pod_is_initialized() {
        // R47–R49 (≥1.29): a sidecar that restarts after the pod initialized still sets the
        // STATUS, but READY and RESTARTS include the regular containers because the pod's
        // Initialized condition is True.
        let mut sidecar = ContainerSpec::new("side", "busybox");
        sidecar.restartable = true;
        let pod = PodSpec::new("p")
            .with_init_container(sidecar)
            .with_container(ContainerSpec::new("app", "nginx"));
        let app = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::from_secs(2),
            },
            ready: true,
            started: true,
            restart_count: 1,
            last_state: Some(terminated(1, 1, 50)),
        };
        let mut st = status(vec![app], false);
        st.init_containers = vec![crash_looping(3, 61)];
        let now = SimTime::from_secs(62);
        let row = kubectl_row(now, &pod, &st, &at(37));
        assert_eq!(
            (
                row.ready.as_str(),
                row.status.as_str(),
                row.restarts.as_str()
            ),
            ("1/2", "Init:CrashLoopBackOff", "4 (1s ago)")
        );
        // Not initialized: only what the init walk saw.
        st.conditions.initialized = false;
        let row = kubectl_row(now, &pod, &st, &at(37));
        assert_eq!(
            (row.ready.as_str(), row.restarts.as_str()),
            ("0/2", "3 (1s ago)")
        );
    }

    #[test]
    fn kubectl_before_1_29_keeps_the_init_containers_last_exit_for_the_ago() {
        // R49 (<1.29): the init walk's latest lastState stays the reference once the regular
        // containers are walked, though only their restarts are summed.
        let pod = PodSpec::new("p")
            .with_init_container(ContainerSpec::new("init", "busybox"))
            .with_container(ContainerSpec::new("app", "nginx"));
        let init = ContainerStatus {
            state: ContainerState::Terminated(terminated(0, 40, 45)),
            last_state: Some(terminated(1, 30, 35)),
            ready: true,
            restart_count: 1,
            ..ContainerStatus::default()
        };
        let app = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::from_secs(20),
            },
            ready: true,
            started: true,
            restart_count: 1,
            last_state: Some(terminated(1, 10, 15)),
        };
        let mut st = status(vec![app], true);
        st.init_containers = vec![init];
        let now = SimTime::from_secs(100);
        assert_eq!(kubectl_row(now, &pod, &st, &at(28)).restarts, "1 (65s ago)");
        assert_eq!(kubectl_row(now, &pod, &st, &at(37)).restarts, "1 (85s ago)");
    }

    #[test]
    fn kubectl_completed_with_a_running_container_is_running_or_not_ready() {
        // R48 step 4.
        let pod = pod().with_container(ContainerSpec::new("web", "nginx"));
        let done = ContainerStatus {
            state: ContainerState::Terminated(terminated(0, 0, 20)),
            ..ContainerStatus::default()
        };
        let running = ContainerStatus {
            state: ContainerState::Running {
                started_at: SimTime::ZERO,
            },
            ready: true,
            started: true,
            ..ContainerStatus::default()
        };
        let st = status(vec![done, running], true);
        let now = SimTime::from_secs(60);
        assert_eq!(kubectl_row(now, &pod, &st, &at(37)).status, "Running");
        let st = status(vec![done, running], false);
        assert_eq!(kubectl_row(now, &pod, &st, &at(37)).status, "NotReady");
        // Nothing else to say: the phase.
        let st = status(vec![running, running], true);
        let row = kubectl_row(now, &pod, &st, &at(37));
        assert_eq!(
            (row.status.as_str(), row.ready.as_str()),
            ("Running", "2/2")
        );
        let mut pending = status(vec![ContainerStatus::default(); 2], false);
        pending.phase = Phase::Pending;
        assert_eq!(
            kubectl_row(now, &pod, &pending, &at(37)).status,
            "ContainerCreating"
        );
    }

    #[test]
    fn kubectl_restarts_say_how_long_ago_from_1_22() {
        // R49: the latest lastState.finishedAt, even while the newest instance is terminated.
        let pod = pod();
        let mut cs = crash_looping(4, 40);
        cs.state = ContainerState::Terminated(terminated(137, 60, 82));
        let st = status(vec![cs], false);
        let now = SimTime::from_secs(100);
        assert_eq!(kubectl_row(now, &pod, &st, &at(37)).restarts, "4 (60s ago)");
        assert_eq!(kubectl_row(now, &pod, &st, &at(37)).status, "Error");
        assert_eq!(kubectl_row(now, &pod, &st, &at(21)).restarts, "4");
        let fresh = status(vec![ContainerStatus::default()], false);
        assert_eq!(kubectl_row(now, &pod, &fresh, &at(37)).restarts, "0");
    }
}
