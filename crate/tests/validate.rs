//! `replay validate` means the same in every format (docs/format/*.md): a file with nothing playable
//! is refused, a length over a format's limit is corruption (exit 1) and not truncation, and a file
//! cut short is a warning (exit 0). Each format gets the same three files, made from its generator.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::flrep::Limits;
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use replay_player::sim::foldback::{foldback_bytes, FoldbackConfig};
use replay_player::sim::{dogfight_bytes, DogfightConfig};

/// Exit code and stderr of `replay validate` on `bytes`.
fn validate(name: &str, bytes: &[u8]) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_replay")).arg("validate").arg(&p).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// The three files of one format: (nothing playable, a length over the limit after something
/// playable, cut short after something playable).
struct Case {
    format: &'static str,
    empty: Vec<u8>,
    over_limit: Vec<u8>,
    cut: Vec<u8>,
}

fn flrep() -> Case {
    let b = dogfight_bytes(&DogfightConfig {
        seed: 4,
        entities: 3,
        seconds: 1.5,
        keyframe_interval_ticks: 15,
        ..Default::default()
    })
    .unwrap();
    let o = replay_player::io::open_flrep(&mut &b[..], &Limits::default()).unwrap();
    let (stream, c1) = (o.stream_start as usize, o.chunks[1].offset as usize);
    let table = u64::from_le_bytes(b[b.len() - 8..].try_into().unwrap()) as usize;
    // No trailer (the scan path), and chunk 1's compressedLength over the 16 MiB limit.
    let mut over = b[..table].to_vec();
    over[c1 + 4..c1 + 8].copy_from_slice(&u32::MAX.to_le_bytes());
    Case { format: "flrep", empty: b[..stream].to_vec(), over_limit: over, cut: b[..c1 + 50].to_vec() }
}

fn spark() -> Case {
    let b = deathmatch_bytes(&DeathmatchConfig { seed: 2, players: 3, seconds: 1.0, ..Default::default() }).unwrap();
    let at = 8 + 4 + u32_at(&b, 8);
    let frames = at + 4 + u32_at(&b, at) + 4; // after the game mode and the duration: frameCount
    let f1 = frames + 4 + 12 + 56 * u32_at(&b, frames + 4 + 8);
    let mut empty = b[..frames].to_vec();
    empty.extend_from_slice(&[0; 8]); // frameCount 0, eventCount 0
    let mut over = b.clone();
    over[f1 + 8..f1 + 12].copy_from_slice(&u32::MAX.to_le_bytes()); // frame 1's entityCount
    Case { format: "spark", empty, over_limit: over, cut: b[..f1 + 30].to_vec() }
}

fn foldback() -> Case {
    let b = foldback_bytes(&FoldbackConfig { seed: 1, peers: 2, ticks: 6, entities: 2, ..Default::default() }).unwrap();
    // The second TickHash frame: a tick was read before it.
    let mut at = 32;
    let mut seen = 0;
    while seen < 2 {
        if b[at] == 0x01 {
            seen += 1;
            if seen == 2 {
                break;
            }
        }
        at += 5 + u32_at(&b, at + 1);
    }
    let mut over = b.clone();
    over[at + 1..at + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    Case { format: "foldback", empty: b[..32].to_vec(), over_limit: over, cut: b[..at + 10].to_vec() }
}

#[test]
fn validate_means_the_same_in_every_format() {
    for c in [flrep(), spark(), foldback()] {
        let name = format!("x.{}", if c.format == "spark" { "replay" } else { c.format });
        let (code, err) = validate(&name, &c.empty);
        assert_eq!(code, 1, "{}: nothing playable must be refused: {err}", c.format);
        assert!(err.contains("nothing to"), "{}: {err}", c.format);
        let (code, err) = validate(&name, &c.over_limit);
        assert_eq!(code, 1, "{}: a length over the limit is corruption: {err}", c.format);
        assert!(err.contains("limit") && !err.contains("cut short"), "{}: {err}", c.format);
        let (code, err) = validate(&name, &c.cut);
        assert_eq!(code, 0, "{}: a cut file is a warning: {err}", c.format);
        assert!(
            err.contains("warning") && (err.contains("cut short") || err.contains("did not end cleanly")),
            "{}: {err}",
            c.format
        );
    }
}

#[test]
fn foldback_whose_first_frame_declares_4_gib_is_refused() {
    // Once "ok: 0 ticks, 0 frames": the over-limit length read as a cut, and the empty rest as fine.
    let mut b = foldback_bytes(&FoldbackConfig { seed: 1, peers: 2, ticks: 2, ..Default::default() }).unwrap();
    b.truncate(32 + 1000);
    b[33..37].copy_from_slice(&u32::MAX.to_le_bytes());
    let (code, err) = validate("first.foldback", &b);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("at offset 32 declares a 4294967295-byte payload, over the limit"), "{err}");
}
