#![no_main]
// The harness is replay_player_fuzz::foldback_frames (crate/tests/common/foldback_harness.rs, included by
// src/lib.rs), shared with crate/tests/foldback.rs and crate/tests/fuzz_regressions.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| replay_player_fuzz::foldback_frames(data));
