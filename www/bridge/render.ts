// Page side of the render worker (www/render-worker.ts): an object with the Renderer's methods
// (docs/renderer.md) that the player uses exactly like the in-page wasm Renderer.
//
// - Calls that change the renderer (frames, time, camera input, selection, world...) are queued
//   and sent together once per animation frame by `render()`; at most one frame is in flight, so a
//   slow worker (or GPU) makes the page skip frames, never queue them. While one is in flight,
//   queued frames and times that a later call replaces are dropped (`setFrames` replaces every
//   frame and time queued before it; `setTime` the previous `setTime`).
// - Reads the player makes every frame (label positions, camera mode, timings) answer from the
//   worker's last reply: one frame late, never blocking. Reads that need an answer now (`pick`,
//   every label) are `request(name, ...args)` → Promise, as they are for the in-page renderer.
// - Frames are copied out of the page's pieces into buffers that are transferred (not cloned).
// - The request/reply and crash handling is www/bridge/rpc.ts's: a reply marked fatal (a trap) or a
//   worker error kills the worker; every call after that is refused with the crash's message.
import { Rpc } from './rpc.ts';
import type { CallName, CallResult, FrameReply, RenderCalls, RenderCmd, WasmRenderer } from '../lib/protocol/render.ts';

const MODES = ['orbit', 'follow', 'first', 'free', 'kill'];
/** An idle player (nothing changed) still draws one frame this often. */
const IDLE_REDRAW_MS = 1000;

/** What the page reads of the last reply (its picture, if any, went to whoever asked for it). */
export type LastReply = Readonly<Omit<FrameReply, 'image'>>;

/** Frames posted, drawn by the worker, skipped because one was still in flight, idle, and
 *  answered without a GPU device (recreating it after a loss). */
export interface RenderStats {
  posted: number;
  drawn: number;
  skipped: number;
  idle: number;
  unready: number;
}

/** Sentinel: the reply to a frame that is still being drawn. */
const NO_REPLY: LastReply = Object.freeze({
  drawn: false,
  labels: new Float64Array(0),
  of: [],
  cameraMode: 'orbit',
  ready: false,
  frameMs: 0,
  timeMs: 0,
  buildMs: 0,
  wasmBytes: 0,
});

export class RenderProxy {
  backendName: string;
  onFatal: ((message: string) => void) | null;
  queue: RenderCmd[];
  inFlight: boolean;
  last: LastReply;
  mode: string;
  modeSeq: number;
  error: Error | null;
  near: number;
  idsAsked: Set<number>;
  sentNear: number | undefined;
  framesSent: boolean;
  framesDrawn: boolean;
  stats: RenderStats;
  postedAt: number;
  sentTime: number | undefined;
  onActivity: ((kind: 'call' | 'reply') => void) | null;
  rpc: Rpc;
  /** The reply to the last frame posted (null: it failed; see `error`). */
  replied?: Promise<FrameReply | null>;
  // The calls queued as they are (defined on the prototype: see QUEUED below the class).
  declare setWorld: QueuedCalls['setWorld'];
  declare setTypeCategories: QueuedCalls['setTypeCategories'];
  declare resize: QueuedCalls['resize'];
  declare setSelected: QueuedCalls['setSelected'];
  declare orbit: QueuedCalls['orbit'];
  declare zoom: QueuedCalls['zoom'];
  declare fly: QueuedCalls['fly'];
  declare resetCamera: QueuedCalls['resetCamera'];
  declare setCameraPose: QueuedCalls['setCameraPose'];
  declare flash: QueuedCalls['flash'];
  declare flashAt: QueuedCalls['flashAt'];
  declare setTrailSeconds: QueuedCalls['setTrailSeconds'];
  declare clearTrails: QueuedCalls['clearTrails'];
  declare debugLoseDevice: QueuedCalls['debugLoseDevice'];

