//! Comparing two recordings (docs/playback.md "Comparing two recordings"): files written by
//! `replay generate --perturb-at T` diverge from their unperturbed twin at exactly tick T, in the
//! entity and field the option documents (crate/src/sim/perturb.rs), and `replay diff` says what
//! `io::compare_sources` found; identical files, files cut shorter and files of other sessions say so.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::compare::Comparison;
use replay_player::format::Limits;
use replay_player::io::{compare_sources, open_session, read_chunk, FileSource, ReadAt};
use replay_player::model::compare::{FieldDiff, Outcome, Presence, Side};
use replay_player::model::EntityState;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (exit code, stdout, stderr) of `replay ARGS`.
fn replay(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_replay")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn generate(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let p = dir.join(name);
    let mut args = vec!["generate", "--out", p.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, _, err) = replay(&args);
    assert_eq!(code, 0, "{err}");
    p
}

fn compare(a: &Path, b: &Path) -> Outcome {
    compare_sources(&mut FileSource::open(a).unwrap(), &mut FileSource::open(b).unwrap()).unwrap()
}

/// The entity states of `path` at `tick`.
fn states_at(path: &Path, tick: u64) -> Vec<EntityState> {
    let mut src = FileSource::open(path).unwrap();
    let mut s = open_session(&mut src).unwrap();
    let i = s.chunk_for_tick(tick);
    let c = read_chunk(&mut s, &mut src, i).unwrap();
    let k = c.ticks.iter().position(|t| *t == tick).unwrap();
    c.tick_entities(k).to_vec()
}

const DOGFIGHT: [&str; 6] = ["--entities", "12", "--seconds", "10", "--keyframe-interval", "120"];

/// A perturbed pair diverges at T (mid-chunk), in the lowest id of tick T, its pos.x by 1 m, and
/// `replay diff` prints the same.
fn assert_diverges_at(a: &Path, b: &Path, t: u64, steps: i64) {
    let Outcome::Diverged(d) = compare(a, b) else { panic!("{:?}", compare(a, b)) };
    let at_t = states_at(a, t);
    let id = at_t.iter().map(|s| s.id).min().unwrap();
    let x = i64::from(at_t.iter().find(|s| s.id == id).unwrap().pos[0]);
    assert_eq!((d.tick_a, d.tick_b, d.entities_differing), (t, t, 1));
    assert_eq!((d.entities[0].id, d.entities[0].presence), (id, Presence::Both));
    assert_eq!(d.entities[0].fields, vec![FieldDiff { field: "pos.x", a: x, b: x + steps }]);
    // Every tick before T was compared equal.
    assert_eq!(d.identical_ticks, states_ticks_before(a, t));
    let (code, out, _) = replay(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with(&format!("first difference at tick {t} (A) / {t} (B): hash {:016x}", d.hash_a)), "{out}");
    assert!(out.contains(&format!("  entity {id}: A pos.x={x}\n")), "{out}");
    assert!(out.contains(&format!("B pos.x={}\n", x + steps)), "{out}");
}

/// How many ticks `path` holds before `t`.
fn states_ticks_before(path: &Path, t: u64) -> u64 {
    let mut src = FileSource::open(path).unwrap();
    let mut s = open_session(&mut src).unwrap();
    let mut n = 0;
    for i in 0..s.chunk_count() {
        n += read_chunk(&mut s, &mut src, i).unwrap().ticks.iter().filter(|k| **k < t).count() as u64;
    }
    n
}

#[test]
fn a_perturbed_flrep_diverges_at_its_tick_in_its_entity_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path(), "a.flrep", &DOGFIGHT);
    for t in [0u64, 300, 359, 599] {
        let b =
            generate(dir.path(), &format!("b{t}.flrep"), &[&DOGFIGHT[..], &["--perturb-at", &t.to_string()]].concat());
        // 1 m at the default 0.125 m quantum.
        assert_diverges_at(&a, &b, t, 8);
    }
}

