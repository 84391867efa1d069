// The compact controls of an embedded player (docs/embedding.md "Controls"), over the bottom of
// the picture: play / pause, the time, a scrubber with the kill markers (drawn by
// widgets/marker-layer.ts from the handle's `kills`: spoiler-safe, they are only those the playhead has
// reached), speed, camera mode and full screen; and a big play button until the first play. While
// playing they fade out unless the pointer or the focus is on the player (player.css). One
// component for the iframe, the script and the element forms; only the handle's public API.
// File strings (the kill tooltip) reach the DOM as text only.
import type { PlayerStatus } from '../lib/types.ts';
import { fmtTime } from '../widgets/format.ts';
import { SPEEDS } from '../core/clock.ts';
import { CAMERA_MODES, KILL_LEAD_S } from '../api/constants.ts';
import { createMarkerLayer, type MarkerEvent, type MarkerHit } from '../widgets/marker-layer.ts';
import type { Kill } from '../widgets/events.ts';

/** The handle's events the controls listen to, and the payloads they read. */
interface ControlsEvents {
  loadstart: unknown;
  info: unknown;
  ready: unknown;
  markers: readonly Kill[];
  timeupdate: unknown;
  play: unknown;
  pause: unknown;
  ratechange: number;
  cameramode: unknown;
}

/** What the compact controls ask of the player (the public handle, www/api/player.ts). */
export interface ControlsPlayer {
  readonly info: unknown;
  readonly currentTime: number;
  readonly duration: number;
  readonly playing: boolean;
  readonly speed: number;
  readonly spoilerSafe: boolean;
  /** The furthest time the playhead has been at (seconds). */
  readonly revealedUntil: number;
  readonly kills: readonly Kill[];
  killTime(kill: Kill): number;
  killText(kill: Kill): string;
  play(): void;
  pause(): void;
  toggle(): void;
  seek(t: number): unknown;
  prefetch(t: number): void;
  setSpeed(speed: number): void;
  /** A mode from the camera select (the player's own names). */
  setCameraMode(mode: string): void;
  cameraMode(): string;
  /** Where the player is when the controls are mounted. */
  readonly status: PlayerStatus;
  on<K extends keyof ControlsEvents>(ev: K, fn: (payload: ControlsEvents[K]) => void): () => void;
}

/** What createControls() returns. */
export interface Controls {
  dispose(): void;
}

/** The DOM events the controls listen to. */
type ControlEvents = Pick<
  HTMLElementEventMap,
  | 'pointerdown'
  | 'pointermove'
  | 'pointerleave'
  | 'pointerup'
  | 'pointercancel'
  | 'click'
  | 'change'
  | 'fullscreenchange'
>;
/** An element or the document, as the controls listen to them. */
interface ControlTarget {
  addEventListener<K extends keyof ControlEvents>(
    type: K,
    fn: (e: ControlEvents[K]) => void,
    options: AddEventListenerOptions,
  ): void;
}

const CAMERA_NAMES: Record<string, string> = {
  orbit: 'Orbit',
  free: 'Free',
  follow: 'Follow',
  first: 'First person',
  kill: 'Kill cam',
};
/** The scrubber's shortest length when it may not tell the recording's (spoiler-safe), seconds. */
const SAFE_SPAN_S = 60;

/**
 * The seconds the scrubber spans: the recording's duration, or, spoiler-safe (the remaining time
 * is not told), the first of 60 s, 120 s, 240 s… that leaves a quarter's room past `reached`, the
 * furthest the playhead has been; the duration once the playhead has been at the end.
 */
export function scrubSpan(duration: number, spoilerSafe: boolean, reached: number): number {
  if (!spoilerSafe || !(duration > 0) || reached >= duration) return duration;
  let s = SAFE_SPAN_S;
  while (s < reached * 1.25) s *= 2;
  return s;
}

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = className;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function button(className: string, label: string): HTMLButtonElement {
  const b = h('button', className, { type: 'button', 'aria-label': label, title: label });
  b.append(h('span', 'rp-icon', { 'aria-hidden': 'true' }));
  return b;
}

