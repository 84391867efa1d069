//! `replay validate` without the printing: open a replay of any format over a [`ReadAt`], decode
//! every chunk, and report what was found. The CLI prints the [`Report`]; the replay host
//! (`replay host`, feature `host`) runs the same check on every upload and keeps the summary.
//!
//! The rules: the file must open and every chunk decode; a cut recording is accepted with its warning
//! (as the player accepts it); corruption the reader stepped over while opening is a problem, and a
//! report with problems is refused by both callers.

use super::{open_session, read_chunk, ReadAt};
use crate::format::{Session, SessionError};
use crate::model::{EventBody, FormatKind, RecordingInfo};

/// What [`validate`] found in a file that opened and whose chunks all decoded.
#[derive(Clone, Debug)]
pub struct Report {
    pub format: FormatKind,
    /// Chunks decoded (`.foldback`: 0, it has none).
    pub chunks: usize,
    /// Ticks decoded (`.foldback`: ticks with frames).
    pub ticks: u64,
    /// Events decoded (`.foldback`: frames).
    pub events: u64,
    /// The tick of every kill event, ascending.
    pub kill_ticks: Vec<u64>,
    /// The recording's header, sections and the reader's warnings and problems.
    pub info: RecordingInfo,
    /// Things the reader recovered from (a cut recording): accepted.
    pub warnings: Vec<String>,
    /// Corruption the reader stepped over: the file is refused when this is not empty.
    pub problems: Vec<String>,
    /// `.foldback` only: whether the stream ended with its end frame.
    pub ended_cleanly: bool,
}

impl Report {
    /// True when the file passes: it opened, every chunk decoded and nothing was stepped over.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Opens `src` and decodes every chunk, as the player does when it plays to the end.
/// An `Err` is a file that does not open or a chunk that does not decode (the reader's message).
pub fn validate<R: ReadAt>(src: &mut R) -> Result<Report, SessionError> {
    let mut session = open_session(src)?;
    if session.foldback().is_some() {
        return validate_foldback(&session, src);
    }
    let info = session.info().ok_or_else(|| SessionError::Usage("no recording info".into()))?;
    let mut ticks = 0u64;
    let mut events = 0u64;
    let mut kill_ticks = Vec::new();
    let chunks = session.chunk_count();
    for i in 0..chunks {
        let c = read_chunk(&mut session, src, i)?;
        ticks += c.ticks.len() as u64;
        events += c.events.len() as u64;
        kill_ticks.extend(c.events.iter().filter(|e| matches!(e.body, EventBody::Kill { .. })).map(|e| e.tick));
    }
    kill_ticks.sort_unstable();
    Ok(Report {
        format: info.format,
        chunks,
        ticks,
        events,
        kill_ticks,
        warnings: info.warnings.clone(),
        problems: info.problems.clone(),
        info,
        ended_cleanly: true,
    })
}

/// `.foldback`: the frame stream was indexed at open; its problems (refused frames, frames over the
/// limits) and every snapshot that does not decode within `max_snapshot_decompressed`
/// ([`super::foldback::check_snapshots`], as `replay validate` runs it) refuse the file; a stream
/// that did not end cleanly is a warning.
fn validate_foldback<R: ReadAt>(session: &Session, src: &mut R) -> Result<Report, SessionError> {
    let ix = session.foldback().ok_or_else(|| SessionError::Usage("not a foldback session".into()))?;
    let snapshots = super::foldback::check_snapshots(src, ix, &crate::format::foldback::Limits::default())?;
    let c = &ix.counts;
    let frames = c.tick_hash + c.entity_hash + c.field_hash + c.snapshot + c.metadata + c.unknown + c.end_of_stream;
    let mut problems = ix.problems();
    problems.extend(snapshots.problems());
    Ok(Report {
        format: FormatKind::Foldback,
        chunks: 0,
        ticks: ix.ticks.len() as u64,
        events: frames,
        kill_ticks: Vec::new(),
        warnings: ix.warnings(),
        problems,
        info: ix.info(),
        ended_cleanly: ix.ended_cleanly(),
    })
}
