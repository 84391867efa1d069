// The player's controller: one replay on one canvas, with everything the full page (index.html)
// and the embed forms' own UI drive. Internal: a site gets the narrow published handle
// (api/player.ts's Player, `handleOf(controller)`), which forwards to this; nothing here is declared
// in the package (types/). createController() makes one for the full page (its own UI, workers from
// the page's origin, decoding at once); api/create.ts's create() makes one with the embed UI.
//
// Events (`on(name, fn)`): the published Player's (lib/types.ts PlayerEventMap, docs/player-api.md).
// Times are seconds of playback (0 … duration). The clock is core/clock.ts's state machine
// (Stopped/Playing/Paused/Rewinding/FastForward). The inside (core/) is reachable from outside only
// through `diagnostics` (core/diagnostics.ts) and `capture()` (core/capture.ts).
import { Core } from '../core/core.ts';
import { CoreDiagnostics, type Diagnostics } from '../core/diagnostics.ts';
import type { FrameCapture } from '../core/capture.ts';
import type { CoreEventName, CoreEvents, CoreOptions, CoreSource } from '../core/core.ts';
import type { GhostSource } from '../core/ghosts.ts';
import { State } from '../core/clock.ts';
import type { Options } from './options.ts';
import { messageOf } from '../lib/errors.ts';
import { guarded } from '../lib/deadline.ts';
import { CAMERA_MODES } from './constants.ts';
import type { CameraMode, Clip, FlyKeys, KillEvent, LiveSource, PlayerStatus, ReplayEvent } from '../lib/types.ts';

/** captureFrame()'s limit on any one wait (the frame decoded, drawn): it rejects with a sentence. */
const CAPTURE_STALL_MS = 30_000;

export type { FrameCapture, FrameLabel, CapturedFrame } from '../core/capture.ts';
export type { Diagnostics, Snapshot } from '../core/diagnostics.ts';
/** create()'s settings of the page, not options of a recording (api/options.ts does not read them). */
const SETTINGS = new Set(['forceWebgl', 'renderInPage', 'lazy', 'ui', 'spawn', 'whenInView']);

/** Whether `options` (URLSearchParams or an object) holds anything api/options.ts should read. */
function hasOptions(options: unknown): boolean {
  if (options instanceof URLSearchParams) return options.size > 0;
  return !!options && typeof options === 'object' && Object.keys(options).some((k) => !SETTINGS.has(k));
}

/** Whether `mode` is one of the camera modes. */
const isCameraMode = (mode: string): mode is CameraMode => (CAMERA_MODES as readonly string[]).includes(mode);

/** A recording drawn as ghosts: what load() takes but a live source. */
export type GhostInput = Exclude<ReplaySource, LiveSource>;

/** A replay given as bytes (an ArrayBuffer or a view of one) opens as a Blob. */
function asSource(src: GhostInput): GhostSource;
function asSource(src: ReplaySource): CoreSource;
function asSource(src: ReplaySource): CoreSource | GhostSource {
  // (A view over a SharedArrayBuffer is copied by the Blob as any other.)
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) return new Blob([src as ArrayBufferView<ArrayBuffer>]);
  // A URL object opens as its address (the name shown, the link written).
  if (src instanceof URL) return src.href;
  return src;
}

/** What load() opens: a File/Blob, bytes, a URL, or a live source ({live: url}). */
export type ReplaySource = Blob | ArrayBuffer | ArrayBufferView | string | URL | LiveSource;

/** The UI create() mounts on the controller (embed/mount.ts); disposed with it. */
export interface MountedUi {
  dispose(): void;
}

/** create()'s settings and a load's options: the options' vocabulary, as given (read by api/options.ts). */
export type ControllerOptions = CoreOptions & { [option: string]: unknown };

/** The controller (docs/player-api.md has the published part); create() and createController() make one. */
export class Controller {
  #c: Core;
  #diagnostics: Diagnostics;
  #url: string;
  #file: Blob | null = null;
  #ui: MountedUi | null;
  // Counts load() calls: the last one wins, even when an earlier one still reads its options.
  #loads = 0;
  #status: PlayerStatus = 'idle';

