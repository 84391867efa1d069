//! The divergence model: pure, no I/O. Given the indexes of one or more recordings, it says per
//! tick whether every peer's Level-1 hash agrees, finds the first divergent tick, and — from byte
//! ranges the caller reads on demand ([`Comparison::reads_for_tick`]) — which entities (Level 2) and
//! fields (Level 3) differ, with each peer's value decoded ([`ValueView`]).
//!
//! Merging files: every source keeps its own peers. Peer `p` of source `s` becomes one global peer
//! (numbered in source order, then peer id), labelled `peer p` for a single source and
//! `<label> peer p` for several, so two per-peer files that both call their peer `0` compare as two
//! peers. Peers are the ones each header declares (`0..peer_count`); a declared peer with no hash at
//! a tick makes that tick [`Status::Missing`].
//!
//! Every view type serialises (feature `json`) to the JSON the browser's divergence view consumes:
//! u64 entity ids and hashes as strings (exact in JavaScript), ticks as numbers.

use super::index::Index;
use super::scan::frames_in;
use super::value::ValueView;
use super::{Frame, Limits};
use std::collections::BTreeMap;

#[cfg(feature = "json")]
mod ser {
    pub fn u64_str<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn hash<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::format::foldback::hash_hex(*v))
    }
    pub fn hashes<S: serde::Serializer>(v: &[Option<u64>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|h| h.map(crate::format::foldback::hash_hex)))
    }
}

/// Agreement among peers at one tick (or for one entity or field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize), serde(rename_all = "snake_case"))]
pub enum Status {
    /// Every peer has a hash and they are all equal.
    Agree,
    /// At least two peers have different hashes.
    Disagree,
    /// Some peer has no hash; those that have one agree.
    Missing,
}

impl Status {
    pub fn of(hashes: &[Option<u64>]) -> Status {
        let mut first: Option<u64> = None;
        let mut missing = false;
        for h in hashes {
            match (h, first) {
                (None, _) => missing = true,
                (Some(h), None) => first = Some(*h),
                (Some(h), Some(f)) if *h != f => return Status::Disagree,
                _ => {}
            }
        }
        if missing {
            Status::Missing
        } else {
            Status::Agree
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Status::Agree => "agree",
            Status::Disagree => "disagree",
            Status::Missing => "missing",
        }
    }
}

/// One recording to compare: a label (file name) and its index.
pub struct Source<'a> {
    pub label: String,
    pub index: &'a Index,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct SourceInfo {
    pub source: usize,
    pub label: String,
    pub build_id: String,
    pub tick_rate_hz: u32,
    pub peer_count: u32,
    pub first_tick: Option<u64>,
    pub last_tick: Option<u64>,
    pub ended_cleanly: bool,
}

/// A global peer: `peer` is its position in every per-peer array of the views.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct PeerInfo {
    pub peer: usize,
    pub source: usize,
    pub peer_id: u16,
    pub label: String,
}

/// The whole comparison at a glance.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Summary {
    pub sources: Vec<SourceInfo>,
    pub peers: Vec<PeerInfo>,
    pub first_tick: Option<u64>,
    pub last_tick: Option<u64>,
    pub ticks: usize,
    pub agree: usize,
    pub disagree: usize,
    pub missing: usize,
    /// The first tick whose Level-1 hashes disagree.
    pub first_divergent_tick: Option<u64>,
    /// The first tick where some peer has no Level-1 hash.
    pub first_missing_tick: Option<u64>,
    pub warnings: Vec<String>,
}

/// One tick of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct TickRow {
    pub tick: u64,
    pub status: Status,
    /// Per global peer: the Level-1 hash (hex), or null.
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::hashes"))]
    pub hashes: Vec<Option<u64>>,
}

/// A run of consecutive ticks with one status (for a compact timeline strip).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Segment {
    pub from: u64,
    pub to: u64,
    pub status: Status,
}

/// A byte range to read from source `source` (then hand over as [`Bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Read {
    pub source: usize,
    pub offset: u64,
    pub len: u64,
}

