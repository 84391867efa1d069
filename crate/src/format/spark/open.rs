//! The sans-IO opener: asks for byte ranges, is handed the bytes, and ends with an [`Opened`] file.
//!
//! ```text
//!  Start ──► Head (magic, version, metadata, frameCount: all inside the first 64 KiB read)
//!              │
//!              ▼
//!            Frames (1 MiB reads from the next frame header; each frame's 12-byte header is read
//!              │     and its entityCount × 56 bytes skipped; frames grouped into chunks)
//!              ▼
//!            Events (1 MiB reads: eventCount and every event, kept in memory: kill markers)
//!              │
//!              ▼
//!            Ready
//! ```
//! A file cut inside a frame keeps the complete frames before the cut (with a warning); cut inside
//! frame 0 or the header it is refused. Opening never reads an entity state except those of frame 0
//! (for the participant list, when they lie in a read already made).

use super::map::{self, EXPLOSION_TYPE, PLAYER_TYPE};
use super::{Error, Limits, ENTITY_LEN, FRAME_HEADER_LEN, MAGIC, MAGIC_BIG_ENDIAN, VERSION};
use crate::bytes::{Cursor, Short};
use crate::model::{
    Category, DecodedChunk, EntityType, Event, EventBody, FormatKind, Participant, RecordingInfo, WorldKind, NO_WEAPON,
};

/// The first read (the same as the session's, so the session can replay it).
pub const FIRST_READ: u64 = 64 * 1024;
/// Reads while scanning frames and events.
pub const SCAN_WINDOW: u64 = 1024 * 1024;
/// Reads while scanning frames larger than [`SCAN_WINDOW`] (only their header is wanted).
pub const SMALL_WINDOW: u64 = 64 * 1024;
/// Most frames in one chunk.
pub const CHUNK_FRAMES: u32 = 64;
/// A chunk is closed before it grows past this (unless it would be empty).
pub const CHUNK_BYTES: u64 = 512 * 1024;

/// What the opener wants next.
pub type Step = crate::format::Step<Opened>;

// A chunk is a run of consecutive frames, decoded together: in the table, the offset of its first
// frame header, the bytes of all its frames and its first kept tick.
pub use crate::format::chunks::{ChunkRef, ChunkTable};

/// What the decoder needs of a chunk besides its [`ChunkRef`] (one per chunk, same index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameRun {
    /// Index of its first frame in the file.
    pub first_frame: u64,
    /// Frames in its range (dropped ones included).
    pub frames: u32,
    /// Frames kept (the others have a tick not after the frame before them).
    pub kept: u32,
    pub last_tick: u64,
    /// The last kept tick before this chunk (frames at or before it are dropped).
    pub prev_tick: Option<u64>,
}

/// A recording in SparkEngine's own terms (frames and the record interval, docs/format/spark-replay.md
/// "Opening without loading the file"), beside the model's 1 kHz ticks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameStats {
    /// `frameCount` as the header declares it.
    pub declared: u32,
    /// Complete frames found (fewer than declared when the file was cut).
    pub read: u32,
    /// Frames that play: those read, less the ones dropped for a timestamp not after the frame
    /// before them.
    pub kept: u32,
    /// Timestamps of the first and last frame that play, in seconds.
    pub first_s: f64,
    pub last_s: f64,
    /// Mean time between the frames that play (SparkEngine's record interval, `SetRecordInterval`);
    /// `None` with a single frame.
    pub interval_s: Option<f64>,
}

/// An opened SparkEngine replay.
#[derive(Clone, Debug)]
pub struct Opened {
    pub file_len: u64,
    pub version: u32,
    pub map_name: String,
    pub game_mode: String,
    pub duration: f32,
    /// frameCount as declared.
    pub frame_count: u32,
    /// Frames found complete.
    pub frames_read: u32,
    pub chunks: ChunkTable,
    /// Per chunk, its frames ([`Self::chunks`] says where they are).
    pub runs: Vec<FrameRun>,
    /// Every event, sorted by tick (stable: equal ticks keep file order).
    pub events: Vec<Event>,
    /// Whether the events block was read whole.
    pub events_complete: bool,
    /// Kill events (the markers; complete when [`Self::events_complete`]).
    pub markers: Vec<Event>,
    pub participants: Vec<Participant>,
    pub warnings: Vec<String>,
    pub limits: Limits,
}

