// The ACMI export in the browser, as the player runs it, beside a plain decode of the same file in
// the same run (docs/performance.md "Exports"): headless Chromium, a page of the bench server with
// the file picked (a local File, as a viewer drops one). In alternating rounds, each in fresh
// workers timed from the page (start to last message, the wasm load included, from the HTTP cache):
//   decode   a module worker with the decoder_export wasm decodes every chunk and hands its ticks
//            and packed frames to JS, as the decoder worker does (tests/bench/lib.mjs wasmDecodeAll)
//   export 1 the shipped export worker (dist/export-worker.js), ACMI of the whole file, one worker
//   export 2 the same with two workers (docs/export.md "Two workers")
// The two exports' sizes are checked equal (text; zipped, the two deflate streams differ a little).
// Prints medians and throughput ratios; asserts nothing.
//
//   node tests/bench/export-browser.mjs [rounds=7] [entities=200] [--zip]
//     --zip   the exports are zipped (.zip.acmi)
import { launchBrowser, serveRoot, benchFile, median, fmt, machineLine, openEmptyPage, pickBenchFile } from './lib.mjs';

const nums = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const ROUNDS = nums[0] ?? 7;
const ZIP = process.argv.includes('--zip');
const ENTITIES = nums[1] ?? 200;
const file = benchFile(`frame-${ENTITIES}`, { entities: ENTITIES, seconds: 60 });

const decodeWorker = (wasmUrl) => `
import init, { DecoderSession } from '${wasmUrl}';
onmessage = async ({ data: { file } }) => {
  try {
    await init();
    const d = new DecoderSession(file.size);
    const rd = async (o, l) => new Uint8Array(await file.slice(o, o + l).arrayBuffer());
    for (let w = d.want(); w; w = d.want()) d.feed(await rd(w[0], w[1]));
    let ticks = 0;
    for (let i = 0; i < d.chunkCount(); i++) {
      const [o, l] = d.chunkRange(i);
      const c = d.decodeChunk(i, await rd(o, l));
      ticks += c.ticks().length;
      c.entities();
      c.free();
    }
    d.free();
    postMessage({ ticks });
  } catch (e) {
    postMessage({ error: String(e?.message ?? e) });
  }
};`;

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: false });
console.log(machineLine());
try {
  const page = await openEmptyPage(browser, srv);
  await pickBenchFile(page, file);
  const rounds = await page.evaluate(
    async ({ src, exportUrl, rounds, zip }) => {
      const file = document.getElementById('bench-file-input').files[0];
      const decodeUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
      const decode = () =>
        new Promise((resolve, reject) => {
          const t0 = performance.now();
          const w = new Worker(decodeUrl, { type: 'module' });
          w.onmessage = ({ data }) => {
            w.terminate();
            data.error ? reject(new Error(data.error)) : resolve(performance.now() - t0);
          };
          w.postMessage({ file });
        });
      const exportAcmi = (workers) =>
        new Promise((resolve, reject) => {
          const t0 = performance.now();
          const w = new Worker(exportUrl, { type: 'module' });
          let bytes = 0;
          const size = (m) => m.bytes?.length ?? m.blob?.size ?? 0;
          // (docs/worker-protocol.md "The export worker": pushes without an id, then the reply.)
          w.onmessage = ({ data: m }) => {
            if (m.type === 'part') bytes += size(m);
            else if (m.error) reject(new Error(m.error.message));
            else if (m.result) {
              w.terminate();
              resolve({ ms: performance.now() - t0, bytes: bytes + size(m.result), workers: m.result.workers });
            }
          };
          w.postMessage({ id: 1, type: 'export', kind: 'acmi', src: file, from: null, to: null, zip, workers });
        });
      await decode();
      await exportAcmi(2);
      const out = [];
      for (let r = 0; r < rounds; r++) {
        const d = await decode();
        const one = await exportAcmi(1);
        const two = await exportAcmi(2);
        out.push({ d, one, two });
      }
      return out;
    },
    {
      src: decodeWorker(`${srv.page}pkg/decoder_export/decoder_export.js`),
      exportUrl: `${srv.page}export-worker.js`,
      rounds: ROUNDS,
      zip: ZIP ? `frame-${ENTITIES}.txt.acmi` : null,
    },
  );
  const d = median(rounds.map((r) => r.d));
  const one = median(rounds.map((r) => r.one.ms));
  const two = median(rounds.map((r) => r.two.ms));
  const same = rounds.every((r) => (ZIP || r.one.bytes === r.two.bytes) && r.two.workers === 2 && r.one.workers === 1);
  console.log(
    `frame-${ENTITIES}.flrep, ACMI${ZIP ? ' zipped' : ''} ${fmt(rounds[0].one.bytes / 2 ** 20, 1)} MiB (two workers: ${fmt(rounds[0].two.bytes / 2 ** 20, 1)} MiB); medians of ${ROUNDS} rounds, each in fresh workers:`,
  );
  console.log(`decode ${fmt(d, 0)} ms (rounds ${rounds.map((r) => fmt(r.d, 0)).join(' ')})`);
  console.log(
    `export, one worker ${fmt(one, 0)} ms: ${fmt(d / one)}× the decode (rounds ${rounds.map((r) => fmt(r.one.ms, 0)).join(' ')})`,
  );
  console.log(
    `export, two workers ${fmt(two, 0)} ms: ${fmt(d / two)}× the decode (rounds ${rounds.map((r) => fmt(r.two.ms, 0)).join(' ')})`,
  );
  console.log(`${ZIP ? '' : 'the same size from one worker and two, and '}two when asked, in every round: ${same}`);
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
