// The compare worker: two recordings compared tick by tick (the determinism gate in the page:
// docs/playback.md "Comparing two recordings"; protocol: docs/worker-protocol.md "The compare
// worker"). Started by the page on the first Compare (features/compare/view.ts), it loads the decoder_spark
// wasm (it reads .flrep and SparkEngine .replay; its CompareSession is crate/src/web/decoder/
// compare.rs) and serves the comparison's byte ranges from the two files with Blob.slice, one
// range at a time: memory is two sessions and one decoded chunk of each, never a whole file.
// Self-contained: it imports nothing of the first load (the decoder glue by a computed path).
//
//   page → worker  {id, type: 'compare', a: File, b: File}  (the page's Rpc: www/bridge/rpc.ts)
//   worker → page  {type: 'progress', fraction, ticks}  (pushes: no id)
//                  {id, result: {outcome, info: [infoA, infoB], ms, reads, bytes}}
//                  {id, error: {message}}
// A new comparison is a new worker (the page ends the old one): there is no cancel message.
import { loadWasm } from '../../lib/wasm.ts';
import type { Builds } from '../../lib/wasm.ts';
import type {
  CompareInfo,
  CompareMessage,
  CompareOutcome,
  CompareRequest,
  CompareResult,
} from '../../lib/protocol/compare.ts';

const BUILD = 'decoder_spark';
/** At most one progress message per this many ms. */
const PROGRESS_MS = 100;

/** `CompareSession.progress()` (crate/src/web/decoder/compare.rs): ticks equal so far, the last
 *  one, and the chunks decoded and in all of each file. */
interface Progress {
  ticks: number;
  lastTick: number | null;
  chunksDone: [number, number];
  chunks: [number, number];
}

let wasm: Promise<Builds[typeof BUILD]> | null = null;
function load(): Promise<Builds[typeof BUILD]> {
  wasm ??= (async () => {
    return (await loadWasm(BUILD)).mod;
  })().catch((e) => {
    wasm = null;
    throw new Error(`the comparison could not be loaded: ${(e as Error | null)?.message ?? e}`);
  });
  return wasm;
}

/** The comparison's fraction done: chunks decoded of both files over their chunks. */
function fractionOf(p: Progress): number {
  const total = p.chunks[0] + p.chunks[1];
  return total > 0 ? (p.chunksDone[0] + p.chunksDone[1]) / total : 0;
}

/** Posts `msg` to the page. */
function post(msg: CompareMessage): void {
  postMessage(msg);
}

/** Compares A with B, pushing its progress; the request's result. */
async function compare({ a, b }: CompareRequest): Promise<CompareResult> {
  const t0 = performance.now();
  const mod = await load();
  const files = [a, b];
  const cmp = new mod.CompareSession(a.size, b.size);
  let reads = 0;
  let bytes = 0;
  let shown = 0;
  try {
    for (let want = cmp.want(); want; want = cmp.want()) {
      const [side, offset, len] = want;
      const file = files[side];
      const buf = new Uint8Array(await file.slice(offset, offset + len).arrayBuffer());
      reads++;
      bytes += buf.length;
      try {
        cmp.feed(buf);
      } catch (e) {
        // The reader's words, with the file's name for its side ("A: …").
        const m = String((e as Error | null)?.message ?? e);
        throw new Error(`${file.name || (side ? 'B' : 'A')}: ${m.replace(/^[AB]: /, '')}`);
      }
      const now = performance.now();
      if (now - shown >= PROGRESS_MS) {
        shown = now;
        const p = cmp.progress() as Progress;
        post({ type: 'progress', fraction: fractionOf(p), ticks: p.ticks });
      }
    }
    const outcome = cmp.outcome() as CompareOutcome;
    const info: [CompareInfo | null, CompareInfo | null] = [cmp.info(0), cmp.info(1)];
    return { outcome, info, ms: performance.now() - t0, reads, bytes };
  } finally {
    cmp.free();
  }
}

self.onmessage = (e: MessageEvent<({ id: number } & CompareRequest) | null>) => {
  const m = e.data;
  if (m?.type !== 'compare') return;
  const { id } = m;
  compare(m)
    .then((result) => post({ id, result }))
    .catch((err: unknown) => post({ id, error: { message: String((err as Error | null)?.message ?? err) } }));
};
