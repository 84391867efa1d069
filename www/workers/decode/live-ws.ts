// Live `.flrep` over WebSocket in the decoder worker (docs/live.md "WebSocket"), imported by
// workers/decode/live.ts for a ws:// or wss:// source. A connection is hello, prefix, chunks in rising seq,
// goodbye; every message is binary, its first byte its kind, fields little-endian. Each is checked
// before use (its size against the limits, its fields, its order, the stream id: the CRC-32 of the
// prefix) and anything refused ends the source with an error naming the numbers. A dropped
// connection is "reconnecting": after a backoff it connects again with `?from=` the next chunk, so
// the recording resumes with no missing or doubled tick (a chunk seq already held is refused).
import { LiveStore, BACKOFF_MS, MAX_PREFIX, MAX_SEGMENT, CHUNK_HEADER_LEN, messageOf } from './live-store.ts';
import type { LiveGap, ManifestKill } from './live-store.ts';
import type { LiveStatus } from '../../lib/protocol/decode.ts';

const HELLO = 1;
const PREFIX = 2;
const CHUNK = 3;
const GOODBYE = 4;
const HELLO_LEN = 35;
/** The largest message: a chunk's 17 bytes of fields and the largest chunk. */
const MAX_MESSAGE = Math.max(MAX_PREFIX + 5, MAX_SEGMENT + 17);
/** A connection that brings no hello this long after opening is dropped and tried again (ms). */
const HELLO_MS = 5000;
/** Chunks a WebSocket session keeps (the DVR window: there are no segment files to read again). */
const WS_HELD_BYTES = 64 * 1024 * 1024;

const fail = (message: string) => Object.assign(new Error(message), { live: true });

let crcTable: Uint32Array | null = null;
/** CRC-32 (IEEE), the stream id of a prefix. */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The hello: the stream, the chunks the server has, the tick rate. */
export interface HelloMessage {
  kind: typeof HELLO;
  stream: number;
  firstSeq: number;
  headSeq: number;
  rate: number;
  chunkTicks: number;
}

/** A live message, checked (docs/live.md "WebSocket"). */
export type LiveMessage =
  | HelloMessage
  | { kind: typeof PREFIX; stream: number; bytes: Uint8Array }
  | { kind: typeof CHUNK; seq: number; offset: number; bytes: Uint8Array }
  | { kind: typeof GOODBYE; endSeq: number; reason: string };

type ChunkMessage = Extract<LiveMessage, { kind: typeof CHUNK }>;

/** One message, checked: {kind, …fields}. Throws for a malformed one. */
export function parseMessage(buf: unknown): LiveMessage {
  if (!(buf instanceof ArrayBuffer)) throw fail('a text message: the live .flrep stream sends binary messages only');
  const n = buf.byteLength;
  if (n === 0) throw fail('an empty message');
  if (n > MAX_MESSAGE) throw fail(`a ${n}-byte message: over the ${MAX_MESSAGE} allowed`);
  const v = new DataView(buf);
  const b = new Uint8Array(buf);
  const kind = b[0];
  const need = (len: number, what: string) => {
    if (n < len) throw fail(`a ${what} message of ${n} bytes: it needs ${len}`);
  };
  const u64 = (at: number) => {
    const x = v.getBigUint64(at, true);
    if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(`a number over 2^53 at byte ${at} of a message`);
    return Number(x);
  };
  if (kind === HELLO) {
    need(HELLO_LEN, 'hello');
    if (String.fromCharCode(b[1], b[2], b[3], b[4]) !== 'FLLV') throw fail('a hello that is not "FLLV"');
    const version = v.getUint16(5, true);
    if (version !== 1) throw fail(`protocol version ${version}: this player reads version 1`);
    const h: HelloMessage = {
      kind,
      stream: v.getUint32(7, true),
      firstSeq: u64(11),
      headSeq: u64(19),
      rate: v.getUint32(27, true),
      chunkTicks: v.getUint32(31, true),
    };
    if (h.rate === 0 || h.chunkTicks === 0)
      throw fail(`a hello with tick rate ${h.rate} and ${h.chunkTicks} ticks per chunk`);
    return h;
  }
  if (kind === PREFIX) {
    need(5 + 16, 'prefix');
    return { kind, stream: v.getUint32(1, true), bytes: b.slice(5) };
  }
  if (kind === CHUNK) {
    need(17 + CHUNK_HEADER_LEN, 'chunk');
    return { kind, seq: u64(1), offset: u64(9), bytes: b.slice(17) };
  }
  if (kind === GOODBYE) {
    need(11, 'goodbye');
    const len = v.getUint16(9, true);
    if (len > 256 || 11 + len !== n) throw fail(`a goodbye whose reason is ${len} bytes in a ${n}-byte message`);
    let reason: string;
    try {
      reason = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(11));
    } catch {
      throw fail('a goodbye whose reason is not UTF-8');
    }
    return { kind, endSeq: u64(1), reason };
  }
  throw fail(`a message of unknown kind ${kind}`);
}

