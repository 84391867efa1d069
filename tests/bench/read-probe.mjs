// How long reading a piece of a local File takes in a worker, without decoding it: the floor under
// a cold seek's "read" (seek.mjs). Random offsets in the 1-hour bench file, one read at a time with
// a rest between (as seeks are), several sizes, Blob.slice().arrayBuffer() and FileReaderSync; on
// an empty page and on the player's page (the player open and resting, its render worker there).
//
//   node tests/bench/read-probe.mjs [reads=60]
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

const N = Number(process.argv[2] ?? 60);
const file = benchFile('hour-200', { entities: 200, seconds: 3600 });
const SIZES = [16, 64, 180, 512].map((k) => k * 1024);

const WORKER = `
onmessage = async ({ data: { file, sizes, n, seed, gap } }) => {
  let a = seed >>> 0;
  const r = () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
  const out = {};
  const fr = new FileReaderSync();
  for (const size of sizes) {
    for (const how of ['slice', 'sync']) {
      const ms = [];
      for (let i = 0; i < n; i++) {
        const off = Math.floor(r() * (file.size - size));
        await new Promise((res) => setTimeout(res, gap));
        const t0 = performance.now();
        const b = how === 'slice' ? await file.slice(off, off + size).arrayBuffer() : fr.readAsArrayBuffer(file.slice(off, off + size));
        ms.push(performance.now() - t0);
        if (b.byteLength !== size) throw new Error('short read');
      }
      out[how + ':' + size] = ms;
    }
  }
  postMessage(out);
};`;

const probe = (page) => runFileWorker(page, file, WORKER, { sizes: SIZES, n: N, seed: 42, gap: 30 });

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const rows = [];
  const empty = await openEmptyPage(browser, srv);
  rows.push(['empty page', await probe(empty)]);
  await empty.close();
  const { page } = await openPlayerPage(browser, srv, '');
  rows.push(["player's page (demo open, paused)", await probe(page)]);
  console.log(`file: ${file}, ${N} reads per cell at random offsets, 30 ms apart; p50 / p95 ms`);
  console.log('');
  console.log(`| page | how | ${SIZES.map((s) => `${s / 1024} KiB`).join(' | ')} |`);
  console.log(`|---|---|${SIZES.map(() => '---|').join('')}`);
  for (const [label, out] of rows) {
    for (const how of ['slice', 'sync']) {
      const cells = SIZES.map((s) => out[`${how}:${s}`]).map(
        (ms) => `${fmt(median(ms))} / ${fmt(percentile(ms, 0.95))}`,
      );
      console.log(
        `| ${label} | ${how === 'slice' ? 'Blob.slice().arrayBuffer()' : 'FileReaderSync'} | ${cells.join(' | ')} |`,
      );
    }
  }
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
