// The decoder Web Worker (module worker). Owns the replay source and the wasm DecoderSession:
// reads only the byte ranges the session asks for (Blob.slice for files, HTTP Range for URLs),
// keeps a few chunks' compressed bytes in a byte-bounded LRU cache, and decodes the ticks the page
// asks for into pieces (runs of packed frames of a bounded size) that it posts as transferable
// buffers. Protocol: docs/worker-protocol.md.
// The decoder glue is imported dynamically so that its fetch belongs to this worker (a static
// import of a module worker is fetched through the page in Chromium).
//
// One decoder wasm per format family (scripts/build.mjs): the worker reads the file's first bytes
// and loads only the build that reads it, so a .flrep session never downloads the SparkEngine or
// .foldback readers (nor the divergence view). The magic numbers are those of `format::sniff`
// (crate/src/format/mod.rs); anything else goes to the .flrep build, whose Session refuses it with
// the reader's "not a replay this player reads" message.
const DECODER_BY_MAGIC = {
  FLRP: 'decoder',
  YLPR: 'decoder_spark',
  RPLY: 'decoder_spark', // SparkEngine's magic written big-endian: that reader refuses it by name
  FBK1: 'decoder_foldback',
};
const DEFAULT_DECODER = 'decoder';

/** The decoder build for a file starting with `head` (a Uint8Array of at least its first 4 bytes). */
function decoderFor(head) {
  if (head.length < 4) return DEFAULT_DECODER;
  return DECODER_BY_MAGIC[String.fromCharCode(head[0], head[1], head[2], head[3])] ?? DEFAULT_DECODER;
}

/** Compressed-chunk cache budget (bytes): the chunk being decoded and the next one, read ahead. */
const CACHE_BYTES = 4 * 1024 * 1024;
/** Entity states per piece at most (16 i32 each: 1 MiB of packed frames): what bounds the
 *  decoder's wasm memory and the page's, whatever the number of entities. */
const PIECE_STATES = 16384;
/** Ticks before a prefetch hint the decoder waits at (Replay.warm). */
const HINT_MARGIN = 2;
/** A hint's `reads`: at most this many moments, and half the cache's budget of bytes (the chunk
 *  being played and the one read ahead keep their room). */
const HINT_READS = 8;
const HINT_READ_BYTES = CACHE_BYTES / 2;
/** The spare decoder is used for chunks up to this size (compressed): it holds a second chunk's
 *  payload and zstd buffers in the decoder's wasm memory (+0.7 MiB at 200 entities; +9.3 MiB at
 *  2,000, whose chunks are ~1.7 MB: docs/performance.md, session 9), so the memory goal keeps its
 *  margin where chunks are large. */
const SPARE_CHUNK_BYTES = 512 * 1024;
/** A server that ignores Range makes us read the whole body: refuse bodies larger than this. */
const MAX_WHOLE_BODY = 512 * 1024 * 1024;
/** The first HTTP read (matches the reader's first request, so it is served from memory). */
const FIRST_READ = 64 * 1024;

/** Decoder builds loaded so far: name → Promise<{DecoderSession, FoldbackView, memory}>. */
const decoders = new Map();

/** Loads (once) the decoder build `name` ('decoder', 'decoder_spark', 'decoder_foldback'). */
function ensureWasm(name = DEFAULT_DECODER) {
  let ready = decoders.get(name);
  if (!ready) {
    ready = (async () => {
      const mod = await import(`./pkg/${name}/${name}.js`);
      const exports = await mod.default();
      mod.init_panic_hook();
      // FoldbackView exists in decoder_foldback only.
      return {
        DecoderSession: mod.DecoderSession,
        FoldbackView: mod.FoldbackView ?? null,
        memory: exports?.memory ?? null,
      };
    })().catch((e) => {
      decoders.delete(name);
      throw new Error(`the decoder could not be loaded: ${messageOf(e)}`);
    });
    decoders.set(name, ready);
  }
  return ready;
}

/**
 * Reads the head of `source` (the range every reader asks for first), loads the decoder build for
 * its magic and opens a DecoderSession. Reads inside the head are served from it, so the open
 * costs no extra read. Returns `{dec, wasm, reads, bytesRead}`; `dec` is the open session.
 * `only`: the build to use (the .foldback view's sessions must come from its own wasm instance);
 * a file of a format that build does not read fails with `onlyMessage`.
 */
