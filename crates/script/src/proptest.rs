//! Strategies that generate only valid values: durations, outcomes, steps and scripts that the
//! parser accepts (statuses 100–599, exit codes 0–255, non-zero counts, and no `repeat` script
//! that can loop without time passing).

use core::num::NonZeroU64;

use ::proptest::prelude::*;
use probesim_core::{Answer, HandlerFamily, SimDuration};

use crate::parse::Span;
use crate::script::{Limit, Script, Step};

/// Durations, mostly short and round, sometimes any number of milliseconds up to
/// [`SimDuration::MAX`].
pub fn duration() -> impl Strategy<Value = SimDuration> {
    prop_oneof![
        4 => (0_u64..=120).prop_map(SimDuration::from_secs),
        2 => (0_u64..=10_000).prop_map(SimDuration::from_millis),
        1 => (0_u64..=48).prop_map(|h| SimDuration::from_secs(h * 3600)),
        1 => any::<u64>().prop_map(SimDuration::from_millis),
    ]
}

/// Any outcome the language can write.
pub fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        (100_u16..=599).prop_map(Answer::Status),
        Just(Answer::Ok),
        Just(Answer::Fail),
        Just(Answer::Open),
        Just(Answer::Refused),
        Just(Answer::Timeout),
        (0_i32..=255).prop_map(Answer::Exit),
        Just(Answer::Serving),
        Just(Answer::NotServing),
        Just(Answer::Unknown),
        Just(Answer::Error),
    ]
}

/// Outcomes that can answer a probe with that handler.
pub fn answer_for(family: HandlerFamily) -> impl Strategy<Value = Answer> {
    answer().prop_filter("the outcome must apply to the handler", move |a| {
        a.applies_to(family)
    })
}

/// Counts, mostly small.
pub fn count() -> impl Strategy<Value = NonZeroU64> {
    prop_oneof![9 => 1_u64..=10, 1 => 1_u64..=u64::MAX]
        .prop_map(|n| NonZeroU64::new(n).unwrap_or(NonZeroU64::MIN))
}

/// Any step.
pub fn step() -> impl Strategy<Value = Step> {
    step_from(answer())
}

fn step_from(answer: impl Strategy<Value = Answer>) -> impl Strategy<Value = Step> {
    let latency = prop_oneof![3 => Just(SimDuration::ZERO), 1 => duration()];
    let limit = prop::option::of(prop_oneof![
        duration().prop_map(Limit::For),
        duration().prop_map(Limit::Until),
    ]);
    (prop::option::of(count()), answer, latency, limit)
        .prop_map(|(count, answer, latency, limit)| Step::new(count, answer, latency, limit))
}

/// Any valid script of one to five steps.
pub fn script() -> impl Strategy<Value = Script> {
    script_from(answer())
}

/// Valid scripts whose every outcome can answer a probe with that handler.
pub fn script_for(family: HandlerFamily) -> impl Strategy<Value = Script> {
    script_from(answer_for(family))
}

fn script_from(answer: impl Strategy<Value = Answer>) -> impl Strategy<Value = Script> {
    (
        any::<bool>(),
        prop::collection::vec(step_from(answer), 1..6),
        any::<bool>(),
    )
        .prop_filter(
            "a repeat script must let requests or time pass",
            |(_, steps, repeat)| !Script::can_spin(steps, *repeat),
        )
        .prop_map(|(pod_scoped, steps, repeat)| {
            let outcomes = vec![Span::default(); steps.len()];
            Script::from_parts(pod_scoped, steps, repeat, outcomes)
        })
}
