//! `--format timeline` without `-v`: the timeline for people.

use core::fmt::Write as _;
use probesim_kube::printable::printable;
use std::collections::BTreeMap;
use std::io::{self, Write};

use probesim_core::{
    Event, EventKind, EventType, Flow, KubeEvent, Message, Outcome, PodSpec, PodStatus, ProbeKind,
    ProbeResult, Profile, Recorded, SimDuration, SimTime, Sink,
};

use crate::text::{describe, write_final, KIND_WIDTH, POD_LABEL};
use crate::RunInfo;

/// Which lines a timeline shows: `--only KIND[,KIND…]` and `--container NAME`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// The kinds to show (indexes of [`EventKind::NAMES`]); `None` shows every kind.
    pub kinds: Option<Vec<usize>>,
    /// The one container to show; `None` shows every container and the pod's own lines.
    pub container: Option<String>,
}

impl Filter {
    /// Parses `--only`: kind names separated by commas (`probe,kill`).
    ///
    /// # Errors
    /// A name that is no kind, with the list of kinds.
    pub fn parse_kinds(list: &str) -> Result<Vec<usize>, String> {
        list.split(',')
            .map(str::trim)
            .map(|k| {
                EventKind::NAMES
                    .iter()
                    .position(|n| *n == k)
                    .ok_or_else(|| {
                        format!(
                            "unknown kind `{k}` (expected one or more of {}, separated by commas)",
                            EventKind::NAMES.join(", ")
                        )
                    })
            })
            .collect()
    }

    /// Whether a line of `kind` is shown.
    #[must_use]
    pub fn shows(&self, kind: &EventKind<'_>) -> bool {
        self.kinds
            .as_ref()
            .is_none_or(|k| k.contains(&kind.index()))
            && self
                .container
                .as_deref()
                .is_none_or(|c| kind.container() == Some(c))
    }
}

/// A probe worker's run of equal results, as the kubelet counts it toward a threshold.
#[derive(Clone, Copy, Debug, Default)]
struct Streak {
    /// `lastResult` is Success (a warning counts as one).
    success: bool,
    /// `resultRun` (P33).
    n: u32,
    /// A probe has run since the instance started: later `result` lines are its verdicts.
    probed: bool,
    /// The run length at which the last probe reached its threshold (P34), for the `result`
    /// line that follows it.
    reached: Option<u32>,
    /// When the last probe's result was known: a crossing follows its probe at that instant.
    last: Option<SimTime>,
    /// The container's process has ended and no new instance has started (P27).
    stopped: bool,
}

/// The timeline for people: one line per happening, times as durations (`2m30s`), a probe's
/// run toward its threshold (`liveness failure 2/3`), the `Unhealthy` event folded into the
/// probe line it repeats, the worker's initial value marked, a verdict's change explained by the
/// run that reached the threshold, the event recorder's verdicts
/// explained in a legend at the end; `sync` lines left out (the exact table is `-v`).
///
/// ```text
/// kubia-unhealthy: Kubernetes 1.37, seed 0, duration 30m (1800s)
///
///      TIME  CONTAINER  KIND      WHAT
///       10s  kubia      result    liveness result: Success (the worker's initial value)
///       10s  kubia      probe     liveness success
///       60s  kubia      probe     liveness failure 1/3 (HTTP probe failed with statuscode: 500)  Warning Unhealthy
///       70s  kubia      probe     liveness failure 2/3 (HTTP probe failed with statuscode: 500)  Warning Unhealthy [x2 since 1m]
///    1m20s  kubia      probe     liveness failure 3/3 (HTTP probe failed with statuscode: 500)  Warning Unhealthy [x3 since 1m]
///    1m20s  kubia      result    liveness result: Failure (3 failures in a row reach failureThreshold 3)
///    1m20s  kubia      kill      LivenessProbe, grace period 30s
/// ```
///
/// TIME is the span since the origin in the scenario files' duration syntax (the JSON formats
/// keep exact seconds). With `colour`, failures, kills and warnings are red, successes green,
/// back-off yellow (ANSI escapes; the caller decides, e.g. from a terminal and `NO_COLOR`).
#[derive(Debug)]
pub struct ReadableSink<W: Write> {
    w: W,
    pod: PodSpec,
    profile: Profile,
    filter: Filter,
    colour: bool,
    time_width: usize,
    name_width: usize,
    /// Each probe worker's streak, by container index (as [`ReadableSink::index`] gives it)
    /// and probe type.
    runs: BTreeMap<(usize, usize), Streak>,
    /// Each container's index by name (the first of a repeated name): a probe line finds its
    /// thresholds by a look-up, not a search through every container.
    index: BTreeMap<String, usize>,
    /// A probe line waiting for the `Unhealthy` event that may repeat it.
    pending: Option<Pending>,
    /// The last line's [`Pending`], its strings kept for the next probe line.
    spare: Option<Pending>,
    annotated: bool,
    buf: String,
    /// The time column of the line being written.
    time: String,
    /// The text of the event being written, kept for its capacity.
    what: String,
}

