//! The JSON reports: `--format json` (docs/cli.md#--format-json), `jsonl` and `summary`.
//!
//! Every object is written by hand, field by field, in a fixed order, with `": "` after keys and
//! `", "` between fields. Times and spans are seconds as JSON numbers with millisecond precision
//! and no trailing zeros (`80`, `0.5`, `12.25`: the `Display` of [`SimTime`] and
//! [`SimDuration`]). Message texts are rendered into one reusable buffer and escaped as JSON
//! strings, so writing an event allocates nothing once the buffer has grown.

use core::fmt;
use std::collections::BTreeMap;
use std::io::{self, Write};

use probesim_core::cycle::Visitor;
use probesim_core::{
    ContainerState, ContainerStatus, Event, EventKind, FastForward, Flow, NameSlots, PodSpec,
    PodStatus, SimTime, Sink,
};

use super::RunInfo;

mod line;

/// How many bytes of event lines the JSON sinks gather before handing them to their writer.
const FLUSH_AT: usize = 64 * 1024;

/// The `counts` key of pod-level events (`phase`, `podReady`, `sync`, Events about the pod) in
/// the summary. Parentheses keep it apart from every container name (a DNS label).
pub const POD_COUNTS_KEY: &str = "(pod)";

/// Writes `s` as a JSON string literal, escaped as
/// [`json_string`](probesim_kube::printable::json_string) escapes it: `"`, `\` and C0
/// controls as `serde_json` does, DEL, C1, bidirectional, zero-width characters and U+2028 and
/// U+2029 as `\uXXXX`; everything else as is. Plain ASCII, the usual case, is written at once.
pub(crate) fn string<W: Write + ?Sized>(w: &mut W, s: &str) -> io::Result<()> {
    let bytes = s.as_bytes();
    if bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        w.write_all(b"\"")?;
        w.write_all(bytes)?;
        return w.write_all(b"\"");
    }
    let mut out = String::with_capacity(s.len() + 8);
    probesim_kube::printable::json_string(&mut out, s);
    w.write_all(out.as_bytes())
}

/// Writes `, "key": ` (keys are plain ASCII and need no escaping).
fn key<W: Write + ?Sized>(w: &mut W, key: &str) -> io::Result<()> {
    write!(w, ", \"{key}\": ")
}

/// Writes `, "key": "value"`.
fn field_str<W: Write + ?Sized>(w: &mut W, k: &str, value: &str) -> io::Result<()> {
    key(w, k)?;
    string(w, value)
}

/// Writes `, "key": <value's Display>` unquoted (numbers, booleans).
fn field_raw<W: Write + ?Sized>(w: &mut W, k: &str, value: impl fmt::Display) -> io::Result<()> {
    write!(w, ", \"{k}\": {value}")
}

/// Writes one timeline event as a one-line JSON object (no trailing newline): `t` and `kind`,
/// then the kind's fields (those of docs/cli.md#--format-json):
///
/// | kind | fields after `t`, `kind` |
/// |---|---|
/// | `probe` | `container`, `probe`, `outcome`, `output`, `duration` |
/// | `result` | `container`, `probe`, `result` |
/// | `kill` | `container`, `reason`, `grace` |
/// | `exit` | `container`, `exitCode`, `reason` |
/// | `start` | `container`, `restartCount` |
/// | `backoff` | `container`, `backoff` |
/// | `ready` | `container`, `ready` |
/// | `started` | `container`, `started` |
/// | `status` | `container`, then the container fields of `final` (`state`, `reason`?, `ready`, `started`, `restartCount`, `exitCode`?, `lastState`?) |
/// | `podReady` | `ready` |
/// | `phase` | `phase` |
/// | `sync` | `trigger` |
/// | `event` | `type`, `reason`, `object` (the involved object's `fieldPath`, `""` for the pod), `message` |
///
/// `buf` is scratch space for rendering texts; pass the same one every time. A sink writing
/// many events keeps an [`EventWriter`](line::EventWriter) instead, which also keeps the texts
/// it rendered.
///
/// # Errors
/// Writing failed.
pub fn write_event<W: Write + ?Sized>(
    w: &mut W,
    event: &Event<'_>,
    buf: &mut String,
) -> io::Result<()> {
    let mut writer = line::EventWriter::with_text(std::mem::take(buf));
    let mut out = Vec::new();
    writer.write(&mut out, event);
    *buf = writer.into_text();
    w.write_all(&out)
}

