// The render Web Worker (module worker): owns the renderer wasm and draws into an OffscreenCanvas
// that the page handed over with transferControlToOffscreen(). The page keeps the clock, the
// frames, the labels (DOM) and the input; once per animation frame it posts the renderer calls
// made since the last frame (frames to interpolate, time, camera input, selection...) and this
// worker applies them in order, draws, and answers with what the page reads back: label positions,
// the camera mode, timings. Protocol: docs/worker-protocol.md, "The render worker".
//
// The renderer glue is imported dynamically so that its fetch belongs to this worker.
import { loadWasm } from '../../lib/wasm.ts';
import type {
  AnyCallResult,
  CallParams,
  FrameParams,
  FrameReply,
  InitParams,
  InitResult,
  RenderReply,
  RenderRequest,
  RendererBuild,
  WasmRenderer,
} from '../../lib/protocol/render.ts';
import { messageOf } from '../../lib/errors.ts';

const BUILDS = new Set<string>(['renderer', 'renderer_webgl']);

/** Renderer methods a frame message may not name (the rest of `Renderer`'s methods it may: the
 *  page's own calls, in order). Reads go through `call`, limited to CALLS. */
const NOT_QUEUED = new Set(['constructor', 'free', 'render', '__destroy_into_raw']);
const CALLS = new Set<string | undefined>([
  'pick',
  'labels',
  'labelOf',
  'labelsNear',
  'cameraMode',
  'cameraPose',
  'ready',
  'backend',
]);

/** The renderer's methods by name (a message names them: each is checked before it is called). */
type Methods = Record<string, (...args: unknown[]) => unknown>;

let renderer: WasmRenderer | null = null;
let memory: WebAssembly.Memory | null = null;
/** The OffscreenCanvas drawn on (a frame asked with `capture` comes back as a VideoFrame of it). */
let surface: OffscreenCanvas | null = null;
/** Set once a renderer call throws a wasm trap: the instance is unusable, the page replaces us. */
let broken: string | null = null;

/** What this module uses of WebGPU (the DOM and worker libs do not declare it). */
type GpuNavigator = WorkerNavigator & { gpu?: { requestAdapter(): Promise<unknown> } };

/** Whether WebGPU gives this worker an adapter (asked here, not on the page: one request fewer on
 *  the main thread while it is opening the file). */
async function webgpuAdapter(): Promise<boolean> {
  try {
    const nav = self.navigator as GpuNavigator | undefined;
    return !!(nav?.gpu && (await nav.gpu.requestAdapter()));
  } catch {
    return false;
  }
}

async function init({ canvas, build, preferWebgl }: InitParams): Promise<InitResult> {
  if (build === 'auto') build = (await webgpuAdapter()) ? 'renderer' : 'renderer_webgl';
  preferWebgl ||= build === 'renderer_webgl';
  if (!BUILDS.has(build)) throw new Error(`unknown renderer build ${build}`);
  const { mod, exports } = await loadWasm(build as RendererBuild);
  memory = exports?.memory ?? null;
  renderer = await mod.Renderer.createOffscreen(canvas, !!preferWebgl);
  surface = canvas;
  return { backend: renderer.backend(), build: build as RendererBuild };
}

/** Applies the queued calls, draws, and reads back what the page needs this frame. */
function frame({ cmds, near, ids, capture }: FrameParams): FrameReply {
  // (Asked only once the renderer has started.)
  const r = renderer as WasmRenderer;
  const methods = r as unknown as Methods;
  for (const c of cmds) {
    if (!Array.isArray(c) || NOT_QUEUED.has(c[0]) || typeof methods[c[0]] !== 'function') continue;
    methods[c[0]](...c.slice(1));
  }
  const drawn = r.render();
  const labels = near > 0 ? r.labelsNear(Math.min(near, 4096)) : new Float64Array(0);
  const of: FrameReply['of'] = [];
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
    // (`surface` is set with the renderer.)
    image: capture && drawn ? new VideoFrame(surface as OffscreenCanvas, { timestamp: 0 }) : null,
  };
}

/** Posts the reply to request `id`. */
function reply(msg: RenderReply, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

self.onmessage = async (ev: MessageEvent<RenderRequest | null>) => {
  // What the page sent, checked as it is used (`id`: echoed, whatever it is).
  const { id, type, params } = ev.data ?? ({} as Partial<RenderRequest>);
  try {
    if (broken) throw new Error(broken);
    let result: InitResult | FrameReply | AnyCallResult;
    if (type === 'init') {
      result = await init(params as InitParams);
    } else if (!renderer) {
      throw new Error('the renderer is not ready');
    } else if (type === 'frame') {
      result = frame(params as FrameParams);
    } else if (type === 'call' && CALLS.has((params as Partial<CallParams> | undefined)?.name)) {
      const call = params as CallParams;
      const v = (renderer as unknown as Methods)[call.name](...(call.args ?? []));
      result = (ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v) as AnyCallResult;
    } else {
      throw new Error(`unknown message ${type}`);
    }
    const image = (result as Partial<FrameReply> | null)?.image;
    reply({ id: id as number, result }, image ? [image] : []);
  } catch (e) {
    // A wasm trap (RuntimeError) leaves the instance unusable: say so, so the page stops sending.
    const fatal = e instanceof WebAssembly.RuntimeError;
    if (fatal) broken = `the renderer stopped: ${messageOf(e)}`;
    reply({ id: id as number, error: { message: messageOf(e), fatal } });
  }
};
