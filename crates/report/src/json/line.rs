//! One timeline event as one line of JSON, written into a byte buffer without the formatting
//! machinery: fixed keys are pre-escaped literals, numbers are written digit by digit, and the
//! texts that need rendering (a Kubernetes Event's object and message, a probe's output) are
//! rendered and escaped once per distinct value and kept, by the structured keys of
//! [`probesim_core::recorder::key`].
//!
//! The bytes are exactly those of the field-by-field description on
//! [`write_event`](super::write_event).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use probesim_core::event::OutputKind;
use probesim_core::recorder::key;
use probesim_core::{ContainerState, ContainerStatus, Event, EventKind, KubeEvent, ProbeOutput};

/// At most this many texts are kept per cache; past it, new texts are rendered every time (a
/// run whose messages keep changing gains nothing from keeping them, and memory stays bounded).
const MAX_KEPT: usize = 4096;

/// Rendered and escaped texts by their structured keys, at most [`MAX_KEPT`] of them.
#[derive(Debug, Default)]
struct Kept(BTreeMap<Box<[u8]>, Box<[u8]>>);

impl Kept {
    /// Appends the text kept for `key` to `out`, if there is one.
    #[inline]
    fn write(&self, out: &mut Vec<u8>, key: &[u8]) -> bool {
        match self.0.get(key) {
            Some(kept) => {
                out.extend_from_slice(kept);
                true
            }
            None => false,
        }
    }

    /// Keeps `text` for `key` while there is room.
    fn keep(&mut self, key: &[u8], text: &[u8]) {
        if self.0.len() < MAX_KEPT {
            self.0.insert(key.into(), text.into());
        }
    }
}

/// Writes events as JSON objects; keeps the texts it rendered (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct EventWriter {
    /// `, "type": …, "reason": …, "object": …, "message": …` of a Kubernetes Event, by
    /// [`key::encode`].
    kube: Kept,
    /// A probe output as a JSON string literal, by [`key::probe_output`].
    outputs: Kept,
    /// Scratch space for a key.
    key: Vec<u8>,
    /// Scratch space for a rendered text.
    text: String,
    /// The last event time written, and its text: events come in bursts at one instant.
    t: Option<(u64, [u8; SECS_MAX], usize)>,
    /// The last container named, and its `, "container": "<name>"` field.
    container: (String, Vec<u8>),
}

impl EventWriter {
    /// A writer that renders texts in `text` (its allocation reused).
    pub(crate) fn with_text(text: String) -> EventWriter {
        EventWriter {
            text,
            ..EventWriter::default()
        }
    }

    /// The scratch text, for reuse.
    pub(crate) fn into_text(self) -> String {
        self.text
    }

    /// Appends `event` to `out` as one JSON object, without a newline.
    pub(crate) fn write(&mut self, out: &mut Vec<u8>, event: &Event<'_>) {
        out.extend_from_slice(b"{\"t\": ");
        let ms = event.t.as_millis();
        match &self.t {
            Some((at, text, len)) if *at == ms => padded(out, text, *len),
            _ => {
                let mut text = [0u8; SECS_MAX];
                let len = secs_into(&mut text, ms);
                padded(out, &text, len);
                self.t = Some((ms, text, len));
            }
        }
        let (field, len) = &KIND_FIELDS[event.kind.index()];
        padded(out, field, *len);
        match event.kind {
            EventKind::Probe {
                container,
                probe,
                outcome,
                output,
                duration,
            } => {
                self.container_field(out, container);
                word(out, b", \"probe\": \"", probe.as_str());
                word(out, b", \"outcome\": \"", outcome.as_str());
                out.extend_from_slice(b", \"output\": ");
                self.output(out, &output);
                out.extend_from_slice(b", \"duration\": ");
                secs(out, duration.as_millis());
            }
            EventKind::Result {
                container,
                probe,
                result,
            } => {
                self.container_field(out, container);
                word(out, b", \"probe\": \"", probe.as_str());
                word(out, b", \"result\": \"", result.as_str());
            }
            EventKind::Kill {
                container,
                reason,
                cause,
                grace,
            } => {
                self.container_field(out, container);
                word(out, b", \"reason\": \"", reason.as_str());
                word(out, b", \"cause\": \"", cause.as_str());
                out.extend_from_slice(b", \"grace\": ");
                secs(out, grace.as_millis());
            }
            EventKind::Exit {
                container,
                exit_code,
                reason,
            } => {
                self.container_field(out, container);
                out.extend_from_slice(b", \"exitCode\": ");
                int(out, exit_code);
                word(out, b", \"reason\": \"", reason.as_str());
            }
            EventKind::Start {
                container,
                restart_count,
            } => {
                self.container_field(out, container);
                out.extend_from_slice(b", \"restartCount\": ");
                uint(out, u64::from(restart_count));
            }
            EventKind::BackOff { container, backoff } => {
                self.container_field(out, container);
                out.extend_from_slice(b", \"backoff\": ");
                secs(out, backoff.as_millis());
            }
            EventKind::Ready { container, ready } => {
                self.container_field(out, container);
                boolean(out, b", \"ready\": ", ready);
            }
            EventKind::Started { container, started } => {
                self.container_field(out, container);
                boolean(out, b", \"started\": ", started);
            }
            EventKind::Status { container, status } => {
                self.container_field(out, container);
                container_fields(out, status);
            }
            EventKind::PodReady { ready } => boolean(out, b", \"ready\": ", ready),
            EventKind::Phase { phase } => word(out, b", \"phase\": \"", phase.as_str()),
            EventKind::Sync { trigger } => word(out, b", \"trigger\": \"", trigger.as_str()),
            EventKind::Delete { grace } => {
                out.extend_from_slice(b", \"grace\": ");
                secs(out, grace.as_millis());
            }
            EventKind::Deleted | EventKind::KubeletRestart => {}
            EventKind::Event(e) => {
                self.kube_fields(out, &e);
                if let Some(r) = e.recorded {
                    out.extend_from_slice(b", \"count\": ");
                    uint(out, u64::from(r.count));
                    out.extend_from_slice(b", \"firstTimestamp\": ");
                    secs(out, r.first.as_millis());
                    boolean(out, b", \"reachedApiServer\": ", r.sent);
                }
            }
            _ => {}
        }
        out.push(b'}');
    }

