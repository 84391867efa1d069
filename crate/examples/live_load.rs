//! Load figure of `replay live-serve` (docs/performance.md "Live"), on loopback, bounded in count
//! and time: runs the release binary twice side by side — without viewers, then with VIEWERS
//! WebSocket viewers (SLOW of them reading at a quarter of the stream's rate) — and prints the
//! server's CPU and peak memory per viewer (the difference of the two runs), the recorder's
//! lateness in both, and, from one simulated HTTP viewer polling the segments directory once per
//! chunk, the bytes a segments viewer fetches per minute against the file's own size per minute.
//!
//!   cargo build --release --bin replay
//!   cargo run --release --example live_load -- [VIEWERS SLOW SECONDS ENTITIES CHUNK_TICKS WINDOW]
//!
//! Defaults: 200 20 60 200 120 0 (VIEWERS 0: the run without viewers only, for the segments
//! figure). Prints figures, asserts nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use replay_player::format::flrep::Limits;
use replay_player::format::live::manifest::{Manifest, ManifestLimits};
use replay_player::format::live::{LiveStream, StreamEvent};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Run {
    cpu_s: f64,
    hwm_kib: u64,
    summary: String,
    seg_bytes: u64,
    file_bytes: u64,
    manifests: u64,
    viewer_chunks: u64,
    viewer_skipped: u64,
}

fn ticks_per_s() -> f64 {
    100.0 // sysconf(_SC_CLK_TCK) on Linux
}

