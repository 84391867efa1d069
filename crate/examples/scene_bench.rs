//! The renderer's CPU work per frame (`Scene::set_time` + `Scene::build`: interpolation, trails,
//! instances, projections for picking and labels), natively, without a GPU. Prints figures; asserts
//! nothing. This is the part of the page's `render()` that is ours; the rest is wgpu's encoding.
//!
//!   cargo run --release -p replay-player --no-default-features --features render,formats \
//!       --example scene_bench -- target/bench/frame-2000.flrep [frames=600]
//!
//! Plays the file's first chunk over and over at 1× (60 frames a second, pairs of ticks pushed as the
//! playhead crosses them, the way `www/player.ts` does) and prints p50 / p95 µs per frame, with trails on
//! (the default 4 s) and off, side by side in one process.

// A benchmark over a file the bench writes itself: an index out of range is a bench bug, not input.
#![allow(clippy::indexing_slicing)]

use replay_player::format::flrep::Limits;
use replay_player::io::{FileSource, FlrepFile};
use replay_player::model::{pack_entities, WorldKind};
use replay_player::render::{FrameData, Scene};
use std::time::Instant;

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(((v.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: scene_bench FILE.flrep [frames]")?;
    let frames: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(600);
    let mut f = FlrepFile::open(FileSource::open(std::path::Path::new(path))?, Limits::default())?;
    let quantum = f.opened.header.position_quantum_m;
    let r = f.opened.header.planet_radius_m;
    let world = if r > 0.0 { WorldKind::Planet { radius_m: r } } else { WorldKind::Flat };
    let hz = f64::from(f.opened.header.tick_rate_hz.max(1));
    let c = f.chunk(0)?;
    let packed: Vec<Vec<i32>> = (0..c.ticks.len())
        .map(|i| {
            let (a, b) = (c.offsets[i] as usize, c.offsets[i + 1] as usize);
            let mut v = Vec::new();
            pack_entities(&c.entities[a..b], &mut v);
            v
        })
        .collect();
    let t0 = c.ticks[0] as f64 / hz;
    println!(
        "{path}: {} entities in the first tick, {} ticks in chunk 0, {frames} frames at 60 fps",
        c.offsets[1],
        c.ticks.len()
    );
    for trail_seconds in [4.0, 0.0] {
        let mut s = Scene::new();
        s.set_world(world, quantum);
        s.css_w = 1280.0;
        s.css_h = 720.0;
        s.trail_seconds = trail_seconds;
        let mut out = FrameData::default();
        let mut pair = usize::MAX;
        let (mut times, mut set_time, mut build) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..frames {
            // Time runs on; the chunk's ticks repeat (positions jump at each wrap, trails are kept).
            let t = t0 + k as f64 / 60.0;
            let g = ((t - t0) * hz) as usize;
            let i = g % (packed.len() - 1);
            let (ta, tb) = (t0 + g as f64 / hz, t0 + (g + 1) as f64 / hz);
            let start = Instant::now();
            if g != pair {
                if g == pair.wrapping_add(1) {
                    s.push_frame(&packed[i + 1], tb);
                } else {
                    s.set_frames(&packed[i], ta, &packed[i + 1], tb);
                }
                pair = g;
            }
            s.set_time(t);
            let mid = Instant::now();
            s.build(&mut out, true);
            let end = Instant::now();
            if k >= 60 {
                times.push((end - start).as_secs_f64() * 1e6);
                set_time.push((mid - start).as_secs_f64() * 1e6);
                build.push((end - mid).as_secs_f64() * 1e6);
            }
        }
        println!(
            "trails {trail_seconds} s: per frame p50 {:.0} / p95 {:.0} µs (set_time {:.0} / {:.0}, build {:.0} / {:.0}); {} instance floats, {} line floats",
            pct(&mut times, 0.5),
            pct(&mut times, 0.95),
            pct(&mut set_time, 0.5),
            pct(&mut set_time, 0.95),
            pct(&mut build, 0.5),
            pct(&mut build, 0.95),
            out.instances.len(),
            out.lines.len()
        );
    }
    Ok(())
}
