//! Mapping between SparkEngine's float domain and the model's quantized integer domain.
//!
//! SparkEngine is Y-up and left-handed (DirectX): +X right, +Y up, +Z forward; a character's body
//! axes are +Z forward, +Y up, +X right. The model's flat world is right-handed: +X east, +Y north,
//! +Z up, and an entity's body axes are +X forward, +Y left, +Z up (see `player::camera`).
//!
//! - position / velocity: `(x, y, z)_spark → (x, z, y)_model` (spark +Z forward is north, +Y up is up).
//! - orientation: the axis swap is a reflection, so a rotation's axis flips sign:
//!   `(x, y, z, w) → (−x, −z, −y, w)` gives the same rotation in world axes; then the body axes are
//!   re-based (spark body +Z forward → model body +X forward) by composing with +90° about body Z:
//!   `q_model = (−x, −z, −y, w) ⊗ q_z(+90°)`. A spark orientation that points the character's
//!   forward (+Z) along some world direction points the model's body +X along the mapped direction.
//! - quanta: position 1/1024 m, velocity 1/256 m/s, orientation components × 32767, health × 100.

/// Position quantum of SparkEngine recordings in the model (metres).
pub const POSITION_QUANTUM_M: f64 = 1.0 / 1024.0;
/// Velocity quantum of SparkEngine recordings in the model (metres per second).
pub const VELOCITY_QUANTUM_MPS: f64 = 1.0 / 256.0;
/// Model ticks per second for SparkEngine recordings: one tick per millisecond.
pub const TICK_RATE_HZ: u32 = 1000;
/// Largest timestamp accepted (seconds): ~31.7 years of game time.
pub const MAX_TIMESTAMP_S: f64 = 1.0e9;

const H: f64 = std::f64::consts::FRAC_1_SQRT_2;
/// +90° about Z, (x, y, z, w).
const BODY_FIX: [f64; 4] = [0.0, 0.0, H, H];
const BODY_FIX_INV: [f64; 4] = [0.0, 0.0, -H, H];

/// Why a float could not be mapped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapError {
    pub field: &'static str,
    pub reason: String,
}

fn bad(field: &'static str, reason: String) -> MapError {
    MapError { field, reason }
}

/// Hamilton product `a ⊗ b` of (x, y, z, w) quaternions.
pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// Rotates `v` by the unit quaternion `q` (q v q*).
pub fn quat_rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let p = quat_mul(quat_mul(q, [v[0], v[1], v[2], 0.0]), [-q[0], -q[1], -q[2], q[3]]);
    [p[0], p[1], p[2]]
}

/// Tick (milliseconds) of a timestamp in seconds: `round(t × 1000)`.
pub fn timestamp_to_tick(t: f32) -> Result<u64, String> {
    let t = f64::from(t);
    if !t.is_finite() {
        return Err(format!("timestamp {t} is not a finite number"));
    }
    if t < 0.0 {
        return Err(format!("timestamp {t} s is negative"));
    }
    if t > MAX_TIMESTAMP_S {
        return Err(format!("timestamp {t} s is over the {MAX_TIMESTAMP_S} s limit"));
    }
    Ok((t * 1000.0).round() as u64)
}

/// Timestamp (seconds) of a model tick at `tick_rate_hz`.
pub fn tick_to_timestamp(tick: u64, tick_rate_hz: u32) -> f32 {
    (tick as f64 / f64::from(tick_rate_hz.max(1))) as f32
}

fn quantize(field: &'static str, v: f32, quantum: f64) -> Result<i32, MapError> {
    let v = f64::from(v);
    if !v.is_finite() {
        return Err(bad(field, format!("{v} is not a finite number")));
    }
    let q = (v / quantum).round();
    if q < f64::from(i32::MIN) || q > f64::from(i32::MAX) {
        let lim = f64::from(i32::MAX) * quantum;
        return Err(bad(field, format!("{v} is outside ±{lim:.0} (the {quantum} quantum in 32 bits)")));
    }
    Ok(q as i32)
}

/// SparkEngine position (metres) → model position in [`POSITION_QUANTUM_M`] steps.
pub fn position_to_model(p: [f32; 3]) -> Result<[i32; 3], MapError> {
    Ok([
        quantize("position", p[0], POSITION_QUANTUM_M)?,
        quantize("position", p[2], POSITION_QUANTUM_M)?,
        quantize("position", p[1], POSITION_QUANTUM_M)?,
    ])
}

