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
use crate::model::{pack_entities, DecodedChunk, Event, EventBody, RecordingInfo, TickRange, WorldKind};

/// A replay being opened / played in the worker.
#[wasm_bindgen]
pub struct DecoderSession {
    session: Session,
    /// The range asked for last and not yet fed; `None` once open (or after a failed step).
    pending: Option<(u64, u64)>,
    /// The message of the error that ended the open, if any (later calls repeat it).
    failed: Option<String>,
}

// ---------------------------------------------------------------- JS views of the model
// Built with js_sys (Object/Array/Reflect) instead of serde_json: the decoder wasm carries no JSON
// serializer, and the worker needs no JSON.parse. The shapes are those of the model's serde derives
// (the native `json` feature: CLI dumps, golden .jsonl fixtures), which tests/e2e/decoder.test.mjs
// compares against the golden dumps field for field.

/// A plain JS object under construction.
struct Obj(js_sys::Object);

impl Obj {
    fn new() -> Obj {
        Obj(js_sys::Object::new())
    }
    fn set(self, key: &str, value: impl Into<JsValue>) -> Obj {
        // Reflect.set on a fresh plain object cannot fail (no setters, not frozen).
        let _ = js_sys::Reflect::set(&self.0, &JsValue::from_str(key), &value.into());
        self
    }
    /// u64 → a JS number, as JSON.parse of serde_json's digits gives (exact below 2^53).
    fn num(self, key: &str, v: u64) -> Obj {
        self.set(key, v as f64)
    }
}

impl From<Obj> for JsValue {
    fn from(o: Obj) -> JsValue {
        o.0.into()
    }
}

fn array<T>(items: &[T], f: impl Fn(&T) -> JsValue) -> js_sys::Array {
    let a = js_sys::Array::new_with_length(0);
    for x in items {
        a.push(&f(x));
    }
    a
}

fn str_array(items: &[String]) -> js_sys::Array {
    array(items, |s| JsValue::from_str(s))
}

/// `RecordingInfo` as its serde JSON shape (snake_case keys; `world` tagged by `kind`).
fn info_js(i: &RecordingInfo) -> JsValue {
    let format = match i.format {
        crate::model::FormatKind::Flrep => "flrep",
        crate::model::FormatKind::SparkReplay => "spark_replay",
        crate::model::FormatKind::Foldback => "foldback",
    };
    let world = match i.world {
        WorldKind::Planet { radius_m } => Obj::new().set("kind", "planet").set("radius_m", radius_m),
        WorldKind::Flat => Obj::new().set("kind", "flat"),
    };
    Obj::new()
        .set("format", format)
        .set("format_major", i.format_major)
        .set("format_minor", i.format_minor)
        .set("engine_version", i.engine_version.as_str())
        .set("tick_rate_hz", i.tick_rate_hz)
        .set("world", world)
        .set("position_quantum_m", i.position_quantum_m)
        .set("velocity_quantum_mps", i.velocity_quantum_mps)
        .num("start_unix_seconds", i.start_unix_seconds)
        .set("mission_id", i.mission_id.as_str())
        .set("session_flags", i.session_flags)
        .set("keyframe_interval_ticks", i.keyframe_interval_ticks)
        .num("first_tick", i.first_tick)
        .num("last_tick", i.last_tick)
        .set(
            "entity_types",
            array(&i.entity_types, |t| {
                Obj::new()
                    .set("index", t.index)
                    .set("id", t.id.as_str())
                    .set("display_name", t.display_name.as_str())
                    .set("category", t.category.name())
                    .set("projectile_kind", t.projectile_kind)
                    .into()
            }),
        )
        .set(
            "factions",
            array(&i.factions, |f| {
                Obj::new()
                    .set("index", f.index)
                    .set("id", f.id.as_str())
                    .set("display_name", f.display_name.as_str())
                    .into()
            }),
        )
        .set(
            "participants",
            array(&i.participants, |p| {
                Obj::new()
                    .set("id", p.id)
                    .set("callsign", p.callsign.as_str())
                    .set("entity", p.entity)
                    .set("faction", p.faction)
                    .into()
            }),
        )
        .set(
            "mission_objects",
            array(&i.mission_objects, |m| Obj::new().set("object_id", m.object_id).set("entity", m.entity).into()),
        )
        .set(
            "metadata",
            array(&i.metadata, |(k, v)| js_sys::Array::of2(&JsValue::from_str(k), &JsValue::from_str(v)).into()),
        )
        .set("warnings", str_array(&i.warnings))
        .into()
}

