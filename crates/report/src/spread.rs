//! `probesim run --spread N` (docs/cli.md#--spread): one scenario under many timings, and for
//! every kill, restart, readiness change and CrashLoopBackOff the earliest and latest instant
//! it happens at and the share of timings it happens in.
//!
//! Events are matched across timings by ordinal: "restart 7" is the seventh restart in every
//! timing, whenever it comes ("kill 3 of web" with several containers, "Ready→false 2" for the
//! pod's Ready condition). One run is [`observe`]d into a list of such occurrences (a few
//! numbers per event, single-threaded); [`Spread::of`] gathers the runs, in timing order, and
//! says which timing replays each extreme. Spreading the runs over cores is the caller's
//! business (the command line uses every core); the result does not depend on it.

use std::io::{self, Write};
use std::sync::Arc;

use probesim_core::{Event, EventKind, Flow, RunError, SimDuration, SimTime, Sink};
use probesim_scenario::run::{horizon, RunFailure};
use probesim_scenario::scenario::Scenario;
use probesim_scenario::timing::{instant, longest_period, LatencyRange, Timing};

/// At most this many disagreeing rows in the timeline's summary ([`Spread::write_summary`]).
pub const SUMMARY_ROWS: usize = 5;

/// At most this many occurrences are kept per run: the rest of a very long run is not matched.
pub const MAX_OCCURRENCES: usize = 100_000;

/// One event of one run, named by its ordinal: `restart 7`, `kill 3 of web`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// `kill`, `restart`, `Ready→true`, `Ready→false` or `CrashLoopBackOff`.
    pub kind: &'static str,
    /// The container, `None` for the pod's Ready condition (shared by every occurrence of its
    /// container: a run numbers thousands).
    pub container: Option<Arc<str>>,
    /// 1 for the first of its kind (of its container).
    pub ordinal: u32,
    /// When it happened.
    pub at: SimTime,
}

impl Occurrence {
    /// `restart 7`, or `restart 7 of web` when the pod has several containers.
    #[must_use]
    pub fn label(&self, several: bool) -> String {
        // Written piece by piece: the timeline's summary labels every event of two runs.
        let mut label = String::with_capacity(32);
        label.push_str(self.kind);
        label.push(' ');
        let mut digits = [0u8; 10];
        let mut n = self.ordinal;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        label.extend(digits[i..].iter().map(|&d| char::from(d)));
        if let (Some(c), true) = (&self.container, several) {
            label.push_str(" of ");
            label.push_str(c);
        }
        label
    }
}

/// The sink that numbers the events one run shows: [`observe`] runs one, and the timeline's
/// summary has the printed run feed one as it goes ([`Observed`]).
#[derive(Debug, Default)]
pub struct Observer {
    out: Vec<Occurrence>,
    /// Per kind and container, how many so far (a handful of entries: searched in order).
    counts: Vec<(&'static str, Option<Arc<str>>, u32)>,
    /// The containers whose status last said CrashLoopBackOff.
    crash_looping: Vec<String>,
}

impl Observer {
    /// An observer that has seen nothing.
    #[must_use]
    pub fn new() -> Observer {
        Observer::default()
    }

    /// What it saw, numbered, in the order it happened.
    #[must_use]
    pub fn into_occurrences(self) -> Vec<Occurrence> {
        self.out
    }

