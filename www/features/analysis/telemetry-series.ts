// The samples behind the Analysis panel's plots (www/features/analysis/plots.ts; docs/playback.md "Analysis"):
// one or two entities' altitude, ground speed, vertical speed, health and distance over a window
// of ticks around the playhead. The player holds only the frames at and just ahead of the playhead
// (www/core/pieces.ts), so the window comes from a second decoder worker (the same worker.js,
// the same protocol: docs/worker-protocol.md `open` and `want`) that opens the same source and is
// asked for the window thinned to about SAMPLES_PER_S frames a second. Its pieces are read here and
// dropped: what stays is a handful of numbers per sample, never frames. The player's own worker,
// its want and its pieces are untouched. No DOM.
import { motion, rangeBearing } from './geo.ts';
import type { Vec, World } from './geo.ts';
import type { ReplayEvent } from './event-filter.ts';

/** Samples per second of recording asked for (the `want`'s stride is the tick rate over this). */
export const SAMPLES_PER_S = 10;
/** The packed entity's layout (docs/worker-protocol.md `piece`, crate/src/model/frame.rs). */
const STRIDE = 16;
const [F_POS, F_ORIENT, F_VEL, F_HEALTH, F_FLAGS] = [3, 6, 10, 13, 14];
/** The series a sample holds, besides `t` (SI: m, m/s, health 0–100, m). */
export const SERIES = ['alt', 'groundSpeed', 'verticalSpeed', 'health', 'distance'] as const;
/** A series' key. */
export type SeriesKey = (typeof SERIES)[number];

/** What is read here of the recording's info (the `open` answer's `info`, docs/worker-protocol.md). */
export interface SeriesInfo {
  first_tick: number;
  last_tick: number;
  tick_rate_hz: number;
  position_quantum_m: number;
  velocity_quantum_mps: number;
  world: World;
}

/** An entity of a packed frame in display units (stateIn). */
export interface SeriesState {
  pos: Vec;
  vel: Vec;
  orient: Vec;
  health: number;
  alive: boolean;
}

/** One sample (sampleOf): its tick, its time (s from the first tick) and each series (SI). */
export type Sample = { tick: number; t: number } & { [K in SeriesKey]: number | null };

// The decoder worker's protocol as spoken here (docs/worker-protocol.md): typed locally until
// www/lib/protocol/decode.ts types it for both sides.
/** A request: `open` and `stats` (answered by id), `want` (answered by pieces). */
export type SeriesRequest =
  | {
      id: number;
      method: 'open';
      params: { session: number; url: string } | { session: number; blob: Blob; name: string | undefined };
    }
  | { id: number; method: 'stats'; params: Record<string, never> }
  | {
      method: 'want';
      params: {
        session: number;
        gen: number;
        from: number;
        to: number;
        stride?: number;
        dir?: number;
        entities?: number[] | null;
      };
    };
/** A piece of the decoded recording: frames of ticks [from, end) and the events recorded there. */
export interface Piece {
  type: 'piece';
  /** (Pieces carry no request id.) */
  id?: undefined;
  session: number;
  gen: number;
  from: number;
  end: number;
  ticks: Float64Array;
  offsets: Uint32Array;
  entities: Int32Array;
  events?: ReplayEvent[];
  /** The tick each event was recorded in. */
  eventTicks: Float64Array;
}
/** What the worker posts: an answer (by id), a piece, or a notice not read here. */
export type SeriesReply =
  | { type?: undefined; id: number; result?: unknown; error?: { message?: string } }
  | Piece
  | { type: 'progress' | 'error' | 'fatal' | 'gap' | 'live' | 'scan'; id?: undefined; session?: number };

/** Entity `id` of packed frame `ents[lo*16 .. hi*16)` (sorted by id) in display units, or null. */
export function stateIn(
  ents: Int32Array,
  lo: number,
  hi: number,
  id: number,
  info: Pick<SeriesInfo, 'position_quantum_m' | 'velocity_quantum_mps'>,
): SeriesState | null {
  let a = lo;
  let b = hi;
  while (a < b) {
    const m = (a + b) >> 1;
    if (ents[m * STRIDE] < id) a = m + 1;
    else b = m;
  }
  if (a >= hi || ents[a * STRIDE] !== id) return null;
  const k = a * STRIDE;
  const q = info.position_quantum_m;
  const vq = info.velocity_quantum_mps;
  return {
    pos: [ents[k + F_POS] * q, ents[k + F_POS + 1] * q, ents[k + F_POS + 2] * q],
    vel: [ents[k + F_VEL] * vq, ents[k + F_VEL + 1] * vq, ents[k + F_VEL + 2] * vq],
    orient: [0, 1, 2, 3].map((j) => ents[k + F_ORIENT + j] / 32767),
    // Stored in hundredths of a point (docs/format/flrep.md: 100.0 → 10000), as the inspector reads it.
    health: ents[k + F_HEALTH] / 100,
    alive: (ents[k + F_FLAGS] & 1) === 1,
  };
}