/**
 * The WebSocket feed: the same interface as workers/decode/live.ts's SegmentFeed (start, run, stop, halt,
 * status, onGrow / onStatus / onError). A chunk's kills are not in the messages: `killsOf` (given
 * by workers/decode/live.ts) reads them from the chunk.
 */
export class SocketFeed {
  url: string;
  status: LiveStatus;
  store: LiveStore | null;
  hello: HelloMessage | null;
  ws: WebSocket | null;
  stopped: boolean;
  ended: boolean;
  attempt: number;
  timer: ReturnType<typeof setTimeout> | 0;
  onGrow: ((kills: ManifestKill[], readKills?: number[]) => void) | null;
  onStatus: (() => void) | null;
  onError: ((e: unknown) => void) | null;
  /** Connections made (the first and each reconnect); chunks sent again after a reconnect and passed over. */
  connections: number;
  resent: number;
  /** Before start() resolved: its promise; before run(): what came meanwhile (an error, chunks). */
  first: { resolve: (v: { store: LiveStore; kills: ManifestKill[] }) => void; reject: (e: unknown) => void } | null;
  running: boolean;
  pending: unknown;
  /** Ticks the server skipped, not told yet: [{fromTick, toTick, reason}]. */
  gaps: LiveGap[];
  grewEarly: boolean;
  /** Where the last chunk received starts in the server's file (set with the first chunk). */
  lastOffset: number;

  constructor(url: string) {
    this.url = url;
    this.status = 'live';
    this.store = null;
    this.hello = null;
    this.ws = null;
    this.stopped = false;
    this.ended = false;
    this.attempt = 0;
    this.timer = 0;
    this.onGrow = null;
    this.onStatus = null;
    this.onError = null;
    this.connections = 0;
    this.resent = 0;
    this.first = null;
    this.running = false;
    this.pending = null;
    this.gaps = [];
    this.grewEarly = false;
    this.lastOffset = 0;
  }

  get chunkS(): number {
    return this.hello ? this.hello.chunkTicks / this.hello.rate : 2;
  }
  get pollMs(): number {
    return 0;
  }

  /** Connects; resolves with {store, kills: []} once the prefix and the first chunk are there. */
  start(): Promise<{ store: LiveStore; kills: ManifestKill[] }> {
    return new Promise((resolve, reject) => {
      this.first = { resolve, reject };
      this.#connect();
    });
  }

  /** The open is done and the handlers are set: what came meanwhile is told after the open's
   *  answer has gone to the page (a task later). */
  run(): void {
    this.running = true;
    setTimeout(() => {
      if (this.pending) this.onError?.(this.pending);
      else if (this.grewEarly) this.onGrow?.([]);
      else if (this.status !== 'live') this.onStatus?.();
    }, 0);
  }

