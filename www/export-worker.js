// The export worker (docs/export.md "In the player"; protocol: docs/worker-protocol.md "The export
// worker"): an ACMI export or a replay clip of a tick range, with the decoder_export wasm (its
// ExportSession is crate/src/web/decoder/export.rs: the CLI's writers, sans-IO). Started by the page
// on each export (www/export.js); it reads the file as the decoder worker does (worker-sources.js:
// Blob.slice, or HTTP Range requests of only the ranges asked for), opens it, then reads the
// range's chunks one at a time, and posts the output of each as soon as it is written: neither
// the input nor the output is ever held whole. Cancel is the page ending this worker.
//
//   page → worker  {type: 'export', kind: 'acmi'|'clip', src: Blob|URL, from, to, zip}  (seconds or
//                  null; zip: the ACMI text as a .zip.acmi whose one entry is `zip`, a file name)
//   worker → page  {type: 'begin', format, chunks, fromTick, toTick}
//                  {type: 'part', bytes: Uint8Array, done, of}       (one per chunk, transferred)
//                  {type: 'done', bytes, patches: [[offset, Uint8Array]], reads, bytesRead, ms}
//                  {type: 'error', message}
import { BlobSource, UrlSource } from './worker-sources.js';

const BUILD = 'decoder_export';

let wasm = null;
function load() {
  wasm ??= (async () => {
    const mod = await import(`./pkg/${BUILD}/${BUILD}.js`);
    await mod.default();
    mod.init_panic_hook();
    return mod;
  })().catch((e) => {
    wasm = null;
    throw new Error(`the exporter could not be loaded: ${e?.message ?? e}`);
  });
  return wasm;
}

/** The output as it comes (`bytes` of each chunk, then the end), deflated into a .zip with one
 *  entry `name` (www/zip-stream.js, fetched with the first zipped export), or passed on as it is. */
async function outputOf(name) {
  if (typeof name !== 'string' || !name) return { chunk: (b) => b, end: (b) => b, patches: (p) => p };
  const { zipStream } = await import('./zip-stream.js');
  let pieces = [];
  const z = zipStream(name.slice(0, 255), (b) => pieces.push(b));
  const take = () => {
    const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of pieces) {
      out.set(p, at);
      at += p.length;
    }
    pieces = [];
    return out;
  };
  return {
    chunk: (b) => {
      z.push(b);
      return take();
    },
    end: (b) => {
      z.push(b);
      z.end();
      return take();
    },
    // (Only a SparkEngine clip has patches, and a clip is never zipped.)
    patches: () => [],
  };
}

async function run({ kind, src, from, to, zip }) {
  const t0 = performance.now();
  const mod = await load();
  const output = await outputOf(kind === 'acmi' ? zip : null);
  const source = typeof Blob !== 'undefined' && src instanceof Blob ? new BlobSource(src) : await UrlSource.open(src);
  const x = new mod.ExportSession(source.length);
  let reads = 0;
  let bytesRead = 0;
  const read = async (offset, len) => {
    const b = await source.read(offset, len);
    reads++;
    bytesRead += b.length;
    return b;
  };
  try {
    for (let w = x.want(); w; w = x.want()) x.feed(await read(w[0], w[1]));
    const [first, end, fromTick, toTick] = x.begin(kind, from ?? undefined, to ?? undefined);
    postMessage({ type: 'begin', format: x.format(), chunks: end - first, fromTick, toTick });
    for (let i = first; i < end; i++) {
      const [offset, len] = x.chunkRange(i);
      const bytes = output.chunk(x.chunk(i, await read(offset, len)));
      postMessage({ type: 'part', bytes, done: i + 1 - first, of: end - first }, [bytes.buffer]);
    }
    const bytes = output.end(x.finish());
    const patches = output.patches(x.patches());
    postMessage({ type: 'done', bytes, patches, reads, bytesRead, ms: performance.now() - t0 }, [bytes.buffer]);
  } finally {
    x.free();
    source.close();
  }
}

self.onmessage = (e) => {
  const m = e.data;
  if (m?.type !== 'export') return;
  run(m).catch((err) => postMessage({ type: 'error', message: String(err?.message ?? err) }));
};
