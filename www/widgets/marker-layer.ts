// Timeline markers on a <canvas> inside the scrubber: kills on the top row, every other event kind
// as a small shape on the bottom row. Thousands of kills cost one canvas, not one element each.
// Kills fall in fixed BIN_PX-wide bins, one 2 px bar per bin with a 1 px gap between bins (a
// density strip: the bar's height grows with the kills in it; every kill lies within 0.5 px of its
// bar); other events merge per pixel column and kind. The layer draws a time window of the
// recording (`setView`: the timeline's zoom), the whole by default. The canvas is redrawn when the markers change and on resize / devicePixelRatio change,
// never on a time update: the kills near the playhead and the hovered marker are drawn on a second,
// small overlay canvas, redrawn only when that set changes.
//
// Hit-testing: the nearest marker within HIT_PX CSS px of the pointer, on the row under it (the
// kill row above the track, the event row below it). Texts are computed on demand and only ever
// go to a tooltip's textContent (strings come from files).
import { eventKindKey, type Kill } from './events.ts';
import { lowerBound } from '../core/clock.ts';

/** An event the layer draws (kills apart): its kind (eventKindKey()) and `t`, seconds of playback. */
export interface MarkerEvent {
  kind?: unknown;
  type?: unknown;
  t: number;
}
/** A kill bin: its bar's centre `x` (CSS px), its kills `first` … `first + count - 1` (time order). */
export interface KillColumn {
  bin: number;
  x: number;
  first: number;
  count: number;
}
/** An event marker: one per kind and pixel column, `e` the first of its `count` events. */
export interface EventSlot<E extends MarkerEvent = MarkerEvent> {
  x: number;
  e: E;
  kind: string;
  count: number;
}
/** What hitTest() finds: a kill column (`kill`: its first kill) or an event slot. */
export type MarkerHit<K extends Kill = Kill, E extends MarkerEvent = MarkerEvent> =
  | { row: 'kill'; col: KillColumn; slot?: undefined; kill: K; t: number; count: number }
  | { row: 'event'; slot: EventSlot<E>; col?: undefined; event: E; t: number; count: number };

/** createMarkerLayer()'s parts: the positioned box, the two canvases, and where kills and events are. */
export interface MarkerLayerOptions<K extends Kill, E extends MarkerEvent> {
  /** The positioned box the canvases fill. */
  scrubber: HTMLElement;
  /** The marker layer. */
  canvas: HTMLCanvasElement;
  /** Near-the-playhead + hovered markers. */
  overlay: HTMLCanvasElement;
  killTime: (kill: K) => number;
  /** The events other than kills a viewer may see (drawn on the bottom row). */
  events: () => readonly E[];
}

/** The marker layer's inspection (tests): kill markers (one per kill) and event slots, in CSS px. */
export interface MarkerInspection {
  width: number;
  height: number;
  dpr: number;
  kills: { x: number; y: number; t: number; tick: number }[];
  killColumns: number;
  bins: { x0: number; x1: number; count: number; h: number }[];
  view: { from: number; to: number };
  events: { x: number; y: number; t: number; kind: string; count: number }[];
  eventKinds: Record<string, number>;
  near: number;
}

/** The layer's canvas with its hook (test / inspection: `canvas.inspect()`, the markers drawn). */
export interface MarkerCanvas extends HTMLCanvasElement {
  inspect(): MarkerInspection;
}

/** What createMarkerLayer() returns. */
export interface MarkerLayer<K extends Kill = Kill, E extends MarkerEvent = MarkerEvent> {
  setKills(list: readonly K[], d: number): void;
  setEvents(d: number): void;
  addEvents(fresh: Iterable<E>): void;
  setView(from: number, to: number): void;
  clear(): void;
  setNear(t: number, window?: number): void;
  hitTest(x: number, y: number): MarkerHit<K, E> | null;
  setHovered(hit: MarkerHit<K, E> | null): void;
  inspect(): MarkerInspection;
  redraw(): void;
  dispose(): void;
}

