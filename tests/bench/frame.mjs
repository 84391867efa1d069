// Main-thread time per frame while playing at 1×, at 200 and 2,000 entities (60 s replays opened
// with the file picker): window.__player.diagnostics.perf() — `totalMs` = the whole requestAnimationFrame
// callback (clock, frame lookup, setFrames/setTime, renderer.render(), labels), `renderMs` = ms in
// the renderer's render() (frameMs()); split into what is ours and what is wgpu's: "scene" = the
// renderer's own work (setTime's interpolation and trails + render()'s scene building: timeMs +
// buildMs), "wgpu" = render() − building (encoding, writeBuffer, submit; on SwiftShader it also waits
// for the software GPU), "shell JS" = total − render() − setTime. Median and p95 over FRAMES
// frames after a warm-up. Style/layout/paint of the page are NOT in these figures (see the
// rendering pipeline line, from a CDP trace over the same frames).
//
// Two ways of drawing, side by side (alternating, same browser): "worker" (the default: the
// renderer runs in the render worker; the main thread's callback only queues calls and posts them,
// so "main thread" = the whole callback and scene/wgpu are the worker's times) and "page"
// (`?render=page`: the renderer on the main thread, as before session 5). "drawn/s" = frames the
// renderer drew per second of wall time (the worker skips none of its own; the page skips posting
// while a frame is in flight, counted as "skipped").
//
// A mode ending in "+css" (e.g. `worker+css`) adds the stylesheet given with --css= to the page:
// an A/B of a style change in one sitting.
//
//   node tests/bench/frame.mjs [frames=300] [entities=200,2000] [modes=worker,page] [rounds=1] [--css=CSS]
import {
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  frames,
  percentile,
  median,
  fmt,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const FRAMES = Number(process.argv[2] ?? 300);
const COUNTS = (process.argv[3] ?? '200,2000').split(',').map(Number);
const MODES = (process.argv[4] ?? 'worker,page').split(',');
const ROUNDS = Number(process.argv[5] ?? 1);
const CSS = process.argv.find((a) => a.startsWith('--css='))?.slice(6) ?? '';

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
const rows = [];
try {
  // One player at a time (a second page would draw too, on the same two cores and software GPU).
  const errors = [];
  const steps = [];
  for (let round = 0; round < ROUNDS; round++)
    for (const n of COUNTS)
      for (const mode of MODES) {
        const { page, log } = await openPlayerPage(browser, srv, mode.startsWith('page') ? '?render=page' : '');
        if (mode.endsWith('+css')) await page.addStyleTag({ content: CSS });
        const file = benchFile(`frame-${n}`, { entities: n, seconds: 60 });
        await openWithPicker(page, file);
        await page.evaluate(() => {
          window.__player.setSpeed(1);
          window.__player.play();
        });
        await frames(page, 60);
        await page.evaluate(() => window.__player.diagnostics.perf({ reset: true }));
        const cdp = await page.context().newCDPSession(page);
        const events = [];
        cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
        const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
        await cdp.send('Tracing.start', { categories: 'devtools.timeline,toplevel', transferMode: 'ReportEvents' });
        const t0 = Date.now();
        const ivs = await page.evaluate(
          (k) =>
            new Promise((resolve) => {
              const ts = [];
              const f = (t) => {
                ts.push(t);
                if (ts.length <= k) requestAnimationFrame(f);
                else resolve(ts.slice(1).map((x, i) => x - ts[i]));
              };
              requestAnimationFrame(f);
            }),
          FRAMES,
        );
        const wallS = (Date.now() - t0) / 1000;
        await cdp.send('Tracing.end');
        await traced;
        await cdp.detach();
        const p = await page.evaluate(() => ({
          ...window.__player.diagnostics.perf(),
          entities: window.__player.diagnostics.snapshot().entityCount ?? 0,
          labels: document.querySelectorAll('.rp-label:not([hidden])').length,
        }));
        await page.evaluate(() => window.__player.pause());
        errors.push(...log.errors);
        await page.close();
        if (p.renderInWorker !== mode.startsWith('worker'))
          throw new Error(`asked for ${mode}, got renderInWorker=${p.renderInWorker}`);
        // In the worker the renderer's times are not the main thread's: the callback is all JS.
        const js = p.renderInWorker ? p.totalMs : p.totalMs.map((t, i) => t - p.renderMs[i] - p.timeMs[i]);
        const rs = p.renderStats;
        const drawn = rs ? `${fmt(rs.drawn / wallS, 0)} (${rs.skipped} skipped)` : `${fmt(ivs.length / wallS, 0)}`;
        const scene = p.timeMs.map((t, i) => t + p.buildMs[i]);
        const wgpu = p.renderMs.map((t, i) => t - p.buildMs[i]);
        const pp = (v) => `${fmt(median(v))} / ${fmt(percentile(v, 0.95))}`;
        // Main-thread rendering pipeline per frame (style, layout, paint…) from the trace.
        const sum = (names) =>
          events.filter((e) => e.ph === 'X' && names.includes(e.name)).reduce((a, e) => a + e.dur / 1000, 0);
        const PIPELINE = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'HitTest'];
        const pipeline = sum(PIPELINE);
        const perStep = PIPELINE.map((name) => `${name} ${fmt(sum([name]) / Math.max(1, ivs.length))}`).join(', ');
        // The rAF callbacks' CPU time on the main thread (trace thread time `tdur`, not wall time: on two
        // cores shared with the render worker and the software GPU, wall time includes waiting for a
        // core). Per animation frame (the bench's own rAF counter adds a callback of ~0.01 ms).
        const rafs = events.filter((e) => e.ph === 'X' && e.name === 'FireAnimationFrame' && e.tdur !== undefined);
        const cpuPerFrame = rafs.reduce((a, e) => a + e.tdur / 1000, 0) / Math.max(1, ivs.length);
        const wallPerFrame = rafs.reduce((a, e) => a + e.dur / 1000, 0) / Math.max(1, ivs.length);
        // Everything the page's main thread ran (every top-level task on the thread of the rAF
        // callbacks: callbacks, timers, messages from the workers, input, style/layout/paint), CPU time
        // per animation frame: the honest "main-thread time per frame".
        const main = rafs[0] ? { pid: rafs[0].pid, tid: rafs[0].tid } : null;
        const tasks = events.filter(
          (e) =>
            e.ph === 'X' &&
            e.name === 'ThreadControllerImpl::RunTask' &&
            main &&
            e.pid === main.pid &&
            e.tid === main.tid &&
            e.tdur !== undefined,
        );
        const mainCpuPerFrame = tasks.reduce((a, e) => a + e.tdur / 1000, 0) / Math.max(1, ivs.length);
        steps.push(`${n} ${mode}: ${perStep} ms/frame`);
        rows.push(
          `| ${n} (${p.entities} drawn, ${p.labels} labels) | ${mode} | ${p.frames} | ${drawn} | **${fmt(median(p.totalMs))} / ${fmt(percentile(p.totalMs, 0.95))}** | ${pp(js)} | ${pp(scene)} | ${pp(wgpu)} | ${fmt(cpuPerFrame)} / ${fmt(wallPerFrame)} | **${fmt(mainCpuPerFrame)}** | ${fmt(pipeline / Math.max(1, ivs.length))} | ${fmt(median(ivs), 1)} / ${fmt(percentile(ivs, 0.95), 1)} | ${fmt(wallS, 1)} |`,
        );
      }
  console.log('');
  console.log(
    '| entities | renderer in | frames | drawn/s | main thread per frame ms, p50 / p95 | shell JS p50 / p95 | renderer scene (setTime + build) p50 / p95 | wgpu (render − build) p50 / p95 | rAF callbacks per frame, CPU / wall ms (trace) | all main-thread tasks, CPU ms/frame (trace) | style+layout+paint ms/frame (trace, mean) | rAF interval ms p50 / p95 | wall s |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  console.log('\nstyle+layout+paint by step (trace, ms per animation frame):');
  for (const l of steps) console.log(l);
  if (errors.length) console.error(errors.join('\n'));
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
