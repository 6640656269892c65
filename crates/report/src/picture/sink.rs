//! The pictures as a report sink: keep the run as a [`Trace`], draw it at the end.

use probesim_kube::printable::printable_lines;
use std::io;

use probesim_core::{Event, Flow, PodSpec, PodStatus, Profile, SimTime, Sink};

use crate::trace::TraceSink;
use crate::{DescribeSink, RunInfo, TextSink};
use probesim_scenario::scenario::Scenario;

/// `--format svg` (`html: false`) or `--format html`: keeps the facts of the run (compactly,
/// texts interned) and draws the picture in [`PictureSink::finish`].
#[derive(Debug)]
pub struct PictureSink<W: io::Write> {
    w: W,
    html: bool,
    trace: TraceSink,
    scenario: String,
    description: Option<String>,
    kubernetes: String,
    seed: u64,
    overridden: Vec<String>,
    /// The `kubectl describe pod` view the page shows at the end of the run (HTML only).
    describe: Option<DescribeSink<Vec<u8>>>,
    /// The most bytes the picture may hold.
    limit: usize,
    /// The scenario run, for the story's back-off figures and measured changes (HTML only).
    story: Option<Box<Scenario>>,
}

impl<W: io::Write> PictureSink<W> {
    /// Starts a picture of a run of `pod`.
    #[must_use]
    pub fn new(
        w: W,
        html: bool,
        info: &RunInfo<'_>,
        description: Option<&str>,
        pod: &PodSpec,
    ) -> PictureSink<W> {
        PictureSink {
            w,
            html,
            trace: TraceSink::new(pod),
            scenario: info.scenario.to_owned(),
            description: description.map(str::to_owned),
            kubernetes: info.kubernetes.to_owned(),
            seed: info.seed,
            overridden: info.overridden.to_vec(),
            describe: None,
            limit: MAX_PICTURE_BYTES,
            story: None,
        }
    }

    /// Makes the HTML page's story tell back-off decisions with their figures and suggest
    /// changes measured by runs of `scenario` changed ([`crate::explain::Rerun`]), as `probesim
    /// explain` does.
    #[must_use]
    pub fn with_story(mut self, scenario: &Scenario) -> PictureSink<W> {
        if self.html {
            self.story = Some(Box::new(scenario.clone()));
        }
        self
    }

    /// Makes the picture refuse to grow past `limit` bytes instead of [`MAX_PICTURE_BYTES`].
    #[must_use]
    pub fn with_byte_limit(mut self, limit: usize) -> PictureSink<W> {
        self.limit = limit;
        self
    }

    /// Makes the HTML page show `kubectl describe pod` at the end of the run, as `--format
    /// describe` prints it for `profile`'s release (an SVG has no place for it).
    #[must_use]
    pub fn with_describe(mut self, pod: &PodSpec, profile: &Profile) -> PictureSink<W> {
        if self.html {
            self.describe = Some(DescribeSink::new(Vec::new(), pod, profile));
        }
        self
    }

    /// Draws the picture (or the page) of the run ended at `end`, and returns the writer,
    /// flushed.
    ///
    /// # Errors
    /// Writing or flushing failed.
    pub fn finish(mut self, end: SimTime, pod: &PodSpec, status: &PodStatus) -> io::Result<W> {
        let trace = self.trace.finish(end);
        let info = RunInfo {
            scenario: &self.scenario,
            kubernetes: &self.kubernetes,
            seed: self.seed,
            duration: end.saturating_since(SimTime::ZERO),
            overridden: &self.overridden,
        };
        let mut out = Capped {
            out: String::new(),
            limit: self.limit,
            over: false,
        };
        if self.html {
            let final_status = match self.describe.take() {
                Some(describe) => {
                    let bytes = describe.finish(end, pod, status)?;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
                None => final_status(&info, end, pod, status)?,
            };
            let changed = self.story.as_deref().map(crate::render::Changed);
            let borderline = self
                .story
                .as_deref()
                .map_or_else(Vec::new, |s| crate::borderline::find(s, pod, &trace));
            let setting = match (&self.story, &changed) {
                (Some(scenario), Some(rerun)) => crate::explain::Setting {
                    borderline: &borderline,
                    ..crate::render::story_setting(scenario, Some(rerun))
                },
                _ => crate::explain::Setting::default(),
            };
            super::html::html(
                &mut out,
                &info,
                self.description.as_deref(),
                pod,
                &trace,
                status,
                &final_status,
                &setting,
            )
        } else {
            super::svg(&mut out, &info, pod, &trace)
        }
        .map_err(|e| {
            if out.over {
                too_large(self.html, self.limit)
            } else {
                io::Error::other(e)
            }
        })?;
        // XML has no place for control characters, and a terminal must not act on them.
        self.w.write_all(printable_lines(&out.out).as_bytes())?;
        self.w.flush()?;
        Ok(self.w)
    }
}

/// The most a picture (`svg`) or page (`html`) may hold: 64 MiB. Dense probe runs and events
/// are drawn as one mark each stretch, and repeated cycles are folded, so a picture is bounded
/// by its width in what it draws; what is left (thousands of instances that never repeat, long
/// texts in titles) is refused with [`io::ErrorKind::FileTooLarge`] and a message saying so,
/// before anything is written.
pub const MAX_PICTURE_BYTES: usize = 64 << 20;

/// A string that refuses to grow past its limit.
struct Capped {
    out: String,
    limit: usize,
    over: bool,
}

impl core::fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        if self.out.len().saturating_add(s.len()) > self.limit {
            self.over = true;
            return Err(core::fmt::Error);
        }
        self.out.push_str(s);
        Ok(())
    }
}

/// The error of a picture past `limit` bytes.
fn too_large(html: bool, limit: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "the picture is too large for --format {}: more than {} would be written (the limit); use a shorter --for, or --format summary",
            if html { "html" } else { "svg" },
            if limit % (1 << 20) == 0 {
                format!("{} MiB", limit >> 20)
            } else {
                format!("{limit} bytes")
            }
        ),
    )
}

/// The final status as the timeline prints it under its events, and the `kubectl get` row.
fn final_status(
    info: &RunInfo<'_>,
    end: SimTime,
    pod: &PodSpec,
    status: &PodStatus,
) -> io::Result<String> {
    let bytes = TextSink::new(Vec::new(), info, pod, false)?.finish(end, pod, status)?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    // Without events, the timeline is its header, then what `finish` wrote.
    Ok(text
        .find("\nAt ")
        .map_or(text.as_str(), |i| &text[i + 1..])
        .to_owned())
}

impl<W: io::Write> Sink for PictureSink<W> {
    type Error = io::Error;

    fn event(&mut self, event: &Event<'_>) -> io::Result<Flow> {
        if let Some(describe) = &mut self.describe {
            describe.event(event)?;
        }
        match self.trace.event(event) {
            Ok(flow) => Ok(flow),
            Err(never) => match never {},
        }
    }
}
