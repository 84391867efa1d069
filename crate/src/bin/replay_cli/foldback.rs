//! The `.foldback` commands of `replay`: info/validate output, `diverge`, `generate --format
//! foldback` and `live-demo`. (`dump` goes through the library's `io::dump::write_dump`.)

use super::args::{DivergeArgs, FoldbackGenerate, LiveDemoArgs, SimArgs};
use super::Fail;
use replay_player::format::foldback::diverge::{Comparison, Source, Status};
use replay_player::format::foldback::live::Hello;
use replay_player::format::foldback::{hash_hex, Index, Limits, Writer};
use replay_player::io::foldback::{as_bytes, check_snapshots, open_foldback, read_ranges};
use replay_player::io::live::{LiveOptions, LiveServer};
use replay_player::io::FileSource;
use replay_player::sim::foldback::{entity_id, foldback_bytes, Desync, FoldbackConfig, FoldbackSim};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn info(path: &Path, ix: &Index) -> Result<u8, Fail> {
    let h = &ix.header;
    let c = &ix.counts;
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(out, "file:              {}", path.display());
    let _ = writeln!(out, "format:            foldback {}", h.format_version);
    let _ = writeln!(out, "build id:          {}", h.build_id_hex());
    let _ = writeln!(out, "tick rate:         {} Hz", h.tick_rate_hz);
    let _ = writeln!(out, "peers:             {}", h.peer_count);
    match (ix.first_tick(), ix.last_tick()) {
        (Some(a), Some(b)) => {
            let _ = writeln!(out, "ticks:             {a}..={b} ({} ticks with frames)", ix.ticks.len());
        }
        _ => {
            let _ = writeln!(out, "ticks:             none");
        }
    }
    let _ = writeln!(
        out,
        "frames:            {} tick hashes, {} entity hashes, {} field hashes, {} snapshots, {} metadata, {} unknown, {} refused",
        c.tick_hash, c.entity_hash, c.field_hash, c.snapshot, c.metadata, c.unknown, c.bad
    );
    let _ = writeln!(out, "file size:         {} bytes", ix.file_len);
    let _ = writeln!(out, "ended cleanly:     {}", if ix.ended_cleanly() { "yes" } else { "no" });
    for (k, v) in ix.metadata_text() {
        let _ = writeln!(out, "  {k}: {v}");
    }
    for w in ix.warnings() {
        let _ = writeln!(out, "warning:           {w}");
    }
    for p in ix.problems() {
        let _ = writeln!(out, "error:             {p}");
    }
    print!("{out}");
    Ok(0)
}

/// Exit 1 on refused frames, a frame over the payload limit or a snapshot that does not decode within
/// `max_snapshot_decompressed` (the library's `check_snapshots`); a truncated recording is a warning.
pub fn validate(ix: &Index, src: &mut FileSource) -> Result<u8, Fail> {
    for w in ix.warnings() {
        eprintln!("replay: warning: {w}");
    }
    let snapshots = check_snapshots(src, ix, &Limits::default()).map_err(|e| Fail(e.to_string(), 1))?;
    let mut problems = ix.problems();
    problems.extend(snapshots.problems());
    for p in &problems {
        eprintln!("replay: {p}");
    }
    if !problems.is_empty() {
        return Err(Fail(format!("{} problem(s) in the frame stream", problems.len()), 1));
    }
    println!(
        "ok: {} ticks, {} frames{}",
        ix.ticks.len(),
        ix.counts.tick_hash
            + ix.counts.entity_hash
            + ix.counts.field_hash
            + ix.counts.snapshot
            + ix.counts.metadata
            + ix.counts.unknown
            + ix.counts.end_of_stream,
        if ix.ended_cleanly() { "" } else { " (did not end cleanly)" }
    );
    Ok(0)
}

