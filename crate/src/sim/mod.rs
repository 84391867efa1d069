//! Deterministic, seeded session generators: the bundled demo replay, test fixtures and benchmark
//! inputs. Same config, same bytes.

pub mod deathmatch;
mod dogfight;
pub mod fixtures;
pub mod foldback;
pub mod perturb;
mod rng;

pub use deathmatch::{deathmatch_bytes, Deathmatch, DeathmatchConfig};
pub use dogfight::{Dogfight, DogfightConfig};
pub use perturb::Perturb;
pub use rng::Rng;

use crate::format::flrep::writer::{WriteError, Writer, WriterOptions};

/// Generates a dogfight into an in-memory `.flrep`.
pub fn dogfight_bytes(cfg: &DogfightConfig) -> Result<Vec<u8>, WriteError> {
    let mut sim = Dogfight::new(cfg.clone());
    let opts = WriterOptions { keyframe_interval_ticks: cfg.keyframe_interval_ticks, ..Default::default() };
    let mut w = Writer::new(Vec::new(), &sim.header(), &sim.sections(), opts)?;
    while let Some((tick, states, events)) = sim.step() {
        w.tick(tick, states, &events)?;
    }
    w.finish()
}
