// The player's inside: one replay on one canvas. It owns the clock (core/clock.ts), the worker's
// session (bridge/decoder.ts), the canvas and its renderer (stage.ts) and the other parts in this
// folder, and turns what happens (pieces, frames, commands) into events. `www/player.ts` is its
// public face; a page reaches this only through that handle's `debug` (docs/player-api.md).
// Decoding happens in the worker (worker.js); nothing here imports the decoder wasm.
import type {
  EntityState,
  Gap,
  KillScan,
  LiveSource,
  LiveUpdate,
  OpenInfo,
  PlayerEventMap,
  ReplayEvent,
} from '../lib/types.ts';
import { WorkerClient, type Spawn } from '../bridge/decoder.ts';
import { Playback, upperBound } from './clock.ts';
import type { KillCam, PlaybackState, StatusFields } from './clock.ts';
import { Entities, STRIDE, entityState, frameExtent, aliveIn } from './entities.ts';
import type { Attitude } from './entities.ts';
import { Timebase, HeldPieces } from './pieces.ts';
import type { PieceMessage } from './pieces.ts';
import { EventLedger } from './ledger.ts';
import type { TimedEvent, TimedKill } from './ledger.ts';
import { Labels } from '../view/labels.ts';
import { FrameLoop } from './loop.ts';
import type { LoopPerf } from './loop.ts';
import { Hints } from './hints.ts';
import { Camera } from './camera.ts';
import type { KillCamRestore } from './camera.ts';
import { Stage } from '../view/stage.ts';
import type { AnyRenderer } from '../bridge/renderer.ts';
import type { RenderStats } from '../bridge/render.ts';
import { Moment } from './moment.ts';
import { Gaps } from './gaps.ts';
import { Ghosts } from './ghosts.ts';
import type { GhostSource } from './ghosts.ts';

/** The longest the page's clock, timeline and panels wait for a seek's frame (ms). */
export const SEEK_SHOW_MS = 100;
/** Frames of label timings kept for perf(). */
const PERF_LABELS = 600;
/** Entities that killed or died this many seconds before the playhead are labelled first. */
const RECENT_S = 3;

/** What was thrown (an Error, or anything): its `message` and whether a worker's death was `fatal`. */
export type Thrown = { message?: string; fatal?: boolean } | null | undefined;

/** The renderer Core draws with: the render worker's proxy, or the renderer on the page. */
export type CoreRenderer = AnyRenderer;

/** The canvas and its renderer (view/stage.ts). */
export type CoreStage = Stage;
/** The decoder worker's client (bridge/decoder.ts). */
export type DecoderClient = WorkerClient;

/** What a player opens: a File/Blob, a URL, or a live source ({live: url}: docs/live.md). */
export type CoreSource = (Blob & { name?: string }) | string | LiveSource;

/** Core's options: how the workers start, when decoding and drawing start, how it draws. */
export interface CoreOptions {
  spawn?: Spawn;
  whenInView?: ((element: HTMLElement, fn: () => void) => () => void) | null;
  forceWebgl?: boolean;
  renderInPage?: boolean;
}

/** A `gap` message (docs/worker-protocol.md): ticks [fromTick, toTick) skipped, and why. */
interface GapMessage {
  type: 'gap';
  session: number;
  chunk: number;
  fromTick: number;
  toTick: number;
  cause: Gap['cause'];
  reason: string;
}
/** A `scan` message: a batch of the background kill scan. */
interface ScanMessage {
  type: 'scan';
  session: number;
  done: number;
  total: number;
  kills: ReplayEvent[];
  complete: boolean;
}
/** An `error` message (a `fatal` one never reaches Core: bridge/decoder.ts replaces the worker). */
interface ErrorMessage {
  type: 'error';
  session?: number;
  message: string;
  fatal?: boolean;
}
/** What the decoder worker pushes to the page (docs/worker-protocol.md), as Core reads it. */
export type DecoderPush =
  | PlayerEventMap['progress']
  | GapMessage
  | ScanMessage
  | LiveUpdate
  | ErrorMessage
  | PieceMessage;

/** The clock as Core runs it: its events are the ledger's; a kill cam keeps the camera to restore. */
export type CorePlayback = Playback<TimedEvent, KillCamRestore>;

/** What afterChange() compares (snap()). */
export interface Snap {
  state: PlaybackState;
  moving: boolean;
  speed: number;
  kc: KillCam<KillCamRestore> | null;
}

/** Console_GetStatus for the status panel (playbackStatus()). */
export type CoreStatus = StatusFields & { text: string };

/** Every event Core emits and its payload (the handle's, docs/player-api.md; types/player.d.ts). */
export type CoreEvents = PlayerEventMap;
export type CoreEventName = keyof CoreEvents;
type Listener = (detail: unknown) => void;

/** The frame at the playhead: its key, tick and entity words. */
export interface CurrentFrame {
  key: string;
  tick: number;
  frame: Int32Array;
}

/** perf()'s answer: the loop's timings with the renderer's side. */
export interface CorePerf extends LoopPerf {
  /** ms of placing the callsign labels, per timed frame. */
  labelsMs: number[];
  rendererWasmBytes: number;
  renderInWorker: boolean;
  renderStats: RenderStats | null;
}