impl Opened {
    pub fn first_tick(&self) -> u64 {
        self.chunks.first().map(|c| c.first_tick).unwrap_or(0)
    }
    pub fn last_tick(&self) -> u64 {
        self.runs.last().map(|r| r.last_tick).unwrap_or(0)
    }

    /// Index of the chunk holding `tick` (the last chunk starting at or before it).
    pub fn chunk_for_tick(&self, tick: u64) -> usize {
        self.chunks.for_tick(tick)
    }

    /// Frames and record interval, as SparkEngine counts them.
    pub fn frame_stats(&self) -> FrameStats {
        let kept: u32 = self.runs.iter().map(|r| r.kept).fold(0, u32::saturating_add);
        let hz = f64::from(map::TICK_RATE_HZ);
        let (first, last) = (self.first_tick() as f64 / hz, self.last_tick() as f64 / hz);
        FrameStats {
            declared: self.frame_count,
            read: self.frames_read,
            kept,
            first_s: first,
            last_s: last,
            interval_s: (kept > 1).then(|| (last - first) / f64::from(kept - 1)),
        }
    }

    pub fn info(&self) -> RecordingInfo {
        let span = self.runs.first().map(|r| r.last_tick.saturating_sub(self.first_tick())).unwrap_or(0);
        RecordingInfo {
            format: FormatKind::SparkReplay,
            format_major: u16::try_from(self.version).unwrap_or(u16::MAX),
            format_minor: 0,
            engine_version: format!("SparkEngine replay v{}", self.version),
            tick_rate_hz: map::TICK_RATE_HZ,
            world: WorldKind::Flat,
            position_quantum_m: map::POSITION_QUANTUM_M,
            velocity_quantum_mps: map::VELOCITY_QUANTUM_MPS,
            start_unix_seconds: 0,
            mission_id: self.map_name.clone(),
            session_flags: 0,
            keyframe_interval_ticks: u32::try_from(span.max(1)).unwrap_or(u32::MAX),
            first_tick: self.first_tick(),
            last_tick: self.last_tick(),
            entity_types: vec![
                EntityType {
                    index: PLAYER_TYPE,
                    id: "player".into(),
                    display_name: "Player".into(),
                    category: Category::Character,
                    projectile_kind: 0,
                },
                EntityType {
                    index: EXPLOSION_TYPE,
                    id: "explosion".into(),
                    display_name: "Explosion".into(),
                    category: Category::Projectile,
                    projectile_kind: 0,
                },
            ],
            factions: map::factions_of(&self.participants),
            participants: self.participants.clone(),
            mission_objects: Vec::new(),
            metadata: vec![
                ("map".into(), self.map_name.clone()),
                ("mode".into(), self.game_mode.clone()),
                ("duration".into(), format!("{}", self.duration)),
            ],
            warnings: self.warnings.clone(),
            // A SparkEngine defect (a count or a string over its limit, a bad value) fails the open.
            problems: Vec::new(),
        }
    }

