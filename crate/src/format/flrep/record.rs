//! The QuantEntity record: an entity's state as a keyframe (absolute) record or a delta record that
//! carries only second-order residuals of what changed.
//!
//! Prediction (identical in writer and reader): every live entity carries its last per-tick change
//! `d` for position, orientation and velocity. Each tick, `value' = value + d + residual` and
//! `d' = value' - value`; an absent field or an absent record means residual 0. A steadily moving
//! or turning entity therefore costs (almost) nothing per tick. Keyframe and absolute records reset
//! `d` to 0. Health, flags, type/faction and animation state are absolute when present.

use crate::bytes::{Cursor, PutLe};
use crate::model::EntityState;

pub const ABSOLUTE: u64 = 1 << 0;
pub const POS: u64 = 1 << 1;
pub const ORIENT: u64 = 1 << 2;
pub const VEL: u64 = 1 << 3;
pub const HEALTH: u64 = 1 << 4;
pub const FLAGS: u64 = 1 << 5;
pub const TYPE_FACTION: u64 = 1 << 6;
pub const REMOVE: u64 = 1 << 7;
pub const ANIM: u64 = 1 << 8;
/// With POS / ORIENT / VEL: the residuals are small (each in -2..=1) and packed into one byte,
/// component k in bits 2k..2k+1 as 2-bit two's complement.
pub const POS_SMALL: u64 = 1 << 9;
pub const ORIENT_SMALL: u64 = 1 << 10;
pub const VEL_SMALL: u64 = 1 << 11;
/// The field bits an absolute record must carry.
pub const ABSOLUTE_FIELDS: u64 = POS | ORIENT | VEL | HEALTH | FLAGS | TYPE_FACTION;
pub const KNOWN_BITS: u64 = ABSOLUTE | ABSOLUTE_FIELDS | REMOVE | ANIM | POS_SMALL | ORIENT_SMALL | VEL_SMALL;

/// A live entity and its prediction state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Live {
    pub s: EntityState,
    pub dpos: [i32; 3],
    pub dori: [i32; 4],
    pub dvel: [i32; 3],
}

impl Live {
    pub fn absolute(s: EntityState) -> Live {
        Live { s, ..Default::default() }
    }
}

/// A decoded record, before it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    Remove { id: u32 },
    Absolute(EntityState),
    Delta(Delta),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Delta {
    pub id: u32,
    pub type_faction: Option<(u16, u8)>,
    pub pos: Option<[i32; 3]>,
    pub orient: Option<[i32; 4]>,
    pub vel: Option<[i32; 3]>,
    pub health: Option<u16>,
    pub flags: Option<u32>,
    pub anim: Option<i32>,
}

impl Record {
    pub fn id(&self) -> u32 {
        match self {
            Record::Remove { id } => *id,
            Record::Absolute(s) => s.id,
            Record::Delta(d) => d.id,
        }
    }
}

/// Why a record could not be read (the chunk decoder adds where).
pub type RecordError = String;

#[inline(always)]
fn vint<T: TryFrom<u64>>(c: &mut Cursor, what: &str) -> Result<T, RecordError> {
    let v = c
        .varint()
        .map_err(|_| format!("record ends inside {what}"))?
        .ok_or_else(|| format!("{what}: malformed varint"))?;
    T::try_from(v).map_err(|_| format!("{what} value {v} out of range"))
}

#[inline(always)]
fn svint<T: TryFrom<i64>>(c: &mut Cursor, what: &str) -> Result<T, RecordError> {
    let v = c
        .varint()
        .map_err(|_| format!("record ends inside {what}"))?
        .ok_or_else(|| format!("{what}: malformed varint"))?;
    let v = crate::bytes::unzigzag(v);
    T::try_from(v).map_err(|_| format!("{what} value {v} out of range"))
}

#[inline(always)]
fn read3(c: &mut Cursor, what: &str) -> Result<[i32; 3], RecordError> {
    Ok([svint(c, what)?, svint(c, what)?, svint(c, what)?])
}

/// Reads one record. The id is coded as the gap after the previous record's id in the same tick
/// (`id - prev - 1`), or as the id itself for the tick's first record, so ids ascend by construction.
#[inline(always)]
pub fn read(c: &mut Cursor, prev_id: Option<u32>) -> Result<Record, (Option<u32>, RecordError)> {
    let gap: u64 = vint(c, "entity id").map_err(|e| (None, e))?;
    let id = match prev_id {
        None => Some(gap),
        Some(p) => u64::from(p).checked_add(gap).and_then(|v| v.checked_add(1)),
    }
    .and_then(|v| u32::try_from(v).ok())
    .ok_or_else(|| (prev_id, format!("entity id gap {gap} overflows u32")))?;
    read_body(c, id).map_err(|e| (Some(id), e))
}

