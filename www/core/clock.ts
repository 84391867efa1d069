// The playback state machine (SparkEngine's ReplaySystem playback half, for every format): a pure
// module — no DOM, no worker, no renderer. The shell (player.js) owns one `Playback`, feeds it the
// wall-clock delta each animation frame (`update(dt)`) and draws whatever `time` says.
//
//   Stopped ──start()/play()──► Playing ◄──resume()── Paused ◄──pause()── (any moving state)
//      ▲                          │  ▲                  ▲
//      │ stop() (time 0)          │  │ setSpeed(≤1)     │ rewinding reaches 0 (Paused at 0)
//      │ end reached (time = d)   ▼  │                  │
//      └──────────────────── FastForward (speed > 1)   Rewinding (time decreases at speed)
//
// See docs/playback.md for the full table. Times are seconds of playback (0 … duration).
import { SPEEDS } from './speeds.ts';
import type { PlaybackStatus } from '../lib/types.ts';

export const State = Object.freeze({
  Stopped: 'Stopped',
  Playing: 'Playing',
  Paused: 'Paused',
  Rewinding: 'Rewinding',
  FastForward: 'FastForward',
});
/** The clock's states ('Stopped', 'Playing', 'Paused', 'Rewinding', 'FastForward'). */
export type PlaybackState = (typeof State)[keyof typeof State];

export { SPEEDS };
export const MIN_SPEED = SPEEDS[0];
export const MAX_SPEED = SPEEDS[SPEEDS.length - 1];
/** GetEventsNearTime's default window (seconds either side of the playhead). */
export const DEFAULT_EVENT_WINDOW = 0.1;
/** Kill cam defaults: seconds watched before the kill, slow-motion speed, hold on the kill. */
export const KILLCAM_REWIND = 5;
export const KILLCAM_SPEED = 0.5;
export const KILLCAM_HOLD = 1.2;

// The shell's one binary search (event times here; kill ticks, piece ticks, entity ids in a packed
// frame, timeline columns elsewhere). Allocates nothing: a key function, where one is needed, is a
// module-level constant of the caller's.

/**
 * The first index i of `arr` (ascending by `key`) whose key is not before `x`: `key(arr[i]) >= x`,
 * or `> x` with `after`; the number of elements when there is none. `key` maps an element to what
 * is compared (default: the element itself). With `stride`, `arr` is a flat array of records of
 * that many words and record i is `arr[i * stride]` (the index returned counts records).
 */
