//! The browser side of the renderer ([`render::Host`]): the canvas it draws into, `navigator.gpu`,
//! background tasks (`spawn_local`) and the console. `render/` knows the browser only through this.
#![cfg(target_arch = "wasm32")]

use std::future::Future;
use std::pin::Pin;

#[cfg(feature = "webgl")]
use web_sys::HtmlCanvasElement;
use web_sys::OffscreenCanvas;

use crate::render;

/// What the renderer draws into: a page's `<canvas>`, or an `OffscreenCanvas` handed to a worker
/// by `transferControlToOffscreen()` (the page shows what the worker draws). Only the WebGL2 build
/// draws on a page's canvas (see `web::renderer::Renderer::create`).
#[derive(Clone)]
pub enum Canvas {
    #[cfg(feature = "webgl")]
    Html(HtmlCanvasElement),
    Offscreen(OffscreenCanvas),
}

impl render::Host for Canvas {
    fn size(&self) -> (u32, u32) {
        match self {
            #[cfg(feature = "webgl")]
            Canvas::Html(c) => (c.width(), c.height()),
            Canvas::Offscreen(c) => (c.width(), c.height()),
        }
    }

    fn set_size(&self, width: u32, height: u32) {
        match self {
            #[cfg(feature = "webgl")]
            Canvas::Html(c) => {
                c.set_width(width);
                c.set_height(height);
            }
            Canvas::Offscreen(c) => {
                c.set_width(width);
                c.set_height(height);
            }
        }
    }

    fn surface_target(&self) -> wgpu::SurfaceTarget<'static> {
        match self.clone() {
            #[cfg(feature = "webgl")]
            Canvas::Html(c) => wgpu::SurfaceTarget::Canvas(c),
            Canvas::Offscreen(c) => wgpu::SurfaceTarget::OffscreenCanvas(c),
        }
    }

    /// `navigator.gpu` of the page or the worker (a worker has no `window`).
    fn has_webgpu() -> bool {
        js_sys::Reflect::get(&js_sys::global(), &"navigator".into())
            .ok()
            .filter(|n| n.is_object())
            .and_then(|n| js_sys::Reflect::get(&n, &"gpu".into()).ok())
            .is_some_and(|g| !g.is_undefined() && !g.is_null())
    }

    fn spawn(task: Pin<Box<dyn Future<Output = ()>>>) {
        wasm_bindgen_futures::spawn_local(task);
    }

    fn warn(message: &str) {
        web_sys::console::warn_1(&message.into());
    }

    fn error(message: &str) {
        web_sys::console::error_1(&message.into());
    }
}
