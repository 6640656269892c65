//! Borderline decisions of one run (docs/cli.md#probesim-explain, R90–R92): the kubelet
//! decisions that less than the realistic variation decided, which `explain` and the HTML
//! report mark at their step and instant.
//!
//! Two passes. [`candidates`] reads the told run's own facts for decisions taken by a small
//! margin: a back-off check that came within the jitter's reach of the back-off's expiry (R90),
//! a failureThreshold crossing one failure away from not happening or from happening, or
//! within a probe period of the end (R91), and a startup probe's success one failure short of
//! its own threshold, or a startup kill (R92). [`confirm`] then runs the scenario under the
//! realistic timings `run --spread` draws ([`probesim_scenario::timing`]) and keeps a candidate
//! only when the timings go both ways, or all go the other way than the told run: what is
//! printed is the measured share of timings that go each way, and a timing that replays each.

use core::fmt;

use probesim_core::{
    Event, EventKind, Flow, KillReason, Outcome, PodSpec, ProbeKind, ProbeResult, RunError,
    SimDuration, SimTime, Sink,
};
use probesim_scenario::run::{estimate_events, horizon, RunFailure};
use probesim_scenario::scenario::Scenario;
use probesim_scenario::timing::{longest_period, timings, Timing};

use crate::explain::restart::{BackOffs, Decision};
use crate::explain::{At, Took};
use crate::trace::{Trace, What};

/// How many realistic timings confirm a candidate (the first two are the timeline's summary).
pub const TIMINGS: usize = 8;

/// Runs estimated at more events than this are not checked for borderline decisions: the
/// confirmation simulates the run [`TIMINGS`] more times.
pub const EVENT_CAP: u64 = 20_000;

/// The pod worker's requeue after a failed sync is jittered by up to half its 10 s (R6).
const REQUEUE_JITTER: SimDuration = SimDuration::from_secs(5);

/// One decision of the told run that a real cluster may take the other way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Borderline {
    /// The index in the told run's trace of the fact the decision is told with.
    pub item: usize,
    /// Its instant.
    pub at: SimTime,
    /// The rule: `R90` (back-off check), `R91` (threshold crossing), `R92` (startup race).
    pub rule: &'static str,
    /// Which way it may go, why, the measured share and the timings that replay each way.
    pub text: String,
}

impl Borderline {
    /// The line `explain` prints under the decision's step, and the HTML report's tooltip.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "⚠ borderline at t={} ({}): {}",
            At(self.at),
            self.rule,
            self.text
        )
    }
}

/// What a candidate decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stake {
    /// Whether restart `ordinal` (1 for the first) comes at the first back-off check after the
    /// death before it, or only at a later sync.
    AtOnce {
        ordinal: u32,
        /// The told run restarted at that check.
        here: bool,
        /// When the death the check judged happened.
        died: SimTime,
        /// The back-off in force.
        in_force: SimDuration,
    },
    /// Whether kill `ordinal` of a probe comes within `window` of `near`.
    Kill {
        ordinal: u32,
        /// The told run killed there.
        here: bool,
        near: SimTime,
        window: SimDuration,
        probe: ProbeKind,
        /// The failures in a row the told run counted, and the threshold.
        failures: u32,
        threshold: u32,
        /// The crossing comes within a period of the end.
        at_end: bool,
    },
}

/// A decision of the told run taken by a small margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Candidate {
    item: usize,
    at: SimTime,
    c: usize,
    stake: Stake,
}

