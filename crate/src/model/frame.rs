//! The packed frame layout shared by the worker, the main thread and the renderer.
//!
//! A frame is a flat `i32` array, [`ENTITY_STRIDE`] values per entity, sorted by entity id. The
//! worker posts these as transferable `Int32Array` buffers (see docs/worker-protocol.md); the
//! renderer reads them without knowing which format they came from.

use super::EntityState;

pub const ENTITY_STRIDE: usize = 16;
pub const F_ID: usize = 0;
pub const F_TYPE: usize = 1;
pub const F_FACTION: usize = 2;
/// x, y, z at 3..6
pub const F_POS: usize = 3;
/// qx, qy, qz, qw at 6..10
pub const F_ORIENT: usize = 6;
/// vx, vy, vz at 10..13
pub const F_VEL: usize = 10;
pub const F_HEALTH: usize = 13;
pub const F_FLAGS: usize = 14;
pub const F_ANIM: usize = 15;

/// Appends `states` to `out` in the packed layout.
pub fn pack_entities(states: &[EntityState], out: &mut Vec<i32>) {
    out.reserve(states.len().saturating_mul(ENTITY_STRIDE));
    for s in states {
        out.extend_from_slice(&[
            s.id as i32,
            i32::from(s.type_index),
            i32::from(s.faction),
            s.pos[0],
            s.pos[1],
            s.pos[2],
            i32::from(s.orient[0]),
            i32::from(s.orient[1]),
            i32::from(s.orient[2]),
            i32::from(s.orient[3]),
            s.vel[0],
            s.vel[1],
            s.vel[2],
            i32::from(s.health),
            s.flags as i32,
            s.anim,
        ]);
    }
}

/// Reads one packed entity; `None` when `chunk` is shorter than a stride.
pub fn unpack_entity(chunk: &[i32]) -> Option<EntityState> {
    let c: &[i32; ENTITY_STRIDE] = chunk.get(..ENTITY_STRIDE)?.try_into().ok()?;
    Some(EntityState {
        id: c[F_ID] as u32,
        type_index: c[F_TYPE] as u16,
        faction: c[F_FACTION] as u8,
        pos: [c[F_POS], c[F_POS + 1], c[F_POS + 2]],
        orient: [c[F_ORIENT] as i16, c[F_ORIENT + 1] as i16, c[F_ORIENT + 2] as i16, c[F_ORIENT + 3] as i16],
        vel: [c[F_VEL], c[F_VEL + 1], c[F_VEL + 2]],
        health: c[F_HEALTH] as u16,
        flags: c[F_FLAGS] as u32,
        anim: c[F_ANIM],
    })
}