async function openSession(source, onRead, only = null, onlyMessage = '') {
  onRead?.(0, Math.min(source.length, FIRST_READ));
  const head = await source.read(0, Math.min(source.length, FIRST_READ));
  const sniffed = decoderFor(head);
  // An unrecognised magic is left to the reader (its "not a replay" message).
  const known = head.length >= 4 && String.fromCharCode(head[0], head[1], head[2], head[3]) in DECODER_BY_MAGIC;
  if (only && known && sniffed !== only) throw new Error(onlyMessage);
  const wasm = await ensureWasm(only ?? sniffed);
  const dec = new wasm.DecoderSession(source.length);
  let reads = 1;
  let bytesRead = head.length;
  try {
    let step = 0;
    let first = true;
    for (let want = dec.want(); want; want = dec.want()) {
      const [offset, len] = want;
      let bytes;
      if (first && offset === 0 && len <= head.length) {
        bytes = head.subarray(0, len);
      } else {
        onRead?.(bytesRead, bytesRead + len);
        bytes = await source.read(offset, len);
        reads++;
        bytesRead += bytes.length;
      }
      first = false;
      dec.feed(bytes);
      if (++step > 100000) throw new Error('the reader asked for too many reads while opening');
    }
  } catch (e) {
    try {
      dec.free();
    } catch {
      /* ignore */
    }
    throw e;
  }
  return { dec, wasm, reads, bytesRead };
}

/** The message of an error, for the page. */
function messageOf(e) {
  if (e && typeof e.message === 'string' && e.message) return e.message;
  return String(e);
}

/** A wasm trap (panic → unreachable) leaves the module unusable: the page restarts the worker. */
function isFatal(e) {
  return e instanceof WebAssembly.RuntimeError;
}

function post(msg, transfer = []) {
  self.postMessage(msg, transfer);
}

// ---------------------------------------------------------------- sources

class BlobSource {
  constructor(blob) {
    this.blob = blob;
    this.length = blob.size;
    this.name = typeof blob.name === 'string' ? blob.name : '';
  }
  async read(offset, len) {
    const end = Math.min(this.length, offset + len);
    if (offset >= end) return new Uint8Array(0);
    return new Uint8Array(await this.blob.slice(offset, end).arrayBuffer());
  }
  close() {}
}

class MemorySource {
  constructor(bytes, name) {
    this.bytes = bytes;
    this.length = bytes.length;
    this.name = name;
  }
  async read(offset, len) {
    return this.bytes.slice(offset, Math.min(this.length, offset + len));
  }
  close() {
    this.bytes = new Uint8Array(0);
  }
}

function nameFromUrl(url) {
  try {
    const p = new URL(url).pathname;
    return decodeURIComponent(p.slice(p.lastIndexOf('/') + 1)) || url;
  } catch {
    return url;
  }
}

function httpError(res, url) {
  return new Error(`the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''} for ${url}`);
}

/** Reads a whole response body, refusing more than `cap` bytes. */
async function readCapped(res, cap, onProgress) {
  const declared = Number(res.headers.get('Content-Length'));
  if (Number.isFinite(declared) && declared > cap) {
    throw new Error(
      `the server does not support range requests and the file is ${(declared / 1048576).toFixed(0)} MiB: over the ${cap / 1048576} MiB this player reads whole`,
    );
  }
  const reader = res.body.getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      reader.cancel().catch(() => {});
      throw new Error(
        `the server does not support range requests and the file is over the ${cap / 1048576} MiB this player reads whole`,
      );
    }
    parts.push(value);
    onProgress?.(total, Number.isFinite(declared) ? declared : 0);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** HTTP source using Range requests; falls back to one capped whole-body read on a 200. */
