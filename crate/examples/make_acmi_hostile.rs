//! Writes a small valid `.flrep` whose free strings attack the ACMI text syntax (docs/export.md
//! "Text from the file"): callsigns, faction and type names, the mission and chat with commas,
//! `|`, backslashes, line breaks, text that looks like removals, frames and objects, non-ASCII.
//! `crate/tests/export.rs` checks the export of it; tests/acmi/check.sh reads that export back
//! with PyPI pyacmi.
//!
//! `cargo run --example make_acmi_hostile -- OUT` (default tests/output/acmi-hostile.flrep).
//! Deterministic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use replay_player::format::flrep::header::Sections;
use replay_player::format::flrep::writer::{default_header, Writer};
use replay_player::format::flrep::WriterOptions;
use replay_player::model::{
    projectile_kind, Category, EntityState, EntityType, Event, EventBody, Faction, Participant,
};
use std::path::PathBuf;

pub const CALLSIGNS: [&str; 3] = ["Viper,1=x,Name=Injected", "Mav|\\rick é ✈ 日本", "-5\\"];
pub const CHATS: [&str; 4] = ["hello,\n0,Name=pwned\n-2\n#99\\", "a|b|c\\,d", "日本語 ✈ ok", "tab\there\r\nend"];

/// A small recording whose free strings attack the ACMI syntax: commas, `|`, backslashes, line
/// breaks, lines that look like removals, frames and objects, non-ASCII.
pub fn hostile() -> Vec<u8> {
    let mut h = default_header("engine,\\1|2", 10, 6_371_000.0);
    h.mission_id = "Op, \"Night|Owl\"\\".into();
    h.start_unix_seconds = 1_788_000_000;
    let sections = Sections {
        entity_types: vec![
            EntityType {
                index: 0,
                id: "jet".into(),
                display_name: "Jet, fast".into(),
                category: Category::Aircraft,
                projectile_kind: 0,
            },
            EntityType {
                index: 1,
                id: "aim".into(),
                display_name: "AIM|120\\".into(),
                category: Category::Projectile,
                projectile_kind: projectile_kind::MISSILE,
            },
        ],
        factions: vec![
            Faction { index: 0, id: "blue".into(), display_name: "Blue, Inc.".into() },
            Faction { index: 1, id: "red".into(), display_name: "Red|Team\\".into() },
        ],
        participants: (0..3)
            .map(|i| Participant {
                id: i + 1,
                callsign: CALLSIGNS[i as usize].into(),
                entity: i + 1,
                faction: (i % 2) as u8,
            })
            .collect(),
        mission_objects: vec![],
        metadata: vec![],
        skipped: vec![],
    };
    let opts = WriterOptions { keyframe_interval_ticks: 20, ..Default::default() };
    let mut w = Writer::new(Vec::new(), &h, &sections, opts).unwrap();
    let r = 6_371_000.0 / 0.125 + 8000.0;
    for tick in 0..40u64 {
        let mut states: Vec<EntityState> = (1..=3u32)
            .filter(|&id| !(id == 2 && tick > 20))
            .map(|id| EntityState {
                id,
                type_index: 0,
                faction: (id % 2) as u8,
                pos: [r as i32, (id as i32) * 800 + tick as i32 * 20, 1000],
                orient: [0, 0, 0, 32767],
                health: if id == 2 && tick > 18 { 0 } else { 10_000 },
                ..Default::default()
            })
            .collect();
        if (5..15).contains(&tick) {
            states.push(EntityState {
                id: 10,
                type_index: 1,
                pos: [r as i32, 800 + tick as i32 * 90, 1000],
                orient: [0, 0, 0, 32767],
                health: 10_000,
                ..Default::default()
            });
        }
        let mut events = Vec::new();
        if tick == 5 {
            events.push(Event { tick, body: EventBody::Spawn { entity: 10, participant: 1 } });
        }
        if tick == 20 {
            events.push(Event { tick, body: EventBody::Kill { killer: 1, victim: 2, weapon_type: 1 } });
        }
        if let Some(text) = CHATS.get(tick as usize / 8) {
            if tick % 8 == 3 {
                events.push(Event {
                    tick,
                    body: EventBody::Chat { participant: 1 + tick as u32 % 3, channel: 0, text: (*text).into() },
                });
            }
        }
        w.tick(tick, &states, &events).unwrap();
    }
    w.finish().unwrap()
}

fn main() {
    let out = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("tests").join("output").join("acmi-hostile.flrep")
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&out, hostile()).unwrap();
    eprintln!("wrote {}", out.display());
}