function select(className: string, label: string, options: [string, string][]): HTMLSelectElement {
  const s = h('select', className, { 'aria-label': label, title: label });
  for (const [value, text] of options) {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = text;
    s.append(o);
  }
  return s;
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/**
 * Draws the compact controls into `element` (the player's frame, embed/frame.ts) for the player
 * `player` (the handle). Returns `{ dispose }`. (Test / inspection: the markers' canvas,
 * `.rp-scrub-markers`, answers `inspect()`: www/widgets/marker-layer.ts.)
 */
export function createControls(player: ControlsPlayer, element: HTMLElement): Controls {
  const bar = h('div', 'rp-controls', { role: 'group', 'aria-label': 'Playback' });
  const play = button('rp-btn rp-play', 'Play');
  const time = h('span', 'rp-time');
  const scrub = h('div', 'rp-scrub', {
    role: 'slider',
    tabindex: '0',
    'aria-label': 'Seek',
    'aria-valuemin': '0',
    'aria-valuemax': '0',
    'aria-valuenow': '0',
  });
  const track = h('div', 'rp-scrub-track');
  const fill = h('div', 'rp-scrub-fill');
  track.append(fill);
  const markers = h('canvas', 'rp-scrub-markers', { 'aria-hidden': 'true' });
  const near = h('canvas', 'rp-scrub-near', { 'aria-hidden': 'true' });
  const rail = h('div', 'rp-scrub-rail');
  rail.append(h('div', 'rp-scrub-thumb'));
  const tip = h('div', 'rp-tip', { role: 'tooltip' });
  tip.hidden = true;
  scrub.append(track, markers, near, rail, tip);
  const speed = select(
    'rp-select rp-speed',
    'Speed',
    SPEEDS.map((s): [string, string] => [String(s), `${s}×`]),
  );
  const camera = select(
    'rp-select rp-camera',
    'Camera',
    CAMERA_MODES.map((m): [string, string] => [m, CAMERA_NAMES[m]]),
  );
  const full = button('rp-btn rp-full', 'Full screen');
  full.hidden = !document.fullscreenEnabled;
  bar.append(play, time, scrub, speed, camera, full);
  const big = button('rp-big-play', 'Play');
  big.hidden = true;
  element.append(big, bar);

  const layer = createMarkerLayer<MarkerEvent, Kill>({
    scrubber: scrub,
    canvas: markers,
    overlay: near,
    killTime: (k) => player.killTime(k),
    // The compact scrubber marks kills only: no other events.
    events: () => [],
  });
  const gone = new AbortController();
  const on = <K extends keyof ControlEvents>(target: ControlTarget, ev: K, fn: (e: ControlEvents[K]) => void) =>
    target.addEventListener(ev, fn, { signal: gone.signal });
  let played = false;
  let ready = false;

  // ---------------------------------------------------------------- the clock and the scrubber

  let span = 0;
  const shown = { f: '', time: '', now: '' };
  const setMarkers = () => {
    layer.setKills(player.kills, span);
    layer.setEvents(span);
    layer.setNear(player.currentTime, 1);
  };
  function update() {
    const t = player.currentTime;
    const d = player.duration;
    const s = scrubSpan(d, player.spoilerSafe, Math.max(player.revealedUntil, t));
    if (s !== span) {
      span = s;
      scrub.setAttribute('aria-valuemax', s.toFixed(1));
      setMarkers();
    }
    const fr = s > 0 ? clamp01(t / s) : 0;
    const f = fr.toFixed(5);
    if (f !== shown.f) {
      shown.f = f;
      // Transforms only: moving the fill and the thumb lays nothing out.
      fill.style.transform = `scaleX(${f})`;
      rail.style.transform = `translateX(${(fr * 100).toFixed(3)}%)`;
    }
    // Spoiler-safe: no total, so no remaining time.
    const text = player.spoilerSafe ? fmtTime(t) : `${fmtTime(t)} / ${fmtTime(d)}`;
    if (text !== shown.time) {
      shown.time = text;
      time.textContent = text;
      scrub.setAttribute('aria-valuetext', fmtTime(t));
    }
    const now = t.toFixed(1);
    if (now !== shown.now) {
      shown.now = now;
      scrub.setAttribute('aria-valuenow', now);
    }
  }

  const timeAtX = (clientX: number) => {
    const r = scrub.getBoundingClientRect();
    return r.width > 0 ? clamp01((clientX - r.left) / r.width) * span : 0;
  };
  const hitAt = (e: PointerEvent) => {
    const r = scrub.getBoundingClientRect();
    return { hit: layer.hitTest(e.clientX - r.left, e.clientY - r.top), x: e.clientX - r.left, w: r.width };
  };
  /** Keys go to the player after a click on its controls (a select or the scrubber keeps none). */
  const refocus = () => {
    // (A detached element's root is an element: no active element, and the focus goes to it.)
    if (!element.contains((element.getRootNode() as Document | ShadowRoot).activeElement))
      element.focus({ preventScroll: true });
  };

  let drag: { wasPlaying: boolean } | null = null;
  let pressed: MarkerHit | null = null;
  let raf = 0;
  let pendingX: number | null = null;
  on(scrub, 'pointerdown', (e) => {
    if (e.button !== 0 || !player.info || !(span > 0)) return;
    scrub.setPointerCapture?.(e.pointerId);
    e.preventDefault();
    refocus();
    const { hit } = hitAt(e);
    if (hit?.row === 'kill') {
      pressed = hit;
      return;
    }
    drag = { wasPlaying: player.playing };
    if (drag.wasPlaying) player.pause();
    player.seek(timeAtX(e.clientX));
  });
  on(scrub, 'pointermove', (e) => {
    if (drag) {
      pendingX = e.clientX;
      raf ||= requestAnimationFrame(() => {
        raf = 0;
        if (pendingX !== null && drag) player.seek(timeAtX(pendingX));
        pendingX = null;
      });
      return;
    }
    if (!player.info || !(span > 0)) return;
    const { hit, x, w } = hitAt(e);
    layer.setHovered(hit);
    const t = hit?.row === 'kill' ? Math.max(0, hit.t - KILL_LEAD_S) : timeAtX(e.clientX);
    // Where a click would go: the worker readies that moment.
    player.prefetch(t);
    const more = hit && hit.count > 1 ? ` (+${hit.count - 1} more)` : '';
    tip.textContent = hit?.row === 'kill' ? `${player.killText(hit.kill)}${more}` : fmtTime(timeAtX(e.clientX));
    tip.style.left = `${Math.min(w, Math.max(0, hit?.row === 'kill' ? hit.col.x : x))}px`;
    tip.classList.toggle('rp-tip-kill', hit?.row === 'kill');
    tip.hidden = false;
  });
  on(scrub, 'pointerleave', () => {
    tip.hidden = true;
    layer.setHovered(null);
  });
  const endDrag = (e: PointerEvent) => {
    if (pressed) {
      const { hit } = e.type === 'pointerup' ? hitAt(e) : { hit: null };
      if (hit?.row === 'kill' && hit.col === pressed.col) player.seek(Math.max(0, hit.t - KILL_LEAD_S));
      pressed = null;
      return;
    }
    if (!drag) return;
    cancelAnimationFrame(raf);
    raf = 0;
    pendingX = null;
    if (e.type === 'pointerup') player.seek(timeAtX(e.clientX));
    if (drag.wasPlaying) player.play();
    drag = null;
  };
  on(scrub, 'pointerup', endDrag);
  on(scrub, 'pointercancel', endDrag);

  // ---------------------------------------------------------------- buttons and selects

  const setPlaying = (p: boolean) => {
    play.classList.toggle('rp-on', p);
    const label = p ? 'Pause' : 'Play';
    play.setAttribute('aria-label', label);
    play.title = label;
  };
  on(play, 'click', () => player.toggle());
  on(big, 'click', () => {
    player.play();
    refocus();
  });
  on(speed, 'change', () => {
    player.setSpeed(Number(speed.value));
    refocus();
  });
  on(camera, 'change', () => {
    player.setCameraMode(camera.value);
    camera.value = player.cameraMode();
    refocus();
  });
  const fullscreenNow = () => (element.getRootNode() as Document | ShadowRoot).fullscreenElement === element;
  on(full, 'click', () => {
    if (fullscreenNow()) document.exitFullscreen?.().catch(() => {});
    else element.requestFullscreen?.().catch(() => {});
  });
  on(document, 'fullscreenchange', () => {
    const label = fullscreenNow() ? 'Exit full screen' : 'Full screen';
    full.setAttribute('aria-label', label);
    full.title = label;
    full.classList.toggle('rp-on', fullscreenNow());
  });

  const enable = (on: boolean) => {
    for (const c of [play, speed, camera]) c.disabled = !on;
    scrub.setAttribute('aria-disabled', String(!on));
  };
  const showBig = () => {
    big.hidden = !ready || played || player.playing;
  };
  const showSpeed = (v: number) => {
    const o = [...speed.options].find((x) => Number(x.value) === v);
    if (o) speed.value = o.value;
  };

  // ---------------------------------------------------------------- the player's events

  let nearAt = 0;
  const offs = [
    player.on('loadstart', () => {
      ready = false;
      played = false;
      enable(false);
      setPlaying(false);
      showBig();
      layer.clear();
      span = -1;
      update();
    }),
    player.on('info', () => {
      span = -1;
      update();
    }),
    player.on('ready', () => {
      ready = true;
      enable(true);
      camera.value = player.cameraMode();
      showBig();
    }),
    player.on('markers', (kills) => {
      if (span > 0) layer.setKills(kills, span);
    }),
    player.on('timeupdate', () => {
      update();
      const t = performance.now();
      if (t - nearAt > 100) {
        nearAt = t;
        layer.setNear(player.currentTime, 1);
      }
    }),
    player.on('play', () => {
      played = true;
      setPlaying(true);
      showBig();
    }),
    player.on('pause', () => setPlaying(false)),
    player.on('ratechange', showSpeed),
    player.on('cameramode', () => {
      camera.value = player.cameraMode();
    }),
  ];

  // Mounted while the player may already be under way (create() imports this on first use).
  ready = player.status === 'ready';
  played = player.playing;
  enable(ready);
  setPlaying(player.playing);
  showSpeed(player.speed);
  camera.value = player.cameraMode();
  showBig();
  span = -1;
  update();

  return {
    dispose() {
      for (const off of offs) off();
      gone.abort();
      cancelAnimationFrame(raf);
      layer.dispose();
      bar.remove();
      big.remove();
    },
  };
}
