//! The timings of a scenario that a real cluster may show: what `probesim run --spread N`,
//! `probesim check --timings N` and the library's timing strategy vary (docs/property-testing.md,
//! docs/cli.md#--spread).
//!
//! A [`Timing`] is one point of that space: the seed of the kubelet's jitter draws (with
//! `kubelet.jitter` on), the container start's phase on the probe workers' tick grid
//! (`phase`), and, under `timing: realistic`, the runtime's latencies within their documented
//! ranges ([`LATENCY_RANGES`], docs/semantics.md#latency-ranges) wherever the scenario leaves
//! them to the default. A new variation is a field here, drawn in [`timings`] and applied in
//! [`Timing::apply`].

use probesim_core::{SimDuration, SimTime};

use crate::scenario::{
    RuntimeKnobs, Scenario, TimingMode, DEFAULT_INIT_RUN, DEFAULT_KILL, DEFAULT_PULL_FIRST,
    DEFAULT_PULL_THEN, DEFAULT_START,
};

/// One timing: the inputs that replay it on the command line (`--seed S --phase P --jitter`,
/// and `--runtime-start D` and friends for the latencies drawn away from their defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timing {
    /// The seed of the kubelet's random draws (`--seed`).
    pub seed: u64,
    /// The first container start's offset on the probe workers' tick grid (`--phase`).
    pub phase: SimDuration,
    /// The runtime's latencies this timing gives (`--runtime-start`, `--runtime-kill`,
    /// `--runtime-pull`, `--runtime-init-run`); `None` keeps the scenario's.
    pub runtime: RuntimeKnobs,
}

/// A runtime latency that the timings vary, with the range they draw it from
/// (docs/semantics.md#latency-ranges). The realistic default lies inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencyRange {
    /// What the spread's header calls it (`container start`).
    pub name: &'static str,
    /// Its key in the spread's JSON (`start`: `startMs` and `latencyRangesMs.start`).
    pub key: &'static str,
    /// The shortest.
    pub min: SimDuration,
    /// The longest.
    pub max: SimDuration,
    /// The draws are multiples of this (round values keep the replay lines readable).
    pub step: SimDuration,
    /// The single value `timing: realistic` gives it.
    pub default: SimDuration,
}

impl LatencyRange {
    /// `container start 50ms-600ms`.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "{} {}-{}",
            self.name,
            probesim_script::format_duration(self.min),
            probesim_script::format_duration(self.max)
        )
    }

    /// The width of the range: how far apart two timings' values may lie.
    #[must_use]
    pub fn width(&self) -> SimDuration {
        self.max.saturating_sub(self.min)
    }

    /// The value of timing `i` of the space of `seed`: a multiple of `step` drawn uniformly in
    /// `[min, max]`, a draw of its own for each range (`salt`).
    fn draw(&self, seed: u64, i: u64, salt: u64) -> SimDuration {
        let step = self.step.as_millis().max(1);
        let (min, max) = (self.min.as_millis(), self.max.as_millis());
        let steps = max.saturating_sub(min) / step + 1;
        SimDuration::from_millis(min + (mix(mix(seed ^ mix(i)) ^ salt) % steps) * step)
    }
}

/// `runtime.start`: create and start (docs/semantics.md#latency-ranges).
pub const START_RANGE: LatencyRange = LatencyRange {
    name: "container start",
    key: "start",
    min: SimDuration::from_millis(50),
    max: SimDuration::from_millis(600),
    step: SimDuration::from_millis(10),
    default: DEFAULT_START,
};
/// `runtime.kill`: from the stop to the signal's delivery.
pub const KILL_RANGE: LatencyRange = LatencyRange {
    name: "kill delivery",
    key: "kill",
    min: SimDuration::from_millis(5),
    max: SimDuration::from_millis(100),
    step: SimDuration::from_millis(5),
    default: DEFAULT_KILL,
};
/// The first pull of an image the node does not have (`runtime.pull`'s first).
pub const PULL_FIRST_RANGE: LatencyRange = LatencyRange {
    name: "first pull",
    key: "pullFirst",
    min: SimDuration::from_millis(500),
    max: SimDuration::from_secs(3),
    step: SimDuration::from_millis(100),
    default: DEFAULT_PULL_FIRST,
};
/// A pull of an image the node has (`runtime.pull`'s then).
pub const PULL_THEN_RANGE: LatencyRange = LatencyRange {
    name: "later pull",
    key: "pullThen",
    min: SimDuration::from_millis(200),
    max: SimDuration::from_secs(1),
    step: SimDuration::from_millis(100),
    default: DEFAULT_PULL_THEN,
};
/// `runtime.initRun`: how long a plain init container runs.
pub const INIT_RUN_RANGE: LatencyRange = LatencyRange {
    name: "init run",
    key: "initRun",
    min: SimDuration::from_millis(200),
    max: SimDuration::from_secs(2),
    step: SimDuration::from_millis(100),
    default: DEFAULT_INIT_RUN,
};

