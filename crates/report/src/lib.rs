//! probesim-report: what a timeline looks like.
//!
//! In: the events of a simulation as they happen (every report is a [`Sink`]), the pod they
//! belong to and its final status, or a whole [`Scenario`](probesim_scenario::scenario::Scenario)
//! to run ([`render`]). Out: bytes on an [`io::Write`] in one of the `--format`s of
//! `probesim run` (docs/cli.md#probesim-run). The crate never opens a file and reads no clock or
//! environment: the caller hands it the writer, and the same events give the same bytes.
//!
//! Every report is a [`Sink`] over an [`io::Write`]: it writes each event as it arrives and keeps
//! no history beyond what its view needs (the pod's status for `get`, its Event objects for
//! `describe`), then `finish` writes what comes after the events (the final status, the counts, the
//! kubectl line) and hands the writer back. Output is byte-stable: the same events and status give
//! the same bytes (no wall clock, no paths, no hash-ordered maps).
//!
//! | `--format` | sink | shape |
//! |---|---|---|
//! | `timeline` | [`ReadableSink`] | the timeline for people: durations, threshold runs, a legend |
//! | `timeline -v` | [`TextSink`] | the exact table, one line per event (pod syncs too), then the final status |
//! | `get` | [`GetSink`] | `kubectl get pod -w`: a row for every watch event (every change of the pod object) |
//! | `describe` | [`DescribeSink`] | `kubectl describe pod` at the end of the run (or `--at`) |
//! | `json` | [`JsonSink`] | one JSON document (docs/cli.md#--format-json), one event per line |
//! | `jsonl` | [`JsonlSink`] | one event object per line, then `{"kind": "final", …}` |
//! | `summary` | [`SummarySink`] | one JSON document: the final status plus per-container counts |
//! | `svg` | [`PictureSink`] | the swim-lane picture of the run ([`picture`]) |
//! | `html` | [`PictureSink`] | a self-contained page: the picture, its legend, the scenario, the status, the Events |
//!
//! [`ReportSink`] picks one of them from a [`Format`], for callers that choose at run time.
//! The reports of `probesim check` (text, json, junit, github) are in [`check`].
//!
//! ## The kubectl views as library functions
//!
//! Every view is computed from the event stream; none runs the simulation again. Callers that
//! hold a recorded run (the HTML report, say) use the pieces directly:
//!
//! - [`EventStore`]: feed it every event's [`KubeEvent`](probesim_core::KubeEvent) through
//!   [`EventStore::record`] (after a [`Recorder`](probesim_core::Recorder)); it holds the pod's
//!   Events as the API server has them, and [`EventStore::at`] lists those alive at an instant;
//! - [`describe_pod`] writes `kubectl describe pod` at an instant from a status and a store;
//!   [`describe_events_table`] writes only its Events table;
//! - [`PodTracker`] rebuilds the API status at any instant from the events (with
//!   [`describe_pod`], that is `describe` at any instant of a recorded run); [`kubectl_row`]
//!   prints it as the API server's printer does, and [`GetSink`] is the `get -w` view;
//! - [`ReadableSink`] and [`Filter`] are the timeline for people (`--only`, `--container`).
//!
//! The sinks write many small pieces per event: hand them a buffered writer
//! (`io::BufWriter<io::StdoutLock>`), not raw standard output. An I/O error (a closed pipe
//! included) is returned as is; what it means is the caller's decision.

#![warn(missing_docs)]

use core::fmt;
use core::str::FromStr;
use std::io;

use probesim_core::{
    Event, FastForward, Flow, PodSpec, PodStatus, Profile, SimDuration, SimTime, Sink,
};

pub mod borderline;
pub mod check;
pub mod compare;
mod describe;
mod events;
pub mod explain;
mod json;
pub mod listing;
pub mod picture;
mod readable;
mod render;
pub mod spread;
mod tabwriter;
mod text;
mod tracker;
mod watch;

pub mod trace;

pub use listing::{Limits, MAX_OUTPUT_BYTES};
pub use render::{check_listing, render, render_bounded, render_observed, render_with};
pub use render::{render_explain, trace_run, TracedRun};

pub use describe::{
    describe_events_table, describe_pod, probe_line, DescribeSink, Rfc1123z, NODE_IP,
    ORIGIN_UNIX_SECS,
};
pub use events::{ApiEvent, EventStore, Reporter, EVENT_TTL, NODE_NAME};
pub use readable::{Filter, ReadableSink, LEGEND};
pub use tracker::PodTracker;
pub use watch::GetSink;

