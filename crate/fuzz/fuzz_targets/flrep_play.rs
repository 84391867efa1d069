#![no_main]
// The harness is replay_player_fuzz::flrep_play (src/lib.rs), shared with crate/tests/fuzz_regressions.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| replay_player_fuzz::flrep_play(data));
