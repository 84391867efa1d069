// The timeline bar: transport (rewind / play-pause / stop / fast forward), clock, scrubber
// (pointer events; follows the pointer), kill markers on the scrubber's top row, every other event
// kind as a smaller shape on its bottom row (drawn on a canvas: www/widgets/marker-layer.ts; hover shows
// a marker's text, a click on a kill marker seeks to 2 s before it), the legend, speed select.
// The scrubber zooms into a time range (wheel or pinch on it, around the pointer; docs/playback.md
// "Timeline zoom"): a minimap above it shows the whole and the window, "Whole" or Escape go back.
import { fmtTime, el } from '../widgets/format.ts';
import { nextSpeed } from '../core/clock.ts';
import { KILL_LEAD_S } from '../api/constants.ts';
import { eventKindKey, eventKindLabel, eventText } from '../widgets/events.ts';
import { createMarkerLayer } from '../widgets/marker-layer.ts';
import type { Controller } from '../api/controller.ts';
import type { createZoom, Zoom, ZoomView } from './timeline-zoom.ts';
import type { GapLayer, GapSpan } from './gap-layer.ts';

/** A kill as the handle lists it (`player.kills`). */
type Kill = Controller['kills'][number];
/** An event of any kind as the handle lists it (`player.events`). */
type ReplayEvent = Controller['events'][number];

/** A filter of the markers (the Analysis panel's): whether the marker of `event` shows. */
export type MarkerFilter = (event: Kill | ReplayEvent) => boolean;

/** What the marker layer's hitTest finds (www/widgets/marker-layer.ts) and what the tooltip shows:
 *  a kill marker's column, an event marker's slot, or a gap under the pointer. */
interface KillHit {
  row: 'kill';
  col: { x: number };
  kill: Kill;
  t: number;
  count: number;
}
interface EventHit {
  row: 'event';
  slot: { x: number };
  event: ReplayEvent;
  t: number;
  count: number;
}
interface GapHit {
  row: 'gap';
  text: string;
  x: number;
}
type TipHit = KillHit | EventHit | GapHit;

/** createTimeline()'s options. */
export interface TimelineOptions {
  loadZoom?: (() => Promise<{ createZoom: typeof createZoom }>) | null;
}

/** What the scrubber's inspect() answers: the seconds it spans, the zoomed window {from, to}
 *  (null: the whole), the gaps drawn (x in CSS px of the scrubber). */
export interface TimelineInspection {
  span: number;
  view: { from: number; to: number } | null;
  gaps: GapSpan[];
}

/** #scrubber with the timeline's hook (test / inspection: `scrubber.inspect()`; the markers are
 *  #scrub-markers' own, www/widgets/marker-layer.ts). */
export interface ScrubberElement extends HTMLElement {
  inspect(): TimelineInspection;
}

/** The shortest window the timeline zooms to (s). */
const MIN_VIEW_S = 1;

