//! A decoded run of ticks (one chunk of any format): full entity state per tick, plus events.

use super::{EntityState, Event};

/// One decoded chunk: the full entity state at each of its ticks, plus its events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DecodedChunk {
    pub ticks: Vec<u64>,
    /// `offsets[i]..offsets[i+1]` indexes `entities` for tick `i` (len = ticks + 1).
    pub offsets: Vec<u32>,
    /// Every tick's entities, sorted by id within a tick.
    pub entities: Vec<EntityState>,
    pub events: Vec<Event>,
    /// The tick each event was recorded in, one per event, when the format records events inside
    /// ticks (`.flrep`: an event's own tick MAY differ from its containing tick, docs/format/flrep.md §8); empty when
    /// events are placed by their own tick (SparkEngine). Ranges select events by this tick.
    pub event_ticks: Vec<u64>,
    /// Event records of unknown kinds that were skipped.
    pub skipped_events: u32,
}

impl DecodedChunk {
    pub fn tick_entities(&self, i: usize) -> &[EntityState] {
        let (a, b) = match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(a), Some(b)) => (*a as usize, *b as usize),
            _ => return &[],
        };
        self.entities.get(a..b).unwrap_or(&[])
    }
    /// Calls `f` with each tick of this chunk in `from..=to`: its states and the events recorded in
    /// it (by `event_ticks` where the format has them, else an event goes with the first tick at or
    /// after its own tick; any left at the chunk's end go with its last tick — as `replay dump`
    /// places them). Events of ticks outside the range are not passed.
    pub fn for_each_tick<E>(
        &self,
        from: u64,
        to: u64,
        mut f: impl FnMut(u64, &[EntityState], &[Event]) -> Result<(), E>,
    ) -> Result<(), E> {
        let by_recorded = self.event_ticks.len() == self.events.len() && !self.event_ticks.is_empty();
        let mut next = 0usize;
        for (k, &tick) in self.ticks.iter().enumerate() {
            let last = k + 1 == self.ticks.len();
            let start = next;
            while next < self.events.len() {
                let at = if by_recorded {
                    self.event_ticks.get(next).copied()
                } else {
                    self.events.get(next).map(|e| e.tick)
                };
                match at {
                    Some(t) if t <= tick || last => next += 1,
                    _ => break,
                }
            }
            if tick >= from && tick <= to {
                f(tick, self.tick_entities(k), self.events.get(start..next).unwrap_or(&[]))?;
            }
        }
        Ok(())
    }

    /// Keeps, in every tick, only the states of the entities in `ids` (a short list, any order;
    /// empty: none), `offsets` rewritten to match; ticks and events stay. What a reader that
    /// follows one or two entities asks for (docs/worker-protocol.md `want`, `entities`).
    pub fn retain_entities(&mut self, ids: &[u32]) {
        retain_states(&mut self.entities, &mut self.offsets, ids);
    }

    /// Approximate heap bytes held (for byte-bounded caches).
    pub fn heap_bytes(&self) -> usize {
        self.ticks.len() * 8
            + self.offsets.len() * 4
            + self.entities.len() * std::mem::size_of::<EntityState>()
            + self.events.len() * 72
    }
}

/// [`DecodedChunk::retain_entities`] over a chunk's states and offsets (`offsets[k]..offsets[k+1]`
/// the states of tick `k`), in place, keeping their order.
pub fn retain_states(states: &mut Vec<EntityState>, offsets: &mut [u32], ids: &[u32]) {
    let len = states.len();
    let (mut kept, mut read) = (0usize, offsets.first().map_or(0, |&o| (o as usize).min(len)));
    if let Some(o) = offsets.first_mut() {
        *o = 0;
    }
    for o in offsets.iter_mut().skip(1) {
        let end = (*o as usize).clamp(read, len);
        while read < end {
            if states.get(read).is_some_and(|s| ids.contains(&s.id)) {
                states.swap(kept, read);
                kept += 1;
            }
            read += 1;
        }
        *o = u32::try_from(kept).unwrap_or(u32::MAX);
    }
    states.truncate(kept);
}

/// The ticks of one chunk to decode: `[from, to)` and the first tick at or past `to` (the frame a
/// player interpolates towards), thinned to at most one tick every `stride` ticks, in pieces of at
/// most about `max_states` entity states (docs/worker-protocol.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TickRange {
    pub from: u64,
    pub to: u64,
    /// 1 keeps every tick; `k` keeps a tick only `k` or more ticks after the last one kept (fast
    /// playback shows one frame in many: it needs no more).
    pub stride: u64,
    /// The piece ends before a kept tick whose states (counted as the entities live before it)
    /// would take it past this many; it always keeps one tick.
    pub max_states: usize,
}