    /// `, "container": "<name>"`, kept for the last name.
    fn container_field(&mut self, out: &mut Vec<u8>, name: &str) {
        let (last, field) = &mut self.container;
        if last != name || field.is_empty() {
            last.clear();
            last.push_str(name);
            field.clear();
            field.extend_from_slice(b", \"container\": ");
            string(field, name);
        }
        out.extend_from_slice(field);
    }

    /// `, "type": …, "reason": …, "object": …, "message": …`, kept by the event's key.
    fn kube_fields(&mut self, out: &mut Vec<u8>, e: &KubeEvent<'_>) {
        key::encode(&mut self.key, e);
        if !self.kube.write(out, &self.key) {
            self.new_kube_fields(out, e);
        }
    }

    /// [`EventWriter::kube_fields`] for a key not kept: rendered, escaped, and kept while there
    /// is room.
    #[cold]
    #[inline(never)]
    fn new_kube_fields(&mut self, out: &mut Vec<u8>, e: &KubeEvent<'_>) {
        let start = out.len();
        out.extend_from_slice(b", \"type\": ");
        string(out, e.event_type.as_str());
        out.extend_from_slice(b", \"reason\": ");
        string(out, e.reason);
        out.extend_from_slice(b", \"object\": ");
        self.text.clear();
        let _ = write!(self.text, "{}", e.object);
        string(out, &self.text);
        out.extend_from_slice(b", \"message\": ");
        self.text.clear();
        let _ = write!(self.text, "{}", e.message);
        string(out, &self.text);
        self.kube.keep(&self.key, &out[start..]);
    }

    /// The output as a JSON string literal, kept by its key.
    fn output(&mut self, out: &mut Vec<u8>, output: &ProbeOutput<'_>) {
        if output.kind == OutputKind::Empty {
            out.extend_from_slice(b"\"\"");
            return;
        }
        self.key.clear();
        key::probe_output(&mut self.key, output);
        if !self.outputs.write(out, &self.key) {
            self.new_output(out, output);
        }
    }

    /// [`EventWriter::output`] for a key not kept.
    #[cold]
    #[inline(never)]
    fn new_output(&mut self, out: &mut Vec<u8>, output: &ProbeOutput<'_>) {
        let start = out.len();
        self.text.clear();
        let _ = write!(self.text, "{output}");
        string(out, &self.text);
        self.outputs.keep(&self.key, &out[start..]);
    }
}

/// `, "kind": "<name>"` for every kind, in the order of [`EventKind::NAMES`], padded.
const KIND_FIELDS: [([u8; 32], usize); EventKind::NAMES.len()] = kind_fields();

