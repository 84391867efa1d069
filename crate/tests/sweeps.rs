//! Truncation and bit-flip sweeps over small generated recordings, driven exactly as the Web Worker
//! drives a file (open through `format::Session`, then decode chunk after chunk until one fails).
//!
//! For every fixture: cut at every byte offset, and flip (bitwise NOT) every byte once (offsets are
//! sampled for files over 64 KiB). Nothing may panic; every result is an error or a recovered prefix;
//! the recovered ticks never decrease as the cut moves later; a cut file keeps exactly the complete
//! chunks before the cut; and whatever decodes equals the original (no silent corruption).
//!
//! `cargo test --test sweeps -- --nocapture` prints the counts quoted in docs/security.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::SessionError;
use replay_player::io::{open_session, read_chunk};
use replay_player::model::DecodedChunk;
use replay_player::sim::{dogfight_bytes, DogfightConfig};
use std::time::Instant;

fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let cfg = |seed, entities, seconds, tick_rate_hz, planet_radius_m| DogfightConfig {
        seed,
        entities,
        seconds,
        tick_rate_hz,
        planet_radius_m,
        keyframe_interval_ticks: 15,
        ..Default::default()
    };
    vec![
        ("planet_6x2s", dogfight_bytes(&cfg(7, 6, 2.0, 30, 6_371_000.0)).expect("gen")),
        ("flat_4x2s", dogfight_bytes(&cfg(3, 4, 2.0, 20, 0.0)).expect("gen")),
        ("planet_8x1s_60hz", dogfight_bytes(&cfg(11, 8, 1.0, 60, 6_371_000.0)).expect("gen")),
    ]
}

/// Opens and plays from the start: the decoded chunks up to the first that fails.
fn play(bytes: &[u8]) -> Result<Vec<DecodedChunk>, SessionError> {
    let mut src = bytes;
    let mut s = open_session(&mut src)?;
    let mut out = Vec::new();
    for i in 0..s.chunk_count() {
        match read_chunk(&mut s, &mut src, i) {
            Ok(c) => out.push(c),
            Err(_) => break,
        }
    }
    Ok(out)
}

fn ticks(chunks: &[DecodedChunk]) -> usize {
    chunks.iter().map(|c| c.ticks.len()).sum()
}

#[derive(Default, Debug)]
struct Counts {
    runs: usize,
    errors: usize,
    full: usize,
    partial: usize,
}

impl Counts {
    fn add(&mut self, r: &Result<Vec<DecodedChunk>, SessionError>, total: usize) {
        self.runs += 1;
        match r {
            Err(_) => self.errors += 1,
            Ok(c) if ticks(c) == total => self.full += 1,
            Ok(_) => self.partial += 1,
        }
    }
}

/// Offsets to try: all of them up to 64 KiB, else an even sample of 65,536.
fn offsets(len: usize) -> Vec<usize> {
    const ALL: usize = 64 * 1024;
    if len <= ALL {
        (0..len).collect()
    } else {
        (0..ALL).map(|k| k * len / ALL).collect()
    }
}

#[test]
fn cut_and_flip_every_byte() {
    let mut total_cuts = Counts::default();
    let mut total_flips = Counts::default();
    for (name, file) in fixtures() {
        let t0 = Instant::now();
        let original = play(&file).expect("fixture plays");
        let total = ticks(&original);
        let s = open_session(&mut &file[..]).expect("opens");
        let ends: Vec<(usize, usize)> = (0..s.chunk_count())
            .map(|i| {
                let (o, l) = s.chunk_range(i).unwrap();
                ((o + l) as usize, original[i].ticks.len())
            })
            .collect();
        assert_eq!(original.len(), ends.len());

        // Cuts: file[..cut] for every cut (the whole file is the last one).
        let mut cuts = Counts::default();
        let mut prev = 0usize;
        let mut cut_points = offsets(file.len());
        cut_points.push(file.len());
        for cut in cut_points {
            let r = std::panic::catch_unwind(|| play(&file[..cut]))
                .unwrap_or_else(|_| panic!("{name}: cut at {cut} panics"));
            cuts.add(&r, total);
            let got = r.as_ref().map(|c| ticks(c)).unwrap_or(0);
            assert!(got >= prev, "{name}: cut at {cut} recovers {got} ticks, the cut before recovered {prev}");
            prev = got;
            // Exactly the complete chunks before the cut (all of them once only the trailer is cut).
            let complete: usize = ends.iter().filter(|(end, _)| *end <= cut).map(|(_, n)| n).sum();
            assert_eq!(
                got,
                complete,
                "{name}: cut at {cut}: {got} ticks recovered, {complete} in complete chunks ({:?})",
                r.as_ref().err()
            );
            if let Ok(c) = &r {
                assert_eq!(c[..], original[..c.len()], "{name}: cut at {cut} decodes differently");
            }
        }
        assert_eq!(prev, total);

        // Flips: every byte NOTed once.
        let mut flips = Counts::default();
        for at in offsets(file.len()) {
            let mut f = file.clone();
            f[at] = !f[at];
            let r = std::panic::catch_unwind(|| play(&f)).unwrap_or_else(|_| panic!("{name}: flip at {at} panics"));
            flips.add(&r, total);
            if let Ok(c) = &r {
                assert!(ticks(c) <= total, "{name}: flip at {at} gives more ticks than the original");
                assert_eq!(
                    c[..],
                    original[..c.len()],
                    "{name}: flip at {at} decodes to different states (silent corruption)"
                );
            }
        }
        eprintln!(
            "{name}: {} bytes, {} chunks, {total} ticks | cuts {} (errors {}, partial {}, full {}) | flips {} (errors {}, partial {}, full {}) | {:.1?}",
            file.len(),
            ends.len(),
            cuts.runs,
            cuts.errors,
            cuts.partial,
            cuts.full,
            flips.runs,
            flips.errors,
            flips.partial,
            flips.full,
            t0.elapsed()
        );
        for (t, c) in [(&mut total_cuts, cuts), (&mut total_flips, flips)] {
            t.runs += c.runs;
            t.errors += c.errors;
            t.partial += c.partial;
            t.full += c.full;
        }
    }
    eprintln!("total cuts: {total_cuts:?}");
    eprintln!("total flips: {total_flips:?}");
}
