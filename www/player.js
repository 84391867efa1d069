// The player facade: one replay on one canvas. The embed API grows from this.
//
//   import { create } from './player.js';
//   const p = create(srcOrNull, stageElement, { forceWebgl, autoplay, renderInPage });
//   p.on('ready', (info) => ...); p.play(); p.seek(12.5); p.currentTime; p.duration;
//   p.load(fileOrUrl); p.dispose();
//
// Events: loadstart {name}, progress {phase, loaded, total}, ready (info), play, pause, seeking,
// seeked, timeupdate, ended, error {message}, markers (kill list), events (newly known events of
// every kind), event (an event the playhead just crossed), toast ({kind, text}), statechange
// (playback state), killcam ({active, kill}), cameramode (mode), selection (id), backend (name).
// The clock is the pure state machine of playback.js (Stopped/Playing/Paused/Rewinding/FastForward).
// Decoding happens in the worker (worker.js); this module never imports the decoder wasm.
import { WorkerClient } from './worker-client.js';
import { createRenderer } from './renderer-loader.js';
import { Playback, State, SPEEDS as PLAYBACK_SPEEDS, KILLCAM_REWIND } from './playback.js';

export const STRIDE = 16;
const F_ID = 0;
const F_TYPE = 1;
const F_FACTION = 2;
const F_POS = 3;
const F_ORIENT = 6;
const F_VEL = 10;
const F_HEALTH = 13;
const F_FLAGS = 14;
const F_ANIM = 15;
export const NO_ENTITY = 4294967295;
export const NO_WEAPON = 65535;
export const SPEEDS = PLAYBACK_SPEEDS;
export { State };
/** Entity flag bits (model::flags, SparkEngine's bitmask), in bit order. */
export const FLAG_NAMES = ['alive', 'visible', 'firing', 'crouching', 'sprinting', 'reloading', 'in vehicle', 'scoped'];
/** Camera modes the shell offers (renderer names). */
export const CAMERA_MODES = ['orbit', 'free', 'follow', 'first', 'kill'];

/** Faction colours (Okabe–Ito), the renderer's palette; index modulo 7. */
export const FACTION_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442'];
export function factionColour(i) {
  const n = FACTION_COLOURS.length;
  return FACTION_COLOURS[((i % n) + n) % n];
}

/** Most callsign labels on screen at once (DOM text is the page's dearest per-frame cost). */
export const MAX_LABELS = 64;
/** Label candidates asked of the renderer per frame: the nearest visible entities. */
const LABEL_CANDIDATES = 256;
/** Label elements kept in the pool (shown + hidden for reuse). */
const LABEL_POOL = 160;

/** How long the pointer stays on a moment before the worker is told (prefetch()). */
const HINT_DELAY_MS = 60;
/** ← / → seek this far (seconds; the keyboard's step without Shift or Alt). */
export const SEEK_STEP_S = 5;
/** A kill is watched from this long before it ([ / ], a kill marker's or row's click). */
export const KILL_LEAD_S = 2;
/** The longest the page's clock, timeline and panels wait for a seek's frame (ms). */
export const SEEK_SHOW_MS = 100;
/** Quiet animation frames in a row, and for how long, before the loop rests (mayRest()). */
const REST_AFTER_FRAMES = 3;
const REST_AFTER_MS = 500;
/** A resting loop still runs a frame this often: the render worker's idle redraw (render-proxy.js
 *  IDLE_REDRAW_MS) that notices a device lost while nothing happens. */
const REST_REDRAW_MS = 1000;

/** Frames of main-thread timing kept for perf() (a ring). */
const PERF_FRAMES = 1024;
/** Chunk arrival timings kept for perf(). */
const PERF_CHUNKS = 512;
/** Frames held ahead of the playhead while moving: this much wall-clock time at the current speed
 *  (docs/worker-protocol.md). Paused, only the frame at the playhead and the next one. */
const LOOKAHEAD_S = 0.5;
/** Kept ahead even when paused or slow (ticks = this × tick rate): a pause/play does not drop and
 *  re-decode what was just decoded. */
const KEEP_S = 0.5;
/** From this speed on, frames are thinned: one tick in `speed / 2` (at most 8): a 60 fps picture at
 *  16× shows one tick in 16 anyway, and the worker posts, and the page holds, 8× fewer frames. */
const THIN_FROM = 4;
const MAX_THIN = 8;

const CATEGORY = { other: 0, aircraft: 1, projectile: 2, ground: 3, character: 4 };

/** Last index i with arr[i] <= x (arr ascending), or -1. */
function lastAtOrBefore(arr, x) {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Word offset of entity `id` in a packed frame (sorted by id), or -1. Falls back to a scan when
 *  the frame is not sorted (hostile input: never wrong, only slower). */
export function findEntity(f, id) {
  let lo = 0;
  let hi = Math.floor(f.length / STRIDE);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = f[mid * STRIDE + F_ID] >>> 0;
    if (v === id) return mid * STRIDE;
    if (v < id) lo = mid + 1;
    else hi = mid;
  }
  for (let k = 0; k + STRIDE <= f.length; k += STRIDE) if (f[k + F_ID] >>> 0 === id) return k;
  return -1;
}

function toUrl(src) {
  return new URL(src, document.baseURI).href;
}

class Player {
  constructor(element, opts) {
    this.element = element;
    this.opts = opts;
    this.listeners = new Map();
    this.disposed = false;

    this.canvas = document.createElement('canvas');
    this.canvas.className = 'rp-canvas';
    this.canvas.setAttribute('aria-label', 'Replay view');
    this.labelLayer = document.createElement('div');
    this.labelLayer.className = 'rp-labels';
    this.labelLayer.setAttribute('aria-hidden', 'true');
    element.append(this.canvas, this.labelLayer);
    this.labelPool = new Map();
    this.labelsShown = new Set();
    this.labelCells = new Set();

    this.client = new WorkerClient({
      onPush: (m) => this.onPush(m),
      onFatal: (message) => this.onWorkerCrash(message),
    });

    this.renderer = null;
    this.backend = '';
    this.rendererReady = this.initRenderer();

    this.sessionId = 0;
    /** The tick of the last prefetch hint, and the timer that sends the next. */
    this.prefetched = -1;
    this.hintTimer = 0;
    /** Prefetch hints sent for this file (diagnostics: the worker's stats count those it got). */
    this.hintsSent = 0;
    /** Which way the last seek went (−1 back, 1 on): which likely next seek a hint reads first. */
    this.lastSeekDir = 1;
    this.pb = new Playback();
    this.killCamRewind = KILLCAM_REWIND;
    this.flyKeys = { forward: 0, right: 0, up: 0, fast: false };
    this.resetSession();

    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(element);
    this.dprQuery = null;
    this.watchDpr();
    this.bindPointer();

    this.lastFrameTs = 0;
    /** The loop rests (no animation frames) while nothing can change: see mayRest(). */
    this.resting = false;
    this.quietFrames = 0;
    this.quietSince = 0;
    this.restAfterMs = REST_AFTER_MS;
    this.restTimer = 0;
    /** Quiet frames before resting (Infinity: never rest; benchmarks compare). */
    this.restAfterFrames = REST_AFTER_FRAMES;
    /** The longest the page's own changes for a seek wait for its frame (ms; `pageWaitsForSeek`). */
    this.seekShowMs = SEEK_SHOW_MS;
    /** When the pending seek (the first of a run of unanswered ones) began (performance.now()). */
    this.seekStartedAt = 0;
    // Measurement hooks (perf()): main-thread ms per frame, renderer CPU ms, piece timings.
    this.perfTotal = new Float64Array(PERF_FRAMES);
    this.perfRender = new Float64Array(PERF_FRAMES);
    this.perfTime = new Float64Array(PERF_FRAMES);
    this.perfBuild = new Float64Array(PERF_FRAMES);
    this.perfN = 0;
    this.perfChunks = [];
    this.raf = requestAnimationFrame((ts) => this.frame(ts));
  }

  // ------------------------------------------------------------ events

  on(ev, fn) {
    if (!this.listeners.has(ev)) this.listeners.set(ev, new Set());
    this.listeners.get(ev).add(fn);
    return () => this.off(ev, fn);
  }
  off(ev, fn) {
    this.listeners.get(ev)?.delete(fn);
  }
  emit(ev, detail) {
    // Every change the page can see goes through here: a resting loop wakes for it.
    this.wake();
    for (const fn of this.listeners.get(ev) ?? []) {
      try {
        fn(detail);
      } catch (e) {
        console.error(e);
      }
    }
  }

