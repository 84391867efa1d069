//! `replay export --acmi` and `replay clip` (docs/export.md).

use super::args::{ClipArgs, ExportArgs};
use super::spark_cli::create;
use super::Fail;
use replay_player::export::Span;
use replay_player::io::export::{acmi, clip as clip_range, ExportError};
use replay_player::io::{open_session, FileSource};
use std::io::Write;
use std::path::Path;

fn open(path: &Path) -> Result<(FileSource, replay_player::format::Session), Fail> {
    let mut src = FileSource::open(path).map_err(|e| Fail(format!("{}: {e}", path.display()), 2))?;
    let session = open_session(&mut src).map_err(|e| Fail(format!("{}: {e}", path.display()), 1))?;
    Ok((src, session))
}

fn span_of(
    path: &Path,
    s: &replay_player::format::Session,
    from: Option<replay_player::export::TimeSpec>,
    to: Option<replay_player::export::TimeSpec>,
) -> Result<Span, Fail> {
    if s.foldback().is_some() {
        return Err(Fail(format!("{}: a .foldback holds no entity states to export", path.display()), 2));
    }
    let info = s.info().ok_or_else(|| Fail("no recording info".into(), 1))?;
    Span::of(&info, from, to).map_err(|e| Fail(format!("{}: {e}", path.display()), 2))
}

fn name_of(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default().to_lowercase()
}

pub fn export(a: &ExportArgs) -> Result<u8, Fail> {
    let name = name_of(&a.acmi);
    let zipped = name.ends_with(".zip.acmi");
    if !zipped && !name.ends_with(".txt.acmi") {
        return Err(Fail(format!("--acmi {}: the name must end in .txt.acmi or .zip.acmi", a.acmi.display()), 2));
    }
    let (mut src, mut s) = open(&a.file)?;
    let span = span_of(&a.file, &s, a.from, a.to)?;
    let failed = |e: ExportError| match e {
        ExportError::Read(e) => Fail(format!("{}: {e}", a.file.display()), 1),
        ExportError::Write(e) => Fail(format!("{}: {e}", a.acmi.display()), 2),
    };
    let out = create(&a.acmi)?;
    let stats = if zipped {
        // One entry, named as the archive with .txt.acmi, deflated as it streams.
        let entry = a.acmi.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let entry =
            format!("{}.txt.acmi", entry.get(..entry.len().saturating_sub(".zip.acmi".len())).unwrap_or("replay"));
        let mut z = zip::ZipWriter::new(out);
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        z.start_file(entry, opts).map_err(|e| Fail(format!("{}: {e}", a.acmi.display()), 2))?;
        let (z, stats) = acmi(&mut s, &mut src, span, z).map_err(failed)?;
        let mut f = z.finish().map_err(|e| Fail(format!("{}: {e}", a.acmi.display()), 2))?;
        f.flush()?;
        stats
    } else {
        acmi(&mut s, &mut src, span, out).map_err(failed)?.1
    };
    let len = std::fs::metadata(&a.acmi).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "wrote {} ({len} bytes; ticks {}..={}: {} objects, {} frames, {} events)",
        a.acmi.display(),
        span.from,
        span.to,
        stats.objects,
        stats.frames,
        stats.events
    );
    Ok(0)
}

pub fn clip(a: &ClipArgs) -> Result<u8, Fail> {
    let (mut src, mut s) = open(&a.file)?;
    let span = span_of(&a.file, &s, Some(a.from), Some(a.to))?;
    let notes = clip_range(&mut s, &mut src, span, create(&a.out)?)
        .map_err(|e| Fail(format!("{}: {e}", a.file.display()), 1))?
        .1;
    let len = std::fs::metadata(&a.out).map(|m| m.len()).unwrap_or(0);
    eprintln!("wrote {} ({len} bytes; ticks {}..={})", a.out.display(), span.from, span.to);
    for n in notes.iter().filter(|n| !n.starts_with("SparkEngine frameNumber")) {
        eprintln!("note: {n}");
    }
    Ok(0)
}
