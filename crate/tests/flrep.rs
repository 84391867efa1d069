//! `.flrep` 1.0: golden fixtures, round trips, version rules, recovery, determinism, rotation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/dump.rs"]
mod common_dump;
use common_dump::dump;

use proptest::prelude::*;
use replay_player::bytes::PutLe;
use replay_player::format::flrep::header::{self, Sections};
use replay_player::format::flrep::open::IndexSource;
use replay_player::format::flrep::writer::{default_header, ChunkEncoder, EncodedChunk, WriterOptions};
use replay_player::format::flrep::{trailer, Error, Limits, Writer};
use replay_player::format::{Session, SessionError};
use replay_player::io::{open_flrep, open_session, read_chunk, FlrepFile, RotatingWriter, RotationOptions};
use replay_player::model::{Category, EntityState, EntityType, Event, EventBody, Faction, Participant};
use replay_player::sim::{dogfight_bytes, fixtures, DogfightConfig};
use std::path::PathBuf;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/golden")
}

/// Every tick of every chunk: (tick, entities).
fn all_ticks(bytes: &[u8]) -> Result<Vec<(u64, Vec<EntityState>)>, SessionError> {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src)?;
    let mut v = Vec::new();
    for i in 0..s.chunk_count() {
        let c = read_chunk(&mut s, &mut src, i)?;
        for (k, t) in c.ticks.iter().enumerate() {
            v.push((*t, c.tick_entities(k).to_vec()));
        }
    }
    Ok(v)
}

