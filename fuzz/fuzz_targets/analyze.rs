//! A scenario or manifest analysed as `probesim analyze FILE` does, within a budget of
//! simulation steps (see `fuzz/oracle.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../oracle.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| oracle::analyze(data));