class UrlSource {
  /** Probes the URL with the first range; returns a UrlSource or a MemorySource. */
  static async open(url, onProgress) {
    let res;
    try {
      res = await fetch(url, { headers: { Range: `bytes=0-${FIRST_READ - 1}` } });
    } catch (e) {
      throw new Error(`could not fetch ${url}: ${messageOf(e)}`);
    }
    const name = nameFromUrl(url);
    if (res.status === 416) {
      // Empty file: the reader gives its own message about it.
      return new MemorySource(new Uint8Array(0), name);
    }
    if (res.status === 200) {
      const body = await readCapped(res, MAX_WHOLE_BODY, onProgress);
      return new MemorySource(body, name);
    }
    if (res.status !== 206) throw httpError(res, url);
    const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(res.headers.get('Content-Range') ?? '');
    if (m?.[1] !== '0') throw new Error(`the server sent a malformed Content-Range for ${url}`);
    const head = new Uint8Array(await res.arrayBuffer());
    const length = Number(m[3]);
    if (m[3] === '*') throw new Error(`the server did not tell the file size of ${url} (Content-Range */*)`);
    return new UrlSource(url, name, length, head);
  }

  constructor(url, name, length, head) {
    this.url = url;
    this.name = name;
    this.length = length;
    this.head = head;
    this.controllers = new Set();
  }

  async read(offset, len) {
    const end = Math.min(this.length, offset + len);
    if (offset >= end) return new Uint8Array(0);
    if (end <= this.head.length) return this.head.slice(offset, end);
    const ctl = new AbortController();
    this.controllers.add(ctl);
    try {
      let res;
      try {
        res = await fetch(this.url, { headers: { Range: `bytes=${offset}-${end - 1}` }, signal: ctl.signal });
      } catch (e) {
        if (ctl.signal.aborted) throw e;
        throw new Error(`could not fetch ${this.url}: ${messageOf(e)}`);
      }
      if (res.status === 200) {
        // The server stopped honouring ranges mid-way: take the slice of the whole body.
        const body = await readCapped(res, MAX_WHOLE_BODY);
        return body.slice(offset, end);
      }
      if (res.status !== 206) throw httpError(res, this.url);
      const m = /^bytes\s+(\d+)-/i.exec(res.headers.get('Content-Range') ?? '');
      if (!m || Number(m[1]) !== offset)
        throw new Error(`the server answered a different range than asked for ${this.url}`);
      return new Uint8Array(await res.arrayBuffer());
    } finally {
      this.controllers.delete(ctl);
    }
  }

  abort() {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }

  close() {
    this.abort();
  }
}

// ---------------------------------------------------------------- the open replay

/** LRU of compressed chunks (Uint8Array) bounded by bytes. Map iteration order = recency (oldest first). */
class BytesCache {
  constructor(budget) {
    this.budget = budget;
    this.map = new Map();
    this.bytes = 0;
  }
  get(i) {
    const c = this.map.get(i);
    if (c) {
      this.map.delete(i);
      this.map.set(i, c);
    }
    return c;
  }
  put(i, c) {
    if (this.map.has(i)) this.bytes -= this.map.get(i).byteLength;
    this.map.delete(i);
    this.map.set(i, c);
    this.bytes += c.byteLength;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget || this.map.size <= 1) break;
      this.map.delete(k);
      this.bytes -= v.byteLength;
    }
  }
  clear() {
    this.map.clear();
    this.bytes = 0;
  }
}

const NO_BYTES = new Uint8Array(0);

class Replay {
  constructor(sessionId, source, dec, memory, info) {
    this.sessionId = sessionId;
    /** The WebAssembly.Memory of the decoder build this replay uses (for `stats`). */
    this.memory = memory;
    this.source = source;
    this.dec = dec;
    this.cache = new BytesCache(CACHE_BYTES);
    /** The spare decoder (spareDecoder()): undefined until first needed, null when there is none. */
    this.spare = undefined;
    this.closed = false;
    this.chunkCount = dec.chunkCount();
    this.firstTick = info.info.first_tick;
    this.endTick = info.info.last_tick + 1;
    /** The latest request from the page ({gen, from, to, stride, dir}): superseded, never queued
     *  behind stale work. `next`: the first tick of it not posted yet. */
    this.gen = 0;
    this.req = null;
    this.next = 0;
    this.pumping = false;
    /** Reads in flight: chunk index → Promise<Uint8Array>. */
    this.reading = new Map();
    /** The latest prefetch hint not yet handled ({tick, decode, reads}), and whether one is being
     *  handled. */
    this.hint = null;
    this.hinting = false;
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
  }

  /** The chunk holding `tick` (the last one starting at or before it). */
  chunkFor(tick) {
    return this.dec.chunkForTick(tick);
  }

