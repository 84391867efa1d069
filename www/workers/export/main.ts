// The export worker (docs/export.md "In the player"; protocol: docs/worker-protocol.md "The export
// worker"): an ACMI export or a replay clip of a tick range, with the decoder_export wasm (its
// ExportSession is crate/src/web/decoder/export.rs: the CLI's writers, sans-IO). Started by the page
// on each export (www/features/export/open.ts); it reads the file as the decoder worker does (workers/decode/sources.ts:
// Blob.slice, or HTTP Range requests of only the ranges asked for), opens it, then reads the
// range's chunks one at a time, and posts the output of each as soon as it is written: neither
// the input nor the output is ever held whole. Cancel is the page ending this worker (and with it
// its helper).
//
// The ACMI of a large local file is written by two workers (docs/export.md "In the player"): this
// one writes the first SPLIT of the range's chunks while a helper (this script again) follows them
// and writes the rest; the helper's parts wait here as Blobs and are handed on after this worker's
// own, so the page gets the bytes of one worker, in order (zipped: the helper's deflate stream
// follows this one's, flushed to a byte boundary, in the one entry). A helper that fails before
// it wrote anything leaves the rest to this worker.
//
//   page → worker  {id, type: 'export', kind: 'acmi'|'clip', src: Blob|URL, from, to, zip, workers}
//                  (the page's Rpc: www/bridge/rpc.ts; seconds or null; zip: the ACMI text as a
//                  .zip.acmi whose one entry is `zip`, a file name; workers: how many may write, 1 or 2)
//   worker → page  {type: 'begin', format, chunks, fromTick, toTick}  (pushes: no id)
//                  {type: 'part', bytes: Uint8Array | blob: Blob, done, of}  (one per chunk)
//                  {id, result: {bytes | blob, patches: [[offset, Uint8Array]], reads, bytesRead, ms, workers}}
//                  {id, error: {message}}
//   worker → helper {type: 'load', module: WebAssembly.Module}, then
//                  {type: 'export-part', src: Blob, from, to, writeFrom, zip: boolean}
//   helper → worker {type: 'part', bytes} (each chunk from writeFrom on; zip: deflated, a stream of
//                  its own), {type: 'done', bytes, reads, bytesRead, crc, len} (crc, len: its text's),
//                  {type: 'error', message}
import { BlobSource, UrlSource } from '../decode/sources.ts';
import { exportWasmUrl, startExportPart } from '../../lib/shipped.ts';
import { loadWasm } from '../../lib/wasm.ts';
import type { Builds } from '../../lib/wasm.ts';
import type {
  ExportBytes,
  ExportMessage,
  ExportOutput,
  ExportPatch,
  ExportRequest,
  ExportResult,
  ExportWorkerRequest,
  HelperJob,
  HelperMessage,
  HelperRequest,
} from '../../lib/protocol/export.ts';

const BUILD = 'decoder_export';

type Exporter = Builds[typeof BUILD];
type ExportSession = Exporter['ExportSession']['prototype'];

/** What this worker reads from (workers/decode/sources.ts: a BlobSource or a UrlSource). */
interface Source {
  length: number;
  read(offset: number, len: number): Promise<Uint8Array>;
  close(): void;
}

/** The output of one export as it comes (`outputOf`). */
interface Output {
  zipped: boolean;
  chunk: (b: Uint8Array) => ExportBytes;
  flush: () => ExportBytes;
  append: (b: Uint8Array) => ExportBytes;
  end: (b: Uint8Array, crc: number, size: number) => ExportBytes;
  patches: (p: ExportPatch[]) => ExportPatch[];
}

/** A helper's message as it waits here: its bytes kept as a Blob. */
type Waiting =
  | { type: 'part'; bytes: undefined; blob: Blob }
  | { type: 'done'; bytes: undefined; blob: Blob; reads: number; bytesRead: number; crc: number; len: number }
  | { type: 'error'; message: string };

/** A helper (`startHelper`). */
interface Helper {
  start: (job: HelperJob) => void;
  next: () => Promise<Waiting>;
  end: () => void;
}

let wasm: Promise<Exporter> | null = null;
/** The exporter's compiled module: a helper is handed it, and compiles nothing (V8 shares the
 *  code, tiered up, between the two). */
let compiled: WebAssembly.Module | null = null;

/** Posts `msg` to whoever started this worker: the page, or (a helper) its export worker. */
function post(msg: ExportMessage | HelperMessage, transfer: Transferable[] = []): void {
  postMessage(msg, transfer);
}

