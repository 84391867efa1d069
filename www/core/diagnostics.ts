// The player's diagnostics (docs/player-api.md "Diagnostics"): what tests, benchmarks and a person
// debugging a page may read of the inside, and the few knobs they turn, by name. The handle's
// `diagnostics`; nothing else of Core is reachable from outside. Reads are plain data (a snapshot
// is a copy: holding it keeps nothing alive); knobs change how the player behaves, not what it shows.
import type { Core } from './core.ts';
import type { OpenInfo, PlaybackState } from '../lib/types.ts';
import type { RenderProxy } from '../bridge/render.ts';
import type { FrameReply } from '../lib/protocol/render.ts';

/** The render proxy's request (bridge/render.ts), as holdFrames() wraps it. */
type RenderPost = RenderProxy['post'];

/** One decoded piece held (pieces.ts). */
export interface PieceSummary {
  chunk: number;
  from: number;
  end: number;
  stride: number;
  ticks: number;
  states: number;
}

/** A kill of the feed as the snapshot gives it. */
export interface FeedRow {
  tick: number;
  time: number;
  killer: number;
  victim: number;
  text: string;
}

/** snapshot()'s answer: the player's state now, as plain data. */
export interface Snapshot {
  /** The open was answered (a recording is open). */
  loaded: boolean;
  /** `ready` was emitted: the first frame could be drawn. */
  ready: boolean;
  /** A frame with entities has been drawn. */
  firstFrameShown: boolean;
  name: string;
  backend: string;
  rendererBuild: string;
  renderInWorker: boolean;
  /** The renderer has started and (in a worker) has its device. */
  rendererReady: boolean;
  /** The render worker has nothing queued or in flight (true on the page's own renderer). */
  rendererQuiet: boolean;
  /** Export → Video holds the stage. */
  stageHeld: boolean;
  time: number;
  /** The tick at the playhead. */
  tick: number;
  /** The tick of the frame last drawn, or null. */
  frameTick: number | null;
  /** Entities in the frame at the playhead. */
  entityCount: number;
  firstTick: number;
  lastTick: number;
  tickRate: number;
  duration: number;
  playing: boolean;
  ended: boolean;
  buffering: boolean;
  speed: number;
  playbackState: PlaybackState;
  /** A seek waits for its frame. */
  seekPending: boolean;
  killCam: boolean;
  killCamHolding: boolean;
  killCamKill: { tick: number; killer: number; victim: number } | null;
  cameraMode: string;
  followed: number;
  selected: number;
  events: number;
  eventKinds: Record<string, number>;
  status: string;
  /** Kills shown (spoiler-safe: those reached) and every kill known. */
  markers: number;
  killsKnown: number;
  killFeed: FeedRow[];
  /** Parts skipped (gaps) so far. */
  gaps: number;
  chunksHeld: number[];
  pieces: PieceSummary[];
  heldBytes: number;
  /** Ticks [lo, hi) whose pieces are kept. */
  keepRange: [number, number];
  /** The animation loop rests (nothing moves); frames it timed since the start or perf({reset}). */
  resting: boolean;
  loopFrames: number;
  /** Prefetch hints sent, readied by the worker, and one waiting for its delay. */
  hints: { sent: number; prefetched: number; waiting: boolean };
  /** Entity ids labelled in the last frame, and the candidates left unlabelled. */
  labels: number[];
  labelsHidden: number;
  /** Ghosts (Compare): whether B's frames are drawn, and the tick of the last sent (-1: none). */
  ghosts: { shown: boolean; tick: number } | null;
  error: string | null;
  info: OpenInfo | null;
  workerRestarts: number;
}

/** A frame as diagnostics give it: its tick, its packed entities (a copy), the next frame's tick. */
export interface FrameCopy {
  tick: number;
  frame: number[];
  next: number | null;
}

