//! ACMI export (docs/export.md): hostile text stays text, a range holds only that range,
//! positions on Earth, a small planet and a flat SparkEngine map are within the quantization.
//! The independent reader (PyPI pyacmi) is tests/acmi/check.sh.
#![cfg(feature = "export")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/acmi.rs"]
mod common_acmi;
#[path = "../examples/make_acmi_hostile.rs"]
#[allow(dead_code)]
mod make_acmi_hostile;

use common_acmi::{as_event_text, dogfight, export, read, ticks, Line};
use make_acmi_hostile::{hostile, CHATS};
use replay_player::export::acmi::object_id;
use replay_player::export::Span;
use replay_player::model::{world_to_geodetic, DecodedChunk, EntityState, Event, EventBody, RecordingInfo, WorldKind};
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use std::collections::{BTreeMap, HashMap, HashSet};

fn as_property(s: &str) -> String {
    s.chars().map(|c| if c == '\\' { '＼' } else { c }).collect()
}

#[test]
fn hostile_callsigns_and_chat_stay_text() {
    let bytes = hostile();
    let (info, all) = ticks(&bytes);
    let text = export(&bytes, None);
    let lines = read(&text);
    assert_eq!(lines[0], Line::Header("FileType=text/acmi/tacview".into()));
    assert_eq!(lines[1], Line::Header("FileVersion=2.2".into()));
    // The only objects are the global one and the recording's entities; nothing was injected.
    let ids: HashSet<String> = [1u32, 2, 3, 10].iter().map(|&e| object_id(e)).collect();
    let mut callsigns = HashMap::new();
    let mut messages = Vec::new();
    let mut globals = HashMap::new();
    for l in &lines[2..] {
        match l {
            Line::Frame(_) => {}
            Line::Remove(id) => assert!(ids.contains(id), "removal of an unknown object {id:?}"),
            Line::Object(id, props) if id == "0" => {
                for (k, v) in props {
                    if k == "Event" {
                        messages.push(v.clone());
                    } else {
                        globals.insert(k.clone(), v.clone());
                    }
                }
                assert_eq!(props.len(), 1, "one global property per line: {props:?}");
            }
            Line::Object(id, props) => {
                assert!(ids.contains(id), "an object that is no entity: {id:?} {props:?}");
                for (k, v) in props {
                    assert!(
                        ["T", "Name", "Type", "Coalition", "Color", "Health", "CallSign", "Pilot", "Parent"]
                            .contains(&k.as_str()),
                        "unexpected property {k:?} = {v:?}"
                    );
                    if k == "CallSign" {
                        callsigns.insert(id.clone(), v.clone());
                    }
                }
            }
            Line::Header(h) => panic!("a header line in the body: {h:?}"),
        }
    }
    // Callsigns as the file holds them (the recording's own strings, read back from it).
    for p in &info.participants {
        assert_eq!(callsigns.get(&object_id(p.entity)), Some(&as_property(&p.callsign)), "{:?}", p.callsign);
    }
    assert_eq!(globals.get("Title"), Some(&as_property(&info.mission_id)));
    // Every chat is one Message event whose text is the chat's.
    let chats: Vec<(u32, String)> = all
        .iter()
        .flat_map(|(_, _, ev)| ev.iter())
        .filter_map(|e| match &e.body {
            EventBody::Chat { participant, text, .. } => Some((*participant, text.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(chats.len(), CHATS.len());
    let got: Vec<&String> = messages.iter().filter(|m| m.starts_with("Message|")).collect();
    assert_eq!(got.len(), chats.len(), "{messages:?}");
    for ((p, t), m) in chats.iter().zip(got) {
        let want = format!("Message|{}|{}", object_id(*p), as_event_text(t));
        assert_eq!(m, &want);
    }
    // The kill, the missile's launcher.
    assert!(
        messages.iter().any(|m| m.starts_with(&format!("Destroyed|{}|destroyed by ", object_id(2)))),
        "{messages:?}"
    );
    assert!(text.contains(&format!("{},T=", object_id(10))));
    let missile = lines.iter().find_map(|l| match l {
        Line::Object(id, props) if *id == object_id(10) => Some(props.clone()),
        _ => None,
    });
    let missile = missile.unwrap();
    assert!(missile.contains(&("Parent".into(), object_id(1))), "{missile:?}");
    assert!(missile.contains(&("Type".into(), "Weapon+Missile".into())));
    // Removed when it is gone, once.
    assert_eq!(lines.iter().filter(|l| **l == Line::Remove(object_id(10))).count(), 1);
}

/// Follows each object's `T=` through the frames (an empty component is unchanged) and checks
/// every position written against the recording's state at that tick.
fn check_positions(bytes: &[u8], text: &str) -> usize {
    let (info, all) = ticks(bytes);
    let by_tick: BTreeMap<u64, &Vec<EntityState>> = all.iter().map(|(t, s, _)| (*t, s)).collect();
    let q = info.position_quantum_m;
    let rate = f64::from(info.tick_rate_hz);
    let mut last: HashMap<String, Vec<f64>> = HashMap::new();
    let mut tick = info.first_tick;
    let mut checked = 0;
    let (mut ref_lon, mut ref_lat) = (0.0, 0.0);
    for l in read(text) {
        match l {
            Line::Object(id, props) if id == "0" => {
                for (k, v) in props {
                    match k.as_str() {
                        "ReferenceLongitude" => ref_lon = v.parse().unwrap(),
                        "ReferenceLatitude" => ref_lat = v.parse().unwrap(),
                        _ => {}
                    }
                }
            }
            Line::Frame(t) => {
                let exact = t * rate;
                tick = info.first_tick + exact.round() as u64;
                assert!((exact - exact.round()).abs() < 0.05, "frame {t} is not on a tick");
            }
            Line::Object(id, props) => {
                let Some((_, t)) = props.iter().find(|(k, _)| k == "T") else { continue };
                let parts: Vec<&str> = t.split('|').collect();
                let prev = last.entry(id.clone()).or_insert_with(|| vec![f64::NAN; parts.len()]);
                assert_eq!(prev.len(), parts.len(), "one T form per object");
                for (p, v) in prev.iter_mut().zip(&parts) {
                    if !v.is_empty() {
                        *p = v.parse().unwrap();
                    }
                }
                let st = by_tick[&tick].iter().find(|s| object_id(s.id) == id).expect("an object at a tick without it");
                let p = st.pos.map(|v| f64::from(v) * q);
                match info.world {
                    WorldKind::Planet { radius_m } => {
                        let g = world_to_geodetic(p, radius_m);
                        let m_per_deg = radius_m.to_radians();
                        assert_eq!(prev.len(), 6);
                        let (lon, lat) = (prev[0] + ref_lon, prev[1] + ref_lat);
                        assert!((lon - g.lon_deg).abs() * m_per_deg <= q, "lon {lon} vs {}", g.lon_deg);
                        assert!((lat - g.lat_deg).abs() * m_per_deg <= q, "lat {lat} vs {}", g.lat_deg);
                        assert!((prev[2] - g.alt_m).abs() <= q, "alt {} vs {}", prev[2], g.alt_m);
                    }
                    WorldKind::Flat => {
                        assert_eq!(prev.len(), 9);
                        assert!((prev[6] - p[0]).abs() <= q && (prev[7] - p[1]).abs() <= q, "u|v {prev:?} vs {p:?}");
                        assert!((prev[2] - p[2]).abs() <= q);
                        assert_eq!(prev[5], prev[8], "heading = yaw");
                    }
                }
                for a in &prev[3..6] {
                    assert!(a.is_finite() && (-360.0..=360.0).contains(a), "angle {a}");
                }
                checked += 1;
            }
            _ => {}
        }
    }
    checked
}

#[test]
fn positions_on_earth_and_on_a_small_planet_are_within_the_quantum() {
    for radius in [6_371_000.0, 600_000.0] {
        let bytes = dogfight(3, 6, 20.0, radius);
        let text = export(&bytes, None);
        let n = check_positions(&bytes, &text);
        assert!(n > 1000, "{n} positions checked");
    }
}

#[test]
fn a_flat_sparkengine_map_uses_u_v() {
    let bytes =
        deathmatch_bytes(&DeathmatchConfig { seed: 4, players: 6, seconds: 10.0, ..DeathmatchConfig::default() })
            .unwrap();
    let text = export(&bytes, None);
    assert!(check_positions(&bytes, &text) > 300);
    // Kills made it as Destroyed events, one per kill.
    let (_, all) = ticks(&bytes);
    let kills = all.iter().flat_map(|(_, _, e)| e).filter(|e| matches!(e.body, EventBody::Kill { .. })).count();
    assert!(kills > 0);
    assert_eq!(text.matches("\n0,Event=Destroyed|").count(), kills);
}

#[test]
fn a_range_export_holds_only_that_range() {
    let bytes = dogfight(2, 8, 60.0, 6_371_000.0);
    let (info, all) = ticks(&bytes);
    let rate = u64::from(info.tick_rate_hz);
    let span = Span { from: info.first_tick + 20 * rate, to: info.first_tick + 30 * rate };
    let text = export(&bytes, Some(span));
    let lines = read(&text);
    let frames: Vec<f64> = lines.iter().filter_map(|l| if let Line::Frame(t) = l { Some(*t) } else { None }).collect();
    assert_eq!(frames.first(), Some(&20.0));
    assert!(frames.iter().all(|t| (20.0..=30.0).contains(t)), "{:?}", frames.last());
    assert!(frames.windows(2).all(|w| w[0] < w[1]));
    // The objects of the first frame are the entities alive at the range's first tick.
    let first = all.iter().find(|(t, _, _)| *t == span.from).unwrap();
    let mut at_first = HashSet::new();
    for l in lines.iter().skip_while(|l| !matches!(l, Line::Frame(_))).skip(1) {
        match l {
            Line::Frame(_) => break,
            Line::Object(id, _) if id != "0" => {
                at_first.insert(id.clone());
            }
            _ => {}
        }
    }
    let want: HashSet<String> = first.1.iter().map(|s| object_id(s.id)).collect();
    assert_eq!(at_first, want);
    // Exactly the range's kills and chats.
    let inside = |e: &&Event| -> bool { matches!(e.body, EventBody::Kill { .. } | EventBody::Chat { .. }) };
    let want_events: usize =
        all.iter().filter(|(t, _, _)| span.contains(*t)).map(|(_, _, e)| e.iter().filter(inside).count()).sum();
    let all_events: usize = all.iter().map(|(_, _, e)| e.iter().filter(inside).count()).sum();
    assert!(want_events > 0 && want_events < all_events, "{want_events} of {all_events}");
    let got = text.matches("\n0,Event=Destroyed|").count() + text.matches("\n0,Event=Message|").count();
    assert_eq!(got, want_events);
    // The whole export is bigger, and starts at 0.
    let whole = export(&bytes, None);
    assert!(whole.len() > text.len() * 3);
    assert!(whole.contains("\n#0\n"));
}

#[test]
fn the_threaded_export_writes_the_bytes_of_one_thread() {
    // Many chunks (a keyframe every 120 ticks), a range cut inside chunks, and the whole; the
    // threaded export computes the poses on a thread of their own (`Poser`), the one-thread
    // export in the writer (objects coming and going: the next test).
    let bytes = dogfight(3, 12, 40.0, 6_371_000.0);
    let (info, _) = ticks(&bytes);
    let rate = u64::from(info.tick_rate_hz);
    for span in [Span::all(&info), Span { from: info.first_tick + 5 * rate + 7, to: info.first_tick + 31 * rate + 3 }] {
        let mut src: &[u8] = &bytes;
        let mut s = replay_player::io::open_session(&mut src).unwrap();
        assert!(s.chunk_count() > 10, "{} chunks", s.chunk_count());
        let (one, a) = replay_player::io::export::acmi_in_one_thread(&mut s, &mut src, span, Vec::new()).unwrap();
        let mut s = replay_player::io::open_session(&mut src).unwrap();
        let (two, b) = replay_player::io::export::acmi(&mut s, &mut src, span, Vec::new()).unwrap();
        assert_eq!(a, b);
        assert!(one == two, "{} vs {} bytes", one.len(), two.len());
        assert!(one.len() > 10_000);
    }
}

/// The writer fed poses from a `Poser` run apart (as `replay export` runs one on a thread of its
/// own) writes the bytes of the writer that computes them itself, also where objects come and go
/// and where a tick has none; what a reader follows is the recording; a pose missing is computed
/// afresh, not skipped.
#[test]
fn poses_computed_apart_write_the_same_bytes() {
    use replay_player::export::acmi::{AcmiWriter, Geo, Poser};
    let bytes = dogfight(5, 10, 8.0, 6_371_000.0);
    let (info, all) = ticks(&bytes);
    let mut fed: Vec<(u64, Vec<EntityState>)> = Vec::new();
    for (k, (tick, states, _)) in all.iter().enumerate() {
        let mut st = states.clone();
        match k % 50 {
            // Objects leave for a few ticks and come back (removed, then created afresh).
            10..=13 => st.retain(|s| s.id % 3 != 0),
            // None at all.
            40 => st.clear(),
            _ => {}
        }
        fed.push((*tick, st));
    }
    let mut own = AcmiWriter::new(Vec::new(), &info).unwrap();
    let mut apart = AcmiWriter::new(Vec::new(), &info).unwrap();
    let mut poser = Poser::new(Geo::of(&info));
    for (tick, st) in &fed {
        own.tick(*tick, st, &[]).unwrap();
        let mut poses = Vec::new();
        poser.tick(st, &mut poses);
        assert_eq!(poses.len(), st.len());
        apart.tick_posed(*tick, st, &[], &poses).unwrap();
    }
    let (a, b) = (own.finish().unwrap().0, apart.finish().unwrap().0);
    assert!(a == b, "{} vs {} bytes", a.len(), b.len());
    // And what a reader follows is the recording: after each frame, the objects are those of its
    // tick, each where its state is (within the quantum), also after objects came back.
    let text = String::from_utf8(a).unwrap();
    let (q, radius) = match info.world {
        WorldKind::Planet { radius_m } => (info.position_quantum_m, radius_m),
        WorldKind::Flat => panic!("a planet"),
    };
    let m_per_deg = radius.to_radians();
    let rate = f64::from(info.tick_rate_hz);
    let at: HashMap<u64, (usize, &Vec<EntityState>)> =
        fed.iter().enumerate().map(|(k, (t, st))| (*t, (k, st))).collect();
    let mut now: HashMap<String, Vec<f64>> = HashMap::new();
    let (mut reference, mut tick, mut compared, mut removed) = ([0.0f64; 2], None::<u64>, 0, 0);
    let mut compare = |tick: Option<u64>, now: &HashMap<String, Vec<f64>>, reference: [f64; 2]| {
        let Some((k, st)) = tick.and_then(|t| at.get(&t)) else { return };
        let ids: HashSet<String> = st.iter().map(|s| object_id(s.id)).collect();
        assert_eq!(ids, now.keys().cloned().collect::<HashSet<_>>(), "objects after tick {k}");
        for s in st.iter() {
            let g = world_to_geodetic(s.pos.map(|v| f64::from(v) * q), radius);
            let t = &now[&object_id(s.id)];
            assert!((t[0] + reference[0] - g.lon_deg).abs() * m_per_deg <= q, "tick {k} lon");
            assert!((t[1] + reference[1] - g.lat_deg).abs() * m_per_deg <= q, "tick {k} lat");
            assert!((t[2] - g.alt_m).abs() <= q, "tick {k} alt");
            compared += 1;
        }
    };
    for l in read(&text) {
        match l {
            Line::Object(id, props) if id == "0" => {
                for (k, v) in props {
                    match k.as_str() {
                        "ReferenceLongitude" => reference[0] = v.parse().unwrap(),
                        "ReferenceLatitude" => reference[1] = v.parse().unwrap(),
                        _ => {}
                    }
                }
            }
            Line::Frame(t) => {
                compare(tick, &now, reference);
                tick = Some(info.first_tick + (t * rate).round() as u64);
            }
            Line::Remove(id) => {
                removed += 1;
                now.remove(&id);
            }
            Line::Object(id, props) => {
                let Some((_, t)) = props.iter().find(|(k, _)| k == "T") else { continue };
                let cur = now.entry(id).or_insert_with(|| vec![f64::NAN; 6]);
                for (c, v) in cur.iter_mut().zip(t.split('|')) {
                    if !v.is_empty() {
                        *c = v.parse().unwrap();
                    }
                }
            }
            _ => {}
        }
    }
    compare(tick, &now, reference);
    assert!(removed >= 3, "objects were removed");
    assert!(compared > 5_000, "{compared} positions compared");

    // No poses handed over: every moved object's line still carries its T.
    let mut bare = AcmiWriter::new(Vec::new(), &info).unwrap();
    for (tick, st) in fed.iter().take(5) {
        bare.tick_posed(*tick, st, &[], &[]).unwrap();
    }
    let text = String::from_utf8(bare.finish().unwrap().0).unwrap();
    let with_t = text.lines().filter(|l| l.contains(",T=")).count();
    assert!(with_t >= 5 * 10, "{with_t} lines with T");
}

/// The export worker's way out (`hold_output`, then `drain` after each chunk): the sink gets the
/// header only, nothing more while the output is held (however much is written), and the drained
/// pieces, in order, are the bytes a writer handing them to its sink writes.
#[test]
fn held_output_drained_is_the_bytes_written_through() {
    use replay_player::export::acmi::AcmiWriter;
    let bytes = dogfight(5, 10, 8.0, 6_371_000.0);
    let (info, all) = ticks(&bytes);
    let mut through = AcmiWriter::new(Vec::new(), &info).unwrap();
    let mut held = AcmiWriter::new(Vec::new(), &info).unwrap();
    held.hold_output();
    let mut out = Vec::new();
    let header = held.drain(|sink, text| {
        assert!(text.is_empty(), "the header is in the sink");
        std::mem::take(sink)
    });
    assert!(header.starts_with(b"FileType=text/acmi/tacview"), "the header first");
    out.extend_from_slice(&header);
    for (k, (tick, states, events)) in all.iter().enumerate() {
        through.tick(*tick, states, events).unwrap();
        held.tick(*tick, states, events).unwrap();
        // Drained every 700 ticks: far more than the 64 KiB a writer otherwise holds.
        if k % 700 == 699 {
            let piece = held.drain(|sink, text| {
                assert!(sink.is_empty(), "nothing reached the sink while held");
                text.to_vec()
            });
            assert!(piece.len() > 64 * 1024, "{} bytes held", piece.len());
            out.extend_from_slice(&piece);
        }
    }
    let written = held.stats().bytes;
    let (rest, stats) = held.finish().unwrap();
    out.extend_from_slice(&rest);
    let (want, _) = through.finish().unwrap();
    assert!(out == want, "{} vs {} bytes", out.len(), want.len());
    assert!(written > 0 && stats.bytes == out.len() as u64, "counted {} of {} bytes", stats.bytes, out.len());
}

/// The chunks of `span` of a recording, decoded, and its info.
fn chunks_of(bytes: &[u8], span: Option<Span>) -> (RecordingInfo, Span, Vec<DecodedChunk>) {
    let (mut s, mut src) = common_acmi::open(bytes);
    let info = s.info().unwrap();
    let span = span.unwrap_or_else(|| Span::all(&info));
    let (first, end) = (s.chunk_for_tick(span.from), s.chunk_for_tick(span.to) + 1);
    let chunks = (first..end).map(|i| replay_player::io::read_chunk(&mut s, &mut src, i).unwrap()).collect();
    (info, span, chunks)
}

/// The ACMI of `span` written whole, and written in two parts at every chunk boundary `k` as two
/// workers write it (docs/export.md "Two workers"): one writer writes chunks `..k`, the other
/// skims the chunks before `k - 1`, follows `k - 1` quietly and writes from `k`, its header
/// dropped. Returns the whole text and how many splits were checked.
fn check_split_at_every_chunk(info: &RecordingInfo, span: Span, chunks: &[DecodedChunk]) -> (String, usize) {
    use replay_player::export::acmi::{AcmiWriter, Take};
    let write = |part: &[DecodedChunk]| {
        let mut w = AcmiWriter::new(Vec::new(), info).unwrap();
        for c in part {
            w.chunk(c, span, Take::Write).unwrap();
        }
        w.finish().unwrap().0
    };
    let whole = write(chunks);
    for k in 1..chunks.len() {
        let head = write(&chunks[..k]);
        let mut w = AcmiWriter::new(Vec::new(), info).unwrap();
        w.drain(|sink, _| sink.clear());
        for (i, c) in chunks.iter().enumerate() {
            let take = if i + 1 < k {
                Take::Skim
            } else if i + 1 == k {
                Take::Quiet
            } else {
                Take::Write
            };
            w.chunk(c, span, take).unwrap();
            if i < k {
                assert_eq!(w.drain(|sink, text| sink.len() + text.len()), 0, "chunk {i} of a split at {k} wrote");
            }
        }
        let tail = w.finish().unwrap().0;
        let joined = [head.as_slice(), tail.as_slice()].concat();
        assert!(
            joined == whole,
            "split at chunk {k} of {}: {} + {} bytes, whole {}; first difference at byte {:?}",
            chunks.len(),
            head.len(),
            tail.len(),
            whole.len(),
            joined.iter().zip(&whole).position(|(a, b)| a != b)
        );
    }
    (String::from_utf8(whole).unwrap(), chunks.len() - 1)
}

/// [`check_split_at_every_chunk`] of a recording; the whole is `replay export`'s bytes.
fn check_split(bytes: &[u8], span: Option<Span>) -> (String, usize) {
    let (info, span, chunks) = chunks_of(bytes, span);
    let (whole, n) = check_split_at_every_chunk(&info, span, &chunks);
    assert!(whole == export(bytes, Some(span)), "chunk by chunk = replay export");
    (whole, n)
}

/// Two workers each write a part of one export: at every chunk boundary, of a dogfight with
/// missiles (a `Parent` named by a spawn chunks before), of a range of it cut inside chunks, of a
/// SparkEngine deathmatch (kills, objects coming and going, respawns), of the golden events file
/// (chat naming the entity a participant controls) and of the hostile-text file, the two parts
/// joined are the export's bytes. And where the roster names no entity, so that only the first
/// chunk's spawns tell whose each aircraft is, the later part still has each missile's `Parent`:
/// what a skimmed chunk keeps.
#[test]
fn two_parts_written_apart_are_the_whole_export() {
    let bytes = dogfight(1, 12, 40.0, 6_371_000.0);
    let (info, _) = ticks(&bytes);
    let rate = u64::from(info.tick_rate_hz);
    let (text, n) = check_split(&bytes, None);
    assert!(text.contains(",Parent=") && n >= 30, "missiles with a parent; {n} splits");
    let cut = Span { from: info.first_tick + 5 * rate + 7, to: info.first_tick + 31 * rate + 3 };
    assert!(check_split(&bytes, Some(cut)).1 >= 20);
    let dm = deathmatch_bytes(&DeathmatchConfig { seconds: 90.0, ..DeathmatchConfig::default() }).unwrap();
    let (text, n) = check_split(&dm, None);
    assert!(text.contains("Event=Destroyed") && text.contains("\n-") && n >= 20, "kills, objects removed");
    let events = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/golden/events.flrep")).unwrap();
    let (text, n) = check_split(&events, None);
    assert!(text.contains("Event=Message|") && n >= 2, "chat from a participant's entity");
    assert!(check_split(&hostile(), None).1 >= 1);

    let (mut info, span, chunks) = chunks_of(&bytes, None);
    for p in &mut info.participants {
        p.entity = replay_player::model::NO_ENTITY;
    }
    let (text, _) = check_split_at_every_chunk(&info, span, &chunks);
    let first_chunk_end = chunks[0].ticks.last().copied().unwrap();
    let (mut frame, mut late_parents) = (0u64, 0);
    for l in text.lines() {
        if let Some(t) = l.strip_prefix('#') {
            frame = info.first_tick + (t.parse::<f64>().unwrap() * rate as f64).round() as u64;
        } else if frame > first_chunk_end {
            late_parents += usize::from(l.contains(",Parent="));
        }
    }
    assert!(late_parents >= 2, "{late_parents} parents after the first chunk");
}

/// A chunk's poses depend on that chunk alone (`Poser::chunk` starts afresh): a `Poser` that
/// followed every chunk before gives the poses of one that is given only that chunk, for each
/// chunk of a dogfight, component by component: what lets a second worker start at any chunk.
#[test]
fn a_chunks_poses_depend_on_that_chunk_alone() {
    use replay_player::export::acmi::{Geo, Poser};
    let (info, span, chunks) = chunks_of(&dogfight(1, 12, 40.0, 6_371_000.0), None);
    let mut along = Poser::new(Geo::of(&info));
    let mut compared = 0;
    for c in &chunks {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        along.chunk(c, span, &mut a);
        // The reference longitude / latitude is the first tick's, as a writer's is.
        let mut alone = Poser::new(Geo::of(&info));
        alone.refer(chunks[0].tick_entities(0));
        alone.chunk(c, span, &mut b);
        assert_eq!(a.len(), b.len());
        for (p, q) in a.iter().zip(&b) {
            assert_eq!((p.n, p.t), (q.n, q.t));
            compared += usize::from(p.n);
        }
    }
    assert!(compared > 100_000, "{compared} components");
}