type Ctx = CanvasRenderingContext2D;
/** A kind's shape, centred on x in a 9 px tall row at y, in colour `col`. */
type Shape = (c: Ctx, x: number, y: number, col: string) => void;
/** A kill of the layer: its time and its x (CSS px) in the window. */
interface KillMark<K> {
  t: number;
  k: K;
  x: number;
}

/** Geometry of the rows in CSS px, relative to the scrubber's box (see style.css .scrubber). */
export const KILL_TOP = 3;
export const KILL_H = 10;
const KILL_BAND = KILL_TOP + KILL_H + 2; // pointer y below this: the kill row
const EVENT_BOTTOM = 2;
const EVENT_H = 9;
const HIT_PX = 4;
/** Width of a kill bin (CSS px): a 2 px bar and a 1 px gap. */
export const BIN_PX = 3;
/** A bin's bar height: the lowest (one kill, in a strip with more) as a fraction of KILL_H. */
const MIN_BAR = 0.55;
const byX = (c: { x: number }) => c.x;
const byT = (k: { t: number }) => k.t;

// Shapes per kind (the legend draws the same kinds with the CSS classes .ev-*; the colours come
// from the same custom properties, --ev-<kind>). Each draws centred on x, in a 9 px tall row at y0.
const SHAPES: Record<string, Shape> = {
  spawn: (c, x, y, col) => circle(c, x, y + 4, 3, col),
  despawn: (c, x, y, col) => {
    c.beginPath();
    c.arc(x, y + 4, 2.25, 0, Math.PI * 2);
    c.lineWidth = 1.5;
    c.strokeStyle = col;
    c.stroke();
  },
  chat: (c, x, y, col) => rect(c, x - 2.5, y + 1.5, 5, 5, col),
  admin: (c, x, y, col) =>
    poly(c, col, [
      [x, y + 0.5],
      [x + 3.5, y + 4],
      [x, y + 7.5],
      [x - 3.5, y + 4],
    ]),
  alert_level: (c, x, y, col) =>
    poly(c, col, [
      [x, y + 1],
      [x + 3.5, y + 7],
      [x - 3.5, y + 7],
    ]),
  explosion: (c, x, y, col) => {
    const cy = y + 4;
    poly(c, col, [
      [x, cy - 4],
      [x + 1, cy - 1],
      [x + 4, cy],
      [x + 1, cy + 1],
      [x, cy + 4],
      [x - 1, cy + 1],
      [x - 4, cy],
      [x - 1, cy - 1],
    ]);
  },
  pickup: (c, x, y, col) => {
    circle(c, x, y + 4, 4, 'rgba(79, 209, 197, 0.35)');
    circle(c, x, y + 4, 3, col);
  },
  flag_capture: (c, x, y, col) =>
    poly(c, col, [
      [x - 3.5, y],
      [x + 3.5, y + 2.4],
      [x - 2.1, y + 4.4],
      [x - 2.1, y + 8],
      [x - 3.5, y + 8],
    ]),
  objective: (c, x, y, col) => rect(c, x - 3, y + 1, 6, 6, col),
  weapon_switch: (c, x, y, col) => rect(c, x - 1, y + 0.5, 2, 7, col),
  other: (c, x, y, col) => circle(c, x, y + 4, 2, col),
};
const FALLBACK_COLOURS: Record<string, string> = {
  kill: '#ff6b5b',
  spawn: '#3ecf8e',
  despawn: '#8a94a8',
  chat: '#56b4e9',
  admin: '#b48cf2',
  alert_level: '#f0c04a',
  explosion: '#ff8a3d',
  pickup: '#4fd1c5',
  flag_capture: '#f0e442',
  objective: '#cc79a7',
  weapon_switch: '#c0c8d6',
  other: '#e6ebf3',
};

