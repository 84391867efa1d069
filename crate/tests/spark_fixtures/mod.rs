//! SparkEngine fixtures, shared by `examples/make_spark_fixtures.rs` (which writes them to
//! tests/fixtures/spark/ and tests/fixtures/hostile/spark/) and `tests/spark.rs` (which regenerates
//! them and compares bytes).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::bytes::PutLe;
use replay_player::format::spark::{write_entity, SparkEntity, SparkEvent, Writer};
use replay_player::model::flags;
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};

/// (file name, bytes) of every golden fixture.
pub fn golden() -> Vec<(&'static str, Vec<u8>)> {
    let dm = DeathmatchConfig {
        seed: 11,
        players: 3,
        seconds: 4.0,
        fps: 20,
        map_name: "dm_golden".into(),
        game_mode: "deathmatch".into(),
    };
    vec![("deathmatch-3p.replay", deathmatch_bytes(&dm).unwrap()), ("handmade.replay", handmade())]
}

pub fn ent(id: u32, t: f32) -> SparkEntity {
    let yaw = t * 0.7 + id as f32;
    SparkEntity {
        id,
        position: [10.0 + t * 2.0 + id as f32, 0.25 * id as f32, -5.0 + t],
        rotation: [0.1, (yaw / 2.0).sin(), 0.05, (yaw / 2.0).cos()],
        velocity: [2.0, 0.0, 1.0],
        health: 100.0 - t * 10.0,
        animation_state: (t * 4.0) as i32,
        flags: flags::ALIVE
            | flags::VISIBLE
            | if id.is_multiple_of(2) { flags::FIRING | flags::SCOPED } else { flags::SPRINTING },
    }
}

/// Every event type of docs/format/spark-replay.md's table plus an unknown one, entities entering and leaving, a
/// non-ASCII map name, health over 100 and below 0, at 10 fps over 2 s (two chunks are not needed:
/// the deathmatch fixture has them).
pub fn handmade() -> Vec<u8> {
    let mut w = Writer::new(std::io::Cursor::new(Vec::new()), "Zürich ✈ <b>yard</b>", "ctf").unwrap();
    for f in 0..20u32 {
        let t = f as f32 * 0.1;
        let mut ents = vec![ent(7, t), ent(3, t)];
        if (5..12).contains(&f) {
            ents.push(SparkEntity {
                id: 900,
                position: [1.0, 2.0, 3.0],
                velocity: [0.0, -9.0, 4.0],
                health: 1.0,
                flags: flags::VISIBLE,
                ..Default::default()
            });
        }
        if f == 15 {
            ents[0].health = 250.0;
            ents[1].health = -20.0;
            ents[1].flags = flags::VISIBLE | flags::IN_VEHICLE | flags::RELOADING | flags::CROUCHING;
        }
        w.frame(t, 100 + f, &ents).unwrap();
    }
    let ev = |t: f32, k: &str, s: u32, g: u32, p: [f32; 3]| SparkEvent {
        timestamp: t,
        kind: k.into(),
        source: s,
        target: g,
        position: p,
    };
    for e in [
        ev(0.0, "spawn", 7, 0, [10.0, 0.0, -5.0]),
        ev(0.0, "spawn", 3, 0, [13.0, 0.0, -5.0]),
        ev(0.5, "weapon_switch", 7, 0, [18.0, 1.75, -4.5]),
        ev(0.6, "pickup", 3, 0, [14.0, 0.0, -4.0]),
        ev(1.1, "explosion", 7, 0, [1.0, 0.0, 3.0]),
        ev(1.2, "kill", 7, 3, [15.4, 0.75, -3.8]),
        ev(1.25, "flag_capture", 7, 0, [50.0, 0.0, 50.0]),
        ev(1.5, "objective", 7, 0, [15.0, 0.0, 15.0]),
        ev(1.5, "emote <wave>", 7, 3, [0.0, 0.0, 0.0]),
        ev(1.9, "spawn", 3, 0, [5.0, 0.0, 95.0]),
    ] {
        w.event(e).unwrap();
    }
    w.finish(Some(2.0)).unwrap().into_inner()
}

/// A raw file builder for crafted (hostile) files.
pub struct Raw(pub Vec<u8>);

