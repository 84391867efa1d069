// The canvas and the renderer that draws on it (docs/renderer.md): started in the render worker (or
// on the page), sized to the element and its devicePixelRatio, told each recording's world, emptied
// for the next, started again on a fresh canvas after the render worker died; and the pointer on it
// (a drag orbits, a pinch or the wheel zooms, a click that did not move picks an entity).
import { createRenderer } from '../bridge/renderer.ts';
import type { AnyRenderer } from '../bridge/renderer.ts';
import type { Spawn } from '../bridge/decoder.ts';

/** How far a finger may move (CSS px) and still tap (select) rather than drag (orbit). */
export const TAP_SLOP_TOUCH = 10;
const CATEGORY: Record<string, number> = { other: 0, aircraft: 1, projectile: 2, ground: 3, character: 4 };

/** How the stage's renderer starts. `spawn`: how the render worker starts (bridge/renderer.ts);
 *  `createRenderer`: what starts it (bridge/renderer.ts's unless a test gives its own). */
export interface StageOptions {
  forceWebgl?: boolean;
  renderInPage?: boolean;
  spawn?: Spawn;
  createRenderer?: typeof createRenderer;
}

/** What the stage tells its owner: the renderer started; the render worker died; the renderer could
 *  not start; the render worker's proxy queued a call or got a reply; a click (`shift`: with Shift
 *  held) picked entity `id` (-1: none). */
export interface StageEvents {
  started(): void;
  died(message: string): void;
  failed(e: unknown): void;
  activity(kind: string): void;
  picked(id: number, shift: boolean): void;
}

/** What `setWorld` reads of a recording's info (the decoder's RecordingInfo). */
export interface WorldInfo {
  world?: { kind: string; radius_m?: number } | null;
  position_quantum_m: number;
  entity_types: readonly { index: number; category: string }[];
}

export class Stage {
  #element: HTMLElement;
  #opts: StageOptions;
  #on: StageEvents;
  #token: number;
  #stopped: boolean;
  #ro: ResizeObserver;
  #dpr: { q: MediaQueryList; onChange: () => void } | null;
  #unbindPointer: () => void;
  canvas: HTMLCanvasElement;
  renderer: AnyRenderer | null;
  backend: string;
  build: string;
  inWorker: boolean;
  dead: boolean;
  held: boolean;

  /**
   * `element`: the container the canvas fills; `opts`: how the renderer starts; `on`: what the
   * stage tells its owner.
   */
  constructor(element: HTMLElement, opts: StageOptions, on: StageEvents) {
    this.#element = element;
    this.#opts = opts;
    this.#on = on;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'rp-canvas';
    this.canvas.setAttribute('aria-label', 'Replay view');
    element.append(this.canvas);
    /** The renderer (bridge/renderer.ts) once it has started; null before, and after it died. */
    this.renderer = null;
    /** Its graphics backend ('webgpu', 'webgl2'), wasm build and whether it draws in a worker. */
    this.backend = '';
    this.build = '';
    this.inWorker = false;
    /** The render worker died: restart() starts a fresh one. */
    this.dead = false;
    /** Export → Video holds the stage (www/features/export/video-frames.ts): the renderer is sized
     *  to the video's, not resized to the element's. */
    this.held = false;
    /** Which start is the current one (a dead renderer's late news is ignored). */
    this.#token = 0;
    this.#stopped = false;
    this.#ro = new ResizeObserver(() => this.resize());
    this.#ro.observe(element);
    this.#dpr = null;
    this.#watchDpr();
    this.#unbindPointer = this.#bindPointer();
  }

  /** Starts the renderer on the canvas; `on.started()` once it can draw. */
  async start(): Promise<void> {
    try {
      const token = ++this.#token;
      const r = await (this.#opts.createRenderer ?? createRenderer)(this.canvas, {
        forceWebgl: !!this.#opts.forceWebgl,
        inPage: !!this.#opts.renderInPage,
        spawn: this.#opts.spawn,
        // The render worker died (a trap): say so; the next load starts a fresh one.
        onFatal: (message) => {
          if (this.#stopped || token !== this.#token) return;
          this.renderer = null;
          this.dead = true;
          this.#on.died(message);
        },
      });
      if (this.#stopped) {
        r.renderer.free();
        return;
      }
      if (r.canvas && r.canvas !== this.canvas) this.canvas = r.canvas;
      this.renderer = r.renderer;
      this.backend = r.backend;
      this.build = r.build;
      this.inWorker = r.inWorker;
      // The render worker's proxy reports every queued call and every reply: the loop wakes.
      if (r.inWorker) r.renderer.onActivity = (kind) => this.#on.activity(kind);
      this.resize();
      this.#on.started();
    } catch (e) {
      this.#on.failed(e);
    }
  }

  /** After the render worker died: a fresh canvas (one handed to a worker cannot be handed again)
   *  and a fresh renderer on it. */
  restart(): void {
    this.dead = false;
    const fresh = this.canvas.cloneNode(false) as HTMLCanvasElement;
    this.canvas.replaceWith(fresh);
    this.canvas = fresh;
    this.start();
  }

