//! Strategies that generate only valid values: durations, outcomes, steps and scripts that the
//! parser accepts (statuses 100–599, exit codes 0–255, non-zero counts, and no `repeat` script
//! that can loop without time passing), random outcomes whose shares add up to 100% and
//! latency ranges that run forwards.

use core::num::NonZeroU64;

use ::proptest::prelude::*;
use probesim_core::{Answer, HandlerFamily, SimDuration};

use crate::choice::{Choice, MAX_ALTERNATIVES, WHOLE};
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
pub fn answer() -> impl Strategy<Value = Answer> + Clone {
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
pub fn answer_for(family: HandlerFamily) -> impl Strategy<Value = Answer> + Clone {
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

/// Random outcomes (`(99% 200 | 1% timeout)`): two to [`MAX_ALTERNATIVES`] alternatives whose
/// shares add up to 100%. Shrinks towards two alternatives at even shares.
pub fn choice_from(answer: impl Strategy<Value = Answer> + Clone) -> impl Strategy<Value = Choice> {
    prop::collection::vec((answer, 1_u16..=100), 2..=MAX_ALTERNATIVES).prop_map(|alternatives| {
        // Weights become shares of the whole, the rounding left over going to the first.
        let total: u32 = alternatives.iter().map(|&(_, w)| u32::from(w)).sum();
        let mut shares: Vec<(u16, Answer)> = alternatives
            .iter()
            .map(|&(a, w)| {
                let share = u32::from(w) * u32::from(WHOLE) / total;
                (u16::try_from(share.max(1)).unwrap_or(1), a)
            })
            .collect();
        let sum: u32 = shares.iter().map(|&(s, _)| u32::from(s)).sum();
        let first = u32::from(shares[0].0) + u32::from(WHOLE);
        shares[0].0 = u16::try_from(first.saturating_sub(sum)).unwrap_or(1).max(1);
        Choice::weighted(&shares).unwrap_or_else(|| Choice::one(alternatives[0].0))
    })
}

fn step_from(answer: impl Strategy<Value = Answer> + Clone) -> impl Strategy<Value = Step> {
    let latency = prop_oneof![
        3 => Just((SimDuration::ZERO, SimDuration::ZERO)),
        1 => duration().prop_map(|d| (d, d)),
        1 => (duration(), duration()).prop_map(|(a, b)| (a.min(b), a.max(b))),
    ];
    let limit = prop::option::of(prop_oneof![
        duration().prop_map(Limit::For),
        duration().prop_map(Limit::Until),
    ]);
    let choice = prop_oneof![
        4 => answer.clone().prop_map(Choice::one),
        1 => choice_from(answer),
    ];
    (prop::option::of(count()), choice, latency, limit).prop_map(
        |(count, choice, (low, high), limit)| {
            Step::new(count, choice.first(), low, limit)
                .with_choice(choice)
                .with_latency_range(low, high)
        },
    )
}

/// Any valid script of one to five steps.
pub fn script() -> impl Strategy<Value = Script> {
    script_from(answer(), true)
}

/// Valid scripts whose every outcome can answer a probe with that handler.
pub fn script_for(family: HandlerFamily) -> impl Strategy<Value = Script> {
    // P63: only exec and httpGet probes show a printed text.
    let texts = matches!(family, HandlerFamily::Exec | HandlerFamily::Http);
    script_from(answer_for(family), texts)
}

fn script_from(
    answer: impl Strategy<Value = Answer> + Clone,
    texts: bool,
) -> impl Strategy<Value = Script> {
    (
        any::<bool>(),
        prop::collection::vec(step_from(answer), 1..6),
        any::<bool>(),
    )
        .prop_filter(
            "a repeat script must let requests or time pass",
            |(_, steps, repeat)| !Script::can_spin(steps, *repeat),
        )
        .prop_flat_map(move |(pod_scoped, steps, repeat)| {
            // P63: some steps print a text, with quotes, backslashes and line breaks among it.
            let len = if texts { steps.len() } else { 0 };
            let texts = prop::collection::vec(prop::option::of(text()), len);
            (Just(pod_scoped), Just(steps), Just(repeat), texts)
        })
        .prop_map(|(pod_scoped, steps, repeat, printed)| {
            let outcomes = vec![vec![Span::default(); MAX_ALTERNATIVES]; steps.len()];
            let mut texts = Vec::new();
            let steps = steps
                .into_iter()
                .zip(printed.iter().chain(core::iter::repeat(&None)))
                .map(|(step, text)| {
                    let index = text.as_ref().map(|t| {
                        texts.push(t.clone().into_boxed_str());
                        u32::try_from(texts.len() - 1).unwrap_or(u32::MAX)
                    });
                    step.with_text(index)
                })
                .collect();
            let spans = vec![None; outcomes.len()];
            Script::from_parts(pod_scoped, steps, repeat, outcomes).with_texts(texts, spans)
        })
}

/// A text a step may print: short, of any characters, quotes, backslashes and controls among
/// them.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z :/'\"\\\\\n\t\r]{0,12}",
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
}
