//! `probesim explain`: the run told as a story for learners.
//!
//! Every sentence is computed from the [`Trace`] of the run (the same event stream as every other
//! report) and the pod spec it ran: each step says what happened, the rule behind it and the
//! numbers that made it happen. Repeated cycles ([`fold`]) are told once; the story ends with a
//! verdict.

use core::fmt;

use probesim_core::{
    ExitReason, Handler, KillReason, Outcome, PodSpec, ProbeKind, ProbeResult, RestartPolicy,
    Sigterm, SimDuration, SimTime,
};

use crate::trace::{fold, Item, Part, Trace, What};

mod cause;
mod churn;
mod flag;
pub(crate) mod restart;
mod verdict;
use crate::RunInfo;
use restart::BackOffs;
use verdict::verdict;

/// At most this many steps are told; the rest is counted (a long run that never repeats).
const MAX_STEPS: usize = 300;

/// A point in time as the story writes it: `80s`, `2.5s`, then `12m50s`, `47h59m`, `30d`.
#[derive(Clone, Copy, Debug)]
pub struct At(pub SimTime);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms < 600_000 {
            if ms % 1000 == 0 {
                return write!(f, "{}s", ms / 1000);
            }
            let text = format!("{}.{:03}", ms / 1000, ms % 1000);
            return write!(f, "{}s", text.trim_end_matches('0'));
        }
        probesim_script::write_duration(SimDuration::from_millis(ms), f)
    }
}

/// A span in the same form as [`At`].
#[derive(Clone, Copy, Debug)]
pub struct Took(pub SimDuration);

impl fmt::Display for Took {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        At(SimTime::from_millis(self.0.as_millis())).fmt(f)
    }
}

/// Per container and probe: the run of equal results the worker has counted (P33).
#[derive(Clone, Copy, Debug, Default)]
struct Streak {
    successes: u32,
    failures: u32,
}

/// Runs the story's pod again with one container's probes changed: same scenario, seed and
/// horizon. The verdict uses it to tell causes apart and to measure each change it suggests.
pub trait Rerun {
    /// The run with container `c`'s (engine index) probes replaced by `probes` (indexed like
    /// [`ProbeKind::ALL`]), or `None` when it cannot be run (too many events to keep, a stuck
    /// engine).
    fn rerun(&self, c: usize, probes: &[Option<probesim_core::ProbeSpec>; 3]) -> Option<Trace>;
}

/// What the story knows beyond the run itself.
#[derive(Clone, Copy, Default)]
pub struct Setting<'a> {
    /// The crash-loop back-off's initial and maximum delay for the run's release and node
    /// (R28); `None`: back-off decisions are told without the figures behind them.
    pub backoff: Option<(SimDuration, SimDuration)>,
    /// Runs of changed pods; `None`: causes are told from the run alone and no change is
    /// suggested, since none could be measured.
    pub rerun: Option<&'a dyn Rerun>,
    /// The run's borderline decisions ([`crate::borderline`]), in trace order: each is marked
    /// under the step of its decision.
    pub borderline: &'a [crate::borderline::Borderline],
}

impl fmt::Debug for Setting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting")
            .field("backoff", &self.backoff)
            .field("rerun", &self.rerun.is_some())
            .field("borderline", &self.borderline)
            .finish()
    }
}

