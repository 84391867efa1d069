//! `replay generate --perturb-at TICK`: a recording identical to the one generated without the
//! option except for one entity's position from tick TICK on: the input of the determinism gate's
//! tests (`replay diff`, the player's Compare: docs/playback.md "Comparing two recordings").
//!
//! Which entity: the one with the lowest id in the first tick at or after TICK that holds any;
//! that entity stays the one nudged in every later tick that holds it. Which field: its position's
//! x, [`NUDGE_M`] (one metre) more: `round(1 m / position quantum)` steps in a `.flrep` (8 at the
//! default 0.125 m), +1.0 on the f32 metres of a SparkEngine frame. Only what is written changes: the
//! simulation runs as without the option, so every other entity, field, event and tick is the same.

use crate::model::EntityState;

/// How far the entity is moved along x, in metres.
pub const NUDGE_M: f64 = 1.0;

/// The perturbation of one generated recording (see the module comment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Perturb {
    at: u64,
    entity: Option<u32>,
}

impl Perturb {
    /// Nudges from tick `at` on.
    pub fn new(at: u64) -> Self {
        Perturb { at, entity: None }
    }

    /// The entity nudged in a tick `tick` that holds the entities `ids`, or `None` (before `at`).
    pub fn pick(&mut self, tick: u64, ids: impl Iterator<Item = u32>) -> Option<u32> {
        if tick < self.at {
            return None;
        }
        if self.entity.is_none() {
            self.entity = ids.min();
        }
        self.entity
    }

    /// The entity chosen (once a tick at or after `at` held one).
    pub fn entity(&self) -> Option<u32> {
        self.entity
    }

    /// Nudges the chosen entity in `states` (one tick, model units of a recording whose position
    /// quantum is `position_quantum_m`).
    pub fn apply(&mut self, tick: u64, states: &mut [EntityState], position_quantum_m: f64) {
        let Some(id) = self.pick(tick, states.iter().map(|s| s.id)) else { return };
        let steps = if position_quantum_m > 0.0 { (NUDGE_M / position_quantum_m).round().max(1.0) as i32 } else { 1 };
        for s in states.iter_mut().filter(|s| s.id == id) {
            s.pos[0] = s.pos[0].saturating_add(steps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_id_of_the_first_tick_at_or_after_is_nudged_from_then_on() {
        let st = |ids: &[u32]| ids.iter().map(|&id| EntityState { id, ..Default::default() }).collect::<Vec<_>>();
        let mut p = Perturb::new(5);
        let mut before = st(&[3, 2]);
        p.apply(4, &mut before, 0.125);
        assert_eq!(before, st(&[3, 2]));
        let mut at = st(&[4, 2, 9]);
        p.apply(5, &mut at, 0.125);
        assert_eq!(at.iter().map(|s| s.pos[0]).collect::<Vec<_>>(), [0, 8, 0]);
        let mut later = st(&[1, 2]);
        p.apply(6, &mut later, 0.125);
        assert_eq!((later[0].pos[0], later[1].pos[0], p.entity()), (0, 8, Some(2)));
    }
}
