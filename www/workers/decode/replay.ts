// The decoder worker's open replay and its request pump (docs/worker-protocol.md, `want`): the
// page's latest request for ticks [from, to) is decoded into pieces (runs of packed frames of a
// bounded size) posted one after another as transferable buffers, resuming in a chunk the decoder
// holds, reading the others' compressed bytes through a byte-bounded LRU cache, and reading the
// next chunk ahead once caught up. Prefetch hints and the spare decoder: www/workers/decode/prefetch.ts.
import { PIECE_STATES } from './decoders.ts';
import { isFatal, messageOf, gapCause } from './errors.ts';
import type { PlayDecoder } from './decoders.ts';
import type { ErrorLike } from './errors.ts';
import { Prefetch } from './prefetch.ts';
import type { KillScan } from './scan.ts';
import type { Source } from './sources.ts';
import type { DecodePush, GapPush, PiecePush, ReplayStats, SessionInfo } from '../../lib/protocol/decode.ts';

/** The worker's postMessage, for what a replay pushes. */
export type Post = (msg: DecodePush, transfer?: Transferable[]) => void;

/** The page's latest request (`Replay.want`). */
export interface WantRequest {
  gen: number;
  from: number;
  to: number;
  stride: number;
  dir: 1 | -1;
  only: Uint32Array | null;
}

/** Compressed-chunk cache budget (bytes): the chunk being decoded and the next one, read ahead. */
const CACHE_BYTES = 4 * 1024 * 1024;

/** LRU of compressed chunks (Uint8Array) bounded by bytes. Map iteration order = recency (oldest first). */
class BytesCache {
  budget: number;
  map: Map<number, Uint8Array>;
  bytes: number;
  constructor(budget: number) {
    this.budget = budget;
    this.map = new Map();
    this.bytes = 0;
  }
  get(i: number): Uint8Array | undefined {
    const c = this.map.get(i);
    if (c) {
      this.map.delete(i);
      this.map.set(i, c);
    }
    return c;
  }
  put(i: number, c: Uint8Array): void {
    if (this.map.has(i)) this.bytes -= (this.map.get(i) as Uint8Array).byteLength;
    this.map.delete(i);
    this.map.set(i, c);
    this.bytes += c.byteLength;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget || this.map.size <= 1) break;
      this.map.delete(k);
      this.bytes -= v.byteLength;
    }
  }
  delete(i: number): void {
    const c = this.map.get(i);
    if (!c) return;
    this.map.delete(i);
    this.bytes -= c.byteLength;
  }
  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}

const NO_BYTES = new Uint8Array(0);
/** The most entities a `want` may name (docs/worker-protocol.md `want`, `entities`). */
const MAX_ONLY = 64;

/** A `want`'s `entities` as ids for `keepOnly`, or null (every entity: absent or not a list of at
 *  most MAX_ONLY integer ids). The page's message is as hostile as a file's bytes. */
export function entityList(v: unknown): Uint32Array | null {
  if (!Array.isArray(v) || v.length > MAX_ONLY) return null;
  if (!v.every((id) => Number.isInteger(id) && id >= 0 && id <= 0xffffffff)) return null;
  return Uint32Array.from(v);
}

/** A read that failed (after the source's retries): the chunk was not sent, not damaged. */
function unread(e: unknown): unknown {
  if ((e as ErrorLike)?.name === 'AbortError') return e;
  const err: Error & { unread?: boolean } = new Error(messageOf(e));
  err.unread = true;
  return err;
}

export class Replay {
  sessionId: number;
  post: Post;
  /** The WebAssembly.Memory of the decoder build this replay uses (for `stats`). */
  memory: WebAssembly.Memory | null;
  source: Source;
  dec: PlayDecoder;
  cache: BytesCache;
  closed: boolean;
  chunkCount: number;
  firstTick: number;
  endTick: number;
  /** The latest request from the page ({gen, from, to, stride, dir}): superseded, never queued
   *  behind stale work. `next`: the first tick of it not posted yet. */
  gen: number;
  req: WantRequest | null;
  next: number;
  pumping: boolean;
  /** Reads in flight: chunk index → Promise<Uint8Array>. */
  reading: Map<number, Promise<Uint8Array>>;
  /** Chunks that cannot be shown (damaged, or not sent): index → the `gap` posted for it. */
  gaps: Map<number, GapPush>;
  stats: ReplayStats;
  /** Prefetch hints and the spare decoder (they count in `stats` too). */
  hints: Prefetch;
  /** Without an index (a file cut short) the kills are in the chunks: scanned in the background
   *  (workers/decode/scan.ts, imported then; only a format whose session forks has it). */
  scan: KillScan | null;

