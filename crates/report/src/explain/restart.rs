//! Starts and back-off: each start told with the decision behind it (R16, R27–R32), and the
//! probes' initial delays counted from it (P29).

use core::fmt;

use probesim_core::{ProbeKind, SimDuration, SimTime};

use super::{plural, At, Story, Took};
use crate::trace::{Item, What};

/// The kubelet keeps a back-off entry it has not updated for this long as expired (R27, R32).
const EXPIRY: SimDuration = SimDuration::from_secs(600);

/// The kubelet's crash-loop back-off, followed from the trace as `doBackOff` keeps it (R27–R30):
/// per container an entry (the delay in force, when it was last updated) and the finish times
/// of the two newest dead instances.
#[derive(Clone, Debug)]
pub(crate) struct BackOffs {
    /// The initial and maximum delay (R28); `None`: not known, decisions are not told.
    curve: Option<(SimDuration, SimDuration)>,
    entries: Vec<Option<(SimDuration, SimTime)>>,
    /// Per container: the newest and the one before it.
    deaths: Vec<[Option<SimTime>; 2]>,
    /// Per container: a kill whose sync has not yet decided on a start. That sync goes on to
    /// the start after the kill, on the status it read before (R16).
    killed: Vec<Option<SimTime>>,
}

/// What `doBackOff` decided for one start or refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// The status the kubelet read holds no dead instance: nothing to judge, no entry changes.
    NoDead,
    /// Not in back-off: the start goes ahead and the entry becomes `next`.
    Start {
        /// When the newest dead instance of that status stopped.
        died: SimTime,
        /// The delay in force (`None`: no entry, or an expired one).
        in_force: Option<SimDuration>,
        /// The delay from now on.
        next: SimDuration,
        /// The entry existed but had expired (R27, R32).
        expired: bool,
    },
    /// In back-off: refused until `died + in_force`.
    Refused {
        /// When the newest dead instance of that status stopped.
        died: SimTime,
        /// The delay in force.
        in_force: SimDuration,
    },
}

impl BackOffs {
    pub(crate) fn new(n: usize, curve: Option<(SimDuration, SimDuration)>) -> BackOffs {
        BackOffs {
            curve,
            entries: vec![None; n],
            deaths: vec![[None; 2]; n],
            killed: vec![None; n],
        }
    }

    /// The kubelet began to kill container `c` at `t` (a probe's kill, which a start follows in
    /// the same sync).
    pub(crate) fn kill(&mut self, c: usize, t: SimTime) {
        self.killed[c] = Some(t);
    }

    /// Whether the next decision for `c` is made in the sync of a kill.
    pub(super) fn in_kill_sync(&self, c: usize) -> bool {
        self.killed[c].is_some()
    }

    /// A process of container `c` ended at `t`.
    pub(crate) fn died(&mut self, c: usize, t: SimTime) {
        self.deaths[c] = [Some(t), self.deaths[c][0]];
    }

    /// The kubelet restarted: its entries are gone.
    pub(crate) fn forget(&mut self) {
        self.entries.fill(None);
    }

    /// `doBackOff` at `now` for container `c`, on the status the sync read: in a kill's sync,
    /// the status from before the kill, without the death the kill caused (R16). A start
    /// updates the entry; a refusal does not.
    pub(crate) fn decide(&mut self, c: usize, now: SimTime, start: bool) -> Option<Decision> {
        let read = self.killed[c].take().unwrap_or(now);
        let (initial, max) = self.curve?;
        let died = match self.deaths[c] {
            [Some(t), previous] if t >= read => previous,
            [newest, _] => newest,
        };
        let Some(died) = died else {
            return Some(Decision::NoDead);
        };
        let before = self.entries[c];
        if before.is_some_and(|(_, last)| now.saturating_since(last) > EXPIRY) {
            self.entries[c] = None;
        }
        let entry = self.entries[c];
        let live = entry.filter(|(_, last)| died.saturating_since(*last) <= EXPIRY);
        if let Some((in_force, _)) = live {
            if now.saturating_since(died) < in_force {
                return Some(Decision::Refused { died, in_force });
            }
        }
        let next = live.map_or(initial, |(b, _)| b.saturating_mul(2).min(max));
        if start {
            self.entries[c] = Some((next, now));
        }
        Some(Decision::Start {
            died,
            in_force: live.map(|(b, _)| b),
            next,
            expired: before.is_some() && live.is_none(),
        })
    }
}