/** One sample of `a` (and the distance to `b`, null without it) at `tick`: {tick, t, alt, …}. */
export function sampleOf(
  tick: number,
  t: number,
  sa: SeriesState,
  sb: SeriesState | null,
  world: World | null | undefined,
): Sample {
  const m = motion(sa, world);
  return {
    tick,
    t,
    alt: m.alt,
    groundSpeed: m.groundSpeed,
    verticalSpeed: m.verticalSpeed,
    health: sa.health,
    distance: sb ? rangeBearing(sa, sb, world).distance : null,
  };
}

/** The entities `a` and `b` as a `want`'s `entities` (−1: not one). */
export const idsOf = (a: number, b: number): number[] => [a, b].filter((id) => id >= 0);

/**
 * A second decoder worker over the player's source. `spawn()` starts worker.js (www/features/analysis/telemetry.ts:
 * it alone may name the worker's URL). `onData()` is told when samples arrived.
 */
export class SeriesSource {
  spawn: () => Worker;
  onData: () => void;
  worker: Worker | null;
  nextId: number;
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>;
  session: number;
  gen: number;
  scanGen: number;
  nextGen: number;
  span: { to: number; sink: (m: Piece) => void; resolve: () => void } | null;
  info: SeriesInfo | null;
  key: string;
  a: number;
  b: number;
  samples: Sample[];
  lo: number;
  hi: number;
  to: number;
  error: string;
  pieces: number;
  frames: number;

  constructor(spawn: () => Worker, onData: () => void) {
    this.spawn = spawn;
    this.onData = onData;
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
    this.session = 0;
    /** The window's request generation; the whole-recording scan's (www/features/analysis/whole-scan.ts); both
     *  from one counter (the worker takes only an increasing one). */
    this.gen = 0;
    this.scanGen = -1;
    this.nextGen = 0;
    /** The scan's span in flight: {to, sink, resolve}, or null. */
    this.span = null;
    /** The open recording's info (`info.info`), or null. */
    this.info = null;
    /** What is being sampled: entities, and the ticks [from, to) asked for. */
    this.key = '';
    this.a = -1;
    this.b = -1;
    /** Samples in tick order and the ticks [lo, hi) they cover (hi: the last piece's end). */
    this.samples = [];
    this.lo = 0;
    this.hi = 0;
    this.to = 0;
    this.error = '';
    /** Pieces read and frames sampled (inspect, the bench). */
    this.pieces = 0;
    this.frames = 0;
  }