    /// Decodes chunk `i` from the bytes of its range.
    pub fn decode_chunk(&self, i: usize, bytes: &[u8]) -> Result<DecodedChunk, Error> {
        let (Some(r), Some(run)) = (self.chunks.get(i).copied(), self.runs.get(i).copied()) else {
            return Err(Error::ChunkMismatch {
                chunk: i,
                at: 0,
                reason: format!("no chunk {i} (the file has {})", self.chunks.len()),
            });
        };
        let mismatch = |reason: String| Error::ChunkMismatch { chunk: i, at: r.offset, reason };
        if bytes.len() as u64 != r.len {
            return Err(mismatch(format!("{} bytes handed over, the chunk is {}", bytes.len(), r.len)));
        }
        let mut c = Cursor::at(bytes, r.offset);
        let mut out = DecodedChunk::default();
        out.offsets.push(0);
        let mut last = run.prev_tick;
        let short = |s: Short| {
            mismatch(format!(
                "the chunk ends inside a frame at offset {} ({} bytes needed, {} left)",
                s.at, s.need, s.have
            ))
        };
        for k in 0..u64::from(run.frames) {
            let frame = run.first_frame + k;
            let at = c.offset();
            let ts = c.f32().map_err(short)?;
            let _frame_number = c.u32().map_err(short)?;
            let count = c.u32().map_err(short)?;
            if count > self.limits.max_entities {
                return Err(Error::TooManyEntities {
                    frame,
                    at,
                    count: u64::from(count),
                    max: u64::from(self.limits.max_entities),
                });
            }
            let body = c.take_u64(u64::from(count) * ENTITY_LEN).map_err(short)?;
            let tick = map::timestamp_to_tick(ts).map_err(|reason| Error::BadTimestamp {
                what: "frame",
                index: frame,
                at,
                reason,
            })?;
            if last.is_some_and(|l| tick <= l) {
                continue;
            }
            last = Some(tick);
            let start = out.entities.len();
            let mut e = Cursor::at(body, at + FRAME_HEADER_LEN);
            while !e.is_empty() {
                let eat = e.offset();
                let raw = super::read_entity(&mut e).map_err(short)?;
                let s = map::entity_to_model(&raw).map_err(|m| Error::BadEntity {
                    frame,
                    at: eat,
                    entity: raw.id,
                    field: m.field,
                    reason: m.reason,
                })?;
                out.entities.push(s);
            }
            let states = out.entities.get_mut(start..).unwrap_or(&mut []);
            states.sort_unstable_by_key(|s| s.id);
            if let Some(w) = states.windows(2).find(|w| w.first().map(|a| a.id) == w.get(1).map(|b| b.id)) {
                return Err(Error::DuplicateEntity { frame, at, entity: w.first().map(|a| a.id).unwrap_or(0) });
            }
            out.ticks.push(tick);
            out.offsets.push(
                u32::try_from(out.entities.len())
                    .map_err(|_| mismatch("over 2^32 entity states in one chunk".into()))?,
            );
        }
        if !c.is_empty() {
            return Err(mismatch(format!("{} bytes after its last frame", c.remaining())));
        }
        if out.ticks.len() != run.kept as usize
            || out.ticks.first() != Some(&r.first_tick)
            || out.ticks.last() != Some(&run.last_tick)
        {
            return Err(mismatch(format!(
                "holds {} frames over ticks {:?}..{:?}; the open scan found {} over {}..{}",
                out.ticks.len(),
                out.ticks.first(),
                out.ticks.last(),
                run.kept,
                r.first_tick,
                run.last_tick
            )));
        }
        // Events: those of this chunk's span (the first chunk also takes any before it, the last any after).
        let lo = if i == 0 { 0 } else { r.first_tick };
        let hi = self.chunks.get(i + 1).map(|n| n.first_tick).unwrap_or(u64::MAX);
        let a = self.events.partition_point(|e| e.tick < lo);
        let b = self.events.partition_point(|e| e.tick < hi);
        out.events = self.events.get(a..b).unwrap_or(&[]).to_vec();
        Ok(out)
    }
}

enum State {
    Start,
    Head,
    Frames { at: u64 },
    Events { at: u64 },
    Done,
}

pub struct Opener {
    file_len: u64,
    limits: Limits,
    state: State,
    version: u32,
    map_name: String,
    game_mode: String,
    duration: f32,
    frame_count: u32,
    /// Offset of the next unread frame or event.
    pos: u64,
    frames_read: u32,
    chunks: ChunkTable,
    runs: Vec<FrameRun>,
    cur: Option<(ChunkRef, FrameRun)>,
    last_tick: Option<u64>,
    dropped: u64,
    first_dropped: Option<(u64, u64, u64)>,
    big_frames: bool,
    ids: Vec<u32>,
    event_count: Option<u32>,
    events: Vec<Event>,
    events_complete: bool,
    odd_event_types: u64,
    warnings: Vec<String>,
}

