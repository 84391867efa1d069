//! A poster's inputs out of a stored replay, through the sans-IO [`Session`]: the driver opens the
//! session (answering its `Need` ranges), asks [`chunks_for`] which chunks the moment needs (the
//! one holding it and those of the [`KILL_SECONDS`] before, at most [`MAX_CHUNKS`]), reads just
//! those byte ranges, and hands them to [`moment_from_chunks`]. Nothing else of the file is read.
//! [`read_moment`] is that driver over a [`ReadAt`]; the host's server is the same loop over its
//! object store's range reads.

use super::{Frame, Kill, Moment, KILL_SECONDS};
use crate::format::{IoError, Session, SessionError};
use crate::io::ReadAt;
use crate::model::{EventBody, RecordingInfo, TickRange, NO_ENTITY};
use std::collections::{HashMap, VecDeque};

/// Most chunks one poster reads (a file of tiny chunks gives shorter trails, never a large read).
pub const MAX_CHUNKS: usize = 24;
/// Most entity states kept over all of a poster's frames (the oldest frames go first past it).
pub const MAX_STATES: usize = 600_000;
/// Frames a second kept for the trails and the kills' places.
const FRAMES_PER_SECOND: f64 = 5.0;
/// Most states of one decoded piece (a range is read in pieces of about this many).
const PIECE_STATES: usize = 200_000;

/// The tick `t` seconds after the first, clamped to the recording (NaN and negative: the first).
pub fn moment_tick(info: &RecordingInfo, t: f64) -> u64 {
    let first = info.first_tick;
    let last = info.last_tick.max(first);
    let rate = f64::from(info.tick_rate_hz);
    if t == f64::INFINITY {
        return last;
    }
    if !(t.is_finite() && t > 0.0 && rate > 0.0) {
        return first;
    }
    let dt = (t * rate).round();
    if dt >= (last - first) as f64 {
        last
    } else {
        first.saturating_add(dt as u64)
    }
}

fn ticks_of(info: &RecordingInfo, seconds: f64) -> u64 {
    (seconds * f64::from(info.tick_rate_hz.max(1))).round() as u64
}

/// The first tick a poster at `tick` reads (kills and trails before it are not drawn).
fn window_start(info: &RecordingInfo, tick: u64) -> u64 {
    tick.saturating_sub(ticks_of(info, KILL_SECONDS)).max(info.first_tick)
}

/// The chunks a poster at `tick` needs, in file order: `(chunk index, offset, length)`. Empty for a
/// recording without chunks (a `.foldback`): its poster has the title and no entities.
pub fn chunks_for(s: &Session, info: &RecordingInfo, tick: u64) -> Vec<(usize, u64, u64)> {
    let n = s.chunk_count();
    if n == 0 {
        return Vec::new();
    }
    let last = s.chunk_for_tick(tick).min(n - 1);
    let first = s.chunk_for_tick(window_start(info, tick)).min(last).max(last.saturating_sub(MAX_CHUNKS - 1));
    (first..=last).filter_map(|i| s.chunk_range(i).map(|(o, l)| (i, o, l))).collect()
}

