#![no_main]
// The harness is shared with crate/tests/foldback.rs (which replays it over fixtures, every
// truncation and byte flips): crate/tests/common/foldback_harness.rs.
#[path = "../../tests/common/foldback_harness.rs"]
mod harness;
libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::foldback_frames(data));
