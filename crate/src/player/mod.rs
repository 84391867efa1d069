//! Playback: interpolation and cameras. No GPU, no JS, no I/O (compiled in every build, tested natively).

pub mod camera;
pub mod interp;
pub mod vec;

pub use camera::{Camera, CameraMode, View};
pub use interp::{interpolate, Instance};
