//! SparkEngine `.replay`: golden fixtures, hostile files with their exact errors, truncation at every
//! byte, the axis mapping, round trips through `.flrep`, the opener's reads, the writer and the CLI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/dump.rs"]
mod common_dump;
use common_dump::dump;

mod spark_fixtures;

use replay_player::format::spark::{self, map, open::open_bytes, Error, Limits, SparkEntity, SparkEvent, Writer};
use replay_player::format::{OpenStep, Session, SessionError};
use replay_player::io::convert::{to_flrep, to_spark};
use replay_player::io::{open_session, read_chunk};
use replay_player::model::{EntityState, Event, EventBody, FormatKind, WorldKind};
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use replay_player::sim::Rng;
use spark_fixtures::{ent, Raw};
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

/// Opens and decodes everything: (session, ticks with their entities, events).
struct Read {
    s: Session,
    ticks: Vec<(u64, Vec<EntityState>)>,
    events: Vec<Event>,
}

fn read_all(bytes: &[u8]) -> Result<Read, SessionError> {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src)?;
    let (mut ticks, mut events) = (Vec::new(), Vec::new());
    for i in 0..s.chunk_count() {
        let c = read_chunk(&mut s, &mut src, i)?;
        for (k, t) in c.ticks.iter().enumerate() {
            ticks.push((*t, c.tick_entities(k).to_vec()));
        }
        events.extend(c.events);
    }
    Ok(Read { s, ticks, events })
}

fn spark_err(r: Result<Read, SessionError>) -> Error {
    match r {
        Err(SessionError::Spark(e)) => e,
        Err(e) => panic!("not a spark error: {e:?}"),
        Ok(_) => panic!("opened and decoded"),
    }
}

fn warnings(r: &Read) -> String {
    r.s.info().unwrap().warnings.join("\n")
}

// --- golden -----------------------------------------------------------------------------------

