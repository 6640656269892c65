//! A scenario's run shown as one of the reports: the view's sink is built here and finished
//! here; the run itself (its limits, the simulation, the event recorder) is the scenario
//! crate's ([`probesim_scenario::limit`], [`probesim_scenario::run::run_into`]).

use probesim_kube::printable::printable_lines;
use std::io;

use probesim_core::{PodSpec, PodStatus, ProbeKind, ProbeSpec, SimDuration, SimTime, Sink};
use probesim_scenario::limit::{check_listed, refuse_on_estimate};
use probesim_scenario::run::{horizon, run_into, Hearing, RunFailure};
use probesim_scenario::scenario::Scenario;

use crate::explain::{Rerun, Setting};
use crate::listing::{name_bytes_error, writer, Held, Limits, Listing};
use crate::trace::{Trace, TraceSink};
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
/// The run is simulated once, held to the command line's [`Limits`] as it is written
/// ([`render_bounded`]).
///
/// # Errors
/// No duration, an output too large for a listing format, an I/O error, or a stuck engine.
pub fn render_with<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    view: &ViewOptions,
    w: W,
) -> Result<W, RunFailure> {
    render_bounded(scenario, format, view, w, Limits::default())
}

/// [`render_with`] held to `limits`: a format that lists events ([`Format::lists_events`]) is
/// handed at most `limits.events` of them ([`RunFailure::TooManyEvents`] at the first past it),
/// and no format writes more than `limits.bytes` bytes (an [`io::ErrorKind::FileTooLarge`]
/// error saying so). The beginning of the output is held back until the run is known to fit or
/// is too long to measure cheaply ([`crate::listing`]); past that, what was written stays
/// written and the error follows it.
///
/// # Errors
/// As [`render_with`].
pub fn render_bounded<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    view: &ViewOptions,
    w: W,
    limits: Limits,
) -> Result<W, RunFailure> {
    render_inner(scenario, format, view, w, limits, None)
}

/// [`render_with`], with `observer` seeing the run's events as they are written: the
/// timeline's closing summary compares the printed run with another timing this way, without
/// simulating the printed one again ([`crate::spread::Observed`]).
///
/// # Errors
/// As [`render_with`].
pub fn render_observed<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    view: &ViewOptions,
    w: W,
    observer: &mut crate::spread::Observer,
) -> Result<W, RunFailure> {
    render_inner(scenario, format, view, w, Limits::default(), Some(observer))
}

fn render_inner<W: io::Write>(
    scenario: &Scenario,
    format: Format,
    view: &ViewOptions,
    w: W,
    limits: Limits,
    observer: Option<&mut crate::spread::Observer>,
) -> Result<W, RunFailure> {
    let mut end = horizon(scenario)?;
    if format == Format::Describe {
        if let Some(at) = view.at {
            end = end.min(at);
        }
    }
    if format.lists_events() {
        // An obviously huge horizon is refused at once, without simulating anything.
        refuse_on_estimate(scenario, end, format.as_str(), limits.events)?;
    }
    let (w, gate) = writer(w, limits);
    let mut sim = scenario.simulation();
    let version = sim.profile().version();
    let info = RunInfo {
        scenario: &scenario.name,
        kubernetes: &version,
        seed: scenario.seed,
        duration: end.saturating_since(SimTime::ZERO),
        overridden: &scenario.overridden,
    };
    let sink = if matches!(format, Format::Svg | Format::Html) {
        // The page shows the scenario's description.
        Ok(ReportSink::Picture(
            crate::PictureSink::new(
                w,
                format == Format::Html,
                &info,
                scenario.description.as_deref(),
                sim.pod(),
            )
            .with_describe(sim.pod(), sim.profile())
            .with_story(scenario),
        ))
    } else {
        ReportSink::with_view(
            format,
            w,
            &info,
            sim.pod(),
            sim.status(),
            sim.profile(),
            view,
        )
    }
    .map_err(|e| {
        RunFailure::Io(name_bytes_error(
            e,
            format.as_str(),
            limits.bytes,
            SimTime::ZERO,
        ))
    })?;
    sim.set_fast_forward(view.fast_forward);
    let hearing = match sink {
        // The summary counts events by kind; what the event recorder decides (R54: counts,
        // combined messages, sent or not) shows in no field of it, so it is left out.
        // `get -w` prints the pod's status, never a Kubernetes Event: the event recorder's
        // verdicts (R54) show in none of its rows, so it is left out too.
        ReportSink::Summary(_) | ReportSink::Get(_) => Hearing::Direct,
        // The kubelet's event recorder decides what reaches the API server (R54).
        _ => Hearing::Recorded,
    };
    let sink = Listing::wrap(
        sink,
        gate,
        scenario,
        end,
        format.as_str(),
        limits,
        format.lists_events(),
        view.fast_forward,
    );
    let sink = crate::spread::Observed {
        inner: sink,
        observer,
    };
    let sink = run_into(&mut sim, end, sink, hearing)?.inner;
    let named = |e| RunFailure::Io(name_bytes_error(e, format.as_str(), limits.bytes, end));
    sink.finish()?
        .finish(end, sim.pod(), sim.status())
        .and_then(Held::into_inner)
        .map_err(named)
}

/// Whether `format` may list the run of `scenario` to `end`: at most `limit` events
/// ([`MAX_LISTED_EVENTS`](probesim_scenario::run::MAX_LISTED_EVENTS) for the command line), counted by the scenario crate's
/// [`check_listed`]. A format that does not list events ([`Format::lists_events`]) always may.
///
/// # Errors
/// As [`check_listed`].
pub fn check_listing(
    scenario: &Scenario,
    end: SimTime,
    format: Format,
    limit: u64,
) -> Result<(), RunFailure> {
    if !format.lists_events() {
        return Ok(());
    }
    check_listed(scenario, end, format.as_str(), limit)
}