impl Raw {
    pub fn new(magic: &[u8; 4], version: u32, map: &[u8], mode: &[u8], frame_count: u32) -> Raw {
        let mut b = Vec::new();
        b.extend_from_slice(magic);
        b.put_u32(version);
        b.put_u32(map.len() as u32);
        b.extend_from_slice(map);
        b.put_u32(mode.len() as u32);
        b.extend_from_slice(mode);
        b.put_f32(1.0);
        b.put_u32(frame_count);
        Raw(b)
    }
    pub fn ok(frame_count: u32) -> Raw {
        Raw::new(b"YLPR", 1, b"dm_test", b"deathmatch", frame_count)
    }
    pub fn frame(mut self, ts: f32, ents: &[SparkEntity]) -> Raw {
        self.0.put_f32(ts);
        self.0.put_u32(0);
        self.0.put_u32(ents.len() as u32);
        for e in ents {
            write_entity(&mut self.0, e);
        }
        self
    }
    pub fn frames(mut self, n: u32) -> Raw {
        for f in 0..n {
            let t = f as f32 * 0.05;
            self = self.frame(t, &[ent(1, t), ent(2, t)]);
        }
        self
    }
    pub fn event_count(mut self, n: u32) -> Raw {
        self.0.put_u32(n);
        self
    }
    pub fn event(mut self, ts: f32, kind: &[u8], source: u32, target: u32, pos: [f32; 3]) -> Raw {
        self.0.put_f32(ts);
        self.0.put_u32(kind.len() as u32);
        self.0.extend_from_slice(kind);
        self.0.put_u32(source);
        self.0.put_u32(target);
        for v in pos {
            self.0.put_f32(v);
        }
        self
    }
    pub fn raw(mut self, b: &[u8]) -> Raw {
        self.0.extend_from_slice(b);
        self
    }
    pub fn cut(mut self, drop: usize) -> Raw {
        self.0.truncate(self.0.len() - drop);
        self
    }
    pub fn done(self) -> Vec<u8> {
        self.0
    }
}

/// A valid small file: 3 frames, 2 events.
pub fn base() -> Raw {
    Raw::ok(3).frames(3).event_count(2).event(0.05, b"kill", 1, 2, [1.0, 0.0, 2.0]).event(
        0.1,
        b"pickup",
        2,
        0,
        [0.0, 0.0, 0.0],
    )
}

