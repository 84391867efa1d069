//! The renderer exported to the page (`Renderer` class). The JS-facing API is documented in
//! docs/renderer.md; keep the two in sync. Every method returns a `Result` where anything can go
//! wrong; errors become JS `Error`s.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;
#[cfg(feature = "webgl")]
use web_sys::HtmlCanvasElement;
use web_sys::OffscreenCanvas;

use super::canvas::Canvas;
use super::js_error;
use crate::model::WorldKind;
use crate::player::CameraMode;
use crate::render;

/// A JS number as an entity id; negative / NaN / out of range means "none".
fn id_of(v: f64) -> Option<u32> {
    if v.is_finite() && v >= 0.0 && v <= f64::from(u32::MAX) {
        Some(v as u32)
    } else {
        None
    }
}

/// `performance.now()` of the page or the worker (a worker has no `window`).
fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

#[wasm_bindgen]
pub struct Renderer {
    inner: render::Renderer<Canvas>,
    frame_ms: f64,
    /// ms in `setTime` since the last `render()` (interpolation, trails).
    time_ms: f64,
    /// `time_ms` as it was at the last `render()`.
    last_time_ms: f64,
}

#[wasm_bindgen]
impl Renderer {
    /// `Renderer.create(canvas, preferWebgl) -> Promise<Renderer>`: on a page's `<canvas>`. Only the
    /// WebGL2 build has it: the page draws itself only where it cannot hand the canvas to the render
    /// worker (no OffscreenCanvas) or is asked to (`?render=page`), and that build also has WebGPU.
    #[cfg(feature = "webgl")]
    pub async fn create(canvas: HtmlCanvasElement, prefer_webgl: bool) -> Result<Renderer, JsValue> {
        Self::on(Canvas::Html(canvas), prefer_webgl).await
    }

    /// `Renderer.createOffscreen(offscreenCanvas, preferWebgl) -> Promise<Renderer>`: the same on a
    /// canvas a worker got from `transferControlToOffscreen()` (docs/renderer.md, "Rendering in a
    /// worker").
    #[wasm_bindgen(js_name = createOffscreen)]
    pub async fn create_offscreen(canvas: OffscreenCanvas, prefer_webgl: bool) -> Result<Renderer, JsValue> {
        Self::on(Canvas::Offscreen(canvas), prefer_webgl).await
    }

    async fn on(canvas: Canvas, prefer_webgl: bool) -> Result<Renderer, JsValue> {
        let inner = render::Renderer::create(canvas, prefer_webgl).await.map_err(js_error)?;
        Ok(Renderer { inner, frame_ms: 0.0, time_ms: 0.0, last_time_ms: 0.0 })
    }

    /// `"webgpu"` or `"webgl2"`.
    pub fn backend(&self) -> String {
        self.inner.backend().to_string()
    }

    #[wasm_bindgen(js_name = setWorld)]
    pub fn set_world(&mut self, kind: &str, radius_m: f64, position_quantum_m: f64) -> Result<(), JsValue> {
        if !(position_quantum_m > 0.0 && position_quantum_m.is_finite()) {
            return Err(js_error("positionQuantumM must be a positive finite number"));
        }
        let world = match kind {
            "flat" => WorldKind::Flat,
            "planet" => {
                if !(radius_m > 0.0 && radius_m.is_finite()) {
                    return Err(js_error("radiusM must be a positive finite number for a planet"));
                }
                WorldKind::Planet { radius_m }
            }
            other => return Err(js_error(format!("unknown world kind {other:?} (expected \"planet\" or \"flat\")"))),
        };
        self.inner.scene.set_world(world, position_quantum_m);
        Ok(())
    }

    #[wasm_bindgen(js_name = setTypeCategories)]
    pub fn set_type_categories(&mut self, categories: &[u8]) {
        self.inner.scene.categories = categories.to_vec();
    }

    pub fn resize(&mut self, css_w: f64, css_h: f64, dpr: f64) {
        self.inner.resize(css_w, css_h, dpr);
    }

    #[wasm_bindgen(js_name = setFrames)]
    pub fn set_frames(&mut self, a: &[i32], ta: f64, b: &[i32], tb: f64) {
        self.inner.scene.set_frames(a, ta, b, tb);
    }

    /// `pushFrame(b, tb)`: the frames move on by one (the old B becomes A); copies only `b`.
    #[wasm_bindgen(js_name = pushFrame)]
    pub fn push_frame(&mut self, b: &[i32], tb: f64) {
        self.inner.scene.push_frame(b, tb);
    }

    /// `setGhostFrames(a, ta, b, tb)`: a second recording's frame pair on the same clock, drawn
    /// translucent over this one (Compare's ghosts of B over A); two empty frames remove them.
    #[wasm_bindgen(js_name = setGhostFrames)]
    pub fn set_ghost_frames(&mut self, a: &[i32], ta: f64, b: &[i32], tb: f64) {
        self.inner.scene.set_ghost_frames(a, ta, b, tb);
    }

    #[wasm_bindgen(js_name = setTime)]
    pub fn set_time(&mut self, t: f64) {
        let t0 = now_ms();
        self.inner.scene.set_time(t);
        self.time_ms += now_ms() - t0;
    }

    #[wasm_bindgen(js_name = setSelected)]
    pub fn set_selected(&mut self, id: f64) {
        self.inner.scene.selected = id_of(id);
    }

    pub fn follow(&mut self, id: f64) {
        let id = id_of(id);
        let scene = &mut self.inner.scene;
        scene.camera.follow = id;
        if id.is_some() && scene.camera.mode == CameraMode::Orbit {
            scene.set_camera_mode(CameraMode::Follow);
        }
    }

