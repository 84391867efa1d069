// Live `.flrep` latency (docs/performance.md "Live"): from a chunk closing at the source to its
// first frame on screen, beside the chunk's duration, over HTTP segments and over WebSocket, in
// one run. `replay live-serve --generate` plays a match in real time with both sinks at once
// (--segments and --ws); a chunk's close is its segment file's mtime (written when it closes,
// before the manifest lists it); its first frame on screen is the first animation frame whose
// frame at the playhead is one of its ticks (the page's frame hook; the render worker draws it in
// that frame). The page follows the live edge (www/features/live/view.ts: a chunk plus a margin behind), so
// the figure is that design's delay minus a chunk, plus whatever arrives late. Also: when the
// worker had the chunk (the network part). Prints figures, asserts nothing.
//   node tests/bench/live-latency.mjs [SECONDS=20] [CHUNK_TICKS=30,120]
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startServer, launchBrowser, collectConsole, ROOT, BENCH_DIR } from './lib.mjs';
import { replayBinPath } from '../e2e/harness.mjs';

const SECONDS = Number(process.argv[2] ?? 20);
const CHUNKS = (process.argv[3] ?? '30,120').split(',').map(Number);
const RATE = 60;

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

async function run(srv, browser, chunkTicks, mode) {
  const dir = path.join(BENCH_DIR, `live-${chunkTicks}-${mode}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const args = ['live-serve', '--generate', '--seconds', String(SECONDS), '--entities', '40', '--seed', '7'];
  args.push('--live-chunk-ticks', String(chunkTicks), '--segments', dir, '--ws', '127.0.0.1:0');
  const proc = spawn(replayBinPath(), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /ws:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', () => reject(new Error(`live-serve exited: ${out}`)));
  });
  const exited = new Promise((r) => proc.on('exit', r));
  const page = await browser.newPage();
  const log = collectConsole(page);
  const rel = path.relative(ROOT, dir).split(path.sep).join('/');
  const live = mode === 'ws' ? `ws://127.0.0.1:${port}` : `../${rel}/manifest.json`;
  await page.goto(`${srv.url}dist/?live=${encodeURIComponent(live)}`);
  // The live view's badge (its inspect(): the view's state, www/features/live/view.ts), held: it
  // answers even if the view has gone by the end.
  const badge = await page.waitForFunction(() => window.__player && document.querySelector('.live-badge'));
  await page.evaluate((chunkTicks) => {
    const p = window.__player;
    window.__shown = new Map();
    window.__arrived = [];
    p.onFrame(() => {
      const t = p.diagnostics.snapshot().frameTick;
      if (t === undefined) return;
      const k = Math.floor(t / chunkTicks);
      if (!window.__shown.has(k)) window.__shown.set(k, performance.timeOrigin + performance.now());
    });
    p.on('live', (m) => {
      if (m.arrivedAt) window.__arrived.push([m.chunks, m.lastTick, m.arrivedAt]);
    });
  }, chunkTicks);
  await exited;
  await page.waitForTimeout(500);
  const { shown, arrived, delay } = await page.evaluate(
    (b) => ({
      shown: [...window.__shown],
      arrived: window.__arrived,
      delay: b.inspect().delay,
    }),
    badge,
  );
  log.assertClean();
  await page.close();
  // A chunk's close: its segment file's mtime.
  const closed = new Map();
  for (const f of fs.readdirSync(dir)) {
    const m = /^chunk-(\d+)\.flck$/.exec(f);
    if (m) closed.set(Number(m[1]), fs.statSync(path.join(dir, f)).mtimeMs);
  }
  // Skip the first chunks (joining) and the last (the end turns the session into a replay).
  const first = Math.min(...shown.map(([k]) => k));
  const steady = shown.filter(([k]) => k > first + 2 && closed.has(k) && closed.has(k - 1) && k < closed.size - 1);
  const toScreen = steady.map(([k, t]) => t - closed.get(k));
  // How far behind the source the picture is: chunk k's first tick was played right after chunk
  // k − 1 closed.
  const behind = steady.map(([k, t]) => t - closed.get(k - 1));
  const lastTickChunk = (lastTick) => Math.floor(lastTick / chunkTicks);
  const toWorker = arrived.map(([, lastTick, t]) => t - closed.get(lastTickChunk(lastTick))).filter(Number.isFinite);
  return { toScreen, toWorker, behind, delay };
}

const srv = await startServer({ root: ROOT });
const browser = await launchBrowser({ webgpu: true });
console.log(`live latency: a ${SECONDS} s match (40 aircraft) in real time; ms from a chunk closing at the source`);
console.log(
  'chunk ticks | chunk s | source     | follow delay s | to worker p50 / p90 | to screen p50 / p90 | behind the source p50 / p90 (goal ≤ chunk + 500)',
);
try {
  for (const ct of CHUNKS) {
    for (const mode of ['segments', 'ws']) {
      const r = await run(srv, browser, ct, mode);
      const d = (ct / RATE) * 1000;
      console.log(
        `${String(ct).padStart(11)} | ${(ct / RATE).toFixed(2).padStart(7)} | ${mode.padEnd(10)} | ${r.delay.toFixed(2).padStart(14)} | ${q(r.toWorker, 0.5).toFixed(0).padStart(8)} / ${q(r.toWorker, 0.9).toFixed(0).padStart(8)} | ${q(r.toScreen, 0.5).toFixed(0).padStart(8)} / ${q(r.toScreen, 0.9).toFixed(0).padStart(8)} | ${q(r.behind, 0.5).toFixed(0).padStart(8)} / ${q(r.behind, 0.9).toFixed(0).padStart(8)} (chunk ${d.toFixed(0)}; ${r.toScreen.length} chunks)`,
      );
    }
  }
} finally {
  await browser.close();
  await srv.close();
}
