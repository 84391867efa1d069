//! The golden fixtures: small recordings made from fixed inputs. `cargo run --example make_fixtures`
//! writes them to tests/fixtures/golden/ with their expected dumps; tests regenerate them and
//! compare bytes, so any change to the writer or the format shows up as a diff.

use super::{dogfight_bytes, DogfightConfig};
use crate::format::flrep::header::Sections;
use crate::format::flrep::writer::{default_header, WriteError, Writer, WriterOptions};
use crate::model::{flags, Category, EntityState, EntityType, Event, EventBody, Faction, Participant, NO_WEAPON};

/// (file name, bytes) of every golden fixture.
pub fn golden() -> Result<Vec<(&'static str, Vec<u8>)>, WriteError> {
    let tiny = |seed, entities, seconds, planet_radius_m, keyframe_interval_ticks| DogfightConfig {
        seed,
        entities,
        seconds,
        tick_rate_hz: 60,
        planet_radius_m,
        keyframe_interval_ticks,
        first_tick: 1000,
        start_unix_seconds: 1_788_000_000,
    };
    Ok(vec![
        ("dogfight-earth.flrep", dogfight_bytes(&tiny(3, 4, 1.0, 6_371_000.0, 15))?),
        ("dogfight-flat.flrep", dogfight_bytes(&tiny(4, 3, 1.0, 0.0, 30))?),
        ("dogfight-moon.flrep", dogfight_bytes(&tiny(5, 2, 0.75, 600_000.0, 20))?),
        ("events.flrep", events_fixture()?),
    ])
}

/// Every event kind, entities entering and leaving, a type/faction change, animation states,
/// health and flag changes and a teleport — in a flat world at 20 Hz.
pub fn events_fixture() -> Result<Vec<u8>, WriteError> {
    let mut h = default_header("golden-1", 20, 0.0);
    h.mission_id = "golden-events".into();
    h.keyframe_interval_ticks = 15;
    let sections = Sections {
        entity_types: vec![
            EntityType {
                index: 0,
                id: "soldier".into(),
                display_name: "Soldier".into(),
                category: Category::Character,
                projectile_kind: 0,
            },
            EntityType {
                index: 1,
                id: "grenade".into(),
                display_name: "Frag grenade".into(),
                category: Category::Projectile,
                projectile_kind: 5,
            },
        ],
        factions: vec![
            Faction { index: 0, id: "alpha".into(), display_name: "Alpha".into() },
            Faction { index: 1, id: "bravo".into(), display_name: "Bravo".into() },
        ],
        participants: vec![
            Participant { id: 1, callsign: "Ünïcødé ✈".into(), entity: 10, faction: 0 },
            Participant { id: 2, callsign: "<b>Bold</b>".into(), entity: 20, faction: 1 },
        ],
        mission_objects: vec![],
        metadata: vec![("map".into(), "de_golden".into()), ("mode".into(), "deathmatch".into())],
        skipped: vec![],
    };
    let mut w =
        Writer::new(Vec::new(), &h, &sections, WriterOptions { keyframe_interval_ticks: 15, ..Default::default() })?;
    for t in 0u64..40 {
        let ti = t as i32;
        let mut states = vec![EntityState {
            id: 10,
            type_index: 0,
            faction: if t < 25 { 0 } else { 1 },
            pos: [ti * 8, ti * ti, 14],
            orient: [0, 0, (ti * 300).min(23170) as i16, 32767 - (ti * 10) as i16],
            vel: [256, ti * 64, 0],
            health: 10_000 - (t as u16) * 100,
            flags: flags::ALIVE | flags::VISIBLE | if t % 7 == 0 { flags::FIRING } else { 0 },
            anim: (t / 5) as i32,
        }];
        if !(12..18).contains(&t) {
            states.push(EntityState {
                id: 20,
                type_index: 0,
                faction: 1,
                pos: if t == 30 { [-100_000, 0, 0] } else { [400, -ti * 4, 14] },
                orient: [0, 0, 0, 32767],
                health: 10_000,
                flags: flags::ALIVE,
                ..Default::default()
            });
        }
        if (5..9).contains(&t) {
            states.push(EntityState {
                id: 70_000,
                type_index: 1,
                faction: 0,
                pos: [ti * 40, 0, 30 - ti],
                vel: [800, 0, -32],
                health: 1,
                flags: flags::VISIBLE,
                ..Default::default()
            });
        }
        let mut events = Vec::new();
        let tick = 5000 + t * 3;
        let ev = |body| Event { tick, body };
        match t {
            0 => events.extend([
                ev(EventBody::Spawn { entity: 10, participant: 1 }),
                ev(EventBody::Spawn { entity: 20, participant: 2 }),
                ev(EventBody::AlertLevel { level: 1 }),
            ]),
            5 => events.push(ev(EventBody::Custom {
                kind: "weapon_switch".into(),
                source: 10,
                target: 0,
                pos: [40, 25, 14],
                data: "grenade".into(),
            })),
            9 => events.push(ev(EventBody::Custom {
                kind: "explosion".into(),
                source: 10,
                target: 0,
                pos: [360, 0, 21],
                data: "radius=6,damage=120".into(),
            })),
            11 => events.extend([
                ev(EventBody::Kill { killer: 10, victim: 20, weapon_type: 1 }),
                ev(EventBody::Despawn { entity: 20, reason: 0 }),
            ]),
            14 => events.push(ev(EventBody::Chat {
                participant: 2,
                channel: 1,
                text: "<script>alert(1)</script> gg".into(),
            })),
            18 => events.push(ev(EventBody::Spawn { entity: 20, participant: 2 })),
            20 => events.push(ev(EventBody::Admin {
                participant: 0,
                action: "kick".into(),
                detail: "afk, 3 warnings".into(),
            })),
            33 => events.extend([
                ev(EventBody::Kill { killer: 20, victim: 10, weapon_type: NO_WEAPON }),
                ev(EventBody::AlertLevel { level: 3 }),
            ]),
            36 => events.push(ev(EventBody::Custom {
                kind: "pickup".into(),
                source: 20,
                target: 0,
                pos: [400, -144, 14],
                data: "medkit".into(),
            })),
            _ => {}
        }
        w.tick(tick, &states, &events)?;
    }
    w.finish()
}