  /**
   * @param sessionId the page's load counter (echoed in what is posted)
   * @param source www/workers/decode/sources.ts
   * @param dec the open DecoderSession
   * @param memory its build's memory
   * @param info `dec.info()`
   * @param post the worker's postMessage
   */
  constructor(
    sessionId: number,
    source: Source,
    dec: PlayDecoder,
    memory: WebAssembly.Memory | null,
    info: SessionInfo,
    post: Post,
  ) {
    this.sessionId = sessionId;
    this.post = post;
    this.memory = memory;
    this.source = source;
    this.dec = dec;
    this.cache = new BytesCache(CACHE_BYTES);
    this.closed = false;
    this.chunkCount = dec.chunkCount();
    this.firstTick = info.info.first_tick;
    this.endTick = info.info.last_tick + 1;
    this.gen = 0;
    this.req = null;
    this.next = 0;
    this.pumping = false;
    this.reading = new Map();
    this.gaps = new Map();
    this.stats = {
      reads: 0,
      bytesRead: 0,
      decoded: 0,
      resumed: 0,
      posted: 0,
      cacheHits: 0,
      dropped: 0,
      hints: 0,
      prefetched: 0,
      warmed: 0,
      hintReads: 0,
      hintDecoded: 0,
      swapped: 0,
    };
    this.hints = new Prefetch(this);
    this.scan = null;
    if (!info.markersComplete && typeof dec.fork === 'function')
      import('./scan.ts')
        .then(({ KillScan }) => {
          if (this.closed) return;
          this.scan = new KillScan(this, PIECE_STATES, isFatal);
          return this.scan.run();
        })
        .catch((e) => {
          // A trap is the worker's to report (its unhandledrejection handler); anything else ends
          // the scan quietly.
          if (isFatal(e)) throw e;
        });
  }

  /** The chunk holding `tick` (the last one starting at or before it). */
  chunkFor(tick: number): number {
    return this.dec.chunkForTick(tick);
  }

  /** Replaces the request: pieces covering ticks [from, to) thinned to `stride`, posted in order;
   *  `dir` says which chunk to read ahead; `only`: just these entities' states (`entityList`). An
   *  empty range clears the queue. */
  want(gen: number, from: number, to: number, stride = 1, dir = 1, only: unknown = null): void {
    if (gen < this.gen) return; // an older request overtaken in flight
    this.gen = gen;
    const ok = Number.isFinite(from) && Number.isFinite(to) && to > from;
    this.req = ok
      ? {
          gen,
          from: Math.max(this.firstTick, Math.floor(from)),
          to: Math.min(this.endTick, Math.ceil(to)),
          stride: Math.max(1, Math.min(64, Math.floor(stride) || 1)),
          dir: dir < 0 ? -1 : 1,
          only: entityList(only),
        }
      : null;
    this.next = this.req ? this.req.from : 0;
    // A read for a chunk no longer wanted is abandoned (a URL's download, not a file's slice).
    if (this.req && this.reading.size) {
      const c = this.chunkFor(this.next);
      const d = this.req.dir;
      if (![...this.reading.keys()].some((k) => k === c || k === c + d)) this.source.abort?.();
    }
    this.pump();
  }