    fn push(&mut self, kind: &'static str, container: Option<&str>, at: SimTime) {
        if self.out.len() >= MAX_OCCURRENCES {
            return;
        }
        let i = match self
            .counts
            .iter()
            .position(|(k, c, _)| *k == kind && c.as_deref() == container)
        {
            Some(i) => i,
            None => {
                self.counts.push((kind, container.map(Arc::from), 0));
                self.counts.len() - 1
            }
        };
        let entry = &mut self.counts[i];
        entry.2 += 1;
        self.out.push(Occurrence {
            kind,
            container: entry.1.clone(),
            ordinal: entry.2,
            at,
        });
    }
}

impl Sink for Observer {
    type Error = std::convert::Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Self::Error> {
        match e.kind {
            EventKind::Kill { container, .. } => self.push("kill", Some(container), e.t),
            EventKind::Start {
                container,
                restart_count,
            } if restart_count > 0 => self.push("restart", Some(container), e.t),
            EventKind::PodReady { ready } => {
                self.push(
                    if ready {
                        "Ready→true"
                    } else {
                        "Ready→false"
                    },
                    None,
                    e.t,
                );
            }
            EventKind::Status { container, status } => {
                let now = status.state.reason() == Some("CrashLoopBackOff");
                let was = self.crash_looping.iter().position(|c| c == container);
                match (now, was) {
                    (true, None) => {
                        self.crash_looping.push(container.to_owned());
                        self.push("CrashLoopBackOff", Some(container), e.t);
                    }
                    (false, Some(i)) => {
                        self.crash_looping.swap_remove(i);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

/// Runs `scenario` as it is and lists its kills, restarts, readiness changes and
/// CrashLoopBackOffs, numbered.
///
/// # Errors
/// No duration, or a stuck engine.
pub fn observe(scenario: &Scenario) -> Result<Vec<Occurrence>, RunFailure> {
    let end = horizon(scenario)?;
    let mut sim = scenario.simulation();
    let mut sink = Observer::default();
    sim.run_until(end, &mut sink).map_err(|e| match e {
        RunError::Sink(never) => match never {},
        RunError::StepBudget { at } => RunFailure::Stuck(at),
    })?;
    Ok(sink.out)
}

/// A sink that hands every event to `inner` and, when there is one, to an [`Observer`] too:
/// the printed run numbers its own kills, restarts and readiness changes for the timeline's
/// summary as it is written, instead of being simulated again. Without an observer it is
/// `inner` itself, fast-forward included; with one the run goes step by step (the summary is
/// only made for runs short enough for that).
pub struct Observed<'a, S> {
    /// The sink the run is for.
    pub inner: S,
    /// The observer that sees the same events.
    pub observer: Option<&'a mut Observer>,
}

impl<S: Sink> Sink for Observed<'_, S> {
    type Error = S::Error;

    fn event(&mut self, e: &Event<'_>) -> Result<Flow, S::Error> {
        if let Some(o) = self.observer.as_deref_mut() {
            let Ok(_) = o.event(e);
        }
        self.inner.event(e)
    }

    fn container_event(&mut self, e: &Event<'_>, container: usize) -> Result<Flow, S::Error> {
        if let Some(o) = self.observer.as_deref_mut() {
            let Ok(_) = o.event(e);
        }
        self.inner.container_event(e, container)
    }

    fn fast_forward(&mut self) -> Option<&mut dyn probesim_core::FastForward> {
        match self.observer {
            None => self.inner.fast_forward(),
            Some(_) => None,
        }
    }
}

/// `scenario` under `timing`, observed ([`observe`]).
///
/// # Errors
/// As [`observe`].
pub fn observe_timing(scenario: &Scenario, timing: Timing) -> Result<Vec<Occurrence>, RunFailure> {
    let mut s = scenario.clone();
    timing.apply(&mut s);
    observe(&s)
}

/// One extreme of an event: when, and which timing shows it then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extreme {
    /// The instant.
    pub at: SimTime,
    /// The timing that replays it.
    pub timing: Timing,
}

/// One event matched across timings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// `restart 7`, `kill 3 of web`, `Ready→false 2`.
    pub label: String,
    /// The occurrence's kind, container and ordinal (its `at` is the earliest).
    pub occurrence: Occurrence,
    /// In how many timings it happens.
    pub count: usize,
    /// The earliest instant (the first timing in order on a tie).
    pub earliest: Extreme,
    /// The latest instant (the first timing in order on a tie).
    pub latest: Extreme,
    /// Its instant in the first timing, when it happens there.
    pub first_at: Option<SimTime>,
}

/// The rows of one kind of event of one container (or of the pod), by ordinal, while
/// [`Spread::of`] matches runs.
type Group = (&'static str, Option<Arc<str>>, Vec<usize>);

/// The events of many timings of one scenario, matched by ordinal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spread {
    /// The timings, in order.
    pub timings: Vec<Timing>,
    /// The range the phases were drawn from (the longest probe period).
    pub period: SimDuration,
    /// The end of the runs.
    pub end: SimTime,
    /// Every event that happens in at least one timing, by earliest instant.
    pub rows: Vec<Row>,
    /// [`Spread::tolerance`], worked out once.
    tolerance: SimDuration,
}

impl Spread {
    /// Gathers `runs` (one per timing of `timings`, in the same order).
    #[must_use]
    pub fn of(scenario: &Scenario, timings: &[Timing], runs: Vec<Vec<Occurrence>>) -> Spread {
        let several = scenario.pod.all_containers().count() > 1;
        let mut rows: Vec<Row> = Vec::new();
        // Per kind and container (a handful, searched in order), the row of each ordinal:
        // ordinals count from 1 in every run, so a row is found by position.
        let mut groups: Vec<Group> = Vec::new();
        for (i, (timing, run)) in timings.iter().zip(runs).enumerate() {
            let first = i == 0;
            for o in run {
                let container = o.container.as_deref();
                let g = match groups
                    .iter()
                    .position(|(k, c, _)| *k == o.kind && c.as_deref() == container)
                {
                    Some(g) => g,
                    None => {
                        groups.push((o.kind, o.container.clone(), Vec::new()));
                        groups.len() - 1
                    }
                };
                let slot = o.ordinal.saturating_sub(1) as usize;
                let here = Extreme {
                    at: o.at,
                    timing: *timing,
                };
                match groups[g].2.get(slot).copied() {
                    Some(r) => {
                        let row = &mut rows[r];
                        row.count += 1;
                        if o.at < row.earliest.at {
                            row.earliest = here;
                            row.occurrence.at = o.at;
                        }
                        if o.at > row.latest.at {
                            row.latest = here;
                        }
                        if first {
                            row.first_at = Some(o.at);
                        }
                    }
                    None => {
                        // Ordinals come in order within a run, so the next one is the next slot.
                        debug_assert_eq!(groups[g].2.len(), slot, "ordinals in order");
                        groups[g].2.push(rows.len());
                        let at = o.at;
                        rows.push(Row {
                            label: o.label(several),
                            occurrence: o,
                            count: 1,
                            earliest: here,
                            latest: here,
                            first_at: first.then_some(at),
                        });
                    }
                }
            }
        }
        rows.sort_by(|a, b| {
            (a.earliest.at, a.occurrence.ordinal, &a.label).cmp(&(
                b.earliest.at,
                b.occurrence.ordinal,
                &b.label,
            ))
        });
        let mut spread = Spread {
            timings: timings.to_vec(),
            period: longest_period(scenario),
            end: horizon(scenario).unwrap_or(SimTime::ZERO),
            rows,
            tolerance: SimDuration::ZERO,
        };
        spread.tolerance = spread
            .latency_ranges()
            .iter()
            .fold(spread.period.max(SimDuration::from_secs(1)), |t, r| {
                t.saturating_add(r.width())
            });
        spread
    }

    /// The rows on which the timings disagree: an event that happens in some timings and not
    /// in others, or whose instants lie more than the longest probe period apart (a phase
    /// moves an event by less than that; more is a decision that went both ways).
    #[must_use]
    pub fn disagreements(&self) -> Vec<&Row> {
        self.rows.iter().filter(|r| self.disagrees(r)).collect()
    }

    /// The spread for people: one line per event.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_text<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let n = self.timings.len();
        let mut varied = format!(
            "kubelet jitter drawn from each seed, start phase in [0, {})",
            probesim_script::format_duration(self.period)
        );
        for range in self.latency_ranges() {
            varied.push_str(", ");
            varied.push_str(&range.describe());
        }
        writeln!(w, "spread over {n} timings ({varied}):")?;
        if self.rows.is_empty() {
            writeln!(
                w,
                "  no kill, restart, readiness change or CrashLoopBackOff"
            )?;
        }
        let width = self.rows.iter().map(|r| r.label.chars().count()).max();
        let width = width.unwrap_or(0);
        for r in &self.rows {
            let pad = width - r.label.chars().count();
            write!(w, "  {}{:pad$}  ", r.label, "")?;
            if r.earliest.at == r.latest.at {
                write!(w, "at {}", instant(r.earliest.at))?;
            } else {
                write!(w, "{} to {}", instant(r.earliest.at), instant(r.latest.at))?;
            }
            writeln!(w, ", in {} of {n} timings", r.count)?;
            if r.earliest.at == r.latest.at {
                writeln!(w, "      replay: {}", r.earliest.timing.replay())?;
            } else {
                writeln!(
                    w,
                    "      earliest: {}; latest: {}",
                    r.earliest.timing.replay(),
                    r.latest.timing.replay()
                )?;
            }
            if self.disagrees(r) {
                writeln!(w, "      why: {}", self.why(r))?;
            }
        }
        Ok(())
    }

    /// The runtime latencies the timings vary, with their ranges (none under
    /// `timing: exact`, docs/semantics.md#latency-ranges).
    #[must_use]
    pub fn latency_ranges(&self) -> Vec<LatencyRange> {
        // Every drawn timing varies the same latencies; the timeline's summary puts the printed
        // run, which varies none, first.
        self.timings
            .last()
            .map(Timing::latency_ranges)
            .unwrap_or_default()
    }

    /// Why the timings may disagree on `row`, in a real cluster's terms: which way it may go
    /// and what decides it (docs/cli.md#--spread).
    #[must_use]
    pub fn why(&self, row: &Row) -> &'static str {
        let n = self.timings.len();
        if row.count < n && self.near_end(row) {
            return "it comes close to the end of the run: whether a real cluster shows it by then depends on the timing";
        }
        let o = &row.occurrence;
        // A restart follows the kill of the same ordinal (a liveness or startup kill; a crash
        // has none): when that kill's own spread accounts for the restart's, the decision was
        // the kill's.
        let width = |r: &Row| r.latest.at.saturating_since(r.earliest.at);
        let kill_went_both_ways = || {
            self.rows.iter().any(|k| {
                k.occurrence.kind == "kill"
                    && k.occurrence.container == o.container
                    && k.occurrence.ordinal == o.ordinal
                    && self.disagrees(k)
                    && (k.count < n || width(row) <= width(k).saturating_add(self.tolerance()))
            })
        };
        match o.kind {
            "kill" if row.count < n => {
                "a threshold crossing: where the container's start falls between two probe ticks decides whether failureThreshold failures come in a row before the app recovers (with a startup probe: whether startup succeeds before liveness fails)"
            }
            "kill" => {
                "it follows a restart whose time went either way, or a threshold crossing that the start's phase against the probe ticks moves"
            }
            "restart" if kill_went_both_ways() => "it follows the kill before it, which went either way",
            "restart" => {
                "a back-off decision: the death before it falls close to the back-off expiry, and the kubelet's jitter (requeue 10-15 s, resync 60-90 s, on 1.35+ the expiry up to 1.5x) decides whether the sync that sees it restarts the container at once or leaves it to a later sync"
            }
            _ => "it follows a kill or restart that went either way",
        }
    }

