// The player facade: one replay on one canvas. The embed API grows from this.
//
//   import { create } from './player.js';
//   const p = create(srcOrNull, stageElement, { forceWebgl, autoplay });
//   p.on('ready', (info) => ...); p.play(); p.seek(12.5); p.currentTime; p.duration;
//   p.load(fileOrUrl); p.dispose();
//
// Events: loadstart {name}, progress {phase, loaded, total}, ready (info), play, pause, seeking,
// seeked, timeupdate, ended, error {message}, markers (kill list), selection (id), backend (name).
// Decoding happens in the worker (worker.js); this module never imports the decoder wasm.
import { WorkerClient } from './worker-client.js';
import { createRenderer } from './renderer-loader.js';

export const STRIDE = 16;
const F_ID = 0;
const F_TYPE = 1;
const F_FACTION = 2;
const F_FLAGS = 14;
export const NO_ENTITY = 4294967295;
export const NO_WEAPON = 65535;
export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16];

/** Faction colours (Okabe–Ito), the renderer's palette; index modulo 7. */
export const FACTION_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442'];
export function factionColour(i) {
  const n = FACTION_COLOURS.length;
  return FACTION_COLOURS[((i % n) + n) % n];
}

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

    this.client = new WorkerClient({
      onPush: (m) => this.onPush(m),
      onFatal: (message) => this.onWorkerCrash(message),
    });

    this.renderer = null;
    this.backend = '';
    this.rendererReady = this.initRenderer();

    this.sessionId = 0;
    this.speed = 1;
    this.resetSession();

    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(element);
    this.dprQuery = null;
    this.watchDpr();
    this.bindPointer();

    this.lastFrameTs = 0;
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
      const r = await createRenderer(this.canvas, { forceWebgl: !!this.opts.forceWebgl });
      if (r.canvas && r.canvas !== this.canvas) this.canvas = r.canvas;
      this.renderer = r.renderer;
      this.backend = r.backend;
      this.rendererBuild = r.build;
      this.resize();
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
        const id = this.renderer.pick(x, y);
        this.select(id, { follow: id >= 0 });
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
    this.chunkFirstTicks = [];
    this.chunks = new Map();
    this.wantKey = '';
    this.gen = 0;
    this.time = 0;
    this.playing = false;
    this.ended = false;
    this.buffering = false;
    this.pendingSeek = null;
    this.kills = [];
    this.killKeys = new Set();
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
  }

  /** Opens a File/Blob, or a URL (string). The previous replay is disposed. */
  async load(src) {
    if (this.disposed) return;
    const sid = ++this.sessionId;
    if (this.info) this.client.notify('close', {});
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
    this.info = info;
    const i = info.info;
    this.tickRate = i.tick_rate_hz || 1;
    this.firstTick = i.first_tick;
    this.lastTick = i.last_tick;
    this.chunkFirstTicks = info.chunks.map((c) => c.firstTick);
    for (const p of i.participants) {
      this.participantsById.set(p.id, p);
      if (p.entity !== NO_ENTITY) {
        this.entityNames.set(p.entity, p.callsign);
        this.entityFaction.set(p.entity, p.faction);
      }
    }
    this.addKills(info.markers ?? []);
    this.loaded = true;
    this.applyWorld();
    this.updateWant(true);
    this.emit('info', info);
  }

  onPush(m) {
    if (m.type === 'progress') {
      if (m.session === this.sessionId) this.emit('progress', m);
      return;
    }
    if (m.type === 'error') {
      if (m.session === undefined || m.session === this.sessionId) this.fail(m.message);
      return;
    }
    if (m.type === 'chunk') {
      if (m.session !== this.sessionId || !this.info) return;
      const cur = this.chunkIndexForTick(this.currentTickInt());
      // Stale: an answer to a superseded request for a chunk no longer near the playhead.
      if (m.gen < this.gen && (m.index < cur - 1 || m.index > cur + 3)) return;
      this.chunks.set(m.index, m);
      this.learnFromChunk(m);
      this.pruneChunks(cur);
      this.checkSeeked();
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
    // Entity types (for names of entities without callsigns) from the chunk's first tick.
    const end = c.offsets.length > 1 ? c.offsets[1] : 0;
    for (let k = 0; k < end; k++) {
      const id = c.entities[k * STRIDE + F_ID] >>> 0;
      if (!this.entityTypes.has(id)) this.entityTypes.set(id, c.entities[k * STRIDE + F_TYPE]);
    }
    this.addKills(c.events.filter((e) => e.kind === 'kill'));
  }

  addKills(events) {
    let added = false;
    for (const e of events) {
      if (e.kind !== 'kill') continue;
      const key = `${e.tick}:${e.killer}:${e.victim}`;
      if (this.killKeys.has(key)) continue;
      this.killKeys.add(key);
      this.kills.push(e);
      added = true;
    }
    if (added) {
      this.kills.sort((a, b) => a.tick - b.tick);
      this.killTicks = this.kills.map((k) => k.tick);
      this.emit('markers', this.kills);
    }
  }

  onWorkerCrash(message) {
    const sid = this.sessionId;
    this.loaded = false;
    this.playing = false;
    this.fail(`The decoder crashed (${message}). Open the file again, or another one.`);
    this.sessionId = sid + 1; // ignore anything still in flight for the dead worker
  }

  fail(message) {
    this.error = message;
    this.emit('error', { message });
  }

  // ------------------------------------------------------------ chunks and frames

  chunkIndexForTick(tick) {
    return Math.max(0, lastAtOrBefore(this.chunkFirstTicks, tick));
  }

  currentTickFloat() {
    return this.firstTick + this.time * this.tickRate;
  }
  currentTickInt() {
    if (!this.info) return 0;
    return Math.min(this.lastTick, Math.floor(this.currentTickFloat() + 1e-6));
  }

  /** Chunks the page wants posted: the playhead's and the next ones not held yet. */
  updateWant(force = false) {
    if (!this.info) return;
    const n = this.chunkFirstTicks.length;
    const cur = this.chunkIndexForTick(this.currentTickInt());
    const ahead = this.playing && this.speed >= 4 ? 3 : 2;
    const list = [];
    for (let k = cur; k < Math.min(n, cur + ahead); k++) if (!this.chunks.has(k)) list.push(k);
    // Re-ask only when the window moves (or on a seek): requests already sent are in flight.
    const key = `${cur}:${ahead}`;
    if (!force && key === this.wantKey) return;
    this.wantKey = key;
    // Sent even when empty: it clears whatever the worker still had queued.
    this.gen++;
    this.client.notify('want', { session: this.sessionId, gen: this.gen, chunks: list });
  }

  pruneChunks(cur) {
    for (const k of this.chunks.keys()) {
      if (k < cur - 1 || k > cur + 3) this.chunks.delete(k);
    }
  }

  /** Frame at or before integer tick: {tick, t, frame, key} or null when not decoded yet. */
  frameAt(tick) {
    const ci = this.chunkIndexForTick(tick);
    const c = this.chunks.get(ci);
    if (!c) return null;
    let i = lastAtOrBefore(c.ticks, tick);
    if (i < 0) i = 0;
    return this.frameOf(c, ci, i);
  }

  frameOf(c, ci, i) {
    const a = c.offsets[i] * STRIDE;
    const b = c.offsets[i + 1] * STRIDE;
    const tick = c.ticks[i];
    return { tick, t: (tick - this.firstTick) / this.tickRate, frame: c.entities.subarray(a, b), key: `${ci}:${i}`, ci, i };
  }

  nextFrame(f) {
    const c = this.chunks.get(f.ci);
    if (c && f.i + 1 < c.ticks.length) return this.frameOf(c, f.ci, f.i + 1);
    const n = this.chunks.get(f.ci + 1);
    if (n && n.ticks.length) return this.frameOf(n, f.ci + 1, 0);
    return null;
  }

  frameAvailable(time) {
    if (!this.info) return false;
    const tick = Math.min(this.lastTick, Math.floor(this.firstTick + time * this.tickRate + 1e-6));
    return this.chunks.has(this.chunkIndexForTick(tick));
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
    }
  }

  // ------------------------------------------------------------ the loop

  frame(ts) {
    if (this.disposed) return;
    this.raf = requestAnimationFrame((t) => this.frame(t));
    const dt = this.lastFrameTs ? Math.min(0.25, (ts - this.lastFrameTs) / 1000) : 0;
    this.lastFrameTs = ts;
    if (this.info && this.playing) this.advance(dt);
    const r = this.renderer;
    if (!r) return;
    try {
      if (this.info) {
        const tick = this.currentTickInt();
        const a = this.frameAt(tick);
        if (a) {
          const b = this.nextFrame(a) ?? a;
          if (a.key !== this.lastA || b.key !== this.lastB) {
            r.setFrames(a.frame, a.t, b.frame, b.key === a.key ? a.t : b.t);
            this.lastA = a.key;
            this.lastB = b.key;
          }
          r.setTime(Math.max(a.t, this.time));
          if (this.fitPending) {
            r.render();
            r.resetCamera();
            this.fitPending = false;
          }
          this.firstFrameShown = true;
        }
      }
      r.render();
      this.placeLabels();
    } catch (e) {
      this.renderFailures = (this.renderFailures ?? 0) + 1;
      if (this.renderFailures === 1) this.fail(`Drawing failed: ${e?.message ?? e}`);
    }
  }

  advance(dt) {
    const duration = this.duration;
    let next = this.time + dt * this.speed;
    if (next >= duration) next = duration;
    if (!this.frameAvailable(next)) {
      this.buffering = true;
      this.updateWant();
      return;
    }
    this.buffering = false;
    const prev = this.time;
    this.time = next;
    this.flashKills(prev, next);
    this.updateWant();
    this.emit('timeupdate', this.time);
    if (next >= duration) {
      this.playing = false;
      this.ended = true;
      this.emit('pause');
      this.emit('ended');
    }
  }

  flashKills(prev, now) {
    if (!this.kills.length || !this.renderer || now <= prev || now - prev > 2) return;
    const t0 = this.firstTick + prev * this.tickRate;
    const t1 = this.firstTick + now * this.tickRate;
    for (let i = lastAtOrBefore(this.killTicks, t0) + 1; i < this.kills.length && this.kills[i].tick <= t1; i++) {
      try {
        this.renderer.flash(this.kills[i].victim);
      } catch {
        /* unknown id: no-op */
      }
      this.emit('kill', this.kills[i]);
    }
  }

  placeLabels() {
    const r = this.renderer;
    const seen = new Set();
    if (this.info && this.firstFrameShown) {
      const L = r.labels();
      // Declutter: one label per 64x14 px cell, the selected entity's first.
      const cells = new Set();
      const order = [];
      for (let i = 0; i + 3 < L.length; i += 4) {
        if (L[i + 3] === 1 && this.entityNames.has(L[i])) order.push(i);
      }
      order.sort((x, y) => (L[y] === this.selected) - (L[x] === this.selected));
      for (const i of order) {
        const id = L[i];
        const name = this.entityNames.get(id);
        const cell = `${Math.floor(L[i + 1] / 64)}:${Math.floor(L[i + 2] / 14)}`;
        if (cells.has(cell)) continue;
        cells.add(cell);
        let el = this.labelPool.get(id);
        if (!el) {
          el = document.createElement('div');
          el.className = 'rp-label';
          el.textContent = name;
          this.labelLayer.append(el);
          this.labelPool.set(id, el);
        } else if (el.textContent !== name) {
          el.textContent = name;
        }
        el.hidden = false;
        el.classList.toggle('selected', id === this.selected);
        el.style.transform = `translate(${Math.round(L[i + 1])}px, ${Math.round(L[i + 2])}px)`;
        seen.add(id);
      }
    }
    for (const [id, el] of this.labelPool) {
      if (!seen.has(id)) {
        if (this.labelPool.size > 256) {
          el.remove();
          this.labelPool.delete(id);
        } else {
          el.hidden = true;
        }
      }
    }
  }

  // ------------------------------------------------------------ controls

  get duration() {
    if (!this.info) return 0;
    return Math.max(0, (this.lastTick - this.firstTick) / this.tickRate);
  }
  get currentTime() {
    return this.time;
  }
  set currentTime(t) {
    this.seek(t);
  }
  get paused() {
    return !this.playing;
  }
  get tick() {
    return this.info ? this.currentTickInt() : 0;
  }

  play() {
    if (!this.info || this.playing) return;
    if (this.time >= this.duration) this.seek(0);
    this.playing = true;
    this.ended = false;
    this.lastFrameTs = 0;
    this.emit('play');
  }
  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.emit('pause');
  }
  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /** Seeks to `t` seconds; resolves when the frame there is decoded. */
  seek(t) {
    if (!this.info) return Promise.resolve(0);
    const target = Math.min(this.duration, Math.max(0, Number.isFinite(t) ? t : 0));
    this.time = target;
    this.ended = false;
    this.lastFlashTime = target;
    this.emit('seeking', target);
    this.emit('timeupdate', target);
    const prev = this.pendingSeek;
    const p = new Promise((resolve) => {
      this.pendingSeek = (v) => {
        prev?.(v);
        resolve(v);
      };
    });
    this.pruneChunks(this.chunkIndexForTick(this.currentTickInt()));
    this.updateWant(true);
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

  setSpeed(s) {
    const v = Number(s);
    if (!(v > 0)) return;
    this.speed = v;
    this.emit('ratechange', v);
  }

  select(id, { follow = false } = {}) {
    this.selected = id >= 0 ? id : -1;
    if (this.renderer) {
      this.renderer.setSelected(this.selected);
      if (follow) this.renderer.follow(this.selected);
    }
    this.emit('selection', this.selected);
  }

  follow(id) {
    this.select(id, { follow: true });
  }

  setCameraMode(mode) {
    if (!this.renderer) return;
    try {
      this.renderer.setCameraMode(mode);
    } catch (e) {
      console.warn(e);
    }
  }
  cameraMode() {
    return this.renderer ? this.renderer.cameraMode() : 'orbit';
  }
  resetCamera() {
    if (!this.renderer) return;
    this.renderer.follow(-1);
    this.renderer.resetCamera();
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
      time: this.time,
      tick: this.tick,
      duration: this.duration,
      playing: this.playing,
      ended: this.ended,
      buffering: this.buffering,
      speed: this.speed,
      markers: this.kills.length,
      killFeed: this.kills.map((k) => ({ tick: k.tick, time: this.killTime(k), killer: k.killer, victim: k.victim, text: this.killText(k) })),
      chunksHeld: [...this.chunks.keys()],
      selected: this.selected,
      error: this.error,
      info: this.info,
      workerRestarts: this.client.restarts,
    };
  }

  async workerStats() {
    return this.client.call('stats', {});
  }

  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    cancelAnimationFrame(this.raf);
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
 * @param {{forceWebgl?: boolean, autoplay?: boolean}} [opts]
 */
export function create(src, element, opts = {}) {
  const p = new Player(element, opts);
  if (src) p.load(src);
  return p;
}
