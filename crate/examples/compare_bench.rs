//! Comparing two recordings beside a plain decode of both, natively (docs/performance.md
//! "Compare"): two 60 s dogfights of N aircraft written to temporary files, B identical to A or
//! perturbed at its last tick (`--perturb-at`'s nudge, sim/perturb.rs, so that the comparison runs
//! the whole way), then in alternating rounds, each in a process of its own and timed by its CPU
//! time (the machine is shared: wall time measures the neighbours): (1) a plain decode of both files (every chunk read and
//! decoded, A then B, as `replay validate` does) and (2) `io::compare_sources` of A and B (`replay
//! diff`). Prints the median time of each, their ratio (goal: compare ≤ 1.3× the decode of both),
//! and the peak resident set of each above the one it started with (each run in a process of its
//! own: /proc/self/status VmHWM). Asserts nothing.
//!
//!   cargo run --release -p replay-player --example compare_bench [-- --entities N] [-- --rounds R]

use replay_player::format::flrep::Writer;
use replay_player::format::flrep::WriterOptions;
use replay_player::io::{compare_sources, open_session, read_chunk, FileSource};
use replay_player::model::compare::Outcome;
use replay_player::sim::{Dogfight, DogfightConfig, Perturb};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// A line of /proc/self/status in kB (`VmRSS`, `VmHWM`: the peak resident set), 0 where there is none.
fn status_kb(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix(key)?.trim_start_matches(':').trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or(0)
}

/// Seconds this thread has run on a CPU (/proc/thread-self/schedstat's first field, ns): what the
/// work cost, whatever else the machine runs; `None` where it is not available.
fn cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// `--once decode|compare A B` (a process of its own, so that its peak is its own): runs one and
/// prints "seconds peak_kb": its CPU time (wall time where /proc has none) and the peak resident
/// set above the one before it.
fn once(mode: &str, a: &Path, b: &Path) {
    let base = status_kb("VmRSS");
    let t0 = Instant::now();
    let c0 = cpu_s();
    match mode {
        "decode" => {
            let _ = decode_all(a) + decode_all(b);
        }
        _ => {
            if let (Ok(mut x), Ok(mut y)) = (FileSource::open(a), FileSource::open(b)) {
                if let Ok(o) = compare_sources(&mut x, &mut y) {
                    eprintln!("{}", outcome_text(&o));
                }
            }
        }
    }
    let s = match (c0, cpu_s()) {
        (Some(a), Some(b)) => b - a,
        _ => t0.elapsed().as_secs_f64(),
    };
    println!("{s} {}", status_kb("VmHWM").saturating_sub(base));
}

fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Identical { ticks, .. } => format!("identical, {ticks} ticks"),
        Outcome::Diverged(x) => format!("diverged at tick {}", x.tick_a),
        other => format!("{other:?}"),
    }
}

/// Runs `--once mode a b` in a child process: (seconds, peak kB, what it said on stderr).
fn child(mode: &str, a: &Path, b: &Path) -> (f64, u64, String) {
    let Ok(exe) = std::env::current_exe() else { return (0.0, 0, String::new()) };
    let Ok(o) = Command::new(exe).arg("--once").arg(mode).arg(a).arg(b).output() else {
        return (0.0, 0, String::new());
    };
    let out = String::from_utf8_lossy(&o.stdout);
    let mut it = out.split_whitespace();
    let s = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let kb = it.next().and_then(|v| v.parse().ok()).unwrap_or(0);
    (s, kb, String::from_utf8_lossy(&o.stderr).trim().to_string())
}

fn write(path: &Path, cfg: &DogfightConfig, perturb_at: Option<u64>) {
    let mut sim = Dogfight::new(cfg.clone());
    let opts = WriterOptions { keyframe_interval_ticks: cfg.keyframe_interval_ticks, ..Default::default() };
    let Ok(file) = std::fs::File::create(path) else { return };
    let Ok(mut w) = Writer::new(std::io::BufWriter::new(file), &sim.header(), &sim.sections(), opts) else { return };
    let q = sim.header().position_quantum_m;
    let mut p = perturb_at.map(Perturb::new);
    let mut buf = Vec::new();
    while let Some((tick, states, events)) = sim.step() {
        buf.clear();
        buf.extend_from_slice(states);
        if let Some(p) = p.as_mut() {
            p.apply(tick, &mut buf, q);
        }
        if w.tick(tick, &buf, &events).is_err() {
            return;
        }
    }
    let _ = w.finish();
}

/// Every chunk of `path` read and decoded; the ticks decoded.
fn decode_all(path: &Path) -> u64 {
    let Ok(mut src) = FileSource::open(path) else { return 0 };
    let Ok(mut s) = open_session(&mut src) else { return 0 };
    let mut ticks = 0;
    for i in 0..s.chunk_count() {
        if let Ok(c) = read_chunk(&mut s, &mut src, i) {
            ticks += c.ticks.len() as u64;
        }
    }
    ticks
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let (Some("--once"), Some(mode), Some(a), Some(b)) =
        (args.get(1).map(String::as_str), args.get(2), args.get(3), args.get(4))
    {
        return once(mode, Path::new(a), Path::new(b));
    }
    let arg = |name: &str, default: u32| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (entities, rounds) = (arg("--entities", 200), arg("--rounds", 5));
    let cfg = DogfightConfig { seed: 7, entities, seconds: 60.0, ..Default::default() };
    let dir = std::env::temp_dir().join(format!("compare_bench_{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (a, same, late) = (dir.join("a.flrep"), dir.join("same.flrep"), dir.join("late.flrep"));
    let last = (cfg.seconds * f64::from(cfg.tick_rate_hz)) as u64 - 1;
    write(&a, &cfg, None);
    write(&same, &cfg, None);
    write(&late, &cfg, Some(last));
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    println!(
        "machine: {} CPUs; {entities} aircraft × {} s at {} Hz, {} chunks of {} ticks; files {} / {} bytes",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        cfg.seconds,
        cfg.tick_rate_hz,
        (last + 1).div_ceil(u64::from(cfg.keyframe_interval_ticks)),
        cfg.keyframe_interval_ticks,
        len(&a),
        len(&late)
    );
    for (label, b) in [("identical", &same), ("diverging at the last tick", &late)] {
        let (mut dec, mut cmp) = (Vec::new(), Vec::new());
        let (mut dec_peak, mut cmp_peak) = (0, 0);
        let mut what = String::new();
        for _ in 0..rounds {
            let (s, kb, _) = child("decode", &a, b);
            dec.push(s);
            dec_peak = dec_peak.max(kb);
            let (s, kb, said) = child("compare", &a, b);
            cmp.push(s);
            cmp_peak = cmp_peak.max(kb);
            what = said;
        }
        let (d, c) = (median(&mut dec), median(&mut cmp));
        println!(
            "{label} ({what}): decode of both {:.1} ms, compare {:.1} ms of CPU: {:.2}× (median of {rounds}); peak RSS above start {:.1} MB decoding both, {:.1} MB comparing",
            d * 1e3,
            c * 1e3,
            if d > 0.0 { c / d } else { 0.0 },
            dec_peak as f64 / 1024.0,
            cmp_peak as f64 / 1024.0
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
