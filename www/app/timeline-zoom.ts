// The timeline's zoom (docs/playback.md "Timeline zoom"), imported on the first wheel or touch on
// the scrubber (www/app/timeline.ts holds the window and maps everything onto it): the wheel's and
// the pinch's math around the pointer, the minimap of the whole recording with the window (a click
// centres the window there) and the "Whole" button. Imports nothing of the first load.

/** The window's scale per 300 px of wheel. */
const WHEEL_STEP = 2;

/** A zoomed window of the timeline, in seconds. */
export interface ZoomView {
  from: number;
  to: number;
}

/** The timeline's window as the zoom sees it: the span, the window (null: the whole), and setting it
 *  (`set(null)`: the whole). */
export interface ZoomControl {
  span: () => number;
  view: () => ZoomView | null;
  set: (from: number | null, to?: number) => void;
}

/** The zoom the timeline drives (www/app/timeline.ts). */
export interface Zoom {
  wheel(deltaY: number, px: number): void;
  pinchStart(touches: number[]): void;
  pinchMove(touches: number[], left: number): void;
  show: ZoomUi['show'];
}

/** The zoom of the timeline on `scrubber`; `ctl`: the timeline's window. */
export function createZoom(scrubber: HTMLElement, ctl: ZoomControl): Zoom {
  const ui = createZoomUi(scrubber);
  const from = () => ctl.view()?.from ?? 0;
  const len = () => {
    const v = ctl.view();
    return v ? v.to - v.from : ctl.span();
  };
  /** Scales the window by `k` (< 1 zooms in) around the time under CSS x `px` of the scrubber. */
  function around(k: number, px: number) {
    const w = scrubber.clientWidth;
    const span = ctl.span();
    if (!(span > 0) || w <= 0) return;
    const f = Math.min(1, Math.max(0, px / w));
    const at = from() + f * len();
    const l = Math.min(span, len() * k);
    ctl.set(at - f * l, at - f * l + l);
  }
  ui.onWhole = () => ctl.set(null);
  ui.onCentre = (frac) => {
    if (!ctl.view()) return;
    const l = len();
    ctl.set(frac * ctl.span() - l / 2, frac * ctl.span() + l / 2);
  };
  let pinch: { dist: number; len: number } | null = null;
  return {
    /** A wheel's `deltaY` (px) at CSS x `px`. */
    wheel: (deltaY, px) => around(WHEEL_STEP ** (deltaY / 300), px),
    /** Two touches' client x: the pinch starts. */
    pinchStart: ([a, b]) => {
      pinch = { dist: Math.max(8, Math.abs(a - b)), len: len() };
    },
    /** The touches moved (`left`: the scrubber's client x): the window scales by their spread. */
    pinchMove: ([a, b], left) => {
      if (!pinch) return;
      around((pinch.len * (pinch.dist / Math.max(8, Math.abs(a - b)))) / len(), (a + b) / 2 - left);
    },
    show: ui.show,
  };
}

/** The zoom's elements: what a press on them asks for, and `show` (the window over the density). */
interface ZoomUi {
  onWhole: () => void;
  onCentre: (frac: number) => void;
  show<K>(view: ZoomView | null, span: number, kills: readonly K[], timeOf: (kill: K) => number): void;
}

/**
 * The zoom's own elements in the scrubber: the minimap (the whole recording's kill density and
 * the window, shown while zoomed; a click centres the window there) and the "Whole" button.
 */
function createZoomUi(scrubber: HTMLElement): ZoomUi {
  const doc = scrubber.ownerDocument;
  const box = doc.createElement('div');
  box.className = 'tl-minimap';
  box.hidden = true;
  box.title = 'The whole recording: click to move the zoomed window';
  const strip = doc.createElement('canvas');
  strip.className = 'tl-minimap-strip';
  strip.setAttribute('aria-hidden', 'true');
  const win = doc.createElement('div');
  win.className = 'tl-minimap-window';
  box.append(strip, win);
  const whole = doc.createElement('button');
  whole.type = 'button';
  whole.className = 'btn tl-whole';
  whole.textContent = 'Whole';
  whole.title = 'Show the whole recording (Escape)';
  whole.hidden = true;
  scrubber.append(box, whole);
  const ui: ZoomUi = { onWhole: () => {}, onCentre: () => {}, show };
  // The zoom's controls are not the scrubber: a press on them neither scrubs nor seeks.
  for (const n of [box, whole]) n.addEventListener('pointerdown', (e) => e.stopPropagation());
  whole.addEventListener('click', () => ui.onWhole());
  box.addEventListener('click', (e) => {
    const r = box.getBoundingClientRect();
    if (r.width > 0) ui.onCentre(Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)));
  });
  let drawnFor: unknown = null;
  /** Shows the window `view` of `span` seconds (null: hidden) over the density of `kills`
   *  (`timeOf(kill)`: its seconds). */
  function show<K>(view: ZoomView | null, span: number, kills: readonly K[], timeOf: (kill: K) => number) {
    box.hidden = !view;
    whole.hidden = !view;
    if (!view || !(span > 0)) return;
    win.style.left = `${(view.from / span) * 100}%`;
    win.style.width = `${Math.max(0.3, ((view.to - view.from) / span) * 100)}%`;
    if (drawnFor === kills && strip.width === Math.max(1, strip.clientWidth)) return;
    drawnFor = kills;
    const w = Math.max(1, strip.clientWidth);
    const h = Math.max(1, strip.clientHeight);
    strip.width = w;
    strip.height = h;
    const c = strip.getContext('2d');
    if (!c) return;
    const counts = new Uint32Array(w);
    let max = 1;
    for (const k of kills) {
      const x = Math.min(w - 1, Math.max(0, Math.floor((timeOf(k) / span) * w)));
      counts[x]++;
      if (counts[x] > max) max = counts[x];
    }
    c.clearRect(0, 0, w, h);
    c.fillStyle = getComputedStyle(scrubber).getPropertyValue('--ev-kill').trim() || '#ff6b5b';
    for (let x = 0; x < w; x++) {
      if (!counts[x]) continue;
      const bh = Math.max(1, Math.round(h * (0.3 + (0.7 * Math.log2(1 + counts[x])) / Math.log2(1 + max))));
      c.fillRect(x, h - bh, 1, bh);
    }
  }
  return ui;
}
