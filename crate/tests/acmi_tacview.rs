//! ACMI exports read back by a second independent reader, the crates.io `tacview` parser (the
//! first is PyPI pyacmi, tests/acmi/check.sh): every record parses; each object's position, followed
//! through the frames with the reader's own `Coords::update` and the global reference point, is the
//! recording's at that tick within the quantization (lat/lon/alt on Earth and on a small planet,
//! u/v on a flat SparkEngine map); the objects are the recording's entities, removed once each when
//! they go; callsigns, kills (`Destroyed`) and chats (`Message`) are the recording's, hostile text
//! included; a range export holds only that range.
#![cfg(feature = "export")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/acmi.rs"]
mod common_acmi;
#[path = "../examples/make_acmi_hostile.rs"]
#[allow(dead_code)]
mod make_acmi_hostile;

use common_acmi::{as_event_text, dogfight, export, ticks};
use make_acmi_hostile::{hostile, CHATS};
use replay_player::export::acmi::object_id;
use replay_player::export::Span;
use replay_player::model::{world_to_geodetic, EntityState, EventBody, WorldKind};
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use std::collections::{BTreeMap, HashMap, HashSet};
use tacview::record::{Coords, EventKind, GlobalProperty, Property, Record};
use tacview::Parser;

/// Every record of an export, through the `tacview` parser (any error fails the test).
fn records(text: &str) -> Vec<Record> {
    Parser::new(text.as_bytes()).unwrap().collect::<Result<Vec<_>, _>>().unwrap()
}

/// `tacview` keeps ACMI's `\,` in values as written: the one unescape left to its caller.
fn unescape(s: &str) -> String {
    s.replace("\\,", ",")
}

/// What a reader of the export learns: positions checked, objects, removals, callsigns, events.
#[derive(Default)]
struct ReadBack {
    positions: usize,
    frames: Vec<f64>,
    objects: HashSet<u64>,
    removed: HashMap<u64, usize>,
    callsigns: HashMap<u64, String>,
    destroyed: Vec<Vec<String>>,
    messages: Vec<(Vec<String>, Option<String>)>,
    bookmarks: usize,
    debug: usize,
    title: Option<String>,
}