function circle(c: Ctx, x: number, y: number, r: number, col: string) {
  c.beginPath();
  c.arc(x, y, r, 0, Math.PI * 2);
  c.fillStyle = col;
  c.fill();
}
function rect(c: Ctx, x: number, y: number, w: number, h: number, col: string) {
  c.fillStyle = col;
  c.fillRect(x, y, w, h);
}
function poly(c: Ctx, col: string, pts: [number, number][]) {
  c.beginPath();
  c.moveTo(pts[0][0], pts[0][1]);
  for (let i = 1; i < pts.length; i++) c.lineTo(pts[i][0], pts[i][1]);
  c.closePath();
  c.fillStyle = col;
  c.fill();
}

/**
 * Takes `canvas` out of the flow of its scrubber, filling it (through the CSSOM: a strict CSP
 * allows it), whatever the page's stylesheets say and whether they have loaded yet. Its backing
 * store is sized from the scrubber's box (measure()), and a canvas in flow is as tall as its
 * backing store: the scrubber would grow with it, and the canvas with the scrubber, frame after
 * frame (33,554,336 px tall in Chromium with an embed's player.css 3 s late: host-page.test.mjs).
 */
function fillOutOfFlow(canvas: HTMLCanvasElement) {
  for (const [k, v] of [
    ['position', 'absolute'],
    ['inset', '0'],
    ['width', '100%'],
    ['height', '100%'],
    ['pointer-events', 'none'],
  ])
    canvas.style.setProperty(k, v);
}

/**
 * The canvases are absolutely positioned over the scrubber (fillOutOfFlow): their size never feeds
 * back into the scrubber's, which is theirs. The scrubber is their containing block: `position:
 * relative` (as style.css and player.css have it) unless its inline style says otherwise.
 * (`E`, `K`: the caller's events and kills, handed back as they are by hitTest(); the kills are
 * those among the events unless said otherwise.)
 */