fn small(seed: u64) -> Vec<u8> {
    dogfight_bytes(&DogfightConfig {
        seed,
        entities: 6,
        seconds: 3.0,
        keyframe_interval_ticks: 30,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn golden_fixtures_read_as_recorded_and_regenerate_byte_for_byte() {
    let dir = golden_dir();
    let fresh = fixtures::golden().unwrap();
    assert_eq!(fresh.len(), 4);
    for (name, bytes) in fresh {
        let committed = std::fs::read(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (run cargo run --example make_fixtures)"));
        let expected = std::fs::read_to_string(dir.join(name.replace(".flrep", ".jsonl"))).unwrap();
        // The reader gives the committed dump for the committed bytes...
        assert_eq!(dump(&committed), expected, "{name}: dump differs from the golden dump");
        // ...and the writer still produces exactly those bytes.
        assert_eq!(
            bytes, committed,
            "{name}: writer output changed; if intended, bump the format version rules and regenerate"
        );
    }
}

#[test]
fn golden_events_fixture_holds_every_event_kind_and_strings_verbatim() {
    let d = std::fs::read_to_string(golden_dir().join("events.jsonl")).unwrap();
    for kind in ["\"kill\"", "\"spawn\"", "\"despawn\"", "\"chat\"", "\"admin\"", "\"alert_level\"", "\"custom\""] {
        assert!(d.contains(&format!("\"kind\":{kind}")), "missing {kind}");
    }
    assert!(d.contains("<script>alert(1)</script> gg"));
    assert!(d.contains("Ünïcødé ✈"));
}

#[test]
fn determinism_two_writes_identical_bytes() {
    let cfg = DogfightConfig { seed: 9, entities: 12, seconds: 4.0, ..Default::default() };
    assert_eq!(dogfight_bytes(&cfg).unwrap(), dogfight_bytes(&cfg).unwrap());
    let other = DogfightConfig { seed: 10, ..cfg };
    assert_ne!(
        dogfight_bytes(&other).unwrap(),
        dogfight_bytes(&DogfightConfig { seed: 9, entities: 12, seconds: 4.0, ..Default::default() }).unwrap()
    );
}

#[test]
fn indexed_open_reads_three_ranges_and_seek_matches_linear_decode() {
    let bytes = dogfight_bytes(&DogfightConfig {
        seed: 2,
        entities: 10,
        seconds: 10.0,
        keyframe_interval_ticks: 60,
        ..Default::default()
    })
    .unwrap();
    let linear = all_ticks(&bytes).unwrap();
    let mut f = FlrepFile::open(bytes.clone(), Limits::default()).unwrap();
    assert_eq!(f.opened.index_source, IndexSource::Trailer);
    assert!(f.opened.warnings.is_empty(), "{:?}", f.opened.warnings);
    assert_eq!(f.opened.chunks.len(), 10);
    assert_eq!((f.opened.first_tick, f.opened.last_tick), (0, 599));
    for probe in [0u64, 1, 59, 60, 61, 333, 598, 599] {
        let (c, at) = f.seek(probe).unwrap();
        assert_eq!(c.ticks[at], probe);
        let want = &linear.iter().find(|(t, _)| *t == probe).unwrap().1;
        assert_eq!(c.tick_entities(at), &want[..], "tick {probe}");
    }
}

/// One chunk with gaps between its ticks, entities that spawn and leave, and events: every range
/// decode (from, to, stride, state budget) equals the same range cut from the whole chunk, and
/// pieces that follow one another resume without the chunk's bytes.
#[test]
fn range_decodes_match_the_whole_chunk_and_resume_where_they_stopped() {
    use replay_player::format::flrep::{ChunkDecoder, ChunkHeader, TickRange};
    let mut enc = ChunkEncoder::new(WriterOptions { keyframe_interval_ticks: 1_000, ..Default::default() }).unwrap();
    let ticks: Vec<u64> = vec![10, 11, 12, 15, 16, 20, 21, 22, 23, 30, 31, 40, 41, 42, 43, 44, 50];
    let mut chunks = Vec::new();
    for (k, &t) in ticks.iter().enumerate() {
        // 3 to 6 entities: ids come and go.
        let states: Vec<EntityState> = (1..=6u32)
            .filter(|id| !(k as u32 + id).is_multiple_of(4) || *id <= 3)
            .map(|id| EntityState {
                id,
                pos: [t as i32 * id as i32, 7, 100],
                orient: [0, 0, 0, 32767],
                health: 100,
                flags: 3,
                ..Default::default()
            })
            .collect();
        let mut ev = if k % 3 == 1 {
            vec![Event { tick: t, body: EventBody::Kill { killer: 1, victim: 2, weapon_type: k as u16 } }]
        } else {
            vec![]
        };
        if k == 7 {
            // An event stamped with another tick than the one it is recorded in (docs/format/flrep.md §8 allows it):
            // ranges place it by the tick it is recorded in.
            ev.push(Event { tick: 3, body: EventBody::AlertLevel { level: 2 } });
        }
        chunks.extend(enc.push_tick(t, &states, &ev).unwrap());
    }
    chunks.extend(enc.flush());
    assert_eq!(chunks.len(), 1);
    let bytes = &chunks[0].bytes;
    let limits = Limits::default();
    let h = ChunkHeader::parse(&bytes[..36], 0, bytes.len() as u64, &limits).unwrap();
    let frame = &bytes[36..];
    let mut dec = ChunkDecoder::new(limits.clone());
    let whole = dec.decode(&h, frame).unwrap();
    assert_eq!(whole.ticks, ticks);
    let mut checked = 0;
    for from in 8..=55u64 {
        for to in [from + 1, from + 3, from + 12, u64::MAX] {
            for stride in [1u64, 2, 5] {
                for max_states in [1usize, 10, 1_000_000] {
                    let r = TickRange { from, to, stride, max_states };
                    let want = whole.range(r);
                    // Fresh (decompressed, rolled forward from the keyframe) ...
                    let mut fresh = ChunkDecoder::new(limits.clone());
                    let got = fresh.decode_range(&h, frame, r).unwrap();
                    assert_eq!(got, want, "{r:?}");
                    // ... and the same after a resume from an earlier range of the chunk.
                    if from > 12 {
                        // Ticks 10, 11 and the first at or past `to` (12); the next tick is 15.
                        let early = dec
                            .decode_range(&h, frame, TickRange { from: 10, to: 12, stride: 1, max_states: 100 })
                            .unwrap();
                        assert_eq!((early.chunk.ticks.clone(), early.end), (vec![10, 11, 12], Some(15)));
                        assert!(dec.resumable(h.offset, from).is_some());
                        assert_eq!(dec.decode_range(&h, &[], r).unwrap(), want, "resumed {r:?}");
                    }
                    // A piece never ends where it starts, starts with the world at `from`, and
                    // (unless its budget or the chunk ended it) holds the first tick at or past `to`.
                    assert!(want.end.is_none_or(|e| e > from), "{r:?}");
                    // (A range before the chunk starts at its first tick, and `to` is past `from`.)
                    let past = ticks.iter().copied().find(|&t| t >= to.max(from.max(10) + 1));
                    if max_states == 1_000_000 {
                        assert_eq!(want.chunk.ticks.last().copied(), past.or_else(|| ticks.last().copied()), "{r:?}");
                    }
                    let first = *want.chunk.ticks.first().unwrap();
                    assert_eq!(first, *ticks.iter().rfind(|&&t| t <= from.max(10)).unwrap(), "{r:?}");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 48 * 4 * 3 * 3);
    // Pieces one after another (each resumes where the last stopped, with no bytes) cover the chunk:
    // every tick kept once, every event once, and the last one reaches the chunk's end.
    for (stride, max_states) in [(1u64, 10usize), (2, 10), (1, 1), (5, 1_000)] {
        let mut from = 10;
        let (mut kept, mut events, mut n) = (Vec::new(), Vec::new(), 0);
        loop {
            let input: &[u8] = if n == 0 { frame } else { &[] };
            let p = dec.decode_range(&h, input, TickRange { from, to: u64::MAX, stride, max_states }).unwrap();
            n += 1;
            assert_eq!(p.chunk.ticks[0], from, "a resumed piece starts on its tick");
            kept.extend(p.chunk.ticks.iter().copied());
            events.extend(p.chunk.events.iter().cloned());
            match p.end {
                Some(e) => from = e,
                None => break,
            }
        }
        assert!(n > 1 || stride == 5);
        assert_eq!(events, whole.events, "stride {stride}, budget {max_states}");
        assert!(events.iter().any(|e| e.tick == 3), "the event stamped tick 3 is in the piece holding tick 22");
        let mut sorted = kept.clone();
        sorted.dedup();
        assert_eq!(sorted, kept, "no tick twice");
        if stride == 1 {
            assert_eq!(kept, ticks);
        }
    }
    // A corrupt payload fails a range too: a piece never hides a damaged chunk.
    let mut bad = frame.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    assert!(ChunkDecoder::new(limits.clone())
        .decode_range(&h, &bad, TickRange { from: 10, to: 11, stride: 1, max_states: 10 })
        .is_err());
    // Without bytes and nothing to resume: refused, no panic.
    assert!(ChunkDecoder::new(limits)
        .decode_range(&h, &[], TickRange { from: 10, to: 11, stride: 1, max_states: 10 })
        .is_err());
}

/// Through the Session (as the worker calls it): the pieces of a real chunk, one after another,
/// resume without bytes and rebuild the whole chunk.
#[test]
fn session_pieces_resume_and_rebuild_the_whole_chunk() {
    use replay_player::io::ReadAt;
    use replay_player::model::TickRange;
    let bytes = dogfight_bytes(&DogfightConfig {
        seed: 4,
        entities: 24,
        seconds: 30.0,
        keyframe_interval_ticks: 120,
        ..Default::default()
    })
    .unwrap();
    let mut src = bytes.clone();
    let mut s = open_session(&mut src).unwrap();
    let ci = 3;
    let (offset, len) = s.chunk_range(ci).unwrap();
    let chunk = src.read_at(offset, len).unwrap();
    let whole = s.decode_chunk(ci, &chunk).unwrap();
    let mut from = whole.ticks[0] + 17;
    // The whole decode left the chunk's checked payload in the decoder: no bytes needed.
    assert!(s.holds_chunk(ci));
    let mut rebuilt = whole.range(TickRange { from, to: from + 1, stride: 1, max_states: 1 }).chunk;
    rebuilt.ticks.clear();
    rebuilt.offsets.truncate(1);
    rebuilt.entities.clear();
    let mut pieces = 0;
    loop {
        assert!(s.holds_chunk(ci));
        let p = s.decode_range(ci, &[], TickRange { from, to: u64::MAX, stride: 1, max_states: 24 * 10 }).unwrap();
        pieces += 1;
        assert!(p.chunk.ticks.len() <= 11);
        for k in 0..p.chunk.ticks.len() {
            rebuilt.ticks.push(p.chunk.ticks[k]);
            rebuilt.entities.extend_from_slice(p.chunk.tick_entities(k));
            rebuilt.offsets.push(rebuilt.entities.len() as u32);
        }
        rebuilt.events.extend(p.chunk.events);
        match p.end {
            Some(e) => from = e,
            None => break,
        }
    }
    assert!(pieces >= 10, "{pieces} pieces");
    let cut = whole.range(TickRange { from: whole.ticks[0] + 17, to: u64::MAX, stride: 1, max_states: usize::MAX });
    assert_eq!(rebuilt.ticks, cut.chunk.ticks);
    assert_eq!(rebuilt.entities, cut.chunk.entities);
    assert_eq!(rebuilt.events, cut.chunk.events);
    assert_eq!(*rebuilt.ticks.last().unwrap(), *whole.ticks.last().unwrap());
    // Back to an earlier tick of the same chunk (rewinding): rolled forward again from the
    // keyframe, still without the bytes, and the same piece as cut from the whole chunk.
    let back = TickRange { from: whole.ticks[0] + 5, to: whole.ticks[0] + 9, stride: 1, max_states: usize::MAX };
    assert!(s.holds_chunk(ci));
    assert_eq!(s.decode_range(ci, &[], back).unwrap(), whole.range(back));
    // Another chunk's bytes are needed for another chunk; decoding it lets go of this one.
    assert!(!s.holds_chunk(ci + 1));
    assert!(s.decode_range(ci + 1, &[], back).is_err());
    let (o2, l2) = s.chunk_range(ci + 1).unwrap();
    let next = src.read_at(o2, l2).unwrap();
    s.decode_chunk(ci + 1, &next).unwrap();
    assert!(!s.holds_chunk(ci));
    assert!(s.holds_chunk(ci + 1));
}

/// A fork (the worker's spare decoder) reads the same file with a decoder of its own: what it
/// decodes equals the original's, and neither moves the other's held chunk.
#[test]
fn a_forked_session_decodes_on_its_own() {
    use replay_player::io::ReadAt;
    use replay_player::model::TickRange;
    let bytes = dogfight_bytes(&DogfightConfig {
        seed: 5,
        entities: 16,
        seconds: 20.0,
        keyframe_interval_ticks: 120,
        ..Default::default()
    })
    .unwrap();
    let mut src = bytes.clone();
    let mut s = open_session(&mut src).unwrap();
    let mut f = s.fork().expect("an open .flrep forks");
    assert_eq!(f.chunk_count(), s.chunk_count());
    assert_eq!(f.chunk_range(4).unwrap(), s.chunk_range(4).unwrap());
    let read = |ci: usize| {
        let (o, l) = s.chunk_range(ci).unwrap();
        bytes.clone().read_at(o, l).unwrap()
    };
    let (c1, c4) = (read(1), read(4));
    let whole1 = s.decode_chunk(1, &c1).unwrap();
    assert!(!f.holds_chunk(1), "the fork holds nothing of the original's");
    let first4 = f.chunk_first_tick(4).unwrap();
    let r = TickRange { from: first4 + 30, to: first4 + 32, stride: 1, max_states: usize::MAX };
    let p = f.decode_range(4, &c4, r).unwrap();
    assert!(f.holds_chunk(4) && !f.holds_chunk(1));
    assert!(s.holds_chunk(1) && !s.holds_chunk(4), "decoding in the fork left the original where it was");
    assert_eq!(p.chunk, s.fork().unwrap().decode_chunk(4, &c4).unwrap().range(r).chunk);
    // The original rolls its own chunk again from the held payload (no bytes), the fork its own.
    let back = TickRange { from: whole1.ticks[0] + 3, to: whole1.ticks[0] + 6, stride: 1, max_states: usize::MAX };
    assert_eq!(s.decode_range(1, &[], back).unwrap(), whole1.range(back));
    assert!(f.holds_chunk(4));
    assert_eq!(f.decode_range(4, &[], r).unwrap().chunk, p.chunk);
}

#[test]
fn kill_markers_in_the_trailer_match_the_kill_events_in_the_chunks() {
    let bytes = dogfight_bytes(&DogfightConfig { seed: 1, entities: 40, seconds: 60.0, ..Default::default() }).unwrap();
    let mut src = bytes.clone();
    let mut s = open_session(&mut src).unwrap();
    let (markers, complete) = s.markers();
    let markers = markers.to_vec();
    assert!(complete);
    let mut kills = Vec::new();
    for i in 0..s.chunk_count() {
        let c = read_chunk(&mut s, &mut src, i).unwrap();
        kills.extend(c.events.into_iter().filter(|e| matches!(e.body, EventBody::Kill { .. })));
    }
    assert!(!kills.is_empty(), "a 60 s 40-aircraft dogfight should have kills");
    assert_eq!(markers, kills);
}

fn tiny_sections() -> Sections {
    Sections {
        entity_types: vec![EntityType {
            index: 0,
            id: "jet".into(),
            display_name: "Jet".into(),
            category: Category::Aircraft,
            projectile_kind: 0,
        }],
        factions: vec![Faction { index: 0, id: "a".into(), display_name: "A".into() }],
        participants: vec![Participant { id: 1, callsign: "Solo".into(), entity: 1, faction: 0 }],
        ..Default::default()
    }
}

fn tiny_chunks() -> Vec<EncodedChunk> {
    let mut enc = ChunkEncoder::new(WriterOptions { keyframe_interval_ticks: 15, ..Default::default() }).unwrap();
    let mut chunks = Vec::new();
    for t in 0..40u64 {
        let s = EntityState {
            id: 1,
            pos: [t as i32 * 10, 5, 100],
            orient: [0, 0, 0, 32767],
            health: 10_000,
            flags: 3,
            ..Default::default()
        };
        let ev = if t == 20 {
            vec![Event { tick: t, body: EventBody::Kill { killer: 1, victim: 1, weapon_type: 0 } }]
        } else {
            vec![]
        };
        chunks.extend(enc.push_tick(t, &[s], &ev).unwrap());
    }
    chunks.extend(enc.flush());
    chunks
}

/// Builds a file from hand-made prefix bytes and real chunks, with a correct trailer.
fn assemble(prefix: Vec<u8>, chunks: &[EncodedChunk], with_trailer: bool) -> Vec<u8> {
    let mut out = prefix;
    let mut t = trailer::Trailer {
        first_tick: chunks[0].first_tick,
        last_tick: chunks.last().unwrap().last_tick,
        entries: vec![],
        markers: vec![],
    };
    for c in chunks {
        t.entries.push((c.first_tick, out.len() as u64));
        t.markers.extend(c.markers.clone());
        out.extend_from_slice(&c.bytes);
    }
    if with_trailer {
        let off = out.len() as u64;
        trailer::write(&mut out, off, &t);
    }
    out
}

/// A 1.x prefix with an arbitrary minor, extra header bytes and extra sections before the end marker.
fn custom_prefix(major: u16, minor: u16, extra_header: &[u8], extra_sections: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let h = default_header("0.9.1", 60, 6_371_000.0);
    let mut std = Vec::new();
    header::write_prefix(&mut std, &h, &tiny_sections());
    // Rewrite: version, header length (+extra), insert extra header bytes and sections.
    let old_len = u32::from_le_bytes(std[8..12].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    out.extend_from_slice(b"FLRP");
    out.put_u16(major);
    out.put_u16(minor);
    out.put_u32((old_len + extra_header.len()) as u32);
    out.extend_from_slice(&std[12..12 + old_len]);
    out.extend_from_slice(extra_header);
    let sections = &std[12 + old_len..std.len() - 6];
    for (id, payload) in extra_sections {
        header::put_section(&mut out, *id, payload);
    }
    out.extend_from_slice(sections);
    out.put_u16(0);
    out.put_u32(0);
    out
}

#[test]
fn newer_minor_with_unknown_section_and_appended_fields_still_reads() {
    let chunks = tiny_chunks();
    let prefix = custom_prefix(1, 7, &[0xAB; 13], &[(0x0077, vec![1, 2, 3, 4, 5]), (0x0004, vec![9; 40])]);
    let bytes = assemble(prefix, &chunks, true);
    let ticks = all_ticks(&bytes).unwrap();
    assert_eq!(ticks.len(), 40);
    let f = FlrepFile::open(bytes, Limits::default()).unwrap();
    assert_eq!(f.opened.header.format_minor, 7);
    assert_eq!(f.opened.header.engine_version, "0.9.1");
    assert_eq!(f.opened.sections.skipped, vec![0x0077, 0x0004]);
    assert!(f.opened.warnings.iter().any(|w| w.contains("0x0077")), "{:?}", f.opened.warnings);
}

#[test]
fn newer_major_is_refused_naming_both_versions_and_the_engine() {
    let bytes = assemble(custom_prefix(3, 2, &[], &[]), &tiny_chunks(), true);
    let err = open_flrep(&mut bytes.clone(), &Limits::default()).unwrap_err();
    assert_eq!(err, Error::NewerMajor { file_major: 3, file_minor: 2, engine_version: "0.9.1".into() });
    let msg = err.to_string();
    assert!(
        msg.contains("engine version 0.9.1") && msg.contains("format 3.2") && msg.contains("reads format 1.x"),
        "{msg}"
    );
    // Through the format-agnostic session too (what the browser shows).
    let mut s = Session::new(bytes.len() as u64);
    let first = s.next(None).unwrap();
    let replay_player::format::OpenStep::Need { offset, len } = first else { panic!() };
    let e = s.next(Some(&bytes[offset as usize..(offset + len) as usize])).unwrap_err();
    assert!(e.to_string().contains("format 3.2"), "{e}");
}

#[test]
fn missing_trailer_plays_via_forward_scan_with_a_warning() {
    let chunks = tiny_chunks();
    let with = assemble(custom_prefix(1, 0, &[], &[]), &chunks, true);
    let without = assemble(custom_prefix(1, 0, &[], &[]), &chunks, false);
    let f = FlrepFile::open(without.clone(), Limits::default()).unwrap();
    assert_eq!(f.opened.index_source, IndexSource::Scan);
    assert!(
        f.opened.warnings.iter().any(|w| w.starts_with("no index trailer: index rebuilt by scanning 3 chunks")),
        "{:?}",
        f.opened.warnings
    );
    assert_eq!((f.opened.first_tick, f.opened.last_tick), (0, 39));
    assert_eq!(all_ticks(&with).unwrap(), all_ticks(&without).unwrap());
}

#[test]
fn corrupt_trailer_is_told_from_a_good_one_and_the_file_still_plays() {
    let mut bytes = small(5);
    let n = bytes.len();
    // Flip a byte inside the trailer's entry table (the CRC catches it).
    let table = u64::from_le_bytes(bytes[n - 8..].try_into().unwrap()) as usize;
    bytes[table + 30] ^= 0x40;
    let f = FlrepFile::open(bytes.clone(), Limits::default()).unwrap();
    assert_eq!(f.opened.index_source, IndexSource::Scan);
    assert!(
        f.opened.warnings[0].starts_with("index trailer corrupt (index checksum mismatch"),
        "{:?}",
        f.opened.warnings
    );
    assert_eq!(all_ticks(&bytes).unwrap(), all_ticks(&small(5)).unwrap());
}

#[test]
fn cut_at_every_byte_offset_never_panics_and_keeps_every_complete_chunk() {
    let bytes = dogfight_bytes(&DogfightConfig {
        seed: 7,
        entities: 3,
        seconds: 1.0,
        keyframe_interval_ticks: 15,
        ..Default::default()
    })
    .unwrap();
    let full = FlrepFile::open(bytes.clone(), Limits::default()).unwrap();
    let ends: Vec<u64> = full.opened.chunks.iter().map(|c| c.offset + c.len).collect();
    let per_chunk: Vec<usize> = (0..ends.len())
        .map(|i| FlrepFile::open(bytes.clone(), Limits::default()).unwrap().chunk(i).unwrap().ticks.len())
        .collect();
    let mut last_recovered = 0usize;
    for cut in 0..bytes.len() {
        let part = &bytes[..cut];
        let complete = ends.iter().filter(|e| **e as usize <= cut).count();
        match all_ticks(part) {
            Ok(ticks) => {
                let want: usize = per_chunk[..complete].iter().sum();
                assert_eq!(ticks.len(), want, "cut at {cut}: {complete} complete chunks");
                assert!(ticks.len() >= last_recovered, "recovered ticks went down at cut {cut}");
                last_recovered = ticks.len();
            }
            Err(e) => assert_eq!(complete, 0, "cut at {cut} lost {complete} complete chunks: {e}"),
        }
    }
    assert_eq!(last_recovered, per_chunk[..ends.len()].iter().sum::<usize>());
}

#[test]
fn rotation_at_chunk_boundaries_gives_independently_playable_files_with_non_ascii_paths() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("répertoire ✈ запись");
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("séance.flrep");
    let cfg = DogfightConfig { seed: 11, entities: 300, seconds: 30.0, ..Default::default() };
    let mut sim = replay_player::sim::Dogfight::new(cfg.clone());
    let rot = RotationOptions { max_file_mb: 1, max_files: 3 };
    let mut w = RotatingWriter::create(&path, &sim.header(), &sim.sections(), WriterOptions::default(), rot).unwrap();
    while let Some((t, s, e)) = sim.step() {
        w.tick(t, s, &e).unwrap();
    }
    let files = w.finish().unwrap();
    assert_eq!(files.len(), 3, "max_files bounds the series");
    let on_disk: Vec<_> = std::fs::read_dir(&sub).unwrap().collect();
    assert_eq!(on_disk.len(), 3, "older files were pruned");
    let mut prev_last: Option<u64> = None;
    for p in &files {
        let bytes = std::fs::read(p).unwrap();
        assert!(bytes.len() <= 1024 * 1024, "{} is {} bytes", p.display(), bytes.len());
        let f = FlrepFile::open(bytes.clone(), Limits::default()).unwrap();
        assert_eq!(f.opened.index_source, IndexSource::Trailer);
        let ticks = all_ticks(&bytes).unwrap();
        assert!(ticks[0].1.len() >= 300, "each file starts with a full keyframe");
        if let Some(pl) = prev_last {
            assert_eq!(ticks[0].0, pl + 1, "files continue each other");
        }
        prev_last = Some(ticks.last().unwrap().0);
    }
    assert_eq!(prev_last, Some(30 * 60 - 1));
}

#[test]
fn keyframe_interval_is_bounded() {
    for bad in [0u32, 14, 3601] {
        assert!(
            ChunkEncoder::new(WriterOptions { keyframe_interval_ticks: bad, ..Default::default() }).is_err(),
            "{bad}"
        );
    }
    for ok in [15u32, 120, 3600] {
        assert!(ChunkEncoder::new(WriterOptions { keyframe_interval_ticks: ok, ..Default::default() }).is_ok());
    }
}

#[test]
fn seed_workload_is_under_350_bytes_per_tick() {
    // The workload of docs/format/flrep.md §15 ("Keyframe per chunk"): 40 moving entities, 60 Hz, 25 s,
    // keyframe cadence 120.
    let bytes = dogfight_bytes(&DogfightConfig { seed: 1, entities: 40, seconds: 25.0, ..Default::default() }).unwrap();
    let per_tick = bytes.len() as f64 / 1500.0;
    assert!(per_tick <= 350.0, "{per_tick:.1} bytes/tick");
}

#[test]
fn a_non_earth_planet_gives_right_altitudes() {
    use replay_player::model::{world_to_geodetic, WorldKind};
    let r = 600_000.0;
    let bytes = dogfight_bytes(&DogfightConfig {
        seed: 3,
        entities: 4,
        seconds: 1.0,
        planet_radius_m: r,
        ..Default::default()
    })
    .unwrap();
    let f = FlrepFile::open(bytes.clone(), Limits::default()).unwrap();
    let info = f.opened.info();
    assert_eq!(info.world, WorldKind::Planet { radius_m: r });
    for (_, ents) in all_ticks(&bytes).unwrap() {
        for e in ents.iter().filter(|e| e.id < 900_000) {
            let p = e.pos.map(|v| f64::from(v) * info.position_quantum_m);
            let alt = world_to_geodetic(p, r).alt_m;
            assert!((250.0..15_000.0).contains(&alt), "aircraft {} at {alt} m", e.id);
        }
    }
}

fn arb_state() -> impl Strategy<Value = EntityState> {
    (
        0u32..50,
        any::<u16>(),
        any::<u8>(),
        prop::array::uniform3(-1_000_000_000i32..1_000_000_000),
        prop::array::uniform4(-32767i16..=32767),
        prop::array::uniform3(any::<i32>()),
        any::<u16>(),
        any::<u32>(),
        any::<i32>(),
    )
        .prop_map(|(id, type_index, faction, pos, orient, vel, health, flags, anim)| EntityState {
            id,
            type_index,
            faction,
            pos,
            orient,
            vel,
            health,
            flags,
            anim,
        })
}

fn arb_event() -> impl Strategy<Value = EventBody> {
    prop_oneof![
        (any::<u32>(), any::<u32>(), any::<u16>()).prop_map(|(killer, victim, weapon_type)| EventBody::Kill {
            killer,
            victim,
            weapon_type
        }),
        (any::<u32>(), any::<u32>()).prop_map(|(entity, participant)| EventBody::Spawn { entity, participant }),
        (any::<u32>(), any::<u8>()).prop_map(|(entity, reason)| EventBody::Despawn { entity, reason }),
        (any::<u32>(), any::<u8>(), "[a-zA-Z0-9 <>&é✈]{0,40}")
            .prop_map(|(participant, channel, text)| EventBody::Chat { participant, channel, text }),
        (any::<u32>(), "[a-z]{0,10}", "[ -~]{0,20}").prop_map(|(participant, action, detail)| EventBody::Admin {
            participant,
            action,
            detail
        }),
        any::<u8>().prop_map(|level| EventBody::AlertLevel { level }),
        ("[a-z_]{1,12}", any::<u32>(), any::<u32>(), prop::array::uniform3(any::<i32>()), "[ -~]{0,20}")
            .prop_map(|(kind, source, target, pos, data)| EventBody::Custom { kind, source, target, pos, data }),
    ]
}

/// Ticks of arbitrary states: entities come and go, values jump anywhere (including deltas that
/// overflow i32 and must be restated as absolute records).
fn arb_ticks() -> impl Strategy<Value = Vec<(Vec<EntityState>, Vec<EventBody>)>> {
    prop::collection::vec((prop::collection::vec(arb_state(), 0..8), prop::collection::vec(arb_event(), 0..3)), 1..50)
        .prop_map(|ticks| {
            ticks
                .into_iter()
                .map(|(mut states, ev)| {
                    states.sort_by_key(|s| s.id);
                    states.dedup_by_key(|s| s.id);
                    (states, ev)
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn writer_reader_round_trip(ticks in arb_ticks(), interval in 15u32..40, gap in 1u64..4) {
        let h = default_header("prop", 30, 0.0);
        let mut w = Writer::new(Vec::new(), &h, &tiny_sections(), WriterOptions { keyframe_interval_ticks: interval, ..Default::default() }).unwrap();
        let mut want = Vec::new();
        let mut want_events = Vec::new();
        for (k, (states, ev)) in ticks.iter().enumerate() {
            let tick = 100 + k as u64 * gap;
            let events: Vec<Event> = ev.iter().cloned().map(|body| Event { tick, body }).collect();
            w.tick(tick, states, &events).unwrap();
            want.push((tick, states.clone()));
            want_events.extend(events);
        }
        let bytes = w.finish().unwrap();
        prop_assert_eq!(all_ticks(&bytes).unwrap(), want);
        let mut src = bytes.clone();
        let mut s = open_session(&mut src).unwrap();
        let mut got_events = Vec::new();
        for i in 0..s.chunk_count() {
            got_events.extend(read_chunk(&mut s, &mut src, i).unwrap().events);
        }
        prop_assert_eq!(got_events, want_events);
    }
}

#[test]
fn unknown_format_gets_an_error_naming_the_formats() {
    let mut src = b"PK\x03\x04 this is a zip file".to_vec();
    let Err(e) = open_session(&mut src) else { panic!("a zip opened as a replay") };
    let m = e.to_string();
    assert!(
        m.contains(".flrep") && m.contains("SparkEngine") && m.contains(".foldback") && m.contains("50 4B 03 04"),
        "{m}"
    );
}

fn cli() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_replay"))
}

#[test]
fn cli_generate_info_validate_hash_diff() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.flrep");
    let b = dir.path().join("b.flrep");
    for (p, seed) in [(&a, "1"), (&b, "2")] {
        let o = cli()
            .args(["generate", "--out"])
            .arg(p)
            .args(["--seed", seed, "--entities", "6", "--seconds", "2", "--keyframe-interval", "30"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let info = cli().arg("info").arg(&a).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains("format:            flrep 1.0")
            && text.contains("keyframe interval: 30 ticks")
            && text.contains("chunks:            4"),
        "{text}"
    );
    let v = cli().arg("validate").arg(&a).output().unwrap();
    assert!(v.status.success());
    let h = cli().arg("hash").arg(&a).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&h.stdout).lines().count(), 120);
    let same = cli().arg("diff").arg(&a).arg(&a).output().unwrap();
    assert_eq!(same.status.code(), Some(0));
    let d = cli().arg("diff").arg(&a).arg(&b).output().unwrap();
    assert_eq!(d.status.code(), Some(1));
    let out = String::from_utf8_lossy(&d.stdout);
    assert!(out.starts_with("first difference at tick 0 (A) / 0 (B)") && out.contains("entity 1: A"), "{out}");
}

#[test]
fn cli_errors_are_one_line_and_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.flrep");
    let mut bytes = small(3);
    bytes[4] = 9; // major 9
    std::fs::write(&bad, &bytes).unwrap();
    for cmd in ["info", "validate", "dump", "hash"] {
        let o = cli().arg(cmd).arg(&bad).output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(err.contains("this build reads format 1.x") && !err.contains("panicked"), "{err}");
    }
    let missing = cli().args(["info", "/nonexistent/x.flrep"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    // A cut file still validates what it can? No: validate decodes every chunk the scan found.
    let cut = dir.path().join("cut.flrep");
    let good = small(3);
    std::fs::write(&cut, &good[..good.len() * 2 / 3]).unwrap();
    let o = cli().arg("info").arg(&cut).output().unwrap();
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("warning:           no index trailer: index rebuilt by scanning")
    );
}
