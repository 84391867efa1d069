//! The decoder session exported to the Web Worker (`DecoderSession` class, feature `decoder-web`).
//!
//! A thin wasm-bindgen wrapper around the format-agnostic sans-IO [`Session`]: the worker asks
//! [`DecoderSession::want`] which byte range to read, reads it (Blob.slice or an HTTP Range
//! request) and hands it to [`DecoderSession::feed`] until `want()` returns `undefined`; then it
//! reads chunks on demand and decodes them with [`DecoderSession::decode_chunk`]. The wasm never
//! does I/O. The message protocol around it is in docs/worker-protocol.md.
//!
//! Every export that can fail returns a `Result`: errors become JS `Error`s carrying the reader's
//! message (e.g. the version refusal), which the page shows to the player.
//!
//! The JS object shapes it returns (info, events) are built in [`shapes`]; the `.foldback`
//! divergence view (`FoldbackView`, decoder-foldback build only) is in `foldback`.

#[cfg(feature = "spark")]
mod compare;
#[cfg(feature = "export")]
mod export;
#[cfg(feature = "foldback")]
mod foldback;
mod shapes;

#[cfg(feature = "spark")]
pub use compare::CompareSession;

#[cfg(feature = "export")]
pub use export::ExportSession;
#[cfg(feature = "foldback")]
pub use foldback::FoldbackView;

use wasm_bindgen::prelude::*;

use super::js_error;
use crate::format::{OpenStep, Session};
use crate::model::{pack_entities, retain_states, DecodedChunk, EntityState, TickRange};
use shapes::events_js;

/// A replay being opened / played in the worker.
#[wasm_bindgen]
pub struct DecoderSession {
    session: Session,
    /// The range asked for last and not yet fed; `None` once open (or after a failed step).
    pending: Option<(u64, u64)>,
    /// The message of the error that ended the open, if any (later calls repeat it).
    failed: Option<String>,
}

fn usize_of(i: f64, what: &str) -> Result<usize, JsValue> {
    if i.is_finite() && i >= 0.0 && i.fract() == 0.0 && i <= 9.0e15 {
        usize::try_from(i as u64).map_err(|_| js_error(format!("{what} {i} is out of range")))
    } else {
        Err(js_error(format!("{what} must be a non-negative integer, got {i}")))
    }
}

