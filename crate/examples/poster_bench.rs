//! The host's poster (`/r/{id}/poster.png`): its time at 200 and 2,000 entities, on dogfights made by
//! `crate/src/sim` in memory. Prints figures; asserts nothing.
//!
//!   cargo run --release -p replay-player --example poster_bench -- [runs=15] [out-dir]
//!
//! For each size: the read (open + the chunks around the moment, decoded: `poster::read_moment`), the
//! drawing (`poster::render`), the PNG encoding, and the whole (read + draw + encode, what the server
//! does on a cache miss), median and p95 in ms over `runs` moments spread over the recording. With an
//! out-dir it also writes one poster of each size there to look at.

use replay_player::host::poster;
use replay_player::sim::{dogfight_bytes, DogfightConfig};
use std::time::Instant;

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(((v.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(15).max(1);
    let out_dir = args.get(2);
    println!("poster 1200×630, {runs} moments each; ms median / p95");
    for entities in [200u32, 2000] {
        let cfg = DogfightConfig { entities, seconds: 60.0, seed: 7, ..Default::default() };
        let file = dogfight_bytes(&cfg)?;
        let (mut read, mut draw, mut encode, mut whole) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut png_bytes = 0usize;
        for k in 0..runs {
            let t = 5.0 + 50.0 * k as f64 / runs as f64;
            let t0 = Instant::now();
            let mut src = file.as_slice();
            let (info, m) = poster::read_moment(&mut src, t)?;
            let t1 = Instant::now();
            let pm = poster::render(&info, &m, "Dogfight over the ridge — 2 v 2")?;
            let t2 = Instant::now();
            let png = pm.encode_png()?;
            let t3 = Instant::now();
            png_bytes = png.len();
            read.push((t1 - t0).as_secs_f64() * 1e3);
            draw.push((t2 - t1).as_secs_f64() * 1e3);
            encode.push((t3 - t2).as_secs_f64() * 1e3);
            whole.push((t3 - t0).as_secs_f64() * 1e3);
            if k == runs / 2 {
                if let Some(dir) = out_dir {
                    std::fs::write(format!("{dir}/poster-{entities}.png"), &png)?;
                }
            }
        }
        println!(
            "{entities:>5} entities ({} MB file): read {:.1} / {:.1}, draw {:.1} / {:.1}, encode {:.1} / {:.1}, whole {:.1} / {:.1} ({} KB PNG)",
            file.len() / 1_000_000,
            pct(&mut read, 0.5),
            pct(&mut read, 0.95),
            pct(&mut draw, 0.5),
            pct(&mut draw, 0.95),
            pct(&mut encode, 0.5),
            pct(&mut encode, 0.95),
            pct(&mut whole, 0.5),
            pct(&mut whole, 0.95),
            png_bytes / 1000
        );
    }
    Ok(())
}
