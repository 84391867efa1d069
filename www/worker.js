// The decoder Web Worker (module worker). Owns the replay source and the wasm DecoderSession:
// reads only the byte ranges the session asks for (Blob.slice for files, HTTP Range for URLs),
// decodes chunks on demand into a byte-bounded LRU cache, and posts decoded chunks (batches of
// packed frames) to the page as transferable buffers. Protocol: docs/worker-protocol.md.
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

/** Decoded-chunk cache budget (bytes of typed arrays held): chunks decoded ahead, not posted yet. */
const CACHE_BYTES = 32 * 1024 * 1024;
/** A server that ignores Range makes us read the whole body: refuse bodies larger than this. */
const MAX_WHOLE_BODY = 512 * 1024 * 1024;
/** The first HTTP read (matches the reader's first request, so it is served from memory). */
const FIRST_READ = 64 * 1024;
/** Chunks decoded into the cache (not posted) beyond the ones the page asks for. */
const PREFETCH_EXTRA = 1;

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
      return { DecoderSession: mod.DecoderSession, FoldbackView: mod.FoldbackView ?? null, memory: exports?.memory ?? null };
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
  return new Error(`the server answered ${res.status}${res.statusText ? ' ' + res.statusText : ''} for ${url}`);
}

/** Reads a whole response body, refusing more than `cap` bytes. */
async function readCapped(res, cap, onProgress) {
  const declared = Number(res.headers.get('Content-Length'));
  if (Number.isFinite(declared) && declared > cap) {
    throw new Error(`the server does not support range requests and the file is ${(declared / 1048576).toFixed(0)} MiB: over the ${cap / 1048576} MiB this player reads whole`);
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
      throw new Error(`the server does not support range requests and the file is over the ${cap / 1048576} MiB this player reads whole`);
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
    if (!m || m[1] !== '0') throw new Error(`the server sent a malformed Content-Range for ${url}`);
    const head = new Uint8Array(await res.arrayBuffer());
    let length = Number(m[3]);
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
      if (!m || Number(m[1]) !== offset) throw new Error(`the server answered a different range than asked for ${this.url}`);
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

/** LRU of decoded chunks bounded by bytes. Map iteration order = recency (oldest first). */
class ChunkCache {
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
  has(i) {
    return this.map.has(i);
  }
  delete(i) {
    const c = this.map.get(i);
    if (!c) return;
    this.map.delete(i);
    this.bytes -= c.bytes;
  }
  put(i, c) {
    if (this.map.has(i)) this.bytes -= this.map.get(i).bytes;
    this.map.delete(i);
    this.map.set(i, c);
    this.bytes += c.bytes;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget || this.map.size <= 1) break;
      this.map.delete(k);
      this.bytes -= v.bytes;
    }
  }
  clear() {
    this.map.clear();
    this.bytes = 0;
  }
}

class Replay {
  constructor(sessionId, source, dec, memory) {
    this.sessionId = sessionId;
    /** The WebAssembly.Memory of the decoder build this replay uses (for `stats`). */
    this.memory = memory;
    this.source = source;
    this.dec = dec;
    this.cache = new ChunkCache(CACHE_BYTES);
    this.closed = false;
    this.chunkCount = dec.chunkCount();
    // The latest request from the page: superseded, never queued behind stale work.
    this.gen = 0;
    this.post = [];
    this.prefetch = [];
    /** A seek's tick from the latest `want` (its first chunk is decoded up to it first), or null. */
    this.focus = null;
    this.pumping = false;
    this.inflight = -1;
    this.stats = { reads: 0, bytesRead: 0, decoded: 0, posted: 0, cacheHits: 0 };
  }

