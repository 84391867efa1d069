// The published handle (docs/player-api.md): what create() gives a site, and `<replay-player>`'s
// `player`. Deliberately narrow: loading and its status, the clock, what the recording holds, the
// camera a link or an embed sets, a clip, a frame as a picture, and diagnostics. The full page and
// the embeds' own UI drive more through the controller behind it (api/controller.ts), which is not
// published. The package's declarations (types/player.d.ts) are generated from this interface.
import { VERSION } from './constants.ts';
import type { Controller } from './controller.ts';
import type { Diagnostics } from '../core/diagnostics.ts';
import type {
  CameraMode,
  Clip,
  Gap,
  KillDescription,
  KillEvent,
  LoadOptions,
  OpenInfo,
  PlayerEventMap,
  PlayerEventName,
  PlayerState,
  PlayerStatus,
  ReplayEvent,
  ReplaySource,
} from '../lib/types.ts';

/** The handle create() returns: one replay on one canvas. */
export interface Player {
  /**
   * Where the player is: 'idle' (nothing loaded yet), 'loading' (a load began: its first frame is
   * not drawable yet), 'ready' (it is), 'failed' (opening, decoding or drawing failed, or a worker
   * crashed: the next load() starts afresh) or 'disposed'. Each change is a `statuschange` event.
   */
  readonly status: PlayerStatus;
  /** The player's version (semantic versioning; what it reads: docs/versions.md), as `VERSION`. */
  readonly version: string;
  /** Why it failed (the `error` event's message) while `status` is 'failed', else null. */
  readonly error: string | null;
  /** Listens to an event; returns the function that stops listening. */
  on<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): () => void;
  off<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): void;
  /** Opens a replay (the previous one is closed) with `options` (docs/embedding.md "Options");
   *  resolves when the open is answered (failures arrive as `error`, options it cannot use as
   *  `notice`). */
  load(src: ReplaySource, options?: LoadOptions): Promise<void>;
  /** Stops the workers and the loop, releases the GPU device and removes the canvas and the UI it
   *  drew; the handle is dead afterwards. */
  dispose(): void;
  /** The open's answer (`info.info`: the recording), or null. */
  readonly info: OpenInfo | null;
  /** 'webgpu' or 'webgl2' once the renderer has started, else ''. */
  readonly backend: '' | 'webgpu' | 'webgl2';
  /** The replay's address (absolute), or '' for a file or bytes. */
  readonly url: string;
  /** The sentences of the last load's `notice` events so far (options it could not use). */
  readonly notices: string[];

  /** Forward at the current speed (from the start when stopped or at the end). */
  play(): void;
  pause(): void;
  /** Pause, or resume the way it was going. */
  toggle(): void;
  /** Seeks to `t` seconds (clamped); resolves with the time once the frame there is decoded. */
  seek(t: number): Promise<number>;
  /** Seeks to tick `tick` of the recording. */
  seekTick(tick: number): Promise<number>;
  /** Pauses and moves `n` ticks. */
  step(n: number): Promise<number>;
  /** 0.25–16; anything not positive is ignored. Ends a kill cam. */
  setSpeed(speed: number): void;
  /** The playhead (seconds); setting it seeks. */
  currentTime: number;
  /** The recording's length (seconds; 0 before one is open). */
  readonly duration: number;
  /** The tick the playhead shows. */
  readonly tick: number;
  readonly playing: boolean;
  readonly paused: boolean;
  /** At the end, or where a clip stopped. */
  readonly ended: boolean;
  readonly speed: number;

  /** Every event known, in time order (spoiler-safe: those reached). */
  readonly events: ReplayEvent[];
  /** Every kill known, in tick order (spoiler-safe: those reached). */
  readonly kills: KillEvent[];
  /** The parts of the recording skipped (damaged, or not sent by a server), in time order. */
  readonly gaps: Gap[];
  /** A kill as a viewer reads it: names, the weapon's name and its time (file strings: text). */
  describeKill(kill: KillEvent): KillDescription;
  /** Entity `id`'s callsign (a file string: show it as text). */
  entityName(id: number): string;
  /** Where entity `id` was drawn in the last frame (CSS px of the player's element), or null. */
  screenPosition(id: number): { x: number; y: number; visible: boolean } | null;
  /** `fn()` after every frame drawn (not while the loop rests); returns the function that stops it. */
  onFrame(fn: () => void): () => void;

  /** The selected entity, or -1. */
  readonly selected: number;
  /** Follows an entity (id, callsign or "#id"); null or -1 follows nothing. Throws for a name nobody has. */
  follow(entity: number | string | null): void;
  cameraMode(): CameraMode;
  /** 'orbit', 'free', 'follow', 'first' or 'kill'; throws on an unknown mode. */
  setCamera(mode: CameraMode): void;

  /** The clip `{start, end, loop}` (seconds), or null. */
  readonly clip: Clip | null;
  /** Sets the clip (null clears it); returns the clip kept. */
  setClip(clip: { start?: number; end?: number | null; loop?: boolean } | null): Clip | null;
  /** What an embedding page may know now (the postMessage `state`). */
  getState(): PlayerState;
  /** The picture at `t` seconds drawn at `width` × `height` px (the canvas alone, without the
   *  labels over it); the playhead and the canvas are as they were afterwards. */
  captureFrame(t: number, width: number, height: number): Promise<ImageBitmap>;
  /** Diagnostics: a snapshot of the state, timings, the decoder worker's counters, a frame drawn
   *  (docs/player-api.md "Diagnostics"). */
  readonly diagnostics: Diagnostics;
}