/// Reads a length-prefixed string: lossy UTF-8, control and bidi characters replaced with U+FFFD.
/// Returns the raw bytes too (event types are matched on them) and whether anything was replaced.
fn string<'a>(
    c: &mut Cursor<'a>,
    what: &'static str,
    max: u32,
) -> Result<(&'a [u8], String, bool), Result<Short, Error>> {
    let at = c.offset();
    let len = c.u32().map_err(Ok)?;
    if len > max {
        return Err(Err(Error::StringTooLong { what, at, len: u64::from(len), max: u64::from(max) }));
    }
    let raw = c.take_u64(u64::from(len)).map_err(Ok)?;
    let lossy = String::from_utf8_lossy(raw);
    let changed = matches!(lossy, std::borrow::Cow::Owned(_)) || crate::bytes::name_problem(&lossy).is_some();
    let clean = if changed { crate::bytes::clean_name(&lossy, usize::MAX) } else { lossy.into_owned() };
    Ok((raw, clean, changed))
}

impl Opener {
    pub fn new(file_len: u64, limits: Limits) -> Self {
        Opener {
            file_len,
            limits,
            state: State::Start,
            version: 0,
            map_name: String::new(),
            game_mode: String::new(),
            duration: 0.0,
            frame_count: 0,
            pos: 0,
            frames_read: 0,
            chunks: ChunkTable::default(),
            runs: Vec::new(),
            cur: None,
            last_tick: None,
            dropped: 0,
            first_dropped: None,
            big_frames: false,
            ids: Vec::new(),
            event_count: None,
            events: Vec::new(),
            events_complete: false,
            odd_event_types: 0,
            warnings: Vec::new(),
        }
    }

    /// Advances with the bytes of the range asked for last (`None` on the first call).
    pub fn next(&mut self, input: Option<&[u8]>) -> Result<Step, Error> {
        let input = input.unwrap_or(&[]);
        match std::mem::replace(&mut self.state, State::Done) {
            State::Start => {
                self.state = State::Head;
                Ok(Step::Need { offset: 0, len: self.file_len.min(FIRST_READ) })
            }
            State::Head => {
                if (input.len() as u64) < self.file_len.min(FIRST_READ) {
                    return Err(Error::Usage(format!(
                        "asked for {} bytes at offset 0, got {}",
                        self.file_len.min(FIRST_READ),
                        input.len()
                    )));
                }
                self.head(input)?;
                self.frames_from(self.pos)
            }
            State::Frames { at } => {
                self.check_read(at, input)?;
                self.frames(at, input)
            }
            State::Events { at } => {
                self.check_read(at, input)?;
                self.events(at, input)
            }
            State::Done => Err(Error::Usage("opener already finished".into())),
        }
    }

    fn check_read(&self, at: u64, input: &[u8]) -> Result<(), Error> {
        let want = self.window(at);
        if (input.len() as u64) < want {
            return Err(Error::Usage(format!("asked for {want} bytes at offset {at}, got {}", input.len())));
        }
        Ok(())
    }

    fn window(&self, at: u64) -> u64 {
        let w = if self.big_frames && self.event_count.is_none() { SMALL_WINDOW } else { SCAN_WINDOW };
        w.min(self.file_len.saturating_sub(at))
    }

    fn head(&mut self, buf: &[u8]) -> Result<(), Error> {
        let mut c = Cursor::new(buf);
        let trunc =
            |what: &'static str| move |s: Short| Error::Truncated { what, at: s.at, need: s.need, have: s.have };
        let magic: [u8; 4] = c.array().map_err(trunc("magic"))?;
        if &magic == MAGIC_BIG_ENDIAN {
            return Err(Error::BigEndian);
        }
        if &magic != MAGIC {
            return Err(Error::BadMagic { found: magic });
        }
        let version = c.u32().map_err(trunc("version"))?;
        if version > VERSION {
            return Err(Error::NewerVersion { version, supported: VERSION });
        }
        if version < 1 {
            return Err(Error::UnsupportedVersion { version });
        }
        self.version = version;
        let max = self.limits.max_string;
        let str_err = |what: &'static str| move |e: Result<Short, Error>| e.map(trunc(what)).unwrap_or_else(|e| e);
        let (_, map_name, odd_map) = string(&mut c, "map name", max).map_err(str_err("map name"))?;
        let (_, game_mode, odd_mode) = string(&mut c, "game mode", max).map_err(str_err("game mode"))?;
        for (odd, what) in [(odd_map, "map name"), (odd_mode, "game mode")] {
            if odd {
                self.warnings.push(format!(
                    "the {what} held invalid UTF-8 or control/bidirectional characters: replaced with U+FFFD"
                ));
            }
        }
        self.duration = c.f32().map_err(trunc("duration"))?;
        if !self.duration.is_finite() {
            self.warnings
                .push(format!("the header's duration is {} (ignored: the frames' timestamps are used)", self.duration));
        }
        let frame_count = c.u32().map_err(trunc("frame count"))?;
        if frame_count > self.limits.max_frames {
            return Err(Error::TooManyFrames { count: u64::from(frame_count), max: u64::from(self.limits.max_frames) });
        }
        if frame_count == 0 {
            return Err(Error::NoFrames);
        }
        self.map_name = map_name;
        self.game_mode = game_mode;
        self.frame_count = frame_count;
        self.pos = c.offset();
        Ok(())
    }