/** Compiles the exporter (streamed where it is served as application/wasm). */
async function compile(): Promise<WebAssembly.Module> {
  const res = await fetch(exportWasmUrl());
  if (!res.ok) throw new Error(`${res.status} ${res.statusText} fetching the exporter`);
  if (res.headers.get('Content-Type') === 'application/wasm') return WebAssembly.compileStreaming(res);
  return WebAssembly.compile(await res.arrayBuffer());
}

/** Loads the exporter once: from `module` (a helper's, handed over), else fetched and compiled. */
function load(module?: WebAssembly.Module | null): Promise<Exporter> {
  wasm ??= (async () => {
    compiled = module instanceof WebAssembly.Module ? module : await compile();
    return (await loadWasm(BUILD, compiled)).mod;
  })().catch((e) => {
    wasm = null;
    throw new Error(`the exporter could not be loaded: ${(e as Error | null)?.message ?? e}`);
  });
  return wasm;
}

/** The byte arrays one after the other, in a new one. */
function concat(...parts: Uint8Array[]): ExportBytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The output as it comes (`bytes` of each chunk, then the end), deflated into a .zip with one
 *  entry `name` (www/workers/export/zip-stream.ts, fetched with the first zipped export), or passed on as it is.
 *  With a helper: `flush()` after this worker's part, then `append(deflated)` of the helper's
 *  (a deflate stream of its own); `end(bytes, crc, size)` is given the whole text's CRC-32 and
 *  size. */
async function outputOf(name: string | null): Promise<Output> {
  if (typeof name !== 'string' || !name) {
    const none = new Uint8Array(0);
    // (The wasm's arrays are copies of its own, each on an ArrayBuffer.)
    return {
      zipped: false,
      chunk: (b) => b as ExportBytes,
      flush: () => none,
      append: (b) => b as ExportBytes,
      end: (b) => b as ExportBytes,
      patches: (p) => p,
    };
  }
  const { zipStream } = await import('./zip-stream.ts');
  let pieces: Uint8Array[] = [];
  const z = zipStream(name.slice(0, 255), (b) => pieces.push(b));
  const take = () => {
    const out = concat(...pieces);
    pieces = [];
    return out;
  };
  return {
    zipped: true,
    chunk: (b) => {
      z.push(b);
      return take();
    },
    flush: () => {
      z.flush();
      return take();
    },
    append: (b) => {
      z.append(b);
      return take();
    },
    end: (b, crc, size) => {
      z.push(b);
      z.end(crc, size);
      return take();
    },
    // (Only a SparkEngine clip has patches, and a clip is never zipped.)
    patches: () => [],
  };
}

/** The share of the range's chunks the first of two workers writes: the helper also follows
 *  the chunks before its part (at about half the cost of writing them), so it writes fewer.
 *  Zipped, writing costs several times more (the deflate) and following the same, so the split
 *  is nearer the middle. Measured: tests/bench/export-split.mjs, export-browser.mjs
 *  (docs/performance.md "Exports"; the runs: docs/performance-history.md). */
const SPLIT = 0.7;
const SPLIT_ZIPPED = 0.55;
/** Below this many bytes of chunks a second worker costs more than it saves. */
const SPLIT_MIN_BYTES = 1 << 20;

/** Whether an export may be split (`splitAt` then decides by the range): asked before the open,
 *  so that a helper starts loading meanwhile. */
const mayHelp = ({ kind, src, workers }: ExportRequest): boolean =>
  kind === 'acmi' && workers >= 2 && src instanceof Blob && src.size >= SPLIT_MIN_BYTES;

/** The first chunk a helper writes, or 0 for one worker: the ACMI (text or zipped) of a local
 *  file (`mayHelp`), when the range has at least 1 MiB in 3 chunks. */
function splitAt(x: ExportSession, job: ExportRequest, first: number, end: number): number {
  if (!mayHelp(job) || end - first < 3) return 0;
  let bytes = 0;
  for (let i = first; i < end; i++) bytes += x.chunkRange(i)[1];
  if (bytes < SPLIT_MIN_BYTES) return 0;
  const share = job.zip ? SPLIT_ZIPPED : SPLIT;
  return first + Math.min(end - first - 1, Math.max(1, Math.round((end - first) * share)));
}

/** A helper (this script again), loading the exporter from this worker's compiled module;
 *  `start(job)` has it write the chunks from `job.writeFrom` on. Its messages wait in order until
 *  taken (`next()`), its parts as Blobs. `null` where no worker can be started here. */
