//! `.foldback`: golden fixtures, forward compatibility, truncation, hostile files, the divergence
//! model, live recordings and the CLI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/dump.rs"]
mod common_dump;
use common_dump::dump;

#[path = "common/foldback_harness.rs"]
mod harness;
#[path = "../examples/make_foldback_fixtures.rs"]
#[allow(dead_code)]
mod make_fixtures;

use replay_player::format::foldback::diverge::{Bytes, Comparison, Source, Status};
use replay_player::format::foldback::index::read_snapshot;
use replay_player::format::foldback::live::{Control, Hello, LiveRecording};
use replay_player::format::foldback::scan::frames_in;
use replay_player::format::foldback::{parse_frame, Error, Frame, Index, Limits, HEADER_LEN};
use replay_player::format::zstd::{Decompressor, ZstdError};
use replay_player::format::{Session, SessionError};
use replay_player::io::foldback::check_snapshots;
use replay_player::io::open_session;
use replay_player::model::FormatKind;
use replay_player::sim::foldback::{entity_id, foldback_bytes, foldback_per_peer, golden, Desync, FoldbackConfig};
use replay_player::sim::Rng;
use std::process::Command;

fn fixture(name: &str) -> Vec<u8> {
    let p = make_fixtures::fixtures_dir().join(name);
    std::fs::read(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (run cargo run --example make_foldback_fixtures)", p.display()))
}

fn hostile(name: &str) -> Vec<u8> {
    fixture(&format!("hostile/{name}.foldback"))
}

fn open(bytes: &[u8]) -> Index {
    harness::open(bytes, &Limits::default()).expect("opens")
}

fn open_err(bytes: &[u8]) -> Error {
    let mut src = bytes.to_vec();
    replay_player::io::foldback::open_foldback(&mut src, &Limits::default()).expect_err("should fail")
}

fn read<'a>(bytes: &'a [u8], cmp: &Comparison, from: u64, to: u64) -> Vec<Bytes<'a>> {
    cmp.reads_for_span(from, to)
        .iter()
        .map(|r| Bytes {
            source: r.source,
            offset: r.offset,
            bytes: &bytes[r.offset as usize..(r.offset + r.len) as usize],
        })
        .collect()
}

fn desync_cfg() -> FoldbackConfig {
    FoldbackConfig {
        seed: 3,
        peers: 2,
        ticks: 120,
        first_tick: 0,
        entities: 4,
        tick_rate_hz: 60,
        snapshot_every: 30,
        detail: true,
        desync: Some(Desync { tick: 70, entity: entity_id(2), field: "position.x".into(), peer: 1 }),
    }
}

#[test]
fn golden_fixtures_read_as_recorded_and_regenerate_byte_for_byte() {
    let fresh = golden().unwrap();
    assert_eq!(fresh.len(), 4);
    for (name, bytes) in fresh {
        let committed = fixture(name);
        let expected =
            std::fs::read_to_string(make_fixtures::fixtures_dir().join(name.replace(".foldback", ".jsonl"))).unwrap();
        assert_eq!(dump(&committed), expected, "{name}: dump differs from the golden dump");
        assert_eq!(
            bytes, committed,
            "{name}: writer output changed; if intended, regenerate with cargo run --example make_foldback_fixtures"
        );
    }
    for (name, bytes) in make_fixtures::hostile() {
        assert_eq!(hostile(name), bytes, "hostile/{name}.foldback is not what the generator writes");
    }
}

#[test]
fn session_opens_foldback_with_info_and_no_chunks() {
    let bytes = fixture("desync.foldback");
    let mut src = bytes.clone();
    let s = open_session(&mut src).unwrap();
    let info = s.info().unwrap();
    assert_eq!(info.format, FormatKind::Foldback);
    assert_eq!((info.tick_rate_hz, info.first_tick, info.last_tick), (30, 1000, 1011));
    assert_eq!(info.participants.len(), 2);
    assert!(info.metadata.iter().any(|(k, v)| k == "game" && v == "foldback toy simulation"));
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    assert_eq!(s.chunk_count(), 0);
    assert!(s.foldback().unwrap().ended_cleanly());
    // A file larger than the first read (the indexer then asks for more windows).
    let big = foldback_bytes(&FoldbackConfig { ticks: 400, ..desync_cfg() }).unwrap();
    assert!(big.len() > 64 * 1024);
    let mut src = big.clone();
    let s = open_session(&mut src).unwrap();
    assert_eq!(s.foldback().unwrap().ticks.len(), 400);
}

