//! Conversions between formats, through the model: any opened [`Session`] → `.flrep`, and any
//! flat-world [`Session`] → SparkEngine `.replay`. Each returns notes saying what did not survive.
//! The native drivers of the sans-IO [`crate::format::clip`] (which the export worker's wasm feeds
//! the same way): they read only the chunks that hold the range.

use super::{read_chunk, ReadAt};
pub use crate::format::clip::{keyframe_interval_for, ConvertError, CHUNK_SECONDS};
use crate::format::clip::{FlrepClip, SparkClip};
use crate::format::{Session, SessionError};
use crate::model::RecordingInfo;
use std::io::{Seek, Write};

fn info_of(s: &Session) -> Result<RecordingInfo, ConvertError> {
    s.info().ok_or_else(|| ConvertError::Read(SessionError::Usage("the session is not open".into())))
}

/// Writes the recording of `s` as a `.flrep` (same quanta, tick rate and world; metadata in
/// section 0x0005). Returns the sink and notes.
pub fn to_flrep<R: ReadAt, W: Write>(s: &mut Session, src: &mut R, sink: W) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    to_flrep_range(s, src, sink, info.first_tick, info.last_tick)
}

/// The chunks of `s` that hold ticks `from..=to` (only these are read: a damaged chunk outside
/// the range costs nothing).
pub(crate) fn chunks_of(s: &Session, from: u64, to: u64) -> std::ops::Range<usize> {
    if s.chunk_count() == 0 || from > to {
        return 0..0;
    }
    s.chunk_for_tick(from)..s.chunk_for_tick(to).saturating_add(1).min(s.chunk_count())
}

/// [`to_flrep`] of the ticks `from..=to` only (a replay clip: [`FlrepClip`]).
pub fn to_flrep_range<R: ReadAt, W: Write>(
    s: &mut Session,
    src: &mut R,
    sink: W,
    from: u64,
    to: u64,
) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    let mut clip = FlrepClip::new(&info, sink, from, to);
    for i in chunks_of(s, from, to) {
        clip.chunk(&read_chunk(s, src, i)?)?;
    }
    clip.finish()
}

/// Writes the recording of `s` as a SparkEngine `.replay` (flat worlds only). Returns the sink and
/// notes on what was lost: factions, roster callsigns, entity types, event fields without a
/// SparkEngine equivalent, sub-millisecond ticks, metadata.
pub fn to_spark<R: ReadAt, W: Write + Seek>(
    s: &mut Session,
    src: &mut R,
    sink: W,
) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    to_spark_range(s, src, sink, info.first_tick, info.last_tick)
}

/// [`to_spark`] of the ticks `from..=to` only (a replay clip of a SparkEngine `.replay`:
/// [`SparkClip`]).
pub fn to_spark_range<R: ReadAt, W: Write + Seek>(
    s: &mut Session,
    src: &mut R,
    sink: W,
    from: u64,
    to: u64,
) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    let mut clip = SparkClip::new(&info, sink, from, to)?;
    for i in chunks_of(s, from, to) {
        clip.chunk(&read_chunk(s, src, i)?)?;
    }
    clip.finish()
}
