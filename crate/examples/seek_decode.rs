//! Where a seek's decode goes, natively: for every chunk of a 200-aircraft recording (60 Hz, the
//! generator's defaults, as `tests/bench/seek.mjs`'s 1-hour file), the range a paused seek asks for,
//! `[t, t + 1)` at the chunk's middle tick: decompression (+ CRC) alone, then the roll forward from
//! the keyframe with the payload held (what the decoder does after a prefetch hint or for a second
//! seek in the same chunk), then both (a cold seek). Medians of 9 passes. Prints figures; asserts
//! nothing. For `perf record`: `--roll-only` loops the roll forward for a few seconds.
//!
//!   cargo run --release -p replay-player --example seek_decode [-- --entities N] [-- --roll-only]

use replay_player::format::flrep::{chunk::ChunkHeader, chunk::CHUNK_HEADER_LEN, ChunkDecoder, Limits};
use replay_player::format::zstd::Decompressor;
use replay_player::io::open_flrep;
use replay_player::model::TickRange;
use replay_player::sim::{dogfight_bytes, DogfightConfig};
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let entities = args
        .iter()
        .position(|a| a == "--entities")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(200u32);
    let roll_only = args.iter().any(|a| a == "--roll-only");
    let bytes =
        dogfight_bytes(&DogfightConfig { seed: 1, entities, seconds: 60.0, ..Default::default() }).unwrap_or_default();
    let mut src = bytes.clone();
    let Ok(o) = open_flrep(&mut src, &Limits::default()) else { return };
    let chunks: Vec<(ChunkHeader, Vec<u8>)> = o
        .chunks
        .iter()
        .filter_map(|c| {
            let s = c.offset as usize;
            let h = ChunkHeader::parse(
                bytes.get(s..s + CHUNK_HEADER_LEN)?,
                c.offset,
                bytes.len() as u64,
                &Limits::default(),
            )
            .ok()?;
            Some((h, bytes.get(s + CHUNK_HEADER_LEN..(c.offset + c.len) as usize)?.to_vec()))
        })
        .collect();
    let mid = |h: &ChunkHeader| h.first_tick + (h.last_tick - h.first_tick) / 2;
    let range = |t: u64| TickRange { from: t, to: t + 1, stride: 1, max_states: 16384 };
    let n = chunks.len().max(1) as f64;
    if roll_only {
        let mut dec = ChunkDecoder::new(Limits::default());
        let t0 = Instant::now();
        let mut k = 0u64;
        while t0.elapsed().as_secs_f64() < 5.0 {
            for (h, f) in &chunks {
                // Decompressed once; each seek after the first rolls forward again from the keyframe
                // (the decoder stands past the middle tick), with the payload held.
                let _ = dec.decode_range(h, f, range(h.first_tick));
                for _ in 0..50 {
                    let _ =
                        std::hint::black_box(dec.decode_range(h, &[], range(mid(h))).map(|p| p.chunk.entities.len()));
                    k += 1;
                }
            }
        }
        println!("{k} rolls");
        return;
    }
    let (mut dz, mut roll, mut cold) = (vec![], vec![], vec![]);
    for _ in 0..9 {
        let mut d = Decompressor::new();
        let t = Instant::now();
        for (h, f) in &chunks {
            let _ = std::hint::black_box(d.decompress(f, h.uncompressed_len as usize).map(|b| b.len()));
        }
        dz.push(t.elapsed().as_secs_f64() * 1000.0 / n);
        // Held payload: park the decoder on the chunk's first tick, then time the seek to its middle.
        let mut dec = ChunkDecoder::new(Limits::default());
        let mut total = 0.0;
        for (h, f) in &chunks {
            let _ = dec.decode_range(h, f, range(h.first_tick));
            let t = Instant::now();
            let _ = std::hint::black_box(dec.decode_range(h, &[], range(mid(h))).map(|p| p.chunk.entities.len()));
            total += t.elapsed().as_secs_f64();
        }
        roll.push(total * 1000.0 / n);
        let mut dec = ChunkDecoder::new(Limits::default());
        let t = Instant::now();
        for (h, f) in &chunks {
            let _ = std::hint::black_box(dec.decode_range(h, f, range(mid(h))).map(|p| p.chunk.entities.len()));
        }
        cold.push(t.elapsed().as_secs_f64() * 1000.0 / n);
    }
    let Some((h0, _)) = chunks.first() else { return };
    println!(
        "{entities} aircraft, {} chunks of {} ticks ({} KiB decompressed), seek to the middle tick:",
        chunks.len(),
        h0.tick_count,
        h0.uncompressed_len / 1024
    );
    println!(
        "  decompress + CRC {:.3} ms | roll forward (payload held) {:.3} ms ({:.1} µs per tick) | cold seek {:.3} ms",
        median(&mut dz),
        median(&mut roll),
        median(&mut roll) * 1000.0 / ((h0.tick_count / 2).max(1)) as f64,
        median(&mut cold)
    );
}
