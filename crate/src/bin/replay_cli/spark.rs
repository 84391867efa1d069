//! `replay generate --format spark` and `replay convert` (SparkEngine .replay ↔ .flrep).

use super::args::{ConvertArgs, ConvertTo, SparkGenerate};
use super::Fail;
use replay_player::format::spark::FrameStats;
use replay_player::io::convert::{to_flrep, to_spark};
use replay_player::io::{open_session, FileSource};
use replay_player::model::FormatKind;
use replay_player::sim::deathmatch::{write_deathmatch_perturbed, DeathmatchConfig};
use replay_player::sim::Perturb;

/// `replay info`'s lines for a SparkEngine replay's frames (its own terms: frameCount, record interval).
pub fn frame_lines(out: &mut String, f: &FrameStats) {
    use std::fmt::Write as _;
    let dropped = f.read.saturating_sub(f.kept);
    let _ = writeln!(
        out,
        "frames:            {} (frameCount {}{}{})",
        f.kept,
        f.declared,
        if f.read < f.declared { format!(", {} in the file", f.read) } else { String::new() },
        if dropped > 0 { format!(", {dropped} dropped") } else { String::new() }
    );
    let _ = writeln!(out, "time:              {:.3} s to {:.3} s ({:.2} s)", f.first_s, f.last_s, f.last_s - f.first_s);
    match f.interval_s {
        Some(s) => {
            let _ = writeln!(out, "record interval:   {s:.3} s ({:.1} frames per second)", 1.0 / s);
        }
        None => {
            let _ = writeln!(out, "record interval:   none (one frame)");
        }
    }
}

pub fn create(out: &std::path::Path) -> Result<std::io::BufWriter<std::fs::File>, Fail> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let f = std::fs::File::create(out).map_err(|e| Fail(format!("{}: {e}", out.display()), 2))?;
    Ok(std::io::BufWriter::new(f))
}

pub fn generate(a: &SparkGenerate) -> Result<u8, Fail> {
    let cfg = DeathmatchConfig {
        seed: a.seed,
        players: a.players as u32,
        seconds: a.seconds,
        fps: a.fps as u32,
        ..DeathmatchConfig::default()
    };
    let out = &a.out;
    if !(1..=64).contains(&cfg.players) || !(1..=1000).contains(&cfg.fps) || cfg.seconds.is_nan() || cfg.seconds <= 0.0
    {
        return Err(Fail("--players must be 1..64, --fps 1..1000 and --seconds positive".into(), 2));
    }
    write_deathmatch_perturbed(&cfg, a.perturb_at.map(Perturb::new), create(out)?)?;
    let len = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    eprintln!("wrote {} ({len} bytes)", out.display());
    Ok(0)
}

pub fn convert(args: &ConvertArgs) -> Result<u8, Fail> {
    let (input, output) = (&args.input, &args.output);
    let mut src = FileSource::open(input).map_err(|e| Fail(format!("{}: {e}", input.display()), 2))?;
    let mut session = open_session(&mut src).map_err(|e| Fail(format!("{}: {e}", input.display()), 1))?;
    let kind = session.info().map(|i| i.format);
    let to_spark_out = match args.to {
        Some(ConvertTo::Spark) => true,
        Some(ConvertTo::Flrep) => false,
        None => kind == Some(FormatKind::Flrep),
    };
    let notes = if to_spark_out {
        to_spark(&mut session, &mut src, create(output)?).map_err(|e| Fail(format!("{}: {e}", input.display()), 1))?.1
    } else {
        to_flrep(&mut session, &mut src, create(output)?).map_err(|e| Fail(format!("{}: {e}", input.display()), 1))?.1
    };
    let (a, b) = (src.len_bytes(), std::fs::metadata(output).map(|m| m.len()).unwrap_or(0));
    eprintln!(
        "wrote {} ({b} bytes; the input {} is {a} bytes: {a}/{b} = {:.2})",
        output.display(),
        input.display(),
        if b > 0 { a as f64 / b as f64 } else { 0.0 }
    );
    for n in notes {
        eprintln!("lost: {n}");
    }
    Ok(0)
}