    #[wasm_bindgen(js_name = setCameraMode)]
    pub fn set_camera_mode(&mut self, mode: &str) -> Result<(), JsValue> {
        let m = CameraMode::parse(mode).ok_or_else(|| {
            js_error(format!("unknown camera mode {mode:?} (expected orbit, follow, first, free or kill)"))
        })?;
        self.inner.scene.set_camera_mode(m);
        Ok(())
    }

    #[wasm_bindgen(js_name = cameraMode)]
    pub fn camera_mode(&self) -> String {
        self.inner.scene.camera.mode.name().to_string()
    }

    /// The current mode's camera pose (docs/renderer.md "Camera pose").
    #[wasm_bindgen(js_name = cameraPose)]
    pub fn camera_pose(&self) -> Vec<f64> {
        self.inner.scene.camera.pose()
    }

    /// Applies a pose of the current mode; `false` (nothing changed) when it is not one.
    #[wasm_bindgen(js_name = setCameraPose)]
    pub fn set_camera_pose(&mut self, pose: &[f64]) -> bool {
        self.inner.scene.set_camera_pose(pose)
    }

    #[wasm_bindgen(js_name = killCam)]
    pub fn kill_cam(&mut self, killer_id: f64, victim_id: f64) {
        let scene = &mut self.inner.scene;
        scene.camera.kill = match (id_of(killer_id), id_of(victim_id)) {
            (Some(k), Some(v)) => Some((k, v)),
            (Some(k), None) => Some((k, k)),
            (None, Some(v)) => Some((v, v)),
            (None, None) => None,
        };
        scene.set_camera_mode(CameraMode::Kill);
    }

    pub fn orbit(&mut self, dx_px: f64, dy_px: f64) {
        self.inner.scene.camera.drag(dx_px, dy_px);
    }

    pub fn zoom(&mut self, delta: f64) {
        self.inner.scene.camera.zoom(delta);
    }

    pub fn fly(&mut self, forward: f64, right: f64, up: f64) {
        self.inner.scene.camera.fly(forward, right, up);
    }

    #[wasm_bindgen(js_name = resetCamera)]
    pub fn reset_camera(&mut self) {
        self.inner.scene.fit_camera();
    }

    pub fn flash(&mut self, entity_id: f64) {
        if let Some(id) = id_of(entity_id) {
            self.inner.scene.flash_entity(id);
        }
    }

    #[wasm_bindgen(js_name = flashAt)]
    pub fn flash_at(&mut self, x: f64, y: f64, z: f64) {
        self.inner.scene.flash_at([x, y, z]);
    }

    #[wasm_bindgen(js_name = setTrailSeconds)]
    pub fn set_trail_seconds(&mut self, seconds: f64) {
        self.inner.scene.trail_seconds = if seconds.is_finite() { seconds.clamp(0.0, 600.0) } else { 0.0 };
    }

    #[wasm_bindgen(js_name = clearTrails)]
    pub fn clear_trails(&mut self) {
        self.inner.scene.clear_trails();
    }

    /// Draws one frame; `false` when nothing was drawn (device being recreated, surface busy).
    pub fn render(&mut self) -> Result<bool, JsValue> {
        let t0 = now_ms();
        let r = self.inner.render(now_ms).map_err(js_error);
        self.frame_ms = now_ms() - t0;
        self.last_time_ms = self.time_ms;
        self.time_ms = 0.0;
        r
    }

    /// Test hook: destroys the GPU device as if it were lost; `render()` recovers.
    #[wasm_bindgen(js_name = debugLoseDevice)]
    pub fn debug_lose_device(&mut self) {
        self.inner.debug_lose_device();
    }

    /// Whether the GPU device is ready (false while it is being recreated after a loss).
    pub fn ready(&self) -> bool {
        self.inner.ready()
    }

    /// Entity id under the CSS pixel (x, y), or -1.
    pub fn pick(&self, x_css: f64, y_css: f64) -> f64 {
        self.inner.scene.pick(x_css, y_css).map(f64::from).unwrap_or(-1.0)
    }

    /// `[id, xCss, yCss, visible]` per entity, from the last render.
    pub fn labels(&self) -> Vec<f64> {
        let mut out = Vec::new();
        self.inner.scene.labels(&mut out);
        out
    }

    /// `[id, xCss, yCss, 1]` for at most `max` visible entities, nearest to the camera first, from
    /// the last render (label candidates without copying every entity to JS).
    #[wasm_bindgen(js_name = labelsNear)]
    pub fn labels_near(&mut self, max: u32) -> Vec<f64> {
        let mut out = Vec::new();
        self.inner.scene.labels_near(max as usize, &mut out);
        out
    }

    /// `[id, xCss, yCss, visible]` of one entity from the last render, or `[]` when it was not drawn.
    #[wasm_bindgen(js_name = labelOf)]
    pub fn label_of(&self, id: f64) -> Vec<f64> {
        id_of(id).and_then(|id| self.inner.scene.label_of(id)).map(|l| l.to_vec()).unwrap_or_default()
    }

    /// ms inside the last `render()` (scene building + wgpu encoding and submitting).
    #[wasm_bindgen(js_name = frameMs)]
    pub fn frame_ms(&self) -> f64 {
        self.frame_ms
    }

    /// The renderer's own CPU work of the last frame, ms, part 1: `setTime` (interpolation, trails;
    /// called before `render()`).
    #[wasm_bindgen(js_name = timeMs)]
    pub fn time_ms(&self) -> f64 {
        self.last_time_ms
    }

    /// Part 2: `Scene::build` (instances, lines, projections) inside the last `render()`; what is
    /// left of `frameMs()` is wgpu's encoding and submitting.
    #[wasm_bindgen(js_name = buildMs)]
    pub fn build_ms(&self) -> f64 {
        self.inner.build_ms
    }
}
