// The decoder worker's kill scan (docs/worker-protocol.md `scan`): a recording without an index
// trailer (a `.flrep` cut short) has no kill markers at open; its kills are inside its compressed
// chunks. The scan decodes every chunk's events in the background with a decoder of its own (a fork
// of the session: the one the page plays from and the spare one keep their positions), in slices of
// a bounded number of entity states, only while the worker has nothing else to do, and posts the
// kills it found in batches. It keeps no chunk and no frame: only the kills not posted yet.
// (It imports nothing: workers/decode/replay.ts hands it what it needs, so that the modules every load
// needs stay in the chunks they are in; its imports are types only.)
import type { DecoderSession } from './decoders.ts';
import type { ErrorLike } from './errors.ts';
import type { Source } from './sources.ts';
import type { ReplayEvent, ScanPush, ScanStats } from '../../lib/protocol/decode.ts';

/** What the scan uses of the Replay (workers/decode/replay.ts): its decoder to fork, source, cache,
 *  gaps, whether it is busy, and its post. */
export interface ScanHost {
  readonly sessionId: number;
  readonly dec: DecoderSession;
  readonly chunkCount: number;
  readonly gaps: ReadonlyMap<number, unknown>;
  readonly cache: { readonly map: ReadonlyMap<number, Uint8Array> };
  readonly source: Source;
  readonly pumping: boolean;
  readonly req: { readonly to: number } | null;
  readonly next: number;
  readonly hints: { pending(): boolean };
  readonly stats: { readonly posted: number };
  markGap(index: number, e: unknown): unknown;
  post(msg: ScanPush): void;
}

/** Entity states rolled forward per slice (the worker answers a `want` between two slices). */
const SLICE_STATES = 65536;
/** A stride no chunk reaches: a slice keeps its first frame and the one at its end, every event. */
const ONE_FRAME = 2 ** 52;
/** Kills found are posted at most this often (ms), and at the end. */
const POST_MS = 250;
/** How often a busy worker is looked at again (ms). */
const BUSY_MS = 16;

const NO_BYTES = new Uint8Array(0);

