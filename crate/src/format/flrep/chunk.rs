//! Chunks: a 36-byte header and one zstd frame holding one keyframe tick and the delta ticks after it.

use super::error::trunc;
use super::record::{self, Live, Record};
use super::{event, Error, Limits, CHUNK_MAGIC};
use crate::bytes::{Cursor, PutLe};
use crate::format::zstd::Decompressor;
pub use crate::model::DecodedChunk;

pub const CHUNK_HEADER_LEN: usize = 36;
pub const TICK_HEADER_LEN: usize = 14;
pub const TICK_KEYFRAME: u16 = 1;

/// `magic "FLCK", compressedLength u32, uncompressedLength u32, firstTick u64, lastTick u64,
/// tickCount u32, crc32 u32` (CRC-32/ISO-HDLC of the uncompressed payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// File offset of the chunk header.
    pub offset: u64,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
    pub first_tick: u64,
    pub last_tick: u64,
    pub tick_count: u32,
    pub crc32: u32,
}

impl ChunkHeader {
    /// Offset just past this chunk's zstd frame.
    pub fn end(&self) -> u64 {
        self.offset + CHUNK_HEADER_LEN as u64 + u64::from(self.compressed_len)
    }
    /// File range of the compressed frame.
    pub fn frame_range(&self) -> (u64, u64) {
        (self.offset + CHUNK_HEADER_LEN as u64, u64::from(self.compressed_len))
    }

    /// Parses and checks a chunk header read at `offset` of a file of `file_len` bytes.
    pub fn parse(bytes: &[u8], offset: u64, file_len: u64, limits: &Limits) -> Result<ChunkHeader, Error> {
        let mut c = Cursor::at(bytes, offset);
        let magic: [u8; 4] = c.array().map_err(trunc("chunk header"))?;
        if &magic != CHUNK_MAGIC {
            return Err(Error::NotAChunk { at: offset, found: magic });
        }
        let h = ChunkHeader {
            offset,
            compressed_len: c.u32().map_err(trunc("chunk header"))?,
            uncompressed_len: c.u32().map_err(trunc("chunk header"))?,
            first_tick: c.u64().map_err(trunc("chunk header"))?,
            last_tick: c.u64().map_err(trunc("chunk header"))?,
            tick_count: c.u32().map_err(trunc("chunk header"))?,
            crc32: c.u32().map_err(trunc("chunk header"))?,
        };
        if h.compressed_len > limits.max_chunk_compressed {
            return Err(Error::ChunkTooLarge { at: offset, field: "compressedLength", len: u64::from(h.compressed_len), max: u64::from(limits.max_chunk_compressed) });
        }
        if h.uncompressed_len > limits.max_chunk_uncompressed {
            return Err(Error::ChunkTooLarge { at: offset, field: "uncompressedLength", len: u64::from(h.uncompressed_len), max: u64::from(limits.max_chunk_uncompressed) });
        }
        if h.end() > file_len {
            return Err(Error::ChunkBeyondFile { at: offset, end: h.end(), file_len });
        }
        if h.tick_count == 0 || h.last_tick < h.first_tick {
            return Err(Error::ChunkTickMismatch { chunk_at: offset, reason: format!("tickCount {} with ticks {}..={}", h.tick_count, h.first_tick, h.last_tick) });
        }
        // Every tick costs at least TICK_HEADER_LEN decompressed bytes.
        if u64::from(h.tick_count) * TICK_HEADER_LEN as u64 > u64::from(h.uncompressed_len) {
            return Err(Error::ChunkTickMismatch { chunk_at: offset, reason: format!("tickCount {} cannot fit in {} bytes", h.tick_count, h.uncompressed_len) });
        }
        Ok(h)
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(CHUNK_MAGIC);
        out.put_u32(self.compressed_len);
        out.put_u32(self.uncompressed_len);
        out.put_u64(self.first_tick);
        out.put_u64(self.last_tick);
        out.put_u32(self.tick_count);
        out.put_u32(self.crc32);
    }
}

/// Decodes chunks; owns the reusable zstd decoder.
pub struct ChunkDecoder {
    z: Decompressor,
    t: TickDecoder,
}

/// The tick-record half of chunk decoding (after decompression).
struct TickDecoder {
    limits: Limits,
    live: Vec<Live>,
    next: Vec<Live>,
    records: Vec<Record>,
}

