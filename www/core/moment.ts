// The moment and the view a share link or an embed opens a replay at (docs/embedding.md "Options"):
// where it starts (`t`, or the `poster` still), what it follows and how the camera looks (`follow`,
// `camera`, `view`), how fast it plays and whether it starts by itself (`speed`, `autoplay`), a
// clip that stops or loops (`end`, `loop`), and whether what lies ahead stays hidden (`spoilers`).
//
// The options are read by www/api/options.ts (a stranger's values, checked there); here they are
// applied to one recording at the points where they cost nothing extra: the start time before the
// first `want` (the worker decodes the chunk at `t`, not the first one), the camera once the first
// frame has been drawn and fitted, the clip's end as the clock crosses it. A value that names
// something the recording does not have (a callsign nobody has, a tick past the end) becomes a
// notice, not an error.

import type { CameraMode, Clip, PlayerEventMap } from '../lib/types.ts';
import type { Playback } from './clock.ts';
import type { Timebase } from './pieces.ts';

/** How many numbers a camera pose of each mode has (docs/renderer.md "Camera pose"). */
const POSE_LENGTH: Partial<Record<string, number>> = { orbit: 6, free: 5, follow: 3, first: 2, kill: 3 };

/** A time as api/options.ts reads it: seconds, or a tick. */
export type LinkTime = { seconds: number; tick?: undefined } | { tick: number; seconds?: undefined };

/** The options Moment applies (api/options.ts readOptions()'s `options`, the ones it reads). */
export interface MomentOptions {
  t?: LinkTime;
  end?: LinkTime;
  poster?: LinkTime;
  loop?: boolean;
  follow?: string;
  camera?: CameraMode;
  view?: number[];
  speed?: number;
  autoplay?: boolean;
  spoilers?: boolean;
}

/** What Moment reads and calls on the player (core.ts `Core` is one): the clock it seeks and sets
 *  the speed of, the timebase and length a link's time is read against, who the recording names,
 *  the camera and renderer the link's view goes to, and the events it emits. */
export interface MomentHost {
  readonly tb: Pick<Timebase, 'timeOf'>;
  /** The recording's length in seconds. */
  readonly duration: number;
  readonly pb: Pick<Playback, 'seek' | 'time' | 'speed'>;
  readonly entities: { find(who: unknown): number };
  readonly camera: {
    mode(): CameraMode;
    select(id: number, opts: { follow?: boolean }): void;
    setMode(mode: CameraMode): void;
    startKillCam(): unknown;
  };
  /** The renderer once it has started, else null. */
  readonly renderer: { setCameraPose(pose: Float64Array): unknown } | null;
  emit<K extends keyof PlayerEventMap>(ev: K, detail?: PlayerEventMap[K]): void;
}

export class Moment {
  #p: MomentHost;
  #opts: MomentOptions;
  #applied: boolean;
  /** What the options could not use (one sentence each), as `notice` events said it. */
  notices: string[];
  /** The clip: `{ start, end, loop }` in seconds (end may be null: to the end), or null. */
  clip: Clip | null;
  /** Spoiler-safe: kills, totals and the remaining time show only once the playhead reached them. */
  spoilerSafe: boolean;
  /** The furthest time the playhead has been at (what spoiler-safe views may show). */
  revealedUntil: number;
  /** Play once the first frame can be drawn. */
  autoplay: boolean;
  /** Where playing starts (`t`, else 0), and whether the poster still is shown instead. */
  start: number;
  posterPending: boolean;

  constructor(player: MomentHost) {
    this.#p = player;
    /** The options of the recording being opened (readOptions()'s `options`), or {}. */
    this.#opts = {};
    this.notices = [];
    /** The view options were applied to this recording's first frame. */
    this.#applied = false;
    this.clip = null;
    this.spoilerSafe = false;
    this.revealedUntil = 0;
    this.autoplay = false;
    this.start = 0;
    this.posterPending = false;
  }

  /** Options for the next recording opened (a new load forgets the last one's), and the notices
   *  reading them gave (the ones opening gives are added). */
  set(options: MomentOptions | null | undefined, notices: readonly string[] = []): void {
    this.#opts = options ?? {};
    this.notices = [...notices];
    this.#applied = false;
    this.clip = null;
    this.spoilerSafe = this.#opts.spoilers === false;
    this.revealedUntil = 0;
    this.autoplay = !!this.#opts.autoplay;
    this.start = 0;
    this.posterPending = false;
  }

