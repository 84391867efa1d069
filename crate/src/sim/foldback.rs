//! A deterministic toy lockstep session for `.foldback`: 2+ peers run the same simulation (entities
//! with `position.x`/`position.y`/`velocity.x` f32, `health` i32, `energy` f64, `name` string) and
//! emit Level 1 (TickHash), Level 2 (EntityHash), Level 3 (FieldHash with values), zstd Snapshots
//! every N ticks and Metadata. A desync can be injected at a chosen tick, entity and field on one
//! peer: floats move by a few ulps (a rounding difference), integers by 1, strings gain a `!`. It
//! then propagates: `energy` accumulates `position.x` of the tick before, so a `position.x` desync
//! at tick T makes `energy` differ from T+1 on.
//!
//! Same config, same bytes.

use super::Rng;
use crate::format::foldback::{encode_frame, Frame, Header, Limits, WriteError, Writer};

/// The fields every entity has, in emission order.
pub const FIELDS: [&str; 6] = ["position.x", "position.y", "velocity.x", "health", "energy", "name"];

#[derive(Clone, Debug, PartialEq)]
pub struct Desync {
    pub tick: u64,
    pub entity: u64,
    pub field: String,
    /// The peer that diverges.
    pub peer: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FoldbackConfig {
    pub seed: u64,
    pub peers: u16,
    pub ticks: u64,
    pub first_tick: u64,
    pub entities: u32,
    pub tick_rate_hz: u32,
    /// A Snapshot per peer every this many ticks (0: none).
    pub snapshot_every: u64,
    /// Emit Level 2 and Level 3 frames (Level 1 is always emitted).
    pub detail: bool,
    pub desync: Option<Desync>,
}

impl Default for FoldbackConfig {
    fn default() -> Self {
        FoldbackConfig {
            seed: 1,
            peers: 2,
            ticks: 600,
            first_tick: 0,
            entities: 4,
            tick_rate_hz: 60,
            snapshot_every: 60,
            detail: true,
            desync: None,
        }
    }
}

/// The id of entity number `k` (ids are not 0-based on purpose).
pub fn entity_id(k: u32) -> u64 {
    100 + u64::from(k)
}

#[derive(Clone, Debug, PartialEq)]
struct Unit {
    id: u64,
    px: f32,
    py: f32,
    vx: f32,
    health: i32,
    energy: f64,
    name: String,
}

impl Unit {
    fn value(&self, field: &str) -> Vec<u8> {
        match field {
            "position.x" => self.px.to_le_bytes().to_vec(),
            "position.y" => self.py.to_le_bytes().to_vec(),
            "velocity.x" => self.vx.to_le_bytes().to_vec(),
            "health" => self.health.to_le_bytes().to_vec(),
            "energy" => self.energy.to_le_bytes().to_vec(),
            _ => self.name.as_bytes().to_vec(),
        }
    }

    fn nudge(&mut self, field: &str) {
        let ulps = |x: f32| f32::from_bits(x.to_bits().wrapping_add(3));
        match field {
            "position.x" => self.px = ulps(self.px),
            "position.y" => self.py = ulps(self.py),
            "velocity.x" => self.vx = ulps(self.vx),
            "health" => self.health = self.health.wrapping_add(1),
            "energy" => self.energy = f64::from_bits(self.energy.to_bits().wrapping_add(3)),
            _ => self.name.push('!'),
        }
    }
}

/// FNV-1a 64: the toy game's hash (a real game brings its own; the format does not interpret hashes).
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    h
}

pub struct FoldbackSim {
    cfg: FoldbackConfig,
    /// One world per peer.
    worlds: Vec<Vec<Unit>>,
    steps: u64,
    tick: u64,
    limits: Limits,
}