/// Writes the fields of one container's API status, each preceded by `, `.
fn container_fields<W: Write + ?Sized>(w: &mut W, status: &ContainerStatus) -> io::Result<()> {
    field_str(w, "state", status.state.name())?;
    if let Some(reason) = status.state.reason() {
        field_str(w, "reason", reason)?;
    }
    field_raw(w, "ready", status.ready)?;
    field_raw(w, "started", status.started)?;
    field_raw(w, "restartCount", status.restart_count)?;
    if let ContainerState::Terminated(t) = status.state {
        field_raw(w, "exitCode", t.exit_code)?;
    }
    if let Some(last) = status.last_state {
        key(w, "lastState")?;
        write!(w, "{{\"exitCode\": {}", last.exit_code)?;
        field_str(w, "reason", last.reason.as_str())?;
        field_raw(w, "finishedAt", last.finished_at)?;
        w.write_all(b"}")?;
    }
    Ok(())
}

/// Writes the fields of `final` without braces: `"t": …, "phase": …, …, "containers": […]`.
fn final_fields<W: Write + ?Sized>(
    w: &mut W,
    t: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
) -> io::Result<()> {
    write!(w, "\"t\": {t}")?;
    field_str(w, "phase", status.phase.as_str())?;
    let c = &status.conditions;
    field_raw(w, "ready", c.ready)?;
    key(w, "conditions")?;
    w.write_all(b"{")?;
    if let Some(v) = c.ready_to_start_containers {
        write!(w, "\"PodReadyToStartContainers\": {v}, ")?;
    }
    write!(
        w,
        "\"Initialized\": {}, \"Ready\": {}, \"ContainersReady\": {}, \"PodScheduled\": {}}}",
        c.initialized, c.ready, c.containers_ready, c.pod_scheduled
    )?;
    if let Some(t) = status.deletion_timestamp {
        field_raw(w, "deletionTimestamp", t)?;
        field_raw(w, "removed", status.removed)?;
    }
    if !status.init_containers.is_empty() {
        key(w, "initContainers")?;
        statuses(w, &pod.init_containers, &status.init_containers)?;
    }
    key(w, "containers")?;
    statuses(w, &pod.containers, &status.containers)
}

/// A JSON array of container statuses, named after their specs.
fn statuses<W: Write + ?Sized>(
    w: &mut W,
    specs: &[probesim_core::ContainerSpec],
    statuses: &[probesim_core::ContainerStatus],
) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, cs) in statuses.iter().enumerate() {
        if i > 0 {
            w.write_all(b", ")?;
        }
        let name = specs.get(i).map_or("", |c| c.name.as_str());
        w.write_all(b"{\"name\": ")?;
        string(w, name)?;
        container_fields(w, cs)?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]")
}

/// Writes the `final` object (docs/cli.md#--format-json) on one line, without a trailing newline:
///
/// ```text
/// {"t": 1800, "phase": "Running", "ready": false,
///  "conditions": {"PodReadyToStartContainers": true, "Initialized": true, "Ready": false, "ContainersReady": false, "PodScheduled": true},
///  "containers": [{"name": "kubia", "state": "waiting", "reason": "CrashLoopBackOff", "ready": false, "started": false,
///                  "restartCount": 9, "lastState": {"exitCode": 137, "reason": "Error", "finishedAt": 1560}}]}
/// ```
/// `initContainers` (same shape as `containers`) appears only when the pod has init containers;
/// `deletionTimestamp` and `removed` (the pod object is gone) only when the pod was deleted.
/// `t` is the end of the run; `ready` is the pod's `Ready` condition; `PodReadyToStartContainers`
/// appears only in profiles that report it; a container's `reason` only when its state has one,
/// `exitCode` only when it is terminated, `lastState` only when set. Container names come from
/// `pod`, statuses from `status`, both in spec order.
///
/// # Errors
/// Writing failed.
pub fn write_final<W: Write + ?Sized>(
    w: &mut W,
    t: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
) -> io::Result<()> {
    w.write_all(b"{")?;
    final_fields(w, t, pod, status)?;
    w.write_all(b"}")
}

/// Writes the header fields shared by the JSON document and the summary, after `{\n`.
fn header_fields<W: Write + ?Sized>(w: &mut W, info: &RunInfo<'_>) -> io::Result<()> {
    w.write_all(b"  \"probesim\": 1,\n  \"scenario\": ")?;
    string(w, info.scenario)?;
    field_str(w, "kubernetes", info.kubernetes)?;
    field_raw(w, "seed", info.seed)?;
    field_raw(w, "duration", info.duration)?;
    overridden_field(w, info.overridden)
}