export class Core {
  #listeners: Map<CoreEventName, Set<Listener>>;
  #renderFailures: number;
  #lastA: string | null;
  #lastB: string | null;
  #fitPending: boolean;
  #extentKey: string | null;
  #extent: number;
  #firstFrameMarked: boolean;
  #firstChunkMarked: boolean;
  #autoplay: (() => void) | undefined;
  #withheld: TimedEvent[];
  #unwatch: (() => void) | null;
  #recent: { tick: number; ids: Set<number> | null } = { tick: -1, ids: null };
  /** ms of each timed frame's placeLabels() (perf(): `labelsMs`), the last PERF_LABELS. */
  #labelsMs: number[] = [];
  /** No callsign labels (diagnostics: benchmarks compare their cost). */
  labelsOff = false;
  disposed: boolean;
  stage: CoreStage;
  labels: Labels;
  /** Called after every frame drawn (handle.onFrame): page overlays that follow the picture. */
  frameHooks: Set<() => void>;
  client: DecoderClient;
  /** Compare's ghosts: a second recording drawn over this one (ghosts.ts), once asked for. */
  ghosts: Ghosts | null;
  /** The open session (the worker tags what it sends with it; a new load makes the old stale). */
  sessionId: number;
  sourceName: string;
  tb: Timebase;
  /** The parts of the recording the player skips (gaps.ts: damaged or unsent chunks). */
  gaps: Gaps<Gap>;
  pieces: HeldPieces;
  /** The background kill scan of a recording without an index ({done, total, kills}), or null. */
  scan: KillScan | null;
  ledger: EventLedger;
  entities: Entities;
  /** The clock: the playback state machine (its time is the playhead, its events every event known). */
  pb: CorePlayback;
  camera: Camera;
  hints: Hints;
  /** Where a link or an embed opens the recording, its clip and spoiler-safety (moment.ts). */
  moment: Moment;
  /** The open's answer (docs/worker-protocol.md `open`), once it came. */
  info: OpenInfo | null;
  /** The clock waits for frames not decoded yet. */
  buffering: boolean;
  /** Resolves the pending seek's promise once its frame is held, or null. */
  pendingSeek: ((time: number) => void) | null;
  /** When the pending seek (the first of a run of unanswered ones) began (performance.now()). */
  seekStartedAt: number;
  /** The longest the page's own changes for a seek wait for its frame (ms; `pageWaitsForSeek`). */
  seekShowMs: number;
  /** The frame at the playhead ({key, tick, frame}), or null. */
  cur: CurrentFrame | null;
  loaded: boolean;
  error: string | null;
  readyEmitted: boolean;
  firstFrameShown: boolean;
  loop: FrameLoop;
  /** The element has been in view (viewport.ts): before, nothing is decoded and no renderer runs. */
  inView: boolean;

  /** `play`: what plays once the first frame can be drawn, when the recording's options say
   *  autoplay (moment.ts). `opts.spawn`: how the workers start (bridge/decoder.ts);
   *  `opts.whenInView(element, fn)`: when to start decoding and drawing (viewport.ts; default at
   *  once). */
  constructor(element: HTMLElement, opts: CoreOptions, play?: () => void) {
    this.#autoplay = play;
    this.#listeners = new Map();
    this.disposed = false;

    this.stage = new Stage(element, opts, {
      started: () => this.#rendererStarted(),
      died: (message: string) => this.#fail(`Drawing failed: ${message}`),
      failed: (e: unknown) => this.#fail(`This browser cannot draw the replay: ${(e as Thrown)?.message ?? e}`),
      activity: (kind: string) => this.loop.wake(kind === 'call'),
      // A Shift+click leaves the selection as it is: the page may use it (a second entity, 'pick').
      picked: (id: number, shift: boolean) => {
        if (!shift) this.camera.select(id, { follow: id >= 0 });
        this.emit('pick', { id, shiftKey: shift });
      },
    });
    this.labels = new Labels(element, window);
    this.frameHooks = new Set();

    this.client = new WorkerClient({
      onPush: (m: unknown) => this.#onPush(m as DecoderPush),
      onFatal: (message: string) => this.#onWorkerCrash(message),
      spawn: opts.spawn,
    });
    this.ghosts = null;

    /** Frames whose drawing threw since the renderer started (the first is reported). */
    this.#renderFailures = 0;

    this.sessionId = 0;
    this.sourceName = '';
    this.tb = new Timebase();
    this.gaps = new Gaps();
    this.pieces = new HeldPieces(this.tb, this.gaps);
    this.scan = null;
    this.ledger = new EventLedger(this.tb);
    this.entities = new Entities();
    this.pb = new Playback();
    this.camera = new Camera(this);
    this.hints = new Hints(this);
    this.moment = new Moment(this);
    /** Spoiler-safe: events known but not reached yet (shown as the playhead reaches them). */
    this.#withheld = [];
    // The session's state (#resetSession() starts it again for each file).
    this.info = null;
    this.buffering = false;
    this.pendingSeek = null;
    this.seekStartedAt = 0;
    this.seekShowMs = SEEK_SHOW_MS;
    this.cur = null;
    /** The scene extent of `cur` and the frame it is of. */
    this.#extent = 0;
    this.#extentKey = null;
    /** Keys of the frames the renderer holds as its A and B. */
    this.#lastA = null;
    this.#lastB = null;
    /** The camera fits the scene at the next frame drawn (a new recording). */
    this.#fitPending = false;
    this.loaded = false;
    this.error = null;
    this.readyEmitted = false;
    this.firstFrameShown = false;
    this.#firstFrameMarked = false;
    this.#firstChunkMarked = false;

    this.loop = new FrameLoop(this);
    this.inView = false;
    this.#unwatch = null;
    if (opts.whenInView) this.#unwatch = opts.whenInView(element, () => this.#cameIntoView());
    else this.#cameIntoView();
  }

