//! Comparing two recordings tick by tick: the determinism gate (docs/playback.md "Comparing two
//! recordings"). Pure: a [`TickComparer`] is handed the chunks of recording A and of recording B as
//! they are decoded, in order, holding at most one chunk of each, and says which side it needs next
//! until it has an [`Outcome`]. `format::compare::Comparison` drives it over two sessions.
//!
//! The k-th tick of A is compared with the k-th tick of B (as `replay hash` lists them): they are
//! the same when their tick numbers are equal and their entity states are equal field for field.
//! Equal states hash equal under [`state_hash`] (it hashes exactly these fields), so "identical"
//! here means `replay hash` prints the same lines; the comparison is exact, not by hash, so no
//! collision can hide a difference. Events are not compared (they follow from the states).

use super::{state_hash, DecodedChunk, EntityState, FormatKind, RecordingInfo, WorldKind};

/// One of the two recordings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// One field of one entity that differs, with both values (the quantized integers the files hold:
/// `pos.*` in position quanta, `vel.*` in velocity quanta, `orient.*` × 32767, health in hundredths).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    pub field: &'static str,
    pub a: i64,
    pub b: i64,
}

/// Whether an entity that differs is in both ticks or in one of them only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    Both,
    OnlyA,
    OnlyB,
}

/// An entity that differs at the divergent tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntityDiff {
    pub id: u32,
    pub presence: Presence,
    /// The fields that differ (empty unless the entity is in both).
    pub fields: Vec<FieldDiff>,
}

/// Entities listed at most in a [`Divergence`] (the count of all that differ is kept).
pub const MAX_REPORTED_ENTITIES: usize = 64;

/// The first tick where the recordings differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Ticks compared equal before it.
    pub identical_ticks: u64,
    pub tick_a: u64,
    pub tick_b: u64,
    /// The `replay hash` values of the two ticks.
    pub hash_a: u64,
    pub hash_b: u64,
    /// The entities that differ, by id (at most [`MAX_REPORTED_ENTITIES`]).
    pub entities: Vec<EntityDiff>,
    /// How many entities differ in all.
    pub entities_differing: usize,
}

/// What comparing two recordings found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every tick the same, and both ended together: `ticks` ticks, the last one `last_tick` (A's
    /// numbering; B's is `last_tick_b`).
    Identical {
        ticks: u64,
        last_tick: u64,
        last_tick_b: u64,
    },
    Diverged(Divergence),
    /// Identical for `ticks` ticks (the last one `last_tick` in A's numbering, `None` when none),
    /// then `ended` had no more ticks while the other went on with tick `next_tick`.
    Shorter {
        ticks: u64,
        last_tick: Option<u64>,
        ended: Side,
        next_tick: u64,
    },
    /// The files are not recordings of one session: why (each reason names both values).
    Mismatched {
        reasons: Vec<String>,
    },
}

/// Why `a` and `b` cannot be compared tick by tick (empty when they can): a comparison means
/// something only between recordings of one session, with the same tick rate, quanta and world.
/// The header identity is the session's start time and mission id; a converted file keeps them
/// (`io::convert`), so a SparkEngine `.replay` and its `.flrep` compare.
pub fn why_not_comparable(a: &RecordingInfo, b: &RecordingInfo) -> Vec<String> {
    let mut why = Vec::new();
    for (side, i) in [(Side::A, a), (Side::B, b)] {
        if i.format == FormatKind::Foldback {
            why.push(format!(
                "{} is a .foldback recording: it holds hashes, not entity states (replay diverge compares its peers)",
                side.name()
            ));
        }
    }
    if !why.is_empty() {
        return why;
    }
    if a.tick_rate_hz != b.tick_rate_hz {
        why.push(format!("tick rate {} Hz (A) vs {} Hz (B)", a.tick_rate_hz, b.tick_rate_hz));
    }
    if a.start_unix_seconds != b.start_unix_seconds {
        why.push(format!("session start {} (A) vs {} (B) unix seconds", a.start_unix_seconds, b.start_unix_seconds));
    }
    if a.mission_id != b.mission_id {
        why.push(format!("mission {:?} (A) vs {:?} (B)", a.mission_id, b.mission_id));
    }
    if a.world != b.world {
        why.push(format!("world {} (A) vs {} (B)", world_name(a.world), world_name(b.world)));
    }
    if a.position_quantum_m.to_bits() != b.position_quantum_m.to_bits() {
        why.push(format!("position quantum {} m (A) vs {} m (B)", a.position_quantum_m, b.position_quantum_m));
    }
    if a.velocity_quantum_mps.to_bits() != b.velocity_quantum_mps.to_bits() {
        why.push(format!("velocity quantum {} m/s (A) vs {} m/s (B)", a.velocity_quantum_mps, b.velocity_quantum_mps));
    }
    why
}

fn world_name(w: WorldKind) -> String {
    match w {
        WorldKind::Planet { radius_m } => format!("planet of radius {radius_m} m"),
        WorldKind::Flat => "flat".into(),
    }
}

