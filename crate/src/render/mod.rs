//! wgpu renderer: consumes packed frames only, never format types.
//!
//! - [`mesh`]: low-poly meshes per category (pure).
//! - [`scene`]: CPU-side frame building: interpolation, camera, trails, flashes, picking, labels (pure).
//! - [`gpu`]: device/surface/pipelines for one canvas (wgpu; WebGPU or WebGL2).
//! - [`Renderer`] (in `renderer.rs`) ties them together and recovers from device loss.
//!
//! The browser is behind [`Host`]: the canvas, background tasks and the console come from
//! `crate::web::canvas`, so this module names no wasm-bindgen, js-sys or web-sys item
//! (docs/ARCHITECTURE.md, "Code map").

// The GPU half only exists in the browser build (feature `render-web` on wasm32); `scene` and `mesh`
// are pure and build natively too (feature `render`, on by default: `cargo test` runs their tests).
#[cfg(all(feature = "render-web", target_arch = "wasm32"))]
pub mod gpu;
pub mod mesh;
#[cfg(all(feature = "render-web", target_arch = "wasm32"))]
mod renderer;
pub mod scene;

#[cfg(all(feature = "render-web", target_arch = "wasm32"))]
pub use renderer::Renderer;
pub use scene::{FrameData, Scene};

/// A surface dimension in device pixels: `css * dpr` rounded, at least 1, at most `max`; NaN gives 1.
///
/// Not `f64::clamp`: its `min > max` assertion formats both floats, which alone linked core's float
/// formatting (~11 KB of code, ~3 KB gzipped) into the renderer wasm.
pub fn px_in(device_px: f64, max: f64) -> f64 {
    device_px.round().max(1.0).min(max.max(1.0))
}

/// What the renderer needs from the page or worker it runs in, implemented by the canvas it draws
/// into (`crate::web::canvas::Canvas`: a page's `<canvas>` or a worker's `OffscreenCanvas`).
#[cfg(all(feature = "render-web", target_arch = "wasm32"))]
pub trait Host: Clone + 'static {
    /// The canvas' drawing buffer in pixels (`width`, `height`).
    fn size(&self) -> (u32, u32);
    /// Sets the drawing buffer's size (the page sizes the canvas' box with CSS).
    fn set_size(&self, width: u32, height: u32);
    /// What wgpu creates its surface on.
    fn surface_target(&self) -> wgpu::SurfaceTarget<'static>;
    /// Whether the browser offers WebGPU at all (asked before requesting an adapter).
    fn has_webgpu() -> bool;
    /// Runs `task` to completion in the background (device recreation, checks after a frame). Boxed:
    /// one instantiation of the browser's task queue for every caller.
    fn spawn(task: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>);
    /// A warning on the console.
    fn warn(message: &str);
    /// An error on the console.
    fn error(message: &str);
}

#[cfg(test)]
mod tests {
    use super::px_in;

    #[test]
    fn px_in_rounds_and_bounds() {
        assert_eq!(px_in(799.6, 8192.0), 800.0);
        assert_eq!(px_in(0.2, 8192.0), 1.0);
        assert_eq!(px_in(-5.0, 8192.0), 1.0);
        assert_eq!(px_in(20_000.0, 8192.0), 8192.0);
        assert_eq!(px_in(f64::NAN, 8192.0), 1.0);
        assert_eq!(px_in(f64::INFINITY, 8192.0), 8192.0);
        assert_eq!(px_in(50.0, 0.0), 1.0);
    }
}