/// An `Event` as its serde JSON shape: `{tick, kind, ...fields}` (docs/worker-protocol.md).
fn event_js(e: &Event) -> JsValue {
    let o = Obj::new().num("tick", e.tick);
    match &e.body {
        EventBody::Kill { killer, victim, weapon_type } => {
            o.set("kind", "kill").set("killer", *killer).set("victim", *victim).set("weapon_type", *weapon_type)
        }
        EventBody::Spawn { entity, participant } => {
            o.set("kind", "spawn").set("entity", *entity).set("participant", *participant)
        }
        EventBody::Despawn { entity, reason } => o.set("kind", "despawn").set("entity", *entity).set("reason", *reason),
        EventBody::Chat { participant, channel, text } => {
            o.set("kind", "chat").set("participant", *participant).set("channel", *channel).set("text", text.as_str())
        }
        EventBody::Admin { participant, action, detail } => o
            .set("kind", "admin")
            .set("participant", *participant)
            .set("action", action.as_str())
            .set("detail", detail.as_str()),
        EventBody::AlertLevel { level } => o.set("kind", "alert_level").set("level", *level),
        EventBody::Custom { kind, source, target, pos, data } => o
            .set("kind", "custom")
            .set("type", kind.as_str())
            .set("source", *source)
            .set("target", *target)
            .set("pos", array(pos, |&c| JsValue::from(c)))
            .set("data", data.as_str()),
    }
    .into()
}

fn events_js(events: &[Event]) -> js_sys::Array {
    array(events, event_js)
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
        let chunks = js_sys::Array::new_with_length(0);
        for i in 0..self.session.chunk_count() {
            if let (Some((offset, len)), Some(first_tick)) =
                (self.session.chunk_range(i), self.session.chunk_first_tick(i))
            {
                chunks.push(&Obj::new().num("offset", offset).num("len", len).num("firstTick", first_tick).into());
            }
        }
        let (markers, markers_complete) = self.session.markers();
        Ok(Obj::new()
            .set("info", info_js(&info))
            .set("durationS", info.duration_s())
            .num("fileLen", self.session.file_len())
            .set("chunks", chunks)
            .set("markers", events_js(markers))
            .set("markersComplete", markers_complete)
            .into())
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
        DecodedChunkJs::from_chunk(&c, None)
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
        DecodedChunkJs::from_chunk(&p.chunk, p.end)
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
    entities: Vec<i32>,
    events: js_sys::Array,
    event_ticks: Vec<f64>,
    skipped_events: u32,
    /// Where a piece stopped (`None`: the chunk's end was reached).
    end: Option<u64>,
}

