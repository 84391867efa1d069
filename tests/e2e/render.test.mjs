// The player's picture end to end in headless Chromium (WebGPU flags on): the demo renders
// entities in faction colours on the background (pixel checks), drawn in the render worker and on
// the page, and a click on an entity selects and follows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { expectedBackend, gpuAdapterInfo } from './harness.mjs';
import {
  OUT,
  waitReady,
  canvasShot,
  fractionDifferent,
  renderWorker,
  assertBackground,
  assertPicture,
  pageSuite,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
const suite = pageSuite({
  setup: () => {
    fs.mkdirSync(SHOTS, { recursive: true });
  },
});
const openPage = suite.openPage;

test('the demo opens and renders with WebGPU: entities in faction colours on the background; a seek changes the picture', {
  timeout: 180_000,
}, async (t) => {
  const { page, log } = await openPage();
  try {
    const gpu = await gpuAdapterInfo(page);
    t.diagnostic(`WebGPU adapter: ${JSON.stringify(gpu)}`);
    const s = await waitReady(page);
    assert.equal(s.name, 'demo/demo.flrep');
    assert.ok(s.duration > 100, `duration ${s.duration}`);
    // The harness's WebGPU flags give SwiftShader's adapter: WebGPU, never a quiet WebGL2 fallback.
    assert.equal(gpu.adapter, true, `a WebGPU adapter: ${JSON.stringify(gpu)}`);
    assert.equal(s.backend, expectedBackend(true));
    assert.equal(s.rendererBuild, 'renderer');
    assert.equal(await page.locator('#backend-badge').textContent(), 'WebGPU');
    await page.screenshot({ path: path.join(SHOTS, 'demo-page.png') });
    const a = await canvasShot(page, path.join(SHOTS, 'demo-canvas-0s.png'));
    assertPicture(a, 'at 0 s');
    await page.evaluate(() => window.__player.seek(60));
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().chunksHeld.length > 0 &&
        !window.__player.diagnostics.snapshot().seekPending,
    );
    const b = await canvasShot(page, path.join(SHOTS, 'demo-canvas-60s.png'));
    assertPicture(b, 'at 60 s');
    const changed = fractionDifferent(a.img, b.img);
    assert.ok(
      changed > 0.001,
      `the picture should change after a seek (${(changed * 100).toFixed(3)}% of pixels changed)`,
    );
    // Zoomed out: the globe sits on the background #10141c, which fills the corners.
    await page.evaluate(() => {
      window.__player.resetCamera();
      window.__player.diagnostics.zoom(9000);
    });
    const far = await canvasShot(page, path.join(SHOTS, 'demo-canvas-far.png'));
    assertPicture(far, 'zoomed out');
    assertBackground(far.img);
    // Labels are DOM text over the canvas.
    const labels = await page.locator('.rp-label:not([hidden])').count();
    assert.ok(labels > 0, 'callsign labels are shown');
    log.assertClean();
  } finally {
    await page.close();
  }
});

for (const mode of ['worker', 'page']) {
  test(`drawn ${mode === 'worker' ? 'in the render worker (the default)' : 'on the page (?render=page)'}: faction colours where entities are; a click on an entity selects and follows it`, {
    timeout: 180_000,
  }, async (t) => {
    const { page, log } = await openPage(mode === 'page' ? '?render=page' : '');
    try {
      const s = await waitReady(page);
      assert.equal(s.renderInWorker, mode === 'worker');
      assert.equal(!!renderWorker(page), mode === 'worker', 'a render worker runs only when drawing in one');
      if (mode === 'page') assert.equal(s.rendererBuild, 'renderer_webgl', 'the page draws with the build that can');
      else assert.equal(s.rendererBuild, 'renderer', 'the worker draws with the WebGPU-only build');
      assert.equal(s.backend, expectedBackend(true), 'WebGPU wherever it draws: the harness gives an adapter');
      t.diagnostic(`${mode}: ${s.backend} (${s.rendererBuild})`);
      await page.evaluate(() => window.__player.seek(30));
      await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
      const shot = await canvasShot(page, path.join(SHOTS, `demo-canvas-${mode}.png`));
      assertPicture(shot, mode);
      // Click the on-screen entity farthest from the others (so the pick is unambiguous).
      const pts = shot.points.filter(
        (p) => p.x > 20 && p.y > 20 && p.x < shot.img.width - 20 && p.y < shot.img.height - 20,
      );
      const lonely = (p) => Math.min(...pts.filter((q) => q !== p).map((q) => Math.hypot(q.x - p.x, q.y - p.y)));
      const target = pts.sort((a, b) => lonely(b) - lonely(a))[0];
      assert.ok(target && lonely(target) > 20, 'an entity stands apart on screen');
      const box = await page.locator('canvas.rp-canvas').boundingBox();
      await page.mouse.click(box.x + target.x, box.y + target.y);
      await page.waitForFunction((id) => window.__player.selected === id, target.id, { timeout: 10_000 });
      assert.equal(await page.evaluate(() => window.__player.cameraMode()), 'follow');
      log.assertClean();
    } finally {
      await page.close();
    }
  });
}
