// The WebGL2 fallback: forced with ?renderer=webgl (WebGPU available), and automatic when
// navigator.gpu is absent. The demo must render the same way (pixel checks) and play.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole } from './harness.mjs';
import {
  OUT,
  BACKGROUND,
  waitReady,
  canvasShot,
  fractionNear,
  fractionDifferent,
  nearFaction,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });
let srv;
after(async () => srv?.close());

async function checkWebgl(t, { webgpu, query, tag }) {
  srv ??= await startServer();
  const browser = await launchBrowser({ webgpu });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    await page.goto(`${srv.url}${query}`, { waitUntil: 'load' });
    const s = await waitReady(page);
    assert.equal(s.backend, 'webgl2');
    assert.equal(s.rendererBuild, 'renderer_webgl');
    assert.equal(await page.locator('#backend-badge').textContent(), 'WebGL2');
    // The WebGPU-only build was never fetched.
    const res = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(!res.some((n) => n.includes('/pkg/renderer/')), res.join(', '));
    await page.screenshot({ path: path.join(SHOTS, `${tag}-page.png`) });
    const a = await canvasShot(page, path.join(SHOTS, `${tag}-canvas-0s.png`));
    const onScreen = a.points.filter(
      (p) => p.faction !== undefined && p.x >= 4 && p.y >= 4 && p.x < a.img.width - 4 && p.y < a.img.height - 4,
    );
    assert.ok(onScreen.length >= 3, `entities on screen: ${onScreen.length}`);
    let hits = 0;
    for (const p of onScreen) {
      let found = false;
      for (let dy = -4; dy <= 4 && !found; dy++) {
        for (let dx = -4; dx <= 4 && !found; dx++) {
          const x = Math.round(p.x) + dx;
          const y = Math.round(p.y) + dy;
          if (x >= 0 && y >= 0 && x < a.img.width && y < a.img.height && nearFaction(a.img.at(x, y), p.faction))
            found = true;
        }
      }
      if (found) hits++;
    }
    assert.ok(
      hits >= Math.ceil(onScreen.length / 2),
      `faction colours at entity positions: ${hits}/${onScreen.length}`,
    );
    await page.evaluate(() => window.__player.seek(60));
    await page.waitForFunction(
      () =>
        !window.__player.diagnostics.snapshot().seekPending &&
        window.__player.diagnostics.snapshot().chunksHeld.length > 0,
    );
    const b = await canvasShot(page, path.join(SHOTS, `${tag}-canvas-60s.png`));
    const changed = fractionDifferent(a.img, b.img);
    assert.ok(changed > 0.001, `the picture changes after a seek (${(changed * 100).toFixed(3)}%)`);
    await page.evaluate(() => {
      window.__player.resetCamera();
      window.__player.diagnostics.zoom(9000);
    });
    const far = await canvasShot(page, path.join(SHOTS, `${tag}-canvas-far.png`));
    const bg = fractionNear(far.img, BACKGROUND, 6);
    assert.ok(bg > 0.3, `background #10141c around the globe: ${(bg * 100).toFixed(1)}%`);
    // It plays.
    await page.evaluate(() => {
      window.__player.setSpeed(4);
      window.__player.play();
    });
    await page.waitForFunction(() => window.__player.currentTime > 2);
    log.assertClean();
    t.diagnostic(
      `${tag}: ${hits}/${onScreen.length} entities in faction colours, ${(bg * 100).toFixed(1)}% background zoomed out`,
    );
  } finally {
    await browser.close();
  }
}

test('?renderer=webgl forces the WebGL2 build and it renders the demo', { timeout: 180_000 }, async (t) => {
  await checkWebgl(t, { webgpu: true, query: '?renderer=webgl', tag: 'webgl-forced' });
});

test('without navigator.gpu the page falls back to WebGL2 by itself', { timeout: 180_000 }, async (t) => {
  await checkWebgl(t, { webgpu: false, query: '', tag: 'webgl-auto' });
});
