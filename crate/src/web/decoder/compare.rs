//! `CompareSession`: two recordings compared tick by tick in the compare worker (www/compare-worker.ts),
//! a thin wasm-bindgen wrapper around the sans-IO [`Comparison`] (format/compare.rs): the worker
//! asks [`CompareSession::want`] for `[side, offset, len]`, reads that range of file A (side 0) or B
//! (side 1) with `Blob.slice` and hands it to [`CompareSession::feed`] until `want()` returns
//! `undefined`; then [`CompareSession::outcome`] is the answer. It is in the decoder_spark build only
//! (it reads `.flrep` and SparkEngine `.replay` alike), which the page fetches on the first Compare:
//! the first-load decoder does not carry it. Shapes: docs/worker-protocol.md "The compare worker".

use wasm_bindgen::prelude::*;

use super::super::js_error;
use super::shapes::{info_js, Obj};
use crate::format::compare::Comparison;
use crate::format::Limits;
use crate::model::compare::{Outcome, Presence, Side};

/// Two recordings being compared.
#[wasm_bindgen]
pub struct CompareSession {
    cmp: Comparison,
}

fn len_of(v: f64, what: &str) -> Result<u64, JsValue> {
    if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= 9.0e15 {
        Ok(v as u64)
    } else {
        Err(js_error(format!("{what} must be a non-negative integer, got {v}")))
    }
}

const fn side_of(s: Side) -> f64 {
    match s {
        Side::A => 0.0,
        Side::B => 1.0,
    }
}

#[wasm_bindgen]
impl CompareSession {
    /// `new CompareSession(lengthA, lengthB)`: starts opening file A, then B.
    #[wasm_bindgen(constructor)]
    pub fn new(length_a: f64, length_b: f64) -> Result<CompareSession, JsValue> {
        let cmp = Comparison::new(len_of(length_a, "length A")?, len_of(length_b, "length B")?, Limits::default())
            .map_err(js_error)?;
        Ok(CompareSession { cmp })
    }

    /// `Float64Array [side, offset, len]` (side 0: A, 1: B) of the range to read next, or
    /// `undefined` when the outcome is known.
    pub fn want(&self) -> Option<Vec<f64>> {
        self.cmp.want().map(|w| vec![side_of(w.side), w.offset as f64, w.len as f64])
    }

    /// Hands over the bytes of `want()`'s range. Throws the reader's error, prefixed by its side ("A: …").
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.cmp.feed(bytes).map_err(js_error)
    }

    /// `{ticks, lastTick, chunksDone: [a, b], chunks: [a, b]}`: ticks compared equal so far.
    pub fn progress(&self) -> JsValue {
        let p = self.cmp.progress();
        let pair = |[a, b]: [usize; 2]| js_sys::Array::of2(&(a as f64).into(), &(b as f64).into());
        Obj::new()
            .num("ticks", p.ticks)
            .set("lastTick", p.last_tick.map_or(JsValue::NULL, |t| (t as f64).into()))
            .set("chunksDone", pair(p.chunks_done))
            .set("chunks", pair(p.chunks))
            .into()
    }

    /// The recording of side 0 (A) or 1 (B) once open (`RecordingInfo`'s shape, as `DecoderSession.info().info`), or `null`.
    pub fn info(&self, side: f64) -> JsValue {
        let s = if side == 1.0 { Side::B } else { Side::A };
        self.cmp.info(s).map_or(JsValue::NULL, info_js)
    }

    /// The outcome once `want()` is `undefined` (else `null`): `{kind: 'identical', ticks, lastTick,
    /// lastTickB}`, `{kind: 'diverged', identicalTicks, tickA, tickB, hashA, hashB (16 hex digits,
    /// as replay hash prints them), entities: [{id, presence: 'both'|'onlyA'|'onlyB', fields:
    /// [{field, a, b}]}], entitiesDiffering}`, `{kind: 'shorter', ticks, lastTick (or null), ended:
    /// 'A'|'B', nextTick}` or `{kind: 'mismatched', reasons: [string]}`.
    pub fn outcome(&self) -> JsValue {
        let Some(o) = self.cmp.outcome() else { return JsValue::NULL };
        match o {
            Outcome::Identical { ticks, last_tick, last_tick_b } => Obj::new()
                .set("kind", "identical")
                .num("ticks", *ticks)
                .num("lastTick", *last_tick)
                .num("lastTickB", *last_tick_b)
                .into(),
            Outcome::Diverged(d) => {
                let entities = js_sys::Array::new();
                for e in &d.entities {
                    let fields = js_sys::Array::new();
                    for f in &e.fields {
                        fields.push(&Obj::new().set("field", f.field).set("a", f.a as f64).set("b", f.b as f64).into());
                    }
                    let presence = match e.presence {
                        Presence::Both => "both",
                        Presence::OnlyA => "onlyA",
                        Presence::OnlyB => "onlyB",
                    };
                    entities.push(&Obj::new().set("id", e.id).set("presence", presence).set("fields", fields).into());
                }
                Obj::new()
                    .set("kind", "diverged")
                    .num("identicalTicks", d.identical_ticks)
                    .num("tickA", d.tick_a)
                    .num("tickB", d.tick_b)
                    .set("hashA", format!("{:016x}", d.hash_a))
                    .set("hashB", format!("{:016x}", d.hash_b))
                    .set("entities", entities)
                    .set("entitiesDiffering", d.entities_differing as f64)
                    .into()
            }
            Outcome::Shorter { ticks, last_tick, ended, next_tick } => Obj::new()
                .set("kind", "shorter")
                .num("ticks", *ticks)
                .set("lastTick", last_tick.map_or(JsValue::NULL, |t| (t as f64).into()))
                .set("ended", ended.name())
                .num("nextTick", *next_tick)
                .into(),
            Outcome::Mismatched { reasons } => {
                let r = js_sys::Array::new();
                for s in reasons {
                    r.push(&JsValue::from_str(s));
                }
                Obj::new().set("kind", "mismatched").set("reasons", r).into()
            }
        }
    }
}
