// Live `.flrep` in the decoder worker (docs/live.md "The player"), imported on the first live open.
// The recording as received so far is a `.flrep` without its trailer: the prefix (header +
// sections) followed by every chunk received, back to back. The decoder opens that virtual file
// with its forward scan (the one a file cut short gets), fed from what this module holds: the
// prefix and each chunk's 36-byte header, kept for every chunk (so a reopen reads nothing); a
// chunk's whole bytes are read on demand (`read`), from a byte-bounded LRU or, once evicted, from
// its segment file again. Each time chunks arrive the decoder is opened again over the longer file
// and takes the old one's place in the Replay (workers/decode/replay.ts `adopt`); the page is told with a
// `live` push (the new last tick, the kills, the status).
//
// Two feeds fill it, each imported when used: `SegmentFeed` in workers/decode/live-segments.ts
// (manifest.json polled, immutable segment files fetched: any static server or CDN) and
// `SocketFeed` in workers/decode/live-ws.ts (the WebSocket messages). Data from
// either is hostile: every length is checked before use, a manifest's URIs must be plain file
// names beside it, and anything refused ends that source with an error naming the numbers (the
// page keeps the recording received so far and keeps working).
//
// It imports nothing of the worker's first load (worker.js hands in what it needs: `Replay`,
// `ensureWasm`), so that those stay in worker.js's one file. (Of the worker's modules it imports
// types only; the store and the limits it shares with the feeds are workers/decode/live-store.ts's.)
import type { DecoderSession, DecoderWasm } from './decoders.ts';
import type { Post, Replay } from './replay.ts';
import { MAX_CHUNKS, fail, messageOf } from './live-store.ts';
import type { LiveGap, LiveStore, ManifestKill } from './live-store.ts';
import type {
  KillEvent,
  LiveOpenInfo,
  LiveStats,
  LiveStatus,
  OpenParams,
  OpenResult,
  ProgressPush,
  ReplayEvent,
  SessionInfo,
} from '../../lib/protocol/decode.ts';

// The limits, errors and store are workers/decode/live-store.ts's (the feeds import them there).
export {
  BACKOFF_MS,
  CHUNK_HEADER_LEN,
  HELD_BYTES,
  JOIN_S,
  LiveStore,
  MAX_CHUNKS,
  MAX_KILLS,
  MAX_MANIFEST,
  MAX_PREFIX,
  MAX_SEGMENT,
  MAX_SEGMENTS,
  PLAIN_NAME,
  fail,
  messageOf,
  whole,
} from './live-store.ts';

/** A live source (workers/decode/live-segments.ts SegmentFeed, workers/decode/live-ws.ts SocketFeed). */
export interface Feed {
  status: LiveStatus;
  readonly chunkS: number;
  readonly pollMs: number;
  file?: string | null;
  partial?: boolean;
  connections?: number;
  resent?: number;
  polls?: number;
  fetched?: number;
  byName?: number;
  gaps?: LiveGap[];
  onGrow: ((kills: ManifestKill[], readKills?: number[]) => void) | null;
  onStatus: (() => void) | null;
  onError: ((e: unknown) => void) | null;
  start(): Promise<{ store: LiveStore; kills: ManifestKill[] }>;
  run(): void;
  halt(): void;
  stop(): void;
}

/** What the worker hands openLive (workers/decode/main.ts). */
export interface LiveContext {
  post: Post;
  progress: (phase: ProgressPush['phase'], loaded: number, total: number) => void;
  /** Whether this is still the latest open. */
  current: () => boolean;
  setReplay: (r: Replay) => void;
  Replay: typeof Replay;
  ensureWasm: () => Promise<DecoderWasm>;
}

/** Opens a DecoderSession over the store's virtual file (reads from memory only). */
export function openOver(wasm: DecoderWasm, store: LiveStore): DecoderSession {
  const dec = new wasm.DecoderSession(store.length);
  try {
    let steps = 0;
    for (let want = dec.want(); want; want = dec.want()) {
      dec.feed(store.openBytes(want[0], want[1]));
      if (++steps > MAX_CHUNKS + 16) throw fail('the reader asked for too many reads while opening the live stream');
    }
    if (dec.chunkCount() !== store.chunks.length) {
      const info: SessionInfo = dec.info();
      const why = [...(info.info?.problems ?? []), ...(info.info?.warnings ?? [])].join('; ');
      throw fail(`the live stream's chunk ${dec.chunkCount()} is not a chunk: ${why}`);
    }
    return dec;
  } catch (e) {
    try {
      dec.free();
    } catch {
      /* ignore */
    }
    throw e;
  }
}

