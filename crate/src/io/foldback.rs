//! Native drivers for `.foldback`: open (index) a file, walk its frames, read ranges for the
//! divergence model. The browser's equivalents are the worker's `Blob.slice` reads.

use super::ReadAt;
use crate::format::foldback::diverge::{Bytes, Read};
use crate::format::foldback::index::{snapshot_len, MAX_FRAME_ERRORS};
use crate::format::foldback::{Error, Index, IndexStep, Indexer, Item, Limits, ScanStep, Scanner, FRAME_HEADER_LEN};
use crate::format::zstd::Decompressor;
use crate::format::IoError;

fn io(offset: u64, e: std::io::Error) -> Error {
    Error::Io(IoError::new(&e, format!("at offset {offset}: {e}")))
}

/// Drives an [`Indexer`] over a source.
pub fn open_foldback<R: ReadAt>(src: &mut R, limits: &Limits) -> Result<Index, Error> {
    let mut ix = Indexer::new(src.len(), limits.clone());
    let mut data: Option<Vec<u8>> = None;
    loop {
        match ix.next(data.as_deref())? {
            IndexStep::Need { offset, len } => data = Some(src.read_at(offset, len).map_err(|e| io(offset, e))?),
            IndexStep::Ready(i) => return Ok(*i),
        }
    }
}

/// Visits every frame of a file in order (the `dump` walk), one window in memory at a time.
pub fn for_each_item<R: ReadAt>(
    src: &mut R,
    limits: &Limits,
    visit: &mut dyn FnMut(Item<'_>),
) -> Result<Scanner, Error> {
    let mut sc = Scanner::new(src.len(), limits.clone());
    let mut data: Option<Vec<u8>> = None;
    loop {
        match sc.next(data.as_deref(), visit)? {
            ScanStep::Need { offset, len } => data = Some(src.read_at(offset, len).map_err(|e| io(offset, e))?),
            ScanStep::Done => return Ok(sc),
        }
    }
}

/// What [`check_snapshots`] found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SnapshotCheck {
    /// Snapshots decoded within the cap.
    pub decoded: u64,
    /// Their decompressed bytes, in all.
    pub decoded_bytes: u64,
    /// Snapshots that failed (over the cap, corrupt, not one zstd frame).
    pub failed: u64,
    /// The first [`MAX_FRAME_ERRORS`] failures, each an [`Error::Snapshot`] with its numbers.
    pub errors: Vec<Error>,
}

impl SnapshotCheck {
    /// The failures as `validate` prints them (one line each, then the total when some were not kept).
    pub fn problems(&self) -> Vec<String> {
        let mut p: Vec<String> = self.errors.iter().map(Error::to_string).collect();
        if self.failed > self.errors.len() as u64 {
            p.push(format!("… {} snapshots refused in all", self.failed));
        }
        p
    }
}

