//! The cost of `LiveServer::broadcast` with a viewer that never reads (the figures that
//! crate/tests/foldback_live.rs used to assert on; the test now checks the structure: the idle viewer
//! is dropped, a reading viewer gets every frame in order). Prints figures, asserts nothing.
//!
//!   cargo run --release --example broadcast_bench -- [FRAMES FRAME_KIB]
//!
//! Defaults: 400 frames of 256 KiB (100 MiB), queue of 4 frames per viewer. Prints the slowest single
//! broadcast, the median and the total, with and without the idle viewer, side by side in one run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::foldback::live::Hello;
use replay_player::io::live::{LiveOptions, LiveServer};
use std::time::{Duration, Instant};
use tungstenite::Message;

fn run(frames: usize, frame_len: usize, idle_viewer: bool) -> (Duration, Duration, Duration, u64) {
    let hello = Hello { protocol_version: 1, tick_rate_hz: 60, peer_count: 2, build_id: "ab".repeat(16) };
    let opts = LiveOptions { queue_frames: 4, write_timeout: Duration::from_millis(300), ..LiveOptions::default() };
    let server = LiveServer::bind(0, &hello, opts).unwrap();
    let mut idle = None;
    if idle_viewer {
        let (mut ws, _) = tungstenite::connect(format!("ws://127.0.0.1:{}", server.port())).unwrap();
        let Message::Text(_) = ws.read().unwrap() else { panic!("no hello") };
        let deadline = Instant::now() + Duration::from_secs(10);
        while server.stats().viewers == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        idle = Some(ws);
    }
    let mut frame = vec![0x42];
    frame.extend_from_slice(&(frame_len as u32).to_le_bytes());
    frame.resize(5 + frame_len, 7);
    let mut each = Vec::with_capacity(frames);
    let t0 = Instant::now();
    for _ in 0..frames {
        let t = Instant::now();
        server.broadcast(frame.clone());
        each.push(t.elapsed());
    }
    let total = t0.elapsed();
    let dropped = server.stats().dropped_slow;
    server.finish("bench_over");
    drop(idle);
    each.sort();
    (each.last().copied().unwrap_or_default(), each[each.len() / 2], total, dropped)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let frames = args.first().copied().unwrap_or(400).max(1);
    let kib = args.get(1).copied().unwrap_or(256).max(1);
    println!("{frames} broadcasts of {kib} KiB, queue 4 frames per viewer");
    for idle in [false, true] {
        let (slowest, median, total, dropped) = run(frames, kib * 1024, idle);
        println!(
            "  {:<22} slowest {:>9.3} ms  median {:>8.4} ms  total {:>8.1} ms  viewers dropped: {dropped}",
            if idle { "one idle viewer:" } else { "no viewer:" },
            slowest.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3
        );
    }
}
