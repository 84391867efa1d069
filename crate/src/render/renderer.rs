//! [`Renderer`]: the scene and the GPU objects for one canvas, recovering from device loss: when
//! the device is lost (or the canvas gave no usable texture for several frames: docs/renderer.md,
//! "Surface acquisition"), the next `render()` drops every GPU object and recreates them in the
//! background on the same canvas; `render()` returns `false` until the new device is ready
//! (docs/renderer.md, "Backends, device loss, sizes").

use std::cell::RefCell;
use std::rc::Rc;

use super::{gpu, px_in, FrameData, Host, Scene};

enum Slot {
    Ready(Box<gpu::Gpu>),
    Recreating,
    Failed(String, u32),
}

/// Gives up recreating a lost device after this many consecutive failures.
const MAX_RECREATE_ATTEMPTS: u32 = 5;

pub struct Renderer<H: Host> {
    pub scene: Scene,
    slot: Rc<RefCell<Slot>>,
    canvas: H,
    prefer_webgl: bool,
    data: FrameData,
    backend: &'static str,
    max_dim: u32,
    /// ms in `Scene::build` during the last `render` (the CPU work that is ours; the rest of
    /// `render` is wgpu encoding and submitting).
    pub build_ms: f64,
}

impl<H: Host> Renderer<H> {
    /// Creates the GPU objects for `canvas`. Errors carry a readable reason ("no GPU adapter (...)").
    pub async fn create(canvas: H, prefer_webgl: bool) -> Result<Renderer<H>, String> {
        let (w, h) = canvas.size();
        let (w, h) = (w.max(1), h.max(1));
        let g = gpu::create(canvas.clone(), prefer_webgl, w, h).await?;
        let backend = g.backend;
        let max_dim = g.max_dim;
        let mut scene = Scene::new();
        scene.css_w = f64::from(w);
        scene.css_h = f64::from(h);
        Ok(Renderer {
            scene,
            slot: Rc::new(RefCell::new(Slot::Ready(Box::new(g)))),
            canvas,
            prefer_webgl,
            data: FrameData::default(),
            backend,
            max_dim,
            build_ms: 0.0,
        })
    }

    pub fn backend(&self) -> &'static str {
        self.backend
    }

    /// Surface = css × dpr pixels, clamped to the device's max texture dimension.
    pub fn resize(&mut self, css_w: f64, css_h: f64, dpr: f64) {
        let dpr = if dpr.is_finite() && dpr > 0.0 { dpr.min(8.0) } else { 1.0 };
        let css_w = if css_w.is_finite() { css_w.max(1.0) } else { 1.0 };
        let css_h = if css_h.is_finite() { css_h.max(1.0) } else { 1.0 };
        let max = f64::from(self.max_dim);
        let pw = px_in(css_w * dpr, max);
        let ph = px_in(css_h * dpr, max);
        self.scene.css_w = css_w;
        self.scene.css_h = css_h;
        // If clamped, the effective ratio is what the surface really has.
        self.scene.dpr = (pw / css_w).min(ph / css_h);
        self.canvas.set_size(pw as u32, ph as u32);
        if let Slot::Ready(g) = &mut *self.slot.borrow_mut() {
            g.resize(pw as u32, ph as u32);
        }
    }

    /// Test hook: loses the device on purpose (the next `render()` starts the recovery).
    pub fn debug_lose_device(&mut self) {
        if let Slot::Ready(g) = &*self.slot.borrow() {
            g.destroy_device();
        }
    }

    /// Whether a GPU device is ready (false while recreating after a loss).
    pub fn ready(&self) -> bool {
        matches!(&*self.slot.borrow(), Slot::Ready(_))
    }

    fn target_px(&self) -> (u32, u32) {
        let max = f64::from(self.max_dim);
        (px_in(self.scene.css_w * self.scene.dpr, max) as u32, px_in(self.scene.css_h * self.scene.dpr, max) as u32)
    }

    /// Draws one frame; `Ok(false)` when nothing was drawn (recovering from device loss, surface busy).
    /// `clock` (ms) times `Scene::build` into `build_ms`.
    pub fn render(&mut self, clock: impl Fn() -> f64) -> Result<bool, String> {
        let lost = match &*self.slot.borrow() {
            Slot::Ready(g) => g.is_lost(),
            Slot::Recreating => return Ok(false),
            Slot::Failed(msg, n) if *n >= MAX_RECREATE_ATTEMPTS => {
                return Err(format!("GPU device lost and could not be recreated: {msg}"))
            }
            Slot::Failed(..) => true,
        };
        if lost {
            self.recreate();
            return Ok(false);
        }
        let target = self.target_px();
        let mut slot = self.slot.borrow_mut();
        let Slot::Ready(g) = &mut *slot else {
            return Ok(false);
        };
        // A resize that arrived while the device was being recreated.
        if g.size() != target {
            g.resize(target.0, target.1);
        }
        let t0 = clock();
        self.scene.build(&mut self.data, g.srgb);
        self.build_ms = clock() - t0;
        Ok(g.render(&self.canvas, &self.data))
    }

    /// Drops the GPU objects and recreates them in the background on the same canvas.
    fn recreate(&mut self) {
        let attempts = match &*self.slot.borrow() {
            Slot::Failed(_, n) => *n,
            _ => 0,
        };
        // Drop the old device before asking for a new one.
        *self.slot.borrow_mut() = Slot::Recreating;
        let slot = self.slot.clone();
        let canvas = self.canvas.clone();
        let prefer_webgl = self.prefer_webgl || self.backend == "webgl2";
        let (w, h) = self.target_px();
        H::spawn(Box::pin(async move {
            let next = match gpu::create(canvas, prefer_webgl, w, h).await {
                Ok(g) => Slot::Ready(Box::new(g)),
                Err(e) => {
                    H::error(&format!("GPU recreation failed: {e}"));
                    Slot::Failed(e, attempts + 1)
                }
            };
            *slot.borrow_mut() = next;
        }));
    }
}