/** Controller → its handle: one each (create() and <replay-player> give it out). */
const handles = new WeakMap<Controller, Player>();

/** The published handle of controller `c` (the same one each time). */
export function handleOf(c: Controller): Player {
  let h = handles.get(c);
  if (!h) {
    h = new Handle(c);
    handles.set(c, h);
  }
  return h;
}

/** The published handle over a controller: each member forwards (docs/player-api.md). */
export class Handle implements Player {
  #c: Controller;
  constructor(c: Controller) {
    this.#c = c;
  }
  get status() {
    return this.#c.status;
  }
  get version() {
    return VERSION;
  }
  get error() {
    return this.#c.error;
  }
  on<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): () => void {
    return this.#c.on(event, fn);
  }
  off<K extends PlayerEventName>(event: K, fn: (payload: PlayerEventMap[K]) => void): void {
    this.#c.off(event, fn);
  }
  load(src: ReplaySource, options?: LoadOptions) {
    return this.#c.load(src, options);
  }
  dispose() {
    this.#c.dispose();
  }
  get info() {
    return this.#c.info;
  }
  get backend() {
    return this.#c.backend as Player['backend'];
  }
  get url() {
    return this.#c.url;
  }
  get notices() {
    return this.#c.notices;
  }
  play() {
    this.#c.play();
  }
  pause() {
    this.#c.pause();
  }
  toggle() {
    this.#c.toggle();
  }
  seek(t: number) {
    return this.#c.seek(t);
  }
  seekTick(tick: number) {
    return this.#c.seekTick(tick);
  }
  step(n: number) {
    return this.#c.step(n);
  }
  setSpeed(speed: number) {
    this.#c.setSpeed(speed);
  }
  get currentTime() {
    return this.#c.currentTime;
  }
  set currentTime(t: number) {
    this.#c.currentTime = t;
  }
  get duration() {
    return this.#c.duration;
  }
  get tick() {
    return this.#c.tick;
  }
  get playing() {
    return this.#c.playing;
  }
  get paused() {
    return this.#c.paused;
  }
  get ended() {
    return this.#c.ended;
  }
  get speed() {
    return this.#c.speed;
  }
  get events() {
    return this.#c.events;
  }
  get kills() {
    return this.#c.kills;
  }
  get gaps() {
    return this.#c.gaps;
  }
  describeKill(kill: KillEvent) {
    return this.#c.describeKill(kill);
  }
  entityName(id: number) {
    return this.#c.entityName(id);
  }
  screenPosition(id: number) {
    return this.#c.screenPosition(id);
  }
  onFrame(fn: () => void) {
    return this.#c.onFrame(fn);
  }
  get selected() {
    return this.#c.selected;
  }
  follow(entity: number | string | null) {
    this.#c.follow(entity);
  }
  cameraMode() {
    return this.#c.cameraMode();
  }
  setCamera(mode: CameraMode) {
    this.#c.setCamera(mode);
  }
  get clip() {
    return this.#c.clip;
  }
  setClip(clip: { start?: number; end?: number | null; loop?: boolean } | null) {
    return this.#c.setClip(clip as Clip | null);
  }
  getState() {
    return this.#c.getState();
  }
  captureFrame(t: number, width: number, height: number) {
    return this.#c.captureFrame(t, width, height);
  }
  get diagnostics() {
    return this.#c.diagnostics;
  }
}