#[wasm_bindgen]
impl DecoderSession {
    /// `new DecoderSession(fileLength)`: starts opening a file of `fileLength` bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(file_length: f64) -> Result<DecoderSession, JsValue> {
        if !(file_length.is_finite() && file_length >= 0.0 && file_length.fract() == 0.0 && file_length <= 9.0e15) {
            return Err(js_error(format!("file length must be a non-negative integer, got {file_length}")));
        }
        let mut session = Session::new(file_length as u64);
        let pending = match session.next(None).map_err(js_error)? {
            OpenStep::Need { offset, len } => Some((offset, len)),
            OpenStep::Ready => None,
        };
        Ok(DecoderSession { session, pending, failed: None })
    }

    /// The byte range the open needs next as `Float64Array [offset, len]`, or `undefined` when the
    /// session is open (or the open failed: `feed` reported the error).
    pub fn want(&self) -> Option<Vec<f64>> {
        self.pending.map(|(o, l)| vec![o as f64, l as f64])
    }

    /// Hands over the bytes of the range from `want()`. Throws the reader's error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        if let Some(m) = &self.failed {
            return Err(js_error(m));
        }
        if self.pending.is_none() {
            return Err(js_error("feed() called but the session is not waiting for bytes"));
        }
        // A short read (a truncated source) is the reader's to judge: it reports it in its words.
        match self.session.next(Some(bytes)) {
            Ok(OpenStep::Need { offset, len }) => {
                self.pending = Some((offset, len));
                Ok(())
            }
            Ok(OpenStep::Ready) => {
                self.pending = None;
                Ok(())
            }
            Err(e) => {
                let m = e.to_string();
                self.pending = None;
                self.failed = Some(m.clone());
                Err(js_error(m))
            }
        }
    }

    /// True once the open has completed.
    #[wasm_bindgen(js_name = isOpen)]
    pub fn is_open(&self) -> bool {
        self.session.is_open()
    }

    /// The recording: `{info, durationS, fileLen, chunks: [{offset, len, firstTick}], markers:
    /// [Event], markersComplete}` as a plain object (see docs/worker-protocol.md).
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let info = self.session.info().ok_or_else(|| js_error("the replay is not open yet"))?;
        Ok(shapes::recording_js(&self.session, &info))
    }

    #[wasm_bindgen(js_name = chunkCount)]
    pub fn chunk_count(&self) -> u32 {
        u32::try_from(self.session.chunk_count()).unwrap_or(u32::MAX)
    }

    /// `Float64Array [offset, len]` of chunk `i` in the file. Throws for an unknown chunk.
    #[wasm_bindgen(js_name = chunkRange)]
    pub fn chunk_range(&self, i: f64) -> Result<Vec<f64>, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        let (o, l) = self
            .session
            .chunk_range(idx)
            .ok_or_else(|| js_error(format!("no chunk {idx} (the replay has {})", self.session.chunk_count())))?;
        Ok(vec![o as f64, l as f64])
    }

    /// First (keyframe) tick of chunk `i`.
    #[wasm_bindgen(js_name = chunkFirstTick)]
    pub fn chunk_first_tick(&self, i: f64) -> Result<f64, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        self.session.chunk_first_tick(idx).map(|t| t as f64).ok_or_else(|| js_error(format!("no chunk {idx}")))
    }

    /// The chunk holding `tick` (the last one starting at or before it; 0 before the first).
    #[wasm_bindgen(js_name = chunkForTick)]
    pub fn chunk_for_tick(&self, tick: f64) -> u32 {
        u32::try_from(self.session.chunk_for_tick(tick_of(tick))).unwrap_or(u32::MAX)
    }

    /// Decodes chunk `i` from the bytes of `chunkRange(i)`. Throws the reader's error.
    #[wasm_bindgen(js_name = decodeChunk)]
    pub fn decode_chunk(&mut self, i: f64, bytes: &[u8]) -> Result<DecodedChunkJs, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        let c = self.session.decode_chunk(idx, bytes).map_err(js_error)?;
        DecodedChunkJs::from_chunk(c, None)
    }

    /// `fork()`: a second session over the same open `.flrep` file (its index and info; a decoder
    /// of its own, holding no chunk), or `undefined` for another format or before the open is done.
    pub fn fork(&self) -> Option<DecoderSession> {
        if self.pending.is_some() || self.failed.is_some() {
            return None;
        }
        self.session.fork().map(|session| DecoderSession { session, pending: None, failed: None })
    }

    /// Whether `decodeRange(i, …)` needs no bytes (pass an empty array then): the decoder holds
    /// chunk `i`'s checked payload and neither reads nor decompresses it again.
    #[wasm_bindgen(js_name = holdsChunk)]
    pub fn holds_chunk(&self, i: f64) -> Result<bool, JsValue> {
        Ok(self.session.holds_chunk(usize_of(i, "chunk index")?))
    }

    /// `decodeRange(i, bytes, from, to, stride, maxStates)`: the ticks `[from, to)` of chunk `i`,
    /// one every `stride` ticks at most, in a piece of about `maxStates` entity states at most
    /// (docs/worker-protocol.md). `end()` of the result is where the piece stopped (the next
    /// range starts there); `complete()` is true when it reached the chunk's end.
    #[wasm_bindgen(js_name = decodeRange)]
    pub fn decode_range(
        &mut self,
        i: f64,
        bytes: &[u8],
        from: f64,
        to: f64,
        stride: f64,
        max_states: f64,
    ) -> Result<DecodedChunkJs, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        let r = TickRange {
            from: tick_of(from),
            to: if to.is_finite() { tick_of(to) } else { u64::MAX },
            stride: tick_of(stride).max(1),
            max_states: if max_states.is_finite() && max_states >= 1.0 { max_states as usize } else { 1 },
        };
        let p = self.session.decode_range(idx, bytes, r).map_err(js_error)?;
        DecodedChunkJs::from_chunk(p.chunk, p.end)
    }
}

