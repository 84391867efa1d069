//! Native drivers of the exports (docs/export.md): ACMI text of a tick range, and replay clips.
//! Only the chunks that hold the range are read.

use super::convert::{chunks_of, ConvertError};
use super::{read_chunk, ReadAt};
use crate::export::acmi::{AcmiStats, AcmiWriter};
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

/// Writes the ticks `span` of the open recording `s` as ACMI 2.2 text to `sink`: the chunks are
/// read and decoded on a second thread while this one writes the chunk before (at most
/// [`AHEAD`] decoded chunks wait), in order, so the bytes are those of [`acmi_in_one_thread`].
/// Where no thread can be started it is that.
pub fn acmi<R: ReadAt + Send, W: Write>(
    s: &mut Session,
    src: &mut R,
    span: Span,
    sink: W,
) -> Result<(W, AcmiStats), ExportError> {
    let info = s.info().ok_or_else(|| ExportError::Read(SessionError::Usage("the session is not open".into())))?;
    let mut w = AcmiWriter::new(sink, &info).map_err(ExportError::Write)?;
    let range = chunks_of(s, span.from, span.to);
    let threaded = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<DecodedChunk, SessionError>>(AHEAD);
        let reader = std::thread::Builder::new().name("acmi-decode".into()).spawn_scoped(scope, {
            let range = range.clone();
            let (s, src) = (&mut *s, &mut *src);
            move || {
                for i in range {
                    let c = read_chunk(s, src, i);
                    let failed = c.is_err();
                    // The writer stopped (an error): so does the reader.
                    if tx.send(c).is_err() || failed {
                        break;
                    }
                }
            }
        });
        if reader.is_err() {
            return None;
        }
        let mut wrote = Ok(());
        for c in rx {
            wrote = c.map_err(ExportError::Read).and_then(|c| write_chunk(&mut w, &c, span));
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

/// Decoded chunks the reading thread of [`acmi`] may hold ahead of the writer.
pub const AHEAD: usize = 2;

fn write_chunk<W: Write>(w: &mut AcmiWriter<W>, c: &DecodedChunk, span: Span) -> Result<(), ExportError> {
    c.for_each_tick(span.from, span.to, |tick, states, events| w.tick(tick, states, events)).map_err(ExportError::Write)
}

/// [`acmi`] on this thread alone: each chunk read, decoded, then written (the reference of the
/// threaded export's bytes, and its figure's "before": docs/performance.md *Exports*).
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