function startHelper(): Helper | null {
  let w: Worker | undefined;
  try {
    w = startExportPart();
    w.postMessage({ type: 'load', module: compiled } satisfies HelperRequest);
  } catch {
    w?.terminate();
    return null;
  }
  const queue: Waiting[] = [];
  let wake: (() => void) | null = null;
  const push = (m: Waiting) => {
    queue.push(m);
    wake?.();
    wake = null;
  };
  w.onmessage = ({ data: m }: MessageEvent<HelperMessage | null>) => {
    if (m?.type === 'part' || m?.type === 'done') {
      // Kept as a Blob (which may live on disk) until this worker's own part is handed on.
      push({ ...m, bytes: undefined, blob: new Blob([m.bytes ?? new Uint8Array(0)]) });
    } else if (m?.type === 'error') push({ type: 'error', message: String(m.message) });
  };
  w.onerror = (e) => {
    e.preventDefault?.();
    push({ type: 'error', message: e.message || 'the export helper failed' });
  };
  w.onmessageerror = () => push({ type: 'error', message: 'a message of the export helper could not be read' });
  return {
    start: (job) => w.postMessage({ type: 'export-part', ...job } satisfies HelperRequest),
    next: async () => {
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      // (Not empty: the loop waited for a message.)
      return queue.shift() as Waiting;
    },
    end: () => w.terminate(),
  };
}

/** `source`'s reads, counted (`done` reports them). */
function counted(source: Source) {
  const io = {
    reads: 0,
    bytesRead: 0,
    read: async (offset: number, len: number): Promise<Uint8Array> => {
      const b = await source.read(offset, len);
      io.reads++;
      io.bytesRead += b.length;
      return b;
    },
  };
  return io;
}

/** Opens `x` (an `ExportSession`) with the ranges it asks for. */
async function open(x: ExportSession, read: (offset: number, len: number) => Promise<Uint8Array>): Promise<void> {
  for (let w = x.want(); w; w = x.want()) x.feed(await read(w[0], w[1]));
}

/** The page's job `id`: the pushes as it goes, then the reply with its result (an error: the
 *  caller's). */
async function run(id: number, job: ExportRequest): Promise<void> {
  const { kind, src, from, to, zip } = job;
  const reply = (result: ExportResult, transfer: Transferable[] = []) => post({ id, result }, transfer);
  const t0 = performance.now();
  const mod = await load();
  const output = await outputOf(kind === 'acmi' ? zip : null);
  const source: Source =
    typeof Blob !== 'undefined' && src instanceof Blob ? new BlobSource(src) : await UrlSource.open(src as string);
  const x = new mod.ExportSession(source.length);
  const io = counted(source);
  // Started before the open, so that it loads meanwhile; ended if the range is too small.
  let helper = mayHelp(job) ? startHelper() : null;
  try {
    await open(x, io.read);
    const [first, end, fromTick, toTick] = x.begin(kind, from ?? undefined, to ?? undefined);
    // The zip entry's CRC-32, counted in the wasm.
    if (output.zipped) x.keepTextCrc();
    post({ type: 'begin', format: x.format(), chunks: end - first, fromTick, toTick });
    const of = end - first;
    const k = helper ? splitAt(x, job, first, end) : 0;
    // (`k` is not 0 only with a helper, which `mayHelp` starts only for a Blob.)
    if (k) helper?.start({ src: src as Blob, from, to, writeFrom: k, zip: output.zipped });
    else {
      helper?.end();
      helper = null;
    }
    let i = first;
    const writeUntil = async (stop: number) => {
      for (; i < stop; i++) {
        const [offset, len] = x.chunkRange(i);
        const bytes = output.chunk(x.chunk(i, await io.read(offset, len)));
        post({ type: 'part', bytes, done: i + 1 - first, of }, [bytes.buffer]);
      }
    };
    await writeUntil(helper ? k : end);
    /** The helper's `done`, its bytes handed on (zipped) or its Blob. */
    let last: (Omit<Extract<Waiting, { type: 'done' }>, 'bytes'> & { bytes?: ExportBytes }) | null = null;
    if (helper) {
      // The helper's parts, in order, after this worker's. One that failed before it wrote
      // anything leaves the rest here; after, its error is the export's (this worker would meet
      // the same chunk). Zipped, this worker's deflate stream is flushed to a byte boundary and
      // the helper's (a stream of its own) follows it in the entry.
      let done = k - first;
      let flushed = false;
      const handOn = async (blob: Blob): Promise<ExportOutput> => {
        if (!output.zipped) return { blob };
        const bytes = flushed ? new Uint8Array(0) : output.flush();
        flushed = true;
        const more = output.append(new Uint8Array(await blob.arrayBuffer()));
        return { bytes: concat(bytes, more) };
      };
      for (let m = await helper.next(); ; m = await helper.next()) {
        if (m.type === 'error') {
          if (done > k - first) throw new Error(m.message);
          helper.end();
          helper = null;
          break;
        }
        if (m.type === 'done') {
          io.reads += m.reads;
          io.bytesRead += m.bytesRead;
          last = { ...m, ...(await handOn(m.blob)) };
          break;
        }
        done++;
        const part = await handOn(m.blob);
        post({ type: 'part', ...part, done, of }, part.bytes ? [part.bytes.buffer] : []);
      }
      if (!helper) await writeUntil(end);
    }
    if (last) {
      const ms = () => performance.now() - t0;
      if (!output.zipped) {
        reply({ blob: last.blob, patches: [], reads: io.reads, bytesRead: io.bytesRead, ms: ms(), workers: 2 });
        return;
      }
      // The entry's CRC-32 and size: this worker's text's, then the helper's.
      const [crc, size] = x.textCrc();
      const tail = output.end(new Uint8Array(0), mod.crc32Combine(crc, last.crc, last.len), size + last.len);
      // (Zipped: `handOn` gave the helper's bytes.)
      const bytes = concat(last.bytes as ExportBytes, tail);
      reply({ bytes, patches: [], reads: io.reads, bytesRead: io.bytesRead, ms: ms(), workers: 2 }, [bytes.buffer]);
      return;
    }
    const rest = x.finish();
    const [crc, size] = output.zipped ? x.textCrc() : [0, 0];
    const bytes = output.end(rest, crc, size);
    const patches = output.patches(x.patches() as ExportPatch[]);
    const ms = performance.now() - t0;
    reply({ bytes, patches, reads: io.reads, bytesRead: io.bytesRead, ms, workers: 1 }, [bytes.buffer]);
  } finally {
    helper?.end();
    x.free();
    source.close();
  }
}

