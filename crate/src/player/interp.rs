//! Interpolation between two packed frames (see `model::frame` for the layout).
//!
//! Entities are matched by id with a two-pointer merge over the id-sorted frames. Continuous
//! fields (position, orientation) are blended; discrete fields (type, faction, health, flags, anim)
//! come from the nearer frame. An entity present in only one frame is shown, as it is in that frame,
//! only while `t` is on that frame's half of the interval: nothing teleports in early or lingers.

use super::vec::{lerp, qnorm, slerp, Q, V3};
use crate::model::{ENTITY_STRIDE, F_ANIM, F_FACTION, F_FLAGS, F_HEALTH, F_ID, F_ORIENT, F_POS, F_TYPE};

/// One entity ready to draw: world position in metres (f64), unit orientation quaternion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    pub id: u32,
    pub type_index: u16,
    pub faction: u8,
    /// World position in metres (quantized value × `position_quantum_m`).
    pub pos: V3,
    /// Unit quaternion (x, y, z, w).
    pub orient: Q,
    pub health: u16,
    pub flags: u32,
    pub anim: i32,
}

/// The blend factor of `t` between `ta` and `tb`, clamped to 0..=1. A degenerate interval
/// (`tb <= ta`) reads as frame A before `tb` and frame B from `tb` on.
pub fn blend_factor(ta: f64, tb: f64, t: f64) -> f64 {
    let span = tb - ta;
    if !span.is_finite() || span <= 0.0 {
        return if t >= tb { 1.0 } else { 0.0 };
    }
    let a = (t - ta) / span;
    if a.is_nan() {
        0.0
    } else {
        a.clamp(0.0, 1.0)
    }
}

fn chunk_id(c: &[i32]) -> u32 {
    c.get(F_ID).copied().unwrap_or(0) as u32
}

fn get(c: &[i32], i: usize) -> i32 {
    c.get(i).copied().unwrap_or(0)
}

fn orient_of(c: &[i32]) -> Q {
    let k = 1.0 / 32767.0;
    qnorm([
        f64::from(get(c, F_ORIENT)) * k,
        f64::from(get(c, F_ORIENT + 1)) * k,
        f64::from(get(c, F_ORIENT + 2)) * k,
        f64::from(get(c, F_ORIENT + 3)) * k,
    ])
}

fn pos_of(c: &[i32], quantum: f64) -> V3 {
    [f64::from(get(c, F_POS)) * quantum, f64::from(get(c, F_POS + 1)) * quantum, f64::from(get(c, F_POS + 2)) * quantum]
}

/// The entity exactly as packed in `c`.
pub fn instance_of(c: &[i32], quantum: f64) -> Instance {
    Instance {
        id: chunk_id(c),
        type_index: get(c, F_TYPE) as u16,
        faction: get(c, F_FACTION) as u8,
        pos: pos_of(c, quantum),
        orient: orient_of(c),
        health: get(c, F_HEALTH) as u16,
        flags: get(c, F_FLAGS) as u32,
        anim: get(c, F_ANIM),
    }
}

fn blend(ca: &[i32], cb: &[i32], alpha: f64, quantum: f64) -> Instance {
    let near = if alpha < 0.5 { ca } else { cb };
    let mut inst = instance_of(near, quantum);
    inst.pos = lerp(pos_of(ca, quantum), pos_of(cb, quantum), alpha);
    inst.orient = slerp(orient_of(ca), orient_of(cb), alpha);
    inst
}

