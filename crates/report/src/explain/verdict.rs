//! The verdict that ends an explanation.

use core::fmt::{self, Write as _};

use probesim_core::{
    KillReason, PodSpec, ProbeKind, ProbeResult, RestartPolicy, SimDuration, SimTime,
};

use super::cause::{Bench, Cause, Diagnosis};
use super::{plural, At, Setting, Took};
use crate::trace::{Trace, What};

/// The closing paragraph: how often it restarts, whether it is ever stable, what to change.
pub(super) fn verdict(
    w: &mut impl fmt::Write,
    pod: &PodSpec,
    trace: &Trace,
    span: SimDuration,
    setting: &Setting<'_>,
) -> fmt::Result {
    let diagnoses: Vec<Diagnosis> = setting.rerun.map_or_else(Vec::new, |rerun| {
        let bench = Bench {
            pod,
            trace,
            rerun,
            span,
        };
        (0..trace.names.len())
            .filter_map(|c| bench.diagnose(c))
            .collect()
    });
    let mut text = String::new();
    let horizon = span.whole_secs().max(1);
    let mut restarts = vec![0u64; trace.names.len()];
    let mut kills = vec![(0u64, 0u64); trace.names.len()]; // (liveness, startup)
    let mut crashes = vec![None; trace.names.len()];
    let mut last_start = vec![None; trace.names.len()];
    let mut ignored = vec![false; trace.names.len()];
    let mut ready_since: Option<SimTime> = None;
    let mut ready_total = 0u64;
    let mut flips = 0u64;
    let mut last_kill: Vec<Option<(SimTime, SimDuration)>> = vec![None; trace.names.len()];
    let mut liveness_failed: Vec<Option<SimTime>> = vec![None; trace.names.len()];
    let taken = |w: &What| {
        matches!(
            w,
            What::Start { .. }
                | What::Result { .. }
                | What::Kill { .. }
                | What::Exit { .. }
                | What::PodReady { .. }
        )
    };
    for (_, item) in trace.replay_where(taken) {
        match item.what {
            What::Start { c, restart_count } => {
                if restart_count > 0 {
                    restarts[c] += 1;
                }
                last_start[c] = Some(item.t);
                last_kill[c] = None;
            }
            What::Result {
                c,
                probe: ProbeKind::Liveness,
                result: ProbeResult::Failure,
            } => liveness_failed[c] = Some(item.t),
            What::Kill { c, reason, grace } => {
                // A whole-pod stop right at a liveness verdict is that verdict's kill (R15).
                if reason == KillReason::Unknown && liveness_failed[c] == Some(item.t) {
                    kills[c].0 += 1;
                }
                match reason {
                    KillReason::LivenessProbe => kills[c].0 += 1,
                    KillReason::StartupProbe => kills[c].1 += 1,
                    _ => {}
                }
                last_kill[c] = Some((item.t, grace));
            }
            What::Exit { c, code, .. } => match last_kill[c] {
                Some((k, grace)) if code == 137 && item.t.saturating_since(k) >= grace => {
                    ignored[c] = true;
                }
                Some(_) => {}
                None if code != 0 => {
                    let ran = last_start[c].map(|s| item.t.saturating_since(s));
                    crashes[c] = Some((code, ran));
                }
                None => {}
            },
            What::PodReady { ready } => {
                flips += 1;
                if ready {
                    ready_since = Some(item.t);
                } else if let Some(s) = ready_since.take() {
                    ready_total += item.t.saturating_since(s).whole_secs();
                }
            }
            _ => {}
        }
    }
    if let Some(s) = ready_since {
        ready_total += trace.end.saturating_since(s).whole_secs();
    }
    let total: u64 = restarts.iter().sum();
    let ready_pct = ready_total * 100 / horizon;
    if total == 0 {
        let _ = write!(text, "No container restarts in {}.", Took(span));
    } else {
        let per_hour = total * 3600 / horizon;
        let _ = write!(text, "{total} restart{} in {}", plural(total), Took(span));
        if horizon >= 3600 {
            let _ = write!(text, " (about {per_hour} an hour)");
        }
        let names: Vec<String> = restarts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(c, n)| format!("{} {n}", trace.names[c]))
            .collect();
        if trace.names.len() > 1 {
            text.push_str(": ");
            text.push_str(&names.join(", "));
        }
        text.push('.');
    }
    let _ = write!(text, " The pod is Ready {ready_pct}% of the time");
    if flips > 2 {
        let _ = write!(text, " (its Ready condition changes {flips} times)");
    }
    text.push('.');
    // Is it ever stable? Nothing dies, is killed or is refused a start after the last restart.
    let last = trace
        .items
        .iter()
        .rposition(|i| matches!(i.what, What::Start { restart_count, .. } if restart_count > 0));
    let last_restart = last.map(|i| trace.items[i].t);
    let stable = last.is_none_or(|i| {
        !trace.items[i..].iter().any(|n| {
            matches!(
                n.what,
                What::Kill { .. } | What::Exit { .. } | What::BackOff { .. }
            )
        })
    });
    let mut advice = Vec::new();
    for c in 0..trace.names.len() {
        let name = &trace.names[c];
        let diagnosis = diagnoses.iter().find(|d| d.c == c);
        if let Some(d) = diagnosis {
            advice.push(by_cause(pod, name, d, kills[c].0 + kills[c].1));
        } else if kills[c].0 > 0 && pod.restart_policy == RestartPolicy::Never {
            advice.push(format!(
                "{name} fails its liveness probe, and with restartPolicy Never that ends the pod"
            ));
        } else if kills[c].0 > 0 {
            let n = kills[c].0;
            advice.push(format!(
                "{name} is killed by its liveness probe {n} time{}: the steps above show when",
                plural(n)
            ));
        }
        if kills[c].1 > 0 && diagnosis.is_none() {
            let (delay, period, threshold) =
                pod.container(c)
                    .probe(ProbeKind::Startup)
                    .map_or((0, 0, 0), |p| {
                        (
                            p.initial_delay_seconds(),
                            p.period_seconds(),
                            p.failure_threshold(),
                        )
                    });
            advice.push(format!(
                "{name} does not pass its startup probe within initialDelaySeconds + failureThreshold × periodSeconds = {}s: raise the startup probe's failureThreshold to cover the slowest start",
                i64::from(delay) + i64::from(threshold) * i64::from(period)
            ));
        }
        if let Some((code, ran)) = crashes[c] {
            let ran = ran.map_or(String::new(), |r| format!(" after {}", Took(r)));
            advice.push(format!(
                "{name}'s process exits with code {code} by itself{ran}: the probes are not the cause, and each death makes the next start wait a back-off that doubles up to its cap (R31); read its logs (kubectl logs --previous)"
            ));
        }
        if ignored[c] && kills[c].0 + kills[c].1 > 1 {
            advice.push(format!(
                "{name} ignores SIGTERM, so every kill waits the whole grace period: handle SIGTERM (or run the app under an init process) to stop at once"
            ));
        }
        if pod.container(c).probe(ProbeKind::Readiness).is_some()
            && diagnosis.is_none()
            && setting.rerun.is_none()
            && flips > 4
            && ready_pct > 0
            && total == 0
        {
            advice.push(format!(
                "{name}'s readiness probe fails now and then, so Services keep removing and adding the pod: make the endpoint it checks reliable, or raise failureThreshold to ride out short failures"
            ));
        }
        if pod.container(c).probe(ProbeKind::Readiness).is_some()
            && ready_pct == 0
            && !pod.is_init(c)
            && kills[c].0 + kills[c].1 == 0
        {
            advice.push(format!(
                "{name}'s readiness probe never lets it become ready: no Service sends it traffic, yet the kubelet does not restart it (readiness never kills)"
            ));
        }
    }
    let ended = trace.items.iter().rev().find_map(|i| match i.what {
        What::Phase { phase } if phase.is_terminal() => Some((i.t, phase)),
        _ => None,
    });
    let deleted = trace
        .items
        .iter()
        .any(|i| matches!(i.what, What::Delete { .. }));
    if let Some((t, phase)) = ended {
        let why = if deleted {
            " after its deletion".to_owned()
        } else if pod.restart_policy == RestartPolicy::Always {
            String::new()
        } else {
            format!(" (restartPolicy {:?})", pod.restart_policy)
        };
        let _ = write!(
            text,
            " The pod ends in phase {} at t={}{why}.",
            phase.as_str(),
            At(t)
        );
    } else if stable {
        match last_restart {
            None if flips > 4 => text.push_str(" Nothing restarts, but the pod's readiness flaps."),
            None => text.push_str(" It is stable: nothing restarts."),
            Some(t)
                if diagnoses
                    .iter()
                    .any(|d| matches!(d.cause, Cause::Returns { .. })) =>
            {
                let _ = write!(
                    text,
                    " It is never stable: each new instance fails again (the last restart is at t={}, too late in the run for its instance to fail before the end).",
                    At(t)
                );
            }
            Some(t) => {
                let _ = write!(text, " It settles: no restart after t={}.", At(t));
            }
        }
    } else {
        text.push_str(" It is never stable: the restarts go on until the end of the run.");
    }
    if advice.is_empty() {
        if !stable {
            text.push_str(" Read the steps above for what drives the restarts.");
        }
    } else {
        text.push_str(" What to change: ");
        text.push_str(&advice.join("; "));
        text.push('.');
    }
    for line in wrap(&text, 100) {
        writeln!(w, "  {line}")?;
    }
    Ok(())
}

