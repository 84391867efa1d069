// The page's animation-frame loop: one frame of the player per requestAnimationFrame while anything
// can change, none while nothing can (docs/renderer.md, "Resting"), and the timings the benchmarks
// read (perf(): tests/bench/).
import type { PieceMessage, PieceTiming } from './pieces.ts';

/** Quiet animation frames in a row, and for how long, before the loop rests. */
const REST_AFTER_FRAMES = 3;
const REST_AFTER_MS = 500;
/** A resting loop still runs a frame this often: the render worker's idle redraw (bridge/render.ts
 *  IDLE_REDRAW_MS) that notices a device lost while nothing happens. */
const REST_REDRAW_MS = 1000;
/** Frames of main-thread timing kept for perf() (a ring). */
const PERF_FRAMES = 1024;
/** Piece arrival timings kept for perf(). */
const PERF_CHUNKS = 512;

/** What the loop drives (core.ts's Core): one frame, whether it may rest, whether it is timed. */
export interface LoopHost {
  drawFrame(dt: number): void;
  mayRest(): boolean;
  /** Whether this frame's timings count; when they do, there is a renderer to give them. */
  frameTimed(): this is { readonly renderer: RendererTimings };
  readonly renderer: RendererTimings | null;
}

/** The page's frames, timers and clock, as the loop uses them. A Node test gives fakes. */
export interface LoopClock {
  requestAnimationFrame(cb: FrameRequestCallback): number;
  cancelAnimationFrame(id: number): void;
  setTimeout(cb: () => void, ms: number): number;
  clearTimeout(id: number): void;
  /** performance.now() */
  now(): number;
  /** performance.timeOrigin */
  readonly timeOrigin: number;
}

/** The page's own, looked up at each call (a page may wrap them later: tests/e2e/embed.test.mjs). */
const PAGE_CLOCK: LoopClock = {
  requestAnimationFrame: (cb) => requestAnimationFrame(cb),
  cancelAnimationFrame: (id) => cancelAnimationFrame(id),
  setTimeout: (cb, ms) => setTimeout(cb, ms),
  clearTimeout: (id) => clearTimeout(id),
  now: () => performance.now(),
  get timeOrigin() {
    return performance.timeOrigin;
  },
};

/** The renderer's timings of its last frame (ms). */
export interface RendererTimings {
  frameMs(): number;
  timeMs(): number;
  buildMs(): number;
}

/** A piece's timings as perf() gives them (ms; the worker's, its transit and the page's). */
export interface ChunkTiming extends Partial<PieceTiming> {
  index: number;
  from: number;
  transit: number;
  page: number;
  /** When the worker began the piece, on the page's clock. */
  started?: number;
}

/** perf()'s answer. */
export interface LoopPerf {
  frames: number;
  totalMs: number[];
  renderMs: number[];
  timeMs: number[];
  buildMs: number[];
  chunks: ChunkTiming[];
}

/**
 * Runs `host.drawFrame(dt)` every animation frame (dt: seconds since the last one, at most 0.25; 0
 * on the first after a rest or `restartClock()`), rests once `host.mayRest()` has held for
 * REST_AFTER_FRAMES frames and REST_AFTER_MS, and then runs again on `wake()`. After each frame
 * `host.frameTimed()` says whether the frame's timings count (perf()); `host.renderer` gives them.
 * `clock`: the page's frames, timers and performance clock unless a test gives its own.
 */
export class FrameLoop {
  #host: LoopHost;
  #clock: LoopClock;
  #onFrame: FrameRequestCallback;
  #raf: number;
  #lastTs: number;
  #quietFrames: number;
  #quietSince: number;
  #restAfterMs: number;
  #restTimer: number;
  #stopped: boolean;
  #total: Float64Array;
  #render: Float64Array;
  #time: Float64Array;
  #build: Float64Array;
  /** The loop rests (no animation frames) while nothing can change. */
  resting: boolean;
  /** Quiet frames before resting (Infinity: never rest; benchmarks compare). */
  restAfterFrames: number;
  /** Frames timed since the start or the last perf({reset: true}). */
  perfN: number;
  /** The timings of the last PERF_CHUNKS pieces received. */
  perfChunks: ChunkTiming[];

  constructor(host: LoopHost, clock: LoopClock = PAGE_CLOCK) {
    this.#host = host;
    this.#clock = clock;
    this.#onFrame = (ts) => this.#frame(ts);
    this.#lastTs = 0;
    this.resting = false;
    this.#quietFrames = 0;
    this.#quietSince = 0;
    this.#restAfterMs = REST_AFTER_MS;
    this.#restTimer = 0;
    this.restAfterFrames = REST_AFTER_FRAMES;
    this.#stopped = false;
    // perf(): main-thread ms per frame, renderer CPU ms, and the pieces' timings.
    this.#total = new Float64Array(PERF_FRAMES);
    this.#render = new Float64Array(PERF_FRAMES);
    this.#time = new Float64Array(PERF_FRAMES);
    this.#build = new Float64Array(PERF_FRAMES);
    this.perfN = 0;
    this.perfChunks = [];
    this.#raf = this.#clock.requestAnimationFrame(this.#onFrame);
  }

