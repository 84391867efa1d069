//! The compact index of a `.foldback` recording: per tick, each peer's Level-1 hash and the file
//! range holding that tick's frames (Level-2/3 data and snapshots are read from it on demand), plus
//! snapshot positions, metadata and frame counts. Its size grows with ticks × peers, never with the
//! Level-2/3 volume or the file size.
//!
//! The same [`Index`] is built from a file scan ([`Indexer`], sans-IO) and from live frames
//! ([`super::live::LiveRecording`]).

use super::scan::{Item, ScanEnd, ScanStep, Scanner};
use super::{frame_type as ft, parse_frame_with, Error, Frame, Header, Limits};
use crate::format::zstd::Decompressor;
use crate::model::{FormatKind, Participant, RecordingInfo, WorldKind, NO_ENTITY};
use std::collections::BTreeMap;

/// One peer's Level-1 hash at a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerHash {
    pub peer: u16,
    pub hash: u64,
}

/// What the index knows about one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TickEntry {
    pub tick: u64,
    /// File range `[start, end)` covering every frame of this tick (it may also hold frames of
    /// neighbouring ticks when a writer interleaves them; readers filter by tick).
    pub start: u64,
    pub end: u64,
    /// Level-1 hashes, sorted by peer; the first frame per peer wins (later duplicates are counted).
    pub hashes: Vec<PeerHash>,
    pub entity_hashes: u32,
    pub field_hashes: u32,
    pub snapshots: u32,
}

impl TickEntry {
    pub fn hash_of(&self, peer: u16) -> Option<u64> {
        self.hashes.binary_search_by_key(&peer, |h| h.peer).ok().and_then(|i| self.hashes.get(i)).map(|h| h.hash)
    }
}

/// Where a snapshot frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotRef {
    pub tick: u64,
    pub peer: u16,
    /// The frame's offset and total length (read this range, then [`read_snapshot`]).
    pub offset: u64,
    pub len: u64,
    pub compressed_len: u32,
}

/// Frames seen, per type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Counts {
    pub tick_hash: u64,
    pub entity_hash: u64,
    pub field_hash: u64,
    pub snapshot: u64,
    pub metadata: u64,
    pub end_of_stream: u64,
    /// Frames of types this build does not read (skipped by length).
    pub unknown: u64,
    /// Frames refused (payload too short, field over its limit, bad UTF-8, undeclared peer).
    pub bad: u64,
    /// Level-1 hashes for a (tick, peer) already seen (the first is kept).
    pub duplicate_tick_hash: u64,
    /// Metadata frames counted but not kept (over [`Limits::max_metadata_bytes`]).
    pub metadata_dropped: u64,
}

/// Most frame-error messages kept (the count in [`Counts::bad`] is exact).
pub const MAX_FRAME_ERRORS: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct Index {
    pub header: Header,
    /// Bytes of the file (or of the live recording so far).
    pub file_len: u64,
    /// By tick (a map: ticks may arrive in any order, and insertion stays O(log n) however they do).
    pub ticks: BTreeMap<u64, TickEntry>,
    pub snapshots: Vec<SnapshotRef>,
    /// Metadata frames in file order (key, value bytes).
    pub metadata: Vec<(String, Vec<u8>)>,
    pub counts: Counts,
    /// Frame types seen that this build does not read.
    pub unknown_types: Vec<u8>,
    /// How the stream ended (`None` while a live recording is still going).
    pub end: Option<ScanEnd>,
    /// Messages for the first [`MAX_FRAME_ERRORS`] refused frames.
    pub frame_errors: Vec<String>,
    metadata_bytes: u64,
    max_metadata_bytes: u64,
}

impl Index {
    pub fn new(header: Header, limits: &Limits) -> Self {
        Index {
            header,
            file_len: super::HEADER_LEN as u64,
            ticks: BTreeMap::new(),
            snapshots: Vec::new(),
            metadata: Vec::new(),
            counts: Counts::default(),
            unknown_types: Vec::new(),
            end: None,
            frame_errors: Vec::new(),
            metadata_bytes: 0,
            max_metadata_bytes: u64::from(limits.max_metadata_bytes),
        }
    }

    /// Adds one scanned item.
    pub fn add(&mut self, item: &Item<'_>) {
        match item {
            Item::Header(_) => {}
            Item::Frame { offset, len, frame } => self.add_frame(*offset, *len, frame),
            Item::SnapshotRef { offset, len, tick, peer, compressed_len, .. } => {
                if self.peer_ok(*offset, ft::SNAPSHOT, *peer) {
                    self.add_snapshot(*offset, *len, *tick, *peer, *compressed_len);
                }
            }
            Item::Skipped { frame_type, .. } => self.unknown(*frame_type),
            Item::Bad { error, .. } => self.bad(error.to_string()),
        }
    }