/// Every latency the timings vary, in the order they are listed and drawn.
pub const LATENCY_RANGES: [LatencyRange; 5] = [
    START_RANGE,
    KILL_RANGE,
    PULL_FIRST_RANGE,
    PULL_THEN_RANGE,
    INIT_RUN_RANGE,
];

/// SplitMix64: a well-mixed 64-bit value of `x` (the same on every platform).
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Which of the runtime's latencies a scenario's timings vary: those its timing gives the
/// realistic default to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Varied {
    /// `runtime.start`.
    pub start: bool,
    /// `runtime.kill`.
    pub kill: bool,
    /// The pulls of the containers whose `apps` entry sets none.
    pub pull: bool,
    /// The run of the plain init containers (no `exit:`).
    pub init_run: bool,
}

impl Varied {
    /// What `scenario`'s timings vary: under `timing: realistic`, every latency the scenario
    /// (file, `--runtime-*`) leaves to its default and that some container takes; under
    /// `timing: exact`, none (its zero latencies are what that timing is for).
    #[must_use]
    pub fn of(scenario: &Scenario) -> Varied {
        if scenario.timing != TimingMode::Realistic {
            return Varied::default();
        }
        let base = &scenario.timing_base;
        let defaulted_pull = base
            .apps
            .iter()
            .zip(&base.written)
            .any(|(app, written)| !written.pull && !app.pulls());
        let plain_init = scenario
            .pod
            .init_containers
            .iter()
            .zip(&base.apps)
            .any(|(c, app)| !c.restartable && app.exit.is_none());
        Varied {
            start: base.runtime.start.is_none(),
            kill: base.runtime.kill.is_none(),
            pull: base.runtime.pull.is_none() && defaulted_pull,
            init_run: base.runtime.init_run.is_none() && plain_init,
        }
    }

    /// The latencies of timing `i` of the space of `seed`, drawn where varied.
    #[must_use]
    pub fn draw(&self, seed: u64, i: u64) -> RuntimeKnobs {
        let at = |on: bool, k: usize| on.then(|| LATENCY_RANGES[k].draw(seed, i, k as u64 + 1));
        RuntimeKnobs {
            start: at(self.start, 0),
            kill: at(self.kill, 1),
            pull: at(self.pull, 2).map(|first| (first, at(true, 3))),
            init_run: at(self.init_run, 4),
        }
    }
}

impl Timing {
    /// A timing of a seed and a phase that leaves the runtime's latencies as the scenario has
    /// them.
    #[must_use]
    pub const fn new(seed: u64, phase: SimDuration) -> Timing {
        Timing {
            seed,
            phase,
            runtime: RuntimeKnobs {
                start: None,
                kill: None,
                pull: None,
                init_run: None,
            },
        }
    }

    /// Timing number `i` of the space derived from `seed`: seed `seed + i` (short to type in
    /// a replay; the engine's generator mixes it), and a phase drawn uniformly in whole
    /// milliseconds in `[0, period)` (zero when `period` is zero); no latencies ([`timings`]
    /// adds those a scenario varies). Deterministic: the same `seed` and `i` give the same
    /// timing everywhere.
    #[must_use]
    pub fn draw(seed: u64, i: u64, period: SimDuration) -> Timing {
        let own = seed.wrapping_add(i);
        let ms = period.as_millis();
        let phase = if ms == 0 { 0 } else { mix(seed ^ mix(i)) % ms };
        Timing::new(own, SimDuration::from_millis(phase))
    }

