//! The chunk table every chunked format opens into: where each chunk lies in the file and the tick it
//! starts at. `.flrep` fills it from its index trailer or its forward scan (docs/format/flrep.md §13),
//! SparkEngine `.replay` from its frame-header scan (docs/format/spark-replay.md); [`super::Session`]
//! answers every chunk question (count, range, first tick, the chunk holding a tick) from it, whatever
//! the format.

/// One chunk as an opening knows it, before any of it is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkRef {
    /// Offset of its first byte (a `.flrep` chunk header, a SparkEngine frame header).
    pub offset: u64,
    /// Its bytes: the range `offset .. offset + len` is what its decoder takes (`.flrep`: header and
    /// frame, up to the next chunk).
    pub len: u64,
    /// The tick it starts at (a `.flrep` keyframe tick; a SparkEngine chunk's first kept frame).
    pub first_tick: u64,
}

/// An open recording's chunks in file order. Their first ticks increase strictly (each opening
/// refuses a file where they would not), so [`ChunkTable::for_tick`] is a binary search. Reads as a
/// slice of [`ChunkRef`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkTable(Vec<ChunkRef>);

impl ChunkTable {
    /// A table with no chunk (what a format without chunks answers).
    pub const EMPTY: ChunkTable = ChunkTable(Vec::new());

    pub fn with_capacity(n: usize) -> Self {
        ChunkTable(Vec::with_capacity(n))
    }

    /// Appends the next chunk (its first tick after the last one's: the opening checks that).
    pub fn push(&mut self, c: ChunkRef) {
        self.0.push(c);
    }

    /// File range `(offset, len)` holding chunk `i`.
    pub fn range(&self, i: usize) -> Option<(u64, u64)> {
        self.0.get(i).map(|c| (c.offset, c.len))
    }

    /// The tick chunk `i` starts at.
    pub fn first_tick(&self, i: usize) -> Option<u64> {
        self.0.get(i).map(|c| c.first_tick)
    }

    /// The chunk holding `tick`: the last one starting at or before it (0 before the first, and for
    /// an empty table).
    pub fn for_tick(&self, tick: u64) -> usize {
        self.0.partition_point(|c| c.first_tick <= tick).saturating_sub(1)
    }
}

impl std::ops::Deref for ChunkTable {
    type Target = [ChunkRef];
    fn deref(&self) -> &[ChunkRef] {
        &self.0
    }
}

impl From<Vec<ChunkRef>> for ChunkTable {
    fn from(v: Vec<ChunkRef>) -> Self {
        ChunkTable(v)
    }
}

impl FromIterator<ChunkRef> for ChunkTable {
    fn from_iter<I: IntoIterator<Item = ChunkRef>>(iter: I) -> Self {
        ChunkTable(iter.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a ChunkTable {
    type Item = &'a ChunkRef;
    type IntoIter = std::slice::Iter<'a, ChunkRef>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(ticks: &[u64]) -> ChunkTable {
        ticks.iter().enumerate().map(|(i, &t)| ChunkRef { offset: i as u64 * 100, len: 100, first_tick: t }).collect()
    }

    #[test]
    fn for_tick_is_the_last_chunk_starting_at_or_before() {
        let t = table(&[10, 20, 35]);
        let got: Vec<usize> = [0, 9, 10, 19, 20, 34, 35, u64::MAX].iter().map(|&k| t.for_tick(k)).collect();
        assert_eq!(got, [0, 0, 0, 0, 1, 1, 2, 2]);
        assert_eq!(ChunkTable::EMPTY.for_tick(5), 0);
    }

    #[test]
    fn range_and_first_tick_of_a_chunk() {
        let t = table(&[10, 20]);
        assert_eq!((t.range(1), t.first_tick(1)), (Some((100, 100)), Some(20)));
        assert_eq!((t.range(2), t.first_tick(2)), (None, None));
        assert_eq!(t.len(), 2);
    }
}