#[test]
fn golden_fixtures_read_as_recorded_and_regenerate_byte_for_byte() {
    let dir = fixtures().join("spark");
    let fresh = spark_fixtures::golden();
    assert_eq!(fresh.len(), 2);
    for (name, bytes) in fresh {
        let committed = std::fs::read(dir.join(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (run cargo run --example make_spark_fixtures)"));
        let expected = std::fs::read_to_string(dir.join(name.replace(".replay", ".jsonl"))).unwrap();
        assert_eq!(dump(&committed), expected, "{name}: dump differs from the golden dump");
        assert_eq!(bytes, committed, "{name}: writer or generator output changed; if intended, regenerate");
    }
}

#[test]
fn handmade_fixture_holds_every_event_type_and_the_mapping() {
    let bytes = std::fs::read(fixtures().join("spark/handmade.replay")).unwrap();
    let r = read_all(&bytes).unwrap();
    let info = r.s.info().unwrap();
    assert_eq!(info.format, FormatKind::SparkReplay);
    assert_eq!(info.world, WorldKind::Flat);
    assert_eq!((info.tick_rate_hz, info.first_tick, info.last_tick), (1000, 0, 1900));
    assert_eq!(info.mission_id, "Zürich ✈ <b>yard</b>");
    assert_eq!(
        info.metadata,
        vec![
            ("map".into(), "Zürich ✈ <b>yard</b>".into()),
            ("mode".into(), "ctf".into()),
            ("duration".into(), "2".into())
        ]
    );
    assert_eq!(info.engine_version, "SparkEngine replay v1");
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    let ids: Vec<u32> = info.participants.iter().map(|p| p.id).collect();
    assert_eq!(ids, vec![3, 7]);
    assert_eq!(r.ticks.len(), 20);
    assert_eq!(
        r.ticks[5].1.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![3, 7, 900],
        "sorted by id, the grenade entered"
    );
    assert_eq!(r.ticks[12].1.len(), 2, "the grenade left");
    let t15 = &r.ticks[15].1;
    assert_eq!((t15[1].id, t15[1].health), (7, 25_000));
    assert_eq!((t15[0].id, t15[0].health), (3, 0), "negative health clamps to 0");
    let kinds: Vec<&str> = r.events.iter().map(|e| e.body.kind_name()).collect();
    for k in ["spawn", "kill", "explosion", "pickup", "flag_capture", "objective", "weapon_switch", "emote <wave>"] {
        assert!(kinds.contains(&k), "missing {k}: {kinds:?}");
    }
    let kill = r.events.iter().find(|e| matches!(e.body, EventBody::Kill { .. })).unwrap();
    assert_eq!(kill.tick, 1200);
    assert!(matches!(kill.body, EventBody::Kill { killer: 7, victim: 3, weapon_type: u16::MAX }));
    let (markers, complete) = r.s.markers();
    assert!(complete);
    assert_eq!(markers, std::slice::from_ref(kill));
    let ex = r.events.iter().find(|e| e.body.kind_name() == "explosion").unwrap();
    assert!(
        matches!(&ex.body, EventBody::Custom { source: 7, target: 0, pos: [1024, 3072, 0], data, .. } if data.is_empty())
    );
}

// --- mapping ----------------------------------------------------------------------------------

#[test]
fn coordinates_map_y_up_left_handed_to_z_up_right_handed() {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    // At spark (1, 2, 3), yawed +90° about +Y (forward +Z turned to +X), moving forward at 4 m/s.
    let e = SparkEntity {
        id: 1,
        position: [1.0, 2.0, 3.0],
        rotation: [0.0, s, 0.0, s],
        velocity: [4.0, 0.0, 0.0],
        health: 55.5,
        animation_state: -3,
        flags: 0x8000_0001,
    };
    let bytes = Raw::ok(1).frame(0.0, &[e]).event_count(0).done();
    let r = read_all(&bytes).unwrap();
    let m = r.ticks[0].1[0];
    assert_eq!(m.pos, [1024, 3072, 2048], "x east, spark z north, spark y up");
    assert_eq!(m.vel, [1024, 0, 0]);
    assert_eq!((m.health, m.anim, m.flags), (5550, -3, 0x8000_0001));
    // The model's body +X (forward) points where the spark character faces: east, along its velocity.
    let q = m.orient.map(|c| f64::from(c) / 32767.0);
    let f = map::quat_rotate(q, [1.0, 0.0, 0.0]);
    assert!((f[0] - 1.0).abs() < 1e-4 && f[1].abs() < 1e-4 && f[2].abs() < 1e-4, "{f:?}");
    let up = map::quat_rotate(q, [0.0, 0.0, 1.0]);
    assert!((up[2] - 1.0).abs() < 1e-4, "{up:?}");
}

// --- hostile ----------------------------------------------------------------------------------

fn hostile(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(format!("hostile/spark/{name}.replay"))).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn hostile_fixtures_regenerate_byte_for_byte() {
    for (name, bytes) in spark_fixtures::hostile() {
        assert_eq!(hostile(name), bytes, "{name}: regenerate with cargo run --example make_spark_fixtures");
    }
}

macro_rules! refused {
    ($name:ident, $pat:pat $(if $cond:expr)?) => {
        #[test]
        fn $name() {
            let e = spark_err(read_all(&hostile(stringify!($name))));
            assert!(matches!(e, $pat $(if $cond)?), "{}: {e:?}", stringify!($name));
            let _ = e.to_string();
        }
    };
}

refused!(big_endian, Error::BigEndian);
refused!(version_zero, Error::UnsupportedVersion { version: 0 });
refused!(version_newer, Error::NewerVersion { version: 2, supported: 1 });
refused!(magic_only, Error::Truncated { what: "version", at: 4, need: 4, have: 0 });
refused!(header_cut_in_map_name, Error::Truncated { what: "map name", at: 12, need: 11, have: 2 });
refused!(map_name_over_limit, Error::StringTooLong { what: "map name", at: 8, len: 4097, max: 4096 });
refused!(map_name_len_u32_max, Error::StringTooLong { what: "map name", len: 4_294_967_295, .. });
refused!(game_mode_over_limit, Error::StringTooLong { what: "game mode", len: 4097, .. });
refused!(frame_count_over_limit, Error::TooManyFrames { count: 1_000_001, max: 1_000_000 });
refused!(frame_count_u32_max, Error::TooManyFrames { count: 4_294_967_295, .. });
refused!(zero_frames, Error::NoFrames);
refused!(entity_count_over_limit, Error::TooManyEntities { frame: 0, count: 100_001, max: 100_000, .. });
refused!(entity_count_u32_max, Error::TooManyEntities { frame: 1, count: 4_294_967_295, .. });
refused!(event_count_over_limit, Error::TooManyEvents { count: 1_000_001, max: 1_000_000 });
refused!(event_type_over_limit, Error::StringTooLong { what: "event type", len: 4097, .. });
refused!(cut_in_first_frame, Error::Truncated { what: "first frame's entity states", need: 112, have: 102, .. });
refused!(cut_in_first_frame_header, Error::Truncated { what: "first frame's header", need: 12, have: 3, .. });
refused!(frame_timestamp_nan, Error::BadTimestamp { what: "frame", index: 1, ref reason, .. } if reason.contains("not a finite number"));
refused!(frame_timestamp_negative, Error::BadTimestamp { what: "frame", index: 0, ref reason, .. } if reason.contains("negative"));
refused!(frame_timestamp_infinite, Error::BadTimestamp { what: "frame", index: 0, .. });
refused!(position_nan, Error::BadEntity { frame: 0, entity: 1, field: "position", .. });
refused!(position_out_of_range, Error::BadEntity { frame: 0, entity: 1, field: "position", ref reason, .. } if reason.contains("outside"));
refused!(rotation_infinite, Error::BadEntity { field: "rotation", .. });
refused!(velocity_nan, Error::BadEntity { field: "velocity", .. });
refused!(health_nan, Error::BadEntity { field: "health", .. });
refused!(duplicate_entity, Error::DuplicateEntity { frame: 0, entity: 4, .. });
refused!(event_timestamp_nan, Error::BadTimestamp { what: "event", index: 0, .. });
refused!(event_position_infinite, Error::BadEvent { index: 0, field: "position", .. });

#[test]
fn bad_magic_and_empty_through_the_session() {
    for (name, shown) in [("bad_magic", "4E 4F 50 45"), ("empty", "none: the file is empty")] {
        match read_all(&hostile(name)) {
            Err(SessionError::UnknownFormat(m)) => assert!(m.contains(shown), "{name}: {m}"),
            other => panic!("{name}: {:?}", other.err()),
        }
    }
    // The spark opener alone names the magic it found.
    assert!(
        matches!(open_bytes(&hostile("bad_magic"), Limits::default()), Err(Error::BadMagic { found }) if &found == b"NOPE")
    );
    let e = spark_err(read_all(&hostile("big_endian"))).to_string();
    assert!(e.contains("big-endian") && e.contains("RPLY"), "{e}");
    let e = spark_err(read_all(&hostile("version_newer"))).to_string();
    assert_eq!(e, "this SparkEngine replay is version 2; this build reads version 1 only");
}

#[test]
fn cut_files_keep_their_complete_frames() {
    let r = read_all(&hostile("cut_in_third_frame")).unwrap();
    assert_eq!(r.ticks.len(), 2);
    let w = warnings(&r);
    assert!(w.contains("the file ends inside frame 2") && w.contains("kept the 2 complete frames of 3"), "{w}");
    assert!(!r.s.markers().1, "events lost: markers incomplete");

    let r = read_all(&hostile("frame_count_beyond_file")).unwrap();
    assert_eq!(r.ticks.len(), 2);
    assert!(warnings(&r).contains("of 1000000"), "{}", warnings(&r));

    let r = read_all(&hostile("no_events_block")).unwrap();
    assert_eq!((r.ticks.len(), r.events.len()), (3, 0));
    assert!(warnings(&r).contains("after the last frame"), "{}", warnings(&r));

    let r = read_all(&hostile("cut_in_events")).unwrap();
    assert_eq!((r.ticks.len(), r.events.len()), (3, 1));
    assert!(warnings(&r).contains("kept 1 of 2 events"), "{}", warnings(&r));
    assert!(!r.s.markers().1);

    let r = read_all(&hostile("trailing_bytes")).unwrap();
    assert_eq!((r.ticks.len(), r.events.len()), (3, 2));
    assert!(warnings(&r).contains("8 bytes after the events block"), "{}", warnings(&r));
    assert!(r.s.markers().1);
}

#[test]
fn sanitised_and_reordered_input_opens_with_warnings() {
    let r = read_all(&hostile("map_name_nul_bidi")).unwrap();
    let i = r.s.info().unwrap();
    assert_eq!(i.mission_id, "de_\u{FFFD}dust\u{FFFD}2");
    assert!(warnings(&r).contains("map name held invalid UTF-8 or control/bidirectional characters"));

    let r = read_all(&hostile("map_name_not_utf8")).unwrap();
    assert_eq!(r.s.info().unwrap().mission_id, "caf\u{FFFD}");

    let r = read_all(&hostile("event_type_not_utf8")).unwrap();
    assert_eq!(r.events[0].body.kind_name(), "\u{FFFD}\u{FFFD}kill", "not a kill: only the exact bytes \"kill\" are");
    assert!(warnings(&r).contains("1 event types held invalid UTF-8"));

    let r = read_all(&hostile("timestamps_not_increasing")).unwrap();
    assert_eq!(
        r.ticks.iter().map(|t| t.0).collect::<Vec<_>>(),
        vec![0, 100],
        "0.05 s and 0.1004 s (tick 100) are not after 0.1 s"
    );
    assert!(warnings(&r).contains("2 frames dropped"), "{}", warnings(&r));

    let r = read_all(&hostile("events_out_of_order")).unwrap();
    assert_eq!(r.events.iter().map(|e| e.tick).collect::<Vec<_>>(), vec![0, 100], "events sorted by tick");

    let r = read_all(&hostile("rotation_zero")).unwrap();
    assert_eq!(r.ticks[0].1[0].orient, map::rotation_to_model([0.0, 0.0, 0.0, 1.0]).unwrap());
}

// --- truncation and mutation ------------------------------------------------------------------

#[test]
fn truncation_at_every_byte_never_panics_and_keeps_complete_frames() {
    let bytes = std::fs::read(fixtures().join("spark/handmade.replay")).unwrap();
    let full = read_all(&bytes).unwrap();
    let o = open_bytes(&bytes, Limits::default()).unwrap();
    // Frame k ends at frame_ends[k].
    let mut frame_ends = Vec::new();
    let mut at = o.chunks[0].offset;
    for (_, ents) in &full.ticks {
        at += 12 + 56 * ents.len() as u64;
        frame_ends.push(at);
    }
    for cut in 0..bytes.len() {
        let r = read_all(&bytes[..cut]);
        let complete = frame_ends.iter().filter(|e| **e <= cut as u64).count();
        match r {
            Ok(r) => {
                assert_eq!(r.ticks.len(), complete, "cut at {cut}");
                assert_eq!(r.ticks[..], full.ticks[..complete], "cut at {cut}");
                assert!(!warnings(&r).is_empty(), "cut at {cut}: no warning");
            }
            Err(e) => assert_eq!(complete, 0, "cut at {cut}: {e}"),
        }
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let bytes = std::fs::read(fixtures().join("spark/handmade.replay")).unwrap();
    let mut rng = Rng::new(42);
    for _ in 0..3000 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(b.len());
            b[i] = rng.next_u64() as u8;
        }
        if let Ok(r) = read_all(&b) {
            let _ = r.s.info().unwrap();
        }
    }
}

// --- the opener's reads -----------------------------------------------------------------------

#[test]
fn open_reads_frame_headers_in_big_ranges_and_markers_are_complete() {
    let bytes = deathmatch_bytes(&DeathmatchConfig { players: 10, seconds: 120.0, ..Default::default() }).unwrap();
    assert!(bytes.len() > 1 << 20);
    let mut s = Session::new(bytes.len() as u64);
    let (mut reads, mut read_bytes) = (0u64, 0u64);
    let mut input: Option<Vec<u8>> = None;
    while let OpenStep::Need { offset, len } = s.next(input.as_deref()).unwrap() {
        assert!(len <= 1 << 20, "asked for {len} bytes");
        reads += 1;
        read_bytes += len;
        input = Some(bytes[offset as usize..(offset + len) as usize].to_vec());
    }
    // One pass: each byte asked for about once (a frame straddling a window is asked again).
    assert!(reads <= bytes.len() as u64 / (1 << 20) + 4, "{reads} reads for {} bytes", bytes.len());
    assert!(read_bytes < bytes.len() as u64 + (1 << 20), "{read_bytes} bytes read");
    let (markers, complete) = s.markers();
    assert!(complete);
    let markers = markers.to_vec();
    let r = read_all(&bytes).unwrap();
    let kills: Vec<Event> = r.events.iter().filter(|e| matches!(e.body, EventBody::Kill { .. })).cloned().collect();
    assert!(!kills.is_empty());
    assert_eq!(markers, kills);
    assert_eq!(r.ticks.len(), 2400);
    // Chunks: 64 frames each, seekable by tick.
    assert_eq!(s.chunk_count(), 2400usize.div_ceil(64));
    assert_eq!(s.chunk_for_tick(64 * 50), 1);
    assert_eq!(s.chunk_for_tick(64 * 50 - 1), 0);
    assert_eq!(s.chunk_for_tick(u64::MAX), s.chunk_count() - 1);
}

#[test]
fn frames_larger_than_the_scan_window_are_skipped_not_read() {
    // 3 frames of 20,000 entities (1.12 MB each): the scan reads their headers with small ranges.
    let ents: Vec<SparkEntity> = (0..20_000).map(|i| ent(i, 0.0)).collect();
    let bytes = Raw::ok(3).frame(0.0, &ents).frame(0.05, &ents).frame(0.1, &ents).event_count(0).done();
    let mut op = spark::Opener::new(bytes.len() as u64, Limits::default());
    let mut input: Option<&[u8]> = None;
    let mut total = 0u64;
    let opened = loop {
        match op.next(input).unwrap() {
            spark::Step::Need { offset, len } => {
                total += len;
                input = Some(&bytes[offset as usize..(offset + len) as usize]);
            }
            spark::Step::Ready(o) => break o,
        }
    };
    assert!(total < bytes.len() as u64 / 2, "read {total} of {} bytes", bytes.len());
    assert_eq!(opened.chunks.len(), 3, "a chunk closes before passing 512 KiB");
    assert_eq!(opened.participants.len(), 0, "frame 0's ids lay beyond the first read");
}

// --- round trips, writer, generator -----------------------------------------------------------

fn convert_to_flrep(bytes: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src).unwrap();
    let (out, notes) = to_flrep(&mut s, &mut src, Vec::new()).unwrap();
    (out, notes)
}

