// The timeline's gaps: the parts of the recording the player skips (a damaged chunk, one a server
// would not send: the player's `gap` event) drawn hatched across the scrubber, under the markers,
// on a canvas of their own; the timeline's tooltip shows why (`textAt`), and a notice says what was
// skipped (`gapText`). Redrawn when a gap comes and on resize, never on a time update. main.ts
// imports this on the first gap.
import { fmtTime } from '../widgets/format.ts';
import type { Controller } from '../api/controller.ts';

/** What a viewer reads about a gap, by its cause. */
const WHY: Record<string, string> = {
  damaged: 'this part of the recording is damaged',
  unread: 'the server did not send this part of the recording',
};

/** The sentence for a gap of seconds [from, to): its span as the clock shows it, and why. */
export function gapText(from: number, to: number, cause: string, reason: unknown = ''): string {
  const detail = reason ? ` (${String(reason).slice(0, 160)})` : '';
  return `Skipped ${fmtTime(from)}–${fmtTime(to)}: ${WHY[cause] ?? WHY.damaged}${detail}.`;
}

/** The hatching: stripes this far apart (CSS px), in the notice colour over a tint of it. */
const STRIPE_PX = 6;
export const GAP_TINT = 'rgba(230, 180, 0, 0.22)';
export const GAP_STRIPE = 'rgb(230, 180, 0)';

/** A gap as the player lists it (`player.gaps`: seconds, its cause and the server's reason); `text`
 *  is its sentence, written here when it has none. */
type ShownGap = Controller['gaps'][number] & { text?: string };

/** A gap as the layer draws it: x in CSS px of the scrubber, seconds, and its sentence. */
export interface GapSpan {
  x0: number;
  x1: number;
  from: number;
  to: number;
  text: string;
}

/** What the timeline asks of the layer (www/app/timeline.ts: its tooltip, its test hook). */
export interface GapLayer {
  textAt(x: number): string | null;
  inspect(): GapSpan[];
}

/** The layer on `scrubber` for `player`'s gaps; `notify(text)` shows the notice for each new one
 *  (those known already included: the first one is why this was loaded). `span()`: the seconds
 *  the scrubber spans (the timeline's: spoiler-safe, a horizon, not the recording's length). */
export function createGapLayer(
  player: Controller,
  scrubber: HTMLElement,
  notify?: (text: string) => void,
  span: () => number = () => player.duration,
): GapLayer {
  const canvas = document.createElement('canvas');
  canvas.className = 'scrub-gaps';
  canvas.setAttribute('aria-hidden', 'true');
  Object.assign(canvas.style, {
    position: 'absolute',
    inset: '0',
    width: '100%',
    height: '100%',
    pointerEvents: 'none',
  });
  // Under the marker canvases (after the track).
  scrubber.insertBefore(canvas, scrubber.querySelector('canvas'));
  // (A new canvas: nothing else holds a context of it, so a 2d one is always given.)
  const ctx = canvas.getContext('2d')!;
  let gaps: ShownGap[] = [];

  /** The gaps as x ranges in CSS px of the scrubber ([x0, x1), at least 2 px wide). */
  function spans(): { x0: number; x1: number; gap: ShownGap & { text: string } }[] {
    const w = scrubber.clientWidth;
    const d = span();
    if (!(d > 0) || w <= 0) return [];
    return gaps.map((g) => {
      g.text ??= gapText(g.from, g.to, g.cause, g.reason);
      const x0 = (Math.max(0, g.from) / d) * w;
      const x1 = Math.max(x0 + 2, (Math.min(d, g.to) / d) * w);
      return { x0, x1, gap: g as ShownGap & { text: string } }; // (its text written above)
    });
  }

  function draw() {
    const w = scrubber.clientWidth;
    const h = scrubber.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    for (const { x0, x1 } of spans()) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(x0, 0, x1 - x0, h);
      ctx.clip();
      ctx.fillStyle = GAP_TINT;
      ctx.fillRect(x0, 0, x1 - x0, h);
      ctx.strokeStyle = GAP_STRIPE;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let x = x0 - h; x < x1 + h; x += STRIPE_PX) {
        ctx.moveTo(x, h);
        ctx.lineTo(x + h, 0);
      }
      ctx.stroke();
      ctx.restore();
    }
  }

  player.on('loadstart', () => {
    gaps = [];
    draw();
  });
  const learn = () => {
    const known = gaps.length;
    gaps = player.gaps;
    draw();
    for (const g of gaps.slice(known)) notify?.(gapText(g.from, g.to, g.cause, g.cause === 'unread' ? g.reason : ''));
  };
  player.on('gap', learn);
  learn();
  new ResizeObserver(() => {
    if (gaps.length) draw();
  }).observe(scrubber);

  return {
    /** The text of the gap under scrubber x (CSS px), or null. */
    textAt(x: number) {
      const s = spans().find((g) => x >= g.x0 - 2 && x < g.x1 + 2);
      return s ? s.gap.text : null;
    },
    /** Test / inspection hook: the gaps drawn, x in CSS px of the scrubber. */
    inspect: () => spans().map(({ x0, x1, gap }) => ({ x0, x1, from: gap.from, to: gap.to, text: gap.text })),
  };
}
