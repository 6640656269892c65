//! Bounded time and memory on hostile but valid input: each test names the finding it pins and
//! the bound it must meet. Bounds are work counts where the code exposes them, otherwise a
//! timeout many times the expected cost (these are not benchmarks: `cargo bench` measures).

mod support;

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Runs `work` on its own thread and fails when it has not finished within `limit`, which is
/// chosen many times the expected cost so that a slow machine never trips it, while a cost that
/// grows with the input (quadratic parsing, an unbounded sweep) does.
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    thread::Builder::new()
        .name(what.to_owned())
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = send.send(work());
        })
        .expect("spawn the worker");
    match receive.recv_timeout(limit) {
        Ok(value) => value,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: not finished within {limit:?}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: the worker panicked"),
    }
}

/// A behaviour script of 256 k steps (2.3 MB) parses in time linear in its length: it once took
/// a rescan from the start of the text for every outcome (64 k steps took 29.5 s, 256 k never
/// finished). A linear parse takes well under a second even in a debug build.
#[test]
fn a_script_of_256k_steps_parses_in_linear_time() {
    const STEPS: usize = 256 * 1024;
    let script = within(Duration::from_secs(60), "parse 256 k steps", || {
        let text = vec!["200 for 1s"; STEPS].join(", ");
        probesim_script::parse(&text).map(|s| s.steps().len())
    });
    assert_eq!(script, Ok(STEPS));
    // The last outcome's position is still counted right after a linear scan (one line, so
    // the column is its character offset plus one).
    let mut text = vec!["200"; 1000].join(",\n");
    text.push_str(", exit 1");
    let error = probesim_script::parse(&text)
        .expect("a valid script")
        .check_handler(probesim_core::HandlerFamily::Http)
        .expect_err("exit 1 cannot answer an httpGet probe");
    assert_eq!((error.line(), error.column()), (1000, 6));
}