    /// Adds one parsed frame that occupies `[offset, offset + len)`.
    pub fn add_frame(&mut self, offset: u64, len: u64, frame: &Frame<'_>) {
        self.file_len = self.file_len.max(offset + len);
        if let Some(peer) = frame.peer() {
            if !self.peer_ok(offset, frame.frame_type(), peer) {
                return;
            }
        }
        match *frame {
            Frame::TickHash { tick, peer, hash } => {
                self.counts.tick_hash += 1;
                let mut dup = false;
                if let Some(e) = self.entry(tick, offset, len) {
                    match e.hashes.binary_search_by_key(&peer, |h| h.peer) {
                        Ok(_) => dup = true,
                        Err(i) => e.hashes.insert(i, PeerHash { peer, hash }),
                    }
                }
                if dup {
                    self.counts.duplicate_tick_hash += 1;
                }
            }
            Frame::EntityHash { tick, .. } => {
                self.counts.entity_hash += 1;
                if let Some(e) = self.entry(tick, offset, len) {
                    e.entity_hashes = e.entity_hashes.saturating_add(1);
                }
            }
            Frame::FieldHash { tick, .. } => {
                self.counts.field_hash += 1;
                if let Some(e) = self.entry(tick, offset, len) {
                    e.field_hashes = e.field_hashes.saturating_add(1);
                }
            }
            Frame::Snapshot { tick, peer, data } => self.add_snapshot(offset, len, tick, peer, data.len() as u32),
            Frame::Metadata { key, value } => {
                self.counts.metadata += 1;
                let size = (key.len() + value.len()) as u64;
                if self.metadata_bytes + size <= self.max_metadata_bytes {
                    self.metadata_bytes += size;
                    self.metadata.push((key.to_owned(), value.to_vec()));
                } else {
                    self.counts.metadata_dropped += 1;
                }
            }
            Frame::EndOfStream => self.counts.end_of_stream += 1,
            Frame::Unknown { frame_type, .. } => self.unknown(frame_type),
        }
    }

    fn add_snapshot(&mut self, offset: u64, len: u64, tick: u64, peer: u16, compressed_len: u32) {
        self.counts.snapshot += 1;
        self.file_len = self.file_len.max(offset + len);
        if let Some(e) = self.entry(tick, offset, len) {
            e.snapshots = e.snapshots.saturating_add(1);
        }
        self.snapshots.push(SnapshotRef { tick, peer, offset, len, compressed_len });
    }

    fn unknown(&mut self, t: u8) {
        self.counts.unknown += 1;
        if let Err(i) = self.unknown_types.binary_search(&t) {
            self.unknown_types.insert(i, t);
        }
    }

    fn bad(&mut self, msg: String) {
        self.counts.bad += 1;
        if self.frame_errors.len() < MAX_FRAME_ERRORS {
            self.frame_errors.push(msg);
        }
    }

    fn peer_ok(&mut self, offset: u64, t: u8, peer: u16) -> bool {
        if u32::from(peer) < self.header.peer_count {
            return true;
        }
        self.bad(
            Error::PeerOutOfRange { at: offset, frame_type: t, peer, peer_count: self.header.peer_count }.to_string(),
        );
        false
    }

    fn entry(&mut self, tick: u64, offset: u64, len: u64) -> Option<&mut TickEntry> {
        let e = self.ticks.entry(tick).or_insert_with(|| TickEntry {
            tick,
            start: offset,
            end: offset,
            hashes: Vec::new(),
            entity_hashes: 0,
            field_hashes: 0,
            snapshots: 0,
        });
        e.start = e.start.min(offset);
        e.end = e.end.max(offset + len);
        Some(e)
    }

    /// Records how the stream ended.
    pub fn finish(&mut self, end: ScanEnd) {
        self.end = Some(end);
    }

    pub fn tick(&self, tick: u64) -> Option<&TickEntry> {
        self.ticks.get(&tick)
    }

    /// The file range `(offset, len)` holding every frame of `tick`.
    pub fn tick_range(&self, tick: u64) -> Option<(u64, u64)> {
        self.tick(tick).map(|t| (t.start, t.end - t.start))
    }

    /// The file range `(offset, len)` covering every frame of the ticks in `from..=to`.
    pub fn span_range(&self, from: u64, to: u64) -> Option<(u64, u64)> {
        if from > to {
            return None;
        }
        let start = self.ticks.range(from..=to).map(|(_, t)| t.start).min()?;
        let end = self.ticks.range(from..=to).map(|(_, t)| t.end).max()?;
        Some((start, end - start))
    }

    pub fn first_tick(&self) -> Option<u64> {
        self.ticks.keys().next().copied()
    }
    pub fn last_tick(&self) -> Option<u64> {
        self.ticks.keys().next_back().copied()
    }