impl FoldbackSim {
    pub fn new(cfg: FoldbackConfig) -> Result<Self, String> {
        if cfg.peers == 0 {
            return Err("a session needs at least 1 peer".into());
        }
        if cfg.entities == 0 || cfg.entities > 100_000 {
            return Err(format!("entities must be 1..=100000, not {}", cfg.entities));
        }
        if let Some(d) = &cfg.desync {
            if !FIELDS.contains(&d.field.as_str()) {
                return Err(format!("desync field {:?} is not one of {}", d.field, FIELDS.join(", ")));
            }
            if d.entity < entity_id(0) || d.entity >= entity_id(cfg.entities) {
                return Err(format!(
                    "desync entity {} is not one of {}..={}",
                    d.entity,
                    entity_id(0),
                    entity_id(cfg.entities - 1)
                ));
            }
            if d.peer >= cfg.peers {
                return Err(format!("desync peer {} is not one of 0..{}", d.peer, cfg.peers));
            }
        }
        let mut rng = Rng::new(cfg.seed);
        let units: Vec<Unit> = (0..cfg.entities)
            .map(|k| Unit {
                id: entity_id(k),
                px: rng.range(-10.0, 10.0) as f32,
                py: rng.range(-10.0, 10.0) as f32,
                vx: rng.range(-2.0, 2.0) as f32,
                health: 100,
                energy: 0.0,
                name: if k == 2 { format!("ünit-{k}") } else { format!("unit-{k}") },
            })
            .collect();
        let worlds = vec![units; usize::from(cfg.peers)];
        Ok(FoldbackSim { tick: cfg.first_tick, cfg, worlds, steps: 0, limits: Limits::default() })
    }

    pub fn config(&self) -> &FoldbackConfig {
        &self.cfg
    }

    /// The build id: derived from the generator's version (every peer runs the same build).
    pub fn build_id(&self) -> [u8; 16] {
        let a = fnv1a(&[b"replay-player foldback toy simulation v1"]);
        let b = fnv1a(&[b"build", &a.to_le_bytes()]);
        let mut id = [0u8; 16];
        for (o, x) in id.iter_mut().zip(a.to_le_bytes().into_iter().chain(b.to_le_bytes())) {
            *o = x;
        }
        id
    }

    pub fn header(&self) -> Header {
        Header::new(self.cfg.tick_rate_hz, u32::from(self.cfg.peers), self.build_id())
    }

    pub fn metadata(&self) -> Vec<(String, String)> {
        vec![
            ("game".into(), "foldback toy simulation".into()),
            ("generator".into(), "replay-player sim::foldback 1".into()),
            ("seed".into(), self.cfg.seed.to_string()),
            ("entities".into(), self.cfg.entities.to_string()),
        ]
    }

    /// Encoded Metadata frames (written before the first tick).
    pub fn metadata_frames(&self) -> Result<Vec<Vec<u8>>, WriteError> {
        self.metadata()
            .iter()
            .map(|(k, v)| encode_frame(&Frame::Metadata { key: k, value: v.as_bytes() }, &self.limits))
            .collect()
    }

    /// Advances every peer one tick; `None` after the last tick.
    pub fn step(&mut self) -> Option<u64> {
        if self.steps >= self.cfg.ticks {
            return None;
        }
        let tick = self.tick;
        let dt = 1.0 / self.cfg.tick_rate_hz.max(1) as f32;
        for (p, world) in self.worlds.iter_mut().enumerate() {
            for (k, u) in world.iter_mut().enumerate() {
                let prev_x = u.px;
                u.vx = u.vx * 0.98 + (((tick + k as u64) % 50) as f32 - 25.0) * 0.02;
                u.px += u.vx * dt;
                u.py += 0.25 * dt * (k as f32 + 1.0);
                u.energy += f64::from(prev_x) * 0.5;
                if tick.is_multiple_of(15) && (u.energy.abs() * 8.0) as i64 % 3 == 0 {
                    u.health = u.health.saturating_sub(1);
                }
                if let Some(d) = &self.cfg.desync {
                    if d.tick == tick && usize::from(d.peer) == p && d.entity == u.id {
                        u.nudge(&d.field);
                    }
                }
            }
        }
        self.steps += 1;
        self.tick += 1;
        Some(tick)
    }

