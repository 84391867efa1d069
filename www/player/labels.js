// Callsign labels: DOM text over the canvas, placed where the renderer says its entities are
// (docs/playback.md, "Inspector and labels"). The page's dearest per-frame cost is DOM text, so the
// labels are few, reused and written only when something changed.
import { findEntity, F_HEALTH, F_FLAGS } from './entities.js';

/** Most callsign labels on screen at once. */
export const MAX_LABELS = 64;
/** Label candidates asked of the renderer per frame: the nearest visible entities. */
const LABEL_CANDIDATES = 256;
/** Label elements kept in the pool (shown + hidden for reuse). */
const LABEL_POOL = 160;

export class Labels {
  #layer;
  #cells;

  /** Adds the label layer to `parent` (after the canvas: above it). */
  constructor(parent) {
    this.#layer = document.createElement('div');
    this.#layer.className = 'rp-labels';
    this.#layer.setAttribute('aria-hidden', 'true');
    parent.append(this.#layer);
    /** Label element by entity id (shown and hidden ones). */
    this.pool = new Map();
    /** Ids labelled in the last frame. */
    this.shown = new Set();
    /** The 64×14 px cells taken this frame (one label per cell). */
    this.#cells = new Set();
  }

  /**
   * Places this frame's labels (`on`: a frame is shown; otherwise every label hides): at most
   * MAX_LABELS, chosen among the nearest visible entities of renderer `r` (`labelsNear`), the
   * `selected` and `followed` entities always first, then the ones shown last frame (stable: a
   * label does not flicker between neighbours), then the rest nearest first; one label per 64×14 px
   * cell; only entities with a callsign in `names`. `frame`: the frame at the playhead (health and
   * alive marks). Labels move by `transform` only (no layout reads).
   */
  place(r, on, names, selected, followed, frame) {
    const shown = new Set();
    if (on) {
      const L = r.labelsNear(LABEL_CANDIDATES);
      const cells = this.#cells;
      cells.clear();
      const place = (id, x, y) => {
        if (shown.has(id) || shown.size >= MAX_LABELS) return;
        const name = names.get(id);
        if (name === undefined) return;
        const cell = Math.floor(x / 64) * 65536 + Math.floor(y / 14);
        if (cells.has(cell)) return;
        cells.add(cell);
        shown.add(id);
        this.#show(id, name, x, y, id === selected, frame);
      };
      for (const id of [selected, followed]) {
        if (id < 0 || shown.has(id)) continue;
        const p = r.labelOf(id);
        if (p.length === 4 && p[3] === 1) place(id, p[1], p[2]);
      }
      const prev = this.shown;
      for (let i = 0; i + 3 < L.length; i += 4) if (prev.has(L[i])) place(L[i], L[i + 1], L[i + 2]);
      for (let i = 0; i + 3 < L.length && shown.size < MAX_LABELS; i += 4) place(L[i], L[i + 1], L[i + 2]);
    }
    for (const id of this.shown) {
      if (shown.has(id)) continue;
      const el = this.pool.get(id);
      if (el && !el.hidden) el.hidden = true;
    }
    this.shown = shown;
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
  #show(id, name, x, y, sel, f) {
    let el = this.pool.get(id);
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

  /** Removes every label (a new replay). */
  clear() {
    for (const el of this.pool.values()) el.remove();
    this.pool.clear();
    this.shown.clear();
  }

  /** Removes the layer. */
  remove() {
    this.#layer.remove();
  }
}
