// The decoded pieces the page holds and the ticks it asks the worker for (docs/worker-protocol.md,
// `want` and `piece`): the frames at and ahead of the playhead, and nothing else. No DOM, no
// worker: the player hands it the pieces that arrive and sends the `want`s it computes
// (tests/unit/pieces.test.mjs).
import type { RecordingInfo, ReplayEvent } from '../lib/types.ts';
import { upperBound } from './clock.ts';
import type { Playback } from './clock.ts';
import { STRIDE } from './entities.ts';
import type { Gaps, TickGap } from './gaps.ts';
import type { PiecePush, PieceTiming } from '../lib/protocol/decode.ts';

/** Frames held ahead of the playhead while moving: this much wall-clock time at the current speed.
 *  Paused, only the frame at the playhead and the next one. */
const LOOKAHEAD_S = 0.5;
/** Kept ahead even when paused or slow (ticks = this × tick rate): a pause/play does not drop and
 *  re-decode what was just decoded. */
const KEEP_S = 0.5;
/** From this speed on, frames are thinned: one tick in `speed / 2` (at most 8): a 60 fps picture at
 *  16× shows one tick in 16 anyway, and the worker posts, and the page holds, 8× fewer frames. */
const THIN_FROM = 4;
const MAX_THIN = 8;

/** The worker's timings of a piece (diagnostics, ms; the decode protocol's). */
export type { PieceTiming } from '../lib/protocol/decode.ts';

/** A `piece` message (docs/worker-protocol.md): the frames of ticks [from, end) at `stride`, and the
 *  worker's timings (null: none). */
export type PieceMessage = PieceFrames & ({ timing: PieceTiming } | { timing: null });

/** A `piece` message's frames and events: the decode protocol's `piece` push, its events in the
 *  published shape (types/player.d.ts) and the ones it may lack (`skippedEvents`: tests' fakes). */
export type PieceFrames = Omit<PiecePush, 'events' | 'skippedEvents' | 'timing'> & {
  events: ReplayEvent[];
  skippedEvents?: number;
};

/** A piece held: the message, with the id `add()` gave it. */
export type Piece = PieceMessage & { id: number };

/** A frame held: its tick and time, its entity words, a key naming it, and where it lies. */
export interface HeldFrame {
  tick: number;
  t: number;
  frame: Int32Array;
  key: string;
  piece: Piece;
  i: number;
}

/** A `want` (docs/worker-protocol.md): ticks [from, to) at `stride`, in direction `dir`. */
export interface Want {
  from: number;
  to: number;
  stride: number;
  dir: number;
}

/** What the window reads of the clock (core/clock.ts's Playback). */
export type ClockView = Pick<Playback, 'moving' | 'speed' | 'direction'>;

/** The recording's clock in ticks: first and last tick and the tick rate (Hz). One per player,
 *  shared by everything that turns ticks into seconds and back. */
export class Timebase {
  first = 0;
  last = 0;
  rate = 1;

  /** A new recording (its `info.info`). */
  set(i: Pick<RecordingInfo, 'tick_rate_hz' | 'first_tick' | 'last_tick'>): void {
    this.rate = i.tick_rate_hz || 1;
    this.first = i.first_tick;
    this.last = i.last_tick;
  }

  get duration(): number {
    return Math.max(0, (this.last - this.first) / this.rate);
  }

  /** Playback seconds of `tick`. */
  timeOf(tick: number): number {
    return (tick - this.first) / this.rate;
  }

  /** The tick the playhead at `t` seconds shows (t ≥ 0): at most the last one. */
  tickOf(t: number): number {
    return Math.min(this.last, Math.floor(this.first + t * this.rate + 1e-6));
  }

  /** The tick at `t` seconds, clamped to the recording. */
  tickAt(t: number): number {
    return Math.min(this.last, Math.max(this.first, Math.floor(this.first + Math.max(0, t) * this.rate + 1e-6)));
  }
}

/** What the page holds around the playhead for clock `pb` (core/clock.ts) at `rate` Hz: `stride` (1 =
 *  every tick; thinned from THIN_FROM×) and `ahead`, the ticks wanted in the playing direction. A
 *  request [tick, tick + ahead) also brings the first frame at or past its end (the worker's pieces
 *  always do), so paused, 1 tick asks for the frame at the playhead and the next one, however far
 *  apart they are. */
export function wantWindow(pb: ClockView, rate: number): { stride: number; ahead: number; dir: number } {
  const moving = pb.moving;
  const speed = moving ? Math.max(0, pb.speed) : 0;
  const stride = speed >= THIN_FROM ? Math.min(MAX_THIN, Math.floor(speed / 2)) : 1;
  const ahead = moving ? Math.max(2 * stride + 2, Math.ceil(rate * speed * LOOKAHEAD_S)) : 1;
  return { stride, ahead, dir: pb.direction < 0 ? -1 : 1 };
}

export class HeldPieces {
  #tb: Timebase;
  /** Ids given to pieces as they arrive (a frame's key names its piece). */
  #ids = 0;
  /** The last `want` sent ({from, to, stride, dir}), or null. */
  #sent: Want | null = null;
  /** The recording's gaps (gaps.ts): no frame is asked for in them, as if they were held. */
  gaps: Gaps | null;
  /** The pieces held, sorted by `from`; each covers ticks [from, end). */
  list: Piece[] = [];
  /** The generation of the last `want` (a piece answers one). */
  gen = 0;

  /** `gaps`: the ticks never asked for. */
  constructor(tb: Timebase, gaps: Gaps | null = null) {
    this.#tb = tb;
    this.gaps = gaps;
  }

