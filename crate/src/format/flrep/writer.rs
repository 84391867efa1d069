//! The streaming writer, in two pure halves (no I/O here):
//! - [`ChunkEncoder`] turns ticks into self-contained chunks (each starts with a keyframe, so a chunk
//!   can go into any file — which is what makes rotation at chunk boundaries work);
//! - [`FileAssembler`] lays chunks into a file: prefix, chunks, and the index trailer at the end.
//!
//! [`Writer`] joins them over any `std::io::Write`; `crate::io::RotatingWriter` adds files and rotation.
//! Memory is bounded by one chunk (plus 16 bytes of index and the kill markers per chunk).
//! Deterministic: the same input gives the same bytes.

use super::chunk::{ChunkHeader, TICK_KEYFRAME};
use super::header::{write_prefix, Header, Sections};
use super::record::{self, Live};
use super::trailer::{self, Trailer};
use super::{event, FORMAT_MAJOR, FORMAT_MINOR};
use crate::bytes::PutLe;
use crate::format::zstd;
use crate::model::{EntityState, Event, EventBody};

pub const MIN_KEYFRAME_INTERVAL: u32 = 15;
pub const MAX_KEYFRAME_INTERVAL: u32 = 3600;
pub const DEFAULT_KEYFRAME_INTERVAL: u32 = 120;

#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// Ticks per chunk (each chunk starts with a keyframe). Range [15, 3600], default 120.
    pub keyframe_interval_ticks: u32,
    /// A chunk is closed early once its uncompressed size passes this (keeps chunks under the
    /// readers' 16 MiB cap and zstd's 8 MiB window).
    pub soft_chunk_bytes: usize,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions { keyframe_interval_ticks: DEFAULT_KEYFRAME_INTERVAL, soft_chunk_bytes: 4 * 1024 * 1024 }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    BadOption(String),
    BadInput(String),
    Io(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::BadOption(m) => write!(f, "bad writer option: {m}"),
            WriteError::BadInput(m) => write!(f, "bad input to the writer: {m}"),
            WriteError::Io(m) => write!(f, "write failed: {m}"),
        }
    }
}
impl std::error::Error for WriteError {}

impl WriterOptions {
    pub fn check(&self) -> Result<(), WriteError> {
        if !(MIN_KEYFRAME_INTERVAL..=MAX_KEYFRAME_INTERVAL).contains(&self.keyframe_interval_ticks) {
            return Err(WriteError::BadOption(format!(
                "keyframe_interval_ticks {} is outside [{MIN_KEYFRAME_INTERVAL}, {MAX_KEYFRAME_INTERVAL}]",
                self.keyframe_interval_ticks
            )));
        }
        Ok(())
    }
}

/// A finished chunk: header + zstd frame, ready to be placed in a file.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodedChunk {
    pub bytes: Vec<u8>,
    pub first_tick: u64,
    pub last_tick: u64,
    /// Kill events of this chunk (copied into the trailer).
    pub markers: Vec<Event>,
}

pub struct ChunkEncoder {
    opts: WriterOptions,
    live: Vec<Live>,
    next: Vec<Live>,
    buf: Vec<u8>,
    ticks: u32,
    first_tick: u64,
    last_tick: Option<u64>,
    markers: Vec<Event>,
    /// Entity states in the open chunk (readers refuse a chunk over `MAX_CHUNK_STATES`).
    states: usize,
}

impl ChunkEncoder {
    pub fn new(opts: WriterOptions) -> Result<Self, WriteError> {
        opts.check()?;
        Ok(ChunkEncoder {
            opts,
            live: Vec::new(),
            next: Vec::new(),
            buf: Vec::new(),
            ticks: 0,
            first_tick: 0,
            last_tick: None,
            markers: Vec::new(),
            states: 0,
        })
    }

