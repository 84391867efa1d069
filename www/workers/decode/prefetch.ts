// The decoder worker's prefetch hints and its spare decoder (docs/worker-protocol.md, `prefetch`):
// a hint reads the chunk of a moment the page may seek to soon and, paused, positions a decoder
// just before it, so that the seek resumes there; the spare decoder, forked from the open session,
// takes those hints so that the decoder the page plays from stays where it is. One Prefetch per
// open Replay (www/workers/decode/replay.ts), whose cache, reads, decoder and stats it shares.
import { PIECE_STATES } from './decoders.ts';
import type { PlayDecoder } from './decoders.ts';
import { isFatal } from './errors.ts';
import type { ReplayStats } from '../../lib/protocol/decode.ts';

/** Ticks before a prefetch hint the decoder waits at (warm). */
const HINT_MARGIN = 2;
/** A hint's `reads`: at most this many moments. */
const HINT_READS = 8;
/** The spare decoder is used for chunks up to this size (compressed): it holds a second chunk's
 *  payload and zstd buffers in the decoder's wasm memory (+0.7 MiB at 200 entities; +9.3 MiB at
 *  2,000, whose chunks are ~1.7 MB: docs/performance-history.md, session 9), so the memory goal keeps its
 *  margin where chunks are large. */
const SPARE_CHUNK_BYTES = 512 * 1024;

const NO_BYTES = new Uint8Array(0);

/** What a Prefetch uses of its Replay (www/workers/decode/replay.ts: its cache, reads, decoder and
 *  stats; the decoder it swaps with the spare one). */
export interface PrefetchHost {
  readonly firstTick: number;
  readonly endTick: number;
  readonly closed: boolean;
  readonly pumping: boolean;
  readonly req: { readonly to: number } | null;
  readonly next: number;
  readonly chunkCount: number;
  dec: PlayDecoder;
  readonly cache: { readonly budget: number; readonly map: ReadonlyMap<number, Uint8Array> };
  readonly reading: ReadonlyMap<number, unknown>;
  readonly gaps: ReadonlyMap<number, unknown>;
  readonly stats: ReplayStats;
  chunkFor(tick: number): number;
  bytesOf(index: number): Promise<Uint8Array | null>;
}

/** A prefetch hint waiting to be handled (docs/worker-protocol.md `prefetch`). */
interface Hint {
  tick: number | null;
  decode: boolean;
  keep: boolean;
  reads: number[];
}

export class Prefetch {
  replay: PrefetchHost;
  /** The spare decoder (spareDecoder()): undefined until first needed, null when there is none. */
  spare: PlayDecoder | null | undefined;
  /** The latest prefetch hint not yet handled ({tick, decode, keep, reads}), and whether one is
   *  being handled. */
  hint: Hint | null;
  hinting: boolean;

  constructor(replay: PrefetchHost) {
    this.replay = replay;
    this.spare = undefined;
    this.hint = null;
    this.hinting = false;
  }

  /**
   * A hint that the page is likely to seek to `tick` soon (the pointer resting over the timeline
   * or a kill row; a key's next step; → after a seek landed): reads the chunk holding it into the
   * cache and, with `decode` (the page is paused) and nothing queued, also positions the decoder
   * just before `tick` (decompressing the chunk, or rolling forward in the payload it holds). A
   * seek to `tick` or a little after it then neither reads nor decompresses: it resumes there.
   * Then the chunks holding `reads` (ticks: the page's other likely next seeks) are read into the
   * cache, so that a seek there does not wait for the file. `tick` null: reads only. It never
   * delays a want (a want arriving meanwhile runs first; the chunk it needs replaces this one).
   * Errors wait for the piece that needs the chunk, except a trap (fatal). Hints coalesce: one at
   * a time, and a pointer sweeping the timeline gets the moment it rests on, not every one it
   * crossed.
   */
  async prefetch(tick: unknown, decode: unknown, reads: unknown, keep: unknown): Promise<void> {
    const r = this.replay;
    r.stats.hints++;
    const clamp = (k: number) => Math.max(r.firstTick, Math.min(r.endTick - 1, Math.floor(k)));
    this.hint = {
      tick: Number.isFinite(tick) ? clamp(tick as number) : null,
      decode: !!decode,
      keep: !!keep,
      reads: Array.isArray(reads) ? (reads.slice(0, HINT_READS).filter(Number.isFinite) as number[]).map(clamp) : [],
    };
    if (this.hinting) return;
    this.hinting = true;
    try {
      while (this.hint !== null && !r.closed) {
        const h = this.hint;
        this.hint = null;
        if (h.tick !== null) await this.warm(h.tick, h.decode, h.keep);
        await this.readFor(h.reads);
      }
    } finally {
      this.hinting = false;
    }
  }