#[test]
fn unknown_frames_are_skipped_and_extra_payload_bytes_ignored() {
    let ix = open(&fixture("forward-compat.foldback"));
    assert_eq!(ix.counts.unknown, 4);
    assert_eq!(ix.unknown_types, vec![0x42, 0x7F]);
    assert_eq!(ix.counts.tick_hash, 6);
    assert_eq!(ix.counts.entity_hash, 6, "the EntityHash frames with 4 extra payload bytes are read");
    assert_eq!(ix.counts.bad, 0);
    assert!(ix.ended_cleanly());
    assert!(ix.warnings().iter().any(|w| w.contains("0x42, 0x7F")), "{:?}", ix.warnings());
    assert_eq!(ix.metadata_text()[1], ("binary".to_string(), "0xff0010".to_string()));
    // With a 64-byte window, the 305-byte unknown frame is skipped by length without being read.
    let tiny = Limits { scan_window: 64, ..Limits::default() };
    let ix2 = harness::open(&fixture("forward-compat.foldback"), &tiny).unwrap();
    assert_eq!((ix2.counts.unknown, ix2.counts.tick_hash), (4, 6));
    // The live parser accepts the same frames.
    let f = parse_frame(&[0x42, 2, 0, 0, 0, 9, 9]).unwrap();
    assert_eq!(f, Frame::Unknown { frame_type: 0x42, payload: &[9, 9] });
}

#[test]
fn scan_window_size_does_not_change_the_index() {
    let bytes = fixture("desync.foldback");
    let a = open(&bytes);
    for w in [64u32, 100, 1000, 4096] {
        let b = harness::open(&bytes, &Limits { scan_window: w, ..Limits::default() }).unwrap();
        assert_eq!(a.ticks, b.ticks, "window {w}");
        assert_eq!(a.counts, b.counts, "window {w}");
        assert_eq!(a.snapshots, b.snapshots, "window {w}");
    }
}

#[test]
fn truncation_at_every_offset_yields_a_monotone_prefix() {
    let small = foldback_bytes(&FoldbackConfig {
        seed: 5,
        peers: 2,
        ticks: 4,
        entities: 2,
        snapshot_every: 2,
        desync: Some(Desync { tick: 2, entity: entity_id(1), field: "name".into(), peer: 0 }),
        ..desync_cfg()
    })
    .unwrap();
    let full = open(&small);
    // A prefix opens once it holds a whole frame carrying a tick (nothing playable is refused).
    let first = full.ticks.values().map(|t| t.start as usize).min().unwrap();
    let first_end = first + 5 + u32::from_le_bytes(small[first + 1..first + 5].try_into().unwrap()) as usize;
    let mut last_frames = 0u64;
    for n in 0..=small.len() {
        let cut = &small[..n];
        let Some(ix) = harness::open(cut, &Limits::default()) else {
            assert!(n < first_end, "a {n}-byte prefix with a whole frame carrying a tick must open");
            if n >= HEADER_LEN {
                let mut src = cut.to_vec();
                let e = replay_player::io::foldback::open_foldback(&mut src, &Limits::default()).unwrap_err();
                assert_eq!(e, Error::NoTicks, "cut at {n}");
            }
            continue;
        };
        assert!(n >= first_end, "cut at {n}: opened with no tick");
        let frames = ix.counts.tick_hash
            + ix.counts.entity_hash
            + ix.counts.field_hash
            + ix.counts.snapshot
            + ix.counts.metadata;
        assert!(frames >= last_frames, "cut at {n}: {frames} frames after {last_frames}");
        last_frames = frames;
        assert_eq!(ix.counts.bad, 0, "cut at {n}");
        assert_eq!(ix.ended_cleanly(), n == small.len(), "cut at {n}");
        if n < small.len() {
            assert!(
                ix.warnings().iter().any(|w| w.starts_with("did not end cleanly")),
                "cut at {n}: {:?}",
                ix.warnings()
            );
        }
        // Every tick hash read from the prefix is the one the whole file has.
        for t in ix.ticks.values() {
            let whole = full.tick(t.tick).unwrap();
            for h in &t.hashes {
                assert_eq!(whole.hash_of(h.peer), Some(h.hash));
            }
        }
        harness::foldback_frames(&[&[0u8][..], cut].concat());
    }
    // Every prefix of every live frame is refused, never a panic.
    for (_, r) in frames_in(&small[HEADER_LEN..], HEADER_LEN as u64, &Limits::default()) {
        r.unwrap();
    }
    let first_len = 5 + u32::from_le_bytes(small[HEADER_LEN + 1..HEADER_LEN + 5].try_into().unwrap()) as usize;
    let msg = &small[HEADER_LEN..HEADER_LEN + first_len];
    assert!(parse_frame(msg).is_ok());
    for n in 0..msg.len() {
        assert!(
            matches!(parse_frame(&msg[..n]), Err(Error::FrameTruncated { .. } | Error::EmptyMessage)),
            "prefix {n}"
        );
    }
}

