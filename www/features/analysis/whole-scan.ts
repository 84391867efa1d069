// The whole-recording scan of the Analysis panel (docs/playback.md "Analysis"): the plots' second
// decoder worker (www/features/analysis/telemetry-series.ts) is asked for the recording from its first tick to its
// last, a span of SPAN_S seconds at a time (the next span once the last one's pieces are in), thinned
// to four samples a bucket (never finer than the plots' 10 a second, never wider than 64 ticks). What stays of a piece: its events (handed on: the player's ledger
// keeps each once, so search and N reach past the chunks the player decoded) and, for the entity
// sampled, a min / max envelope of each series in at most BUCKETS buckets over the recording
// (`Envelope`: a bounded number of points whatever the length). Never more than one span in flight;
// the window around the playhead goes first (a `want` of the window supersedes the span, which is
// asked for again from where it stopped once the window is in); a span is not asked for while the
// player waits for a seek, and while it plays the scan takes short spans and rests between them
// (PLAYING_REST). Cancellable between pieces. No DOM.
import { stateIn, sampleOf, idsOf, SERIES, SAMPLES_PER_S } from './telemetry-series.ts';
import type { Piece, Sample, SeriesInfo, SeriesKey } from './telemetry-series.ts';
import type { ReplayEvent } from './event-filter.ts';

/** Buckets of the envelope over the whole recording (two points each: min and max). */
export const BUCKETS = 600;
/** Seconds of recording asked for at a time (while the player plays: PLAYING_SPAN_S). */
export const SPAN_S = 120;
const PLAYING_SPAN_S = 2;
/** While the player plays, the scan rests this many times as long as its last span took: it takes
 *  an eighth of a core at most, leaving the rest to the player's decoder and renderer workers on a
 *  machine with few cores (docs/performance-history.md "Whole-recording scan"). */
const PLAYING_REST = 7;
/** The stride of a scan that samples no entity (events only: the fewest frames the worker keeps). */
const EVENTS_STRIDE = 64;
/** How often a scan waiting for the window or a seek looks again (ms). */
const WAIT_MS = 50;

/** A series' extremes per bucket, with the tick of each. */
interface Extremes {
  min: Float64Array;
  max: Float64Array;
  minTick: Float64Array;
  maxTick: Float64Array;
}

/** A bucket of Envelope.inspect(): its ticks [from, to), its samples, each series' extremes (null: none). */
export type EnvelopeBucket = { from: number; to: number; count: number } & {
  [K in SeriesKey]?: { min: number; max: number; minTick: number; maxTick: number } | null;
};

/**
 * Min / max per bucket of ticks [first, end) for each series, with the tick of each extreme.
 * `add(sample)` folds a sample in; `points(key)` → [xs (seconds), ys] for a plot (two points a
 * bucket, in time order; null where the bucket has no sample).
 */
export class Envelope {
  first: number;
  rate: number;
  n: number;
  width: number;
  count: Uint32Array;
  series: Record<SeriesKey, Extremes>;

  constructor(first: number, end: number, rate: number, stride: number, n = BUCKETS) {
    this.first = first;
    this.rate = rate || 1;
    const span = Math.max(1, end - first);
    this.n = Math.max(1, Math.min(n, Math.ceil(span / Math.max(1, stride))));
    this.width = span / this.n;
    this.count = new Uint32Array(this.n);
    this.series = {} as Record<SeriesKey, Extremes>; // each key set just below
    for (const k of SERIES)
      this.series[k] = {
        min: new Float64Array(this.n).fill(Number.NaN),
        max: new Float64Array(this.n).fill(Number.NaN),
        minTick: new Float64Array(this.n).fill(-1),
        maxTick: new Float64Array(this.n).fill(-1),
      };
  }

  bucketOf(tick: number): number {
    return Math.min(this.n - 1, Math.max(0, Math.floor((tick - this.first) / this.width)));
  }

