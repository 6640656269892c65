//! The churn of a finished container's probe workers (docs/semantics.md#finished-workers):
//! AddPod re-creates them at every sync, and each sync probes a not-ready sibling.

use core::fmt;

use probesim_core::{ProbeKind, ProbeResult, SimDuration, SimTime};

use super::{Story, Took, What};

impl Story<'_> {
    /// Whether the `Result` at item `j` comes from a worker created again after its container
    /// exited: a worker stores a value only when it changes, and once it has stored Failure for
    /// the exited container (P27) it probes no more, so a result of the same probe after that
    /// Failure, with no start and no kubelet restart between, is a new worker's
    /// (docs/semantics.md#finished-workers).
    pub(super) fn recreated(&self, j: usize) -> bool {
        let What::Result { c, probe, .. } = self.trace.items[j].what else {
            return false;
        };
        let mut earlier = false;
        for item in self.trace.items[..j].iter().rev() {
            match item.what {
                What::Result {
                    c: rc,
                    probe: rp,
                    result: ProbeResult::Failure,
                } if rc == c && rp == probe => earlier = true,
                What::Exit { c: ec, .. } if ec == c => return earlier,
                What::Start { c: sc, .. } if sc == c => return false,
                What::KubeletRestart => return false,
                _ => {}
            }
        }
        false
    }

    /// The step that tells why a finished container's workers come back at every sync (P7,
    /// P20, P27, R4) and what that does to its siblings (P45).
    pub(super) fn churn_step(
        &mut self,
        w: &mut impl fmt::Write,
        t: SimTime,
        c: usize,
        probe: ProbeKind,
    ) -> fmt::Result {
        let name = self.name(c).to_owned();
        let siblings: Vec<String> = (0..self.trace.names.len())
            .filter(|&o| o != c && self.pod.container(o).probe(ProbeKind::Readiness).is_some())
            .map(|o| self.name(o).to_owned())
            .collect();
        let triggers = if siblings.is_empty() {
            String::new()
        } else {
            format!(
                "; each of those syncs also triggers the readiness probe of every started container that is not Ready (P45), so {} is probed at every sync while it is not Ready",
                siblings.join(" and ")
            )
        };
        self.step(
            w,
            t,
            format_args!(
                "{name} will not run again, yet the pod sync creates its {probe} worker again: every sync calls AddPod, which finds the worker missing (P7); the new worker stores its results in a cache emptied when the old one exited (P20), so they ask for another sync, and it exits (P27); that sync waits for the next relist (R4): from here the kubelet syncs the pod once a second{triggers}"
            ),
        )
    }

    /// `, one every N` for a group of probes at `times`: their spacing when it is even (else
    /// the probe's period), and why when a churn's syncs probe more often than the period.
    pub(super) fn every(&self, c: usize, probe: ProbeKind, times: &[SimTime]) -> String {
        let period = self.period(c, probe);
        let period_ms = u64::try_from(period).unwrap_or(0).saturating_mul(1000);
        let gaps: Vec<u64> = times
            .windows(2)
            .map(|p| p[1].saturating_since(p[0]).as_millis())
            .collect();
        let even = gaps.windows(2).all(|g| g[0] == g[1]);
        match gaps.first() {
            Some(&gap) if even && gap > 0 && gap < period_ms && self.churn.iter().any(|&b| b) => {
                format!(
                    ", one every {} (not every {period}s: each sync of the re-created workers above triggers it, P45)",
                    Took(SimDuration::from_millis(gap))
                )
            }
            _ => format!(", one every {period}s"),
        }
    }
}
