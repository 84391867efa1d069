// The range line of the Analysis panel (www/features/analysis/panel.ts): a line over the view between two
// entities, labelled with the distance, the bearing from the first to the second, the closure rate
// and the altitude difference (www/features/analysis/geo.ts rangeBearing), following the picture every frame.
// Drawn as an SVG overlay on the player's element from the renderer's projections
// (handle.screenPosition: the label positions, one drawn frame old like the labels), so the
// renderer draws nothing new. Per frame: two projections, two entity states, and DOM writes only
// where a number changed (docs/performance-history.md "Analysis panel").
import { fmtDist, fmtHeading, fmtSpeed, fmtAlt, rangeBearing } from './geo.ts';
import type { Moving, Range, Units, World } from './geo.ts';

const SVG = 'http://www.w3.org/2000/svg';

/** What the range line reads of the handle. */
export interface RangeLinePlayer {
  entityState(id: number): (Moving & { tick: number }) | null;
  screenPosition(id: number): { x: number; y: number; visible: boolean } | null;
  readonly info: { info: { world: World } } | null;
  onFrame(fn: () => void): () => void;
}

/** The figures of a frame: rangeBearing's (metres, degrees, m/s) and the tick. */
export type RangeFigures = Range & { tick: number };

/** The ends of the line (CSS px). */
type Ends = { x1: number; y1: number; x2: number; y2: number };

/**
 * The range line of `player` (the handle) over `stage` (the player's element: the overlay fills
 * it), its label in `units()` ('imperial' or 'metric').
 */
export function createRangeLine(player: RangeLinePlayer, stage: HTMLElement, units: () => Units) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'range-line');
  svg.setAttribute('aria-hidden', 'true');
  const line = document.createElementNS(SVG, 'line');
  svg.append(line);
  const label = document.createElement('div');
  label.className = 'range-label';
  label.setAttribute('aria-hidden', 'true');
  // An SVG element has no `hidden` property (HTMLElement's): the attribute, which style.css's
  // `.range-line[hidden]` reads.
  svg.toggleAttribute('hidden', true);
  label.hidden = true;
  stage.append(svg, label);

  let a = -1;
  let b = -1;
  let off: (() => void) | null = null;
  /** What was last written (numbers and text), so that an unchanged frame writes nothing. */
  const shown = { x1: NaN, y1: NaN, x2: NaN, y2: NaN, text: '', lx: NaN, ly: NaN, visible: false };
  /** The last figures, in metres, degrees and m/s (tests and the panel's readout read them). */
  let last: RangeFigures | null = null;

  function hide() {
    if (shown.visible) {
      svg.toggleAttribute('hidden', true);
      label.hidden = true;
      shown.visible = false;
    }
  }

  function frame() {
    const sa = player.entityState(a);
    const sb = player.entityState(b);
    if (!sa || !sb) {
      last = null;
      hide();
      return;
    }
    last = { tick: sa.tick, ...rangeBearing(sa, sb, player.info?.info.world) };
    const pa = player.screenPosition(a);
    const pb = player.screenPosition(b);
    if (!pa?.visible || !pb?.visible) {
      hide();
      return;
    }
    const r = (v: number) => Math.round(v * 2) / 2;
    const [x1, y1, x2, y2] = [r(pa.x), r(pa.y), r(pb.x), r(pb.y)];
    const ends: Ends = { x1, y1, x2, y2 };
    for (const k of Object.keys(ends) as (keyof Ends)[]) {
      if (ends[k] === shown[k]) continue;
      shown[k] = ends[k];
      line.setAttribute(k, String(ends[k]));
    }
    const u = units();
    const text = `${fmtDist(last.distance, u)} · ${fmtHeading(last.bearing)} · ${fmtSpeed(last.closure, u, true)} · Δalt ${fmtAlt(last.altDiff, u, true)}`;
    if (text !== shown.text) {
      shown.text = text;
      label.textContent = text;
    }
    const lx = Math.round((x1 + x2) / 2);
    const ly = Math.round((y1 + y2) / 2);
    if (lx !== shown.lx || ly !== shown.ly) {
      shown.lx = lx;
      shown.ly = ly;
      label.style.transform = `translate(${lx}px, ${ly}px) translate(-50%, -130%)`;
    }
    if (!shown.visible) {
      svg.toggleAttribute('hidden', false);
      label.hidden = false;
      shown.visible = true;
    }
  }

  /** Measures from entity `from` to entity `to` (−1: none; the line goes away). */
  function set(from: number, to: number) {
    a = from;
    b = to;
    const on = a >= 0 && b >= 0 && a !== b;
    if (on && !off) off = player.onFrame(frame);
    if (!on) {
      off?.();
      off = null;
      last = null;
      hide();
    } else frame();
  }

  return {
    set,
    /** The figures of the last frame (metres, degrees, m/s; `tick`), or null. */
    get figures(): RangeFigures | null {
      return last;
    },
    /** Test / inspection hook: where the line and its label are. */
    inspect: () => ({
      a,
      b,
      visible: shown.visible,
      x1: shown.x1,
      y1: shown.y1,
      x2: shown.x2,
      y2: shown.y2,
      text: shown.text,
    }),
    dispose() {
      set(-1, -1);
      svg.remove();
      label.remove();
    },
  };
}

/** The range line (createRangeLine()'s answer). */
export type RangeLine = ReturnType<typeof createRangeLine>;
