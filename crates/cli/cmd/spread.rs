//! `probesim run --spread N` and `probesim check --timings N`: one scenario under many
//! timings ([`probesim_scenario::timing`]), spread over every core. The results are in timing
//! order whatever the number of threads.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};

use probesim_scenario::timing::Timing;

/// The number of threads: every core, at most one per job.
fn threads(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, NonZeroUsize::get)
        .min(jobs)
        .max(1)
}

/// `f` of every timing, in the timings' order, computed on every core (jobs handed out one at
/// a time, so that a slow timing does not hold a whole share back).
pub fn each_timing<T: Send>(timings: &[Timing], f: impl Fn(Timing) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads(timings.len()))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(t) = timings.get(i) else { break };
                        mine.push((i, f(*t)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