    /// Adds one tick. `states` are the entities alive at this tick, sorted by ascending, unique id.
    /// Returns the previous chunk when this tick starts a new one.
    pub fn push_tick(
        &mut self,
        tick: u64,
        states: &[EntityState],
        events: &[Event],
    ) -> Result<Option<EncodedChunk>, WriteError> {
        if let Some(last) = self.last_tick {
            if tick <= last {
                return Err(WriteError::BadInput(format!("tick {tick} does not follow tick {last}")));
            }
        }
        if states.windows(2).any(|w| w.first().map(|a| a.id) >= w.get(1).map(|b| b.id)) {
            return Err(WriteError::BadInput(format!("tick {tick}: entity states are not sorted by unique id")));
        }
        if states.len() > usize::from(u16::MAX) || events.len() > usize::from(u16::MAX) {
            return Err(WriteError::BadInput(format!("tick {tick}: over 65,535 entities or events")));
        }
        // Removals + new states bound the record count: refuse before anything is written.
        if states.len() + self.live.len() > usize::from(u16::MAX) && states.len() + self.live.len() > 0 {
            let bound = states.len() + self.live.len();
            if bound > usize::from(u16::MAX) {
                return Err(WriteError::BadInput(format!(
                    "tick {tick}: up to {bound} records (removals included) may exceed 65,535"
                )));
            }
        }
        let mut closed = None;
        if self.ticks >= self.opts.keyframe_interval_ticks
            || (self.ticks > 0
                && (self.buf.len() >= self.opts.soft_chunk_bytes
                    || self.states + states.len() > super::MAX_CHUNK_STATES))
        {
            closed = self.flush();
        }
        let keyframe = self.ticks == 0;
        if keyframe {
            self.first_tick = tick;
        }
        // Tick header; the record count is patched after the records are written.
        self.buf.put_u64(tick);
        self.buf.put_u16(if keyframe { TICK_KEYFRAME } else { 0 });
        let count_at = self.buf.len();
        self.buf.put_u16(0);
        self.buf.put_u16(events.len() as u16);
        let mut records: u32 = 0;
        self.next.clear();
        let mut prev_id: Option<u32> = None;
        if keyframe {
            for s in states {
                record::write_absolute(&mut self.buf, s, prev_id);
                prev_id = Some(s.id);
                self.next.push(Live::absolute(*s));
            }
            records = states.len() as u32;
        } else {
            // Merge the previous live set with the new states (both sorted by id).
            let (mut i, mut j) = (0usize, 0usize);
            loop {
                let l = self.live.get(i);
                let s = states.get(j);
                match (l, s) {
                    (None, None) => break,
                    (Some(l), s) if s.is_none_or(|s| l.s.id < s.id) => {
                        record::write_remove(&mut self.buf, l.s.id, prev_id);
                        prev_id = Some(l.s.id);
                        records += 1;
                        i += 1;
                    }
                    (l, Some(s)) if l.is_none_or(|l| s.id < l.s.id) => {
                        record::write_absolute(&mut self.buf, s, prev_id);
                        prev_id = Some(s.id);
                        self.next.push(Live::absolute(*s));
                        records += 1;
                        j += 1;
                    }
                    (Some(l), Some(s)) => {
                        let len = self.buf.len();
                        let nl = record::write_delta(&mut self.buf, l, s, prev_id);
                        if self.buf.len() != len {
                            records += 1;
                            prev_id = Some(s.id);
                        }
                        self.next.push(nl);
                        i += 1;
                        j += 1;
                    }
                    _ => break,
                }
            }
        }
        if records > u32::from(u16::MAX) {
            return Err(WriteError::BadInput(format!(
                "tick {tick}: {records} records (removals included) exceed 65,535"
            )));
        }
        let rc = (records as u16).to_le_bytes();
        if let Some(dst) = self.buf.get_mut(count_at..count_at + 2) {
            dst.copy_from_slice(&rc);
        }
        for e in events {
            event::write(&mut self.buf, e);
            if matches!(e.body, EventBody::Kill { .. }) {
                self.markers.push(e.clone());
            }
        }
        std::mem::swap(&mut self.live, &mut self.next);
        self.ticks += 1;
        self.states += states.len();
        self.last_tick = Some(tick);
        Ok(closed)
    }

    /// Closes the open chunk, if any.
    pub fn flush(&mut self) -> Option<EncodedChunk> {
        if self.ticks == 0 {
            return None;
        }
        let last_tick = self.last_tick.unwrap_or(self.first_tick);
        let frame = zstd::compress(&self.buf);
        let header = ChunkHeader {
            offset: 0,
            compressed_len: frame.len() as u32,
            uncompressed_len: self.buf.len() as u32,
            first_tick: self.first_tick,
            last_tick,
            tick_count: self.ticks,
            crc32: crc32fast::hash(&self.buf),
        };
        let mut bytes = Vec::with_capacity(frame.len() + super::chunk::CHUNK_HEADER_LEN);
        header.write(&mut bytes);
        bytes.extend_from_slice(&frame);
        self.buf.clear();
        self.ticks = 0;
        self.states = 0;
        self.live.clear();
        Some(EncodedChunk { bytes, first_tick: self.first_tick, last_tick, markers: std::mem::take(&mut self.markers) })
    }
}