#[inline(always)]
fn small<const N: usize>(c: &mut Cursor, what: &str) -> Result<[i32; N], RecordError> {
    let b = c.u8().map_err(|_| format!("record ends inside {what}"))?;
    if N < 4 && b >> (2 * N) != 0 {
        return Err(format!("{what}: unused bits set in packed residuals"));
    }
    let mut out = [0i32; N];
    for (k, o) in out.iter_mut().enumerate() {
        let v = i32::from((b >> (2 * k)) & 3);
        *o = if v >= 2 { v - 4 } else { v };
    }
    Ok(out)
}

fn put_small(out: &mut Vec<u8>, v: &[i64]) {
    let mut b = 0u8;
    for (k, x) in v.iter().enumerate() {
        b |= ((*x as i8 as u8) & 3) << (2 * k);
    }
    out.push(b);
}

fn is_small(v: &[i64]) -> bool {
    v.iter().all(|x| (-2..=1).contains(x))
}

#[inline(always)]
fn read_body(c: &mut Cursor, id: u32) -> Result<Record, RecordError> {
    let mask: u64 = vint(c, "presence mask")?;
    if mask & !KNOWN_BITS != 0 {
        return Err(format!(
            "presence mask 0x{mask:x} has unknown bits (a newer record layout needs a new major version)"
        ));
    }
    if mask & REMOVE != 0 {
        if mask != REMOVE {
            return Err(format!("remove record with other bits set (mask 0x{mask:x})"));
        }
        return Ok(Record::Remove { id });
    }
    let absolute = mask & ABSOLUTE != 0;
    if absolute && mask & ABSOLUTE_FIELDS != ABSOLUTE_FIELDS {
        return Err(format!("absolute record without every field (mask 0x{mask:x})"));
    }
    let mut d = Delta { id, ..Default::default() };
    if mask & TYPE_FACTION != 0 {
        d.type_faction = Some((vint(c, "type index")?, c.u8().map_err(|_| "record ends inside faction".to_string())?));
    }
    for (small_bit, field) in [(POS_SMALL, POS), (ORIENT_SMALL, ORIENT), (VEL_SMALL, VEL)] {
        if mask & small_bit != 0 && (absolute || mask & field == 0) {
            return Err(format!("packed-residual bit without its delta field (mask 0x{mask:x})"));
        }
    }
    if mask & POS != 0 {
        d.pos = Some(if mask & POS_SMALL != 0 { small::<3>(c, "position")? } else { read3(c, "position")? });
    }
    if mask & ORIENT != 0 {
        d.orient = Some(if mask & ORIENT_SMALL != 0 {
            small::<4>(c, "orientation")?
        } else {
            [svint(c, "orientation")?, svint(c, "orientation")?, svint(c, "orientation")?, svint(c, "orientation")?]
        });
    }
    if mask & VEL != 0 {
        d.vel = Some(if mask & VEL_SMALL != 0 { small::<3>(c, "velocity")? } else { read3(c, "velocity")? });
    }
    if mask & HEALTH != 0 {
        d.health = Some(vint(c, "health")?);
    }
    if mask & FLAGS != 0 {
        d.flags = Some(vint(c, "state flags")?);
    }
    if mask & ANIM != 0 {
        d.anim = Some(svint(c, "animation state")?);
    }
    if absolute {
        let (type_index, faction) = d.type_faction.unwrap_or_default();
        let o = d.orient.unwrap_or_default();
        let mut orient = [0i16; 4];
        for (dst, v) in orient.iter_mut().zip(o) {
            *dst = i16::try_from(v).map_err(|_| format!("orientation component {v} out of range"))?;
        }
        return Ok(Record::Absolute(EntityState {
            id,
            type_index,
            faction,
            pos: d.pos.unwrap_or_default(),
            orient,
            vel: d.vel.unwrap_or_default(),
            health: d.health.unwrap_or_default(),
            flags: d.flags.unwrap_or_default(),
            anim: d.anim.unwrap_or_default(),
        }));
    }
    Ok(Record::Delta(d))
}

