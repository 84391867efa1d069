// The decoder Web Worker (module worker): the message entry point. Owns the open replay (its
// source and wasm DecoderSession) and answers the page's requests and notifications
// (docs/worker-protocol.md). Its parts:
// - www/workers/decode/sources.ts: the replay's bytes (Blob.slice for files, HTTP Range for URLs);
// - www/workers/decode/decoders.ts: the decoder build for a file's magic, loaded once; opening a session;
// - www/workers/decode/replay.ts: the open replay and the request pump (pieces of decoded frames posted
//   as transferable buffers; a byte-bounded cache of compressed chunks);
// - www/workers/decode/prefetch.ts: prefetch hints and the spare decoder;
// - www/workers/decode/foldback.ts: the .foldback divergence view's fb* methods, imported on first use.
import { ensureWasm, openSession } from './decoders.ts';
import type { DecoderSession, Opened, PlayDecoder } from './decoders.ts';
import { isFatal, messageOf } from './errors.ts';
import type { FoldbackMethods } from './foldback.ts';
import { Replay } from './replay.ts';
import { BlobSource, UrlSource } from './sources.ts';
import type { MemorySource } from './sources.ts';
import type {
  DecodeMethod,
  DecodeOutbound,
  DecodeParams,
  DecodeResult,
  OpenParams,
  OpenResult,
  ProgressPush,
  SessionInfo,
} from '../../lib/protocol/decode.ts';

/** The methods this module answers (the fb* ones are workers/decode/foldback.ts's). */
type OwnMethod = Exclude<DecodeMethod, `fb${string}`>;
type Methods = {
  [M in OwnMethod]: (params: DecodeParams<M>) => DecodeResult<M> | Promise<DecodeResult<M>>;
};
/** A method as the dispatcher calls it: with the params the page sent. */
type Method = (params: unknown) => unknown;

function post(msg: DecodeOutbound, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

let replay: Replay | null = null;
// Counts opens: a file opened while another is still opening wins (the earlier open, answered
// later, must not take the replay's place: its answer is an error the page drops).
let opens = 0;
const superseded = () => new Error('superseded by a later open');

async function open(params: OpenParams): Promise<OpenResult> {
  const sessionId = params.session ?? 0;
  const mine = ++opens;
  if (replay) {
    replay.close();
    replay = null;
  }
  const progress = (phase: ProgressPush['phase'], loaded: number, total: number) =>
    post({ type: 'progress', session: sessionId, phase, loaded, total });
  // 'wasm' first (as before the decoder split): the decoder for the file's format loads once its
  // head has been read, inside openSession below.
  progress('wasm', 0, 0);
  if (params.live) {
    // A live .flrep (workers/decode/live.ts, imported on the first live open).
    const { openLive } = await import('./live.ts');
    return openLive(params, {
      post,
      progress,
      current: () => mine === opens,
      setReplay: (r: Replay) => {
        replay = r;
      },
      Replay,
      ensureWasm,
    });
  }
  let source: UrlSource | MemorySource | BlobSource;
  if (params.url) {
    progress('connect', 0, 0);
    source = await UrlSource.open(params.url, (loaded, total) => progress('download', loaded, total));
  } else if (params.blob instanceof Blob) {
    source = new BlobSource(params.blob);
  } else {
    throw new Error('open needs a url or a File/Blob');
  }
  const name = params.name || source.name || '';
  if (mine !== opens) {
    source.close?.();
    throw superseded();
  }
  let opened: Opened;
  try {
    opened = await openSession(source, (loaded, total) => progress('open', loaded, total));
  } catch (e) {
    source.close?.();
    throw e;
  }
  const { dec, wasm, reads, bytesRead } = opened;
  let ok = false;
  try {
    if (mine !== opens) throw superseded();
    const info: SessionInfo = dec.info();
    replay = new Replay(sessionId, source, dec, wasm.memory, info, post);
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

const methods: Methods = {
  async open(params) {
    return open(params ?? {});
  },
  /** The ticks the page wants ([from, to), thinned to `stride`); supersedes the previous request. */
  want(params) {
    if (!replay || replay.sessionId !== params.session) return { ignored: true };
    replay.want(
      params.gen ?? 0,
      params.from,
      params.to,
      params.stride ?? 1,
      params.dir === -1 ? -1 : 1,
      params.entities,
    );
    return { gen: replay.gen };
  },
  /** A hint: the page may seek to `tick` soon (see Prefetch.prefetch, www/workers/decode/prefetch.ts). */
  async prefetch(params) {
    if (!replay || replay.sessionId !== params?.session) return { ignored: true };
    await replay.hints.prefetch(params.tick, params.decode, params.reads, params.keep);
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
      heldChunks: [replay.dec, replay.hints.spare]
        .filter(
          (d): d is PlayDecoder & { rpChunk: number } =>
            !!d && d.rpChunk !== undefined && d.rpChunk >= 0 && d.holdsChunk(d.rpChunk),
        )
        .map((d) => d.rpChunk),
      // A prefetch hint being handled or waiting for the one being handled.
      hinting: replay.hints.pending(),
      // Range requests asked for again (a server that failed); chunks that are gaps.
      retries: replay.source.retries ?? 0,
      gaps: [...replay.gaps.keys()],
      scan: replay.scan?.stats() ?? null,
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
      const bogus: DecoderSession & { __wbg_ptr: number } = Object.create(DecoderSession.prototype);
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
// The fb* methods live in workers/decode/foldback.ts, imported on the first fb* request (a .flrep session
// never downloads them); it imports the same sources and decoder loading as this worker.

let fbMethods: Promise<FoldbackMethods> | null = null;
async function fbMethod(method: string): Promise<Method | undefined> {
  fbMethods ??= import('./foldback.ts')
    .then((m) => m.foldbackMethods)
    .catch((e) => {
      fbMethods = null;
      throw e;
    });
  return ((await fbMethods) as Record<string, Method | undefined>)[method];
}

function fail(id: number, e: unknown): void {
  const fatal = isFatal(e);
  post({ id, error: { message: messageOf(e), fatal } });
  if (fatal) post({ type: 'fatal', message: messageOf(e) });
}

self.addEventListener('message', async (ev: MessageEvent) => {
  // (The page's message: what the protocol says it sends, looked at before use.)
  const { id, method, params } = (ev.data ?? {}) as { id?: number; method?: unknown; params?: unknown };
  let fn = (methods as Record<string, Method | undefined>)[method as string];
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
    else
      post({
        type: 'error',
        session: (params as { session?: number } | undefined)?.session,
        message: messageOf(e),
        fatal: isFatal(e),
      });
  }
});

// Errors from the background pump (reads/decodes not tied to a request).
self.addEventListener('unhandledrejection', (ev) => {
  ev.preventDefault();
  const e = ev.reason;
  post({ type: 'error', session: replay?.sessionId, message: messageOf(e), fatal: isFatal(e) });
});
