//! Replay clips and conversions without I/O (docs/export.md "Replay clips"): a tick range of an
//! opened recording re-encoded with a format's own streaming writer, fed chunk by chunk. `.flrep`
//! from any recording ([`Clip::flrep`]), SparkEngine `.replay` from a flat world ([`Clip::spark`]).
//! The native drivers (`crate::io::convert`) and the export worker's wasm
//! (`crate::web::decoder::export`) both feed decoded chunks to it, so the bytes are the same.

use crate::format::flrep::header::Sections;
use crate::format::flrep::writer::{
    default_header, WriteError, Writer as FlrepWriter, WriterOptions, MAX_KEYFRAME_INTERVAL, MIN_KEYFRAME_INTERVAL,
};
use crate::format::spark::{map, SparkEntity, SparkEvent, Writer as SparkWriter};
use crate::format::SessionError;
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

/// A clip in the recording's own format (`.flrep` → `.flrep`, SparkEngine → `.replay`).
pub enum Clip<W: Write + Seek> {
    Flrep(Box<FlrepClip<W>>),
    Spark(Box<SparkClip<W>>),
}

impl<W: Write + Seek> Clip<W> {
    /// The ticks `from..=to` of the recording `info` in its own format.
    pub fn same_format(info: &RecordingInfo, sink: W, from: u64, to: u64) -> Result<Self, ConvertError> {
        match info.format {
            FormatKind::Flrep => Ok(Clip::Flrep(Box::new(FlrepClip::new(info, sink, from, to)))),
            FormatKind::SparkReplay => Ok(Clip::Spark(Box::new(SparkClip::new(info, sink, from, to)?))),
            FormatKind::Foldback => Err(ConvertError::Unsupported("a .foldback holds no entity states to clip".into())),
        }
    }

    /// The sink, for a driver that hands its bytes on as they are written (`None` before a
    /// `.flrep` clip's first chunk... and after, never).
    pub fn sink_mut(&mut self) -> Option<&mut W> {
        match self {
            Clip::Flrep(c) => c.sink_mut(),
            Clip::Spark(c) => Some(c.sink_mut()),
        }
    }

    /// Writes the ticks of `c` that are in the range.
    pub fn chunk(&mut self, c: &DecodedChunk) -> Result<(), ConvertError> {
        match self {
            Clip::Flrep(f) => f.chunk(c),
            Clip::Spark(s) => s.chunk(c),
        }
    }

    /// Finishes the file; returns the sink and notes on what the target format could not keep.
    pub fn finish(self) -> Result<(W, Vec<String>), ConvertError> {
        match self {
            Clip::Flrep(f) => f.finish(),
            Clip::Spark(s) => s.finish(),
        }
    }
}

/// A `.flrep` being written from the ticks `from..=to` of the chunks fed to [`FlrepClip::chunk`]
/// (in file order; ticks outside the range are skipped): the sections kept, a keyframe at the
/// range's first tick, its events, ticks keeping their numbers, a fresh index trailer. A `.flrep`
/// keeps its keyframe interval; another format gets one of about [`CHUNK_SECONDS`] from its first
/// chunk (so the writer is made there).
pub struct FlrepClip<W: Write> {
    info: RecordingInfo,
    from: u64,
    to: u64,
    sink: Option<W>,
    w: Option<FlrepWriter<W>>,
}

impl<W: Write> FlrepClip<W> {
    pub fn new(info: &RecordingInfo, sink: W, from: u64, to: u64) -> Self {
        FlrepClip { info: info.clone(), from, to, sink: Some(sink), w: None }
    }

    /// The sink (bytes written so far are in it).
    pub fn sink_mut(&mut self) -> Option<&mut W> {
        match &mut self.w {
            Some(w) => Some(w.sink_mut()),
            None => self.sink.as_mut(),
        }
    }

    /// Writes the ticks of `c` that are in the range.
    pub fn chunk(&mut self, c: &DecodedChunk) -> Result<(), ConvertError> {
        if self.w.is_none() {
            self.w = Some(flrep_writer(&self.info, self.sink.take(), c)?);
        }
        let (from, to) = (self.from, self.to);
        let Some(w) = self.w.as_mut() else { return Ok(()) };
        c.for_each_tick(from, to, |tick, states, events| w.tick(tick, states, events))?;
        Ok(())
    }

    /// Writes the last chunk and the trailer; returns the sink and notes.
    pub fn finish(self) -> Result<(W, Vec<String>), ConvertError> {
        let info = &self.info;
        let mut notes: Vec<String> = info.warnings.iter().map(|w| format!("source: {w}")).collect();
        let w = match self.w {
            Some(w) => w,
            None => flrep_writer(info, self.sink, &DecodedChunk::default())?,
        };
        if info.format == FormatKind::SparkReplay {
            notes.push("SparkEngine frameNumber values are not kept (ticks are the timestamps in milliseconds); the header's duration is kept as metadata".into());
        }
        Ok((w.finish()?, notes))
    }
}

/// A SparkEngine `.replay` being written from the ticks `from..=to` (flat worlds only): frames keep
/// their timestamps; the header's duration is the clip's when it is one (patched at the end through
/// `Seek`).
pub struct SparkClip<W: Write + Seek> {
    info: RecordingInfo,
    from: u64,
    to: u64,
    w: SparkWriter<W>,
    duration: Option<f32>,
    lost: Lost,
    last_ms: Option<u64>,
    ents: Vec<SparkEntity>,
    frame_no: u32,
}