pub use json::{write_event, write_final, JsonSink, JsonlSink, SummarySink, POD_COUNTS_KEY};
pub use picture::PictureSink;
pub use text::{kubectl_row, KubectlRow, TextSink};

/// What a report says about the run before its events (the JSON header, the timeline's first
/// line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunInfo<'a> {
    /// The scenario's name.
    pub scenario: &'a str,
    /// The semantics profile, as `"1.37"`.
    pub kubernetes: &'a str,
    /// The seed.
    pub seed: u64,
    /// The virtual time simulated (the horizon).
    pub duration: SimDuration,
    /// The command-line edits of the scenario (`--set …`, `--app …`), listed under the header
    /// line; empty for the file's own run.
    pub overridden: &'a [String],
}

impl RunInfo<'_> {
    /// The line that lists the edits, `overridden: --set … · --app …`, or `None` when there
    /// are none.
    #[must_use]
    pub fn overridden_line(&self) -> Option<String> {
        (!self.overridden.is_empty())
            .then(|| format!("overridden: {}", self.overridden.join(" · ")))
    }
}

/// The `--format` of `probesim run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Format {
    /// The human-readable table ([`TextSink`]), the default.
    #[default]
    Timeline,
    /// One JSON document ([`JsonSink`]).
    Json,
    /// One JSON object per line ([`JsonlSink`]).
    Jsonl,
    /// Final status plus counts ([`SummarySink`]).
    Summary,
    /// `kubectl get pod -w` ([`GetSink`]).
    Get,
    /// `kubectl describe pod` ([`DescribeSink`]).
    Describe,
    /// The swim-lane picture, one SVG document ([`PictureSink`]).
    Svg,
    /// The picture in a self-contained HTML report ([`PictureSink`]).
    Html,
}

impl Format {
    /// Every format, in the order of the help text.
    pub const ALL: [Format; 8] = [
        Format::Timeline,
        Format::Json,
        Format::Jsonl,
        Format::Summary,
        Format::Get,
        Format::Describe,
        Format::Svg,
        Format::Html,
    ];

