//! A dogfight: N aircraft in two factions over a planet (or a flat world), banking turns, climbs,
//! missiles with their own guided motion, kills, despawns, respawns, chat and alert-level changes.
//! O(entities) per tick, so it scales to thousands of entities and hours of ticks.

use super::Rng;
use crate::format::flrep::header::{Header, Sections};
use crate::format::flrep::writer::default_header;
use crate::model::{
    flags, geodetic_to_world, projectile_kind, Category, EntityState, EntityType, Event, EventBody, Faction, Geodetic,
    MissionObject, Participant,
};
use std::f64::consts::PI;

#[derive(Clone, Debug)]
pub struct DogfightConfig {
    pub seed: u64,
    /// Aircraft (one per participant).
    pub entities: u32,
    pub seconds: f64,
    pub tick_rate_hz: u32,
    /// 0 for a flat world.
    pub planet_radius_m: f64,
    pub keyframe_interval_ticks: u32,
    pub first_tick: u64,
    pub start_unix_seconds: u64,
}

impl Default for DogfightConfig {
    fn default() -> Self {
        DogfightConfig {
            seed: 1,
            entities: 40,
            seconds: 60.0,
            tick_rate_hz: 60,
            planet_radius_m: 6_371_000.0,
            keyframe_interval_ticks: 120,
            first_tick: 0,
            start_unix_seconds: 1_788_000_000,
        }
    }
}

const CALLSIGNS: [&str; 32] = [
    "Maverick",
    "Iceman",
    "Goose",
    "Viper",
    "Jester",
    "Hollywood",
    "Wolfman",
    "Slider",
    "Cougar",
    "Merlin",
    "Stinger",
    "Sundown",
    "Chipper",
    "Rooster",
    "Hangman",
    "Phoenix",
    "Bob",
    "Payback",
    "Fanboy",
    "Coyote",
    "Warlock",
    "Cyclone",
    "Hondo",
    "Penny",
    "Ghost",
    "Raven",
    "Talon",
    "Havoc",
    "Reaper",
    "Saber",
    "Nomad",
    "Blaze",
];
const CHAT: [&str; 10] = [
    "Fox three!",
    "Splash one.",
    "Tally two, low.",
    "Bingo fuel, RTB.",
    "Engaged, defending.",
    "Padlocked.",
    "Break left!",
    "Good kill, good kill.",
    "Winchester.",
    "Check six!",
];

const T_F16: u16 = 0;
const T_MIG29: u16 = 1;
const T_AIM120: u16 = 2;
const T_R77: u16 = 3;
const T_SAM: u16 = 4;
const MISSILE_ID_BASE: u32 = 1_000_000;
const GROUND_ID_BASE: u32 = 900_000;
const G: f64 = 9.81;
const ARENA_M: f64 = 30_000.0;

#[derive(Clone, Debug)]
struct Flight {
    x: f64,
    y: f64,
    alt: f64,
    heading: f64,
    pitch: f64,
    roll: f64,
    speed: f64,
}

#[derive(Clone, Debug)]
struct Aircraft {
    id: u32,
    faction: u8,
    f: Flight,
    alive: bool,
    health: u16,
    respawn_at: u64,
    target: usize,
    retarget_at: u64,
    cooldown_until: u64,
    firing_until: u64,
    weave: f64,
}

#[derive(Clone, Debug)]
struct Missile {
    id: u32,
    owner: usize,
    target: usize,
    type_index: u16,
    faction: u8,
    f: Flight,
    expires: u64,
    max_turn: f64,
}

pub struct Dogfight {
    cfg: DogfightConfig,
    rng: Rng,
    tick: u64,
    last_tick: u64,
    ac: Vec<Aircraft>,
    missiles: Vec<Missile>,
    next_missile: u32,
    kills: u32,
    alert: u8,
    ref_lat: f64,
    ref_lon: f64,
    states: Vec<EntityState>,
    scratch: Vec<EntityState>,
}

fn wrap(a: f64) -> f64 {
    let mut a = a % (2.0 * PI);
    if a > PI {
        a -= 2.0 * PI;
    } else if a < -PI {
        a += 2.0 * PI;
    }
    a
}

