//! Writes a valid `.flrep` whose every free string is hostile to a web page: HTML and script
//! (`<img onerror>`, `<script>`, `"><svg onload>`, `<iframe>`), `javascript:` URLs, right-to-left
//! text and strings at the 4 KiB string limit, in callsigns, faction names, entity-type ids and
//! names, the engine version, the mission id, metadata keys and values, chat, admin actions and
//! custom-event types and data. The browser test tests/e2e/safety.test.mjs opens it and checks that
//! all of it is shown as text and that no script ran (docs/security.md, "Browser").
//!
//! `cargo run --release --example make_hostile_strings [-- OUT]` (default
//! tests/output/hostile-strings.flrep). Deterministic: the same build writes the same bytes.
//!
//! Names cannot carry control or bidi-override characters (the writer replaces them and the reader
//! refuses them); the test uses tests/fixtures/hostile/string_bidi_override.flrep for that case.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use replay_player::format::flrep::header::Sections;
use replay_player::format::flrep::writer::{default_header, Writer, WriterOptions};
use replay_player::model::{flags, Category, EntityState, EntityType, Event, EventBody, Faction, Participant};
use std::path::PathBuf;

/// The payloads (the test has the same list): each sets `window.__pwned` if it ever runs.
pub const IMG: &str = r#"<img src=x onerror="window.__pwned=1">"#;
pub const SCRIPT: &str = "<script>window.__pwned=2</script>";
pub const SVG: &str = r#""><svg onload=window.__pwned=3>"#;
pub const JS_URL: &str = "javascript:window.__pwned=4";
pub const IFRAME: &str = r#"<iframe src="javascript:parent.__pwned=5"></iframe>"#;
pub const RTL: &str = "שלום عليكم <b>rtl</b>";

/// A string of exactly 4,096 bytes (the reader's `max_string`): markup repeated.
fn long() -> String {
    let unit = r#"<img src=x onerror="window.__pwned=9">"#;
    let mut s = String::from("LONG:");
    while s.len() + unit.len() <= 4096 {
        s.push_str(unit);
    }
    while s.len() < 4096 {
        s.push('x');
    }
    s
}

fn main() {
    let out = std::env::args().nth(1).map(PathBuf::from).unwrap_or_else(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        root.join("tests").join("output").join("hostile-strings.flrep")
    });
    let long = long();
    let ki = 40u32;
    let mut h = default_header(IMG, 20, 0.0);
    h.mission_id = SCRIPT.into();
    h.keyframe_interval_ticks = ki;
    h.start_unix_seconds = 1_788_000_000;
    let sections = Sections {
        entity_types: vec![
            EntityType {
                index: 0,
                id: "jet".into(),
                display_name: SVG.into(),
                category: Category::Aircraft,
                projectile_kind: 0,
            },
            EntityType {
                index: 1,
                id: IFRAME.into(),
                display_name: IMG.into(),
                category: Category::Projectile,
                projectile_kind: 1,
            },
            EntityType {
                index: 2,
                id: "drone".into(),
                display_name: SCRIPT.into(),
                category: Category::Ground,
                projectile_kind: 0,
            },
        ],
        factions: vec![
            Faction { index: 0, id: "red".into(), display_name: IFRAME.into() },
            Faction { index: 1, id: "blue".into(), display_name: JS_URL.into() },
        ],
        participants: vec![
            Participant { id: 1, callsign: IMG.into(), entity: 1, faction: 0 },
            Participant { id: 2, callsign: SCRIPT.into(), entity: 2, faction: 1 },
            Participant { id: 3, callsign: SVG.into(), entity: 3, faction: 0 },
            Participant { id: 4, callsign: JS_URL.into(), entity: 4, faction: 1 },
            Participant { id: 5, callsign: RTL.into(), entity: 5, faction: 0 },
            Participant { id: 6, callsign: long.clone(), entity: 6, faction: 1 },
        ],
        mission_objects: vec![],
        metadata: vec![
            ("map".into(), IMG.into()),
            ("mode".into(), SVG.into()),
            (SCRIPT.into(), JS_URL.into()),
            ("link".into(), IFRAME.into()),
            ("rtl".into(), RTL.into()),
            ("long".into(), long.clone()),
        ],
        skipped: vec![],
    };
    let mut w =
        Writer::new(Vec::new(), &h, &sections, WriterOptions { keyframe_interval_ticks: ki, ..Default::default() })
            .expect("writer");
    let ticks = 200u64; // 10 s at 20 Hz
    for t in 0..ticks {
        let ti = t as i32;
        let mut states = Vec::new();
        for id in 1..=6u32 {
            let a = (id as f64) * 1.047 + (t as f64) * 0.02;
            let r = 4000.0 + 400.0 * id as f64;
            states.push(EntityState {
                id,
                type_index: 0,
                faction: ((id + 1) % 2) as u8,
                pos: [(a.cos() * r) as i32, (a.sin() * r) as i32, 800 + 40 * id as i32],
                orient: [0, 0, 0, 32767],
                vel: [ti, -ti, 0],
                health: 10_000,
                flags: flags::ALIVE | flags::VISIBLE,
                anim: 0,
            });
        }
        // An entity without a callsign: named by its entity type ("<script>… #99").
        states.push(EntityState {
            id: 99,
            type_index: 2,
            faction: 1,
            pos: [ti * 20, 0, 0],
            orient: [0, 0, 0, 32767],
            health: 10_000,
            flags: flags::ALIVE | flags::VISIBLE,
            ..Default::default()
        });
        let tick = 1000 + t;
        let ev = |body| Event { tick, body };
        let mut events = Vec::new();
        match t {
            0 => events.extend((1..=6).map(|i| ev(EventBody::Spawn { entity: i, participant: i }))),
            10 => events.push(ev(EventBody::Chat { participant: 1, channel: 0, text: format!("{SCRIPT} {IMG}") })),
            20 => events.push(ev(EventBody::Custom {
                kind: IMG.into(),
                source: 3,
                target: 4,
                pos: [0, 0, 0],
                data: SVG.into(),
            })),
            30 => events.push(ev(EventBody::Kill { killer: 1, victim: 2, weapon_type: 1 })),
            50 => events.push(ev(EventBody::Admin { participant: 0, action: SVG.into(), detail: JS_URL.into() })),
            60 => events.push(ev(EventBody::Custom {
                kind: "pickup".into(),
                source: 3,
                target: 0,
                pos: [0, 0, 0],
                data: IMG.into(),
            })),
            70 => events.push(ev(EventBody::Kill { killer: 3, victim: 99, weapon_type: 1 })),
            90 => events.push(ev(EventBody::Chat { participant: 6, channel: 1, text: long.clone() })),
            110 => events.push(ev(EventBody::Kill { killer: 5, victim: 6, weapon_type: 0 })),
            130 => events.push(ev(EventBody::Custom {
                kind: SCRIPT.into(),
                source: 99,
                target: 0,
                pos: [0, 0, 0],
                data: IFRAME.into(),
            })),
            150 => events.push(ev(EventBody::Kill { killer: 99, victim: 4, weapon_type: 2 })),
            _ => {}
        }
        w.tick(tick, &states, &events).expect("tick");
    }
    let bytes = w.finish().expect("finish");
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).expect("output directory");
    }
    std::fs::write(&out, &bytes).expect("write");
    println!("{} ({} bytes)", out.display(), bytes.len());
}