const fn kind_fields() -> [([u8; 32], usize); EventKind::NAMES.len()] {
    const PREFIX: &[u8] = b", \"kind\": \"";
    let mut fields = [([0u8; 32], 0); EventKind::NAMES.len()];
    let mut k = 0;
    while k < fields.len() {
        let name = EventKind::NAMES[k].as_bytes();
        assert!(
            PREFIX.len() + name.len() < 32,
            "a kind name too long for its field"
        );
        let field = &mut fields[k].0;
        let mut i = 0;
        while i < PREFIX.len() {
            field[i] = PREFIX[i];
            i += 1;
        }
        let mut j = 0;
        while j < name.len() {
            field[i + j] = name[j];
            j += 1;
        }
        field[i + j] = b'"';
        fields[k].1 = i + j + 1;
        k += 1;
    }
    fields
}

/// Appends the first `len` bytes of `bytes`: a copy of fixed size (no call to copy a few
/// bytes of varying length), then the tail cut off.
fn padded<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], len: usize) {
    out.extend_from_slice(bytes);
    out.truncate(out.len() - (N - len.min(N)));
}

/// `key` (which ends in an opening quote), a word of one of the engine's closed vocabularies
/// (`as_str` of an enum: ASCII letters and `-`, nothing to escape), and the closing quote.
fn word(out: &mut Vec<u8>, key: &[u8], value: &str) {
    out.extend_from_slice(key);
    out.extend_from_slice(value.as_bytes());
    out.push(b'"');
}

/// `key` and `true` or `false`.
fn boolean(out: &mut Vec<u8>, key: &[u8], value: bool) {
    out.extend_from_slice(key);
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// The fields of one container's API status, each preceded by `, ` (as
/// [`container_fields`](super::container_fields)).
#[inline(never)]
fn container_fields(out: &mut Vec<u8>, status: &ContainerStatus) {
    out.extend_from_slice(b", \"state\": ");
    string(out, status.state.name());
    if let Some(reason) = status.state.reason() {
        out.extend_from_slice(b", \"reason\": ");
        string(out, reason);
    }
    boolean(out, b", \"ready\": ", status.ready);
    boolean(out, b", \"started\": ", status.started);
    out.extend_from_slice(b", \"restartCount\": ");
    uint(out, u64::from(status.restart_count));
    if let ContainerState::Terminated(t) = status.state {
        out.extend_from_slice(b", \"exitCode\": ");
        int(out, t.exit_code);
    }
    if let Some(last) = status.last_state {
        out.extend_from_slice(b", \"lastState\": {\"exitCode\": ");
        int(out, last.exit_code);
        out.extend_from_slice(b", \"reason\": ");
        string(out, last.reason.as_str());
        out.extend_from_slice(b", \"finishedAt\": ");
        secs(out, last.finished_at.as_millis());
        out.push(b'}');
    }
}

/// `s` as a JSON string literal, escaped as [`string`](super::string) escapes it.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    if bytes
        .iter()
        .all(|&b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
    } else {
        // Writing into a vector cannot fail.
        let _ = super::string(out, s);
    }
}

/// A non-negative integer in decimal.
pub(crate) fn uint(out: &mut Vec<u8>, n: u64) {
    let mut digits = [0u8; 44];
    let start = decimal(&mut digits, n);
    // `start` is at most 19, so the window lies within `digits`.
    let window: &[u8; 20] = digits[start..start + 20].try_into().unwrap_or(&[0; 20]);
    padded(out, window, 20 - start);
}

/// Writes `n` in decimal so that it ends at index 20 of `digits`, two digits at a time from a
/// table, and returns where it starts. What follows the digits is the caller's: a window of
/// fixed size from the start is copied without a call.
pub(super) fn decimal(digits: &mut [u8; 44], mut n: u64) -> usize {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut i = 20;
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        digits[i] = PAIRS[pair];
        digits[i + 1] = PAIRS[pair + 1];
    }
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        digits[i] = PAIRS[pair];
        digits[i + 1] = PAIRS[pair + 1];
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    i
}

/// An integer in decimal.
fn int(out: &mut Vec<u8>, n: i32) {
    if n < 0 {
        out.push(b'-');
    }
    uint(out, u64::from(n.unsigned_abs()));
}

/// Milliseconds as seconds with no trailing zeros (`80`, `0.5`, `12.25`, `1.001`): the
/// `Display` of `SimTime` and `SimDuration`.
pub(crate) fn secs(out: &mut Vec<u8>, ms: u64) {
    let mut text = [0u8; SECS_MAX];
    let len = secs_into(&mut text, ms);
    padded(out, &text, len);
}

/// The longest [`secs`]: 17 digits of seconds, the point and three decimals.
const SECS_MAX: usize = 24;