/// Writes `, "overridden": ["--set …", …]` when the command line edited the scenario, and
/// nothing otherwise (the file's own run keeps the header it always had).
fn overridden_field<W: Write + ?Sized>(w: &mut W, overridden: &[String]) -> io::Result<()> {
    if overridden.is_empty() {
        return Ok(());
    }
    key(w, "overridden")?;
    w.write_all(b"[")?;
    for (i, edit) in overridden.iter().enumerate() {
        if i > 0 {
            w.write_all(b", ")?;
        }
        string(w, edit)?;
    }
    w.write_all(b"]")
}

/// `--format json`: the JSON timeline of docs/cli.md#--format-json, streamed.
///
/// The header and `"events": [` are written by [`JsonSink::new`], each event on its own line as
/// it arrives, and `]` plus `final` by [`JsonSink::finish`]:
///
/// ```text
/// {
///   "probesim": 1,
///   "scenario": "kubia-unhealthy", "kubernetes": "1.37", "seed": 0, "duration": 1800,
///   "events": [
///     {"t": 10, "kind": "probe", "container": "kubia", "probe": "liveness", "outcome": "success", "output": "", "duration": 0},
///     {"t": 80, "kind": "kill", "container": "kubia", "reason": "LivenessProbe", "cause": "liveness", "grace": 30}
///   ],
///   "final": {"t": 1800, "phase": "Running", …}
/// }
/// ```
/// A run without events has `"events": [],`.
#[derive(Debug)]
pub struct JsonSink<W: Write> {
    w: W,
    events: u64,
    /// Event lines not yet handed to `w` (at most about [`FLUSH_AT`] bytes).
    out: Vec<u8>,
    lines: line::EventWriter,
}

impl<W: Write> JsonSink<W> {
    /// Writes the header up to `"events": [`.
    ///
    /// # Errors
    /// Writing failed.
    pub fn new(mut w: W, info: &RunInfo<'_>) -> io::Result<JsonSink<W>> {
        w.write_all(b"{\n")?;
        header_fields(&mut w, info)?;
        w.write_all(b",\n  \"events\": [")?;
        Ok(JsonSink {
            w,
            events: 0,
            out: Vec::new(),
            lines: line::EventWriter::default(),
        })
    }

    /// Closes the events, writes `final` (see [`write_final`]) and the closing brace, and returns
    /// the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        self.w.write_all(&self.out)?;
        let close: &[u8] = if self.events == 0 { b"]" } else { b"\n  ]" };
        self.w.write_all(close)?;
        self.w.write_all(b",\n  \"final\": ")?;
        write_final(&mut self.w, end, pod, status)?;
        self.w.write_all(b"\n}\n")?;
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for JsonSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        let sep: &[u8] = if self.events == 0 {
            b"\n    "
        } else {
            b",\n    "
        };
        self.out.extend_from_slice(sep);
        self.lines.write(&mut self.out, event);
        self.events += 1;
        flush_full(&mut self.w, &mut self.out)?;
        Ok(Flow::Continue)
    }
}

/// Hands `out` to `w` once it holds [`FLUSH_AT`] bytes or more.
fn flush_full<W: Write>(w: &mut W, out: &mut Vec<u8>) -> io::Result<()> {
    if out.len() >= FLUSH_AT {
        w.write_all(out)?;
        out.clear();
    }
    Ok(())
}

/// `--format jsonl`: each event as a one-line object (the shape of [`write_event`]), then one
/// line with the final status:
///
/// ```text
/// {"t": 80, "kind": "kill", "container": "kubia", "reason": "LivenessProbe", "cause": "liveness", "grace": 30}
/// {"kind": "final", "t": 1800, "phase": "Running", "ready": false, "conditions": {…}, "containers": […]}
/// ```
#[derive(Debug)]
pub struct JsonlSink<W: Write> {
    w: W,
    /// The command-line edits, listed in the final line.
    overridden: Vec<String>,
    /// Event lines not yet handed to `w` (at most about [`FLUSH_AT`] bytes).
    out: Vec<u8>,
    lines: line::EventWriter,
}