/** The helper's part: chunks `writeFrom..` of the ACMI export of `src`, the ones before followed;
 *  `zip`: deflated, as a deflate stream of its own. */
async function runPart({ src, from, to, writeFrom, zip }: HelperJob): Promise<void> {
  const mod = await load(compiled);
  let pieces: Uint8Array[] = [];
  const z = zip ? (await import('./zip-stream.ts')).deflateStream((b) => pieces.push(b)) : null;
  const out = (text: Uint8Array, last: boolean): ExportBytes => {
    // (The wasm's arrays are copies of its own, each on an ArrayBuffer.)
    if (!z) return text as ExportBytes;
    z.push(text);
    if (last) z.end();
    const bytes = concat(...pieces);
    pieces = [];
    return bytes;
  };
  const source = new BlobSource(src);
  const x = new mod.ExportSession(source.length);
  const io = counted(source);
  try {
    await open(x, io.read);
    const [first, end] = x.begin('acmi', from ?? undefined, to ?? undefined);
    x.writeFrom(writeFrom);
    if (z) x.keepTextCrc();
    for (let i = first; i < end; i++) {
      const [offset, len] = x.chunkRange(i);
      const text = x.chunk(i, await io.read(offset, len));
      if (i < writeFrom) continue;
      const bytes = out(text, false);
      post({ type: 'part', bytes }, [bytes.buffer]);
    }
    const bytes = out(x.finish(), true);
    // The CRC-32 and size of its text, for the zip entry's.
    const [crc, len] = z ? x.textCrc() : [0, 0];
    post({ type: 'done', bytes, reads: io.reads, bytesRead: io.bytesRead, crc, len }, [bytes.buffer]);
  } finally {
    x.free();
    source.close();
  }
}

self.onmessage = (e: MessageEvent<ExportWorkerRequest | null>) => {
  const m = e.data;
  const message = (err: unknown) => String((err as Error | null)?.message ?? err);
  if (m?.type === 'export') {
    const { id, ...job } = m;
    run(id, job).catch((err: unknown) => post({ id, error: { message: message(err) } }));
  }
  // A helper: the module first (loaded at once), then its part.
  else if (m?.type === 'load') load(m.module).catch(() => {});
  else if (m?.type === 'export-part' && m.src instanceof Blob)
    runPart(m).catch((err: unknown) => post({ type: 'error', message: message(err) }));
};