/// Interpolates frames `a` (time `ta`) and `b` (time `tb`) at time `t` into `out` (cleared first),
/// in ascending id order. `quantum` is the world's `position_quantum_m`. Trailing words that do not
/// fill a whole entity are ignored; unsorted input never panics (it just matches less).
pub fn interpolate(a: &[i32], ta: f64, b: &[i32], tb: f64, t: f64, quantum: f64, out: &mut Vec<Instance>) {
    out.clear();
    let alpha = blend_factor(ta, tb, t);
    let on_a_side = alpha < 0.5;
    let mut ia = a.chunks_exact(ENTITY_STRIDE).peekable();
    let mut ib = b.chunks_exact(ENTITY_STRIDE).peekable();
    loop {
        match (ia.peek().copied(), ib.peek().copied()) {
            (None, None) => break,
            (Some(ca), None) => {
                if on_a_side {
                    out.push(instance_of(ca, quantum));
                }
                ia.next();
            }
            (None, Some(cb)) => {
                if !on_a_side {
                    out.push(instance_of(cb, quantum));
                }
                ib.next();
            }
            (Some(ca), Some(cb)) => {
                let (ida, idb) = (chunk_id(ca), chunk_id(cb));
                if ida == idb {
                    out.push(blend(ca, cb, alpha, quantum));
                    ia.next();
                    ib.next();
                } else if ida < idb {
                    if on_a_side {
                        out.push(instance_of(ca, quantum));
                    }
                    ia.next();
                } else {
                    if !on_a_side {
                        out.push(instance_of(cb, quantum));
                    }
                    ib.next();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{pack_entities, EntityState};
    use crate::player::vec::{qaxis, qrot};

    fn ent(id: u32, x: i32, faction: u8, health: u16) -> EntityState {
        EntityState { id, faction, pos: [x, 0, 0], orient: [0, 0, 0, 32767], health, flags: 1, ..Default::default() }
    }
    fn pack(es: &[EntityState]) -> Vec<i32> {
        let mut v = Vec::new();
        pack_entities(es, &mut v);
        v
    }
    fn ids(v: &[Instance]) -> Vec<u32> {
        v.iter().map(|i| i.id).collect()
    }

    #[test]
    fn matches_by_id_with_appearing_and_vanishing_entities() {
        // 1 and 3 in both; 2 only in A (vanishes); 4 only in B (appears); 0 only in B.
        let a = pack(&[ent(1, 0, 0, 100), ent(2, 50, 0, 100), ent(3, 100, 1, 100)]);
        let b = pack(&[ent(0, 7, 1, 100), ent(1, 10, 0, 100), ent(3, 200, 1, 100), ent(4, 0, 1, 100)]);
        let mut out = Vec::new();
        interpolate(&a, 0.0, &b, 1.0, 0.25, 0.5, &mut out);
        assert_eq!(ids(&out), vec![1, 2, 3]);
        // Matched by id, not by index: entity 3 moves 100 -> 200 quanta (50 -> 100 m).
        let e3 = out.iter().find(|i| i.id == 3).unwrap();
        assert!((e3.pos[0] - 62.5).abs() < 1e-9, "{:?}", e3.pos);
        let e1 = out.iter().find(|i| i.id == 1).unwrap();
        assert!((e1.pos[0] - 1.25).abs() < 1e-9);
        interpolate(&a, 0.0, &b, 1.0, 0.75, 0.5, &mut out);
        assert_eq!(ids(&out), vec![0, 1, 3, 4]);
        // Exactly at the midpoint the B side wins (consistent with discrete fields).
        interpolate(&a, 0.0, &b, 1.0, 0.5, 0.5, &mut out);
        assert_eq!(ids(&out), vec![0, 1, 3, 4]);
        // Clamped outside the interval.
        interpolate(&a, 0.0, &b, 1.0, 5.0, 0.5, &mut out);
        assert!((out.iter().find(|i| i.id == 3).unwrap().pos[0] - 100.0).abs() < 1e-9);
    }

    #[test]
    fn discrete_fields_come_from_the_nearer_frame() {
        let mut ea = ent(5, 0, 0, 9000);
        ea.flags = 1;
        ea.anim = 3;
        let mut eb = ent(5, 0, 2, 0);
        eb.flags = 0;
        eb.anim = 8;
        eb.type_index = 4;
        let (a, b) = (pack(&[ea]), pack(&[eb]));
        let mut out = Vec::new();
        interpolate(&a, 10.0, &b, 12.0, 10.9, 1.0, &mut out);
        assert_eq!((out[0].health, out[0].flags, out[0].anim, out[0].faction, out[0].type_index), (9000, 1, 3, 0, 0));
        interpolate(&a, 10.0, &b, 12.0, 11.1, 1.0, &mut out);
        assert_eq!((out[0].health, out[0].flags, out[0].anim, out[0].faction, out[0].type_index), (0, 0, 8, 2, 4));
    }

    #[test]
    fn slerp_halfway_between_known_rotations() {
        // A: identity. B: 90 degrees about +Z. Halfway must be 45 degrees about +Z.
        let q90 = qaxis([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2);
        let to_i16 = |q: [f64; 4]| q.map(|c| (c * 32767.0).round() as i16);
        let mut ea = ent(1, 0, 0, 1);
        ea.orient = [0, 0, 0, 32767];
        let mut eb = ea;
        eb.orient = to_i16(q90);
        let mut out = Vec::new();
        interpolate(&pack(&[ea]), 0.0, &pack(&[eb]), 2.0, 1.0, 1.0, &mut out);
        let fwd = qrot(out[0].orient, [1.0, 0.0, 0.0]);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((fwd[0] - h).abs() < 1e-3 && (fwd[1] - h).abs() < 1e-3 && fwd[2].abs() < 1e-3, "{fwd:?}");

        // The same target written as -q must take the same short path (not the 270 degree way round).
        let mut eneg = eb;
        eneg.orient = to_i16(q90.map(|c| -c));
        interpolate(&pack(&[ea]), 0.0, &pack(&[eneg]), 2.0, 1.0, 1.0, &mut out);
        let fwd2 = qrot(out[0].orient, [1.0, 0.0, 0.0]);
        assert!((fwd2[0] - h).abs() < 1e-3 && (fwd2[1] - h).abs() < 1e-3, "{fwd2:?}");
        // A quarter of the way: 22.5 degrees.
        interpolate(&pack(&[ea]), 0.0, &pack(&[eb]), 2.0, 0.5, 1.0, &mut out);
        let f = qrot(out[0].orient, [1.0, 0.0, 0.0]);
        assert!((f[1].atan2(f[0]).to_degrees() - 22.5).abs() < 0.05);
    }

    #[test]
    fn malformed_input_never_panics() {
        let a = vec![1, 2, 3]; // shorter than a stride: ignored
        let b = pack(&[ent(2, 0, 0, 0), ent(1, 0, 0, 0)]); // unsorted
        let mut out = Vec::new();
        interpolate(&a, f64::NAN, &b, 0.0, 1.0, 1.0, &mut out);
        interpolate(&b, 0.0, &b, 0.0, 0.0, 1.0, &mut out);
        assert_eq!(out.len(), 2);
        let zero_q = vec![0; ENTITY_STRIDE];
        interpolate(&zero_q, 0.0, &zero_q, 1.0, 0.5, 1.0, &mut out);
        assert_eq!(out[0].orient, [0.0, 0.0, 0.0, 1.0]);
    }
}