impl Dogfight {
    pub fn new(cfg: DogfightConfig) -> Self {
        let mut rng = Rng::new(cfg.seed);
        let n = cfg.entities as usize;
        let ticks = (cfg.seconds * f64::from(cfg.tick_rate_hz)).round().max(1.0) as u64;
        let mut ac = Vec::with_capacity(n);
        for i in 0..n {
            let faction = (i % 2) as u8;
            let side = if faction == 0 { -1.0 } else { 1.0 };
            ac.push(Aircraft {
                id: i as u32 + 1,
                faction,
                f: Flight {
                    x: side * rng.range(12_000.0, 20_000.0),
                    y: rng.range(-10_000.0, 10_000.0),
                    alt: rng.range(3_000.0, 9_000.0),
                    heading: if faction == 0 { PI / 2.0 } else { -PI / 2.0 } + rng.range(-0.4, 0.4),
                    pitch: 0.0,
                    roll: 0.0,
                    speed: rng.range(220.0, 280.0),
                },
                alive: true,
                health: 10_000,
                respawn_at: 0,
                target: 0,
                retarget_at: 0,
                cooldown_until: (rng.range(3.0, 12.0) * f64::from(cfg.tick_rate_hz)) as u64 + cfg.first_tick,
                firing_until: 0,
                weave: rng.range(0.0, 2.0 * PI),
            });
        }
        Dogfight {
            rng,
            tick: cfg.first_tick,
            last_tick: cfg.first_tick + ticks - 1,
            ac,
            missiles: Vec::new(),
            next_missile: MISSILE_ID_BASE,
            kills: 0,
            alert: 1,
            ref_lat: 36.24,
            ref_lon: -115.03,
            states: Vec::new(),
            scratch: Vec::new(),
            cfg,
        }
    }

    pub fn callsign(i: usize) -> String {
        let base = CALLSIGNS.get(i % CALLSIGNS.len()).copied().unwrap_or("Pilot");
        if i < CALLSIGNS.len() {
            base.to_string()
        } else {
            format!("{base}-{}", i / CALLSIGNS.len() + 1)
        }
    }

    pub fn header(&self) -> Header {
        let mut h = default_header("0.4.0", self.cfg.tick_rate_hz, self.cfg.planet_radius_m);
        h.start_unix_seconds = self.cfg.start_unix_seconds;
        h.mission_id = "op-red-flag-07".into();
        h.session_flags = 1 | 2;
        h.keyframe_interval_ticks = self.cfg.keyframe_interval_ticks;
        h
    }