  #connect(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const next = this.store?.nextSeq;
    let u = this.url;
    if (next !== null && next !== undefined) {
      const url = new URL(this.url);
      url.searchParams.set('from', String(next));
      u = url.href;
    }
    let ws: WebSocket;
    try {
      ws = new WebSocket(u);
    } catch (e) {
      this.#fatal(fail(`cannot connect to ${this.url}: ${messageOf(e)}`));
      return;
    }
    this.connections++;
    ws.binaryType = 'arraybuffer';
    this.ws = ws;
    let helloSeen = false;
    let prefixSeen = !!this.store;
    const helloTimer = setTimeout(() => {
      if (!helloSeen) ws.close();
    }, HELLO_MS);
    ws.onmessage = (ev) => {
      if (ws !== this.ws || this.stopped) return;
      try {
        const m = parseMessage(ev.data);
        if (m.kind === HELLO) {
          if (helloSeen) throw fail('a second hello on one connection');
          helloSeen = true;
          clearTimeout(helloTimer);
          if (this.hello && m.stream !== this.hello.stream)
            throw fail(`reconnected to another stream (${hex(m.stream)}, was ${hex(this.hello.stream)})`);
          this.hello = m;
          this.attempt = 0;
          return;
        }
        if (!helloSeen) throw fail(`a message of kind ${m.kind} before the hello`);
        if (m.kind === PREFIX) {
          // (The hello came first: checked above.)
          const hello = this.hello as HelloMessage;
          if (m.stream !== hello.stream || crc32(m.bytes) !== m.stream)
            throw fail(`a prefix whose bytes are not stream ${hex(hello.stream)}`);
          if (this.store) {
            // A reconnect sends the prefix again: it must be the same.
            if (m.bytes.length !== this.store.prefix.length) throw fail('a reconnect sent another prefix');
          } else {
            this.store = new LiveStore(m.bytes, { heldBytes: WS_HELD_BYTES });
          }
          prefixSeen = true;
          return;
        }
        if (!prefixSeen) throw fail(`a message of kind ${m.kind} before the prefix`);
        if (this.ended) throw fail('a message after goodbye');
        if (m.kind === CHUNK) return this.#chunk(m);
        if (m.kind === GOODBYE) {
          this.ended = true;
          // (The prefix came first: checked above.)
          const n = (this.store as LiveStore).nextSeq ?? 0;
          if (m.endSeq < n) throw fail(`a goodbye that counts ${m.endSeq} chunks after ${n} were received`);
          this.status = 'ended';
          if (this.running) this.onStatus?.();
          ws.close();
        }
      } catch (e) {
        this.#fatal(e);
      }
    };
    ws.onclose = () => {
      clearTimeout(helloTimer);
      if (ws !== this.ws || this.stopped || this.ended) return;
      this.ws = null;
      // Dropped: connect again after a backoff, from the next chunk.
      if (this.status !== 'reconnecting') {
        this.status = 'reconnecting';
        if (this.running) this.onStatus?.();
      }
      const ms = BACKOFF_MS[Math.min(this.attempt++, BACKOFF_MS.length - 1)];
      if (this.first && this.attempt > BACKOFF_MS.length) {
        this.#fatal(fail(`could not connect to ${this.url}`));
        return;
      }
      this.timer = setTimeout(() => this.#connect(), ms);
    };
  }

  #chunk(m: ChunkMessage): void {
    // (The prefix came first: the store is there.)
    const s = this.store as LiveStore;
    const prev = s.chunks[s.chunks.length - 1];
    if (prev && m.seq <= prev.seq) {
      // A server started again that has not reached the chunks held yet sends from its newest:
      // a chunk held already is passed over when it is the same chunk (its header, with its
      // checksum, is the one held); another chunk under a seq held is refused.
      // (One from before this session joined is not part of it: passed over too.)
      const held = s.chunks.find((c) => c.seq === m.seq);
      const before = m.seq < s.chunks[0].seq;
      const same = before || (held && m.bytes.length === held.len && held.head.every((x, k) => x === m.bytes[k]));
      if (!same) throw fail(`chunk ${m.seq} again, not the chunk received before (chunk ${prev.seq} was received)`);
      this.resent++;
      return;
    }
    // A server skips chunks for a viewer that fell behind (docs/live.md "Slow viewers"): not an
    // error; the chunk after the skip follows the last one held in the recording received, and
    // the ticks between are a gap (not sent: there are no segments to read them from).
    const skip = prev ? m.seq - prev.seq - 1 : 0;
    if (!prev && m.offset < s.prefix.length) throw fail(`chunk ${m.seq} at offset ${m.offset}, inside the prefix`);
    if (prev && (skip ? m.offset <= this.lastOffset : m.offset !== this.lastOffset + prev.len))
      throw fail(`chunk ${m.seq} at offset ${m.offset}: the previous one ended at ${this.lastOffset + prev.len}`);
    const c = s.append(m.seq, m.bytes, { name: `chunk ${m.seq}`, skip: skip > 0 });
    if (skip)
      this.gaps.push({
        fromTick: prev.last + 1,
        toTick: c.first,
        reason: `${skip} chunk${skip > 1 ? 's' : ''} skipped by the server (this viewer fell behind)`,
      });
    this.lastOffset = m.offset;
    if (this.status !== 'live') {
      this.status = 'live';
    }
    if (this.first) {
      const f = this.first;
      this.first = null;
      f.resolve({ store: s, kills: [] });
      return;
    }
    if (this.running) this.onGrow?.([]);
    else this.grewEarly = true;
  }

  #fatal(e: unknown): void {
    if (this.first) {
      const f = this.first;
      this.first = null;
      this.stop();
      f.reject(e);
      return;
    }
    this.halt();
    if (this.running) this.onError?.(e);
    else this.pending ??= e;
  }

  halt(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    try {
      ws?.close();
    } catch {
      /* ignore */
    }
  }

  stop(): void {
    this.halt();
  }
}

const hex = (n: number) => n.toString(16).padStart(8, '0');
