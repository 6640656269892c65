//! probesim as a library, for property tests of your own probe configurations.
//!
//! Add it as a dev-dependency (without its default `cli` feature it needs none of the command
//! line's crates), load your manifest, say how the app behaves, simulate, and question the run
//! in the kubelet's words: kills and their causes, restarts, readiness, the status at any
//! instant. The same input and seed give the same run, byte for byte.
//!
//! ```
//! use probesim::{KillCause, KillReason, ProbeKind, Test};
//!
//! let manifest = "\
//! apiVersion: v1
//! kind: Pod
//! metadata: {name: web}
//! spec:
//!   containers:
//!   - name: web
//!     image: nginx
//!     livenessProbe: {httpGet: {port: 8080, path: /healthz}, periodSeconds: 10}
//! ";
//! // Nothing listens on 8080 for its first 90 seconds: liveness kills it.
//! let run = Test::manifest_text(manifest, "web.yaml")
//!     .endpoint(":8080", "refused for 90s then ok")
//!     .horizon("2m")
//!     .run()?;
//! let kill = run.first_kill().expect("a kill");
//! assert_eq!(kill.cause, KillCause::Liveness);
//! assert_eq!(kill.reason, KillReason::LivenessProbe);
//! assert!(kill.at.whole_secs() <= 40);
//! // Restarts as the runtime starts them; restartCount as `kubectl get` shows it.
//! assert!(!run.restarts("web").is_empty() && run.restart_count("web") >= 1);
//!
//! // A closure may answer instead of a script.
//! let run = Test::manifest_text(manifest, "web.yaml")
//!     .behaviour(ProbeKind::Liveness, |_: &probesim::Attempt| probesim::Response::now(probesim::Answer::Ok))
//!     .horizon("2m")
//!     .run()?;
//! assert!(run.kills().is_empty());
//! # Ok::<(), probesim::Error>(())
//! ```
//!
//! [`Run::figures`] gives the analysis figures of `probesim analyze` for the run's pod (start-up
//! budget, hang detection, readiness, crash loop), each a [`Figure`] whose `min` and `max`
//! carry the phase that produced them.
//!
//! Errors are [`Error`] values whose `Display` is what `probesim run` prints for the same
//! input. A closure that panics does not unwind through [`Test::run`]: the panic is caught
//! and the run ends with an [`ErrorKind::Closure`] error naming the closure (its probe and
//! container), as it does for an answer the probe cannot give (an exit code to an HTTP probe,
//! HTTP status 0 or 65535, `Serving` to a TCP probe), which the behaviour language refuses too. With the `proptest` feature, `strategy` holds strategies for pods, probes,
//! scripts, phases and seeds, and a failed [`Run::ensure`] (a [`Failure`]) becomes a failing
//! case that prints the scenario file replaying it. See `docs/property-testing.md`.
//!
//! A run that repeats (a crash loop at its back-off cap, a healthy pod) is fast-forwarded as
//! `probesim run --format summary` is: ten simulated years keep one cycle of happenings, and
//! the queries still see every cycle. Events simulated one by one are limited as the command
//! line's listings are ([`Test::event_limit`]); past the limit the run ends with an
//! [`ErrorKind::Limit`] error.
//!
//! Paths are relative to the current directory, which `cargo test` sets to the root of the
//! crate whose tests run. Reading the files a test names is the library's only I/O.

#![warn(missing_docs)]

mod error;
mod files;
mod guard;
pub mod input;
pub mod manifest;
mod prepared;
mod run;
#[cfg(feature = "proptest")]
pub mod strategy;
mod test;
mod timeline;

pub use error::{Error, ErrorKind};
pub use prepared::{Case, Prepared};
/// The analysis figures' types ([`Run::figures`]): [`figures::ContainerFigures`], each
/// [`figures::Figure`] a `min` and `max` [`figures::Extreme`] with the [`figures::GridPhase`]
/// (where the start fell in the tick cycle) that produced it.
pub use probesim_analysis::figure as figures;
pub use probesim_analysis::figure::{ContainerFigures, Extreme, Figure};
pub use run::{Failure, Interval, Kill, Run, Status};
pub use test::Test;

pub use probesim_scenario::scenario::TimingMode;
pub use probesim_scenario::timing::Timing;

pub use probesim_core::{
    Answer, Attempt, Behaviour, ContainerState, ContainerStatus, Drawing, Draws, HandlerFamily,
    KillCause, KillReason, Phase, PodStatus, ProbeKind, Response, SimDuration, SimTime,
};
pub use probesim_script::{format_duration, parse_duration, Script};