    /// The command-line spelling.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Timeline => "timeline",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Summary => "summary",
            Format::Get => "get",
            Format::Describe => "describe",
            Format::Svg => "svg",
            Format::Html => "html",
        }
    }

    /// Whether the format writes one entry per event, or steps through every event without
    /// fast-forward (`describe`, which keeps only the pod's Event objects but rebuilds them
    /// event by event), and so is held to
    /// [`MAX_LISTED_EVENTS`](probesim_scenario::run::MAX_LISTED_EVENTS) by [`check_listing`].
    /// A new format that lists events, or that cannot fast-forward, says so here.
    #[must_use]
    pub const fn lists_events(self) -> bool {
        match self {
            Format::Timeline
            | Format::Json
            | Format::Jsonl
            | Format::Get
            | Format::Svg
            | Format::Html
            | Format::Describe => true,
            Format::Summary => false,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--format` value that names no format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown format `{}` (expected timeline, json, jsonl, summary, get, describe, svg or html)",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Format, UnknownFormat> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// How a report is shown, beyond its [`Format`]: the options of `probesim run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewOptions {
    /// The timeline for people ([`ReadableSink`], what `probesim run` shows without `-v`)
    /// instead of the exact table ([`TextSink`]).
    pub readable: bool,
    /// The exact table shows every event, pod syncs included (`-v`).
    pub verbose: bool,
    /// `--only` and `--container` (timelines only).
    pub filter: Filter,
    /// ANSI colour in the timeline for people.
    pub colour: bool,
    /// `--at`: the instant `describe` shows (default: the end of the run).
    pub at: Option<SimTime>,
    /// Steady-state fast-forward where the format allows it (the summary); `--no-fast-forward`
    /// turns it off. The output is the same either way.
    pub fast_forward: bool,
}

impl Default for ViewOptions {
    /// The exact table, no filter, no colour, at the end of the run, with fast-forward.
    fn default() -> ViewOptions {
        ViewOptions {
            readable: false,
            verbose: false,
            filter: Filter::default(),
            colour: false,
            at: None,
            fast_forward: true,
        }
    }
}

/// One of the report sinks, chosen by [`Format`].
#[derive(Debug)]
#[non_exhaustive]
pub enum ReportSink<W: io::Write> {
    /// `--format timeline`, the exact table (`-v`).
    Timeline(TextSink<W>),
    /// `--format timeline`, for people.
    Readable(ReadableSink<W>),
    /// `--format get`.
    Get(GetSink<W>),
    /// `--format describe`.
    Describe(DescribeSink<W>),
    /// `--format json`.
    Json(JsonSink<W>),
    /// `--format jsonl`.
    Jsonl(JsonlSink<W>),
    /// `--format summary`.
    Summary(SummarySink<W>),
    /// `--format svg` and `--format html`.
    Picture(PictureSink<W>),
}

impl<W: io::Write> ReportSink<W> {
    /// Starts a report of `format` (the timeline without `sync` lines: see [`TextSink::new`])
    /// for `pod` simulated under `profile`, from its [initial status](PodStatus::initial).
    ///
    /// # Errors
    /// Writing the header failed.
    pub fn new(
        format: Format,
        w: W,
        info: &RunInfo<'_>,
        pod: &PodSpec,
        profile: &Profile,
    ) -> io::Result<Self> {
        Ok(match format {
            Format::Timeline => ReportSink::Timeline(TextSink::new(w, info, pod, false)?),
            Format::Json => ReportSink::Json(JsonSink::new(w, info)?),
            Format::Jsonl => ReportSink::Jsonl(JsonlSink::new(w).with_overridden(info.overridden)),
            Format::Summary => ReportSink::Summary(SummarySink::new(w, info, pod)?),
            Format::Get => {
                let initial = PodStatus::initial(pod, profile);
                ReportSink::Get(GetSink::new(w, pod, &initial, profile)?)
            }
            Format::Describe => ReportSink::Describe(DescribeSink::new(w, pod, profile)),
            Format::Svg | Format::Html => {
                ReportSink::Picture(PictureSink::new(w, format == Format::Html, info, None, pod))
            }
        })
    }

    /// Starts a report of `format` shown as `view` says (the timeline for people or the exact
    /// table, filtered and coloured); `initial` is the pod's status before the first event and
    /// `profile` the release simulated.
    ///
    /// # Errors
    /// Writing the header failed.
    pub fn with_view(
        format: Format,
        w: W,
        info: &RunInfo<'_>,
        pod: &PodSpec,
        initial: &PodStatus,
        profile: &Profile,
        view: &ViewOptions,
    ) -> io::Result<Self> {
        Ok(match format {
            Format::Timeline if !view.readable => ReportSink::Timeline(
                TextSink::new(w, info, pod, view.verbose)?.with_filter(view.filter.clone()),
            ),
            Format::Timeline => ReportSink::Readable(ReadableSink::new(
                w,
                info,
                pod,
                view.filter.clone(),
                view.colour,
            )?),
            Format::Get => ReportSink::Get(GetSink::new(w, pod, initial, profile)?),
            Format::Describe => ReportSink::Describe(DescribeSink::new(w, pod, profile)),
            _ => ReportSink::new(format, w, info, pod, profile)?,
        })
    }

    /// Writes what follows the events (final status at `end`, see each sink) and returns the
    /// writer, flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        match self {
            ReportSink::Timeline(s) => s.finish(end, pod, status),
            ReportSink::Readable(s) => s.finish(end, pod, status),
            ReportSink::Get(s) => s.finish(end, pod, status),
            ReportSink::Describe(s) => s.finish(end, pod, status),
            ReportSink::Json(s) => s.finish(end, pod, status),
            ReportSink::Jsonl(s) => s.finish(end, pod, status),
            ReportSink::Summary(s) => s.finish(end, pod, status),
            ReportSink::Picture(s) => s.finish(end, pod, status),
        }
    }
}

impl<W: io::Write> Sink for ReportSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        match self {
            ReportSink::Timeline(s) => s.event(event),
            ReportSink::Readable(s) => s.event(event),
            ReportSink::Get(s) => s.event(event),
            ReportSink::Describe(s) => s.event(event),
            ReportSink::Json(s) => s.event(event),
            ReportSink::Jsonl(s) => s.event(event),
            ReportSink::Summary(s) => s.event(event),
            ReportSink::Picture(s) => s.event(event),
        }
    }

    fn container_event(&mut self, event: &Event<'_>, container: usize) -> io::Result<Flow> {
        match self {
            ReportSink::Timeline(s) => s.container_event(event, container),
            ReportSink::Readable(s) => s.container_event(event, container),
            ReportSink::Get(s) => s.container_event(event, container),
            ReportSink::Describe(s) => s.container_event(event, container),
            ReportSink::Json(s) => s.container_event(event, container),
            ReportSink::Jsonl(s) => s.container_event(event, container),
            ReportSink::Summary(s) => s.container_event(event, container),
            ReportSink::Picture(s) => s.container_event(event, container),
        }
    }

    /// The summary is moved on by fast-forward; the listings see every event.
    fn fast_forward(&mut self) -> Option<&mut dyn FastForward> {
        match self {
            ReportSink::Summary(s) => s.fast_forward(),
            _ => None,
        }
    }
}

