//! A deterministic FPS deathmatch in SparkEngine's own terms (Y-up, left-handed, metres, seconds),
//! recorded like ReplaySystem does: every entity every frame at a fixed rate (default 20 fps).
//!
//! Players walk, sprint and crouch between waypoints on a 100 m × 100 m map with walls and cover,
//! turn to face visible enemies, fire (flag bit), scope long shots, reload, throw grenades (grenade
//! entities fly, bounce and explode), die and respawn, take pickups, switch weapons, capture the
//! centre flag and touch objectives: every event type of SparkEngine's table ("kill", "explosion",
//! "pickup", "spawn", "flag_capture", "objective", "weapon_switch"). Same config, same bytes.

use super::Rng;
use crate::format::flrep::writer::WriteError;
use crate::format::spark::{SparkEntity, SparkEvent, Writer};
use crate::model::flags;
use std::io::{Seek, Write};

#[derive(Clone, Debug)]
pub struct DeathmatchConfig {
    pub seed: u64,
    pub players: u32,
    pub seconds: f64,
    /// Recorded frames per second (SetRecordInterval(1 / fps)).
    pub fps: u32,
    pub map_name: String,
    pub game_mode: String,
}

impl Default for DeathmatchConfig {
    fn default() -> Self {
        DeathmatchConfig {
            seed: 1,
            players: 10,
            seconds: 300.0,
            fps: 20,
            map_name: "dm_warehouse".into(),
            game_mode: "deathmatch".into(),
        }
    }
}

/// Animation state indices written to `animationState`.
pub mod anim {
    pub const IDLE: i32 = 0;
    pub const WALK: i32 = 1;
    pub const SPRINT: i32 = 2;
    pub const CROUCH: i32 = 3;
    pub const FIRE: i32 = 4;
    pub const RELOAD: i32 = 5;
    pub const DEAD: i32 = 6;
    pub const THROWN: i32 = 7;
}

const MAP: f64 = 100.0;
/// Walls and cover: (x0, z0, x1, z1), 2.5 m high (line of sight is checked in the x/z plane).
const WALLS: [(f64, f64, f64, f64); 12] = [
    (20.0, 20.0, 40.0, 22.0),
    (60.0, 20.0, 80.0, 22.0),
    (20.0, 78.0, 40.0, 80.0),
    (60.0, 78.0, 80.0, 80.0),
    (20.0, 30.0, 22.0, 45.0),
    (78.0, 55.0, 80.0, 70.0),
    (45.0, 35.0, 55.0, 37.0),
    (45.0, 63.0, 55.0, 65.0),
    (10.0, 55.0, 14.0, 59.0),
    (86.0, 41.0, 90.0, 45.0),
    (33.0, 48.0, 36.0, 51.0),
    (64.0, 49.0, 67.0, 52.0),
];
const SPAWNS: [(f64, f64); 8] =
    [(5.0, 5.0), (95.0, 5.0), (5.0, 95.0), (95.0, 95.0), (50.0, 5.0), (50.0, 95.0), (5.0, 50.0), (95.0, 50.0)];
/// (x, z, item)
const PICKUPS: [(f64, f64, &str); 5] = [
    (50.0, 25.0, "medkit"),
    (50.0, 75.0, "medkit"),
    (25.0, 50.0, "ammo_box"),
    (75.0, 50.0, "grenade"),
    (10.0, 90.0, "sniper"),
];
const FLAG: (f64, f64) = (50.0, 50.0);
const OBJECTIVES: [(f64, f64); 3] = [(15.0, 15.0), (85.0, 85.0), (85.0, 15.0)];