  /** `ui(handle)`: mounts the player's own UI (create()) and returns it; null: none. */
  constructor(element: HTMLElement, opts: ControllerOptions, ui: ((c: Controller) => MountedUi) | null = null) {
    this.#c = new Core(element, opts, () => this.play());
    this.#diagnostics = new CoreDiagnostics(this.#c);
    // The lifecycle, from the inside's events (listened to first: `statuschange` comes before them).
    this.#c.on('loadstart', () => this.#setStatus('loading'));
    this.#c.on('ready', () => this.#setStatus('ready'));
    this.#c.on('error', () => this.#setStatus('failed'));
    /** The address of the replay open, or '' (a file from the disk, bytes). */
    this.#url = '';
    /** The player's own UI (embed/mount.ts); disposed with the player. */
    this.#ui = ui?.(this) ?? null;
  }

  // ------------------------------------------------------------ lifecycle, events, loading

  /**
   * Where the player is: 'idle' (nothing loaded yet), 'loading' (a load began: its first frame is
   * not drawable yet), 'ready' (the first frame can be drawn), 'failed' (opening, decoding or
   * drawing failed, or a worker crashed: the next load() starts afresh) or 'disposed' (dead).
   * Each change is a `statuschange` event.
   */
  get status(): PlayerStatus {
    return this.#status;
  }
  /** Why the player failed (the `error` event's message) while `status` is 'failed', else null. */
  get error(): string | null {
    return this.#status === 'failed' ? this.#c.error : null;
  }
  #setStatus(s: PlayerStatus) {
    if (this.#status === s || this.#status === 'disposed') return;
    this.#status = s;
    this.#c.emit('statuschange', s);
  }

