// Crowds in headless Chromium: callsign labels over 300 aircraft never overlap and the selected
// entity's is always shown (www/view/labels.ts); ~1,800 kills on the timeline make a density
// strip, not a solid bar, and zooming the timeline shows single markers that seek on a click
// (www/widgets/marker-layer.ts, www/app/timeline.ts). Screenshots: tests/output/screenshots/crowds-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OUT, waitReady, settle, replayCli, timelineMarkers, pageSuite, generated } from './player-helpers.mjs';

const suite = pageSuite();
const SHOTS = path.join(OUT, 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });
const KILL_RGB = [0xff, 0x6b, 0x5b];

/** A generated <name>.flrep (player-helpers.mjs generated()); returns its path. */
const generatedFlrep = (name, args) => generated(`${name}.flrep`, args);

async function openFile(page, file) {
  await waitReady(page);
  await page.setInputFiles('#file-input', file);
  const name = path.basename(file);
  await page.waitForFunction(
    (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
    name,
    {
      timeout: 120_000,
    },
  );
}

test('300 aircraft: no two visible labels overlap over many frames, the selected one is always labelled, the rest are counted', {
  timeout: 240_000,
}, async () => {
  const file = generatedFlrep('crowd-300', ['--entities', '300', '--seconds', '60', '--seed', '5']);
  const { page, log } = await suite.openPage();
  try {
    await openFile(page, file);
    await settle(page, 10);
    // Select an entity in the thick of it: the 40th nearest visible one.
    const selected = await page.evaluate(async () => {
      const L = await window.__player.diagnostics.rendererLabels();
      const vis = [];
      for (let i = 0; i < L.length; i += 4) if (L[i + 3] === 1) vis.push(L[i]);
      return vis[Math.min(vis.length - 1, 40)];
    });
    assert.ok(selected >= 0, 'an entity to select');
    await page.evaluate((id) => window.__player.select(id), selected);
    await page.evaluate(() => window.__player.play());
    // The label follows the renderer's projections (a frame behind): wait for it once.
    await page.waitForFunction(
      (id) => {
        const el = document.querySelector(`.rp-label[data-id="${id}"]`);
        return el && !el.hidden;
      },
      selected,
      { timeout: 20_000 },
    );
    // 30 animation frames while playing: every visible label's box, every frame.
    const frames = await page.evaluate(
      (id) =>
        new Promise((resolve) => {
          const out = [];
          const step = () => {
            const boxes = [];
            for (const el of document.querySelectorAll('.rp-label')) {
              if (el.hidden) continue;
              const r = el.getBoundingClientRect();
              boxes.push({ id: el.dataset.id, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom });
            }
            const count = document.querySelector('.rp-labels-hidden');
            out.push({
              boxes,
              selected: boxes.some((b) => b.id === String(id)),
              hidden: count && !count.hidden ? count.textContent : '',
            });
            if (out.length >= 30) resolve(out);
            else requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        }),
      selected,
    );
    let most = 0;
    for (const [k, f] of frames.entries()) {
      assert.ok(f.selected, `frame ${k}: the selected entity ${selected} is labelled`);
      most = Math.max(most, f.boxes.length);
      for (let i = 0; i < f.boxes.length; i++) {
        for (let j = i + 1; j < f.boxes.length; j++) {
          const a = f.boxes[i];
          const b = f.boxes[j];
          const overlap = a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
          assert.ok(!overlap, `frame ${k}: labels ${a.id} and ${b.id} overlap: ${JSON.stringify([a, b])}`);
        }
      }
      assert.match(f.hidden, /^\+\d+ hidden$/, `frame ${k}: the labels left out are counted`);
    }
    assert.ok(most >= 10, `a crowd's worth of labels shown: ${most}`);
    await page.evaluate(() => window.__player.pause());
    await settle(page, 3);
    await page.screenshot({ path: path.join(SHOTS, 'crowds-labels.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** The longest horizontal run of kill-coloured pixels in each row of the kill band, device px. */
const killRuns = (page) =>
  page.evaluate((rgb) => {
    const c = document.getElementById('scrub-markers');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const dpr = c.width / c.clientWidth;
    let longest = 0;
    let colouredCols = 0;
    const heights = new Set();
    const isKill = (x, y) => {
      const i = (y * c.width + x) * 4;
      return d[i + 3] > 128 && Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) < 60;
    };
    const band = Math.round(15 * dpr); // the kill row: KILL_TOP 3 + KILL_H 10, + 2
    for (let y = 0; y < band; y++) {
      let run = 0;
      for (let x = 0; x < c.width; x++) {
        run = isKill(x, y) ? run + 1 : 0;
        if (run > longest) longest = run;
      }
    }
    for (let x = 0; x < c.width; x++) {
      let h = 0;
      for (let y = 0; y < band; y++) if (isKill(x, y)) h++;
      if (h) {
        colouredCols++;
        heights.add(h);
      }
    }
    return { longest, dpr, colouredCols, heights: [...heights].sort((a, b) => a - b), width: c.width };
  }, KILL_RGB);

test('~1,800 kills: a density strip (short runs, several heights, each bar by its kills); zoomed in, single markers that seek on a click; Whole and Escape', {
  timeout: 300_000,
}, async () => {
  const file = generatedFlrep('crowd-kills', [
    '--entities',
    '950',
    '--seconds',
    '300',
    '--seed',
    '7',
    '--tick-rate',
    '10',
  ]);
  const recorded = Number(/kill markers:\s+(\d+)/.exec(replayCli(['info', file]))?.[1]);
  assert.ok(recorded >= 1500, `many kills: ${recorded}`);
  const { page, log } = await suite.openPage();
  try {
    await openFile(page, file);
    await page.mouse.move(5, 5);
    await settle(page, 4);
    let m = await timelineMarkers(page);
    assert.equal(m.kills.length, recorded);
    // Every kill lies within 0.5 px of its bin's bar.
    let bin = 0;
    for (const k of m.kills) {
      while (bin < m.bins.length && m.bins[bin].x1 + 0.5 < k.x) bin++;
      const b = m.bins[bin];
      assert.ok(b && k.x >= b.x0 - 0.5 && k.x <= b.x1 + 0.5, `kill at x ${k.x} by its bar ${JSON.stringify(b)}`);
    }
    assert.equal(
      m.bins.reduce((n, b) => n + b.count, 0),
      recorded,
      'every kill in one bin',
    );
    const runs = await killRuns(page);
    // Not one solid run of marker colour: bars of 2 px with 1 px gaps.
    assert.ok(runs.longest <= 2 * runs.dpr + 1, `longest run of kill colour: ${runs.longest} device px`);
    assert.ok(runs.colouredCols > runs.width / 3, `a strip across the bar: ${runs.colouredCols} of ${runs.width}`);
    assert.ok(runs.heights.length >= 3, `bar heights by count: ${runs.heights}`);
    await page.screenshot({
      path: path.join(SHOTS, 'crowds-strip.png'),
      clip: { x: 0, y: 620, width: 1280, height: 100 },
    });

    // Zoom in with the wheel over the middle of the scrubber until the window is a few seconds.
    const box = await page.locator('#scrubber').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 40; i++) {
      const v = await page.evaluate(() => document.getElementById('scrubber').inspect().view);
      if (v && v.to - v.from <= 8) break;
      await page.mouse.wheel(0, -300);
      await settle(page, 1);
    }
    const view = await page.evaluate(() => document.getElementById('scrubber').inspect().view);
    assert.ok(view && view.to - view.from <= 8, `zoomed to a few seconds: ${JSON.stringify(view)}`);
    // The zoom is around the pointer: the middle of the recording stays in the window.
    const mid = (await page.evaluate(() => document.getElementById('scrubber').inspect().span)) / 2;
    assert.ok(view.from <= mid && mid <= view.to, `the window ${JSON.stringify(view)} holds the middle ${mid}`);
    assert.equal(await page.locator('.tl-minimap').isVisible(), true, 'the minimap shows while zoomed');
    assert.equal(await page.locator('.tl-whole').isVisible(), true, 'Whole shows while zoomed');
    await settle(page, 3);
    m = await timelineMarkers(page);
    assert.deepEqual(m.view, view);
    const singles = m.bins.filter((b) => b.count === 1);
    assert.ok(singles.length > 0, `single markers in the window: ${m.bins.map((b) => b.count)}`);
    await page.screenshot({
      path: path.join(SHOTS, 'crowds-zoomed.png'),
      clip: { x: 0, y: 600, width: 1280, height: 120 },
    });
    // Click the single marker with the most room: the player seeks to 2 s before its kill.
    const inView = m.kills.filter((k) => k.x >= 0 && k.x <= m.width);
    let pick = null;
    let room = -1;
    for (const [i, k] of inView.entries()) {
      const l = i > 0 ? k.x - inView[i - 1].x : Infinity;
      const r = i + 1 < inView.length ? inView[i + 1].x - k.x : Infinity;
      if (Math.min(l, r) > room) {
        room = Math.min(l, r);
        pick = k;
      }
    }
    assert.ok(pick && room >= 6, `a kill marker with room around it: ${room}`);
    await page.mouse.click(box.x + pick.x, box.y + pick.y);
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - Math.max(0, t - 2)) < 0.05, pick.t, {
      timeout: 20_000,
    });
    // Back to the whole: the button, then (zoomed again) Escape.
    await page.locator('.tl-whole').click();
    assert.equal(await page.evaluate(() => document.getElementById('scrubber').inspect().view), null);
    assert.equal(await page.locator('.tl-minimap').isVisible(), false);
    await page.mouse.move(box.x + box.width / 4, box.y + box.height / 2);
    await page.mouse.wheel(0, -600);
    await page.waitForFunction(() => document.getElementById('scrubber').inspect().view !== null);
    await page.keyboard.press('Escape');
    assert.equal(await page.evaluate(() => document.getElementById('scrubber').inspect().view), null);
    m = await timelineMarkers(page);
    assert.equal(m.view.from, 0);
    log.assertClean();
  } finally {
    await page.close();
  }
});