  /** In view for the first time: the renderer starts and the worker is asked for frames. */
  #cameIntoView() {
    if (this.disposed) return;
    this.inView = true;
    this.stage.start();
    this.updateWant(true);
    this.loop.wake();
  }

  /** The renderer (stage.ts) once it has started; null before, and after it died. */
  get renderer(): CoreRenderer | null {
    return this.stage.renderer;
  }

  // ------------------------------------------------------------ events

  on<K extends CoreEventName>(ev: K, fn: (detail: CoreEvents[K]) => void): () => void {
    if (!this.#listeners.has(ev)) this.#listeners.set(ev, new Set());
    this.#listeners.get(ev)?.add(fn as Listener);
    return () => this.off(ev, fn);
  }
  off<K extends CoreEventName>(ev: K, fn: (detail: CoreEvents[K]) => void): void {
    this.#listeners.get(ev)?.delete(fn as Listener);
  }
  emit<K extends CoreEventName>(ev: K, detail?: CoreEvents[K]): void {
    // Every change the page can see goes through here: a resting loop wakes for it.
    this.loop.wake();
    for (const fn of this.#listeners.get(ev) ?? []) {
      try {
        fn(detail);
      } catch (e) {
        console.error(e);
      }
    }
  }

  // ------------------------------------------------------------ renderer

  #rendererStarted() {
    performance.mark('rp:renderer-ready');
    this.emit('backend', this.stage.backend as PlayerEventMap['backend']);
    if (this.info) this.#applyWorld();
    this.#checkSeeked();
  }

  /** The recording's world to the renderer; the camera fits the scene at the next frame drawn. */
  #applyWorld() {
    if (!this.renderer || !this.info) return;
    try {
      this.stage.setWorld(this.info.info);
    } catch (e) {
      this.#fail((e as Thrown)?.message ?? String(e));
    }
    this.#fitPending = true;
    this.#lastA = null;
    this.#lastB = null;
    this.ghosts?.forget();
  }

  // ------------------------------------------------------------ loading

  #resetSession() {
    this.info = null;
    this.gaps = new Gaps();
    this.pieces = new HeldPieces(this.tb, this.gaps);
    this.scan = null;
    const speed = !this.pb.killCam ? this.pb.speed : 1;
    this.pb = new Playback();
    this.pb.speed = speed;
    this.buffering = false;
    this.pendingSeek = null;
    this.ledger = new EventLedger(this.tb);
    this.#withheld = [];
    this.entities = new Entities();
    this.camera.reset();
    this.cur = null;
    this.#extentKey = null;
    this.#lastA = null;
    this.#lastB = null;
    this.loaded = false;
    this.error = null;
    this.readyEmitted = false;
    this.firstFrameShown = false;
    this.#firstFrameMarked = false;
    this.#firstChunkMarked = false;
  }

  /** Empties the view (the old replay's entities, trails and labels). */
  #clearScene() {
    if (!this.renderer) return;
    this.stage.clear();
    this.labels.clear();
  }

  /** Opens a File/Blob, or a URL (string). The previous replay is disposed. */
  async load(src: CoreSource): Promise<void> {
    if (this.disposed) return;
    const sid = ++this.sessionId;
    if (this.info) this.client.notify('close', {});
    if (this.stage.dead) {
      this.#renderFailures = 0;
      this.stage.restart();
    }
    this.#resetSession();
    this.#clearScene();
    // A new recording starts clean: the last comparison's ghosts go (Compare opens B after A).
    this.ghosts?.close();
    const isBlob = typeof Blob !== 'undefined' && src instanceof Blob;
    // A live source ({live: url}: docs/live.md "The player").
    const live = (src as Partial<LiveSource> | null)?.live;
    const name = isBlob ? src.name || 'replay' : String(live ?? src);
    this.sourceName = name;
    this.emit('loadstart', { name, src });
    this.emit('timeupdate', 0);
    let info: OpenInfo;
    try {
      const params = isBlob
        ? { session: sid, blob: src, name }
        : live
          ? { session: sid, live: new URL(live, document.baseURI).href, name }
          : { session: sid, url: new URL(String(src), document.baseURI).href };
      // The worker's answer (lib/protocol/decode.ts OpenResult) as the published OpenInfo
      // (types/player.d.ts): two declarations of one shape until the package's are generated.
      info = (await this.client.call('open', params)) as unknown as OpenInfo;
    } catch (e) {
      if (sid !== this.sessionId || (e as Thrown)?.fatal) return;
      this.#fail((e as Thrown)?.message ?? String(e));
      return;
    }
    if (sid !== this.sessionId || this.disposed) return;
    if (info.info?.format === 'foldback') {
      // A determinism log, not a world to render: the divergence view (features/foldback/view.ts) takes it.
      this.client.notify('close', {});
      this.emit('foldback', { src: src as Blob | string, name, info });
      return;
    }
    this.info = info;
    this.hints.reset();
    const i = info.info;
    this.tb.set(i);
    this.entities.learnInfo(i);
    this.pb.load(this.duration, []);
    this.pb.frames = Math.max(0, i.last_tick - i.first_tick + 1);
    const meta = new Map(i.metadata ?? []);
    this.pb.map = meta.get('map') ?? '';
    this.pb.mode = meta.get('mode') ?? '';
    // The link's moment before the first want: the worker decodes the chunk at `t`, not chunk 0.
    this.moment.opened();
    this.ledger.reveal(this.moment.spoilerSafe ? this.tb.tickOf(this.moment.revealedUntil) : Infinity);
    this.#addEvents(info.markers ?? []);
    performance.mark('rp:info');
    this.loaded = true;
    this.#applyWorld();
    this.updateWant(true);
    this.emit('info', info);
  }

  #onPush(m: DecoderPush): void {
    this.loop.wake();
    if (m.type === 'progress') {
      if (m.session === this.sessionId) this.emit('progress', m);
      return;
    }
    if (m.type === 'gap') {
      if (m.session === this.sessionId && this.info) this.#addGap(m);
      return;
    }
    if (m.type === 'scan') {
      if (m.session === this.sessionId && this.info) this.#scanned(m);
      return;
    }
    if (m.type === 'live') {
      if (m.session === this.sessionId && this.info) this.#grow(m);
      return;
    }
    if (m.type === 'error') {
      if (m.session === undefined || m.session === this.sessionId) this.#fail(m.message);
      return;
    }
    if (m.type === 'piece') {
      if (m.session !== this.sessionId || !this.info) return;
      const received = performance.now();
      if (!this.#firstChunkMarked) {
        this.#firstChunkMarked = true;
        performance.mark('rp:first-chunk');
      }
      const [lo, hi] = this.keepRange();
      // Stale: an answer to a superseded request, away from the playhead.
      if (m.gen < this.pieces.gen && (m.end <= lo || m.from >= hi)) return;
      this.pieces.add(m);
      this.entities.learnPiece(m);
      this.#addEvents(m.events, m.from, m.end, m.eventTicks);
      this.pieces.prune(this.currentTickInt(), this.pb);
      this.#checkSeeked();
      this.updateWant();
      if (m.timing) this.loop.pieceTimed(m, received);
    }
  }

  /** A part the worker could not decode or read (docs/worker-protocol.md `gap`): skipped from now
   *  on; a notice says so in words. A recording with nothing left to show fails. */
  #addGap({ fromTick, toTick, cause, reason }: GapMessage): void {
    const tb = this.tb;
    const from = tb.timeOf(fromTick);
    const to = Math.min(this.duration, tb.timeOf(toTick));
    const gap: Gap = { from, to, cause, reason };
    if (!this.gaps.add(fromTick, toTick, gap)) return;
    this.emit('gap', gap);
    if (this.gaps.past(tb.first, 1) > tb.last) {
      // Nothing left to show: the file cannot be played (the reader's message, as before gaps).
      this.pb.stop();
      this.#fail(reason);
      return;
    }
    if (this.cmd(() => this.#overGap())) {
      this.pieces.prune(this.currentTickInt(), this.pb);
      this.emit('timeupdate', this.pb.time);
    }
    this.updateWant(true);
    this.#checkSeeked();
  }

  /**
   * Moves a playhead that stands in a gap past it: playing, the way it goes (to the end or the
   * start when the gap reaches there: the clock runs out as it would); paused or seeking, to the
   * gap's end, or before it when the gap is the recording's end. Returns whether it moved.
   */
  #overGap(runOut = true): boolean {
    const tb = this.tb;
    const tick = this.currentTickInt();
    if (!this.gaps.at(tick)) return false;
    const pb = this.pb;
    const dir = pb.moving ? pb.direction : 1;
    let to = this.gaps.past(tick, dir);
    if (to > tb.last || to < tb.first) {
      if (pb.moving && runOut) {
        // Run the clock out as reaching the end (or the start) does; at the start, past the gap.
        const sig = pb.update(this.duration / Math.max(pb.speed, 1e-3) + 1, () => true);
        if (sig.includes('ended')) this.emit('ended');
        else this.#overGap(false);
        return true;
      }
      to = this.gaps.past(tick, -dir);
      if (to > tb.last || to < tb.first) return false;
    }
    pb.time = tb.timeOf(to);
    return true;
  }

  /** A live recording grew or its source changed state (docs/worker-protocol.md `live`): the
   *  clock's end moves to the last tick received, the kills join the markers; emits `live`. */
  #grow(m: LiveUpdate): void {
    // (Called with a recording open: `info` is set.)
    if (!this.info) return;
    if (m.lastTick !== undefined && m.lastTick > this.tb.last) {
      this.tb.last = this.info.info.last_tick = m.lastTick;
      this.info.durationS = this.pb.duration = this.tb.duration;
      this.pb.frames = m.lastTick - this.tb.first + 1;
    }
    this.#addEvents(m.kills);
    this.updateWant(true);
    this.emit('live', m);
    this.emit('timeupdate', this.pb.time);
  }

  /** A batch of the background kill scan (a recording without an index: docs/worker-protocol.md
   *  `scan`): its kills join the markers and the kill feed; `scan` tells how far it is. */
  #scanned({ kills, done, total, complete }: ScanMessage): void {
    this.#addEvents(kills);
    this.scan = { done, total, kills: this.ledger.kills.length, complete };
    this.emit('scan', { ...this.scan });
  }

  /** Draws `src` as ghosts over this recording (ghosts.ts); null: none. */
  showGhosts(src: GhostSource | null | undefined): Promise<void> {
    if (src == null) {
      this.ghosts?.close();
      return Promise.resolve();
    }
    // The ghosts' worker starts as the player's does (bridge/decoder.ts `spawn`).
    this.ghosts ??= new Ghosts(this, this.client.spawn);
    return this.ghosts.open(src);
  }

  /** A reader beside the worker's (the plots' whole-recording scan): as a piece's events. */
  learnEvents(events: ReplayEvent[], from: number, end: number, recordedAt?: ArrayLike<number> | null): void {
    if (this.info && Array.isArray(events)) this.#addEvents(events, from, end, recordedAt);
  }

  /** Events of every kind (the ledger keeps each once): the new ones go to the clock and out as
   *  `events` (and the kill list as `markers` when it grew). */
  #addEvents(
    events: ArrayLike<ReplayEvent>,
    from: number | null = null,
    end: number | null = null,
    recordedAt: ArrayLike<number> | null = null,
  ): void {
    const got = this.ledger.add(events, from, end, recordedAt, !!this.info?.markersComplete);
    if (!got) return;
    this.pb.addEvents(got.fresh);
    if (got.killAdded) this.emit('markers', this.ledger.visible);
    let shown = got.fresh;
    if (this.moment.spoilerSafe) {
      const until = this.moment.revealedUntil;
      shown = got.fresh.filter((e) => e.t <= until);
      for (const e of got.fresh) if (e.t > until) this.#withheld.push(e);
    }
    if (shown.length) this.emit('events', shown);
  }

  /** The events a viewer may see: every event, or (spoiler-safe) those the playhead reached. */
  visibleEvents(): TimedEvent[] {
    const pb = this.pb;
    if (!this.moment.spoilerSafe) return pb.events;
    return pb.events.slice(0, upperBound(pb.eventTimes, this.moment.revealedUntil));
  }

  /** Spoiler-safe: what the playhead has just reached shows (kills as `markers`, the rest as `events`). */
  #reveal(): void {
    const m = this.moment;
    if (!m.spoilerSafe || !this.info) return;
    if (this.ledger.reveal(this.tb.tickOf(m.revealedUntil))) this.emit('markers', this.ledger.visible);
    const w = this.#withheld;
    if (!w.length) return;
    const shown = w.filter((e) => e.t <= m.revealedUntil);
    if (!shown.length) return;
    this.#withheld = w.filter((e) => e.t > m.revealedUntil);
    this.emit(
      'events',
      shown.sort((a, b) => a.t - b.t),
    );
  }

  #onWorkerCrash(message: string): void {
    const sid = this.sessionId;
    this.loaded = false;
    this.pb.stop();
    this.#fail(`The decoder crashed (${message}). Open the file again, or another one.`);
    this.sessionId = sid + 1; // ignore anything still in flight for the dead worker
  }

  #fail(message: string): void {
    this.error = message;
    this.emit('error', { message });
  }

  // ------------------------------------------------------------ pieces and frames

  /** The tick the playhead shows (0 before a recording is open). */
  currentTickInt(): number {
    return this.info ? this.tb.tickOf(this.pb.time) : 0;
  }

  /** Ticks [lo, hi) whose pieces are kept (pieces.ts). */
  keepRange(): [number, number] {
    return this.pieces.keepRange(this.currentTickInt(), this.pb);
  }

  /** Tells the worker the ticks the window needs, when that changed (or `force`). */
  updateWant(force = false): void {
    if (!this.info || !this.inView) return;
    const w = this.pieces.want(this.currentTickInt(), this.pb, force);
    if (w)
      this.client.notify('want', {
        session: this.sessionId,
        gen: this.pieces.gen,
        from: w.from,
        to: w.to,
        stride: w.stride,
        dir: w.dir,
      });
  }

  #frameAvailable(time: number): boolean {
    return !!this.info && !!this.pieces.at(this.tb.tickAt(time));
  }

  #checkSeeked(): void {
    if (!this.info) return;
    if (!this.readyEmitted && this.renderer && this.#frameAvailable(this.pb.time)) {
      this.readyEmitted = true;
      this.emit('ready', this.info);
      if (this.moment.autoplay) this.#autoplay?.();
    }
    if (this.pendingSeek && this.#frameAvailable(this.pb.time)) {
      const resolve = this.pendingSeek;
      this.pendingSeek = null;
      this.emit('seeked', this.pb.time);
      resolve(this.pb.time);
      this.hints.landing();
    }
  }

  // ------------------------------------------------------------ one frame (loop.ts calls these)

  /**
   * Whether nothing will change until something happens (docs/renderer.md, "Resting"): drawn in the
   * render worker, which has drawn the last frame and has nothing queued or unanswered; paused (no
   * clock, kill cam, seek, fit or free-camera flight in progress). Drawn on the page, never: the
   * in-page renderer is not told about its input (it has no proxy). Out of view (nothing started
   * yet), always.
   */
  mayRest(): boolean {
    if (!this.inView) return true;
    if (!this.stage.inWorker || !this.renderer?.quiet?.()) return false;
    if (!this.info) return true;
    return (
      this.#firstFrameMarked &&
      !this.pb.moving &&
      !this.pb.killCam &&
      !this.pendingSeek &&
      !this.buffering &&
      !this.#fitPending &&
      !this.camera.flying
    );
  }

  /** Whether this frame's timings count for perf() (from the first frame with entities on). */
  frameTimed(): this is { readonly renderer: CoreRenderer } {
    return this.firstFrameShown && !!this.renderer;
  }

  /** One animation frame, `dt` seconds after the last: the clock, the frames, the picture, the labels.
   *  While Export → Video holds the stage (`stage.held`), only its own calls draw (`by`:
   *  `{capture}`, core/capture.ts). Returns what the renderer's `render()` said: drawn in the
   *  page, whether this frame was drawn; in the render worker, whether the last one answered was. */
  drawFrame(dt: number, by?: { capture?: boolean }): boolean {
    if (this.stage.held && !by) return false;
    if (this.info && (this.pb.moving || this.pb.killCam)) this.#advance(dt);
    const r = this.renderer;
    if (!r) return false;
    try {
      if (this.info) {
        const a = this.pieces.frameAt(this.currentTickInt());
        if (a) {
          const b = this.pieces.nextFrame(a) ?? a;
          if (a.key === this.#lastB && b.key !== a.key && b.key !== this.#lastB) {
            // Moved on by one frame (playing): the renderer's B becomes A, only B is copied.
            r.pushFrame(b.frame, b.t);
            this.#lastA = a.key;
            this.#lastB = b.key;
          } else if (a.key !== this.#lastA || b.key !== this.#lastB) {
            r.setFrames(a.frame, a.t, b.frame, b.key === a.key ? a.t : b.t);
            this.#lastA = a.key;
            this.#lastB = b.key;
          }
          // The frame at the playhead (per tick: O(1); lookups binary-search the id-sorted frame).
          if (!this.cur || this.cur.key !== a.key) {
            this.cur = { key: a.key, tick: a.tick, frame: a.frame };
            this.#extentKey = null;
          }
          this.ghosts?.frame(r, a);
          r.setTime(Math.max(a.t, this.pb.time));
          if (this.#fitPending) {
            r.render();
            this.stage.fitCamera();
            this.#fitPending = false;
          }
          this.firstFrameShown = true;
          // A link's view goes on top of the fitted camera (once per recording).
          this.moment.firstFrame();
        }
        this.camera.flyStep(dt);
      }
      const drawn = r.render(by?.capture);
      // (The render worker answers a frame later: its reply says whether that frame had entities.)
      if (drawn && this.firstFrameShown && !this.#firstFrameMarked && (r.contentDrawn?.() ?? true)) {
        this.#firstFrameMarked = true;
        performance.mark('rp:first-frame');
      }
      this.placeLabels();
      for (const fn of this.frameHooks) {
        try {
          fn();
        } catch (e) {
          console.error(e);
        }
      }
      return drawn;
    } catch (e) {
      this.#renderFailures++;
      if (this.#renderFailures === 1) this.#fail(`Drawing failed: ${(e as Thrown)?.message ?? e}`);
      return false;
    }
  }

  /** The callsign labels over the last frame the renderer drew. */
  placeLabels(): void {
    const c = this.camera;
    const t0 = performance.now();
    this.labels.place(
      this.renderer,
      !!this.info && this.firstFrameShown && !this.labelsOff,
      this.entities.names,
      c.selected,
      c.followId,
      this.cur?.frame,
      this.#recentIds(),
    );
    if (this.frameTimed() && this.#labelsMs.push(performance.now() - t0) > PERF_LABELS) this.#labelsMs.shift();
  }

  /** Entity ids that killed or died in the RECENT_S seconds before the playhead (labels place
   *  them first after the selected and followed ones); computed again when the tick changes. */
  #recentIds(): Set<number> | null {
    const tick = this.cur?.tick;
    if (tick === undefined) return null;
    if (this.#recent.tick !== tick)
      this.#recent = { tick, ids: this.ledger.actorsIn(tick - RECENT_S * this.tb.rate, tick) };
    return this.#recent.ids;
  }

  /** One step of the clock (the state machine), then the frame window and the crossed events. */
  #advance(dt: number): void {
    const pb = this.pb;
    const before = this.snap();
    const prev = pb.time;
    const canReach = (t: number) => this.#frameAvailable(t) || !!this.gaps.at(this.tb.tickAt(t));
    let sig = pb.update(dt, canReach);
    // A step longer than the pieces held reach (high speed and slow frames: 16× at 4 fps is 4 s a
    // frame): go as far as they reach instead of waiting for frames never asked for (the page asks
    // by the playhead's position). Buffering changes nothing in pb.
    for (let d = dt / 2, i = 0; i < 5 && sig.includes('buffering') && this.#frameAvailable(pb.time); i++, d /= 2) {
      sig = pb.update(d, canReach);
    }
    this.buffering = sig.includes('buffering');
    if (this.buffering) {
      this.updateWant();
      return;
    }
    // Into a gap: on past it (the frames there never come).
    const skipped = this.#overGap();
    const now = pb.time;
    if (now !== prev) {
      this.#fireEvents(prev, now);
      // Drop the frames the playhead has left at once (not when the next piece arrives).
      this.pieces.prune(this.currentTickInt(), pb);
      this.updateWant(skipped);
      this.emit('timeupdate', now);
    }
    if (sig.includes('killcam-hold'))
      this.emit('killcam', { active: true, holding: true, kill: this.camera.killCamKill });
    this.afterChange(before);
    const act = now > prev ? this.moment.advanced(prev, now) : null;
    // A loop at the recording's end goes on from the clip's start: it has not ended.
    if (sig.includes('ended') && act !== 'loop') this.emit('ended');
    if (act) this.#clipStep(act);
    if (now > prev) this.#reveal();
  }

  /** The clip's end, crossed playing forward: back to its start (loop), or paused on it (`ended`). */
  #clipStep(act: 'loop' | 'stop'): void {
    const c = this.moment.clip;
    // (advanced() answers only with a clip.)
    if (!c) return;
    if (act === 'loop') {
      this.cmd((pb) => {
        pb.seek(c.start);
        if (!pb.moving) pb.play();
      });
      this.jumped();
      return;
    }
    this.cmd((pb) => {
      pb.pause();
      // (A clip that stops has an end; without one, seek(null) went to 0, as this does.)
      pb.seek(c.end ?? 0);
    });
    this.jumped();
    this.emit('ended');
  }

  /** What event `e` shows in the picture: a kill's flash, an explosion (also Export → Video's). */
  effect(e: TimedEvent): void {
    const r = this.renderer;
    try {
      if (e.kind === 'kill') r?.flash(e.victim);
      else if (e.kind === 'custom' && e.type === 'explosion' && Array.isArray(e.pos))
        r?.flashAt(e.pos[0], e.pos[1], e.pos[2]);
    } catch {
      /* an unknown id: no flash */
    }
  }

  /** Effects of the events a forward step crossed: kill flashes, explosions, pickups (toasts). */
  #fireEvents(prev: number, now: number): void {
    if (now <= prev || now - prev > 2) return;
    for (const e of this.pb.eventsBetween(prev, now)) {
      this.effect(e);
      if (e.kind === 'kill') {
        this.emit('kill', e);
      } else if (e.kind === 'custom' && e.type === 'pickup') {
        this.emit('toast', {
          kind: 'pickup',
          text: `${this.entities.name(e.source)} picked up ${e.data || 'an item'}`,
        });
      }
      this.emit('event', e);
    }
  }

  // ------------------------------------------------------------ the frame at the playhead

  /** Entities in the frame at the playhead. */
  get entityCount(): number {
    return this.cur ? Math.floor(this.cur.frame.length / STRIDE) : 0;
  }

  /** Diagonal of the current frame's bounding box in metres (free-camera speed), once per tick. */
  get sceneExtentM(): number {
    const c = this.cur;
    if (!c) return 0;
    if (this.#extentKey !== c.key) {
      this.#extent = frameExtent(c.frame, this.info?.info.position_quantum_m ?? 1);
      this.#extentKey = c.key;
    }
    return this.#extent;
  }

  /** The entity `id` in the frame at the playhead, in display units, or null. */
  entityState(id: number): (EntityState & Attitude) | null {
    const c = this.cur;
    // (A frame at the playhead comes with a recording open: `info` is set.)
    if (!c || id < 0 || !this.info) return null;
    return entityState(c.frame, id, c.tick, this.info.info);
  }

  /** Where entity `id` was drawn in the last frame: `{x, y, visible}` (CSS px in the element), or
   *  null (not drawn, or not asked for before: the next frame answers). */
  screenPosition(id: number): { x: number; y: number; visible: boolean } | null {
    const p = this.renderer?.labelOf(id);
    return p?.length === 4 ? { x: p[1], y: p[2], visible: p[3] === 1 } : null;
  }

  /** Alive flag (flags bit 0) of each entity in the current frame. */
  aliveNow(): Map<number, boolean> {
    const a = this.info ? this.pieces.frameAt(this.currentTickInt()) : null;
    return a ? aliveIn(a.frame) : new Map();
  }

  // ------------------------------------------------------------ the clock (its commands: player.js)

  get duration(): number {
    return this.info ? this.tb.duration : 0;
  }

  snap(): Snap {
    return { state: this.pb.state, moving: this.pb.moving, speed: this.pb.speed, kc: this.pb.killCam };
  }

  /** Emits what a transition changed (play/pause, ratechange, statechange) and ends a kill cam's
   *  camera when the state machine ended the kill cam. */
  afterChange(before: Snap): void {
    const pb = this.pb;
    if (before.kc && pb.killCam !== before.kc && !pb.killCam) this.camera.killCamEnded(before.kc);
    if (before.moving !== pb.moving) this.emit(pb.moving ? 'play' : 'pause');
    if (before.speed !== pb.speed) this.emit('ratechange', pb.speed);
    if (before.state !== pb.state || before.kc !== pb.killCam) this.emit('statechange', this.playbackStatus());
  }

  /** Runs `fn(clock)` and emits what it changed (nothing before a recording is open). */
  cmd<T>(fn: (pb: CorePlayback) => T): T | undefined {
    if (!this.info) return undefined;
    const before = this.snap();
    let out: T;
    try {
      out = fn(this.pb);
    } finally {
      this.afterChange(before);
    }
    return out;
  }

  /**
   * Whether the page's own changes for a seek (clock, timeline, panels) should wait for its frame:
   * a page frame drawn while the worker reads and decodes competes with it for the CPU and holds
   * the piece's message behind it. At most `seekShowMs` from the seek (a remote file's seek shows
   * its time then); docs/playback.md, "A seek's page changes wait for its frame".
   */
  get pageWaitsForSeek(): boolean {
    return !!this.pendingSeek && performance.now() - this.seekStartedAt < this.seekShowMs;
  }

  /** Bookkeeping after the clock jumped (seek, stop, kill cam start): pieces, events, promise. */
  jumped(): Promise<number> {
    // A seek into a gap lands past it.
    this.#overGap(false);
    const target = this.pb.time;
    this.moment.jumped(target);
    this.#reveal();
    const prev = this.pendingSeek;
    // A seek still unanswered keeps its start: the page waits at most seekShowMs from there.
    if (!prev) this.seekStartedAt = performance.now();
    const p = new Promise<number>((resolve) => {
      this.pendingSeek = (v: number) => {
        prev?.(v);
        resolve(v);
      };
    });
    // The worker first (it has the longest way to go), then the page's listeners, which see
    // `seekPending` and leave their changes for the seek's frame.
    this.pieces.prune(this.currentTickInt(), this.pb);
    this.updateWant(true);
    this.emit('seeking', target);
    this.emit('timeupdate', target);
    // The seek moved the worker's decoder: a hint there again is worth sending; one still waiting
    // for its delay is for where the page was (the seek's landing sends the next).
    this.hints.cancel();
    this.#checkSeeked();
    return p;
  }

  /** The kill nearest to `tick` (default: the playhead's; ties: the upcoming one), or null. */
  nearestKill(tick = this.currentTickInt()): TimedKill | null {
    return this.ledger.nearestKill(tick);
  }
  /** Console_GetStatus for the status panel: the state machine's readout with the camera. */
  playbackStatus(): CoreStatus {
    this.pb.camera = this.camera.mode();
    const f = this.pb.statusFields();
    if (this.moment.lengthHidden) {
      // Spoiler-safe: neither the length nor the events ahead (docs/embedding.md "Spoiler-safe").
      f.duration = f.frames = null;
      f.events = upperBound(this.pb.eventTimes, this.moment.revealedUntil);
    }
    return { ...f, text: this.pb.status(f) };
  }

  /** The worker's counters (docs/worker-protocol.md `stats`). */
  workerStats(): Promise<unknown> {
    return this.client.call('stats', {});
  }

  /**
   * Measurement hook (tests/bench/): the loop's timings (loop.ts perf()) with the renderer's side,
   * its wasm memory and its frame counts. `reset` empties the buffers after reading them.
   */
  perf({ reset = false }: { reset?: boolean } = {}): CorePerf {
    const r = this.renderer;
    const out = {
      ...this.loop.perf(reset),
      labelsMs: [...this.#labelsMs],
      rendererWasmBytes: r?.wasmBytes() ?? 0,
      renderInWorker: !!this.stage.inWorker,
      renderStats: r && 'stats' in r ? { ...r.stats } : null,
    };
    if (reset) this.#labelsMs = [];
    if (reset && r && 'stats' in r) r.stats = { posted: 0, drawn: 0, skipped: 0, idle: 0, unready: 0 };
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.#unwatch?.();
    this.loop.stop();
    this.hints.stop();
    this.client.terminate();
    this.ghosts?.close();
    this.stage.dispose();
    this.labels.remove();
    this.#listeners.clear();
  }
}