/** A Replay (workers/decode/replay.ts) whose decoder is opened again as the live recording grows. */
const liveReplay = (Replay: LiveContext['Replay']) =>
  class LiveReplay extends Replay {
    wasm: DecoderWasm;
    feed: Feed | null;

    constructor(
      sessionId: number,
      store: LiveStore,
      dec: DecoderSession,
      wasm: DecoderWasm,
      info: SessionInfo,
      post: Post,
    ) {
      // (markersComplete: the kills come from the source, not from a scan of the chunks.)
      super(sessionId, store, dec, wasm.memory, { ...info, markersComplete: true }, post);
      this.wasm = wasm;
      this.feed = null;
    }

    /** `dec`, opened over the longer stream, takes the old decoder's place (and the spare
     *  one's: the next hint forks the new one). Chunk indices stay the same. */
    adopt(dec: DecoderSession, info: SessionInfo): void {
      const old = [this.dec, this.hints.spare];
      this.dec = dec;
      this.hints.spare = undefined;
      this.chunkCount = dec.chunkCount();
      this.endTick = info.info.last_tick + 1;
      for (const d of old) {
        try {
          d?.free();
        } catch {
          /* already freed */
        }
      }
    }

    override close(): void {
      this.feed?.stop();
      super.close();
    }
  };

/** The open's answer for the page: the recording so far, its kills, `live` (the source's state). */
function liveInfo(
  dec: DecoderSession,
  kills: ReplayEvent[],
  feed: Feed,
  kind: LiveOpenInfo['kind'],
): SessionInfo & { live: LiveOpenInfo } {
  const info: SessionInfo = dec.info();
  // The scan's "no index trailer" is how a live stream is, not a fault.
  info.info = { ...info.info, warnings: [], problems: [] };
  const live: LiveOpenInfo = {
    status: feed.status,
    kind,
    chunkS: feed.chunkS,
    pollMs: feed.pollMs,
    file: feed.file ?? null,
    partial: !!feed.partial,
  };
  return { ...info, markers: kills, markersComplete: true, live };
}

/** A stride no chunk reaches: a range decode keeps only its first frame, and every event. */
const ONE_FRAME = 2 ** 52;
const NO_BYTES = new Uint8Array(0);

/** The kills of chunk `i` (its bytes `bytes`), decoded by a fork of `dec` (which stays put). */
export function killsOf(dec: DecoderSession, i: number, bytes: Uint8Array | undefined): ReplayEvent[] {
  const f = bytes ? dec.fork() : null;
  if (!f) return [];
  const out: ReplayEvent[] = [];
  try {
    let from = dec.chunkFirstTick(i);
    for (let k = 0; k < MAX_CHUNKS; k++) {
      // (A fork is made only with the bytes.)
      const d = f.decodeRange(
        i,
        k === 0 ? (bytes as Uint8Array) : NO_BYTES,
        from,
        Number.POSITIVE_INFINITY,
        ONE_FRAME,
        65536,
      );
      try {
        for (const e of d.events() as ReplayEvent[]) if (e.kind === 'kill') out.push(e);
        const end = d.end();
        if (end === undefined) break;
        from = end;
      } finally {
        d.free();
      }
    }
  } finally {
    f.free();
  }
  return out;
}

/** A kill of the manifest or of a chunk, as the decoder's events are (shapes.rs). */
const killEvent = (k: ManifestKill): KillEvent => ({
  tick: k.tick,
  kind: 'kill',
  killer: k.killer,
  victim: k.victim,
  weapon_type: k.weapon,
});

/**
 * Opens a live source (`params.live`: a manifest URL, or ws:// wss://) for session `sessionId`.
 * `ctx`: {post, progress, current() (still the latest open), setReplay(r), and the worker's
 * Replay and ensureWasm}. Resolves with the open's answer once the prefix and
 * the first chunk are there.
 */
