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

use wasm_bindgen::prelude::*;

use super::js_error;
use crate::format::{OpenStep, Session};
use crate::model::{pack_entities, DecodedChunk, Event, RecordingInfo};

/// A replay being opened / played in the worker.
#[wasm_bindgen]
pub struct DecoderSession {
    session: Session,
    /// The range asked for last and not yet fed; `None` once open (or after a failed step).
    pending: Option<(u64, u64)>,
    /// The message of the error that ended the open, if any (later calls repeat it).
    failed: Option<String>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ChunkJson {
    offset: u64,
    len: u64,
    first_tick: u64,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct InfoJson<'a> {
    info: &'a RecordingInfo,
    duration_s: f64,
    file_len: u64,
    chunks: Vec<ChunkJson>,
    markers: &'a [Event],
    markers_complete: bool,
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

    /// The recording as JSON: `{info, durationS, fileLen, chunks: [{offset, len, firstTick}],
    /// markers: [Event], markersComplete}` (see docs/worker-protocol.md).
    #[wasm_bindgen(js_name = infoJson)]
    pub fn info_json(&self) -> Result<String, JsValue> {
        let info = self.session.info().ok_or_else(|| js_error("the replay is not open yet"))?;
        let chunks = (0..self.session.chunk_count())
            .filter_map(|i| {
                let (offset, len) = self.session.chunk_range(i)?;
                let first_tick = self.session.chunk_first_tick(i)?;
                Some(ChunkJson { offset, len, first_tick })
            })
            .collect();
        let (markers, markers_complete) = self.session.markers();
        let out = InfoJson { duration_s: info.duration_s(), info: &info, file_len: self.session.file_len(), chunks, markers, markers_complete };
        serde_json::to_string(&out).map_err(js_error)
    }

    #[wasm_bindgen(js_name = chunkCount)]
    pub fn chunk_count(&self) -> u32 {
        u32::try_from(self.session.chunk_count()).unwrap_or(u32::MAX)
    }

    /// `Float64Array [offset, len]` of chunk `i` in the file. Throws for an unknown chunk.
    #[wasm_bindgen(js_name = chunkRange)]
    pub fn chunk_range(&self, i: f64) -> Result<Vec<f64>, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        let (o, l) = self.session.chunk_range(idx).ok_or_else(|| js_error(format!("no chunk {idx} (the replay has {})", self.session.chunk_count())))?;
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
        let t = if tick.is_finite() && tick > 0.0 { tick as u64 } else { 0 };
        u32::try_from(self.session.chunk_for_tick(t)).unwrap_or(u32::MAX)
    }

    /// Decodes chunk `i` from the bytes of `chunkRange(i)`. Throws the reader's error.
    #[wasm_bindgen(js_name = decodeChunk)]
    pub fn decode_chunk(&mut self, i: f64, bytes: &[u8]) -> Result<DecodedChunkJs, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        let c = self.session.decode_chunk(idx, bytes).map_err(js_error)?;
        DecodedChunkJs::from_chunk(&c)
    }
}

/// A decoded chunk in shapes the worker can post as transferable buffers. Each getter copies out
/// of wasm memory into a fresh typed array (whose buffer the worker then transfers).
#[wasm_bindgen]
pub struct DecodedChunkJs {
    ticks: Vec<f64>,
    offsets: Vec<u32>,
    entities: Vec<i32>,
    events_json: String,
    skipped_events: u32,
}

impl DecodedChunkJs {
    fn from_chunk(c: &DecodedChunk) -> Result<DecodedChunkJs, JsValue> {
        let mut entities = Vec::new();
        pack_entities(&c.entities, &mut entities);
        Ok(DecodedChunkJs {
            ticks: c.ticks.iter().map(|&t| t as f64).collect(),
            offsets: c.offsets.clone(),
            entities,
            events_json: serde_json::to_string(&c.events).map_err(js_error)?,
            skipped_events: c.skipped_events,
        })
    }
}

#[wasm_bindgen]
impl DecodedChunkJs {
    /// `Float64Array`: the tick of each decoded tick.
    pub fn ticks(&self) -> Vec<f64> {
        self.ticks.clone()
    }
    /// `Uint32Array` (len ticks + 1): entity (not i32) index ranges per tick into `entities`.
    pub fn offsets(&self) -> Vec<u32> {
        self.offsets.clone()
    }
    /// `Int32Array`: every tick's entities packed, 16 i32 per entity (model/frame.rs).
    pub fn entities(&self) -> Vec<i32> {
        self.entities.clone()
    }
    /// JSON array of the chunk's events (`{tick, kind, ...}`).
    #[wasm_bindgen(js_name = eventsJson)]
    pub fn events_json(&self) -> String {
        self.events_json.clone()
    }
    #[wasm_bindgen(js_name = skippedEvents)]
    pub fn skipped_events(&self) -> u32 {
        self.skipped_events
    }
}