/// (utime + stime seconds, VmHWM KiB) of a process, from /proc.
fn sample(pid: u32) -> Option<(f64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let cpu = (f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / ticks_per_s();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let hwm = status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some((cpu, hwm))
}

/// One HTTP-segments viewer: polls the manifest once per `every`, fetches the prefix once and each
/// new segment once (the bytes a CDN would send it).
fn poll_segments(dir: &Path, every: Duration, stop: &AtomicBool) -> (u64, u64) {
    let (mut bytes, mut polls, mut next_seq, mut prefix) = (0u64, 0u64, 0u64, false);
    let limits = ManifestLimits::default();
    // Until the manifest says ended (one more poll after the server has exited, at most).
    let mut last = false;
    while !last {
        last = stop.load(Ordering::Relaxed);
        if let Ok(b) = std::fs::read(dir.join("manifest.json")) {
            bytes += b.len() as u64;
            polls += 1;
            if let Ok(m) = Manifest::parse(&b, &limits) {
                if !prefix {
                    bytes += m.prefix.bytes;
                    prefix = true;
                }
                let from = next_seq;
                for s in m.segments.iter().filter(|s| s.seq >= from) {
                    bytes += std::fs::metadata(dir.join(&s.uri)).map(|m| m.len()).unwrap_or(0);
                    next_seq = s.seq + 1;
                }
                if m.ended {
                    break;
                }
            }
        }
        std::thread::sleep(every);
    }
    (bytes, polls)
}

fn run(bin: &Path, viewers: usize, slow: usize, seconds: u32, entities: u32, chunk: u32, window: u32) -> Run {
    let dir = std::env::temp_dir().join(format!("live_load_{}_{viewers}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seg = dir.join("seg");
    let mut child = Command::new(bin)
        .args(["live-serve", "--generate", "--ws", "127.0.0.1:0", "--segments"])
        .arg(&seg)
        .args(["--seconds", &seconds.to_string(), "--entities", &entities.to_string()])
        .args(["--live-chunk-ticks", &chunk.to_string(), "--manifest-window", &window.to_string()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let port: u16 = line.trim().rsplit(':').next().unwrap().parse().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let chunks = Arc::new(AtomicU64::new(0));
    let skipped = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for v in 0..viewers {
        let (chunks, skipped, stop) = (chunks.clone(), skipped.clone(), stop.clone());
        let stall = v < slow;
        let slow_every = Duration::from_secs_f64(4.0 * f64::from(chunk) / 60.0);
        threads.push(std::thread::spawn(move || {
            let Ok((mut ws, _)) = tungstenite::connect(format!("ws://127.0.0.1:{port}/")) else { return };
            let mut stream = LiveStream::new(Limits::default());
            let t0 = Instant::now();
            while let Ok(m) = ws.read() {
                let tungstenite::Message::Binary(b) = m else { continue };
                match stream.push(&b) {
                    Ok(StreamEvent::Chunk { skipped: s, .. }) => {
                        chunks.fetch_add(1, Ordering::Relaxed);
                        skipped.fetch_add(s, Ordering::Relaxed);
                        // A slow viewer: after 2 s it reads a chunk per `slow_every` (a quarter of the
                        // stream's rate), until the match is over.
                        if stall && t0.elapsed() > Duration::from_secs(2) && !stop.load(Ordering::Relaxed) {
                            std::thread::sleep(slow_every);
                        }
                    }
                    Ok(StreamEvent::Goodbye { .. }) | Err(_) => break,
                    Ok(_) => {}
                }
            }
        }));
    }
    let every = Duration::from_secs_f64(f64::from(chunk) / 60.0);
    let (seg2, stop2) = (seg.clone(), stop.clone());
    let poller = std::thread::spawn(move || poll_segments(&seg2, every, &stop2));
    let mut last = (0.0, 0);
    let mut summary = String::new();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut l = String::new();
        while out.read_line(&mut l).unwrap_or(0) > 0 {
            let _ = tx.send(std::mem::take(&mut l));
        }
    });
    loop {
        if let Some(s) = sample(pid) {
            last = s;
        }
        while let Ok(l) = rx.try_recv() {
            summary.push_str(&l);
        }
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    stop.store(true, Ordering::Relaxed);
    while let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
        summary.push_str(&l);
    }
    let (seg_bytes, manifests) = poller.join().unwrap();
    for t in threads {
        let _ = t.join();
    }
    let file_bytes = std::fs::metadata(seg.join("recording.flrep")).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    Run {
        cpu_s: last.0,
        hwm_kib: last.1,
        summary: summary.trim().to_owned(),
        seg_bytes,
        file_bytes,
        manifests,
        viewer_chunks: chunks.load(Ordering::Relaxed),
        viewer_skipped: skipped.load(Ordering::Relaxed),
    }
}

fn main() {
    let a: Vec<u32> = std::env::args().skip(1).filter_map(|s| s.parse().ok()).collect();
    let get = |i: usize, d: u32| a.get(i).copied().unwrap_or(d);
    let (viewers, slow, seconds, entities, chunk, window) =
        (get(0, 200) as usize, get(1, 20) as usize, get(2, 60), get(3, 200), get(4, 120), get(5, 0));
    let bin: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/replay");
    println!(
        "live_load: {viewers} viewers ({slow} slow), {seconds} s match, {entities} aircraft, {chunk}-tick chunks, window {window}"
    );
    let base = run(&bin, 0, 0, seconds, entities, chunk, window);
    if viewers == 0 {
        let r = &base;
        println!("0 viewers: {}", r.summary.lines().last().unwrap_or(""));
        println!(
            "segments: {:.3}x the file's bytes ({} manifest polls, {} bytes fetched, file {} bytes)",
            r.seg_bytes as f64 / r.file_bytes.max(1) as f64,
            r.manifests,
            r.seg_bytes,
            r.file_bytes
        );
        return;
    }
    let load = run(&bin, viewers, slow, seconds, entities, chunk, window);
    for (name, r) in [("0 viewers", &base), ("with viewers", &load)] {
        println!(
            "{name}: server CPU {:.2} s, peak RSS {} KiB; {}",
            r.cpu_s,
            r.hwm_kib,
            r.summary.lines().last().unwrap_or("")
        );
    }
    let n = viewers.max(1) as f64;
    println!(
        "per viewer: {:.1} ms CPU over the match, {:.0} KiB memory; viewers got {} chunks, skipped {}",
        (load.cpu_s - base.cpu_s) * 1e3 / n,
        (load.hwm_kib as f64 - base.hwm_kib as f64) / n,
        load.viewer_chunks,
        load.viewer_skipped
    );
    let minutes = f64::from(seconds) / 60.0;
    for (name, r) in [("0 viewers", &base), ("with viewers", &load)] {
        println!(
            "segments ({name}): {:.0} bytes per viewer per minute ({} manifest polls) vs the file's {:.0} per minute: {:.3}x",
            r.seg_bytes as f64 / minutes,
            r.manifests,
            r.file_bytes as f64 / minutes,
            r.seg_bytes as f64 / r.file_bytes.max(1) as f64
        );
    }
}
