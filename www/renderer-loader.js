// Picks and loads the renderer wasm: the small WebGPU-only build when WebGPU gives an adapter,
// otherwise (or with ?renderer=webgl) the larger build that also has the WebGL2 backend.
// The renderer never sees the decoder: this module graph must not import ./pkg/decoder/.

const WEBGPU_BUILD = './pkg/renderer/renderer.js';
const WEBGL_BUILD = './pkg/renderer_webgl/renderer_webgl.js';

async function webgpuAdapterAvailable() {
  if (!('gpu' in navigator) || !navigator.gpu) return false;
  try {
    return !!(await navigator.gpu.requestAdapter());
  } catch {
    return false;
  }
}

async function loadModule(path) {
  const mod = await import(path);
  const exports = await mod.default();
  try {
    mod.init_panic_hook?.();
  } catch {
    /* optional */
  }
  return { mod, memory: exports?.memory ?? null };
}

/**
 * Creates a Renderer on `canvas`.
 * @param {HTMLCanvasElement} canvas
 * @param {{forceWebgl?: boolean}} opts
 * @returns {Promise<{renderer: any, backend: string, build: string, canvas: HTMLCanvasElement, memory: WebAssembly.Memory|null}>}
 */
export async function createRenderer(canvas, { forceWebgl = false } = {}) {
  const useWebgpu = !forceWebgl && (await webgpuAdapterAvailable());
  if (useWebgpu) {
    try {
      const { mod, memory } = await loadModule(WEBGPU_BUILD);
      const renderer = await mod.Renderer.create(canvas, false);
      return { renderer, backend: renderer.backend(), build: 'renderer', canvas, memory };
    } catch (e) {
      // An adapter but no device (or a driver problem): WebGL2 may still work. A canvas that
      // was configured for WebGPU cannot give a WebGL2 context, so the caller gives a new one.
      console.warn(`WebGPU renderer failed (${e?.message ?? e}); trying WebGL2`);
      const fresh = canvas.cloneNode(false);
      canvas.replaceWith(fresh);
      canvas = fresh;
    }
  }
  const { mod, memory } = await loadModule(WEBGL_BUILD);
  const renderer = await mod.Renderer.create(canvas, true);
  return { renderer, backend: renderer.backend(), build: 'renderer_webgl', canvas, memory };
}
