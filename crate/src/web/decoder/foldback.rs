//! The `.foldback` divergence view exported to the worker (`FoldbackView`, feature `foldback`: only
//! the decoder-foldback build has it). Its JSON goes through serde_json (docs/format/foldback.md §8.1
//! and "Browser view").

use super::{tick_of, DecoderSession};
use crate::format::foldback::{
    diverge::{Bytes as FbBytes, Comparison, Source as FbSource},
    index::Index as FbIndex,
    live::{Control as FbControl, LiveRecording},
    Limits as FbLimits,
};
use crate::web::js_error;
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

impl FoldbackView {
    fn cmp(&mut self) -> &Comparison {
        if self.cmp.is_none() {
            let c = if let Some(live) = &self.live {
                Comparison::with_limits(&[FbSource { label: String::new(), index: live.index() }], self.limits.clone())
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
        serde_json::to_string(&self.cmp().timeline(tick_of(from), tick_of(to), limit as usize)).map_err(js_error)
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
        serde_json::to_string(&self.cmp().reads_for_span(tick_of(from), tick_of(to))).map_err(js_error)
    }

    #[wasm_bindgen(js_name = tickDetailJson)]
    pub fn tick_detail_json(&mut self, tick: f64, meta: &[f64], data: &[u8]) -> Result<String, JsValue> {
        let t = tick_of(tick);
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
        let t = tick_of(tick);
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
        let (a, b) = (tick_of(from), tick_of(to));
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
        serde_json::to_string(&serde_json::json!({"accepted": ok, "refused": bad, "errors": errors})).map_err(js_error)
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
