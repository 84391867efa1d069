//! Tacview ACMI 2.2 text (docs/export.md): a streaming writer over the one model. Fed tick by tick
//! (states sorted by id, and the events recorded in the tick), it writes a time frame only for a
//! tick that changed something and, per object, only what changed; its buffer is flushed to the
//! sink every 64 KiB, so it never holds the whole output.
//!
//! Numbers are fixed-point integers (`number.rs`): positions to the recording's position
//! quantum (lat/lon to the decimal place whose step on the planet's surface is at most one quantum),
//! angles to 0.01°. The geodetic conversion and the five inverse trigonometric functions of an
//! object's orientation run only when its quantized position or orientation changed.

use super::escape::{self, Context};
pub use super::number::object_id;
use super::number::{decimals_for_step, pow10, Text};
use super::pair::{pair_by_id, same_ids, Step};
use super::pose::{component, transform_into, ANGLE_DECIMALS};
pub use super::pose::{Geo, Pose, Poser};
use super::Span;
use crate::model::{
    projectile_kind, Category, DecodedChunk, EntityState, Event, EventBody, RecordingInfo, WorldKind, NO_ENTITY,
    NO_WEAPON,
};
use std::collections::HashMap;
use std::io::Write;

/// Bytes buffered before they go to the sink.
const FLUSH_BYTES: usize = 64 * 1024;
/// Health is hundredths of a point; ACMI's is 0..1 of 100 points: four decimals are exact.
const HEALTH_DECIMALS: u32 = 4;
// `push_t` writes the angles with `Text::fixed2`.
const _: () = assert!(ANGLE_DECIMALS == 2, "the angles are written with Text::fixed2: 2 decimals");

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AcmiStats {
    /// Distinct objects (entity ids) written.
    pub objects: u64,
    /// Time frames (`#t` lines) written.
    pub frames: u64,
    /// `0,Event=` lines written.
    pub events: u64,
    /// Ticks fed.
    pub ticks: u64,
    /// Bytes handed to the sink.
    pub bytes: u64,
}

struct TypeInfo {
    name: String,
    tags: &'static str,
    projectile: bool,
}

struct FactionInfo {
    coalition: String,
    color: &'static str,
}

/// How [`AcmiWriter::chunk`] takes a chunk. A writer that takes the chunks before chunk `k` with
/// [`Skim`](Take::Skim), chunk `k - 1` with [`Quiet`](Take::Quiet) and the rest with
/// [`Write`](Take::Write) writes from chunk `k` on the bytes that one writing every chunk writes
/// from there: so two workers can each write a part of one export (docs/export.md "Two writers,
/// one export"). What it wrote before chunk `k`, the header included, is the caller's to drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Take {
    /// Writes the chunk's ticks.
    Write,
    /// Follows the ticks as writing them would (the objects, what was last written of each,
    /// their poses) and writes nothing: the chunk just before the first one written. The poses
    /// start afresh at each chunk ([`Poser::restart`]), so this chunk alone makes them.
    Quiet,
    /// Follows only what outlives a chunk: the roster (the spawns, and which entity each
    /// participant controls) and the objects alive, with their type, faction and health; no
    /// poses, nothing written. A fraction of writing (about the decode's cost).
    Skim,
}

/// One object as last written.
struct Obj {
    id: u32,
    type_index: u16,
    faction: u8,
    health: u16,
    participant: u32,
    projectile: bool,
    /// The `T=` components as last written (fixed-point integers; the ninth implied, as a
    /// [`Pose`]'s).
    t: [i64; 8],
}