/// Bytes read for a [`Read`].
#[derive(Clone, Copy, Debug)]
pub struct Bytes<'a> {
    pub source: usize,
    pub offset: u64,
    pub bytes: &'a [u8],
}

/// One entity at one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct EntityRow {
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::u64_str"))]
    pub entity: u64,
    pub status: Status,
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::hashes"))]
    pub hashes: Vec<Option<u64>>,
    pub fields: usize,
    pub fields_differing: usize,
}

/// Level-2 detail of one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct TickDetail {
    pub tick: u64,
    pub status: Option<Status>,
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::hashes"))]
    pub hashes: Vec<Option<u64>>,
    /// Every entity with a Level-2 or Level-3 frame at this tick, by id.
    pub entities: Vec<EntityRow>,
    /// Entities whose hashes disagree (all of them, even when `truncated`).
    pub entities_differing: usize,
    /// More entities than [`Comparison::MAX_DETAIL_CELLS`] allows: differing ones are kept first.
    pub truncated: bool,
    /// Frames in the ranges that could not be read (the rest still counts).
    pub errors: Vec<String>,
}

/// One peer's Level-3 frame for a field.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct PeerValue {
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::hash"))]
    pub hash: u64,
    pub value: ValueView,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct FieldRow {
    pub name: String,
    pub status: Status,
    /// Per global peer: its hash and value, or null.
    pub peers: Vec<Option<PeerValue>>,
}

/// Level-3 detail of one entity at one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct EntityDetail {
    pub tick: u64,
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::u64_str"))]
    pub entity: u64,
    pub status: Status,
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::hashes"))]
    pub hashes: Vec<Option<u64>>,
    /// Every field, by name (filter on `status` for the differing ones).
    pub fields: Vec<FieldRow>,
    pub fields_differing: usize,
    pub truncated: bool,
    pub errors: Vec<String>,
}

/// Where one field's history starts to differ.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct FieldHistory {
    #[cfg_attr(feature = "json", serde(serialize_with = "ser::u64_str"))]
    pub entity: u64,
    pub field: String,
    pub from: u64,
    pub to: u64,
    /// Ticks in `from..=to` where at least one peer had this field.
    pub ticks_seen: usize,
    /// The first tick where the peers' hashes for the field disagree.
    pub first_differing_tick: Option<u64>,
    /// The last tick before it where every peer had the field and agreed.
    pub last_agreeing_tick: Option<u64>,
    /// Each peer's value at `first_differing_tick`.
    pub values: Vec<Option<PeerValue>>,
    pub errors: Vec<String>,
}

/// The comparison of one or more recordings.
pub struct Comparison {
    sources: Vec<SourceInfo>,
    peers: Vec<PeerInfo>,
    /// (source, peer_id) → global peer, sorted.
    peer_map: Vec<((usize, u16), usize)>,
    ticks: Vec<u64>,
    /// Per row: the Level-1 hashes present, as (global peer, hash) sorted by peer. Sparse, so memory
    /// follows the hashes a file holds, not ticks × declared peers.
    hashes: Vec<Vec<(u32, u64)>>,
    status: Vec<Status>,
    /// Per source: (tick, start, end), sorted by tick.
    ranges: Vec<Vec<(u64, u64, u64)>>,
    warnings: Vec<String>,
    limits: Limits,
}

impl Comparison {
    /// One recording holding every peer.
    pub fn single(index: &Index) -> Comparison {
        Self::new(&[Source { label: String::new(), index }])
    }