impl ChunkDecoder {
    pub fn new(limits: Limits) -> Self {
        ChunkDecoder { z: Decompressor::new(), t: TickDecoder { limits, live: Vec::new(), next: Vec::new(), records: Vec::new() } }
    }

    /// Decompresses and decodes one chunk. `frame` is the compressed frame (the bytes after the header).
    /// On error nothing of the chunk is returned (no partial state).
    pub fn decode(&mut self, h: &ChunkHeader, frame: &[u8]) -> Result<DecodedChunk, Error> {
        self.decode_until(h, frame, None).map(|(c, _)| c)
    }

    /// As [`decode`](Self::decode), but stops after the first tick at or past `until` (a seek's
    /// target tick + 1: the frames either side of the playhead), so a seek rolls forward from the
    /// keyframe only as far as it needs (000 §3). Returns the chunk and whether it is complete (the
    /// decode reached the chunk's end; always with `until` = `None`). A prefix has passed every
    /// check on its own ticks (and the CRC of the whole chunk); what follows it is checked when the
    /// whole chunk is decoded.
    pub fn decode_until(&mut self, h: &ChunkHeader, frame: &[u8], until: Option<u64>) -> Result<(DecodedChunk, bool), Error> {
        let at = h.offset;
        if frame.len() as u64 != u64::from(h.compressed_len) {
            return Err(Error::ChunkSizeMismatch { chunk_at: at, declared: u64::from(h.compressed_len), actual: frame.len() as u64 });
        }
        let expected = h.uncompressed_len as usize;
        let data = self.z.decompress(frame, expected).map_err(|err| Error::Zstd { chunk_at: at, err })?;
        if data.len() != expected {
            return Err(Error::ChunkSizeMismatch { chunk_at: at, declared: expected as u64, actual: data.len() as u64 });
        }
        let crc = crc32fast::hash(data);
        if crc != h.crc32 {
            return Err(Error::ChunkChecksum { chunk_at: at, declared: h.crc32, actual: crc });
        }
        let out = self.t.decode_ticks(h, data, until);
        self.z.shrink(4 * 1024 * 1024);
        out
    }
}