/// [`secs`] into `text`; returns the length.
fn secs_into(text: &mut [u8; SECS_MAX], ms: u64) -> usize {
    let mut digits = [0u8; 44];
    let start = decimal(&mut digits, ms / 1000);
    let frac = ms % 1000;
    let len = if frac == 0 {
        20 - start
    } else {
        digits[20] = b'.';
        digits[21] = b'0' + (frac / 100) as u8;
        digits[22] = b'0' + (frac / 10 % 10) as u8;
        digits[23] = b'0' + (frac % 10) as u8;
        24 - start
            - if frac % 100 == 0 {
                2
            } else if frac % 10 == 0 {
                1
            } else {
                0
            }
    };
    text.copy_from_slice(&digits[start..start + SECS_MAX]);
    len
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::io::{self, Write};

    use probesim_core::event::{KillMessage, Recorded};
    use probesim_core::{
        ContainerState, Event, EventKind, EventType, KubeEvent, Message, ObjectRef, ProbeKind,
        SimDuration, SimTime,
    };

    use super::super::{container_fields, field_raw, field_str};
    use super::EventWriter;
    use crate::fixtures::{crash_looping, every_kind, http, terminated};

    fn field_display(
        w: &mut Vec<u8>,
        k: &str,
        value: impl std::fmt::Display,
        buf: &mut String,
    ) -> io::Result<()> {
        buf.clear();
        write!(buf, "{value}").map_err(io::Error::other)?;
        field_str(w, k, buf)
    }

    /// The event line as the formatting machinery writes it, field by field: what the writer
    /// must reproduce byte for byte.
    fn formatted(w: &mut Vec<u8>, event: &Event<'_>, buf: &mut String) -> io::Result<()> {
        write!(
            w,
            "{{\"t\": {}, \"kind\": \"{}\"",
            event.t,
            event.kind.name()
        )?;
        match event.kind {
            EventKind::Probe {
                container,
                probe,
                outcome,
                output,
                duration,
            } => {
                field_str(w, "container", container)?;
                field_str(w, "probe", probe.as_str())?;
                field_str(w, "outcome", outcome.as_str())?;
                field_display(w, "output", output, buf)?;
                field_raw(w, "duration", duration)?;
            }
            EventKind::Result {
                container,
                probe,
                result,
            } => {
                field_str(w, "container", container)?;
                field_str(w, "probe", probe.as_str())?;
                field_str(w, "result", result.as_str())?;
            }
            EventKind::Kill {
                container,
                reason,
                cause,
                grace,
            } => {
                field_str(w, "container", container)?;
                field_str(w, "reason", reason.as_str())?;
                field_str(w, "cause", cause.as_str())?;
                field_raw(w, "grace", grace)?;
            }
            EventKind::Exit {
                container,
                exit_code,
                reason,
            } => {
                field_str(w, "container", container)?;
                field_raw(w, "exitCode", exit_code)?;
                field_str(w, "reason", reason.as_str())?;
            }
            EventKind::Start {
                container,
                restart_count,
            } => {
                field_str(w, "container", container)?;
                field_raw(w, "restartCount", restart_count)?;
            }
            EventKind::BackOff { container, backoff } => {
                field_str(w, "container", container)?;
                field_raw(w, "backoff", backoff)?;
            }
            EventKind::Ready { container, ready } => {
                field_str(w, "container", container)?;
                field_raw(w, "ready", ready)?;
            }
            EventKind::Started { container, started } => {
                field_str(w, "container", container)?;
                field_raw(w, "started", started)?;
            }
            EventKind::Status { container, status } => {
                field_str(w, "container", container)?;
                container_fields(w, status)?;
            }
            EventKind::PodReady { ready } => field_raw(w, "ready", ready)?,
            EventKind::Phase { phase } => field_str(w, "phase", phase.as_str())?,
            EventKind::Sync { trigger } => field_str(w, "trigger", trigger.as_str())?,
            EventKind::Delete { grace } => field_raw(w, "grace", grace)?,
            EventKind::Deleted | EventKind::KubeletRestart => {}
            EventKind::Event(e) => {
                field_str(w, "type", e.event_type.as_str())?;
                field_str(w, "reason", e.reason)?;
                field_display(w, "object", e.object, buf)?;
                field_display(w, "message", e.message, buf)?;
                if let Some(r) = e.recorded {
                    field_raw(w, "count", r.count)?;
                    field_raw(w, "firstTimestamp", r.first)?;
                    field_raw(w, "reachedApiServer", r.sent)?;
                }
            }
            _ => panic!(
                "an event kind this test does not know: {}",
                event.kind.name()
            ),
        }
        w.write_all(b"}")
    }

    #[test]
    fn lines_are_byte_for_byte_those_of_the_formatting_machinery() {
        // docs/cli.md#--format-json: the JSON timeline's bytes do not depend on how they are
        // written.
        let handler = http();
        let cs = crash_looping(3, 110);
        let mut exited = crash_looping(0, 40);
        exited.state = ContainerState::Terminated(terminated(-1, 5, 7));
        let nasty = "we\"ird\\ \u{1} name\n✓";
        let inner = Message::Killing {
            container: nasty,
            kind: KillMessage::Stopping,
        };
        let mut events = every_kind(&handler, &cs);
        let base = events.clone();
        for (i, e) in base.iter().enumerate() {
            // Every time rendering: whole seconds, tenths, hundredths, thousandths, large.
            for ms in [
                0,
                1,
                10,
                100,
                120,
                1_001,
                9_000,
                10_000,
                59_990,
                99_999,
                100_000,
                1_000_000,
                86_400_000_123,
                u64::MAX,
            ] {
                let mut e = *e;
                e.t = SimTime::from_millis(ms.wrapping_add(i as u64));
                events.push(e);
            }
        }
        let at = SimTime::from_millis(1_234);
        events.extend([
            Event {
                t: at,
                kind: EventKind::Exit {
                    container: nasty,
                    exit_code: i32::MIN,
                    reason: probesim_core::ExitReason::Error,
                },
            },
            Event {
                t: at,
                kind: EventKind::Status {
                    container: "kubia",
                    status: &exited,
                },
            },
            Event {
                t: at,
                kind: EventKind::BackOff {
                    container: "kubia",
                    backoff: SimDuration::from_millis(u64::MAX),
                },
            },
            Event {
                t: at,
                kind: EventKind::Start {
                    container: "kubia",
                    restart_count: u32::MAX,
                },
            },
            Event {
                t: at,
                kind: EventKind::Delete {
                    grace: SimDuration::from_millis(30_500),
                },
            },
            Event {
                t: at,
                kind: EventKind::Deleted,
            },
            Event {
                t: at,
                kind: EventKind::KubeletRestart,
            },
        ]);
        let kinds: std::collections::BTreeSet<usize> =
            events.iter().map(|e| e.kind.index()).collect();
        assert_eq!(kinds.len(), EventKind::NAMES.len(), "every kind is written");
        for recorded in [
            None,
            Some(Recorded {
                count: 7,
                first: SimTime::from_millis(80_500),
                sent: false,
                combined: true,
            }),
        ] {
            for (object, message) in [
                (ObjectRef::Pod, Message::Combined(&inner)),
                (ObjectRef::InitContainer(nasty), inner),
                (
                    ObjectRef::Container("kubia"),
                    Message::ProbeFailed {
                        probe: ProbeKind::Readiness,
                        output: probesim_core::ProbeOutput {
                            handler: &handler,
                            pod_ip: "fd00::1",
                            kind: probesim_core::event::OutputKind::HttpRefused,
                            texts: None,
                        },
                    },
                ),
            ] {
                events.push(Event {
                    t: at,
                    kind: EventKind::Event(KubeEvent {
                        event_type: EventType::Warning,
                        reason: "Unhealthy",
                        object,
                        message,
                        recorded,
                    }),
                });
            }
        }
        let mut writer = EventWriter::default();
        let (mut ours, mut want, mut buf) = (Vec::new(), Vec::new(), String::new());
        // Twice over: the second time from the texts kept the first time.
        for round in 0..2 {
            for e in &events {
                ours.clear();
                want.clear();
                writer.write(&mut ours, e);
                formatted(&mut want, e, &mut buf).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&want),
                    "round {round}"
                );
            }
        }
        assert!(!writer.kube.0.is_empty() && !writer.outputs.0.is_empty());
    }

    #[test]
    fn integers_are_written_as_rust_writes_them() {
        // docs/cli.md#--format-json: numbers as JSON numbers; every digit count and its edges.
        let mut out = Vec::new();
        let mut p = 1u64;
        for _ in 0..20 {
            for n in [p - 1, p, p + 1, p.saturating_mul(7) / 3, u64::MAX] {
                out.clear();
                super::uint(&mut out, n);
                assert_eq!(String::from_utf8_lossy(&out), n.to_string());
            }
            p = p.saturating_mul(10);
        }
        for n in [i32::MIN, -100, -1, 0, 1, i32::MAX] {
            out.clear();
            super::int(&mut out, n);
            assert_eq!(String::from_utf8_lossy(&out), n.to_string());
        }
    }
}