/// The ACMI writer: [`new`](Self::new) writes the header and the global object, [`tick`](Self::tick)
/// each tick, [`finish`](Self::finish) flushes.
pub struct AcmiWriter<W: Write> {
    out: W,
    buf: Text,
    geo: Geo,
    first_tick: u64,
    tick_rate: u64,
    time_decimals: u32,
    types: HashMap<u16, TypeInfo>,
    factions: HashMap<u8, FactionInfo>,
    callsigns: HashMap<u32, String>,
    /// Entity → the participant whose spawn (or roster line) made it.
    spawned_by: HashMap<u32, u32>,
    /// Participant → the entity it controls now (for a missile's `Parent`, a chat's object).
    controlled: HashMap<u32, u32>,
    seen: std::collections::HashSet<u32>,
    /// Entity ids named by this tick's spawn events (re-read for objects that already exist).
    respawned: Vec<u32>,
    prev: Vec<Obj>,
    next: Vec<Obj>,
    /// Where the objects are, tick by tick, for [`tick`](Self::tick).
    poser: Poser,
    /// This tick's poses, computed in a pass of their own before the lines are written:
    /// independent computations back to back, which the CPU overlaps (docs/performance-history.md
    /// "Exports").
    poses: Vec<Pose>,
    /// [`Take::Skim`]'s poses: none moved (`n` 0), one per state.
    still: Vec<Pose>,
    frame_open: bool,
    /// Following ticks without writing them ([`Take::Quiet`], [`Take::Skim`]).
    silent: bool,
    /// The output is handed to the sink once this many bytes are written ([`FLUSH_BYTES`], or
    /// never with [`hold_output`](Self::hold_output)).
    flush_at: usize,
    /// Whether the reference longitude / latitude lines are written (at the first tick).
    referenced: bool,
    tick: u64,
    stats: AcmiStats,
}

/// `poses[i]` by reference (a [`Pose`] copied is a `memory.copy` call in wasm), or where it is
/// missing, `s`'s computed afresh into `spare`.
fn pose_at<'a>(poses: &'a [Pose], i: usize, geo: Geo, s: &EntityState, spare: &'a mut Pose) -> &'a Pose {
    match poses.get(i) {
        Some(p) => p,
        None => {
            spare.n = transform_into(geo, s.pos, s.orient, None, &mut spare.t);
            spare
        }
    }
}

/// `,KEY=value` with the value escaped.
fn push_prop(buf: &mut Text, key: &[u8], value: &str) {
    buf.push(b',');
    buf.extend(key);
    buf.push(b'=');
    escape::push(buf, value, Context::Property);
}

fn tags_of(category: Category, kind: u8) -> &'static str {
    match category {
        Category::Aircraft => "Air+FixedWing",
        Category::Projectile => match kind {
            projectile_kind::MISSILE => "Weapon+Missile",
            projectile_kind::BOMB => "Weapon+Bomb",
            projectile_kind::ROCKET => "Weapon+Rocket",
            projectile_kind::BULLET => "Projectile+Bullet",
            projectile_kind::GRENADE => "Projectile+Grenade",
            _ => "Weapon+Projectile",
        },
        Category::Ground => "Ground+Vehicle",
        Category::Character => "Ground+Light+Human",
        Category::Other => "Misc+Minor",
    }
}

const COLORS: [&str; 7] = ["Blue", "Red", "Green", "Yellow", "Orange", "Cyan", "Violet"];

fn color_of(id: &str, name: &str, rank: usize) -> &'static str {
    let words = format!("{id} {name}").to_lowercase();
    for (w, c) in [
        ("blue", "Blue"),
        ("red", "Red"),
        ("green", "Green"),
        ("yellow", "Yellow"),
        ("orange", "Orange"),
        ("cyan", "Cyan"),
        ("violet", "Violet"),
        ("purple", "Violet"),
    ] {
        if words.contains(w) {
            return c;
        }
    }
    COLORS.get(rank % COLORS.len()).copied().unwrap_or("Blue")
}