    fn frames_from(&mut self, at: u64) -> Result<Step, Error> {
        self.pos = at;
        if self.frames_read == self.frame_count {
            self.close_chunk();
            return self.events_from(at);
        }
        if at + FRAME_HEADER_LEN > self.file_len {
            let have = self.file_len.saturating_sub(at);
            return self.cut("frame header", Short { at, need: FRAME_HEADER_LEN, have });
        }
        self.state = State::Frames { at };
        Ok(Step::Need { offset: at, len: self.window(at) })
    }

    fn frames(&mut self, at: u64, input: &[u8]) -> Result<Step, Error> {
        let mut c = Cursor::at(input, at);
        let mut progressed = false;
        loop {
            if self.frames_read == self.frame_count {
                return self.frames_from(c.offset());
            }
            let fat = c.offset();
            if c.remaining() < FRAME_HEADER_LEN as usize {
                if !progressed && fat + FRAME_HEADER_LEN <= self.file_len {
                    return Err(Error::Usage(format!("the read at offset {fat} did not hold a frame header")));
                }
                return self.frames_from(fat);
            }
            progressed = true;
            let short = |s: Short| Error::Usage(format!("read at {} short", s.at));
            let ts = c.f32().map_err(short)?;
            let _frame_number = c.u32().map_err(short)?;
            let count = c.u32().map_err(short)?;
            let frame = u64::from(self.frames_read);
            if count > self.limits.max_entities {
                return Err(Error::TooManyEntities {
                    frame,
                    at: fat,
                    count: u64::from(count),
                    max: u64::from(self.limits.max_entities),
                });
            }
            let body = u64::from(count) * ENTITY_LEN;
            let end = fat + FRAME_HEADER_LEN + body;
            if end > self.file_len {
                let at = fat + FRAME_HEADER_LEN;
                return self.cut("entity states", Short { at, need: body, have: self.file_len - at });
            }
            let tick = map::timestamp_to_tick(ts).map_err(|reason| Error::BadTimestamp {
                what: "frame",
                index: frame,
                at: fat,
                reason,
            })?;
            let in_window = c.take_u64(body).ok();
            if frame == 0 {
                if let Some(b) = in_window {
                    let mut e = Cursor::new(b);
                    while let Ok(raw) = super::read_entity(&mut e) {
                        if self.ids.len() >= self.limits.max_participants {
                            break;
                        }
                        self.ids.push(raw.id);
                    }
                }
            }
            self.add_frame(fat, end, tick);
            self.frames_read += 1;
            self.big_frames = body >= SCAN_WINDOW;
            if in_window.is_none() {
                return self.frames_from(end);
            }
        }
    }