    /// How far apart an event's instants may lie before the timings disagree on it: the
    /// longest probe period, at least 1 s (what the start phase moves an event by), plus the
    /// widths of the latency ranges the timings vary (what the latencies move it by).
    fn tolerance(&self) -> SimDuration {
        self.tolerance
    }

    /// Whether `r`'s latest instant is within [`Spread::tolerance`] of the end of the runs.
    fn near_end(&self, r: &Row) -> bool {
        self.end.saturating_since(r.latest.at) <= self.tolerance()
    }

    /// Whether the timings disagree on `r` ([`Spread::disagreements`]).
    fn disagrees(&self, r: &Row) -> bool {
        r.count < self.timings.len()
            || r.latest.at.saturating_since(r.earliest.at) > self.tolerance()
    }

    /// The short summary that ends the timeline for people, for a spread whose first timing is
    /// the run printed above and whose second is one drawn timing (`run` without `--spread`,
    /// docs/cli.md#--spread): nothing when the two agree; otherwise a blank line, a heading
    /// that names the other timing and how to replay it, and a line for each of the first
    /// [`SUMMARY_ROWS`] rows they disagree on (leaving out an event missing from one only
    /// because it comes within a probe period of the end).
    ///
    /// # Errors
    /// The writer's.
    pub fn write_summary<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let n = self.timings.len();
        // An event missing from some timings only because it comes close to the end of the
        // run says nothing about the pod: the summary leaves it to `--spread`.
        let rows: Vec<&Row> = self
            .disagreements()
            .into_iter()
            .filter(|r| r.count == n || !self.near_end(r))
            .collect();
        let Some(other) = self.timings.get(1) else {
            return Ok(());
        };
        if rows.is_empty() {
            return Ok(());
        }
        // A pod without probes has no tick grid for the start to fall on.
        let varied = match (self.period.is_zero(), self.latency_ranges().is_empty()) {
            (true, true) => "kubelet jitter",
            (true, false) => "kubelet jitter and runtime latencies",
            (false, true) => "kubelet jitter and start phase",
            (false, false) => "kubelet jitter, start phase and runtime latencies",
        };
        writeln!(
            w,
            "\nAnother timing disagrees with this run ({varied}: {}; `--spread 20` lists every event over 20):",
            other.replay()
        )?;
        for r in rows.iter().take(SUMMARY_ROWS) {
            // Two timings: a row seen in both has its other instant at the extreme that is not
            // this run's; a row seen once, where this run does not see it, is the other's.
            let here = match r.first_at {
                Some(at) => format!("at {} here", instant(at)),
                None => "never here".to_owned(),
            };
            let there = match r.first_at {
                Some(_) if r.count < n => "never in the other timing".to_owned(),
                Some(at) if at == r.earliest.at => {
                    format!("at {} in the other timing", instant(r.latest.at))
                }
                _ => format!("at {} in the other timing", instant(r.earliest.at)),
            };
            let when = format!("{here}, {there}");
            writeln!(w, "  {}: {when}", r.label)?;
            writeln!(w, "    why: {}", self.why(r))?;
        }
        if rows.len() > SUMMARY_ROWS {
            writeln!(w, "  … and {} more", rows.len() - SUMMARY_ROWS)?;
        }
        Ok(())
    }

