//! Chunks: a 36-byte header and one zstd frame holding one keyframe tick and the delta ticks after it.

use super::error::trunc;
use super::record::{self, Live, Record};
use super::{event, Error, Limits, CHUNK_MAGIC};
use crate::bytes::{Cursor, PutLe};
use crate::format::zstd::Decompressor;
pub use crate::model::{DecodedChunk, Piece, TickRange};

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
            return Err(Error::ChunkTooLarge {
                at: offset,
                field: "compressedLength",
                len: u64::from(h.compressed_len),
                max: u64::from(limits.max_chunk_compressed),
            });
        }
        if h.uncompressed_len > limits.max_chunk_uncompressed {
            return Err(Error::ChunkTooLarge {
                at: offset,
                field: "uncompressedLength",
                len: u64::from(h.uncompressed_len),
                max: u64::from(limits.max_chunk_uncompressed),
            });
        }
        if h.end() > file_len {
            return Err(Error::ChunkBeyondFile { at: offset, end: h.end(), file_len });
        }
        if h.tick_count == 0 || h.last_tick < h.first_tick {
            return Err(Error::ChunkTickMismatch {
                chunk_at: offset,
                reason: format!("tickCount {} with ticks {}..={}", h.tick_count, h.first_tick, h.last_tick),
            });
        }
        // Every tick costs at least TICK_HEADER_LEN decompressed bytes.
        if u64::from(h.tick_count) * TICK_HEADER_LEN as u64 > u64::from(h.uncompressed_len) {
            return Err(Error::ChunkTickMismatch {
                chunk_at: offset,
                reason: format!("tickCount {} cannot fit in {} bytes", h.tick_count, h.uncompressed_len),
            });
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

/// Decodes chunks; owns the reusable zstd decoder. Decoding a range leaves the decoder positioned
/// after it: the next range of the same chunk resumes there without decompressing again (a reader
/// rolls forward from the keyframe, docs/format/flrep.md §6.5; playing on rolls on).
pub struct ChunkDecoder {
    z: Decompressor,
    t: TickDecoder,
    /// The chunk whose decompressed, CRC-checked payload `z` holds (kept between ranges unless it
    /// is large): a range of it that cannot resume rolls forward again from the keyframe without
    /// decompressing (rewinding, a seek back within the chunk).
    held: Option<ChunkHeader>,
}

/// Where the tick decoder stands in the chunk whose payload the decompressor holds.
#[derive(Clone, Copy, Debug)]
struct Position {
    header: ChunkHeader,
    /// Byte offset of the next tick header in the decompressed payload.
    pos: usize,
    /// Ticks consumed so far.
    i: usize,
    /// The last tick consumed: `live` is the world at that tick.
    prev_tick: Option<u64>,
}

/// The tick-record half of chunk decoding (after decompression).
struct TickDecoder {
    limits: Limits,
    live: Vec<Live>,
    next: Vec<Live>,
    at: Option<Position>,
}

/// The range a whole decode asks for: every tick, up to the hard limit on states.
fn whole(limits: &Limits) -> TickRange {
    TickRange { from: 0, to: u64::MAX, stride: 1, max_states: limits.max_chunk_states }
}

impl ChunkDecoder {
    pub fn new(limits: Limits) -> Self {
        ChunkDecoder {
            z: Decompressor::new(),
            t: TickDecoder { limits, live: Vec::new(), next: Vec::new(), at: None },
            held: None,
        }
    }

    /// Decompresses and decodes one whole chunk. `frame` is the compressed frame (the bytes after the
    /// header). On error nothing of the chunk is returned (no partial state).
    pub fn decode(&mut self, h: &ChunkHeader, frame: &[u8]) -> Result<DecodedChunk, Error> {
        self.t.at = None;
        let p = self.decode_range(h, frame, whole(&self.t.limits))?;
        match p.end {
            None => Ok(p.chunk),
            Some(tick) => {
                let count = p.chunk.entities.len() as u64 + self.t.live.len() as u64;
                self.t.at = None;
                Err(Error::TooManyStates { chunk_at: h.offset, tick, count, max: self.t.max_states() })
            }
        }
    }

    /// The header of the chunk this decoder stands in, when it can resume there for a range
    /// starting at `from` (it has not gone past `from`).
    pub fn resumable(&self, chunk_at: u64, from: u64) -> Option<ChunkHeader> {
        self.t.at.filter(|p| p.header.offset == chunk_at && p.prev_tick.is_some_and(|t| t <= from)).map(|p| p.header)
    }

    /// The header of the chunk at `chunk_at` when this decoder holds its checked payload: a range
    /// of it needs no bytes (it resumes, or rolls forward again from the keyframe).
    pub fn holds(&self, chunk_at: u64) -> Option<ChunkHeader> {
        self.held.filter(|h| h.offset == chunk_at)
    }

    /// Decodes the ticks of `r` from chunk `h`: resumes where the last range of the same chunk
    /// stopped when it stopped at or before `r.from`; otherwise rolls forward from the keyframe,
    /// decompressing `frame` (CRC-checked whole) unless the payload is still held. `frame` is not
    /// read when the chunk is held and may then be empty. Every tick read is checked as in a whole
    /// decode; the end of the chunk is checked when reached.
    pub fn decode_range(&mut self, h: &ChunkHeader, frame: &[u8], r: TickRange) -> Result<Piece, Error> {
        if self.resumable(h.offset, r.from).is_none_or(|at| at != *h) {
            self.t.at = None;
            if self.held == Some(*h) {
                self.t.live.clear();
                self.t.at = Some(Position { header: *h, pos: 0, i: 0, prev_tick: None });
            } else {
                self.begin(h, frame)?;
            }
        }
        let len = h.uncompressed_len as usize;
        let data = self.z.output(len);
        let out = self.t.range(data, r);
        if !matches!(out, Ok(Piece { end: Some(_), .. })) {
            // Done with this chunk (its end, or an error): nothing to resume; a large payload is
            // released, a small one kept for a range that starts over.
            self.t.at = None;
            self.z.shrink(4 * 1024 * 1024);
            if self.z.output(len).len() != len {
                self.held = None;
            }
        }
        out
    }

    /// Decompresses and checks the chunk's payload; positions the tick decoder at its start.
    fn begin(&mut self, h: &ChunkHeader, frame: &[u8]) -> Result<(), Error> {
        let at = h.offset;
        self.held = None;
        if frame.len() as u64 != u64::from(h.compressed_len) {
            return Err(Error::ChunkSizeMismatch {
                chunk_at: at,
                declared: u64::from(h.compressed_len),
                actual: frame.len() as u64,
            });
        }
        let expected = h.uncompressed_len as usize;
        let data = self.z.decompress(frame, expected).map_err(|err| Error::Zstd { chunk_at: at, err })?;
        if data.len() != expected {
            return Err(Error::ChunkSizeMismatch {
                chunk_at: at,
                declared: expected as u64,
                actual: data.len() as u64,
            });
        }
        let crc = crc32fast::hash(data);
        if crc != h.crc32 {
            return Err(Error::ChunkChecksum { chunk_at: at, declared: h.crc32, actual: crc });
        }
        self.t.live.clear();
        self.t.at = Some(Position { header: *h, pos: 0, i: 0, prev_tick: None });
        self.held = Some(*h);
        Ok(())
    }
}

impl TickDecoder {
    /// Decodes the range `r` from the current position (see [`ChunkDecoder::decode_range`]).
    fn range(&mut self, data: &[u8], r: TickRange) -> Result<Piece, Error> {
        let Some(mut p) = self.at else {
            return Err(Error::ChunkTickMismatch { chunk_at: 0, reason: "no chunk to decode (internal)".into() });
        };
        let h = p.header;
        let at = h.offset;
        let n = h.tick_count as usize;
        let from = r.from.max(h.first_tick);
        let to = r.to.max(from.saturating_add(1));
        let stride = r.stride.max(1);
        let mut c = Cursor::at(data, 0);
        c.skip(p.pos).map_err(|_| Error::ChunkTickMismatch {
            chunk_at: at,
            reason: "resume position past the payload (internal)".into(),
        })?;
        let mut out = Piece::default();
        out.chunk.offsets.push(0);
        let mut kept: Option<u64> = None;
        // The most ticks this piece can keep: those left (at most one per 14 bytes of tick header),
        // those in the range, thinned by the stride.
        let ticks_hint = ((n - p.i.min(n)) as u64 + 1)
            .min(c.remaining() as u64 / TICK_HEADER_LEN as u64 + 1)
            .min(((to - from) / stride).saturating_add(2));
        let mut past_to = false;
        while p.i < n {
            let tick = match c.rest().get(..8) {
                Some(b) => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
                None => {
                    return Err(Error::BadTick {
                        chunk_at: at,
                        tick: p.prev_tick.unwrap_or(h.first_tick),
                        reason: "chunk data ends inside a tick header".into(),
                    })
                }
            };
            // No tick falls on `from`: the piece starts with the world at the tick before it.
            if kept.is_none() && tick > from {
                if let Some(prev) = p.prev_tick {
                    self.keep(&mut out.chunk, at, prev, r.max_states, ticks_hint)?;
                    kept = Some(prev);
                }
            }
            // The first tick at or past `to` is kept, whatever the stride: the frame after the
            // range's last, which the page interpolates towards. The piece stops after it.
            let keep = tick >= from && (tick >= to || kept.is_none_or(|k| tick.saturating_sub(k) >= stride));
            if past_to
                || (kept.is_some() && tick < to && keep && out.chunk.entities.len() + self.live.len() > r.max_states)
            {
                out.end = Some(tick);
                self.at = Some(p);
                return Ok(out);
            }
            past_to = tick >= to;
            self.tick(&mut c, &h, p.i, p.prev_tick, (tick >= from).then_some(&mut out.chunk))?;
            p.i += 1;
            p.prev_tick = Some(tick);
            p.pos = c.position();
            if keep {
                self.keep(&mut out.chunk, at, tick, r.max_states, ticks_hint)?;
                kept = Some(tick);
            }
        }
        if kept.is_none() {
            // `from` lies past the chunk's last tick: the world at that tick.
            if let Some(prev) = p.prev_tick {
                self.keep(&mut out.chunk, at, prev, r.max_states, ticks_hint)?;
            }
        }
        if !c.is_empty() {
            return Err(Error::ChunkTickMismatch {
                chunk_at: at,
                reason: format!("{} bytes left after the last of {} ticks", c.remaining(), n),
            });
        }
        if p.prev_tick != Some(h.last_tick) {
            return Err(Error::ChunkTickMismatch {
                chunk_at: at,
                reason: format!("last tick {} does not match the header's {}", p.prev_tick.unwrap_or(0), h.last_tick),
            });
        }
        self.at = None;
        Ok(out)
    }

    /// Appends the live world as tick `tick` of `out`.
    /// `ticks_hint`: how many ticks the piece may keep at most (sizes its one reservation).
    fn keep(
        &self,
        out: &mut DecodedChunk,
        at: u64,
        tick: u64,
        max_states: usize,
        ticks_hint: u64,
    ) -> Result<(), Error> {
        if out.ticks.is_empty() {
            // Room for every state this piece will hold, reserved once instead of doubling its way
            // up (12 MB of states for a whole chunk at 2,000 entities: doubling copies it ~20 times
            // and can leave the capacity at 2× the need). Bounded by the ticks the piece can still
            // keep, by its state budget and by the hard limit; entities that spawn later grow it.
            let want = ticks_hint
                .saturating_mul(self.live.len() as u64)
                .min(max_states.saturating_add(self.live.len()) as u64)
                .min(self.max_states());
            out.entities.reserve_exact(usize::try_from(want).unwrap_or(0));
            out.ticks.reserve_exact(usize::try_from(ticks_hint.min(4096)).unwrap_or(0));
        }
        let states = out.entities.len() as u64 + self.live.len() as u64;
        if states > self.max_states() {
            return Err(Error::TooManyStates { chunk_at: at, tick, count: states, max: self.max_states() });
        }
        out.entities.extend(self.live.iter().map(|l| l.s));
        out.ticks.push(tick);
        let len = u32::try_from(out.entities.len()).map_err(|_| Error::BadTick {
            chunk_at: at,
            tick,
            reason: "chunk holds too many entity states".into(),
        })?;
        out.offsets.push(len);
        Ok(())
    }

    /// Reads tick number `i` of the chunk (header, records, events) and applies it to the live
    /// world. Its events go to `events` when given (ticks before a range are read, not kept).
    fn tick(
        &mut self,
        c: &mut Cursor,
        h: &ChunkHeader,
        i: usize,
        prev_tick: Option<u64>,
        events: Option<&mut DecodedChunk>,
    ) -> Result<(), Error> {
        let at = h.offset;
        let bad = |tick: u64, reason: String| Error::BadTick { chunk_at: at, tick, reason };
        let tick = c
            .u64()
            .map_err(|_| bad(prev_tick.unwrap_or(h.first_tick), "chunk data ends inside a tick header".into()))?;
        let flags = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
        let record_count = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
        let event_count = c.u16().map_err(|_| bad(tick, "chunk data ends inside a tick header".into()))?;
        let keyframe = flags & TICK_KEYFRAME != 0;
        if i == 0 && (!keyframe || tick != h.first_tick) {
            return Err(Error::ChunkTickMismatch {
                chunk_at: at,
                reason: format!(
                    "first tick {tick} (keyframe: {keyframe}) does not match the header's keyframe tick {}",
                    h.first_tick
                ),
            });
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
        // Records arrive in ascending ids and are merged into the live set (ascending ids) as they
        // are read: live entities below a record's id advance by prediction alone.
        self.next.clear();
        let mut li = 0usize;
        let mut last_id: Option<u32> = None;
        for _ in 0..record_count {
            let r = record::read(c, last_id).map_err(|(id, reason)| Error::BadRecord {
                chunk_at: at,
                tick,
                entity: id.unwrap_or(u32::MAX),
                reason,
            })?;
            let id = r.id();
            last_id = Some(id);
            if keyframe {
                match r {
                    Record::Absolute(s) => self.next.push(Live::absolute(s)),
                    _ => {
                        return Err(Error::BadRecord {
                            chunk_at: at,
                            tick,
                            entity: id,
                            reason: "a keyframe tick holds a non-absolute record".into(),
                        })
                    }
                }
                continue;
            }
            self.advance_below(at, tick, &mut li, id)?;
            let same = self.live.get(li).filter(|l| l.s.id == id);
            if same.is_some() {
                li += 1;
            }
            let bad = |reason: &str| Error::BadRecord { chunk_at: at, tick, entity: id, reason: reason.into() };
            match (same, r) {
                (_, Record::Absolute(s)) => self.next.push(Live::absolute(s)),
                (Some(_), Record::Remove { .. }) => {}
                (Some(l), Record::Delta(d)) => self.next.push(record::apply_delta(l, &d).map_err(|e| bad(&e))?),
                (None, Record::Remove { .. }) => {
                    return Err(bad("remove record for an entity that is not in the world"))
                }
                (None, Record::Delta(_)) => return Err(bad("delta record for an entity that is not in the world")),
            }
        }
        if !keyframe {
            self.advance_below(at, tick, &mut li, u32::MAX)?;
            // An entity with id u32::MAX and no record this tick.
            if let Some(l) = self.live.get(li) {
                self.next.push(record::advance(l).map_err(|e| Error::BadRecord {
                    chunk_at: at,
                    tick,
                    entity: l.s.id,
                    reason: e,
                })?);
            }
        }
        if self.next.len() > self.limits.max_live_entities {
            return Err(Error::TooManyEntities {
                chunk_at: at,
                tick,
                count: self.next.len() as u64,
                max: self.limits.max_live_entities as u64,
            });
        }
        std::mem::swap(&mut self.live, &mut self.next);
        let mut events = events;
        for _ in 0..event_count {
            match event::read(c, self.limits.max_string) {
                Ok(Some(e)) => {
                    if let Some(out) = events.as_deref_mut() {
                        out.events.push(e);
                        out.event_ticks.push(tick);
                    }
                }
                Ok(None) => {
                    if let Some(out) = events.as_deref_mut() {
                        out.skipped_events += 1;
                    }
                }
                Err(reason) => return Err(bad(tick, reason)),
            }
        }
        Ok(())
    }

    fn max_states(&self) -> u64 {
        self.limits.max_chunk_states as u64
    }

    /// Advances (prediction only: no record this tick) the live entities from `*li` whose ids are
    /// below `id`, into `next`.
    #[inline]
    fn advance_below(&mut self, at: u64, tick: u64, li: &mut usize, id: u32) -> Result<(), Error> {
        while let Some(l) = self.live.get(*li) {
            if l.s.id >= id {
                break;
            }
            self.next.push(record::advance(l).map_err(|e| Error::BadRecord {
                chunk_at: at,
                tick,
                entity: l.s.id,
                reason: e,
            })?);
            *li += 1;
        }
        Ok(())
    }
}