#[derive(Debug)]
struct Pending {
    t: SimTime,
    container: String,
    probe: ProbeKind,
    output: String,
    what: String,
    red: bool,
}

impl<W: Write> ReadableSink<W> {
    /// Writes the header line and the column titles.
    ///
    /// # Errors
    /// Writing failed.
    pub fn new(
        mut w: W,
        info: &RunInfo<'_>,
        pod: &PodSpec,
        filter: Filter,
        colour: bool,
    ) -> io::Result<ReadableSink<W>> {
        let time_width = time_width(info.duration).max("TIME".len());
        let name_width = crate::text::name_width(pod);
        let profile = probesim_core::Profile::parse(info.kubernetes)
            .unwrap_or_else(probesim_core::Profile::newest);
        crate::text::write_header(&mut w, info, time_width, name_width)?;
        Ok(ReadableSink {
            w,
            pod: pod.clone(),
            profile,
            filter,
            colour,
            time_width,
            name_width,
            runs: BTreeMap::new(),
            index: {
                let mut index = BTreeMap::new();
                for (i, c) in pod.all_containers().enumerate() {
                    index.entry(c.name.clone()).or_insert(i);
                }
                index
            },
            pending: None,
            spare: None,
            annotated: false,
            buf: String::new(),
            time: String::new(),
            what: String::new(),
        })
    }

    fn line(
        &mut self,
        t: SimTime,
        name: &str,
        kind: &str,
        what: &str,
        colour: Colour,
    ) -> io::Result<()> {
        let buf = &mut self.buf;
        buf.clear();
        self.time.clear();
        let _ = probesim_script::write_duration(t.saturating_since(SimTime::ZERO), &mut self.time);
        // `{time:>tw$}  {name:<nw$}  {kind:<KIND_WIDTH$}  `, without the formatting machinery.
        pad(buf, self.time_width, &self.time);
        buf.push_str(&self.time);
        buf.push_str("  ");
        buf.push_str(name);
        pad(buf, self.name_width, name);
        buf.push_str("  ");
        buf.push_str(kind);
        pad(buf, KIND_WIDTH, kind);
        buf.push_str("  ");
        // Probe output and event messages can carry text from the scenario: escaped before
        // the colour codes of our own are added.
        let what = printable(what);
        match (self.colour, colour.code()) {
            (true, Some(code)) => {
                let _ = write!(buf, "\u{1b}[{code}m{what}\u{1b}[0m");
            }
            _ => buf.push_str(&what),
        }
        buf.push('\n');
        self.w.write_all(buf.as_bytes())
    }

    fn flush_pending(&mut self, event: Option<&KubeEvent<'_>>) -> io::Result<()> {
        let Some(mut p) = self.pending.take() else {
            return Ok(());
        };
        if let Some(e) = event {
            let _ = write!(p.what, "  {} {}", e.event_type.as_str(), e.reason);
            self.annotated |= annotate(&mut p.what, e.recorded);
        }
        let colour = if p.red { Colour::Red } else { Colour::Green };
        let written = self.line(p.t, &p.container, "probe", &p.what, colour);
        self.spare = Some(p);
        written
    }

    /// Writes the final status and the `kubectl get pod` table at `end` (as the exact table
    /// does), the legend when an annotation was shown, and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        self.flush_pending(None)?;
        let mut buf = String::new();
        write_final(&mut buf, end, pod, status, &self.profile, true).map_err(io::Error::other)?;
        if self.annotated {
            buf.push_str(LEGEND);
        }
        self.w.write_all(buf.as_bytes())?;
        self.w.flush()?;
        Ok(self.w)
    }

    /// The key of a container's probe worker in [`ReadableSink::runs`].
    fn key(&self, container: &str, probe: ProbeKind) -> (usize, usize) {
        (
            self.index.get(container).copied().unwrap_or(usize::MAX),
            probe.index(),
        )
    }

    fn threshold(&self, container: &str, probe: ProbeKind, success: bool) -> u32 {
        self.index
            .get(container)
            .map(|&i| self.pod.container(i))
            .and_then(|c| c.probe(probe))
            .map_or(1, |p| {
                let n = if success {
                    p.success_threshold()
                } else {
                    p.failure_threshold()
                };
                u32::try_from(n).unwrap_or(1)
            })
    }
}

