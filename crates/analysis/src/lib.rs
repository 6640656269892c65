//! probesim-analysis: answers about a probe configuration, computed with the engine.
//!
//! Teams size probes with `periodSeconds × failureThreshold` and get it wrong: that product
//! ignores where the tick grid falls against the container start, timeouts, the truncated
//! initial delay, the startup handover, grace periods and back-off. This crate answers the
//! questions exactly, by simulation: every figure comes from runs of the real engine
//! ([`probesim_core::Simulation`]) over every phase the profile allows, never from a separate
//! formula that could disagree with it.
//!
//! - [`analyze`]: the figures of each container ([`figure::ContainerFigures`]): the start-up
//!   budget, hang detection and recovery, readiness delays and crash-loop timing, each as
//!   `min`/`max` with the phase that produced it.
//! - [`finding`]: lint findings with stable ids, including timing findings only a simulator
//!   can make.
//! - [`fix`]: a change for a finding, simulated before it is offered, with its measured effect.
//! - [`requirement`]: `--require` expressions over the figures, for CI.
//! - [`recommend`]: a search for the simplest probe settings meeting requirements.
//! - [`robust`]: readiness failing alone, and whether a blip or a stall kills or turns the pod
//!   not Ready, for the recommender's robustness requirements.
//! - [`shift`]: the change trials shifted against the periodic resync.
//! - [`sweep`]: runs many simulation jobs on every core, results in job order.
//! - [`report`]: text, JSON and SARIF renderings.
//!
//! Like the engine it is pure: no I/O, no clock, no environment. The only concurrency is
//! [`sweep::Sweep`], which spreads independent simulations over threads the caller asks for.

#![warn(missing_docs)]

pub mod analyze;
pub mod figure;
pub mod finding;
pub mod fix;
pub mod recommend;
pub mod report;
pub mod requirement;
pub mod robust;
pub mod shift;
pub mod subject;
pub mod sweep;
pub mod trial;
