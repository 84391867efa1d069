// The clip on the timeline: a band from its in point to its out point, with a handle at each end
// that the pointer drags (the picture follows it) or ← / → move while it has focus (by the page's
// step, as ← / → move the playhead; Shift: one tick). I / O set a point at the playhead
// (www/widgets/keyboard.ts, through the Share dialog's module); the clip itself is the player's (handle.clip / setClip(): playing stops or loops at its out
// point), so a clip from a link (t + end) shows here too (main.ts loads this module for it; a
// setClip() from elsewhere shows at the next time update). Loaded with the Share dialog, on first use.
import type { Clip } from '../../lib/types.ts';
import type { Controller } from '../../api/controller.ts';
import { el, fmtTime } from '../../widgets/format.ts';

/** What the clip reads and drives of the player (www/api/player.ts's handle: types/player.d.ts). */
export type ClipPlayer = Pick<
  Controller,
  'duration' | 'info' | 'clip' | 'setClip' | 'currentTime' | 'seek' | 'playing' | 'pause' | 'on'
>;

/** A point of the clip. */
export type ClipPoint = 'in' | 'out';

/** createClip()'s options. */
export interface ClipOptions {
  timeline: { span: () => number };
  step: number;
  onChange?: (clip: Clip | null) => void;
  root?: Document;
}

/** The clip on the timeline: createClip()'s answer (the Share dialog's `clip`). */
export type ClipControl = ReturnType<typeof createClip>;

/**
 * The clip's band and handles on the page's timeline, and its points set from here.
 *   timeline.span(): the seconds the bar spans (the recording's length, or spoiler-safe's horizon:
 *   app/timeline.ts); step: seconds a focused handle moves with ← / → (the page's SEEK_STEP_S, handed
 *   in so that this lazily loaded module shares nothing but widgets/format.ts with the first load);
 *   onChange: after every change made here
 */
export function createClip(player: ClipPlayer, { timeline, step, onChange = () => {}, root = document }: ClipOptions) {
  // The full page's timeline: always there where the Share dialog is loaded.
  const scrubber = root.getElementById('scrubber') as HTMLElement;
  const band = el('div', 'clip-band');
  const handles = (['in', 'out'] as const).map((point) => {
    const h = el('div', `clip-handle clip-${point}`);
    h.dataset.point = point;
    h.tabIndex = 0;
    h.setAttribute('role', 'slider');
    h.setAttribute('aria-label', point === 'in' ? 'Clip start' : 'Clip end');
    h.title = point === 'in' ? 'Clip start (I): drag, or ← / →' : 'Clip end (O): drag, or ← / →';
    return h;
  });
  band.hidden = handles[0].hidden = handles[1].hidden = true;
  scrubber.append(band, ...handles);

  const span = () => timeline.span() || player.duration;
  const tickS = () => 1 / (player.info?.info.tick_rate_hz || 60);
  const endOf = (c: Clip) => c.end ?? player.duration;

  let drawn = '';
  /** Band and handles where the clip is (touched only when that changed). */
  function draw() {
    const c = player.clip;
    const s = span();
    const key = c && s > 0 ? `${c.start}|${c.end}|${s}` : '';
    if (key === drawn) return;
    drawn = key;
    band.hidden = handles[0].hidden = handles[1].hidden = !key;
    if (!key || !c) return;
    const a = Math.min(100, (c.start / s) * 100);
    // A clip to the end reaches the bar's end (spoiler-safe: not the recording's, which is hidden).
    const b = c.end === null ? 100 : Math.min(100, (c.end / s) * 100);
    band.style.left = `${a}%`;
    band.style.width = `${Math.max(0, b - a)}%`;
    handles[0].style.left = `${a}%`;
    handles[1].style.left = `${b}%`;
    for (const [h, t] of [
      [handles[0], c.start],
      [handles[1], c.end],
    ] as [HTMLDivElement, number | null][]) {
      h.setAttribute('aria-valuenow', t === null ? '' : t.toFixed(1));
      h.setAttribute('aria-valuetext', t === null ? 'the end' : fmtTime(t));
    }
  }

  /** The player's clip becomes `c` (null: none): drawn, and told. Returns the clip kept. */
  function set(c: Clip | null): Clip | null {
    const got = player.setClip(c);
    draw();
    onChange(got);
    return got;
  }

  /** Sets one point of the clip to `t` (seconds), keeping the other one a tick away at least. */
  function setPoint(point: ClipPoint, t: number): Clip | null {
    const d = player.duration;
    const c = player.clip ?? { start: 0, end: null, loop: false };
    const v = Math.min(d, Math.max(0, t));
    if (point === 'in') return set({ ...c, start: Math.min(v, endOf(c) - tickS()) });
    return set({ ...c, end: Math.max(v, c.start + tickS()) });
  }

  /**
   * I / O: the in or out point at the playhead. An in point after the out point drops the out
   * point (the clip runs to the end); an out point before the in point moves the in point to the
   * start. `t`: where (default: the playhead). Returns the clip, or null when there is none.
   */
  function mark(point: ClipPoint, t: number = player.currentTime): Clip | null {
    if (!player.info) return null;
    const c = player.clip;
    const loop = !!c?.loop;
    if (point === 'in') {
      const end = c && c.end !== null && c.end > t ? c.end : null;
      return set({ start: t, end, loop });
    }
    const start = c && c.start < t ? c.start : 0;
    return t > start ? set({ start, end: t, loop }) : player.clip;
  }

  // Dragging a handle: not a scrub (the scrubber never sees it); the picture shows the point.
  let dragging: ClipPoint | null = null;
  let seekTo: number | null = null;
  let raf = 0;
  function showAt(t: number) {
    seekTo = t;
    if (raf) return;
    raf = requestAnimationFrame(() => {
      raf = 0;
      if (seekTo !== null) player.seek(seekTo);
      seekTo = null;
    });
  }
  function timeAtX(clientX: number) {
    const r = scrubber.getBoundingClientRect();
    return r.width > 0 ? Math.min(1, Math.max(0, (clientX - r.left) / r.width)) * span() : 0;
  }
  for (const h of handles) {
    const point = h.dataset.point as ClipPoint;
    h.addEventListener('pointerdown', (e) => {
      e.stopPropagation();
      if (e.button !== 0 || !player.info) return;
      e.preventDefault();
      h.setPointerCapture(e.pointerId);
      h.focus({ preventScroll: true });
      dragging = point;
      if (player.playing) player.pause();
    });
    h.addEventListener('pointermove', (e) => {
      e.stopPropagation();
      if (dragging !== point) return;
      const c = setPoint(point, timeAtX(e.clientX));
      if (c) showAt(point === 'in' ? c.start : endOf(c));
    });
    const end = (e: PointerEvent) => {
      e.stopPropagation();
      dragging = null;
    };
    h.addEventListener('pointerup', end);
    h.addEventListener('pointercancel', end);
    h.addEventListener('keydown', (e) => {
      if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
      // Not the page's ← / → (a seek): this handle's.
      e.stopPropagation();
      e.preventDefault();
      const c = player.clip;
      if (!c) return;
      const by = (e.shiftKey ? tickS() : step) * (e.key === 'ArrowLeft' ? -1 : 1);
      const got = setPoint(point, (point === 'in' ? c.start : endOf(c)) + by);
      if (got) showAt(point === 'in' ? got.start : endOf(got));
    });
  }

  player.on('loadstart', draw);
  // Spoiler-safe's horizon grows as the playhead goes on: the band follows the bar's scale.
  player.on('timeupdate', draw);
  draw();

  return { mark, set, setPoint, clear: () => set(null), draw };
}