/** A callsign label as placed over the canvas (view/labels.ts), or null when there is none. */
export interface LabelInfo {
  /** Placed in the last frame; its element not hidden; styled as the selected one. */
  shown: boolean;
  visible: boolean;
  selected: boolean;
  /** The callsign it shows (a file string). */
  text: string;
  x: number;
  y: number;
  width: number;
}

/** The handle's `diagnostics` (docs/player-api.md "Diagnostics"). */
export interface Diagnostics {
  /** The player's state now (plain data). */
  snapshot(): Snapshot;
  /** Per-frame main-thread timings, the pieces' timings and the renderer's counters; `reset`
   *  empties them after reading. */
  perf(opts?: { reset?: boolean }): Perf;
  /** The decoder worker's counters (docs/worker-protocol.md `stats`). */
  workerStats(): Promise<WorkerStats>;
  /** Resolves after the next frame drawn (wakes a resting loop for it). */
  frameDrawn(): Promise<void>;
  /** The frame at the playhead as last drawn, or null. */
  frame(): FrameCopy | null;
  /** The decoded frame held for `tick`, with the next one's tick; null when no piece holds it. */
  frameAt(tick: number): FrameCopy | null;
  /** The decoded piece holding `tick`, or null. */
  pieceAt(tick: number): PieceSummary | null;
  /** The skipped part holding `tick`, or null. */
  gapAt(tick: number): unknown;
  /** Whether the events of `tick` were learned from a whole-recording scan. */
  learned(tick: number): boolean;
  /** Entity `id`'s callsign label, or null when it has none. */
  label(id: number): LabelInfo | null;
  /** The renderer's projections of every label candidate: [id, x, y, visible] × n (CSS px). */
  rendererLabels(): Promise<number[]>;
  /** Entity `id`'s last projection [id, x, y, visible] (the next frame answers a first ask). */
  labelOf(id: number): number[];
  /** Whether entity `id` has a callsign (from the info or a spawn). */
  hasName(id: number): boolean;
  /** Entity `id`'s faction (index into the palette), or undefined. */
  factionOf(id: number): number | undefined;
  /** How long a seek's page changes wait for its frame (ms). */
  seekShowMs: number;
  /** The loop never rests (benchmarks). */
  stayAwake(): void;
  /** `true`: the page stops telling the decoder worker which frames it wants; `false`: again. */
  holdWants(hold: boolean): void;
  /** Makes the decoder worker trap: in the reply to a request, or (`async`) outside one. */
  trapWorker(opts?: { async?: boolean }): Promise<unknown>;
  /** Loses the renderer's GPU device (it recreates it). */
  loseDevice(): void;
  /** Zooms the current camera by `factor`. */
  zoom(factor: number): void;
  /** Clears the trails drawn so far. */
  clearTrails(): void;
  /** How many seconds of trail are drawn (0: none). */
  setTrailSeconds(s: number): void;
  /** No callsign labels (benchmarks compare their cost). */
  labelsOff: boolean;
  /** `true`: the renderer's answers to frames are held back (a frame that never comes); `false`:
   *  those held are handed on. */
  holdFrames(hold: boolean): void;
  /** The render worker's next `n` answers to frames say "not drawn" (as a surface that was busy or
   *  reconfigured says), their pictures dropped; returns how many are still to come. */
  undrawnFrames(n?: number): number;
  /** Export → Video's limit on any one wait (ms; undefined: its default, 30 s). */
  videoStallMs: number | undefined;
}

/** perf()'s answer: main-thread ms per frame (`totalMs`, `renderMs`, `timeMs`, `buildMs`,
 *  `labelsMs`), the pieces' timings (`chunks`), the renderer's wasm memory and frame counts. */
export interface Perf {
  frames: number;
  totalMs: number[];
  renderMs: number[];
  timeMs: number[];
  buildMs: number[];
  labelsMs: number[];
  chunks: PieceTimes[];
  rendererWasmBytes: number;
  renderInWorker: boolean;
  renderStats: { posted: number; drawn: number; skipped: number; idle: number; unready: number } | null;
}