impl<W: Write + Seek> SparkClip<W> {
    pub fn new(info: &RecordingInfo, sink: W, from: u64, to: u64) -> Result<Self, ConvertError> {
        if let WorldKind::Planet { radius_m } = info.world {
            return Err(ConvertError::Unsupported(format!(
                "this recording is in a planet-centred world (radius {radius_m} m); SparkEngine replays are flat maps, and its positions do not fit their ±2,097 km range"
            )));
        }
        let meta = |k: &str| info.metadata.iter().find(|(mk, _)| mk == k).map(|(_, v)| v.clone());
        let map_name = meta("map").unwrap_or_else(|| info.mission_id.clone());
        let game_mode = meta("mode").unwrap_or_default();
        let whole = from <= info.first_tick && to >= info.last_tick;
        let duration = if whole {
            meta("duration").and_then(|d| d.parse::<f32>().ok())
        } else {
            Some(
                (to.min(info.last_tick).saturating_sub(from.max(info.first_tick)) as f64
                    / f64::from(info.tick_rate_hz.max(1))) as f32,
            )
        };
        let w = SparkWriter::new(sink, &map_name, &game_mode)?;
        Ok(SparkClip {
            info: info.clone(),
            from,
            to,
            w,
            duration,
            lost: Lost::default(),
            last_ms: None,
            ents: Vec::new(),
            frame_no: 0,
        })
    }

    /// The sink (bytes written so far are in it; the header is patched at the end).
    pub fn sink_mut(&mut self) -> &mut W {
        self.w.sink_mut()
    }

    /// Writes the ticks of `c` that are in the range.
    pub fn chunk(&mut self, c: &DecodedChunk) -> Result<(), ConvertError> {
        let info = &self.info;
        let (pq, vq) = (info.position_quantum_m, info.velocity_quantum_mps);
        let (w, lost, last_ms, ents, frame_no) =
            (&mut self.w, &mut self.lost, &mut self.last_ms, &mut self.ents, &mut self.frame_no);
        c.for_each_tick(self.from, self.to, |tick, states, events| -> Result<(), ConvertError> {
            for e in events {
                w.event(spark_event(e, states, info, lost))?;
            }
            let ts = map::tick_to_timestamp(tick, info.tick_rate_hz);
            let ms = map::timestamp_to_tick(ts).map_err(|r| ConvertError::Unsupported(format!("tick {tick}: {r}")))?;
            if last_ms.is_some_and(|l| ms <= l) {
                lost.ticks_merged += 1;
                return Ok(());
            }
            *last_ms = Some(ms);
            ents.clear();
            ents.extend(states.iter().map(|st| map::entity_to_spark(st, pq, vq)));
            w.frame(ts, *frame_no, ents)?;
            *frame_no = frame_no.wrapping_add(1);
            Ok(())
        })
    }

    /// Writes the events and patches the header; returns the sink and notes on what was lost.
    pub fn finish(self) -> Result<(W, Vec<String>), ConvertError> {
        let notes = spark_notes(&self.info, &self.lost);
        Ok((self.w.finish(self.duration)?, notes))
    }
}

fn flrep_writer<W: Write>(
    info: &RecordingInfo,
    sink: Option<W>,
    first: &DecodedChunk,
) -> Result<FlrepWriter<W>, ConvertError> {
    let sink = sink.ok_or_else(|| ConvertError::Read(SessionError::Usage("the clip's sink is gone".into())))?;
    let keep = info.format == FormatKind::Flrep
        && (MIN_KEYFRAME_INTERVAL..=MAX_KEYFRAME_INTERVAL).contains(&info.keyframe_interval_ticks);
    let interval = if keep { info.keyframe_interval_ticks } else { keyframe_interval_for(first, info.tick_rate_hz) };
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
    Ok(FlrepWriter::new(
        sink,
        &h,
        &sections,
        WriterOptions { keyframe_interval_ticks: interval, ..Default::default() },
    )?)
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

/// What a SparkEngine `.replay` of `info` could not keep.
fn spark_notes(info: &RecordingInfo, lost: &Lost) -> Vec<String> {
    let (pq, vq) = (info.position_quantum_m, info.velocity_quantum_mps);
    let mut notes = Vec::new();
    // A SparkEngine reader gives each entity the side `faction_of(id)` and knows the "player" and
    // "explosion" types by their indices: what it would rebuild is not lost.
    let own_sides = info.participants.iter().all(|p| p.faction == map::faction_of(p.entity));
    if info.factions.len() > 1 && !own_sides {
        let names: Vec<&str> = info.factions.iter().map(|f| f.display_name.as_str()).collect();
        notes.push(format!("factions are not kept ({}: {})", names.len(), names.join(", ")));
    }
    let named = info.participants.iter().filter(|p| p.callsign != format!("Player {}", p.entity)).count();
    if named > 0 {
        notes.push(format!("roster callsigns are not kept ({named} participants)"));
    }
    let spark_type = |t: &crate::model::EntityType| {
        (t.index == map::PLAYER_TYPE && t.id == "player") || (t.index == map::EXPLOSION_TYPE && t.id == "explosion")
    };
    if !info.entity_types.iter().all(spark_type) {
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
    notes
}
