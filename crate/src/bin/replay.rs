//! `replay`: inspect, validate, dump, generate, hash, diff, export and clip replay files. The command line is
//! parsed in `replay_cli/args.rs`: a usage error is clap's message naming the option, exit 2. Every
//! other error is one line on stderr (`replay: …`) and a non-zero exit; never a panic or a backtrace.

use args::{Cmd, FlrepGenerate, GenerateArgs};
use replay_player::format::{Session, SessionError};
use replay_player::io::{open_session, read_chunk, FileSource, RotatingWriter, RotationOptions};
use replay_player::model::compare::{Outcome, Side};
use replay_player::model::{state_hash, DecodedChunk, EntityState, RecordingInfo};
use replay_player::sim::{Dogfight, DogfightConfig, Perturb};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

struct Fail(String, u8);

/// The command line (clap): one args struct per command.
#[path = "replay_cli/args.rs"]
mod args;

/// `.foldback`: info/validate output, `diverge`, `generate --format foldback`, `live-demo`.
#[path = "replay_cli/foldback.rs"]
mod foldback_cli;

/// `diff`'s words for a comparison's outcome.
#[path = "replay_cli/diff.rs"]
mod diff_cli;
/// `export --acmi` and `clip`.
#[path = "replay_cli/export.rs"]
mod export_cli;
/// `host`: the replay host (feature `host`).
#[cfg(feature = "host")]
#[path = "replay_cli/host.rs"]
mod host_cli;
/// `live-serve`: a .flrep published while it is written.
#[path = "replay_cli/live_serve.rs"]
mod live_serve;

/// `generate --format spark` and `convert` (SparkEngine .replay).
#[path = "replay_cli/spark.rs"]
mod spark_cli;

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string(), 2)
    }
}

/// A reader of our output went away (`replay dump | head`): not an error worth a message.
fn is_broken_pipe(msg: &str) -> bool {
    msg.contains("Broken pipe") || msg.contains("os error 32")
}

fn main() -> ExitCode {
    let cli = match args::parse(std::env::args_os().collect()) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and usage errors, as clap writes them (help on stdout, exit 0; errors exit 2).
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(Fail(msg, _)) if is_broken_pipe(&msg) => ExitCode::SUCCESS,
        Err(Fail(msg, code)) => {
            let _ = writeln!(std::io::stderr(), "replay: {msg}");
            ExitCode::from(code)
        }
    }
}

fn run(cmd: Cmd) -> Result<u8, Fail> {
    match cmd {
        Cmd::Info(a) => info(&a.file),
        Cmd::Validate(a) => validate(&a.file),
        Cmd::Dump(a) => dump(&a.file, a.geodetic),
        Cmd::Hash(a) => hash(&a.file),
        Cmd::Diff(a) => diff(&a.a, &a.b),
        Cmd::Generate(GenerateArgs::Flrep(a)) => generate(&a),
        Cmd::Generate(GenerateArgs::Spark(a)) => spark_cli::generate(&a),
        Cmd::Generate(GenerateArgs::Foldback(a)) => foldback_cli::generate(&a),
        Cmd::Convert(a) => spark_cli::convert(&a),
        Cmd::Diverge(a) => foldback_cli::diverge(&a),
        Cmd::LiveDemo(a) => foldback_cli::live_demo(&a),
        Cmd::Export(a) => export_cli::export(&a),
        Cmd::Clip(a) => export_cli::clip(&a),
        Cmd::LiveServe(a) => live_serve::live_serve(&a),
        #[cfg(feature = "host")]
        Cmd::Host(a) => host_cli::host(&a),
    }
}

struct Opened {
    src: FileSource,
    session: Session,
}

fn open(path: &Path) -> Result<Opened, Fail> {
    let mut src = FileSource::open(path).map_err(|e| Fail(format!("{}: {e}", path.display()), 2))?;
    let session = open_session(&mut src).map_err(|e| Fail(format!("{}: {e}", path.display()), 1))?;
    Ok(Opened { src, session })
}