  /**
   * `worker`: a render worker that answered `init`; `backend`: 'webgpu' | 'webgl2'; `onFatal`: the
   * worker died (trap or worker error).
   */
  constructor(worker: Worker, backend: string, onFatal: ((message: string) => void) | null) {
    this.backendName = backend;
    this.onFatal = onFatal;
    this.queue = [];
    this.inFlight = false;
    this.last = NO_REPLY;
    this.mode = 'orbit';
    this.modeSeq = 0;
    this.error = null;
    this.near = 0;
    /** Ids whose label position `labelOf` was asked for since the last frame: sent with the next. */
    this.idsAsked = new Set();
    /** The label count the last frame asked for (undefined: none posted yet). */
    this.sentNear = undefined;
    /** Whether a frame with entity frames was sent, and whether the last reply drew one
     *  (contentDrawn). */
    this.framesSent = false;
    this.framesDrawn = false;
    /** Frames posted, drawn by the worker, skipped because one was still in flight, idle (nothing
     *  changed), and answered without a GPU device (recreating it after a loss). */
    this.stats = { posted: 0, drawn: 0, skipped: 0, idle: 0, unready: 0 };
    this.postedAt = -Infinity;
    /** The last time sent (undefined after new frames: they need a time again). */
    this.sentTime = undefined;
    /** Called with 'call' for every queued call and 'reply' for every frame reply (the player's
     *  resting loop wakes). */
    this.onActivity = null;
    this.rpc = new Rpc(worker, {
      onDeath: (message: string) => {
        this.error = this.rpc.error;
        this.onFatal?.(message);
      },
      crashMessage: (ev: ErrorEvent) =>
        ev.message ? `the renderer stopped: ${ev.message}` : 'the renderer worker failed',
      dieOnFatalReply: true,
    });
  }

  /** Whether the worker died (or was freed). */
  get dead(): boolean {
    return this.rpc.dead;
  }

  /** Posts `{id, type, params}`; the reply's result, or its error (see www/bridge/rpc.ts). */
  post<T extends keyof RenderCalls>(
    type: T,
    params: RenderCalls[T]['params'],
    transfer: Transferable[] = [],
  ): Promise<RenderCalls[T]['result']> {
    return this.rpc.request({ type, params }, transfer) as Promise<RenderCalls[T]['result']>;
  }

  push(cmd: RenderCmd): void {
    this.queue.push(cmd);
    this.onActivity?.('call');
  }

  // ---------------------------------------------------------------- calls that change the scene
  // (the plain ones are queued as they are: see QUEUED below the class)

  setFrames(a: Int32Array, ta: number, b: Int32Array, tb: number): void {
    // Replaces both frames: what was queued for frames and times before is moot.
    this.queue = this.queue.filter((c) => c[0] !== 'setFrames' && c[0] !== 'pushFrame' && c[0] !== 'setTime');
    const ca = a.slice();
    this.push(['setFrames', ca, ta, b === a ? ca : b.slice(), tb]);
  }
  /** Compare's ghosts (a second recording's pair, docs/renderer.md): replaces any queued before. */
  setGhostFrames(a: Int32Array, ta: number, b: Int32Array, tb: number): void {
    this.queue = this.queue.filter((c) => c[0] !== 'setGhostFrames');
    const ca = a.slice();
    this.push(['setGhostFrames', ca, ta, b === a ? ca : b.slice(), tb]);
  }
  pushFrame(b: Int32Array, tb: number): void {
    this.push(['pushFrame', b.slice(), tb]);
  }
  setTime(t: number): void {
    const last = this.queue[this.queue.length - 1];
    if (last?.[0] === 'setTime') last[1] = t;
    // The time the worker has already (paused): nothing to send, so an idle frame stays idle.
    else if (t !== this.sentTime || this.queue.length) this.push(['setTime', t]);
  }
  /** Camera mode changes are mirrored here at once (the worker's answer confirms them). */
  setMode(m: string, cmd: RenderCmd): void {
    this.mode = m;
    this.modeSeq++;
    this.push(cmd);
  }
  follow(id: number): void {
    this.setMode(id >= 0 && this.mode === 'orbit' ? 'follow' : this.mode, ['follow', id]);
  }
  setCameraMode(mode: string): void {
    if (!MODES.includes(mode)) throw new Error(`unknown camera mode ${mode}`);
    this.setMode(mode, ['setCameraMode', mode]);
  }
  killCam(killer: number, victim: number): void {
    this.setMode('kill', ['killCam', killer, victim]);
  }

  // ---------------------------------------------------------------- drawing

