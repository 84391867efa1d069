//! The `foldback_frames` fuzz harness, shared by the cargo-fuzz target
//! (crate/fuzz/fuzz_targets/foldback_frames.rs) and crate/tests/foldback.rs (which replays it over
//! fixtures, every truncation and byte flips). Uses `replay_player` with feature `formats` only.
//!
//! The first input byte picks the mode: even = a `.foldback` file (opened with a default and a tiny
//! scan window, then every tick range, the divergence model and every snapshot read on demand),
//! odd = one live message (parse_frame, re-encode round trip, a LiveRecording). Errors are fine;
//! panics, reads outside the file, unbounded loops and broken invariants are not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, dead_code)]

use replay_player::format::foldback::diverge::{Bytes, Comparison};
use replay_player::format::foldback::frame::encode_unchecked;
use replay_player::format::foldback::index::read_snapshot;
use replay_player::format::foldback::live::{Hello, LiveRecording};
use replay_player::format::foldback::{parse_frame, Frame, Index, IndexStep, Indexer, Limits};
use replay_player::format::zstd::Decompressor;

pub fn foldback_frames(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode & 1 == 0 {
        file(rest);
    } else {
        live(rest);
    }
}

/// Opens `bytes` as a file; returns the index when it opened.
pub fn open(bytes: &[u8], limits: &Limits) -> Option<Index> {
    let len = bytes.len() as u64;
    let mut ix = Indexer::new(len, limits.clone());
    let mut input: Option<&[u8]> = None;
    let max_steps = len + 8;
    let mut steps = 0;
    loop {
        steps += 1;
        assert!(steps <= max_steps, "indexer took more than {max_steps} steps on {len} bytes");
        match ix.next(input) {
            Err(e) => {
                let _ = e.to_string();
                return None;
            }
            Ok(IndexStep::Need { offset, len: n }) => {
                let end = offset.checked_add(n).expect("range overflows");
                assert!(end <= len, "asked for {offset}+{n} past the end {len}");
                assert!(
                    n <= u64::from(limits.max_frame_payload) + 5 + u64::from(limits.scan_window) + 64 * 1024,
                    "asked for {n} bytes at once"
                );
                input = Some(&bytes[offset as usize..end as usize]);
            }
            Ok(IndexStep::Ready(i)) => return Some(*i),
        }
    }
}

fn check(ix: &Index, bytes: &[u8], limits: &Limits) {
    let len = bytes.len() as u64;
    for (k, t) in &ix.ticks {
        assert_eq!(*k, t.tick);
        assert!(
            t.start <= t.end && t.end <= len,
            "tick {} range {}..{} outside the file ({len})",
            t.tick,
            t.start,
            t.end
        );
        assert!(t.hashes.windows(2).all(|w| w[0].peer < w[1].peer));
    }
    let _ = ix.info();
    let _ = ix.warnings();
    let cmp = Comparison::single(ix);
    let s = cmp.summary();
    assert_eq!(s.ticks, ix.ticks.len());
    // Level-2/3 detail of a few ticks, as the divergence view would ask for them.
    for t in ix.ticks.keys().take(8).copied().chain(s.first_divergent_tick) {
        let reads = cmp.reads_for_tick(t);
        let data: Vec<Bytes<'_>> = reads
            .iter()
            .map(|r| Bytes {
                source: r.source,
                offset: r.offset,
                bytes: &bytes[r.offset as usize..(r.offset + r.len) as usize],
            })
            .collect();
        let d = cmp.tick_detail(t, &data);
        for e in d.entities.iter().take(4) {
            let ed = cmp.entity_detail(t, e.entity, &data);
            for f in ed.fields.iter().take(4) {
                let _ = cmp.field_history(e.entity, &f.name, t, t.saturating_add(4), &data);
            }
        }
    }
    let mut dec = Decompressor::new();
    let small = Limits { max_snapshot_decompressed: 64 * 1024, ..limits.clone() };
    for sn in ix.snapshots.iter().take(4) {
        assert!(sn.offset + sn.len <= len);
        let _ = read_snapshot(&mut dec, &bytes[sn.offset as usize..(sn.offset + sn.len) as usize], sn.offset, &small);
    }
}

fn file(bytes: &[u8]) {
    let limits = Limits::default();
    let a = open(bytes, &limits);
    let tiny = Limits { scan_window: 64, ..Limits::default() };
    let b = open(bytes, &tiny);
    // The window size never changes what is read.
    match (&a, &b) {
        (Some(a), Some(b)) => {
            assert_eq!(
                a.ticks.values().map(|t| (t.tick, t.hashes.clone())).collect::<Vec<_>>(),
                b.ticks.values().map(|t| (t.tick, t.hashes.clone())).collect::<Vec<_>>()
            );
            assert_eq!(a.counts.tick_hash, b.counts.tick_hash);
            assert_eq!(a.end.as_ref().map(|e| e.clean), b.end.as_ref().map(|e| e.clean));
        }
        (None, None) => {}
        _ => panic!("the scan window changed whether the file opens"),
    }
    if let Some(a) = a {
        check(&a, bytes, &limits);
    }
}

fn live(msg: &[u8]) {
    let Ok(f) = parse_frame(msg) else { return };
    // Re-encoding what was read reads back the same frame (extra payload bytes are not kept).
    let mut again = Vec::new();
    encode_unchecked(&f, &mut again);
    let g = parse_frame(&again).expect("re-encoded frame must parse");
    assert_eq!(f, g);
    let hello = Hello { protocol_version: 1, tick_rate_hz: 60, peer_count: 4, build_id: "00".repeat(16) };
    let mut rec = LiveRecording::from_hello(&hello, Limits::default()).unwrap();
    let _ = rec.push(msg);
    let _ = rec.push(&again);
    if let Frame::Snapshot { .. } = f {
        let mut dec = Decompressor::new();
        let small = Limits { max_snapshot_decompressed: 64 * 1024, ..Limits::default() };
        let _ = read_snapshot(&mut dec, msg, 0, &small);
    }
    let cmp = Comparison::single(rec.index());
    let _ = cmp.summary();
}