impl Opened {
    fn info(&self) -> Result<RecordingInfo, Fail> {
        self.session.info().ok_or_else(|| Fail("no recording info".into(), 1))
    }
    fn chunk(&mut self, i: usize) -> Result<DecodedChunk, SessionError> {
        read_chunk(&mut self.session, &mut self.src, i)
    }
    /// Calls `f` with every tick of every chunk, in order.
    fn each_tick(
        &mut self,
        path: &Path,
        mut f: impl FnMut(u64, &[EntityState], &DecodedChunk, usize) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        for i in 0..self.session.chunk_count() {
            let c = self.chunk(i).map_err(|e| Fail(format!("{}: {e}", path.display()), 1))?;
            for (k, tick) in c.ticks.iter().enumerate() {
                f(*tick, c.tick_entities(k), &c, k)?;
            }
        }
        Ok(())
    }
}

fn info(path: &Path) -> Result<u8, Fail> {
    let o = open(path)?;
    if let Some(ix) = o.session.foldback() {
        return foldback_cli::info(path, ix);
    }
    let i = o.info()?;
    let chunks = o.session.chunk_count();
    let ticks = i.last_tick.saturating_sub(i.first_tick) + 1;
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(out, "file:              {}", path.display());
    let _ = writeln!(out, "format:            {} {}.{}", i.format.name(), i.format_major, i.format_minor);
    let _ = writeln!(out, "engine version:    {}", i.engine_version);
    // A SparkEngine replay in its own terms (frames, record interval), not the model's 1 kHz ticks.
    let spark = o.session.spark().map(|s| s.frame_stats());
    if let Some(f) = &spark {
        spark_cli::frame_lines(&mut out, f);
    } else {
        let _ = writeln!(out, "tick rate:         {} Hz", i.tick_rate_hz);
        let _ = writeln!(
            out,
            "ticks:             {}..={} ({} ticks, {:.2} s)",
            i.first_tick,
            i.last_tick,
            ticks,
            i.duration_s()
        );
        let _ = writeln!(out, "keyframe interval: {} ticks", i.keyframe_interval_ticks);
    }
    let _ = writeln!(out, "chunks:            {chunks}");
    let (per, unit) = spark.map(|f| (u64::from(f.kept), "frame")).unwrap_or((ticks, "tick"));
    let _ = writeln!(
        out,
        "file size:         {} bytes ({:.1} bytes/{unit})",
        o.src.len_bytes(),
        o.src.len_bytes() as f64 / per.max(1) as f64
    );
    let world = match i.world {
        replay_player::model::WorldKind::Planet { radius_m } => format!("planet, radius {radius_m} m"),
        replay_player::model::WorldKind::Flat => "flat".to_string(),
    };
    let _ = writeln!(out, "world:             {world}");
    let _ = writeln!(out, "position quantum:  {} m", i.position_quantum_m);
    let _ = writeln!(out, "start:             {} (unix seconds)", i.start_unix_seconds);
    let _ = writeln!(out, "mission:           {}", if i.mission_id.is_empty() { "(none)" } else { &i.mission_id });
    let _ = writeln!(out, "session flags:     0x{:x}", i.session_flags);
    let _ = writeln!(
        out,
        "sections:          entity types {}, factions {}, participants {}, mission objects {}, metadata {}",
        i.entity_types.len(),
        i.factions.len(),
        i.participants.len(),
        i.mission_objects.len(),
        i.metadata.len()
    );
    for (k, v) in &i.metadata {
        let _ = writeln!(out, "  {k}: {v}");
    }
    let (markers, complete) = o.session.markers();
    let _ = writeln!(
        out,
        "kill markers:      {}{}",
        markers.len(),
        if complete { "" } else { " (index missing: found while decoding)" }
    );
    for w in &i.warnings {
        let _ = writeln!(out, "warning:           {w}");
    }
    print!("{out}");
    Ok(0)
}

fn validate(path: &Path) -> Result<u8, Fail> {
    let mut o = open(path)?;
    if let Some(ix) = o.session.foldback() {
        return foldback_cli::validate(ix, &mut o.src);
    }
    // The check itself is the library's (the replay host runs it on every upload).
    let mut src = o.src;
    let r = replay_player::io::validate::validate(&mut src).map_err(|e| Fail(format!("{}: {e}", path.display()), 1))?;
    for w in &r.warnings {
        eprintln!("replay: warning: {w}");
    }
    for p in &r.problems {
        eprintln!("replay: {p}");
    }
    if !r.passed() {
        return Err(Fail(format!("{} problem(s) found while opening", r.problems.len()), 1));
    }
    println!("ok: {} chunks, {} ticks, {} events", r.chunks, r.ticks, r.events);
    Ok(0)
}