  // ------------------------------------------------------------ renderer

  async initRenderer() {
    try {
      this.rendererToken = (this.rendererToken ?? 0) + 1;
      const token = this.rendererToken;
      const r = await createRenderer(this.canvas, {
        forceWebgl: !!this.opts.forceWebgl,
        inPage: !!this.opts.renderInPage,
        // The render worker died (a trap): say so; the next load starts a fresh one.
        onFatal: (message) => {
          if (this.disposed || token !== this.rendererToken) return;
          this.renderer = null;
          this.rendererDead = true;
          this.fail(`Drawing failed: ${message}`);
        },
      });
      if (this.disposed) {
        r.renderer.free();
        return null;
      }
      if (r.canvas && r.canvas !== this.canvas) this.canvas = r.canvas;
      this.renderer = r.renderer;
      this.backend = r.backend;
      this.rendererBuild = r.build;
      this.renderInWorker = r.inWorker;
      // The render worker's proxy reports every queued call and every reply: the loop wakes.
      if (r.inWorker) r.renderer.onActivity = (kind) => this.wake(kind === 'call');
      this.resize();
      performance.mark('rp:renderer-ready');
      this.emit('backend', this.backend);
      if (this.info) this.applyWorld();
      this.checkSeeked();
      return this.renderer;
    } catch (e) {
      this.fail(`This browser cannot draw the replay: ${e?.message ?? e}`);
      return null;
    }
  }

  applyWorld() {
    const r = this.renderer;
    const info = this.info?.info;
    if (!r || !info) return;
    try {
      const world = info.world ?? { kind: 'flat' };
      r.setWorld(world.kind === 'planet' ? 'planet' : 'flat', world.radius_m ?? 0, info.position_quantum_m);
      const maxIndex = info.entity_types.reduce((m, t) => Math.max(m, t.index), -1);
      const cats = new Uint8Array(maxIndex + 1);
      for (const t of info.entity_types) cats[t.index] = CATEGORY[t.category] ?? 0;
      r.setTypeCategories(cats);
      r.clearTrails();
      r.setSelected(-1);
      r.follow(-1);
      r.setCameraMode('orbit');
    } catch (e) {
      this.fail(e?.message ?? String(e));
    }
    this.fitPending = true;
    this.lastA = null;
    this.lastB = null;
  }

  resize() {
    if (!this.renderer) return;
    const w = Math.max(1, this.element.clientWidth);
    const h = Math.max(1, this.element.clientHeight);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    try {
      this.renderer.resize(w, h, window.devicePixelRatio || 1);
    } catch (e) {
      console.warn(e);
    }
  }

  watchDpr() {
    const q = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    const onChange = () => {
      this.resize();
      this.watchDpr();
    };
    q.addEventListener('change', onChange, { once: true });
    this.dprQuery = { q, onChange };
  }

