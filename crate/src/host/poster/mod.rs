//! The poster: a 1200×630 PNG still of one moment of a replay, drawn on the server without a GPU
//! (tiny-skia): a top-down view of the entities as faction-coloured marks with their heading, short
//! trails, kills near that time, a few callsigns and the title.
//!
//! - [`read`]: the inputs of a poster out of a stored file through the sans-IO
//!   [`Session`](crate::format::Session): the open, then only the chunks around the moment
//!   ([`read::chunks_for`], [`read::moment_from_chunks`]); [`read::read_moment`] drives both over a
//!   [`ReadAt`](crate::io::ReadAt). The server feeds the same functions from its object store.
//! - [`draw`]: the pure drawing ([`render_png`]): no I/O, no panic on any value a file can hold.
//! - [`text`]: glyphs (`fontdue` and a DejaVu Sans subset committed in `crate/assets/fonts`).
//! - [`route`]: `GET /r/{id}/poster.png?t=`, drawn once per tenth of a second and kept in the store.

pub mod draw;
pub mod read;
pub mod route;
pub mod text;

pub use draw::{render, render_png, render_png_with, render_with, HEIGHT, WIDTH};
pub use read::{chunks_for, moment_from_chunks, moment_tick, read_moment};

use crate::model::EntityState;

/// One decoded tick: its entity states, sorted by id (as every reader gives them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub tick: u64,
    pub states: Vec<EntityState>,
}

/// A kill near the moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kill {
    pub tick: u64,
    pub killer: u32,
    pub victim: u32,
}

/// What a poster shows of one moment: frames up to it and the kills around it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Moment {
    /// The moment's tick.
    pub tick: u64,
    /// Frames in ascending tick order, none past `tick`; the last is the world at `tick` (the
    /// earlier ones, a few a second, give the trails and where the kills happened).
    pub frames: Vec<Frame>,
    /// Kills of the few seconds before `tick`, in tick order.
    pub kills: Vec<Kill>,
    /// Entity → callsign of the participants known at the moment (their first entity, then their
    /// spawns seen in the frames' chunks), each cut to 64 characters.
    pub callsigns: Vec<(u32, String)>,
}

/// Seconds of trail drawn behind each entity.
pub const TRAIL_SECONDS: f64 = 4.0;
/// Kills this many seconds before the moment are marked (the older ones fainter).
pub const KILL_SECONDS: f64 = 8.0;