impl DecodedChunkJs {
    fn from_chunk(c: &DecodedChunk, end: Option<u64>) -> Result<DecodedChunkJs, JsValue> {
        let mut entities = Vec::new();
        pack_entities(&c.entities, &mut entities);
        Ok(DecodedChunkJs {
            ticks: c.ticks.iter().map(|&t| t as f64).collect(),
            offsets: c.offsets.clone(),
            entities,
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
        std::mem::take(&mut self.entities)
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

// ---------------------------------------------------------------- .foldback divergence view
// Only in the decoder-foldback build (feature `foldback`); its JSON goes through serde_json.

#[cfg(feature = "foldback")]
pub use foldback_view::FoldbackView;

#[cfg(feature = "foldback")]
mod foldback_view {
    use super::{js_error, DecoderSession};
    use crate::format::foldback::{
        diverge::{Bytes as FbBytes, Comparison, Source as FbSource},
        index::Index as FbIndex,
        live::{Control as FbControl, LiveRecording},
        Limits as FbLimits,
    };
    use wasm_bindgen::prelude::*;

    /// The divergence model over one or more opened `.foldback` files, or over a live connection
    /// (`FoldbackView`, docs/format/foldback.md "Browser view"). The worker reads the byte ranges
    /// `readsJson` names and hands them back (`meta` = `[source, offset, len]…` as a Float64Array,
    /// `data` = those ranges concatenated); for a live recording the view reads its own bytes.
    #[wasm_bindgen]
    pub struct FoldbackView {
        sources: Vec<(String, FbIndex)>,
        live: Option<LiveRecording>,
        cmp: Option<Comparison>,
        /// What the model's reads and a live recording are checked against: those of the sessions
        /// added (the worker opens every session with the default limits).
        limits: FbLimits,
    }

    fn fb_tick(t: f64) -> u64 {
        if t.is_finite() && t > 0.0 {
            t as u64
        } else {
            0
        }
    }

    impl FoldbackView {
        fn cmp(&mut self) -> &Comparison {
            if self.cmp.is_none() {
                let c = if let Some(live) = &self.live {
                    Comparison::with_limits(
                        &[FbSource { label: String::new(), index: live.index() }],
                        self.limits.clone(),
                    )
                } else {
                    let srcs: Vec<FbSource<'_>> =
                        self.sources.iter().map(|(l, ix)| FbSource { label: l.clone(), index: ix }).collect();
                    Comparison::with_limits(&srcs, self.limits.clone())
                };
                self.cmp = Some(c);
            }
            self.cmp.get_or_insert_with(|| Comparison::new(&[]))
        }

        /// Splits `meta`/`data` into the model's byte ranges (live: reads them itself).
        fn with_bytes<R>(
            &mut self,
            from: u64,
            to: u64,
            meta: &[f64],
            data: &[u8],
            f: impl FnOnce(&Comparison, &[FbBytes<'_>]) -> R,
        ) -> R {
            self.cmp();
            let Some(cmp) = self.cmp.as_ref() else {
                return f(&Comparison::new(&[]), &[]);
            };
            let mut out = Vec::new();
            if let Some(live) = &self.live {
                for r in cmp.reads_for_span(from, to) {
                    if let Some(b) = live.read(r.offset, r.len) {
                        out.push(FbBytes { source: r.source, offset: r.offset, bytes: b });
                    }
                }
            } else {
                let mut at = 0usize;
                for m in meta.chunks_exact(3) {
                    let (Some(&s), Some(&o), Some(&l)) = (m.first(), m.get(1), m.get(2)) else {
                        continue;
                    };
                    let l = l.max(0.0) as usize;
                    let Some(end) = at.checked_add(l) else { break };
                    let Some(b) = data.get(at..end) else { break };
                    out.push(FbBytes { source: s.max(0.0) as usize, offset: o.max(0.0) as u64, bytes: b });
                    at = end;
                }
            }
            f(cmp, &out)
        }
    }

    #[derive(serde::Serialize)]
    struct FbExtras {
        metadata: Vec<Vec<(String, String)>>,
        /// Per source: `[tick, peer, compressed_len]` of each snapshot.
        snapshots: Vec<Vec<(u64, u16, u32)>>,
        /// Per source: frames per type and refused-frame messages.
        counts: Vec<crate::format::foldback::index::Counts>,
        frame_errors: Vec<Vec<String>>,
    }

    #[wasm_bindgen]
    impl FoldbackView {
        #[wasm_bindgen(constructor)]
        pub fn new() -> FoldbackView {
            FoldbackView { sources: Vec::new(), live: None, cmp: None, limits: FbLimits::default() }
        }

        /// Adds the index of an open `.foldback` session (throws for other formats).
        #[wasm_bindgen(js_name = addSession)]
        pub fn add_session(&mut self, session: &DecoderSession, label: &str) -> Result<(), JsValue> {
            let ix = session.session.foldback().ok_or_else(|| js_error("this file is not a .foldback session"))?;
            self.sources.push((label.to_owned(), ix.clone()));
            self.limits = session.session.limits().foldback.clone();
            self.cmp = None;
            Ok(())
        }

        /// `summary()` of the model (docs/format/foldback.md §8.1), plus `live` counters.
        #[wasm_bindgen(js_name = summaryJson)]
        pub fn summary_json(&mut self) -> Result<String, JsValue> {
            let mut s = serde_json::to_value(self.cmp().summary()).map_err(js_error)?;
            if let (Some(live), Some(obj)) = (&self.live, s.as_object_mut()) {
                let mut w: Vec<serde_json::Value> =
                    obj.get("warnings").and_then(|w| w.as_array().cloned()).unwrap_or_default();
                for x in live.warnings() {
                    w.push(x.into());
                }
                obj.insert("warnings".into(), w.into());
                obj.insert(
                "live".into(),
                serde_json::json!({"bytes": live.bytes().len(), "refused": live.frames_refused, "notKept": live.frames_not_kept, "goodbye": live.goodbye}),
            );
            }
            serde_json::to_string(&s).map_err(js_error)
        }

        #[wasm_bindgen(js_name = segmentsJson)]
        pub fn segments_json(&mut self) -> Result<String, JsValue> {
            serde_json::to_string(&self.cmp().segments()).map_err(js_error)
        }

        #[wasm_bindgen(js_name = timelineJson)]
        pub fn timeline_json(&mut self, from: f64, to: f64, limit: u32) -> Result<String, JsValue> {
            serde_json::to_string(&self.cmp().timeline(fb_tick(from), fb_tick(to), limit as usize)).map_err(js_error)
        }

        /// Metadata, snapshot sizes and frame counts per source.
        #[wasm_bindgen(js_name = extrasJson)]
        pub fn extras_json(&self) -> Result<String, JsValue> {
            let ixs: Vec<&FbIndex> = match &self.live {
                Some(l) => vec![l.index()],
                None => self.sources.iter().map(|(_, i)| i).collect(),
            };
            let x = FbExtras {
                metadata: ixs.iter().map(|i| i.metadata_text()).collect(),
                snapshots: ixs
                    .iter()
                    .map(|i| i.snapshots.iter().take(100_000).map(|s| (s.tick, s.peer, s.compressed_len)).collect())
                    .collect(),
                counts: ixs.iter().map(|i| i.counts).collect(),
                frame_errors: ixs.iter().map(|i| i.frame_errors.clone()).collect(),
            };
            serde_json::to_string(&x).map_err(js_error)
        }

        /// `[{source, offset, len}]` to read for ticks `from..=to` (empty for a live recording).
        #[wasm_bindgen(js_name = readsJson)]
        pub fn reads_json(&mut self, from: f64, to: f64) -> Result<String, JsValue> {
            if self.live.is_some() {
                return Ok("[]".into());
            }
            serde_json::to_string(&self.cmp().reads_for_span(fb_tick(from), fb_tick(to))).map_err(js_error)
        }

        #[wasm_bindgen(js_name = tickDetailJson)]
        pub fn tick_detail_json(&mut self, tick: f64, meta: &[f64], data: &[u8]) -> Result<String, JsValue> {
            let t = fb_tick(tick);
            let d = self.with_bytes(t, t, meta, data, |c, b| c.tick_detail(t, b));
            serde_json::to_string(&d).map_err(js_error)
        }

        #[wasm_bindgen(js_name = entityDetailJson)]
        pub fn entity_detail_json(
            &mut self,
            tick: f64,
            entity: &str,
            meta: &[f64],
            data: &[u8],
        ) -> Result<String, JsValue> {
            let t = fb_tick(tick);
            let e: u64 = entity.parse().map_err(|_| js_error(format!("entity id {entity:?} is not a u64")))?;
            let d = self.with_bytes(t, t, meta, data, |c, b| c.entity_detail(t, e, b));
            serde_json::to_string(&d).map_err(js_error)
        }

        #[wasm_bindgen(js_name = fieldHistoryJson)]
        pub fn field_history_json(
            &mut self,
            entity: &str,
            field: &str,
            from: f64,
            to: f64,
            meta: &[f64],
            data: &[u8],
        ) -> Result<String, JsValue> {
            let (a, b) = (fb_tick(from), fb_tick(to));
            let e: u64 = entity.parse().map_err(|_| js_error(format!("entity id {entity:?} is not a u64")))?;
            let d = self.with_bytes(a, b, meta, data, |c, bytes| c.field_history(e, field, a, b, bytes));
            serde_json::to_string(&d).map_err(js_error)
        }

        /// A live text message: `hello` starts a new recording (a reconnect is a new session),
        /// `goodbye` is remembered. Returns `{type, …}`; throws on a bad or newer-protocol message.
        #[wasm_bindgen(js_name = liveControl)]
        pub fn live_control(&mut self, text: &str) -> Result<String, JsValue> {
            let c = FbControl::parse(text).map_err(js_error)?;
            match &c {
                FbControl::Hello(h) => {
                    let rec = LiveRecording::from_hello(h, self.limits.clone()).map_err(js_error)?;
                    self.sources.clear();
                    self.live = Some(rec);
                    self.cmp = None;
                }
                FbControl::Goodbye { reason } => {
                    if let Some(l) = &mut self.live {
                        l.goodbye = Some(reason.clone());
                    }
                }
                FbControl::Other { .. } => {}
            }
            Ok(c.to_json())
        }

        /// Binary live messages, concatenated in `data` with their lengths in `lens`; each goes through
        /// `parse_frame`. Returns `{accepted, refused, errors:[first few messages]}`.
        #[wasm_bindgen(js_name = livePush)]
        pub fn live_push(&mut self, data: &[u8], lens: &[u32]) -> Result<String, JsValue> {
            let live = self.live.as_mut().ok_or_else(|| js_error("a binary frame arrived before the hello"))?;
            let (mut ok, mut bad, mut errors, mut at) = (0u32, 0u32, Vec::new(), 0usize);
            for &l in lens {
                let Some(end) = at.checked_add(l as usize) else {
                    break;
                };
                let Some(msg) = data.get(at..end) else { break };
                at = end;
                match live.push(msg) {
                    Ok(_) => ok += 1,
                    Err(e) => {
                        bad += 1;
                        if errors.len() < 4 {
                            errors.push(e.to_string());
                        }
                    }
                }
            }
            self.cmp = None;
            serde_json::to_string(&serde_json::json!({"accepted": ok, "refused": bad, "errors": errors}))
                .map_err(js_error)
        }

        /// The live recording so far as `.foldback` bytes (header from the hello + kept frames).
        #[wasm_bindgen(js_name = liveBytes)]
        pub fn live_bytes(&self) -> Vec<u8> {
            self.live.as_ref().map(|l| l.bytes().to_vec()).unwrap_or_default()
        }
    }

    impl Default for FoldbackView {
        fn default() -> Self {
            Self::new()
        }
    }
}
