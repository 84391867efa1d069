//! The host's poster (`crate::host::poster`): read from a stored file through the sans-IO session
//! (only the chunks around the moment), drawn as a 1200×630 PNG that decodes, shows each faction's
//! colour where there are entities, changes with the moment, and survives hostile values.
//!
//! With `POSTER_OUT=/some/dir` the posters are also written there to be looked at.
#![cfg(feature = "host")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::host::poster::{self, Frame, Kill, Moment};
use replay_player::io::ReadAt;
use replay_player::model::{flags, Category, EntityState, EntityType, Faction, Participant, RecordingInfo};
use replay_player::render::scene::FACTION_RGB;
use replay_player::sim::{deathmatch_bytes, dogfight_bytes, DeathmatchConfig, DogfightConfig};

/// A decoded poster: width, height, RGBA8 pixels.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut d = png::Decoder::new(png_bytes);
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = d.read_info().expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).expect("a frame");
    assert_eq!(info.color_type, png::ColorType::Rgba, "RGBA");
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

fn rgb8(c: [f32; 3]) -> [u8; 3] {
    c.map(|v| (v * 255.0).round() as u8)
}

/// Pixels within 2 of `rgb` in every channel, fully opaque.
fn count(px: &[u8], rgb: [u8; 3]) -> usize {
    px.chunks_exact(4)
        .filter(|p| p[3] == 255 && (0..3).all(|i| (i32::from(p[i]) - i32::from(rgb[i])).abs() <= 2))
        .count()
}

fn save(name: &str, png_bytes: &[u8]) {
    if let Ok(dir) = std::env::var("POSTER_OUT") {
        std::fs::write(format!("{dir}/{name}.png"), png_bytes).unwrap();
    }
}

/// A [`ReadAt`] that counts what was read.
struct Counting<'a> {
    bytes: &'a [u8],
    read: u64,
    reads: u32,
}

impl ReadAt for Counting<'_> {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        self.read += len;
        self.reads += 1;
        let mut s = self.bytes;
        s.read_at(offset, len)
    }
}

fn dogfight(entities: u32, seconds: f64) -> Vec<u8> {
    dogfight_bytes(&DogfightConfig { entities, seconds, seed: 3, ..Default::default() }).unwrap()
}

#[test]
fn a_dogfight_poster_decodes_with_both_sides_colours_and_changes_with_t() {
    let file = dogfight(40, 90.0);
    let mut src = Counting { bytes: &file, read: 0, reads: 0 };
    let (info, m) = poster::read_moment(&mut src, 20.0).unwrap();
    // Only the open and the chunks around t were read, not the file.
    assert!(src.read * 4 < file.len() as u64, "read {} of {} bytes in {} reads", src.read, file.len(), src.reads);
    assert_eq!(m.tick, info.first_tick + 20 * u64::from(info.tick_rate_hz));
    assert_eq!(m.frames.last().unwrap().tick, m.tick, "the last frame is the moment itself");
    assert!(m.frames.len() > 10, "trail frames: {}", m.frames.len());
    assert!(m.frames.windows(2).all(|w| w[0].tick < w[1].tick));
    assert!(!m.callsigns.is_empty());
    let png_bytes = poster::render_png(&info, &m, "Dogfight — test").unwrap();
    save("dogfight-20s", &png_bytes);
    let (w, h, px) = decode(&png_bytes);
    assert_eq!((w, h), (1200, 630));
    let live = m.frames.last().unwrap().states.iter().filter(|s| s.flags & flags::ALIVE != 0).count();
    assert!(live > 0);
    for faction in [0usize, 1] {
        let n = count(&px, rgb8(FACTION_RGB[faction]));
        assert!(n > 50, "faction {faction}: {n} pixels of its colour");
    }
    // No third faction's colour where the file has two.
    assert_eq!(count(&px, rgb8(FACTION_RGB[2])), 0);

    let (info2, m2) = poster::read_moment(&mut file.as_slice(), 30.0).unwrap();
    let (_, _, px2) = decode(&poster::render_png(&info2, &m2, "Dogfight — test").unwrap());
    let differing = px.chunks_exact(4).zip(px2.chunks_exact(4)).filter(|(a, b)| a != b).count();
    assert!(differing > 500, "{differing} pixels differ between t=20 and t=30");
}