  /** Tells the renderer the recording's world (`info.info`): its shape, entity categories, and an
   *  orbit camera on nothing. Throws what the renderer throws. */
  setWorld(info: WorldInfo): void {
    // (Called once the renderer has started.)
    const r = this.renderer as AnyRenderer;
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
  }

  /**
   * The orbit camera fitted to the entities (the renderer's fit frames them in its vertical field of
   * view): on a canvas taller than wide (a phone upright) it backs off by height / width, so that
   * the narrower horizontal field holds them too.
   */
  fitCamera(): void {
    // (Called once the renderer has started.)
    const r = this.renderer as AnyRenderer;
    r.resetCamera();
    const aspect = this.canvas.clientWidth / this.canvas.clientHeight;
    if (aspect > 0 && aspect < 1) r.zoom(1000 * Math.log(1 / aspect));
  }

  /** Empties the picture (the old replay's entities and trails). */
  clear(): void {
    // (Called once the renderer has started.)
    const r = this.renderer as AnyRenderer;
    try {
      const none = new Int32Array(0);
      r.setFrames(none, 0, none, 0);
      r.setGhostFrames(none, 0, none, 0);
      r.setTime(0);
      r.clearTrails();
      r.setSelected(-1);
      r.follow(-1);
      // A new file starts with the orbit camera, whatever the last one was left in.
      r.setCameraMode('orbit');
    } catch (e) {
      console.warn(e);
    }
  }

  resize(): void {
    // Export → Video sizes the renderer to the video's while it holds the stage (`held`).
    if (!this.renderer || this.held) return;
    const w = Math.max(1, this.#element.clientWidth);
    const h = Math.max(1, this.#element.clientHeight);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    try {
      this.renderer.resize(w, h, window.devicePixelRatio || 1);
    } catch (e) {
      console.warn(e);
    }
  }

  #watchDpr(): void {
    const q = matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
    const onChange = () => {
      this.resize();
      this.#watchDpr();
    };
    q.addEventListener('change', onChange, { once: true });
    this.#dpr = { q, onChange };
  }

  /** Listens on the element for the pointer on the canvas; returns the function that stops. */
  #bindPointer(): () => void {
    const pointers = new Map<number, { x: number; y: number }>();
    let pinch = 0;
    let down: { x: number; y: number; moved: boolean; slop: number } | null = null;
    const local = (e: PointerEvent) => {
      const r = this.canvas.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const onDown = (e: PointerEvent) => {
      if (e.target !== this.canvas) return;
      this.canvas.setPointerCapture?.(e.pointerId);
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      // A tap selects: a finger may move up to TAP_SLOP_TOUCH px (a mouse 4) before it drags.
      const slop = e.pointerType === 'touch' ? TAP_SLOP_TOUCH : 4;
      down = pointers.size === 1 ? { x: e.clientX, y: e.clientY, moved: false, slop } : null;
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = Math.hypot(a.x - b.x, a.y - b.y);
      }
    };
    const onMove = (e: PointerEvent) => {
      const p = pointers.get(e.pointerId);
      const r = this.renderer;
      if (!p || !r) return;
      const dx = e.clientX - p.x;
      const dy = e.clientY - p.y;
      p.x = e.clientX;
      p.y = e.clientY;
      if (pointers.size === 1) {
        if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > down.slop) down.moved = true;
        if (!down || down.moved) r.orbit(dx, dy);
      } else if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        r.zoom((pinch - d) * 4);
        pinch = d;
      }
    };
    const onUp = (e: PointerEvent) => {
      if (!pointers.has(e.pointerId)) return;
      pointers.delete(e.pointerId);
      if (down && !down.moved && e.type === 'pointerup' && this.renderer) {
        const { x, y } = local(e);
        const shift = e.shiftKey;
        this.renderer.request('pick', x, y).then(
          (id) => {
            if (!this.#stopped) this.#on.picked(id, shift);
          },
          () => {},
        );
      }
      down = null;
    };
    const onWheel = (e: WheelEvent) => {
      if (e.target !== this.canvas || !this.renderer) return;
      e.preventDefault();
      const scale = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      this.renderer.zoom(e.deltaY * scale);
    };
    const el = this.#element;
    el.addEventListener('pointerdown', onDown);
    el.addEventListener('pointermove', onMove);
    el.addEventListener('pointerup', onUp);
    el.addEventListener('pointercancel', onUp);
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', onUp);
      el.removeEventListener('pointercancel', onUp);
      el.removeEventListener('wheel', onWheel);
    };
  }

  /** Stops for good: the renderer freed, the canvas removed, no more listening. */
  dispose(): void {
    this.#stopped = true;
    this.#ro.disconnect();
    this.#dpr?.q.removeEventListener('change', this.#dpr.onChange);
    this.#unbindPointer();
    try {
      this.renderer?.free();
    } catch {
      /* ignore */
    }
    this.renderer = null;
    this.canvas.remove();
  }
}