/// `duration.HumanDuration` of Kubernetes apimachinery (R50): the compact age kubectl prints in
/// AGE columns and in `RESTARTS` "ago" cells, e.g. `58s`, `2m57s`, `179m`, `3h5m`, `2d`.
///
/// The span is truncated to whole seconds, minutes, hours… exactly as Go's integer division does.
/// (Negative spans, which print `0s` or `<invalid>` in Go, cannot occur on the virtual clock.)
///
/// # Examples
/// ```
/// use probesim_core::SimDuration;
/// use probesim_report::human_duration;
/// assert_eq!(human_duration(SimDuration::from_secs(367)), "6m7s");
/// assert_eq!(human_duration(SimDuration::from_secs(11_100)), "3h5m");
/// ```
#[must_use]
pub fn human_duration(d: SimDuration) -> String {
    let seconds = d.whole_secs();
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    let days = hours / 24;
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{days}d")
        } else {
            format!("{days}d{h}h")
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{days}d");
    }
    let years = days / 365;
    if hours < 24 * 365 * 8 {
        let dy = days % 365;
        return if dy == 0 {
            format!("{years}y")
        } else {
            format!("{years}y{dy}d")
        };
    }
    format!("{years}y")
}

/// Writes a span in the scenario files' duration syntax (`0s`, `500ms`, `2.5s`, `1m30s`, `30m`,
/// `1h5s`), the form the reader wrote; used in the timeline's header.
fn fmt_span(ms: u64, f: &mut impl fmt::Write) -> fmt::Result {
    probesim_script::write_duration(SimDuration::from_millis(ms), f)
}

/// A [`Display`](fmt::Display) adapter for [`fmt_span`].
#[derive(Clone, Copy, Debug)]
struct Span(pub u64);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_span(self.0, f)
    }
}

/// Hand-made pods, statuses and events, shared with the expectation tests of probesim-scenario.
#[cfg(test)]
#[path = "../../scenario/src/fixtures.rs"]
mod fixtures;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_follows_apimachinery() {
        // R50, including the examples it quotes.
        let cases: [(u64, &str); 24] = [
            (0, "0s"),
            (58, "58s"),
            (119, "119s"),
            (120, "2m"),
            (177, "2m57s"),
            (367, "6m7s"),
            (599, "9m59s"),
            (600, "10m"),
            (10_799, "179m"),
            (10_800, "3h"),
            (11_100, "3h5m"),
            (28_799, "7h59m"),
            (28_800, "8h"),
            (172_799, "47h"),
            (172_800, "2d"),
            (180_000, "2d2h"),
            (691_199, "7d23h"),
            (691_200, "8d"),
            (63_071_999, "729d"),
            (63_072_000, "2y"),
            (63_158_400, "2y1d"),
            (252_287_999, "7y364d"),
            (252_288_000, "8y"),
            (315_360_000, "10y"),
        ];
        for (secs, text) in cases {
            assert_eq!(
                human_duration(SimDuration::from_secs(secs)),
                text,
                "{secs}s"
            );
        }
        // Truncation, not rounding.
        assert_eq!(human_duration(SimDuration::from_millis(119_999)), "119s");
    }

    #[test]
    fn spans_print_in_scenario_syntax() {
        let cases = [
            (0, "0s"),
            (500, "500ms"),
            (2_500, "2.5s"),
            (1_001, "1.001s"),
            (90_000, "1m30s"),
            (1_800_000, "30m"),
            (3_600_000, "1h"),
            (3_605_000, "1h5s"),
            (5_400_250, "1h30m0.25s"),
        ];
        for (ms, text) in cases {
            assert_eq!(Span(ms).to_string(), text);
        }
    }

    #[test]
    fn formats_round_trip_through_their_names() {
        for f in Format::ALL {
            assert_eq!(f.as_str().parse::<Format>(), Ok(f));
        }
        assert_eq!(
            "yaml".parse::<Format>().unwrap_err().to_string(),
            "unknown format `yaml` (expected timeline, json, jsonl, summary, get, describe, svg or html)"
        );
    }
}

#[cfg(test)]
mod views_tests;