fn convert_to_spark(bytes: &[u8]) -> (Vec<u8>, Vec<String>) {
    let mut src = bytes.to_vec();
    let mut s = open_session(&mut src).unwrap();
    let (out, notes) = to_spark(&mut s, &mut src, std::io::Cursor::new(Vec::new())).unwrap();
    (out.into_inner(), notes)
}

#[test]
fn spark_to_flrep_is_exact_and_back_is_within_quantization() {
    let bytes =
        deathmatch_bytes(&DeathmatchConfig { players: 6, seconds: 30.0, seed: 5, ..Default::default() }).unwrap();
    let a = read_all(&bytes).unwrap();
    let (flrep, notes) = convert_to_flrep(&bytes);
    assert!(notes.iter().any(|n| n.contains("frameNumber")), "{notes:?}");
    let f = read_all(&flrep).unwrap();
    let fi = f.s.info().unwrap();
    assert_eq!(fi.format, FormatKind::Flrep);
    assert_eq!(
        (fi.tick_rate_hz, fi.position_quantum_m, fi.velocity_quantum_mps, fi.world),
        (1000, 1.0 / 1024.0, 1.0 / 256.0, WorldKind::Flat)
    );
    assert_eq!(fi.keyframe_interval_ticks, 40, "2 s of 20 fps frames per chunk");
    assert_eq!(fi.metadata, a.s.info().unwrap().metadata, "map/mode/duration in section 0x0005");
    assert_eq!(f.ticks, a.ticks, "through .flrep the model is unchanged");
    assert_eq!(f.events, a.events);

    let (back, notes) = convert_to_spark(&flrep);
    assert!(notes.is_empty(), "nothing to lose for a spark-born recording: {notes:?}");
    let b = read_all(&back).unwrap();
    assert_eq!(b.ticks.len(), a.ticks.len());
    for ((ta, ea), (tb, eb)) in a.ticks.iter().zip(&b.ticks) {
        assert_eq!(ta, tb);
        assert_eq!(ea.len(), eb.len());
        for (x, y) in ea.iter().zip(eb) {
            assert_eq!(
                (x.id, x.pos, x.vel, x.health, x.flags, x.anim),
                (y.id, y.pos, y.vel, y.health, y.flags, y.anim)
            );
            let d = x.orient.iter().zip(y.orient).map(|(p, q)| (i32::from(*p) - i32::from(q)).abs()).max().unwrap();
            let dn = x.orient.iter().zip(y.orient).map(|(p, q)| (i32::from(*p) + i32::from(q)).abs()).max().unwrap();
            assert!(d.min(dn) <= 2, "tick {ta} entity {}: {:?} vs {:?}", x.id, x.orient, y.orient);
        }
    }
    // Events: same ticks, kinds and entities; kill positions come back from the victim's position.
    assert_eq!(a.events.len(), b.events.len());
    for (x, y) in a.events.iter().zip(&b.events) {
        assert_eq!(x, y);
    }
    let sa = open_bytes(&bytes, Limits::default()).unwrap();
    let sb = open_bytes(&back, Limits::default()).unwrap();
    assert_eq!((sa.map_name, sa.game_mode, sa.duration), (sb.map_name, sb.game_mode, sb.duration));
}

