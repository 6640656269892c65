//! Running many independent simulation jobs on every core, with results in job order.
//!
//! The engine is single-threaded and pure; a sweep only spreads whole jobs over threads
//! (`std::thread::scope`), each building its own [`Simulation`](probesim_core::Simulation).
//! The result order is the job order whatever the number of threads, so the figures are the
//! same on one core and on sixty-four.

use core::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How many threads a sweep uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    threads: NonZeroUsize,
}

impl Default for Sweep {
    fn default() -> Sweep {
        Sweep::single()
    }
}

impl Sweep {
    /// A sweep over `threads` threads (at least one). The caller decides: the command line
    /// passes the machine's available parallelism; the library reads nothing itself.
    #[must_use]
    pub fn new(threads: usize) -> Sweep {
        Sweep {
            threads: NonZeroUsize::new(threads).unwrap_or(NonZeroUsize::MIN),
        }
    }

    /// One thread: the jobs run in order on the caller's thread.
    #[must_use]
    pub fn single() -> Sweep {
        Sweep {
            threads: NonZeroUsize::MIN,
        }
    }

    /// The number of threads.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.threads.get()
    }

    /// Runs `f` on every job and returns the results in job order. Jobs are handed out one at a
    /// time, so uneven jobs still keep every thread busy.
    ///
    /// # Examples
    /// ```
    /// use probesim_analysis::sweep::Sweep;
    ///
    /// let squares = Sweep::new(4).run(&[1u64, 2, 3, 4, 5], |n| n * n);
    /// assert_eq!(squares, [1, 4, 9, 16, 25]);
    /// ```
    pub fn run<J, R, F>(&self, jobs: &[J], f: F) -> Vec<R>
    where
        J: Sync,
        R: Send,
        F: Fn(&J) -> R + Sync,
    {
        let threads = self.threads.get().min(jobs.len());
        if threads <= 1 {
            return jobs.iter().map(f).collect();
        }
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(jobs.len()));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break };
                        mine.push((i, f(job)));
                    }
                    // A poisoned lock means another job panicked; that panic is re-raised by
                    // the scope, so the results here no longer matter.
                    if let Ok(mut all) = done.lock() {
                        all.extend(mine);
                    }
                });
            }
        });
        let mut all = done.into_inner().unwrap_or_else(|e| e.into_inner());
        all.sort_unstable_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_job_order_on_any_number_of_threads() {
        let jobs: Vec<u64> = (0..1000).collect();
        let one = Sweep::single().run(&jobs, |n| n * 3 + 1);
        for threads in [2, 3, 8] {
            assert_eq!(Sweep::new(threads).run(&jobs, |n| n * 3 + 1), one);
        }
        assert_eq!(Sweep::new(0).threads(), 1);
        assert!(Sweep::new(4).run(&[] as &[u8], |_| 0).is_empty());
    }
}
