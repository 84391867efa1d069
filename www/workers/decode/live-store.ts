// The live `.flrep` recording as received so far, and what the live modules share (docs/live.md
// "The player"): the limits on a live source's data, its errors, and `LiveStore`, the prefix and
// the chunks received back to back, read by the decoder as one virtual file. Imported by
// workers/decode/live.ts and by its two feeds (workers/decode/live-segments.ts,
// workers/decode/live-ws.ts), which live.ts imports when used: a module of its own, so that the
// feeds do not import live.ts back (no import cycle).
import type { Source } from './sources.ts';

/** An error's message for the page (lib/errors.ts: the shell's one). */
export { messageOf } from '../../lib/errors.ts';

/** A chunk's header (docs/format/flrep.md §6.1): 36 bytes, `compressedLength` a u32 at 4. */
export const CHUNK_HEADER_LEN = 36;
/** The largest chunk a manifest may list (its 16 MiB frame and header: docs/live.md). */
export const MAX_SEGMENT = 16 * 1024 * 1024 + CHUNK_HEADER_LEN;
export const MAX_MANIFEST = 8 * 1024 * 1024;
export const MAX_PREFIX = 16 * 1024 * 1024;
export const MAX_SEGMENTS = 20000;
export const MAX_KILLS = 4096;
/** Whole chunks kept in memory (the newest and those read again); older ones are read again from
 *  their segment files. (The Replay's own cache of the chunks around the playhead is beside it.) */
export const HELD_BYTES = 8 * 1024 * 1024;
/** A viewer joining a match in progress gets this much of it before the live edge (s). */
export const JOIN_S = 30;
/** Chunks the page may hold in a session (a 3-hour match at 0.5 s chunks is 21,600). */
export const MAX_CHUNKS = 100000;
/** A manifest's URI: a plain file name beside it (docs/live.md "Segments"). */
export const PLAIN_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;
/** Waits between failed manifest reads (ms): the source is "reconnecting" meanwhile. */
export const BACKOFF_MS = [500, 1000, 2000, 4000, 5000];

/** An error of the live source (its message names the numbers). */
export const fail = (message: string): Error & { live: true } =>
  Object.assign(new Error(message), { live: true as const });

/** Whether `v` is a whole number in [lo, hi]. */
export const whole = (v: unknown, lo = 0, hi = Number.MAX_SAFE_INTEGER): v is number =>
  Number.isSafeInteger(v) && (v as number) >= lo && (v as number) <= hi;

/** A chunk of the recording received: its seq, length, ticks, 36-byte header, offset in the virtual
 *  file and name (a segment's file, or `chunk <seq>`). */
export interface LiveChunk {
  seq: number;
  len: number;
  first: number;
  last: number;
  head: Uint8Array;
  at: number;
  name: string;
}

/** What LiveStore.append checks a chunk against: the manifest's ticks and name, and whether chunks
 *  may be missing before it (`skip`: a WebSocket server's skip, a gap). */
export interface AppendMeta {
  first?: number;
  last?: number;
  name?: string;
  skip?: boolean;
}

/** A kill as a manifest lists it. */
export interface ManifestKill {
  tick: number;
  killer: number;
  victim: number;
  weapon: number;
}

/** Ticks a live source could not bring (`gap` pushes, chunk -1). */
export interface LiveGap {
  fromTick: number;
  toTick: number;
  reason: string;
}

/** The recording received so far: the prefix and the chunks in order (virtual offsets from the
 *  prefix's end), each chunk's header kept, the whole bytes of the latest in a bounded LRU. */
export class LiveStore implements Source {
  prefix: Uint8Array;
  /** [{seq, len, first, last, head, at, name}] in seq order; `at`: offset in the virtual file. */
  chunks: LiveChunk[];
  length: number;
  /** chunk index → Uint8Array (insertion order = recency). */
  held: Map<number, Uint8Array>;
  heldBytes: number;
  budget: number;
  /** (index, chunk) → Promise<Uint8Array>: reads an evicted chunk again (segments), or null. */
  refetch: ((c: LiveChunk) => Promise<Uint8Array>) | null;
  /** chunk start offset → index. */
  byOffset: Map<number, number>;

  constructor(
    prefix: Uint8Array,
    {
      refetch = null,
      heldBytes = HELD_BYTES,
    }: { refetch?: ((c: LiveChunk) => Promise<Uint8Array>) | null; heldBytes?: number } = {},
  ) {
    this.prefix = prefix;
    this.chunks = [];
    this.length = prefix.length;
    this.held = new Map();
    this.heldBytes = 0;
    this.budget = heldBytes;
    this.refetch = refetch;
    this.byOffset = new Map();
  }

