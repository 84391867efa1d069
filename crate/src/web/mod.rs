//! The wasm boundary: the only module that knows wasm-bindgen, js-sys and web-sys.
//!
//! Two builds use it: the decoder (Web Worker; feature `decoder-web`) and the renderer (page;
//! feature `render-web`). Every export returns a `Result`; errors become JS `Error`s with the
//! reader's message. A panic hook reports panics to the console (the JS shell shows a crash screen).

#[cfg(feature = "render-web")]
pub mod canvas;
#[cfg(feature = "flrep")]
pub mod decoder;
#[cfg(feature = "render-web")]
pub mod renderer;

use wasm_bindgen::prelude::*;

/// Installs the panic hook. Call once after the module loads.
#[wasm_bindgen]
pub fn init_panic_hook() {
    console_error_panic_hook::set_once();
}

/// The crate version, for diagnostics.
#[wasm_bindgen]
pub fn build_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

pub(crate) fn js_error(msg: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&msg.to_string()).into()
}
