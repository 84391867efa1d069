// The Analysis panel's Plots section end to end in headless Chromium (www/features/analysis/plots.ts, its chunk
// imported when the section first opens): uPlot is not fetched before; the altitude at the
// playhead equals the inspector's and the crate's world_to_geodetic (`replay dump --geodetic`, a
// 600 km planet), and so do samples of the window away from the playhead (the second decoder
// worker's); the distance to the range's "To" entity equals the dump's; a click on a plot seeks to
// the time under it, a drag to where it ends; axe-core finds nothing serious with them open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { OUT, waitReady, seekLanded, settle, replayCli, pageSuite, generated, served } from './player-helpers.mjs';

let MOON = '';
const MOON_RADIUS = 600_000;

const suite = pageSuite({
  setup: () => {
    MOON = generated('plots-moon.flrep', [
      ...['--seconds', '30', '--seed', '5', '--entities', '8'],
      ...['--planet-radius', String(MOON_RADIUS)],
    ]);
  },
});

function dumpOf(file) {
  const lines = replayCli(['dump', '--geodetic', file]).split('\n');
  const info = JSON.parse(lines[0]).info;
  const tickLine = (tick) => {
    const l = lines.find((x) => x.startsWith('{"entities"') && x.includes(`"tick":${tick},"type":"tick"`));
    return l ? JSON.parse(l) : null;
  };
  return { info, tickLine };
}

async function openFile(file) {
  const url = `${suite.srv.url}${served(file).slice(1)}`;
  const { page, log } = await suite.openPage(`?url=${encodeURIComponent(url)}`);
  await waitReady(page);
  await page.evaluate(() => window.__player.pause());
  await page.click('#analysis-open');
  await page.waitForFunction(() => {
    const p = document.getElementById('panel-analysis');
    return !!p.inspect && !p.hidden;
  });
  return { page, log };
}

const seekTick = async (page, tick) => {
  await page.evaluate((t) => window.__player.seekTick(t), tick);
  await seekLanded(page);
  await settle(page, 4);
};

/** The scripts the page has fetched, and which of them hold uPlot (its over-layer's class). */
async function scripts(page) {
  const urls = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e.name)
      .filter((n) => n.endsWith('.js')),
  );
  const withUplot = [];
  for (const u of urls) if ((await (await fetch(u)).text()).includes('u-over')) withUplot.push(u);
  return { urls, withUplot };
}

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** axe-core over the Analysis panel: the serious and critical violations (as tests/e2e/analysis.test.mjs
 *  does over the page; this file's recording has no kills, and its empty kill feed is not the plots'). */
