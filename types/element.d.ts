// TypeScript declarations of `element.js`: importing it defines `<replay-player>` (docs/embedding.md
// "Custom element"). Its attributes mirror the options (src, t, end, loop, follow, camera, speed,
// autoplay, controls, spoilers, poster, aspect; changes apply live), it has the handle's methods and
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

/** The handle's members the element has (listening is `addEventListener`). */
type ElementHandle = Omit<Player, 'on' | 'off'>;

export interface ReplayPlayerElement extends HTMLElement, ElementHandle {
  /** The replay's URL (the `src` attribute); setting it loads that replay. */
  src: string;
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
