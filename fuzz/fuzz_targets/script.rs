//! A behaviour script (`5x200 then 500`): a typed error that renders, or a value that runs (see `fuzz/oracle.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../oracle.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| oracle::script(data));