    /// The frames `peer` emits for the tick just stepped, labelled `as_peer`: TickHash, then per
    /// entity EntityHash and its FieldHashes, then a Snapshot when one is due.
    pub fn peer_frames(&self, tick: u64, peer: u16, as_peer: u16) -> Result<Vec<Vec<u8>>, WriteError> {
        let Some(world) = self.worlds.get(usize::from(peer)) else { return Ok(Vec::new()) };
        let mut ent_hashes = Vec::with_capacity(world.len());
        let mut detail = Vec::new();
        for u in world {
            let mut field_hashes = Vec::with_capacity(FIELDS.len());
            let mut fields = Vec::new();
            for name in FIELDS {
                let value = u.value(name);
                let hash = fnv1a(&[name.as_bytes(), &[0], &value]);
                field_hashes.extend_from_slice(&hash.to_le_bytes());
                fields.push(encode_frame(
                    &Frame::FieldHash { tick, peer: as_peer, entity: u.id, name, hash, value: &value },
                    &self.limits,
                )?);
            }
            let eh = fnv1a(&[&u.id.to_le_bytes(), &field_hashes]);
            ent_hashes.extend_from_slice(&eh.to_le_bytes());
            if self.cfg.detail {
                detail.push(encode_frame(
                    &Frame::EntityHash { tick, peer: as_peer, entity: u.id, hash: eh },
                    &self.limits,
                )?);
                detail.append(&mut fields);
            }
        }
        let th = fnv1a(&[&tick.to_le_bytes(), &ent_hashes]);
        let mut out = vec![encode_frame(&Frame::TickHash { tick, peer: as_peer, hash: th }, &self.limits)?];
        out.append(&mut detail);
        if self.cfg.snapshot_every > 0 && (tick - self.cfg.first_tick).is_multiple_of(self.cfg.snapshot_every) {
            let mut text = String::new();
            for u in world {
                text.push_str(&format!("{} {} {} {} {} {} {}\n", u.id, u.px, u.py, u.vx, u.health, u.energy, u.name));
            }
            let z = crate::format::zstd::compress(text.as_bytes());
            out.push(encode_frame(&Frame::Snapshot { tick, peer: as_peer, data: &z }, &self.limits)?);
        }
        Ok(out)
    }

    /// Every peer's frames for the tick just stepped, peer by peer.
    pub fn tick_frames(&self, tick: u64) -> Result<Vec<Vec<u8>>, WriteError> {
        let mut out = Vec::new();
        for p in 0..self.cfg.peers {
            out.append(&mut self.peer_frames(tick, p, p)?);
        }
        Ok(out)
    }
}

/// The whole session as one `.foldback` (every peer in one file).
pub fn foldback_bytes(cfg: &FoldbackConfig) -> Result<Vec<u8>, String> {
    let mut sim = FoldbackSim::new(cfg.clone())?;
    let mut w = Writer::new(Vec::new(), &sim.header()).map_err(|e| e.to_string())?;
    for f in sim.metadata_frames().map_err(|e| e.to_string())? {
        w.raw(&f).map_err(|e| e.to_string())?;
    }
    while let Some(t) = sim.step() {
        for f in sim.tick_frames(t).map_err(|e| e.to_string())? {
            w.raw(&f).map_err(|e| e.to_string())?;
        }
    }
    w.finish().map_err(|e| e.to_string())
}