  async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.req && this.next < this.req.to) {
        const { gen } = this.req;
        const from = this.next;
        const index = this.chunkFor(from);
        const gap = this.gaps.get(index);
        if (gap) {
          // A chunk known to be a gap: the request goes on after it.
          this.next = gap.toTick;
          continue;
        }
        try {
          await this.piece(index, from, gen);
        } catch (e) {
          if (this.closed) return;
          if (isFatal(e)) {
            this.req = null;
            this.post({ type: 'error', session: this.sessionId, index, message: messageOf(e), fatal: true });
            return;
          }
          // The chunk cannot be decoded (damaged) or read (a server that failed, after retries):
          // it costs only its own ticks; the request goes on after it.
          this.markGap(index, e);
        }
        // Let a newer `want` in between pieces (scrubbing, the page's window moving on).
        await new Promise((r) => setTimeout(r, 0));
      }
      if (!this.closed && this.req) this.readAhead();
    } finally {
      this.pumping = false;
    }
  }

  /** Chunk `index` is a gap (error `e`): posted once (docs/worker-protocol.md `gap`). */
  markGap(index: number, e: unknown): GapPush {
    const had = this.gaps.get(index);
    if (had) return had;
    const gap: GapPush = {
      type: 'gap',
      session: this.sessionId,
      chunk: index,
      fromTick: this.dec.chunkFirstTick(index),
      toTick: index + 1 < this.chunkCount ? this.dec.chunkFirstTick(index + 1) : this.endTick,
      ...gapCause(e),
    };
    this.gaps.set(index, gap);
    this.cache.delete(index);
    this.post(gap);
    return gap;
  }

  /** Decodes and posts the piece of chunk `index` starting at tick `from` (resuming in the chunk
   *  without its bytes when the decoder stands there). */
  async piece(index: number, from: number, gen: number): Promise<void> {
    const t0 = performance.now();
    let bytes: Uint8Array | null = NO_BYTES;
    let resumed = this.hints.takeHeld(index);
    // The chunk's bytes were in the cache already (read ahead, or by a hint): no wait for the file.
    let cached = false;
    if (!resumed) {
      cached = this.cache.map.has(index);
      bytes = await this.bytesOf(index).catch((e) => {
        throw unread(e);
      });
      if (!bytes || this.closed) return;
      // Superseded while reading: the next request starts elsewhere.
      if (this.req?.gen !== gen && this.next !== from) {
        this.stats.dropped++;
        return;
      }
      resumed = this.hints.takeHeld(index);
      if (resumed) bytes = NO_BYTES;
    }
    const r = this.req;
    if (!r) return;
    const t1 = performance.now();
    this.dec.rpChunk = index;
    const d = this.dec.decodeRange(index, bytes, from, r.to, r.stride, PIECE_STATES);
    if (r.only) d.keepOnly(r.only);
    if (resumed) this.stats.resumed++;
    else this.stats.decoded++;
    const t2 = performance.now();
    let msg: PiecePush;
    let transfer: Transferable[];
    try {
      const ticks = d.ticks();
      const offsets = d.offsets();
      const entities = d.entities();
      const eventTicks = d.eventTicks();
      const end = d.end() ?? (index + 1 < this.chunkCount ? this.dec.chunkFirstTick(index + 1) : this.endTick);
      msg = {
        type: 'piece',
        session: this.sessionId,
        gen: r.gen,
        chunk: index,
        // Covers ticks [from, end); the first frame is the world at the last tick at or before `from`.
        from,
        end: Math.max(end, from + 1),
        stride: r.stride,
        ticks,
        offsets,
        entities,
        events: d.events(),
        // The tick each event was recorded in (its own `tick` may differ): what `[from, end)` covers.
        eventTicks,
        skippedEvents: d.skippedEvents(),
        timing: null,
      };
      transfer = [ticks.buffer, offsets.buffer, entities.buffer, eventTicks.buffer];
    } finally {
      d.free();
    }
    this.next = msg.end;
    this.stats.posted++;
    const t3 = performance.now();
    // Diagnostics (ms): Blob/HTTP read (0 when resumed or cached), wasm decode, copy out of wasm;
    // `resumed`: from the payload the decoder held; `cached`: from bytes the cache held;
    // `startedAt` / `postedAt` are wall-clock ms (timeOrigin + now) so the page can tell the transit
    // times.
    msg.timing = {
      resumed,
      cached: cached && !resumed,
      read: t1 - t0,
      decode: t2 - t1,
      extract: t3 - t2,
      copy: 0,
      startedAt: performance.timeOrigin + t0,
      postedAt: performance.timeOrigin + performance.now(),
    };
    this.post(msg, transfer);
  }

  /** The compressed bytes of chunk `index`: cached, being read, or read now. */
  async bytesOf(index: number): Promise<Uint8Array | null> {
    const hit = this.cache.get(index);
    if (hit) {
      this.stats.cacheHits++;
      return hit;
    }
    let p = this.reading.get(index);
    if (!p) {
      const [offset, len] = this.dec.chunkRange(index);
      p = this.source.read(offset, len).then((b) => {
        this.stats.reads++;
        this.stats.bytesRead += b.length;
        if (!this.closed) this.cache.put(index, b);
        return b;
      });
      this.reading.set(index, p);
      p.finally(() => this.reading.delete(index)).catch(() => {});
    }
    try {
      return await p;
    } catch (e) {
      if (this.closed || (e as ErrorLike)?.name === 'AbortError') return null;
      throw e;
    }
  }

  /** Caught up: reads the next chunk in the playing direction, so the next piece that needs it
   *  does not wait for the read. Errors wait for the piece that needs the chunk. */
  readAhead(): void {
    const r = this.req;
    if (!r) return; // (the pump reads ahead only with a request)
    // Forward: the chunk after the one the request ended in; rewinding: the one before its start.
    const c = r.dir < 0 ? this.chunkFor(r.from) - 1 : this.chunkFor(Math.max(r.from, this.next - 1)) + 1;
    if (c < 0 || c >= this.chunkCount || this.cache.map.has(c) || this.reading.has(c) || this.gaps.has(c)) return;
    this.bytesOf(c).catch(() => {});
  }

  close(): void {
    this.closed = true;
    this.scan?.close();
    this.req = null;
    this.cache.clear();
    this.source.close?.();
    try {
      this.dec.free();
    } catch {
      /* already freed */
    }
    this.hints.close();
  }
}