/// The fields of `a` and `b` (one entity) that differ, in the canonical order of [`state_hash`].
pub fn field_diffs(a: &EntityState, b: &EntityState) -> Vec<FieldDiff> {
    const POS: [&str; 3] = ["pos.x", "pos.y", "pos.z"];
    const ORIENT: [&str; 4] = ["orient.x", "orient.y", "orient.z", "orient.w"];
    const VEL: [&str; 3] = ["vel.x", "vel.y", "vel.z"];
    let mut out = Vec::new();
    let mut cmp = |field: &'static str, x: i64, y: i64| {
        if x != y {
            out.push(FieldDiff { field, a: x, b: y });
        }
    };
    cmp("type", a.type_index.into(), b.type_index.into());
    cmp("faction", a.faction.into(), b.faction.into());
    for ((f, x), y) in POS.iter().zip(a.pos).zip(b.pos) {
        cmp(f, x.into(), y.into());
    }
    for ((f, x), y) in ORIENT.iter().zip(a.orient).zip(b.orient) {
        cmp(f, x.into(), y.into());
    }
    for ((f, x), y) in VEL.iter().zip(a.vel).zip(b.vel) {
        cmp(f, x.into(), y.into());
    }
    cmp("health", a.health.into(), b.health.into());
    cmp("flags", a.flags.into(), b.flags.into());
    cmp("anim", a.anim.into(), b.anim.into());
    out
}

/// The entities of two ticks (each sorted by id, as readers keep them) that differ: at most `max`
/// listed, and how many in all.
pub fn entity_diffs(a: &[EntityState], b: &[EntityState], max: usize) -> (Vec<EntityDiff>, usize) {
    let mut out = Vec::new();
    let mut count = 0usize;
    let mut push = |d: EntityDiff| {
        count += 1;
        if out.len() < max {
            out.push(d);
        }
    };
    let (mut i, mut j) = (a.iter().peekable(), b.iter().peekable());
    loop {
        match (i.peek(), j.peek()) {
            (Some(x), Some(y)) if x.id == y.id => {
                if x != y {
                    push(EntityDiff { id: x.id, presence: Presence::Both, fields: field_diffs(x, y) });
                }
                i.next();
                j.next();
            }
            (Some(x), Some(y)) if x.id < y.id => {
                push(EntityDiff { id: x.id, presence: Presence::OnlyA, fields: Vec::new() });
                i.next();
            }
            (Some(x), None) => {
                push(EntityDiff { id: x.id, presence: Presence::OnlyA, fields: Vec::new() });
                i.next();
            }
            (_, Some(y)) => {
                push(EntityDiff { id: y.id, presence: Presence::OnlyB, fields: Vec::new() });
                j.next();
            }
            (None, None) => break,
        }
    }
    (out, count)
}

/// One side's chunk being compared and where in it the comparison is.
#[derive(Default)]
struct Cursor {
    chunk: DecodedChunk,
    at: usize,
    ended: bool,
}

impl Cursor {
    fn tick(&self) -> Option<u64> {
        self.chunk.ticks.get(self.at).copied()
    }
    fn states(&self) -> &[EntityState] {
        self.chunk.tick_entities(self.at)
    }
    /// The next tick; a chunk compared to its end is dropped at once, so that the next one's decode
    /// reuses its memory (the peak is one chunk per side, not two).
    fn advance(&mut self) {
        self.at += 1;
        if self.at >= self.chunk.ticks.len() {
            self.chunk = DecodedChunk::default();
            self.at = 0;
        }
    }
}

/// Compares the ticks of two recordings as their chunks arrive (see the module comment). Holds at
/// most one decoded chunk per side.
#[derive(Default)]
pub struct TickComparer {
    a: Cursor,
    b: Cursor,
    compared: u64,
    last: Option<(u64, u64)>,
    outcome: Option<Outcome>,
}

impl TickComparer {
    pub fn new() -> Self {
        Self::default()
    }

    /// The side whose next chunk (or [`end`](Self::end)) is needed; `None` once there is an outcome.
    pub fn needs(&self) -> Option<Side> {
        if self.outcome.is_some() {
            return None;
        }
        if self.a.tick().is_none() && !self.a.ended {
            return Some(Side::A);
        }
        if self.b.tick().is_none() && !self.b.ended {
            return Some(Side::B);
        }
        None
    }

    /// The next chunk of `side` (the previous one is dropped: it was compared to its end).
    pub fn push(&mut self, side: Side, chunk: DecodedChunk) {
        let c = self.cursor(side);
        c.chunk = chunk;
        c.at = 0;
        self.run();
    }