/// The decision of a start that did not wait, in words.
fn judged(d: Decision, now: SimTime, initial: SimDuration) -> String {
    match d {
        Decision::NoDead => {
            "the status it read holds no earlier dead instance, so there is no back-off to judge (R30)"
                .to_owned()
        }
        Decision::Start {
            died,
            in_force: Some(b),
            next,
            ..
        } => format!(
            "the newest dead instance in the status it read stopped at t={}, {} before, not less than the {} back-off in force, so it need not wait (R30); the back-off {}",
            At(died),
            Took(now.saturating_since(died)),
            b.go(),
            if next == b {
                format!("stays at {}, its cap", next.go())
            } else {
                format!("is now {}", next.go())
            }
        ),
        Decision::Start {
            died,
            expired: true,
            next,
            ..
        } => format!(
            "its back-off entry was last updated more than 10 minutes before the death at t={}, so it has expired and starts again at {} (R27, R32)",
            At(died),
            next.go()
        ),
        Decision::Start { died, next, .. } => format!(
            "the death at t={} is the first the kubelet judges, so no back-off is in force yet; it starts at {} (R28, R30)",
            At(died),
            if next == initial {
                next.go().to_string()
            } else {
                format!("{}, its cap", next.go())
            }
        ),
        Decision::Refused { died, in_force } => format!(
            "the newest dead instance stopped at t={}, less than the {} back-off in force before",
            At(died),
            in_force.go()
        ),
    }
}