export function bisect<T>(
  arr: ArrayLike<T>,
  x: number,
  after = false,
  key: ((v: T) => number) | null = null,
  stride = 1,
): number {
  let lo = 0;
  let hi = stride === 1 ? arr.length : Math.floor(arr.length / stride);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // (Without a key the elements are the numbers compared.)
    const v = key ? key(arr[mid * stride]) : (arr[mid * stride] as number);
    if (after ? v <= x : v < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i with key(arr[i]) >= x (arr ascending); arr.length when none. */
export function lowerBound<T>(arr: ArrayLike<T>, x: number, key: ((v: T) => number) | null = null): number {
  return bisect(arr, x, false, key);
}

/** First index i with key(arr[i]) > x (arr ascending); arr.length when none. */
export function upperBound<T>(arr: ArrayLike<T>, x: number, key: ((v: T) => number) | null = null): number {
  return bisect(arr, x, true, key);
}

/** Index of the frame nearest to `t` in ascending `times` (SeekTo's lower_bound rule: the first
 *  frame at or after t; the last frame past the end); -1 when there are no frames. */
export function frameIndexAt(times: ArrayLike<number>, t: number): number {
  if (!times.length) return -1;
  return Math.min(times.length - 1, lowerBound(times, t));
}

/** The next/previous speed in SPEEDS (clamped at the ends). */
export function nextSpeed(s: number, dir = 1): number {
  if (dir > 0) return SPEEDS.find((v) => v > s + 1e-9) ?? MAX_SPEED;
  for (let i = SPEEDS.length - 1; i >= 0; i--) if (SPEEDS[i] < s - 1e-9) return SPEEDS[i];
  return MIN_SPEED;
}

function fmtSpeed(s: number): string {
  return `${Number(s.toFixed(2))}x`;
}

/** Anything with a time `t` in seconds: what the clock keeps in time order. */
export interface Timed {
  t: number;
}

/** The kill cam in progress: from when it plays, until the kill's time, the hold there, and `data`,
 *  the shell's (the camera to restore). */
export interface KillCam<D = unknown> {
  from: number;
  until: number;
  hold: number;
  held: number;
  phase: 'play' | 'hold';
  prevSpeed: number;
  data: D | null;
}

/** What one step of the clock signals (update()). */
export type ClockSignal = 'buffering' | 'ended' | 'start' | 'killcam-hold' | 'killcam-end';

/** The numbers status() prints (statusFields()); a spoiler-safe view nulls the duration and frames. */
export type StatusFields = Omit<PlaybackStatus, 'text'>;

/** The clock of events `E` (each with its time `t`), whose kill cams carry the shell's data `D`. */
export class Playback<E extends Timed = Timed, D = unknown> {
  duration = 0;
  time = 0;
  state: PlaybackState = State.Stopped;
  speed = 1;
  /** Direction a resume() continues in (+1 forward, -1 backward). */
  resumeDir = 1;
  events: E[] = [];
  eventTimes: number[] = [];
  killCam: KillCam<D> | null = null;
  // Status readout fields the shell fills in (Console_GetStatus).
  frames = 0;
  map = '';
  mode = '';
  camera = '';

  /**
   * `events`: anything with a time `t` in seconds (the shell passes model events with `t` added).
   */
  constructor({ duration = 0, events = [] }: { duration?: number; events?: readonly E[] } = {}) {
    this.load(duration, events);
  }

  /** A new recording: Stopped at 0, speed kept. */
  load(duration: number, events: readonly E[] = []): void {
    this.duration = Number.isFinite(duration) && duration > 0 ? duration : 0;
    this.time = 0;
    this.state = State.Stopped;
    this.resumeDir = 1;
    this.killCam = null;
    this.setEvents(events);
  }

  /** Replaces the event list (sorted by time here, stable). */
  setEvents(events: readonly E[]): void {
    this.events = [...events].filter((e) => Number.isFinite(e?.t)).sort((a, b) => a.t - b.t);
    this.eventTimes = this.events.map((e) => e.t);
  }

  /** Adds events (kept sorted: binary-search insertion). */
  addEvents(events: Iterable<E>): void {
    for (const e of events) {
      if (!Number.isFinite(e?.t)) continue;
      const i = upperBound(this.eventTimes, e.t);
      this.events.splice(i, 0, e);
      this.eventTimes.splice(i, 0, e.t);
    }
  }

  // ---------------------------------------------------------------- queries

  /** Playing, FastForward or Rewinding: the clock moves. */
  get moving(): boolean {
    return this.state === State.Playing || this.state === State.FastForward || this.state === State.Rewinding;
  }
  /** +1 forward, -1 backward, 0 still. */
  get direction(): number {
    if (this.state === State.Rewinding) return -1;
    return this.moving ? 1 : 0;
  }
  /** Stopped at the end of the recording. */
  get ended(): boolean {
    return this.state === State.Stopped && this.duration > 0 && this.time >= this.duration;
  }
  get killCamActive(): boolean {
    return this.killCam !== null;
  }

  /** GetEventsNearTime: events with t in [time - window, time + window]. */
  eventsNear(window = DEFAULT_EVENT_WINDOW, time = this.time): E[] {
    const w = Math.max(0, Number(window) || 0);
    const a = lowerBound(this.eventTimes, time - w);
    const b = upperBound(this.eventTimes, time + w);
    return this.events.slice(a, b);
  }

  /** Events with t in (t0, t1] (t0 < t1): what a forward step from t0 to t1 crossed. */
  eventsBetween(t0: number, t1: number): E[] {
    if (!(t1 > t0)) return [];
    return this.events.slice(upperBound(this.eventTimes, t0), upperBound(this.eventTimes, t1));
  }

  // ---------------------------------------------------------------- transitions

  /** StartPlayback: Playing from time 0 (from any state). */
  start(): void {
    this.endKillCam();
    this.time = 0;
    this.forward();
  }

  /** Plays forward from the current time (from the start when Stopped). */
  play(): void {
    if (this.state === State.Stopped) {
      this.start();
      return;
    }
    this.forward();
  }

  /** PausePlayback: a moving state → Paused (remembers the direction for resume()). */
  pause(): void {
    if (!this.moving) return;
    this.resumeDir = this.direction;
    this.state = State.Paused;
  }

  /** ResumePlayback: Paused → the direction it was paused in. Stopped → start(). */
  resume(): void {
    if (this.state === State.Stopped) {
      this.start();
      return;
    }
    if (this.state !== State.Paused) return;
    if (this.resumeDir < 0 && this.time > 0) this.state = State.Rewinding;
    else this.forward();
  }

  toggle(): void {
    if (this.moving) this.pause();
    else this.resume();
  }

  /** StopPlayback: Stopped at time 0. */
  stop(): void {
    this.endKillCam();
    this.time = 0;
    this.state = State.Stopped;
    this.resumeDir = 1;
  }

  /** Rewinding: plays backwards at the current speed; at time 0 it is Paused at 0. */
  rewind(): void {
    this.endKillCam();
    if (this.time <= 0) {
      this.time = 0;
      this.state = State.Paused;
      this.resumeDir = 1;
      return;
    }
    this.state = State.Rewinding;
  }

  /** FastForward: forward at a speed > 1 (2× when the speed was ≤ 1, else unchanged). */
  fastForward(speed?: number): void {
    const s = speed === undefined ? Math.max(2, this.speed) : Number(speed);
    if (!(s > 1)) throw new RangeError(`fast forward needs a speed above 1 (got ${speed})`);
    this.speed = Math.min(MAX_SPEED, s);
    this.endKillCam();
    this.forward();
  }

  /** SetPlaybackSpeed: a positive multiplier (negative is refused: use rewind()). Ends a kill cam. */
  setSpeed(s: number): void {
    const v = Number(s);
    if (!(v > 0) || !Number.isFinite(v))
      throw new RangeError(`playback speed must be positive (got ${s}); use rewind() to play backwards`);
    this.endKillCam();
    this.speed = Math.min(MAX_SPEED, Math.max(MIN_SPEED, v));
    // Forward motion's state follows the speed: above 1× it is FastForward.
    if (this.state === State.Playing || this.state === State.FastForward) this.forward();
  }

  /** SeekTo: clamps to [0, duration]. A seek while Stopped leaves it Paused there. A seek ends a
   *  kill cam (the viewer took over). */
  seek(t: number): number {
    this.endKillCam();
    const v = Number.isFinite(t) ? t : 0;
    this.time = Math.min(this.duration, Math.max(0, v));
    if (this.state === State.Stopped) {
      this.state = State.Paused;
      this.resumeDir = 1;
    }
    return this.time;
  }

  forward(): void {
    if (this.killCam?.phase === 'hold') this.endKillCam();
    this.state = this.speed > 1 ? State.FastForward : State.Playing;
    this.resumeDir = 1;
    if (this.time >= this.duration && !this.killCam) this.time = 0;
  }

  // ---------------------------------------------------------------- kill cam

  /**
   * StartKillCam for one kill at `killTime`: seeks to killTime - rewind (≥ 0), plays at `speed`
   * (0.5×), and pauses exactly at killTime; after `hold` seconds of wall time there it ends
   * (speed back to 1×, state Paused at killTime). `data` is kept for the shell (camera to restore).
   */
  startKillCam(
    killTime: number,
    {
      rewind = KILLCAM_REWIND,
      speed = KILLCAM_SPEED,
      hold = KILLCAM_HOLD,
      data = null,
    }: { rewind?: number; speed?: number; hold?: number; data?: D | null } = {},
  ): KillCam<D> {
    const until = Math.min(this.duration, Math.max(0, Number(killTime) || 0));
    const from = Math.max(0, until - Math.max(0, Number(rewind) || 0));
    const prevSpeed = this.killCam ? this.killCam.prevSpeed : this.speed;
    this.killCam = { from, until, hold: Math.max(0, hold), held: 0, phase: 'play', prevSpeed, data };
    this.time = from;
    this.speed = speed;
    this.state = speed > 1 ? State.FastForward : State.Playing;
    this.resumeDir = 1;
    return this.killCam;
  }

  /** StopKillCam: speed back to 1×, Paused where it is. Returns the kill cam that ended, or null. */
  stopKillCam(): KillCam<D> | null {
    const k = this.endKillCam();
    if (k && this.moving) this.pause();
    return k;
  }

  endKillCam(): KillCam<D> | null {
    const k = this.killCam;
    if (!k) return null;
    this.killCam = null;
    this.speed = 1;
    return k;
  }

  // ---------------------------------------------------------------- the clock

  /**
   * UpdatePlayback: advances by dt × speed (backwards when Rewinding). `canReach(t)` (optional)
   * says whether the frame at t is available; when it is not, time does not move ('buffering').
   * Returns the signals of this step: 'buffering', 'ended' (reached the end → Stopped),
   * 'start' (rewinding reached 0 → Paused), 'killcam-hold' (paused on the kill),
   * 'killcam-end' (the kill cam is over).
   */
  update(dt: number, canReach: ((t: number) => boolean) | null = null): ClockSignal[] {
    const out: ClockSignal[] = [];
    const d = Math.max(0, Number(dt) || 0);
    const k = this.killCam;
    if (k && k.phase === 'hold') {
      if (this.state === State.Paused) {
        k.held += d;
        if (k.held >= k.hold) {
          this.endKillCam();
          out.push('killcam-end');
        }
      }
      return out;
    }
    if (!this.moving || d === 0) return out;
    const dir = this.direction;
    let next = this.time + dir * d * this.speed;
    if (k && dir > 0 && next >= k.until) next = k.until;
    next = Math.min(this.duration, Math.max(0, next));
    if (canReach && !canReach(next)) {
      out.push('buffering');
      return out;
    }
    this.time = next;
    if (k && dir > 0 && next >= k.until) {
      this.time = k.until;
      this.state = State.Paused;
      this.resumeDir = 1;
      k.phase = 'hold';
      out.push('killcam-hold');
      if (k.hold <= 0) {
        this.endKillCam();
        out.push('killcam-end');
      }
      return out;
    }
    if (dir > 0 && next >= this.duration) {
      this.time = this.duration;
      this.state = State.Stopped;
      this.resumeDir = 1;
      out.push('ended');
    } else if (dir < 0 && next <= 0) {
      this.time = 0;
      this.state = State.Paused;
      this.resumeDir = 1;
      out.push('start');
    }
    return out;
  }

  // ---------------------------------------------------------------- Console_GetStatus

  /** A snapshot of the numbers status() prints. */
  statusFields(): StatusFields {
    return {
      state: this.state,
      time: this.time,
      duration: this.duration,
      speed: this.speed,
      frames: this.frames,
      events: this.events.length,
      map: this.map,
      mode: this.mode,
      camera: this.camera,
      killCam: this.killCamActive,
    };
  }

  /**
   * Console_GetStatus (docs/playback.md "Status readout"; a player has no recorder: "Recording: NO")
   * of `f` (statusFields(); a spoiler-safe view passes null for the duration and the frames).
   */
  status(f: StatusFields = this.statusFields()): string {
    const lines = [
      '=== Replay System ===',
      'Recording: NO',
      `Playback: ${f.state}`,
      `Playback time: ${f.time.toFixed(1)}s${f.duration === null ? '' : ` / ${f.duration.toFixed(1)}s`}`,
      `Speed: ${fmtSpeed(f.speed)}`,
      `Frames recorded: ${f.frames ?? '—'}`,
      `Events recorded: ${f.events}`,
      `Map: ${f.map || '—'}`,
      `Mode: ${f.mode || '—'}`,
    ];
    if (f.camera) lines.push(`Camera: ${f.camera}`);
    lines.push(`Kill cam: ${f.killCam ? 'ON' : 'OFF'}`);
    return lines.join('\n');
  }
}