#[test]
fn a_perturbed_spark_replay_diverges_at_its_tick() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--format", "spark", "--players", "4", "--seconds", "8"];
    let a = generate(dir.path(), "a.replay", &args);
    let b = generate(dir.path(), "b.replay", &[&args[..], &["--perturb-at", "3000"]].concat());
    // 1 m in SparkEngine's 1/1024 m quanta (the f32 addition is exact at these coordinates).
    assert_diverges_at(&a, &b, 3000, 1024);
    // The same comparison between the .replay and its conversion to .flrep: the one model.
    let fa = dir.path().join("a.flrep");
    let (code, _, err) = replay(&["convert", a.to_str().unwrap(), fa.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(matches!(compare(&a, &fa), Outcome::Identical { .. }));
    let Outcome::Diverged(d) = compare(&fa, &b) else { panic!() };
    assert_eq!((d.tick_a, d.entities.len()), (3000, 1));
}

#[test]
fn identical_files_are_identical_through_their_last_tick_whatever_their_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path(), "a.flrep", &DOGFIGHT);
    // The same recording cut into chunks of another length: chunk boundaries do not line up.
    let b = generate(dir.path(), "b.flrep", &["--entities", "12", "--seconds", "10", "--keyframe-interval", "70"]);
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(compare(&a, &b), Outcome::Identical { ticks: 600, last_tick: 599, last_tick_b: 599 });
    let (code, out, _) = replay(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, "identical: 600 ticks\n"));
}

#[test]
fn a_shorter_recording_says_which_ends_where() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path(), "a.flrep", &DOGFIGHT);
    let b = generate(dir.path(), "b.flrep", &["--entities", "12", "--seconds", "4"]);
    assert_eq!(compare(&a, &b), Outcome::Shorter { ticks: 240, last_tick: Some(239), ended: Side::B, next_tick: 240 });
    let (code, out, _) = replay(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(out, "identical for 240 ticks (through tick 239); B ends there, A goes on with tick 240\n");
}

#[test]
fn recordings_of_different_sessions_say_why_they_cannot_be_compared() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path(), "a.flrep", &DOGFIGHT);
    let b = generate(dir.path(), "b.flrep", &["--entities", "12", "--seconds", "10", "--tick-rate", "30"]);
    let Outcome::Mismatched { reasons } = compare(&a, &b) else { panic!() };
    assert_eq!(reasons, vec!["tick rate 60 Hz (A) vs 30 Hz (B)".to_string()]);
    let s = generate(dir.path(), "s.replay", &["--format", "spark", "--players", "2", "--seconds", "1"]);
    let Outcome::Mismatched { reasons } = compare(&a, &s) else { panic!() };
    assert!(
        reasons.iter().any(|r| r.starts_with("mission \"op-red-flag-07\" (A) vs \"dm_warehouse\" (B)")),
        "{reasons:?}"
    );
    let (code, out, _) = replay(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(out, "cannot compare: not recordings of one session: tick rate 60 Hz (A) vs 30 Hz (B)\n");
}

#[test]
fn the_comparison_holds_one_chunk_of_each_and_reads_each_chunk_once() {
    let dir = tempfile::tempdir().unwrap();
    let a = generate(dir.path(), "a.flrep", &DOGFIGHT);
    let b = generate(dir.path(), "b.flrep", &[&DOGFIGHT[..], &["--perturb-at", "450"]].concat());
    let (mut sa, mut sb) = (FileSource::open(&a).unwrap(), FileSource::open(&b).unwrap());
    let mut c = Comparison::new(sa.len(), sb.len(), Limits::default()).unwrap();
    let mut largest = 0u64;
    let mut chunk_reads = [0usize; 2];
    while let Some(w) = c.want() {
        let bytes = match w.side {
            Side::A => sa.read_at(w.offset, w.len),
            Side::B => sb.read_at(w.offset, w.len),
        }
        .unwrap();
        if c.info(w.side).is_some() {
            chunk_reads[usize::from(w.side == Side::B)] += 1;
            largest = largest.max(w.len);
        }
        c.feed(&bytes).unwrap();
    }
    // Tick 450 is in chunk 3 (360..480): chunks 0..=3 of each were read, one read each, none twice.
    assert_eq!(chunk_reads, [4, 4]);
    // Each a chunk's bytes, never a whole file's (the opens read a head of at most 64 KiB).
    assert!(largest < sa.len() / 3, "a chunk read of {largest} bytes of {}", sa.len());
    assert_eq!(c.progress().chunks_done, [4, 4]);
    assert!(matches!(c.outcome(), Some(Outcome::Diverged(d)) if d.tick_a == 450));
    // An error names its side, and a comparison stays failed.
    let mut c = Comparison::new(sa.len(), 3, Limits::default()).unwrap();
    let mut err = None;
    while let Some(w) = c.want() {
        let bytes = match w.side {
            Side::A => sa.read_at(w.offset, w.len).unwrap(),
            Side::B => b"FLR".to_vec(),
        };
        if let Err(e) = c.feed(&bytes) {
            err = Some(e);
            break;
        }
    }
    let e = err.unwrap();
    assert_eq!(e.side, Side::B);
    assert!(e.to_string().starts_with("B: "), "{e}");
    assert!(c.want().is_none() && c.feed(b"").is_err());
}