/// Writes the explanation of a run.
///
/// # Errors
/// Only the writer's.
pub fn explain(
    w: &mut impl fmt::Write,
    info: &RunInfo<'_>,
    description: Option<&str>,
    pod: &PodSpec,
    trace: &Trace,
    setting: &Setting<'_>,
) -> fmt::Result {
    writeln!(
        w,
        "{}: Kubernetes {}, seed {}, {} simulated.",
        info.scenario,
        info.kubernetes,
        info.seed,
        Took(info.duration)
    )?;
    if let Some(line) = info.overridden_line() {
        writeln!(w, "{line}")?;
    }
    if let Some(d) = description {
        writeln!(w, "{d}.")?;
    }
    writeln!(w)?;
    write_pod(w, pod)?;
    writeln!(w)?;
    writeln!(w, "What happens")?;
    let mut story = Story {
        pod,
        trace,
        runs: vec![[Streak::default(); 3]; trace.names.len()],
        steps: 0,
        untold: 0,
        waiting: vec![false; trace.names.len()],
        crossing: vec![None; trace.names.len()],
        restarts: vec![0; trace.names.len()],
        consumed: std::collections::BTreeSet::new(),
        backoff: BackOffs::new(trace.names.len(), setting.backoff),
        churn: vec![false; trace.names.len()],
        flags: setting.borderline,
        flagged: vec![false; setting.borderline.len()],
    };
    for part in fold(trace) {
        match part {
            Part::Shown { from, to, .. } => story.tell(w, from, to)?,
            Part::Repeated {
                t0,
                t1,
                times,
                cycle,
                instances,
                from,
                to,
            } => {
                story.step(
                    w,
                    t0,
                    format_args!(
                        "from here the same {} cycle{} repeats {times} more time{}, until t={} ({})",
                        Took(cycle),
                        if instances > 1 {
                            format!(" of {instances} instances")
                        } else {
                            String::new()
                        },
                        plural(times),
                        At(t1),
                        repeat_note(trace, from, to)
                    ),
                )?;
                // Keep the worker's run counts as they are after the repetitions.
                story.count_only(from, to);
                story.flags(w, to)?;
            }
        }
    }
    if story.untold > 0 {
        writeln!(
            w,
            "  ... {} more steps are not told; `probesim run` lists every event.",
            story.untold
        )?;
    }
    writeln!(w)?;
    writeln!(w, "Verdict")?;
    verdict(w, pod, trace, info.duration, setting)
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What a folded repetition holds, in counts.
fn repeat_note(trace: &Trace, from: usize, to: usize) -> String {
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let restarts = count(trace.count(from, to, |w| matches!(w, What::Start { .. })));
    let kills = count(trace.count(from, to, |w| matches!(w, What::Kill { .. })));
    let probes = count(trace.count(from, to, |w| matches!(w, What::Probe { .. })));
    let events = count(trace.count(from, to, |w| matches!(w, What::Event { .. })));
    let mut parts = Vec::new();
    for (n, what) in [
        (restarts, "restart"),
        (kills, "kill"),
        (probes, "probe run"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}{}", plural(n as u64)));
        }
    }
    if events > 0 {
        parts.push(format!("{events} event{}", plural(events as u64)));
    }
    if parts.is_empty() {
        "nothing else happens".to_owned()
    } else {
        format!("{} in all", parts.join(", "))
    }
}