/// The decisions of `trace` (a run of `pod`) taken by less than the realistic variation: the
/// back-off's curve `backoff` (R28), whether the release requeues at the expiry (and jitters
/// it, R8), and the longest probe period (the phase's range).
fn candidates(
    pod: &PodSpec,
    trace: &Trace,
    backoff: (SimDuration, SimDuration),
    at_expiry: bool,
    period: SimDuration,
) -> Vec<Candidate> {
    let n = trace.names.len();
    let mut out = Vec::new();
    let mut backoffs = BackOffs::new(n, Some(backoff));
    // Per container: a death whose first back-off check is still to come.
    let mut unchecked = vec![false; n];
    let mut restarts = vec![0u32; n];
    let mut killed_total = vec![0u32; n];
    // Per container and probe: failures in a row, and whether a success came in this instance.
    let mut failures = vec![[0u32; 3]; n];
    let mut succeeded = vec![[false; 3]; n];
    let phase = period.max(SimDuration::from_secs(1));
    for (i, item) in trace.items.iter().enumerate() {
        match item.what {
            What::Exit { c, .. } => {
                backoffs.died(c, item.t);
                unchecked[c] = true;
            }
            What::KubeletRestart => backoffs.forget(),
            What::BackOff { c, .. } | What::Start { c, .. } => {
                let start = matches!(item.what, What::Start { .. });
                if let What::Start { restart_count, .. } = item.what {
                    restarts[c] = restarts[c].max(restart_count);
                    failures[c] = [0; 3];
                    succeeded[c] = [false; 3];
                }
                let decision = backoffs.decide(c, item.t, start);
                if !std::mem::take(&mut unchecked[c]) {
                    continue;
                }
                let (died, in_force, here) = match decision {
                    Some(Decision::Start {
                        died,
                        in_force: Some(b),
                        ..
                    }) => (died, b, true),
                    Some(Decision::Refused { died, in_force }) => (died, in_force, false),
                    _ => continue,
                };
                let expiry = died.saturating_add(in_force);
                let margin = if item.t >= expiry {
                    item.t.saturating_since(expiry)
                } else {
                    expiry.saturating_since(item.t)
                };
                let mut reach = phase.saturating_add(REQUEUE_JITTER);
                if at_expiry {
                    reach =
                        reach.saturating_add(SimDuration::from_millis(in_force.as_millis() / 2));
                }
                if margin <= reach {
                    let ordinal = if start { restarts[c] } else { restarts[c] + 1 };
                    out.push(Candidate {
                        item: i,
                        at: item.t,
                        c,
                        stake: Stake::AtOnce {
                            ordinal,
                            here,
                            died,
                            in_force,
                        },
                    });
                }
            }
            What::Probe {
                c, probe, outcome, ..
            } if probe != ProbeKind::Readiness => {
                let Some(spec) = pod.container(c).probe(probe) else {
                    continue;
                };
                let threshold = spec.failure_threshold().unsigned_abs();
                let p = probe.index();
                match outcome {
                    Outcome::Success | Outcome::Warning => {
                        if threshold >= 2 && failures[c][p] + 1 == threshold {
                            out.push(Candidate {
                                item: i,
                                at: item.t,
                                c,
                                stake: Stake::Kill {
                                    ordinal: killed_total[c] + 1,
                                    here: false,
                                    near: item.t,
                                    window: spec.period().saturating_add(SimDuration::from_secs(1)),
                                    probe,
                                    failures: failures[c][p],
                                    threshold,
                                    at_end: false,
                                },
                            });
                        }
                        failures[c][p] = 0;
                        succeeded[c][p] = true;
                    }
                    Outcome::Failure => {
                        failures[c][p] += 1;
                        // One failure short, with the next tick past the end.
                        let next = item.t.saturating_add(spec.period());
                        if threshold >= 2 && failures[c][p] + 1 == threshold && next > trace.end {
                            out.push(Candidate {
                                item: i,
                                at: item.t,
                                c,
                                stake: Stake::Kill {
                                    ordinal: killed_total[c] + 1,
                                    here: false,
                                    near: next,
                                    window: spec.period().saturating_add(SimDuration::from_secs(1)),
                                    probe,
                                    failures: failures[c][p],
                                    threshold,
                                    at_end: true,
                                },
                            });
                        }
                    }
                    Outcome::Error => {}
                }
            }
            What::Result {
                c,
                probe: probe @ (ProbeKind::Liveness | ProbeKind::Startup),
                result: ProbeResult::Failure,
            } => {
                failures[c][probe.index()] = 0;
            }
            What::Kill {
                c,
                reason: reason @ (KillReason::LivenessProbe | KillReason::StartupProbe),
                ..
            } => {
                let probe = if reason == KillReason::StartupProbe {
                    ProbeKind::Startup
                } else {
                    ProbeKind::Liveness
                };
                killed_total[c] += 1;
                backoffs.kill(c, item.t);
                let Some(spec) = pod.container(c).probe(probe) else {
                    continue;
                };
                let at_end = trace.end.saturating_since(item.t) <= spec.period();
                // A crossing after a success (an outage the app may outlast), a startup kill
                // (a race with the app's start), or one close to the end.
                if succeeded[c][probe.index()] || probe == ProbeKind::Startup || at_end {
                    let threshold = spec.failure_threshold().unsigned_abs();
                    out.push(Candidate {
                        item: i,
                        at: item.t,
                        c,
                        stake: Stake::Kill {
                            ordinal: killed_total[c],
                            here: true,
                            near: item.t,
                            window: spec.period().saturating_add(SimDuration::from_secs(1)),
                            probe,
                            failures: threshold,
                            threshold,
                            at_end,
                        },
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// What one timing's run shows, per container (engine index): its probe kills, and its
/// restarts with whether each came at the first back-off check after the death before it.
#[derive(Debug)]
struct Seen {
    names: Vec<String>,
    kills: Vec<Vec<SimTime>>,
    restarts: Vec<Vec<bool>>,
    refused: Vec<bool>,
}

impl Seen {
    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

impl Sink for Seen {
    type Error = core::convert::Infallible;
    fn event(&mut self, e: &Event<'_>) -> Result<Flow, Self::Error> {
        match e.kind {
            EventKind::Kill {
                container,
                reason: KillReason::LivenessProbe | KillReason::StartupProbe,
                ..
            } => {
                if let Some(c) = self.index(container) {
                    self.kills[c].push(e.t);
                }
            }
            EventKind::Exit { container, .. } => {
                if let Some(c) = self.index(container) {
                    self.refused[c] = false;
                }
            }
            EventKind::BackOff { container, .. } => {
                if let Some(c) = self.index(container) {
                    self.refused[c] = true;
                }
            }
            EventKind::Start {
                container,
                restart_count,
            } if restart_count > 0 => {
                if let Some(c) = self.index(container) {
                    let at_once = !std::mem::take(&mut self.refused[c]);
                    self.restarts[c].push(at_once);
                }
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

/// `scenario` under `timing`, seen.
fn see(scenario: &Scenario, names: &[String], timing: Timing) -> Result<Seen, RunFailure> {
    let mut s = scenario.clone();
    timing.apply(&mut s);
    let end = horizon(&s)?;
    let mut sim = s.simulation();
    let n = names.len();
    let mut seen = Seen {
        names: names.to_vec(),
        kills: vec![Vec::new(); n],
        restarts: vec![Vec::new(); n],
        refused: vec![false; n],
    };
    sim.run_until(end, &mut seen).map_err(|e| match e {
        RunError::Sink(never) => match never {},
        RunError::StepBudget { at } => RunFailure::Stuck(at),
    })?;
    Ok(seen)
}

/// Whether a timing goes the candidate's way "yes" (restarts at once, kills about there).
fn goes(stake: &Stake, c: usize, seen: &Seen) -> bool {
    match *stake {
        Stake::AtOnce { ordinal, .. } => seen.restarts[c]
            .get(ordinal as usize - 1)
            .copied()
            .unwrap_or(false),
        Stake::Kill {
            ordinal,
            near,
            window,
            ..
        } => seen.kills[c].get(ordinal as usize - 1).is_some_and(|&t| {
            let apart = if t >= near {
                t.saturating_since(near)
            } else {
                near.saturating_since(t)
            };
            apart <= window
        }),
    }
}

/// The borderline decisions of the told run `trace` of `scenario`: its [`candidates`], each
/// kept when the first [`TIMINGS`] realistic timings go both ways, or all the other way.
/// Nothing for a run estimated at more than [`EVENT_CAP`] events, or one without candidates.
#[must_use]
pub fn find(scenario: &Scenario, pod: &PodSpec, trace: &Trace) -> Vec<Borderline> {
    let Ok(end) = horizon(scenario) else {
        return Vec::new();
    };
    if estimate_events(scenario, end) > EVENT_CAP {
        return Vec::new();
    }
    let period = longest_period(scenario);
    let backoff = scenario
        .profile
        .crash_loop_backoff(scenario.kubelet.max_container_restart_period);
    let at_expiry =
        scenario.profile.backoff_requeue == probesim_core::profile::BackOffRequeue::AtExpiry;
    let found = candidates(pod, trace, backoff, at_expiry, period);
    if found.is_empty() {
        return Vec::new();
    }
    let drawn = timings(scenario, TIMINGS);
    let mut runs = Vec::new();
    for t in &drawn {
        match see(scenario, &trace.names, *t) {
            Ok(seen) => runs.push(seen),
            Err(_) => return Vec::new(),
        }
    }
    confirm(&found, trace, &drawn, &runs, period)
}

/// The candidates the timings' runs confirm, worded.
fn confirm(
    found: &[Candidate],
    trace: &Trace,
    drawn: &[Timing],
    runs: &[Seen],
    period: SimDuration,
) -> Vec<Borderline> {
    let n = runs.len();
    let mut out: Vec<Borderline> = Vec::new();
    for cand in found {
        let ways: Vec<bool> = runs.iter().map(|r| goes(&cand.stake, cand.c, r)).collect();
        let yes = ways.iter().filter(|&&w| w).count();
        let here = match cand.stake {
            Stake::AtOnce { here, .. } | Stake::Kill { here, .. } => here,
        };
        let split = yes > 0 && yes < n;
        let all_other = (here && yes == 0) || (!here && yes == n);
        if !(split || all_other) {
            continue;
        }
        // One mark per decision: a kill already marked by its near miss is not marked again.
        if out.iter().any(|b| b.item == cand.item) {
            continue;
        }
        let replay = |way: bool| {
            ways.iter()
                .position(|&w| w == way)
                .map(|i| drawn[i].replay())
        };
        let name = &trace.names[cand.c];
        let share = Share {
            yes,
            n,
            yes_replay: replay(true),
            no_replay: replay(false),
        };
        let (rule, text) = match cand.stake {
            Stake::AtOnce {
                ordinal,
                here,
                died,
                in_force,
            } => {
                let expiry = died.saturating_add(in_force);
                let (gap, side) = if cand.at >= expiry {
                    (cand.at.saturating_since(expiry), "after")
                } else {
                    (expiry.saturating_since(cand.at), "before")
                };
                (
                    "R90",
                    format!(
                        "restart {ordinal} of {name} is a back-off decision: this check came {} {side} the {} back-off from the death at t={} expired, so {}; the requeue's jitter (10-15 s), the expiry's on 1.35+ (up to 1.5x, R8) and the start phase (up to {}) move the check by more than that: a real cluster may restart it at once or only at a later sync. {}",
                        Took(gap),
                        in_force.go(),
                        At(died),
                        if here { "it restarts at once here" } else { "it waits here" },
                        Took(period),
                        share.words("restarts at once", "waits for a later sync")
                    ),
                )
            }
            Stake::Kill {
                here,
                probe,
                failures,
                threshold,
                at_end,
                ordinal,
                ..
            } => {
                let rule = if probe == ProbeKind::Startup {
                    "R92"
                } else {
                    "R91"
                };
                let what = if at_end && here {
                    format!(
                        "kill {ordinal} of {name} comes within one {probe} period of the end of the run; with the container's start a little later on the probe grid it comes after the end"
                    )
                } else if at_end {
                    format!(
                        "{name}'s {probe} failures are {failures}/{threshold} at the end of the run, and the next tick falls past it; with the start a little earlier on the probe grid the crossing comes before the end"
                    )
                } else if here && probe == ProbeKind::Startup {
                    format!(
                        "the startup probe kills {name}: whether the app answers before the startup probe's {} failure in a row is a race that the start's phase on the probe grid (up to {}) decides",
                        crate::explain::ordinal(threshold),
                        Took(period)
                    )
                } else if here {
                    format!(
                        "kill {ordinal} of {name} is a threshold crossing after a {probe} success in the same instance: where the start falls between two ticks (up to {}) decides whether {threshold} failures come in a row before the app recovers",
                        Took(period)
                    )
                } else if probe == ProbeKind::Startup {
                    format!(
                        "{name}'s startup probe succeeds {failures} failures in a row into its failureThreshold {threshold}, one short of a startup kill: with the start elsewhere between two ticks (up to {}) the {} failure may come first",
                        Took(period),
                        crate::explain::ordinal(threshold)
                    )
                } else {
                    format!(
                        "{name}'s {probe} probe succeeds after {failures} failures in a row, one short of failureThreshold {threshold}: with the start elsewhere between two ticks (up to {}) a {} failure may come before the app recovers",
                        Took(period),
                        crate::explain::ordinal(threshold)
                    )
                };
                let (yes, no) = if here {
                    ("killed about here", "not killed here")
                } else {
                    ("killed about here", "not killed")
                };
                (rule, format!("{what}. {}", share.words(yes, no)))
            }
        };
        out.push(Borderline {
            item: cand.item,
            at: cand.at,
            rule,
            text,
        });
    }
    out
}

/// How the timings split on one decision.
struct Share {
    yes: usize,
    n: usize,
    yes_replay: Option<String>,
    no_replay: Option<String>,
}

impl Share {
    /// `restarts at once in 1 of 8 timings (--seed …), waits in the other 7 (--seed …)`.
    fn words(&self, yes: &str, no: &str) -> String {
        let mut s = String::new();
        let _ = self.write(&mut s, yes, no);
        s
    }

    fn write(&self, w: &mut impl fmt::Write, yes: &str, no: &str) -> fmt::Result {
        let (y, n) = (self.yes, self.n);
        write!(w, "Simulated: {yes} in {y} of {n} realistic timings")?;
        if let Some(r) = &self.yes_replay {
            write!(w, " (replay: {r})")?;
        }
        write!(w, ", {no} in ")?;
        if y == 0 {
            write!(w, "all {n}")?;
        } else {
            write!(w, "the other {}", n - y)?;
        }
        if let Some(r) = &self.no_replay {
            write!(w, " (replay: {r})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
