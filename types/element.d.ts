// TypeScript declarations of `element.js`: importing it defines `<replay-player>` (docs/embedding.md
// "Custom element"). Its attributes mirror the options (src, t, end, loop, follow, camera, speed,
// autoplay, controls, spoilers, poster, aspect, live; changes apply live), it has the handle's methods and
// getters, and it dispatches the handle's events as DOM `CustomEvent`s whose `detail` is the payload.
//
//   import 'replay-player/element.js';
//   const el = document.querySelector('replay-player');   // ReplayPlayerElement
//   el.addEventListener('kill', (e) => console.log(e.detail.killer));
import type { Player, PlayerEventMap } from './player.js';

/** The element's events: the handle's, as CustomEvents carrying the payload in `detail`. */
export type ReplayPlayerElementEventMap = Omit<HTMLElementEventMap, keyof PlayerEventMap> & {
  [K in keyof PlayerEventMap]: CustomEvent<PlayerEventMap[K]>;
};

/** The handle's methods the element forwards (element.js METHODS; undefined before it is connected). */
export type ElementMethod =
  | 'play'
  | 'pause'
  | 'toggle'
  | 'stop'
  | 'seek'
  | 'seekTick'
  | 'step'
  | 'setSpeed'
  | 'prefetch'
  | 'follow'
  | 'select'
  | 'setCamera'
  | 'setCameraMode'
  | 'cameraMode'
  | 'resetCamera'
  | 'cameraPose'
  | 'setCameraPose'
  | 'startKillCam'
  | 'stopKillCam'
  | 'setClip'
  | 'getState'
  | 'describeKill'
  | 'killText'
  | 'killTime'
  | 'entityName'
  | 'playbackStatus'
  | 'state';

/** The handle's getters the element has (element.js GETTERS). */
export type ElementGetter =
  | 'duration'
  | 'tick'
  | 'playing'
  | 'paused'
  | 'ended'
  | 'speed'
  | 'playbackState'
  | 'info'
  | 'backend'
  | 'kills'
  | 'events'
  | 'notices'
  | 'url'
  | 'clip'
  | 'spoilerSafe'
  | 'revealedUntil'
  | 'selected'
  | 'followed'
  | 'killCamActive';

export interface ReplayPlayerElement
  extends HTMLElement,
    Pick<Player, ElementMethod | 'load' | 'dispose' | 'on' | 'off'>,
    Readonly<Pick<Player, ElementGetter>> {
  /** The replay's address (the `src` attribute); setting it loads that replay. */
  src: string;
  /** A live recording's address (the `live` attribute: a segments manifest.json or ws:// wss://,
   *  docs/live.md); setting it opens that source. */
  live: string;
  /** The playhead (seconds); setting it seeks. */
  currentTime: number;
  /** The player itself, once the element is connected (null before and after). */
  readonly player: Player | null;
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

declare global {
  interface HTMLElementTagNameMap {
    'replay-player': ReplayPlayerElement;
  }
}