#[test]
fn flrep_to_spark_reports_what_is_lost() {
    let golden = std::fs::read(fixtures().join("golden/events.flrep")).unwrap();
    let (back, notes) = convert_to_spark(&golden);
    let all = notes.join("\n");
    for want in [
        "factions are not kept",
        "roster callsigns are not kept",
        "entity types are not kept",
        "chat events have no SparkEngine equivalent",
        "lost their data field",
        "ticks at 20 Hz",
    ] {
        assert!(all.contains(want), "missing {want:?} in:\n{all}");
    }
    let b = read_all(&back).unwrap();
    let src = read_all(&golden).unwrap();
    assert_eq!(b.ticks.len(), src.ticks.len());
    assert_eq!(b.s.info().unwrap().mission_id, "de_golden");
    // A planet-centred recording is refused with a reason.
    let earth = std::fs::read(fixtures().join("golden/dogfight-earth.flrep")).unwrap();
    let mut srcb = earth.clone();
    let mut s = open_session(&mut srcb).unwrap();
    let e = to_spark(&mut s, &mut srcb, std::io::Cursor::new(Vec::new())).err().unwrap().to_string();
    assert!(e.contains("planet-centred"), "{e}");
}

#[test]
fn writer_refuses_what_the_reader_would_refuse() {
    let w = || Writer::new(std::io::Cursor::new(Vec::new()), "m", "d").unwrap();
    let mut a = w();
    a.frame(0.1, 0, &[ent(1, 0.0)]).unwrap();
    assert!(a.frame(0.1, 1, &[ent(1, 0.0)]).is_err(), "same millisecond");
    assert!(a.frame(0.05, 1, &[ent(1, 0.0)]).is_err(), "backwards");
    assert!(a.frame(f32::NAN, 1, &[]).is_err());
    assert!(a.frame(0.2, 1, &[ent(1, 0.0), ent(1, 0.0)]).is_err(), "duplicate id");
    assert!(a.frame(0.2, 1, &[SparkEntity { position: [f32::INFINITY, 0.0, 0.0], ..ent(1, 0.0) }]).is_err());
    assert!(a.event(SparkEvent { timestamp: -1.0, kind: "kill".into(), ..Default::default() }).is_err());
    a.event(SparkEvent { timestamp: 0.1, kind: "bad\u{202E}name\0".into(), ..Default::default() }).unwrap();
    let bytes = a.finish(None).unwrap().into_inner();
    let r = read_all(&bytes).unwrap();
    assert_eq!(r.ticks.len(), 1);
    assert_eq!(r.events[0].body.kind_name(), "bad\u{FFFD}name\u{FFFD}", "cleaned by the writer: no reader warning");
    assert!(warnings(&r).is_empty());
    let o = open_bytes(&bytes, Limits::default()).unwrap();
    assert_eq!((o.frame_count, o.duration), (1, 0.1), "patched at finish");
}