/** Yields to the worker's message queue without setTimeout's 4 ms clamp. */
const channel = new MessageChannel();
const resumes: (() => void)[] = [];
channel.port1.onmessage = () => resumes.shift()?.();
const yieldNow = () =>
  new Promise<void>((resolve) => {
    resumes.push(resolve);
    channel.port2.postMessage(0);
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class KillScan {
  replay: ScanHost;
  pieceStates: number;
  isFatal: (e: unknown) => boolean;
  dec: DecoderSession | null;
  closed: boolean;
  /** Chunks scanned, kills found, kills not posted yet. */
  done: number;
  found: number;
  kills: ReplayEvent[];
  postedAt: number;
  /** Diagnostics (stats): when it began and ended (performance.now()), ms spent reading and
   *  decoding, chunks it could not read. */
  startedAt: number;
  endedAt: number;
  busyMs: number;
  unread: number;
  /** Each slice's decode (ms): what a `want` arriving during one waits at most. */
  sliceMs: number[];
  firstSliceMs: number[];

  /**
   * @param replay
   * @param pieceStates the pieces' bound on entity states (workers/decode/decoders.ts)
   * @param isFatal whether an error is a trap (workers/decode/errors.ts)
   */
  constructor(replay: ScanHost, pieceStates: number, isFatal: (e: unknown) => boolean) {
    this.replay = replay;
    this.pieceStates = pieceStates;
    this.isFatal = isFatal;
    this.dec = null;
    this.closed = false;
    this.done = 0;
    this.found = 0;
    this.kills = [];
    this.postedAt = 0;
    this.startedAt = 0;
    this.endedAt = 0;
    this.busyMs = 0;
    this.unread = 0;
    this.sliceMs = [];
    this.firstSliceMs = [];
  }

  /** Whether the worker has work for the page (a request to serve, a hint) or posted no piece yet. */
  busy(): boolean {
    const r = this.replay;
    return r.pumping || (r.req !== null && r.next < r.req.to) || r.hints.pending() || r.stats.posted === 0;
  }

  async idle(): Promise<void> {
    await yieldNow();
    while (!this.closed && this.busy()) await sleep(BUSY_MS);
  }

  /** Scans every chunk once, in order; errors end it quietly (a trap is the worker's to report). */
  async run(): Promise<void> {
    const r = this.replay;
    try {
      this.dec = r.dec.fork?.() ?? null;
    } catch (e) {
      if (this.isFatal(e)) throw e;
    }
    if (!this.dec) return;
    this.startedAt = performance.now();
    for (let i = 0; i < r.chunkCount && !this.closed; i++) {
      await this.chunk(i);
      this.done = i + 1;
      if (performance.now() - this.postedAt >= POST_MS) this.post(false);
    }
    if (this.closed) return;
    this.endedAt = performance.now();
    this.post(true);
    this.free();
  }

  /** The kills of chunk `i`, slice by slice. */
  async chunk(i: number): Promise<void> {
    const r = this.replay;
    if (r.gaps.has(i)) return;
    await this.idle();
    if (this.closed) return;
    const t0 = performance.now();
    let bytes = r.cache.map.get(i);
    if (!bytes) {
      const [offset, len] = r.dec.chunkRange(i);
      for (;;) {
        try {
          bytes = await r.source.read(offset, len);
          break;
        } catch (e) {
          // Aborted by a `want` (a URL's reads for a chunk it left): read again when idle.
          if (this.closed) return;
          if ((e as ErrorLike)?.name !== 'AbortError') {
            this.unread++;
            return;
          }
          await this.idle();
        }
      }
    }
    let from = r.dec.chunkFirstTick(i);
    let ticks = 16;
    for (let first = true; !this.closed; first = false) {
      if (!first) await this.idle();
      if (this.closed) return;
      const t1 = performance.now();
      let d;
      try {
        // (Not closed: the decoder is there; close() is what takes it.)
        d = (this.dec as DecoderSession).decodeRange(
          i,
          first ? bytes : NO_BYTES,
          from,
          from + ticks,
          ONE_FRAME,
          this.pieceStates,
        );
      } catch (e) {
        if (this.isFatal(e)) throw e;
        // A damaged chunk: a gap the page learns of now, before the playhead gets there.
        r.markGap(i, e);
        return;
      }
      try {
        const events: ReplayEvent[] = d.events();
        for (const e of events) if (e.kind === 'kill') this.kills.push(e);
        const end = d.end();
        // Slices sized by the chunk's entities (the first frame's count).
        const offsets = d.offsets();
        const live = offsets.length > 1 ? offsets[1] - offsets[0] : 0;
        ticks = Math.max(4, Math.floor(SLICE_STATES / Math.max(1, live)));
        if (end === undefined) break;
        from = end;
      } finally {
        d.free();
        const ms = performance.now() - (first ? t0 : t1);
        this.busyMs += ms;
        // (Diagnostics, bounded: the first 8,192 slices.)
        if (this.sliceMs.length < 8192) this.sliceMs.push(performance.now() - t1);
        if (first && this.firstSliceMs.length < 8192) this.firstSliceMs.push(performance.now() - t1);
      }
    }
  }

  post(complete: boolean): void {
    const r = this.replay;
    this.found += this.kills.length;
    r.post({ type: 'scan', session: r.sessionId, done: this.done, total: r.chunkCount, kills: this.kills, complete });
    this.kills = [];
    this.postedAt = performance.now();
  }

  stats(): ScanStats {
    return {
      done: this.done,
      total: this.replay.chunkCount,
      kills: this.found + this.kills.length,
      busyMs: this.busyMs,
      sliceMs: this.sliceMs,
      firstSliceMs: this.firstSliceMs,
      wallMs: (this.endedAt || performance.now()) - this.startedAt,
      complete: this.endedAt > 0,
      unread: this.unread,
    };
  }

  free(): void {
    try {
      this.dec?.free();
    } catch {
      /* already freed */
    }
    this.dec = null;
  }

  close(): void {
    this.closed = true;
    this.free();
  }
}
