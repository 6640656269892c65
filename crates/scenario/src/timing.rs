//! The timings of a scenario that a real cluster may show: what `probesim run --spread N`,
//! `probesim check --timings N` and the library's timing strategy vary (docs/property-testing.md,
//! docs/cli.md#--spread).
//!
//! A [`Timing`] is one point of that space: the seed of the kubelet's jitter draws (with
//! `kubelet.jitter` on) and the container start's phase on the probe workers' tick grid
//! (`phase`). It is the one place a new variation (runtime latencies within their ranges) is
//! added: a field here, drawn in [`Timing::draw`] and applied in [`Timing::apply`].

use probesim_core::{SimDuration, SimTime};

use crate::scenario::Scenario;

/// One timing: the inputs that replay it on the command line (`--seed S --phase P --jitter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timing {
    /// The seed of the kubelet's random draws (`--seed`).
    pub seed: u64,
    /// The first container start's offset on the probe workers' tick grid (`--phase`).
    pub phase: SimDuration,
}

/// SplitMix64: a well-mixed 64-bit value of `x` (the same on every platform).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Timing {
    /// Timing number `i` of the space derived from `seed`: seed `seed + i` (short to type in
    /// a replay; the engine's generator mixes it), and a phase drawn uniformly in whole
    /// milliseconds in `[0, period)` (zero when `period` is zero). Deterministic: the same
    /// `seed` and `i` give the same timing everywhere.
    #[must_use]
    pub fn draw(seed: u64, i: u64, period: SimDuration) -> Timing {
        let own = seed.wrapping_add(i);
        let ms = period.as_millis();
        let phase = if ms == 0 { 0 } else { mix(seed ^ mix(i)) % ms };
        Timing {
            seed: own,
            phase: SimDuration::from_millis(phase),
        }
    }

    /// The timing's inputs set on `scenario`: its seed, its phase, and the kubelet's jitter
    /// drawn from the seed.
    pub fn apply(&self, scenario: &mut Scenario) {
        scenario.seed = self.seed;
        scenario.phase = self.phase;
        scenario.kubelet.jitter = true;
    }

    /// The command-line options that replay the timing: `--seed S --phase P --jitter`.
    #[must_use]
    pub fn replay(&self) -> String {
        format!(
            "--seed {} --phase {} --jitter",
            self.seed,
            probesim_script::format_duration(self.phase)
        )
    }
}

/// The longest probe period of the scenario's pod (init containers included): the range the
/// start phase is drawn from. Zero for a pod without probes.
#[must_use]
pub fn longest_period(scenario: &Scenario) -> SimDuration {
    scenario
        .pod
        .all_containers()
        .flat_map(|c| probesim_core::ProbeKind::ALL.map(|k| c.probe(k)))
        .flatten()
        .map(probesim_core::ProbeSpec::period)
        .max()
        .unwrap_or(SimDuration::ZERO)
}

/// The first `n` timings of `scenario`'s space, derived from its seed: its jitter seeds, and
/// phases in `[0, the longest probe period)`.
#[must_use]
pub fn timings(scenario: &Scenario, n: usize) -> Vec<Timing> {
    let period = longest_period(scenario);
    (0..n as u64)
        .map(|i| Timing::draw(scenario.seed, i, period))
        .collect()
}

/// An instant as the timelines write it (`12m3.5s`).
#[must_use]
pub fn instant(t: SimTime) -> String {
    probesim_script::format_duration(t.saturating_since(SimTime::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_are_deterministic_distinct_and_within_the_period() {
        let period = SimDuration::from_secs(10);
        let a: Vec<Timing> = (0..50).map(|i| Timing::draw(7, i, period)).collect();
        let b: Vec<Timing> = (0..50).map(|i| Timing::draw(7, i, period)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|t| t.phase < period));
        let seeds: std::collections::BTreeSet<u64> = a.iter().map(|t| t.seed).collect();
        assert_eq!(seeds.len(), 50);
        // The phases cover the period, not one corner of it.
        assert!(a.iter().any(|t| t.phase < SimDuration::from_secs(3)));
        assert!(a.iter().any(|t| t.phase > SimDuration::from_secs(7)));
        assert_ne!(Timing::draw(8, 0, period), a[0]);
        assert_eq!(
            Timing::draw(7, 0, SimDuration::ZERO).phase,
            SimDuration::ZERO
        );
    }

    #[test]
    fn a_timing_replays_with_seed_phase_and_jitter() {
        let t = Timing {
            seed: 42,
            phase: SimDuration::from_millis(3250),
        };
        assert_eq!(t.replay(), "--seed 42 --phase 3.25s --jitter");
    }
}
