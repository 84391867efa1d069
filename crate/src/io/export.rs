//! Native drivers of the exports (docs/export.md): ACMI text of a tick range, and replay clips.
//! Only the chunks that hold the range are read.

use super::convert::{chunks_of, ConvertError};
use super::{read_chunk, ReadAt};
use crate::export::acmi::{AcmiStats, AcmiWriter, Geo, Pose, Poser, Take};
use crate::export::Span;
use crate::format::clip::Clip;
use crate::format::{Session, SessionError};
use crate::model::DecodedChunk;
use std::io::{Seek, Write};

#[derive(Debug)]
pub enum ExportError {
    Read(SessionError),
    Write(std::io::Error),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Read(e) => write!(f, "{e}"),
            ExportError::Write(e) => write!(f, "write error: {e}"),
        }
    }
}
impl std::error::Error for ExportError {}

/// Writes the ticks `span` of the open recording `s` as ACMI 2.2 text to `sink`, in a pipeline of
/// three threads: one reads and decodes the chunks, the next computes where each object is in
/// them ([`Poser`]: the trigonometry), and this one writes the lines, each stage a chunk behind
/// the one before (at most [`AHEAD`] chunks wait between two), in order, so the bytes are those of
/// [`acmi_in_one_thread`]. Where the threads cannot be started it is that.
pub fn acmi<R: ReadAt + Send, W: Write>(
    s: &mut Session,
    src: &mut R,
    span: Span,
    sink: W,
) -> Result<(W, AcmiStats), ExportError> {
    let info = s.info().ok_or_else(|| ExportError::Read(SessionError::Usage("the session is not open".into())))?;
    let mut w = AcmiWriter::new(sink, &info).map_err(ExportError::Write)?;
    let range = chunks_of(s, span.from, span.to);
    let mut poser = Poser::new(Geo::of(&info));
    let threaded = std::thread::scope(|scope| {
        let (decoded_tx, decoded_rx) = std::sync::mpsc::sync_channel::<Result<DecodedChunk, SessionError>>(AHEAD);
        let (posed_tx, posed_rx) =
            std::sync::mpsc::sync_channel::<Result<(DecodedChunk, Vec<Pose>), SessionError>>(AHEAD);
        let reader = std::thread::Builder::new().name("acmi-decode".into()).spawn_scoped(scope, {
            let range = range.clone();
            let (s, src) = (&mut *s, &mut *src);
            move || {
                for i in range {
                    let c = read_chunk(s, src, i);
                    let failed = c.is_err();
                    // The next stage stopped (an error): so does this one.
                    if decoded_tx.send(c).is_err() || failed {
                        break;
                    }
                }
            }
        });
        let posing = reader.is_ok().then(|| {
            std::thread::Builder::new().name("acmi-pose".into()).spawn_scoped(scope, {
                let poser = &mut poser;
                move || {
                    for c in decoded_rx {
                        let c = c.map(|c| {
                            let mut poses = Vec::new();
                            poser.chunk(&c, span, &mut poses);
                            (c, poses)
                        });
                        let failed = c.is_err();
                        if posed_tx.send(c).is_err() || failed {
                            break;
                        }
                    }
                }
            })
        });
        if !matches!(posing, Some(Ok(_))) {
            return None;
        }
        let mut wrote = Ok(());
        for c in posed_rx {
            wrote = c
                .map_err(ExportError::Read)
                .and_then(|(c, poses)| w.chunk_posed(&c, span, &poses).map_err(ExportError::Write));
            if wrote.is_err() {
                break;
            }
        }
        Some(wrote)
    });
    match threaded {
        Some(r) => r?,
        None => {
            for i in range {
                write_chunk(&mut w, &read_chunk(s, src, i).map_err(ExportError::Read)?, span)?;
            }
        }
    }
    w.finish().map_err(ExportError::Write)
}

/// Chunks a stage of [`acmi`]'s pipeline may hold ahead of the next.
pub const AHEAD: usize = 2;

fn write_chunk<W: Write>(w: &mut AcmiWriter<W>, c: &DecodedChunk, span: Span) -> Result<(), ExportError> {
    w.chunk(c, span, Take::Write).map_err(ExportError::Write)
}

/// [`acmi`] on this thread alone: each chunk read, decoded, then written (the reference of the
/// threaded export's bytes, and its figure's "before": docs/performance-history.md *Exports*).
pub fn acmi_in_one_thread<R: ReadAt, W: Write>(
    s: &mut Session,
    src: &mut R,
    span: Span,
    sink: W,
) -> Result<(W, AcmiStats), ExportError> {
    let info = s.info().ok_or_else(|| ExportError::Read(SessionError::Usage("the session is not open".into())))?;
    let mut w = AcmiWriter::new(sink, &info).map_err(ExportError::Write)?;
    for i in chunks_of(s, span.from, span.to) {
        write_chunk(&mut w, &read_chunk(s, src, i).map_err(ExportError::Read)?, span)?;
    }
    w.finish().map_err(ExportError::Write)
}

/// Writes the ticks `span` of `s` as a file of its own format (a `.flrep` or a SparkEngine
/// `.replay`); returns the sink and notes on what the format could not keep.
pub fn clip<R: ReadAt, W: Write + Seek>(
    s: &mut Session,
    src: &mut R,
    span: Span,
    sink: W,
) -> Result<(W, Vec<String>), ConvertError> {
    let info = s.info().ok_or_else(|| ConvertError::Read(SessionError::Usage("the session is not open".into())))?;
    let mut c = Clip::same_format(&info, sink, span.from, span.to)?;
    for i in chunks_of(s, span.from, span.to) {
        c.chunk(&read_chunk(s, src, i)?)?;
    }
    c.finish()
}
