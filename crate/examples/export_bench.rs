//! ACMI export throughput beside a plain decode of the same recording, natively, in one run
//! (docs/performance.md "Exports"): a 200-aircraft Earth dogfight (60 Hz, 120 s by default) and a
//! 16-player SparkEngine deathmatch, each decoded (every chunk read and decoded) and exported
//! (decode + ACMI text to a counting sink), alternating, medians of 9 passes of wall time and of
//! the thread's CPU time (steadier on a shared machine); then the output size
//! per minute of recording, as text and as a `.zip.acmi` (deflate). Prints figures; asserts nothing.
//!
//!   cargo run --release -p replay-player --example export_bench [-- --entities N --seconds S]

use replay_player::export::Span;
use replay_player::io::{open_session, read_chunk};
use replay_player::sim::deathmatch::{deathmatch_bytes, DeathmatchConfig};
use replay_player::sim::{dogfight_bytes, DogfightConfig};
use std::io::Write;
use std::time::Instant;

struct Count(u64);
impl Write for Count {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// This thread's time on a CPU (seconds), from /proc/thread-self/schedstat: on a shared machine the
/// ratio of CPU times is steadier than the ratio of wall times (a pass is not charged for the time
/// other processes ran). 0 where the file is missing.
fn cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
        .map_or(0.0, |ns| ns / 1e9)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Seconds (wall, CPU) to decode every chunk; the states seen.
fn decode(bytes: &[u8]) -> ((f64, f64), u64) {
    let (t, c) = (Instant::now(), cpu_s());
    let mut src = bytes.to_vec();
    let Ok(mut s) = open_session(&mut src) else { return ((0.0, 0.0), 0) };
    let mut states = 0u64;
    for i in 0..s.chunk_count() {
        if let Ok(c) = read_chunk(&mut s, &mut src, i) {
            states += c.entities.len() as u64;
        }
    }
    ((t.elapsed().as_secs_f64(), cpu_s() - c), states)
}

/// Seconds (wall, CPU of this thread) to decode and export the whole recording; the ACMI bytes.
/// `one_thread`: `acmi_in_one_thread` (else `acmi`, whose chunks are decoded on a second thread:
/// its CPU time here is the writer's only).
fn export<W: Write>(bytes: &[u8], sink: W, one_thread: bool) -> ((f64, f64), u64, W) {
    let (t, c) = (Instant::now(), cpu_s());
    let mut src = bytes.to_vec();
    let Ok(mut s) = open_session(&mut src) else { panic_free_exit() };
    let Some(info) = s.info() else { panic_free_exit() };
    let run = if one_thread { replay_player::io::export::acmi_in_one_thread } else { replay_player::io::export::acmi };
    let Ok((w, stats)) = run(&mut s, &mut src, Span::all(&info), sink) else { panic_free_exit() };
    ((t.elapsed().as_secs_f64(), cpu_s() - c), stats.bytes, w)
}

fn panic_free_exit() -> ! {
    eprintln!("export_bench: the generated recording did not open");
    std::process::exit(1)
}

fn run(name: &str, bytes: &[u8], minutes: f64) {
    let (mut d, mut e, mut dc, mut ec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut t, mut tc) = (Vec::new(), Vec::new());
    let (mut states, mut out) = (0, 0);
    for _ in 0..9 {
        let ((td, tdc), n) = decode(bytes);
        let ((te, tec), b, _) = export(bytes, Count(0), true);
        let ((tt, ttc), _, _) = export(bytes, Count(0), false);
        t.push(tt);
        tc.push(ttc);
        d.push(td);
        e.push(te);
        dc.push(tdc);
        ec.push(tec);
        states = n;
        out = b;
    }
    let (md, me, mdc, mec) = (median(&mut d), median(&mut e), median(&mut dc), median(&mut ec));
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let _ = z.start_file("x.txt.acmi", opts);
    let (_, _, z) = export(bytes, z, true);
    let zipped = z.finish().map(|c| c.into_inner().len()).unwrap_or(0);
    println!(
        "{name}: {:.1} MB file, {states} states; wall: decode {:.1} ms ({:.2} M states/s), export {:.1} ms ({:.2} M states/s), export/decode throughput {:.2}x; CPU time: decode {:.1} ms, export {:.1} ms, {:.2}x",
        bytes.len() as f64 / 1e6,
        md * 1e3,
        states as f64 / md / 1e6,
        me * 1e3,
        states as f64 / me / 1e6,
        md / me,
        mdc * 1e3,
        mec * 1e3,
        if mec > 0.0 { mdc / mec } else { 0.0 }
    );
    let (mt, mtc) = (median(&mut t), median(&mut tc));
    println!(
        "{name}: with the chunks decoded and posed on threads of their own (io::export::acmi): export {:.1} ms wall ({:.1} ms CPU on the writing thread), export/decode throughput {:.2}x (one thread: {:.2}x)",
        mt * 1e3,
        mtc * 1e3,
        md / mt,
        md / me
    );
    println!(
        "{name}: ACMI {:.1} MB text = {:.2} MB per minute; .zip.acmi {:.2} MB = {:.2} MB per minute (the recording: {:.2} MB per minute)",
        out as f64 / 1e6,
        out as f64 / 1e6 / minutes,
        zipped as f64 / 1e6,
        zipped as f64 / 1e6 / minutes,
        bytes.len() as f64 / 1e6 / minutes
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |k: &str| args.iter().position(|a| a == k).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok());
    let entities = arg("--entities").unwrap_or(200.0) as u32;
    let seconds = arg("--seconds").unwrap_or(120.0);
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("machine: {cpus} CPUs, load {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    let cfg = DogfightConfig { seed: 7, entities, seconds, planet_radius_m: 6_371_000.0, ..Default::default() };
    let flrep = dogfight_bytes(&cfg).unwrap_or_default();
    run(&format!("flrep {entities} aircraft, {seconds} s, Earth"), &flrep, seconds / 60.0);
    let spark =
        deathmatch_bytes(&DeathmatchConfig { seed: 7, players: 16, seconds, ..Default::default() }).unwrap_or_default();
    run(&format!("SparkEngine 16 players, {seconds} s"), &spark, seconds / 60.0);
    println!("machine: load {}", std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim());
}
