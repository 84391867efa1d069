//! The per-tick state hash (docs/format/flrep.md §11): FNV-1a 64 over the canonical quantized entity
//! stream.
//!
//! Canonical stream: entities in ascending id order; for each, little-endian
//! `id u32, type u16, faction u8, pos 3×i32, orient 4×i16, vel 3×i32, health u16, flags u32, anim i32`
//! (49 bytes). The tick index is not hashed, so two recordings that start at different ticks can be
//! compared tick by tick. Integers only: no float ordering can make it differ across platforms.

use super::EntityState;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Hash of one tick's entities. `entities` must be sorted by id (readers keep them so).
pub fn state_hash(entities: &[EntityState]) -> u64 {
    let mut h = FNV_OFFSET;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(FNV_PRIME);
        }
    };
    for e in entities {
        feed(&e.id.to_le_bytes());
        feed(&e.type_index.to_le_bytes());
        feed(&[e.faction]);
        for v in e.pos {
            feed(&v.to_le_bytes());
        }
        for v in e.orient {
            feed(&v.to_le_bytes());
        }
        for v in e.vel {
            feed(&v.to_le_bytes());
        }
        feed(&e.health.to_le_bytes());
        feed(&e.flags.to_le_bytes());
        feed(&e.anim.to_le_bytes());
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_fnv_offset_and_any_field_changes_it() {
        assert_eq!(state_hash(&[]), FNV_OFFSET);
        let a = EntityState { id: 7, pos: [1, 2, 3], ..Default::default() };
        let mut b = a;
        b.pos[2] = 4;
        assert_ne!(state_hash(&[a]), state_hash(&[b]));
        let mut c = a;
        c.anim = 1;
        assert_ne!(state_hash(&[a]), state_hash(&[c]));
    }
}
