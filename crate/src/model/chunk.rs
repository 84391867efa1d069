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
    /// Approximate heap bytes held (for byte-bounded caches).
    pub fn heap_bytes(&self) -> usize {
        self.ticks.len() * 8 + self.offsets.len() * 4 + self.entities.len() * std::mem::size_of::<EntityState>() + self.events.len() * 64
    }
}