    pub fn sections(&self) -> Sections {
        let t = |index, id: &str, name: &str, category, pk| EntityType {
            index,
            id: id.into(),
            display_name: name.into(),
            category,
            projectile_kind: pk,
        };
        Sections {
            entity_types: vec![
                t(T_F16, "f16c", "F-16C Viper", Category::Aircraft, projectile_kind::NONE),
                t(T_MIG29, "mig29a", "MiG-29A Fulcrum", Category::Aircraft, projectile_kind::NONE),
                t(T_AIM120, "aim120c", "AIM-120C AMRAAM", Category::Projectile, projectile_kind::MISSILE),
                t(T_R77, "r77", "R-77 Adder", Category::Projectile, projectile_kind::MISSILE),
                t(T_SAM, "sa10", "SA-10 launcher", Category::Ground, projectile_kind::NONE),
            ],
            factions: vec![
                Faction { index: 0, id: "blue".into(), display_name: "Blue Force".into() },
                Faction { index: 1, id: "red".into(), display_name: "Red Force".into() },
            ],
            participants: self
                .ac
                .iter()
                .enumerate()
                .map(|(i, a)| Participant {
                    id: i as u32 + 1,
                    callsign: Self::callsign(i),
                    entity: a.id,
                    faction: a.faction,
                })
                .collect(),
            mission_objects: (0..4u32)
                .map(|k| MissionObject { object_id: 500 + k, entity: GROUND_ID_BASE + k + 1 })
                .collect(),
            metadata: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn dt(&self) -> f64 {
        1.0 / f64::from(self.cfg.tick_rate_hz)
    }

    fn secs(&self, s: f64) -> u64 {
        (s * f64::from(self.cfg.tick_rate_hz)) as u64
    }

    /// Advances one tick; `None` after the last. States are sorted by id.
    pub fn step(&mut self) -> Option<(u64, &[EntityState], Vec<Event>)> {
        if self.tick > self.last_tick {
            return None;
        }
        let tick = self.tick;
        let dt = self.dt();
        let mut events = Vec::new();
        let n = self.ac.len();
        let first = tick == self.cfg.first_tick;

        // Aircraft.
        for i in 0..n {
            let (alive, respawn_at) = match self.ac.get(i) {
                Some(a) => (a.alive, a.respawn_at),
                None => continue,
            };
            if !alive {
                if tick >= respawn_at {
                    self.respawn(i, tick, &mut events);
                }
                continue;
            }
            if first {
                events.push(Event { tick, body: EventBody::Spawn { entity: i as u32 + 1, participant: i as u32 + 1 } });
            }
            self.fly_aircraft(i, tick, dt, &mut events);
        }
        // Missiles.
        let mut k = 0;
        while k < self.missiles.len() {
            if self.fly_missile(k, tick, dt, &mut events) {
                self.missiles.swap_remove(k);
            } else {
                k += 1;
            }
        }
        // Chat, admin, alert.
        if n > 0 && self.rng.chance(dt / 3.0) {
            let who = self.rng.below(n);
            let text = CHAT.get(self.rng.below(CHAT.len())).copied().unwrap_or("Copy.");
            events.push(Event {
                tick,
                body: EventBody::Chat { participant: who as u32 + 1, channel: 0, text: text.into() },
            });
        }
        if tick == self.cfg.first_tick + (self.last_tick - self.cfg.first_tick) / 3 {
            events.push(Event {
                tick,
                body: EventBody::Admin {
                    participant: 0,
                    action: "set-weather".into(),
                    detail: "wind 270/15, visibility 10 km".into(),
                },
            });
        }
        if first {
            events.push(Event { tick, body: EventBody::AlertLevel { level: self.alert } });
        }
        self.build_states(tick);
        self.tick += 1;
        Some((tick, &self.states, events))
    }

    fn respawn(&mut self, i: usize, tick: u64, events: &mut Vec<Event>) {
        let (x, y, alt, h, sp) = (
            self.rng.range(18_000.0, 24_000.0),
            self.rng.range(-10_000.0, 10_000.0),
            self.rng.range(4_000.0, 8_000.0),
            self.rng.range(-0.3, 0.3),
            self.rng.range(230.0, 270.0),
        );
        if let Some(a) = self.ac.get_mut(i) {
            let side = if a.faction == 0 { -1.0 } else { 1.0 };
            let heading = if a.faction == 0 { PI / 2.0 + h } else { -PI / 2.0 + h };
            a.f = Flight { x: side * x, y, alt, heading, pitch: 0.0, roll: 0.0, speed: sp };
            a.alive = true;
            a.health = 10_000;
            a.cooldown_until = tick + (4.0 * f64::from(self.cfg.tick_rate_hz)) as u64;
            events.push(Event { tick, body: EventBody::Spawn { entity: a.id, participant: i as u32 + 1 } });
        }
    }

    fn fly_aircraft(&mut self, i: usize, tick: u64, dt: f64, events: &mut Vec<Event>) {
        let n = self.ac.len();
        // Retarget every few seconds to a random living enemy.
        let needs = self
            .ac
            .get(i)
            .map(|a| tick >= a.retarget_at || !self.ac.get(a.target).is_some_and(|t| t.alive && t.faction != a.faction))
            .unwrap_or(false);
        if needs {
            let faction = self.ac.get(i).map(|a| a.faction).unwrap_or(0);
            let start = self.rng.below(n);
            let pick = (0..n)
                .map(|k| (start + k) % n)
                .find(|&k| self.ac.get(k).is_some_and(|t| t.alive && t.faction != faction));
            let secs = self.rng.range(2.0, 5.0);
            let next = self.secs(secs);
            if let Some(a) = self.ac.get_mut(i) {
                if let Some(t) = pick {
                    a.target = t;
                }
                a.retarget_at = tick + next;
            }
        }
        let tgt =
            self.ac.get(i).and_then(|a| self.ac.get(a.target)).map(|t| (t.f.x, t.f.y, t.f.alt, t.alive, t.faction));
        let fire_roll = self.rng.f64();
        let weave_noise = self.rng.range(-0.02, 0.02);
        let rate = f64::from(self.cfg.tick_rate_hz);
        let Some(a) = self.ac.get_mut(i) else { return };
        let f = &mut a.f;
        let (tx, ty, talt, t_alive) = match tgt {
            Some((x, y, alt, alive, faction)) if faction != a.faction => (x, y, alt, alive),
            _ => (0.0, 0.0, 6000.0, false),
        };
        let dist_c = (f.x * f.x + f.y * f.y).sqrt();
        let (dx, dy) = if dist_c > ARENA_M || !t_alive { (-f.x, -f.y) } else { (tx - f.x, ty - f.y) };
        a.weave = wrap(a.weave + dt * 0.4 + weave_noise);
        let desired = dx.atan2(dy) + 0.35 * a.weave.sin();
        let err = wrap(desired - f.heading);
        let max_turn = 0.2; // rad/s
        let want_rate = (err * 0.8).clamp(-max_turn, max_turn);
        let want_roll = (f.speed * want_rate / G).atan().clamp(-1.35, 1.35);
        let roll_step = 1.6 * dt;
        f.roll += (want_roll - f.roll).clamp(-roll_step, roll_step);
        let turn_rate = G * f.roll.tan() / f.speed;
        f.heading = wrap(f.heading + turn_rate * dt);
        let want_vs = ((talt.clamp(1_500.0, 12_000.0) - f.alt) * 0.05).clamp(-60.0, 60.0);
        let want_pitch = (want_vs / f.speed).clamp(-0.5, 0.5).asin();
        let pitch_step = 0.25 * dt;
        f.pitch += (want_pitch - f.pitch).clamp(-pitch_step, pitch_step);
        f.speed += ((250.0 - f.speed) * 0.05 + (a.weave * 3.0).cos() * 2.0) * dt;
        let h = f.speed * f.pitch.cos();
        f.x += h * f.heading.sin() * dt;
        f.y += h * f.heading.cos() * dt;
        f.alt = (f.alt + f.speed * f.pitch.sin() * dt).max(300.0);

        // Fire a missile at a target in front, within range.
        let range = (dx * dx + dy * dy + (talt - f.alt).powi(2)).sqrt();
        if t_alive && tick >= a.cooldown_until && range < 9_000.0 && err.abs() < 0.5 && fire_roll < 0.02 {
            let (owner_faction, owner_flight, target) = (a.faction, a.f.clone(), a.target);
            a.cooldown_until = tick + (rate * 8.0) as u64;
            a.firing_until = tick + (rate * 0.5) as u64;
            let id = self.next_missile;
            self.next_missile = self.next_missile.wrapping_add(1);
            let hit = self.rng.chance(0.55);
            let mut mf = owner_flight;
            mf.speed += 400.0;
            mf.roll = 0.0;
            self.missiles.push(Missile {
                id,
                owner: i,
                target,
                type_index: if owner_faction == 0 { T_AIM120 } else { T_R77 },
                faction: owner_faction,
                f: mf,
                expires: tick + (rate * 22.0) as u64,
                max_turn: if hit { 0.6 } else { 0.12 },
            });
            events.push(Event { tick, body: EventBody::Spawn { entity: id, participant: i as u32 + 1 } });
            if self.rng.chance(0.5) {
                events.push(Event {
                    tick,
                    body: EventBody::Chat { participant: i as u32 + 1, channel: 0, text: "Fox three!".into() },
                });
            }
        }
    }

    /// Moves missile `k`; true when it is gone.
    fn fly_missile(&mut self, k: usize, tick: u64, dt: f64, events: &mut Vec<Event>) -> bool {
        let Some(m) = self.missiles.get(k).cloned() else { return true };
        let tgt = self.ac.get(m.target).map(|t| (t.f.clone(), t.alive));
        let mut m = m;
        let (tf, t_alive) = match tgt {
            Some(t) => t,
            None => return true,
        };
        let (dx, dy, dz) = (tf.x - m.f.x, tf.y - m.f.y, tf.alt - m.f.alt);
        let dist = (dx * dx + dy * dy + dz * dz).sqrt();
        if t_alive && dist < 60.0 {
            // Hit.
            self.kills += 1;
            let weapon = m.type_index;
            let killer = self.ac.get(m.owner).map(|a| a.id).unwrap_or(0);
            let respawn = tick + self.secs(8.0);
            if let Some(v) = self.ac.get_mut(m.target) {
                v.alive = false;
                v.health = 0;
                v.respawn_at = respawn;
                events.push(Event { tick, body: EventBody::Kill { killer, victim: v.id, weapon_type: weapon } });
                events.push(Event { tick, body: EventBody::Despawn { entity: v.id, reason: 0 } });
            }
            events.push(Event { tick, body: EventBody::Despawn { entity: m.id, reason: 2 } });
            if self.kills.is_multiple_of(4) && self.alert < 5 {
                self.alert += 1;
                events.push(Event { tick, body: EventBody::AlertLevel { level: self.alert } });
            }
            if self.rng.chance(0.6) {
                events.push(Event {
                    tick,
                    body: EventBody::Chat { participant: m.owner as u32 + 1, channel: 0, text: "Splash one.".into() },
                });
            }
            return true;
        }
        if tick >= m.expires || !t_alive || m.f.alt < 50.0 {
            if t_alive && dist < 400.0 {
                if let Some(v) = self.ac.get_mut(m.target) {
                    v.health = v.health.saturating_sub(3_000);
                }
            }
            events.push(Event { tick, body: EventBody::Despawn { entity: m.id, reason: 3 } });
            return true;
        }
        // Pure pursuit with a turn-rate limit.
        let want_h = dx.atan2(dy);
        let want_p = (dz / dist.max(1.0)).clamp(-1.0, 1.0).asin();
        let step = m.max_turn * dt;
        let eh = wrap(want_h - m.f.heading).clamp(-step, step);
        m.f.heading = wrap(m.f.heading + eh);
        m.f.roll = (eh / dt * 0.8).clamp(-1.2, 1.2);
        m.f.pitch += (want_p - m.f.pitch).clamp(-step, step);
        m.f.speed = (m.f.speed + 30.0 * dt).min(1_100.0);
        let h = m.f.speed * m.f.pitch.cos();
        m.f.x += h * m.f.heading.sin() * dt;
        m.f.y += h * m.f.heading.cos() * dt;
        m.f.alt += m.f.speed * m.f.pitch.sin() * dt;
        if let Some(slot) = self.missiles.get_mut(k) {
            *slot = m;
        }
        false
    }

    fn build_states(&mut self, tick: u64) {
        let mut states = std::mem::take(&mut self.scratch);
        states.clear();
        for a in &self.ac {
            if !a.alive {
                continue;
            }
            let mut fl = flags::ALIVE | flags::VISIBLE;
            if tick < a.firing_until {
                fl |= flags::FIRING;
            }
            let type_index = if a.faction == 0 { T_F16 } else { T_MIG29 };
            states.push(self.quantize(a.id, type_index, a.faction, &a.f, a.health, fl));
        }
        for k in 0..4u32 {
            let faction = (k % 2) as u8;
            let side = if faction == 0 { -1.0 } else { 1.0 };
            let f = Flight {
                x: side * 26_000.0,
                y: (f64::from(k) - 1.5) * 6_000.0,
                alt: 0.0,
                heading: 0.0,
                pitch: 0.0,
                roll: 0.0,
                speed: 0.0,
            };
            states.push(self.quantize(
                GROUND_ID_BASE + k + 1,
                T_SAM,
                faction,
                &f,
                10_000,
                flags::ALIVE | flags::VISIBLE,
            ));
        }
        for m in &self.missiles {
            states.push(self.quantize(m.id, m.type_index, m.faction, &m.f, 10_000, flags::ALIVE | flags::VISIBLE));
        }
        states.sort_by_key(|s| s.id);
        self.scratch = std::mem::replace(&mut self.states, states);
    }

    /// World position (metres), world velocity and body→world rotation for a flight state.
    fn to_world(&self, f: &Flight) -> ([f64; 3], [f64; 3], [[f64; 3]; 3]) {
        let r = self.cfg.planet_radius_m;
        // Body axes in local East-North-Up: forward, left, up (FLU).
        let (sh, ch, sp, cp, sr, cr) =
            (f.heading.sin(), f.heading.cos(), f.pitch.sin(), f.pitch.cos(), f.roll.sin(), f.roll.cos());
        let fwd = [sh * cp, ch * cp, sp];
        let l0 = [-ch, sh, 0.0];
        let u0 = cross(fwd, l0);
        let left = lin(l0, cr, u0, sr);
        let up = lin(u0, cr, l0, -sr);
        let v_enu = fwd.map(|c| c * f.speed);
        if r == 0.0 {
            return ([f.x, f.y, f.alt], v_enu, [fwd, left, up]);
        }
        let lat = self.ref_lat + (f.y / r).to_degrees();
        let lon = self.ref_lon + (f.x / (r * self.ref_lat.to_radians().cos())).to_degrees();
        let p = geodetic_to_world(Geodetic { lat_deg: lat, lon_deg: lon, alt_m: f.alt }, r);
        let (sla, cla, slo, clo) =
            (lat.to_radians().sin(), lat.to_radians().cos(), lon.to_radians().sin(), lon.to_radians().cos());
        let e = [-slo, clo, 0.0];
        let nn = [-sla * clo, -sla * slo, cla];
        let u = [cla * clo, cla * slo, sla];
        let w = |v: [f64; 3]| {
            let [a, b, c] = v;
            let en = lin(e, a, nn, b);
            lin(en, 1.0, u, c)
        };
        (p, w(v_enu), [w(fwd), w(left), w(up)])
    }

    fn quantize(&self, id: u32, type_index: u16, faction: u8, f: &Flight, health: u16, fl: u32) -> EntityState {
        let (p, v, axes) = self.to_world(f);
        let pq = 1.0 / crate::format::flrep::DEFAULT_POSITION_QUANTUM_M;
        let vq = 1.0 / crate::format::flrep::DEFAULT_VELOCITY_QUANTUM_MPS;
        let q = quat_from_axes(axes);
        let mut orient = q.map(|c| (c * 32767.0).round().clamp(-32767.0, 32767.0) as i16);
        // Keep sign continuity with the previous tick so deltas stay small (q and -q are the same rotation).
        if let Some(prev) = self.states.binary_search_by_key(&id, |s| s.id).ok().and_then(|i| self.states.get(i)) {
            let dot: i64 = prev.orient.iter().zip(orient).map(|(&a, b)| i64::from(a) * i64::from(b)).sum();
            if dot < 0 {
                orient = orient.map(|c| -c);
            }
        }
        EntityState {
            id,
            type_index,
            faction,
            pos: p.map(|c| (c * pq).round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
            orient,
            vel: v.map(|c| (c * vq).round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32),
            health,
            flags: fl,
            anim: 0,
        }
    }
}

/// `a * x + b * y`, component by component.
fn lin(a: [f64; 3], x: f64, b: [f64; 3], y: f64) -> [f64; 3] {
    [a[0] * x + b[0] * y, a[1] * x + b[1] * y, a[2] * x + b[2] * y]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Quaternion (x, y, z, w) of the rotation whose matrix has the given columns (body X, Y, Z in world).
pub fn quat_from_axes(c: [[f64; 3]; 3]) -> [f64; 4] {
    // m{row}{col}: c holds the columns.
    let [[m00, m10, m20], [m01, m11, m21], [m02, m12, m22]] = c;
    let tr = m00 + m11 + m22;
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = (1.0 + m00 - m11 - m22).sqrt() * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = (1.0 + m11 - m00 - m22).sqrt() * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt().max(1e-12);
    q.map(|v| v / n)
}
