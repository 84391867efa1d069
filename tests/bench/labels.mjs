// What the label declutter costs per frame (www/view/labels.ts): a 2,000-entity (or N) replay
// playing at 1×, the labels on (as shipped: boxes placed by priority, no two overlapping, the rest
// counted) and off (place() asked to show none: every label hidden, the renderer's candidates not
// looked at) in alternating blocks of BLOCK frames in the same page, so both see the same scene,
// load and browser. Prints per mode the main thread's requestAnimationFrame callback
// (window.__player.diagnostics.perf() `totalMs`: clock, frames, renderer calls, labels) and the time
// inside Labels.place() alone (`labelsMs`), p50 / p95 ms, and the labels shown / counted hidden.
//
//   node tests/bench/labels.mjs [entities=2000] [blocks=8] [block=60]
import {
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  frames,
  percentile,
  median,
  mean,
  fmt,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const N = Number(process.argv[2] ?? 2000);
const BLOCKS = Number(process.argv[3] ?? 8);
const BLOCK = Number(process.argv[4] ?? 60);

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page, log } = await openPlayerPage(browser, srv, '');
  const file = benchFile(`frame-${N}`, { entities: N, seconds: 60 });
  await openWithPicker(page, file);
  await page.evaluate(() => {
    window.__player.setSpeed(1);
    window.__player.play();
  });
  await frames(page, 60);
  const by = {
    on: { total: [], place: [], shown: [], hidden: [] },
    off: { total: [], place: [], shown: [], hidden: [] },
  };
  for (let b = 0; b < BLOCKS * 2; b++) {
    const mode = b % 2 === 0 ? 'on' : 'off';
    await page.evaluate((off) => {
      window.__player.diagnostics.labelsOff = off;
    }, mode === 'off');
    await frames(page, 5);
    await page.evaluate(() => {
      window.__player.diagnostics.perf({ reset: true });
    });
    await frames(page, BLOCK);
    const p = await page.evaluate(() => ({
      total: window.__player.diagnostics.perf().totalMs,
      place: window.__player.diagnostics.perf().labelsMs,
      shown: window.__player.diagnostics.snapshot().labels.length,
      hidden: window.__player.diagnostics.snapshot().labelsHidden,
    }));
    by[mode].total.push(...p.total);
    by[mode].place.push(...p.place);
    by[mode].shown.push(p.shown);
    by[mode].hidden.push(p.hidden);
  }
  await page.evaluate(() => window.__player.pause());
  const entities = await page.evaluate(() => window.__player.diagnostics.snapshot().entityCount ?? 0);
  await page.close();
  if (log.errors.length) console.error(log.errors.join('\n'));
  // (performance.now() is coarsened to 0.1 ms here: the mean of a block's frames sees below it.)
  const pp = (v) => `${fmt(median(v), 2)} / ${fmt(percentile(v, 0.95), 2)} / ${fmt(mean(v), 3)}`;
  console.log('');
  console.log(`${N} entities (${entities} drawn), ${BLOCKS} blocks of ${BLOCK} frames per mode, alternating`);
  console.log(
    '| labels | frames | rAF callback ms p50 / p95 / mean | Labels.place() ms p50 / p95 / mean | labels shown (median) | counted hidden (median) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const mode of ['on', 'off']) {
    const m = by[mode];
    console.log(
      `| ${mode} | ${m.total.length} | ${pp(m.total)} | ${pp(m.place)} | ${median(m.shown)} | ${median(m.hidden)} |`,
    );
  }
  console.log(
    `added by the labels (on − off): callback p50 ${fmt(median(by.on.total) - median(by.off.total), 2)} ms, mean ${fmt(mean(by.on.total) - mean(by.off.total), 3)} ms; place() p50 ${fmt(median(by.on.place) - median(by.off.place), 2)} ms, mean ${fmt(mean(by.on.place) - mean(by.off.place), 3)} ms`,
  );
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