export async function openLive(params: OpenParams, ctx: LiveContext): Promise<OpenResult> {
  const { ensureWasm } = ctx;
  const url = String(params.live);
  const isWs = /^wss?:\/\//i.test(url);
  ctx.progress('connect', 0, 0);
  const feed: Feed = isWs
    ? new (await import('./live-ws.ts')).SocketFeed(url)
    : new (await import('./live-segments.ts')).SegmentFeed(new URL(url).href);
  let first;
  try {
    first = await feed.start();
  } catch (e) {
    feed.stop();
    throw e;
  }
  const { store, kills } = first;
  // (The .flrep build: a prefix of another format is refused by its reader, in its words.)
  const wasm = await ensureWasm();
  if (!ctx.current()) {
    feed.stop();
    throw new Error('superseded by a later open');
  }
  let dec: DecoderSession;
  try {
    dec = openOver(wasm, store);
  } catch (e) {
    feed.stop();
    throw e;
  }
  const firstKills = isWs ? store.chunks.flatMap((_, i) => killsOf(dec, i, store.held.get(i))) : kills.map(killEvent);
  const open = liveInfo(dec, firstKills, feed, isWs ? 'ws' : 'segments');
  const replay = new (liveReplay(ctx.Replay))(params.session ?? 0, store, dec, wasm, open, ctx.post);
  replay.feed = feed;
  ctx.setReplay(replay);
  // Read when asked (the worker's stats message), never a snapshot: reads after the last growth
  // (an evicted chunk fetched again by a seek) count too.
  Object.defineProperty(replay.stats, 'live', {
    enumerable: true,
    get: (): LiveStats => ({
      kind: isWs ? 'ws' : 'segments',
      status: feed.status,
      chunks: store.chunks.length,
      seqs: [store.chunks[0]?.seq ?? -1, (store.nextSeq ?? 0) - 1],
      heldChunks: store.held.size,
      heldBytes: store.heldBytes,
      connections: feed.connections ?? 1,
      resent: feed.resent ?? 0,
      polls: feed.polls ?? 0,
      fetched: feed.fetched ?? 0,
      byName: feed.byName ?? 0,
    }),
  });
  const push = (extra: { kills: ReplayEvent[]; arrivedAt?: number }) => {
    ctx.post({
      type: 'live',
      session: replay.sessionId,
      status: feed.status,
      lastTick: replay.endTick - 1,
      chunks: store.chunks.length,
      fileLen: store.length,
      // Over segments, at the end: the complete recording, and whether this session lacks part of it.
      file: feed.file ?? null,
      partial: !!feed.partial,
      ...extra,
    });
  };
  let known = store.chunks.length;
  feed.onGrow = (newKills, readKills = []) => {
    if (replay.closed) return;
    const next = openOver(wasm, store);
    const info = liveInfo(next, [], feed, '');
    replay.adopt(next, info);
    let kills: ReplayEvent[] = newKills.map(killEvent);
    // Over WebSocket the kills are read from the chunks themselves; over segments, those of the
    // chunks read by name (their manifest entries were gone).
    const fromChunks = isWs ? store.chunks.map((_, i) => i).slice(known) : readKills;
    for (const i of fromChunks) kills = kills.concat(killsOf(next, i, store.held.get(i)));
    known = store.chunks.length;
    push({ kills, arrivedAt: performance.timeOrigin + performance.now() });
    // Chunks a WebSocket server skipped (this viewer fell behind), or segments that could not be
    // read again: their ticks are a gap.
    for (const g of feed.gaps?.splice(0) ?? [])
      ctx.post({ type: 'gap', session: replay.sessionId, chunk: -1, cause: 'unread', ...g });
  };
  feed.onStatus = () => {
    if (!replay.closed) push({ kills: [] });
  };
  feed.onError = (e) => {
    if (replay.closed) return;
    feed.halt();
    ctx.post({ type: 'live', session: replay.sessionId, status: 'failed', kills: [], error: messageOf(e) });
  };
  feed.run();
  return { ...open, name: params.name || url, sourceKind: 'live', openReads: 0, openBytes: store.length };
}
