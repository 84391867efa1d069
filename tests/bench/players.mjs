// The cost of each player on a page: a plain host page (tests/bench/players/) makes N players with
// create(), each opening the demo, for N = 0, 1 and 3 in a fresh browser each; once every player
// shows its first frame (and the page has been idle 3 s), the workers, the browser's processes and
// their private memory (USS, /proc: the GPU process's SwiftShader included), the page's JS heap (CDP), the
// players' decoder and renderer wasm memory;
// then every player plays for SECONDS and the browser's CPU and memory are read again.
// The first player's cost is N=1 − N=0; each extra player's is (N=3 − N=1) / 2. --render=page: the
// renderers on the page (create()'s renderInPage) instead of in render workers.
//
//   node tests/bench/players.mjs [rounds=2] [seconds=5] [--render=page]
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { launchBrowser, collectConsole, serveRoot, median, fmt, mib, machineLine } from './lib.mjs';

const ROUNDS = Number(process.argv[2] ?? 2);
const SECONDS = Number(process.argv[3] ?? 5);
const IN_PAGE = process.argv.includes('--render=page');
const COUNTS = [0, 1, 3];
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** Every process: pid → {ppid, cmd}. */
function processes() {
  const out = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), {
        ppid: Number(f[1]),
        cpu: Number(f[11]) + Number(f[12]),
        cmd: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'),
      });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The Chromium main processes (with a profile folder) running now. */
const browserMains = () =>
  [...processes()]
    .filter(([, p]) => /chrom/i.test(p.cmd.split('\0')[0]) && p.cmd.includes('--user-data-dir='))
    .map(([pid]) => pid);

/** `root` and its descendants: count, private memory (bytes), CPU seconds. */
function tree(root) {
  const all = processes();
  const pids = [root];
  for (let i = 0; i < pids.length; i++) for (const [pid, p] of all) if (p.ppid === pids[i]) pids.push(pid);
  let priv = 0;
  let cpu = 0;
  for (const pid of pids) {
    try {
      // Private pages (USS): what these processes alone hold. PSS would share out the libraries'
      // pages among every Chromium on the machine (other benches, other tests), so it moves with them.
      const r = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      for (const k of ['Private_Clean', 'Private_Dirty'])
        priv += Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(r)?.[1] ?? 0) * 1024;
      cpu += all.get(pid)?.cpu ?? 0;
    } catch {
      /* gone */
    }
  }
  return { processes: pids.length, priv, cpu: cpu / TICKS };
}

async function measure(srv, n) {
  const before = new Set(browserMains());
  const browser = await launchBrowser({ webgpu: true, args: ['--enable-precise-memory-info'] });
  try {
    const main = browserMains().find((p) => !before.has(p));
    const page = await browser.newPage();
    const log = collectConsole(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(
      `${srv.url}tests/bench/players/?n=${n}&www=${process.env.BENCH_WWW || 'dist'}${IN_PAGE ? '&render=page' : ''}`,
    );
    await page.waitForFunction(
      () =>
        window.__made &&
        window.__players.every((p) => p.diagnostics.snapshot().ready || p.diagnostics.snapshot().error),
      null,
      { timeout: 120_000 },
    );
    const errors = await page.evaluate(() =>
      window.__players.map((p) => p.diagnostics.snapshot().error).filter(Boolean),
    );
    if (errors.length) throw new Error(errors.join('; '));
    await page.waitForTimeout(3000);
    await cdp.send('HeapProfiler.collectGarbage');
    const inside = await page.evaluate(async () => {
      let worker = 0;
      let renderer = 0;
      for (const p of window.__players) {
        worker += (await p.diagnostics.workerStats())?.wasmMemoryBytes ?? 0;
        renderer += p.diagnostics.perf().rendererWasmBytes ?? 0;
      }
      return { worker, renderer, backends: [...new Set(window.__players.map((p) => p.backend))].join(',') };
    });
    const metrics = Object.fromEntries(
      (await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]),
    );
    const idle = tree(main);
    const row = {
      n,
      workers: page.workers().length,
      processes: idle.processes,
      priv: idle.priv,
      pageHeap: metrics.JSHeapUsedSize,
      decoderWasm: inside.worker,
      rendererWasm: inside.renderer,
      backends: inside.backends,
    };
    // Playing: every player at 1×.
    await page.evaluate(() => {
      for (const p of window.__players) p.play();
    });
    await page.waitForTimeout(1000);
    const c0 = tree(main).cpu;
    await page.waitForTimeout(SECONDS * 1000);
    const playing = tree(main);
    row.cpu = (100 * (playing.cpu - c0)) / SECONDS;
    row.privPlaying = playing.priv;
    row.advanced = await page.evaluate(() => window.__players.map((p) => p.currentTime.toFixed(1)).join(' '));
    if (log.errors.length) process.stderr.write(`${log.errors.join('\n')}\n`);
    return row;
  } finally {
    await browser.close();
  }
}

const srv = await serveRoot();
console.log(machineLine());
console.log(
  '| players | round | workers | browser processes | private memory, idle | page JS heap | decoder wasm | renderer wasm | CPU playing (1 core = 100 %) | private memory, playing | playheads after |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
const rows = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of COUNTS) {
      const x = await measure(srv, n);
      rows.push(x);
      console.log(
        `| ${n} | ${r + 1} | ${x.workers} | ${x.processes} | ${mib(x.priv)} | ${mib(x.pageHeap)} | ${mib(x.decoderWasm)} | ${mib(x.rendererWasm)} | ${fmt(x.cpu, 0)} % | ${mib(x.privPlaying)} | ${x.advanced} |`,
      );
    }
  }
} finally {
  await srv.close();
}
const keys = ['workers', 'processes', 'priv', 'pageHeap', 'decoderWasm', 'rendererWasm', 'cpu', 'privPlaying'];
const med = Object.fromEntries(
  COUNTS.map((n) => [
    n,
    Object.fromEntries(keys.map((k) => [k, median(rows.filter((x) => x.n === n).map((x) => x[k]))])),
  ]),
);
const show = (k, v) => (k === 'cpu' ? `${fmt(v, 0)} %` : k === 'workers' || k === 'processes' ? fmt(v, 1) : mib(v));
console.log(
  `medians of ${ROUNDS} round(s); renderers ${IN_PAGE ? 'on the page' : 'in render workers'}; backend ${rows.find((x) => x.n > 0)?.backends}`,
);
console.log(
  '| | workers | browser processes | private memory, idle | page JS heap | decoder wasm | renderer wasm | CPU playing | private memory, playing |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const n of COUNTS) console.log(`| ${n} player(s) | ${keys.map((k) => show(k, med[n][k])).join(' | ')} |`);
console.log(`| the first player | ${keys.map((k) => show(k, med[1][k] - med[0][k])).join(' | ')} |`);
console.log(`| each extra player | ${keys.map((k) => show(k, (med[3][k] - med[1][k]) / 2)).join(' | ')} |`);
console.log(machineLine());