/// (name, bytes) of every hostile fixture. The expected outcome of each is asserted in tests/spark.rs.
pub fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    let e1 = |t: f32| [ent(1, t)];
    let mut v: Vec<(&'static str, Vec<u8>)> = vec![
        ("bad_magic", Raw::new(b"NOPE", 1, b"m", b"d", 1).frames(1).event_count(0).done()),
        ("big_endian", {
            let mut b = Raw::new(b"RPLY", 0, b"", b"", 0).done();
            b[4..8].copy_from_slice(&1u32.to_be_bytes());
            b
        }),
        ("version_zero", Raw::new(b"YLPR", 0, b"m", b"d", 1).frames(1).event_count(0).done()),
        ("version_newer", Raw::new(b"YLPR", 2, b"m", b"d", 1).frames(1).event_count(0).done()),
        ("empty", Vec::new()),
        ("magic_only", b"YLPR".to_vec()),
        ("header_cut_in_map_name", Raw::new(b"YLPR", 1, b"dm_test_map", b"d", 1).done()[..14].to_vec()),
        ("map_name_over_limit", Raw::new(b"YLPR", 1, &vec![b'a'; 4097], b"d", 1).frames(1).event_count(0).done()),
        ("map_name_len_u32_max", {
            let mut b = Raw::ok(1).done();
            b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
            b
        }),
        ("game_mode_over_limit", Raw::new(b"YLPR", 1, b"m", &vec![b'b'; 4097], 1).frames(1).event_count(0).done()),
        ("frame_count_over_limit", Raw::ok(1_000_001).frames(1).event_count(0).done()),
        ("frame_count_u32_max", Raw::ok(u32::MAX).frames(1).event_count(0).done()),
        ("zero_frames", Raw::ok(0).event_count(0).done()),
        ("entity_count_over_limit", {
            let mut r = Raw::ok(1);
            r.0.put_f32(0.0);
            r.0.put_u32(0);
            r.0.put_u32(100_001);
            r.raw(&[0; 56]).done()
        }),
        ("entity_count_u32_max", {
            let mut r = Raw::ok(2).frames(1);
            r.0.put_f32(0.1);
            r.0.put_u32(1);
            r.0.put_u32(u32::MAX);
            r.done()
        }),
        ("event_count_over_limit", Raw::ok(1).frames(1).event_count(1_000_001).done()),
        (
            "event_type_over_limit",
            Raw::ok(1).frames(1).event_count(1).event(0.0, &vec![b'k'; 4097], 1, 2, [0.0; 3]).done(),
        ),
        ("cut_in_first_frame", Raw::ok(3).frames(1).cut(10).done()),
        ("cut_in_first_frame_header", Raw::ok(3).raw(&[0, 0, 0]).done()),
        ("cut_in_third_frame", Raw::ok(3).frames(3).cut(30).done()),
        ("frame_count_beyond_file", Raw::ok(1_000_000).frames(2).done()),
        ("no_events_block", Raw::ok(3).frames(3).done()),
        ("cut_in_events", base().cut(5).done()),
        ("trailing_bytes", base().raw(b"garbage!").done()),
        ("frame_timestamp_nan", Raw::ok(2).frames(1).frame(f32::NAN, &e1(0.0)).event_count(0).done()),
        ("frame_timestamp_negative", Raw::ok(1).frame(-1.0, &e1(0.0)).event_count(0).done()),
        ("frame_timestamp_infinite", Raw::ok(1).frame(f32::INFINITY, &e1(0.0)).event_count(0).done()),
        (
            "timestamps_not_increasing",
            Raw::ok(4)
                .frame(0.0, &e1(0.0))
                .frame(0.1, &e1(0.1))
                .frame(0.05, &e1(0.05))
                .frame(0.1004, &e1(0.1))
                .event_count(0)
                .done(),
        ),
        (
            "position_nan",
            Raw::ok(1)
                .frame(0.0, &[SparkEntity { position: [f32::NAN, 0.0, 0.0], ..ent(1, 0.0) }])
                .event_count(0)
                .done(),
        ),
        (
            "position_out_of_range",
            Raw::ok(1).frame(0.0, &[SparkEntity { position: [0.0, 0.0, 3.0e6], ..ent(1, 0.0) }]).event_count(0).done(),
        ),
        (
            "rotation_infinite",
            Raw::ok(1)
                .frame(0.0, &[SparkEntity { rotation: [0.0, f32::INFINITY, 0.0, 1.0], ..ent(1, 0.0) }])
                .event_count(0)
                .done(),
        ),
        (
            "velocity_nan",
            Raw::ok(1)
                .frame(0.0, &[SparkEntity { velocity: [0.0, f32::NAN, 0.0], ..ent(1, 0.0) }])
                .event_count(0)
                .done(),
        ),
        ("health_nan", Raw::ok(1).frame(0.0, &[SparkEntity { health: f32::NAN, ..ent(1, 0.0) }]).event_count(0).done()),
        ("duplicate_entity", Raw::ok(1).frame(0.0, &[ent(4, 0.0), ent(4, 0.0)]).event_count(0).done()),
        (
            "rotation_zero",
            Raw::ok(1).frame(0.0, &[SparkEntity { rotation: [0.0; 4], ..ent(1, 0.0) }]).event_count(0).done(),
        ),
        ("event_timestamp_nan", Raw::ok(1).frames(1).event_count(1).event(f32::NAN, b"kill", 1, 2, [0.0; 3]).done()),
        (
            "event_position_infinite",
            Raw::ok(1).frames(1).event_count(1).event(0.0, b"explosion", 1, 0, [0.0, f32::NEG_INFINITY, 0.0]).done(),
        ),
        (
            "map_name_nul_bidi",
            Raw::new(b"YLPR", 1, "de_\0dust\u{202E}2".as_bytes(), b"d", 1).frames(1).event_count(0).done(),
        ),
        ("map_name_not_utf8", Raw::new(b"YLPR", 1, b"caf\xe9", b"d", 1).frames(1).event_count(0).done()),
        ("event_type_not_utf8", Raw::ok(1).frames(1).event_count(1).event(0.0, b"\xff\xfekill", 1, 2, [0.0; 3]).done()),
        (
            "events_out_of_order",
            Raw::ok(3)
                .frames(3)
                .event_count(2)
                .event(0.1, b"kill", 1, 2, [0.0; 3])
                .event(0.0, b"spawn", 1, 0, [0.0; 3])
                .done(),
        ),
    ];
    v.sort_by_key(|(n, _)| *n);
    v
}