/// Component-wise `f(a[k], b[k])` in i64 (no indexing, so nothing to panic).
fn comb<const N: usize>(a: [i64; N], b: [i64; N], f: impl Fn(i64, i64) -> i64) -> [i64; N] {
    let mut out = [0i64; N];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
    out
}

fn wide<const N: usize, T: Into<i64> + Copy>(v: [T; N]) -> [i64; N] {
    v.map(Into::into)
}

/// Narrows every component, or describes the first that does not fit.
fn narrow<const N: usize, T: TryFrom<i64> + Copy + Default>(
    v: [i64; N],
    err: impl Fn(i64) -> String,
) -> Result<[T; N], RecordError> {
    let mut out = [T::default(); N];
    for (o, x) in out.iter_mut().zip(v) {
        *o = T::try_from(x).map_err(|_| err(x))?;
    }
    Ok(out)
}

/// One prediction step: `n = v + d + r`, `d' = n - v`.
fn step<const N: usize, T: Into<i64> + TryFrom<i64> + Copy + Default>(
    v: [T; N],
    d: [i32; N],
    r: [i32; N],
    what: &str,
) -> Result<([T; N], [i32; N]), RecordError> {
    let n = comb(comb(wide(v), wide(d), |a, b| a + b), wide(r), |a, b| a + b);
    let value = narrow(n, |x| {
        if what == "orientation" {
            format!("orientation component {x} out of range")
        } else {
            format!("{what} overflows ({x})")
        }
    })?;
    Ok((value, narrow(comb(n, wide(v), |a, b| a - b), |_| format!("{what} change overflows"))?))
}

/// Advances an entity that has no record this tick (all residuals 0).
pub fn advance(l: &Live) -> Result<Live, RecordError> {
    apply_delta(l, &Delta { id: l.s.id, ..Default::default() })
}

/// One prediction step without the error text: `None` when a component does not fit (then
/// [`step`] says which). The hot path of a roll forward.
#[inline(always)]
fn step_fast<const N: usize, T: Into<i64> + TryFrom<i64> + Copy + Default>(
    v: [T; N],
    d: [i32; N],
    r: [i32; N],
) -> Option<([T; N], [i32; N])> {
    let mut value = [T::default(); N];
    let mut change = [0i32; N];
    for ((((o, c), v), d), r) in value.iter_mut().zip(change.iter_mut()).zip(v).zip(d).zip(r) {
        let v: i64 = v.into();
        let n = v + i64::from(d) + i64::from(r);
        *o = T::try_from(n).ok()?;
        *c = i32::try_from(n - v).ok()?;
    }
    Some((value, change))
}

/// Applies a delta record to a live entity.
#[inline(always)]
pub fn apply_delta(l: &Live, d: &Delta) -> Result<Live, RecordError> {
    let pos = step_fast(l.s.pos, l.dpos, d.pos.unwrap_or_default());
    let orient = step_fast(l.s.orient, l.dori, d.orient.unwrap_or_default());
    let vel = step_fast(l.s.vel, l.dvel, d.vel.unwrap_or_default());
    let (Some((pos, dpos)), Some((orient, dori)), Some((vel, dvel))) = (pos, orient, vel) else {
        return Err(delta_overflow(l, d));
    };
    let (type_index, faction) = d.type_faction.unwrap_or((l.s.type_index, l.s.faction));
    Ok(Live {
        s: EntityState {
            id: l.s.id,
            type_index,
            faction,
            pos,
            orient,
            vel,
            health: d.health.unwrap_or(l.s.health),
            flags: d.flags.unwrap_or(l.s.flags),
            anim: d.anim.unwrap_or(l.s.anim),
        },
        dpos,
        dori,
        dvel,
    })
}

/// Why [`apply_delta`]'s step did not fit: the checked [`step`] names the first component that
/// does not (the same checks, in the same order, as `step_fast`).
#[cold]
fn delta_overflow(l: &Live, d: &Delta) -> RecordError {
    let checked = || -> Result<(), RecordError> {
        step(l.s.pos, l.dpos, d.pos.unwrap_or_default(), "position")?;
        step(l.s.orient, l.dori, d.orient.unwrap_or_default(), "orientation")?;
        step(l.s.vel, l.dvel, d.vel.unwrap_or_default(), "velocity")?;
        Ok(())
    };
    checked().err().unwrap_or_else(|| "prediction step out of range".to_string())
}

fn put_id(out: &mut Vec<u8>, id: u32, prev: Option<u32>) {
    out.put_varint(match prev {
        None => u64::from(id),
        Some(p) => u64::from(id) - u64::from(p) - 1,
    });
}

