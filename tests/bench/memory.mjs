// Memory while playing a ~1 GB replay (2,000 entities × 20 min, generated once into
// target/bench/): opened with the file picker, played at 16× (--speed) with a random seek every SEEK_S
// seconds, sampled every 2 s. Reports the worker's wasm memory (WebAssembly.Memory buffer) and
// its decoded-chunk cache (typed arrays in the worker's JS heap), the renderer's wasm memory, and
// the page's JS heap (performance.memory.usedJSHeapSize, precise with
// --enable-precise-memory-info; CDP Performance.getMetrics JSHeapUsedSize for comparison).
//
// --paused: no playing; a paused seek to a random moment every 2 s instead (each landing has the
// worker ready the likely next seeks: reads, and the spare decoder's chunk since session 9).
//
//   node tests/bench/memory.mjs [seconds=60] [file] [--speed 16] [--paused]
import { launchBrowser, serveRoot, benchFile, openWithPicker, mib, fmt, machineLine, openPlayerPage } from './lib.mjs';

const argv = process.argv.slice(2).filter((a) => a !== '--paused');
const PAUSED = process.argv.includes('--paused');
const speedAt = argv.indexOf('--speed');
const SPEED = speedAt >= 0 ? Number(argv.splice(speedAt, 2)[1]) : 16;
const SECONDS = Number(argv[0] ?? 60);
const SEEK_S = 6;
const file = argv[1] ?? benchFile('big-1gb', { entities: 2000, seconds: 1200, seed: 8 });

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true, args: ['--enable-precise-memory-info'] });
console.log(machineLine());
try {
  const { page, log } = await openPlayerPage(
    browser,
    srv,
    process.argv.includes('--render=page') ? '?render=page' : '',
  );
  await openWithPicker(page, file);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const info = await page.evaluate(() => ({
    duration: window.__player.duration,
    len: window.__player.info.fileLen,
    chunks: window.__player.info.chunks.length,
  }));
  console.log(
    `file: ${file} (${mib(info.len)}, ${fmt(info.duration / 60, 1)} min, ${info.chunks} chunks); ${SECONDS} s ${PAUSED ? 'paused, a random seek every 2 s' : `at ${SPEED}× with a random seek every ${SEEK_S} s`}`,
  );
  await page.evaluate((speed) => {
    window.__player.setSpeed(speed);
    window.__player.play();
  }, SPEED);
  if (PAUSED) await page.evaluate(() => window.__player.pause());
  const samples = [];
  const worker = () => page.workers().find((w) => w.url().endsWith('/worker.js'));
  const t0 = Date.now();
  let nextSeek = SEEK_S;
  for (;;) {
    await page.waitForTimeout(2000);
    const el = (Date.now() - t0) / 1000;
    const s = await page.evaluate(async () => {
      const p = window.__player;
      const st = await p.diagnostics.workerStats();
      return {
        time: p.currentTime,
        workerWasm: st?.wasmMemoryBytes ?? 0,
        workerCache: st?.cacheBytes ?? 0,
        cachedChunks: st?.cachedChunks?.length ?? 0,
        decoded: st?.decoded ?? 0,
        rendererWasm: p.diagnostics.perf().rendererWasmBytes,
        pageHeap: performance.memory?.usedJSHeapSize ?? NaN,
        pageHeapTotal: performance.memory?.totalJSHeapSize ?? NaN,
        chunksHeld: p.diagnostics.snapshot().pieces.length,
        heldBytes: p.diagnostics.snapshot().heldBytes,
      };
    });
    const w = worker();
    s.workerHeap = w ? await w.evaluate(() => self.performance?.memory?.usedJSHeapSize ?? NaN).catch(() => NaN) : NaN;
    const rw = page.workers().find((x) => x.url().endsWith('/render-worker.js'));
    s.renderHeap = rw ? await rw.evaluate(() => self.performance?.memory?.usedJSHeapSize ?? NaN).catch(() => NaN) : NaN;
    const m = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
    s.cdpHeap = m.JSHeapUsedSize;
    s.elapsed = el;
    samples.push(s);
    if (el >= SECONDS) break;
    if (PAUSED) {
      await page.evaluate((t) => window.__player.seek(t), Math.random() * info.duration * 0.95);
      continue;
    }
    if (el >= nextSeek) {
      nextSeek += SEEK_S;
      await page.evaluate(
        ([t, speed]) => {
          window.__player.seek(t);
          window.__player.setSpeed(speed);
          window.__player.play();
        },
        [Math.random() * info.duration * 0.95, SPEED],
      );
    }
  }
  await page.evaluate(() => window.__player.pause());
  console.log('');
  console.log(
    '| s | playhead s | worker wasm | worker cache: compressed chunks | renderer wasm | page JS heap (performance.memory) | page JS heap (CDP) | worker JS heap | render worker JS heap | page: pieces held |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of samples) {
    console.log(
      `| ${fmt(s.elapsed, 0)} | ${fmt(s.time, 0)} | ${mib(s.workerWasm)} | ${mib(s.workerCache)} (${s.cachedChunks}) | ${mib(s.rendererWasm)} | ${mib(s.pageHeap)} | ${mib(s.cdpHeap)} | ${Number.isFinite(s.workerHeap) ? mib(s.workerHeap) : 'n/a'} | ${Number.isFinite(s.renderHeap) ? mib(s.renderHeap) : 'n/a'} | ${s.chunksHeld} (${mib(s.heldBytes)}) |`,
    );
  }
  const max = (k) => Math.max(...samples.map((s) => s[k]));
  // Live memory: both wasm memories, the worker's cached typed arrays, the page's V8 heap (CDP,
  // objects only) and the typed arrays of the pieces the page holds (external to that heap).
  // performance.memory's figure also counts transferred buffers not yet collected (it falls back
  // when the GC runs), so it is shown but not summed.
  // The render worker's JS heap (when the renderer runs there) is summed too: it exists because of it.
  const live = samples.map(
    (s) =>
      s.workerWasm +
      s.workerCache +
      s.rendererWasm +
      s.cdpHeap +
      s.heldBytes +
      (Number.isFinite(s.renderHeap) ? s.renderHeap : 0),
  );
  console.log('');
  console.log(
    `peaks: worker wasm ${mib(max('workerWasm'))}, worker cache ${mib(max('workerCache'))}, renderer wasm ${mib(max('rendererWasm'))}, page V8 heap (CDP) ${mib(max('cdpHeap'))}, page piece arrays ${mib(max('heldBytes'))}, performance.memory ${mib(max('pageHeap'))}`,
  );
  console.log(
    `live total (worker wasm + cache + renderer wasm + page V8 heap + page piece arrays + render worker JS heap): max ${mib(Math.max(...live))}, median ${mib([...live].sort((a, b) => a - b)[live.length >> 1])} (goal ≤ 64 MB)`,
  );
  if (log.errors.length) console.error(log.errors.join('\n'));
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