    fn add_frame(&mut self, at: u64, end: u64, tick: u64) {
        let len = end - at;
        let frame = u64::from(self.frames_read);
        if self.last_tick.is_some_and(|l| tick <= l) {
            // Not after the frame before it: dropped (the decoder applies the same rule).
            self.dropped += 1;
            self.first_dropped.get_or_insert((frame, at, tick));
            if let Some((c, run)) = self.cur.as_mut() {
                c.len += len;
                run.frames += 1;
            }
            return;
        }
        if let Some((c, run)) = self.cur {
            if run.kept >= CHUNK_FRAMES || c.len + len > CHUNK_BYTES {
                self.close_chunk();
            }
        }
        let prev_tick = self.last_tick;
        self.last_tick = Some(tick);
        match self.cur.as_mut() {
            Some((c, run)) => {
                c.len += len;
                run.frames += 1;
                run.kept += 1;
                run.last_tick = tick;
            }
            None => {
                self.cur = Some((
                    ChunkRef { offset: at, len, first_tick: tick },
                    FrameRun { first_frame: frame, frames: 1, kept: 1, last_tick: tick, prev_tick },
                ))
            }
        }
    }

    fn close_chunk(&mut self) {
        if let Some((c, run)) = self.cur.take() {
            self.chunks.push(c);
            self.runs.push(run);
        }
    }

    /// The file ends inside a frame: keep the complete frames before it, or refuse when there are none.
    fn cut(&mut self, what: &'static str, s: Short) -> Result<Step, Error> {
        self.close_chunk();
        if self.chunks.is_empty() {
            let what = if what == "frame header" { "first frame's header" } else { "first frame's entity states" };
            return Err(Error::Truncated { what, at: s.at, need: s.need, have: s.have });
        }
        self.warnings.push(format!(
            "the file ends inside frame {} (offset {}, reading its {what}: {} bytes needed, {} left): the recording was cut short; kept the {} complete frames of {}, and its events block is lost",
            self.frames_read, s.at, s.need, s.have, self.frames_read, self.frame_count
        ));
        self.finish()
    }

    fn events_from(&mut self, at: u64) -> Result<Step, Error> {
        self.pos = at;
        match self.event_count {
            None if at + 4 > self.file_len => {
                self.warnings.push(format!(
                    "the file ends {} at offset {at}, before the event count: the recording was cut short; no events",
                    if at == self.file_len { "after the last frame" } else { "inside the event count" }
                ));
                return self.finish();
            }
            Some(n) if self.events.len() as u64 >= u64::from(n) => return self.events_done(at),
            Some(n) if at >= self.file_len => {
                self.warnings.push(format!(
                    "the file ends before event {} (offset {at}): the recording was cut short; kept {} of {n} events",
                    self.events.len(),
                    self.events.len()
                ));
                return self.finish();
            }
            _ => {}
        }
        self.state = State::Events { at };
        Ok(Step::Need { offset: at, len: self.window(at) })
    }

    fn events(&mut self, at: u64, input: &[u8]) -> Result<Step, Error> {
        let mut c = Cursor::at(input, at);
        if self.event_count.is_none() {
            let n = c.u32().map_err(|s| Error::Usage(format!("read at {} short", s.at)))?;
            if n > self.limits.max_events {
                return Err(Error::TooManyEvents { count: u64::from(n), max: u64::from(self.limits.max_events) });
            }
            self.event_count = Some(n);
        }
        let n = u64::from(self.event_count.unwrap_or(0));
        while (self.events.len() as u64) < n {
            let eat = c.offset();
            let mut p = c.clone();
            match self.event(&mut p) {
                Ok(e) => {
                    self.events.push(e);
                    c = p;
                }
                Err(Ok(s)) => {
                    if s.at.saturating_add(s.need) > self.file_len {
                        self.warnings.push(format!(
                            "the file ends inside event {} (offset {eat}): the recording was cut short; kept {} of {} events",
                            self.events.len(),
                            self.events.len(),
                            n
                        ));
                        return self.finish();
                    }
                    if eat == at {
                        return Err(Error::Usage(format!("the read at offset {at} did not hold a whole event")));
                    }
                    return self.events_from(eat);
                }
                Err(Err(e)) => return Err(e),
            }
        }
        self.events_done(c.offset())
    }