#[test]
fn deathmatch_is_deterministic_and_has_every_event_type() {
    let cfg = DeathmatchConfig { players: 10, seconds: 300.0, ..Default::default() };
    let a = deathmatch_bytes(&cfg).unwrap();
    assert_eq!(a, deathmatch_bytes(&cfg).unwrap());
    assert_ne!(a, deathmatch_bytes(&DeathmatchConfig { seed: 2, ..cfg.clone() }).unwrap());
    let o = open_bytes(&a, Limits::default()).unwrap();
    assert_eq!(o.frames_read, 6000);
    let kinds: std::collections::BTreeSet<&str> = o.events.iter().map(|e| e.body.kind_name()).collect();
    for k in ["kill", "explosion", "pickup", "spawn", "flag_capture", "objective", "weapon_switch"] {
        assert!(kinds.contains(k), "no {k} in {kinds:?}");
    }
    // Flags exercised: firing, crouching, sprinting, reloading, scoped; grenades enter and leave.
    let r = read_all(&a).unwrap();
    let mut seen = 0u32;
    let mut max_ents = 0;
    for (_, e) in &r.ticks {
        max_ents = max_ents.max(e.len());
        for s in e {
            seen |= s.flags;
        }
    }
    assert_eq!(seen & 0xBF, 0xBF, "flags seen: {seen:#x}");
    assert!(max_ents > 10, "grenade entities in flight");
    assert_eq!(o.participants.len(), 10);
}