impl<W: Write> JsonlSink<W> {
    /// Starts the stream (there is no header line).
    #[must_use]
    pub fn new(w: W) -> JsonlSink<W> {
        JsonlSink {
            w,
            overridden: Vec::new(),
            out: Vec::new(),
            lines: line::EventWriter::default(),
        }
    }

    /// Lists the command-line edits of the scenario in the final line (`"overridden"`, after
    /// `kind`); none by default.
    #[must_use]
    pub fn with_overridden(mut self, overridden: &[String]) -> JsonlSink<W> {
        self.overridden = overridden.to_vec();
        self
    }

    /// Writes the `{"kind": "final", …}` line and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        self.w.write_all(&self.out)?;
        self.w.write_all(b"{\"kind\": \"final\"")?;
        overridden_field(&mut self.w, &self.overridden)?;
        self.w.write_all(b", ")?;
        final_fields(&mut self.w, end, pod, status)?;
        self.w.write_all(b"}\n")?;
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for JsonlSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        self.lines.write(&mut self.out, event);
        self.out.push(b'\n');
        flush_full(&mut self.w, &mut self.out)?;
        Ok(Flow::Continue)
    }
}

/// `--format summary`: counts events per container and kind, keeping no history, then writes one
/// JSON document: the run's header fields, the fields of `final` and `counts`.
///
/// ```text
/// {
///   "probesim": 1,
///   "scenario": "kubia-unhealthy", "kubernetes": "1.37", "seed": 0, "duration": 1800,
///   "t": 1800, "phase": "Running", "ready": false, "conditions": {…}, "containers": […],
///   "counts": {
///     "kubia": {"probe": 97, "result": 18, "kill": 9, "exit": 9, "start": 10, …},
///     "(pod)": {"podReady": 2, "phase": 1}
///   }
/// }
/// ```
/// `counts` has one entry per container in spec order (`{}` for a container without events),
/// then any other container named by events in order of first appearance, then
/// [`POD_COUNTS_KEY`] for pod-level events. Inside an entry, kinds follow
/// [`EventKind::NAMES`] and kinds never seen are left out.
#[derive(Debug)]
pub struct SummarySink<W: Write> {
    w: W,
    names: Vec<String>,
    counts: Vec<[u64; EventKind::NAMES.len()]>,
    pod: [u64; EventKind::NAMES.len()],
    /// Containers found by the address of their name (no search by name per event).
    slots: NameSlots,
    /// The row of each name, for a name at an address not seen yet: a look-up, not a search
    /// through every container (quadratic in a pod of thousands).
    rows: BTreeMap<String, usize>,
}

impl<W: Write> SummarySink<W> {
    /// Writes the header (scenario, version, seed, duration) and starts counting.
    ///
    /// # Errors
    /// Writing failed.
    pub fn new(mut w: W, info: &RunInfo<'_>, pod: &PodSpec) -> io::Result<SummarySink<W>> {
        w.write_all(b"{\n")?;
        header_fields(&mut w, info)?;
        w.write_all(b",\n")?;
        Ok(SummarySink {
            w,
            names: pod.containers.iter().map(|c| c.name.clone()).collect(),
            counts: vec![[0; EventKind::NAMES.len()]; pod.containers.len()],
            pod: [0; EventKind::NAMES.len()],
            slots: NameSlots::default(),
            rows: {
                let mut rows = BTreeMap::new();
                for (i, c) in pod.containers.iter().enumerate() {
                    // The first of a repeated name, as a search from the start finds it.
                    rows.entry(c.name.clone()).or_insert(i);
                }
                rows
            },
        })
    }

    /// The row of container `c` (at engine index `index` when the event came with one), added
    /// at its first event when the spec does not list it.
    fn row(&mut self, index: Option<usize>, c: &str) -> usize {
        self.slots.slot_at(
            index,
            c,
            &mut (&mut self.names, &mut self.counts, &mut self.rows),
            |(names, _, _), i| names[i] == c,
            |(names, counts, rows)| match rows.get(c) {
                Some(&i) => i,
                None => {
                    // A container the spec does not list: counted from its first event on.
                    names.push(c.to_owned());
                    counts.push([0; EventKind::NAMES.len()]);
                    rows.insert(c.to_owned(), names.len() - 1);
                    names.len() - 1
                }
            },
        )
    }