/** A piece's timings (ms): the worker's (read, decode, extract, copy), its transit and the page's. */
export interface PieceTimes {
  index: number;
  from: number;
  transit: number;
  page: number;
  started?: number;
  resumed?: boolean;
  cached?: boolean;
  read?: number;
  decode?: number;
  extract?: number;
  copy?: number;
  startedAt?: number;
  postedAt?: number;
}

/** A piece held (pieces.ts) as plain data. */
function summary(p: {
  chunk: number;
  from: number;
  end: number;
  stride: number;
  ticks: ArrayLike<number>;
  offsets: ArrayLike<number>;
}): PieceSummary {
  return {
    chunk: p.chunk,
    from: p.from,
    end: p.end,
    stride: p.stride,
    ticks: p.ticks.length,
    states: p.offsets[p.offsets.length - 1] ?? 0,
  };
}

export class CoreDiagnostics implements Diagnostics {
  #c: Core;
  #wantsHeld: Core['client']['notify'] | null = null;
  #framesHeld: { post: RenderPost; release: () => void } | null = null;
  #undrawn: number | null = null;

  constructor(core: Core) {
    this.#c = core;
  }

  /** The player's state now (plain data). */
  snapshot(): Snapshot {
    const c = this.#c;
    const pb = c.pb;
    const k = c.camera.killCamKill;
    const r = c.renderer;
    const feed = c.ledger.visible;
    return {
      loaded: c.loaded,
      ready: c.readyEmitted,
      firstFrameShown: c.firstFrameShown,
      name: c.sourceName,
      backend: c.stage.backend,
      rendererBuild: c.stage.build ?? '',
      renderInWorker: !!c.stage.inWorker,
      rendererReady: !!r && (!('ready' in r) || typeof r.ready !== 'function' || !!r.ready()),
      rendererQuiet: !!r && (r.quiet?.() ?? true),
      stageHeld: c.stage.held,
      time: pb.time,
      tick: c.currentTickInt(),
      frameTick: c.cur?.tick ?? null,
      entityCount: c.entityCount,
      firstTick: c.tb.first,
      lastTick: c.tb.last,
      tickRate: c.tb.rate,
      duration: c.duration,
      playing: pb.moving,
      ended: pb.ended,
      buffering: c.buffering,
      speed: pb.speed,
      playbackState: pb.state,
      seekPending: !!c.pendingSeek,
      killCam: pb.killCam !== null,
      killCamHolding: pb.killCam?.phase === 'hold',
      killCamKill: k ? { tick: k.tick, killer: k.killer, victim: k.victim } : null,
      cameraMode: c.camera.mode(),
      followed: c.camera.followId,
      selected: c.camera.selected,
      events: pb.events.length,
      eventKinds: pb.events.reduce((m: Record<string, number>, e) => {
        const kind = String(e.kind === 'custom' ? e.type : e.kind);
        m[kind] = (m[kind] ?? 0) + 1;
        return m;
      }, {}),
      status: c.info ? c.playbackStatus().text : '',
      markers: feed.length,
      killsKnown: c.ledger.kills.length,
      killFeed: feed.map((x) => ({
        tick: x.tick,
        time: c.ledger.killTime(x),
        killer: x.killer,
        victim: x.victim,
        text: c.entities.killText(x),
      })),
      gaps: c.gaps.list.length,
      chunksHeld: [...new Set(c.pieces.list.map((p) => p.chunk))].sort((a, b) => a - b),
      pieces: c.pieces.list.map(summary),
      heldBytes: c.pieces.heldBytes(),
      keepRange: c.keepRange(),
      resting: c.loop.resting,
      loopFrames: c.loop.perfN,
      hints: { sent: c.hints.sent, prefetched: c.hints.prefetched, waiting: !!c.hints.waiting },
      labels: [...c.labels.shown],
      labelsHidden: c.labels.hidden,
      ghosts: c.ghosts ? { shown: c.ghosts.shown, tick: c.ghosts.tick } : null,
      error: c.error,
      info: c.info,
      workerRestarts: c.client.restarts,
    };
  }

