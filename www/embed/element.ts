// <replay-player>: the custom element form (docs/embedding.md "Custom element").
//
//   <script type="module" src="https://cdn.example/replay-player/element.js"></script>
//   <replay-player src="match.flrep" t="1:35" follow="Iceman" camera="follow" spoilers="off"></replay-player>
//
// Its attributes are the options of create() and of share links (api/options.ts: src, t, end, loop,
// follow, camera, view, speed, autoplay, spoilers, poster, controls, aspect), and `live` (a live
// recording instead of `src`: a segments manifest.json or ws:// wss://, docs/live.md); changes apply live
// (src loads, t seeks, follow / camera / speed / end / loop / controls / aspect change the view;
// view, spoilers, poster and autoplay apply at the next load). The element has the handle's
// methods and getters (player.js), `player` is the handle itself, and every handle event is
// dispatched on the element as a CustomEvent of the same name (`detail`: the payload). The player
// lives in the element's shadow root with its stylesheet; it starts when the element is connected
// and is disposed when it is removed from the document (workers ended, GPU released).
import { embedded } from '../api/embedded.ts';
import type { Controller } from '../api/controller.ts';
import { handleOf, type Player } from '../api/player.ts';
import { mountUI, type MountedUI } from './mount.ts';
import { readOptions } from '../api/options.ts';
import type { PlayerEventMap } from '../lib/types.ts';

/** A time option as api/options.ts reads it: seconds, or a tick. */
type TimeOption = { seconds: number; tick?: undefined } | { tick: number; seconds?: undefined };

/** The options the element reads from its attributes (api/options.ts readOptions()). */
interface ElementOptions {
  t?: TimeOption;
  end?: TimeOption;
  loop?: boolean;
  follow?: string | number;
  camera?: string;
  speed?: number;
  controls?: boolean;
  aspect?: number;
}
/** readOptions()'s answer: the options read, and a sentence for each value it could not use. */
interface ReadOptions {
  options: ElementOptions;
  notices: string[];
}

/** What load() opens: a URL, a File/Blob, bytes, or a live source ({ live }). */
type LoadSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | { live: string };

/** The handle seen by name (the methods and getters the element forwards, METHODS and GETTERS). */
type ByName = { [name: string]: unknown };

const ATTRIBUTES = [
  'src',
  'live',
  't',
  'end',
  'loop',
  'follow',
  'camera',
  'view',
  'speed',
  'autoplay',
  'spoilers',
  'poster',
  'controls',
  'aspect',
];
/** The handle's events (docs/player-api.md), dispatched on the element. */
const EVENTS = [
  'loadstart',
  'progress',
  'info',
  'ready',
  'foldback',
  'backend',
  'error',
  'notice',
  'play',
  'pause',
  'ratechange',
  'statechange',
  'seeking',
  'seeked',
  'timeupdate',
  'ended',
  'events',
  'markers',
  'event',
  'kill',
  'toast',
  'killcam',
  'cameramode',
  'selection',
  'pick',
  'gap',
  'scan',
  'statuschange',
  'live',
] as const satisfies readonly (keyof PlayerEventMap)[];
/** The handle's methods the element has (called on the handle; nothing before it is connected). */
const METHODS = [
  'play',
  'pause',
  'toggle',
  'seek',
  'seekTick',
  'step',
  'setSpeed',
  'follow',
  'setCamera',
  'cameraMode',
  'setClip',
  'getState',
  'describeKill',
  'entityName',
  'screenPosition',
  'onFrame',
  'captureFrame',
] as const satisfies readonly (keyof Player)[];
/** Its getters (undefined before it is connected). */
const GETTERS = [
  'status',
  'error',
  'duration',
  'tick',
  'playing',
  'paused',
  'ended',
  'speed',
  'info',
  'backend',
  'kills',
  'events',
  'gaps',
  'notices',
  'url',
  'clip',
  'selected',
  'diagnostics',
] as const satisfies readonly (keyof Player)[];
/** Attributes that change a playing recording; the others wait for the next load. */
const LIVE = new Set(['t', 'end', 'loop', 'follow', 'camera', 'speed', 'controls', 'aspect']);

/**
 * player.css's `:host` rules, adopted by every element's shadow root at once: until player.css has
 * loaded, an inline host (an unknown element's default) would let the player's box take the width
 * of the host's container, not the element's. A constructed sheet is no `<style>`: a strict CSP
 * allows it. (A page's own rules for replay-player win over `:host`.) null where unsupported.
 */