  /** Replaces the request: pieces covering ticks [from, to) thinned to `stride`, posted in order;
   *  `dir` says which chunk to read ahead. An empty range clears the queue. */
  want(gen, from, to, stride = 1, dir = 1) {
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
        }
      : null;
    this.next = this.req ? this.req.from : 0;
    // A read for a chunk no longer wanted is abandoned (a URL's download, not a file's slice).
    if (this.req && this.reading.size) {
      const c = this.chunkFor(this.next);
      if (![...this.reading.keys()].some((k) => k === c || k === c + this.req.dir)) this.source.abort?.();
    }
    this.pump();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && this.req && this.next < this.req.to) {
        const { gen } = this.req;
        const from = this.next;
        const index = this.chunkFor(from);
        try {
          await this.piece(index, from, gen);
        } catch (e) {
          if (this.closed) return;
          // This request cannot go on (the chunk is damaged): report it, stop until the next one.
          if (this.req?.gen === gen) this.req = null;
          post({ type: 'error', session: this.sessionId, index, message: messageOf(e), fatal: isFatal(e) });
          if (isFatal(e)) return;
        }
        // Let a newer `want` in between pieces (scrubbing, the page's window moving on).
        await new Promise((r) => setTimeout(r, 0));
      }
      if (!this.closed && this.req) this.readAhead();
    } finally {
      this.pumping = false;
    }
  }

  /** Decodes and posts the piece of chunk `index` starting at tick `from` (resuming in the chunk
   *  without its bytes when the decoder stands there). */
  async piece(index, from, gen) {
    const t0 = performance.now();
    let bytes = NO_BYTES;
    let resumed = this.takeHeld(index);
    // The chunk's bytes were in the cache already (read ahead, or by a hint): no wait for the file.
    let cached = false;
    if (!resumed) {
      cached = this.cache.map.has(index);
      bytes = await this.bytesOf(index);
      if (!bytes || this.closed) return;
      // Superseded while reading: the next request starts elsewhere.
      if (this.req?.gen !== gen && this.next !== from) {
        this.stats.dropped++;
        return;
      }
      resumed = this.takeHeld(index);
      if (resumed) bytes = NO_BYTES;
    }
    const r = this.req;
    if (!r) return;
    const t1 = performance.now();
    this.dec.rpChunk = index;
    const d = this.dec.decodeRange(index, bytes, from, r.to, r.stride, PIECE_STATES);
    if (resumed) this.stats.resumed++;
    else this.stats.decoded++;
    const t2 = performance.now();
    let msg;
    let transfer;
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
    post(msg, transfer);
  }

  /** The compressed bytes of chunk `index`: cached, being read, or read now. */
  async bytesOf(index) {
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
      if (this.closed || e?.name === 'AbortError') return null;
      throw e;
    }
  }

  /** Caught up: reads the next chunk in the playing direction, so the next piece that needs it
   *  does not wait for the read. Errors wait for the piece that needs the chunk. */
  readAhead() {
    const r = this.req;
    // Forward: the chunk after the one the request ended in; rewinding: the one before its start.
    const c = r.dir < 0 ? this.chunkFor(r.from) - 1 : this.chunkFor(Math.max(r.from, this.next - 1)) + 1;
    if (c < 0 || c >= this.chunkCount || this.cache.map.has(c) || this.reading.has(c)) return;
    this.bytesOf(c).catch(() => {});
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
  async prefetch(tick, decode, reads, keep) {
    this.stats.hints++;
    const clamp = (k) => Math.max(this.firstTick, Math.min(this.endTick - 1, Math.floor(k)));
    this.hint = {
      tick: Number.isFinite(tick) ? clamp(tick) : null,
      decode: !!decode,
      keep: !!keep,
      reads: Array.isArray(reads) ? reads.slice(0, HINT_READS).filter(Number.isFinite).map(clamp) : [],
    };
    if (this.hinting) return;
    this.hinting = true;
    try {
      while (this.hint !== null && !this.closed) {
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
  busy() {
    return this.closed || this.hint !== null || this.pumping || (this.req !== null && this.next < this.req.to);
  }

  /** Reads the chunks holding `ticks` into the cache, one after the other, while the worker is
   *  not busy, up to HINT_READ_BYTES. Read errors are left to the piece that needs the chunk. */
  async readFor(ticks) {
    let budget = HINT_READ_BYTES;
    for (const tick of ticks) {
      if (this.busy()) return;
      const c = this.chunkFor(tick);
      if (c < 0 || c >= this.chunkCount || this.cache.map.has(c) || this.reading.has(c) || this.holder(c)) continue;
      const len = this.dec.chunkRange(c)[1];
      if (!(len <= budget)) return;
      budget -= len;
      try {
        if (!(await this.bytesOf(c))) return;
      } catch {
        return;
      }
      this.stats.hintReads++;
    }
  }

  /**
   * The spare decoder: a fork of the session (its own chunk payload and position) that hints warm,
   * so that the decoder the page plays from stays where it is; made on first use, for chunks up to
   * SPARE_CHUNK_BYTES. null when the format has none to fork (the hints then move the one decoder,
   * `keep` hints only read).
   */
  spareDecoder() {
    if (this.spare === undefined) {
      try {
        this.spare = this.dec.fork?.() ?? null;
      } catch (e) {
        if (isFatal(e)) throw e;
        this.spare = null;
      }
    }
    return this.spare;
  }

  /** The decoder that holds chunk `c` (decodes there without bytes): the decoder, the spare one,
   *  or null. */
  holder(c) {
    return this.dec.holdsChunk(c) ? this.dec : this.spare?.holdsChunk(c) ? this.spare : null;
  }

  /** Whether a decoder holds chunk `c` (no read, no decompression); the spare one becomes the
   *  decoder then (and the one it replaces the spare: going back there resumes too). */
  takeHeld(c) {
    const d = this.holder(c);
    if (d === null) return false;
    if (d === this.dec) return true;
    [this.dec, this.spare] = [this.spare, this.dec];
    this.stats.swapped++;
    return true;
  }

  async warm(tick, decode, keep) {
    const c = this.chunkFor(tick);
    if (c < 0 || c >= this.chunkCount) return;
    this.stats.prefetched++;
    // The decoder that holds c rolls there; else the spare one decompresses it (the one the page
    // plays from stays put), or, without a spare (or for a large chunk), the one decoder unless
    // the hint says `keep`.
    const small = this.dec.chunkRange(c)[1] <= SPARE_CHUNK_BYTES;
    const pick = () => this.holder(c) ?? (small ? this.spareDecoder() : null) ?? (keep ? null : this.dec);
    let bytes = NO_BYTES;
    if (!pick()?.holdsChunk(c)) {
      try {
        bytes = await this.bytesOf(c);
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
      this.stats.warmed++;
      if (fresh) {
        this.stats.decoded++;
        this.stats.hintDecoded++;
      }
    } catch (e) {
      if (isFatal(e)) throw e;
    }
  }

  close() {
    this.closed = true;
    this.req = null;
    this.cache.clear();
    this.source.close?.();
    for (const d of [this.dec, this.spare]) {
      try {
        d?.free();
      } catch {
        /* already freed */
      }
    }
  }
}

let replay = null;

async function open(params) {
  const sessionId = params.session ?? 0;
  if (replay) {
    replay.close();
    replay = null;
  }
  const progress = (phase, loaded, total) => post({ type: 'progress', session: sessionId, phase, loaded, total });
  // 'wasm' first (as before the decoder split): the decoder for the file's format loads once its
  // head has been read, inside openSession below.
  progress('wasm', 0, 0);
  let source;
  if (params.url) {
    progress('connect', 0, 0);
    source = await UrlSource.open(params.url, (loaded, total) => progress('download', loaded, total));
  } else if (params.blob instanceof Blob) {
    source = new BlobSource(params.blob);
  } else {
    throw new Error('open needs a url or a File/Blob');
  }
  const name = params.name || source.name || '';
  let opened;
  try {
    opened = await openSession(source, (loaded, total) => progress('open', loaded, total));
  } catch (e) {
    source.close?.();
    throw e;
  }
  const { dec, wasm, reads, bytesRead } = opened;
  let ok = false;
  try {
    const info = dec.info();
    replay = new Replay(sessionId, source, dec, wasm.memory, info);
    replay.stats.openReads = reads;
    replay.stats.openBytes = bytesRead;
    ok = true;
    return { ...info, name, sourceKind: params.url ? 'url' : 'file', openReads: reads, openBytes: bytesRead };
  } finally {
    if (!ok) {
      try {
        dec.free();
      } catch {
        /* ignore */
      }
      source.close?.();
    }
  }
}

const methods = {
  async open(params) {
    return open(params ?? {});
  },
  /** The ticks the page wants ([from, to), thinned to `stride`); supersedes the previous request. */
  want(params) {
    if (!replay || replay.sessionId !== params.session) return { ignored: true };
    replay.want(params.gen ?? 0, params.from, params.to, params.stride ?? 1, params.dir === -1 ? -1 : 1);
    return { gen: replay.gen };
  },
  /** A hint: the page may seek to `tick` soon (see Replay.prefetch). */
  async prefetch(params) {
    if (!replay || replay.sessionId !== params?.session) return { ignored: true };
    await replay.prefetch(params.tick, params.decode, params.reads, params.keep);
    return {};
  },
  close() {
    if (replay) replay.close();
    replay = null;
    return {};
  },
  stats() {
    if (!replay) return null;
    return {
      ...replay.stats,
      cacheBytes: replay.cache.bytes,
      cachedChunks: [...replay.cache.map.keys()],
      // The chunks the decoder and the spare one hold (decode there without bytes).
      heldChunks: [replay.dec, replay.spare]
        .filter((d) => d && d.rpChunk >= 0 && d.holdsChunk(d.rpChunk))
        .map((d) => d.rpChunk),
      // A prefetch hint being handled or waiting for the one being handled.
      hinting: replay.hinting || replay.hint !== null,
      wasmMemoryBytes: replay.memory?.buffer?.byteLength ?? 0,
    };
  },
  /**
   * Test-only hook (tests/e2e/safety.test.mjs): makes the decoder's wasm instance trap the way a
   * malformed call would, so the page's crash handling can be checked end to end. It calls a
   * DecoderSession method on a pointer outside linear memory ("memory access out of bounds", a
   * WebAssembly.RuntimeError). `{async: true}` traps outside any request (as a trap while decoding
   * a wanted chunk would) instead of in the reply to this one. Harmless: only the page that owns
   * this worker can call it, and that page can terminate the worker anyway.
   */
  async __trap(params) {
    const { DecoderSession } = await ensureWasm();
    const trap = () => {
      const bogus = Object.create(DecoderSession.prototype);
      bogus.__wbg_ptr = 0xfffffff0;
      bogus.chunkCount();
      throw new Error('__trap: the decoder did not trap');
    };
    if (params?.async) {
      Promise.resolve().then(trap);
      return { scheduled: true };
    }
    return trap();
  },
};

// ---------------------------------------------------------------- .foldback divergence view
// The fb* methods live in worker-foldback.js, imported on the first fb* request (a .flrep session
// never downloads them); they use this worker's sources and decoder loading.

let fbMethods = null;
async function fbMethod(method) {
  fbMethods ??= import('./worker-foldback.js')
    .then((m) => m.createFoldbackMethods({ UrlSource, BlobSource, openSession, ensureWasm }))
    .catch((e) => {
      fbMethods = null;
      throw e;
    });
  return (await fbMethods)[method];
}

function fail(id, e) {
  const fatal = isFatal(e);
  post({ id, error: { message: messageOf(e), fatal } });
  if (fatal) post({ type: 'fatal', message: messageOf(e) });
}

self.addEventListener('message', async (ev) => {
  const { id, method, params } = ev.data ?? {};
  let fn = methods[method];
  if (!fn && typeof method === 'string' && /^fb[A-Z]/.test(method)) {
    try {
      fn = await fbMethod(method);
    } catch (e) {
      if (id !== undefined) fail(id, e);
      return;
    }
  }
  if (!fn) {
    if (id !== undefined) post({ id, error: { message: `unknown method ${method}`, fatal: false } });
    return;
  }
  try {
    const result = await fn(params);
    if (id !== undefined) post({ id, result });
  } catch (e) {
    if (id !== undefined) fail(id, e);
    else post({ type: 'error', session: params?.session, message: messageOf(e), fatal: isFatal(e) });
  }
});

// Errors from the background pump (reads/decodes not tied to a request).
self.addEventListener('unhandledrejection', (ev) => {
  ev.preventDefault();
  const e = ev.reason;
  post({ type: 'error', session: replay?.sessionId, message: messageOf(e), fatal: isFatal(e) });
});