/// The advice for a diagnosed container: its cause, then the measured change that fixes it.
fn by_cause(pod: &PodSpec, name: &str, d: &Diagnosis, kills: u64) -> String {
    let fix = |what: &str| {
        d.fix.as_ref().map_or_else(
            || format!("; none of the changes tried ({what}) removes it in a simulation, so none is suggested"),
            |m| format!("; the fix: {} (simulated: {})", m.change, m.effect),
        )
    };
    let never = if pod.restart_policy == RestartPolicy::Never {
        ", and with restartPolicy Never the kill ends the pod"
    } else {
        ""
    };
    match d.cause {
        Cause::StillStarting { kind, healthy } => format!(
            "{name} is killed while it is still starting{never}: without the kills (simulated) it passes its {kind} probe {} after its start, later than the probes allow{}",
            Took(healthy),
            fix("a startup probe, or a larger failureThreshold")
        ),
        Cause::Outage { from, until } => format!(
            "{name} is killed during an outage it would have outlived{never}: its liveness probe fails from t={} and, without the kills (simulated), passes again at t={}, so the restart was not needed{}",
            At(from),
            At(until),
            fix("a larger livenessProbe.failureThreshold")
        ),
        Cause::Cured { kills, failing_from } => format!(
            "{name}'s restart cured it: after {kills} kill{} it is healthy for good, while without the kill (simulated) its liveness probe goes on failing from t={} to the end of the run; the probe does its job here, so keep it and find what makes the app stop answering",
            plural(kills),
            At(failing_from)
        ),
        Cause::Returns { never: true } => format!(
            "{name} never passes its liveness probe, in any instance{never}: check what the probe checks (port, path, command) or fix the application; no probe setting stops the kills ({kills} in the run)"
        ),
        Cause::Returns { never: false } => format!(
            "{name} fails its liveness probe again after every restart{never}, so restarting never fixes it: fix the application or what the probe checks{}",
            d.futile.as_ref().map_or_else(String::new, |m| format!(
                "; a larger failureThreshold only stretches each cycle ({}; simulated: {})",
                m.change, m.effect
            ))
        ),
        Cause::Flaps { times } => format!(
            "{name}'s readiness probe fails now and then and turns it not Ready {times} time{} with no kill, so Services keep removing and adding the pod{}",
            plural(times),
            d.fix.as_ref().map_or_else(
                || "; make the endpoint it checks reliable (no larger failureThreshold tried rides out those failures in a simulation)".to_owned(),
                |m| format!(
                    "; if those failures are harmless, the fix: {} (simulated: {}), at the cost of noticing a lasting failure later; otherwise make the endpoint reliable",
                    m.change, m.effect
                )
            )
        ),
    }
}

/// Wraps a paragraph at spaces.
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(core::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