impl<W: Write> AcmiWriter<W> {
    /// Writes the two header lines and the global object of `info`.
    pub fn new(out: W, info: &RecordingInfo) -> std::io::Result<Self> {
        let geo = Geo::of(info);
        let rate = u64::from(info.tick_rate_hz.max(1));
        let time_decimals = decimals_for_step(1.0 / rate as f64).saturating_add(1).min(9);
        let mut types = HashMap::new();
        for t in &info.entity_types {
            let name = if t.display_name.is_empty() { &t.id } else { &t.display_name };
            types.insert(
                t.index,
                TypeInfo {
                    name: name.clone(),
                    tags: tags_of(t.category, t.projectile_kind),
                    projectile: t.category == Category::Projectile,
                },
            );
        }
        let mut factions = HashMap::new();
        for (rank, f) in info.factions.iter().enumerate() {
            let name = if f.display_name.is_empty() { &f.id } else { &f.display_name };
            factions.insert(f.index, FactionInfo { coalition: name.clone(), color: color_of(&f.id, name, rank) });
        }
        let mut callsigns = HashMap::new();
        let mut spawned_by = HashMap::new();
        let mut controlled = HashMap::new();
        for p in &info.participants {
            callsigns.insert(p.id, p.callsign.clone());
            if p.entity != NO_ENTITY {
                spawned_by.insert(p.entity, p.id);
                controlled.insert(p.id, p.entity);
            }
        }
        let mut w = AcmiWriter {
            out,
            buf: Text::with_capacity(FLUSH_BYTES + 4096),
            geo,
            first_tick: info.first_tick,
            tick_rate: rate,
            time_decimals,
            types,
            factions,
            callsigns,
            spawned_by,
            controlled,
            seen: Default::default(),
            respawned: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            poser: Poser::new(geo),
            poses: Vec::new(),
            still: Vec::new(),
            frame_open: false,
            silent: false,
            flush_at: FLUSH_BYTES,
            referenced: false,
            tick: info.first_tick,
            stats: AcmiStats::default(),
        };
        w.header(info);
        w.flush_buf()?;
        Ok(w)
    }

    fn global(&mut self, key: &str, value: &str) {
        self.buf.extend(b"0,");
        self.buf.extend(key.as_bytes());
        self.buf.push(b'=');
        escape::push(&mut self.buf, value, Context::Property);
        self.buf.push(b'\n');
    }

    fn header(&mut self, info: &RecordingInfo) {
        self.buf.extend(b"FileType=text/acmi/tacview\nFileVersion=2.2\n");
        let start =
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(info.start_unix_seconds.min(253_402_300_799));
        self.global("ReferenceTime", &humantime::format_rfc3339_seconds(start).to_string());
        let meta = |k: &str| info.metadata.iter().find(|(mk, _)| mk == k).map(|(_, v)| v.as_str());
        let title = [meta("title"), Some(info.mission_id.as_str()), meta("map")]
            .into_iter()
            .flatten()
            .find(|t| !t.is_empty())
            .unwrap_or("Replay");
        self.global("Title", title);
        let source = format!(
            "{} {}.{} recording, engine {}",
            info.format.name(),
            info.format_major,
            info.format_minor,
            info.engine_version
        );
        self.global("DataSource", &source);
        self.global("DataRecorder", concat!("replay-player ", env!("CARGO_PKG_VERSION")));
        let world = match info.world {
            WorldKind::Planet { radius_m } => format!("a planet of radius {radius_m} m"),
            WorldKind::Flat => "a flat map (T carries its x|y as u|v; lon/lat place it near 0,0)".to_string(),
        };
        let comments = format!("ticks {}..={} at {} Hz, {world}", info.first_tick, info.last_tick, info.tick_rate_hz);
        self.global("Comments", &comments);
    }

    /// ReferenceLongitude / ReferenceLatitude, before the first frame: on a planet the whole
    /// degrees nearest the first tick's first entity, on a flat map 0.
    fn reference(&mut self, states: &[EntityState]) {
        self.referenced = true;
        self.geo.reference(states);
        for (key, v) in [("ReferenceLongitude", self.geo.ref_lon), ("ReferenceLatitude", self.geo.ref_lat)] {
            self.buf.extend(b"0,");
            self.buf.extend(key.as_bytes());
            self.buf.push(b'=');
            self.buf.fixed(v as i64, 0);
            self.buf.push(b'\n');
        }
    }

    /// Opens the time frame of the current tick if it is not yet.
    fn open_frame(&mut self) {
        if self.frame_open {
            return;
        }
        self.frame_open = true;
        self.stats.frames += 1;
        let dt = u128::from(self.tick.saturating_sub(self.first_tick));
        let scale = pow10(self.time_decimals).unsigned_abs() as u128;
        let rate = u128::from(self.tick_rate);
        let n = (dt * scale + rate / 2) / rate;
        self.buf.push(b'#');
        self.buf.fixed(i64::try_from(n).unwrap_or(i64::MAX), self.time_decimals);
        self.buf.push(b'\n');
    }