  /** Per-frame main-thread timings, the pieces' timings and the renderer's counters
   *  (docs/performance.md); `reset` empties them after reading. */
  perf(opts: { reset?: boolean } = {}): Perf {
    return this.#c.perf(opts);
  }

  /** The decoder worker's counters (docs/worker-protocol.md `stats`). */
  workerStats(): Promise<WorkerStats> {
    return this.#c.workerStats() as Promise<WorkerStats>;
  }

  /** Resolves after the next frame drawn (wakes a resting loop for it). */
  frameDrawn(): Promise<void> {
    const c = this.#c;
    return new Promise((resolve) => {
      const hook = () => {
        c.frameHooks.delete(hook);
        resolve();
      };
      c.frameHooks.add(hook);
      c.loop.wake();
    });
  }

  /** The frame at the playhead as last drawn, or null. */
  frame(): FrameCopy | null {
    const cur = this.#c.cur;
    if (!cur) return null;
    return { tick: cur.tick, frame: Array.from(cur.frame), next: null };
  }

  /** The decoded frame held for `tick` (the one at or before it), with the next one's tick; null
   *  when no piece holds it. */
  frameAt(tick: number): FrameCopy | null {
    const p = this.#c.pieces;
    const a = p.frameAt(tick);
    if (!a) return null;
    return { tick: a.tick, frame: Array.from(a.frame), next: p.nextFrame(a)?.tick ?? null };
  }

  /** The decoded piece holding `tick`, or null. */
  pieceAt(tick: number): PieceSummary | null {
    const p = this.#c.pieces.at(tick);
    return p ? summary(p) : null;
  }

  /** The gap (skipped part) holding `tick`, or null. */
  gapAt(tick: number): unknown {
    return this.#c.gaps.at(tick) ?? null;
  }

  /** Whether events of `tick` were learned from a whole-recording scan (learnEvents). */
  learned(tick: number): boolean {
    return this.#c.ledger.learned(tick);
  }

  /** Entity `id`'s callsign label: shown or not, its text and where it is (CSS px of the element). */
  label(id: number): LabelInfo | null {
    const L = this.#c.labels;
    const el = L.pool.get(id);
    if (!el) return null;
    return {
      shown: L.shown.has(id),
      visible: !el.hidden,
      selected: el.classList.contains('selected'),
      text: el.querySelector('.rp-name')?.textContent ?? el.rpText ?? '',
      x: el.rpX,
      y: el.rpY,
      width: el.getBoundingClientRect().width,
    };
  }

  /** The renderer's projections of every label candidate: [id, x, y, visible] × n (CSS px). */
  async rendererLabels(): Promise<number[]> {
    const r = this.#c.renderer;
    return r ? Array.from((await r.request('labels')) as ArrayLike<number>) : [];
  }

  /** Entity `id`'s last projection [id, x, y, visible] (the next frame answers a first ask). */
  labelOf(id: number): number[] {
    const L = this.#c.renderer?.labelOf(id);
    return L ? Array.from(L) : [];
  }

  /** Whether entity `id` has a callsign (from the info or a spawn). */
  hasName(id: number): boolean {
    return this.#c.entities.names.has(id);
  }

  /** Entity `id`'s faction (index into the palette), or undefined. */
  factionOf(id: number): number | undefined {
    return this.#c.entities.factionOf(id);
  }

  // ------------------------------------------------------------ knobs

  /** How long a seek's page changes wait for its frame (ms; docs/playback.md). */
  get seekShowMs(): number {
    return this.#c.seekShowMs;
  }
  set seekShowMs(ms: number) {
    this.#c.seekShowMs = ms;
  }

  /** The loop never rests (benchmarks compare a resting loop with one that runs). */
  stayAwake(): void {
    this.#c.loop.restAfterFrames = Infinity;
    this.#c.loop.wake();
  }