  /** Ticks [lo, hi) whose pieces are kept: the playhead's (`tick`) and the window of clock `pb` in
   *  the playing direction. */
  keepRange(tick: number, pb: ClockView): [number, number] {
    const { ahead, dir } = wantWindow(pb, this.#tb.rate);
    const span = Math.max(ahead, Math.ceil(this.#tb.rate * KEEP_S));
    return dir < 0 ? [tick - span, tick + 2] : [tick, tick + span + 1];
  }

  /** The piece covering integer tick `tick`, the finest one where pieces overlap; with `stride`,
   *  only pieces at most that coarse. */
  at(tick: number, stride = Infinity): Piece | null {
    let best: Piece | null = null;
    for (const p of this.list) {
      if (p.from <= tick && tick < p.end && p.stride <= stride && (!best || p.stride < best.stride)) best = p;
    }
    return best;
  }

  /** What covers `tick` as far as asking goes: the finest piece at most `stride` coarse, or a gap. */
  #span(tick: number, stride: number): Piece | TickGap | null {
    return this.at(tick, stride) ?? this.gaps?.at(tick) ?? null;
  }

  /** Takes piece `m` (a `piece` message): it makes the ones it covers at the same or a coarser stride
   *  redundant. */
  add(msg: PieceMessage): void {
    const m = msg as Piece;
    m.id = ++this.#ids;
    this.list = this.list.filter((q) => !(q.stride >= m.stride && m.from <= q.from && q.end <= m.end));
    this.list.push(m);
    this.list.sort((a, b) => a.from - b.from);
  }

  /** Drops the pieces outside keepRange(tick, pb). */
  prune(tick: number, pb: ClockView): void {
    const [lo, hi] = this.keepRange(tick, pb);
    if (this.list.some((p) => p.end <= lo || p.from >= hi))
      this.list = this.list.filter((p) => p.end > lo && p.from < hi);
  }

  /**
   * The `want` for the playhead at `tick` (clock `pb`), or null when it is the one in flight (and
   * not `force`d): the ticks the window needs and the pieces held do not cover (at the window's
   * stride or finer). Forward: from the first uncovered tick at or after the playhead to `ahead`
   * past it. Rewinding: the ticks before the covered run that holds the playhead, once that run is
   * less than half the window. Computed every frame; a new one only when what is needed changes.
   * An empty request ({from: -1, to: -1}) clears whatever the worker still had queued.
   */
  want(tick: number, pb: ClockView, force = false): Want | null {
    const tb = this.#tb;
    const { stride, ahead, dir } = wantWindow(pb, tb.rate);
    const end = tb.last + 1;
    let from: number;
    let to: number;
    if (dir > 0) {
      from = tick;
      for (let p = this.#span(from, stride), k = 0; p && k < 10000; p = this.#span(from, stride), k++)
        from = 'end' in p ? p.end : p.to;
      to = Math.min(end, tick + ahead);
    } else {
      // The start of the covered run that holds the playhead's frames (tick + 1 back).
      let lo = tick + 2;
      for (let p = this.#span(lo - 1, stride), k = 0; p && k < 10000; p = this.#span(lo - 1, stride), k++) lo = p.from;
      if (lo > tick) {
        // The playhead's own frames are missing.
        to = Math.min(end, tick + 1);
      } else {
        to = lo > tick - ahead / 2 ? lo : tb.first;
      }
      from = Math.max(tb.first, tick - ahead);
    }
    if (from >= to) {
      // Nothing missing (an empty request, -1 so it never matches a real one).
      from = to = -1;
    }
    const s = this.#sent;
    // Unchanged request (or only a little further ahead): what was asked for is in flight.
    if (
      !force &&
      s &&
      s.from === from &&
      s.stride === stride &&
      s.dir === dir &&
      (from === to || (dir > 0 ? to < s.to + Math.max(1, ahead / 4) : to === s.to))
    )
      return null;
    this.#sent = { from, to, stride, dir };
    this.gen++;
    return this.#sent;
  }

  /** Frame at or before integer tick: {tick, t, frame, key, piece, i}, or null when not decoded yet. */
  frameAt(tick: number): HeldFrame | null {
    const p = this.at(tick);
    if (!p) return null;
    return this.frameOf(p, Math.max(0, upperBound(p.ticks, tick) - 1));
  }

  /** Frame `i` of piece `p`. */
  frameOf(p: Piece, i: number): HeldFrame {
    const a = p.offsets[i] * STRIDE;
    const b = p.offsets[i + 1] * STRIDE;
    const tick = p.ticks[i];
    return {
      tick,
      t: this.#tb.timeOf(tick),
      frame: p.entities.subarray(a, b),
      key: `${p.id}:${i}`,
      piece: p,
      i,
    };
  }

  /** The frame after `f`: in its piece, else the first later one in the piece that follows. */
  nextFrame(f: HeldFrame): HeldFrame | null {
    const p = f.piece;
    if (f.i + 1 < p.ticks.length) return this.frameOf(p, f.i + 1);
    const q = this.at(p.end);
    if (!q) return null;
    for (let j = 0; j < q.ticks.length; j++) {
      if (q.ticks[j] > f.tick) return this.frameOf(q, j);
    }
    return null;
  }

  /** Bytes of decoded frames held (the typed arrays of the pieces). */
  heldBytes(): number {
    return this.list.reduce((a, p) => a + p.entities.byteLength + p.ticks.byteLength + p.offsets.byteLength, 0);
  }
}