pub(crate) fn write_pod(w: &mut impl fmt::Write, pod: &PodSpec) -> fmt::Result {
    writeln!(w, "The pod")?;
    writeln!(
        w,
        "  {}: restartPolicy {}, terminationGracePeriodSeconds {}.",
        pod.name,
        restart_policy(pod.restart_policy),
        pod.termination_grace_period_seconds
    )?;
    for c in 0..pod.container_count() {
        let spec = pod.container(c);
        let role = if pod.is_init(c) {
            if spec.restartable {
                "sidecar (restartable init container)"
            } else {
                "init container"
            }
        } else {
            "container"
        };
        write!(w, "  {role} {} (image {})", spec.name, spec.image)?;
        // ContainerRestartRules: the container's own policy and rules override the pod's.
        if let Some(own) = spec.restart_policy {
            write!(w, ", its own restartPolicy {}", restart_policy(own))?;
            for rule in &spec.restart_rules {
                let codes: Vec<String> = rule.values.iter().map(ToString::to_string).collect();
                write!(
                    w,
                    ", restarted on exit codes {}[{}]",
                    if rule.exit_code_in { "" } else { "not in " },
                    codes.join(", ")
                )?;
            }
        }
        match spec.app.sigterm {
            Sigterm::Ignore => w.write_str(", ignores SIGTERM")?,
            Sigterm::Exit { code: None, after } if after.is_zero() => {}
            Sigterm::Exit { code: None, after } => {
                write!(w, ", dies of SIGTERM {} after the signal", Took(after))?;
            }
            Sigterm::Exit {
                code: Some(code),
                after,
            } => write!(
                w,
                ", handles SIGTERM and exits {code} after {}",
                Took(after)
            )?,
        }
        if let Some(exit) = spec.app.exit {
            write!(
                w,
                ", exits by itself with code {} {} after each start",
                exit.code,
                Took(exit.after)
            )?;
        }
        writeln!(w, ":")?;
        let mut any = false;
        for kind in ProbeKind::ALL {
            let Some(p) = spec.probe(kind) else { continue };
            any = true;
            write!(
                w,
                "    {kind} probe: {}, every {}s (periodSeconds), timeout {}s, failureThreshold {}, successThreshold {}",
                handler(p.handler()),
                p.period_seconds(),
                p.timeout_seconds(),
                p.failure_threshold(),
                p.success_threshold()
            )?;
            if p.initial_delay_seconds() > 0 {
                write!(w, ", initialDelaySeconds {}", p.initial_delay_seconds())?;
            }
            if let Some(g) = p.termination_grace_period_seconds() {
                write!(w, ", its own terminationGracePeriodSeconds {g}")?;
            }
            writeln!(w, ".")?;
        }
        if !any {
            writeln!(w, "    no probes: started and ready as soon as it runs.")?;
        }
    }
    Ok(())
}

fn restart_policy(p: RestartPolicy) -> &'static str {
    match p {
        RestartPolicy::Always => "Always",
        RestartPolicy::OnFailure => "OnFailure",
        RestartPolicy::Never => "Never",
    }
}

fn handler(h: &Handler) -> String {
    match h {
        Handler::HttpGet { path, port, .. } => {
            format!("httpGet {path} on port {}", port.number().unwrap_or(0))
        }
        Handler::TcpSocket { port, .. } => {
            format!("tcpSocket on port {}", port.number().unwrap_or(0))
        }
        Handler::Grpc { port, .. } => format!("grpc on port {port}"),
        Handler::Exec { command } => format!("exec `{}`", command.join(" ")),
    }
}

pub(crate) fn ordinal(n: u32) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        _ => format!("{n}th"),
    }
}

struct Story<'a> {
    pod: &'a PodSpec,
    trace: &'a Trace,
    runs: Vec<[Streak; 3]>,
    steps: usize,
    untold: usize,
    /// Whether a container's back-off wait has been told (until it starts again).
    waiting: Vec<bool>,
    /// A threshold crossing told together with the kill that follows it.
    crossing: Vec<Option<String>>,
    /// Restarts seen so far per container.
    restarts: Vec<u32>,
    /// Items already told as part of a group.
    consumed: std::collections::BTreeSet<usize>,
    /// The kubelet's back-off entries, followed through the run.
    backoff: BackOffs,
    /// Whether the re-creation of a finished container's workers has been told (until it
    /// starts again).
    churn: Vec<bool>,
    /// The borderline decisions to mark ([`crate::borderline`]), and which are marked.
    flags: &'a [crate::borderline::Borderline],
    flagged: Vec<bool>,
}

