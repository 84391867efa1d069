// The render worker's protocol (docs/worker-protocol.md, "The render worker"): what the page
// (www/bridge/render.ts, started by www/bridge/renderer.ts) and the render worker
// (www/workers/render/main.ts) post to each other. Every request is `{id, type, params}` and gets
// exactly one reply, `{id, result}` or `{id, error: {message, fatal}}` (www/bridge/rpc.ts).
import type { Builds } from '../wasm.ts';

/** The wasm Renderer (wasm-bindgen's declaration; both builds have the same methods but `create`). */
export type WasmRenderer = Builds['renderer']['Renderer']['prototype'];

/** The renderer's wasm builds: WebGPU only, or WebGPU and WebGL2. */
export type RendererBuild = 'renderer' | 'renderer_webgl';

/** Renderer methods the page queues for the next frame (www/bridge/render.ts), in the order made. */
export type QueuedMethod =
  | 'setFrames'
  | 'setGhostFrames'
  | 'pushFrame'
  | 'setTime'
  | 'follow'
  | 'setCameraMode'
  | 'killCam'
  | 'setWorld'
  | 'setTypeCategories'
  | 'resize'
  | 'setSelected'
  | 'orbit'
  | 'zoom'
  | 'fly'
  | 'resetCamera'
  | 'setCameraPose'
  | 'flash'
  | 'flashAt'
  | 'setTrailSeconds'
  | 'clearTrails'
  | 'debugLoseDevice';

/** One queued call: `[method, ...its arguments]`. */
export type RenderCmd = { [K in QueuedMethod]: [K, ...Parameters<WasmRenderer[K]>] }[QueuedMethod];

/** The reads a `call` may name (answered now, not with the next frame). */
export type CallName = 'pick' | 'labels' | 'labelOf' | 'labelsNear' | 'cameraMode' | 'cameraPose' | 'ready' | 'backend';

/** What a read answers: its result, typed arrays as plain arrays. */
export type CallResult<K extends CallName> =
  ReturnType<WasmRenderer[K]> extends Float64Array ? number[] : ReturnType<WasmRenderer[K]>;

/** `init` (the first message): the canvas handed over and the build to load ('auto': the WebGPU
 *  build when WebGPU gives the worker an adapter, else the WebGL2 build). */
export interface InitParams {
  canvas: OffscreenCanvas;
  build: RendererBuild | 'auto';
  preferWebgl: boolean;
}

export interface InitResult {
  backend: string;
  build: RendererBuild;
}

/** `frame`: the calls queued since the last frame, the label count and the ids whose label
 *  position the page asked for; `capture` (Export → Video): the picture comes back too. */
export interface FrameParams {
  cmds: RenderCmd[];
  near: number;
  ids: number[];
  capture: boolean;
}

/** What the page reads back after a frame. */
export interface FrameReply {
  drawn: boolean;
  /** `[id, x, y, 1]` × at most `near`, nearest first. */
  labels: Float64Array;
  /** `[id, [id, x, y, visible] or []]` per id asked. */
  of: [id: number, label: number[]][];
  cameraMode: string;
  ready: boolean;
  frameMs: number;
  timeMs: number;
  buildMs: number;
  wasmBytes: number;
  /** With `capture`: the frame drawn, as a VideoFrame of the OffscreenCanvas (transferred; the
   *  receiver closes it); else null. */
  image: VideoFrame | null;
}

/** `call`: a read answered now. */
export interface CallParams {
  name: CallName;
  args: unknown[];
}

/** The result of any call: a read's. */
export type AnyCallResult = CallResult<CallName>;

/** Each request's `params` and its reply's `result`, by `type`. */
export interface RenderCalls {
  init: { params: InitParams; result: InitResult };
  frame: { params: FrameParams; result: FrameReply };
  call: { params: CallParams; result: AnyCallResult };
}

/** page → worker. */
export type RenderRequest = {
  [T in keyof RenderCalls]: { id: number; type: T; params: RenderCalls[T]['params'] };
}[keyof RenderCalls];

/** A read answered now (`request(name, ...args)`, the proxy's and the in-page renderer's alike). */
export type RendererRequest = <K extends CallName>(
  name: K,
  ...args: Parameters<WasmRenderer[K]>
) => Promise<CallResult<K>>;

/** worker → page: the one reply to each request. `fatal`: the wasm trapped (the worker is done). */
export type RenderReply =
  | { id: number; result: InitResult | FrameReply | AnyCallResult }
  | { id: number; error: { message: string; fatal: boolean } };