  /** Listens to event `ev` (the list above); returns the function that stops listening. */
  on<K extends CoreEventName>(ev: K, fn: (detail: CoreEvents[K]) => void): () => void {
    return this.#c.on(ev, fn);
  }
  off<K extends CoreEventName>(ev: K, fn: (detail: CoreEvents[K]) => void): void {
    this.#c.off(ev, fn);
  }
  /**
   * Opens a File/Blob, bytes (ArrayBuffer), or a URL (string); the previous replay is closed.
   * `options`: where and how it opens (docs/embedding.md "Options": t, end, loop, follow, camera,
   * view, speed, autoplay, spoilers, poster); values that cannot be used arrive as `notice` events.
   */
  load(src: ReplaySource, options: unknown = {}): Promise<void> {
    // The options are read by api/options.ts, fetched only when there are any (a share link, an
    // embed): the full page opening the demo or a file does not download it.
    const mine = ++this.#loads;
    if (!hasOptions(options)) return this.#open(src, {}, []);
    return import('./options.ts').then(({ readOptions }) => {
      if (mine !== this.#loads) return;
      const { options: o, notices } = readOptions(options);
      return this.#open(src, o, notices);
    });
  }
  #open(src: ReplaySource, o: Options, notices: string[]): Promise<void> {
    const c = this.#c;
    c.moment.set(o, notices);
    const source = asSource(src);
    this.#url = typeof source === 'string' ? new URL(source, document.baseURI).href : '';
    this.#file = source instanceof Blob ? source : null;
    // After the caller has had the chance to listen (create() returns first).
    if (notices.length)
      queueMicrotask(() => {
        for (const text of notices) c.emit('notice', { text });
      });
    return c.load(source);
  }
  /** Says `text` as a `notice` event (where the page or the embed shows the player's notices);
   *  for the page's own modules that act on the player (the live view). Text only. */
  notice(text: unknown): void {
    this.#c.emit('notice', { text: String(text) });
  }
  /** The sentences of the last load's `notice` events so far (options it could not use). */
  get notices() {
    return [...this.#c.moment.notices];
  }
  /** The address of the replay open (absolute), or '' for a file from the disk or bytes. */
  get url() {
    return this.#url;
  }
  /** The File/Blob open (a reference: a second reader may open it), or null (a URL). */
  get file() {
    return this.#file;
  }
  /**
   * Draws recording `src` (a File/Blob, bytes or a URL) translucent over this one, on this one's
   * clock: its tick T where this one's tick T is (Compare's ghosts of B over A: docs/playback.md
   * "Comparing two recordings"). `null` removes it; so does opening another recording. Resolves
   * once it is open; rejects (and a `notice` says why) when it cannot be read.
   */
  showGhosts(src: GhostInput | null | undefined): Promise<void> {
    return this.#c.showGhosts(src == null ? null : asSource(src));
  }
  /** The name of the recording drawn as ghosts, or '' (none). */
  get ghosts() {
    return this.#c.ghosts?.name ?? '';
  }
  /** Events of ticks [from, end) read elsewhere from this recording (every event of those ticks,
   *  `recordedAt[k]` the tick event k was recorded in): each joins `events` once. */
  learnEvents(events: ReplayEvent[], from: number, end: number, recordedAt?: ArrayLike<number>): void {
    this.#c.learnEvents(events, from, end, recordedAt);
  }
  /** Stops everything and removes the canvas; the handle is dead afterwards. */
  dispose() {
    if (this.#status === 'disposed') return;
    this.#ui?.dispose();
    this.#ui = null;
    this.#setStatus('disposed');
    this.#c.dispose();
  }

  /** The open's answer (docs/worker-protocol.md `open`: `info.info` is the recording's), or null. */
  get info() {
    return this.#c.info;
  }
  /** The graphics backend ('webgpu', 'webgl2'), '' until the renderer has started. */
  get backend() {
    return this.#c.stage.backend;
  }

  // ------------------------------------------------------------ the clock

  /** Forward at the current speed (from the start when Stopped or at the end). */
  play() {
    const c = this.#c;
    if (!c.info) return;
    if (c.pb.moving && c.pb.direction > 0) return;
    // A poster still is not where playing starts; a clip that stopped plays again from its start.
    if (c.moment.posterPending || c.moment.atClipEnd(c.pb.time)) this.seek(c.moment.clip?.start ?? c.moment.start);
    if (c.pb.state === State.Stopped || c.pb.time >= c.duration) this.seek(0);
    c.loop.restartClock();
    c.cmd((pb) => pb.play());
    c.updateWant(true);
  }
  pause() {
    this.#c.cmd((pb) => pb.pause());
  }
  /** Pause, or resume in the direction it was paused in (from the start when Stopped/at the end). */
  toggle() {
    const c = this.#c;
    if (!c.info) return;
    if (c.pb.moving) {
      this.pause();
      return;
    }
    if (
      c.pb.state === State.Stopped ||
      (c.pb.resumeDir > 0 && (c.pb.time >= c.duration || c.moment.atClipEnd(c.pb.time)))
    ) {
      this.play();
      return;
    }
    c.loop.restartClock();
    c.cmd((pb) => pb.resume());
    c.updateWant(true);
  }
  /** StopPlayback: Stopped at time 0. Resolves like seek(). */
  stop() {
    const c = this.#c;
    if (!c.info) return Promise.resolve(0);
    c.cmd((pb) => pb.stop());
    return c.jumped();
  }
  /** Plays backwards at the current speed (Rewinding); Paused at 0 when it gets there. */
  rewind() {
    const c = this.#c;
    if (!c.info) return;
    c.loop.restartClock();
    c.cmd((pb) => pb.rewind());
    try {
      c.renderer?.clearTrails();
    } catch {
      /* ignore */
    }
    c.updateWant(true);
  }
  /** Forward at `speed` (> 1; default max(2, current)). */
  fastForward(speed?: number): void {
    const c = this.#c;
    if (!c.info) return;
    if (c.pb.state === State.Stopped || c.pb.time >= c.duration) this.seek(0);
    c.loop.restartClock();
    try {
      c.cmd((pb) => pb.fastForward(speed));
    } catch (e) {
      console.warn(messageOf(e));
    }
    c.updateWant(true);
  }
  /** Seeks to `t` seconds (clamped to [0, duration]); resolves (with the time) when the frame
   *  there is decoded. */
  seek(t: number): Promise<number> {
    const c = this.#c;
    if (!c.info) return Promise.resolve(0);
    c.hints.lastSeekDir = Number(t) < c.pb.time ? -1 : 1;
    c.cmd((pb) => pb.seek(t));
    return c.jumped();
  }
  /** Seeks to tick `tick` of the recording. */
  seekTick(tick: number): Promise<number> {
    const c = this.#c;
    if (!c.info) return Promise.resolve(0);
    return this.seek(c.tb.timeOf(tick));
  }
  /** Steps `n` ticks from the current tick (pauses). */
  step(n: number): Promise<number> {
    const c = this.#c;
    if (!c.info) return Promise.resolve(0);
    this.pause();
    return this.seekTick(Math.min(c.tb.last, Math.max(c.tb.first, c.currentTickInt() + n)));
  }
  /** A positive multiplier (0.25–16); anything else is ignored. Ends a kill cam. */
  setSpeed(s: unknown): void {
    const c = this.#c;
    const v = Number(s);
    if (!(v > 0) || !Number.isFinite(v)) return;
    if (!c.info) {
      c.pb.speed = v;
      c.emit('ratechange', v);
      return;
    }
    c.cmd((pb) => pb.setSpeed(v));
    c.updateWant();
  }
  /**
   * A hint that the user may seek to `t` seconds soon (the pointer over the timeline, a kill row):
   * the worker readies that moment, so that the seek neither reads nor decompresses
   * (docs/worker-protocol.md `prefetch`); nothing when the frames there are already held.
   */
  prefetch(t: number): void {
    const c = this.#c;
    if (!c.info || !Number.isFinite(t)) return;
    // The pointer is over the timeline: a click may follow. A resting page's first frame runs at
    // once and would hold the seek's piece behind it (~5 ms here), so the loop stays awake.
    c.loop.wake();
    c.loop.stayAwake();
    c.hints.hint(t);
  }
  get currentTime() {
    return this.#c.pb.time;
  }
  set currentTime(t: number) {
    this.seek(t);
  }
  get duration() {
    return this.#c.duration;
  }
  /** The tick the playhead shows (0 before a recording is open). */
  get tick() {
    return this.#c.currentTickInt();
  }
  get playing() {
    return this.#c.pb.moving;
  }
  get paused() {
    return !this.#c.pb.moving;
  }
  /** At the end, or where a clip stopped. */
  get ended() {
    const c = this.#c;
    return c.pb.ended || (!c.pb.moving && c.moment.atClipEnd(c.pb.time));
  }
  get speed() {
    return this.#c.pb.speed;
  }
  /** 'Stopped', 'Playing', 'Paused', 'Rewinding' or 'FastForward'. */
  get playbackState() {
    return this.#c.pb.state;
  }
  /** The status readout (Console_GetStatus): the clock's fields and `text`. */
  playbackStatus() {
    return this.#c.playbackStatus();
  }
  /** A seek (or another jump of the clock) waits for the frame at its time: 'seeked' ends it. */
  get seekPending() {
    return !!this.#c.pendingSeek;
  }
  /** Whether a page's own changes for a seek (clock, timeline, panels) should wait for its frame
   *  (docs/playback.md, "A seek's page changes wait for its frame"). */
  get pageWaitsForSeek() {
    return this.#c.pageWaitsForSeek;
  }
  /** Milliseconds until a waiting seek's changes show without its frame (≤ 0: due). */
  get seekShowInMs() {
    const c = this.#c;
    return c.seekShowMs - (performance.now() - c.seekStartedAt);
  }

  // ------------------------------------------------------------ events and kills of the recording

  /** Every event known, in time order (each with `t`, its seconds). */
  get events() {
    return this.#c.visibleEvents();
  }
  /** The parts of the recording skipped (damaged, or not sent by a server): `[{from, to, cause,
   *  reason, text}]`, seconds, in time order. */
  get gaps() {
    return this.#c.gaps.list.map((g) => ({ ...g.shown }));
  }
  /** A recording without an index: how far the background kill scan got (`{done, total, kills,
   *  complete}`, chunks and kills), or null (an index gave every kill). */
  get scan() {
    const s = this.#c.scan;
    return s ? { ...s } : null;
  }
  /** Every kill known, in tick order (spoiler-safe: those the playhead has reached). */
  get kills() {
    return this.#c.ledger.visible;
  }
  /** Events within `window` seconds of the playhead (GetEventsNearTime; default 0.1; spoiler-safe:
   *  none beyond `revealedUntil`). */
  eventsNear(window?: number) {
    const m = this.#c.moment;
    const near = this.#c.pb.eventsNear(window);
    return m.spoilerSafe ? near.filter((e) => e.t <= m.revealedUntil) : near;
  }
  /** The kill nearest to `tick` (default: the playhead's; ties: the upcoming one), or null. */
  nearestKill(tick?: number) {
    return this.#c.nearestKill(tick);
  }
  /** Playback seconds of kill `k`. */
  killTime(k: KillEvent): number {
    return this.#c.ledger.killTime(k);
  }
  /** Where [ (`dir` −1) or ] (1) seeks from `now` (default: the playhead): the previous / next
   *  kill's viewing point, or null. */
  killStart(dir: -1 | 1, now: number = this.currentTime) {
    return this.#c.ledger.killStart(dir, now);
  }

  // ------------------------------------------------------------ entities

  entityName(id: number) {
    return this.#c.entities.name(id);
  }
  typeName(index: number) {
    return this.#c.entities.typeName(index);
  }
  weaponName(index: number) {
    return this.#c.entities.weaponName(index);
  }
  /** Whether the recording names kill weapons (a SparkEngine replay holds none). */
  get weaponsRecorded() {
    return this.#c.entities.weaponsRecorded !== false;
  }
  /** "killer → victim (weapon)". */
  killText(k: KillEvent) {
    return this.#c.entities.killText(k);
  }
  entityFactionOf(id: number) {
    return this.#c.entities.factionOf(id);
  }
  /** The participant with id `id` (info.participants' shape), or undefined. */
  participant(id: number) {
    return this.#c.entities.participant(id);
  }
  /** Entity `id` in the frame at the playhead, in display units, or null. */
  entityState(id: number) {
    return this.#c.entityState(id);
  }
  /** Alive or not, by entity id, in the frame at the playhead. */
  aliveNow() {
    return this.#c.aliveNow();
  }
  /** Where entity `id` was drawn in the last frame, `{x, y, visible}` in CSS px of the player's
   *  element, or null (not drawn; the first ask is answered by the next frame). */
  screenPosition(id: number) {
    return this.#c.screenPosition(id);
  }
  /**
   * `fn()` after every frame drawn (not while the loop rests: nothing moves then); returns the
   * function that stops it. For overlays that follow the picture: keep `fn` cheap, it runs in the
   * frame. It does not wake the loop.
   */
  onFrame(fn: () => void): () => void {
    const hooks = this.#c.frameHooks;
    hooks.add(fn);
    return () => hooks.delete(fn);
  }

  // ------------------------------------------------------------ view: selection, cameras, kill cam

  /** The selected entity, or -1. */
  get selected() {
    return this.#c.camera.selected;
  }
  /** The followed entity, or -1. */
  get followed() {
    return this.#c.camera.followId;
  }
  /** Selects entity `id` (-1: none); `follow`: the camera follows it too. */
  select(id: number, opts?: { follow?: boolean }) {
    this.#c.camera.select(id, opts);
  }
  /**
   * Follows an entity: its id, or (from a link or a command) a callsign or `#id`; null or -1 follows
   * nothing. Throws when the name is nobody's in this recording.
   */
  follow(entity: number | string | null): void {
    const c = this.#c;
    if (entity === null || entity === -1) {
      c.camera.select(-1, { follow: true });
      return;
    }
    const id = typeof entity === 'number' ? entity : c.entities.find(entity);
    if (!(id >= 0)) throw new Error(`nobody called "${String(entity).slice(0, 64)}" is in this recording`);
    c.camera.select(id, { follow: true });
  }
  /** 'orbit', 'free', 'follow', 'first' or 'kill' (the kill cam on the nearest kill). */
  setCameraMode(mode: CameraMode) {
    this.#c.camera.setMode(mode);
  }
  cameraMode() {
    return this.#c.camera.mode();
  }
  /** The same as setCameraMode (the embed API's name); throws on an unknown mode. */
  setCamera(mode: string) {
    if (!isCameraMode(mode)) throw new Error(`unknown camera mode "${String(mode).slice(0, 32)}"`);
    this.setCameraMode(mode);
  }
  /** The current mode's camera as numbers (docs/renderer.md "Camera pose") → Promise<number[]>. */
  async cameraPose(): Promise<number[]> {
    const r = this.#c.renderer;
    if (!r) return [];
    return Array.from(await r.request('cameraPose'));
  }
  /** Applies a pose of the current mode (a share link's `view`); a pose that is not one is ignored. */
  setCameraPose(pose: unknown): void {
    const r = this.#c.renderer;
    if (!r || !Array.isArray(pose)) return;
    r.setCameraPose(new Float64Array(pose.map(Number)));
  }
  /** Back to the orbit camera's fitted view, following nothing. */
  resetCamera() {
    this.#c.camera.resetView();
  }
  /** Free camera keys held: {forward, right, up} (−1, 0, 1) and `fast`. */
  setFlyKeys(k: FlyKeys) {
    this.#c.camera.setFlyKeys(k);
  }
  /** Kill cam on `kill` (default: the nearest) from `rewind` seconds before it; returns the kill
   *  or null (docs/playback.md, "Kill cam"). */
  startKillCam(kill?: KillEvent | null, opts?: { rewind?: number }) {
    return this.#c.camera.startKillCam(kill, opts);
  }
  /** Ends the kill cam now (Paused where it is, 1×, camera restored). */
  stopKillCam() {
    this.#c.cmd((pb) => pb.stopKillCam());
  }
  get killCamActive() {
    return this.#c.pb.killCam !== null;
  }
  /** The kill the kill cam is on, or null. */
  get killCamKill() {
    return this.#c.camera.killCamKill;
  }
  /** Seconds a kill cam starts before its kill. */
  get killCamRewind() {
    return this.#c.camera.killCamRewind;
  }

  // ------------------------------------------------------------ links, clips, spoilers

  /** The clip: `{ start, end, loop }` in seconds (`end` null: to the end), or null. Playing
   *  forward stops at `end` (`ended`), or goes back to `start` with `loop`. */
  get clip() {
    const c = this.#c.moment.clip;
    return c ? { ...c } : null;
  }
  /** Sets the clip (the page's in / out points); null clears it. Returns the clip kept. */
  setClip(clip: Clip | null) {
    return this.#c.moment.setClip(clip);
  }
  /** Spoiler-safe (`spoilers: false`): show kills, totals and the remaining time only up to `revealedUntil`. */
  get spoilerSafe() {
    return this.#c.moment.spoilerSafe;
  }
  /** The furthest time the playhead has been at (seconds). */
  get revealedUntil() {
    return this.#c.moment.revealedUntil;
  }
  /** A kill as a viewer reads it: names and the weapon's name (file strings: show them as text). */
  describeKill(k: KillEvent) {
    const e = this.#c.entities;
    return {
      killer: e.name(k.killer),
      victim: e.name(k.victim),
      weapon: e.weaponName(k.weapon_type),
      time: this.killTime(k),
    };
  }
  /** What an embedding page may know of the player now (the postMessage `state`): `duration` is
   *  null while spoiler-safe hides it, `follow` a callsign (or `#id`) that follow() takes back. */
  getState() {
    const c = this.#c;
    const f = c.camera.followId;
    return {
      time: c.pb.time,
      duration: c.moment.lengthHidden ? null : c.duration,
      tick: this.tick,
      playing: c.pb.moving,
      speed: c.pb.speed,
      camera: this.cameraMode(),
      follow: f >= 0 ? c.entities.ref(f) : null,
      url: this.#url || null,
    };
  }

  // ------------------------------------------------------------ the published handle, diagnostics, capture

  /** The name of the recording open: a file's name or the URL, '' before one. */
  get name(): string {
    return this.#c.sourceName;
  }

  /** What tests, benchmarks and a person debugging read of the inside, and its few knobs
   *  (core/diagnostics.ts; docs/player-api.md "Diagnostics"). */
  get diagnostics(): Diagnostics {
    return this.#diagnostics;
  }

  /** Holds the renderer at `width` × `height` to draw frames on demand (core/capture.ts, a chunk
   *  loaded on first use): Export → Video's frames and captureFrame(). release() gives it back. */
  async capture(width: number, height: number): Promise<FrameCapture> {
    const { FrameCapture } = await import('../core/capture.ts');
    return new FrameCapture(this.#c, this, width, height);
  }

  /** The picture at `t` seconds drawn at `width` × `height` (the canvas only, without the labels
   *  over it), as an ImageBitmap; the playhead and the canvas are as they were afterwards. */
  async captureFrame(t: number, width: number, height: number): Promise<ImageBitmap> {
    const cap = await this.capture(width, height);
    try {
      // Bounded as Export → Video's waits are (docs/export.md "Nothing waits forever").
      const at = Math.min(Math.max(0, Number(t) || 0), this.duration);
      const { image } = await cap.frame(at, true, guarded(CAPTURE_STALL_MS));
      if (!image) throw new Error('the renderer drew no picture');
      try {
        return await createImageBitmap(image);
      } finally {
        image.close();
      }
    } finally {
      await cap.release(guarded(CAPTURE_STALL_MS));
    }
  }
}

/**
 * The controller for a page served with the player that draws its own UI (the full page,
 * index.html): no UI mounted; workers from the page's origin; decoding at once. `element`: a
 * positioned container the canvas fills; `opts` as create()'s.
 */
export function createController(
  src: ReplaySource | null,
  element: HTMLElement,
  opts: ControllerOptions = {},
): Controller {
  return open(new Controller(element, opts), src, opts);
}

/** Starts loading `src` (when given) with `opts` on a new controller `p`; returns it. */
export function open(p: Controller, src: ReplaySource | null | undefined, opts: unknown): Controller {
  if (src) p.load(src, opts);
  return p;
}