    /// Takes the ticks of `c` in `span` as `take` says: the poses start afresh
    /// ([`Poser::restart`]), then each tick is [`tick`](Self::tick) (written or, silent,
    /// followed). The counts of [`stats`](Self::stats) leave out a chunk not written, but for its
    /// ticks.
    pub fn chunk(&mut self, c: &DecodedChunk, span: Span, take: Take) -> std::io::Result<()> {
        self.poser.restart();
        let before = self.stats;
        self.silent = take != Take::Write;
        let r = if take == Take::Skim {
            let mut still = std::mem::take(&mut self.still);
            let r = c.for_each_tick(span.from, span.to, |tick, states, events| {
                self.poser.refer(states);
                if still.len() < states.len() {
                    still.resize(states.len(), Pose::default());
                }
                self.tick_posed(tick, states, events, still.get(..states.len()).unwrap_or(&[]))
            });
            self.still = still;
            r
        } else {
            c.for_each_tick(span.from, span.to, |tick, states, events| self.tick(tick, states, events))
        };
        if self.silent {
            self.silent = false;
            self.stats = AcmiStats { ticks: self.stats.ticks, ..before };
        }
        r
    }

    /// [`chunk`](Self::chunk) written, with the poses of its ticks (in `span`) computed
    /// elsewhere: by a [`Poser`] fed the same chunks by [`Poser::chunk`].
    pub fn chunk_posed(&mut self, c: &DecodedChunk, span: Span, poses: &[Pose]) -> std::io::Result<()> {
        let mut at = 0usize;
        c.for_each_tick(span.from, span.to, |tick, states, events| {
            let these = poses.get(at..at + states.len()).unwrap_or(&[]);
            at += states.len();
            self.tick_posed(tick, states, events, these)
        })
    }

    /// Writes one tick: `states` sorted by ascending id (as every reader gives them), `events` the
    /// events recorded in it. Ticks must increase.
    pub fn tick(&mut self, tick: u64, states: &[EntityState], events: &[Event]) -> std::io::Result<()> {
        let mut poses = std::mem::take(&mut self.poses);
        poses.clear();
        self.poser.tick(states, &mut poses);
        let wrote = self.tick_posed(tick, states, events, &poses);
        self.poses = poses;
        wrote
    }

    /// [`tick`](Self::tick) with the states' poses computed elsewhere: by a [`Poser`] made with
    /// [`Geo::of`] this recording's info and fed every tick this writer is fed, before it (one
    /// [`Pose`] per state). A pose missing is computed here afresh.
    pub fn tick_posed(
        &mut self,
        tick: u64,
        states: &[EntityState],
        events: &[Event],
        poses: &[Pose],
    ) -> std::io::Result<()> {
        let start = self.buf.len();
        if !self.referenced {
            self.reference(states);
        }
        self.tick = tick;
        self.frame_open = false;
        self.stats.ticks += 1;
        self.respawned.clear();
        for e in events {
            if let EventBody::Spawn { entity, participant } = e.body {
                self.spawned_by.insert(entity, participant);
                self.respawned.push(entity);
            }
        }
        let geo = self.geo;
        let mut spare = Pose::default();
        let mut prev = std::mem::take(&mut self.prev);
        if same_ids(&prev, states, |o| o.id) {
            // The same entities as the tick before (the common case): in place.
            for (i, (o, s)) in prev.iter_mut().zip(states).enumerate() {
                self.update(o, s, pose_at(poses, i, geo, s, &mut spare));
            }
        } else {
            let mut next = std::mem::take(&mut self.next);
            pair_by_id(
                &mut prev,
                &mut next,
                states,
                |o| o.id,
                |step| match step {
                    Step::Kept(i, s, o) => {
                        self.update(o, s, pose_at(poses, i, geo, s, &mut spare));
                        None
                    }
                    Step::New(i, s) => Some(self.create(s, pose_at(poses, i, geo, s, &mut spare))),
                    Step::Gone(o) => {
                        self.remove(o.id);
                        None
                    }
                },
            );
            self.next = next;
        }
        self.prev = prev;
        for e in events {
            self.event(e);
        }
        if self.silent {
            self.buf.truncate(start);
        } else if self.buf.len() >= self.flush_at {
            self.flush_buf()?;
        }
        Ok(())
    }

