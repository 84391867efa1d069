// Callsign labels: DOM text over the canvas, placed where the renderer says its entities are
// (docs/playback.md, "Inspector and labels"). The page's dearest per-frame cost is DOM text, so the
// labels are few, reused and written only when something changed. In a crowd they are decluttered:
// no two label boxes overlap (each box is known without a layout read: its text measured once on a
// canvas), placed by priority, and the ones left out are counted ("+N hidden").
import { findEntity, F_HEALTH, F_FLAGS } from '../core/entities.ts';

/** Most callsign labels on screen at once. */
export const MAX_LABELS = 64;
/** Label candidates asked of the renderer per frame: the nearest visible entities. */
export const LABEL_CANDIDATES = 512;
/** Label elements kept in the pool (shown + hidden for reuse). */
const LABEL_POOL = 160;
/** A label's box relative to its entity's point (style.css .rp-label: margin -24px 0 0 10px,
 *  padding 1px 5px, 11px / 1.3 text over a 2 px bar with 1 px margins ≈ 20.3 px tall). */
export const BOX_DX = 10;
export const BOX_DY = -24;
export const BOX_H = 22;
/** Horizontal padding + border slack added to the measured text width. */
const BOX_PAD_X = 12;
/** The grid the placed boxes are bucketed in (CSS px) for the overlap test. */
const CELL_W = 48;
const CELL_H = 24;

/** Where the renderer drew its entities (bridge/render.ts's proxy, or the in-page renderer). */
export interface LabelPositions {
  /** `[id, x, y, 1]` × at most `max`, nearest first. */
  labelsNear(max: number): ArrayLike<number>;
  /** `[id, x, y, visible]` of `id`, or none. */
  labelOf(id: number): ArrayLike<number>;
}

/** What the labels need of the page: element creation and the layer's computed style (the page's
 *  `window`; a test passes a fake). */
export interface LabelsDom {
  readonly document: { createElement<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] };
  getComputedStyle(el: Element): CSSStyleDeclaration;
}

/** A label element, with what was last written to it (so only what changed is written again). */
export interface LabelElement extends HTMLDivElement {
  rpName: HTMLSpanElement;
  rpText: string | null;
  rpFill: HTMLSpanElement;
  rpHp: number;
  rpBand: string;
  rpX: number;
  rpY: number;
  rpSel: boolean;
  rpDead: boolean;
}

export class Labels {
  #dom: LabelsDom;
  #layer: HTMLDivElement;
  #count: HTMLDivElement;
  #hiddenShown: number;
  #widths: Map<string, number>;
  #ctx: CanvasRenderingContext2D | null;
  #grid: Map<number, number[]>;
  #boxes: Float64Array;
  pool: Map<number, LabelElement>;
  shown: Set<number>;
  hidden: number;