/// A tick from JS (a non-negative finite number; anything else is 0).
fn tick_of(t: f64) -> u64 {
    if t.is_finite() && t > 0.0 {
        t as u64
    } else {
        0
    }
}

/// A decoded chunk in shapes the worker can post as transferable buffers. Each array getter hands
/// its array over once (wasm-bindgen copies it into a fresh typed array, whose buffer the worker then
/// transfers, and frees the wasm side); a second call returns an empty array. Handing over instead
/// of cloning keeps one copy of the packed frames in wasm memory, not two (15 MB per chunk at 2,000
/// entities: the decoder's high-water mark).
#[wasm_bindgen]
pub struct DecodedChunkJs {
    ticks: Vec<f64>,
    offsets: Vec<u32>,
    /// Packed by `entities()` (after `keepOnly`, if called).
    states: Vec<EntityState>,
    events: js_sys::Array,
    event_ticks: Vec<f64>,
    skipped_events: u32,
    /// Where a piece stopped (`None`: the chunk's end was reached).
    end: Option<u64>,
}

impl DecodedChunkJs {
    fn from_chunk(c: DecodedChunk, end: Option<u64>) -> Result<DecodedChunkJs, JsValue> {
        Ok(DecodedChunkJs {
            ticks: c.ticks.iter().map(|&t| t as f64).collect(),
            offsets: c.offsets,
            states: c.entities,
            events: events_js(&c.events),
            event_ticks: if c.event_ticks.len() == c.events.len() {
                c.event_ticks.iter().map(|&t| t as f64).collect()
            } else {
                c.events.iter().map(|e| e.tick as f64).collect()
            },
            skipped_events: c.skipped_events,
            end,
        })
    }
}

#[wasm_bindgen]
impl DecodedChunkJs {
    /// `Float64Array`: the tick of each decoded tick.
    pub fn ticks(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.ticks)
    }
    /// `Uint32Array` (len ticks + 1): entity (not i32) index ranges per tick into `entities`.
    pub fn offsets(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.offsets)
    }
    /// `Int32Array`: every tick's entities packed, 16 i32 per entity (model/frame.rs).
    pub fn entities(&mut self) -> Vec<i32> {
        let states = std::mem::take(&mut self.states);
        let mut packed = Vec::new();
        pack_entities(&states, &mut packed);
        packed
    }
    /// `keepOnly(ids)`: before `offsets()` and `entities()`, keeps only the states of the entities
    /// in `ids` (empty: none) in every tick: a reader that follows one or two entities is handed
    /// (and copies out of wasm) only theirs (docs/worker-protocol.md `want`, `entities`).
    #[wasm_bindgen(js_name = keepOnly)]
    pub fn keep_only(&mut self, ids: &[u32]) {
        retain_states(&mut self.states, &mut self.offsets, ids);
    }
    /// The chunk's events: an array of `{tick, kind, ...}` objects.
    pub fn events(&self) -> js_sys::Array {
        self.events.clone()
    }
    /// `Float64Array`, one per event: the tick it was recorded in (a `.flrep` event's own tick may
    /// differ; a piece holds the events recorded in its ticks, which is what the page deduplicates by).
    #[wasm_bindgen(js_name = eventTicks)]
    pub fn event_ticks(&mut self) -> Vec<f64> {
        std::mem::take(&mut self.event_ticks)
    }
    #[wasm_bindgen(js_name = skippedEvents)]
    pub fn skipped_events(&self) -> u32 {
        self.skipped_events
    }
    /// False for a piece from `decodeRange` that stopped before the chunk's end.
    pub fn complete(&self) -> bool {
        self.end.is_none()
    }
    /// Where a `decodeRange` piece stopped: the first tick it does not cover (the chunk's next
    /// tick); `undefined` when it reached the chunk's end (and for `decodeChunk`).
    pub fn end(&self) -> Option<f64> {
        self.end.map(|e| e as f64)
    }
}