fn dump(path: &Path, geodetic: bool) -> Result<u8, Fail> {
    let mut o = open(path)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let opts = replay_player::io::dump::DumpOptions { geodetic };
    replay_player::io::dump::write_dump_with(&mut o.session, &mut o.src, &mut w, opts).map_err(|e| match e {
        replay_player::io::dump::DumpError::Read(e) => Fail(format!("{}: {e}", path.display()), 1),
        replay_player::io::dump::DumpError::Write(e) => Fail(e.to_string(), 2),
    })?;
    w.flush()?;
    Ok(0)
}

fn hash(path: &Path) -> Result<u8, Fail> {
    let mut o = open(path)?;
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    o.each_tick(path, |tick, ents, _, _| {
        writeln!(w, "{tick} {:016x}", state_hash(ents))?;
        Ok(())
    })?;
    w.flush()?;
    Ok(0)
}

fn diff(a: &Path, b: &Path) -> Result<u8, Fail> {
    let open = |p: &Path| FileSource::open(p).map_err(|e| Fail(format!("{}: {e}", p.display()), 2));
    let (mut sa, mut sb) = (open(a)?, open(b)?);
    let outcome = replay_player::io::compare_sources(&mut sa, &mut sb).map_err(|e| {
        let p = if e.side == Side::A { a } else { b };
        Fail(format!("{}: {}", p.display(), e.error), 1)
    })?;
    print!("{}", diff_cli::text(&outcome));
    Ok(if matches!(outcome, Outcome::Identical { .. }) { 0 } else { 1 })
}

/// The dogfight's configuration from its options; the ranges clap's types leave open are checked here.
fn dogfight_config(a: &args::DogfightArgs) -> Result<DogfightConfig, Fail> {
    let cfg = DogfightConfig {
        seed: a.seed,
        entities: a.entities as u32,
        seconds: a.seconds,
        planet_radius_m: a.planet_radius,
        keyframe_interval_ticks: a.keyframe_interval as u32,
        tick_rate_hz: a.tick_rate as u32,
        ..DogfightConfig::default()
    };
    if cfg.tick_rate_hz == 0 || cfg.seconds.is_nan() || cfg.seconds <= 0.0 {
        return Err(Fail("--tick-rate and --seconds must be positive".into(), 2));
    }
    if !(cfg.planet_radius_m == 0.0 || cfg.planet_radius_m >= 1.0) {
        return Err(Fail("--planet-radius must be 0 (flat) or at least 1 m".into(), 2));
    }
    Ok(cfg)
}

fn generate(a: &FlrepGenerate) -> Result<u8, Fail> {
    let cfg = dogfight_config(&a.sim)?;
    let rot = RotationOptions { max_file_mb: a.max_file_mb as u64, max_files: a.max_files as u32 };
    let out = a.out.as_path();
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut sim = Dogfight::new(cfg.clone());
    let opts = replay_player::format::flrep::WriterOptions {
        keyframe_interval_ticks: cfg.keyframe_interval_ticks,
        ..Default::default()
    };
    let mut w = RotatingWriter::create(out, &sim.header(), &sim.sections(), opts, rot)?;
    let mut perturb = a.perturb_at.map(Perturb::new);
    let quantum = sim.header().position_quantum_m;
    let mut nudged = Vec::new();
    while let Some((tick, states, events)) = sim.step() {
        match perturb.as_mut() {
            Some(p) if tick >= a.perturb_at.unwrap_or(0) => {
                nudged.clear();
                nudged.extend_from_slice(states);
                p.apply(tick, &mut nudged, quantum);
                w.tick(tick, &nudged, &events)?;
            }
            _ => w.tick(tick, states, &events)?,
        }
    }
    for p in w.finish()? {
        let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
        eprintln!("wrote {} ({len} bytes)", p.display());
    }
    Ok(0)
}