/// Writes an absolute record. `prev` is the previous record's id in this tick (ids must ascend).
pub fn write_absolute(out: &mut Vec<u8>, s: &EntityState, prev: Option<u32>) {
    put_id(out, s.id, prev);
    let mask = ABSOLUTE | ABSOLUTE_FIELDS | if s.anim != 0 { ANIM } else { 0 };
    out.put_varint(mask);
    out.put_varint(u64::from(s.type_index));
    out.put_u8(s.faction);
    for v in s.pos {
        out.put_svarint(i64::from(v));
    }
    for v in s.orient {
        out.put_svarint(i64::from(v));
    }
    for v in s.vel {
        out.put_svarint(i64::from(v));
    }
    out.put_varint(u64::from(s.health));
    out.put_varint(u64::from(s.flags));
    if s.anim != 0 {
        out.put_svarint(i64::from(s.anim));
    }
}

pub fn write_remove(out: &mut Vec<u8>, id: u32, prev: Option<u32>) {
    put_id(out, id, prev);
    out.put_varint(REMOVE);
}

/// Writes the delta record that turns `prev` (with its prediction) into `next`, or nothing when the
/// prediction is already exact. Returns the live state the reader will hold afterwards.
pub fn write_delta(out: &mut Vec<u8>, prev: &Live, next: &EntityState, prev_id: Option<u32>) -> Live {
    let mut mask = 0u64;
    let sub = |a: i64, b: i64| a - b;
    // Changes since the previous tick, and residuals against the prediction.
    let (cpos, cori, cvel) = (
        comb(wide(next.pos), wide(prev.s.pos), sub),
        comb(wide(next.orient), wide(prev.s.orient), sub),
        comb(wide(next.vel), wide(prev.s.vel), sub),
    );
    let (rpos, rori, rvel) =
        (comb(cpos, wide(prev.dpos), sub), comb(cori, wide(prev.dori), sub), comb(cvel, wide(prev.dvel), sub));
    let fits = |v: &i64| i32::try_from(*v).is_ok();
    if !(rpos.iter().chain(&rvel).chain(&rori).chain(&cpos).chain(&cvel).all(fits)) {
        // A jump too large for a delta (a teleport across the world): restate the entity.
        write_absolute(out, next, prev_id);
        return Live::absolute(*next);
    }
    if rpos.iter().any(|v| *v != 0) {
        mask |= POS;
    }
    if rori.iter().any(|v| *v != 0) {
        mask |= ORIENT;
    }
    if rvel.iter().any(|v| *v != 0) {
        mask |= VEL;
    }
    if next.health != prev.s.health {
        mask |= HEALTH;
    }
    if next.flags != prev.s.flags {
        mask |= FLAGS;
    }
    if next.type_index != prev.s.type_index || next.faction != prev.s.faction {
        mask |= TYPE_FACTION;
    }
    if next.anim != prev.s.anim {
        mask |= ANIM;
    }
    // Every change fits i32 (checked above; orientation changes are differences of i16s).
    let live =
        Live { s: *next, dpos: cpos.map(|v| v as i32), dori: cori.map(|v| v as i32), dvel: cvel.map(|v| v as i32) };
    if mask == 0 {
        return live;
    }
    if mask & POS != 0 && is_small(&rpos) {
        mask |= POS_SMALL;
    }
    if mask & ORIENT != 0 && is_small(&rori) {
        mask |= ORIENT_SMALL;
    }
    if mask & VEL != 0 && is_small(&rvel) {
        mask |= VEL_SMALL;
    }
    put_id(out, next.id, prev_id);
    out.put_varint(mask);
    if mask & TYPE_FACTION != 0 {
        out.put_varint(u64::from(next.type_index));
        out.put_u8(next.faction);
    }
    for (bit, small_bit, r) in
        [(POS, POS_SMALL, &rpos[..]), (ORIENT, ORIENT_SMALL, &rori[..]), (VEL, VEL_SMALL, &rvel[..])]
    {
        if mask & small_bit != 0 {
            put_small(out, r);
        } else if mask & bit != 0 {
            r.iter().for_each(|v| out.put_svarint(*v));
        }
    }
    if mask & HEALTH != 0 {
        out.put_varint(u64::from(next.health));
    }
    if mask & FLAGS != 0 {
        out.put_varint(u64::from(next.flags));
    }
    if mask & ANIM != 0 {
        out.put_svarint(i64::from(next.anim));
    }
    live
}