  /** Replaces the wanted set: `post` chunks are decoded and posted (in order), then prefetched:
   *  after the last one asked for, or before the first one when `dir` < 0 (playing backwards). */
  want(gen, chunks, dir = 1, focus = null) {
    if (gen < this.gen) return; // an older request overtaken in flight
    this.gen = gen;
    // A seek's tick: the first chunk asked for, when it must be decoded, is first decoded only up to
    // it and posted (`partial`), then whole (docs/worker-protocol.md).
    this.focus = Number.isFinite(focus) && focus >= 0 ? focus : null;
    const valid = chunks.filter((i) => Number.isInteger(i) && i >= 0 && i < this.chunkCount);
    this.post = [...new Set(valid)];
    this.prefetch = [];
    if (dir < 0) {
      const first = this.post.length ? Math.min(...this.post) : -1;
      for (let k = 1; k <= PREFETCH_EXTRA && first >= 0; k++) {
        if (first - k >= 0) this.prefetch.push(first - k);
      }
    } else {
      const last = this.post.length ? Math.max(...this.post) : -1;
      for (let k = 1; k <= PREFETCH_EXTRA && last >= 0; k++) {
        if (last + k < this.chunkCount) this.prefetch.push(last + k);
      }
    }
    // A read for a chunk no longer wanted is abandoned.
    if (this.inflight >= 0 && !this.post.includes(this.inflight) && !this.prefetch.includes(this.inflight)) {
      this.source.abort?.();
    }
    this.pump();
  }

  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.closed && (this.post.length || this.prefetch.length)) {
        const posting = this.post.length > 0;
        const index = posting ? this.post.shift() : this.prefetch.shift();
        const gen = this.gen;
        // The seek's chunk (asked for first): decode up to the seek's tick first.
        const until = posting && this.focus !== null ? this.focus : null;
        this.focus = null;
        try {
          let chunk = this.cache.get(index);
          let cached = false;
          if (chunk) {
            this.stats.cacheHits++;
            cached = true;
          } else {
            chunk = await this.load(index, gen, until);
            if (!chunk) continue; // superseded or closed
          }
          if (posting && !this.closed && gen === this.gen) this.postChunk(index, chunk, gen, cached);
        } catch (e) {
          if (this.closed) return;
          post({ type: 'error', session: this.sessionId, index, message: messageOf(e), fatal: isFatal(e) });
          if (isFatal(e)) return;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Still worth decoding `index` (taken off the queue for request `gen`)? */
  stillWanted(index, gen) {
    return gen === this.gen || this.post.includes(index) || this.prefetch.includes(index);
  }

  /** Reads and decodes chunk `index` into the cache; null when superseded while reading. With
   *  `until` (a seek's tick), first decodes and posts the chunk's frames up to that tick
   *  (`partial: true`: the seek's frame sooner, ~half the decode on average), then, unless a newer
   *  request has dropped the chunk meanwhile (scrubbing), the whole chunk. */
  async load(index, gen, until = null) {
    const [offset, len] = this.dec.chunkRange(index);
    this.inflight = index;
    const t0 = performance.now();
    let bytes;
    try {
      bytes = await this.source.read(offset, len);
    } catch (e) {
      if (this.closed || e?.name === 'AbortError') return null;
      throw e;
    } finally {
      this.inflight = -1;
    }
    if (this.closed) return null;
    this.stats.reads++;
    this.stats.bytesRead += bytes.length;
    // Superseded while reading (scrubbing): do not spend time decoding it.
    if (!this.stillWanted(index, gen)) {
      this.stats.dropped = (this.stats.dropped ?? 0) + 1;
      return null;
    }
    let t1 = performance.now();
    if (until !== null && this.dec.decodeChunkUntil) {
      const p = this.extract(this.dec.decodeChunkUntil(index, bytes, until + 1), t0, t1);
      if (p.complete) {
        this.stats.decoded++;
        this.cache.put(index, p);
        return p;
      }
      if (gen === this.gen && !this.closed) {
        this.stats.partials = (this.stats.partials ?? 0) + 1;
        this.postChunk(index, p, gen, false, true);
      }
      // Let a newer `want` in (scrubbing): the rest of this chunk may no longer be wanted.
      await new Promise((r) => setTimeout(r, 0));
      if (this.closed) return null;
      if (!this.stillWanted(index, gen)) {
        this.stats.dropped = (this.stats.dropped ?? 0) + 1;
        return null;
      }
      t1 = performance.now();
    }
    const chunk = this.extract(this.dec.decodeChunk(index, bytes), t0, t1);
    this.stats.decoded++;
    this.cache.put(index, chunk);
    return chunk;
  }

  /** A chunk object out of a DecodedChunkJs (freed here); `t0`/`t1`: read start / decode start. */
  extract(d, t0, t1) {
    const t2 = performance.now();
    let chunk;
    try {
      const ticks = d.ticks();
      const offsets = d.offsets();
      const entities = d.entities();
      const events = d.events();
      chunk = {
        ticks,
        offsets,
        entities,
        events,
        skippedEvents: d.skippedEvents(),
        complete: d.complete(),
        bytes: ticks.byteLength + offsets.byteLength + entities.byteLength + events.length * 64,
        // Diagnostics (ms): Blob/HTTP read, wasm decode, copy out of wasm (arrays + events objects).
        timing: { read: t1 - t0, decode: t2 - t1, extract: performance.now() - t2 },
      };
    } finally {
      d.free();
    }
    return chunk;
  }

  /** Posts a chunk, handing its arrays over (transferred, not copied): the page now holds it, so
   *  the cache only keeps chunks decoded ahead and not posted yet. Keeping a copy of every posted
   *  chunk doubled the decoded frames in memory (≈ 15 MB per chunk at 2,000 entities) and cost a
   *  copy per post; a chunk the page has dropped and wants again is decoded again. */
  postChunk(index, c, gen, cached = false, partial = false) {
    const t0 = performance.now();
    if (!partial) this.cache.delete(index);
    const { ticks, offsets, entities } = c;
    this.stats.posted++;
    post(
      {
        type: 'chunk',
        session: this.sessionId,
        gen,
        index,
        // The chunk's frames up to a seek's tick only; the whole chunk follows in its own message.
        partial,
        firstTick: ticks.length ? ticks[0] : 0,
        lastTick: ticks.length ? ticks[ticks.length - 1] : 0,
        ticks,
        offsets,
        entities,
        events: c.events,
        skippedEvents: c.skippedEvents,
        // Diagnostics: where the time went (ms); `postedAt` is wall-clock ms (timeOrigin + now)
        // so the page can tell the transit time.
        timing: cached
          ? { cached: true, read: 0, decode: 0, extract: 0, copy: performance.now() - t0, postedAt: performance.timeOrigin + performance.now() }
          : { cached: false, ...c.timing, copy: performance.now() - t0, postedAt: performance.timeOrigin + performance.now() },
      },
      [ticks.buffer, offsets.buffer, entities.buffer],
    );
  }

  close() {
    this.closed = true;
    this.post = [];
    this.prefetch = [];
    this.cache.clear();
    this.source.close?.();
    try {
      this.dec.free();
    } catch {
      /* already freed */
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
    replay = new Replay(sessionId, source, dec, wasm.memory);
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
  /** Wanted chunks (posted in order) for the playhead; supersedes the previous request. */
  want(params) {
    if (!replay || replay.sessionId !== params.session) return { ignored: true };
    replay.want(params.gen ?? 0, params.chunks ?? [], params.dir === -1 ? -1 : 1, params.focus ?? null);
    return { gen: replay.gen };
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