/** `opts.loadZoom()`: imports www/app/timeline-zoom.ts (no zoom without it: the embeds' timeline). */
export function createTimeline(
  player: Controller,
  root: Document = document,
  { loadZoom = null }: TimelineOptions = {},
) {
  // (The page's elements: index.html has each of them.)
  const $ = <T extends HTMLElement = HTMLElement>(id: string) => root.getElementById(id) as T;
  const playBtn = $<HTMLButtonElement>('play');
  const timeEl = $('time');
  const tickEl = $('tick');
  const durEl = $('duration');
  const scrubber = $('scrubber');
  const fill = $('scrub-fill');
  const thumbRail = $('scrub-thumb-rail');
  const markersEl = $<HTMLCanvasElement>('scrub-markers');
  const nearEl = $<HTMLCanvasElement>('scrub-near');
  const tip = $('scrub-tip');
  const hover = $('scrub-hover');
  const speed = $<HTMLSelectElement>('speed');
  const rewindBtn = $<HTMLButtonElement>('rewind');
  const stopBtn = $<HTMLButtonElement>('stop');
  const ffBtn = $<HTMLButtonElement>('ffwd');
  const legend = $('legend');

  // The zoom: the window [view.from, view.to] seconds the scrubber spans, null for the whole. Its
  // gestures' math, the minimap and "Whole" are www/app/timeline-zoom.ts, loaded (`loadZoom`, from
  // main.ts) on the first wheel or touch on the scrubber.
  let view: ZoomView | null = null;
  let zoom: Zoom | null = null;
  let zoomLoading: Promise<Zoom> | null = null;
  const killT = (k: Kill): number => player.killTime(k);
  const withZoom = (fn: (z: Zoom) => void) => {
    if (zoom) return fn(zoom);
    if (!loadZoom) return;
    zoomLoading ??= loadZoom().then((m) => {
      zoom = m.createZoom(scrubber, {
        span: () => span,
        view: () => view,
        set: (from, to) => setView(from, to),
      });
      return zoom;
    });
    zoomLoading.then(fn);
  };

  let scrubbing = false;
  let wasPlaying = false;
  let pendingX: number | null = null;
  let rafScrub = 0;

  // The seconds the bar spans: the recording's length, or while spoiler-safe hides it
  // (docs/embedding.md "Spoiler-safe") a horizon of 5 min doubled whenever the furthest time
  // reached passes 4/5 of it, so that neither the bar nor a time on it gives the length away.
  let span = 0;
  let hidden = false;
  /** A new span: the duration label, the slider's maximum and the markers follow it. */
  function rescale() {
    const h = player.spoilerSafe && player.revealedUntil < player.duration;
    let s = 300;
    while (player.revealedUntil > s * 0.8) s *= 2;
    if (!h) s = player.duration;
    if (s === span && h === hidden) return;
    span = s;
    hidden = h;
    durEl.textContent = h ? '--:--' : fmtTime(s);
    scrubber.setAttribute('aria-valuemax', s.toFixed(1));
    view = null;
    layer.setView(0, 0);
    layer.setKills(shownKills(), s);
    layer.setEvents(s);
    zoom?.show(null, s, player.kills, killT);
    shown.f = '';
  }

  const vFrom = () => view?.from ?? 0;
  const vLen = () => (view ? view.to - view.from : span);
  const fraction = () => (vLen() > 0 ? Math.min(1, Math.max(0, (player.currentTime - vFrom()) / vLen())) : 0);

  /** Zooms to [from, to] seconds (clamped to the span, at least MIN_VIEW_S long); null or the
   *  whole span: no zoom. */
  function setView(from: number | null, to?: number) {
    let next: ZoomView | null = null;
    if (from !== null && span > 0) {
      // (A window's `from` always comes with its `to`: only the whole, null, comes alone.)
      const len = Math.min(span, Math.max(MIN_VIEW_S, to! - from));
      const a = Math.min(span - len, Math.max(0, from));
      next = len >= span ? null : { from: a, to: a + len };
    }
    if (next?.from === view?.from && next?.to === view?.to) return;
    view = next;
    layer.setView(view?.from ?? 0, view?.to ?? 0);
    zoom?.show(view, span, player.kills, killT);
    shown.f = '';
    update();
    markNear();
  }
  scrubber.addEventListener(
    'wheel',
    (e) => {
      if (!player.info || !(span > 0) || !loadZoom) return;
      e.preventDefault();
      const d = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      const x = e.clientX - scrubber.getBoundingClientRect().left;
      withZoom((z) => z.wheel(d, x));
    },
    { passive: false },
  );
  // Pinch: two touches on the scrubber scale the window (timeline-zoom.ts does the math).
  const touches = new Map<number, number>();
  let pinching = false;

  // What update() last wrote: text and attributes are set only when they change (setting the same
  // text still replaces the text node and lays it out again).
  const shown = { f: '', time: '', tick: '', now: '' };
  function update() {
    const fr = fraction();
    const f = fr.toFixed(5);
    if (f !== shown.f) {
      shown.f = f;
      // Zoomed, a playhead outside the window has no thumb (not one pinned to an edge).
      const t = player.currentTime;
      thumbRail.hidden = !!view && (t < view.from || t > view.to);
      // Transforms, not a width or a left: moving the fill and the thumb lays nothing out, and
      // each is its own compositor layer (style.css), so neither repaints the page.
      fill.style.transform = `scaleX(${f})`;
      thumbRail.style.transform = `translateX(${(fr * 100).toFixed(3)}%)`;
    }
    const time = fmtTime(player.currentTime);
    if (time !== shown.time) {
      shown.time = time;
      timeEl.textContent = time;
      scrubber.setAttribute('aria-valuetext', time);
    }
    const tick = `tick ${player.tick}`;
    if (tick !== shown.tick) {
      shown.tick = tick;
      tickEl.textContent = tick;
    }
    const now = player.currentTime.toFixed(1);
    if (now !== shown.now) {
      shown.now = now;
      scrubber.setAttribute('aria-valuenow', now);
    }
  }

  function setPlaying(p: boolean) {
    playBtn.classList.toggle('playing', p);
    playBtn.setAttribute('aria-label', p ? 'Pause' : 'Play');
    playBtn.title = p ? 'Pause (Space)' : 'Play (Space)';
  }

  function timeAtX(clientX: number) {
    const r = scrubber.getBoundingClientRect();
    const f = r.width > 0 ? Math.min(1, Math.max(0, (clientX - r.left) / r.width)) : 0;
    return vFrom() + f * vLen(); // (a seek clamps it to the recording)
  }

  function scrubTo(clientX: number) {
    pendingX = clientX;
    if (rafScrub) return;
    rafScrub = requestAnimationFrame(() => {
      rafScrub = 0;
      if (pendingX !== null) player.seek(timeAtX(pendingX));
      pendingX = null;
    });
  }

  const local = (e: PointerEvent) => {
    const r = scrubber.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top, r };
  };
  // A press on a kill marker is a click on it (seek on release over the same marker), not a scrub.
  let pressed: (KillHit & { downX: number }) | null = null;

  scrubber.addEventListener('pointerdown', (e) => {
    if (e.pointerType === 'touch') {
      touches.set(e.pointerId, e.clientX);
      withZoom(() => {});
    }
    if (touches.size === 2 && player.info && zoom) {
      // A second finger: the scrub or press of the first becomes a pinch.
      pinching = true;
      zoom.pinchStart([...touches.values()]);
      if (scrubbing) {
        scrubbing = false;
        if (wasPlaying) player.play();
      }
      pressed = null;
      scrubber.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    if (e.button !== 0 || !player.info) return;
    const p = local(e);
    const hit = layer.hitTest(p.x, p.y);
    if (hit?.row === 'kill') {
      pressed = { ...hit, downX: e.clientX };
      scrubber.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    scrubbing = true;
    wasPlaying = !player.paused;
    if (wasPlaying) player.pause();
    scrubber.setPointerCapture(e.pointerId);
    player.seek(timeAtX(e.clientX));
    e.preventDefault();
  });
  scrubber.addEventListener('pointermove', (e) => {
    if (touches.has(e.pointerId)) touches.set(e.pointerId, e.clientX);
    if (pinching && touches.size === 2) {
      zoom?.pinchMove([...touches.values()], scrubber.getBoundingClientRect().left);
      return;
    }
    // A press on a kill marker that moves on (a thumb on a crowded timeline) scrubs after all.
    if (pressed && Math.abs(e.clientX - pressed.downX) > 10) {
      pressed = null;
      scrubbing = true;
      wasPlaying = !player.paused;
      if (wasPlaying) player.pause();
    }
    if (player.info && span > 0) {
      const p = local(e);
      const hit = scrubbing ? null : layer.hitTest(p.x, p.y);
      layer.setHovered(hit);
      // Where a click would go: the worker reads (and, idle, decompresses) that chunk ahead.
      if (!scrubbing) player.prefetch(hit?.row === 'kill' ? Math.max(0, hit.t - KILL_LEAD_S) : timeAtX(e.clientX));
      const gap = hit ? null : gaps.textAt(p.x);
      if (hit) showTip(hit, p.r);
      else if (gap) showTip({ row: 'gap', text: gap, x: p.x }, p.r);
      else {
        tip.hidden = true;
        hover.hidden = false;
        hover.textContent = fmtTime(timeAtX(e.clientX));
        hover.style.left = `${Math.min(p.r.width, Math.max(0, p.x))}px`;
      }
    }
    if (scrubbing) scrubTo(e.clientX);
  });
  scrubber.addEventListener('pointerleave', () => {
    hover.hidden = true;
    hideTip();
  });
  const endScrub = (e: PointerEvent) => {
    touches.delete(e.pointerId);
    if (pinching) {
      if (touches.size < 2) pinching = false;
      return;
    }
    if (pressed) {
      const hit =
        e.type === 'pointerup'
          ? (() => {
              const p = local(e);
              return layer.hitTest(p.x, p.y);
            })()
          : null;
      if (hit?.row === 'kill' && hit.col === pressed.col) player.seek(Math.max(0, hit.t - KILL_LEAD_S));
      pressed = null;
      return;
    }
    if (!scrubbing) return;
    scrubbing = false;
    if (pendingX !== null) {
      cancelAnimationFrame(rafScrub);
      rafScrub = 0;
      player.seek(timeAtX(pendingX));
      pendingX = null;
    }
    if (e.type === 'pointerup') player.seek(timeAtX(e.clientX));
    if (wasPlaying) player.play();
  };
  scrubber.addEventListener('pointerup', endScrub);
  scrubber.addEventListener('pointercancel', endScrub);
  scrubber.addEventListener('keydown', (e) => {
    // Arrow keys are handled globally; stop the page from scrolling.
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') e.preventDefault();
  });

  playBtn.addEventListener('click', () => player.toggle());
  rewindBtn.addEventListener('click', () => {
    if (player.playbackState === 'Rewinding') player.setSpeed(nextSpeed(player.speed));
    else player.rewind();
  });
  stopBtn.addEventListener('click', () => player.stop());
  ffBtn.addEventListener('click', () =>
    player.fastForward(player.playbackState === 'FastForward' ? nextSpeed(player.speed) : undefined),
  );
  speed.addEventListener('change', () => {
    player.setSpeed(Number(speed.value));
    speed.blur();
  });

  function setTransport() {
    const st = player.playbackState;
    rewindBtn.classList.toggle('active', st === 'Rewinding');
    ffBtn.classList.toggle('active', st === 'FastForward');
    rewindBtn.setAttribute('aria-pressed', String(st === 'Rewinding'));
    ffBtn.setAttribute('aria-pressed', String(st === 'FastForward'));
  }

  // The parts skipped (damaged, not sent): hatched under the markers by www/app/gap-layer.ts, which
  // main.ts loads on the first gap and hands over (showGaps).
  let gaps: GapLayer = { textAt: () => null, inspect: () => [] };
  // Markers: one canvas layer (www/widgets/marker-layer.ts), not one element per kill / event.
  const layer = createMarkerLayer({
    scrubber,
    canvas: markersEl,
    overlay: nearEl,
    killTime: (k: Kill) => player.killTime(k),
    events: () => (keep ? player.events.filter(keep) : player.events),
  });
  // A filter of the markers (the Analysis panel's, www/features/analysis/panel.ts): `keep(event)`, or null.
  let keep: MarkerFilter | null = null;
  const shownKills = () => (keep ? player.kills.filter(keep) : player.kills);

  function markerText(hit: TipHit) {
    if (hit.row === 'gap') return hit.text;
    const more = hit.count > 1 ? ` (+${hit.count - 1} more)` : '';
    if (hit.row === 'kill') return `${player.killText(hit.kill)}${more}`;
    return `${fmtTime(hit.event.t)} ${eventText(player, hit.event)}${more}`;
  }

  function showTip(hit: TipHit, r: DOMRect) {
    tip.textContent = markerText(hit);
    const x = hit.row === 'kill' ? hit.col.x : hit.row === 'event' ? hit.slot.x : hit.x;
    tip.style.left = `${Math.min(r.width, Math.max(0, x))}px`;
    tip.dataset.row = hit.row;
    tip.hidden = false;
    hover.hidden = true;
  }
  function hideTip() {
    tip.hidden = true;
    layer.setHovered(null);
  }

  // Legend: every kind seen (kills first), with counts.
  let kindCounts = new Map<string, number>();
  function countEvents(events: readonly ReplayEvent[]) {
    for (const e of events) {
      const key = eventKindKey(e);
      kindCounts.set(key, (kindCounts.get(key) ?? 0) + 1);
    }
  }
  /** kind → its count element, while the legend shows the same kinds (events arrive with every
   *  piece: only the counts that changed are written then, the items are not rebuilt). */
  let legendCounts = new Map<string, HTMLSpanElement>();
  function renderLegend() {
    const keys = [...kindCounts.keys()].sort((a, b) => (a === 'kill' ? -1 : b === 'kill' ? 1 : a.localeCompare(b)));
    if (!keys.includes('kill')) keys.unshift('kill');
    if (keys.join('\n') === [...legendCounts.keys()].join('\n')) {
      for (const [key, countEl] of legendCounts) {
        const text = String(kindCounts.get(key) ?? 0);
        if (countEl.textContent !== text) countEl.textContent = text;
      }
    } else {
      legend.replaceChildren();
      legendCounts = new Map<string, HTMLSpanElement>();
      for (const key of keys) {
        const item = el('span', 'legend-item');
        item.dataset.kind = key;
        const countEl = el('span', 'legend-count', kindCounts.get(key) ?? 0);
        item.append(el('span', `legend-shape ev-${key}`), el('span', 'legend-name', eventKindLabel(key)), countEl);
        legend.append(item);
        legendCounts.set(key, countEl);
      }
    }
    legend.hidden = !player.info;
  }

  // Kill markers within a second of the playhead light up (on the overlay canvas; redrawn only
  // when that set changes).
  let nearTimer = 0;
  const markNear = () => layer.setNear(player.currentTime, 1);

  player.on('loadstart', () => {
    layer.clear();
    hideTip();
    kindCounts = new Map<string, number>();
    renderLegend();
    for (const b of [playBtn, rewindBtn, stopBtn, ffBtn]) b.disabled = true;
    setPlaying(false);
    durEl.textContent = fmtTime(0);
    span = 0;
    hidden = false;
    update();
  });
  player.on('info', () => {
    rescale();
    kindCounts = new Map<string, number>();
    countEvents(player.events);
    renderLegend();
    markNear();
    update();
  });
  player.on('ready', () => {
    for (const b of [playBtn, rewindBtn, stopBtn, ffBtn]) b.disabled = false;
  });
  player.on('markers', (kills: readonly Kill[]) => {
    if (!(span > 0) || !legend.childElementCount) return; // before 'info'
    const ks = keep ? kills.filter(keep) : kills;
    layer.setKills(ks, span);
    if (view) zoom?.show(view, span, ks, killT);
    markNear();
  });
  player.on('events', (fresh: readonly ReplayEvent[]) => {
    if (!(player.duration > 0) || !legend.childElementCount) return; // before 'info'
    layer.addEvents(keep ? fresh.filter(keep) : fresh);
    countEvents(fresh);
    renderLegend();
  });
  // A seek's clock, thumb and near markers change with its frame ('seeked'), not before it: a
  // page frame drawn while the worker reads and decodes competes with it for the CPU, and the
  // frame's piece would wait behind it (docs/playback.md, "A seek's page changes wait for its
  // frame"). A drag moves the thumb under the pointer at once; a seek that takes longer than
  // the player's seekShowMs (a file on a slow server) shows its time then (player.seekShowInMs).
  let heldTimer = 0;
  let heldFrame = 0;
  const showHeld = () => {
    heldTimer = 0;
    heldFrame = 0;
    update();
    markNear();
  };
  player.on('timeupdate', () => {
    if (span) rescale();
    // Playing out of the zoomed window: the window pages on with the playhead.
    if (view && !scrubbing && !player.paused) {
      const t = player.currentTime;
      const len = view.to - view.from;
      if (t > view.to) setView(t - len * 0.1, t + len * 0.9);
      else if (t < view.from) setView(t - len * 0.9, t + len * 0.1);
    }
    if (player.pageWaitsForSeek && !scrubbing) {
      heldTimer ||= setTimeout(showHeld, Math.max(0, player.seekShowInMs));
      return;
    }
    update();
    const now = performance.now();
    if (now - nearTimer > 100) {
      nearTimer = now;
      markNear();
    }
  });
  // In the animation frame that draws the seek's frame (not inside the piece's message, which
  // the seek's promise waits for): the same picture, the clock and the thumb together.
  player.on('seeked', () => {
    clearTimeout(heldTimer);
    heldTimer = 0;
    if (!heldFrame) heldFrame = requestAnimationFrame(showHeld);
  });
  player.on('play', () => setPlaying(true));
  player.on('pause', () => setPlaying(false));
  player.on('statechange', setTransport);
  player.on('ratechange', (v: number) => {
    if (Number(speed.value) !== v) {
      const opt = [...speed.options].find((o) => Number(o.value) === v);
      if (opt) speed.value = opt.value;
    }
  });
  update();
  // Test / inspection: #scrubber.inspect() (computed on call).
  const inspect = (): TimelineInspection => ({ span, view: view ? { ...view } : null, gaps: gaps.inspect() });
  Object.defineProperty(scrubber, 'inspect', {
    value: inspect satisfies ScrubberElement['inspect'],
    configurable: true,
  });
  return {
    update,
    span: () => span,
    /** The zoomed window {from, to} in seconds, or null (the whole). */
    view: () => (view ? { ...view } : null),
    zoom: (from: number, to: number) => withZoom(() => setView(from, to)),
    /** Back to the whole recording; false when it was not zoomed (Escape goes on elsewhere). */
    unzoom: () => {
      if (!view) return false;
      setView(null);
      return true;
    },
    showGaps: (g: GapLayer) => {
      gaps = g;
    },
    /** Shows only the markers of the events `pred(event)` keeps (null: every one). */
    setFilter: (pred: MarkerFilter | null) => {
      keep = pred;
      if (!(span > 0)) return;
      layer.setKills(shownKills(), span);
      layer.setEvents(span);
      markNear();
    },
  };
}

/** The timeline (main.ts hands it to the Share, Analysis and Compare views, which draw on it). */
export type Timeline = ReturnType<typeof createTimeline>;
