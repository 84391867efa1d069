// The frame of an embedded player (docs/embedding.md "Script", "Custom element"): the container
// the canvas fills becomes focusable (keyboard shortcuts work only while it has focus; the focus
// ring shows), takes the aspect ratio (default 16:9; `fill`: its container's size), links the
// player's stylesheet into its document or shadow root, and shows what the player is doing over
// the picture: opening, an error, and the notices of options it could not use. Text only
// (textContent): messages carry file strings and a link's values.
import type { PlayerStatus } from '../lib/types.ts';

/** The handle's events the frame listens to, and the payloads it reads. */
interface FrameEvents {
  loadstart: unknown;
  progress: { phase: string; loaded: number; total: number };
  ready: unknown;
  error: { message: string };
  notice: { text: string };
  play: unknown;
  pause: unknown;
}

/** What the frame asks of the player (the handle, www/api/player.ts). */
export interface FramePlayer {
  /** The sentences of the last load's `notice` events so far. */
  readonly notices: readonly string[];
  /** Where the player is, and why it failed: what the frame shows when mounted after the load began. */
  readonly status: PlayerStatus;
  readonly error: string | null;
  readonly playing: boolean;
  on<K extends keyof FrameEvents>(ev: K, fn: (payload: FrameEvents[K]) => void): () => void;
}

/** createFrame()'s options: the stylesheet's URL, the aspect ratio, or `fill` the container. */
export interface FrameOptions {
  stylesheet: string;
  aspect?: number | null;
  fill?: boolean;
}

/** What createFrame() returns. */
export interface Frame {
  setAspect(a?: number | null): void;
  /** A message over the picture ('' hides it); `error` styles it as one. */
  message(text: string, error?: boolean): void;
  dispose(): void;
}

/** How long a notice stays (ms). */
const NOTICE_MS = 8000;
/** Most notices shown at once. */
const MAX_NOTICES = 3;

/** The stylesheets this module linked: link -> a promise of whether it loaded. */
const loads = new WeakMap<HTMLLinkElement, Promise<boolean>>();

/** Whether `link` loaded (true) or failed (false), once it has done either. */
function whenLoaded(link: HTMLLinkElement): Promise<boolean> {
  let p = loads.get(link);
  if (!p) {
    // A link already there: `sheet` is set once it has loaded (a failed one is left as it is).
    p = link.sheet
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          link.addEventListener('load', () => resolve(true), { once: true });
          link.addEventListener('error', () => resolve(false), { once: true });
        });
    loads.set(link, p);
  }
  return p;
}

/**
 * Links `href` into `root` (a Document's head or a ShadowRoot), unless it is there already.
 * Returns a promise of whether it loaded (true), failed (false), or null when there is nowhere to
 * link it.
 */
function linkStylesheet(root: Node, href: string): Promise<boolean> | null {
  // (A detached element's root is an element, whose `head` is undefined: nowhere to link it.)
  const into = root instanceof ShadowRoot ? root : (root as Document).head;
  if (!into) return null;
  for (const l of into.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]'))
    if (l.href === href) return whenLoaded(l);
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  const loaded = whenLoaded(link);
  into.prepend(link);
  return loaded;
}

/**
 * What the element is until its stylesheet has loaded (set through the CSSOM, which a strict CSP
 * allows): player.css's own box for `.rp-player`, its content hidden. Without it the unstyled
 * player would take the host page's space as it likes (a block as wide as its container, and
 * controls with nothing to hold them to the picture).
 */
const UNSTYLED = {
  position: 'relative',
  display: 'block',
  overflow: 'hidden',
  visibility: 'hidden',
};