    fn remove(&mut self, id: u32) {
        self.open_frame();
        self.buf.push(b'-');
        self.buf.hex(id);
        self.buf.push(b'\n');
    }

    /// `,T=` and the first `n` components of `t` (those equal to `last`'s left empty) onto `line`.
    fn push_t(geo: &Geo, line: &mut Text, t: &[i64; 8], n: u8, last: Option<&[i64; 8]>) {
        let md = geo.metre_decimals;
        let dd = geo.deg_decimals;
        line.extend(b",T=");
        for i in 0..usize::from(n) {
            if i > 0 {
                line.push(b'|');
            }
            let v = component(t, i);
            if last.is_some_and(|l| component(l, i) == v) {
                continue;
            }
            match i {
                0 | 1 => line.fixed(v, dd),
                2 | 6 | 7 => line.fixed(v, md),
                _ => line.fixed2(v),
            }
        }
    }

    fn push_faction(&mut self, faction: u8) {
        if let Some(f) = self.factions.get(&faction) {
            push_prop(&mut self.buf, b"Coalition", &f.coalition);
            push_prop(&mut self.buf, b"Color", f.color);
        }
    }

    fn push_health(&mut self, health: u16) {
        self.buf.extend(b",Health=");
        self.buf.fixed(i64::from(health.min(10_000)), HEALTH_DECIMALS);
    }

    /// The participant an entity belongs to, and `Parent` for a projectile.
    fn push_roster(&mut self, id: u32, projectile: bool) -> u32 {
        let Some(&p) = self.spawned_by.get(&id) else { return NO_ENTITY };
        if projectile {
            if let Some(&launcher) = self.controlled.get(&p).filter(|&&l| l != id) {
                self.buf.extend(b",Parent=");
                self.buf.hex(launcher);
            }
            return p;
        }
        self.controlled.insert(p, id);
        if let Some(c) = self.callsigns.get(&p) {
            push_prop(&mut self.buf, b"CallSign", c);
            push_prop(&mut self.buf, b"Pilot", c);
        }
        p
    }

    fn create(&mut self, s: &EntityState, pose: &Pose) -> Obj {
        self.open_frame();
        if self.seen.insert(s.id) {
            self.stats.objects += 1;
        }
        let Pose { t, n } = pose;
        self.buf.hex(s.id);
        if !self.silent {
            Self::push_t(&self.geo, &mut self.buf, t, *n, None);
        }
        let projectile = self.push_type(s.type_index, s.id);
        self.push_faction(s.faction);
        self.push_health(s.health);
        let participant = self.push_roster(s.id, projectile);
        self.buf.push(b'\n');
        Obj { id: s.id, type_index: s.type_index, faction: s.faction, health: s.health, participant, projectile, t: *t }
    }

    /// `Name` and `Type`; whether the type is a projectile.
    fn push_type(&mut self, type_index: u16, id: u32) -> bool {
        match self.types.get(&type_index) {
            Some(t) => {
                push_prop(&mut self.buf, b"Name", &t.name);
                push_prop(&mut self.buf, b"Type", t.tags);
                t.projectile
            }
            None => {
                push_prop(&mut self.buf, b"Name", &format!("type {type_index} #{id}"));
                push_prop(&mut self.buf, b"Type", "Misc+Minor");
                false
            }
        }
    }