let hostSheet: CSSStyleSheet | null | undefined;
function hostRules() {
  if (hostSheet === undefined) {
    try {
      hostSheet = new CSSStyleSheet();
      hostSheet.replaceSync(':host { display: block; color-scheme: var(--rp-color-scheme, dark); }');
    } catch {
      hostSheet = null;
    }
  }
  return hostSheet;
}

export class ReplayPlayerElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;
  #box: HTMLDivElement;
  #p: Controller | null;
  #ui: MountedUI | null;
  #pending: Set<string>;
  #ready: boolean;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    const rules = hostRules();
    if (rules && 'adoptedStyleSheets' in root) root.adoptedStyleSheets = [rules];
    this.#box = document.createElement('div');
    this.#box.part = 'player';
    root.append(this.#box);
    this.#p = null;
    this.#ui = null;
    /** Live changes made before the recording was ready: applied once it is. */
    this.#pending = new Set();
    this.#ready = false;
  }

  /** The attributes read as options (api/options.ts), with the notices of those it cannot use. */
  #read(): ReadOptions {
    const raw: Record<string, string | null> = {};
    for (const a of ATTRIBUTES) if (this.hasAttribute(a)) raw[a] = this.getAttribute(a);
    return readOptions(raw);
  }

  connectedCallback() {
    if (this.#p) return;
    const { options } = this.#read();
    const p = embedded(null, this.#box, { ui: false });
    this.#p = p;
    this.#ui = mountUI(p, this.#box, { controls: options.controls !== false, aspect: options.aspect });
    for (const ev of EVENTS) p.on(ev, (detail: unknown) => this.dispatchEvent(new CustomEvent(ev, { detail })));
    p.on('loadstart', () => {
      this.#ready = false;
    });
    p.on('ready', () => {
      this.#ready = true;
      for (const name of this.#pending) this.#apply(name);
      this.#pending.clear();
    });
    const live = this.getAttribute('live');
    const src = this.getAttribute('src');
    if (live) p.load({ live });
    else if (src) this.#load(src);
  }

  disconnectedCallback() {
    // A move within the document is a disconnect and a connect in one task: only a removal ends it.
    queueMicrotask(() => {
      if (!this.isConnected) this.dispose();
    });
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null) {
    if (!this.#p || old === value) return;
    if (name === 'live') {
      if (value) this.#p.load({ live: value });
      return;
    }
    if (name === 'src') {
      if (value && !this.hasAttribute('live')) this.#load(value);
      return;
    }
    if (!LIVE.has(name)) return;
    if (name === 'controls' || name === 'aspect' || this.#ready) this.#apply(name);
    else this.#pending.add(name);
  }

  #load(src: LoadSource, extra: object = {}) {
    const raw: Record<string, string | null> = {};
    for (const a of ATTRIBUTES) if (a !== 'src' && a !== 'live' && this.hasAttribute(a)) raw[a] = this.getAttribute(a);
    this.#pending.clear();
    // (Only while connected: connectedCallback, attributeChangedCallback and load() check #p.)
    return this.#p!.load(src, { ...raw, ...extra });
  }

  /** Applies attribute `name` to the open recording; what it cannot use is a `notice`. */
  #apply(name: string) {
    // (Only while connected, as #p and #ui are: attributeChangedCallback checks, `ready` is its player's.)
    const p = this.#p!;
    const value = this.getAttribute(name);
    const { options, notices }: ReadOptions = readOptions(value === null ? {} : { [name]: value });
    const notice = (text: string) => this.dispatchEvent(new CustomEvent('notice', { detail: { text } }));
    for (const text of notices) notice(text);
    try {
      switch (name) {
        case 't':
          if (options.t?.tick !== undefined) p.seekTick(options.t.tick);
          else if (options.t) p.seek(options.t.seconds);
          break;
        case 'end':
        case 'loop': {
          // The clip from where it starts now (a link's `t`) to `end`, looping or not.
          const all = this.#read().options;
          if (!all.end && !all.loop) p.setClip(null);
          else if (all.end?.tick !== undefined) notice('A live end= is in seconds (tick: applies at the next load).');
          else
            p.setClip({ start: p.clip?.start ?? all.t?.seconds ?? 0, end: all.end?.seconds ?? null, loop: !!all.loop });
          break;
        }
        case 'follow':
          p.follow(options.follow ?? null);
          break;
        case 'camera':
          if (options.camera) p.setCamera(options.camera);
          break;
        case 'speed':
          if (options.speed) p.setSpeed(options.speed);
          break;
        case 'controls':
          this.#ui!.setControls(value === null || options.controls !== false);
          break;
        case 'aspect':
          this.#ui!.setAspect(options.aspect);
          break;
      }
    } catch (e) {
      notice(String((e as { message?: unknown } | null)?.message ?? e));
    }
  }

  /** Opens `src` (a URL, File/Blob or ArrayBuffer) with the attributes' options and `options`. */
  load(src: LoadSource, options: object = {}): Promise<unknown> {
    return this.#p ? this.#load(src, options) : Promise.resolve();
  }

  /** Ends the player (workers, GPU, timers); connecting the element again starts a new one. */
  dispose() {
    const p = this.#p;
    if (!p) return;
    this.#p = null;
    this.#ui?.dispose();
    this.#ui = null;
    p.dispose();
  }

  /** The player's handle (player.js), or null while the element is not connected. */
  get player(): Player | null {
    return this.#p ? handleOf(this.#p) : null;
  }
  /** The replay's address (the `src` attribute); setting it loads that replay. */
  get src() {
    return this.getAttribute('src') ?? '';
  }
  set src(v: string) {
    this.setAttribute('src', String(v));
  }
  /** A live recording's address (the `live` attribute); setting it opens that source. */
  get live() {
    return this.getAttribute('live') ?? '';
  }
  set live(v: string) {
    this.setAttribute('live', String(v));
  }
  get currentTime() {
    return this.#p?.currentTime ?? 0;
  }
  set currentTime(t: number) {
    this.#p?.seek(t);
  }
  /** Listens to a handle event with the handle's `(payload) => …` (the DOM events carry `detail`). */
  on<K extends keyof PlayerEventMap>(ev: K, fn: (payload: PlayerEventMap[K]) => void): () => void;
  on(ev: keyof PlayerEventMap, fn: (payload: PlayerEventMap[keyof PlayerEventMap]) => void): () => void {
    return this.#p?.on(ev, fn) ?? (() => {});
  }
  off<K extends keyof PlayerEventMap>(ev: K, fn: (payload: PlayerEventMap[K]) => void): void;
  off(ev: keyof PlayerEventMap, fn: (payload: PlayerEventMap[keyof PlayerEventMap]) => void): void {
    this.#p?.off(ev, fn);
  }
}

for (const m of METHODS) {
  Object.defineProperty(ReplayPlayerElement.prototype, m, {
    configurable: true,
    writable: true,
    value(this: ReplayPlayerElement, ...args: unknown[]) {
      return (this.player as { [name: string]: (...a: unknown[]) => unknown } | null)?.[m](...args);
    },
  });
}
for (const g of GETTERS) {
  Object.defineProperty(ReplayPlayerElement.prototype, g, {
    configurable: true,
    get(this: ReplayPlayerElement) {
      return (this.player as ByName | null)?.[g];
    },
  });
}

/** The handle's methods and getters the element forwards (METHODS, GETTERS: undefined before it is connected). */
export interface ReplayPlayerElement
  extends Pick<Player, (typeof METHODS)[number]>,
    Readonly<Pick<Player, Exclude<(typeof GETTERS)[number], 'status'>>> {
  readonly status: Player['status'] | undefined;
  addEventListener<K extends keyof ReplayPlayerElementEventMap>(
    type: K,
    listener: (this: ReplayPlayerElement, ev: ReplayPlayerElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ReplayPlayerElementEventMap>(
    type: K,
    listener: (this: ReplayPlayerElement, ev: ReplayPlayerElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

/** The element's events: the handle's, as CustomEvents carrying the payload in `detail`. */
export type ReplayPlayerElementEventMap = Omit<HTMLElementEventMap, keyof PlayerEventMap> & {
  [K in keyof PlayerEventMap]: CustomEvent<PlayerEventMap[K]>;
};

declare global {
  interface HTMLElementTagNameMap {
    'replay-player': ReplayPlayerElement;
  }
}

if (!customElements.get('replay-player')) customElements.define('replay-player', ReplayPlayerElement);