/// Decodes the moment at `tick` from the bytes of the chunks [`chunks_for`] named (in its order):
/// a few frames a second of the window before `tick`, the exact world at `tick`, the kills of the
/// window and the callsigns. Bytes that are not those chunks' are refused by the readers' checks.
pub fn moment_from_chunks(
    s: &mut Session,
    info: &RecordingInfo,
    tick: u64,
    chunks: &[(usize, &[u8])],
) -> Result<Moment, SessionError> {
    let start = window_start(info, tick);
    let stride = (f64::from(info.tick_rate_hz.max(1)) / FRAMES_PER_SECOND).round().max(1.0) as u64;
    let mut frames: VecDeque<Frame> = VecDeque::new();
    let mut states = 0usize;
    let mut events = Vec::new();
    let mut push = |frames: &mut VecDeque<Frame>, f: Frame| {
        if frames.back().is_some_and(|b| b.tick >= f.tick) {
            return;
        }
        states += f.states.len();
        frames.push_back(f);
        while states > MAX_STATES && frames.len() > 1 {
            if let Some(old) = frames.pop_front() {
                states -= old.states.len();
            }
        }
    };
    // The window before the moment, thinned to a few frames a second.
    for &(i, bytes) in chunks {
        let from = s.chunk_first_tick(i).unwrap_or(start).max(start);
        if from >= tick {
            continue;
        }
        let mut r = TickRange { from, to: tick, stride, max_states: PIECE_STATES };
        loop {
            let b = if s.holds_chunk(i) { &[][..] } else { bytes };
            let piece = s.decode_range(i, b, r)?;
            let c = &piece.chunk;
            for (k, &t) in c.ticks.iter().enumerate() {
                if t >= start && t < tick {
                    push(&mut frames, Frame { tick: t, states: c.tick_entities(k).to_vec() });
                }
            }
            events.extend(piece.chunk.events);
            match piece.end {
                Some(e) if e > r.from && e < tick => r.from = e,
                _ => break,
            }
        }
    }
    // The world at the moment itself (the last tick at or before it), every tick.
    if let Some(m) = chunks.iter().find(|(i, _)| *i == s.chunk_for_tick(tick)) {
        let (i, bytes) = *m;
        let b = if s.holds_chunk(i) { &[][..] } else { bytes };
        let r = TickRange { from: tick, to: tick.saturating_add(1), stride: 1, max_states: PIECE_STATES };
        let piece = s.decode_range(i, b, r)?;
        let c = &piece.chunk;
        if let Some(k) = c.ticks.iter().rposition(|&t| t <= tick) {
            let f = Frame { tick: c.ticks.get(k).copied().unwrap_or(tick), states: c.tick_entities(k).to_vec() };
            while frames.back().is_some_and(|b| b.tick >= f.tick) {
                frames.pop_back();
            }
            frames.push_back(f);
        }
        events.extend(piece.chunk.events);
    } else if !chunks.is_empty() {
        return Err(SessionError::Usage(format!(
            "the chunk holding tick {tick} ({}) is not among the {} chunks handed in",
            s.chunk_for_tick(tick),
            chunks.len()
        )));
    }
    events.sort_by_key(|e| e.tick);
    let mut kills: Vec<Kill> = events
        .iter()
        .filter_map(|e| match e.body {
            EventBody::Kill { killer, victim, .. } if e.tick >= start && e.tick <= tick => {
                Some(Kill { tick: e.tick, killer, victim })
            }
            _ => None,
        })
        .collect();
    kills.sort_by_key(|k| (k.tick, k.killer, k.victim));
    kills.dedup();
    Ok(Moment { tick, frames: frames.into(), kills, callsigns: callsigns(info, &events, tick) })
}

/// Entity → callsign at `tick`: each participant's first entity, moved by the spawns seen.
fn callsigns(info: &RecordingInfo, events: &[crate::model::Event], tick: u64) -> Vec<(u32, String)> {
    let cut = |s: &str| s.chars().take(64).collect::<String>();
    let by_participant: HashMap<u32, &str> = info.participants.iter().map(|p| (p.id, p.callsign.as_str())).collect();
    let mut of_entity: HashMap<u32, String> = HashMap::new();
    for p in &info.participants {
        if p.entity != NO_ENTITY && !p.callsign.trim().is_empty() {
            of_entity.insert(p.entity, cut(&p.callsign));
        }
    }
    for e in events.iter().filter(|e| e.tick <= tick) {
        if let EventBody::Spawn { entity, participant } = e.body {
            if let Some(c) = by_participant.get(&participant).filter(|c| !c.trim().is_empty()) {
                of_entity.insert(entity, cut(c));
            }
        }
    }
    let mut out: Vec<(u32, String)> = of_entity.into_iter().collect();
    out.sort_by_key(|(id, _)| *id);
    out
}

/// Opens a replay over `src` and reads the moment `t` seconds after its start (clamped): the open's
/// ranges and the chunks of [`chunks_for`], nothing else.
pub fn read_moment<R: ReadAt>(src: &mut R, t: f64) -> Result<(RecordingInfo, Moment), SessionError> {
    let mut s = crate::io::open_session(src)?;
    let info = s.info().ok_or_else(|| SessionError::Usage("the session did not open".into()))?;
    let tick = moment_tick(&info, t);
    let mut bytes = Vec::new();
    for (i, offset, len) in chunks_for(&s, &info, tick) {
        let b = src.read_at(offset, len).map_err(|e| {
            let message = format!("read error at offset {offset}: {e}");
            SessionError::Io(IoError::new(&e, message))
        })?;
        bytes.push((i, b));
    }
    let views: Vec<(usize, &[u8])> = bytes.iter().map(|(i, b)| (*i, b.as_slice())).collect();
    let moment = moment_from_chunks(&mut s, &info, tick, &views)?;
    Ok((info, moment))
}
