// The renderer's surface acquisition (docs/renderer.md, "Surface acquisition"), in headless Chromium
// with WebGPU, drawing in the render worker:
//  1. a canvas texture that the browser hands out invalid (what Chromium does when it cannot wrap
//     the canvas' drawing buffer: `getCurrentTexture()` returns an error texture and reports
//     nothing; seen after resizes, intermittently) is skipped and the surface reconfigured: no
//     console error, and the frames after it are drawn;
//  2. resizing the stage every animation frame (odd sizes, 1 px and back, larger than the device
//     allows), changing devicePixelRatio and the viewport, and losing the GPU device meanwhile, while
//     playing: no console error, and the picture comes back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startServer, launchBrowser, collectConsole, WWW, expectedBackend } from './harness.mjs';
import { DEMO, FACTION_RGB, waitReady, renderWorker, decodePng, nearFaction } from './player-helpers.mjs';

let srv;
let browser;

before(async () => {
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  srv = await startServer({ root: WWW });
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

async function openPage() {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(srv.url, { waitUntil: 'load' });
  const s = await waitReady(page);
  return { page, log, backend: s.backend };
}

// In the page: the player's diagnostics are `window.__player.diagnostics` (docs/player-api.md).

/** Frames the render worker has drawn since the page opened. */
const drawn = (page) => page.evaluate(() => window.__player.diagnostics.perf().renderStats.drawn);

/** Until the render worker has drawn `n` more frames than `from` (and the device is ready). */
async function framesDrawn(page, from, n = 10) {
  await page.waitForFunction(
    (target) => {
      const d = window.__player.diagnostics;
      return d.snapshot().rendererReady && d.perf().renderStats.drawn >= target;
    },
    from + n,
    { timeout: 30_000 },
  );
}

/** The canvas (labels hidden) shows the entities: pixels in at least two faction colours. */
async function assertPicture(page, when) {
  await page.addStyleTag({ content: '.rp-labels, .stage-hint { visibility: hidden !important; }' });
  await framesDrawn(page, await drawn(page), 4);
  const img = decodePng(await page.locator('canvas.rp-canvas').screenshot());
  const perFaction = FACTION_RGB.map(() => 0);
  for (let i = 0; i < img.width * img.height; i++) {
    const rgb = [img.data[i * 4], img.data[i * 4 + 1], img.data[i * 4 + 2]];
    for (let k = 0; k < FACTION_RGB.length; k++) if (nearFaction(rgb, k)) perFaction[k]++;
  }
  const factions = perFaction.filter((n) => n >= 20).length;
  assert.ok(factions >= 2, `${when}: entities in two faction colours (${perFaction.join(', ')} px)`);
}

test('a canvas texture the browser hands out invalid is skipped and the surface reconfigured: no console error, the next frames draw', {
  timeout: 180_000,
}, async () => {
  const { page, log, backend } = await openPage();
  try {
    // The invalid canvas texture is WebGPU's: the harness's flags give an adapter (no skip on a fallback).
    assert.equal(backend, expectedBackend(true));
    const worker = renderWorker(page);
    assert.ok(worker, 'the renderer draws in its worker');
    // In the render worker: getCurrentTexture() hands out an error texture, as Chromium does when it
    // cannot wrap the canvas' drawing buffer (an error texture, no error of its own: the texture's
    // creation error stays in a scope of the hook's), while `__invalidLeft` > 0; configure() notes
    // that the surface was configured again after one.
    await worker.evaluate(() => {
      const acquire = GPUCanvasContext.prototype.getCurrentTexture;
      const configure = GPUCanvasContext.prototype.configure;
      self.__invalidLeft = 0;
      self.__invalidGiven = 0;
      self.__invalidSinceConfigure = false;
      GPUCanvasContext.prototype.configure = function (...args) {
        self.__invalidSinceConfigure = false;
        return configure.apply(this, args);
      };
      GPUCanvasContext.prototype.getCurrentTexture = function () {
        if (self.__invalidLeft <= 0) return acquire.call(this);
        self.__invalidLeft--;
        self.__invalidGiven++;
        self.__invalidSinceConfigure = true;
        const { device, format } = this.getConfiguration();
        device.pushErrorScope('validation');
        const texture = device.createTexture({
          size: [this.canvas.width, this.canvas.height],
          format,
          usage: GPUTextureUsage.RENDER_ATTACHMENT,
          sampleCount: 3, // invalid: an error texture
        });
        device.popErrorScope();
        return texture;
      };
    });
    await page.evaluate(() => window.__player.play());
    const stage = page.locator('#stage');
    const box = await stage.boundingBox();
    let given = 0;
    for (let round = 0; round < 12; round++) {
      // After a resize (where Chromium was seen doing it) or not; one at a time, or three in a row.
      if (round % 2 === 0) {
        const w = Math.round(box.width - 37 * (1 + (round % 5)));
        await stage.evaluate((el, px) => {
          el.style.flex = 'none';
          el.style.width = `${px}px`;
        }, w);
      }
      const burst = round % 4 === 3 ? 3 : 1;
      await worker.evaluate((n) => {
        self.__invalidLeft = n;
      }, burst);
      given += burst;
      const from = await drawn(page);
      // Handed out, then the surface configured again (within 10 s, or the round fails) ...
      const reconfigured = await worker.evaluate(
        () =>
          new Promise((resolve) => {
            const t0 = Date.now();
            const wait = () => {
              if (self.__invalidLeft <= 0 && !self.__invalidSinceConfigure) resolve(true);
              else if (Date.now() - t0 > 10_000) resolve(false);
              else setTimeout(wait, 5);
            };
            wait();
          }),
      );
      log.assertClean();
      assert.ok(reconfigured, `round ${round}: the surface is configured again after an invalid texture`);
      // ... and the frames after it are drawn.
      await framesDrawn(page, from, 3);
    }
    await stage.evaluate((el) => {
      el.style.cssText = '';
    });
    assert.equal(await worker.evaluate(() => self.__invalidGiven), given, 'every invalid texture was handed out');
    log.assertClean();
    await assertPicture(page, 'after the invalid textures');
  } finally {
    await page.close();
  }
});

test('resizing the stage every frame, changing devicePixelRatio and the viewport, losing the device: no console error, the picture comes back', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await page.evaluate(() => window.__player.play());
    // Every animation frame a new stage size: odd, fractional, 1 px (and 0: the player keeps 1),
    // wider than the device's largest texture (clamped); the device lost twice meanwhile. (Not
    // 8192 device px both ways: its MSAA targets are 1 GiB each, which SwiftShader refuses.)
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const d = window.__player.diagnostics;
          const stage = document.getElementById('stage');
          const widths = [1, 0, 3, 1777, 5, 640, 1, 9999, 2, 333.3, 0.4, 1280, 17, 1, 801];
          const heights = [1, 0.4, 3, 1777, 5, 480, 1, 2, 333.3, 719, 17, 0, 801];
          let k = 0;
          const step = () => {
            stage.style.flex = 'none';
            stage.style.minWidth = '0';
            stage.style.minHeight = '0';
            stage.style.width = `${widths[k % widths.length]}px`;
            stage.style.height = `${heights[k % heights.length]}px`;
            if (k === 60 || k === 150) d.loseDevice();
            if (++k < 240) requestAnimationFrame(step);
            else {
              stage.style.cssText = '';
              resolve();
            }
          };
          requestAnimationFrame(step);
        }),
    );
    // devicePixelRatio (up to 12: the renderer keeps at most 8) and the viewport, back to back.
    const cdp = await page.context().newCDPSession(page);
    for (const [i, dpr] of [1, 2, 3.7, 0.5, 8, 12, 1.25, 2, 1].entries()) {
      await cdp.send('Emulation.setDeviceMetricsOverride', {
        width: 1280 - (i % 3) * 97,
        height: 720 - (i % 4) * 53,
        deviceScaleFactor: dpr,
        mobile: false,
      });
      if (i % 2) await page.waitForTimeout(50);
    }
    await cdp.send('Emulation.clearDeviceMetricsOverride');
    for (const [w, h] of [
      [1, 1],
      [301, 7001],
      [1280, 720],
    ])
      await page.setViewportSize({ width: w, height: h });
    log.assertClean();
    await assertPicture(page, 'after the resizes and device losses');
  } finally {
    await page.close();
  }
});
