// @ts-nocheck
// The render Web Worker (module worker): owns the renderer wasm and draws into an OffscreenCanvas
// that the page handed over with transferControlToOffscreen(). The page keeps the clock, the
// frames, the labels (DOM) and the input; once per animation frame it posts the renderer calls
// made since the last frame (frames to interpolate, time, camera input, selection...) and this
// worker applies them in order, draws, and answers with what the page reads back: label positions,
// the camera mode, timings. Protocol: docs/worker-protocol.md, "The render worker".
//
// The renderer glue is imported dynamically so that its fetch belongs to this worker.
import { loadWasm } from '../../lib/wasm.ts';

const BUILDS = new Set(['renderer', 'renderer_webgl']);

/** Renderer methods a frame message may not name (the rest of `Renderer`'s methods it may: the
 *  page's own calls, in order). Reads go through `call`, limited to CALLS. */
const NOT_QUEUED = new Set(['constructor', 'free', 'render', '__destroy_into_raw']);
const CALLS = new Set(['pick', 'labels', 'labelOf', 'labelsNear', 'cameraMode', 'cameraPose', 'ready', 'backend']);

let renderer = null;
let memory = null;
/** The OffscreenCanvas drawn on (a frame asked with `capture` comes back as a VideoFrame of it). */
let surface = null;
/** Set once a renderer call throws a wasm trap: the instance is unusable, the page replaces us. */
let broken = null;

function messageOf(e) {
  return e?.message ?? String(e);
}

/** Whether WebGPU gives this worker an adapter (asked here, not on the page: one request fewer on
 *  the main thread while it is opening the file). */
async function webgpuAdapter() {
  try {
    return !!(self.navigator?.gpu && (await self.navigator.gpu.requestAdapter()));
  } catch {
    return false;
  }
}

async function init({ canvas, build, preferWebgl }) {
  if (build === 'auto') build = (await webgpuAdapter()) ? 'renderer' : 'renderer_webgl';
  preferWebgl ||= build === 'renderer_webgl';
  if (!BUILDS.has(build)) throw new Error(`unknown renderer build ${build}`);
  const { mod, exports } = await loadWasm(build);
  memory = exports?.memory ?? null;
  renderer = await mod.Renderer.createOffscreen(canvas, !!preferWebgl);
  surface = canvas;
  return { backend: renderer.backend(), build };
}

/** Applies the queued calls, draws, and reads back what the page needs this frame. */
function frame({ cmds, near, ids, capture }) {
  const r = renderer;
  for (const c of cmds) {
    if (!Array.isArray(c) || NOT_QUEUED.has(c[0]) || typeof r[c[0]] !== 'function') continue;
    r[c[0]](...c.slice(1));
  }
  const drawn = r.render();
  const labels = near > 0 ? r.labelsNear(Math.min(near, 4096)) : new Float64Array(0);
  const of = [];
  for (const id of ids ?? []) of.push([id, Array.from(r.labelOf(id))]);
  return {
    drawn,
    labels,
    of,
    cameraMode: r.cameraMode(),
    ready: r.ready(),
    frameMs: r.frameMs(),
    timeMs: r.timeMs(),
    buildMs: r.buildMs(),
    wasmBytes: memory?.buffer?.byteLength ?? 0,
    // Export → Video (www/features/export/video-frames.ts): the picture just drawn, taken before the task ends.
    image: capture && drawn ? new VideoFrame(surface, { timestamp: 0 }) : null,
  };
}

self.onmessage = async (ev) => {
  const { id, type, params } = ev.data ?? {};
  try {
    if (broken) throw new Error(broken);
    let result;
    if (type === 'init') {
      result = await init(params);
    } else if (!renderer) {
      throw new Error('the renderer is not ready');
    } else if (type === 'frame') {
      result = frame(params);
    } else if (type === 'call' && CALLS.has(params?.name)) {
      const v = renderer[params.name](...(params.args ?? []));
      result = ArrayBuffer.isView(v) ? Array.from(v) : v;
    } else {
      throw new Error(`unknown message ${type}`);
    }
    self.postMessage({ id, result }, result?.image ? [result.image] : []);
  } catch (e) {
    // A wasm trap (RuntimeError) leaves the instance unusable: say so, so the page stops sending.
    const fatal = e instanceof WebAssembly.RuntimeError;
    if (fatal) broken = `the renderer stopped: ${messageOf(e)}`;
    self.postMessage({ id, error: { message: messageOf(e), fatal } });
  }
};
