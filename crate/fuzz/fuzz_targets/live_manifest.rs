#![no_main]
// The harness is replay_player_fuzz::live_manifest (crate/tests/common/live_harness.rs, included by src/lib.rs), shared with
// crate/tests/live_flrep.rs and crate/tests/fuzz_regressions.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| replay_player_fuzz::live_manifest(data));
