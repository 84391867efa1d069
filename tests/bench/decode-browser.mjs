// A seek's decode in the browser's wasm, without the player's seek path: a module worker runs the
// shipped decoder (dist/pkg/decoder) over random cold paused seeks on the 1-hour file of seek.mjs
// (a chunk the decoder does not hold: copy in, decompress, CRC, roll forward) and, for each, the
// same chunk again a tick earlier (the roll forward alone, the payload held), as
// decode-wasm.mjs does in Node. The chunk's bytes are read before the clock starts. For telling
// the decoder from the player in seek.mjs's "decode" column.
//
//   node tests/bench/decode-browser.mjs [seeks=100] [--gap=MS] [--player]
//     --gap=MS   a pause before each decode (a seek comes after the worker was idle)
//     --player   on the player's page (the demo open and paused, its render worker there)
//                instead of an empty page
import {
  launchBrowser,
  serveRoot,
  benchFile,
  percentile,
  median,
  fmt,
  machineLine,
  openPlayerPage,
  openEmptyPage,
  runFileWorker,
} from './lib.mjs';

const args = process.argv.slice(2);
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 100);
const GAP = Number(args.find((a) => a.startsWith('--gap='))?.slice(6) ?? 0);
const PLAYER = args.includes('--player');
const file = benchFile('hour-200', { entities: 200, seconds: 3600 });

const worker = (decoderUrl) => `
import init, { DecoderSession } from '${decoderUrl}';
onmessage = async ({ data: { file, n, gap } }) => {
  try {
    await init();
    const dec = new DecoderSession(file.size);
    const rd = async (o, l) => new Uint8Array(await file.slice(o, o + l).arrayBuffer());
    for (let w = dec.want(); w; w = dec.want()) dec.feed(await rd(w[0], w[1]));
    const { first_tick: first, last_tick: last } = dec.info().info;
    if (!Number.isFinite(first) || !Number.isFinite(last) || last <= first + 2) throw new Error('bad tick range ' + first + '..' + last);
    let a = 42;
    const r = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
    const cold = [], held = [];
    // Round 0 warms up (V8 tiers the hot functions up); rounds 1 and 2 count.
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < n; k++) {
        const t = first + Math.floor(r() * (last - first - 2)) + 1;
        const i = dec.chunkForTick(t);
        if (dec.holdsChunk(i)) continue;
        const [o, l] = dec.chunkRange(i);
        const bytes = await rd(o, l);
        if (gap) await new Promise((res) => setTimeout(res, gap));
        let t0 = performance.now();
        dec.decodeRange(i, bytes, t, t + 1, 1, 16384).free();
        if (round) cold.push(performance.now() - t0);
        const back = Math.max(dec.chunkFirstTick(i), t - 1);
        t0 = performance.now();
        dec.decodeRange(i, new Uint8Array(0), back, back + 1, 1, 16384).free();
        if (round) held.push(performance.now() - t0);
      }
    }
    postMessage({ cold, held });
  } catch (e) {
    postMessage({ error: String(e?.message ?? e) });
  }
};`;

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const page = PLAYER ? (await openPlayerPage(browser, srv, '')).page : await openEmptyPage(browser, srv);
  const out = await runFileWorker(
    page,
    file,
    worker(`${srv.page}pkg/decoder/decoder.js`),
    { n: N, gap: GAP },
    { module: true },
  );
  if (out.error) throw new Error(out.error);
  const q = (v) => `${fmt(median(v))} / ${fmt(percentile(v, 0.95))}`;
  console.log(
    `file: ${file}, ${out.cold.length} cold seeks (2 rounds of ${N} random ticks), ${PLAYER ? "the player's page" : 'an empty page'}, ${GAP} ms pause before each`,
  );
  console.log('| page | cold seek p50 / p95 ms | roll forward alone (held) p50 / p95 ms |');
  console.log('|---|---|---|');
  console.log(
    `| ${PLAYER ? "player's" : 'empty'}${GAP ? `, ${GAP} ms pause` : ''} | **${q(out.cold)}** | ${q(out.held)} |`,
  );
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
