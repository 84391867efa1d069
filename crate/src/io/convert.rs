//! Conversions between formats, through the model: any opened [`Session`] → `.flrep`, and any
//! flat-world [`Session`] → SparkEngine `.replay`. Each returns notes saying what did not survive.

use super::{read_chunk, ReadAt};
use crate::format::flrep::header::Sections;
use crate::format::flrep::writer::{
    default_header, WriteError, Writer as FlrepWriter, WriterOptions, MAX_KEYFRAME_INTERVAL, MIN_KEYFRAME_INTERVAL,
};
use crate::format::spark::{map, SparkEvent, Writer as SparkWriter};
use crate::format::{Session, SessionError};
use crate::model::{DecodedChunk, EntityState, Event, EventBody, FormatKind, RecordingInfo, WorldKind};
use std::io::{Seek, Write};

#[derive(Debug)]
pub enum ConvertError {
    Read(SessionError),
    Write(WriteError),
    /// The recording cannot be expressed in the target format.
    Unsupported(String),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Read(e) => write!(f, "{e}"),
            ConvertError::Write(e) => write!(f, "{e}"),
            ConvertError::Unsupported(m) => f.write_str(m),
        }
    }
}
impl std::error::Error for ConvertError {}

impl From<SessionError> for ConvertError {
    fn from(e: SessionError) -> Self {
        ConvertError::Read(e)
    }
}
impl From<WriteError> for ConvertError {
    fn from(e: WriteError) -> Self {
        ConvertError::Write(e)
    }
}

/// Seconds of recording per `.flrep` chunk when converting.
pub const CHUNK_SECONDS: f64 = 2.0;

/// The keyframe interval (ticks *written* per chunk) that makes a chunk about [`CHUNK_SECONDS`]
/// long, from the median spacing of the ticks in `c`.
pub fn keyframe_interval_for(c: &DecodedChunk, tick_rate_hz: u32) -> u32 {
    let mut gaps: Vec<u64> = c.ticks.windows(2).filter_map(|w| Some(w.get(1)? - w.first()?)).collect();
    gaps.sort_unstable();
    let gap = gaps.get(gaps.len() / 2).copied().unwrap_or(1).max(1);
    let per_chunk = (CHUNK_SECONDS * f64::from(tick_rate_hz) / gap as f64).round();
    (per_chunk as u32).clamp(MIN_KEYFRAME_INTERVAL, MAX_KEYFRAME_INTERVAL)
}

fn info_of(s: &Session) -> Result<RecordingInfo, ConvertError> {
    s.info().ok_or_else(|| ConvertError::Read(SessionError::Usage("the session is not open".into())))
}

/// Writes the recording of `s` as a `.flrep` (same quanta, tick rate and world; metadata in
/// section 0x0005). Returns the sink and notes.
pub fn to_flrep<R: ReadAt, W: Write>(s: &mut Session, src: &mut R, sink: W) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    let mut notes: Vec<String> = info.warnings.iter().map(|w| format!("source: {w}")).collect();
    let first = read_chunk(s, src, 0)?;
    let interval = keyframe_interval_for(&first, info.tick_rate_hz);
    let mut h = default_header(
        &info.engine_version,
        info.tick_rate_hz,
        match info.world {
            WorldKind::Planet { radius_m } => radius_m,
            WorldKind::Flat => 0.0,
        },
    );
    h.position_quantum_m = info.position_quantum_m;
    h.velocity_quantum_mps = info.velocity_quantum_mps;
    h.mission_id = info.mission_id.clone();
    h.start_unix_seconds = info.start_unix_seconds;
    h.session_flags = info.session_flags;
    let sections = Sections {
        entity_types: info.entity_types.clone(),
        factions: info.factions.clone(),
        participants: info.participants.clone(),
        mission_objects: info.mission_objects.clone(),
        metadata: info.metadata.clone(),
        skipped: Vec::new(),
    };
    let mut w = FlrepWriter::new(
        sink,
        &h,
        &sections,
        WriterOptions { keyframe_interval_ticks: interval, ..Default::default() },
    )?;
    let mut chunk = Some(first);
    for i in 0..s.chunk_count() {
        let c = match chunk.take() {
            Some(c) => c,
            None => read_chunk(s, src, i)?,
        };
        let mut next = 0usize;
        for (k, tick) in c.ticks.iter().enumerate() {
            let last = k + 1 == c.ticks.len();
            let from = next;
            while c.events.get(next).is_some_and(|e| e.tick <= *tick || last) {
                next += 1;
            }
            w.tick(*tick, c.tick_entities(k), c.events.get(from..next).unwrap_or(&[]))?;
        }
    }
    if info.format == FormatKind::SparkReplay {
        notes.push("SparkEngine frameNumber values are not kept (ticks are the timestamps in milliseconds); the header's duration is kept as metadata".into());
    }
    Ok((w.finish()?, notes))
}