/// The session as one file per peer, as each game instance would record itself: every file
/// declares one peer and calls it peer 0 (so merging must keep files apart).
pub fn foldback_per_peer(cfg: &FoldbackConfig) -> Result<Vec<Vec<u8>>, String> {
    let mut sim = FoldbackSim::new(cfg.clone())?;
    let mut h = sim.header();
    h.peer_count = 1;
    let mut ws = Vec::new();
    for p in 0..cfg.peers {
        let mut w = Writer::new(Vec::new(), &h).map_err(|e| e.to_string())?;
        for f in sim.metadata_frames().map_err(|e| e.to_string())? {
            w.raw(&f).map_err(|e| e.to_string())?;
        }
        w.frame(&Frame::Metadata { key: "recorded_peer", value: p.to_string().as_bytes() })
            .map_err(|e| e.to_string())?;
        ws.push(w);
    }
    while let Some(t) = sim.step() {
        for (p, w) in ws.iter_mut().enumerate() {
            for f in sim.peer_frames(t, p as u16, 0).map_err(|e| e.to_string())? {
                w.raw(&f).map_err(|e| e.to_string())?;
            }
        }
    }
    ws.into_iter().map(|w| w.finish().map_err(|e| e.to_string())).collect()
}

/// The golden `.foldback` fixtures: (file name, bytes). `cargo run --example make_foldback_fixtures`
/// writes them with their expected dumps to tests/fixtures/foldback/.
pub fn golden() -> Result<Vec<(&'static str, Vec<u8>)>, String> {
    let small = |desync: Option<Desync>| FoldbackConfig {
        seed: 7,
        peers: 2,
        ticks: 12,
        first_tick: 1000,
        entities: 3,
        tick_rate_hz: 30,
        snapshot_every: 5,
        detail: true,
        desync,
    };
    let agree = foldback_bytes(&small(None))?;
    let desync =
        foldback_bytes(&small(Some(Desync { tick: 1006, entity: entity_id(1), field: "position.x".into(), peer: 1 })))?;
    // A crashed recording: the desync session cut inside its last frames (no EndOfStream).
    let cut = desync.get(..desync.len().saturating_sub(23)).unwrap_or(&[]).to_vec();
    Ok(vec![
        ("agree.foldback", agree),
        ("desync.foldback", desync),
        ("crashed.foldback", cut),
        ("forward-compat.foldback", forward_compat()?),
    ])
}

/// Unknown frame types (small and larger than any window would need), a known frame with extra
/// payload bytes a later revision might add, and Metadata whose value is not UTF-8.
pub fn forward_compat() -> Result<Vec<u8>, String> {
    let h = Header::new(60, 2, [0xAB; 16]);
    let mut w = Writer::new(Vec::new(), &h).map_err(|e| e.to_string())?;
    let e = |r: Result<(), WriteError>| r.map_err(|e| e.to_string());
    e(w.frame(&Frame::Metadata { key: "note", value: b"frames of types 0x42 and 0x7F follow" }))?;
    e(w.frame(&Frame::Metadata { key: "binary", value: &[0xff, 0x00, 0x10] }))?;
    for tick in 0..3u64 {
        e(w.frame(&Frame::Unknown { frame_type: 0x42, payload: &[1, 2, 3, 4, 5] }))?;
        for peer in 0..2u16 {
            let hash = 0x1111_0000 + tick;
            e(w.frame(&Frame::TickHash { tick, peer, hash }))?;
        }
        // A TickHash-like frame with 4 extra payload bytes: read, extra bytes ignored.
        let mut extended = Vec::new();
        crate::format::foldback::frame::encode_unchecked(
            &Frame::EntityHash { tick, peer: 0, entity: 7, hash: 9 },
            &mut extended,
        );
        extended.extend_from_slice(&[0xEE; 4]);
        if let Some(len) = extended.get_mut(1..5) {
            len.copy_from_slice(&(26u32 + 4).to_le_bytes());
        }
        e(w.raw(&extended))?;
        e(w.frame(&Frame::EntityHash { tick, peer: 1, entity: 7, hash: 9 }))?;
    }
    e(w.frame(&Frame::Unknown { frame_type: 0x7F, payload: &[0u8; 300] }))?;
    w.finish().map_err(|e| e.to_string())
}