  bindPointer() {
    const pointers = new Map();
    let pinch = 0;
    let down = null;
    const el = () => this.canvas;
    const local = (e) => {
      const r = el().getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    this.onPointerDown = (e) => {
      if (e.target !== this.canvas) return;
      this.canvas.setPointerCapture?.(e.pointerId);
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      down = pointers.size === 1 ? { x: e.clientX, y: e.clientY, moved: false } : null;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = Math.hypot(a.x - b.x, a.y - b.y);
      }
    };
    this.onPointerMove = (e) => {
      const p = pointers.get(e.pointerId);
      if (!p || !this.renderer) return;
      const dx = e.clientX - p.x;
      const dy = e.clientY - p.y;
      p.x = e.clientX;
      p.y = e.clientY;
      if (pointers.size === 1) {
        if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) down.moved = true;
        if (!down || down.moved) this.renderer.orbit(dx, dy);
      } else if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        this.renderer.zoom((pinch - d) * 4);
        pinch = d;
      }
    };
    this.onPointerUp = (e) => {
      if (!pointers.has(e.pointerId)) return;
      pointers.delete(e.pointerId);
      if (down && !down.moved && e.type === 'pointerup' && this.renderer) {
        const { x, y } = local(e);
        this.renderer.request('pick', x, y).then(
          (id) => {
            if (!this.disposed) this.select(id, { follow: id >= 0 });
          },
          () => {},
        );
      }
      down = null;
    };
    this.onWheel = (e) => {
      if (e.target !== this.canvas || !this.renderer) return;
      e.preventDefault();
      const scale = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      this.renderer.zoom(e.deltaY * scale);
    };
    this.element.addEventListener('pointerdown', this.onPointerDown);
    this.element.addEventListener('pointermove', this.onPointerMove);
    this.element.addEventListener('pointerup', this.onPointerUp);
    this.element.addEventListener('pointercancel', this.onPointerUp);
    this.element.addEventListener('wheel', this.onWheel, { passive: false });
  }

  // ------------------------------------------------------------ loading

  resetSession() {
    this.info = null;
    /** Decoded pieces held (docs/worker-protocol.md), sorted by `from`; each covers ticks [from, end). */
    this.pieces = [];
    this.pieceIds = 0;
    this.sent = null;
    this.gen = 0;
    const speed = this.pb && !this.pb.killCam ? this.pb.speed : 1;
    this.pb = new Playback();
    this.pb.speed = speed;
    this.buffering = false;
    this.pendingSeek = null;
    this.kills = [];
    this.killKeys = new Set();
    this.killTicks = [];
    this.events = [];
    /** Tick ranges [from, end) whose events the page has from pieces (sorted, disjoint): a piece's
     *  events are every event of its ticks, so an event in a range already learned is a duplicate. */
    this.eventRanges = [];
    this.followId = -1;
    this.cur = null;
    this.extentKey = null;
    this.entityNames = new Map();
    this.entityTypes = new Map();
    this.entityFaction = new Map();
    this.participantsById = new Map();
    this.lastA = null;
    this.lastB = null;
    this.lastFlashTime = 0;
    this.selected = -1;
    this.loaded = false;
    this.error = null;
    this.readyEmitted = false;
    this.firstFrameShown = false;
    this.firstFrameMarked = false;
    this.firstChunkMarked = false;
  }

  /** Empties the view (the old replay's entities and trails). */
  clearScene() {
    const r = this.renderer;
    if (!r) return;
    try {
      const none = new Int32Array(0);
      r.setFrames(none, 0, none, 0);
      r.setTime(0);
      r.clearTrails();
      r.setSelected(-1);
      r.follow(-1);
    } catch (e) {
      console.warn(e);
    }
    for (const el of this.labelPool.values()) el.remove();
    this.labelPool.clear();
    this.labelsShown.clear();
  }

  /** Opens a File/Blob, or a URL (string). The previous replay is disposed. */
  async load(src) {
    if (this.disposed) return;
    const sid = ++this.sessionId;
    if (this.info) this.client.notify('close', {});
    if (this.rendererDead) {
      // A canvas handed to a worker cannot be handed again: a fresh one for a fresh renderer.
      this.rendererDead = false;
      this.renderFailures = 0;
      const fresh = this.canvas.cloneNode(false);
      this.canvas.replaceWith(fresh);
      this.canvas = fresh;
      this.rendererReady = this.initRenderer();
    }
    this.resetSession();
    this.clearScene();
    const isBlob = typeof Blob !== 'undefined' && src instanceof Blob;
    const name = isBlob ? src.name || 'replay' : String(src);
    this.sourceName = name;
    this.emit('loadstart', { name });
    this.emit('timeupdate', 0);
    let info;
    try {
      const params = isBlob ? { session: sid, blob: src, name } : { session: sid, url: toUrl(String(src)) };
      info = await this.client.call('open', params);
    } catch (e) {
      if (sid !== this.sessionId || e?.fatal) return;
      this.fail(e?.message ?? String(e));
      return;
    }
    if (sid !== this.sessionId || this.disposed) return;
    if (info.info?.format === 'foldback') {
      // A determinism log, not a world to render: the divergence view (ui/foldback.js) takes it.
      this.client.notify('close', {});
      this.emit('foldback', { src, name, info });
      return;
    }
    this.info = info;
    this.prefetched = -1;
    this.hintsSent = 0;
    const i = info.info;
    this.tickRate = i.tick_rate_hz || 1;
    this.firstTick = i.first_tick;
    this.lastTick = i.last_tick;
    for (const p of i.participants) {
      this.participantsById.set(p.id, p);
      if (p.entity !== NO_ENTITY) {
        this.entityNames.set(p.entity, p.callsign);
        this.entityFaction.set(p.entity, p.faction);
      }
    }
    this.pb.load(this.duration, []);
    this.pb.frames = Math.max(0, i.last_tick - i.first_tick + 1);
    const meta = new Map(i.metadata ?? []);
    this.pb.map = meta.get('map') ?? '';
    this.pb.mode = meta.get('mode') ?? '';
    this.addEvents(info.markers ?? []);
    performance.mark('rp:info');
    this.loaded = true;
    this.applyWorld();
    this.updateWant(true);
    this.emit('info', info);
  }

  onPush(m) {
    this.wake();
    if (m.type === 'progress') {
      if (m.session === this.sessionId) this.emit('progress', m);
      return;
    }
    if (m.type === 'error') {
      if (m.session === undefined || m.session === this.sessionId) this.fail(m.message);
      return;
    }
    if (m.type === 'piece') {
      if (m.session !== this.sessionId || !this.info) return;
      const received = performance.now();
      if (!this.firstChunkMarked) {
        this.firstChunkMarked = true;
        performance.mark('rp:first-chunk');
      }
      const [lo, hi] = this.keepRange();
      // Stale: an answer to a superseded request, away from the playhead.
      if (m.gen < this.gen && (m.end <= lo || m.from >= hi)) return;
      this.addPiece(m);
      this.learnFromChunk(m);
      this.prunePieces();
      this.checkSeeked();
      this.updateWant();
      if (m.timing) {
        const t = {
          index: m.chunk,
          from: m.from,
          ...m.timing,
          transit: performance.timeOrigin + received - m.timing.postedAt,
          page: performance.now() - received,
        };
        delete t.postedAt;
        // When the worker began the piece, on the page's clock (the request's way there).
        if (m.timing.startedAt) t.started = m.timing.startedAt - performance.timeOrigin;
        delete t.startedAt;
        if (this.perfChunks.push(t) > PERF_CHUNKS) this.perfChunks.shift();
      }
    }
  }

  learnFromChunk(c) {
    const spawns = [];
    for (const e of c.events) {
      if (e.kind === 'spawn') spawns.push(e);
    }
    for (const s of spawns) {
      const p = this.participantsById.get(s.participant);
      if (p) {
        this.entityNames.set(s.entity, p.callsign);
        this.entityFaction.set(s.entity, p.faction);
      }
    }
    // Entity types (for names of entities without callsigns) from the piece's first frame.
    const end = c.offsets.length > 1 ? c.offsets[1] : 0;
    for (let k = 0; k < end; k++) {
      const id = c.entities[k * STRIDE + F_ID] >>> 0;
      if (!this.entityTypes.has(id)) this.entityTypes.set(id, c.entities[k * STRIDE + F_TYPE]);
    }
    this.addEvents(c.events, c.from, c.end, c.eventTicks);
  }

  /** Adds events of every kind: the open's markers (no range), or a piece's events (every event
   *  recorded in its ticks [from, end); `recordedAt[k]`: the tick event k was recorded in). Deduplicated by tick range, not by a key per event (a 1 GB recording
   *  has ~100,000 events; a JSON key each cost more than the events), and kills also by their
   *  (tick, killer, victim) when the open's markers may hold some of them. */
  addEvents(events, from = null, end = null, recordedAt = null) {
    const ranged = from !== null && end !== null && end > from;
    const complete = !!this.info?.markersComplete;
    let killAdded = false;
    const fresh = [];
    for (let k = 0; k < events.length; k++) {
      const e = events[k];
      if (!e || typeof e.tick !== 'number') continue;
      // Deduplicated by the tick the event was recorded in (its own tick may differ, 000 §8).
      if (ranged && this.eventsLearned(recordedAt?.[k] ?? e.tick)) continue;
      if (e.kind === 'kill') {
        // With a complete index every kill came with the open's markers.
        if (ranged && complete) continue;
        if (!complete) {
          const key = `${e.tick}:${e.killer}:${e.victim}`;
          if (this.killKeys.has(key)) continue;
          this.killKeys.add(key);
        }
      }
      const ev = { ...e, t: (e.tick - this.firstTick) / this.tickRate };
      fresh.push(ev);
      if (e.kind === 'kill') {
        this.kills.push(ev);
        killAdded = true;
      }
    }
    if (ranged) this.learnEvents(from, end);
    if (!fresh.length) return;
    this.pb.addEvents(fresh);
    this.events = this.pb.events;
    if (killAdded) {
      this.kills.sort((a, b) => a.tick - b.tick);
      this.killTicks = this.kills.map((k) => k.tick);
      this.emit('markers', this.kills);
    }
    this.emit('events', fresh);
  }

  /** Whether the events of `tick` came with a piece already. */
  eventsLearned(tick) {
    const r = this.eventRanges;
    let lo = 0;
    let hi = r.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (r[mid][1] <= tick) lo = mid + 1;
      else hi = mid;
    }
    return lo < r.length && r[lo][0] <= tick;
  }

  /** Marks the events of ticks [from, end) as learned (merging touching ranges). */
  learnEvents(from, end) {
    const r = this.eventRanges;
    const out = [];
    let a = from;
    let b = end;
    let placed = false;
    for (const [x, y] of r) {
      if (y < a) out.push([x, y]);
      else if (x > b) {
        if (!placed) {
          out.push([a, b]);
          placed = true;
        }
        out.push([x, y]);
      } else {
        a = Math.min(a, x);
        b = Math.max(b, y);
      }
    }
    if (!placed) out.push([a, b]);
    this.eventRanges = out;
  }

  /** Events within `window` seconds of the playhead (GetEventsNearTime). */
  eventsNear(window = 0.1) {
    return this.pb.eventsNear(window);
  }

  onWorkerCrash(message) {
    const sid = this.sessionId;
    this.loaded = false;
    this.pb.stop();
    this.fail(`The decoder crashed (${message}). Open the file again, or another one.`);
    this.sessionId = sid + 1; // ignore anything still in flight for the dead worker
  }

  fail(message) {
    this.error = message;
    this.emit('error', { message });
  }

  // ------------------------------------------------------------ pieces and frames

  currentTickFloat() {
    return this.firstTick + this.time * this.tickRate;
  }
  currentTickInt() {
    if (!this.info) return 0;
    return Math.min(this.lastTick, Math.floor(this.currentTickFloat() + 1e-6));
  }

  /** What the page holds around the playhead: `stride` (1 = every tick; thinned from THIN_FROM×)
   *  and `ahead`, the ticks wanted in the playing direction. A request [tick, tick + ahead) also
   *  brings the first frame at or past its end (the worker's pieces always do), so paused, 1 tick
   *  asks for the frame at the playhead and the next one, however far apart they are. */
  window() {
    const moving = this.pb.moving;
    const speed = moving ? Math.max(0, this.pb.speed) : 0;
    const stride = speed >= THIN_FROM ? Math.min(MAX_THIN, Math.floor(speed / 2)) : 1;
    const ahead = moving ? Math.max(2 * stride + 2, Math.ceil(this.tickRate * speed * LOOKAHEAD_S)) : 1;
    return { stride, ahead, dir: this.pb.direction < 0 ? -1 : 1 };
  }

  /** Ticks [lo, hi) whose pieces are kept: the playhead's and the window in the playing direction. */
  keepRange() {
    const tick = this.currentTickInt();
    const { ahead, dir } = this.window();
    const span = Math.max(ahead, Math.ceil(this.tickRate * KEEP_S));
    return dir < 0 ? [tick - span, tick + 2] : [tick, tick + span + 1];
  }

  /** The piece covering integer tick `tick`, the finest one where pieces overlap; with `stride`,
   *  only pieces at most that coarse. */
  pieceAt(tick, stride = Infinity) {
    let best = null;
    for (const p of this.pieces) {
      if (p.from <= tick && tick < p.end && p.stride <= stride && (!best || p.stride < best.stride)) best = p;
    }
    return best;
  }

  addPiece(m) {
    m.id = ++this.pieceIds;
    // A piece makes the ones it covers at the same or a coarser stride redundant.
    this.pieces = this.pieces.filter((q) => !(q.stride >= m.stride && m.from <= q.from && q.end <= m.end));
    this.pieces.push(m);
    this.pieces.sort((a, b) => a.from - b.from);
  }

  prunePieces() {
    const [lo, hi] = this.keepRange();
    if (this.pieces.some((p) => p.end <= lo || p.from >= hi))
      this.pieces = this.pieces.filter((p) => p.end > lo && p.from < hi);
  }

  /** Asks the worker for the ticks the window needs and the pieces held do not cover (at the
   *  window's stride or finer). Forward: from the first uncovered tick at or after the playhead to
   *  `ahead` past it. Rewinding: the ticks before the covered run that holds the playhead, once
   *  that run is less than half the window. Re-sent when what is needed changes, not every frame. */
  updateWant(force = false) {
    if (!this.info) return;
    const tick = this.currentTickInt();
    const { stride, ahead, dir } = this.window();
    const end = this.lastTick + 1;
    let from;
    let to;
    if (dir > 0) {
      from = tick;
      for (let p = this.pieceAt(from, stride), k = 0; p && k < 10000; p = this.pieceAt(from, stride), k++) from = p.end;
      to = Math.min(end, tick + ahead);
    } else {
      // The start of the covered run that holds the playhead's frames (tick + 1 back).
      let lo = tick + 2;
      for (let p = this.pieceAt(lo - 1, stride), k = 0; p && k < 10000; p = this.pieceAt(lo - 1, stride), k++)
        lo = p.from;
      if (lo > tick) {
        // The playhead's own frames are missing.
        to = Math.min(end, tick + 1);
      } else {
        to = lo > tick - ahead / 2 ? lo : this.firstTick;
      }
      from = Math.max(this.firstTick, tick - ahead);
    }
    if (from >= to) {
      // Nothing missing (an empty request, -1 so it never matches a real one).
      from = to = -1;
    }
    const s = this.sent;
    // Unchanged request (or only a little further ahead): what was asked for is in flight.
    if (
      !force &&
      s &&
      s.from === from &&
      s.stride === stride &&
      s.dir === dir &&
      (from === to || (dir > 0 ? to < s.to + Math.max(1, ahead / 4) : to === s.to))
    )
      return;
    this.sent = { from, to, stride, dir };
    // Sent even when empty: it clears whatever the worker still had queued.
    this.gen++;
    this.client.notify('want', { session: this.sessionId, gen: this.gen, from, to, stride, dir });
  }

  /** Frame at or before integer tick: {tick, t, frame, key, piece, i} or null when not decoded yet. */
  frameAt(tick) {
    const p = this.pieceAt(tick);
    if (!p) return null;
    let i = lastAtOrBefore(p.ticks, tick);
    if (i < 0) i = 0;
    return this.frameOf(p, i);
  }

  frameOf(p, i) {
    const a = p.offsets[i] * STRIDE;
    const b = p.offsets[i + 1] * STRIDE;
    const tick = p.ticks[i];
    return {
      tick,
      t: (tick - this.firstTick) / this.tickRate,
      frame: p.entities.subarray(a, b),
      key: `${p.id}:${i}`,
      piece: p,
      i,
    };
  }

  /** The frame after `f`: in its piece, else the first later one in the piece that follows. */
  nextFrame(f) {
    const p = f.piece;
    if (f.i + 1 < p.ticks.length) return this.frameOf(p, f.i + 1);
    const q = this.pieceAt(p.end);
    if (!q) return null;
    for (let j = 0; j < q.ticks.length; j++) {
      if (q.ticks[j] > f.tick) return this.frameOf(q, j);
    }
    return null;
  }

  frameAvailable(time) {
    if (!this.info) return false;
    return !!this.pieceAt(this.tickAtTime(time));
  }

  /** Bytes of decoded frames the page holds (typed arrays of its pieces). */
  heldBytes() {
    return this.pieces.reduce((a, p) => a + p.entities.byteLength + p.ticks.byteLength + p.offsets.byteLength, 0);
  }

  checkSeeked() {
    if (!this.info) return;
    if (!this.readyEmitted && this.renderer && this.frameAvailable(this.time)) {
      this.readyEmitted = true;
      this.emit('ready', this.info);
      if (this.opts.autoplay) this.play();
    }
    if (this.pendingSeek && this.frameAvailable(this.time)) {
      const resolve = this.pendingSeek;
      this.pendingSeek = null;
      this.emit('seeked', this.time);
      resolve(this.time);
      this.hintLanding();
    }
  }

  // ------------------------------------------------------------ the loop

  frame(ts) {
    if (this.disposed) return;
    this.raf = requestAnimationFrame((t) => this.frame(t));
    const t0 = performance.now();
    this.drawFrame(ts);
    if (this.mayRest()) {
      this.quietSince ||= t0;
      if (++this.quietFrames >= this.restAfterFrames && t0 - this.quietSince >= this.restAfterMs) this.rest();
    } else this.stayAwake();
    if (this.firstFrameShown && this.renderer) {
      const k = this.perfN++ % PERF_FRAMES;
      this.perfTotal[k] = performance.now() - t0;
      this.perfRender[k] = this.renderer.frameMs();
      this.perfTime[k] = this.renderer.timeMs();
      this.perfBuild[k] = this.renderer.buildMs();
    }
  }

  /**
   * Whether nothing will change until something happens (docs/renderer.md, "Resting"): drawn in the
   * render worker, which has drawn the last frame and has nothing queued or unanswered; paused (no
   * clock, kill cam, seek, fit or free-camera flight in progress). Drawn on the page, never: the
   * in-page renderer is not told about its input (it has no proxy).
   */
  mayRest() {
    if (!this.renderInWorker || !this.renderer?.quiet?.()) return false;
    if (!this.info) return true;
    const k = this.flyKeys;
    return (
      this.firstFrameMarked &&
      !this.pb.moving &&
      !this.pb.killCam &&
      !this.pendingSeek &&
      !this.buffering &&
      !this.fitPending &&
      !(k.forward || k.right || k.up)
    );
  }

  /** Stops the animation-frame loop until `wake()`: an untouched, paused player costs no frames.
   *  A timer wakes it once a second, so the render worker's idle redraw still notices a lost device. */
  rest() {
    cancelAnimationFrame(this.raf);
    this.raf = 0;
    this.resting = true;
    // Only for the worker's idle redraw: back to rest as soon as it is answered.
    this.restTimer = setTimeout(() => {
      this.restAfterMs = 0;
      this.wake(false);
    }, REST_REDRAW_MS);
  }

  /** Restarts the quiet count: the loop keeps running for at least REST_AFTER_MS more. */
  stayAwake() {
    this.quietFrames = 0;
    this.quietSince = 0;
  }

  /**
   * Restarts the loop (any event, input, piece, renderer call or reply). Cheap when awake.
   * `active`: something happened (not just a reply or the once-a-second redraw): the loop then
   * stays up REST_AFTER_MS once quiet again, as a user still at work may go on.
   */
  wake(active = true) {
    if (active) this.restAfterMs = REST_AFTER_MS;
    if (!this.resting || this.disposed) return;
    this.resting = false;
    this.stayAwake();
    clearTimeout(this.restTimer);
    // The first frame after a rest steps the clock by nothing (it did not run meanwhile).
    this.lastFrameTs = 0;
    this.raf = requestAnimationFrame((t) => this.frame(t));
  }

  drawFrame(ts) {
    const dt = this.lastFrameTs ? Math.min(0.25, (ts - this.lastFrameTs) / 1000) : 0;
    this.lastFrameTs = ts;
    if (this.info && (this.pb.moving || this.pb.killCam)) this.advance(dt);
    const r = this.renderer;
    if (!r) return;
    try {
      if (this.info) {
        const tick = this.currentTickInt();
        const a = this.frameAt(tick);
        if (a) {
          const b = this.nextFrame(a) ?? a;
          if (a.key === this.lastB && b.key !== a.key && b.key !== this.lastB) {
            // Moved on by one frame (playing): the renderer's B becomes A, only B is copied.
            r.pushFrame(b.frame, b.t);
            this.lastA = a.key;
            this.lastB = b.key;
          } else if (a.key !== this.lastA || b.key !== this.lastB) {
            r.setFrames(a.frame, a.t, b.frame, b.key === a.key ? a.t : b.t);
            this.lastA = a.key;
            this.lastB = b.key;
          }
          if (!this.cur || this.cur.key !== a.key) this.setCurrentFrame(a);
          r.setTime(Math.max(a.t, this.time));
          if (this.fitPending) {
            r.render();
            r.resetCamera();
            this.fitPending = false;
          }
          this.firstFrameShown = true;
        }
        this.flyStep(dt);
      }
      const drawn = r.render();
      // (The render worker answers a frame later: its reply says whether that frame had entities.)
      if (drawn && this.firstFrameShown && !this.firstFrameMarked && (r.contentDrawn?.() ?? true)) {
        this.firstFrameMarked = true;
        performance.mark('rp:first-frame');
      }
      this.placeLabels();
    } catch (e) {
      this.renderFailures = (this.renderFailures ?? 0) + 1;
      if (this.renderFailures === 1) this.fail(`Drawing failed: ${e?.message ?? e}`);
    }
  }

  /** One step of the clock (the state machine), then the frame window and the crossed events. */
  advance(dt) {
    const before = this.snap();
    const prev = this.time;
    const canReach = (t) => this.frameAvailable(t);
    let sig = this.pb.update(dt, canReach);
    // A step longer than the pieces held reach (high speed and slow frames: 16× at 4 fps is 4 s a
    // frame): go as far as they reach instead of waiting for frames never asked for (the page asks
    // by the playhead's position). Buffering changes nothing in pb.
    for (let d = dt / 2, i = 0; i < 5 && sig.includes('buffering') && this.frameAvailable(this.time); i++, d /= 2) {
      sig = this.pb.update(d, canReach);
    }
    this.buffering = sig.includes('buffering');
    if (this.buffering) {
      this.updateWant();
      return;
    }
    const now = this.time;
    if (now !== prev) {
      this.fireEvents(prev, now);
      // Drop the frames the playhead has left at once (not when the next piece arrives).
      this.prunePieces();
      this.updateWant();
      this.emit('timeupdate', now);
    }
    if (sig.includes('killcam-hold')) this.emit('killcam', { active: true, holding: true, kill: this.killCamKill });
    this.afterChange(before);
    if (sig.includes('ended')) this.emit('ended');
  }

  /** Effects of the events a forward step crossed: kill flashes, explosions, pickups (toasts). */
  fireEvents(prev, now) {
    if (now <= prev || now - prev > 2) return;
    const r = this.renderer;
    for (const e of this.pb.eventsBetween(prev, now)) {
      if (e.kind === 'kill') {
        try {
          r?.flash(e.victim);
        } catch {
          /* unknown id: no-op */
        }
        this.emit('kill', e);
      } else if (e.kind === 'custom' && e.type === 'explosion' && Array.isArray(e.pos)) {
        try {
          r?.flashAt(e.pos[0], e.pos[1], e.pos[2]);
        } catch {
          /* ignore */
        }
      } else if (e.kind === 'custom' && e.type === 'pickup') {
        this.emit('toast', { kind: 'pickup', text: `${this.entityName(e.source)} picked up ${e.data || 'an item'}` });
      }
      this.emit('event', e);
    }
  }

  // ------------------------------------------------------------ current frame, inspector data

  /** The frame at the playhead (per tick: O(1); lookups binary-search the id-sorted frame). */
  setCurrentFrame(a) {
    this.cur = { key: a.key, tick: a.tick, frame: a.frame };
    this.extentKey = null;
  }

  /** Entities in the frame at the playhead. */
  get entityCount() {
    return this.cur ? Math.floor(this.cur.frame.length / STRIDE) : 0;
  }

  /** Diagonal of the current frame's bounding box in metres (free-camera speed), once per tick. */
  get sceneExtentM() {
    const c = this.cur;
    if (!c) return 0;
    if (this.extentKey === c.key) return this.extent;
    const f = c.frame;
    const min = [Infinity, Infinity, Infinity];
    const max = [-Infinity, -Infinity, -Infinity];
    for (let k = 0; k + STRIDE <= f.length; k += STRIDE) {
      for (let j = 0; j < 3; j++) {
        const v = f[k + F_POS + j];
        if (v < min[j]) min[j] = v;
        if (v > max[j]) max[j] = v;
      }
    }
    const q = this.info?.info.position_quantum_m ?? 1;
    this.extent = f.length >= STRIDE ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) * q : 0;
    this.extentKey = c.key;
    return this.extent;
  }

  /** The entity `id` in the frame at the playhead, in display units, or null. */
  entityState(id) {
    const c = this.cur;
    if (!c || id < 0) return null;
    const k = findEntity(c.frame, id);
    if (k < 0) return null;
    const f = c.frame;
    const i = this.info.info;
    const q = i.position_quantum_m;
    const vq = i.velocity_quantum_mps;
    const pos = [f[k + F_POS] * q, f[k + F_POS + 1] * q, f[k + F_POS + 2] * q];
    const vel = [f[k + F_VEL] * vq, f[k + F_VEL + 1] * vq, f[k + F_VEL + 2] * vq];
    const flags = f[k + F_FLAGS] >>> 0;
    const out = {
      id,
      tick: c.tick,
      type: f[k + F_TYPE],
      faction: f[k + F_FACTION],
      pos,
      vel,
      speed: Math.hypot(vel[0], vel[1], vel[2]),
      orient: [f[k + F_ORIENT], f[k + F_ORIENT + 1], f[k + F_ORIENT + 2], f[k + F_ORIENT + 3]].map((v) => v / 32767),
      health: f[k + F_HEALTH] / 100,
      flags,
      flagNames: FLAG_NAMES.filter((_, b) => (flags >>> b) & 1),
      anim: f[k + F_ANIM],
      alive: (flags & 1) === 1,
    };
    if (i.world?.kind === 'planet') out.altitude = Math.hypot(pos[0], pos[1], pos[2]) - i.world.radius_m;
    return out;
  }

  /** Free camera: WASD/QE held keys (set by the keyboard module) fly it, scaled by dt and the scene. */
  setFlyKeys(k) {
    this.flyKeys = { ...this.flyKeys, ...k };
    this.wake();
  }
  flySpeed() {
    const base = Math.min(3000, Math.max(4, this.sceneExtentM * 0.12));
    return base * (this.flyKeys.fast ? 4 : 1);
  }
  flyStep(dt) {
    const k = this.flyKeys;
    if (!dt || !(k.forward || k.right || k.up) || !this.renderer) return;
    if (this.renderer.cameraMode() !== 'free') return;
    const v = this.flySpeed() * dt;
    this.renderer.fly(k.forward * v, k.right * v, k.up * v);
  }

  /**
   * Callsign labels (DOM text over the canvas): at most MAX_LABELS, chosen among the renderer's
   * nearest visible entities (`labelsNear`), the selected and followed entities always first, then
   * the ones shown last frame (stable: a label does not flicker between neighbours), then the rest
   * nearest first; one label per 64×14 px cell. DOM is written only when something changed, and
   * labels move by `transform` only (no layout reads).
   */
  placeLabels() {
    const r = this.renderer;
    const shown = new Set();
    if (this.info && this.firstFrameShown) {
      const L = r.labelsNear(LABEL_CANDIDATES);
      const cells = this.labelCells;
      cells.clear();
      const place = (id, x, y) => {
        if (shown.has(id) || shown.size >= MAX_LABELS) return;
        const name = this.entityNames.get(id);
        if (name === undefined) return;
        const cell = Math.floor(x / 64) * 65536 + Math.floor(y / 14);
        if (cells.has(cell)) return;
        cells.add(cell);
        shown.add(id);
        this.showLabel(id, name, x, y);
      };
      for (const id of [this.selected, this.followId]) {
        if (id < 0 || shown.has(id)) continue;
        const p = r.labelOf(id);
        if (p.length === 4 && p[3] === 1) place(id, p[1], p[2]);
      }
      const prev = this.labelsShown;
      for (let i = 0; i + 3 < L.length; i += 4) if (prev.has(L[i])) place(L[i], L[i + 1], L[i + 2]);
      for (let i = 0; i + 3 < L.length && shown.size < MAX_LABELS; i += 4) place(L[i], L[i + 1], L[i + 2]);
    }
    for (const id of this.labelsShown) {
      if (shown.has(id)) continue;
      const el = this.labelPool.get(id);
      if (el && !el.hidden) el.hidden = true;
    }
    this.labelsShown = shown;
    if (this.labelPool.size > LABEL_POOL) {
      for (const [id, el] of this.labelPool) {
        if (this.labelPool.size <= LABEL_POOL) break;
        if (shown.has(id)) continue;
        el.remove();
        this.labelPool.delete(id);
      }
    }
  }

  /** Shows (creating or reusing) the label of `id` at CSS (x, y); touches only what changed. */
  showLabel(id, name, x, y) {
    let el = this.labelPool.get(id);
    if (!el) {
      el = document.createElement('div');
      el.className = 'rp-label';
      const nameEl = document.createElement('span');
      nameEl.className = 'rp-name';
      const hp = document.createElement('span');
      hp.className = 'rp-hp';
      const fill = document.createElement('span');
      fill.className = 'rp-hp-fill';
      hp.append(fill);
      el.append(nameEl, hp);
      el.rpName = nameEl;
      el.rpText = null;
      el.rpFill = fill;
      el.rpHp = -1;
      el.rpBand = '';
      el.rpX = NaN;
      el.rpY = NaN;
      el.rpSel = false;
      el.rpDead = false;
      this.labelLayer.append(el);
      this.labelPool.set(id, el);
    }
    if (el.rpText !== name) {
      el.rpText = name;
      el.rpName.textContent = name;
    }
    if (el.hidden) el.hidden = false;
    const sel = id === this.selected;
    if (el.rpSel !== sel) {
      el.rpSel = sel;
      el.classList.toggle('selected', sel);
    }
    const f = this.cur?.frame;
    const k = f ? findEntity(f, id) : -1;
    if (k >= 0) {
      const hp = Math.round(Math.min(100, Math.max(0, f[k + F_HEALTH] / 100)));
      const dead = (f[k + F_FLAGS] & 1) !== 1;
      if (dead !== el.rpDead) {
        el.rpDead = dead;
        el.classList.toggle('dead', dead);
      }
      if (hp !== el.rpHp) {
        el.rpHp = hp;
        el.rpFill.style.transform = `scaleX(${hp / 100})`;
        const band = hp < 30 ? 'low' : hp < 65 ? 'mid' : '';
        if (band !== el.rpBand) {
          if (el.rpBand) el.rpFill.classList.remove(el.rpBand);
          if (band) el.rpFill.classList.add(band);
          el.rpBand = band;
        }
      }
    }
    const rx = Math.round(x);
    const ry = Math.round(y);
    if (rx !== el.rpX || ry !== el.rpY) {
      el.rpX = rx;
      el.rpY = ry;
      el.style.transform = `translate(${rx}px, ${ry}px)`;
    }
  }

  // ------------------------------------------------------------ controls

  get duration() {
    if (!this.info) return 0;
    return Math.max(0, (this.lastTick - this.firstTick) / this.tickRate);
  }
  /** Playback time in seconds: the state machine's clock. */
  get time() {
    return this.pb.time;
  }
  get currentTime() {
    return this.pb.time;
  }
  set currentTime(t) {
    this.seek(t);
  }
  get playing() {
    return this.pb.moving;
  }
  get paused() {
    return !this.pb.moving;
  }
  get ended() {
    return this.pb.ended;
  }
  get speed() {
    return this.pb.speed;
  }
  get playbackState() {
    return this.pb.state;
  }
  get killCamActive() {
    return this.pb.killCam !== null;
  }
  get tick() {
    return this.info ? this.currentTickInt() : 0;
  }

  snap() {
    return { state: this.pb.state, moving: this.pb.moving, speed: this.pb.speed, kc: this.pb.killCam };
  }

  /** Emits what a transition changed (play/pause, ratechange, statechange) and ends a kill cam's
   *  camera when the state machine ended the kill cam. */
  afterChange(before) {
    const pb = this.pb;
    if (before.kc && pb.killCam !== before.kc && !pb.killCam) this.onKillCamEnded(before.kc);
    if (before.moving !== pb.moving) this.emit(pb.moving ? 'play' : 'pause');
    if (before.speed !== pb.speed) this.emit('ratechange', pb.speed);
    if (before.state !== pb.state || before.kc !== pb.killCam) this.emit('statechange', this.playbackStatus());
  }

  cmd(fn) {
    if (!this.info) return undefined;
    const before = this.snap();
    let out;
    try {
      out = fn(this.pb);
    } finally {
      this.afterChange(before);
    }
    return out;
  }

  /** Forward at the current speed (from the start when Stopped or at the end). */
  play() {
    if (!this.info) return;
    if (this.pb.moving && this.pb.direction > 0) return;
    if (this.pb.state === State.Stopped || this.time >= this.duration) this.seek(0);
    this.lastFrameTs = 0;
    this.cmd((pb) => pb.play());
    this.updateWant(true);
  }
  pause() {
    this.cmd((pb) => pb.pause());
  }
  /** Pause, or resume in the direction it was paused in (from the start when Stopped/at the end). */
  toggle() {
    if (!this.info) return;
    if (this.pb.moving) {
      this.pause();
      return;
    }
    if (this.pb.state === State.Stopped || (this.pb.resumeDir > 0 && this.time >= this.duration)) {
      this.play();
      return;
    }
    this.lastFrameTs = 0;
    this.cmd((pb) => pb.resume());
    this.updateWant(true);
  }
  /** StopPlayback: Stopped at time 0. */
  stop() {
    if (!this.info) return Promise.resolve(0);
    this.cmd((pb) => pb.stop());
    return this.jumped();
  }
  /** Plays backwards at the current speed (Rewinding); Paused at 0 when it gets there. */
  rewind() {
    if (!this.info) return;
    this.lastFrameTs = 0;
    this.cmd((pb) => pb.rewind());
    try {
      this.renderer?.clearTrails();
    } catch {
      /* ignore */
    }
    this.updateWant(true);
  }
  /** Forward at `speed` (> 1; default max(2, current)). */
  fastForward(speed) {
    if (!this.info) return;
    if (this.pb.state === State.Stopped || this.time >= this.duration) this.seek(0);
    this.lastFrameTs = 0;
    try {
      this.cmd((pb) => pb.fastForward(speed));
    } catch (e) {
      console.warn(e.message);
    }
    this.updateWant(true);
  }

  /** Seeks to `t` seconds (clamped to [0, duration]); resolves when the frame there is decoded. */
  seek(t) {
    if (!this.info) return Promise.resolve(0);
    this.lastSeekDir = Number(t) < this.pb.time ? -1 : 1;
    this.cmd((pb) => pb.seek(t));
    return this.jumped();
  }

  /**
   * A hint that the user may seek to `t` seconds soon (the pointer over the timeline, a kill row):
   * the worker reads that moment's chunk and, paused, positions its decoder there, so that the
   * seek neither reads nor decompresses (docs/worker-protocol.md `prefetch`). Sent once the pointer
   * has stayed HINT_DELAY_MS on a tick (a sweep over a file on a server fetches nothing on its
   * way); nothing when the frames there are already held.
   */
  prefetch(t) {
    if (!this.info || !Number.isFinite(t)) return;
    // The pointer is over the timeline: a click may follow. A resting page's first frame runs at
    // once and would hold the seek's piece behind it (~5 ms here), so the loop stays awake.
    this.wake();
    this.stayAwake();
    this.hint(t);
  }

  /** The tick at `t` seconds, clamped to the recording. */
  tickAtTime(t) {
    return Math.min(
      this.lastTick,
      Math.max(this.firstTick, Math.floor(this.firstTick + Math.max(0, t) * this.tickRate + 1e-6)),
    );
  }

  /**
   * Sends the `prefetch` hint for `t` after HINT_DELAY_MS (a newer hint or a seek cancels it).
   * Paused, it also names the moments the next seek most likely goes to from the playhead
   * (`likelyTicks()`), whose chunks the worker reads once it is done with `t`'s. `keep`: the worker
   * must not move the decoder the page plays from for it (only a spare one, or none).
   */
  hint(t, { keep = false } = {}) {
    const tick = this.tickAtTime(t);
    const sid = this.sessionId;
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(() => {
      this.hintTimer = 0;
      if (!this.info || sid !== this.sessionId) return;
      const paused = !this.pb.moving;
      const warm = tick !== this.prefetched && !this.pieceAt(tick);
      const reads = paused ? this.likelyTicks().filter((k) => k !== tick && !this.pieceAt(k)) : [];
      if (!warm && !reads.length) return;
      this.prefetched = tick;
      this.hintsSent++;
      this.client.notify('prefetch', {
        session: this.sessionId,
        tick: warm ? tick : null,
        decode: paused,
        reads,
        keep,
      });
    }, HINT_DELAY_MS);
  }

  /** A hint is waiting for its delay (tests: with the worker's stats, whether hints are done). */
  get hintWaiting() {
    return this.hintTimer !== 0;
  }

  /**
   * A seek landed while paused: the worker gets the seeks most likely to follow ready. The next
   * ← / → step the way the seek went (5 s) is decompressed in its spare decoder (a `.flrep` has
   * one), so that a first → after a seek resumes there; the others' chunks (the other way, [ / ]:
   * `likelyTicks()`) are read, so that they do not wait for the file (on a server, a round trip).
   * The decoder the page plays from stays where the seek left it (`keep`): playing on, the
   * likeliest next step, resumes there without decompressing again. A key's own hint
   * (keyboard.js: where the same key goes next) replaces this one.
   */
  hintLanding() {
    if (!this.info || this.pb.moving || this.pb.killCam) return;
    const t = this.time + this.lastSeekDir * SEEK_STEP_S;
    if (t >= 0 && t <= this.duration) this.hint(t, { keep: true });
    else this.hint(this.time, { keep: true });
  }

  /** From the playhead, paused: ← / → and [ / ]'s targets (ticks), most likely first. */
  likelyTicks() {
    const t = this.time;
    const d = this.lastSeekDir;
    const out = [];
    for (const x of [t + d * SEEK_STEP_S, t - d * SEEK_STEP_S, this.killStart(d), this.killStart(-d)]) {
      if (x === null || !(x >= 0) || x > this.duration) continue;
      const k = this.tickAtTime(x);
      if (!out.includes(k)) out.push(k);
    }
    return out;
  }

  /**
   * The time [ (`dir` −1) or ] (1) seeks to from `now`: the previous / next kill's viewing point
   * (KILL_LEAD_S before it), or null when there is none that way. ] goes to the first viewing point
   * after `now`; [ to the last one more than half a second before it (so that [ pressed just after
   * ] goes back a kill, not to the start of the one being watched).
   */
  killStart(dir, now = this.currentTime) {
    const kills = this.kills;
    if (dir > 0) {
      for (const k of kills) {
        const s = Math.max(0, this.killTime(k) - KILL_LEAD_S);
        if (s > now + 0.05) return s;
      }
    } else {
      for (let i = kills.length - 1; i >= 0; i--) {
        const s = Math.max(0, this.killTime(kills[i]) - KILL_LEAD_S);
        if (s < now - 0.5) return s;
      }
    }
    return null;
  }

  /** A seek (or another jump of the clock) waits for the frame at its time: 'seeked' ends it. */
  get seekPending() {
    return Boolean(this.pendingSeek);
  }

  /**
   * Whether the page's own changes for a seek (clock, timeline, panels) should wait for its frame:
   * a page frame drawn while the worker reads and decodes competes with it for the CPU and holds
   * the piece's message behind it. At most `seekShowMs` from the seek (a remote file's seek shows
   * its time then); docs/playback.md, "A seek's page changes wait for its frame".
   */
  get pageWaitsForSeek() {
    return this.seekPending && performance.now() - this.seekStartedAt < this.seekShowMs;
  }

  /** Bookkeeping after the clock jumped (seek, stop, kill cam start): pieces, events, promise. */
  jumped() {
    const target = this.time;
    this.lastFlashTime = target;
    const prev = this.pendingSeek;
    // A seek still unanswered keeps its start: the page waits at most seekShowMs from there.
    if (!prev) this.seekStartedAt = performance.now();
    const p = new Promise((resolve) => {
      this.pendingSeek = (v) => {
        prev?.(v);
        resolve(v);
      };
    });
    // The worker first (it has the longest way to go), then the page's listeners, which see
    // `seekPending` and leave their changes for the seek's frame.
    this.prunePieces();
    this.updateWant(true);
    this.emit('seeking', target);
    this.emit('timeupdate', target);
    // The seek moved the worker's decoder: a hint there again is worth sending; one still waiting
    // for its delay is for where the page was (the seek's landing sends the next).
    this.prefetched = -1;
    clearTimeout(this.hintTimer);
    this.hintTimer = 0;
    this.checkSeeked();
    return p;
  }

  seekTick(tick) {
    if (!this.info) return Promise.resolve(0);
    return this.seek((tick - this.firstTick) / this.tickRate);
  }

  /** Steps `n` ticks from the current tick (pauses). */
  step(n) {
    if (!this.info) return Promise.resolve(0);
    this.pause();
    const tick = Math.min(this.lastTick, Math.max(this.firstTick, this.currentTickInt() + n));
    return this.seekTick(tick);
  }

  /** A positive multiplier (0.25–16); anything else is ignored. Ends a kill cam. */
  setSpeed(s) {
    const v = Number(s);
    if (!(v > 0) || !Number.isFinite(v)) return;
    if (!this.info) {
      this.pb.speed = v;
      this.emit('ratechange', v);
      return;
    }
    this.cmd((pb) => pb.setSpeed(v));
    this.updateWant();
  }

  // ------------------------------------------------------------ kill cam

  /** The kill nearest to the playhead (ties: the upcoming one), or null. */
  nearestKill(tick = this.tick) {
    if (!this.kills.length) return null;
    const i = lastAtOrBefore(this.killTicks, tick);
    const before = i >= 0 ? this.kills[i] : null;
    const after = i + 1 < this.kills.length ? this.kills[i + 1] : null;
    if (!before) return after;
    if (!after) return before;
    return tick - before.tick < after.tick - tick ? before : after;
  }

  /**
   * Kill cam on `kill`: seeks `rewind` seconds before it (default 5, `killCamRewind`), plays at
   * 0.5× with the renderer's kill camera (killer → victim, following the victim), pauses exactly on
   * the kill's tick, holds there briefly, then restores the camera mode it started from at 1×.
   */
  startKillCam(kill = this.nearestKill(), { rewind = this.killCamRewind } = {}) {
    if (!this.info || !kill) return null;
    const r = this.renderer;
    const restore = this.pb.killCam?.data ?? {
      mode: this.cameraMode() === 'kill' ? 'orbit' : this.cameraMode(),
      follow: this.followId,
      selected: this.selected,
    };
    const t = this.killTime(kill);
    this.killCamKill = kill;
    this.lastFrameTs = 0;
    this.cmd((pb) => pb.startKillCam(t, { rewind, data: restore }));
    try {
      r?.setSelected(kill.victim);
      r?.follow(kill.victim);
      r?.killCam(kill.killer, kill.victim);
    } catch (e) {
      console.warn(e);
    }
    this.jumped();
    this.emit('killcam', { active: true, holding: false, kill });
    this.emit('cameramode', this.cameraMode());
    return kill;
  }

  /** Ends the kill cam now (Paused where it is, 1×, camera restored). */
  stopKillCam() {
    this.cmd((pb) => pb.stopKillCam());
  }

  onKillCamEnded(kc) {
    const d = kc.data ?? {};
    const r = this.renderer;
    this.killCamKill = null;
    if (r) {
      try {
        r.setSelected(d.selected ?? -1);
        r.follow(d.follow ?? -1);
        r.setCameraMode(d.mode ?? 'orbit');
      } catch (e) {
        console.warn(e);
      }
    }
    this.emit('killcam', { active: false, holding: false, kill: null });
    this.emit('cameramode', this.cameraMode());
  }

  // ------------------------------------------------------------ selection and cameras

  select(id, { follow = false } = {}) {
    this.selected = id >= 0 ? id : -1;
    if (this.renderer) {
      this.renderer.setSelected(this.selected);
      if (follow) {
        this.followId = this.selected;
        this.renderer.follow(this.selected);
      }
    }
    this.emit('selection', this.selected);
    if (follow) this.emit('cameramode', this.cameraMode());
  }

  follow(id) {
    this.select(id, { follow: true });
  }

  /**
   * Camera mode: "orbit", "free", "follow", "first" or "kill". "kill" runs the kill cam on the
   * nearest kill; another mode during a kill cam ends it (playback goes on at 1×).
   * "follow"/"first" with nothing followed follow the selected entity or the first participant.
   */
  setCameraMode(mode) {
    if (!this.renderer) return;
    if (mode === 'kill') {
      if (!this.startKillCam()) this.emit('cameramode', this.cameraMode());
      return;
    }
    if (this.pb.killCam) {
      const before = this.snap();
      this.pb.endKillCam();
      this.killCamKill = null;
      this.afterChange({ ...before, kc: null });
      this.emit('killcam', { active: false, holding: false, kill: null });
    }
    try {
      if ((mode === 'follow' || mode === 'first') && this.followId < 0) {
        const id =
          this.selected >= 0
            ? this.selected
            : (this.info?.info.participants.find((x) => x.entity !== NO_ENTITY)?.entity ?? -1);
        if (id >= 0) this.select(id, { follow: true });
      }
      this.renderer.setCameraMode(mode);
    } catch (e) {
      console.warn(e);
    }
    this.emit('cameramode', this.cameraMode());
  }
  cameraMode() {
    return this.renderer ? this.renderer.cameraMode() : 'orbit';
  }
  resetCamera() {
    if (!this.renderer) return;
    if (this.pb.killCam) this.setCameraMode('orbit');
    this.followId = -1;
    this.renderer.follow(-1);
    this.renderer.resetCamera();
    this.emit('cameramode', this.cameraMode());
  }

  /** Console_GetStatus for the status panel: the state machine's readout with the camera. */
  playbackStatus() {
    this.pb.camera = this.cameraMode();
    return { ...this.pb.statusFields(), text: this.pb.status() };
  }

  // ------------------------------------------------------------ names

  entityName(id) {
    const n = this.entityNames.get(id);
    if (n) return n;
    const t = this.entityTypes.get(id);
    if (t !== undefined) {
      const name = this.typeName(t);
      if (name) return `${name} #${id}`;
    }
    return `#${id}`;
  }
  typeName(index) {
    const t = this.info?.info.entity_types.find((e) => e.index === index);
    return t ? t.display_name || t.id : '';
  }
  weaponName(index) {
    if (index === NO_WEAPON) return 'unknown weapon';
    return this.typeName(index) || `weapon ${index}`;
  }
  killText(k) {
    return `${this.entityName(k.killer)} → ${this.entityName(k.victim)} (${this.weaponName(k.weapon_type)})`;
  }
  killTime(k) {
    return (k.tick - this.firstTick) / this.tickRate;
  }
  entityFactionOf(id) {
    return this.entityFaction.get(id);
  }

  /** Alive flag (flags bit 0) of each entity in the current frame. */
  aliveNow() {
    const a = this.info ? this.frameAt(this.currentTickInt()) : null;
    const out = new Map();
    if (!a) return out;
    for (let k = 0; k + STRIDE <= a.frame.length; k += STRIDE) {
      out.set(a.frame[k + F_ID] >>> 0, (a.frame[k + F_FLAGS] & 1) === 1);
    }
    return out;
  }

  /** A snapshot for tests and diagnostics. */
  state() {
    return {
      loaded: this.loaded,
      ready: this.readyEmitted,
      name: this.sourceName ?? '',
      backend: this.backend,
      rendererBuild: this.rendererBuild ?? '',
      renderInWorker: !!this.renderInWorker,
      time: this.time,
      tick: this.tick,
      duration: this.duration,
      playing: this.playing,
      ended: this.ended,
      buffering: this.buffering,
      speed: this.speed,
      playbackState: this.pb.state,
      killCam: this.pb.killCam !== null,
      killCamHolding: this.pb.killCam?.phase === 'hold',
      killCamKill: this.killCamKill
        ? { tick: this.killCamKill.tick, killer: this.killCamKill.killer, victim: this.killCamKill.victim }
        : null,
      cameraMode: this.cameraMode(),
      followed: this.followId,
      events: this.events.length,
      eventKinds: this.events.reduce((m, e) => {
        const k = e.kind === 'custom' ? e.type : e.kind;
        m[k] = (m[k] ?? 0) + 1;
        return m;
      }, {}),
      status: this.info ? this.playbackStatus().text : '',
      markers: this.kills.length,
      killFeed: this.kills.map((k) => ({
        tick: k.tick,
        time: this.killTime(k),
        killer: k.killer,
        victim: k.victim,
        text: this.killText(k),
      })),
      chunksHeld: [...new Set(this.pieces.map((p) => p.chunk))].sort((a, b) => a - b),
      pieces: this.pieces.map((p) => ({
        chunk: p.chunk,
        from: p.from,
        end: p.end,
        stride: p.stride,
        ticks: p.ticks.length,
        states: p.offsets[p.offsets.length - 1] ?? 0,
      })),
      heldBytes: this.heldBytes(),
      selected: this.selected,
      error: this.error,
      info: this.info,
      workerRestarts: this.client.restarts,
    };
  }

  async workerStats() {
    return this.client.call('stats', {});
  }

  /**
   * Measurement hook (tests/bench/): the last frames' main-thread ms (`totalMs`: the whole
   * requestAnimationFrame callback; `renderMs`: the renderer's CPU ms in render(), part of it;
   * the renderer's own work in the frame: `timeMs` in setTime (before render()) and `buildMs` in
   * its scene building (inside render(); the rest of render() is wgpu's)),
   * oldest first, since the first frame with entities or the last reset; `chunks`: timings of the
   * pieces received (worker read/decode/extract/copy, transit, page handling, ms); the renderer's
   * wasm memory. `reset` empties the buffers after reading them.
   */
  perf({ reset = false } = {}) {
    const n = Math.min(this.perfN, PERF_FRAMES);
    const start = this.perfN - n;
    const totalMs = [];
    const renderMs = [];
    const timeMs = [];
    const buildMs = [];
    for (let j = start; j < this.perfN; j++) {
      totalMs.push(this.perfTotal[j % PERF_FRAMES]);
      renderMs.push(this.perfRender[j % PERF_FRAMES]);
      timeMs.push(this.perfTime[j % PERF_FRAMES]);
      buildMs.push(this.perfBuild[j % PERF_FRAMES]);
    }
    const out = {
      frames: n,
      totalMs,
      renderMs,
      timeMs,
      buildMs,
      chunks: this.perfChunks.slice(),
      rendererWasmBytes: this.renderer?.wasmBytes() ?? 0,
      renderInWorker: !!this.renderInWorker,
      renderStats: this.renderer?.stats ? { ...this.renderer.stats } : null,
    };
    if (reset) {
      this.perfN = 0;
      this.perfChunks = [];
      if (this.renderer?.stats) this.renderer.stats = { posted: 0, drawn: 0, skipped: 0, idle: 0 };
    }
    return out;
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    cancelAnimationFrame(this.raf);
    clearTimeout(this.restTimer);
    clearTimeout(this.hintTimer);
    this.ro.disconnect();
    this.dprQuery?.q.removeEventListener('change', this.dprQuery.onChange);
    this.element.removeEventListener('pointerdown', this.onPointerDown);
    this.element.removeEventListener('pointermove', this.onPointerMove);
    this.element.removeEventListener('pointerup', this.onPointerUp);
    this.element.removeEventListener('pointercancel', this.onPointerUp);
    this.element.removeEventListener('wheel', this.onWheel);
    this.client.terminate();
    try {
      this.renderer?.free();
    } catch {
      /* ignore */
    }
    this.renderer = null;
    this.canvas.remove();
    this.labelLayer.remove();
    this.listeners.clear();
  }
}

/**
 * Creates a player on `element` (a positioned container the canvas fills) and, when `src` is
 * given (File/Blob or URL string), starts loading it.
 * @param {File|Blob|string|null} src
 * @param {HTMLElement} element
 * @param {{forceWebgl?: boolean, autoplay?: boolean, renderInPage?: boolean}} [opts] renderInPage: draw on the page instead of in a render worker
 */
export function create(src, element, opts = {}) {
  const p = new Player(element, opts);
  if (src) p.load(src);
  return p;
}