/// `replay diverge FILE [FILE…]`: 0 when peers agree throughout, 1 when they diverge, 2 on errors.
pub fn diverge(a: &DivergeArgs) -> Result<u8, Fail> {
    let files = &a.files;
    let limits = Limits::default();
    let mut srcs = Vec::new();
    let mut indexes = Vec::new();
    for f in files {
        let mut src = FileSource::open(Path::new(f)).map_err(|e| Fail(format!("{f}: {e}"), 2))?;
        let ix = open_foldback(&mut src, &limits).map_err(|e| Fail(format!("{f}: {e}"), 2))?;
        srcs.push(src);
        indexes.push(ix);
    }
    let label =
        |f: &String| Path::new(f).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| f.clone());
    let sources: Vec<Source<'_>> = files
        .iter()
        .zip(&indexes)
        .map(|(f, ix)| Source { label: if files.len() > 1 { label(f) } else { String::new() }, index: ix })
        .collect();
    let cmp = Comparison::with_limits(&sources, limits);
    let s = cmp.summary();
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    for p in &s.peers {
        writeln!(w, "peer {}: {}", p.peer, p.label)?;
    }
    for warn in &s.warnings {
        writeln!(w, "warning: {warn}")?;
    }
    match (s.first_tick, s.last_tick) {
        (Some(a), Some(b)) => writeln!(
            w,
            "ticks {a}..={b}: {} agree, {} disagree, {} with a peer's hash missing",
            s.agree, s.disagree, s.missing
        )?,
        _ => writeln!(w, "no tick hashes")?,
    }
    let Some(tick) = s.first_divergent_tick else {
        match s.first_missing_tick {
            Some(t) => writeln!(w, "no divergence (from tick {t} on, some peer has no hash at {} ticks)", s.missing)?,
            None => writeln!(w, "no divergence: every peer agrees at every tick")?,
        }
        w.flush()?;
        return Ok(0);
    };
    writeln!(w, "first divergent tick: {tick}")?;
    for (p, h) in s.peers.iter().zip(cmp.timeline(tick, tick, 1).first().map(|r| r.hashes.clone()).unwrap_or_default())
    {
        writeln!(w, "  {}: tick hash {}", p.label, h.map(hash_hex).unwrap_or_else(|| "(none)".into()))?;
    }
    let data = read_ranges(&mut srcs, &cmp.reads_for_tick(tick)).map_err(|e| Fail(e.to_string(), 2))?;
    let bytes = as_bytes(&data);
    let detail = cmp.tick_detail(tick, &bytes);
    for e in &detail.errors {
        writeln!(w, "  warning: {e}")?;
    }
    if detail.entities.is_empty() {
        writeln!(
            w,
            "  (no Level-2/3 frames at this tick: record EntityHash/FieldHash frames to see which entity differs)"
        )?;
    }
    for ent in detail.entities.iter().filter(|e| e.status == Status::Disagree) {
        let hs: Vec<String> = ent.hashes.iter().map(|h| h.map(hash_hex).unwrap_or_else(|| "(none)".into())).collect();
        writeln!(w, "  entity {} differs: hashes {}", ent.entity, hs.join(" / "))?;
        let ed = cmp.entity_detail(tick, ent.entity, &bytes);
        for f in ed.fields.iter().filter(|f| f.status == Status::Disagree) {
            writeln!(w, "    field {}:", f.name)?;
            for (p, v) in s.peers.iter().zip(&f.peers) {
                match v {
                    Some(v) => writeln!(w, "      {}: {}", p.label, v.value.describe())?,
                    None => writeln!(w, "      {}: (no value)", p.label)?,
                }
            }
        }
    }
    w.flush()?;
    Ok(1)
}