#[test]
fn t_is_clamped_to_the_recording() {
    let file = dogfight(8, 12.0);
    let (info, past) = poster::read_moment(&mut file.as_slice(), 1e9).unwrap();
    assert_eq!(past.tick, info.last_tick);
    assert_eq!(past.frames.last().map(|f| f.tick), Some(info.last_tick));
    for t in [f64::NAN, -5.0, f64::NEG_INFINITY] {
        let (_, m) = poster::read_moment(&mut file.as_slice(), t).unwrap();
        assert_eq!(m.tick, info.first_tick, "t = {t}");
        assert!(!m.frames.is_empty());
    }
    assert_eq!(poster::moment_tick(&info, f64::INFINITY), info.last_tick);
}

#[test]
fn kills_near_the_moment_are_marked() {
    let file = dogfight(40, 60.0);
    // The first moment (one every 4 s) with a kill in the 8 s before it.
    let mut found = None;
    for t in (4..60).step_by(4) {
        let (info, m) = poster::read_moment(&mut file.as_slice(), f64::from(t)).unwrap();
        if let Some(k) = m.kills.last() {
            found = Some((info, m.clone(), *k));
            break;
        }
    }
    let (info, m, k) = found.expect("a kill in a minute of dogfight");
    assert!(k.tick <= m.tick && m.tick - k.tick <= 8 * u64::from(info.tick_rate_hz));
    let with = poster::render_png(&info, &m, "Kills").unwrap();
    save("dogfight-kill", &with);
    let without = poster::render_png(&info, &Moment { kills: Vec::new(), ..m.clone() }, "Kills").unwrap();
    let (with, without) = (decode(&with).2, decode(&without).2);
    // The marks: pixels that differ, more orange-red than before (the kill flash's colour).
    let warmer = with
        .chunks_exact(4)
        .zip(without.chunks_exact(4))
        .filter(|(a, b)| a != b && i32::from(a[0]) - i32::from(a[2]) > i32::from(b[0]) - i32::from(b[2]) + 20)
        .count();
    assert!(warmer > 60, "{warmer} pixels warmer with the kill marks");
}

#[test]
fn a_spark_engine_match_poster_shows_its_players() {
    let cfg = DeathmatchConfig { players: 6, seconds: 30.0, ..Default::default() };
    let file = deathmatch_bytes(&cfg).unwrap();
    let mut src = Counting { bytes: &file, read: 0, reads: 0 };
    let (info, m) = poster::read_moment(&mut src, 15.0).unwrap();
    let now = &m.frames.last().unwrap().states;
    assert!(!now.is_empty());
    let png_bytes = poster::render_png(&info, &m, "dm_warehouse — deathmatch").unwrap();
    save("spark-15s", &png_bytes);
    let (w, h, px) = decode(&png_bytes);
    assert_eq!((w, h), (1200, 630));
    let mut seen = 0;
    for s in now.iter().filter(|s| s.flags & flags::ALIVE != 0) {
        let rgb = rgb8(FACTION_RGB[usize::from(s.faction) % FACTION_RGB.len()]);
        assert!(count(&px, rgb) > 20, "faction {} of entity {}", s.faction, s.id);
        seen += 1;
    }
    assert!(seen > 0);
}

fn info(entities: u16) -> RecordingInfo {
    let file = dogfight(2, 1.0);
    let (mut info, _) = poster::read_moment(&mut file.as_slice(), 0.0).unwrap();
    info.entity_types = (0..entities.max(1))
        .map(|i| EntityType {
            index: i,
            id: format!("t{i}"),
            display_name: String::new(),
            category: Category::from_u8((i % 5) as u8),
            projectile_kind: 0,
        })
        .collect();
    info
}

fn state(id: u32, pos: [i32; 3], faction: u8) -> EntityState {
    EntityState {
        id,
        type_index: (id % 5) as u16,
        faction,
        pos,
        orient: [0, 0, 0, 32767],
        flags: flags::ALIVE | flags::VISIBLE,
        ..Default::default()
    }
}