// --- CLI --------------------------------------------------------------------------------------

fn cli(args: &[&str]) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_replay")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn frame_stats_speak_sparkengine_terms() {
    // frameCount as declared, the frames in the file, the frames that play, the record interval.
    let stats = |b: &[u8]| read_all(b).unwrap().s.spark().expect("a SparkEngine session").frame_stats();
    let f = stats(&std::fs::read(fixtures().join("spark/handmade.replay")).unwrap());
    assert_eq!((f.declared, f.read, f.kept, f.first_s, f.last_s), (20, 20, 20, 0.0, 1.9));
    assert!((f.interval_s.unwrap() - 0.1).abs() < 1e-9, "{f:?}");
    let f = stats(&hostile("cut_in_third_frame"));
    assert_eq!((f.declared, f.read, f.kept), (3, 2, 2), "cut: fewer in the file than declared");
    let f = stats(&hostile("timestamps_not_increasing"));
    assert_eq!((f.declared, f.read, f.kept), (4, 4, 2), "dropped frames do not play");
    let one = Raw::ok(1).frames(1).event_count(0).done();
    assert_eq!(stats(&one).interval_s, None);
    let dm = deathmatch_bytes(&DeathmatchConfig { seed: 1, players: 2, seconds: 3.0, ..Default::default() }).unwrap();
    let f = stats(&dm);
    assert_eq!((f.declared, f.kept), (60, 60));
    assert!((f.interval_s.unwrap() - 0.05).abs() < 1e-9, "20 fps: {f:?}");
    assert!(read_all(&std::fs::read(fixtures().join("golden/dogfight-flat.flrep")).unwrap())
        .unwrap()
        .s
        .spark()
        .is_none());
}