/// Pads `buf` with spaces for `text` to fill `width` characters (as `{:<width$}` does).
fn pad(buf: &mut String, width: usize, text: &str) {
    const SPACES: &str = "                                ";
    let len = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    let mut n = width.saturating_sub(len);
    while n > 0 {
        let k = n.min(SPACES.len());
        buf.push_str(&SPACES[..k]);
        n -= k;
    }
}

/// What the recorder annotations mean; printed once, after the final status.
pub const LEGEND: &str = "
Legend:
  [xN since T]  the kubelet's event recorder has counted this event N times since T; the
                API server's Event carries count N (describe: \"xN over ...\")
  [not sent]    the recorder's spam filter (25 events, then one per 5 minutes) kept it from
                the API server: kubectl never shows this occurrence, a later one carries it
";

/// Appends the recorder's verdict (`[x2 since 1m]`, `[not sent]`); says whether it did.
fn annotate(what: &mut String, recorded: Option<Recorded>) -> bool {
    match recorded {
        Some(r) if r.count > 1 => {
            let _ = write!(what, " [x{} since ", r.count);
            let _ = probesim_script::write_duration(r.first.saturating_since(SimTime::ZERO), what);
            what.push_str(if r.sent { "]" } else { ", not sent]" });
            true
        }
        Some(r) if !r.sent => {
            what.push_str(" [not sent]");
            true
        }
        _ => false,
    }
}

#[derive(Clone, Copy, Debug)]
enum Colour {
    Plain,
    Red,
    Green,
    Yellow,
}

impl Colour {
    fn code(self) -> Option<&'static str> {
        match self {
            Colour::Plain => None,
            Colour::Red => Some("31"),
            Colour::Green => Some("32"),
            Colour::Yellow => Some("33"),
        }
    }
}

/// The widest TIME up to `horizon`: its hours or minutes with `59m59.999s` after them.
fn time_width(horizon: SimDuration) -> usize {
    let secs = horizon.whole_secs();
    let digits = |n: u64| n.to_string().len();
    if secs >= 3600 {
        digits(secs / 3600) + "h59m59.999s".len()
    } else if secs >= 60 {
        digits(secs / 60) + "m59.999s".len()
    } else {
        digits(secs) + ".999s".len()
    }
}