  /**
   * Sends what was queued and asks for a frame, unless one is still in flight (then the queue
   * waits for the next call). Returns whether the worker has drawn the last frame it answered.
   * Throws the worker's error (a failed draw) once it has answered with one.
   */
  render(capture = false): boolean {
    if (this.error) throw this.error;
    if (this.inFlight) {
      this.stats.skipped++;
      return this.last.drawn;
    }
    // Nothing changed since a frame that was drawn (paused, no input): the canvas already shows
    // it, so the worker and the GPU rest. Once a second a frame is drawn anyway, so that a device
    // lost while idle is noticed and recovered.
    const now = performance.now();
    if (
      !capture &&
      !this.queue.length &&
      !this.newReads() &&
      this.last.drawn &&
      this.last.ready &&
      now - this.postedAt < IDLE_REDRAW_MS
    ) {
      this.stats.idle++;
      return true;
    }
    this.postedAt = now;
    const cmds = this.queue;
    for (const c of cmds)
      if (c[0] === 'setTime' || c[0] === 'setFrames') this.sentTime = c[0] === 'setTime' ? c[1] : undefined;
    const transfer: Transferable[] = [];
    // (The frames are the copies made above: each on an ArrayBuffer of its own.)
    for (const c of cmds)
      for (const v of c)
        if (ArrayBuffer.isView(v) && !transfer.includes(v.buffer as ArrayBuffer))
          transfer.push(v.buffer as ArrayBuffer);
    this.queue = [];
    const ids = [...this.idsAsked];
    this.idsAsked = new Set();
    this.inFlight = true;
    this.stats.posted++;
    const seq = this.modeSeq;
    this.framesSent ||= cmds.some((c) => c[0] === 'setFrames');
    const withFrames = this.framesSent;
    this.sentNear = this.near;
    // `capture` (Export → Video): the reply brings the picture as a VideoFrame; `replied` is it.
    this.replied = this.post('frame', { cmds, near: this.near, ids, capture }, transfer).then(
      (reply) => {
        this.inFlight = false;
        this.last = reply;
        this.framesDrawn = withFrames && reply.drawn;
        // The renderer's own mode (it may refuse one), unless the page changed it since.
        if (seq === this.modeSeq) this.mode = reply.cameraMode;
        if (reply.drawn) this.stats.drawn++;
        if (!reply.ready) this.stats.unready++;
        this.onActivity?.('reply');
        return reply;
      },
      (e: Error) => {
        this.inFlight = false;
        this.error = e;
        this.onActivity?.('reply');
        return null;
      },
    );
    return this.last.drawn;
  }

  /** Nothing to send or wait for: the worker drew the last frame, nothing is queued or in flight,
   *  and no label was asked for that the last reply lacks (the player may rest its loop). */
  quiet(): boolean {
    return (
      !this.error && !this.inFlight && !this.queue.length && !this.newReads() && this.last.drawn && this.last.ready
    );
  }

  // ---------------------------------------------------------------- reads (last reply)

  /** Whether the page asked for label positions the last reply does not have (a newly selected
   *  entity, more labels): an idle frame is posted for them. */
  newReads(): boolean {
    if (this.near !== this.sentNear) return true;
    for (const id of this.idsAsked) if (!this.last.of.some(([k]) => k === id)) return true;
    return false;
  }

  backend(): string {
    return this.backendName;
  }
  /** Whether the last frame answered was drawn with entity frames in it (first-frame timing). */
  contentDrawn(): boolean {
    return !!this.framesDrawn;
  }
  cameraMode(): string {
    return this.mode;
  }
  ready(): boolean {
    return this.last.ready;
  }
  frameMs(): number {
    return this.last.frameMs;
  }
  timeMs(): number {
    return this.last.timeMs;
  }
  buildMs(): number {
    return this.last.buildMs;
  }
  wasmBytes(): number {
    return this.last.wasmBytes;
  }
  /** `[id, x, y, 1]` × at most `max`, nearest first, as of the last frame drawn. */
  labelsNear(max: number): Float64Array {
    this.near = max;
    return this.last.labels;
  }
  /** `[id, x, y, visible]` of `id` as of the last frame drawn ([] when not drawn or not asked yet). */
  labelOf(id: number): number[] {
    this.idsAsked.add(id);
    for (const [k, l] of this.last.of) if (k === id) return l;
    return [];
  }

  /** A read answered now: `pick(x, y)`, `labels()`, `labelOf(id)` → Promise. */
  request<K extends CallName>(name: K, ...args: Parameters<WasmRenderer[K]>): Promise<CallResult<K>> {
    return this.post('call', { name, args }) as Promise<CallResult<K>>;
  }

  /** Stops the worker (named like the wasm Renderer's `free()`, which the player calls). */
  free(): void {
    this.rpc.close();
  }
}

// The calls queued as they are (arguments copied by postMessage's structured clone).
const QUEUED = [
  'setWorld',
  'setTypeCategories',
  'resize',
  'setSelected',
  'orbit',
  'zoom',
  'fly',
  'resetCamera',
  'setCameraPose',
  'flash',
  'flashAt',
  'setTrailSeconds',
  'clearTrails',
  'debugLoseDevice',
] as const;

/** The queued calls, with the wasm Renderer's arguments (what they return is not waited for). */
type QueuedCalls = { [K in (typeof QUEUED)[number]]: (...args: Parameters<WasmRenderer[K]>) => void };

for (const name of QUEUED) {
  (RenderProxy.prototype as unknown as Record<string, unknown>)[name] = function (
    this: RenderProxy,
    ...args: unknown[]
  ) {
    this.push([name, ...args] as RenderCmd);
  };
}