#[derive(Default)]
struct Lost {
    data: u64,
    kinds: Vec<(String, u64)>,
    ticks_merged: u64,
}

impl Lost {
    fn kind(&mut self, k: &str) {
        match self.kinds.iter_mut().find(|(n, _)| n == k) {
            Some((_, c)) => *c += 1,
            None => self.kinds.push((k.to_string(), 1)),
        }
    }
}

fn entity_pos(states: &[EntityState], id: u32) -> Option<[i32; 3]> {
    states.binary_search_by_key(&id, |s| s.id).ok().and_then(|i| states.get(i)).map(|s| s.pos)
}

fn spark_event(e: &Event, states: &[EntityState], info: &RecordingInfo, lost: &mut Lost) -> SparkEvent {
    let q = info.position_quantum_m;
    let at = |id: u32| entity_pos(states, id).map(|p| map::position_to_spark(p, q)).unwrap_or([0.0; 3]);
    let timestamp = map::tick_to_timestamp(e.tick, info.tick_rate_hz);
    let (kind, source, target, position) = match &e.body {
        EventBody::Kill { killer, victim, .. } => ("kill".to_string(), *killer, *victim, at(*victim)),
        EventBody::Spawn { entity, .. } => ("spawn".to_string(), *entity, 0, at(*entity)),
        EventBody::Custom { kind, source, target, pos, data } => {
            if !data.is_empty() {
                lost.data += 1;
            }
            (kind.clone(), *source, *target, map::position_to_spark(*pos, q))
        }
        EventBody::Despawn { entity, .. } => {
            lost.kind("despawn");
            ("despawn".to_string(), *entity, 0, at(*entity))
        }
        EventBody::Chat { participant, .. } => {
            lost.kind("chat");
            ("chat".to_string(), *participant, 0, [0.0; 3])
        }
        EventBody::Admin { participant, .. } => {
            lost.kind("admin");
            ("admin".to_string(), *participant, 0, [0.0; 3])
        }
        EventBody::AlertLevel { level } => {
            lost.kind("alert_level");
            ("alert_level".to_string(), u32::from(*level), 0, [0.0; 3])
        }
    };
    SparkEvent { timestamp, kind, source, target, position }
}