impl Story<'_> {
    fn step(
        &mut self,
        w: &mut impl fmt::Write,
        t: SimTime,
        what: fmt::Arguments<'_>,
    ) -> fmt::Result {
        if self.steps >= MAX_STEPS {
            self.untold += 1;
            return Ok(());
        }
        self.steps += 1;
        writeln!(w, "  t={}: {what}.", At(t))
    }

    fn name(&self, c: usize) -> &str {
        &self.trace.names[c]
    }

    fn threshold(&self, c: usize, probe: ProbeKind) -> (u32, u32) {
        self.pod.container(c).probe(probe).map_or((1, 1), |p| {
            (
                p.failure_threshold().unsigned_abs(),
                p.success_threshold().unsigned_abs(),
            )
        })
    }

    fn period(&self, c: usize, probe: ProbeKind) -> i32 {
        self.pod
            .container(c)
            .probe(probe)
            .map_or(0, |p| p.period_seconds())
    }

    /// Updates the run counters for the items of a folded repetition, saying nothing.
    fn count_only(&mut self, from: usize, to: usize) {
        let trace = self.trace;
        for (_, item) in trace.expand(from, to) {
            match item.what {
                What::Probe {
                    c, probe, outcome, ..
                } => count(&mut self.runs[c][probe.index()], outcome),
                What::Result {
                    c,
                    probe: probe @ (ProbeKind::Liveness | ProbeKind::Startup),
                    result: ProbeResult::Failure,
                } => self.runs[c][probe.index()].failures = 0,
                What::Exit { c, .. } => self.backoff.died(c, item.t),
                What::Kill {
                    c,
                    reason: KillReason::LivenessProbe | KillReason::StartupProbe,
                    ..
                } => self.backoff.kill(c, item.t),
                What::Start { c, restart_count } => {
                    self.restarts[c] = restart_count;
                    self.waiting[c] = false;
                    let _ = self.backoff.decide(c, item.t, true);
                }
                What::KubeletRestart => self.backoff.forget(),
                _ => {}
            }
        }
    }

    /// Tells items `from..to`.
    fn tell(&mut self, w: &mut impl fmt::Write, from: usize, to: usize) -> fmt::Result {
        let items = &self.trace.items;
        let mut i = from;
        while i < to {
            self.flags(w, i)?;
            let item = items[i];
            i += 1;
            if self.consumed.remove(&(i - 1)) {
                continue;
            }
            match item.what {
                What::Probe {
                    c,
                    probe,
                    outcome,
                    output,
                    ..
                } => {
                    let (fail_at, succeed_at) = self.threshold(c, probe);
                    let run = &mut self.runs[c][probe.index()];
                    count(run, outcome);
                    let run = *run;
                    let good = matches!(outcome, Outcome::Success | Outcome::Warning);
                    // Runs of the same outcome that change nothing are told as one step.
                    let quiet = if good {
                        run.successes > succeed_at
                    } else {
                        outcome == Outcome::Error || run.failures > fail_at
                    };
                    let group = self.same_probes(i, to, c, probe, outcome, output, run);
                    let output_text = self.trace.text(output);
                    let out = if output_text.is_empty() {
                        String::new()
                    } else {
                        format!(" ({output_text})")
                    };
                    if quiet || (good && succeed_at == 1) || !group.is_empty() {
                        let first_run = run;
                        for &g in &group {
                            self.consumed.insert(g);
                            count(&mut self.runs[c][probe.index()], outcome);
                        }
                        let run = self.runs[c][probe.index()];
                        let n = group.len() + 1;
                        let last = group.last().map_or(item.t, |&g| items[g].t);
                        let verb = match (outcome, n) {
                            (Outcome::Success, 1) => "succeeds",
                            (Outcome::Success, _) => "succeed",
                            (Outcome::Warning, 1) => "succeeds with a warning",
                            (Outcome::Warning, _) => "succeed with a warning",
                            (Outcome::Failure, 1) => "fails",
                            (Outcome::Failure, _) => "fail",
                            (Outcome::Error, 1) => "ends in a prober error (the result is discarded, P31)",
                            (Outcome::Error, _) => "end in a prober error (the result is discarded, P31)",
                        };
                        let when = if n == 1 {
                            format!("{}", At(item.t))
                        } else {
                            format!("{}–{}", At(item.t), At(last))
                        };
                        let note = if good || outcome == Outcome::Error {
                            String::new()
                        } else if first_run.failures > fail_at {
                            "; the verdict is already Failure, so nothing changes".into()
                        } else {
                            format!(
                                "; failures {}/{fail_at} to {}/{fail_at}, below failureThreshold {fail_at}: nothing happens yet (P34), but each is recorded as an Unhealthy warning event (P41)",
                                first_run.failures, run.failures
                            )
                        };
                        let every = if n > 1 {
                            let times: Vec<SimTime> = core::iter::once(item.t)
                                .chain(group.iter().map(|&g| items[g].t))
                                .collect();
                            self.every(c, probe, &times)
                        } else {
                            String::new()
                        };
                        let what = if n == 1 {
                            format!("the {probe} probe of {}", self.name(c))
                        } else {
                            format!("{n} {probe} probes of {}", self.name(c))
                        };
                        if self.steps < MAX_STEPS {
                            self.steps += 1;
                            writeln!(w, "  t={when}: {what} {verb}{out}{every}{note}.")?;
                        } else {
                            self.untold += 1;
                        }
                        continue;
                    }
                    let name = self.name(c).to_owned();
                    if good {
                        let k = run.successes;
                        self.step(
                            w,
                            item.t,
                            format_args!(
                                "{probe} success {k}/{succeed_at} for {name}{}",
                                if k < succeed_at {
                                    format!("; successThreshold is {succeed_at}, so not yet")
                                } else {
                                    String::new()
                                }
                            ),
                        )?;
                    } else {
                        let k = run.failures;
                        if k < fail_at {
                            self.step(
                                w,
                                item.t,
                                format_args!(
                                    "{probe} failure {k}/{fail_at} for {name}{out}; below failureThreshold {fail_at}, nothing happens yet (P34), but the kubelet records an Unhealthy warning event (P41)"
                                ),
                            )?;
                        } else if self.trace.items[i..to].iter().take_while(|n| n.t == item.t).any(
                            |n| matches!(n.what, What::Kill { c: kc, .. } if kc == c),
                        ) {
                            // Told with the kill that follows at the same instant.
                            self.crossing[c] = Some(format!(
                                "{} {probe} failure in a row{out}; failureThreshold is {fail_at}, so the worker stores Failure (P34) and",
                                ordinal(k)
                            ));
                        } else {
                            self.step(
                                w,
                                item.t,
                                format_args!(
                                    "{} {probe} failure in a row for {name}{out}; failureThreshold is {fail_at}, so the worker stores Failure (P34){}",
                                    ordinal(k),
                                    if probe == ProbeKind::Readiness {
                                        " (readiness never restarts a container)"
                                    } else {
                                        ""
                                    }
                                ),
                            )?;
                        }
                    }
                }
                What::Result { c, probe, result } => {
                    if self.recreated(i - 1) {
                        if !self.churn[c] {
                            self.churn[c] = true;
                            self.churn_step(w, item.t, c, probe)?;
                        }
                        continue;
                    }
                    // An initial value comes just before the first probe of a new container.
                    let initial = items[i..to].iter().find(|n| {
                        matches!(n.what, What::Probe { c: nc, probe: np, .. } if nc == c && np == probe)
                    });
                    if initial.is_some_and(|n| n.t == item.t) && self.trace.is_initial(i - 1) {
                        continue;
                    }
                    let name = self.name(c).to_owned();
                    match (probe, result) {
                        (ProbeKind::Liveness, ProbeResult::Failure)
                        | (ProbeKind::Startup, ProbeResult::Failure) => {
                            // Said with the crossing failure and the kill. The worker holds,
                            // and its run starts again from zero (P35).
                            self.runs[c][probe.index()].failures = 0;
                        }
                        (ProbeKind::Startup, ProbeResult::Success) => self.step(
                            w,
                            item.t,
                            format_args!(
                                "{name}'s startup probe has succeeded: the container counts as started, and its liveness and readiness probes begin (P30)"
                            ),
                        )?,
                        (ProbeKind::Readiness, ProbeResult::Success) => self.step(
                            w,
                            item.t,
                            format_args!("{name}'s readiness worker stores Success"),
                        )?,
                        (ProbeKind::Readiness, ProbeResult::Failure) => {
                            // Said with the crossing failure.
                        }
                        _ => {}
                    }
                }
                What::Kill { c, reason, grace } => {
                    if matches!(reason, KillReason::LivenessProbe | KillReason::StartupProbe) {
                        self.backoff.kill(c, item.t);
                    }
                    self.kill(w, item, i, c, reason, grace)?;
                }
                What::Exit { c, code, reason } => {
                    self.backoff.died(c, item.t);
                    // Exits after a kill are told with the kill.
                    let killed = items[from..i - 1].iter().rev().find_map(|p| match p.what {
                        What::Kill { c: kc, .. } if kc == c => Some(true),
                        What::Start { c: sc, .. } if sc == c => Some(false),
                        _ => None,
                    });
                    if killed != Some(true) {
                        let started = items[..i - 1].iter().rev().find_map(|p| match p.what {
                            What::Start { c: sc, .. } if sc == c => Some(p.t),
                            _ => None,
                        });
                        let ran = started.map_or(String::new(), |s| {
                            format!(" after running {}", Took(item.t.saturating_since(s)))
                        });
                        let name = self.name(c).to_owned();
                        let how = match reason {
                            ExitReason::Completed => "completes (exit code 0)".to_owned(),
                            ExitReason::Error => format!("crashes with exit code {code}"),
                        };
                        self.step(w, item.t, format_args!("{name}'s process {how} by itself{ran}"))?;
                    }
                }
                What::Start { c, restart_count } => {
                    self.churn[c] = false;
                    self.start(w, item, i, c, restart_count)?;
                }
                What::BackOff { c, backoff } => self.refused(w, i, c, backoff)?,
                What::Ready { c, ready } => {
                    let name = self.name(c).to_owned();
                    let has_readiness = self.pod.container(c).probe(ProbeKind::Readiness).is_some();
                    let why = match (ready, has_readiness) {
                        (true, false) => "it has no readiness probe, so it is ready once it has started (R40)",
                        (true, true) => "its readiness probe has passed",
                        (false, _) => {
                            if self.recent_kill(from, i, c) {
                                "it is being stopped"
                            } else if has_readiness {
                                "its readiness probe has failed"
                            } else {
                                "it is no longer running"
                            }
                        }
                    };
                    let state = if ready { "is Ready" } else { "is no longer Ready" };
                    self.step(w, item.t, format_args!("{name} {state}: {why}"))?;
                }
                What::PodReady { ready } => {
                    let text = if ready {
                        "the pod is Ready: Services send it traffic"
                    } else {
                        "the pod is not Ready: Services stop sending it traffic"
                    };
                    self.step(w, item.t, format_args!("{text}"))?;
                }
                What::Phase { phase } => {
                    self.step(w, item.t, format_args!("the pod's phase is now {}", phase.as_str()))?;
                }
                What::Event {
                    event_type,
                    reason,
                    message,
                    ..
                } => {
                    if matches!(
                        reason,
                        "Unhealthy" | "Killing" | "Created" | "Started" | "BackOff"
                    ) {
                        continue;
                    }
                    let text = self.trace.text(message).to_owned();
                    self.step(
                        w,
                        item.t,
                        format_args!("{} event {reason}: {text}", event_type.as_str()),
                    )?;
                }
                What::Delete { grace } => self.step(
                    w,
                    item.t,
                    format_args!(
                        "the pod is deleted with a grace period of {}: the kubelet stops every container",
                        Took(grace)
                    ),
                )?,
                What::Deleted => self.step(
                    w,
                    item.t,
                    format_args!("every container has stopped: the pod object is removed from the API server"),
                )?,
                // Left-out repetitions (inside a fold, never told): counted only.
                What::Gap { .. } => self.count_only(i - 1, i),
                What::KubeletRestart => {
                    self.backoff.forget();
                    self.step(
                    w,
                    item.t,
                    format_args!(
                        "the kubelet restarts: its probe results, run counters and back-off entries are gone and are rebuilt"
                    ),
                    )?;
                }
            }
        }
        self.flags(w, to)
    }

    fn recent_kill(&self, from: usize, i: usize, c: usize) -> bool {
        self.trace.items[from..i - 1]
            .iter()
            .rev()
            .find_map(|p| match p.what {
                What::Kill { c: kc, .. } if kc == c => Some(true),
                What::Start { c: sc, .. } | What::Exit { c: sc, .. } if sc == c => Some(false),
                _ => None,
            })
            .unwrap_or(false)
    }

    /// The probes after `i` (to `to`) that repeat this one for the same container and can be
    /// told with it, up to the next fact about the container: their indices.
    #[allow(clippy::too_many_arguments)]
    fn same_probes(
        &self,
        i: usize,
        to: usize,
        c: usize,
        probe: ProbeKind,
        outcome: Outcome,
        output: usize,
        run: Streak,
    ) -> Vec<usize> {
        let items = &self.trace.items;
        let (fail_at, _) = self.threshold(c, probe);
        let mut failures = run.failures;
        // Failures below the threshold are told one by one when it is small.
        if outcome == Outcome::Failure && failures <= fail_at && fail_at <= 3 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (j, item) in items.iter().enumerate().take(to).skip(i) {
            match item.what {
                What::Probe {
                    c: pc,
                    probe: pp,
                    outcome: po,
                    output: pout,
                    ..
                } if pc == c && pp == probe => {
                    if po != outcome || pout != output {
                        break;
                    }
                    if outcome == Outcome::Failure {
                        failures += 1;
                        // The crossing is told on its own.
                        if failures == fail_at || (failures > fail_at && run.failures < fail_at) {
                            break;
                        }
                    }
                    out.push(j);
                }
                What::Probe { .. }
                | What::Event {
                    reason: "Unhealthy",
                    ..
                } => {}
                ref other if other.container() == Some(c) => break,
                What::PodReady { .. }
                | What::Phase { .. }
                | What::Delete { .. }
                | What::Deleted
                | What::KubeletRestart => break,
                _ => {}
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn kill(
        &mut self,
        w: &mut impl fmt::Write,
        item: Item,
        i: usize,
        c: usize,
        reason: KillReason,
        grace: SimDuration,
    ) -> fmt::Result {
        let name = self.name(c).to_owned();
        let why = match reason {
            KillReason::LivenessProbe => {
                "the liveness verdict is Failure, so the kubelet kills".to_owned()
            }
            KillReason::StartupProbe => {
                "the startup verdict is Failure, so the kubelet kills".to_owned()
            }
            KillReason::Deletion => "the pod is being deleted, so the kubelet stops".to_owned(),
            KillReason::Unknown => {
                "nothing in the pod will run again, so the kubelet stops the whole pod (R15), starting with".to_owned()
            }
            _ => "the kubelet stops".to_owned(),
        };
        let why = match (self.crossing[c].take(), reason) {
            (Some(crossing), KillReason::LivenessProbe | KillReason::StartupProbe) => {
                format!("{crossing} the kubelet kills")
            }
            (Some(crossing), KillReason::Unknown) => format!(
                "{crossing}, as nothing in the pod will run again (restartPolicy {}), the kubelet stops the whole pod (R15), starting with",
                restart_policy(self.pod.restart_policy)
            ),
            (Some(crossing), KillReason::Deletion) => {
                format!("{crossing} the pod is being deleted anyway, so the kubelet stops")
            }
            (None, _) => why,
            _ => why,
        };
        let spec = self.pod.container(c);
        let probe_grace = match reason {
            KillReason::LivenessProbe => spec
                .probe(ProbeKind::Liveness)
                .and_then(|p| p.termination_grace_period_seconds()),
            KillReason::StartupProbe => spec
                .probe(ProbeKind::Startup)
                .and_then(|p| p.termination_grace_period_seconds()),
            _ => None,
        };
        let source =
            if probe_grace.is_some_and(|g| u64::try_from(g).ok() == Some(grace.whole_secs())) {
                "the probe's own terminationGracePeriodSeconds (R22)"
            } else {
                "terminationGracePeriodSeconds"
            };
        // The exit that ends this kill.
        let exit = self.trace.items[i..].iter().find_map(|n| match n.what {
            What::Exit { c: ec, code, .. } if ec == c => Some((n.t, code)),
            _ => None,
        });
        let ending = match exit {
            Some((t, 137)) if t.saturating_since(item.t) >= grace => format!(
                "SIGTERM is ignored, so it waits {source}={}, then SIGKILL: exit code 137 at t={} (R25)",
                Took(grace),
                At(t)
            ),
            Some((t, 143)) => format!(
                "the process dies of SIGTERM {} later: exit code 143 at t={}",
                Took(t.saturating_since(item.t)),
                At(t)
            ),
            Some((t, code)) => format!(
                "the process stops {} later with exit code {code} at t={} (the grace period allowed {})",
                Took(t.saturating_since(item.t)),
                At(t),
                Took(grace)
            ),
            None => format!(
                "SIGTERM is sent and the process has up to {source}={} to stop; the run ends before it does",
                Took(grace)
            ),
        };
        let spec = self.pod.container(c);
        let restarts = spec.restarts_after_probe_kill(self.pod.restart_policy);
        let restart = match (reason, restarts) {
            (KillReason::LivenessProbe | KillReason::StartupProbe, false) => {
                if spec.restart_policy.is_some() {
                    "; its own restartPolicy is Never, so it will not be restarted (R20)"
                } else {
                    "; restartPolicy is Never, so it will not be restarted"
                }
            }
            (KillReason::LivenessProbe | KillReason::StartupProbe, true) => {
                "; the probe's worker holds until a new container appears (P35)"
            }
            _ => "",
        };
        let rule = if matches!(reason, KillReason::LivenessProbe | KillReason::StartupProbe) {
            " (R13)"
        } else {
            ""
        };
        self.step(
            w,
            item.t,
            format_args!("{why} {name}{rule}; {ending}{restart}"),
        )
    }
}

/// How often a back-off has doubled from the kubelet's initial 10 s (or 1 s with the reduced
/// decay, R28): 0 when it is not such a power.
fn doublings(backoff: SimDuration) -> u32 {
    let ms = backoff.as_millis();
    for base in [10_000, 1_000] {
        if ms >= base && ms % base == 0 && (ms / base).is_power_of_two() {
            return (ms / base).trailing_zeros();
        }
    }
    0
}

fn count(run: &mut Streak, outcome: Outcome) {
    match outcome {
        Outcome::Success | Outcome::Warning => {
            run.successes += 1;
            run.failures = 0;
        }
        Outcome::Failure => {
            run.failures += 1;
            run.successes = 0;
        }
        Outcome::Error => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict::wrap;

    #[test]
    fn times_read_as_seconds_then_minutes() {
        assert_eq!(At(SimTime::from_secs(80)).to_string(), "80s");
        assert_eq!(At(SimTime::from_millis(2_500)).to_string(), "2.5s");
        assert_eq!(At(SimTime::from_secs(770)).to_string(), "12m50s");
        assert_eq!(At(SimTime::from_secs(30 * 86_400)).to_string(), "720h");
    }

    #[test]
    fn back_off_doublings_count_from_the_initial_value() {
        // R28: 10 s doubling (1 s with the reduced decay); a capped 300 s is no doubling.
        assert_eq!(doublings(SimDuration::from_secs(10)), 0);
        assert_eq!(doublings(SimDuration::from_secs(160)), 4);
        assert_eq!(doublings(SimDuration::from_secs(8)), 3);
        assert_eq!(doublings(SimDuration::from_secs(300)), 0);
    }

    #[test]
    fn paragraphs_wrap_at_spaces() {
        let lines = wrap("aaa bbb ccc ddd", 7);
        assert_eq!(lines, ["aaa bbb", "ccc ddd"]);
    }
}