#[test]
fn cli_info_validate_dump_generate_convert() {
    let f = fixtures().join("spark/handmade.replay");
    let f = f.to_str().unwrap();
    let (code, out, err) = cli(&["info", f]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("SparkEngine replay 1.0")
            && out.contains("map: Zürich ✈ <b>yard</b>")
            && out.contains("kill markers:      1\n")
            && out.contains("frames:            20 (frameCount 20)\n")
            && out.contains("record interval:   0.100 s (10.0 frames per second)\n")
            && !out.contains("ticks:"),
        "{out}"
    );
    let (code, out, _) = cli(&["validate", f]);
    assert_eq!((code, out.trim()), (0, "ok: 1 chunks, 20 ticks, 10 events"));
    let (code, out, _) = cli(&["dump", f]);
    assert_eq!(code, 0);
    assert_eq!(out, std::fs::read_to_string(fixtures().join("spark/handmade.jsonl")).unwrap());
    let (code, _, err) = cli(&["validate", fixtures().join("hostile/spark/duplicate_entity.replay").to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("entity 4 appears twice"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let (code, _, err) = cli(&[
        "generate",
        "--format",
        "spark",
        "--out",
        &p("dm.replay"),
        "--seed",
        "3",
        "--players",
        "4",
        "--seconds",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(p("dm.replay")).unwrap(),
        deathmatch_bytes(&DeathmatchConfig { seed: 3, players: 4, seconds: 5.0, ..Default::default() }).unwrap()
    );
    let (code, _, err) = cli(&["convert", &p("dm.replay"), &p("dm.flrep")]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = cli(&["convert", &p("dm.flrep"), &p("back.replay")]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = cli(&["diff", &p("dm.replay"), &p("dm.flrep")]);
    assert_eq!((code, out.trim()), (0, "identical: 100 ticks"));
    let (code, out, _) = cli(&["validate", &p("back.replay")]);
    assert_eq!(code, 0, "{out}");
    // The default generate is still the .flrep dogfight.
    let (code, _, err) = cli(&["generate", "--out", &p("d.flrep"), "--seconds", "1", "--entities", "2"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(&std::fs::read(p("d.flrep")).unwrap()[..4], b"FLRP");
}
