//! proptest strategies (feature `proptest`): valid probe specs, containers and pods, behaviour
//! scripts (random outcomes and latency ranges included), tick phases and seeds. Every one
//! shrinks towards small, readable values: the API defaults, short round durations, seed 0,
//! phase 0, the first listed alternative.
//!
//! A generated pod comes as a [`PodCase`]: the pod, a script for each of its probes, and the
//! [`Test`] that simulates them through the same manifest reader as a user's file, so a case
//! that fails prints a scenario file `probesim run` replays ([`Run::ensure`](crate::Run::ensure)).

use core::ops::RangeInclusive;

use proptest::prelude::*;

use probesim_core::{PodSpec, ProbeKind, SimDuration};
use probesim_script::Script;

use crate::manifest::{app_args, pod_manifest};
use crate::test::Test;

pub use probesim_core::proptest::{
    app_spec, container, handler, init_containers, probe_spec, probe_timing, sidecar,
};
pub use probesim_script::proptest::{
    answer, answer_for, choice_from, count, duration, script, script_for, step,
};

/// Any seed; shrinks towards 0. The seed decides the probes' start-up jitter, hence the phase
/// of their ticks against the app's clock, and every random outcome.
pub fn seed() -> impl Strategy<Value = u64> {
    any::<u64>()
}

/// A phase within one probe period, to the millisecond: an offset in `[0, period)` to add to
/// the times of a behaviour so that its changes fall anywhere between two ticks. Shrinks
/// towards 0.
pub fn phase(period: SimDuration) -> impl Strategy<Value = SimDuration> {
    (0..period.as_millis().max(1)).prop_map(SimDuration::from_millis)
}

/// A timing of the space `probesim run --spread` explores ([`Test::timing`]): any seed for
/// the kubelet's jitter draws, and a start phase in `[0, period)` (pass the longest probe
/// period of the pod). Shrinks towards seed 0, phase 0.
pub fn timing(period: SimDuration) -> impl Strategy<Value = crate::Timing> {
    (seed(), phase(period)).prop_map(|(seed, phase)| crate::Timing { seed, phase })
}

/// Whole seconds in `range`; shrinks towards its start.
pub fn seconds(range: RangeInclusive<u64>) -> impl Strategy<Value = SimDuration> {
    range.prop_map(SimDuration::from_secs)
}

/// A generated pod with a script for every probe.
#[derive(Clone, Debug)]
pub struct PodCase {
    /// The pod after the API server's defaults.
    pub pod: PodSpec,
    /// `(container, probe, script)` for every probe, in container order.
    pub scripts: Vec<(String, ProbeKind, Script)>,
}

impl PodCase {
    /// The pod as a Pod manifest.
    #[must_use]
    pub fn manifest(&self) -> String {
        pod_manifest(&self.pod)
    }

    /// The test that simulates it: the manifest, each probe's script, each container's exit,
    /// SIGTERM and pull behaviour. Add a release, seed and horizon, then run it.
    #[must_use]
    pub fn test(&self) -> Test {
        let mut test = Test::manifest_text(&self.manifest(), "generated.yaml");
        for (flag, value) in app_args(&self.pod) {
            let (name, value) = value.split_once(": ").unwrap_or(("", &value));
            let t = test.container(name);
            test = match flag {
                "exit" => t.exit(value),
                "sigterm" => t.sigterm(value),
                _ => t.pull(value),
            };
        }
        for (container, probe, script) in &self.scripts {
            test = test.container(container).probe(*probe, &script.to_string());
        }
        test
    }
}

/// A valid pod (0–2 init containers, sidecars among them, 1–3 containers, 0–3 probes each)
/// with a script for each probe that fits its handler. preStop hooks are left out (a manifest
/// would need the hook itself).
pub fn pod() -> impl Strategy<Value = PodCase> {
    probesim_core::proptest::pod()
        .prop_map(|mut pod| {
            for c in pod.init_containers.iter_mut().chain(&mut pod.containers) {
                c.app.pre_stop = None;
            }
            pod
        })
        .prop_flat_map(|pod| {
            let probes: Vec<(String, ProbeKind, probesim_core::HandlerFamily)> = pod
                .init_containers
                .iter()
                .chain(&pod.containers)
                .flat_map(|c| {
                    ProbeKind::ALL.into_iter().filter_map(move |kind| {
                        c.probe(kind).map(|p| {
                            (
                                c.name.clone(),
                                kind,
                                probesim_core::proptest::family(p.handler()),
                            )
                        })
                    })
                })
                .collect();
            let scripts: Vec<_> = probes
                .into_iter()
                .map(|(name, kind, family)| {
                    script_for(family).prop_map(move |s| (name.clone(), kind, s))
                })
                .collect();
            (Just(pod), scripts)
        })
        .prop_map(|(pod, scripts)| PodCase { pod, scripts })
}