/// Reads `text` with `tacview` and checks every position against `bytes`' states at its tick.
fn read_back(bytes: &[u8], text: &str) -> ReadBack {
    let (info, all) = ticks(bytes);
    let by_tick: BTreeMap<u64, &Vec<EntityState>> = all.iter().map(|(t, s, _)| (*t, s)).collect();
    let q = info.position_quantum_m;
    let rate = f64::from(info.tick_rate_hz);
    let (mut ref_lat, mut ref_lon) = (0.0, 0.0);
    let mut coords: HashMap<u64, Coords> = HashMap::new();
    let mut tick = info.first_tick;
    let mut r = ReadBack::default();
    for rec in records(text) {
        match rec {
            Record::GlobalProperty(GlobalProperty::ReferenceLatitude(v)) => ref_lat = v,
            Record::GlobalProperty(GlobalProperty::ReferenceLongitude(v)) => ref_lon = v,
            Record::GlobalProperty(GlobalProperty::Title(t)) => r.title = Some(unescape(&t)),
            Record::GlobalProperty(_) => {}
            Record::Frame(t) => {
                let exact = t * rate;
                assert!((exact - exact.round()).abs() < 0.05, "frame {t} is not on a tick");
                tick = info.first_tick + exact.round() as u64;
                r.frames.push(t);
            }
            Record::Remove(id) => *r.removed.entry(id).or_default() += 1,
            Record::Event(e) => match e.kind {
                EventKind::Destroyed => r.destroyed.push(e.params),
                EventKind::Message => r.messages.push((e.params, e.text.map(|t| unescape(&t)))),
                EventKind::Bookmark => r.bookmarks += 1,
                EventKind::Debug => r.debug += 1,
                k => panic!("an event of kind {k:?}"),
            },
            Record::Update(u) => {
                r.objects.insert(u.id);
                for p in &u.props {
                    match p {
                        Property::CallSign(c) => {
                            r.callsigns.insert(u.id, unescape(c));
                        }
                        Property::T(t) => {
                            let c = coords.entry(u.id).or_default();
                            c.update(t, ref_lat, ref_lon);
                            let st = by_tick[&tick]
                                .iter()
                                .find(|s| u64::from_str_radix(&object_id(s.id), 16).unwrap() == u.id)
                                .expect("a position of an object at a tick without its entity");
                            let p = st.pos.map(|v| f64::from(v) * q);
                            match info.world {
                                WorldKind::Planet { radius_m } => {
                                    let g = world_to_geodetic(p, radius_m);
                                    let m_per_deg = radius_m.to_radians();
                                    let (lat, lon, alt) =
                                        (c.latitude.unwrap(), c.longitude.unwrap(), c.altitude.unwrap());
                                    assert!((lon - g.lon_deg).abs() * m_per_deg <= q, "lon {lon} vs {}", g.lon_deg);
                                    assert!((lat - g.lat_deg).abs() * m_per_deg <= q, "lat {lat} vs {}", g.lat_deg);
                                    assert!((alt - g.alt_m).abs() <= q, "alt {alt} vs {}", g.alt_m);
                                }
                                WorldKind::Flat => {
                                    let (u_, v_) = (c.u.unwrap(), c.v.unwrap());
                                    assert!((u_ - p[0]).abs() <= q && (v_ - p[1]).abs() <= q, "u|v {c:?} vs {p:?}");
                                    assert!((c.altitude.unwrap() - p[2]).abs() <= q);
                                }
                            }
                            r.positions += 1;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    r
}

/// Entities that appear in `[from, to]`, and those despawned inside it (gone before its end).
fn entities_in(bytes: &[u8], span: Option<Span>) -> (HashSet<u64>, HashSet<u64>) {
    let (info, all) = ticks(bytes);
    let span = span.unwrap_or_else(|| Span::all(&info));
    let id = |e: u32| u64::from_str_radix(&object_id(e), 16).unwrap();
    let mut seen = HashSet::new();
    let mut last: HashSet<u64> = HashSet::new();
    for (t, states, _) in all.iter().filter(|(t, _, _)| span.contains(*t)) {
        let now: HashSet<u64> = states.iter().map(|s| id(s.id)).collect();
        seen.extend(now.iter().copied());
        if *t == span.to || *t == info.last_tick {
            last = now;
        }
    }
    let gone = seen.difference(&last).copied().collect();
    (seen, gone)
}

/// The events of a span the export writes: kills, chats, bookmarks (admin actions and alert
/// levels) and debug events (custom ones), counted from the recording.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    kills: usize,
    chats: usize,
    bookmarks: usize,
    debug: usize,
}

fn events_in(bytes: &[u8], span: Option<Span>) -> Counts {
    let (info, all) = ticks(bytes);
    let span = span.unwrap_or_else(|| Span::all(&info));
    let evs = all.iter().filter(|(t, _, _)| span.contains(*t)).flat_map(|(_, _, e)| e);
    let mut n = Counts::default();
    for e in evs {
        match e.body {
            EventBody::Kill { .. } => n.kills += 1,
            EventBody::Chat { .. } => n.chats += 1,
            EventBody::Admin { .. } | EventBody::AlertLevel { .. } => n.bookmarks += 1,
            EventBody::Custom { .. } => n.debug += 1,
            EventBody::Spawn { .. } | EventBody::Despawn { .. } => {}
        }
    }
    n
}

impl ReadBack {
    fn counts(&self) -> Counts {
        Counts { kills: self.destroyed.len(), chats: self.messages.len(), bookmarks: self.bookmarks, debug: self.debug }
    }
}

fn check_recording(bytes: &[u8], min_positions: usize) {
    let (info, _) = ticks(bytes);
    let text = export(bytes, None);
    let r = read_back(bytes, &text);
    assert!(r.positions >= min_positions, "{} positions checked", r.positions);
    let (seen, gone) = entities_in(bytes, None);
    assert_eq!(r.objects, seen, "the objects are the recording's entities");
    for id in &gone {
        assert_eq!(r.removed.get(id), Some(&1), "object {id:x} removed once when it went");
    }
    assert!(r.removed.keys().all(|id| gone.contains(id)), "only gone entities are removed");
    assert_eq!(r.counts(), events_in(bytes, None), "an event per kill, chat, admin action, alert and custom event");
    for p in &info.participants {
        let id = u64::from_str_radix(&object_id(p.entity), 16).unwrap();
        if r.objects.contains(&id) {
            assert_eq!(r.callsigns.get(&id), Some(&p.callsign), "callsign of {id:x}");
        }
    }
    assert_eq!(r.title.as_deref(), Some(info.mission_id.as_str()));
}

#[test]
fn tacview_reads_earth_and_small_planet_exports_as_the_recording_says() {
    for radius in [6_371_000.0, 600_000.0] {
        check_recording(&dogfight(3, 6, 20.0, radius), 1000);
    }
}

#[test]
fn tacview_reads_a_flat_sparkengine_export_in_u_v_with_its_kills() {
    let bytes =
        deathmatch_bytes(&DeathmatchConfig { seed: 4, players: 6, seconds: 10.0, ..DeathmatchConfig::default() })
            .unwrap();
    let n = events_in(&bytes, None);
    assert!(n.kills > 0 && n.debug > 0, "the match has kills and explosions: {n:?}");
    check_recording(&bytes, 300);
}

#[test]
fn tacview_reads_hostile_text_as_text() {
    let bytes = hostile();
    let text = export(&bytes, None);
    let r = read_back(&bytes, &text);
    let want: HashSet<u64> =
        [1u32, 2, 3, 10].iter().map(|&e| u64::from_str_radix(&object_id(e), 16).unwrap()).collect();
    assert_eq!(r.objects, want, "nothing injected: the objects are the recording's four");
    assert_eq!(r.messages.len(), CHATS.len());
    let (_, all) = ticks(&bytes);
    let chats: Vec<String> = all
        .iter()
        .flat_map(|(_, _, e)| e)
        .filter_map(|e| match &e.body {
            EventBody::Chat { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    for ((_, got), want) in r.messages.iter().zip(&chats) {
        let want = as_event_text(want);
        assert_eq!(got.as_deref(), Some(want.as_str()));
    }
}

#[test]
fn tacview_reads_a_range_export_as_only_that_range() {
    let bytes = dogfight(2, 8, 60.0, 6_371_000.0);
    let (info, _) = ticks(&bytes);
    let rate = u64::from(info.tick_rate_hz);
    let span = Span { from: info.first_tick + 20 * rate, to: info.first_tick + 30 * rate };
    let text = export(&bytes, Some(span));
    let r = read_back(&bytes, &text);
    assert_eq!(r.frames.first(), Some(&20.0));
    assert!(r.frames.iter().all(|t| (20.0..=30.0).contains(t)), "{:?}", r.frames.last());
    let (seen, _) = entities_in(&bytes, Some(span));
    assert_eq!(r.objects, seen);
    let (inside, whole) = (events_in(&bytes, Some(span)), events_in(&bytes, None));
    assert_eq!(r.counts(), inside);
    assert!(
        inside.kills + inside.chats > 0 && inside.kills + inside.chats < whole.kills + whole.chats,
        "{inside:?} of {whole:?}"
    );
}