struct Weapon {
    name: &'static str,
    range: f64,
    damage: f64,
    interval: f64,
    magazine: u32,
    reload: f64,
}
const WEAPONS: [Weapon; 5] = [
    Weapon { name: "rifle", range: 60.0, damage: 25.0, interval: 0.1, magazine: 30, reload: 2.0 },
    Weapon { name: "smg", range: 30.0, damage: 18.0, interval: 0.07, magazine: 40, reload: 1.6 },
    Weapon { name: "shotgun", range: 12.0, damage: 60.0, interval: 0.8, magazine: 8, reload: 2.5 },
    Weapon { name: "sniper", range: 100.0, damage: 90.0, interval: 1.2, magazine: 5, reload: 3.0 },
    Weapon { name: "pistol", range: 35.0, damage: 20.0, interval: 0.25, magazine: 12, reload: 1.2 },
];

fn weapon(i: usize) -> &'static Weapon {
    WEAPONS.get(i % WEAPONS.len()).unwrap_or(&WEAPONS[0])
}

#[derive(Clone, Copy, PartialEq)]
enum Gait {
    Walk,
    Sprint,
    Crouch,
}

struct Player {
    id: u32,
    x: f64,
    z: f64,
    vx: f64,
    vz: f64,
    yaw: f64,
    health: f64,
    alive: bool,
    respawn_at: f64,
    weapon: usize,
    ammo: u32,
    reload_until: f64,
    next_shot: f64,
    gait: Gait,
    way: (f64, f64),
    scoped: bool,
    firing: bool,
    grenades: u32,
    flag_hold: f64,
}

struct Grenade {
    id: u32,
    owner: u32,
    p: [f64; 3],
    v: [f64; 3],
    explode_at: f64,
}

pub struct Deathmatch {
    cfg: DeathmatchConfig,
    rng: Rng,
    frame: u64,
    frames: u64,
    players: Vec<Player>,
    grenades: Vec<Grenade>,
    next_grenade_id: u32,
    pickup_ready_at: [f64; PICKUPS.len()],
    flag_ready_at: f64,
    objective_ready_at: [f64; OBJECTIVES.len()],
    out: Vec<SparkEntity>,
}

fn in_wall(x: f64, z: f64, margin: f64) -> bool {
    WALLS.iter().any(|&(x0, z0, x1, z1)| x > x0 - margin && x < x1 + margin && z > z0 - margin && z < z1 + margin)
}

