//! The JS views of the model the decoder session hands the worker: plain objects and arrays built
//! with js_sys (Object/Array/Reflect) instead of serde_json, so the decoder wasm carries no JSON
//! serializer and the worker needs no JSON.parse. The shapes are those of the model's serde derives
//! (the native `json` feature: CLI dumps, golden .jsonl fixtures), which tests/e2e/decoder.test.mjs
//! compares against the golden dumps field for field; docs/worker-protocol.md names them.

use wasm_bindgen::prelude::*;

use crate::format::Session;
use crate::model::{Event, EventBody, RecordingInfo, WorldKind};

/// A plain JS object under construction.
pub(super) struct Obj(js_sys::Object);

impl Obj {
    pub(super) fn new() -> Obj {
        Obj(js_sys::Object::new())
    }
    pub(super) fn set(self, key: &str, value: impl Into<JsValue>) -> Obj {
        // Reflect.set on a fresh plain object cannot fail (no setters, not frozen).
        let _ = js_sys::Reflect::set(&self.0, &JsValue::from_str(key), &value.into());
        self
    }
    /// u64 → a JS number, as JSON.parse of serde_json's digits gives (exact below 2^53).
    pub(super) fn num(self, key: &str, v: u64) -> Obj {
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
pub(super) fn info_js(i: &RecordingInfo) -> JsValue {
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

pub(super) fn events_js(events: &[Event]) -> js_sys::Array {
    array(events, event_js)
}

/// What `DecoderSession.info()` returns: `{info, durationS, fileLen, chunks: [{offset, len,
/// firstTick}], markers: [Event], markersComplete}` (docs/worker-protocol.md).
pub(super) fn recording_js(session: &Session, info: &RecordingInfo) -> JsValue {
    let chunks = array(session.chunks(), |c| {
        Obj::new().num("offset", c.offset).num("len", c.len).num("firstTick", c.first_tick).into()
    });
    let (markers, markers_complete) = session.markers();
    Obj::new()
        .set("info", info_js(info))
        .set("durationS", info.duration_s())
        .num("fileLen", session.file_len())
        .set("chunks", chunks)
        .set("markers", events_js(markers))
        .set("markersComplete", markers_complete)
        .into()
}