/// One run of decoded ticks of a chunk: covers the ticks from the range's `from` (its first frame
/// is the world at the last tick at or before `from`, "carried over" when no tick falls on it) up
/// to `end`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Piece {
    /// The ticks kept, their states, and the events of every tick read in `[from, end)` (a thinned
    /// piece drops frames, never events).
    pub chunk: DecodedChunk,
    /// The first tick not covered (the chunk's next tick: the next range starts there), or `None`
    /// when the piece reached the chunk's end.
    pub end: Option<u64>,
}

impl DecodedChunk {
    /// The piece of this (whole) chunk that decoding range `r` gives: the same selection a `.flrep`
    /// range decode makes while rolling forward (`flrep::ChunkDecoder::decode_range`), for formats
    /// decoded whole. Skipped (unknown-kind) event records: a whole chunk knows only their total,
    /// which goes to the piece that starts the chunk (a `.flrep` range decode counts each piece's own).
    pub fn range(&self, r: TickRange) -> Piece {
        let mut out = Piece::default();
        out.chunk.offsets.push(0);
        let Some(&first) = self.ticks.first() else { return out };
        let from = r.from.max(first);
        let to = r.to.max(from.saturating_add(1));
        let stride = r.stride.max(1);
        let mut kept: Option<u64> = None;
        let mut prev: Option<usize> = None;
        let mut past_to = false;
        let keep = |out: &mut Piece, i: usize| {
            out.chunk.entities.extend_from_slice(self.tick_entities(i));
            out.chunk.ticks.push(self.ticks.get(i).copied().unwrap_or(0));
            out.chunk.offsets.push(out.chunk.entities.len() as u32);
        };
        for (i, &tick) in self.ticks.iter().enumerate() {
            if kept.is_none() && tick > from {
                if let Some(p) = prev {
                    keep(&mut out, p);
                    kept = self.ticks.get(p).copied();
                }
            }
            let live = prev.map_or(0, |p| self.tick_entities(p).len());
            let take = tick >= from && (tick >= to || kept.is_none_or(|k| tick.saturating_sub(k) >= stride));
            if past_to || (kept.is_some() && tick < to && take && out.chunk.entities.len() + live > r.max_states) {
                out.end = Some(tick);
                break;
            }
            past_to = tick >= to;
            if take {
                keep(&mut out, i);
                kept = Some(tick);
            }
            prev = Some(i);
        }
        if kept.is_none() {
            if let Some(p) = prev {
                keep(&mut out, p);
            }
        }
        let end = out.end.unwrap_or(u64::MAX);
        let inside = |t: u64| t >= from && t < end;
        if self.event_ticks.len() == self.events.len() && !self.event_ticks.is_empty() {
            for (e, &t) in self.events.iter().zip(&self.event_ticks) {
                if inside(t) {
                    out.chunk.events.push(e.clone());
                    out.chunk.event_ticks.push(t);
                }
            }
        } else {
            out.chunk.events = self.events.iter().filter(|e| inside(e.tick)).cloned().collect();
        }
        if from == first {
            out.chunk.skipped_events = self.skipped_events;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(ticks: &[&[u32]]) -> DecodedChunk {
        let mut c = DecodedChunk { offsets: vec![0], ..Default::default() };
        for (k, ids) in ticks.iter().enumerate() {
            c.ticks.push(k as u64 * 10);
            for &id in *ids {
                c.entities.push(EntityState { id, health: (k * 100) as u16 + id as u16, ..Default::default() });
            }
            c.offsets.push(c.entities.len() as u32);
        }
        c
    }

    #[test]
    fn retain_entities_keeps_the_ids_asked_for_in_every_tick() {
        let mut c = chunk(&[&[1, 2, 5, 9], &[2, 9], &[], &[1, 3, 5]]);
        c.retain_entities(&[5, 1]);
        assert_eq!(c.ticks, vec![0, 10, 20, 30]);
        assert_eq!(c.offsets, vec![0, 2, 2, 2, 4]);
        let kept: Vec<(u32, u16)> = c.entities.iter().map(|s| (s.id, s.health)).collect();
        assert_eq!(kept, vec![(1, 1), (5, 5), (1, 301), (5, 305)]);
        assert_eq!(c.tick_entities(3).len(), 2);
        // None asked for: every tick empty, the ticks kept.
        let mut c = chunk(&[&[1, 2], &[3]]);
        c.retain_entities(&[]);
        assert_eq!((c.offsets, c.entities.len(), c.ticks.len()), (vec![0, 0, 0], 0, 2));
        // Offsets past the states (not made by a reader, but never a panic) read as the end.
        let mut states = vec![EntityState { id: 4, ..Default::default() }];
        let mut offsets = vec![0, 7, 9];
        retain_states(&mut states, &mut offsets, &[4]);
        assert_eq!((offsets, states.len()), (vec![0, 1, 1], 1));
    }
}