  /** (Called with the worker started: open() has just spawned it, stats() checked it.) */
  #call(method: 'open' | 'stats', params: object): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker?.postMessage({ id, method, params });
    });
  }

  #onMessage(m: SeriesReply | undefined) {
    if (m?.id !== undefined && this.pending.has(m.id)) {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error.message ?? 'the telemetry decoder failed'));
      else p?.resolve(m.result);
      return;
    }
    if (m?.type !== 'piece' || m.session !== this.session) return;
    if (m.gen === this.gen) this.#piece(m);
    else if (m.gen === this.scanGen && this.span) {
      const span = this.span;
      span.sink(m);
      if (m.end >= span.to) this.#endSpan();
    }
  }

  #endSpan() {
    const span = this.span;
    this.span = null;
    span?.resolve();
  }

  /** Whether the window around the playhead still waits for pieces (the scan waits then). */
  windowBusy(): boolean {
    return this.a >= 0 && this.hi < this.to;
  }

  /**
   * The scan's span: ticks [from, to) thinned to `stride`, each piece to `sink`; resolves when
   * its last piece is in, or when the window's `want` took the worker over (the scan asks again
   * from where it got to), or when closed.
   */
  scanSpan(
    from: number,
    to: number,
    stride: number,
    sink: (m: Piece) => void,
    entities: number[] | null = null,
  ): Promise<void> {
    if (!this.worker || !this.info) return Promise.reject(new Error(this.error || 'the telemetry decoder is closed'));
    this.#endSpan();
    this.scanGen = ++this.nextGen;
    return new Promise<void>((resolve) => {
      this.span = { to, sink, resolve };
      // (The worker was checked above, just before.)
      this.worker?.postMessage({
        method: 'want',
        params: { session: this.session, gen: this.scanGen, from, to, stride, dir: 1, entities },
      } satisfies SeriesRequest);
    });
  }

  /** Ends the scan's span: the worker's request is cleared unless the window's is newer. */
  scanStop() {
    if (!this.span) return;
    this.#endSpan();
    if (this.scanGen > this.gen && this.worker) {
      this.scanGen = ++this.nextGen;
      this.worker.postMessage({
        method: 'want',
        params: { session: this.session, gen: this.scanGen, from: -1, to: -1 },
      } satisfies SeriesRequest);
    }
  }

  /** The worker's `stats` (its wasm memory, its chunk cache), or null. */
  stats(): Promise<unknown> {
    return this.worker ? this.#call('stats', {}) : Promise.resolve(null);
  }

  /** Opens `src` (a URL or a File/Blob) in the worker; resolves with the info, or rejects. */
  async open(src: string | Blob): Promise<SeriesInfo> {
    this.close();
    this.worker = this.spawn();
    this.worker.addEventListener('message', (e) => this.#onMessage(e.data));
    this.worker.addEventListener('error', (e) => {
      e.preventDefault?.();
      this.error = e.message || 'the telemetry decoder stopped';
      for (const p of this.pending.values()) p.reject(new Error(this.error));
      this.pending.clear();
      this.#endSpan();
      this.onData();
    });
    const session = ++this.session;
    const params =
      typeof src === 'string' ? { session, url: src } : { session, blob: src, name: (src as Partial<File>).name };
    // The worker's answer to `open` (docs/worker-protocol.md): the recording's info.
    const r = (await this.#call('open', params)) as { info: SeriesInfo };
    if (session !== this.session) throw new Error('superseded');
    this.info = r.info;
    return r.info;
  }

  /** Samples `a` (and the distance to `b`) over ticks [from, to): keeps what it has of that, asks
   *  the worker for the rest (only forward of what it has; otherwise everything again). */
  want(a: number, b: number, from: number, to: number): void {
    if (!this.info || !this.worker) return;
    const info = this.info;
    from = Math.max(info.first_tick, Math.floor(from));
    to = Math.min(info.last_tick + 1, Math.ceil(to));
    const key = `${a}|${b}`;
    let ask = from;
    if (key === this.key && from >= this.lo && from <= this.hi) {
      if (to <= this.to) return; // asked for already (or had)
      ask = this.hi;
      const keep = this.samples.findIndex((s) => s.tick >= from);
      this.samples = keep < 0 ? [] : this.samples.slice(keep);
      this.lo = from;
    } else {
      this.samples = [];
      this.lo = this.hi = from;
    }
    this.key = key;
    this.a = a;
    this.b = b;
    this.to = to;
    if (a < 0 || ask >= to) {
      this.onData();
      return;
    }
    const stride = Math.max(1, Math.round((info.tick_rate_hz || 1) / SAMPLES_PER_S));
    this.gen = ++this.nextGen;
    this.worker.postMessage({
      method: 'want',
      // Only the entities sampled are packed and posted (docs/worker-protocol.md `want`).
      params: { session: this.session, gen: this.gen, from: ask, to, stride, dir: 1, entities: idsOf(a, b) },
    } satisfies SeriesRequest);
    // The window goes first: a scan's span in flight is superseded (asked for again later).
    this.#endSpan();
  }

  #piece(m: Piece) {
    const info = this.info;
    if (!info) return; // (a piece answers a want, which is asked only with the info)
    const rate = info.tick_rate_hz || 1;
    const { ticks, offsets, entities } = m;
    this.pieces++;
    for (let i = 0; i < ticks.length; i++) {
      const tick = ticks[i];
      if (tick < this.hi || tick >= this.to) continue;
      const sa = stateIn(entities, offsets[i], offsets[i + 1], this.a, info);
      if (!sa) continue;
      const sb = this.b >= 0 ? stateIn(entities, offsets[i], offsets[i + 1], this.b, info) : null;
      this.samples.push(sampleOf(tick, (tick - info.first_tick) / rate, sa, sb, info.world));
      this.frames++;
    }
    this.hi = Math.max(this.hi, Math.min(m.end, this.to));
    this.onData();
  }

  close() {
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error('closed'));
    this.pending.clear();
    this.#endSpan();
    this.info = null;
    this.key = '';
    this.samples = [];
    this.lo = this.hi = this.to = 0;
  }
}
