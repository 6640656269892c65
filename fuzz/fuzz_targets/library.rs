//! The library's reader and runner: the input is written to a file that `Test::manifest` and
//! `Test::scenario` read, then run (see `fuzz/oracle.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../oracle.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("probesim-fuzz-{}.yaml", std::process::id()));
    if std::fs::write(&path, data).is_ok() {
        if let Some(path) = path.to_str() {
            oracle::library(path);
        }
    }
});