    /// The timing's inputs set on `scenario`: its seed, its phase, the kubelet's jitter drawn
    /// from the seed, and each latency it gives that the scenario leaves to its default (one
    /// the scenario sets, in its file or with `--runtime-*`, stays as it is).
    pub fn apply(&self, scenario: &mut Scenario) {
        scenario.seed = self.seed;
        scenario.phase = self.phase;
        let runtime = left_to_default(scenario, self.runtime);
        scenario.set_runtime(&runtime);
        scenario.kubelet.jitter = true;
    }

    /// The ranges of the latencies this timing gives, in [`LATENCY_RANGES`] order.
    #[must_use]
    pub fn latency_ranges(&self) -> Vec<LatencyRange> {
        let r = self.runtime;
        let given = [
            r.start.is_some(),
            r.kill.is_some(),
            r.pull.is_some(),
            r.pull.is_some_and(|(_, then)| then.is_some()),
            r.init_run.is_some(),
        ];
        LATENCY_RANGES
            .into_iter()
            .zip(given)
            .filter_map(|(range, on)| on.then_some(range))
            .collect()
    }

    /// The latencies this timing gives, in milliseconds, with their [`LatencyRange::key`]s.
    #[must_use]
    pub fn latencies_ms(&self) -> Vec<(&'static str, u64)> {
        let r = self.runtime;
        let values = [
            r.start,
            r.kill,
            r.pull.map(|(first, _)| first),
            r.pull.and_then(|(_, then)| then),
            r.init_run,
        ];
        LATENCY_RANGES
            .iter()
            .zip(values)
            .filter_map(|(range, v)| v.map(|d| (range.key, d.as_millis())))
            .collect()
    }

    /// The command-line options that replay the timing: `--seed S --phase P --jitter`, then
    /// each latency it gives that differs from the realistic default (`--runtime-start 183ms`,
    /// `--runtime-pull '1.2s then 400ms'`). Under `timing: realistic` the latencies left out
    /// take their defaults, so the line replays the timing exactly.
    #[must_use]
    pub fn replay(&self) -> String {
        format!(
            "--seed {} --phase {} --jitter{}",
            self.seed,
            probesim_script::format_duration(self.phase),
            runtime_flags(&self.runtime, true)
        )
    }
}

/// The latencies of `knobs` that `scenario` leaves to its default (one it sets, in its file or
/// with `--runtime-*`, is dropped): what a timing's latencies change of it.
#[must_use]
pub fn left_to_default(scenario: &Scenario, knobs: RuntimeKnobs) -> RuntimeKnobs {
    let set = scenario.timing_base.runtime;
    RuntimeKnobs {
        start: knobs.start.filter(|_| set.start.is_none()),
        kill: knobs.kill.filter(|_| set.kill.is_none()),
        pull: knobs.pull.filter(|_| set.pull.is_none()),
        init_run: knobs.init_run.filter(|_| set.init_run.is_none()),
    }
}