    /// EndOfStream was read.
    pub fn ended_cleanly(&self) -> bool {
        self.end.as_ref().is_some_and(|e| e.clean)
    }

    pub fn snapshot(&self, tick: u64, peer: u16) -> Option<&SnapshotRef> {
        self.snapshots.iter().find(|s| s.tick == tick && s.peer == peer)
    }

    /// The latest snapshot of `peer` at or before `tick`.
    pub fn snapshot_before(&self, tick: u64, peer: u16) -> Option<&SnapshotRef> {
        self.snapshots.iter().filter(|s| s.peer == peer && s.tick <= tick).max_by_key(|s| s.tick)
    }

    /// Metadata as text: values that are UTF-8 verbatim, others as `0x` + hex.
    pub fn metadata_text(&self) -> Vec<(String, String)> {
        self.metadata.iter().map(|(k, v)| (k.clone(), value_text(v))).collect()
    }

    /// Recoverable conditions: a recording that did not end cleanly, unknown frame types, dropped metadata.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        match &self.end {
            Some(e) if !e.clean => {
                let why = e.cut.clone().unwrap_or_else(|| "no EndOfStream frame".into());
                w.push(format!("did not end cleanly: {why}; every complete frame before it was read"));
            }
            Some(e) if e.trailing_bytes > 0 => w.push(format!("{} bytes after EndOfStream ignored", e.trailing_bytes)),
            _ => {}
        }
        if self.header.tick_rate_hz == 0 {
            w.push("tick rate is 0: times are not known".into());
        }
        if !self.unknown_types.is_empty() {
            let t: Vec<String> = self.unknown_types.iter().map(|t| format!("0x{t:02X}")).collect();
            w.push(format!(
                "skipped {} frames of types this build does not read: {}",
                self.counts.unknown,
                t.join(", ")
            ));
        }
        if self.counts.duplicate_tick_hash > 0 {
            w.push(format!(
                "{} duplicate TickHash frames for a tick and peer already seen (the first was kept)",
                self.counts.duplicate_tick_hash
            ));
        }
        if self.counts.metadata_dropped > 0 {
            w.push(format!(
                "{} Metadata frames not kept (over {} bytes of metadata)",
                self.counts.metadata_dropped, self.max_metadata_bytes
            ));
        }
        w
    }

    /// Defects `validate` fails on: refused frames and a frame over the payload limit.
    pub fn problems(&self) -> Vec<String> {
        let mut p = self.frame_errors.clone();
        if self.counts.bad as usize > self.frame_errors.len() {
            p.push(format!("… {} refused frames in all", self.counts.bad));
        }
        if let Some(e) = self.end.as_ref().and_then(|e| e.oversized.as_ref()) {
            p.push(e.to_string());
        }
        p
    }

    /// The format-agnostic summary (a `.foldback` has no entity positions: no chunks, no types).
    pub fn info(&self) -> RecordingInfo {
        let h = &self.header;
        let mut metadata = self.metadata_text();
        metadata.insert(0, ("build_id".into(), h.build_id_hex()));
        RecordingInfo {
            format: FormatKind::Foldback,
            format_major: h.format_version,
            format_minor: 0,
            engine_version: format!("build {}", h.build_id_hex()),
            tick_rate_hz: h.tick_rate_hz,
            world: WorldKind::Flat,
            position_quantum_m: 0.0,
            velocity_quantum_mps: 0.0,
            start_unix_seconds: 0,
            mission_id: String::new(),
            session_flags: 0,
            keyframe_interval_ticks: 0,
            first_tick: self.first_tick().unwrap_or(0),
            last_tick: self.last_tick().unwrap_or(0),
            entity_types: Vec::new(),
            factions: Vec::new(),
            participants: (0..h.peer_count.min(u32::from(u16::MAX) + 1))
                .map(|p| Participant { id: p, callsign: format!("peer {p}"), entity: NO_ENTITY, faction: 0 })
                .collect(),
            mission_objects: Vec::new(),
            metadata,
            warnings: self.warnings(),
            problems: self.problems(),
        }
    }
}

/// A value as text: UTF-8 verbatim, otherwise `0x` + hex.
pub fn value_text(v: &[u8]) -> String {
    match std::str::from_utf8(v) {
        Ok(s) => s.to_owned(),
        Err(_) => format!("0x{}", super::hex(v)),
    }
}

/// What the indexer wants next.
#[derive(Debug)]
pub enum IndexStep {
    Need { offset: u64, len: u64 },
    Ready(Box<Index>),
}

/// The sans-IO opener of a `.foldback` file: scans the frame stream in big windows and ends with an
/// [`Index`]. Header defects are errors; frame defects are recorded in the index; a file with no
/// complete frame carrying a tick is refused ([`Error::NoTicks`], or the over-limit frame that
/// stopped the scan).
pub struct Indexer {
    scanner: Scanner,
    index: Option<Index>,
}