  /** Whether the worker has something better to do than a hint: a newer hint, a piece to post. */
  busy(): boolean {
    const r = this.replay;
    return r.closed || this.hint !== null || r.pumping || (r.req !== null && r.next < r.req.to);
  }

  /** Reads the chunks holding `ticks` into the cache, one after the other, while the worker is
   *  not busy, up to half the cache's budget (the chunk being played and the one read ahead keep
   *  their room). Read errors are left to the piece that needs the chunk. */
  async readFor(ticks: number[]): Promise<void> {
    const r = this.replay;
    let budget = r.cache.budget / 2;
    for (const tick of ticks) {
      if (this.busy()) return;
      const c = r.chunkFor(tick);
      if (c < 0 || c >= r.chunkCount || r.cache.map.has(c) || r.reading.has(c) || r.gaps.has(c) || this.holder(c))
        continue;
      const len = r.dec.chunkRange(c)[1];
      if (!(len <= budget)) return;
      budget -= len;
      try {
        if (!(await r.bytesOf(c))) return;
      } catch {
        return;
      }
      r.stats.hintReads++;
    }
  }

  /**
   * The spare decoder: a fork of the session (its own chunk payload and position) that hints warm,
   * so that the decoder the page plays from stays where it is; made on first use, for chunks up to
   * SPARE_CHUNK_BYTES. null when the format has none to fork (the hints then move the one decoder,
   * `keep` hints only read).
   */
  spareDecoder(): PlayDecoder | null {
    const r = this.replay;
    if (this.spare === undefined) {
      try {
        this.spare = r.dec.fork?.() ?? null;
      } catch (e) {
        if (isFatal(e)) throw e;
        this.spare = null;
      }
    }
    return this.spare;
  }

  /** The decoder that holds chunk `c` (decodes there without bytes): the decoder, the spare one,
   *  or null. */
  holder(c: number): PlayDecoder | null {
    const r = this.replay;
    return r.dec.holdsChunk(c) ? r.dec : this.spare?.holdsChunk(c) ? this.spare : null;
  }

  /** Whether a decoder holds chunk `c` (no read, no decompression); the spare one becomes the
   *  decoder then (and the one it replaces the spare: going back there resumes too). */
  takeHeld(c: number): boolean {
    const r = this.replay;
    const d = this.holder(c);
    if (d === null) return false;
    if (d === r.dec) return true;
    // (`d` is the spare one here.)
    [r.dec, this.spare] = [d, r.dec];
    r.stats.swapped++;
    return true;
  }

  async warm(tick: number, decode: boolean, keep: boolean): Promise<void> {
    const r = this.replay;
    const c = r.chunkFor(tick);
    // (A gap's chunk is neither read nor decoded again: a seek there lands after it.)
    if (c < 0 || c >= r.chunkCount || r.gaps.has(c)) return;
    r.stats.prefetched++;
    // The decoder that holds c rolls there; else the spare one decompresses it (the one the page
    // plays from stays put), or, without a spare (or for a large chunk), the one decoder unless
    // the hint says `keep`.
    const small = r.dec.chunkRange(c)[1] <= SPARE_CHUNK_BYTES;
    const pick = () => this.holder(c) ?? (small ? this.spareDecoder() : null) ?? (keep ? null : r.dec);
    let bytes: Uint8Array | null = NO_BYTES;
    if (!pick()?.holdsChunk(c)) {
      try {
        bytes = await r.bytesOf(c);
      } catch {
        return;
      }
    }
    // A newer hint replaces this one; work for the page comes first.
    if (!decode || !bytes || this.busy()) return;
    // (Picked again: a piece may have swapped the decoders while the bytes were read.)
    const d = pick();
    if (!d || (!bytes.length && !d.holdsChunk(c))) return;
    // The range [at - 1, at) leaves the decoder having applied `at` (the frame after the range),
    // and a range starting at or after `at` resumes from there. HINT_MARGIN ticks early, so that a
    // seek a tick or two before the hint (rounding, a marker's own time) resumes too.
    const first = d.chunkFirstTick(c);
    const at = Math.max(first + 1, tick - HINT_MARGIN);
    // `decoded` counts every decompression, a hint's too (`hintDecoded`: a hint's only).
    const fresh = !d.holdsChunk(c);
    try {
      d.rpChunk = c;
      d.decodeRange(c, bytes, at - 1, at, 1, PIECE_STATES).free();
      r.stats.warmed++;
      if (fresh) {
        r.stats.decoded++;
        r.stats.hintDecoded++;
      }
    } catch (e) {
      if (isFatal(e)) throw e;
    }
  }

  /** Whether a hint is being handled or waits for the one being handled (`stats.hinting`). */
  pending(): boolean {
    return this.hinting || this.hint !== null;
  }

  /** Frees the spare decoder. */
  close(): void {
    try {
      this.spare?.free();
    } catch {
      /* already freed */
    }
  }
}
