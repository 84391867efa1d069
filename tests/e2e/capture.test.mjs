// The published handle's captureFrame(t, width, height) (docs/player-api.md; www/core/capture.ts)
// in headless Chromium, on the handle create() gives a site: the picture at a time at a size of its
// own, drawn by the player's renderer (the entities in their faction colours on the background),
// different at another time; the playhead, the canvas' size and playing are as they were; a size
// it cannot draw and a player with nothing open reject with a sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  OUT,
  waitReady,
  settle,
  decodePng,
  fractionDifferent,
  BACKGROUND,
  nearFaction,
  pageSuite,
} from './player-helpers.mjs';

const DIR = path.join(OUT, 'capture');
const suite = pageSuite({ setup: () => fs.mkdirSync(DIR, { recursive: true }) });

/** handle.captureFrame(t, w, h) in the page, as a PNG (and what the page was like around it). */
async function capture(page, t, w, h) {
  const r = await page.evaluate(
    async ([t, w, h]) => {
      const p = window.__site;
      const canvas = document.querySelector('#site canvas.rp-canvas');
      const before = { time: p.currentTime, playing: p.playing, width: canvas.width, height: canvas.height };
      const bmp = await p.captureFrame(t, w, h);
      const c = document.createElement('canvas');
      c.width = bmp.width;
      c.height = bmp.height;
      c.getContext('2d').drawImage(bmp, 0, 0);
      bmp.close();
      const after = { time: p.currentTime, playing: p.playing };
      // (The render worker's canvas takes its size back with the next frames it draws.)
      for (let i = 0; i < 3; i++) await p.diagnostics.frameDrawn();
      Object.assign(after, { width: canvas.width, height: canvas.height });
      return { png: c.toDataURL('image/png'), size: [c.width, c.height], before, after };
    },
    [t, w, h],
  );
  const buf = Buffer.from(r.png.split(',')[1], 'base64');
  return { ...r, buf, img: decodePng(buf) };
}

/** A site's player on the page (player.js's create(), the published handle) with the demo open:
 *  window.__site. The page's own player pauses. */
async function sitePlayer(page) {
  await page.evaluate(async () => {
    window.__player.pause();
    const { create } = await import('./player.js');
    const el = document.createElement('div');
    el.id = 'site';
    el.style.cssText = 'position:fixed;left:0;top:0;width:480px;height:270px;z-index:10';
    document.body.append(el);
    const p = create('demo/demo.flrep', el, { lazy: false, ui: false });
    window.__site = p;
    await new Promise((resolve, reject) => {
      p.on('ready', resolve);
      p.on('error', (e) => reject(new Error(e.message)));
    });
  });
}

/** Pixels of `img` in a faction's colour family, by faction (0 … 3). */
function factions(img) {
  const n = [0, 0, 0, 0];
  for (let i = 0; i < img.width * img.height; i++) {
    const o = i * 4;
    const rgb = [img.data[o], img.data[o + 1], img.data[o + 2]];
    for (let f = 0; f < n.length; f++) if (nearFaction(rgb, f, 40)) n[f]++;
  }
  return n;
}

test('captureFrame: the picture at a time at its own size; the player as it was', { timeout: 180_000 }, async () => {
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    await sitePlayer(page);
    await page.evaluate(() => window.__site.seek(4));
    await settle(page, 6);
    const a = await capture(page, 12, 320, 180);
    fs.writeFileSync(path.join(DIR, 'capture-12s.png'), a.buf);
    assert.deepEqual(a.size, [320, 180], 'the size asked');
    // The sky above the ground plane is the background (#10141c), as on the canvas.
    for (const [x, y] of [
      [2, 2],
      [317, 2],
    ])
      assert.ok(
        a.img.at(x, y).every((v, i) => Math.abs(v - BACKGROUND[i]) <= 3),
        `(${x}, ${y}) is ${a.img.at(x, y)}`,
      );
    const f = factions(a.img);
    assert.ok(f.filter((x) => x > 3).length >= 2, `entities of two factions at least (${f})`);
    assert.ok(Math.abs(a.after.time - 4) < 1e-6, `the playhead back at 4 s (${a.after.time})`);
    assert.equal(a.after.playing, false);
    assert.deepEqual([a.after.width, a.after.height], [a.before.width, a.before.height], "the canvas' size back");
    const snap = await page.evaluate(() => window.__site.diagnostics.snapshot());
    assert.equal(snap.stageHeld, false, 'the renderer is the page’s again');
    // Another time, another picture; the same time again, the same picture.
    const b = await capture(page, 24, 320, 180);
    assert.ok(fractionDifferent(a.img, b.img) > 0.001, 'a different time draws a different picture');
    const c = await capture(page, 12, 320, 180);
    assert.ok(fractionDifferent(a.img, c.img, 40) < 0.01, 'the same time draws the same picture');
    // Playing, it plays on afterwards.
    await page.evaluate(() => window.__site.play());
    const d = await capture(page, 30, 160, 90);
    assert.deepEqual(d.size, [160, 90]);
    assert.equal(d.after.playing, true, 'playing again after the capture');
    await page.evaluate(() => window.__site.pause());
    // Sizes it cannot draw reject, and leave the player as it was.
    const bad = await page.evaluate(() =>
      window.__site.captureFrame(1, 0, 90).then(
        () => 'resolved',
        (e) => e.message,
      ),
    );
    assert.match(bad, /size must be 1–8192 px/);
    assert.equal(await page.evaluate(() => window.__site.diagnostics.snapshot().stageHeld), false);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('captureFrame with nothing open rejects with a sentence', { timeout: 60_000 }, async () => {
  const { page, log } = await suite.openPage('?url=');
  try {
    const r = await page.evaluate(async () => {
      const { create } = await import('./player.js');
      const el = document.createElement('div');
      el.style.cssText = 'position:relative;width:200px;height:120px';
      document.body.append(el);
      const p = create(null, el, { lazy: false });
      const out = await p.captureFrame(0, 64, 64).then(
        () => 'resolved',
        (e) => e.message,
      );
      p.dispose();
      return out;
    });
    assert.match(r, /Open a recording first/);
    log.assertClean();
  } finally {
    await page.close();
  }
});
