//! Our probe configuration, proven over every start-up time, hang time, tick phase and seed.

use std::sync::OnceLock;

use probesim::strategy::{seconds, seed};
use probesim::{KillCause, Prepared, SimDuration, Test};
use proptest::prelude::*;

/// The web Deployment, read once for all the cases; its app answers every probe on port 8080
/// (each case gives the script).
fn deployment() -> &'static Prepared {
    static WEB: OnceLock<Prepared> = OnceLock::new();
    WEB.get_or_init(|| {
        Test::manifest("deploy/web.yaml")
            .and_then(|t| {
                t.select("Deployment/web")
                    .container("web")
                    .endpoint(":8080", "ok")
                    .prepare()
            })
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// One case: the app answering with `script`.
fn web(script: &str, seed: u64, horizon: SimDuration) -> Result<probesim::Run, probesim::Error> {
    deployment()
        .case()
        .endpoint(":8080", script)
        .seed(seed)
        .horizon_of(horizon)
        .run()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// An app that needs up to 90 s to start is never killed.
    #[test]
    fn a_slow_start_is_never_killed(
        start_ms in 0_u64..=90_000,
        seed in seed(),
    ) {
        let start = SimDuration::from_millis(start_ms);
        let script = format!("refused for {} then ok", probesim::format_duration(start));
        let run = web(&script, seed, SimDuration::from_secs(300))?;
        run.ensure(
            run.kills().is_empty(),
            format!("starting in {start_ms} ms got it killed: {:?}", run.first_kill()),
        )?;
        run.ensure(run.time_to_ready().is_some(), "it never became Ready")?;
    }

    /// A hang is detected within 45 s: the liveness probe kills the container.
    #[test]
    fn a_hang_is_detected_within_45s(
        hang_at in seconds(10..=600),
        offset_ms in 0_u64..1000,
        seed in seed(),
    ) {
        let hang_at = hang_at.saturating_add(SimDuration::from_millis(offset_ms));
        let script = format!("ok for {} then timeout", probesim::format_duration(hang_at));
        let run = web(&script, seed, hang_at.saturating_add(SimDuration::from_secs(60)))?;
        let kill = run.first_kill();
        run.ensure(
            kill.as_ref().is_some_and(|k| {
                k.cause == KillCause::Liveness
                    && k.at.saturating_since(probesim::SimTime::ZERO) <= hang_at.saturating_add(SimDuration::from_secs(45))
            }),
            format!("hung at {hang_at}, first kill {kill:?}"),
        )?;
    }
}
