// Picks and loads the renderer wasm: the small WebGPU-only build when WebGPU gives an adapter,
// otherwise (or with ?renderer=webgl) the larger build that also has the WebGL2 backend.
// The renderer never sees the decoder: this module graph must not import ./pkg/decoder/.
//
// Where the browser can (OffscreenCanvas), the renderer runs in its own worker
// (www/render-worker.ts) and the page talks to it through a RenderProxy: the page's main thread
// keeps only the clock, the labels and the input. Otherwise (or with `inPage`) it runs on the page.
import { RenderProxy } from './render.ts';
import type { Spawn } from './decoder.ts';
import { startRenderer } from '../lib/shipped.ts';
import { loadWasm } from '../lib/wasm.ts';
import type { Builds } from '../lib/wasm.ts';
import type {
  CallName,
  CallResult,
  InitResult,
  RendererBuild,
  RendererRequest,
  WasmRenderer,
} from '../lib/protocol/render.ts';

const WEBGL_BUILD = 'renderer_webgl';

/**
 * The in-page renderer: the wasm Renderer with the proxy's extra methods (`request`, `wasmBytes`).
 * What only the render worker's proxy has is absent (`r.quiet?.()` asks either).
 */
export type PageRenderer = WasmRenderer & {
  request: RendererRequest;
  wasmBytes(): number;
  quiet?: undefined;
  contentDrawn?: undefined;
};

/** The renderer the player draws with: in a worker (its proxy) or on the page. */
export type AnyRenderer = RenderProxy | PageRenderer;

/** A renderer started (`createRenderer`): the canvas it draws on (a fresh one when the first could
 *  not be used) and, on the page, the wasm memory. */
export type StartedRenderer =
  | { renderer: RenderProxy; backend: string; build: string; canvas: HTMLCanvasElement; memory: null; inWorker: true }
  | {
      renderer: PageRenderer;
      backend: string;
      build: string;
      canvas: HTMLCanvasElement;
      memory: WebAssembly.Memory | null;
      inWorker: false;
    };

async function loadModule<N extends RendererBuild>(
  name: N,
): Promise<{ mod: Builds[N]; memory: WebAssembly.Memory | null }> {
  const { mod, exports } = await loadWasm(name);
  return { mod, memory: exports?.memory ?? null };
}

/** Whether this browser can hand a canvas to a worker. */
export function canRenderInWorker(): boolean {
  return (
    typeof HTMLCanvasElement !== 'undefined' &&
    'transferControlToOffscreen' in HTMLCanvasElement.prototype &&
    typeof OffscreenCanvas !== 'undefined'
  );
}

/** A fresh canvas in place of `canvas` (one that gave a context, or was transferred, cannot give another). */
function replaceCanvas(canvas: HTMLCanvasElement): HTMLCanvasElement {
  const fresh = canvas.cloneNode(false) as HTMLCanvasElement;
  canvas.replaceWith(fresh);
  return fresh;
}

/** Starts a render worker on `canvas` with `build` ('auto': the worker asks WebGPU for an adapter
 *  and loads the WebGPU build when it gets one, else the WebGL2 build); resolves with
 *  `{renderer, build}` or rejects. */
async function startWorker(
  canvas: HTMLCanvasElement,
  build: RendererBuild | 'auto',
  onFatal: ((message: string) => void) | null,
  spawn: Spawn,
): Promise<{ renderer: RenderProxy; build: InitResult['build'] }> {
  const worker = spawn('renderer');
  const offscreen = canvas.transferControlToOffscreen();
  // The handshake goes through the proxy's own request/reply and crash handling; a crash is the
  // player's business (onFatal) only once the renderer has started.
  const proxy = new RenderProxy(worker, '', null);
  try {
    const r = await proxy.post('init', { canvas: offscreen, build, preferWebgl: build === 'renderer_webgl' }, [
      offscreen,
    ]);
    proxy.backendName = r.backend;
    proxy.onFatal = onFatal;
    return { renderer: proxy, build: r.build };
  } catch (e) {
    proxy.free();
    throw e;
  }
}

/**
 * Creates a Renderer in a worker when the browser can: the WebGPU build when WebGPU gives the
 * worker an adapter, else the WebGL2 build; if the WebGPU build then fails to start, the WebGL2
 * build on a fresh canvas; if nothing starts in a worker, the renderer is created on the page.
 * `onFatal(message)`: the worker died later. `spawn(which)`: how the worker starts (default
 * lib/shipped.ts `startRenderer`, from any origin).
 */
export async function createRenderer(
  canvas: HTMLCanvasElement,
  {
    forceWebgl = false,
    inPage = false,
    onFatal = null,
    spawn = startRenderer,
  }: {
    forceWebgl?: boolean;
    inPage?: boolean;
    onFatal?: ((message: string) => void) | null;
    spawn?: Spawn;
  } = {},
): Promise<StartedRenderer> {
  if (inPage || !canRenderInWorker()) return { ...(await createPageRenderer(canvas, { forceWebgl })), inWorker: false };
  const errors: string[] = [];
  for (const want of forceWebgl ? (['renderer_webgl'] as const) : (['auto', 'renderer_webgl'] as const)) {
    try {
      const { renderer, build } = await startWorker(canvas, want, onFatal, spawn);
      return { renderer, backend: renderer.backend(), build, canvas, memory: null, inWorker: true };
    } catch (e) {
      errors.push(`${want}: ${(e as Error | null)?.message ?? e}`);
      canvas = replaceCanvas(canvas);
    }
  }
  console.warn(`the renderer could not start in a worker (${errors.join('; ')}); drawing on the page`);
  return { ...(await createPageRenderer(canvas, { forceWebgl })), inWorker: false };
}

/** The in-page renderer with the proxy's extra methods (`request`, `wasmBytes`). */
function pageRenderer(wasmRenderer: WasmRenderer, memory: WebAssembly.Memory | null): PageRenderer {
  const renderer = wasmRenderer as PageRenderer;
  const methods = renderer as unknown as Record<string, (...args: unknown[]) => unknown>;
  renderer.request = <K extends CallName>(name: K, ...args: Parameters<WasmRenderer[K]>) => {
    try {
      const v = methods[name](...args);
      return Promise.resolve((ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v) as CallResult<K>);
    } catch (e) {
      return Promise.reject(e);
    }
  };
  renderer.wasmBytes = () => memory?.buffer?.byteLength ?? 0;
  return renderer;
}

/**
 * Creates a Renderer on the page on `canvas`: the WebGL2 build (it has the WebGPU backend too, and
 * tries it first unless `forceWebgl`); only that build can draw on a page's canvas.
 */
async function createPageRenderer(
  canvas: HTMLCanvasElement,
  { forceWebgl = false }: { forceWebgl?: boolean } = {},
): Promise<Omit<Extract<StartedRenderer, { inWorker: false }>, 'inWorker'>> {
  const { mod, memory } = await loadModule(WEBGL_BUILD);
  const renderer = pageRenderer(await mod.Renderer.create(canvas, forceWebgl), memory);
  return { renderer, backend: renderer.backend(), build: 'renderer_webgl', canvas, memory };
}