/// A run kept as a [`Trace`], with what the views around it need.
#[derive(Debug)]
pub struct TracedRun {
    /// The facts of the run.
    pub trace: Trace,
    /// The pod as it ran.
    pub pod: PodSpec,
    /// The status at the end.
    pub status: PodStatus,
    /// The release, as `"1.37"`.
    pub kubernetes: String,
    /// The simulated span.
    pub duration: SimDuration,
}

impl TracedRun {
    /// The header facts, borrowed.
    #[must_use]
    pub fn info<'a>(&'a self, scenario: &'a Scenario) -> RunInfo<'a> {
        RunInfo {
            scenario: &scenario.name,
            kubernetes: &self.kubernetes,
            seed: scenario.seed,
            duration: self.duration,
            overridden: &scenario.overridden,
        }
    }
}

/// Runs the scenario to its horizon into a [`Trace`] (behind the event recorder, as every
/// report), for `explain` and the pictures.
///
/// # Errors
/// No duration, a horizon too large to keep, or a stuck engine.
pub fn trace_run(scenario: &Scenario) -> Result<TracedRun, RunFailure> {
    let end = horizon(scenario)?;
    // The trace keeps the run's facts: the same bound as the listing formats, counted as the
    // trace is built.
    let limits = Limits::default();
    refuse_on_estimate(scenario, end, "explain", limits.events)?;
    let (_, gate) = writer(io::sink(), limits);
    let mut sim = scenario.simulation();
    let kubernetes = sim.profile().version();
    let sink = Listing::wrap(
        Fallible(TraceSink::new(sim.pod())),
        gate,
        scenario,
        end,
        "explain",
        limits,
        true,
        true,
    );
    let sink = run_into(&mut sim, end, sink, Hearing::Recorded)?.finish()?;
    Ok(TracedRun {
        trace: sink.0.finish(end),
        pod: sim.pod().clone(),
        status: sim.status().clone(),
        kubernetes,
        duration: end.saturating_since(SimTime::ZERO),
    })
}

/// A sink that never fails, as one whose error is an [`io::Error`].
struct Fallible<S>(S);

impl<S: Sink<Error = core::convert::Infallible>> Sink for Fallible<S> {
    type Error = io::Error;

    fn event(&mut self, event: &probesim_core::Event<'_>) -> io::Result<probesim_core::Flow> {
        match self.0.event(event) {
            Ok(flow) => Ok(flow),
            Err(never) => match never {},
        }
    }
}

/// `probesim explain`: runs the scenario and writes its story ([`crate::explain`]).
///
/// # Errors
/// As [`trace_run`], or writing failed.
pub fn render_explain<W: io::Write>(scenario: &Scenario, mut w: W) -> Result<W, RunFailure> {
    let run = trace_run(scenario)?;
    let mut text = String::new();
    let rerun = Changed(scenario);
    let borderline = crate::borderline::find(scenario, &run.pod, &run.trace);
    let setting = Setting {
        borderline: &borderline,
        ..story_setting(scenario, Some(&rerun))
    };
    crate::explain::explain(
        &mut text,
        &run.info(scenario),
        scenario.description.as_deref(),
        &run.pod,
        &run.trace,
        &setting,
    )
    .map_err(|_| RunFailure::Io(io::Error::other("formatting failed")))?;
    // The story quotes commands and messages from the scenario.
    w.write_all(printable_lines(&text).as_bytes())
        .map_err(RunFailure::Io)?;
    Ok(w)
}

/// What the story of `scenario` knows beyond its run: the back-off curve of its release and
/// node (R28), and `rerun` for measured changes.
#[must_use]
pub fn story_setting<'a>(scenario: &Scenario, rerun: Option<&'a dyn Rerun>) -> Setting<'a> {
    Setting {
        backoff: Some(
            scenario
                .profile
                .crash_loop_backoff(scenario.kubelet.max_container_restart_period),
        ),
        rerun,
        borderline: &[],
    }
}

/// The scenario run again with one container's probes changed: the same seed, horizon and
/// scripts. A probe the change adds answers with the script of the probe whose handler it
/// shares (a startup probe on the liveness probe's endpoint answers as that endpoint does).
#[derive(Clone, Copy, Debug)]
pub struct Changed<'a>(pub &'a Scenario);

impl Rerun for Changed<'_> {
    fn rerun(&self, c: usize, probes: &[Option<ProbeSpec>; 3]) -> Option<Trace> {
        let mut scenario = self.0.clone();
        let init = scenario.pod.init_containers.len();
        let (spec, bindings, index) = if c < init {
            (
                &mut scenario.pod.init_containers[c],
                &mut scenario.init_bindings,
                c,
            )
        } else {
            (
                scenario.pod.containers.get_mut(c - init)?,
                &mut scenario.bindings,
                c - init,
            )
        };
        for kind in ProbeKind::ALL {
            let Some(added) = &probes[kind.index()] else {
                continue;
            };
            if spec.probes[kind.index()].is_some() {
                continue;
            }
            let like = ProbeKind::ALL.into_iter().find(|k| {
                spec.probes[k.index()]
                    .as_ref()
                    .is_some_and(|p| p.handler() == added.handler())
            });
            if let Some(like) = like {
                for b in bindings
                    .iter_mut()
                    .filter(|b| b.container == index && b.probes.contains(&like))
                {
                    b.probes.push(kind);
                }
            }
        }
        for b in bindings.iter_mut().filter(|b| b.container == index) {
            b.probes.retain(|k| probes[k.index()].is_some());
        }
        bindings.retain(|b| !b.probes.is_empty());
        spec.probes = probes.clone();
        trace_run(&scenario).ok().map(|run| run.trace)
    }
}