  get nextSeq(): number | null {
    return this.chunks.length ? this.chunks[this.chunks.length - 1].seq + 1 : null;
  }

  /** Appends chunk `seq` (its whole bytes): checks that it follows the last one. */
  append(seq: number, bytes: Uint8Array, meta: AppendMeta = {}): LiveChunk {
    if (this.chunks.length >= MAX_CHUNKS) throw fail(`more than ${MAX_CHUNKS} chunks: the live session is full`);
    if (bytes.length < CHUNK_HEADER_LEN || bytes.length > MAX_SEGMENT)
      throw fail(`chunk ${seq} is ${bytes.length} bytes (a chunk is ${CHUNK_HEADER_LEN} to ${MAX_SEGMENT})`);
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const own = CHUNK_HEADER_LEN + v.getUint32(4, true);
    if (own !== bytes.length)
      throw fail(
        `chunk ${seq} is ${bytes.length} bytes but its header says ${own}${meta.name ? ` (${meta.name})` : ''}`,
      );
    const first = Number(v.getBigUint64(12, true));
    const last = Number(v.getBigUint64(20, true));
    const prev = this.chunks[this.chunks.length - 1];
    if (prev && (meta.skip ? seq <= prev.seq : seq !== prev.seq + 1))
      throw fail(`chunk ${seq} after chunk ${prev.seq}: chunks are missing`);
    if (prev && first <= prev.last)
      throw fail(`chunk ${seq} starts at tick ${first}, not after chunk ${prev.seq}'s last tick ${prev.last}`);
    if (meta.first !== undefined && (meta.first !== first || meta.last !== last))
      throw fail(
        `chunk ${seq} holds ticks ${first}–${last}, the manifest says ${meta.first}–${meta.last}${meta.name ? ` (${meta.name})` : ''}`,
      );
    const c: LiveChunk = {
      seq,
      len: bytes.length,
      first,
      last,
      head: bytes.slice(0, CHUNK_HEADER_LEN),
      at: this.length,
      name: meta.name ?? '',
    };
    const index = this.chunks.length;
    this.chunks.push(c);
    this.byOffset.set(c.at, index);
    this.length += c.len;
    this.#hold(index, bytes);
    return c;
  }

  #hold(index: number, bytes: Uint8Array): void {
    const had = this.held.get(index);
    if (had) this.heldBytes -= had.length;
    this.held.delete(index);
    this.held.set(index, bytes);
    this.heldBytes += bytes.length;
    for (const [k, b] of this.held) {
      if (this.heldBytes <= this.budget || this.held.size <= 2) break;
      this.held.delete(k);
      this.heldBytes -= b.length;
    }
  }

  /**
   * The bytes the decoder's open asks for, all from memory: the prefix (what follows it in the
   * first read is not looked at by the prefix parser: zeros), a chunk's header (the forward scan),
   * and the last 8 bytes (where a trailer would end: zeros, so the open always takes the scan).
   */
  openBytes(offset: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    if (offset === 0) {
      out.set(this.prefix.subarray(0, Math.min(len, this.prefix.length)));
      return out;
    }
    if (offset === this.length - 8 && len === 8) return out;
    const i = this.byOffset.get(offset);
    if (i === undefined || len > CHUNK_HEADER_LEN)
      throw fail(`the reader asked for bytes ${offset}+${len}, which are not a chunk header of the live stream`);
    out.set(this.chunks[i].head.subarray(0, len));
    return out;
  }

  /** Bytes [offset, offset + len): one whole chunk (what the Replay reads). */
  async read(offset: number, len: number): Promise<Uint8Array> {
    const i = this.byOffset.get(offset);
    const c = i === undefined ? null : this.chunks[i];
    if (!c || i === undefined || c.len !== len)
      throw fail(`no chunk at offset ${offset} of ${len} bytes in the live stream`);
    const got = this.held.get(i);
    if (got) {
      this.#hold(i, got);
      return got;
    }
    if (!this.refetch)
      throw Object.assign(
        fail(`chunk ${c.seq} is no longer held (a WebSocket source keeps only the latest ${this.budget >> 20} MiB)`),
        { unread: true },
      );
    const b = await this.refetch(c);
    if (b.length !== c.len || b.subarray(0, CHUNK_HEADER_LEN).some((x, k) => x !== c.head[k]))
      throw fail(
        `segment ${c.name} changed since it was first read (${b.length} bytes, was ${c.len}): segments are immutable`,
      );
    this.#hold(i, b);
    return b;
  }

  close(): void {
    this.held.clear();
    this.heldBytes = 0;
  }
}
