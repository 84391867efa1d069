// The one loader of the wasm builds (crate/src/web/, built into pkg/<build>/ by wasm-bindgen): every
// thread that runs Rust (the decoder, render, compare and export workers, the page when it draws
// itself) loads its build here. The glue is imported by a URL made at run time, so dist/ never
// bundles it (scripts/dist.mjs); it fetches its .wasm from beside itself.
import { shippedUrl } from './shipped.js';

/**
 * Loads the build `name` ('decoder', 'renderer_webgl', …): `{mod, exports}` (the glue's exports and
 * the instance's, with its `memory`). `module` (a compiled WebAssembly.Module, handed over by another
 * worker) is instantiated instead of fetching the .wasm. The panic hook is set where the build has one.
 */
export async function loadWasm(name, module) {
  const url = shippedUrl(`./pkg/${name}/${name}.js`).href;
  const mod = await import(url);
  const exports = await mod.default(module ? { module_or_path: module } : undefined);
  try {
    mod.init_panic_hook?.();
  } catch {
    /* a build without the hook */
  }
  return { mod, exports };
}
