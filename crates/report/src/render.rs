//! Running a scenario to its horizon into one of the reports.

use std::io;

use probesim_core::{Recorder, SimTime};
use probesim_scenario::run::{estimate_events, horizon, RunFailure, MAX_LISTED_EVENTS};
use probesim_scenario::scenario::Scenario;

use crate::{Format, ReportSink, RunInfo, TextSink};

/// Runs the scenario to its horizon and writes the report in `format` to `w` (`verbose` shows
/// every event in the timeline format, pod syncs included).
///
/// # Errors
/// No duration, an output too large for a listing format, an I/O error, or a stuck engine.
pub fn render<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    verbose: bool,
    w: W,
) -> Result<W, RunFailure> {
    let end = horizon(scenario)?;
    if format != Format::Summary {
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
    let sink = if verbose && format == Format::Timeline {
        TextSink::new(w, &info, sim.pod(), true).map(ReportSink::Timeline)
    } else {
        ReportSink::new(format, w, &info, sim.pod())
    }
    .map_err(RunFailure::Io)?;
    if let ReportSink::Summary(mut summary) = sink {
        // The summary counts events by kind; what the event recorder decides (R54: counts,
        // combined messages, sent or not) shows in no field of it, so it is left out.
        sim.run_until(end, &mut summary)?;
        return summary
            .finish(end, sim.pod(), sim.status())
            .map_err(RunFailure::Io);
    }
    // The kubelet's event recorder decides what reaches the API server (R54).
    let mut recorder = Recorder::new(sink, sim.profile().event_spam_key_has_type);
    sim.run_until(end, &mut recorder)?;
    recorder
        .into_inner()
        .finish(end, sim.pod(), sim.status())
        .map_err(RunFailure::Io)
}