  /** Seconds of a link's time (`{seconds}` or `{tick}`), clamped to the recording, or null. */
  #seconds(t: LinkTime | undefined): number | null {
    if (!t) return null;
    const p = this.#p;
    const s = t.tick !== undefined ? p.tb.timeOf(t.tick) : t.seconds;
    if (!Number.isFinite(s)) return null;
    if (s > p.duration + 1e-9) {
      const what = t.tick !== undefined ? `tick ${t.tick}` : `${t.seconds} s`;
      // Spoiler-safe: not even the length.
      const len = this.spoilerSafe ? '' : ` (${p.duration.toFixed(1)} s)`;
      this.#notice(`The link's time ${what} is past the end of this recording${len}.`);
      return p.duration;
    }
    return Math.max(0, s);
  }

  #notice(text: string): void {
    this.notices.push(text);
    this.#p.emit('notice', { text });
  }

  /**
   * The recording is open, nothing is asked of the worker yet: the clock starts at `t` (or at the
   * poster's time), so that the first chunk decoded is that moment's. Speed and the clip are set.
   */
  opened(): void {
    const p = this.#p;
    const o = this.#opts;
    const start = this.#seconds(o.t);
    const poster = this.#seconds(o.poster);
    this.start = start ?? 0;
    // A poster is the still before play; autoplay plays from the start at once instead.
    this.posterPending = poster !== null && !this.autoplay;
    const at = this.posterPending ? poster : start;
    if (at !== null && at > 0) p.pb.seek(at);
    this.revealedUntil = p.pb.time;
    if (o.speed !== undefined) {
      p.pb.speed = o.speed;
      p.emit('ratechange', o.speed);
    }
    if (o.end || o.loop) {
      const end = this.#seconds(o.end);
      const from = start ?? 0;
      if (end !== null && end <= from) {
        this.#notice(`The clip's end (${end.toFixed(1)} s) is not after its start (${from.toFixed(1)} s): ignored.`);
      } else {
        this.clip = { start: from, end, loop: !!o.loop };
      }
    }
  }

  /**
   * The first frame was drawn (and the camera fitted to the scene): the link's view goes on top,
   * in order: what is followed, the camera mode, its pose.
   */
  firstFrame(): void {
    if (this.#applied) return;
    this.#applied = true;
    const p = this.#p;
    const o = this.#opts;
    const r = p.renderer;
    if (!r) return;
    if (o.follow !== undefined) {
      const id = p.entities.find(o.follow);
      if (id < 0) this.#notice(`Nobody called "${o.follow}" is in this recording: the link's follow is ignored.`);
      else p.camera.select(id, { follow: true });
    }
    if (o.camera && o.camera !== 'kill') p.camera.setMode(o.camera);
    else if (o.camera === 'kill') p.camera.startKillCam();
    if (o.view) {
      // The renderer (in its worker) refuses a pose of another length silently: say so here.
      const mode = p.camera.mode();
      const n = POSE_LENGTH[mode];
      if (n !== undefined && o.view.length !== n)
        this.#notice(`Ignored view=${o.view.join(',')}: the ${mode} camera's view has ${n} numbers.`);
      else {
        try {
          r.setCameraPose(new Float64Array(o.view));
        } catch {
          /* a pose the renderer refuses changes nothing */
        }
      }
    }
  }

  /** The clock moved from `prev` to `now` playing forward: the clip's end stops or loops it (a
   *  loop without an end loops at the recording's end). */
  advanced(prev: number, now: number): 'loop' | 'stop' | null {
    if (now > this.revealedUntil) this.revealedUntil = now;
    const c = this.clip;
    const end = c?.end ?? this.#p.duration;
    if (!c || !(now >= end) || !(prev < end)) return null;
    return c.loop ? 'loop' : c.end === null ? null : 'stop';
  }

  /** Spoiler-safe and the end not reached yet: the recording's length is not shown. */
  get lengthHidden(): boolean {
    return this.spoilerSafe && this.revealedUntil < this.#p.duration;
  }

  /** The playhead rests where the clip stopped it (play again starts the clip again). */
  atClipEnd(t: number): boolean {
    const e = this.clip?.end;
    return e !== null && e !== undefined && Math.abs(t - e) < 1e-6;
  }

  /** Any jump of the clock (a seek): what it passed is revealed only by playing or landing there. */
  jumped(t: number): void {
    if (t > this.revealedUntil) this.revealedUntil = t;
    this.posterPending = false;
  }

  /** In and out points chosen on the page (the Share control): a clip of this recording. */
  setClip(clip: { start?: number; end?: number | null; loop?: boolean } | null): Clip | null {
    const p = this.#p;
    if (!clip) {
      this.clip = null;
      return null;
    }
    const start = Math.max(0, Math.min(p.duration, Number(clip.start) || 0));
    const end = clip.end === null || clip.end === undefined ? null : Math.max(0, Math.min(p.duration, +clip.end));
    if (end !== null && !(end > start)) return this.clip;
    this.clip = { start, end, loop: !!clip.loop };
    return this.clip;
  }
}