impl Story<'_> {
    /// The probes of container `c` that wait for their initial delay after a start (P29).
    fn delays(&self, c: usize) -> String {
        let spec = self.pod.container(c);
        let waits: Vec<(ProbeKind, i32)> = ProbeKind::ALL
            .into_iter()
            .filter_map(|k| {
                let p = spec.probe(k)?;
                (p.initial_delay_seconds() > 0).then(|| (k, p.initial_delay_seconds()))
            })
            .collect();
        let after_startup = spec.probe(ProbeKind::Startup).is_some()
            && waits.iter().any(|(k, _)| *k != ProbeKind::Startup);
        let also = if after_startup {
            ", and liveness and readiness wait for the startup probe to succeed as well (P30)"
        } else {
            ""
        };
        match waits.as_slice() {
            [] => String::new(),
            [(k, d)] => format!(
                "; its {k} probe does not run until initialDelaySeconds ({d}s) have passed since this start (P29){also}"
            ),
            _ => {
                let kinds: Vec<String> = waits.iter().map(|(k, _)| k.to_string()).collect();
                let each: Vec<String> = waits.iter().map(|(k, d)| format!("{k} {d}s")).collect();
                format!(
                    "; its {} probes do not run until their initialDelaySeconds ({}) have passed since this start (P29){also}",
                    kinds.join(" and "),
                    each.join(", ")
                )
            }
        }
    }

    pub(super) fn start(
        &mut self,
        w: &mut impl fmt::Write,
        item: Item,
        i: usize,
        c: usize,
        restart_count: u32,
    ) -> fmt::Result {
        let name = self.name(c).to_owned();
        let delays = self.delays(c);
        // A new container keeps the worker's run counters (P25).
        self.waiting[c] = false;
        self.restarts[c] = restart_count;
        if restart_count == 0 {
            let previous = self.trace.items[..i - 1]
                .iter()
                .any(|p| matches!(p.what, What::Start { c: sc, .. } if sc == c));
            if !previous {
                return self.step(
                    w,
                    item.t,
                    format_args!("{name} starts (its first instance){delays}"),
                );
            }
        }
        let same_sync = self.backoff.in_kill_sync(c);
        let decision = self.backoff.decide(c, item.t, true);
        let initial = self.backoff.curve.map_or(SimDuration::ZERO, |c| c.0);
        // When did the previous instance end, and was the start held back?
        let mut exit = None;
        let mut waited = None;
        let mut forgotten = false;
        for p in self.trace.items[..i - 1].iter().rev() {
            match p.what {
                What::KubeletRestart if waited.is_none() => forgotten = true,
                What::BackOff { c: bc, backoff } if bc == c && waited.is_none() && !forgotten => {
                    waited = Some(backoff);
                }
                What::Exit { c: ec, .. } if ec == c => {
                    exit = Some(p.t);
                    break;
                }
                What::Start { c: sc, .. } if sc == c => break,
                _ => {}
            }
        }
        let told = |d: Option<Decision>| {
            d.map_or_else(String::new, |d| format!(": {}", judged(d, item.t, initial)))
        };
        let how = match (exit, waited) {
            (Some(e), None) if forgotten => format!(
                "{} after the exit: the restarted kubelet has forgotten the back-off{}",
                Took(item.t.saturating_since(e)),
                told(decision)
            ),
            (Some(e), None) if e == item.t && same_sync => format!(
                "at once, in the same sync that saw it stop: the kubelet judges the back-off on the status it read before the kill, which still showed the container running (R16){}",
                told(decision)
            ),
            (Some(e), None) if same_sync => format!(
                "{} after the exit, in the sync that killed it: the kubelet judges the back-off on the status it read before the kill, which still showed the container running (R16){}",
                Took(item.t.saturating_since(e)),
                told(decision)
            ),
            (Some(e), Some(b)) => format!(
                "{} after the exit, once the {} back-off has expired{}",
                Took(item.t.saturating_since(e)),
                b.go(),
                decision.map_or_else(String::new, |d| match d {
                    Decision::Start {
                        next,
                        in_force: Some(b),
                        ..
                    } if next == b => format!(" (R30); the back-off stays at {}, its cap", next.go()),
                    Decision::Start { next, .. } => {
                        format!(" (R30); the back-off is now {}", next.go())
                    }
                    _ => String::new(),
                })
            ),
            (Some(e), None) => format!(
                "{} after the exit, at the next pod sync (the PLEG relists every second, R5){}",
                Took(item.t.saturating_since(e)),
                told(decision)
            ),
            (None, _) => "again".to_owned(),
        };
        self.step(
            w,
            item.t,
            format_args!("{name} starts again (restartCount {restart_count}) {how}{delays}"),
        )
    }

    /// A start refused by back-off: told once per wait, with the decision (R30).
    pub(super) fn refused(
        &mut self,
        w: &mut impl fmt::Write,
        i: usize,
        c: usize,
        backoff: SimDuration,
    ) -> fmt::Result {
        let items = &self.trace.items;
        let item = items[i - 1];
        if self.waiting[c] {
            return Ok(());
        }
        self.waiting[c] = true;
        // One step per wait: count the refusals until the next start.
        let refusals = items[i - 1..]
            .iter()
            .take_while(|n| !matches!(n.what, What::Start { c: sc, .. } if sc == c))
            .filter(|n| matches!(n.what, What::BackOff { c: bc, .. } if bc == c))
            .count();
        let why = match self.backoff.decide(c, item.t, false) {
            Some(Decision::Refused { died, in_force }) => format!(
                "the newest dead instance in the status it read stopped at t={}, only {} earlier, less than the {} back-off in force (R30)",
                At(died),
                Took(item.t.saturating_since(died)),
                in_force.go()
            ),
            _ => format!("its crash-loop back-off of {} is in force (R30)", backoff.go()),
        };
        let doubled = super::doublings(backoff);
        let growth = if doubled > 0 {
            format!(
                "; that back-off has doubled {doubled} time{} from the kubelet's initial value, once at each start it judged (R27, R28)",
                plural(u64::from(doubled))
            )
        } else {
            String::new()
        };
        let name = self.name(c).to_owned();
        self.step(
            w,
            item.t,
            format_args!(
                "the kubelet wants to start {name} again, but {why}{growth}; the status says CrashLoopBackOff (R34), and the start is refused {refusals} time{} until the back-off expires",
                plural(refusals as u64)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use probesim_core::KillReason;

    fn s(n: u64) -> SimTime {
        SimTime::from_secs(n)
    }

    fn d(n: u64) -> SimDuration {
        SimDuration::from_secs(n)
    }

    #[test]
    fn kubia_restarts_at_once_until_the_back_off_outgrows_its_cycle() {
        // R16, R27, R30: kubia dies every 110 s and restarts in the kill's sync, which judges
        // the death before; the back-off doubles from 10 s and first exceeds 110 s at 160 s.
        let mut b = BackOffs::new(1, Some((d(10), d(300))));
        b.kill(0, s(80));
        b.died(0, s(110));
        assert_eq!(b.decide(0, s(110), true), Some(Decision::NoDead));
        let mut next = Vec::new();
        for k in 2..=6 {
            let t = s(110 * k);
            b.kill(0, s(110 * k - 30));
            b.died(0, t);
            match b.decide(0, t, true) {
                Some(Decision::Start { died, next: n, .. }) => {
                    assert_eq!(died, s(110 * (k - 1)));
                    next.push(n.whole_secs());
                }
                other => panic!("restart {k}: {other:?}"),
            }
        }
        assert_eq!(next, [10, 20, 40, 80, 160]);
        b.kill(0, s(740));
        b.died(0, s(770));
        assert_eq!(
            b.decide(0, s(770), false),
            Some(Decision::Refused {
                died: s(660),
                in_force: d(160)
            })
        );
        // The start at 930 s: 160 s after the death at 770 s, not less than 160 s; capped.
        assert!(matches!(
            b.decide(0, s(930), true),
            Some(Decision::Start { next, in_force: Some(f), .. }) if next == d(300) && f == d(160)
        ));
    }

    /// The scenario files under `dir`, recursively.
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|x| x == "yaml") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_told_decisions_agree_with_the_engine_on_every_scenario() {
        // R16, R27–R32: followed from the trace, every refusal the engine made is told as a
        // refusal with the engine's back-off, and every start as a start.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut paths = Vec::new();
        files(&root, &mut paths);
        paths.sort();
        let (mut refusals, mut starts) = (0, 0);
        for path in &paths {
            let text = std::fs::read_to_string(path).expect("readable");
            let Ok(scenario) =
                probesim_scenario::scenario::Scenario::from_str(&text, &path.to_string_lossy())
            else {
                continue;
            };
            let Ok(run) = crate::render::trace_run(&scenario) else {
                continue;
            };
            let setting = crate::render::story_setting(&scenario, None);
            let mut b = BackOffs::new(run.trace.names.len(), setting.backoff);
            let mut started = vec![false; run.trace.names.len()];
            for item in &run.trace.items {
                let name = path.display();
                match item.what {
                    What::Exit { c, .. } => b.died(c, item.t),
                    What::Kill {
                        c,
                        reason: KillReason::LivenessProbe | KillReason::StartupProbe,
                        ..
                    } => b.kill(c, item.t),
                    What::KubeletRestart => b.forget(),
                    What::Start { c, .. } => {
                        if started[c] {
                            let d = b.decide(c, item.t, true);
                            assert!(
                                !matches!(d, Some(Decision::Refused { .. }) | None),
                                "{name} at {}: {d:?}",
                                item.t
                            );
                            starts += 1;
                        }
                        started[c] = true;
                    }
                    What::BackOff { c, backoff } => {
                        let d = b.decide(c, item.t, false);
                        assert!(
                            matches!(d, Some(Decision::Refused { in_force, .. }) if in_force == backoff),
                            "{name} at {}: {d:?}, the engine refused with {backoff}",
                            item.t
                        );
                        refusals += 1;
                    }
                    _ => {}
                }
            }
        }
        assert!(
            refusals > 20 && starts > 20,
            "{refusals} refusals, {starts} starts"
        );
    }

    #[test]
    fn an_entry_older_than_ten_minutes_starts_again_at_the_initial_value() {
        // R27, R32.
        let mut b = BackOffs::new(1, Some((d(10), d(300))));
        b.died(0, s(5));
        assert!(matches!(
            b.decide(0, s(6), true),
            Some(Decision::Start { .. })
        ));
        b.died(0, s(20));
        assert!(
            matches!(b.decide(0, s(40), true), Some(Decision::Start { next, .. }) if next == d(20))
        );
        b.died(0, s(700));
        assert!(matches!(
            b.decide(0, s(701), true),
            Some(Decision::Start { expired: true, next, .. }) if next == d(10)
        ));
    }
}