    /// The comparison of `sources` under the default limits.
    pub fn new(sources: &[Source<'_>]) -> Comparison {
        Self::with_limits(sources, Limits::default())
    }

    /// The comparison of `sources`, reading the ranges it asks for under `limits` (those the
    /// sources were opened with).
    pub fn with_limits(sources: &[Source<'_>], limits: Limits) -> Comparison {
        let multi = sources.len() > 1;
        let mut infos = Vec::new();
        let mut peers = Vec::new();
        let mut peer_map = Vec::new();
        let mut warnings = Vec::new();
        for (s, src) in sources.iter().enumerate() {
            let h = &src.index.header;
            let label = if src.label.is_empty() && multi { format!("file {}", s + 1) } else { src.label.clone() };
            infos.push(SourceInfo {
                source: s,
                label: label.clone(),
                build_id: h.build_id_hex(),
                tick_rate_hz: h.tick_rate_hz,
                peer_count: h.peer_count,
                first_tick: src.index.first_tick(),
                last_tick: src.index.last_tick(),
                ended_cleanly: src.index.ended_cleanly(),
            });
            let count = h.peer_count.min(u32::from(u16::MAX) + 1);
            for p in 0..count {
                let id = p as u16;
                let g = peers.len();
                peers.push(PeerInfo {
                    peer: g,
                    source: s,
                    peer_id: id,
                    label: if multi { format!("{label} peer {id}") } else { format!("peer {id}") },
                });
                peer_map.push(((s, id), g));
            }
            for w in src.index.warnings() {
                warnings.push(if multi || !label.is_empty() { format!("{label}: {w}") } else { w });
            }
        }
        if let Some(first) = infos.first() {
            for o in infos.iter().skip(1) {
                if o.build_id != first.build_id {
                    warnings.push(format!(
                        "{} was recorded against a different build (build {}) than {} (build {})",
                        o.label, o.build_id, first.label, first.build_id
                    ));
                }
                if o.tick_rate_hz != first.tick_rate_hz {
                    warnings.push(format!(
                        "{} runs at {} Hz, {} at {} Hz: ticks are compared by number",
                        o.label, o.tick_rate_hz, first.label, first.tick_rate_hz
                    ));
                }
            }
        }
        if peers.len() < 2 {
            warnings.push(format!(
                "{} peer{} in all: nothing to compare",
                peers.len(),
                if peers.len() == 1 { "" } else { "s" }
            ));
        }
        // Merge the sources' ticks (each index is sorted by tick).
        let mut merged: BTreeMap<u64, Vec<(u32, u64)>> = BTreeMap::new();
        let mut ranges = Vec::new();
        for (s, src) in sources.iter().enumerate() {
            let mut r = Vec::with_capacity(src.index.ticks.len());
            for t in src.index.ticks.values() {
                r.push((t.tick, t.start, t.end));
                let row = merged.entry(t.tick).or_default();
                for ph in &t.hashes {
                    if let Some(g) = lookup(&peer_map, s, ph.peer) {
                        row.push((g as u32, ph.hash));
                    }
                }
            }
            ranges.push(r);
        }
        let np = peers.len();
        let mut ticks = Vec::with_capacity(merged.len());
        let mut hashes = Vec::with_capacity(merged.len());
        let mut status = Vec::with_capacity(merged.len());
        for (t, mut row) in merged {
            row.sort_unstable_by_key(|e| e.0);
            status.push(sparse_status(&row, np));
            ticks.push(t);
            hashes.push(row);
        }
        Comparison { sources: infos, peers, peer_map, ticks, hashes, status, ranges, warnings, limits }
    }

    pub fn peers(&self) -> &[PeerInfo] {
        &self.peers
    }
    pub fn sources(&self) -> &[SourceInfo] {
        &self.sources
    }
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
    /// Every tick any source has, sorted.
    pub fn ticks(&self) -> &[u64] {
        &self.ticks
    }

    fn row(&self, tick: u64) -> Option<usize> {
        self.ticks.binary_search(&tick).ok()
    }

    fn row_hashes(&self, row: usize) -> Vec<Option<u64>> {
        let mut out = vec![None; self.peers.len()];
        for (g, h) in self.hashes.get(row).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(slot) = out.get_mut(*g as usize) {
                *slot = Some(*h);
            }
        }
        out
    }

    pub fn status(&self, tick: u64) -> Option<Status> {
        self.row(tick).and_then(|r| self.status.get(r).copied())
    }

    pub fn first_divergence(&self) -> Option<u64> {
        self.first_with(Status::Disagree)
    }

    fn first_with(&self, s: Status) -> Option<u64> {
        self.status.iter().position(|x| *x == s).and_then(|r| self.ticks.get(r).copied())
    }

    pub fn summary(&self) -> Summary {
        let count = |s: Status| self.status.iter().filter(|x| **x == s).count();
        Summary {
            sources: self.sources.clone(),
            peers: self.peers.clone(),
            first_tick: self.ticks.first().copied(),
            last_tick: self.ticks.last().copied(),
            ticks: self.ticks.len(),
            agree: count(Status::Agree),
            disagree: count(Status::Disagree),
            missing: count(Status::Missing),
            first_divergent_tick: self.first_divergence(),
            first_missing_tick: self.first_with(Status::Missing),
            warnings: self.warnings.clone(),
        }
    }

    /// Ticks in `from..=to`, at most `limit` rows.
    pub fn timeline(&self, from: u64, to: u64, limit: usize) -> Vec<TickRow> {
        let lo = self.ticks.partition_point(|t| *t < from);
        let hi = self.ticks.partition_point(|t| *t <= to);
        (lo..hi)
            .take(limit)
            .filter_map(|r| {
                Some(TickRow { tick: *self.ticks.get(r)?, status: *self.status.get(r)?, hashes: self.row_hashes(r) })
            })
            .collect()
    }

    /// The whole timeline as runs of equal status (ticks missing from every source split runs).
    pub fn segments(&self) -> Vec<Segment> {
        let mut out: Vec<Segment> = Vec::new();
        for (t, s) in self.ticks.iter().zip(&self.status) {
            match out.last_mut() {
                Some(l) if l.status == *s && l.to.checked_add(1) == Some(*t) => l.to = *t,
                _ => out.push(Segment { from: *t, to: *t, status: *s }),
            }
        }
        out
    }

    /// The ranges holding every frame of `tick`, one per source that has it.
    pub fn reads_for_tick(&self, tick: u64) -> Vec<Read> {
        self.reads_for_span(tick, tick)
    }

    /// The ranges holding every frame of the ticks `from..=to`, one per source.
    pub fn reads_for_span(&self, from: u64, to: u64) -> Vec<Read> {
        let mut out = Vec::new();
        for (s, r) in self.ranges.iter().enumerate() {
            let lo = r.partition_point(|e| e.0 < from);
            let hi = r.partition_point(|e| e.0 <= to);
            let Some(span) = r.get(lo..hi) else { continue };
            if let (Some(start), Some(end)) = (span.iter().map(|e| e.1).min(), span.iter().map(|e| e.2).max()) {
                if end > start {
                    out.push(Read { source: s, offset: start, len: end - start });
                }
            }
        }
        out
    }

    fn global(&self, source: usize, peer: u16) -> Option<usize> {
        lookup(&self.peer_map, source, peer)
    }

    /// Calls `f(global_peer, frame)` for each Level-2/3 frame in `data` whose tick is in `from..=to`.
    fn each_frame<'d>(
        &self,
        data: &[Bytes<'d>],
        from: u64,
        to: u64,
        errors: &mut Vec<String>,
        mut f: impl FnMut(usize, Frame<'d>),
    ) {
        for b in data {
            for (_, r) in frames_in(b.bytes, b.offset, &self.limits) {
                match r {
                    Ok(frame) => {
                        let (Some(t), Some(p)) = (frame.tick(), frame.peer()) else { continue };
                        if t < from || t > to {
                            continue;
                        }
                        if let Some(g) = self.global(b.source, p) {
                            f(g, frame);
                        }
                    }
                    Err(e) => {
                        if errors.len() < 16 {
                            errors.push(e.to_string());
                        }
                    }
                }
            }
        }
    }

    /// Most per-peer cells (rows × peers) one detail view returns; past it, rows are cut (differing
    /// rows first) and `truncated` is set. Bounds memory on hostile input.
    pub const MAX_DETAIL_CELLS: usize = 4 * 1024 * 1024;

    fn max_rows(&self) -> usize {
        (Self::MAX_DETAIL_CELLS / self.peers.len().max(1)).max(1)
    }

    fn dense(&self, sparse: &[(u32, u64)]) -> Vec<Option<u64>> {
        let mut out = vec![None; self.peers.len()];
        for (g, h) in sparse {
            if let Some(slot) = out.get_mut(*g as usize) {
                *slot = Some(*h);
            }
        }
        out
    }

    /// Level-2 detail of `tick` from the bytes of [`Self::reads_for_tick`].
    pub fn tick_detail(&self, tick: u64, data: &[Bytes<'_>]) -> TickDetail {
        let np = self.peers.len();
        let mut errors = Vec::new();
        // entity → (entity hashes, field name → field hashes), sparse by global peer.
        type Sparse = Vec<(u32, u64)>;
        let mut ents: BTreeMap<u64, (Sparse, BTreeMap<&str, Sparse>)> = BTreeMap::new();
        self.each_frame(data, tick, tick, &mut errors, |g, f| match f {
            Frame::EntityHash { entity, hash, .. } => set_first(&mut ents.entry(entity).or_default().0, g, hash),
            Frame::FieldHash { entity, name, hash, .. } => {
                set_first(ents.entry(entity).or_default().1.entry(name).or_default(), g, hash)
            }
            _ => {}
        });
        let mut rows: Vec<(bool, EntityRow)> = Vec::with_capacity(ents.len());
        for (entity, (hashes, fields)) in ents {
            let fields_differing = fields.values().filter(|h| sparse_status(h, np) == Status::Disagree).count();
            let mut status = sparse_status(&hashes, np);
            // Without Level-2 frames, Level 3 decides.
            if hashes.is_empty() && !fields.is_empty() {
                status = if fields_differing > 0 {
                    Status::Disagree
                } else if fields.values().all(|h| sparse_status(h, np) == Status::Agree) {
                    Status::Agree
                } else {
                    Status::Missing
                };
            }
            rows.push((
                status == Status::Disagree,
                EntityRow { entity, status, hashes: Vec::new(), fields: fields.len(), fields_differing },
            ));
        }
        let entities_differing = rows.iter().filter(|r| r.0).count();
        let truncated = rows.len() > self.max_rows();
        if truncated {
            // Keep the differing entities first, then the others, in id order within each.
            rows.sort_by_key(|r| !r.0);
            rows.truncate(self.max_rows());
            rows.sort_by_key(|r| r.1.entity);
        }
        let mut entities: Vec<EntityRow> = rows.into_iter().map(|r| r.1).collect();
        // Dense per-peer hashes only for the rows returned (second pass over the same bytes).
        if !entities.is_empty() {
            let mut dense: BTreeMap<u64, Sparse> = entities.iter().map(|e| (e.entity, Vec::new())).collect();
            let mut ignore = Vec::new();
            self.each_frame(data, tick, tick, &mut ignore, |g, f| {
                if let Frame::EntityHash { entity, hash, .. } = f {
                    if let Some(v) = dense.get_mut(&entity) {
                        set_first(v, g, hash);
                    }
                }
            });
            for e in &mut entities {
                e.hashes = self.dense(dense.get(&e.entity).map(Vec::as_slice).unwrap_or(&[]));
            }
        }
        let row = self.row(tick);
        TickDetail {
            tick,
            status: row.and_then(|r| self.status.get(r).copied()),
            hashes: row.map(|r| self.row_hashes(r)).unwrap_or_else(|| vec![None; np]),
            entities_differing,
            entities,
            truncated,
            errors,
        }
    }

    /// Level-3 detail of `entity` at `tick` from the bytes of [`Self::reads_for_tick`].
    pub fn entity_detail(&self, tick: u64, entity: u64, data: &[Bytes<'_>]) -> EntityDetail {
        let np = self.peers.len();
        let mut errors = Vec::new();
        let mut hashes = Vec::new();
        let mut fields: BTreeMap<&str, Vec<(u32, u64)>> = BTreeMap::new();
        self.each_frame(data, tick, tick, &mut errors, |g, f| match f {
            Frame::EntityHash { entity: e, hash, .. } if e == entity => set_first(&mut hashes, g, hash),
            Frame::FieldHash { entity: e, name, hash, .. } if e == entity => {
                set_first(fields.entry(name).or_default(), g, hash)
            }
            _ => {}
        });
        let mut rows: Vec<(&str, Status)> = fields.iter().map(|(n, h)| (*n, sparse_status(h, np))).collect();
        let fields_differing = rows.iter().filter(|r| r.1 == Status::Disagree).count();
        let truncated = rows.len() > self.max_rows();
        if truncated {
            rows.sort_by_key(|r| r.1 != Status::Disagree);
            rows.truncate(self.max_rows());
            rows.sort_by_key(|r| r.0);
        }
        // Values only for the rows returned.
        let mut values: BTreeMap<&str, Vec<Option<PeerValue>>> = rows.iter().map(|r| (r.0, vec![None; np])).collect();
        let mut ignore = Vec::new();
        self.each_frame(data, tick, tick, &mut ignore, |g, f| {
            if let Frame::FieldHash { entity: e, name, hash, value, .. } = f {
                if e == entity {
                    if let Some(Some(s @ None)) = values.get_mut(name).map(|v| v.get_mut(g)) {
                        *s = Some(PeerValue { hash, value: ValueView::of(value) });
                    }
                }
            }
        });
        let fields: Vec<FieldRow> = rows
            .into_iter()
            .map(|(name, status)| FieldRow {
                name: name.to_owned(),
                status,
                peers: values.remove(name).unwrap_or_default(),
            })
            .collect();
        let mut status = sparse_status(&hashes, np);
        if hashes.is_empty() && !fields.is_empty() {
            status = if fields_differing > 0 { Status::Disagree } else { Status::Missing };
        }
        EntityDetail { tick, entity, status, hashes: self.dense(&hashes), fields, fields_differing, truncated, errors }
    }

    /// Where `entity`'s `field` starts to differ within `from..=to`, from the bytes of
    /// [`Self::reads_for_span`]. For long recordings call it span by span (e.g. from
    /// [`Self::first_divergence`] on) and stop at the first span that finds a difference.
    pub fn field_history(&self, entity: u64, field: &str, from: u64, to: u64, data: &[Bytes<'_>]) -> FieldHistory {
        let np = self.peers.len();
        let mut errors = Vec::new();
        let mut per_tick: BTreeMap<u64, Vec<(u32, u64)>> = BTreeMap::new();
        self.each_frame(data, from, to, &mut errors, |g, f| {
            if let Frame::FieldHash { tick, entity: e, name, hash, .. } = f {
                if e == entity && name == field {
                    set_first(per_tick.entry(tick).or_default(), g, hash);
                }
            }
        });
        let mut first = None;
        let mut last_agree = None;
        for (t, hs) in &per_tick {
            match sparse_status(hs, np) {
                Status::Disagree => {
                    first = Some(*t);
                    break;
                }
                Status::Agree => last_agree = Some(*t),
                Status::Missing => {}
            }
        }
        let mut values = vec![None; np];
        if let Some(ft) = first {
            let mut ignore = Vec::new();
            self.each_frame(data, ft, ft, &mut ignore, |g, f| {
                if let Frame::FieldHash { entity: e, name, hash, value, .. } = f {
                    if e == entity && name == field {
                        if let Some(s @ None) = values.get_mut(g) {
                            *s = Some(PeerValue { hash, value: ValueView::of(value) });
                        }
                    }
                }
            });
        }
        FieldHistory {
            entity,
            field: field.to_owned(),
            from,
            to,
            ticks_seen: per_tick.len(),
            first_differing_tick: first,
            last_agreeing_tick: last_agree,
            values,
            errors,
        }
    }
}

fn sparse_status(row: &[(u32, u64)], peers: usize) -> Status {
    let mut it = row.iter().map(|e| e.1);
    if let Some(first) = it.next() {
        if it.any(|h| h != first) {
            return Status::Disagree;
        }
    }
    if row.len() < peers {
        Status::Missing
    } else {
        Status::Agree
    }
}

fn lookup(map: &[((usize, u16), usize)], source: usize, peer: u16) -> Option<usize> {
    map.binary_search_by_key(&(source, peer), |e| e.0).ok().and_then(|i| map.get(i)).map(|e| e.1)
}

/// Records `peer`'s hash unless it already has one (the first frame wins).
fn set_first(v: &mut Vec<(u32, u64)>, peer: usize, hash: u64) {
    let g = peer as u32;
    if !v.iter().any(|e| e.0 == g) {
        v.push((g, hash));
    }
}