/// Lays chunks into one file and writes its trailer.
pub struct FileAssembler {
    offset: u64,
    entries: Vec<(u64, u64)>,
    markers: Vec<Event>,
    first_tick: Option<u64>,
    last_tick: u64,
}

impl FileAssembler {
    /// Starts a file; returns the assembler and the prefix bytes to write first.
    pub fn new(header: &Header, sections: &Sections) -> (Self, Vec<u8>) {
        let mut h = header.clone();
        h.format_major = FORMAT_MAJOR;
        h.format_minor = FORMAT_MINOR;
        let mut prefix = Vec::new();
        write_prefix(&mut prefix, &h, sections);
        (
            FileAssembler {
                offset: prefix.len() as u64,
                entries: Vec::new(),
                markers: Vec::new(),
                first_tick: None,
                last_tick: 0,
            },
            prefix,
        )
    }

    /// Lays chunks after a prefix of `prefix_len` bytes written elsewhere (a file being followed).
    pub fn after_prefix(prefix_len: u64) -> Self {
        FileAssembler { offset: prefix_len, entries: Vec::new(), markers: Vec::new(), first_tick: None, last_tick: 0 }
    }

    /// Bytes written so far (prefix + chunks).
    pub fn len(&self) -> u64 {
        self.offset
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records a chunk that the caller writes next (its bytes unchanged).
    pub fn add(&mut self, c: &EncodedChunk) {
        self.entries.push((c.first_tick, self.offset));
        self.offset += c.bytes.len() as u64;
        self.markers.extend(c.markers.iter().cloned());
        self.first_tick.get_or_insert(c.first_tick);
        self.last_tick = c.last_tick;
    }

    /// The trailer bytes that end the file.
    pub fn finish(self) -> Vec<u8> {
        let t = Trailer {
            first_tick: self.first_tick.unwrap_or(0),
            last_tick: self.last_tick,
            entries: self.entries,
            markers: self.markers,
        };
        let mut out = Vec::new();
        if !t.entries.is_empty() {
            trailer::write(&mut out, self.offset, &t);
        }
        out
    }
}

/// A complete single-file writer over any `Write` sink.
pub struct Writer<W: std::io::Write> {
    sink: W,
    enc: ChunkEncoder,
    asm: FileAssembler,
}

impl<W: std::io::Write> Writer<W> {
    pub fn new(mut sink: W, header: &Header, sections: &Sections, opts: WriterOptions) -> Result<Self, WriteError> {
        let mut h = header.clone();
        h.keyframe_interval_ticks = opts.keyframe_interval_ticks;
        let enc = ChunkEncoder::new(opts)?;
        let (asm, prefix) = FileAssembler::new(&h, sections);
        sink.write_all(&prefix).map_err(|e| WriteError::Io(e.to_string()))?;
        Ok(Writer { sink, enc, asm })
    }

    /// The sink: what has been written so far is in it (a driver can hand it on as it grows).
    pub fn sink_mut(&mut self) -> &mut W {
        &mut self.sink
    }

    pub fn tick(&mut self, tick: u64, states: &[EntityState], events: &[Event]) -> Result<(), WriteError> {
        if let Some(c) = self.enc.push_tick(tick, states, events)? {
            self.put(&c)?;
        }
        Ok(())
    }

    fn put(&mut self, c: &EncodedChunk) -> Result<(), WriteError> {
        self.asm.add(c);
        self.sink.write_all(&c.bytes).map_err(|e| WriteError::Io(e.to_string()))
    }

    /// Writes the last chunk and the trailer; returns the sink.
    pub fn finish(mut self) -> Result<W, WriteError> {
        if let Some(c) = self.enc.flush() {
            self.put(&c)?;
        }
        let t = self.asm.finish();
        self.sink.write_all(&t).map_err(|e| WriteError::Io(e.to_string()))?;
        self.sink.flush().map_err(|e| WriteError::Io(e.to_string()))?;
        Ok(self.sink)
    }
}

/// A header with this build's version and the writer's defaults, for generators and converters.
pub fn default_header(engine_version: &str, tick_rate_hz: u32, planet_radius_m: f64) -> Header {
    Header {
        format_major: FORMAT_MAJOR,
        format_minor: FORMAT_MINOR,
        engine_version: engine_version.to_string(),
        tick_rate_hz,
        planet_radius_m,
        start_unix_seconds: 0,
        mission_id: String::new(),
        session_flags: 0,
        keyframe_interval_ticks: DEFAULT_KEYFRAME_INTERVAL,
        position_quantum_m: super::DEFAULT_POSITION_QUANTUM_M,
        velocity_quantum_mps: super::DEFAULT_VELOCITY_QUANTUM_MPS,
    }
}