    /// Writes the final status and the counts, and returns the writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        // The final status as `final` (docs/cli.md#--format-summary); its
        // fields are repeated at the top level, where jq users look first.
        self.w.write_all(b"  \"final\": ")?;
        write_final(&mut self.w, end, pod, status)?;
        self.w.write_all(b",\n  ")?;
        final_fields(&mut self.w, end, pod, status)?;
        self.w.write_all(b",\n  \"counts\": {")?;
        let rows = self
            .names
            .iter()
            .map(String::as_str)
            .zip(&self.counts)
            .chain([(POD_COUNTS_KEY, &self.pod)]);
        for (i, (name, counts)) in rows.enumerate() {
            self.w
                .write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
            string(&mut self.w, name)?;
            self.w.write_all(b": {")?;
            let mut first = true;
            for (kind, n) in EventKind::NAMES.iter().zip(counts) {
                if *n > 0 {
                    let sep = if first { "" } else { ", " };
                    write!(self.w, "{sep}\"{kind}\": {n}")?;
                    first = false;
                }
            }
            self.w.write_all(b"}")?;
        }
        self.w.write_all(b"\n  }\n}\n")?;
        self.w.flush()?;
        Ok(self.w)
    }
}

impl<W: Write> Sink for SummarySink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        let k = event.kind.index();
        match event.kind.container() {
            None => self.pod[k] += 1,
            Some(c) => {
                let i = self.row(None, c);
                self.counts[i][k] += 1;
            }
        }
        Ok(Flow::Continue)
    }

    /// A container known by its index is counted without its name ([`NameSlots::known`]).
    #[inline]
    fn container_event(&mut self, event: &Event<'_>, container: usize) -> io::Result<Flow> {
        let k = event.kind.index();
        let i = match (self.slots.known(container), event.kind.container()) {
            (Some(i), _) => i,
            (None, Some(c)) => self.row(Some(container), c),
            (None, None) => {
                self.pod[k] += 1;
                return Ok(Flow::Continue);
            }
        };
        self.counts[i][k] += 1;
        Ok(Flow::Continue)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        Some(self)
    }
}