/// The options that give `knobs` (` --runtime-start 183ms --runtime-pull '1.2s then 400ms'`,
/// each with a leading space), leaving out, when `omit_defaults`, each one equal to its
/// realistic default (right only under `timing: realistic`, which gives those).
#[must_use]
pub fn runtime_flags(knobs: &RuntimeKnobs, omit_defaults: bool) -> String {
    let d = probesim_script::format_duration;
    let mut out = String::new();
    for (flag, value, default) in [
        ("--runtime-start", knobs.start, DEFAULT_START),
        ("--runtime-kill", knobs.kill, DEFAULT_KILL),
    ] {
        if let Some(v) = value.filter(|v| !omit_defaults || *v != default) {
            out.push_str(&format!(" {flag} {}", d(v)));
        }
    }
    let default_pull = (DEFAULT_PULL_FIRST, Some(DEFAULT_PULL_THEN));
    if let Some((first, then)) = knobs.pull.filter(|p| !omit_defaults || *p != default_pull) {
        match then {
            Some(then) => out.push_str(&format!(" --runtime-pull '{} then {}'", d(first), d(then))),
            None => out.push_str(&format!(" --runtime-pull {}", d(first))),
        }
    }
    if let Some(v) = knobs
        .init_run
        .filter(|v| !omit_defaults || *v != DEFAULT_INIT_RUN)
    {
        out.push_str(&format!(" --runtime-init-run {}", d(v)));
    }
    out
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

/// The first `n` timings of `scenario`'s space, derived from its seed: its jitter seeds,
/// phases in `[0, the longest probe period)`, and the latencies it varies ([`Varied::of`])
/// within their ranges. `run --spread N` and `check --timings N` both use these.
#[must_use]
pub fn timings(scenario: &Scenario, n: usize) -> Vec<Timing> {
    let period = longest_period(scenario);
    let varied = Varied::of(scenario);
    (0..n as u64)
        .map(|i| Timing {
            runtime: varied.draw(scenario.seed, i),
            ..Timing::draw(scenario.seed, i, period)
        })
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
    use crate::scenario::RuntimeKnobs;

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
        let t = Timing::new(42, SimDuration::from_millis(3250));
        assert_eq!(t.replay(), "--seed 42 --phase 3.25s --jitter");
    }

    /// A pod with an init container and a main container, neither with a pull of its own.
    const PODS: &str = "duration: 2m\npod:\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    initContainers:\n    - {name: setup, image: busybox:1.36}\n    containers:\n    - name: app\n      image: app:1.0\n      livenessProbe: {httpGet: {port: 8080}, periodSeconds: 5}\n";

    fn load(extra: &str) -> Scenario {
        let text = format!("{extra}{PODS}");
        Scenario::from_str(&text, "s.yaml").expect("loads")
    }

    fn ms(d: Option<SimDuration>) -> u64 {
        d.expect("drawn").as_millis()
    }

    #[test]
    fn realistic_timings_draw_every_latency_within_its_range_deterministically() {
        // docs/semantics.md#latency-ranges (R65, R66, R67): each latency the scenario leaves to
        // its default is drawn in its range, on its step, the same for the same seed.
        let s = load("timing: realistic\n");
        let a = timings(&s, 200);
        assert_eq!(a, timings(&s, 200));
        assert_eq!(
            &timings(&s, 20)[..],
            &a[..20],
            "a longer list starts the same"
        );
        let within = |v: u64, r: &LatencyRange| {
            v >= r.min.as_millis() && v <= r.max.as_millis() && v % r.step.as_millis() == 0
        };
        for t in &a {
            let r = t.runtime;
            let (first, then) = r.pull.expect("pull drawn");
            assert!(within(ms(r.start), &START_RANGE), "{t:?}");
            assert!(within(ms(r.kill), &KILL_RANGE), "{t:?}");
            assert!(within(first.as_millis(), &PULL_FIRST_RANGE), "{t:?}");
            assert!(within(ms(then), &PULL_THEN_RANGE), "{t:?}");
            assert!(within(ms(r.init_run), &INIT_RUN_RANGE), "{t:?}");
            assert_eq!(t.latency_ranges(), LATENCY_RANGES.to_vec());
        }
        // The draws cover each range, both ends included, and differ between latencies.
        for (k, range) in LATENCY_RANGES.iter().enumerate() {
            let values: Vec<u64> = a.iter().map(|t| t.latencies_ms()[k].1).collect();
            assert!(values.contains(&range.min.as_millis()), "{range:?}");
            assert!(values.contains(&range.max.as_millis()), "{range:?}");
        }
        assert_ne!(
            a.iter().map(|t| ms(t.runtime.start)).collect::<Vec<_>>(),
            a.iter().map(|t| ms(t.runtime.init_run)).collect::<Vec<_>>()
        );
        // The seeds and phases are those of `Timing::draw`, unchanged.
        for (i, t) in a.iter().enumerate() {
            let plain = Timing::draw(s.seed, i as u64, longest_period(&s));
            assert_eq!((t.seed, t.phase), (plain.seed, plain.phase));
        }
    }

    #[test]
    fn a_latency_the_scenario_sets_is_not_varied() {
        // The file's `runtime.start` and a container's own `pull` stay fixed; the rest varies.
        let s = load("timing: realistic\nruntime: {start: 1ms, initRun: 3s}\napps:\n  app: {pull: 2s}\n  setup: {pull: 1s}\n");
        assert_eq!(
            Varied::of(&s),
            Varied {
                start: false,
                kill: true,
                pull: false,
                init_run: false
            }
        );
        for t in timings(&s, 20) {
            assert_eq!(
                (t.runtime.start, t.runtime.pull, t.runtime.init_run),
                (None, None, None)
            );
            let mut run = s.clone();
            t.apply(&mut run);
            assert_eq!(run.kubelet.start_latency, SimDuration::from_millis(1));
            assert_eq!(run.kubelet.kill_latency, t.runtime.kill.expect("drawn"));
            assert_eq!(run.pod.containers[0].app.pull, SimDuration::from_secs(2));
            assert_eq!(
                run.pod.init_containers[0].app.pull,
                SimDuration::from_secs(1)
            );
            assert_eq!(
                run.pod.init_containers[0].app.exit.map(|e| e.after),
                Some(SimDuration::from_secs(3))
            );
        }
        // A timing made by hand that gives a latency the file sets leaves the file's value.
        let mut run = s.clone();
        Timing {
            runtime: RuntimeKnobs {
                start: Some(SimDuration::from_millis(400)),
                ..RuntimeKnobs::default()
            },
            ..Timing::new(1, SimDuration::ZERO)
        }
        .apply(&mut run);
        assert_eq!(run.kubelet.start_latency, SimDuration::from_millis(1));
    }

    #[test]
    fn exact_timings_keep_the_zero_latencies() {
        // Under `timing: exact` the timings vary the jitter and the phase only, as before.
        let s = load("timing: exact\n");
        assert_eq!(Varied::of(&s), Varied::default());
        let mut run = s.clone();
        for t in timings(&s, 10) {
            assert_eq!(t.runtime, RuntimeKnobs::default());
            assert_eq!(t.replay().matches("--runtime").count(), 0);
            t.apply(&mut run);
            assert_eq!(run.kubelet.start_latency, SimDuration::ZERO);
        }
    }

    #[test]
    fn the_replay_gives_each_latency_away_from_its_default_and_replays_the_timing() {
        // The replay's options, set as the command line sets them (`Scenario::set_runtime`),
        // give the same scenario as the timing applied.
        let t = Timing {
            runtime: RuntimeKnobs {
                start: Some(SimDuration::from_millis(480)),
                kill: Some(DEFAULT_KILL),
                pull: Some((
                    SimDuration::from_millis(1200),
                    Some(SimDuration::from_millis(300)),
                )),
                init_run: Some(SimDuration::from_millis(1700)),
            },
            ..Timing::new(3, SimDuration::from_millis(615))
        };
        assert_eq!(
            t.replay(),
            "--seed 3 --phase 615ms --jitter --runtime-start 480ms --runtime-pull '1.2s then 300ms' --runtime-init-run 1.7s"
        );
        let s = load("timing: realistic\n");
        let mut applied = s.clone();
        t.apply(&mut applied);
        let mut replayed = s.clone();
        replayed.seed = 3;
        replayed.phase = SimDuration::from_millis(615);
        replayed.set_runtime(&RuntimeKnobs {
            start: Some(SimDuration::from_millis(480)),
            pull: Some((
                SimDuration::from_millis(1200),
                Some(SimDuration::from_millis(300)),
            )),
            init_run: Some(SimDuration::from_millis(1700)),
            ..RuntimeKnobs::default()
        });
        replayed.kubelet.jitter = true;
        assert_eq!(applied.kubelet, replayed.kubelet);
        assert_eq!(applied.pod, replayed.pod);
        assert_eq!(applied.kubelet.kill_latency, DEFAULT_KILL);
    }
}
