// The decoder worker's replay sources: a local file (Blob.slice), bytes in memory, and a URL read
// with HTTP Range requests (one capped whole-body read when the server ignores Range). Each reads
// `read(offset, len)` → Uint8Array, only the ranges asked for. docs/worker-protocol.md, `open`.
import { messageOf } from './errors.ts';
import type { ErrorLike } from './errors.ts';

/** A server that ignores Range makes us read the whole body: refuse bodies larger than this. */
const MAX_WHOLE_BODY = 512 * 1024 * 1024;
/** The first HTTP read (matches the reader's first request, so it is served from memory). */
export const FIRST_READ = 64 * 1024;
/** A range the server failed to send (5xx, 408, 429, a dropped connection, a short body) is asked
 *  for again after each of these waits (ms) before the read fails (the chunk becomes a gap). */
export const RETRY_MS = [250, 500, 1000];

/** Where a replay's bytes come from: `read(offset, len)` → the bytes [offset, offset + len) (fewer
 *  at the end). A live recording's store (workers/decode/live.ts) is one too. */
export interface Source {
  readonly length: number;
  readonly name?: string;
  read(offset: number, len: number): Promise<Uint8Array>;
  close?(): void;
  /** Ends the reads in flight (a URL's downloads). */
  abort?(): void;
  /** Range requests asked for again after a failure (stats). */
  readonly retries?: number;
}

/** Told the bytes read so far and the total (0: unknown). */
export type OnProgress = (loaded: number, total: number) => void;

/** An Error with the `transient` mark (worth asking again). */
type TransientError = Error & { transient?: boolean };

export class BlobSource implements Source {
  blob: Blob;
  length: number;
  name: string;
  constructor(blob: Blob) {
    this.blob = blob;
    this.length = blob.size;
    // (A File's name; a Blob has none.)
    const name: unknown = (blob as Partial<File>).name;
    this.name = typeof name === 'string' ? name : '';
  }
  async read(offset: number, len: number): Promise<Uint8Array> {
    const end = Math.min(this.length, offset + len);
    if (offset >= end) return new Uint8Array(0);
    return new Uint8Array(await this.blob.slice(offset, end).arrayBuffer());
  }
  close(): void {}
}

export class MemorySource implements Source {
  bytes: Uint8Array;
  length: number;
  name: string;
  constructor(bytes: Uint8Array, name: string) {
    this.bytes = bytes;
    this.length = bytes.length;
    this.name = name;
  }
  async read(offset: number, len: number): Promise<Uint8Array> {
    return this.bytes.slice(offset, Math.min(this.length, offset + len));
  }
  close(): void {
    this.bytes = new Uint8Array(0);
  }
}

function nameFromUrl(url: string): string {
  try {
    const p = new URL(url).pathname;
    return decodeURIComponent(p.slice(p.lastIndexOf('/') + 1)) || url;
  } catch {
    return url;
  }
}

function httpError(res: Response, url: string): TransientError {
  const e: TransientError = new Error(
    `the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''} for ${url}`,
  );
  // Worth asking again: the server failed, timed out or asked to slow down.
  e.transient = res.status >= 500 || res.status === 408 || res.status === 429;
  return e;
}

/** Waits `ms`, or rejects with an AbortError when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new DOMException('aborted', 'AbortError'));
      },
      { once: true },
    );
  });
}

/** Reads a whole response body, refusing more than `cap` bytes. */
async function readCapped(res: Response, cap: number, onProgress?: OnProgress): Promise<Uint8Array> {
  const declared = Number(res.headers.get('Content-Length'));
  if (Number.isFinite(declared) && declared > cap) {
    throw new Error(
      `the server does not support range requests and the file is ${(declared / 1048576).toFixed(0)} MiB: over the ${cap / 1048576} MiB this player reads whole`,
    );
  }
  // (A body to read: a 200 or 206 answer has one.)
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
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
export class UrlSource implements Source {
  url: string;
  name: string;
  length: number;
  head: Uint8Array;
  controllers: Set<AbortController>;
  /** Range requests asked for again after a failure (stats). */
  retries: number;

  /** Probes the URL with the first range; returns a UrlSource or a MemorySource. */
  static async open(url: string, onProgress?: OnProgress): Promise<UrlSource | MemorySource> {
    let res: Response;
    try {
      res = await fetch(url, { headers: { Range: `bytes=0-${FIRST_READ - 1}` } });
    } catch (e) {
      // Why, in words (a server that does not allow this page, one not reached): workers/decode/cors.ts,
      // imported then.
      throw await import('./cors.ts').then((m) => m.fetchFailure(url, e));
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
    const range = res.headers.get('Content-Range');
    if (range === null) throw await import('./cors.ts').then((m) => m.noRange(url));
    const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(range);
    if (m?.[1] !== '0') throw new Error(`the server sent a malformed Content-Range for ${url}`);
    const head = new Uint8Array(await res.arrayBuffer());
    const length = Number(m[3]);
    if (m[3] === '*') throw new Error(`the server did not tell the file size of ${url} (Content-Range */*)`);
    return new UrlSource(url, name, length, head);
  }

  constructor(url: string, name: string, length: number, head: Uint8Array) {
    this.url = url;
    this.name = name;
    this.length = length;
    this.head = head;
    this.controllers = new Set();
    this.retries = 0;
  }

  /** Bytes [offset, offset + len): a range the server failed to send is asked for again
   *  (RETRY_MS) before the read fails; an abort ends it at once (AbortError). */
  async read(offset: number, len: number): Promise<Uint8Array> {
    const end = Math.min(this.length, offset + len);
    if (offset >= end) return new Uint8Array(0);
    if (end <= this.head.length) return this.head.slice(offset, end);
    const ctl = new AbortController();
    this.controllers.add(ctl);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.#range(offset, end, ctl.signal);
        } catch (e) {
          if (ctl.signal.aborted || !(e as ErrorLike)?.transient || attempt >= RETRY_MS.length) throw e;
          this.retries++;
        }
        await sleep(RETRY_MS[attempt], ctl.signal);
      }
    } finally {
      this.controllers.delete(ctl);
    }
  }

  /** One Range request for [offset, end). Errors worth another try carry `transient`. */
  async #range(offset: number, end: number, signal: AbortSignal): Promise<Uint8Array> {
    const transient = (message: string) => Object.assign(new Error(message), { transient: true });
    let res: Response;
    try {
      res = await fetch(this.url, { headers: { Range: `bytes=${offset}-${end - 1}` }, signal });
    } catch (e) {
      if (signal.aborted) throw e;
      throw transient(`could not fetch ${this.url}: ${messageOf(e)}`);
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
    let body;
    try {
      body = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      if (signal.aborted) throw e;
      // The connection dropped while the body came.
      throw transient(`the server stopped sending bytes ${offset}–${end - 1} (${messageOf(e)})`);
    }
    if (body.length < end - offset)
      throw transient(`the server sent ${body.length} of the ${end - offset} bytes asked for (a short read)`);
    return body.length > end - offset ? body.slice(0, end - offset) : body;
  }

  abort(): void {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }

  close(): void {
    this.abort();
  }
}