/// Decodes every snapshot of `ix` from `src` within [`Limits::max_snapshot_decompressed`], one at a
/// time (memory: one frame and one cap-sized output buffer). `replay validate` of a `.foldback` and
/// the replay host's upload check call it: a snapshot that inflates past the cap or does not decode
/// refuses the file (opening only indexes snapshots, it never inflates them). `Err` is a read error.
pub fn check_snapshots<R: ReadAt>(src: &mut R, ix: &Index, limits: &Limits) -> Result<SnapshotCheck, Error> {
    let mut dec = Decompressor::new();
    let mut check = SnapshotCheck::default();
    for s in &ix.snapshots {
        // The scanner refused any frame over `max_frame_payload`; a range past that is not an index
        // this file produced.
        if s.len > u64::from(limits.max_frame_payload) + FRAME_HEADER_LEN as u64 {
            return Err(Error::Usage(format!(
                "snapshot frame at offset {} is {} bytes, over the {}-byte frame limit",
                s.offset, s.len, limits.max_frame_payload
            )));
        }
        let frame = src.read_at(s.offset, s.len).map_err(|e| io(s.offset, e))?;
        match snapshot_len(&mut dec, &frame, s.offset, limits) {
            Ok(n) => {
                check.decoded += 1;
                check.decoded_bytes += n as u64;
            }
            Err(e @ Error::Snapshot { .. }) => {
                check.failed += 1;
                if check.errors.len() < MAX_FRAME_ERRORS {
                    check.errors.push(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(check)
}

/// Reads the ranges the divergence model asked for, source `i` from `srcs[i]`.
pub fn read_ranges<R: ReadAt>(srcs: &mut [R], reads: &[Read]) -> Result<Vec<(usize, u64, Vec<u8>)>, Error> {
    let mut out = Vec::with_capacity(reads.len());
    for r in reads {
        let src = srcs.get_mut(r.source).ok_or_else(|| Error::Usage(format!("no source {}", r.source)))?;
        out.push((r.source, r.offset, src.read_at(r.offset, r.len).map_err(|e| io(r.offset, e))?));
    }
    Ok(out)
}

/// Borrows what [`read_ranges`] returned as the model's input.
pub fn as_bytes(read: &[(usize, u64, Vec<u8>)]) -> Vec<Bytes<'_>> {
    read.iter().map(|(source, offset, b)| Bytes { source: *source, offset: *offset, bytes: b }).collect()
}

/// The JSON-lines dump of a `.foldback`: an info line, one line per frame (`{"type":"frame",
/// "offset":…,"frame":{…}}`; refused frames as `"bad_frame"` with the error), then an `end` line
/// saying whether the recording ended cleanly.
#[cfg(feature = "json")]
pub fn write_dump<R: ReadAt, W: std::io::Write>(
    src: &mut R,
    limits: &Limits,
    w: &mut W,
) -> Result<(), super::dump::DumpError> {
    use super::dump::DumpError;
    use crate::format::foldback::frame_json;
    use crate::format::SessionError;
    let index = open_foldback(src, limits).map_err(|e| DumpError::Read(SessionError::Foldback(e)))?;
    writeln!(w, "{}", serde_json::json!({"type": "info", "info": index.info()}))?;
    let mut werr: Option<std::io::Error> = None;
    let sc = for_each_item(src, limits, &mut |item| {
        if werr.is_some() {
            return;
        }
        let line = match &item {
            Item::Header(h) => serde_json::json!({"type": "header", "format_version": h.format_version, "flags": h.flags, "tick_rate_hz": h.tick_rate_hz, "peer_count": h.peer_count, "build_id": h.build_id_hex()}),
            Item::Frame { offset, len, frame } => serde_json::json!({"type": "frame", "offset": offset, "len": len, "frame": frame_json(frame)}),
            Item::SnapshotRef { offset, len, tick, peer, compressed_len, .. } => serde_json::json!({"type": "frame", "offset": offset, "len": len, "frame": {"kind": "snapshot", "tick": tick, "peer": peer, "compressed_len": compressed_len}}),
            Item::Skipped { offset, len, frame_type } => serde_json::json!({"type": "frame", "offset": offset, "len": len, "frame": {"kind": "unknown", "frame_type": frame_type, "payload_len": len - 5}}),
            Item::Bad { offset, len, frame_type, error } => serde_json::json!({"type": "bad_frame", "offset": offset, "len": len, "frame_type": frame_type, "error": error.to_string()}),
        };
        if let Err(e) = writeln!(w, "{line}") {
            werr = Some(e);
        }
    })
    .map_err(|e| DumpError::Read(SessionError::Foldback(e)))?;
    if let Some(e) = werr {
        return Err(DumpError::Write(e));
    }
    if let Some(end) = sc.end() {
        writeln!(
            w,
            "{}",
            serde_json::json!({"type": "end", "clean": end.clean, "frames_end": end.frames_end, "trailing_bytes": end.trailing_bytes, "cut": end.cut, "oversized": end.oversized.as_ref().map(|e| e.to_string())})
        )?;
    }
    Ok(())
}