  /** Adds the label layer to `parent` (after the canvas: above it); `dom`: the page's `window`. */
  constructor(parent: Element, dom: LabelsDom) {
    this.#dom = dom;
    const document = dom.document;
    this.#layer = document.createElement('div');
    this.#layer.className = 'rp-labels';
    this.#layer.setAttribute('aria-hidden', 'true');
    this.#count = document.createElement('div');
    this.#count.className = 'rp-labels-hidden';
    this.#count.hidden = true;
    this.#layer.append(this.#count);
    parent.append(this.#layer);
    this.#hiddenShown = -1;
    /** Label element by entity id (shown and hidden ones). */
    this.pool = new Map();
    /** Ids labelled in the last frame. */
    this.shown = new Set();
    /** Candidates left unlabelled in the last frame (the "+N hidden" count). */
    this.hidden = 0;
    /** Text width (CSS px) by name, measured once on a canvas in the label's bold font. */
    this.#widths = new Map();
    this.#ctx = null;
    /** cell key → indices into #boxes of the boxes touching it (this frame). */
    this.#grid = new Map();
    /** x0, y0, x1, y1 per placed box. */
    this.#boxes = new Float64Array(MAX_LABELS * 4);
  }

  /** The width of `name`'s box (text measured once per name). */
  #width(name: string): number {
    let w = this.#widths.get(name);
    if (w === undefined) {
      if (!this.#ctx) {
        const cs = this.#dom.getComputedStyle(this.#layer);
        const family = cs.getPropertyValue('--font').trim() || cs.fontFamily;
        this.#ctx = this.#dom.document.createElement('canvas').getContext('2d');
        // Bold: the selected label's weight, the widest a label gets.
        if (this.#ctx) this.#ctx.font = `600 11px ${family || 'sans-serif'}`;
      }
      w = Math.ceil((this.#ctx ? this.#ctx.measureText(name).width : name.length * 7) + BOX_PAD_X);
      if (this.#widths.size > 4096) this.#widths.clear();
      this.#widths.set(name, w);
    }
    return w;
  }

  /**
   * Places this frame's labels (`on`: a frame is shown; otherwise every label hides): at most
   * MAX_LABELS, chosen among the nearest visible entities of renderer `r` (`labelsNear`) by
   * priority — the `selected` and `followed` entities always, then those in `recent` (entity ids
   * that just fired or died), then the ones shown last frame (stable: a label does not flicker
   * between neighbours), then the rest nearest first — each only where its box overlaps no box
   * placed before it; only entities with a callsign in `names`. The rest are counted (`hidden`,
   * "+N hidden"). `frame`: the frame at the playhead (health and alive marks). Labels move by
   * `transform` only (no layout reads).
   */
  place(
    r: LabelPositions | null,
    on: boolean,
    names: ReadonlyMap<number, string>,
    selected: number,
    followed: number,
    frame: Int32Array | null | undefined,
    recent: ReadonlySet<number> | null | undefined,
  ): void {
    const shown = new Set<number>();
    let hidden = 0;
    if (on && r) {
      const L = r.labelsNear(LABEL_CANDIDATES);
      const grid = this.#grid;
      grid.clear();
      const boxes = this.#boxes;
      let n = 0;
      const fits = (x0: number, y0: number, x1: number, y1: number) => {
        const cy1 = Math.floor(y1 / CELL_H);
        const cx1 = Math.floor(x1 / CELL_W);
        for (let cy = Math.floor(y0 / CELL_H); cy <= cy1; cy++) {
          for (let cx = Math.floor(x0 / CELL_W); cx <= cx1; cx++) {
            const list = grid.get(cx * 65536 + cy);
            if (!list) continue;
            for (const b of list) {
              const o = b * 4;
              if (x0 < boxes[o + 2] && boxes[o] < x1 && y0 < boxes[o + 3] && boxes[o + 1] < y1) return false;
            }
          }
        }
        return true;
      };
      const take = (x0: number, y0: number, x1: number, y1: number) => {
        const o = n * 4;
        boxes[o] = x0;
        boxes[o + 1] = y0;
        boxes[o + 2] = x1;
        boxes[o + 3] = y1;
        const cy1 = Math.floor(y1 / CELL_H);
        const cx1 = Math.floor(x1 / CELL_W);
        for (let cy = Math.floor(y0 / CELL_H); cy <= cy1; cy++) {
          for (let cx = Math.floor(x0 / CELL_W); cx <= cx1; cx++) {
            const key = cx * 65536 + cy;
            const list = grid.get(key);
            if (list) list.push(n);
            else grid.set(key, [n]);
          }
        }
        n++;
      };
      const place = (id: number, x: number, y: number) => {
        if (shown.has(id) || n >= MAX_LABELS) return;
        const name = names.get(id);
        if (name === undefined) return;
        const x0 = Math.round(x) + BOX_DX;
        const y0 = Math.round(y) + BOX_DY;
        const x1 = x0 + this.#width(name);
        const y1 = y0 + BOX_H;
        if (!fits(x0, y0, x1, y1)) return;
        take(x0, y0, x1, y1);
        shown.add(id);
        this.#show(id, name, x, y, id === selected, frame);
      };
      for (const id of [selected, followed]) {
        if (id < 0 || shown.has(id)) continue;
        const p = r.labelOf(id);
        if (p.length === 4 && p[3] === 1) place(id, p[1], p[2]);
      }
      if (recent?.size) for (let i = 0; i + 3 < L.length; i += 4) if (recent.has(L[i])) place(L[i], L[i + 1], L[i + 2]);
      const prev = this.shown;
      if (prev.size) for (let i = 0; i + 3 < L.length; i += 4) if (prev.has(L[i])) place(L[i], L[i + 1], L[i + 2]);
      for (let i = 0; i + 3 < L.length; i += 4) {
        const id = L[i];
        if (n < MAX_LABELS) place(id, L[i + 1], L[i + 2]);
        if (!shown.has(id) && names.has(id)) hidden++;
      }
    }
    for (const id of this.shown) {
      if (shown.has(id)) continue;
      const el = this.pool.get(id);
      if (el && !el.hidden) el.hidden = true;
    }
    this.shown = shown;
    this.hidden = hidden;
    if (this.hidden !== this.#hiddenShown) {
      this.#hiddenShown = this.hidden;
      this.#count.hidden = this.hidden === 0;
      if (this.hidden) this.#count.textContent = `+${this.hidden} hidden`;
    }
    if (this.pool.size > LABEL_POOL) {
      for (const [id, el] of this.pool) {
        if (this.pool.size <= LABEL_POOL) break;
        if (shown.has(id)) continue;
        el.remove();
        this.pool.delete(id);
      }
    }
  }

  /** Shows (creating or reusing) the label of `id` at CSS (x, y); touches only what changed. */
  #show(id: number, name: string, x: number, y: number, sel: boolean, f: Int32Array | null | undefined): void {
    let el = this.pool.get(id);
    if (!el) {
      const document = this.#dom.document;
      el = document.createElement('div') as LabelElement;
      el.className = 'rp-label';
      el.dataset.id = String(id);
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
      this.#layer.append(el);
      this.pool.set(id, el);
    }
    if (el.rpText !== name) {
      el.rpText = name;
      el.rpName.textContent = name;
    }
    if (el.hidden) el.hidden = false;
    if (el.rpSel !== sel) {
      el.rpSel = sel;
      el.classList.toggle('selected', sel);
    }
    const k = f ? findEntity(f, id) : -1;
    // (k ≥ 0 only where there is a frame `f`: the test on `f` tells TypeScript so.)
    if (f && k >= 0) {
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

  /** Removes every label (a new replay). */
  clear(): void {
    for (const el of this.pool.values()) el.remove();
    this.pool.clear();
    this.shown.clear();
    this.hidden = 0;
    this.#hiddenShown = 0;
    this.#count.hidden = true;
  }

  /** Removes the layer. */
  remove(): void {
    this.#layer.remove();
  }
}