function div(className: string, text?: string): HTMLDivElement {
  const e = document.createElement('div');
  e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The frame of `player` (the handle) on `element`, the container its canvas fills. */
export function createFrame(
  player: FramePlayer,
  element: HTMLElement,
  { stylesheet, aspect, fill = false }: FrameOptions,
): Frame {
  const sheet = linkStylesheet(element.getRootNode(), stylesheet);
  const added = ['rp-player', ...(fill ? ['rp-fill'] : [])];
  // Until the sheet applies, the box it will have (and not a pixel more: `overflow: hidden` keeps
  // aspect-ratio from growing with the content), hidden; its inline styles of its own are kept.
  const unstyled = { ...UNSTYLED, ...(fill ? { height: '100%' } : { 'aspect-ratio': 'var(--rp-aspect, 16 / 9)' }) };
  const pending: string[] = [];
  if (sheet)
    for (const [k, v] of Object.entries(unstyled))
      if (!element.style.getPropertyValue(k)) {
        element.style.setProperty(k, v);
        pending.push(k);
      }
  let styled = !pending.length;
  const applied = (ok: boolean) => {
    if (styled) return;
    styled = true;
    // Loaded: the sheet's rules from now on. Failed: the box stays, its content shows unstyled.
    for (const k of ok ? pending : ['visibility']) element.style.removeProperty(k);
    if (!ok) message(`The player's stylesheet could not be loaded: ${stylesheet}`, true);
  };
  sheet?.then(applied);
  element.classList.add(...added);
  const hadTabIndex = element.hasAttribute('tabindex');
  if (!hadTabIndex) element.tabIndex = 0;
  if (!element.hasAttribute('aria-label')) element.setAttribute('aria-label', 'Replay player');

  const setAspect = (a?: number | null) => {
    if (typeof a === 'number' && Number.isFinite(a) && a > 0) element.style.setProperty('--rp-aspect', String(a));
    else element.style.removeProperty('--rp-aspect');
  };
  setAspect(aspect);

  const status = div('rp-status');
  status.setAttribute('role', 'status');
  status.hidden = true;
  const notices = div('rp-notices');
  notices.setAttribute('aria-live', 'polite');
  element.append(status, notices);

  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** A message over the picture ('' hides it); `error` styles it as one. */
  const message = (text: string, error = false) => {
    status.textContent = text;
    status.classList.toggle('rp-error', !!error);
    status.hidden = !text;
  };
  const notice = (text: string) => {
    const n = div('rp-notice', text);
    notices.append(n);
    // (More than MAX_NOTICES children: there is a first one.)
    while (notices.childElementCount > MAX_NOTICES) (notices.firstElementChild as Element).remove();
    const t = setTimeout(() => {
      timers.delete(t);
      n.remove();
    }, NOTICE_MS);
    timers.add(t);
  };

  const offs = [
    player.on('loadstart', () => {
      notices.replaceChildren();
      message('Opening…');
    }),
    player.on('progress', (m) => {
      if (m.phase === 'download' && m.total > 0) message(`Downloading… ${Math.round((100 * m.loaded) / m.total)}%`);
    }),
    player.on('ready', () => message('')),
    player.on('error', ({ message: m }) => message(`This replay cannot be played: ${m}`, true)),
    player.on('notice', ({ text }) => notice(text)),
    player.on('play', () => element.classList.add('rp-playing')),
    player.on('pause', () => element.classList.remove('rp-playing')),
  ];
  // Mounted after the player started loading (create() imports this on first use).
  if (player.status === 'failed') message(`This replay cannot be played: ${player.error}`, true);
  else if (player.status === 'loading') message('Opening…');
  if (player.playing) element.classList.add('rp-playing');
  for (const text of player.notices) notice(text);

  return {
    setAspect,
    message,
    dispose() {
      for (const off of offs) off();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      status.remove();
      notices.remove();
      // The stylesheet stays: other players of the page may use it.
      if (!styled) for (const k of pending) element.style.removeProperty(k);
      styled = true;
      element.classList.remove(...added, 'rp-playing');
      element.style.removeProperty('--rp-aspect');
      if (!hadTabIndex) element.removeAttribute('tabindex');
    },
  };
}
