// Playback while the Analysis panel's whole-recording scan runs (www/features/analysis/whole-scan.ts, in the
// plots' decoder worker): "plots" (the panel and its Plots section open on the selected entity,
// playing at 1×, no scan) beside "scan" (the same, with the whole-recording scan running through
// the measured frames), alternating in one browser, `rounds` times. Per mode: the interval between
// animation frames p50 / p95 (what a viewer sees), the rAF callback's wall time p50 / p95
// (`diagnostics.perf().totalMs`), frames a second, then paused seeks to `seeks` fixed times (ms from the
// call to the frame there, p50 / max). For "scan": how far the scan got during the frames (it must
// still be running at their end for the row to count), its time to the end, and the plots'
// worker's wasm memory and chunk cache at the end. Then, per round, paused: the scan alone (its
// time to the end, nothing playing) beside a plain decode of the same file in the same page (a
// fresh decoder worker, worker.js, asked for every tick at the widest stride: every chunk
// decompressed and rolled forward, no samples, no events kept). docs/performance.md
// "Whole-recording scan".
//
//   node tests/bench/whole-scan.mjs [frames=300] [entities=200] [minutes=10] [rounds=3] [seeks=6]
import {
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  frames,
  percentile,
  median,
  fmt,
  mib,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const FRAMES = Number(process.argv[2] ?? 300);
const ENTITIES = Number(process.argv[3] ?? 200);
const MINUTES = Number(process.argv[4] ?? 10);
const ROUNDS = Number(process.argv[5] ?? 3);
const SEEKS = Number(process.argv[6] ?? 6);
const MODES = ['plots', 'scan'];

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
const rows = [];
try {
  const file = benchFile(`scan-${ENTITIES}-${MINUTES}m`, { entities: ENTITIES, seconds: MINUTES * 60 });
  for (let round = 0; round < ROUNDS; round++)
    for (const mode of MODES) {
      const { page, log } = await openPlayerPage(browser, srv, '');
      await openWithPicker(page, file);
      await page.evaluate(() => window.__player.pause());
      await page.click('#analysis-open');
      await page.waitForFunction(() => {
        const p = document.getElementById('panel-analysis');
        return !!p.inspect && !p.hidden;
      });
      await frames(page, 10);
      const [a] = await page.evaluate(() => window.__player.diagnostics.snapshot().labels.slice(0, 1));
      await page.evaluate((id) => window.__player.select(id), a);
      await page.click('#an-plots summary');
      await page.waitForFunction(
        () => document.getElementById('an-plots').inspect().plots?.samples.length > 100,
        null,
        { timeout: 120_000 },
      );
      await page.evaluate(() => {
        window.__player.setSpeed(1);
        window.__player.play();
      });
      await frames(page, 30);
      let before = null;
      if (mode === 'scan') {
        // (Not awaited: the scan runs through the frames below; its end is waited for after them.)
        await page.evaluate(() => {
          document.getElementById('an-plots').scanWhole(true);
        });
        await page.waitForFunction(() => document.getElementById('an-plots').inspect().scan.progress > 0, null, {
          timeout: 60_000,
        });
        before = await page.evaluate(() => document.getElementById('an-plots').inspect().scan);
      }
      await page.evaluate(() => window.__player.diagnostics.perf({ reset: true }));
      const gaps = await page.evaluate(
        (k) =>
          new Promise((resolve) => {
            const out = [];
            let last = 0;
            const f = (ts) => {
              if (last) out.push(ts - last);
              last = ts;
              if (out.length >= k) resolve(out);
              else requestAnimationFrame(f);
            };
            requestAnimationFrame(f);
          }),
        FRAMES,
      );
      const p = await page.evaluate(() => window.__player.diagnostics.perf());
      const during =
        mode === 'scan' ? await page.evaluate(() => document.getElementById('an-plots').inspect().scan) : null;
      // Paused seeks to fixed times (the same every run and mode).
      await page.evaluate(() => window.__player.pause());
      const seekMs = [];
      for (let i = 0; i < SEEKS; i++) {
        const t = ((i * 0.37 + 0.11) % 1) * MINUTES * 60;
        seekMs.push(
          await page.evaluate(async (x) => {
            const t0 = performance.now();
            await window.__player.seek(x);
            return performance.now() - t0;
          }, t),
        );
      }
      let end = null;
      let stats = null;
      if (mode === 'scan') {
        await page.waitForFunction(() => document.getElementById('an-plots').inspect().scan.state !== 'running', null, {
          timeout: 0,
          polling: 250,
        });
        end = await page.evaluate(() => document.getElementById('an-plots').inspect().scan);
        stats = await page.evaluate(() => document.getElementById('an-plots').workerStats());
      }
      let paused = null;
      if (mode === 'scan') {
        // Paused: a plain decode of the file, then the scan alone (each its time to the end).
        await page.evaluate(() => window.__player.pause());
        const decodeMs = await page.evaluate(
          () =>
            new Promise((resolve, reject) => {
              const w = new Worker(new URL('worker.js', location.href), { type: 'module' });
              const info = window.__player.info.info;
              let t0 = 0;
              w.onmessage = (e) => {
                const m = e.data;
                if (m.id === 1) {
                  if (m.error) reject(new Error(m.error.message));
                  t0 = performance.now();
                  w.postMessage({
                    method: 'want',
                    params: { session: 1, gen: 1, from: info.first_tick, to: info.last_tick + 1, stride: 64 },
                  });
                } else if (m.type === 'piece' && m.end > info.last_tick) {
                  resolve(performance.now() - t0);
                  w.terminate();
                }
              };
              w.postMessage({ id: 1, method: 'open', params: { session: 1, blob: window.__player.file } });
            }),
        );
        await page.evaluate(() => document.getElementById('an-plots').scanWhole(true));
        const alone = await page.evaluate(() => document.getElementById('an-plots').inspect().scan);
        paused = { decodeMs, scanMs: alone.ms };
      }
      if (log.errors.length) console.error(log.errors.join('\n'));
      await page.close();
      rows.push({
        round,
        mode,
        gapP50: median(gaps),
        gapP95: percentile(gaps, 0.95),
        p50: median(p.totalMs),
        p95: percentile(p.totalMs, 0.95),
        fps: 1000 / (gaps.reduce((x, y) => x + y, 0) / gaps.length),
        seekP50: median(seekMs),
        seekMax: Math.max(...seekMs),
        paused,
        scan:
          mode === 'scan'
            ? {
                from: before.progress,
                to: during.progress,
                running: during.state === 'running',
                s: end.ms / 1000,
                state: end.state,
                mem: stats.wasmMemoryBytes,
                cache: stats.cacheBytes,
              }
            : null,
      });
    }
  console.log('');
  console.log(
    '| round | mode | frame interval p50 / p95 ms | rAF callback p50 / p95 ms | frames / s | seek p50 / max ms | scan during the frames | scan to the end | plots worker wasm / cache |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const s = r.scan;
    console.log(
      `| ${r.round + 1} | ${r.mode} | ${fmt(r.gapP50)} / ${fmt(r.gapP95)} | ${fmt(r.p50)} / ${fmt(r.p95)} | ${fmt(r.fps, 1)} | ${fmt(r.seekP50, 0)} / ${fmt(r.seekMax, 0)} | ${
        s ? `${fmt(100 * s.from, 0)} → ${fmt(100 * s.to, 0)} %${s.running ? '' : ' (ended early)'}` : '—'
      } | ${s ? `${fmt(s.s, 1)} s (${s.state})` : '—'} | ${s ? `${mib(s.mem)} / ${mib(s.cache)}` : '—'} |`,
    );
  }
  console.log('');
  console.log('| round | paused: plain decode s | paused: the scan alone s | scan / decode |');
  console.log('|---|---|---|---|');
  for (const r of rows.filter((x) => x.paused))
    console.log(
      `| ${r.round + 1} | ${fmt(r.paused.decodeMs / 1000)} | ${fmt(r.paused.scanMs / 1000)} | ${fmt(r.paused.scanMs / r.paused.decodeMs)}× |`,
    );
  for (let round = 0; round < ROUNDS; round++) {
    const [a, b] = MODES.map((m) => rows.find((r) => r.round === round && r.mode === m));
    console.log(
      `round ${round + 1}: scan / plots = ${fmt(b.gapP50 / a.gapP50)}× frame interval p50, ${fmt(b.gapP95 / a.gapP95)}× p95, ${fmt(b.p50 / a.p50)}× rAF callback p50, ${fmt(b.seekP50 / a.seekP50)}× seek p50`,
    );
  }
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