impl<W: Write> FastForward for SummarySink<W> {
    /// Counts move on with fast-forward: the summary shows nothing else of the events.
    fn visit_cycle(&mut self, v: &mut dyn Visitor) -> bool {
        v.exact(self.names.len() as u64);
        for n in self.counts.iter_mut().flatten().chain(&mut self.pod) {
            v.count(n, None, u64::MAX);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use probesim_core::{Event, EventKind, SimDuration, SimTime, Sink};
    use serde_json::Value;

    use super::*;
    use crate::fixtures::{crash_looping, every_kind, http, pod, status};

    fn info() -> RunInfo<'static> {
        RunInfo {
            scenario: "kubia-unhealthy",
            kubernetes: "1.37",
            seed: 0,
            duration: SimDuration::from_secs(1800),
            overridden: &[],
        }
    }

    fn keys(v: &Value) -> Vec<&str> {
        let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    }

    fn sorted(mut k: Vec<&str>) -> Vec<&str> {
        k.sort_unstable();
        k
    }

    fn json_document(events: &[Event<'_>]) -> String {
        let pod = pod();
        let mut sink = JsonSink::new(Vec::new(), &info()).unwrap();
        for e in events {
            assert_eq!(sink.event(e).unwrap(), Flow::Continue);
        }
        let end = SimTime::from_secs(1800);
        let out = sink.finish(end, &pod, &status(vec![crash_looping(9, 1560)], false));
        String::from_utf8(out.unwrap()).unwrap()
    }

    #[test]
    fn json_document_has_exactly_the_contract_fields() {
        let (handler, cs) = (http(), crash_looping(1, 110));
        let text = json_document(&every_kind(&handler, &cs));
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            keys(&doc),
            sorted(vec![
                "probesim",
                "scenario",
                "kubernetes",
                "seed",
                "duration",
                "events",
                "final"
            ])
        );
        assert_eq!(doc["probesim"], 1);
        assert_eq!(doc["scenario"], "kubia-unhealthy");
        assert_eq!(doc["kubernetes"], "1.37");
        assert_eq!(doc["duration"], 1800);
        let expected: [(&str, &[&str]); 13] = [
            ("sync", &["trigger"]),
            ("start", &["container", "restartCount"]),
            ("started", &["container", "started"]),
            ("phase", &["phase"]),
            (
                "probe",
                &["container", "probe", "outcome", "output", "duration"],
            ),
            (
                "probe",
                &["container", "probe", "outcome", "output", "duration"],
            ),
            ("result", &["container", "probe", "result"]),
            ("kill", &["container", "reason", "cause", "grace"]),
            ("event", &["type", "reason", "object", "message"]),
            ("exit", &["container", "exitCode", "reason"]),
            ("ready", &["container", "ready"]),
            ("podReady", &["ready"]),
            (
                "status",
                &[
                    "container",
                    "state",
                    "reason",
                    "ready",
                    "started",
                    "restartCount",
                    "lastState",
                ],
            ),
        ];
        let events = doc["events"].as_array().unwrap();
        assert_eq!(events.len(), expected.len() + 1);
        for (e, (kind, fields)) in events.iter().zip(expected) {
            assert_eq!(e["kind"], kind);
            let mut want = vec!["t", "kind"];
            want.extend_from_slice(fields);
            assert_eq!(keys(e), sorted(want), "{kind}");
        }
        assert_eq!(
            keys(&events[13]),
            sorted(vec!["t", "kind", "container", "backoff"])
        );
        let killing = &events[8];
        assert_eq!(killing["object"], "spec.containers{kubia}");
        assert_eq!(
            killing["message"],
            "Container kubia failed liveness probe, will be restarted"
        );
        assert_eq!(
            events[5]["output"],
            "HTTP probe failed with statuscode: 500"
        );
        assert_eq!(events[12]["lastState"]["exitCode"], 137);
        let fin = &doc["final"];
        assert_eq!(
            keys(fin),
            sorted(vec!["t", "phase", "ready", "conditions", "containers"])
        );
        assert_eq!(
            keys(&fin["conditions"]),
            sorted(vec![
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled"
            ])
        );
        let c = &fin["containers"][0];
        assert_eq!(
            keys(c),
            sorted(vec![
                "name",
                "state",
                "reason",
                "ready",
                "started",
                "restartCount",
                "lastState"
            ])
        );
        assert_eq!(
            keys(&c["lastState"]),
            sorted(vec!["exitCode", "reason", "finishedAt"])
        );
        assert_eq!(c["reason"], "CrashLoopBackOff");
        assert_eq!(c["lastState"]["finishedAt"], 1560);
    }

    #[test]
    fn json_document_is_byte_stable() {
        let (handler, cs) = (http(), crash_looping(1, 110));
        let events = every_kind(&handler, &cs);
        let text = json_document(&events[4..8]);
        let expected = r#"{
  "probesim": 1,
  "scenario": "kubia-unhealthy", "kubernetes": "1.37", "seed": 0, "duration": 1800,
  "events": [
    {"t": 10, "kind": "probe", "container": "kubia", "probe": "liveness", "outcome": "success", "output": "", "duration": 0},
    {"t": 80.5, "kind": "probe", "container": "kubia", "probe": "liveness", "outcome": "failure", "output": "HTTP probe failed with statuscode: 500", "duration": 0.5},
    {"t": 80.5, "kind": "result", "container": "kubia", "probe": "liveness", "result": "Failure"},
    {"t": 80.5, "kind": "kill", "container": "kubia", "reason": "LivenessProbe", "cause": "liveness", "grace": 30}
  ],
  "final": {"t": 1800, "phase": "Running", "ready": false, "conditions": {"PodReadyToStartContainers": true, "Initialized": true, "Ready": false, "ContainersReady": false, "PodScheduled": true}, "containers": [{"name": "kubia", "state": "waiting", "reason": "CrashLoopBackOff", "ready": false, "started": false, "restartCount": 9, "lastState": {"exitCode": 137, "reason": "Error", "finishedAt": 1560}}]}
}
"#;
        assert_eq!(text, expected);
        assert_eq!(json_document(&events[4..8]), text, "two runs differ");
    }

