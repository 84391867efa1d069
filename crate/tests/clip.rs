//! Replay clips (docs/export.md "Replay clips"): a tick range re-encoded with the format's own
//! writer. The clip opens clean, its ticks keep their numbers and its state hashes equal the
//! source's over the range; a damaged chunk outside the range does not reach it.
#![cfg(feature = "export")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "common/acmi.rs"]
mod common_acmi;

use common_acmi::{dogfight, hashes, open, ticks};
use replay_player::export::Span;
use replay_player::io::export::clip;
use replay_player::io::read_chunk;
use replay_player::model::{Event, EventBody, FormatKind};
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use std::io::Cursor;

fn clip_of(bytes: &[u8], span: Span) -> Vec<u8> {
    let (mut s, mut src) = open(bytes);
    clip(&mut s, &mut src, span, Cursor::new(Vec::new())).unwrap().0.into_inner()
}

/// Opens and decodes every chunk; the recording's problems (none for a clean file).
fn validate(bytes: &[u8]) -> Vec<String> {
    let (mut s, mut src) = open(bytes);
    for i in 0..s.chunk_count() {
        read_chunk(&mut s, &mut src, i).unwrap();
    }
    let info = s.info().unwrap();
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    info.problems
}

fn events_in(bytes: &[u8], span: Span) -> Vec<Event> {
    ticks(bytes).1.into_iter().filter(|(t, _, _)| span.contains(*t)).flat_map(|(_, _, e)| e).collect()
}

fn check_clip(bytes: &[u8], span: Span, format: FormatKind) -> Vec<u8> {
    let c = clip_of(bytes, span);
    assert_eq!(validate(&c), Vec::<String>::new());
    let (info, _) = ticks(&c);
    let (src_info, _) = ticks(bytes);
    assert_eq!(info.format, format);
    assert_eq!(
        (info.participants.len(), info.entity_types.len()),
        (src_info.participants.len(), src_info.entity_types.len())
    );
    let want: Vec<(u64, u64)> = hashes(bytes).into_iter().filter(|(t, _)| span.contains(*t)).collect();
    assert!(want.len() > 10);
    assert_eq!(hashes(&c), want, "the clip's ticks and hashes are the source's over the range");
    assert_eq!(info.first_tick, want[0].0);
    assert_eq!(events_in(&c, span), events_in(bytes, span));
    assert!(c.len() < bytes.len());
    c
}

#[test]
fn a_flrep_clip_hashes_as_its_source_over_the_range() {
    let bytes = dogfight(2, 8, 60.0, 6_371_000.0);
    let (info, all) = ticks(&bytes);
    // A range around the first kill that starts between keyframes (its first tick becomes one).
    let kill = all.iter().find(|(_, _, e)| e.iter().any(|e| matches!(e.body, EventBody::Kill { .. }))).unwrap().0;
    let span =
        Span { from: kill.saturating_sub(1301).max(info.first_tick + 1), to: (kill + 777).min(info.last_tick - 5) };
    assert_ne!(span.from % u64::from(info.keyframe_interval_ticks), 0);
    let c = check_clip(&bytes, span, FormatKind::Flrep);
    let (ci, _) = ticks(&c);
    assert_eq!(ci.keyframe_interval_ticks, info.keyframe_interval_ticks);
    assert_eq!(ci.last_tick, span.to);
    assert!(events_in(&c, span).iter().any(|e| matches!(e.body, EventBody::Kill { .. })));
}

#[test]
fn a_sparkengine_clip_is_a_sparkengine_replay_with_the_same_hashes() {
    let bytes =
        deathmatch_bytes(&DeathmatchConfig { seed: 7, players: 8, seconds: 30.0, ..DeathmatchConfig::default() })
            .unwrap();
    let (info, _) = ticks(&bytes);
    let span = Span { from: info.first_tick + 5_000, to: info.first_tick + 12_500 };
    check_clip(&bytes, span, FormatKind::SparkReplay);
}

#[test]
fn a_damaged_chunk_outside_the_range_does_not_reach_the_clip() {
    let mut bytes = dogfight(5, 6, 40.0, 6_371_000.0);
    let (s, _) = open(&bytes);
    let (off, len) = s.chunk_range(1).unwrap();
    // Flip a byte in the middle of chunk 1's payload: the file no longer validates.
    bytes[(off + len / 2) as usize] ^= 0x5a;
    let (mut s, mut src) = open(&bytes);
    assert!(read_chunk(&mut s, &mut src, 1).is_err(), "the damage must be seen");
    let later = s.chunk_first_tick(3).unwrap();
    let span = Span { from: later + 7, to: later + 900 };
    let c = clip_of(&bytes, span);
    assert_eq!(validate(&c), Vec::<String>::new());
    let want: Vec<(u64, u64)> = {
        let (mut s, mut src) = open(&bytes);
        let mut v = Vec::new();
        for i in 3..s.chunk_count() {
            let ch = read_chunk(&mut s, &mut src, i).unwrap();
            for (k, t) in ch.ticks.iter().enumerate() {
                if span.contains(*t) {
                    v.push((*t, replay_player::model::state_hash(ch.tick_entities(k))));
                }
            }
        }
        v
    };
    assert_eq!(hashes(&c), want);
}