    /// `side` has no more chunks.
    pub fn end(&mut self, side: Side) {
        self.cursor(side).ended = true;
        self.run();
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Ticks compared equal so far.
    pub fn compared(&self) -> u64 {
        self.compared
    }

    /// The last ticks compared equal (A's, B's).
    pub fn last(&self) -> Option<(u64, u64)> {
        self.last
    }

    fn cursor(&mut self, side: Side) -> &mut Cursor {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    fn run(&mut self) {
        if self.outcome.is_some() {
            return;
        }
        loop {
            match (self.a.tick(), self.b.tick()) {
                (Some(ta), Some(tb)) => {
                    let (sa, sb) = (self.a.states(), self.b.states());
                    if ta != tb || sa != sb {
                        let (entities, entities_differing) = entity_diffs(sa, sb, MAX_REPORTED_ENTITIES);
                        self.outcome = Some(Outcome::Diverged(Divergence {
                            identical_ticks: self.compared,
                            tick_a: ta,
                            tick_b: tb,
                            hash_a: state_hash(sa),
                            hash_b: state_hash(sb),
                            entities,
                            entities_differing,
                        }));
                        return;
                    }
                    self.compared += 1;
                    self.last = Some((ta, tb));
                    self.a.advance();
                    self.b.advance();
                }
                (None, _) if !self.a.ended => return,
                (_, None) if !self.b.ended => return,
                (None, None) => {
                    let (last_tick, last_tick_b) = self.last.unwrap_or((0, 0));
                    self.outcome = Some(Outcome::Identical { ticks: self.compared, last_tick, last_tick_b });
                    return;
                }
                (Some(next), None) | (None, Some(next)) => {
                    let ended = if self.a.tick().is_none() { Side::A } else { Side::B };
                    self.outcome = Some(Outcome::Shorter {
                        ticks: self.compared,
                        last_tick: self.last.map(|l| l.0),
                        ended,
                        next_tick: next,
                    });
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(ticks: &[(u64, Vec<EntityState>)]) -> DecodedChunk {
        let mut c = DecodedChunk { offsets: vec![0], ..Default::default() };
        for (t, s) in ticks {
            c.ticks.push(*t);
            c.entities.extend_from_slice(s);
            c.offsets.push(c.entities.len() as u32);
        }
        c
    }

    fn e(id: u32, x: i32) -> EntityState {
        EntityState { id, pos: [x, 0, 0], ..Default::default() }
    }

    #[test]
    fn chunks_of_different_lengths_compare_tick_by_tick() {
        let mut t = TickComparer::new();
        assert_eq!(t.needs(), Some(Side::A));
        t.push(Side::A, chunk(&[(0, vec![e(1, 0)]), (1, vec![e(1, 1)]), (2, vec![e(1, 2)])]));
        assert_eq!(t.needs(), Some(Side::B));
        t.push(Side::B, chunk(&[(0, vec![e(1, 0)])]));
        assert_eq!((t.needs(), t.compared()), (Some(Side::B), 1));
        t.push(Side::B, chunk(&[(1, vec![e(1, 1)]), (2, vec![e(1, 2)])]));
        assert_eq!(t.needs(), Some(Side::A));
        t.end(Side::A);
        t.end(Side::B);
        assert_eq!(t.outcome(), Some(&Outcome::Identical { ticks: 3, last_tick: 2, last_tick_b: 2 }));
    }

    #[test]
    fn the_first_divergent_tick_names_entities_and_fields() {
        let mut t = TickComparer::new();
        t.push(Side::A, chunk(&[(0, vec![e(1, 0), e(2, 0)]), (1, vec![e(1, 5), e(2, 0), e(3, 0)])]));
        t.push(Side::B, chunk(&[(0, vec![e(1, 0), e(2, 0)]), (1, vec![e(1, 7), e(2, 0), e(4, 0)])]));
        let Some(Outcome::Diverged(d)) = t.outcome() else { panic!("{:?}", t.outcome()) };
        assert_eq!((d.identical_ticks, d.tick_a, d.tick_b, d.entities_differing), (1, 1, 1, 3));
        assert_eq!(d.entities[0].fields, vec![FieldDiff { field: "pos.x", a: 5, b: 7 }]);
        assert_eq!(d.entities[1].presence, Presence::OnlyA);
        assert_eq!((d.entities[2].id, d.entities[2].presence), (4, Presence::OnlyB));
        assert_ne!(d.hash_a, d.hash_b);
        assert_eq!(t.needs(), None);
    }

    #[test]
    fn a_shorter_recording_says_which_ended() {
        let mut t = TickComparer::new();
        t.push(Side::A, chunk(&[(0, vec![e(1, 0)]), (1, vec![e(1, 1)])]));
        t.push(Side::B, chunk(&[(0, vec![e(1, 0)])]));
        t.end(Side::B);
        assert_eq!(t.outcome(), Some(&Outcome::Shorter { ticks: 1, last_tick: Some(0), ended: Side::B, next_tick: 1 }));
    }

    #[test]
    fn listed_entities_are_bounded_and_counted() {
        let a: Vec<EntityState> = (0..500).map(|i| e(i, 0)).collect();
        let b: Vec<EntityState> = (0..500).map(|i| e(i, 1)).collect();
        let (listed, all) = entity_diffs(&a, &b, MAX_REPORTED_ENTITIES);
        assert_eq!((listed.len(), all), (MAX_REPORTED_ENTITIES, 500));
    }
}
