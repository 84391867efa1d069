//! One `format::Limits` for every format, passed in by the caller through the session: the opening
//! and the decoder of whichever format the file is apply the caller's part, not their defaults
//! (docs/security.md "The limits").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::{flrep, foldback, spark, Limits, SessionError};
use replay_player::io::{open_session, open_session_with_limits, read_chunk};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn flrep_opening_and_decoding_take_the_callers_limits() {
    let mut src = fixture("golden/dogfight-flat.flrep");
    let mut s = open_session(&mut src).unwrap();
    assert!(read_chunk(&mut s, &mut src, 0).is_ok(), "decodes under the defaults");

    let limits = Limits { flrep: flrep::Limits { max_live_entities: 1, ..Default::default() }, ..Default::default() };
    let mut s = open_session_with_limits(&mut src, limits).unwrap();
    let too_many = |r: Result<_, SessionError>| {
        matches!(r, Err(SessionError::Flrep(flrep::Error::TooManyEntities { max: 1, .. })))
    };
    let mut fork = s.fork().expect("a .flrep session forks");
    let bytes = {
        let (o, l) = s.chunk_range(0).unwrap();
        src[o as usize..(o + l) as usize].to_vec()
    };
    assert!(too_many(fork.decode_chunk(0, &bytes).map(|_| ())), "the fork keeps the session's limits");
    assert!(too_many(read_chunk(&mut s, &mut src, 0).map(|_| ())));

    let limits = Limits { flrep: flrep::Limits { max_prefix_bytes: 8, ..Default::default() }, ..Default::default() };
    let r = open_session_with_limits(&mut src, limits);
    assert!(matches!(r, Err(SessionError::Flrep(flrep::Error::PrefixTooLarge { max: 8, .. }))), "{:?}", r.err());
}

#[test]
fn spark_opening_takes_the_callers_limits() {
    let mut src = fixture("spark/deathmatch-3p.replay");
    assert!(open_session(&mut src).is_ok(), "opens under the defaults");
    let limits = Limits { spark: spark::Limits { max_frames: 1, ..Default::default() }, ..Default::default() };
    let r = open_session_with_limits(&mut src, limits);
    assert!(matches!(r, Err(SessionError::Spark(spark::Error::TooManyFrames { max: 1, .. }))), "{:?}", r.err());
}

#[test]
fn foldback_opening_takes_the_callers_limits() {
    let mut src = fixture("foldback/agree.foldback");
    let s = open_session(&mut src).unwrap();
    assert_eq!(s.foldback().map(|ix| ix.header.peer_count), Some(2));
    let limits = Limits { foldback: foldback::Limits { max_peers: 1, ..Default::default() }, ..Default::default() };
    let r = open_session_with_limits(&mut src, limits);
    assert!(
        matches!(r, Err(SessionError::Foldback(foldback::Error::TooManyPeers { count: 2, max: 1 }))),
        "{:?}",
        r.err()
    );
}
