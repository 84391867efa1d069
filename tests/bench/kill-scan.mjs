// The background kill scan of a recording cut short (no index: www/workers/decode/scan.ts) beside a plain
// decode of the same file, in one run: the ~1 GB file cut at 60 % (`head -c`), opened in the
// player through the file picker and left paused until the scan has found every kill (its wall
// time from its first slice to its last, and the ms it spent reading and decoding); then, on the
// same page, a module worker running the shipped decoder decodes every tick of every chunk the way
// the worker's pump does (`decodeRange` pieces of 16,384 states, frames and events copied out),
// reading each chunk with Blob.slice. Goal (docs/performance.md, "Kill scan"): scan ≤ 1.1× decode.
//
//   node tests/bench/kill-scan.mjs [fraction=0.6] [file]
import fs from 'node:fs';
import path from 'node:path';
import {
  launchBrowser,
  serveRoot,
  benchFile,
  BENCH_DIR,
  fmt,
  percentile,
  machineLine,
  openPlayerPage,
  runFileWorker,
} from './lib.mjs';

const args = process.argv.slice(2);
const FRACTION = Number(args.find((a) => /^0?\.\d+$/.test(a)) ?? 0.6);
const src = args.find((a) => a.endsWith('.flrep')) ?? benchFile('big-1gb', { entities: 2000, seconds: 1200, seed: 8 });

/** `src` cut to `FRACTION` of its bytes (written once, as `head -c` would). */
function cutFile() {
  const size = fs.statSync(src).size;
  const keep = Math.floor(size * FRACTION);
  const out = path.join(BENCH_DIR, `${path.basename(src, '.flrep')}-cut${Math.round(FRACTION * 100)}.flrep`);
  if (fs.existsSync(out) && fs.statSync(out).size === keep) return out;
  const fd = fs.openSync(src, 'r');
  const wd = fs.openSync(`${out}.tmp`, 'w');
  const buf = Buffer.alloc(16 << 20);
  for (let at = 0; at < keep; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, keep - at), at);
    fs.writeSync(wd, buf, 0, n);
    at += n;
  }
  fs.closeSync(fd);
  fs.closeSync(wd);
  fs.renameSync(`${out}.tmp`, out);
  return out;
}

const decodeWorker = (decoderUrl) => `
import init, { DecoderSession } from '${decoderUrl}';
onmessage = async ({ data: { file } }) => {
  try {
    await init();
    const dec = new DecoderSession(file.size);
    const rd = async (o, l) => new Uint8Array(await file.slice(o, o + l).arrayBuffer());
    for (let w = dec.want(); w; w = dec.want()) dec.feed(await rd(w[0], w[1]));
    const n = dec.chunkCount();
    let kills = 0, ticks = 0, bytes = 0;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const [o, l] = dec.chunkRange(i);
      const b = await rd(o, l);
      bytes += b.length;
      let from = dec.chunkFirstTick(i);
      for (let first = true; ; first = false) {
        const d = dec.decodeRange(i, first ? b : new Uint8Array(0), from, Infinity, 1, 16384);
        ticks += d.ticks().length;
        d.offsets();
        d.entities();
        d.eventTicks();
        for (const e of d.events()) if (e.kind === 'kill') kills++;
        const end = d.end();
        d.free();
        if (end === undefined) break;
        from = end;
      }
    }
    postMessage({ ms: performance.now() - t0, chunks: n, kills, ticks, bytes });
  } catch (e) {
    postMessage({ error: String(e?.message ?? e) });
  }
};`;

const file = cutFile();
const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page } = await openPlayerPage(browser, srv, '');
  await page.setInputFiles('#file-input', file);
  const name = path.basename(file);
  await page.waitForFunction(
    (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
    name,
    {
      timeout: 120_000,
    },
  );
  const atReady = await page.evaluate(async () => ({
    scan: window.__player.scan,
    wasm: (await window.__player.diagnostics.workerStats()).wasmMemoryBytes,
  }));
  await page.waitForFunction(() => window.__player.scan?.complete, null, { timeout: 1_800_000, polling: 1000 });
  const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
  const plain = await runFileWorker(
    page,
    file,
    decodeWorker(`${srv.page}pkg/decoder/decoder.js`),
    {},
    { module: true },
  );
  if (plain.error) throw new Error(plain.error);
  const s = stats.scan;
  console.log(
    `file: ${file} (${(fs.statSync(file).size / 2 ** 20).toFixed(0)} MiB, ${FRACTION * 100} % of ${path.basename(src)}), ${s.total} chunks; the scan had done ${atReady.scan?.done ?? 0} when the first frame was ready`,
  );
  console.log('| | wall s | busy s | kills | ratio |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| kill scan (the player, paused) | ${fmt(s.wallMs / 1000, 1)} | ${fmt(s.busyMs / 1000, 1)} | ${s.kills} | **${fmt(s.wallMs / plain.ms)}×** |`,
  );
  console.log(
    `| plain decode (every tick, pieces of 16,384 states) | ${fmt(plain.ms / 1000, 1)} | — | ${plain.kills} | 1× |`,
  );
  console.log(
    `the scan's ${s.sliceMs.length} slices (what a want arriving in one waits at most), p50 / p95 / max: ${[0.5, 0.95, 1].map((p) => fmt(percentile(s.sliceMs, p), 1)).join(' / ')} ms, the first of a chunk (its decompression) ${[0.5, 0.95].map((p) => fmt(percentile(s.firstSliceMs, p), 1)).join(' / ')} ms; decoder wasm memory (its peak so far): ${fmt(atReady.wasm / 2 ** 20, 1)} MiB at the first frame, ${fmt(stats.wasmMemoryBytes / 2 ** 20, 1)} MiB after the scan; chunks it could not read: ${s.unread}`,
  );
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
