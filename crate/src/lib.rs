//! replay-player: read game replays (`.flrep`, SparkEngine `.replay`, `.foldback`) and play them.
//!
//! Layers (dependency direction is downward only; see docs/ARCHITECTURE.md):
//! - [`bytes`]: checked little-endian cursor over untrusted bytes (never panics, never over-allocates).
//! - [`model`]: the one in-memory model every format maps into.
//! - [`format`]: pure readers/writers (sans-IO: they ask for byte ranges; drivers do the I/O).
//! - `export`: ACMI 2.2 text and the time vocabulary of ranges, over the model (feature `export`).
//! - [`io`]: native drivers (files) for the sans-IO readers (and the exports).
//! - [`sim`]: deterministic session generators (demo replay, fixtures, benchmarks).
//! - [`player`]: playback clock, interpolation, cameras (no GPU, no JS).
//! - [`render`]: the renderer: meshes and scene building (pure), its wgpu half in web builds.
//! - `host`: the replay host, `replay host` (feature `host`, native only).
//! - `web`: the only module that knows wasm-bindgen / web-sys.
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

pub mod bytes;
#[cfg(feature = "export")]
pub mod export;
#[cfg(feature = "flrep")]
pub mod format;
#[cfg(all(feature = "host", not(target_arch = "wasm32")))]
pub mod host;
#[cfg(all(feature = "formats", not(target_arch = "wasm32")))]
pub mod io;
pub mod model;
pub mod player;
#[cfg(feature = "render")]
pub mod render;
#[cfg(feature = "formats")]
pub mod sim;
#[cfg(feature = "wasm")]
pub mod web;
