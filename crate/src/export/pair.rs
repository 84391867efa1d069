//! A tick's objects paired with the tick before's by entity id: the one rule by which both the
//! ACMI writer (which writes, updates and removes objects) and its [`Poser`] (which follows their
//! angles) tell a kept object from a new one. The two must agree: a new object's first line
//! carries its whole `T=`. [`same_ids`] is the common case, which each caller walks in place with
//! its own loop (a callback per object there measured 6–8 % slower in the worker's wasm,
//! docs/performance-history.md "Exports"); [`pair_by_id`] is the merge for a tick whose ids changed.
//!
//! [`Poser`]: super::pose::Poser

use crate::model::EntityState;

/// What [`pair_by_id`] found.
pub enum Step<'a, T> {
    /// The item of an object of the tick before that this tick does not have (by reference:
    /// a step is small, never a copy of an item).
    Gone(&'a T),
    /// State `i` of this tick, and its item from the tick before.
    Kept(usize, &'a EntityState, &'a mut T),
    /// State `i` of this tick, new: the callback returns its item.
    New(usize, &'a EntityState),
}

/// Whether `prev` (the items of the tick before, by ascending `id`) has exactly the ids of
/// `states`, in order: then item `i` is state `i`'s.
pub fn same_ids<T>(prev: &[T], states: &[EntityState], id: impl Fn(&T) -> u32) -> bool {
    prev.len() == states.len() && prev.iter().zip(states).all(|(o, s)| id(o) == s.id)
}

/// Pairs `states` (one tick's, by ascending id, as every reader gives them) with `prev` (the
/// items of the tick before, by ascending `id`) and calls `f` once per step, in id order (a gone
/// object before the state after it). `prev` is left holding this tick's items, in the order of
/// `states` (a `New` for which `f` returns `None` has none); `spare` is a buffer kept for the
/// next call.
pub fn pair_by_id<T>(
    prev: &mut Vec<T>,
    spare: &mut Vec<T>,
    states: &[EntityState],
    id: impl Fn(&T) -> u32,
    mut f: impl FnMut(Step<'_, T>) -> Option<T>,
) {
    spare.clear();
    spare.reserve(states.len());
    let mut old = prev.drain(..).peekable();
    for (i, s) in states.iter().enumerate() {
        while let Some(o) = old.next_if(|o| id(o) < s.id) {
            f(Step::Gone(&o));
        }
        match old.next_if(|o| id(o) == s.id) {
            Some(mut o) => {
                f(Step::Kept(i, s, &mut o));
                spare.push(o);
            }
            None => spare.extend(f(Step::New(i, s))),
        }
    }
    for o in old {
        f(Step::Gone(&o));
    }
    std::mem::swap(prev, spare);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(id: u32) -> EntityState {
        EntityState { id, ..Default::default() }
    }

    /// Objects kept, new and gone, in id order; `prev` holds this tick's afterwards.
    #[test]
    fn kept_new_and_gone_in_id_order() {
        let (mut prev, mut spare) = (vec![1u32, 3, 5, 8], Vec::new());
        let states: Vec<_> = [2, 3, 8, 9].into_iter().map(state).collect();
        let mut seen = Vec::new();
        pair_by_id(
            &mut prev,
            &mut spare,
            &states,
            |&o| o,
            |step| match step {
                Step::Gone(o) => {
                    seen.push(format!("-{o}"));
                    None
                }
                Step::Kept(i, s, o) => {
                    assert_eq!(*o, s.id);
                    seen.push(format!("={o}@{i}"));
                    None
                }
                Step::New(i, s) => {
                    seen.push(format!("+{}@{i}", s.id));
                    Some(s.id)
                }
            },
        );
        assert_eq!(seen, ["-1", "+2@0", "=3@1", "-5", "=8@2", "+9@3"]);
        assert_eq!(prev, [2, 3, 8, 9]);
        assert!(same_ids(&prev, &states, |&o| o));
        assert!(!same_ids(&prev, &states[1..], |&o| o), "one fewer");
        assert!(!same_ids(&[2, 3, 8, 10], &states, |&o| o), "one other");
        // The same ids through the merge: all kept.
        seen.clear();
        pair_by_id(
            &mut prev,
            &mut spare,
            &states,
            |&o| o,
            |step| {
                if let Step::Kept(_, _, o) = step {
                    *o += 100;
                    seen.push("=".into());
                }
                None
            },
        );
        assert_eq!(seen.len(), 4);
        assert_eq!(prev, [102, 103, 108, 109]);
        // None at all: every one gone.
        pair_by_id(
            &mut prev,
            &mut spare,
            &[],
            |&o| o,
            |step| {
                assert!(matches!(step, Step::Gone(_)));
                None
            },
        );
        assert!(prev.is_empty());
    }
}