  #frame(ts: number): void {
    if (this.#stopped) return;
    this.#raf = this.#clock.requestAnimationFrame(this.#onFrame);
    const t0 = this.#clock.now();
    const dt = this.#lastTs ? Math.min(0.25, (ts - this.#lastTs) / 1000) : 0;
    this.#lastTs = ts;
    const host = this.#host;
    host.drawFrame(dt);
    if (host.mayRest()) {
      this.#quietSince ||= t0;
      if (++this.#quietFrames >= this.restAfterFrames && t0 - this.#quietSince >= this.#restAfterMs) this.#rest();
    } else this.stayAwake();
    if (host.frameTimed()) {
      const r = host.renderer;
      const k = this.perfN++ % PERF_FRAMES;
      this.#total[k] = this.#clock.now() - t0;
      this.#render[k] = r.frameMs();
      this.#time[k] = r.timeMs();
      this.#build[k] = r.buildMs();
    }
  }

  /** The next frame steps the clock by nothing (a command restarted it: no jump for the time before). */
  restartClock(): void {
    this.#lastTs = 0;
  }

  /** Stops the animation-frame loop until `wake()`: an untouched, paused player costs no frames.
   *  A timer wakes it once a second, so the render worker's idle redraw still notices a lost device. */
  #rest(): void {
    this.#clock.cancelAnimationFrame(this.#raf);
    this.#raf = 0;
    this.resting = true;
    // Only for the worker's idle redraw: back to rest as soon as it is answered.
    this.#restTimer = this.#clock.setTimeout(() => {
      this.#restAfterMs = 0;
      this.wake(false);
    }, REST_REDRAW_MS);
  }

  /** Restarts the quiet count: the loop keeps running for at least REST_AFTER_MS more. */
  stayAwake(): void {
    this.#quietFrames = 0;
    this.#quietSince = 0;
  }

  /**
   * Restarts the loop (any event, input, piece, renderer call or reply). Cheap when awake.
   * `active`: something happened (not just a reply or the once-a-second redraw): the loop then
   * stays up REST_AFTER_MS once quiet again, as a user still at work may go on.
   */
  wake(active = true): void {
    if (active) this.#restAfterMs = REST_AFTER_MS;
    if (!this.resting || this.#stopped) return;
    this.resting = false;
    this.stayAwake();
    this.#clock.clearTimeout(this.#restTimer);
    // The first frame after a rest steps the clock by nothing (it did not run meanwhile).
    this.#lastTs = 0;
    this.#raf = this.#clock.requestAnimationFrame(this.#onFrame);
  }

  /** Keeps the timing of a piece that arrived at `received` (performance.now()) for perf(). */
  pieceTimed(m: Pick<PieceMessage, 'chunk' | 'from'> & { timing: PieceTiming }, received: number): void {
    const t: ChunkTiming = {
      index: m.chunk,
      from: m.from,
      ...m.timing,
      transit: this.#clock.timeOrigin + received - m.timing.postedAt,
      page: this.#clock.now() - received,
    };
    delete t.postedAt;
    // When the worker began the piece, on the page's clock (the request's way there).
    if (m.timing.startedAt) t.started = m.timing.startedAt - this.#clock.timeOrigin;
    delete t.startedAt;
    if (this.perfChunks.push(t) > PERF_CHUNKS) this.perfChunks.shift();
  }

  /**
   * The last frames' main-thread ms (`totalMs`: the whole requestAnimationFrame callback;
   * `renderMs`: the renderer's CPU ms in render(), part of it; the renderer's own work in the
   * frame: `timeMs` in setTime (before render()) and `buildMs` in its scene building (inside
   * render(); the rest of render() is wgpu's)), oldest first, since the first frame with entities
   * or the last reset; `chunks`: timings of the pieces received (worker read/decode/extract/copy,
   * transit, page handling, ms). `reset` empties the buffers after reading them.
   */
  perf(reset?: boolean): LoopPerf {
    const n = Math.min(this.perfN, PERF_FRAMES);
    const start = this.perfN - n;
    const totalMs: number[] = [];
    const renderMs: number[] = [];
    const timeMs: number[] = [];
    const buildMs: number[] = [];
    for (let j = start; j < this.perfN; j++) {
      totalMs.push(this.#total[j % PERF_FRAMES]);
      renderMs.push(this.#render[j % PERF_FRAMES]);
      timeMs.push(this.#time[j % PERF_FRAMES]);
      buildMs.push(this.#build[j % PERF_FRAMES]);
    }
    const out = { frames: n, totalMs, renderMs, timeMs, buildMs, chunks: this.perfChunks.slice() };
    if (reset) {
      this.perfN = 0;
      this.perfChunks = [];
    }
    return out;
  }

  /** Stops for good (dispose). */
  stop(): void {
    this.#stopped = true;
    this.#clock.cancelAnimationFrame(this.#raf);
    this.#clock.clearTimeout(this.#restTimer);
  }
}