export function createMarkerLayer<E extends MarkerEvent = MarkerEvent, K extends Kill = Extract<E, Kill>>({
  scrubber,
  canvas,
  overlay,
  killTime,
  events,
}: MarkerLayerOptions<K, E>): MarkerLayer<K, E> {
  fillOutOfFlow(canvas);
  fillOutOfFlow(overlay);
  if (!scrubber.style.position) scrubber.style.setProperty('position', 'relative');
  // (2D contexts of the layer's own canvases: nothing takes another kind of context of them.)
  const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
  const octx = overlay.getContext('2d') as CanvasRenderingContext2D;
  let w = 0; // CSS px
  let h = 0;
  let dpr = 1;
  let duration = 0;
  // Read once, when the first drawing needs them (`colours ?? readColours()`).
  let colours: Record<string, string> | null = null;
  // The window drawn, [v0, v1] seconds (v1 <= v0: the whole recording).
  let v0 = 0;
  let v1 = 0;

  // Kills, in time order: { t, k, x }. Columns: { x, first, count } in order (first = index in kills).
  let kills: KillMark<K>[] = [];
  let killCols: KillColumn[] = [];
  // Events other than kills (events(): those a viewer may see), one slot per kind and CSS px
  // column: key `${kind}:${col}` -> { x, e, kind, count }; byCol: col -> slots (for hit-testing).
  let slots = new Map<string, EventSlot<E>>();
  let byCol = new Map<number, EventSlot<E>[]>();
  let kindCounts = new Map<string, number>(); // kind -> slots drawn

  let near: number[] = []; // kill indices near the playhead
  let hovered: MarkerHit<K, E> | null = null; // { row: 'kill' | 'event', ... }
  let pendingFull = 0;

  const viewFrom = () => (v1 > v0 ? v0 : 0);
  const viewLen = () => (v1 > v0 ? v1 - v0 : duration);
  /** x (CSS px) of time t in the window; outside [0, w] when t is outside it. */
  const xOf = (t: number) => (duration > 0 ? ((Math.min(duration, Math.max(0, t)) - viewFrom()) / viewLen()) * w : 0);
  const inView = (x: number) => x >= 0 && x <= w;
  const eventRowTop = () => h - EVENT_BOTTOM - EVENT_H;

  function readColours(): Record<string, string> {
    // At the scrubber (custom properties inherit): a player in a shadow root is themed there.
    const cs = getComputedStyle(scrubber);
    colours = {};
    for (const [k, v] of Object.entries(FALLBACK_COLOURS)) colours[k] = cs.getPropertyValue(`--ev-${k}`).trim() || v;
    colours.killNear = cs.getPropertyValue('--ev-kill-near').trim() || '#ffd0c8';
    return colours;
  }

  /** Matches the canvases' backing stores to the scrubber's size × devicePixelRatio. */
  function measure() {
    const nw = scrubber.clientWidth;
    const nh = scrubber.clientHeight;
    const nd = window.devicePixelRatio || 1;
    if (nw === w && nh === h && nd === dpr) return false;
    w = nw;
    h = nh;
    dpr = nd;
    for (const c of [canvas, overlay]) {
      c.width = Math.max(1, Math.round(w * dpr));
      c.height = Math.max(1, Math.round(h * dpr));
    }
    return true;
  }

  /** Kill bins of the window: bin b holds the kills at x in [b·BIN_PX − 0.5, b·BIN_PX + 2.5) and
   *  draws its bar over [b·BIN_PX, b·BIN_PX + 2): each kill within 0.5 px of its bar. */
  let maxCount = 1;
  function buildKillColumns() {
    killCols = [];
    maxCount = 1;
    let last: KillColumn | null = null;
    for (let i = 0; i < kills.length; i++) {
      const m = kills[i];
      m.x = xOf(m.t);
      if (!inView(m.x)) continue;
      const bin = Math.floor((m.x + 0.5) / BIN_PX);
      if (last && last.bin === bin) {
        last.count++;
        if (last.count > maxCount) maxCount = last.count;
      } else {
        last = { bin, x: bin * BIN_PX + 1, first: i, count: 1 };
        killCols.push(last);
      }
    }
  }

  /** The bar's height (CSS px) of a bin of `count` kills: by log of the count against the
   *  fullest bin, full height when no bin holds more than one. */
  const barH = (count: number) =>
    maxCount <= 1 ? KILL_H : KILL_H * (MIN_BAR + ((1 - MIN_BAR) * Math.log2(count)) / Math.log2(maxCount));

  /** A bin's bar (centre x), bottom-aligned, `width` CSS px (wider for the highlights). */
  function drawKillBar(c: Ctx, x: number, colour: string, width = 2, count = 1) {
    c.fillStyle = colour;
    const left = Math.round((x - width / 2) * dpr) / dpr;
    const bottom = KILL_TOP + KILL_H;
    const top = Math.round((bottom - barH(count)) * dpr) / dpr;
    c.fillRect(left, top, width, bottom - top);
  }

  function addSlots(events: Iterable<E>) {
    const fresh: EventSlot<E>[] = [];
    if (!(duration > 0) || w <= 0) return fresh;
    for (const e of events) {
      if (e.kind === 'kill') continue;
      const kind = eventKindKey(e);
      const x = xOf(e.t);
      if (!inView(x)) continue;
      const col = Math.round(x);
      const key = `${kind}:${col}`;
      const s = slots.get(key);
      if (s) {
        s.count++;
        continue;
      }
      const slot: EventSlot<E> = { x: col, e, kind, count: 1 };
      slots.set(key, slot);
      let list = byCol.get(col);
      if (!list) {
        list = [];
        byCol.set(col, list);
      }
      list.push(slot);
      kindCounts.set(kind, (kindCounts.get(kind) ?? 0) + 1);
      fresh.push(slot);
    }
    return fresh;
  }

  function drawSlots(list: EventSlot<E>[], palette: Record<string, string>) {
    const y0 = eventRowTop();
    ctx.globalAlpha = 0.85;
    for (const s of list) (SHAPES[s.kind] ?? SHAPES.other)(ctx, s.x, y0, palette[s.kind] ?? palette.other);
    ctx.globalAlpha = 1;
  }

  /** Everything again (markers changed, resize, DPR). */
  function drawAll() {
    pendingFull = 0;
    measure();
    const palette = colours ?? readColours();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    buildKillColumns();
    slots = new Map();
    byCol = new Map();
    kindCounts = new Map();
    if (w <= 0 || !(duration > 0)) {
      drawOverlay();
      return;
    }
    const fresh = addSlots(duration > 0 ? events() : []);
    drawSlots(fresh, palette);
    for (const c of killCols) drawKillBar(ctx, c.x, palette.kill, 2, c.count);
    drawOverlay();
  }

  function scheduleFull() {
    if (!pendingFull) pendingFull = requestAnimationFrame(drawAll);
  }

  function drawOverlay() {
    octx.setTransform(1, 0, 0, 1, 0, 0);
    octx.clearRect(0, 0, overlay.width, overlay.height);
    if (w <= 0 || !(duration > 0)) return;
    // (Read by drawAll() already: a width is only measured there.)
    const palette = colours ?? readColours();
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (near.length) {
      octx.shadowColor = palette.kill;
      octx.shadowBlur = 6 * dpr;
      const seen = new Set();
      for (const i of near) {
        const m = kills[i];
        if (!m || !inView(m.x)) continue;
        const bin = Math.floor((m.x + 0.5) / BIN_PX);
        if (seen.has(bin)) continue;
        seen.add(bin);
        const c = killCols[lowerBound(killCols, bin * BIN_PX + 1, byX)];
        drawKillBar(octx, bin * BIN_PX + 1, palette.killNear, 3, c?.bin === bin ? c.count : 1);
      }
      octx.shadowBlur = 0;
    }
    if (hovered?.row === 'kill') drawKillBar(octx, hovered.col.x, '#fff', 3, hovered.col.count);
    else if (hovered?.row === 'event') {
      const s = hovered.slot;
      octx.save();
      octx.translate(s.x, eventRowTop() + 4);
      octx.scale(1.6, 1.6);
      (SHAPES[s.kind] ?? SHAPES.other)(octx, 0, -4, palette[s.kind] ?? palette.other);
      octx.restore();
    }
  }

  /** The marker under (x, y) (CSS px relative to the scrubber), or null. */
  function hitTest(x: number, y: number): MarkerHit<K, E> | null {
    if (w <= 0 || !(duration > 0)) return null;
    if (y < KILL_BAND) {
      // killCols is in x order: binary search the first column at >= x - HIT_PX.
      let best: KillColumn | null = null;
      for (let i = lowerBound(killCols, x - HIT_PX, byX); i < killCols.length && killCols[i].x <= x + HIT_PX; i++) {
        const c = killCols[i];
        if (!best || Math.abs(c.x - x) < Math.abs(best.x - x)) best = c;
      }
      if (!best) return null;
      const items = kills.slice(best.first, best.first + best.count);
      return { row: 'kill', col: best, kill: items[0].k, t: items[0].t, count: best.count };
    }
    if (y >= eventRowTop() - 2) {
      let best: EventSlot<E> | null = null;
      for (let c = Math.round(x) - HIT_PX; c <= Math.round(x) + HIT_PX; c++) {
        for (const s of byCol.get(c) ?? []) if (!best || Math.abs(s.x - x) < Math.abs(best.x - x)) best = s;
      }
      return best ? { row: 'event', slot: best, event: best.e, t: best.e.t, count: best.count } : null;
    }
    return null;
  }

  function setHovered(hit: MarkerHit<K, E> | null) {
    const same = hit?.row === hovered?.row && (hit?.col ?? hit?.slot) === (hovered?.col ?? hovered?.slot);
    hovered = hit;
    if (!same) drawOverlay();
  }

  /** Kills within `window` s of `t` are drawn highlighted (only redrawn when that set changes). */
  let nearKey = '';
  function setNear(t: number, window = 1) {
    const next: number[] = [];
    for (let i = lowerBound(kills, t - window, byT); i < kills.length && kills[i].t <= t + window; i++) next.push(i);
    const key = next.join(',');
    if (key === nearKey) return;
    nearKey = key;
    near = next;
    drawOverlay();
  }

  function setKills(list: readonly K[], d: number) {
    duration = d;
    kills = list.map((k) => ({ t: killTime(k), k, x: 0 }));
    kills.sort((a, b) => a.t - b.t);
    near = [];
    nearKey = '';
    hovered = null;
    scheduleFull();
  }
  /** Every event again (events()), over `d` seconds. */
  function setEvents(d: number) {
    duration = d;
    scheduleFull();
  }
  /** New events (a chunk's): drawn at once, without a full redraw. */
  function addEvents(fresh: Iterable<E>) {
    if (pendingFull) return; // the full redraw reads events() anyway
    const palette = colours ?? readColours();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawSlots(addSlots(fresh), palette);
  }
  /** Draws the window [from, to] seconds (to <= from: the whole recording). */
  function setView(from: number, to: number) {
    if (from === v0 && to === v1) return;
    v0 = from;
    v1 = to;
    hovered = null;
    scheduleFull();
  }
  function clear() {
    v0 = 0;
    v1 = 0;
    kills = [];
    killCols = [];
    duration = 0;
    near = [];
    nearKey = '';
    hovered = null;
    scheduleFull();
  }

  const remeasure = () => {
    if (measure()) drawAll();
  };
  const ro = new ResizeObserver(remeasure);
  ro.observe(scrubber);
  // Every listener goes with dispose() (an embedded player's timeline is removed with it).
  const gone = new AbortController();
  const { signal } = gone;
  // A devicePixelRatio change (zoom, a move to another screen) without a size change.
  const watchDpr = () => {
    const mq = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    mq.addEventListener(
      'change',
      () => {
        remeasure();
        watchDpr();
      },
      { once: true, signal },
    );
  };
  watchDpr();
  window.addEventListener('resize', remeasure, { signal });

  /** Stops listening and drawing (the canvases stay; the caller removes them). */
  function dispose() {
    ro.disconnect();
    gone.abort();
    cancelAnimationFrame(pendingFull);
    pendingFull = 0;
  }

  /** Test / inspection hook: kill markers (one per kill) and event slots, x/y in CSS px. */
  function inspect() {
    if (pendingFull) drawAll();
    return {
      width: w,
      height: h,
      dpr,
      kills: kills.map((m) => ({ x: m.x, y: KILL_TOP + KILL_H / 2, t: m.t, tick: m.k.tick })),
      killColumns: killCols.length,
      bins: killCols.map((c) => ({ x0: c.bin * BIN_PX, x1: c.bin * BIN_PX + 2, count: c.count, h: barH(c.count) })),
      view: { from: viewFrom(), to: viewFrom() + viewLen() },
      events: [...slots.values()].map((s) => ({
        x: s.x,
        y: eventRowTop() + 4,
        t: s.e.t,
        kind: s.kind,
        count: s.count,
      })),
      eventKinds: Object.fromEntries(kindCounts),
      near: near.length,
    };
  }

  // Test / inspection: the canvas answers for what is drawn on it (#scrub-markers, .rp-scrub-markers).
  Object.defineProperty(canvas, 'inspect', { value: inspect satisfies MarkerCanvas['inspect'], configurable: true });

  return {
    setKills,
    setEvents,
    addEvents,
    setView,
    clear,
    setNear,
    hitTest,
    setHovered,
    inspect,
    redraw: drawAll,
    dispose,
  };
}