impl Indexer {
    pub fn new(file_len: u64, limits: Limits) -> Self {
        Indexer { scanner: Scanner::new(file_len, limits), index: None }
    }

    /// Advances with the bytes of the range asked for last (`None` on the first call).
    pub fn next(&mut self, input: Option<&[u8]>) -> Result<IndexStep, Error> {
        let limits = self.scanner.limits().clone();
        let index = &mut self.index;
        let step = self.scanner.next(input, &mut |item| match (&item, index.as_mut()) {
            (Item::Header(h), _) => *index = Some(Index::new(*h, &limits)),
            (_, Some(ix)) => ix.add(&item),
            (_, None) => {}
        })?;
        match step {
            ScanStep::Need { offset, len } => Ok(IndexStep::Need { offset, len }),
            ScanStep::Done => {
                let mut ix = self.index.take().ok_or_else(|| Error::Usage("the scan ended without a header".into()))?;
                if let Some(end) = self.scanner.end() {
                    ix.file_len = ix.file_len.max(end.frames_end);
                    ix.finish(end.clone());
                }
                // Nothing playable is refused, as in every format; when a frame over the limit is
                // why, that is the error.
                if ix.ticks.is_empty() {
                    return Err(ix.end.as_ref().and_then(|e| e.oversized.clone()).unwrap_or(Error::NoTicks));
                }
                Ok(IndexStep::Ready(Box::new(ix)))
            }
        }
    }
}

/// Decompresses a snapshot from its whole frame (`frame` = the bytes of [`SnapshotRef::offset`] ..
/// `+ len`), capped at [`Limits::max_snapshot_decompressed`].
pub fn read_snapshot(dec: &mut Decompressor, frame: &[u8], frame_at: u64, limits: &Limits) -> Result<Vec<u8>, Error> {
    let v = decode_snapshot(dec, frame, frame_at, limits)?.to_vec();
    dec.shrink(1 << 20);
    Ok(v)
}

/// Decodes a snapshot as [`read_snapshot`] does without keeping it: its decompressed length, or the
/// error (`Snapshot { err: TooLarge { cap } }` when it inflates past the cap). What `validate` runs
/// on every snapshot ([`crate::io::foldback::check_snapshots`]).
pub fn snapshot_len(dec: &mut Decompressor, frame: &[u8], frame_at: u64, limits: &Limits) -> Result<usize, Error> {
    let n = decode_snapshot(dec, frame, frame_at, limits)?.len();
    dec.shrink(1 << 20);
    Ok(n)
}

fn decode_snapshot<'d>(
    dec: &'d mut Decompressor,
    frame: &[u8],
    frame_at: u64,
    limits: &Limits,
) -> Result<&'d [u8], Error> {
    let f = parse_frame_with(frame, frame_at, limits)?;
    let Frame::Snapshot { tick, peer, data } = f else {
        return Err(Error::Usage(format!(
            "no Snapshot frame at offset {frame_at} (found a {} frame)",
            ft::name(f.frame_type())
        )));
    };
    let cap = limits.max_snapshot_decompressed as usize;
    // Allocate what the zstd frame declares (when it does and it is under the cap), else the cap.
    let expected = zstd_content_size(data).and_then(|n| usize::try_from(n).ok()).filter(|n| *n <= cap).unwrap_or(cap);
    match dec.decompress(data, expected) {
        Ok(out) => Ok(out),
        Err(crate::format::zstd::ZstdError::TooLarge { .. }) if expected < cap => Err(Error::Snapshot {
            at: frame_at,
            tick,
            peer,
            err: crate::format::zstd::ZstdError::Corrupt(format!(
                "decodes to more than the {expected} bytes its frame header declares"
            )),
        }),
        Err(err) => Err(Error::Snapshot { at: frame_at, tick, peer, err }),
    }
}

/// The Frame_Content_Size a zstd frame header declares, when it declares one.
pub fn zstd_content_size(d: &[u8]) -> Option<u64> {
    if d.get(..4)? != [0x28, 0xB5, 0x2F, 0xFD] {
        return None;
    }
    let fhd = *d.get(4)?;
    let single = fhd & 0x20 != 0;
    let did_len = [0usize, 1, 2, 4].get(usize::from(fhd & 3)).copied()?;
    let fcs_len = match fhd >> 6 {
        0 => usize::from(single),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    if fcs_len == 0 {
        return None;
    }
    let at = 5 + usize::from(!single) + did_len;
    let b = d.get(at..at + fcs_len)?;
    let mut a = [0u8; 8];
    a.get_mut(..fcs_len)?.copy_from_slice(b);
    let v = u64::from_le_bytes(a);
    Some(if fcs_len == 2 { v + 256 } else { v })
}