#[test]
fn zero_entities_still_give_a_poster_with_its_title() {
    let info = info(1);
    let empty = Moment::default();
    let titled = poster::render_png(&info, &empty, "An empty sky").unwrap();
    save("empty", &titled);
    let (w, h, px) = decode(&titled);
    assert_eq!((w, h), (1200, 630));
    let (_, _, untitled) = decode(&poster::render_png(&info, &empty, "").unwrap());
    // The title's glyphs are bright pixels in the header band that the untitled poster lacks.
    let band = 1200 * 4 * 60;
    let bright = |p: &[u8]| p[..band].chunks_exact(4).filter(|c| c[0] > 200 && c[1] > 200 && c[2] > 200).count();
    assert!(bright(&px) > 200, "{} bright pixels", bright(&px));
    assert_ne!(bright(&px), bright(&untitled));
}

#[test]
fn hostile_values_draw_without_panicking() {
    let long: String = "<script>alert(1)</script>\u{0}\u{7}\n\u{202e}中文".repeat(2000);
    for (name, mut info) in [
        ("plain", info(5)),
        ("bad-quanta", {
            let mut i = info(5);
            i.position_quantum_m = f64::NAN;
            i.velocity_quantum_mps = f64::INFINITY;
            i.tick_rate_hz = 0;
            i
        }),
        ("negative-quantum", {
            let mut i = info(5);
            i.position_quantum_m = -1e300;
            i.world = replay_player::model::WorldKind::Flat;
            i
        }),
    ] {
        info.mission_id = long.clone();
        info.factions = vec![Faction { index: 255, id: long.clone(), display_name: long.clone() }];
        info.participants =
            (0..3).map(|i| Participant { id: i, callsign: long.clone(), entity: i, faction: 255 }).collect();
        let extreme = [
            vec![state(0, [i32::MAX, i32::MIN, i32::MAX], 255)],
            vec![state(0, [0, 0, 0], 7), state(1, [i32::MAX, i32::MAX, i32::MAX], 200), state(2, [i32::MIN; 3], 0)],
            (0..2500)
                .map(|i| {
                    let mut s =
                        state(i, [(i as i32).wrapping_mul(7919) % 40_000, (i as i32 * 104_729) % 40_000, 0], i as u8);
                    s.orient = [(i as i16).wrapping_mul(31), i16::MIN, i16::MAX, (i as i16).wrapping_mul(-7)];
                    s.vel = [i32::MAX, i32::MIN, 0];
                    s.type_index = i as u16;
                    if i % 9 == 0 {
                        s.flags = 0;
                    }
                    s
                })
                .collect(),
            // Every entity at one point (zero extent).
            (0..50).map(|i| state(i, [123, 456, 789], 1)).collect(),
        ];
        for (k, states) in extreme.into_iter().enumerate() {
            let tick = 1_000_000;
            let frames = vec![
                Frame { tick: 0, states: states.iter().map(|s| EntityState { pos: [i32::MIN; 3], ..*s }).collect() },
                Frame { tick: u64::MAX / 2, states: states.clone() },
                Frame { tick, states },
            ];
            let kills = vec![
                Kill { tick: u64::MAX, killer: 0, victim: 1 },
                Kill { tick, killer: u32::MAX, victim: 2 },
                Kill { tick: 0, killer: 1, victim: 0 },
            ];
            let callsigns = (0..3000).map(|i| (i, long.clone())).collect();
            let m = Moment { tick, frames, kills, callsigns };
            let png_bytes = poster::render_png(&info, &m, &long).unwrap();
            let (w, h, _) = decode(&png_bytes);
            assert_eq!((w, h), (1200, 630), "{name} {k}");
            if name == "plain" && k == 2 {
                save("hostile-2500", &png_bytes);
            }
        }
    }
}

#[test]
fn a_spoiler_safe_poster_differs_only_in_its_header() {
    let file = dogfight(8, 20.0);
    let (info, m) = poster::read_moment(&mut file.as_slice(), 5.0).unwrap();
    let (_, _, full) = decode(&poster::render_png_with(&info, &m, "Safe", true).unwrap());
    let (_, _, safe) = decode(&poster::render_png_with(&info, &m, "Safe", false).unwrap());
    save("spoiler-safe", &poster::render_png_with(&info, &m, "Safe", false).unwrap());
    let row = 1200 * 4;
    let header = 92 * row;
    let differ = |a: &[u8], b: &[u8]| a.chunks_exact(4).zip(b.chunks_exact(4)).filter(|(x, y)| x != y).count();
    // The length ("/ 0:19") is gone from the header; the map is the same.
    assert!(differ(&full[..header], &safe[..header]) > 50);
    assert_eq!(differ(&full[header..], &safe[header..]), 0);
}