impl TickDecoder {
    fn decode_ticks(&mut self, h: &ChunkHeader, data: &[u8], until: Option<u64>) -> Result<(DecodedChunk, bool), Error> {
        let at = h.offset;
        let mut c = Cursor::at(data, 0);
        let mut out = DecodedChunk::default();
        let n = h.tick_count as usize;
        out.ticks.reserve(n);
        out.offsets.reserve(n + 1);
        out.offsets.push(0);
        self.live.clear();
        let mut prev_tick: Option<u64> = None;
        for i in 0..n {
            let bad = |tick: u64, reason: String| Error::BadTick { chunk_at: at, tick, reason };
            let tick = c.u64().map_err(|_| bad(prev_tick.unwrap_or(h.first_tick), "chunk data ends inside a tick header".into()))?;
            let flags = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
            let record_count = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
            let event_count = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
            let keyframe = flags & TICK_KEYFRAME != 0;
            if i == 0 && (!keyframe || tick != h.first_tick) {
                return Err(Error::ChunkTickMismatch { chunk_at: at, reason: format!("first tick {tick} (keyframe: {keyframe}) does not match the header's keyframe tick {}", h.first_tick) });
            }
            if i > 0 && keyframe {
                return Err(bad(tick, "a keyframe tick inside a chunk (keyframes start chunks)".into()));
            }
            if let Some(p) = prev_tick {
                if tick <= p {
                    return Err(bad(tick, format!("tick index does not increase (previous {p})")));
                }
            }
            if flags & !TICK_KEYFRAME != 0 {
                // Unknown tick flags are reserved: a reader cannot know what they change.
                return Err(bad(tick, format!("unknown tick flags 0x{flags:04x}")));
            }
            prev_tick = Some(tick);
            self.records.clear();
            let mut last_id: Option<u32> = None;
            for _ in 0..record_count {
                let r = record::read(&mut c, last_id).map_err(|(id, reason)| Error::BadRecord { chunk_at: at, tick, entity: id.unwrap_or(u32::MAX), reason })?;
                let id = r.id();
                last_id = Some(id);
                if keyframe && !matches!(r, Record::Absolute(_)) {
                    return Err(Error::BadRecord { chunk_at: at, tick, entity: id, reason: "a keyframe tick holds a non-absolute record".into() });
                }
                self.records.push(r);
            }
            self.apply(at, tick, keyframe)?;
            for _ in 0..event_count {
                match event::read(&mut c, self.limits.max_string) {
                    Ok(Some(e)) => out.events.push(e),
                    Ok(None) => out.skipped_events += 1,
                    Err(reason) => return Err(bad(tick, reason)),
                }
            }
            out.ticks.push(tick);
            if i == 0 {
                // Room for every state this decode will hold, reserved once instead of doubling
                // its way up (12 MB of states a chunk at 2,000 entities: doubling copies it ~20
                // times and can leave the capacity up to 2× the need). Bounded like the decode
                // itself: by the ticks left (at most one per 14 bytes of tick header), up to
                // `until`, and by `max_chunk_states`; entities that spawn later grow it as before.
                let ticks_by_bytes = (c.remaining() as u64 / 14).saturating_add(1);
                let ticks_by_until = until.map_or(u64::MAX, |u| u.saturating_sub(tick).saturating_add(1));
                let ticks = (n as u64).min(ticks_by_bytes).min(ticks_by_until);
                let want = ticks.saturating_mul(self.live.len() as u64).min(self.max_states());
                out.entities.reserve_exact(usize::try_from(want).unwrap_or(0));
            }
            let states = out.entities.len() as u64 + self.live.len() as u64;
            if states > self.max_states() {
                return Err(Error::TooManyStates { chunk_at: at, tick, count: states, max: self.max_states() });
            }
            out.entities.extend(self.live.iter().map(|l| l.s));
            out.offsets.push(u32::try_from(out.entities.len()).map_err(|_| bad(tick, "chunk holds too many entity states".into()))?);
            if until.is_some_and(|u| tick >= u) && i + 1 < n {
                return Ok((out, false));
            }
        }
        if !c.is_empty() {
            return Err(Error::ChunkTickMismatch { chunk_at: at, reason: format!("{} bytes left after the last of {} ticks", c.remaining(), n) });
        }
        if prev_tick != Some(h.last_tick) {
            return Err(Error::ChunkTickMismatch { chunk_at: at, reason: format!("last tick {} does not match the header's {}", prev_tick.unwrap_or(0), h.last_tick) });
        }
        Ok((out, true))
    }

    fn max_states(&self) -> u64 {
        self.limits.max_chunk_states as u64
    }

    /// Merges this tick's records (ascending ids) into the live set (ascending ids).
    fn apply(&mut self, at: u64, tick: u64, keyframe: bool) -> Result<(), Error> {
        self.next.clear();
        let bad = |entity: u32, reason: String| Error::BadRecord { chunk_at: at, tick, entity, reason };
        if keyframe {
            for r in &self.records {
                if let Record::Absolute(s) = r {
                    self.next.push(Live::absolute(*s));
                }
            }
        } else {
            let mut li = self.live.iter().peekable();
            let mut ri = self.records.iter().peekable();
            loop {
                match (li.peek(), ri.peek()) {
                    (None, None) => break,
                    (Some(l), r) if r.is_none_or(|r| l.s.id < r.id()) => {
                        self.next.push(record::advance(l).map_err(|e| bad(l.s.id, e))?);
                        li.next();
                    }
                    (l, Some(r)) if l.is_none_or(|l| r.id() < l.s.id) => {
                        match r {
                            Record::Absolute(s) => self.next.push(Live::absolute(*s)),
                            Record::Remove { id } => return Err(bad(*id, "remove record for an entity that is not in the world".into())),
                            Record::Delta(d) => return Err(bad(d.id, "delta record for an entity that is not in the world".into())),
                        }
                        ri.next();
                    }
                    (Some(l), Some(r)) => {
                        match r {
                            Record::Absolute(s) => self.next.push(Live::absolute(*s)),
                            Record::Remove { .. } => {}
                            Record::Delta(d) => self.next.push(record::apply_delta(l, d).map_err(|e| bad(d.id, e))?),
                        }
                        li.next();
                        ri.next();
                    }
                    _ => break,
                }
            }
        }
        if self.next.len() > self.limits.max_live_entities {
            return Err(Error::TooManyEntities { chunk_at: at, tick, count: self.next.len() as u64, max: self.limits.max_live_entities as u64 });
        }
        std::mem::swap(&mut self.live, &mut self.next);
        Ok(())
    }
}