async function axe(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run('#panel-analysis', { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

const plotsOf = (page) => page.evaluate(() => document.getElementById('an-plots').inspect().plots);

test('plots: loaded when the section opens; the altitude at the playhead and across the window equals the inspector and world_to_geodetic on a 600 km planet; the distance the dump', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(MOON);
  assert.equal(d.info.world.radius_m, MOON_RADIUS);
  const { page, log } = await openFile(MOON);
  try {
    const tick = Math.round(d.info.first_tick + 15 * d.info.tick_rate_hz);
    await seekTick(page, tick);
    const line = d.tickLine(tick);
    const alive = line.entities.filter((e) => (e.flags & 1) === 1);
    const [e, other] = [alive[0], alive.at(-1)];
    await page.evaluate((id) => window.__player.select(id), e.id);
    // Nothing of the plots yet: no uPlot fetched, the section's module not imported.
    const before = await scripts(page);
    assert.deepEqual(before.withUplot, [], `uPlot fetched before the section opened: ${before.withUplot}`);
    assert.equal(await page.evaluate(() => document.getElementById('an-plots').inspect().asked), false);
    await page.click('#an-plots summary');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().plots?.samples.length > 0);
    const after = await scripts(page);
    assert.equal(after.withUplot.length, 1, `one chunk with uPlot after opening: ${after.withUplot}`);
    assert.ok(!before.urls.includes(after.withUplot[0]));
    // The window: ±60 s around the playhead, sampled ~10 times a second, all of this 30 s recording.
    const rate = d.info.tick_rate_hz;
    await page.waitForFunction(
      (n) => document.getElementById('an-plots').inspect().plots.samples.length >= n,
      Math.floor((d.info.last_tick - d.info.first_tick) / Math.max(1, Math.round(rate / 10))) - 2,
    );
    let p = await plotsOf(page);
    assert.equal(p.entity, e.id);
    assert.ok(Math.abs(p.range[0] - (p.centre - 60)) < 1e-9 && Math.abs(p.range[1] - (p.centre + 60)) < 1e-9);
    // A sample of the window away from the playhead equals the crate's geodetic altitude there.
    const far = p.samples.find((s) => Math.abs(s.tick - tick) > 5 * rate && d.tickLine(s.tick));
    assert.ok(far, 'a sample 5 s or more from the playhead');
    const farLine = d.tickLine(far.tick);
    const fk = farLine.entities.findIndex((x) => x.id === e.id);
    assert.ok(Math.abs(far.alt - farLine.geodetic[fk][2]) < 1e-6, `alt ${far.alt} vs ${farLine.geodetic[fk][2]}`);
    // At a sampled tick the readout at the playhead is that sample: the inspector's value and the crate's.
    const at = p.samples.find((s) => s.tick >= tick);
    await seekTick(page, at.tick);
    await page.waitForFunction(
      (t) => document.querySelector('.pl-value[data-key="alt"]')?.dataset.tick === String(t),
      at.tick,
    );
    await page.waitForFunction(
      (t) => document.querySelector('#insp-pilot dd[data-key="tick"]')?.dataset.value === String(t),
      at.tick,
    );
    const plotted = Number(await page.getAttribute('.pl-value[data-key="alt"]', 'data-value'));
    const inspector = Number(await page.getAttribute('#insp-pilot dd[data-key="alt"]', 'data-value'));
    const atLine = d.tickLine(at.tick);
    const crate = atLine.geodetic[atLine.entities.findIndex((x) => x.id === e.id)][2];
    assert.ok(Math.abs(plotted - inspector) < 1e-9, `plot ${plotted} vs inspector ${inspector}`);
    assert.ok(Math.abs(plotted - crate) < 1e-6, `plot ${plotted} vs world_to_geodetic ${crate}`);
    assert.ok(crate > -1000 && crate < 50_000, `read as this planet, not Earth: ${crate} m`);
    // The range's "To" entity: the distance series equals the two states of the dump.
    await page.evaluate(
      (id) => document.getElementById('panel-analysis').setRange(window.__player.selected, id),
      other.id,
    );
    await page.waitForFunction((id) => {
      const q = document.getElementById('an-plots').inspect().plots;
      return q.other === id && q.samples.some((s) => s.distance !== null) && !q.plots.at(-1).hidden;
    }, other.id);
    p = await plotsOf(page);
    const ds = p.samples.find((s) => s.distance !== null && d.tickLine(s.tick));
    const dl = d.tickLine(ds.tick);
    const [pa, pb] = [e.id, other.id].map((id) => dl.entities.find((x) => x.id === id).pos);
    const q = d.info.position_quantum_m;
    const want = Math.hypot(...[0, 1, 2].map((j) => (pb[j] - pa[j]) * q));
    assert.ok(Math.abs(ds.distance - want) < 1e-6, `distance ${ds.distance} vs ${want}`);
    await page.screenshot({ path: path.join(OUT, 'plots.png') });
    assert.deepEqual(await axe(page), [], 'axe-core over the panel with the plots open');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('plots: a click seeks to the time under the pointer; a drag to where it ends', { timeout: 180_000 }, async () => {
  const d = dumpOf(MOON);
  const { page, log } = await openFile(MOON);
  try {
    await seekTick(page, Math.round(d.info.first_tick + 20 * d.info.tick_rate_hz));
    const id = d.tickLine(d.info.first_tick + 20 * d.info.tick_rate_hz).entities.find((x) => (x.flags & 1) === 1).id;
    await page.evaluate((x) => window.__player.select(x), id);
    await page.click('#an-plots summary');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().plots?.samples.length > 10);
    // uPlot lays its axes out once the first samples are drawn (the over-layer narrows and
    // shortens then; the note counts the samples drawn): the geometry is read after that, in one
    // go with the time's position.
    await page.waitForFunction(
      () => Number(/(\d+) samples/.exec(document.getElementById('an-plots-note').textContent)?.[1]) > 10,
    );
    await settle(page, 4);
    const geometry = (times) =>
      page.evaluate((ts) => {
        const r = document.querySelector('.pl-plot[data-key="alt"] .u-over').getBoundingClientRect();
        const pos = (t) => document.getElementById('an-plots').timeToPos('alt', t);
        return { x: r.x, y: r.y + r.height / 2, width: r.width, at: ts.map(pos) };
      }, times);
    const timeAt = (x) => page.evaluate((px) => document.getElementById('an-plots').posToTime('alt', px), x);
    const g5 = await geometry([5]);
    const perPx = (await timeAt(g5.width)) - (await timeAt(g5.width - 1));
    const tol = perPx + 1 / d.info.tick_rate_hz + 1e-6;
    // A click at 5 s.
    const x5 = g5.at[0];
    assert.ok(x5 > 0 && x5 < g5.width, `5 s at ${x5} px of ${g5.width}`);
    await page.mouse.click(g5.x + x5, g5.y);
    await seekLanded(page);
    const t1 = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(t1 - 5) <= tol, `clicked at 5 s, at ${t1}`);
    // The window re-centres on the playhead once the click is over (more than 10 s from its middle).
    await page.waitForFunction(
      () => Math.abs(document.getElementById('an-plots').inspect().plots.centre - window.__player.currentTime) < 1,
    );
    // A drag from 8 s to 25 s: the playhead ends at 25 s, and the line follows it.
    await settle(page, 4);
    const g = await geometry([8, 25]);
    const [xa, xb] = g.at;
    await page.mouse.move(g.x + xa, g.y);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(g.x + xa + ((xb - xa) * i) / 6, g.y);
    await page.mouse.up();
    await seekLanded(page);
    await settle(page, 4);
    const t2 = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(t2 - 25) <= tol, `dragged to 25 s, at ${t2}`);
    const head = await page.$eval(
      '.pl-plot[data-key="alt"] .pl-head',
      (h) => new DOMMatrix(getComputedStyle(h).transform).m41,
    );
    const xt = await page.evaluate((t) => document.getElementById('an-plots').timeToPos('alt', t), t2);
    assert.ok(Math.abs(head - xt) <= 1, `the playhead's line at ${head} px, the playhead at ${xt} px`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('plots of a file picked with the panel open: read again from the file, as the dump says', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(MOON);
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    await page.click('#analysis-open');
    await page.waitForFunction(() => {
      const p = document.getElementById('panel-analysis');
      return !!p.inspect && !p.hidden;
    });
    await page.evaluate(() => {
      window.__opened = false;
      window.__player.on('ready', () => {
        window.__opened = true;
      });
    });
    await page.setInputFiles('#file-input', MOON);
    await page.waitForFunction(() => window.__opened);
    await page.evaluate(() => window.__player.pause());
    assert.equal(await page.evaluate(() => window.__player.url), '', 'a file: no URL to read again');
    const tick = d.info.first_tick + 10 * d.info.tick_rate_hz;
    await seekTick(page, tick);
    const id = d.tickLine(tick).entities.find((x) => (x.flags & 1) === 1).id;
    await page.evaluate((x) => window.__player.select(x), id);
    await page.click('#an-plots summary');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().plots?.samples.length > 100);
    const p = await plotsOf(page);
    assert.equal(p.error, '');
    for (const s of [p.samples[3], p.samples.at(-3)]) {
      const l = d.tickLine(s.tick);
      const k = l.entities.findIndex((x) => x.id === id);
      assert.ok(Math.abs(s.alt - l.geodetic[k][2]) < 1e-6, `tick ${s.tick}: ${s.alt} vs ${l.geodetic[k][2]}`);
    }
    log.assertClean();
  } finally {
    await page.close();
  }
});
