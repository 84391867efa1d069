// Main-thread cost per frame of the Analysis panel (www/features/analysis/panel.ts) while playing at 1×:
// "plain" (the panel never opened) beside "analysis" (the panel open, the inspector in a pilot's
// units and the range line to a second entity following the picture every frame), alternating in
// one browser, `rounds` times. In both an entity on screen is selected (the inspector card shows it
// either way), so that the difference is the panel's. Per mode: the rAF callback's wall time
// (`diagnostics.perf().totalMs`, which holds the range line's frame hook) p50 / p95, and from a CDP trace
// the CPU of the rAF callbacks and of every main-thread task (the panel's 250 ms refresh, style,
// layout and paint included) per animation frame. "plots": as "analysis", with the Plots section
// open too (www/features/analysis/plots.ts: five uPlot charts of the selected entity, their playhead line moved
// every frame, redrawn when samples arrive or the window re-centres; the samples' decoder worker is
// off the main thread). docs/performance.md "Analysis panel".
//
//   node tests/bench/analysis-frame.mjs [frames=300] [entities=200] [rounds=2]
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
const ENTITIES = Number(process.argv[3] ?? 200);
const ROUNDS = Number(process.argv[4] ?? 2);
const MODES = ['plain', 'analysis', 'plots'];

async function openAnalysis(page) {
  await page.click('#analysis-open');
  await page.waitForFunction(() => {
    const p = document.getElementById('panel-analysis');
    return !!p.inspect && !p.hidden;
  });
}

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
const rows = [];
try {
  const file = benchFile(`frame-${ENTITIES}`, { entities: ENTITIES, seconds: 60 });
  for (let round = 0; round < ROUNDS; round++)
    for (const mode of MODES) {
      const { page, log } = await openPlayerPage(browser, srv, '');
      // The plots read a file again only if the panel saw it opened: it opens first (on the demo).
      if (mode === 'plots') await openAnalysis(page);
      await openWithPicker(page, file);
      await page.evaluate(() => {
        window.__player.setSpeed(1);
        window.__player.play();
      });
      await frames(page, 30);
      // Two entities on screen (labelled): the first is selected in both modes (the inspector card
      // shows it either way), the line goes from it to the second in the analysis mode only.
      const [a, b] = await page.evaluate(() => window.__player.diagnostics.snapshot().labels.slice(0, 2));
      await page.evaluate((id) => window.__player.select(id), a);
      if (mode !== 'plain') {
        if (mode !== 'plots') await openAnalysis(page);
        await page.evaluate(([x, y]) => document.getElementById('panel-analysis').setRange(x, y), [a, b]);
      }
      if (mode === 'plots') {
        await page.click('#an-plots summary');
        await page.waitForFunction(
          () => document.getElementById('an-plots').inspect().plots?.samples.length > 100,
          null,
          {
            timeout: 60_000,
          },
        );
      }
      await frames(page, 30);
      await page.evaluate(() => window.__player.diagnostics.perf({ reset: true }));
      const cdp = await page.context().newCDPSession(page);
      const events = [];
      cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
      const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.start', { categories: 'devtools.timeline,toplevel', transferMode: 'ReportEvents' });
      const t0 = Date.now();
      const n = await page.evaluate(
        (k) =>
          new Promise((resolve) => {
            let i = 0;
            const f = () => (++i >= k ? resolve(i) : requestAnimationFrame(f));
            requestAnimationFrame(f);
          }),
        FRAMES,
      );
      const wallS = (Date.now() - t0) / 1000;
      await cdp.send('Tracing.end');
      await traced;
      await cdp.detach();
      const p = await page.evaluate(() => window.__player.diagnostics.perf());
      const line =
        mode !== 'plain'
          ? await page.evaluate(() => document.getElementById('panel-analysis').inspect().range.line)
          : null;
      await page.evaluate(() => window.__player.pause());
      if (log.errors.length) console.error(log.errors.join('\n'));
      await page.close();
      const rafs = events.filter((e) => e.ph === 'X' && e.name === 'FireAnimationFrame' && e.tdur !== undefined);
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
      const per = (list) => list.reduce((a, e) => a + e.tdur / 1000, 0) / Math.max(1, n);
      rows.push({
        round,
        mode,
        frames: p.frames,
        p50: median(p.totalMs),
        p95: percentile(p.totalMs, 0.95),
        raf: per(rafs),
        tasks: per(tasks),
        fps: n / wallS,
        line: line ? (line.visible ? 'drawn' : 'off screen') : '—',
      });
    }
  console.log('');
  console.log(
    '| round | mode | frames | rAF callback wall p50 / p95 ms | rAF callbacks CPU ms / frame | all main-thread tasks CPU ms / frame | frames / s | range line |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.round + 1} | ${r.mode} | ${r.frames} | ${fmt(r.p50)} / ${fmt(r.p95)} | ${fmt(r.raf)} | ${fmt(r.tasks)} | ${fmt(r.fps, 1)} | ${r.line} |`,
    );
  for (let round = 0; round < ROUNDS; round++) {
    const [a, b, c] = MODES.map((m) => rows.find((r) => r.round === round && r.mode === m));
    const ratio = (x, y, name) =>
      `${name} = ${fmt(x.p50 / y.p50)}× callback p50, ${fmt(x.raf / y.raf)}× rAF CPU, ${fmt(x.tasks / y.tasks)}× all tasks`;
    console.log(
      `round ${round + 1}: ${ratio(b, a, 'analysis / plain')}; ${ratio(c, a, 'plots / plain')}; ${ratio(c, b, 'plots / analysis')}`,
    );
  }
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