/// SparkEngine velocity (m/s) → model velocity in [`VELOCITY_QUANTUM_MPS`] steps.
pub fn velocity_to_model(v: [f32; 3]) -> Result<[i32; 3], MapError> {
    Ok([
        quantize("velocity", v[0], VELOCITY_QUANTUM_MPS)?,
        quantize("velocity", v[2], VELOCITY_QUANTUM_MPS)?,
        quantize("velocity", v[1], VELOCITY_QUANTUM_MPS)?,
    ])
}

/// Model position (in `quantum` steps) → SparkEngine position.
pub fn position_to_spark(p: [i32; 3], quantum: f64) -> [f32; 3] {
    let f = |v: i32| (f64::from(v) * quantum) as f32;
    [f(p[0]), f(p[2]), f(p[1])]
}

/// Model velocity (in `quantum` steps) → SparkEngine velocity.
pub fn velocity_to_spark(v: [i32; 3], quantum: f64) -> [f32; 3] {
    position_to_spark(v, quantum)
}

/// SparkEngine rotation (x, y, z, w) → model orientation (components × 32767).
///
/// Non-finite components are refused; a zero quaternion is read as the identity (SparkEngine's
/// default is (0, 0, 0, 1)); any other is normalised.
pub fn rotation_to_model(q: [f32; 4]) -> Result<[i16; 4], MapError> {
    let q = q.map(f64::from);
    if q.iter().any(|c| !c.is_finite()) {
        return Err(bad(
            "rotation",
            format!("({}, {}, {}, {}) has a component that is not a finite number", q[0], q[1], q[2], q[3]),
        ));
    }
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let q = if n < 1e-12 || !n.is_finite() { [0.0, 0.0, 0.0, 1.0] } else { q.map(|c| c / n) };
    let world = [-q[0], -q[2], -q[1], q[3]];
    let m = quat_mul(world, BODY_FIX);
    Ok(m.map(|c| (c.clamp(-1.0, 1.0) * 32767.0).round() as i16))
}