/// The simulation's configuration from its options; the ranges clap's types leave open are checked here.
fn sim_config(a: &SimArgs) -> Result<FoldbackConfig, Fail> {
    let mut cfg = FoldbackConfig {
        seed: a.seed,
        peers: a.peers,
        ticks: a.ticks,
        first_tick: a.first_tick,
        entities: a.entities,
        tick_rate_hz: a.tick_rate,
        snapshot_every: a.snapshot_every,
        detail: !a.no_detail,
        ..FoldbackConfig::default()
    };
    if cfg.peers == 0 || cfg.peers > 1024 || cfg.tick_rate_hz == 0 || cfg.tick_rate_hz > 10_000 || cfg.ticks == 0 {
        return Err(Fail("--peers must be 1..=1024, --tick-rate 1..=10000 and --ticks positive".into(), 2));
    }
    // clap refuses --desync-entity/--desync-field/--desync-peer without --desync-tick.
    if let Some(tick) = a.desync_tick {
        cfg.desync = Some(Desync {
            tick,
            entity: a.desync_entity.unwrap_or_else(|| entity_id(1)),
            field: a.desync_field.clone().unwrap_or_else(|| "position.x".into()),
            peer: a.desync_peer.unwrap_or(cfg.peers - 1),
        });
    }
    Ok(cfg)
}

/// `replay generate --format foldback --out FILE [--peers N --ticks N --desync-tick T ...]`
pub fn generate(a: &FoldbackGenerate) -> Result<u8, Fail> {
    let cfg = sim_config(&a.sim)?;
    let out = &a.out;
    let bytes = foldback_bytes(&cfg).map_err(|e| Fail(e, 2))?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(out, &bytes).map_err(|e| Fail(format!("{}: {e}", out.display()), 2))?;
    eprintln!("wrote {} ({} bytes)", out.display(), bytes.len());
    Ok(0)
}

/// `replay live-demo --port N [--ticks N --tick-rate HZ --desync-tick T ... --queue FRAMES --record FILE]`
pub fn live_demo(a: &LiveDemoArgs) -> Result<u8, Fail> {
    let cfg = sim_config(&a.sim)?;
    let port = a.port;
    let mut sim = FoldbackSim::new(cfg.clone()).map_err(|e| Fail(e, 2))?;
    let header = sim.header();
    let mut opts = LiveOptions::default();
    if let Some(q) = a.queue {
        opts.queue_frames = q.max(1);
    }
    let server = LiveServer::bind(port, &Hello::for_header(&header), opts)
        .map_err(|e| Fail(format!("cannot listen on 127.0.0.1:{port}: {e}"), 2))?;
    let mut record = match &a.record {
        Some(p) => Some(
            Writer::new(
                std::io::BufWriter::new(
                    std::fs::File::create(p).map_err(|e| Fail(format!("{}: {e}", p.display()), 2))?,
                ),
                &header,
            )
            .map_err(|e| Fail(e.to_string(), 2))?,
        ),
        None => None,
    };
    println!("live-demo: listening on ws://127.0.0.1:{}", server.port());
    let _ = std::io::stdout().flush();
    let start = Instant::now();
    let period = Duration::from_secs_f64(1.0 / f64::from(cfg.tick_rate_hz));
    for f in sim.metadata_frames().map_err(|e| Fail(e.to_string(), 2))? {
        if let Some(r) = record.as_mut() {
            r.raw(&f).map_err(|e| Fail(e.to_string(), 2))?;
        }
        server.broadcast_and_keep(f);
    }
    let mut steps: u32 = 0;
    let mut late = 0u64;
    while let Some(tick) = sim.step() {
        for f in sim.tick_frames(tick).map_err(|e| Fail(e.to_string(), 2))? {
            if let Some(r) = record.as_mut() {
                r.raw(&f).map_err(|e| Fail(e.to_string(), 2))?;
            }
            server.broadcast(f);
        }
        steps = steps.saturating_add(1);
        // The game's own schedule: tick k is due at start + k·period, whatever the viewers do.
        let due = start + period * steps;
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        } else {
            late += 1;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    if let Some(r) = record {
        r.finish().map_err(|e| Fail(e.to_string(), 2))?;
    }
    let st = server.finish("game_exited");
    println!(
        "live-demo: {steps} ticks in {elapsed:.2} s ({late} late); {} frames; viewers: {} connected, {} disconnected for falling behind, {} went away",
        st.frames, st.connected, st.dropped_slow, st.disconnected
    );
    Ok(0)
}