  /** `true`: the page stops telling the decoder worker which frames it wants (a seek's frame never
   *  comes); `false`: it tells it again at once. */
  holdWants(hold: boolean): void {
    const client = this.#c.client;
    if (hold && !this.#wantsHeld) {
      const notify: Core['client']['notify'] = client.notify.bind(client);
      this.#wantsHeld = notify;
      client.notify = (m, params) => (m === 'want' ? undefined : notify(m, params));
    } else if (!hold && this.#wantsHeld) {
      delete (client as { notify?: unknown }).notify;
      this.#wantsHeld = null;
      this.#c.updateWant(true);
    }
  }

  /** Makes the decoder worker trap (wasm `unreachable`): in the reply to a request, or (`async`)
   *  outside one. Rejects with the worker's error in the first case. */
  trapWorker(opts: { async?: boolean } = {}): Promise<unknown> {
    return this.#c.client.call('__trap', opts.async ? { async: true } : undefined);
  }

  /** Loses the renderer's GPU device (it recreates it). */
  loseDevice(): void {
    this.#c.renderer?.debugLoseDevice?.();
  }

  /** Zooms the current camera by `factor` (a distance, as the wheel does). */
  zoom(factor: number): void {
    this.#c.renderer?.zoom(factor);
  }

  /** Clears the trails drawn so far; `setTrailSeconds(0)`: none drawn. */
  clearTrails(): void {
    this.#c.renderer?.clearTrails();
  }
  setTrailSeconds(s: number): void {
    this.#c.renderer?.setTrailSeconds(s);
  }

  /** `true`: the render worker's answers to frames are held back, as a renderer that never answers
   *  (the page's loop waits, an export stalls); `false`: every answer held is handed on. */
  holdFrames(hold: boolean): void {
    const r = this.#c.renderer as (Core['renderer'] & { post?: RenderPost }) | null;
    if (!r?.post) return;
    if (hold && !this.#framesHeld) {
      const post = r.post.bind(r) as RenderPost;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      this.#framesHeld = { post, release };
      r.post = ((type, params, transfer) =>
        type === 'frame'
          ? post(type, params, transfer).then((v) => gate.then(() => v))
          : post(type, params, transfer)) as RenderPost;
    } else if (!hold && this.#framesHeld) {
      r.post = this.#framesHeld.post;
      this.#framesHeld.release();
      this.#framesHeld = null;
    }
  }

  /** The render worker's next `n` answers to frames say "not drawn" (a surface busy or being
   *  reconfigured answers so), their pictures closed; `n` omitted: only says how many are left. */
  undrawnFrames(n?: number): number {
    const r = this.#c.renderer as (Core['renderer'] & { post?: RenderPost }) | null;
    if (n !== undefined && r?.post) {
      if (this.#undrawn === null) {
        const post = r.post.bind(r) as RenderPost;
        this.#undrawn = 0;
        r.post = ((type, params, transfer) => {
          const p = post(type, params, transfer);
          if (type !== 'frame') return p;
          return (p as Promise<FrameReply>).then((reply) => {
            if (!this.#undrawn) return reply;
            this.#undrawn--;
            reply.image?.close();
            return { ...reply, drawn: false, image: null };
          });
        }) as RenderPost;
      }
      this.#undrawn = Math.max(0, Math.floor(n));
    }
    return this.#undrawn ?? 0;
  }

  /** Export → Video's limit on any one wait (ms; undefined: its default). */
  videoStallMs: number | undefined = undefined;

  /** Hides every callsign label (`false`: shown again), for benchmarks comparing their cost. */
  set labelsOff(off: boolean) {
    this.#c.labelsOff = off;
  }
  get labelsOff(): boolean {
    return this.#c.labelsOff;
  }
}

/** The decoder worker's counters (docs/worker-protocol.md `stats`): its fields follow the worker. */
export type WorkerStats = Record<string, unknown> & { [field: string]: unknown };