impl<W: Write> Sink for ReadableSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        // The Unhealthy event that repeats the probe line just written joins it.
        if let (Some(p), EventKind::Event(e)) = (&self.pending, &event.kind) {
            if let Message::ProbeFailed { probe, output }
            | Message::ProbeErrored { probe, output }
            | Message::ProbeWarning { probe, output } = e.message
            {
                if p.t == event.t
                    && probe == p.probe
                    && event.kind.container() == Some(p.container.as_str())
                    && {
                        self.time.clear();
                        let _ = write!(self.time, "{output}");
                        self.time == p.output
                    }
                {
                    self.flush_pending(Some(e))?;
                    return Ok(Flow::Continue);
                }
            }
        }
        self.flush_pending(None)?;
        match event.kind {
            // P25: a new container's first `result` is the worker's initial value, but
            // `lastResult` and `resultRun` carry over from the previous container (E5).
            EventKind::Start { container, .. } => {
                let (c, _) = self.key(container, ProbeKind::Liveness);
                for (_, run) in self.runs.iter_mut().filter(|((rc, _), _)| *rc == c) {
                    run.probed = false;
                    run.stopped = false;
                }
            }
            EventKind::Exit { container, .. } => {
                let (c, _) = self.key(container, ProbeKind::Liveness);
                for (_, run) in self.runs.iter_mut().filter(|((rc, _), _)| *rc == c) {
                    run.stopped = true;
                }
            }
            // A new kubelet has new workers.
            EventKind::KubeletRestart => self.runs.clear(),
            _ => {}
        }
        if let EventKind::Probe {
            container,
            probe,
            outcome,
            output,
            duration,
        } = event.kind
        {
            let threshold_success = matches!(outcome, Outcome::Success | Outcome::Warning);
            let limit = self.threshold(container, probe, threshold_success);
            let startup_holds_on_success = self.profile.startup_holds_on_success;
            let run = self.runs.entry(self.key(container, probe)).or_default();
            run.probed = true;
            run.reached = None;
            run.last = Some(event.t);
            let mut p = self.spare.take().unwrap_or(Pending {
                t: event.t,
                container: String::new(),
                probe,
                output: String::new(),
                what: String::new(),
                red: false,
            });
            let what = &mut p.what;
            what.clear();
            what.push_str(probe.as_str());
            what.push(' ');
            what.push_str(outcome.as_str());
            if outcome == Outcome::Error {
                // P31: the result is thrown away; the run does not move.
                what.push_str(" (result discarded)");
            } else {
                // P33.
                if run.success == threshold_success {
                    run.n += 1;
                } else {
                    run.success = threshold_success;
                    run.n = 1;
                }
                if !threshold_success || limit > 1 {
                    if run.n <= limit {
                        let _ = write!(what, " {}/{limit}", run.n);
                    } else {
                        let _ = write!(what, " ({} in a row)", run.n);
                    }
                }
                if run.n >= limit {
                    run.reached = Some(run.n);
                    // P35: a decisive liveness or startup result puts the worker on hold
                    // with `resultRun` 0.
                    let holds = match probe {
                        ProbeKind::Liveness => !threshold_success,
                        ProbeKind::Startup => !threshold_success || startup_holds_on_success,
                        ProbeKind::Readiness => false,
                    };
                    if holds {
                        run.n = 0;
                    }
                }
            }
            if !duration.is_zero() {
                let _ = write!(what, " after {}", duration.go());
            }
            p.output.clear();
            let _ = write!(p.output, "{output}");
            if !p.output.is_empty() {
                what.push_str(" (");
                what.push_str(&p.output);
                what.push(')');
            }
            if !self.filter.shows(&event.kind) {
                self.spare = Some(p);
                return Ok(Flow::Continue);
            }
            p.t = event.t;
            p.container.clear();
            p.container.push_str(container);
            p.probe = probe;
            p.red = !threshold_success;
            self.pending = Some(p);
            return Ok(Flow::Continue);
        }
        if matches!(event.kind, EventKind::Sync { .. }) || !self.filter.shows(&event.kind) {
            return Ok(Flow::Continue);
        }
        let mut what = core::mem::take(&mut self.what);
        what.clear();
        let colour = match event.kind {
            EventKind::Result {
                container,
                probe,
                result,
            } => {
                let _ = write!(what, "{probe} result: {}", result.as_str());
                let run = self
                    .runs
                    .get(&self.key(container, probe))
                    .copied()
                    .unwrap_or_default();
                // A verdict follows its probe at the same instant (P34); any other result is
                // a stopped container's Failure (P27) or the worker's first sight of a new
                // instance (P25), which can come a sync after the start.
                let crossed = run.probed && run.last == Some(event.t);
                if run.stopped && result == ProbeResult::Failure && !crossed {
                    what.push_str(" (the container is not running, P27)");
                } else if !crossed {
                    what.push_str(" (the worker's initial value)");
                } else if let Some(n) = run.reached {
                    // The run that made the worker record its verdict (P34).
                    let (what_ran, name, limit) = if run.success {
                        (
                            "successes",
                            "successThreshold",
                            self.threshold(container, probe, true),
                        )
                    } else {
                        (
                            "failures",
                            "failureThreshold",
                            self.threshold(container, probe, false),
                        )
                    };
                    if limit > 1 || !run.success {
                        let _ = write!(what, " ({n} {what_ran} in a row reach {name} {limit})");
                    }
                }
                Colour::Plain
            }
            EventKind::Event(e) => {
                let _ = write!(
                    what,
                    "{} {}: {}",
                    e.event_type.as_str(),
                    e.reason,
                    e.message
                );
                self.annotated |= annotate(&mut what, e.recorded);
                if e.event_type == EventType::Warning {
                    Colour::Red
                } else {
                    Colour::Plain
                }
            }
            ref kind => {
                let _ = describe(&mut what, kind, true);
                match kind {
                    EventKind::Kill { .. } => Colour::Red,
                    EventKind::Exit { exit_code, .. } if *exit_code != 0 => Colour::Red,
                    EventKind::BackOff { .. } => Colour::Yellow,
                    _ => Colour::Plain,
                }
            }
        };
        let name = event.kind.container().unwrap_or(POD_LABEL);
        let written = self.line(event.t, name, event.kind.name(), &what, colour);
        self.what = what;
        written?;
        Ok(Flow::Continue)
    }
}