    #[test]
    fn a_run_without_events_has_an_empty_array() {
        let text = json_document(&[]);
        assert!(text.contains("\"events\": [],\n  \"final\": {"), "{text}");
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["events"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn times_are_seconds_with_millisecond_precision() {
        let mut out = Vec::new();
        let mut buf = String::new();
        for (ms, text) in [
            (0, "0"),
            (80_000, "80"),
            (500, "0.5"),
            (12_250, "12.25"),
            (1_001, "1.001"),
        ] {
            out.clear();
            let e = Event {
                t: SimTime::from_millis(ms),
                kind: EventKind::BackOff {
                    container: "kubia",
                    backoff: SimDuration::from_millis(ms),
                },
            };
            write_event(&mut out, &e, &mut buf).unwrap();
            let line = String::from_utf8(out.clone()).unwrap();
            assert_eq!(
                line,
                format!(
                    r#"{{"t": {text}, "kind": "backoff", "container": "kubia", "backoff": {text}}}"#
                )
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(v["t"], v["backoff"]);
            assert_eq!(
                v["t"].to_string(),
                text,
                "a JSON number that reads back the same"
            );
        }
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        let nasty = "a \"quoted\" \\ back\nnew\rret\ttab \u{1} \u{8} \u{c} \u{1f} é ✓ {kubia}";
        let mut out = Vec::new();
        string(&mut out, nasty).unwrap();
        let ours = String::from_utf8(out).unwrap();
        assert_eq!(ours, serde_json::to_string(nasty).unwrap());
        assert_eq!(serde_json::from_str::<String>(&ours).unwrap(), nasty);
        // Beyond serde_json: DEL, C1, bidi, zero-width and the line separators, which
        // break the line-splitting of jsonl in common tools.
        let hostile = "\u{7f}\u{9b}\u{202e}\u{200b}\u{2028}\u{2029}";
        let mut out = Vec::new();
        string(&mut out, hostile).unwrap();
        let ours = String::from_utf8(out).unwrap();
        assert_eq!(ours, r#""\u007f\u009b\u202e\u200b\u2028\u2029""#);
        assert_eq!(serde_json::from_str::<String>(&ours).unwrap(), hostile);
    }

    #[test]
    fn jsonl_is_one_object_per_line_then_final() {
        let (handler, cs) = (http(), crash_looping(1, 110));
        let events = every_kind(&handler, &cs);
        let mut sink = JsonlSink::new(Vec::new());
        for e in &events {
            sink.event(e).unwrap();
        }
        let pod = pod();
        let st = status(vec![crash_looping(9, 1560)], false);
        let out = sink.finish(SimTime::from_secs(1800), &pod, &st).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), events.len() + 1);
        for (line, e) in lines.iter().zip(&events) {
            let v: Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["kind"], e.kind.name());
        }
        let last: Value = serde_json::from_str(lines[lines.len() - 1]).unwrap();
        assert_eq!(
            keys(&last),
            sorted(vec![
                "kind",
                "t",
                "phase",
                "ready",
                "conditions",
                "containers"
            ])
        );
        assert_eq!(last["kind"], "final");
        assert!(lines[lines.len() - 1]
            .starts_with(r#"{"kind": "final", "t": 1800, "phase": "Running""#));
    }

    #[test]
    fn summary_counts_per_container_and_pod() {
        let (handler, cs) = (http(), crash_looping(1, 110));
        let events = every_kind(&handler, &cs);
        let pod = pod().with_container(probesim_core::ContainerSpec::new("idle", "pause"));
        let mut sink = SummarySink::new(Vec::new(), &info(), &pod).unwrap();
        for e in events.iter().chain(&events[4..6]) {
            sink.event(e).unwrap();
        }
        let st = status(
            vec![
                crash_looping(9, 1560),
                probesim_core::ContainerStatus::default(),
            ],
            false,
        );
        let out = sink.finish(SimTime::from_secs(1800), &pod, &st).unwrap();
        let text = String::from_utf8(out).unwrap();
        let doc: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["phase"], "Running");
        assert_eq!(doc["containers"][1]["name"], "idle");
        assert_eq!(doc["containers"][1]["reason"], "ContainerCreating");
        let expected = r#"  "counts": {
    "kubia": {"probe": 4, "result": 1, "kill": 1, "exit": 1, "start": 1, "backoff": 1, "ready": 1, "started": 1, "status": 1, "event": 1},
    "idle": {},
    "(pod)": {"podReady": 1, "phase": 1, "sync": 1}
  }
}
"#;
        assert!(text.ends_with(expected), "{text}");
        assert!(text.starts_with(
            "{\n  \"probesim\": 1,\n  \"scenario\": \"kubia-unhealthy\", \"kubernetes\": \"1.37\", \"seed\": 0, \"duration\": 1800,\n  \"final\": {\"t\": 1800, \"phase\": \"Running\""
        ), "{text}");
        // The final status is under `final` and repeated at the top level.
        assert_eq!(doc["final"]["containers"][0]["restartCount"], 9);
        assert_eq!(doc["final"]["phase"], doc["phase"]);
    }
}