/// Model orientation (components × 32767) → SparkEngine rotation (x, y, z, w), normalised, and
/// chosen so that [`rotation_to_model`] gives `o` back exactly (a clip of a SparkEngine replay
/// hashes as its source): the quantized components are not a unit quaternion, and normalising
/// them can move one by more than half a step; then a unit quaternion inside `o`'s rounding box is
/// taken instead (on the segment from `o` towards the box's corner nearest the unit sphere).
pub fn rotation_to_spark(o: [i16; 4]) -> [f32; 4] {
    let to_spark = |q: [f64; 4]| {
        let world = quat_mul(q, BODY_FIX_INV);
        [-world[0], -world[2], -world[1], world[3]].map(|c| c as f32)
    };
    let c = o.map(|v| f64::from(v) / 32767.0);
    let norm = |q: [f64; 4]| (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    let n = norm(c);
    if n < 1e-9 {
        return to_spark([0.0, 0.0, 0.0, 1.0]);
    }
    let plain = to_spark(c.map(|v| v / n));
    if rotation_to_model(plain).ok() == Some(o) {
        return plain;
    }
    // The box corner towards the sphere: each component moved 0.45 of a step towards zero (norm
    // over 1) or away from it (under 1).
    let step: f64 = 0.45 / 32767.0;
    let corner = c.map(|v| if n > 1.0 { v - v.signum() * step.min(v.abs()) } else { v + v.signum() * step });
    let at = |t: f64| {
        let mut q = c;
        for (x, k) in q.iter_mut().zip(corner) {
            *x += t * (k - *x);
        }
        q
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..40 {
        let mid = (lo + hi) / 2.0;
        if (norm(at(mid)) > 1.0) == (n > 1.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let u = at(hi);
    let un = norm(u);
    let inside = to_spark(u.map(|v| v / un));
    if rotation_to_model(inside).ok() == Some(o) {
        inside
    } else {
        plain
    }
}

/// SparkEngine health points → hundredths, clamped to [0, 655.35]. Non-finite is refused.
pub fn health_to_model(h: f32) -> Result<u16, MapError> {
    if !h.is_finite() {
        return Err(bad("health", format!("{h} is not a finite number")));
    }
    Ok((f64::from(h) * 100.0).round().clamp(0.0, 65535.0) as u16)
}

pub fn health_to_spark(h: u16) -> f32 {
    (f64::from(h) / 100.0) as f32
}

/// The single entity type of SparkEngine recordings (the format has no types).
pub const PLAYER_TYPE: u16 = 0;
/// The entity type index kills are credited to when the killer's own explosion came just before
/// (docs/format/spark-replay.md "Mapping into the model": the file holds no weapon).
pub const EXPLOSION_TYPE: u16 = 1;
/// A kill at most this many ticks (ms) after an explosion of its killer is named by it.
pub const EXPLOSION_KILL_TICKS: u64 = 50;
/// Factions (one colour each) participants are spread over: the format records no teams, so each
/// player is a side of its own, its faction a function of its entity id (a clip keeps it).
pub const PLAYER_FACTIONS: u32 = 14;

/// The faction of SparkEngine entity `id`: `id mod PLAYER_FACTIONS` (distinct for 14 ids in a row).
pub fn faction_of(id: u32) -> u8 {
    u8::try_from(id % PLAYER_FACTIONS).unwrap_or(0)
}

/// The factions of `participants` (sorted by id): one per faction index used, named by the
/// callsigns of its members ("Player 3", or "Player 3, Player 17" when two share a colour).
pub fn factions_of(participants: &[crate::model::Participant]) -> Vec<crate::model::Faction> {
    let mut names: Vec<Vec<&str>> = vec![Vec::new(); PLAYER_FACTIONS as usize];
    for p in participants {
        if let Some(list) = names.get_mut(usize::from(p.faction)) {
            if list.len() < 4 {
                list.push(&p.callsign);
            }
        }
    }
    names
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.is_empty())
        .map(|(k, n)| crate::model::Faction {
            index: u8::try_from(k).unwrap_or(0),
            id: format!("side-{k}"),
            display_name: n.join(", "),
        })
        .collect()
}

/// Names a kill's weapon where the file says it: a kill at most [`EXPLOSION_KILL_TICKS`] after an
/// `"explosion"` event of the same killer gets [`EXPLOSION_TYPE`]; the rest stay `NO_WEAPON`.
/// `events` sorted by tick.
pub fn name_explosion_kills(events: &mut [crate::model::Event]) -> usize {
    use crate::model::EventBody;
    let mut blasts: Vec<(u32, u64)> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::Custom { kind, source, .. } if kind == "explosion" && *source != 0 => Some((*source, e.tick)),
            _ => None,
        })
        .collect();
    blasts.sort_unstable();
    let mut named = 0;
    for e in events.iter_mut() {
        if let EventBody::Kill { killer, weapon_type, .. } = &mut e.body {
            // The last explosion of this killer at or before the kill.
            let i = blasts.partition_point(|&(s, t)| (s, t) <= (*killer, e.tick));
            let hit = i.checked_sub(1).and_then(|j| blasts.get(j));
            if let Some(&(s, t)) = hit {
                if s == *killer && e.tick - t <= EXPLOSION_KILL_TICKS {
                    *weapon_type = EXPLOSION_TYPE;
                    named += 1;
                }
            }
        }
    }
    named
}

/// A SparkEngine entity state → the model.
pub fn entity_to_model(e: &super::SparkEntity) -> Result<crate::model::EntityState, MapError> {
    Ok(crate::model::EntityState {
        id: e.id,
        type_index: PLAYER_TYPE,
        faction: faction_of(e.id),
        pos: position_to_model(e.position)?,
        orient: rotation_to_model(e.rotation)?,
        vel: velocity_to_model(e.velocity)?,
        health: health_to_model(e.health)?,
        flags: e.flags,
        anim: e.animation_state,
    })
}

/// A model entity state (with its recording's quanta) → SparkEngine. Type and faction are dropped.
pub fn entity_to_spark(
    s: &crate::model::EntityState,
    position_quantum_m: f64,
    velocity_quantum_mps: f64,
) -> super::SparkEntity {
    super::SparkEntity {
        id: s.id,
        position: position_to_spark(s.pos, position_quantum_m),
        rotation: rotation_to_spark(s.orient),
        velocity: velocity_to_spark(s.vel, velocity_quantum_mps),
        health: health_to_spark(s.health),
        animation_state: s.anim,
        flags: s.flags,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unq(o: [i16; 4]) -> [f64; 4] {
        o.map(|c| f64::from(c) / 32767.0)
    }
    fn swap(v: [f64; 3]) -> [f64; 3] {
        [v[0], v[2], v[1]]
    }
    fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn body_axes_map_consistently() {
        let mut rng = crate::sim::Rng::new(7);
        for _ in 0..500 {
            let q = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
            let q = q.map(|c| c / n);
            let m = unq(rotation_to_model(q.map(|c| c as f32)).unwrap());
            // spark forward +Z → model body +X; spark up +Y → model body +Z; spark right +X → model body −Y.
            for (spark_body, model_body) in [
                ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
                ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
                ([1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
            ] {
                let want = swap(quat_rotate(q, spark_body));
                let got = quat_rotate(m, model_body);
                assert!(close(want, got, 2e-4), "q {q:?}: {want:?} vs {got:?}");
            }
            // And back.
            let back = rotation_to_spark(rotation_to_model(q.map(|c| c as f32)).unwrap()).map(f64::from);
            let same = close([back[0], back[1], back[2]], [q[0], q[1], q[2]], 1e-4) && (back[3] - q[3]).abs() < 1e-4;
            let neg = close([back[0], back[1], back[2]], [-q[0], -q[1], -q[2]], 1e-4) && (back[3] + q[3]).abs() < 1e-4;
            assert!(same || neg, "{q:?} → {back:?}");
        }
    }

    #[test]
    fn a_model_orientation_survives_the_trip_to_spark_and_back_exactly() {
        // Quantized unit quaternions are not unit: plain normalisation loses a step now and then
        // (a SparkEngine clip would not hash as its source).
        let mut rng = crate::sim::Rng::new(11);
        for _ in 0..20_000 {
            let q = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)];
            let n = (q.iter().map(|c| c * c).sum::<f64>()).sqrt();
            let o = q.map(|c| ((c / n) * 32767.0).round() as i16);
            assert_eq!(rotation_to_model(rotation_to_spark(o)), Ok(o), "{o:?}");
        }
    }

    #[test]
    fn yaw_right_in_spark_faces_east_in_the_model() {
        // +90° about spark +Y turns forward (+Z, north) to +X (east): the model's body +X points east.
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let m = unq(rotation_to_model([0.0, s, 0.0, s]).unwrap());
        assert!(close(quat_rotate(m, [1.0, 0.0, 0.0]), [1.0, 0.0, 0.0], 1e-4));
        // Identity faces north.
        let id = unq(rotation_to_model([0.0, 0.0, 0.0, 1.0]).unwrap());
        assert!(close(quat_rotate(id, [1.0, 0.0, 0.0]), [0.0, 1.0, 0.0], 1e-4));
        // Zero quaternion reads as identity.
        assert_eq!(rotation_to_model([0.0; 4]).unwrap(), rotation_to_model([0.0, 0.0, 0.0, 1.0]).unwrap());
    }

    #[test]
    fn kills_just_after_the_killers_explosion_are_named_by_it() {
        use crate::model::{Event, EventBody, NO_WEAPON};
        let blast = |tick, source| Event {
            tick,
            body: EventBody::Custom { kind: "explosion".into(), source, target: 0, pos: [0; 3], data: String::new() },
        };
        let kill = |tick, killer| Event { tick, body: EventBody::Kill { killer, victim: 9, weapon_type: NO_WEAPON } };
        // 2's blast 30 ms before its kill; 3's kill 60 ms after its blast; 4 has none; 5's kill at the
        // blast's own tick.
        let mut ev =
            vec![blast(100, 2), blast(100, 3), kill(130, 2), kill(160, 3), kill(170, 4), blast(200, 5), kill(200, 5)];
        assert_eq!(name_explosion_kills(&mut ev), 2);
        let weapons: Vec<u16> = ev
            .iter()
            .filter_map(|e| match e.body {
                EventBody::Kill { weapon_type, .. } => Some(weapon_type),
                _ => None,
            })
            .collect();
        assert_eq!(weapons, [EXPLOSION_TYPE, NO_WEAPON, NO_WEAPON, EXPLOSION_TYPE]);
    }

    #[test]
    fn each_of_fourteen_ids_in_a_row_is_its_own_faction() {
        let f: std::collections::BTreeSet<u8> = (1..=14).map(faction_of).collect();
        assert_eq!(f.len(), 14);
        assert_eq!(faction_of(3), faction_of(3 + PLAYER_FACTIONS));
    }

    #[test]
    fn positions_swap_y_and_z_and_quantize() {
        assert_eq!(position_to_model([1.0, 2.0, 3.0]).unwrap(), [1024, 3072, 2048]);
        assert_eq!(position_to_spark([1024, 3072, 2048], POSITION_QUANTUM_M), [1.0, 2.0, 3.0]);
        assert_eq!(velocity_to_model([0.5, -1.0, 2.0]).unwrap(), [128, 512, -256]);
        assert!(position_to_model([f32::NAN, 0.0, 0.0]).is_err());
        assert!(position_to_model([3.0e6, 0.0, 0.0]).is_err());
        assert_eq!(health_to_model(-5.0).unwrap(), 0);
        assert_eq!(health_to_model(1000.0).unwrap(), 65535);
        assert_eq!(health_to_model(87.25).unwrap(), 8725);
        assert_eq!(timestamp_to_tick(0.05).unwrap(), 50);
        assert!(timestamp_to_tick(-1.0).is_err() && timestamp_to_tick(f32::INFINITY).is_err());
        for t in [0u64, 50, 12_345, 299_950, 7_200_000] {
            assert_eq!(timestamp_to_tick(tick_to_timestamp(t, 1000)).unwrap(), t);
        }
    }
}