/// Whether the segment a→b (x/z plane) crosses no wall (slab test).
fn line_of_sight(a: (f64, f64), b: (f64, f64)) -> bool {
    let (dx, dz) = (b.0 - a.0, b.1 - a.1);
    WALLS.iter().all(|&(x0, z0, x1, z1)| {
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, d, lo, hi) in [(a.0, dx, x0, x1), (a.1, dz, z0, z1)] {
            if d.abs() < 1e-12 {
                if p < lo || p > hi {
                    return true;
                }
            } else {
                let (mut u, mut v) = ((lo - p) / d, (hi - p) / d);
                if u > v {
                    std::mem::swap(&mut u, &mut v);
                }
                t0 = t0.max(u);
                t1 = t1.min(v);
                if t0 > t1 {
                    return true;
                }
            }
        }
        false
    })
}

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Yaw (radians, from +Z toward +X: SparkEngine's left-handed turn right) → quaternion about +Y.
fn yaw_quat(yaw: f64) -> [f32; 4] {
    let h = yaw / 2.0;
    [0.0, h.sin() as f32, 0.0, h.cos() as f32]
}

impl Deathmatch {
    pub fn new(cfg: DeathmatchConfig) -> Self {
        let mut rng = Rng::new(cfg.seed);
        let n = cfg.players.clamp(1, 64);
        let players = (0..n)
            .map(|i| {
                let (sx, sz) = SPAWNS.get(i as usize % SPAWNS.len()).copied().unwrap_or((5.0, 5.0));
                let w = rng.below(WEAPONS.len());
                Player {
                    id: i + 1,
                    x: sx + rng.range(-1.0, 1.0),
                    z: sz + rng.range(-1.0, 1.0),
                    vx: 0.0,
                    vz: 0.0,
                    yaw: rng.range(-std::f64::consts::PI, std::f64::consts::PI),
                    health: 100.0,
                    alive: true,
                    respawn_at: 0.0,
                    weapon: w,
                    ammo: weapon(w).magazine,
                    reload_until: 0.0,
                    next_shot: 0.0,
                    gait: Gait::Walk,
                    way: (rng.range(5.0, 95.0), rng.range(5.0, 95.0)),
                    scoped: false,
                    firing: false,
                    grenades: 2,
                    flag_hold: 0.0,
                }
            })
            .collect();
        let fps = cfg.fps.max(1);
        let frames = (cfg.seconds.max(0.0) * f64::from(fps)).round() as u64;
        Deathmatch {
            cfg,
            rng,
            frame: 0,
            frames,
            players,
            grenades: Vec::new(),
            next_grenade_id: 1000,
            pickup_ready_at: [0.0; PICKUPS.len()],
            flag_ready_at: 0.0,
            objective_ready_at: [0.0; OBJECTIVES.len()],
            out: Vec::new(),
        }
    }

    pub fn config(&self) -> &DeathmatchConfig {
        &self.cfg
    }

    fn waypoint(rng: &mut Rng) -> (f64, f64) {
        loop {
            let p = (rng.range(4.0, MAP - 4.0), rng.range(4.0, MAP - 4.0));
            if !in_wall(p.0, p.1, 1.0) {
                return p;
            }
        }
    }

    /// Advances one recorded frame: (timestamp, frameNumber, entity states, events), or `None` at the end.
    pub fn step(&mut self) -> Option<(f32, u32, &[SparkEntity], Vec<SparkEvent>)> {
        if self.frame >= self.frames {
            return None;
        }
        let fps = f64::from(self.cfg.fps.max(1));
        let t = self.frame as f64 / fps;
        let ts = t as f32;
        let dt = 1.0 / fps;
        let mut events = Vec::new();
        let ev = |kind: &str, source: u32, target: u32, x: f64, y: f64, z: f64| SparkEvent {
            timestamp: ts,
            kind: kind.into(),
            source,
            target,
            position: [x as f32, y as f32, z as f32],
        };

        if self.frame == 0 {
            for p in &self.players {
                events.push(ev("spawn", p.id, 0, p.x, 0.0, p.z));
            }
        }
        // Respawns.
        for p in self.players.iter_mut().filter(|p| !p.alive && t >= p.respawn_at) {
            let (sx, sz) = SPAWNS.get(self.rng.below(SPAWNS.len())).copied().unwrap_or((5.0, 5.0));
            p.x = sx;
            p.z = sz;
            p.health = 100.0;
            p.alive = true;
            p.grenades = 2;
            p.ammo = weapon(p.weapon).magazine;
            p.reload_until = 0.0;
            p.way = if self.rng.chance(0.35) { FLAG } else { Self::waypoint(&mut self.rng) };
            events.push(ev("spawn", p.id, 0, p.x, 0.0, p.z));
        }
        // Who sees whom (from positions at the start of the frame).
        let snapshot: Vec<(u32, f64, f64, bool, Gait)> =
            self.players.iter().map(|p| (p.id, p.x, p.z, p.alive, p.gait)).collect();
        let mut damage: Vec<(usize, u32, f64)> = Vec::new();
        for (i, p) in self.players.iter_mut().enumerate() {
            p.firing = false;
            if !p.alive {
                p.vx = 0.0;
                p.vz = 0.0;
                continue;
            }
            let w = weapon(p.weapon);
            let me = (p.x, p.z);
            let target = snapshot
                .iter()
                .enumerate()
                .filter(|(j, s)| *j != i && s.3 && dist(me, (s.1, s.2)) <= w.range && line_of_sight(me, (s.1, s.2)))
                .min_by(|a, b| dist(me, (a.1 .1, a.1 .2)).total_cmp(&dist(me, (b.1 .1, b.1 .2))))
                .map(|(j, s)| (j, *s));
            // Holding the centre flag: crouch and stay.
            let holding = t >= self.flag_ready_at && dist(me, FLAG) < 5.0;
            // Movement.
            if !holding && (dist(me, p.way) < 1.5 || self.rng.chance(0.004)) {
                p.way = Self::waypoint(&mut self.rng);
            }
            p.gait = match (target.is_some(), self.rng.chance(0.02)) {
                (true, true) => Gait::Crouch,
                (true, false) if p.gait == Gait::Crouch => Gait::Crouch,
                (true, false) => Gait::Walk,
                (false, _) if dist(me, p.way) > 20.0 => Gait::Sprint,
                (false, _) => Gait::Walk,
            };
            if target.is_some() && self.rng.chance(0.03) {
                p.gait = Gait::Walk;
            }
            if holding {
                p.gait = Gait::Crouch;
            }
            let speed = match p.gait {
                Gait::Walk => 2.5,
                Gait::Sprint => 5.5,
                Gait::Crouch => 1.2,
            };
            let (dx, dz) = (p.way.0 - p.x, p.way.1 - p.z);
            let d = (dx * dx + dz * dz).sqrt().max(1e-9);
            let (nx, nz) = (p.x + dx / d * speed * dt, p.z + dz / d * speed * dt);
            if holding {
                p.vx = 0.0;
                p.vz = 0.0;
            } else if in_wall(nx, nz, 0.4) || !(0.5..MAP - 0.5).contains(&nx) || !(0.5..MAP - 0.5).contains(&nz) {
                p.way = Self::waypoint(&mut self.rng);
                p.vx = 0.0;
                p.vz = 0.0;
            } else {
                p.vx = (nx - p.x) / dt;
                p.vz = (nz - p.z) / dt;
                p.x = nx;
                p.z = nz;
            }
            // Facing: the enemy, else where it walks.
            let face = target.map(|(_, s)| (s.1 - p.x, s.2 - p.z)).unwrap_or((p.vx, p.vz));
            if face.0.abs() + face.1.abs() > 1e-6 {
                p.yaw = face.0.atan2(face.1);
            }
            // Reloading.
            if p.reload_until > 0.0 && t >= p.reload_until {
                p.reload_until = 0.0;
                p.ammo = w.magazine;
            }
            if p.ammo == 0 && p.reload_until == 0.0 {
                p.reload_until = t + w.reload;
            }
            p.scoped = false;
            if let Some((j, s)) = target {
                let td = dist((p.x, p.z), (s.1, s.2));
                p.scoped = td > 20.0 && (w.name == "rifle" || w.name == "sniper");
                if p.reload_until == 0.0 && t >= p.next_shot && p.ammo > 0 {
                    p.firing = true;
                    p.ammo -= 1;
                    p.next_shot = t + w.interval;
                    let mut hit = 0.45 * (1.0 - td / w.range) + 0.1;
                    if p.scoped {
                        hit += 0.2;
                    }
                    if p.gait == Gait::Crouch {
                        hit += 0.1;
                    }
                    if s.4 == Gait::Sprint {
                        hit -= 0.15;
                    }
                    if self.rng.chance(hit.clamp(0.05, 0.9)) {
                        damage.push((j, p.id, w.damage));
                    }
                }
                // Grenades at middle range.
                if p.grenades > 0 && (8.0..25.0).contains(&td) && self.rng.chance(0.004) {
                    p.grenades -= 1;
                    let (gx, gz) = ((s.1 - p.x) / td, (s.2 - p.z) / td);
                    let sp = td / 1.6;
                    self.grenades.push(Grenade {
                        id: self.next_grenade_id,
                        owner: p.id,
                        p: [p.x, 1.6, p.z],
                        v: [gx * sp, 6.0, gz * sp],
                        explode_at: t + 2.0,
                    });
                    self.next_grenade_id = self.next_grenade_id.wrapping_add(1).max(1000);
                }
            }
            // Weapon switches now and then.
            if self.rng.chance(0.0015) && p.reload_until == 0.0 {
                p.weapon = (p.weapon + 1 + self.rng.below(WEAPONS.len() - 1)) % WEAPONS.len();
                p.ammo = weapon(p.weapon).magazine;
                events.push(ev("weapon_switch", p.id, 0, p.x, 0.0, p.z));
            }
            // Pickups.
            for (k, &(px, pz, item)) in PICKUPS.iter().enumerate() {
                let Some(ready) = self.pickup_ready_at.get_mut(k) else { continue };
                if t >= *ready && dist((p.x, p.z), (px, pz)) < 1.5 {
                    *ready = t + 15.0;
                    events.push(ev("pickup", p.id, 0, px, 0.0, pz));
                    match item {
                        "medkit" => p.health = (p.health + 50.0).min(100.0),
                        "ammo_box" => p.ammo = weapon(p.weapon).magazine,
                        "grenade" => p.grenades += 1,
                        _ => {
                            p.weapon = 3;
                            p.ammo = weapon(3).magazine;
                            events.push(ev("weapon_switch", p.id, 0, p.x, 0.0, p.z));
                        }
                    }
                }
            }
            // The centre flag: hold it 3 s to capture.
            if t >= self.flag_ready_at && dist((p.x, p.z), FLAG) < 5.0 {
                p.flag_hold += dt;
                if p.flag_hold >= 3.0 {
                    p.flag_hold = 0.0;
                    self.flag_ready_at = t + 20.0;
                    events.push(ev("flag_capture", p.id, 0, FLAG.0, 0.0, FLAG.1));
                }
            } else {
                p.flag_hold = 0.0;
            }
            for (k, &(ox, oz)) in OBJECTIVES.iter().enumerate() {
                let Some(ready) = self.objective_ready_at.get_mut(k) else { continue };
                if t >= *ready && dist((p.x, p.z), (ox, oz)) < 2.5 {
                    *ready = t + 30.0;
                    events.push(ev("objective", p.id, 0, ox, 0.0, oz));
                }
            }
            // Drift the waypoint toward the flag and objectives sometimes, so they are visited.
            if !holding && self.rng.chance(0.003) {
                let k = self.rng.below(OBJECTIVES.len() + 2);
                p.way = OBJECTIVES.get(k).copied().unwrap_or(FLAG);
            }
        }
        // Grenades fly, bounce and explode.
        let mut k = 0;
        while k < self.grenades.len() {
            let Some(g) = self.grenades.get_mut(k) else { break };
            g.v[1] -= 9.81 * dt;
            let mut np = [g.p[0] + g.v[0] * dt, g.p[1] + g.v[1] * dt, g.p[2] + g.v[2] * dt];
            if np[1] <= 0.05 {
                np[1] = 0.05;
                g.v[1] = -g.v[1] * 0.3;
                g.v[0] *= 0.6;
                g.v[2] *= 0.6;
            }
            if in_wall(np[0], np[2], 0.1) {
                g.v[0] = -g.v[0] * 0.4;
                g.v[2] = -g.v[2] * 0.4;
                np = [g.p[0], np[1], g.p[2]];
            }
            g.p = np;
            if t >= g.explode_at {
                let (owner, c) = (g.owner, g.p);
                self.grenades.remove(k);
                events.push(ev("explosion", owner, 0, c[0], c[1], c[2]));
                for (j, q) in self.players.iter().enumerate() {
                    let d = dist((q.x, q.z), (c[0], c[2]));
                    if q.alive && d < 6.0 {
                        damage.push((j, owner, 120.0 * (1.0 - d / 6.0)));
                    }
                }
                continue;
            }
            k += 1;
        }
        // Damage and deaths.
        for (j, killer, dmg) in damage {
            let Some(v) = self.players.get_mut(j) else { continue };
            if !v.alive {
                continue;
            }
            v.health -= dmg;
            if v.health <= 0.0 {
                v.health = 0.0;
                v.alive = false;
                v.respawn_at = t + 3.0;
                v.vx = 0.0;
                v.vz = 0.0;
                v.scoped = false;
                v.firing = false;
                v.flag_hold = 0.0;
                events.push(ev("kill", killer, v.id, v.x, 0.0, v.z));
            }
        }
        // The frame.
        self.out.clear();
        for p in &self.players {
            let mut f = flags::VISIBLE;
            let mut a = anim::DEAD;
            if p.alive {
                f |= flags::ALIVE;
                a = match p.gait {
                    Gait::Walk if p.vx.abs() + p.vz.abs() < 1e-6 => anim::IDLE,
                    Gait::Walk => anim::WALK,
                    Gait::Sprint => anim::SPRINT,
                    Gait::Crouch => anim::CROUCH,
                };
                if p.gait == Gait::Crouch {
                    f |= flags::CROUCHING;
                }
                if p.gait == Gait::Sprint {
                    f |= flags::SPRINTING;
                }
                if p.firing {
                    f |= flags::FIRING;
                    a = anim::FIRE;
                }
                if p.reload_until > 0.0 {
                    f |= flags::RELOADING;
                    a = anim::RELOAD;
                }
                if p.scoped {
                    f |= flags::SCOPED;
                }
            }
            self.out.push(SparkEntity {
                id: p.id,
                position: [p.x as f32, 0.0, p.z as f32],
                rotation: yaw_quat(p.yaw),
                velocity: [p.vx as f32, 0.0, p.vz as f32],
                health: p.health as f32,
                animation_state: a,
                flags: f,
            });
        }
        for g in &self.grenades {
            self.out.push(SparkEntity {
                id: g.id,
                position: g.p.map(|v| v as f32),
                rotation: yaw_quat(g.v[0].atan2(g.v[2])),
                velocity: g.v.map(|v| v as f32),
                health: 1.0,
                animation_state: anim::THROWN,
                flags: flags::ALIVE | flags::VISIBLE,
            });
        }
        let n = self.frame as u32;
        self.frame += 1;
        Some((ts, n, &self.out, events))
    }
}

/// Generates a deathmatch into a SparkEngine `.replay` over any `Write + Seek` sink.
pub fn write_deathmatch<W: Write + Seek>(cfg: &DeathmatchConfig, sink: W) -> Result<W, WriteError> {
    write_deathmatch_perturbed(cfg, None, sink)
}

/// [`write_deathmatch`] with one entity's position nudged from a tick on (`replay generate --format
/// spark --perturb-at`: [`super::perturb`]; the tick is the model's, of the frame's timestamp).
pub fn write_deathmatch_perturbed<W: Write + Seek>(
    cfg: &DeathmatchConfig,
    mut perturb: Option<super::Perturb>,
    sink: W,
) -> Result<W, WriteError> {
    let mut sim = Deathmatch::new(cfg.clone());
    let mut w = Writer::new(sink, &cfg.map_name, &cfg.game_mode)?;
    let mut nudged = Vec::new();
    while let Some((ts, n, ents, events)) = sim.step() {
        let tick = crate::format::spark::map::timestamp_to_tick(ts).unwrap_or(0);
        let pick = perturb.as_mut().and_then(|p| p.pick(tick, ents.iter().map(|e| e.id)));
        let ents = match pick {
            Some(id) => {
                nudged.clear();
                nudged.extend_from_slice(ents);
                for e in nudged.iter_mut().filter(|e| e.id == id) {
                    e.position[0] += super::perturb::NUDGE_M as f32;
                }
                nudged.as_slice()
            }
            None => ents,
        };
        w.frame(ts, n, ents)?;
        for e in events {
            w.event(e)?;
        }
    }
    w.finish(None)
}

/// Generates a deathmatch into an in-memory `.replay`.
pub fn deathmatch_bytes(cfg: &DeathmatchConfig) -> Result<Vec<u8>, WriteError> {
    Ok(write_deathmatch(cfg, std::io::Cursor::new(Vec::new()))?.into_inner())
}
