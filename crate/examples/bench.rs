//! Benchmarks for docs/performance.md. Prints figures; asserts nothing.
//!
//!   cargo run --release -p replay-player --example bench            # everything but the 1 GB file
//!   cargo run --release -p replay-player --example bench -- --big   # also open a 1 GB file
//!
//! Timings are medians of repeated runs measured side by side in one process.

use replay_player::format::flrep::{chunk::ChunkHeader, chunk::CHUNK_HEADER_LEN, ChunkDecoder, Limits};
use replay_player::format::zstd::Decompressor;
use replay_player::io::{open_flrep, FileSource, FlrepFile, RotatingWriter, RotationOptions};
use replay_player::sim::{dogfight_bytes, Dogfight, DogfightConfig, Rng};
use std::path::Path;
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(((v.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn main() {
    let big = std::env::args().any(|a| a == "--big");
    bytes_per_tick();
    decode_throughput();
    seek_and_open(big);
}

fn bytes_per_tick() {
    println!("## Bytes per tick (40 moving aircraft + 4 ground, 60 Hz, 25 s)");
    println!("| keyframe interval | file bytes | bytes/tick |");
    println!("|---|---|---|");
    for k in [60u32, 120, 300, 600] {
        let b = dogfight_bytes(&DogfightConfig {
            seed: 1,
            entities: 40,
            seconds: 25.0,
            keyframe_interval_ticks: k,
            ..Default::default()
        })
        .unwrap_or_default();
        println!("| {k} | {} | {:.1} |", b.len(), b.len() as f64 / 1500.0);
    }
    println!();
}

struct Chunk {
    header: ChunkHeader,
    frame: Vec<u8>,
}

fn chunks_of(bytes: &[u8]) -> Vec<Chunk> {
    let mut src = bytes.to_vec();
    let Ok(o) = open_flrep(&mut src, &Limits::default()) else { return vec![] };
    o.chunks
        .iter()
        .filter_map(|c| {
            let s = c.offset as usize;
            let e = (c.offset + c.len) as usize;
            let hb = bytes.get(s..s + CHUNK_HEADER_LEN)?;
            let header = ChunkHeader::parse(hb, c.offset, bytes.len() as u64, &Limits::default()).ok()?;
            Some(Chunk { header, frame: bytes.get(s + CHUNK_HEADER_LEN..e)?.to_vec() })
        })
        .collect()
}

fn decode_throughput() {
    println!("## Decode throughput (native, one core; medians of 5 passes over every chunk)");
    println!("| world | chunks | decompressed MB | ruzstd MB/s | libzstd MB/s | ruzstd/libzstd | full decode ticks/s | full decode MB/s |");
    println!("|---|---|---|---|---|---|---|---|");
    for (n, secs) in [(40u32, 60.0), (200, 30.0), (2000, 10.0)] {
        let bytes = dogfight_bytes(&DogfightConfig { seed: 1, entities: n, seconds: secs, ..Default::default() })
            .unwrap_or_default();
        let chunks = chunks_of(&bytes);
        let total: usize = chunks.iter().map(|c| c.header.uncompressed_len as usize).sum();
        let ticks: u64 = chunks.iter().map(|c| u64::from(c.header.tick_count)).sum();
        let (mut rz, mut lz, mut full) = (vec![], vec![], vec![]);
        for _ in 0..5 {
            let mut d = Decompressor::new();
            let t = Instant::now();
            for c in &chunks {
                let _ =
                    std::hint::black_box(d.decompress(&c.frame, c.header.uncompressed_len as usize).map(|b| b.len()));
            }
            rz.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            for c in &chunks {
                let _ = std::hint::black_box(
                    zstd::bulk::decompress(&c.frame, c.header.uncompressed_len as usize).map(|b| b.len()),
                );
            }
            lz.push(t.elapsed().as_secs_f64());
            let mut dec = ChunkDecoder::new(Limits::default());
            let t = Instant::now();
            for c in &chunks {
                let _ = std::hint::black_box(dec.decode(&c.header, &c.frame).map(|d| d.entities.len()));
            }
            full.push(t.elapsed().as_secs_f64());
        }
        let mb = total as f64 / 1e6;
        let (r, l, f) = (median(&mut rz), median(&mut lz), median(&mut full));
        println!(
            "| {n} aircraft, {secs} s | {} | {mb:.1} | {:.0} | {:.0} | {:.2} | {:.0} | {:.0} |",
            chunks.len(),
            mb / r,
            mb / l,
            l / r,
            ticks as f64 / f,
            mb / f
        );
    }
    println!();
}

fn write_file(path: &Path, cfg: &DogfightConfig) {
    let mut sim = Dogfight::new(cfg.clone());
    let Ok(mut w) = RotatingWriter::create(
        path,
        &sim.header(),
        &sim.sections(),
        Default::default(),
        RotationOptions { max_file_mb: 4096, max_files: 1 },
    ) else {
        return;
    };
    while let Some((t, s, e)) = sim.step() {
        if w.tick(t, s, &e).is_err() {
            return;
        }
    }
    let _ = w.finish();
}

fn seek_and_open(big: bool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench");
    let _ = std::fs::create_dir_all(&dir);
    // 1 hour, 200 aircraft (the player's seek benchmark input).
    let hour = dir.join("hour-200.flrep");
    if !hour.exists() {
        eprintln!("generating {} (1 h, 200 aircraft)…", hour.display());
        write_file(&hour, &DogfightConfig { seed: 7, entities: 200, seconds: 3600.0, ..Default::default() });
    }
    let small = dir.join("small-1mb.flrep");
    if !small.exists() {
        write_file(&small, &DogfightConfig { seed: 7, entities: 40, seconds: 55.0, ..Default::default() });
    }
    println!("## Random seek (100 seeks, each = read one chunk + decode it, warm page cache)");
    if let Ok(src) = FileSource::open(&hour) {
        let len = src.len_bytes();
        if let Ok(mut f) = FlrepFile::open(src, Limits::default()) {
            let (first, last) = (f.opened.first_tick, f.opened.last_tick);
            let mut rng = Rng::new(42);
            let mut times = Vec::new();
            let before = f.src.bytes_read;
            for _ in 0..100 {
                let tick = first + (rng.f64() * (last - first) as f64) as u64;
                let t = Instant::now();
                let _ = std::hint::black_box(f.seek(tick).map(|(c, at)| c.tick_entities(at).len()));
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let per = (f.src.bytes_read - before) as f64 / 100.0;
            println!("file: 1 h, 200 aircraft, {:.0} MB, {} chunks", len as f64 / 1e6, f.opened.chunks.len());
            println!(
                "seek p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms; {:.0} bytes read per seek (one chunk)",
                pct(&mut times, 0.5),
                pct(&mut times, 0.95),
                pct(&mut times, 1.0),
                per
            );
        }
    }
    println!();
    println!("## Opening cost (header + sections + trailer; no chunk decoded)");
    println!("| file | size | reads | bytes read | open time (median of 21) |");
    println!("|---|---|---|---|---|");
    let mut files = vec![("~1 MB", small), ("1 h 200 aircraft", hour)];
    if big {
        let gb = dir.join("big-1gb.flrep");
        if !gb.exists() {
            eprintln!("generating {} (~1 GB: 2,000 aircraft, 20 min)…", gb.display());
            write_file(&gb, &DogfightConfig { seed: 8, entities: 2000, seconds: 1200.0, ..Default::default() });
        }
        files.push(("~1 GB", gb));
    }
    for (label, p) in files {
        let mut times = Vec::new();
        let mut reads = 0;
        let mut bytes = 0;
        let mut size = 0;
        for _ in 0..21 {
            let Ok(mut src) = FileSource::open(&p) else { break };
            size = src.len_bytes();
            let t = Instant::now();
            let ok = open_flrep(&mut src, &Limits::default()).is_ok();
            times.push(t.elapsed().as_secs_f64() * 1e3);
            reads = src.reads;
            bytes = src.bytes_read;
            if !ok {
                break;
            }
        }
        if !times.is_empty() {
            println!("| {label} | {:.1} MB | {reads} | {bytes} | {:.3} ms |", size as f64 / 1e6, median(&mut times));
        }
    }
}