    /// Writes what changed of `o` in `s`; `pose` is where it is if it moved.
    fn update(&mut self, o: &mut Obj, s: &EntityState, pose: &Pose) {
        let moved = pose.n > 0;
        let retyped = o.type_index != s.type_index;
        let respawned = self.respawned.contains(&s.id);
        if !moved && !retyped && o.faction == s.faction && o.health == s.health && !respawned {
            return;
        }
        let (mark, was_open) = (self.buf.len(), self.frame_open);
        self.open_frame();
        self.buf.hex(s.id);
        let after_id = self.buf.len();
        if moved {
            let Pose { t, n } = pose;
            if t.iter().take(usize::from(*n)).ne(o.t.iter().take(usize::from(*n))) {
                // (Silent: what is written is dropped, so no digits are made.)
                if !self.silent {
                    Self::push_t(&self.geo, &mut self.buf, t, *n, Some(&o.t));
                }
                o.t = *t;
            }
        }
        if retyped {
            o.projectile = self.push_type(s.type_index, s.id);
            o.type_index = s.type_index;
        }
        if o.faction != s.faction {
            self.push_faction(s.faction);
            o.faction = s.faction;
        }
        if o.health != s.health {
            self.push_health(s.health);
            o.health = s.health;
        }
        if respawned || retyped {
            let p = self.spawned_by.get(&s.id).copied().unwrap_or(NO_ENTITY);
            if p != o.participant || retyped {
                o.participant = self.push_roster(s.id, o.projectile);
            }
        }
        if self.buf.len() == after_id {
            self.buf.truncate(mark);
            if !was_open {
                self.frame_open = false;
                self.stats.frames -= 1;
            }
        } else {
            self.buf.push(b'\n');
        }
    }

    /// A short name for an entity in event text: its participant's callsign, else its type's name.
    fn label(&self, entity: u32) -> String {
        let named = self.spawned_by.get(&entity).and_then(|p| self.callsigns.get(p));
        let alive = self.prev.binary_search_by_key(&entity, |o| o.id).ok().and_then(|i| self.prev.get(i));
        let typed = alive.and_then(|o| self.types.get(&o.type_index)).map(|t| &t.name);
        match named.or(typed) {
            Some(n) => n.clone(),
            None => format!("entity {entity}"),
        }
    }

    fn event(&mut self, e: &Event) {
        let (kind, ids, text): (&str, Option<u32>, String) = match &e.body {
            EventBody::Kill { killer, victim, weapon_type } => {
                let mut text = format!("destroyed by {}", self.label(*killer));
                if *weapon_type != NO_WEAPON {
                    if let Some(t) = self.types.get(weapon_type) {
                        text.push_str(" with ");
                        text.push_str(&t.name);
                    }
                }
                ("Destroyed", Some(*victim), text)
            }
            EventBody::Chat { participant, text, .. } => {
                ("Message", self.controlled.get(participant).copied(), text.clone())
            }
            EventBody::Admin { action, detail, .. } => ("Bookmark", None, format!("admin {action}: {detail}")),
            EventBody::AlertLevel { level } => ("Bookmark", None, format!("alert level {level}")),
            EventBody::Custom { kind, source, data, .. } => {
                let text = if data.is_empty() { kind.clone() } else { format!("{kind} {data}") };
                ("Debug", (*source != NO_ENTITY).then_some(*source), text)
            }
            EventBody::Spawn { .. } | EventBody::Despawn { .. } => return,
        };
        self.open_frame();
        self.stats.events += 1;
        self.buf.extend(b"0,Event=");
        self.buf.extend(kind.as_bytes());
        self.buf.push(b'|');
        if let Some(id) = ids {
            self.buf.hex(id);
            self.buf.push(b'|');
        }
        escape::push(&mut self.buf, &text, Context::EventText);
        self.buf.push(b'\n');
    }

    fn flush_buf(&mut self) -> std::io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.stats.bytes += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Keeps what is written in the writer, not handed to the sink each 64 KiB, until
    /// [`drain`](Self::drain) takes it: for a driver that copies each chunk's output out once,
    /// as the export worker copies it into JS memory (docs/performance-history.md "Exports").
    pub fn hold_output(&mut self) {
        self.flush_at = usize::MAX;
    }

    /// Hands `f` the sink and the bytes written after what the sink holds, then forgets those
    /// bytes (counted as written, as a flush counts them).
    pub fn drain<R>(&mut self, f: impl FnOnce(&mut W, &[u8]) -> R) -> R {
        let r = f(&mut self.out, self.buf.as_bytes());
        self.stats.bytes += self.buf.len() as u64;
        self.buf.clear();
        r
    }

    /// What has been written so far.
    pub fn stats(&self) -> AcmiStats {
        self.stats
    }

    /// Flushes everything; returns the sink and what was written.
    pub fn finish(mut self) -> std::io::Result<(W, AcmiStats)> {
        if !self.referenced {
            self.reference(&[]);
        }
        self.flush_buf()?;
        self.out.flush()?;
        Ok((self.out, self.stats))
    }
}