/// Writes the recording of `s` as a SparkEngine `.replay` (flat worlds only). Returns the sink and
/// notes on what was lost: factions, roster callsigns, entity types, event fields without a
/// SparkEngine equivalent, sub-millisecond ticks, metadata.
pub fn to_spark<R: ReadAt, W: Write + Seek>(
    s: &mut Session,
    src: &mut R,
    sink: W,
) -> Result<(W, Vec<String>), ConvertError> {
    let info = info_of(s)?;
    if let WorldKind::Planet { radius_m } = info.world {
        return Err(ConvertError::Unsupported(format!(
            "this recording is in a planet-centred world (radius {radius_m} m); SparkEngine replays are flat maps, and its positions do not fit their ±2,097 km range"
        )));
    }
    let meta = |k: &str| info.metadata.iter().find(|(mk, _)| mk == k).map(|(_, v)| v.clone());
    let map_name = meta("map").unwrap_or_else(|| info.mission_id.clone());
    let game_mode = meta("mode").unwrap_or_default();
    let duration = meta("duration").and_then(|d| d.parse::<f32>().ok());
    let mut w = SparkWriter::new(sink, &map_name, &game_mode)?;
    let (pq, vq) = (info.position_quantum_m, info.velocity_quantum_mps);
    let mut lost = Lost::default();
    let mut last_ms: Option<u64> = None;
    let mut ents = Vec::new();
    let mut frame_no = 0u32;
    for i in 0..s.chunk_count() {
        let c = read_chunk(s, src, i)?;
        let mut next = 0usize;
        for (k, tick) in c.ticks.iter().enumerate() {
            let states = c.tick_entities(k);
            let last = k + 1 == c.ticks.len();
            while let Some(e) = c.events.get(next).filter(|e| e.tick <= *tick || last) {
                w.event(spark_event(e, states, &info, &mut lost))?;
                next += 1;
            }
            let ts = map::tick_to_timestamp(*tick, info.tick_rate_hz);
            let ms = map::timestamp_to_tick(ts).map_err(|r| ConvertError::Unsupported(format!("tick {tick}: {r}")))?;
            if last_ms.is_some_and(|l| ms <= l) {
                lost.ticks_merged += 1;
                continue;
            }
            last_ms = Some(ms);
            ents.clear();
            ents.extend(states.iter().map(|st| map::entity_to_spark(st, pq, vq)));
            w.frame(ts, frame_no, &ents)?;
            frame_no = frame_no.wrapping_add(1);
        }
    }
    let mut notes = Vec::new();
    if info.factions.len() > 1 {
        let names: Vec<&str> = info.factions.iter().map(|f| f.display_name.as_str()).collect();
        notes.push(format!("factions are not kept ({}: {})", names.len(), names.join(", ")));
    }
    let named = info.participants.iter().filter(|p| p.callsign != format!("Player {}", p.entity)).count();
    if named > 0 {
        notes.push(format!("roster callsigns are not kept ({named} participants)"));
    }
    if info.entity_types.len() > 1 || info.entity_types.iter().any(|t| t.id != "player") {
        let names: Vec<&str> = info.entity_types.iter().map(|t| t.id.as_str()).collect();
        notes.push(format!("entity types are not kept ({}: {})", names.len(), names.join(", ")));
    }
    for (k, n) in &lost.kinds {
        notes.push(format!("{n} {k} events have no SparkEngine equivalent: written as custom type \"{k}\" with their other fields dropped"));
    }
    if lost.data > 0 {
        notes.push(format!("{} events lost their data field (the SparkEngine file layout has none)", lost.data));
    }
    if lost.ticks_merged > 0 {
        notes.push(format!("{} ticks dropped: less than 1 ms after the tick before (SparkEngine frames are read at millisecond resolution)", lost.ticks_merged));
    }
    let extra: Vec<&str> =
        info.metadata.iter().map(|(k, _)| k.as_str()).filter(|k| !["map", "mode", "duration"].contains(k)).collect();
    if !extra.is_empty() {
        notes.push(format!("metadata not kept: {}", extra.join(", ")));
    }
    if (pq - map::POSITION_QUANTUM_M).abs() > f64::EPSILON || (vq - map::VELOCITY_QUANTUM_MPS).abs() > f64::EPSILON {
        notes.push(format!(
            "quantization: the source's {pq} m / {vq} m/s steps become f32; read back they are quantized to 1/1024 m and 1/256 m/s"
        ));
    }
    if info.tick_rate_hz != map::TICK_RATE_HZ {
        notes.push(format!(
            "ticks at {} Hz become timestamps in seconds (read back as milliseconds)",
            info.tick_rate_hz
        ));
    }
    if info.start_unix_seconds != 0 || info.session_flags != 0 || !info.mission_objects.is_empty() {
        notes.push("start time, session flags and mission objects are not kept".into());
    }
    Ok((w.finish(duration)?, notes))
}
