//! The verdict that ends an explanation.

use core::fmt::{self, Write as _};

use probesim_core::{
    KillReason, PodSpec, ProbeKind, ProbeResult, RestartPolicy, SimDuration, SimTime,
};

use super::{plural, At, Took};
use crate::trace::{Trace, What};

/// The closing paragraph: how often it restarts, whether it is ever stable, what to change.
pub(super) fn verdict(
    w: &mut impl fmt::Write,
    pod: &PodSpec,
    trace: &Trace,
    span: SimDuration,
) -> fmt::Result {
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
    for item in &trace.items {
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
    // Is it ever stable? The last restart, compared with the end.
    let last_restart = trace
        .items
        .iter()
        .rev()
        .find(|i| matches!(i.what, What::Start { restart_count, .. } if restart_count > 0))
        .map(|i| i.t);
    let stable = match last_restart {
        None => true,
        Some(t) => {
            let quiet = trace.end.saturating_since(t);
            quiet.whole_secs() * 2 > horizon
        }
    };
    let mut advice = Vec::new();
    for c in 0..trace.names.len() {
        let name = &trace.names[c];
        if kills[c].0 > 0 && pod.restart_policy == RestartPolicy::Never {
            advice.push(format!(
                "{name} fails its liveness probe, and with restartPolicy Never that ends the pod: fix the application or what the probe checks"
            ));
        } else if kills[c].0 > 0 {
            advice.push(format!(
                "{name} keeps failing its liveness probe after each restart, so restarting never fixes it: fix the application or what the probe checks; a larger failureThreshold or periodSeconds only stretches each cycle"
            ));
        }
        if kills[c].1 > 0 {
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
                "{name}'s process exits with code {code} by itself{ran}: the probes are not the cause; read its logs (kubectl logs --previous)"
            ));
        }
        if ignored[c] && kills[c].0 + kills[c].1 > 1 {
            advice.push(format!(
                "{name} ignores SIGTERM, so every kill waits the whole grace period: handle SIGTERM (or run the app under an init process) to stop at once"
            ));
        }
        if pod.container(c).probe(ProbeKind::Readiness).is_some()
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