  add(s: Sample): void {
    const i = this.bucketOf(s.tick);
    this.count[i]++;
    for (const k of SERIES) {
      const v = s[k];
      if (v === null || !Number.isFinite(v)) continue;
      const e = this.series[k];
      if (!(v >= e.min[i])) {
        e.min[i] = v;
        e.minTick[i] = s.tick;
      }
      if (!(v <= e.max[i])) {
        e.max[i] = v;
        e.maxTick[i] = s.tick;
      }
    }
  }

  points(key: SeriesKey): [number[], (number | null)[]] {
    const e = this.series[key];
    const xs: number[] = [];
    const ys: (number | null)[] = [];
    for (let i = 0; i < this.n; i++) {
      const t0 = (i * this.width) / this.rate;
      const t1 = ((i + 0.5) * this.width) / this.rate;
      const has = Number.isFinite(e.min[i]);
      // The earlier extreme first: the line goes through both in the order they happened.
      const minFirst = e.minTick[i] <= e.maxTick[i];
      xs.push(t0, t1);
      if (!has) ys.push(null, null);
      else if (minFirst) ys.push(e.min[i], e.max[i]);
      else ys.push(e.max[i], e.min[i]);
    }
    return [xs, ys];
  }

  /** Plain numbers (the test hook): per bucket [tickFrom, tickTo), count and each series' extremes. */
  inspect(): EnvelopeBucket[] {
    const out: EnvelopeBucket[] = [];
    for (let i = 0; i < this.n; i++) {
      const b: EnvelopeBucket = {
        from: this.first + i * this.width,
        to: this.first + (i + 1) * this.width,
        count: this.count[i],
      };
      for (const k of SERIES) {
        const e = this.series[k];
        b[k] = Number.isFinite(e.min[i])
          ? { min: e.min[i], max: e.max[i], minTick: e.minTick[i], maxTick: e.maxTick[i] }
          : null;
      }
      out.push(b);
    }
    return out;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a scan asks of the plots' SeriesSource (www/features/analysis/telemetry-series.ts). */
export interface ScanSource {
  readonly info: SeriesInfo | null;
  windowBusy(): boolean;
  scanSpan(
    from: number,
    to: number,
    stride: number,
    sink: (m: Piece) => void,
    entities?: number[] | null,
  ): Promise<void>;
  scanStop(): void;
}

/** A scan's hooks. */
export interface ScanHooks {
  /** Whether the player waits for a seek (no span is asked for then). */
  waits: () => boolean;
  /** Whether the player plays (the scan rests between spans then). */
  playing?: () => boolean;
  /** A piece's events: ticks [from, end), the tick each was recorded in. */
  onEvents: (events: ReplayEvent[], from: number, end: number, recordedAt: ArrayLike<number>) => void;
  /** After each piece and at the end. */
  onProgress: () => void;
}

/** A scan's state ('failed' with `error`). */
export type ScanState = 'running' | 'done' | 'cancelled' | 'failed';

/**
 * One scan of the recording open in `src` (a SeriesSource whose worker is open), sampling entity
 * `a` (−1: events only) and its distance to `b`; `o` (ScanHooks) says how the page is doing and
 * hears what the scan finds.
 */
export class WholeScan {
  src: ScanSource;
  a: number;
  b: number;
  waits: () => boolean;
  playing: () => boolean;
  onEvents: ScanHooks['onEvents'];
  onProgress: () => void;
  first: number;
  end: number;
  rate: number;
  stride: number;
  envelope: Envelope | null;
  next: number;
  state: ScanState;
  error: string;
  pieces: number;
  spans: number;
  startedAt: number;
  endedAt: number;
  done: Promise<void>;

  constructor(src: ScanSource, a: number, b: number, { waits, playing, onEvents, onProgress }: ScanHooks) {
    const info = src.info as SeriesInfo; // (the caller opened src: its info is there)
    this.src = src;
    this.a = a;
    this.b = b;
    this.waits = waits;
    this.playing = playing ?? (() => false);
    this.onEvents = onEvents;
    this.onProgress = onProgress;
    this.first = info.first_tick;
    this.end = info.last_tick + 1;
    this.rate = info.tick_rate_hz || 1;
    // Four samples a bucket at most (no finer than the plots' window), the worker's widest stride
    // at most: a long recording is read at the stride of a plain decode.
    const perBucket = Math.floor((this.end - this.first) / BUCKETS / 4);
    const finest = Math.max(1, Math.round(this.rate / SAMPLES_PER_S));
    this.stride = a >= 0 ? Math.min(EVENTS_STRIDE, Math.max(finest, perBucket)) : EVENTS_STRIDE;
    this.envelope = a >= 0 ? new Envelope(this.first, this.end, this.rate, this.stride) : null;
    /** The first tick not scanned yet. */
    this.next = this.first;
    /** 'running', 'done', 'cancelled' or 'failed' (with `error`). */
    this.state = 'running';
    this.error = '';
    this.pieces = 0;
    this.spans = 0;
    this.startedAt = performance.now();
    this.endedAt = 0;
    this.done = this.run();
  }

  /** 0–1 of the recording's ticks scanned. */
  get progress(): number {
    return (this.next - this.first) / Math.max(1, this.end - this.first);
  }

  cancel(): void {
    if (this.state !== 'running') return;
    this.state = 'cancelled';
    this.src.scanStop();
    this.onProgress();
  }

  async run(): Promise<void> {
    // (Answers come after the constructor has returned: the caller holds the scan by then.)
    await null;
    const spanOf = (s: number) => Math.max(this.stride, Math.round((s * this.rate) / this.stride) * this.stride);
    const [span, playingSpan] = [spanOf(SPAN_S), spanOf(PLAYING_SPAN_S)];
    try {
      while (this.state === 'running' && this.next < this.end) {
        // The window around the playhead and a seek of the player first.
        while (this.state === 'running' && (this.waits() || this.src.windowBusy())) await sleep(WAIT_MS);
        if (this.state !== 'running') return;
        const playing = this.playing();
        const to = Math.min(this.end, this.next + (playing ? playingSpan : span));
        this.spans++;
        const t0 = performance.now();
        // Only the entities sampled come back (none for an events-only scan): the worker packs
        // and posts a frame of one or two states, not of every entity.
        await this.src.scanSpan(this.next, to, this.stride, (m) => this.#piece(m), idsOf(this.a, this.b));
        if (playing && this.playing()) await sleep(PLAYING_REST * (performance.now() - t0));
      }
      if (this.state !== 'running') return;
      this.state = 'done';
      this.endedAt = performance.now();
    } catch (e) {
      if (this.state !== 'running') return;
      this.state = 'failed';
      this.error = String((e as Error | null)?.message ?? e);
    }
    this.onProgress();
  }

  /** A piece of the span: its events, its frames' samples; `next` moves to its end. */
  #piece(m: Piece) {
    if (this.state !== 'running') return;
    this.pieces++;
    const from = Math.max(m.from, this.next);
    const end = Math.min(m.end, this.end);
    if (m.events?.length) this.onEvents(m.events, m.from, m.end, m.eventTicks);
    const env = this.envelope;
    if (env) {
      const info = this.src.info as SeriesInfo; // (a piece comes only from the open source)
      const { ticks, offsets, entities } = m;
      for (let i = 0; i < ticks.length; i++) {
        const tick = ticks[i];
        if (tick < from || tick >= end) continue;
        const sa = stateIn(entities, offsets[i], offsets[i + 1], this.a, info);
        if (!sa) continue;
        const sb = this.b >= 0 ? stateIn(entities, offsets[i], offsets[i + 1], this.b, info) : null;
        env.add(sampleOf(tick, (tick - this.first) / this.rate, sa, sb, info.world));
      }
    }
    this.next = Math.max(this.next, end);
    this.onProgress();
  }
}

/** What the Filter section says of the scan (`state`: the plots' scanState()). */
export function scanEventsText(st: { state: string; progress: number; error: string }): string {
  if (st.state === 'running') return `Reading the whole recording… ${Math.floor(st.progress * 100)} %`;
  if (st.state === 'done') return 'Every event of the recording is searched';
  if (st.state === 'cancelled') return 'The scan was cancelled';
  if (st.state === 'failed') return `The scan stopped: ${st.error}`;
  return '';
}