    fn event(&mut self, c: &mut Cursor) -> Result<Event, Result<Short, Error>> {
        let index = self.events.len() as u64;
        let at = c.offset();
        let ts = c.f32().map_err(Ok)?;
        let (raw, kind, odd) = string(c, "event type", self.limits.max_string)?;
        let source = c.u32().map_err(Ok)?;
        let target = c.u32().map_err(Ok)?;
        let mut p = [0f32; 3];
        for v in &mut p {
            *v = c.f32().map_err(Ok)?;
        }
        let tick = map::timestamp_to_tick(ts)
            .map_err(|reason| Err(Error::BadTimestamp { what: "event", index, at, reason }))?;
        let pos = map::position_to_model(p)
            .map_err(|m| Err(Error::BadEvent { index, at, field: m.field, reason: m.reason }))?;
        if odd {
            self.odd_event_types += 1;
        }
        let body = match raw {
            b"kill" => EventBody::Kill { killer: source, victim: target, weapon_type: NO_WEAPON },
            b"spawn" => EventBody::Spawn { entity: source, participant: source },
            _ => EventBody::Custom { kind, source, target, pos, data: String::new() },
        };
        Ok(Event { tick, body })
    }

    fn events_done(&mut self, end: u64) -> Result<Step, Error> {
        self.events_complete = true;
        if end < self.file_len {
            self.warnings
                .push(format!("{} bytes after the events block (from offset {end}) ignored", self.file_len - end));
        }
        self.finish()
    }

    fn finish(&mut self) -> Result<Step, Error> {
        self.close_chunk();
        if self.chunks.is_empty() {
            return Err(Error::NoFrames);
        }
        if let Some((frame, at, tick)) = self.first_dropped {
            self.warnings.push(format!(
                "{} frames dropped: their timestamp is not after the frame before them (the first is frame {frame} at offset {at}, {:.3} s)",
                self.dropped,
                tick as f64 / 1000.0
            ));
        }
        if self.odd_event_types > 0 {
            self.warnings.push(format!(
                "{} event types held invalid UTF-8 or control/bidirectional characters: replaced with U+FFFD",
                self.odd_event_types
            ));
        }
        let mut events = std::mem::take(&mut self.events);
        events.sort_by_key(|e| e.tick);
        map::name_explosion_kills(&mut events);
        let markers: Vec<Event> = events.iter().filter(|e| matches!(e.body, EventBody::Kill { .. })).cloned().collect();
        // Participants: the entities of the first frame, then killers, victims and spawned entities.
        let mut ids = std::mem::take(&mut self.ids);
        for e in &events {
            match e.body {
                // 0 is "no entity" in SparkEngine events ("0 (area)").
                EventBody::Kill { killer, victim, .. } => {
                    ids.extend([killer, victim].into_iter().filter(|id| *id != 0))
                }
                EventBody::Spawn { entity, .. } if entity != 0 => ids.push(entity),
                _ => {}
            }
        }
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(self.limits.max_participants);
        let participants = ids
            .into_iter()
            .map(|id| Participant { id, callsign: format!("Player {id}"), entity: id, faction: map::faction_of(id) })
            .collect();
        self.state = State::Done;
        Ok(Step::Ready(Box::new(Opened {
            file_len: self.file_len,
            version: self.version,
            map_name: std::mem::take(&mut self.map_name),
            game_mode: std::mem::take(&mut self.game_mode),
            duration: self.duration,
            frame_count: self.frame_count,
            frames_read: self.frames_read,
            chunks: std::mem::take(&mut self.chunks),
            runs: std::mem::take(&mut self.runs),
            events,
            events_complete: self.events_complete,
            markers,
            participants,
            warnings: std::mem::take(&mut self.warnings),
            limits: self.limits.clone(),
        })))
    }
}

/// Opens a whole file held in memory (tests and tools).
pub fn open_bytes(bytes: &[u8], limits: Limits) -> Result<Opened, Error> {
    let mut op = Opener::new(bytes.len() as u64, limits);
    let mut input: Option<&[u8]> = None;
    loop {
        match op.next(input)? {
            Step::Need { offset, len } => {
                let end = offset.checked_add(len).and_then(|e| usize::try_from(e).ok());
                let start = usize::try_from(offset).ok();
                input = match (start, end) {
                    (Some(s), Some(e)) => Some(
                        bytes.get(s..e).ok_or_else(|| Error::Usage(format!("range {offset}+{len} past the end")))?,
                    ),
                    _ => return Err(Error::Usage("range overflows".into())),
                };
            }
            Step::Ready(o) => return Ok(*o),
        }
    }
}
