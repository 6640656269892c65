//! Running a scenario to its horizon into one of the reports.

use std::io;

use probesim_core::{Recorder, SimTime};
use probesim_scenario::run::{estimate_events, horizon, RunFailure, MAX_LISTED_EVENTS};
use probesim_scenario::scenario::Scenario;

use crate::{Format, ReportSink, RunInfo, ViewOptions};

/// Runs the scenario to its horizon and writes the report in `format` to `w`; the timeline
/// format is the exact table ([`TextSink`](crate::TextSink)), with pod syncs when `verbose`.
/// See [`render_with`] for the timeline for people and the other options.
///
/// # Errors
/// No duration, an output too large for a listing format, an I/O error, or a stuck engine.
pub fn render<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    verbose: bool,
    w: W,
) -> Result<W, RunFailure> {
    let view = ViewOptions {
        verbose,
        ..ViewOptions::default()
    };
    render_with(scenario, format, &view, w)
}

/// Runs the scenario and writes the report in `format` to `w`, shown as `view` says. The run
/// goes to the horizon, or for `describe` with `view.at` to that instant (clamped to the
/// horizon): the view is the same event stream stopped there.
///
/// # Errors
/// No duration, an output too large for a listing format, an I/O error, or a stuck engine.
pub fn render_with<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    view: &ViewOptions,
    w: W,
) -> Result<W, RunFailure> {
    let mut end = horizon(scenario)?;
    if format == Format::Describe {
        if let Some(at) = view.at {
            end = end.min(at);
        }
    }
    if !matches!(format, Format::Summary | Format::Describe) {
        let events = estimate_events(scenario, end);
        if events > MAX_LISTED_EVENTS {
            return Err(RunFailure::TooLarge {
                events,
                format: format.as_str(),
            });
        }
    }
    let mut sim = scenario.simulation();
    let version = sim.profile().version();
    let info = RunInfo {
        scenario: &scenario.name,
        kubernetes: &version,
        seed: scenario.seed,
        duration: end.saturating_since(SimTime::ZERO),
    };
    let sink = ReportSink::with_view(
        format,
        w,
        &info,
        sim.pod(),
        sim.status(),
        sim.profile(),
        view,
    )
    .map_err(RunFailure::Io)?;
    // The kubelet's event recorder decides what reaches the API server (R54).
    let mut recorder = Recorder::new(sink, sim.profile().event_spam_key_has_type);
    sim.run_until(end, &mut recorder)?;
    recorder
        .into_inner()
        .finish(end, sim.pod(), sim.status())
        .map_err(RunFailure::Io)
}