#[test]
fn crashed_fixture_keeps_every_complete_frame() {
    let full = open(&fixture("desync.foldback"));
    let cut = open(&fixture("crashed.foldback"));
    assert!(!cut.ended_cleanly());
    let w = cut.warnings();
    assert!(w[0].contains("did not end cleanly") && w[0].contains("the file ends inside"), "{w:?}");
    assert!(cut.counts.field_hash < full.counts.field_hash);
    assert_eq!(cut.counts.tick_hash, full.counts.tick_hash);
}

#[test]
fn byte_flips_never_panic() {
    let bytes = fixture("desync.foldback");
    let mut rng = Rng::new(11);
    for _ in 0..300 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(b.len());
            b[i] = rng.next_u64() as u8;
        }
        harness::foldback_frames(&[&[0u8][..], &b].concat());
        let at = HEADER_LEN + rng.below(b.len() - HEADER_LEN - 40);
        harness::foldback_frames(&[&[1u8][..], &b[at..at + 40]].concat());
    }
}

#[test]
fn hostile_files_fail_with_specific_errors() {
    assert_eq!(open_err(&hostile("newer-version")), Error::NewerVersion { file_version: 2, supported: 1 });
    let msg = open_err(&hostile("newer-version")).to_string();
    assert!(msg.contains("version 2") && msg.contains("version 1"), "{msg}");
    assert_eq!(open_err(&hostile("version-zero")), Error::BadVersion { version: 0 });
    assert_eq!(open_err(&hostile("nonzero-flags")), Error::BadFlags { flags: 4 });
    assert_eq!(open_err(&hostile("too-many-peers")), Error::TooManyPeers { count: 5000, max: 1024 });
    assert_eq!(open_err(&hostile("short-header")), Error::TooShort { len: 20 });
    assert!(matches!(open_err(b"FLRPxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), Error::BadMagic { found } if &found == b"FLRP"));

    let ix = open(&hostile("short-tickhash"));
    assert_eq!((ix.counts.bad, ix.counts.tick_hash), (1, 2), "the short frame is refused, the frames around it read");
    assert!(
        ix.frame_errors[0].contains("TickHash frame (type 0x01) at offset 55: payload too short for hash"),
        "{}",
        ix.frame_errors[0]
    );

    let ix = open(&hostile("long-field-name"));
    assert_eq!(ix.counts.bad, 1);
    assert!(
        ix.frame_errors[0].contains("field name of 5000 bytes exceeds the limit of 4096"),
        "{}",
        ix.frame_errors[0]
    );
    let ix = open(&hostile("bad-utf8-name"));
    assert!(ix.frame_errors[0].contains("field name is not valid UTF-8"), "{}", ix.frame_errors[0]);
    let ix = open(&hostile("value-overrun"));
    assert!(
        ix.frame_errors[0].contains("payload too short for value (1000 bytes needed, 3 left)"),
        "{}",
        ix.frame_errors[0]
    );
    let ix = open(&hostile("undeclared-peer"));
    assert_eq!((ix.counts.bad, ix.ticks.values().next().unwrap().hashes.len()), (1, 2));
    assert!(ix.frame_errors[0].contains("names peer 9, but the header declares 2 peers"), "{}", ix.frame_errors[0]);

    // A length over the limit is corruption, not a cut, even when it runs past the end of the file:
    // the frames before it stand, and validate fails on it.
    let ix = open(&hostile("impossible-length"));
    assert_eq!((ix.counts.tick_hash, ix.counts.bad), (2, 0));
    assert!(!ix.ended_cleanly());
    assert!(
        matches!(ix.end.as_ref().unwrap().oversized, Some(Error::FrameTooLarge { len: 4294967280, .. })),
        "{:?}",
        ix.end
    );
    assert!(ix.warnings()[0].contains("declares a 4294967280-byte payload, over the limit"), "{:?}", ix.warnings());
    assert_eq!(ix.problems().len(), 1);
    // The same length in the first frame: nothing playable before it, so the open fails with it.
    let mut first = hostile("impossible-length")[..HEADER_LEN].to_vec();
    first.extend_from_slice(&[0x01, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert!(matches!(open_err(&first), Error::FrameTooLarge { at: 32, len: 0xFFFF_FFFF, .. }));
    // No frame carrying a tick (a header, metadata, EndOfStream): refused, as in every format.
    let mut meta = hostile("impossible-length")[..HEADER_LEN].to_vec();
    meta.extend_from_slice(&[0x20, 10, 0, 0, 0, 1, 0, 0, 0, b'k', 1, 0, 0, 0, b'v', 0xFF, 0, 0, 0, 0]);
    assert_eq!(open_err(&meta), Error::NoTicks);
    assert_eq!(open_err(&hostile("impossible-length")[..HEADER_LEN]), Error::NoTicks);

    // Frames after EndOfStream are trailing bytes (a v2 index block would live there).
    let ix = open(&hostile("frames-after-eos"));
    assert!(ix.ended_cleanly());
    assert_eq!(ix.counts.tick_hash, 2);
    assert_eq!(ix.end.as_ref().unwrap().trailing_bytes, 25);

    // A frame over the payload limit stops the scan and is a problem for validate.
    let ix =
        harness::open(&fixture("desync.foldback"), &Limits { max_frame_payload: 100, ..Limits::default() }).unwrap();
    assert!(matches!(ix.end.as_ref().unwrap().oversized, Some(Error::FrameTooLarge { max: 100, .. })), "{:?}", ix.end);
    assert!(!ix.problems().is_empty());

    // Snapshots: a bomb under the cap and corrupt zstd, each with its own error.
    let b = hostile("snapshot-bomb");
    let ix = open(&b);
    let s = ix.snapshots[0];
    let frame = &b[s.offset as usize..(s.offset + s.len) as usize];
    let mut dec = Decompressor::new();
    assert_eq!(
        read_snapshot(&mut dec, frame, s.offset, &Limits { max_snapshot_decompressed: 4096, ..Limits::default() }),
        Err(Error::Snapshot { at: s.offset, tick: 0, peer: 0, err: ZstdError::TooLarge { cap: 4096 } })
    );
    assert_eq!(read_snapshot(&mut dec, frame, s.offset, &Limits::default()).unwrap().len(), 1 << 20);
    // Validate decodes every snapshot: the bomb passes under the default cap and fails under a
    // small one, with the numbers.
    let check = check_snapshots(&mut b.as_slice(), &ix, &Limits::default()).unwrap();
    assert_eq!((check.decoded, check.decoded_bytes, check.failed), (1, 1 << 20, 0));
    let small = Limits { max_snapshot_decompressed: 4096, ..Limits::default() };
    let check = check_snapshots(&mut b.as_slice(), &ix, &small).unwrap();
    assert_eq!((check.decoded, check.failed), (0, 1));
    assert_eq!(
        check.problems(),
        [format!(
            "snapshot of peer 0 at tick 0 (frame at offset {}) decompresses to more than 4096 bytes, the limit \
             (max_snapshot_decompressed)",
            s.offset
        )]
    );
    let b = hostile("snapshot-corrupt");
    let ix = open(&b);
    let s = ix.snapshots[0];
    let r = read_snapshot(&mut dec, &b[s.offset as usize..(s.offset + s.len) as usize], s.offset, &Limits::default());
    assert!(matches!(r, Err(Error::Snapshot { err: ZstdError::Corrupt(_) | ZstdError::Window(_), .. })), "{r:?}");

    // Live messages.
    assert_eq!(parse_frame(&[]), Err(Error::EmptyMessage));
    let mut two = hostile("short-tickhash")[HEADER_LEN..HEADER_LEN + 23].to_vec();
    two.push(0);
    assert_eq!(parse_frame(&two), Err(Error::TrailingBytes { at: 23, extra: 1 }));
    assert!(matches!(parse_frame(&[0x01, 0, 0, 0, 0x10]), Err(Error::FrameTooLarge { len: 0x1000_0000, .. })));
}

#[test]
fn snapshots_are_read_on_demand() {
    let bytes = fixture("desync.foldback");
    let ix = open(&bytes);
    let ticks: Vec<(u64, u16)> = ix.snapshots.iter().map(|s| (s.tick, s.peer)).collect();
    assert_eq!(ticks, vec![(1000, 0), (1000, 1), (1005, 0), (1005, 1), (1010, 0), (1010, 1)]);
    let s = ix.snapshot_before(1007, 1).unwrap();
    let mut dec = Decompressor::new();
    let text =
        read_snapshot(&mut dec, &bytes[s.offset as usize..(s.offset + s.len) as usize], s.offset, &Limits::default())
            .unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.starts_with("100 ") && text.contains("ünit-2"), "{text}");
}

#[test]
fn divergence_model_finds_the_injected_desync() {
    let bytes = foldback_bytes(&desync_cfg()).unwrap();
    let ix = open(&bytes);
    let cmp = Comparison::single(&ix);
    let s = cmp.summary();
    assert_eq!(s.first_divergent_tick, Some(70));
    assert_eq!((s.agree, s.disagree, s.missing), (70, 50, 0));
    assert_eq!(s.peers.iter().map(|p| p.label.as_str()).collect::<Vec<_>>(), ["peer 0", "peer 1"]);
    assert_eq!(cmp.status(69), Some(Status::Agree));
    assert_eq!(cmp.segments().len(), 2);

    let data = read(&bytes, &cmp, 70, 70);
    let d = cmp.tick_detail(70, &data);
    assert!(d.errors.is_empty());
    assert_eq!(d.entities.len(), 4);
    let diff: Vec<u64> = d.entities.iter().filter(|e| e.status == Status::Disagree).map(|e| e.entity).collect();
    assert_eq!(diff, vec![entity_id(2)]);
    assert_eq!(d.entities_differing, 1);

    let e = cmp.entity_detail(70, entity_id(2), &data);
    let fields: Vec<&str> = e.fields.iter().filter(|f| f.status == Status::Disagree).map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["position.x"]);
    let f = e.fields.iter().find(|f| f.name == "position.x").unwrap();
    let a: f32 = f.peers[0].as_ref().unwrap().value.f32.as_ref().unwrap().parse().unwrap();
    let b: f32 = f.peers[1].as_ref().unwrap().value.f32.as_ref().unwrap().parse().unwrap();
    assert_eq!(b.to_bits(), a.to_bits() + 3, "peer 1 is 3 ulps off");
    assert_eq!(
        e.fields.iter().find(|f| f.name == "name").unwrap().peers[0].as_ref().unwrap().value.utf8.as_deref(),
        Some("ünit-2")
    );

    // The desync propagates: energy (accumulating last tick's position.x) differs from tick 71.
    let span = read(&bytes, &cmp, 60, 90);
    let h = cmp.field_history(entity_id(2), "energy", 60, 90, &span);
    assert_eq!((h.first_differing_tick, h.last_agreeing_tick), (Some(71), Some(70)));
    let h = cmp.field_history(entity_id(2), "position.x", 60, 90, &span);
    assert_eq!(h.first_differing_tick, Some(70));
    assert!(h.values.iter().all(Option::is_some));
    let h = cmp.field_history(entity_id(1), "position.x", 60, 90, &span);
    assert_eq!((h.first_differing_tick, h.ticks_seen), (None, 31));

    // No desync: agree throughout.
    let ok = foldback_bytes(&FoldbackConfig { desync: None, ..desync_cfg() }).unwrap();
    let ix = open(&ok);
    assert_eq!(Comparison::single(&ix).first_divergence(), None);
}

#[test]
fn desync_of_each_field_type_is_found() {
    for field in ["health", "name", "energy", "velocity.x"] {
        let cfg = FoldbackConfig {
            desync: Some(Desync { tick: 40, entity: entity_id(0), field: field.into(), peer: 0 }),
            ..desync_cfg()
        };
        let bytes = foldback_bytes(&cfg).unwrap();
        let ix = open(&bytes);
        let cmp = Comparison::single(&ix);
        assert_eq!(cmp.first_divergence(), Some(40), "{field}");
        let data = read(&bytes, &cmp, 40, 40);
        let e = cmp.entity_detail(40, entity_id(0), &data);
        let f: Vec<&str> = e.fields.iter().filter(|f| f.status == Status::Disagree).map(|f| f.name.as_str()).collect();
        assert_eq!(f, [field]);
    }
}

#[test]
fn per_peer_files_merge_by_file_and_warn_on_build_mismatch() {
    let files = foldback_per_peer(&desync_cfg()).unwrap();
    let a = open(&files[0]);
    let b = open(&files[1]);
    assert_eq!((a.header.peer_count, b.header.peer_count), (1, 1));
    let cmp = Comparison::new(&[
        Source { label: "a.foldback".into(), index: &a },
        Source { label: "b.foldback".into(), index: &b },
    ]);
    let s = cmp.summary();
    assert_eq!(
        s.peers.iter().map(|p| p.label.as_str()).collect::<Vec<_>>(),
        ["a.foldback peer 0", "b.foldback peer 0"]
    );
    assert_eq!(s.first_divergent_tick, Some(70));
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // Reads name their source; the detail agrees with the single-file session.
    let reads = cmp.reads_for_tick(70);
    assert_eq!(reads.len(), 2);
    let data: Vec<Bytes<'_>> = reads
        .iter()
        .map(|r| Bytes {
            source: r.source,
            offset: r.offset,
            bytes: &files[r.source][r.offset as usize..(r.offset + r.len) as usize],
        })
        .collect();
    let d = cmp.tick_detail(70, &data);
    assert_eq!(
        d.entities.iter().filter(|e| e.status == Status::Disagree).map(|e| e.entity).collect::<Vec<_>>(),
        vec![entity_id(2)]
    );

    // A different build id.
    let mut other = files[1].clone();
    other[16] ^= 0xFF;
    let c = open(&other);
    let cmp = Comparison::new(&[Source { label: "a".into(), index: &a }, Source { label: "c".into(), index: &c }]);
    assert!(cmp.warnings().iter().any(|w| w.contains("recorded against a different build")), "{:?}", cmp.warnings());
    // One file alone has one peer: nothing to compare.
    assert!(Comparison::single(&a).warnings().iter().any(|w| w.contains("nothing to compare")));
}

#[test]
fn missing_peer_hashes_are_reported_not_divergent() {
    let files = foldback_per_peer(&FoldbackConfig { desync: None, ..desync_cfg() }).unwrap();
    let a = open(&files[0]);
    let b = open(&files[1][..files[1].len() / 2]);
    let cmp = Comparison::new(&[Source { label: "a".into(), index: &a }, Source { label: "b".into(), index: &b }]);
    let s = cmp.summary();
    assert_eq!(s.first_divergent_tick, None);
    assert!(s.first_missing_tick.is_some() && s.missing > 0);
    assert!(s.warnings.iter().any(|w| w.starts_with("b: did not end cleanly")), "{:?}", s.warnings);
}

#[test]
fn json_views_for_the_divergence_view() {
    let bytes = fixture("desync.foldback");
    let ix = open(&bytes);
    let cmp = Comparison::single(&ix);
    let s = serde_json::to_value(cmp.summary()).unwrap();
    assert_eq!(s["first_divergent_tick"], 1006);
    assert_eq!(s["peers"][1]["label"], "peer 1");
    let row = serde_json::to_value(&cmp.timeline(1006, 1006, 1)[0]).unwrap();
    assert_eq!(row["status"], "disagree");
    assert!(row["hashes"][0].as_str().unwrap().len() == 16);
    let data = read(&bytes, &cmp, 1006, 1006);
    let e = serde_json::to_value(cmp.entity_detail(1006, entity_id(1), &data)).unwrap();
    assert_eq!(e["entity"], "101");
    let f = e["fields"].as_array().unwrap().iter().find(|f| f["name"] == "position.x").unwrap();
    assert_eq!(f["status"], "disagree");
    assert!(f["peers"][0]["value"]["f32"].is_string() && f["peers"][0]["value"]["hex"].as_str().unwrap().len() == 8);
    let seg = serde_json::to_value(cmp.segments()).unwrap();
    assert_eq!(
        seg,
        serde_json::json!([{"from": 1000, "to": 1005, "status": "agree"}, {"from": 1006, "to": 1011, "status": "disagree"}])
    );
}

#[test]
fn live_recording_from_frames_finds_the_desync() {
    let bytes = foldback_bytes(&desync_cfg()).unwrap();
    let h = open(&bytes).header;
    let hello = Hello::for_header(&h);
    let text = Control::Hello(hello.clone()).to_json();
    assert_eq!(Control::parse(&text).unwrap(), Control::Hello(hello.clone()));
    let mut rec = LiveRecording::from_hello(&hello, Limits::default()).unwrap();
    let mut pos = HEADER_LEN;
    while pos < bytes.len() {
        let len = 5 + u32::from_le_bytes(bytes[pos + 1..pos + 5].try_into().unwrap()) as usize;
        let msg = &bytes[pos..pos + len];
        let f = rec.push(msg).unwrap();
        assert_eq!(f, parse_frame(msg).unwrap());
        pos += len;
    }
    let cmp = Comparison::single(rec.index());
    assert_eq!(cmp.first_divergence(), Some(70));
    let data: Vec<Bytes<'_>> = cmp
        .reads_for_tick(70)
        .iter()
        .map(|r| Bytes { source: r.source, offset: r.offset, bytes: rec.read(r.offset, r.len).unwrap() })
        .collect();
    let d = cmp.tick_detail(70, &data);
    assert_eq!(d.entities_differing, 1);
    assert_eq!(rec.index().header.build_id, h.build_id);
    // Control messages: newer protocols named, unknown types tolerated, junk refused.
    assert_eq!(
        Control::parse(r#"{"type":"hello","protocol_version":2,"tick_rate_hz":60,"peer_count":2,"build_id":""}"#),
        Err(Error::NewerProtocol { version: 2, supported: 1 })
    );
    assert_eq!(
        Control::parse(r#"{"type":"goodbye","reason":"game_exited"}"#).unwrap(),
        Control::Goodbye { reason: "game_exited".into() }
    );
    assert_eq!(Control::parse(r#"{"type":"pause","x":1}"#).unwrap(), Control::Other { kind: "pause".into() });
    assert!(matches!(Control::parse("[1,2]"), Err(Error::BadControl(_))));
    // A bounded live buffer keeps Level 1 past its cap.
    let mut small = LiveRecording::from_hello(&hello, Limits::default()).unwrap();
    small.set_max_bytes(4096);
    let mut pos = HEADER_LEN;
    while pos < bytes.len() {
        let len = 5 + u32::from_le_bytes(bytes[pos + 1..pos + 5].try_into().unwrap()) as usize;
        small.push(&bytes[pos..pos + len]).unwrap();
        pos += len;
    }
    assert!(small.bytes().len() <= 4096);
    assert_eq!(Comparison::single(small.index()).first_divergence(), Some(70));
    assert!(small.warnings()[0].contains("not kept"));
}

#[test]
fn session_error_names_the_format() {
    let mut s = Session::new(64);
    s.next(None).unwrap();
    let mut head = hostile("newer-version");
    head.resize(64, 0);
    let e = s.next(Some(&head)).unwrap_err();
    assert!(matches!(e, SessionError::Foldback(Error::NewerVersion { .. })), "{e:?}");
}

fn replay() -> Command {
    Command::new(env!("CARGO_BIN_EXE_replay"))
}

#[test]
fn cli_diverge_exit_codes_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    let gen = |out: &str, extra: &[&str]| {
        let st = replay()
            .args(["generate", "--format", "foldback", "--out", out, "--ticks", "90", "--entities", "3"])
            .args(extra)
            .status()
            .unwrap();
        assert!(st.success());
    };
    gen(&p("ok.foldback"), &[]);
    gen(&p("bad.foldback"), &["--desync-tick", "50", "--desync-entity", "102", "--desync-field", "health"]);
    let out = replay().args(["diverge", &p("ok.foldback")]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no divergence"));
    let out = replay().args(["diverge", &p("bad.foldback")]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("first divergent tick: 50"), "{text}");
    assert!(text.contains("entity 102 differs"), "{text}");
    assert!(text.contains("field health:") && text.contains("i32 "), "{text}");
    assert!(!text.contains("field position.x"), "{text}");
    // Two files (the same session twice, then against the desync) and errors.
    assert_eq!(
        replay().args(["diverge", &p("ok.foldback"), &p("ok.foldback")]).output().unwrap().status.code(),
        Some(0)
    );
    assert_eq!(
        replay().args(["diverge", &p("ok.foldback"), &p("bad.foldback")]).output().unwrap().status.code(),
        Some(1)
    );
    assert_eq!(replay().args(["diverge", &p("missing.foldback")]).output().unwrap().status.code(), Some(2));
    std::fs::write(p("junk.foldback"), b"FBK1\x09\x00").unwrap();
    let out = replay().args(["diverge", &p("junk.foldback")]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("too short"));
    assert_eq!(replay().args(["diverge"]).output().unwrap().status.code(), Some(2));
}

#[test]
fn cli_info_validate_dump_read_foldback() {
    let dir = make_fixtures::fixtures_dir();
    let f = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let out = replay().args(["info", &f("desync.foldback")]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && text.contains("format:            foldback 1")
            && text.contains("ended cleanly:     yes"),
        "{text}"
    );
    let out = replay().args(["validate", &f("crashed.foldback")]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not end cleanly"));
    let out = replay().args(["validate", &f("hostile/long-field-name.foldback")]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exceeds the limit of 4096"));
    let out = replay().args(["validate", &f("hostile/newer-version.foldback")]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    // A snapshot that inflates to 256 MiB (an 8 KiB zstd frame): opening only indexes it, validate
    // decodes it and stops at the 64 MiB cap (it printed "ok: 2 ticks, 6 frames" before).
    let out = replay().args(["validate", &f("hostile/snapshot-over-cap.foldback")]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "snapshot of peer 1 at tick 1 (frame at offset 101) decompresses to more than 67108864 bytes, the limit \
             (max_snapshot_decompressed)"
        ),
        "{err}"
    );
    assert!(err.contains("1 problem(s)"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
    // A file whose snapshots all decode still passes (the bomb's 1 MiB is under the cap).
    let out = replay().args(["validate", &f("hostile/snapshot-bomb.foldback")]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok: 1 ticks, 3 frames\n");
    let out = replay().args(["dump", &f("agree.foldback")]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), std::fs::read_to_string(dir.join("agree.jsonl")).unwrap());
}