    /// The spread as one JSON document (docs/cli.md#--spread).
    ///
    /// # Errors
    /// The writer's.
    pub fn write_json<W: Write + ?Sized>(&self, w: &mut W, scenario: &str) -> io::Result<()> {
        let n = self.timings.len();
        w.write_all(b"{\"scenario\": ")?;
        crate::json::string(w, scenario)?;
        write!(
            w,
            ", \"timings\": {n}, \"phaseRangeMs\": {}",
            self.period.as_millis()
        )?;
        let ranges = self.latency_ranges();
        if !ranges.is_empty() {
            w.write_all(b", \"latencyRangesMs\": {")?;
            for (i, r) in ranges.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(
                    w,
                    "{sep}\"{}\": [{}, {}]",
                    r.key,
                    r.min.as_millis(),
                    r.max.as_millis()
                )?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(b", \"events\": [")?;
        for (i, r) in self.rows.iter().enumerate() {
            w.write_all(if i == 0 { b"\n  " } else { b",\n  " })?;
            w.write_all(b"{\"event\": ")?;
            crate::json::string(w, &r.label)?;
            write!(w, ", \"kind\": \"{}\", \"container\": ", r.occurrence.kind)?;
            match &r.occurrence.container {
                Some(c) => crate::json::string(w, c)?,
                None => w.write_all(b"null")?,
            }
            write!(
                w,
                ", \"ordinal\": {}, \"count\": {}, \"share\": {}, \"disagree\": {}",
                r.occurrence.ordinal,
                r.count,
                share(r.count, n),
                self.disagrees(r)
            )?;
            if self.disagrees(r) {
                w.write_all(b", \"why\": ")?;
                crate::json::string(w, self.why(r))?;
            }
            for (name, e) in [("earliest", r.earliest), ("latest", r.latest)] {
                write!(
                    w,
                    ", \"{name}\": {{\"atMs\": {}, \"seed\": {}, \"phaseMs\": {}, ",
                    e.at.as_millis(),
                    e.timing.seed,
                    e.timing.phase.as_millis()
                )?;
                for (key, ms) in e.timing.latencies_ms() {
                    write!(w, "\"{key}Ms\": {ms}, ")?;
                }
                w.write_all(b"\"replay\": ")?;
                crate::json::string(w, &e.timing.replay())?;
                w.write_all(b"}")?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(if self.rows.is_empty() {
            b"]}\n"
        } else {
            b"\n]}\n"
        })
    }
}

/// `count / n` with at most four decimals, as JSON writes numbers (`0.5`, `1`).
fn share(count: usize, n: usize) -> String {
    if n == 0 {
        return "0".to_owned();
    }
    let per_10k = (count * 10_000 + n / 2) / n;
    let (whole, frac) = (per_10k / 10_000, per_10k % 10_000);
    if frac == 0 {
        format!("{whole}")
    } else {
        let digits = format!("{frac:04}");
        format!("{whole}.{}", digits.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::share;

    #[test]
    fn shares_are_short_json_numbers() {
        assert_eq!(share(10, 20), "0.5");
        assert_eq!(share(20, 20), "1");
        assert_eq!(share(1, 3), "0.3333");
        assert_eq!(share(0, 7), "0");
    }
}

#[cfg(test)]
mod spread_tests {
    use probesim_scenario::scenario::{NoFiles, Overrides, Scenario, TimingMode};
    use probesim_scenario::timing::timings;

    use super::*;

    fn spread_of(text: &str, n: usize) -> Spread {
        spread_under(text, n, &Overrides::default())
    }

    fn spread_under(text: &str, n: usize, overrides: &Overrides) -> Spread {
        let s = Scenario::load_with(text, "s.yaml", &mut NoFiles, overrides).expect("loads");
        let ts = timings(&s, n);
        let runs: Vec<Vec<Occurrence>> = ts
            .iter()
            .map(|t| observe_timing(&s, *t).expect("runs"))
            .collect();
        Spread::of(&s, &ts, runs)
    }

    const GRACE_OVERRIDE: &str =
        include_str!("../../../scenarios/conformance/18-liveness-probe-grace-period-override.yaml");

    #[test]
    fn the_spread_finds_both_outcomes_of_a_borderline_back_off_decision() {
        // R30, R31: the sixth death comes just around the expiry of the back-off. With the
        // kubelet's jitter, the sync that sees it falls before the expiry in some timings (the
        // restart waits for the next back-off sync) and after it in others (restart at once).
        let spread = spread_of(GRACE_OVERRIDE, 20);
        let row = spread
            .rows
            .iter()
            .find(|r| r.label == "restart 6")
            .expect("restart 6");
        assert_eq!(row.count, 20, "{row:?}");
        let (early, late) = (row.earliest.at, row.latest.at);
        assert!(
            late.saturating_since(early) > SimDuration::from_secs(60),
            "{early} .. {late}"
        );
        assert!(spread
            .disagreements()
            .iter()
            .any(|r| r.label == "restart 6"));
        // Each extreme replays: the same timing alone gives the same instant.
        let s = Scenario::load_with(
            GRACE_OVERRIDE,
            "s.yaml",
            &mut NoFiles,
            &Overrides::default(),
        )
        .expect("loads");
        for e in [row.earliest, row.latest] {
            let alone = observe_timing(&s, e.timing).expect("runs");
            let again = alone
                .iter()
                .find(|o| o.kind == "restart" && o.ordinal == 6)
                .expect("restart 6");
            assert_eq!(again.at, e.at);
        }
    }

    #[test]
    fn realistic_timings_vary_the_latencies_and_each_extreme_replays() {
        // docs/semantics.md#latency-ranges (R65, R66, R67): under realistic timing the
        // runtime's latencies vary too; the header names their ranges, the JSON carries them,
        // and the timing of each extreme gives the same instant alone.
        let realistic = Overrides {
            timing: Some(TimingMode::Realistic),
            ..Overrides::default()
        };
        let spread = spread_under(GRACE_OVERRIDE, 12, &realistic);
        let mut out = Vec::new();
        spread.write_text(&mut out).expect("writes");
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            out.starts_with("spread over 12 timings (kubelet jitter drawn from each seed, start phase in [0, 10s), container start 50ms-600ms, kill delivery 5ms-100ms, first pull 500ms-3s, later pull 200ms-1s):\n"),
            "{out}"
        );
        assert!(out.contains("--runtime-start "), "{out}");
        let mut json = Vec::new();
        spread.write_json(&mut json, "s").expect("writes");
        let json = String::from_utf8(json).expect("utf-8");
        assert!(
            json.contains("\"phaseRangeMs\": 10000, \"latencyRangesMs\": {\"start\": [50, 600], \"kill\": [5, 100], \"pullFirst\": [500, 3000], \"pullThen\": [200, 1000]}, \"events\": ["),
            "{json}"
        );
        assert!(json.contains("\"startMs\": "), "{json}");
        let s =
            Scenario::load_with(GRACE_OVERRIDE, "s.yaml", &mut NoFiles, &realistic).expect("loads");
        let restart = |run: &[Occurrence]| {
            run.iter()
                .find(|o| o.kind == "restart" && o.ordinal == 1)
                .map(|o| o.at)
        };
        let row = spread
            .rows
            .iter()
            .find(|r| r.label == "restart 1")
            .expect("restart 1");
        // The latencies move the first restart off the whole seconds of exact timing.
        assert_ne!(row.earliest.at.as_millis() % 1000, 0, "{row:?}");
        for e in [row.earliest, row.latest] {
            assert!(e.timing.runtime.start.is_some());
            let alone = observe_timing(&s, e.timing).expect("runs");
            assert_eq!(restart(&alone), Some(e.at));
        }
    }

    #[test]
    fn events_are_matched_by_ordinal_and_counted_per_timing() {
        let spread = spread_of(GRACE_OVERRIDE, 4);
        assert_eq!(spread.timings.len(), 4);
        assert_eq!(spread.period, SimDuration::from_secs(10));
        let labels: Vec<&str> = spread.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            &labels[..3],
            ["Ready→true 1", "kill 1", "restart 1"],
            "{labels:?}"
        );
        assert!(spread.rows.iter().all(|r| r.count <= 4));
        let mut json = Vec::new();
        spread.write_json(&mut json, "s").expect("writes");
        let json = String::from_utf8(json).expect("utf-8");
        assert!(
            json.starts_with("{\"scenario\": \"s\", \"timings\": 4, \"phaseRangeMs\": 10000, \"latencyRangesMs\": {\"start\": [50, 600], \"kill\": [5, 100], \"pullFirst\": [500, 3000], \"pullThen\": [200, 1000]}, \"events\": [\n  {\"event\": \"Ready→true 1\", \"kind\": \"Ready→true\", \"container\": null, \"ordinal\": 1, \"count\": 4, \"share\": 1,"),
            "{json}"
        );
    }

    /// A kill at 30 s in one run, none in the other; a restart in both, 20 s apart.
    fn two_runs(kill_here: bool) -> (Vec<Occurrence>, Vec<Occurrence>) {
        let o = |kind, ordinal, secs| Occurrence {
            kind,
            container: Some(Arc::from("web")),
            ordinal,
            at: SimTime::from_secs(secs),
        };
        let with_kill = vec![o("kill", 1, 30), o("restart", 1, 31)];
        let without = vec![o("restart", 1, 51)];
        if kill_here {
            (with_kill, without)
        } else {
            (without, with_kill)
        }
    }

    #[test]
    fn the_summary_compares_the_printed_run_with_the_other_timing() {
        let s = Scenario::load_with(
            GRACE_OVERRIDE,
            "s.yaml",
            &mut NoFiles,
            &Overrides::default(),
        )
        .expect("loads");
        let this = Timing::new(s.seed, s.phase);
        let other = timings(&s, 1)[0];
        for kill_here in [true, false] {
            let (a, b) = two_runs(kill_here);
            let spread = Spread::of(&s, &[this, other], vec![a, b]);
            let mut out = Vec::new();
            spread.write_summary(&mut out).expect("writes");
            let out = String::from_utf8(out).expect("utf-8");
            assert!(
                out.starts_with(&format!(
                    "\nAnother timing disagrees with this run (kubelet jitter, start phase and runtime latencies: {}; ",
                    other.replay()
                )),
                "{out}"
            );
            let (kill, restart) = if kill_here {
                (
                    "  kill 1: at 30s here, never in the other timing\n",
                    "  restart 1: at 31s here, at 51s in the other timing\n",
                )
            } else {
                (
                    "  kill 1: never here, at 30s in the other timing\n",
                    "  restart 1: at 51s here, at 31s in the other timing\n",
                )
            };
            assert!(out.contains(kill), "{out}");
            assert!(out.contains(restart), "{out}");
        }
        // Two runs that agree print nothing.
        let (a, _) = two_runs(true);
        let spread = Spread::of(&s, &[this, other], vec![a.clone(), a]);
        let mut out = Vec::new();
        spread.write_summary(&mut out).expect("writes");
        assert!(out.is_empty());
    }

    #[test]
    fn labels_name_the_kind_the_ordinal_and_with_several_containers_the_container() {
        let o = |ordinal| Occurrence {
            kind: "restart",
            container: Some(Arc::from("web")),
            ordinal,
            at: SimTime::ZERO,
        };
        assert_eq!(o(7).label(false), "restart 7");
        assert_eq!(o(10).label(true), "restart 10 of web");
        assert_eq!(o(4_294_967_295).label(false), "restart 4294967295");
        assert_eq!(o(0).label(false), "restart 0");
    }

    #[test]
    fn without_probes_the_summary_names_no_start_phase() {
        const CRASH: &str =
            include_str!("../../../scenarios/restart-backoff/reduced-decay-1-34.yaml");
        let s = Scenario::load_with(CRASH, "s.yaml", &mut NoFiles, &Overrides::default())
            .expect("loads");
        let (this, other) = (Timing::new(s.seed, s.phase), timings(&s, 1)[0]);
        // The printed run is the scenario as it is (exact timing, no jitter).
        let runs = vec![
            observe(&s).expect("runs"),
            observe_timing(&s, other).expect("runs"),
        ];
        let mut out = Vec::new();
        Spread::of(&s, &[this, other], runs)
            .write_summary(&mut out)
            .expect("writes");
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            out.starts_with("\nAnother timing disagrees with this run (kubelet jitter: --seed "),
            "{out}"
        );
    }
}
