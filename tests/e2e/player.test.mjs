// The player page end to end in headless Chromium (WebGPU flags on): the demo renders (pixel
// checks), files open through the picker, a drop, ?url= (Range and a server without Range),
// errors reach the page, kill markers and the kill feed, a whole 16x playback without console
// errors, and decoding stays in the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { startServer, launchBrowser, collectConsole, gpuAdapterInfo, ROOT, WWW } from './harness.mjs';
import {
  OUT,
  DEMO,
  BACKGROUND,
  seekLanded,
  hintsSettled,
  playhead,
  fixture,
  newerMajorFixture,
  killCount,
  waitReady,
  playerState,
  canvasShot,
  fractionNear,
  fractionDifferent,
  nearFaction,
  settle,
  replayCli,
  timelineMarkers,
  roomiestKill,
  killFeedRow,
  feedRowText,
  decoderWorker,
  renderWorker,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
let srv;
let browser;
let base;
let t10;
let t10b;

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  t10 = fixture('t10', { seconds: 10, seed: 7 });
  t10b = fixture('t10b', { seconds: 10, seed: 11, entities: 12 });
  // Serve the repository root: the page at /www/, generated replays at /tests/output/ (same origin).
  srv = await startServer({ root: ROOT });
  base = `${srv.url}dist/`;
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

async function openPage(query = '') {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(`${base}${query}`, { waitUntil: 'load' });
  return { page, log };
}

test('the demo opens and renders (WebGPU when an adapter exists): entities in faction colours on the background; a seek changes the picture', {
  timeout: 180_000,
}, async (t) => {
  const { page, log } = await openPage();
  try {
    const gpu = await gpuAdapterInfo(page);
    t.diagnostic(`WebGPU adapter: ${JSON.stringify(gpu)}`);
    const s = await waitReady(page);
    assert.equal(s.name, 'demo/demo.flrep');
    assert.ok(s.duration > 100, `duration ${s.duration}`);
    if (gpu.adapter) {
      assert.equal(s.backend, 'webgpu');
      assert.equal(s.rendererBuild, 'renderer');
    } else {
      assert.equal(s.backend, 'webgl2');
    }
    assert.equal(await page.locator('#backend-badge').textContent(), s.backend === 'webgpu' ? 'WebGPU' : 'WebGL2');
    await page.screenshot({ path: path.join(SHOTS, 'demo-page.png') });
    const a = await canvasShot(page, path.join(SHOTS, 'demo-canvas-0s.png'));
    assertPicture(a, 'at 0 s');
    await page.evaluate(() => window.__player.seek(60));
    await page.waitForFunction(
      () => window.__player.state().chunksHeld.length > 0 && !window.__player.debug.pendingSeek,
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
      window.__player.debug.renderer.zoom(9000);
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
      t.diagnostic(`${mode}: ${s.backend} (${s.rendererBuild})`);
      await page.evaluate(() => window.__player.seek(30));
      await page.waitForFunction(() => !window.__player.debug.pendingSeek);
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

function assertBackground(img) {
  const bg = fractionNear(img, BACKGROUND, 6);
  assert.ok(bg > 0.3, `background #10141c should cover the space around the globe (${(bg * 100).toFixed(1)}%)`);
  for (const [x, y] of [
    [2, 2],
    [img.width - 3, 2],
    [2, Math.floor(img.height / 3)],
    [img.width - 3, Math.floor(img.height / 3)],
  ]) {
    const px = img.at(x, y);
    assert.ok(
      px.every((v, i) => Math.abs(v - BACKGROUND[i]) <= 3),
      `pixel (${x}, ${y}) is ${px}, not the background`,
    );
  }
}

/** Background dominates the empty space; pixels at entities' screen positions carry faction colours. */
function assertPicture({ img, points }, when) {
  const withFaction = points.filter(
    (p) => p.faction !== undefined && p.x >= 4 && p.y >= 4 && p.x < img.width - 4 && p.y < img.height - 4,
  );
  assert.ok(withFaction.length >= 3, `${when}: entities on screen (${withFaction.length})`);
  let hits = 0;
  for (const p of withFaction) {
    let found = false;
    for (let dy = -4; dy <= 4 && !found; dy++) {
      for (let dx = -4; dx <= 4 && !found; dx++) {
        const x = Math.round(p.x) + dx;
        const y = Math.round(p.y) + dy;
        if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
        if (nearFaction(img.at(x, y), p.faction)) found = true;
      }
    }
    if (found) hits++;
  }
  assert.ok(
    hits >= Math.ceil(withFaction.length * 0.5),
    `${when}: faction colours at entity positions (${hits}/${withFaction.length})`,
  );
  // Both factions' colours appear somewhere.
  const factions = [...new Set(withFaction.map((p) => p.faction))];
  assert.ok(factions.length >= 2, `${when}: two factions on screen`);
}

test('opening a file through the file picker, then a second one replaces it', { timeout: 120_000 }, async () => {
  const { page, log } = await openPage();
  try {
    const first = await waitReady(page);
    assert.equal(first.name, 'demo/demo.flrep');
    // The demo through the picker: the open reads the head, tail and index only, not the file.
    await page.setInputFiles('#file-input', DEMO);
    await page.waitForFunction(() => window.__player.state().name === 'demo.flrep' && window.__player.state().ready);
    const demoStats = await page.evaluate(() => window.__player.debug.workerStats());
    const demoSize = fs.statSync(DEMO).size;
    assert.ok(demoStats.openReads <= 4, `open took ${demoStats.openReads} reads`);
    assert.ok(demoStats.openBytes < 96 * 1024, `open read ${demoStats.openBytes} of ${demoSize} bytes`);
    assert.ok(demoStats.bytesRead < demoSize / 4, `chunk reads ${demoStats.bytesRead} of ${demoSize} bytes`);
    await page.setInputFiles('#file-input', t10);
    await page.waitForFunction(() => window.__player.state().name === 't10.flrep' && window.__player.state().ready);
    let s = await playerState(page);
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02, `duration ${s.duration}`);
    assert.equal(await page.locator('#file-name').textContent(), 't10.flrep');
    assert.equal(s.info.sourceKind, 'file');
    assert.ok(s.info.openReads <= 4, `open took ${s.info.openReads} reads`);
    const rosterA = await page.locator('#roster-count').textContent();
    // A second file replaces the first without reloading the page.
    await page.setInputFiles('#file-input', t10b);
    await page.waitForFunction(() => window.__player.state().name === 't10b.flrep' && window.__player.state().ready);
    s = await playerState(page);
    // The roster is virtualized: its size is the list's aria-setsize and the panel's count.
    assert.equal(String(s.info.info.participants.length), await page.locator('#roster-count').textContent());
    assert.equal(
      String(s.info.info.participants.length),
      await page.locator('#roster li').first().getAttribute('aria-setsize'),
    );
    assert.notEqual(rosterA, await page.locator('#roster-count').textContent());
    assert.equal(s.error, null);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('opening a file dropped on the page (DragEvent with a DataTransfer)', { timeout: 120_000 }, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const b64 = fs.readFileSync(t10).toString('base64');
    await page.evaluate(async (data) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const file = new File([bytes], 'dropped.flrep', { type: 'application/octet-stream' });
      const dt = new DataTransfer();
      dt.items.add(file);
      const target = document.getElementById('stage');
      for (const type of ['dragenter', 'dragover'])
        target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      if (document.getElementById('drop-overlay').hidden)
        throw new Error('the drop overlay should show while dragging');
      target.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
    }, b64);
    await page.waitForFunction(() => window.__player.state().name === 'dropped.flrep' && window.__player.state().ready);
    assert.equal(await page.locator('#drop-overlay').isHidden(), true);
    const s = await playerState(page);
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('?url= loads over HTTP with Range requests', { timeout: 120_000 }, async () => {
  const ranges = [];
  const { page, log } = await (async () => {
    const page = await browser.newPage();
    const log = collectConsole(page);
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/t10.flrep')) ranges.push(r.headers().range ?? '(none)');
    });
    await page.goto(`${base}?url=${encodeURIComponent('/tests/output/t10.flrep')}`, { waitUntil: 'load' });
    return { page, log };
  })();
  try {
    const s = await waitReady(page);
    assert.equal(s.info.sourceKind, 'url');
    assert.equal(s.info.name, 't10.flrep');
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02);
    await page.evaluate(() => window.__player.seek(9));
    await page.waitForFunction(() => window.__player.state().chunksHeld.includes(4));
    if (ranges.length)
      assert.ok(
        ranges.every((r) => /^bytes=\d+-\d+$/.test(r)),
        `every request is a range: ${ranges.join(', ')}`,
      );
    const stats = await page.evaluate(() => window.__player.debug.workerStats());
    assert.ok(stats.bytesRead + stats.openBytes <= fs.statSync(t10).size + 65536);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('?url= on a server that ignores Range reads the whole body (and a 404 is reported)', {
  timeout: 120_000,
}, async () => {
  const body = fs.readFileSync(t10);
  const plain = http.createServer((req, res) => {
    const cors = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Headers': 'Range',
      'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    if (req.url.startsWith('/replay.flrep')) {
      res.writeHead(200, { ...cors, 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    res.writeHead(404, { ...cors, 'Content-Type': 'text/plain' });
    res.end('not found');
  });
  plain.listen(0, '127.0.0.1');
  await once(plain, 'listening');
  const other = `http://127.0.0.1:${plain.address().port}`;
  try {
    const { page, log } = await openPage(`?url=${encodeURIComponent(`${other}/replay.flrep`)}`);
    try {
      const s = await waitReady(page);
      assert.ok(Math.abs(s.duration - 599 / 60) < 0.02);
      log.assertClean();
    } finally {
      await page.close();
    }
    const { page: p2 } = await openPage(`?url=${encodeURIComponent(`${other}/missing.flrep`)}`);
    try {
      await p2.waitForSelector('#error:not([hidden])');
      assert.match(await p2.locator('#error-text').textContent(), /404/);
    } finally {
      await p2.close();
    }
  } finally {
    plain.closeAllConnections?.();
    plain.close();
  }
});

test("a bad file shows the reader's message on the page; a good file afterwards plays", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const junk = path.join(OUT, 'not-a-replay.flrep');
    fs.writeFileSync(junk, 'this is not a replay file at all\n');
    await page.setInputFiles('#file-input', junk);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error-text').textContent(), /not a replay this player reads/i);
    // The version refusal, in the reader's words.
    await page.setInputFiles('#file-input', newerMajorFixture(t10));
    await page.waitForFunction(() => /format 2\.0/i.test(document.getElementById('error-text').textContent));
    const text = await page.locator('#error-text').textContent();
    assert.match(
      text,
      /^This replay was recorded by engine version 0\.4\.0 \(format 2\.0\); this build reads format 1\.x$/,
    );
    assert.equal(await page.locator('#error').isVisible(), true);
    await page.screenshot({ path: path.join(SHOTS, 'error.png') });
    await page.setInputFiles('#file-input', t10);
    await page.waitForFunction(() => window.__player.state().name === 't10.flrep' && window.__player.state().ready);
    assert.equal(await page.locator('#error').isHidden(), true);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a worker crash shows an error and the next file opens in a fresh worker', { timeout: 120_000 }, async () => {
  const { page } = await openPage();
  try {
    await waitReady(page);
    const worker = decoderWorker(page);
    assert.ok(worker, 'a decoder worker runs');
    await worker.evaluate(() => {
      setTimeout(() => {
        throw new Error('simulated decoder crash');
      }, 0);
    });
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error-text').textContent(), /decoder crashed/i);
    await page.setInputFiles('#file-input', t10);
    await page.waitForFunction(() => window.__player.state().name === 't10.flrep' && window.__player.state().ready);
    const s = await playerState(page);
    assert.equal(s.workerRestarts, 1);
  } finally {
    await page.close();
  }
});

test('the render worker: a lost GPU device recovers and draws again; a crash shows an error and the next file draws in a fresh worker', {
  timeout: 150_000,
}, async () => {
  const t10 = fixture('t10', { seconds: 10 });
  const { page } = await openPage();
  try {
    await waitReady(page);
    const before = renderWorker(page);
    assert.ok(before, 'a render worker runs');
    // Paused and untouched, the page's loop rests and posts no frames: the worker and the GPU
    // rest too, but for one frame a second (which notices a device lost meanwhile).
    await page.waitForFunction(() => window.__player.debug.resting, null, { timeout: 10_000 });
    await page.evaluate(() => window.__player.debug.perf({ reset: true }));
    await page.waitForTimeout(2500);
    const idle = await page.evaluate(() => ({
      ...window.__player.debug.perf().renderStats,
      frames: window.__player.debug.perf().frames,
    }));
    assert.ok(idle.posted >= 1 && idle.posted <= 4, `idle while paused: one frame a second: ${JSON.stringify(idle)}`);
    assert.ok(idle.frames <= 40, `the page's loop rested (${idle.frames} animation frames in 2.5 s; 150 awake)`);
    // Device loss: the renderer recreates its device in the worker; frames are drawn again.
    await page.evaluate(() => window.__player.debug.renderer.debugLoseDevice());
    await page.waitForFunction(() => !window.__player.debug.renderer.ready(), null, { timeout: 20_000 });
    await page.evaluate(() => window.__player.debug.perf({ reset: true }));
    await page.waitForFunction(
      () => window.__player.debug.renderer.ready() && window.__player.debug.perf().renderStats.drawn > 0,
      null,
      { timeout: 30_000 },
    );
    assert.equal(await page.locator('#error').isHidden(), true, 'no error for a recovered loss');
    const back = await canvasShot(page, path.join(SHOTS, 'render-worker-device-recovered.png'));
    assertPicture(back, 'after the device loss');
    // A crash of the worker itself.
    await before.evaluate(() => {
      setTimeout(() => {
        throw new Error('simulated renderer crash');
      }, 0);
    });
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error-text').textContent(), /Drawing failed: .*simulated renderer crash/);
    await page.setInputFiles('#file-input', t10);
    await page.waitForFunction(() => window.__player.state().name === 't10.flrep' && window.__player.state().ready);
    const after = renderWorker(page);
    assert.ok(after && after !== before, 'a fresh render worker');
    assert.equal(page.workers().filter((w) => /render-worker\.js$/.test(w.url())).length, 1, 'the dead one is gone');
    const shot = await canvasShot(page, path.join(SHOTS, 'render-worker-restarted.png'));
    assertPicture(shot, 'after the restart');
  } finally {
    await page.close();
  }
});

test('a paused, untouched player rests (no animation frames); input, a selection or play wakes it, and the clock does not jump', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.seek(20));
    await page.waitForFunction(() => window.__player.debug.resting, null, { timeout: 10_000 });
    const frames = () => page.evaluate(() => window.__player.debug.perfN);
    const n0 = await frames();
    await page.waitForTimeout(600);
    assert.ok((await frames()) - n0 <= 6, 'no frames while resting (but the once-a-second redraw)');
    const a = await canvasShot(page, path.join(SHOTS, 'rest-before.png'));
    // A drag on the canvas orbits the camera: the loop wakes, the worker draws a new picture.
    const box = await page.locator('canvas.rp-canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 160, box.y + box.height / 2 + 40, { steps: 8 });
    await page.mouse.up();
    assert.equal(await page.evaluate(() => window.__player.debug.resting), false, 'input woke the loop');
    await page.waitForFunction(() => window.__player.debug.resting, null, { timeout: 10_000 });
    const b = await canvasShot(page, path.join(SHOTS, 'rest-after-orbit.png'));
    const changed = fractionDifferent(a.img, b.img);
    assert.ok(
      changed > 0.02,
      `the orbit redrew the picture while paused (${(changed * 100).toFixed(1)} % of pixels changed)`,
    );
    // A selection from the API: its label shows.
    const id = await page.evaluate(() => window.__player.info.info.participants[0].entity);
    await page.evaluate((i) => window.__player.select(i), id);
    await page.waitForFunction(
      (i) => {
        const el = document.querySelector('.rp-label.selected');
        return el && !el.hidden && el.textContent.includes(window.__player.entityName(i));
      },
      id,
      { timeout: 10_000 },
    );
    // Play after resting: the clock goes on from where it stood (the rest is not a step).
    await page.waitForFunction(() => window.__player.debug.resting, null, { timeout: 10_000 });
    const t0 = await page.evaluate(() => window.__player.currentTime);
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction((t) => window.__player.currentTime > t, t0, { timeout: 10_000 });
    const t1 = await page.evaluate(() => window.__player.currentTime);
    assert.ok(t1 - t0 < 0.2, `play after a rest starts where it stood: ${t0} → ${t1}`);
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => window.__player.debug.resting), false, 'playing never rests');
    await page.evaluate(() => window.__player.pause());
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('kill markers and the kill feed list the recorded kills; hovering a marker shows its text; clicking a marker or a row seeks to the kill', {
  timeout: 120_000,
}, async () => {
  const expected = killCount(DEMO);
  assert.ok(expected > 0, 'the demo has kills');
  const { page, log } = await openPage();
  try {
    const s = await waitReady(page);
    assert.equal(s.markers, expected);
    assert.equal(s.info.markers.length, expected);
    // One marker per recorded kill, each where its time is on the scrubber.
    const box = await page.locator('#scrubber').boundingBox();
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, expected, 'one kill marker per kill');
    assert.deepEqual(
      m.kills.map((k) => k.tick),
      s.killFeed.map((k) => k.tick),
    );
    for (const [i, k] of m.kills.entries()) {
      assert.ok(Math.abs(k.x - (s.killFeed[i].time / s.duration) * box.width) <= 1, `marker ${i} at x ${k.x}`);
    }
    assert.ok(m.killColumns > 0 && m.killColumns <= expected);
    // The feed knows its full size (rows only exist in view).
    const setsize = await page.locator('#killfeed li').first().getAttribute('aria-setsize');
    assert.equal(Number(setsize), expected);
    assert.equal(await page.locator('#killfeed').getAttribute('role'), 'list');
    assert.equal(await page.locator('#killfeed li').first().getAttribute('role'), 'listitem');
    // Hover the marker with the most room around it: the tooltip shows "killer → victim (weapon)".
    const pick = roomiestKill(s.killFeed);
    const kill = s.killFeed[pick];
    const mk = m.kills[pick];
    assert.equal(await page.locator('#scrub-tip').isHidden(), true);
    await page.mouse.move(box.x + mk.x, box.y + mk.y);
    await page.locator('#scrub-tip').waitFor({ state: 'visible' });
    const tip = await page.locator('#scrub-tip').textContent();
    assert.equal(tip, kill.text);
    assert.match(tip, /^.+ → .+ \(.+\)$/);
    assert.doesNotMatch(tip, /weapon \d+|unknown weapon/);
    // Off the markers (on the track) the tooltip goes and the time shows instead.
    await page.mouse.move(box.x + mk.x, box.y + box.height / 2);
    assert.equal(await page.locator('#scrub-tip').isHidden(), true);
    assert.equal(await page.locator('#scrub-hover').isVisible(), true);
    // A real pointer click at the marker's position: 2 s before the kill, and no scrub to the click's x.
    await page.mouse.click(box.x + mk.x, box.y + mk.y);
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, Math.max(0, kill.time - 2));
    await settle(page, 4);
    let now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(
      kill.time - now <= 2.01 && kill.time - now >= 1.95,
      `playhead ${now} 2 s before the kill at ${kill.time}`,
    );
    // The kill feed: scrolled to the end it shows the last kill; clicking its row seeks there.
    const last = s.killFeed[expected - 1];
    await page.locator('#killfeed-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const lastRow = page.locator(`#killfeed li[aria-posinset="${expected}"]`);
    await lastRow.waitFor({ state: 'visible' });
    assert.equal(feedRowText(await lastRow.locator('.kf-text').textContent()), last.text);
    await lastRow.locator('button').click();
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, Math.max(0, last.time - 2));
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(last.time - now) <= 2.01);
    // A row in the middle, reached by scrolling.
    const mid = Math.floor(expected / 2);
    const row = await killFeedRow(page, mid);
    assert.equal(feedRowText(await row.locator('.kf-text').textContent()), s.killFeed[mid].text);
    await row.locator('button').click();
    await page.waitForFunction(
      (t) => Math.abs(window.__player.currentTime - t) < 0.05,
      Math.max(0, s.killFeed[mid].time - 2),
    );
    // Keyboard: ] goes to the next kill, [ back.
    await page.evaluate(() => window.__player.seek(0));
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(']');
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(now - Math.max(0, s.killFeed[0].time - 2)) < 0.05, `] -> ${now}`);
    await page.keyboard.press(']');
    const second = await page.evaluate(() => window.__player.currentTime);
    assert.ok(second > now, `] again -> ${second}`);
    await page.keyboard.press('[');
    const starts = s.killFeed.map((k) => Math.max(0, k.time - 2)).filter((x) => x < second - 0.5);
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(now - starts[starts.length - 1]) < 0.05, `[ -> ${now}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("the kill feed follows the playhead, but a scroll of the user's after a seek wins until the next move", {
  timeout: 60_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const idle = () => page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(r))));
    const feed = () =>
      page.evaluate(() => {
        const sc = document.getElementById('killfeed-scroll');
        return {
          top: sc.scrollTop,
          viewH: sc.clientHeight,
          rows: [...document.querySelectorAll('#killfeed li[data-index]')].map((li) => Number(li.dataset.index)),
        };
      });
    const kills = await page.evaluate(() => window.__player.kills.map((k) => window.__player.killTime(k)));
    const rowPx = await page.evaluate(() => {
      const sc = document.getElementById('killfeed-scroll');
      return sc.querySelector('#killfeed').offsetHeight / window.__player.kills.length;
    });
    const mid = Math.floor(kills.length / 2);
    const last = kills.length - 1;
    // The last kill first: the feed follows it down.
    await page.evaluate((t) => window.__player.seek(t), kills[last]);
    await seekLanded(page);
    await idle();
    const f0 = await feed();
    assert.ok(
      f0.top > 0 && f0.rows.includes(last),
      `the feed followed to the last kill: top ${f0.top}, rows ${f0.rows}`,
    );
    assert.ok(
      mid * rowPx > f0.viewH,
      `the middle kill's row is below the first view (${mid} rows of ${rowPx} px, view ${f0.viewH} px)`,
    );
    // A seek onto the middle kill, and the user scrolls the feed back to the top before the feed
    // followed (the scroll event dispatched at once, as the browser would a frame later).
    await page.evaluate((t) => {
      window.__player.seek(t);
      const sc = document.getElementById('killfeed-scroll');
      sc.scrollTop = 0;
      sc.dispatchEvent(new Event('scroll'));
    }, kills[mid]);
    await seekLanded(page);
    await idle();
    let f = await feed();
    assert.equal(f.top, 0, "the user's scroll stays");
    assert.ok(f.rows.includes(0) && !f.rows.includes(mid), `the top rows stay: ${f.rows}`);
    // The next move: the feed follows again (the last kill, near the playhead, is revealed).
    await page.evaluate((t) => window.__player.seek(t), kills[last]);
    await seekLanded(page);
    await idle();
    f = await feed();
    assert.ok(f.top > 0 && f.rows.includes(last), `the feed followed to the last kill: top ${f.top}, rows ${f.rows}`);
    // Without a scroll in between, a seek is followed too (back to the middle kill).
    await page.evaluate((t) => window.__player.seek(t), kills[mid]);
    await seekLanded(page);
    await idle();
    f = await feed();
    const top = mid * rowPx;
    assert.ok(
      f.top <= top && top + rowPx <= f.top + f.viewH + 1,
      `the middle kill's row is in view: top ${f.top}, row at ${top}`,
    );
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** ≈ 1,900 kills in 5 minutes (1,000 aircraft, each a participant, at 10 Hz; 35 MB, generated once into tests/output/). */
function manyKillsFile() {
  const file = path.join(OUT, 'many-kills.flrep');
  if (!fs.existsSync(file))
    replayCli([
      'generate',
      '--out',
      file,
      '--seed',
      '7',
      '--entities',
      '1000',
      '--seconds',
      '300',
      '--tick-rate',
      '10',
    ]);
  return file;
}

test('a replay with thousands of kills keeps the DOM small: a virtualized feed, markers on one canvas', {
  timeout: 240_000,
}, async (t) => {
  const file = manyKillsFile();
  const recorded = Number(/kill markers:\s+(\d+)/.exec(replayCli(['info', file]))?.[1]);
  assert.ok(recorded >= 1000, `thousands of kills: ${recorded}`);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      () => window.__player.state().name === 'many-kills.flrep' && window.__player.state().ready,
      null,
      { timeout: 120_000 },
    );
    const s = await playerState(page);
    assert.equal(s.markers, recorded);
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, recorded, 'a marker per kill');
    assert.ok(m.killColumns < m.width + 1, `merged per pixel column: ${m.killColumns} columns`);
    const dom = () =>
      page.evaluate(() => ({
        feedRows: document.querySelectorAll('#killfeed li').length,
        scrubber: document.querySelectorAll('#scrubber *').length,
        setsize: Number(document.querySelector('#killfeed li').getAttribute('aria-setsize')),
      }));
    let d = await dom();
    t.diagnostic(
      `${recorded} kills: ${d.feedRows} feed rows, ${d.scrubber} elements in the scrubber, ${m.killColumns} marker columns`,
    );
    assert.equal(d.setsize, recorded);
    assert.ok(d.feedRows > 0 && d.feedRows < 100, `feed rows in the DOM: ${d.feedRows}`);
    assert.ok(d.scrubber < 20, `elements in the scrubber: ${d.scrubber}`);
    // Seeks keep the current kill in view and the DOM small.
    for (const f of [0.9, 0.25, 0.6]) {
      const k = s.killFeed[Math.floor(f * recorded)];
      await page.evaluate((tt) => window.__player.seek(tt), k.time);
      await page.waitForFunction(() => !window.__player.debug.pendingSeek, null, { timeout: 60_000 });
      // The kills near the playhead (1.5 s) are highlighted; the first of them is scrolled into view
      // (the feed follows the playhead once the page is idle after the seek: www/ui/idle.js).
      await page.waitForFunction(
        (t) =>
          [...document.querySelectorAll('#killfeed li.near')].some(
            (li) =>
              Math.abs(
                (Number(li.dataset.tick) - window.__player.debug.firstTick) / window.__player.debug.tickRate - t,
              ) <= 1.6,
          ),
        k.time,
        { timeout: 10_000 },
      );
      const near = page.locator('#killfeed li.near').first();
      await near.waitFor({ state: 'visible' });
      const shown = await near.evaluate((li) => {
        const r = li.getBoundingClientRect();
        const v = document.getElementById('killfeed-scroll').getBoundingClientRect();
        return { tick: Number(li.dataset.tick), inView: r.top >= v.top - 1 && r.bottom <= v.bottom + 1 };
      });
      assert.equal(shown.inView, true, `a kill near ${k.time} s is in view`);
      const shownKill = s.killFeed.find((x) => x.tick === shown.tick);
      assert.ok(
        Math.abs(shownKill.time - k.time) <= 1.6,
        `the row in view (${shownKill.time} s) is near the playhead (${k.time} s)`,
      );
      d = await dom();
      assert.ok(d.feedRows < 100, `feed rows after a seek: ${d.feedRows}`);
    }
    // Scrolled to the end: the last kill; still few rows.
    await page.locator('#killfeed-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const lastRow = page.locator(`#killfeed li[aria-posinset="${recorded}"]`);
    await lastRow.waitFor({ state: 'visible' });
    assert.equal(feedRowText(await lastRow.locator('.kf-text').textContent()), s.killFeed[recorded - 1].text);
    d = await dom();
    assert.ok(d.feedRows < 100, `feed rows at the end: ${d.feedRows}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a roster of 1,000 participants keeps the DOM small: only the rows in view; following one far down reveals it; dead marks follow the playhead', {
  timeout: 240_000,
}, async (t) => {
  const file = manyKillsFile();
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      () => window.__player.state().name === 'many-kills.flrep' && window.__player.state().ready,
      null,
      { timeout: 120_000 },
    );
    // The roster's order: by faction, then callsign.
    const people = await page.evaluate(() =>
      [...window.__player.info.info.participants].sort(
        (a, b) => a.faction - b.faction || a.callsign.localeCompare(b.callsign),
      ),
    );
    assert.equal(people.length, 1000);
    const dom = () =>
      page.evaluate(() => {
        const lis = [...document.querySelectorAll('#roster li')];
        return {
          rows: lis.length,
          setsize: Number(lis[0].getAttribute('aria-setsize')),
          count: document.getElementById('roster-count').textContent,
          shown: lis.map((li) => ({
            pos: Number(li.getAttribute('aria-posinset')),
            entity: Number(li.dataset.entity),
            callsign: li.querySelector('.callsign').textContent,
            dead: li.classList.contains('dead'),
            selected: li.classList.contains('selected'),
          })),
        };
      });
    let d = await dom();
    t.diagnostic(`${people.length} participants: ${d.rows} roster rows in the DOM`);
    assert.equal(d.setsize, 1000);
    assert.equal(d.count, '1000');
    assert.ok(d.rows > 0 && d.rows < 80, `roster rows in the DOM: ${d.rows}`);
    // Each row shows the participant at its position.
    for (const r of d.shown) assert.equal(r.callsign, people[r.pos - 1].callsign, `row ${r.pos}`);
    // Following a participant far down the list scrolls its row into view and marks it selected.
    const far = people[870];
    await page.evaluate((id) => window.__player.follow(id), far.entity);
    const row = page.locator(`#roster li[data-entity="${far.entity}"]`);
    await row.waitFor({ state: 'visible' });
    const seen = await row.evaluate((li) => {
      const r = li.getBoundingClientRect();
      const v = document.getElementById('roster-scroll').getBoundingClientRect();
      return {
        inView: r.top >= v.top - 1 && r.bottom <= v.bottom + 1,
        selected: li.classList.contains('selected'),
        pos: Number(li.getAttribute('aria-posinset')),
      };
    });
    assert.deepEqual(seen, { inView: true, selected: true, pos: 871 });
    d = await dom();
    assert.equal(d.shown.filter((r) => r.selected).length, 1, 'one row selected');
    assert.ok(d.rows < 80, `roster rows after following: ${d.rows}`);
    // Late in the battle some of the rows in view are dead, exactly those the frame at the playhead says.
    await page.evaluate(() => window.__player.seek(window.__player.duration - 1));
    await page.waitForFunction(() => !window.__player.debug.pendingSeek, null, { timeout: 60_000 });
    await page.waitForFunction(
      () => {
        const alive = window.__player.aliveNow();
        const lis = [...document.querySelectorAll('#roster li')];
        return (
          alive.size > 0 &&
          lis.every((li) => li.classList.contains('dead') === (alive.get(Number(li.dataset.entity)) !== true))
        );
      },
      null,
      { timeout: 10_000 },
    );
    d = await dom();
    const dead = d.shown.filter((r) => r.dead).length;
    t.diagnostic(`${dead} of ${d.rows} rows in view dead at the end`);
    assert.ok(dead > 0 && dead < d.rows, `some rows dead, some alive: ${dead} of ${d.rows}`);
    // Scrolled to the end: the last participant; clicking it follows it.
    await page.locator('#roster-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const last = page.locator('#roster li[aria-posinset="1000"]');
    await last.waitFor({ state: 'visible' });
    assert.equal(await last.locator('.callsign').textContent(), people[999].callsign);
    await last.locator('button').click();
    assert.equal(await page.evaluate(() => window.__player.selected), people[999].entity);
    assert.equal(await last.evaluate((li) => li.classList.contains('selected')), true);
    d = await dom();
    assert.ok(d.rows < 80, `roster rows at the end: ${d.rows}`);
    // Keyboard: Up moves the focus to the row above.
    await last.locator('button').focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement.closest('li')?.getAttribute('aria-posinset')), '999');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('keyboard and roster: space, arrows, ticks, Home/End; clicking a callsign follows it', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 5) < 1e-6);
    await page.keyboard.press('Shift+ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 6) < 1e-6);
    await page.keyboard.press('Alt+ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 36) < 1e-6);
    const tick = await page.evaluate(() => window.__player.tick);
    await page.keyboard.press('.');
    assert.equal(await page.evaluate(() => window.__player.tick), tick + 1);
    await page.keyboard.press(',');
    await page.keyboard.press(',');
    assert.equal(await page.evaluate(() => window.__player.tick), tick - 1);
    await page.keyboard.press('End');
    const d = await page.evaluate(() => [window.__player.currentTime, window.__player.duration]);
    assert.equal(d[0], d[1]);
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => window.__player.currentTime), 0);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.__player.currentTime > 0.3);
    await page.keyboard.press('Space');
    assert.equal(await page.evaluate(() => window.__player.paused), true);
    // Roster: click follows + selects.
    const li = page.locator('#roster li').nth(3);
    const entity = Number(await li.getAttribute('data-entity'));
    await li.locator('button').click();
    const st = await page.evaluate(() => ({ sel: window.__player.selected, mode: window.__player.cameraMode() }));
    assert.equal(st.sel, entity);
    assert.equal(st.mode, 'follow');
    assert.equal(await li.evaluate((e) => e.classList.contains('selected')), true);
    await settle(page);
    await page.screenshot({ path: path.join(SHOTS, 'follow.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('scrubbing follows the pointer on the timeline', { timeout: 120_000 }, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const box = await page.locator('#scrubber').boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.1, y);
    await page.mouse.down();
    for (const f of [0.2, 0.4, 0.6]) {
      await page.mouse.move(box.x + box.width * f, y, { steps: 3 });
    }
    await page.mouse.up();
    const s = await playerState(page);
    assert.ok(Math.abs(s.time / s.duration - 0.6) < 0.02, `at ${s.time} of ${s.duration}`);
    await page.waitForFunction(() => window.__player.state().chunksHeld.length > 0);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a seek's clock and timeline change with its frame, not before; a drag moves them at once; a slow seek shows its time after seekShowMs", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const r = await page.evaluate(async () => {
      const p = window.__player;
      p.pause();
      const shown = () =>
        [document.getElementById('time').textContent, document.getElementById('scrub-thumb-rail').style.transform].join(
          ' @ ',
        );
      const out = {};
      // A seek far away (its frame is not on the page): nothing of the page moves until it lands.
      await p.seek(p.duration * 0.1);
      const s0 = shown();
      const seek = p.seek(p.duration * 0.7);
      out.cold = { pending: p.seekPending, during: shown(), before: s0 };
      await seek;
      // They change in the animation frame that draws the seek's frame.
      out.cold.atSeeked = shown();
      await new Promise((res) => requestAnimationFrame(res));
      out.cold.after = shown();
      // A seek whose frame never comes (the worker never asked): its time shows after seekShowMs.
      const notify = p.debug.client.notify.bind(p.debug.client);
      p.debug.client.notify = (m, params) => (m === 'want' ? undefined : notify(m, params));
      const s1 = shown();
      const slow = p.seek(p.duration * 0.3);
      out.slow = { before: s1, during: shown(), waitMs: p.debug.seekShowMs };
      await new Promise((res) => setTimeout(res, p.debug.seekShowMs + 150));
      out.slow.pending = p.seekPending;
      out.slow.later = shown();
      p.debug.client.notify = notify;
      p.debug.updateWant(true);
      await slow;
      // For the drag below: a seek that never lands, and a long wait, so only the drag moves them.
      p.debug.seekShowMs = 60_000;
      p.debug.client.notify = (m, params) => (m === 'want' ? undefined : notify(m, params));
      window.__restoreWant = () => {
        p.debug.client.notify = notify;
        p.debug.seekShowMs = 100;
        p.debug.updateWant(true);
      };
      return out;
    });
    assert.equal(r.cold.pending, true, JSON.stringify(r));
    assert.equal(r.cold.during, r.cold.before, `the page waits for the seek's frame: ${JSON.stringify(r)}`);
    assert.notEqual(r.cold.after, r.cold.before, JSON.stringify(r));
    assert.equal(r.slow.during, r.slow.before, JSON.stringify(r));
    assert.equal(r.slow.pending, true, JSON.stringify(r));
    assert.notEqual(
      r.slow.later,
      r.slow.before,
      `a seek without its frame shows its time after ${r.slow.waitMs} ms: ${JSON.stringify(r)}`,
    );
    // A drag: the seek under the pointer never lands here, and the clock and thumb follow at once.
    const before = await page.evaluate(() => document.getElementById('time').textContent);
    const box = await page.locator('#scrubber').boundingBox();
    await page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2);
    await page.mouse.down();
    const d = await page.evaluate(() => ({
      pending: window.__player.seekPending,
      clock: document.getElementById('time').textContent,
      thumb: document.getElementById('scrub-thumb-rail').style.transform,
    }));
    await page.evaluate(() => window.__restoreWant());
    await page.mouse.up();
    assert.equal(d.pending, true, JSON.stringify(d));
    assert.notEqual(d.clock, before, `a drag moves the clock at once: ${JSON.stringify(d)}`);
    assert.match(d.thumb, /translateX\(8[45](\.\d+)?%\)/, JSON.stringify(d));
    await page.waitForFunction(() => !window.__player.seekPending);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a whole playback of the demo at 16x: no console errors or unhandled rejections, ends', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.selectOption('#speed', '16');
    await page.evaluate(() => {
      window.__ended = false;
      window.__player.on('ended', () => {
        window.__ended = true;
      });
      window.__player.play();
    });
    await page.waitForFunction(() => window.__ended, null, { timeout: 200_000, polling: 500 });
    const s = await playerState(page);
    assert.equal(s.time, s.duration);
    assert.equal(s.playing, false);
    const stats = await page.evaluate(() => window.__player.debug.workerStats());
    assert.ok(stats.decoded >= s.info.chunks, `every chunk decoded once at least (${stats.decoded}/${s.info.chunks})`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a paused seek decodes only the frames at its tick; playing on resumes in that chunk without decompressing it again', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const r = await page.evaluate(async () => {
      const p = window.__player;
      p.pause();
      const firsts = p.info.chunks.map((c) => c.firstTick);
      const chunkOf = (t) => firsts.findLastIndex((f) => f <= t);
      const out = [];
      // Far from the playhead (not decoded yet): the chunk must be read and decompressed.
      for (const frac of [0.61, 0.27]) {
        const ci = chunkOf(p.debug.firstTick + Math.floor(frac * p.duration * p.debug.tickRate));
        // A tick a third of the way into the chunk.
        const tick = firsts[ci] + Math.floor((firsts[ci + 1] - firsts[ci]) / 3);
        const before = await p.debug.workerStats();
        await p.seek((tick - p.debug.firstTick) / p.debug.tickRate + 1e-4);
        const at = p.debug.currentTickInt();
        const seen = {
          tick: at,
          pieces: p.state().pieces,
          frame: p.debug.frameAt(at).frame.length,
          next: p.debug.nextFrame(p.debug.frameAt(at))?.tick ?? null,
        };
        const afterSeek = await p.debug.workerStats();
        // Play on for 20 ticks, then pause: the window stays inside the chunk.
        p.setSpeed(1);
        p.play();
        for (let k = 0; k < 400 && p.debug.currentTickInt() < at + 20; k++)
          await new Promise((res) => setTimeout(res, 25));
        p.pause();
        await new Promise((res) => setTimeout(res, 300));
        const played = await p.debug.workerStats();
        out.push({
          ...seen,
          chunkEnd: firsts[ci + 1],
          reached: p.debug.currentTickInt(),
          held: p.state().pieces,
          decodedBySeek: afterSeek.decoded - afterSeek.hintDecoded - (before.decoded - before.hintDecoded),
          decodedByPlay: played.decoded - played.hintDecoded - (afterSeek.decoded - afterSeek.hintDecoded),
          resumedByPlay: played.resumed - afterSeek.resumed,
        });
      }
      return out;
    });
    for (const s of r) {
      const msg = JSON.stringify(s);
      // The seek's piece: the frame at its tick and the next one (for interpolation), nothing more.
      assert.equal(s.pieces.length, 1, msg);
      assert.deepEqual(
        [s.pieces[0].from, s.pieces[0].end, s.pieces[0].ticks, s.pieces[0].stride],
        [s.tick, s.tick + 2, 2, 1],
        msg,
      );
      assert.equal(s.next, s.tick + 1, msg);
      assert.ok(s.frame > 0);
      assert.equal(s.decodedBySeek, 1, `one decompression for the seek: ${msg}`);
      // Playing on rolled forward from where the seek stopped: no second decompression of the chunk
      // (the landing's hint decompresses → 5 s on in the spare decoder: not counted here).
      assert.ok(s.reached >= s.tick + 20 && s.reached < s.chunkEnd - 30, msg);
      assert.equal(s.decodedByPlay, 0, msg);
      assert.ok(s.resumedByPlay >= 1, msg);
      assert.ok(
        s.held.every((h) => h.stride === 1 && h.end > s.tick),
        msg,
      );
    }
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the pointer resting on the timeline or a kill row prefetches: the click there neither reads nor decompresses (paused); playing, a hint only reads', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const stats = () => page.evaluate(() => window.__player.debug.workerStats());
    const waitFor = (pred, what) =>
      page.waitForFunction(pred, null, { timeout: 10_000 }).catch(() => assert.fail(`timed out: ${what}`));
    // Until the worker's stats (asked of the worker: a promise, so polled from here) satisfy `ok`.
    const statsUntil = async (ok, what) => {
      for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(25)) {
        const s = await stats();
        if (ok(s)) return s;
      }
      assert.fail(`timed out: ${what}`);
    };
    const box = await page.locator('#scrubber').boundingBox();
    const y = box.y + box.height / 2; // between the kill row and the event row: no marker under it
    const duration = await page.evaluate(() => window.__player.duration);
    // The timing the worker sent with the piece that holds the playhead (docs/worker-protocol.md).
    const pieceTiming = async () => (await playhead(page)).timing;

    // Paused: the hint reads the chunk and positions the decoder at the moment under the pointer.
    const x = box.x + 0.63 * box.width;
    // Decompressions for pieces (a hint's are counted in `hintDecoded` too: a landing's hint
    // decompresses the next → step in the spare decoder).
    const forPieces = (s) => s.decoded - s.hintDecoded;
    let s0 = await hintsSettled(page);
    await page.mouse.move(x, y);
    await statsUntil((s) => s.warmed > s0.warmed, 'the hovered chunk warmed');
    const s1 = await stats();
    assert.equal(
      s1.decoded,
      s0.decoded + 1,
      `warming decompressed the hovered chunk once: ${JSON.stringify([s0, s1])}`,
    );
    await page.mouse.down();
    await page.mouse.up();
    await waitFor('!window.__player.debug.pendingSeek', 'the click seeked');
    const s2 = await stats();
    const t = await page.evaluate(() => window.__player.currentTime);
    assert.ok(
      Math.abs(t - 0.63 * duration) < duration / box.width,
      `the click seeked under the pointer: ${t} vs ${0.63 * duration}`,
    );
    assert.equal(forPieces(s2), forPieces(s1), 'the seek decompressed nothing');
    // (The worker reads the next chunk ahead once idle: reads may grow, the seek's piece read nothing.)
    let timing = await pieceTiming();
    // (`resumed`: the decoder held the chunk, so no bytes were asked for; `read` is then only timer noise.)
    assert.equal(timing?.resumed, true, `the seek resumed where the hint left the decoder: ${JSON.stringify(timing)}`);
    assert.ok(timing.read < 1, `no read: ${timing.read} ms`);

    // A kill row: the hint is the moment a click seeks to (2 s before the kill).
    const kills = await page.evaluate(() => window.__player.kills.map((k) => window.__player.killTime(k)));
    const idx = kills.findIndex((k) => Math.abs(k - 2 - t) > 10);
    // The feed follows the playhead when the page is idle (www/ui/idle.js): let it, then scroll.
    await page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(r))));
    const row = await killFeedRow(page, idx);
    s0 = await hintsSettled(page);
    await row.locator('button').hover();
    await statsUntil((s) => s.warmed > s0.warmed, "the kill row's chunk warmed");
    const s3 = await stats();
    await row.locator('button').click();
    await waitFor('!window.__player.debug.pendingSeek', 'the row seeked');
    const s4 = await stats();
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - (kills[idx] - 2)) < 1e-3);
    assert.equal(forPieces(s4), forPieces(s3), "the row's seek decompressed nothing");
    timing = await pieceTiming();
    assert.equal(timing?.resumed, true, `the row's seek resumed: ${JSON.stringify(timing)}`);

    // Playing: a hint reads the chunk (a click there need not wait for the file) but leaves the
    // decoder to the playback (no decompression for it). (The pointer leaves the kill feed first:
    // rows changing under a still pointer are hovered again.)
    await page.mouse.move(5, 5);
    await page.evaluate(() => window.__player.play());
    // A moment whose chunk is neither cached nor held by a decoder (the spare one holds where the
    // last landing's hint went).
    const { f, target } = await page.evaluate(async () => {
      const p = window.__player;
      const w = await p.debug.workerStats();
      for (let f = 0.12; f < 0.95; f += 0.03) {
        const tick = p.debug.firstTick + Math.floor(f * p.duration * p.debug.tickRate);
        const c = p.info.chunks.findLastIndex((ch) => ch.firstTick <= tick);
        if (!w.cachedChunks.includes(c) && !w.heldChunks.includes(c) && !p.debug.pieceAt(tick)) return { f, target: c };
      }
      return { f: 0, target: -1 };
    });
    assert.ok(target >= 0, 'a chunk to hover that is not cached yet');
    s0 = await stats();
    await page.mouse.move(box.x + f * box.width, y);
    await statsUntil((s) => s.cachedChunks.includes(target), `chunk ${target} read while playing`);
    const s5 = await stats();
    assert.equal(s5.warmed, s0.warmed, 'no warming while playing');
    await page.evaluate(() => window.__player.pause());
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a key pressed again is ready: after ] or ← lands (paused), the same key's next seek neither reads nor decompresses", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const stats = () => page.evaluate(() => window.__player.debug.workerStats());
    // After a key's seek landed: the page sent its hint (a seek resets `prefetched`; the hint sets
    // it), and the worker got every hint sent and is done with them. Returns the worker's stats.
    const hinted = async (what) => {
      await page
        .waitForFunction(() => window.__player.debug.prefetched !== -1, null, { timeout: 10_000 })
        .catch(() => assert.fail(`no hint sent: ${what}`));
      const sent = await page.evaluate(() => window.__player.debug.hintsSent);
      for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(25)) {
        const s = await stats();
        if (s.hints === sent && !s.hinting) return s;
      }
      return assert.fail(`timed out: the worker handling the hint ${what}`);
    };
    // The playhead, its chunk, and the worker's timing for the piece that holds it.
    const here = () => playhead(page);
    const chunkOf = (t) =>
      page.evaluate((x) => {
        const p = window.__player;
        return p.info.chunks.findLastIndex((c) => c.firstTick <= p.debug.firstTick + Math.floor(x * p.debug.tickRate));
      }, t);
    // Three kills in a row whose viewing points (2 s before) lie in three different chunks, so that
    // each ] needs a chunk the decoder does not hold.
    const plan = await page.evaluate(() => {
      const p = window.__player;
      const chunkAt = (t) =>
        p.info.chunks.findLastIndex((c) => c.firstTick <= p.debug.firstTick + Math.floor(t * p.debug.tickRate));
      const starts = [...new Set(p.kills.map((k) => Math.max(0, p.killTime(k) - 2)))].sort((a, b) => a - b);
      for (let i = 0; i + 2 < starts.length; i++) {
        const c = starts.slice(i, i + 3).map(chunkAt);
        // (Nor is the next two's chunk the one the landing of the seek to the first kill readies:
        // → 5 s on.)
        if (
          c[0] !== c[1] &&
          c[1] !== c[2] &&
          c[0] !== c[2] &&
          !c.slice(1).includes(chunkAt(starts[i] + 5)) &&
          starts[i] > 12
        )
          return { starts: starts.slice(i, i + 3), chunks: c };
      }
      return null;
    });
    assert.ok(plan, 'the demo has three kills in three chunks');
    await page.evaluate((t) => window.__player.seek(t), plan.starts[0]);
    await seekLanded(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    // ] : a seek to the next kill that decompresses its chunk (the seek's landing only read it);
    // once it landed, the worker warms the one after.
    const s0 = await hintsSettled(page);
    assert.equal(s0.hinting, false);
    await page.keyboard.press(']');
    await seekLanded(page);
    let h = await here();
    assert.ok(Math.abs(h.time - plan.starts[1]) < 1e-3, `] -> ${h.time}, expected ${plan.starts[1]}`);
    assert.equal(h.timing?.resumed, false, 'the first ] decompressed its chunk');
    const s1 = await hinted('after ]');
    assert.equal(s1.warmed, s0.warmed + 1, 'the hint warmed a chunk');
    assert.equal(
      s1.decoded,
      s0.decoded + 2,
      `the seek and the hint each decompressed once: ${JSON.stringify([s0, s1])}`,
    );
    // ] again: where the hint left the decoder.
    await page.keyboard.press(']');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - plan.starts[2]) < 1e-3, `] again -> ${h.time}, expected ${plan.starts[2]}`);
    assert.equal(h.chunk, plan.chunks[2]);
    assert.equal(h.timing?.resumed, true, `the second ] neither read nor decompressed: ${JSON.stringify(h.timing)}`);

    // ← : 5 s back, then again (the two steps land in two other chunks).
    await hinted('after the second ]');
    const t0 = h.time;
    assert.notEqual(await chunkOf(t0 - 5), await chunkOf(t0 - 10), 'the two steps back are in different chunks');
    assert.notEqual(await chunkOf(t0 - 10), h.chunk);
    await page.keyboard.press('ArrowLeft');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - (t0 - 5)) < 1e-3, `← -> ${h.time}, expected ${t0 - 5}`);
    assert.equal(h.timing?.resumed, false, 'the first ← decompressed its chunk');
    await hinted('after ←');
    await page.keyboard.press('ArrowLeft');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - (t0 - 10)) < 1e-3, `← twice -> ${h.time}, expected ${t0 - 10}`);
    assert.equal(h.timing?.resumed, true, `the second ← neither read nor decompressed: ${JSON.stringify(h.timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a paused seek's landing readies ← / → / [ / ]: → resumes in the spare decoder, the others' chunks are read; the decoder stays for playing on", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    // A moment T whose chunk, T ± 5 s's and the previous / next kill's viewing points' are five
    // different chunks, and a far moment F in a sixth (a control: nothing readies it).
    const plan = await page.evaluate(async () => {
      const p = window.__player;
      const cached = (await p.debug.workerStats()).cachedChunks;
      const chunkAt = (t) =>
        p.info.chunks.findLastIndex((c) => c.firstTick <= p.debug.firstTick + Math.floor(t * p.debug.tickRate + 1e-6));
      for (let t = 12; t < p.duration - 12; t += 0.5) {
        const prev = p.killStart(-1, t);
        const next = p.killStart(1, t);
        if (prev === null || next === null) continue;
        const c = [t, t + 5, t - 5, next, prev].map(chunkAt);
        if (new Set(c).size !== 5) continue;
        const far = [...Array(p.info.chunks.length).keys()].findLast(
          (k) => k > 0 && !cached.includes(k) && c.every((x) => Math.abs(x - k) > 2),
        );
        if (far === undefined) continue;
        return {
          t,
          prev,
          next,
          chunks: c,
          far: (p.info.chunks[far].firstTick - p.debug.firstTick + 3) / p.debug.tickRate,
          farChunk: far,
        };
      }
      return null;
    });
    assert.ok(plan, 'the demo has such a moment');
    const here = () => playhead(page);
    // Seeks to T and waits for its landing hint; the worker's stats then.
    const atT = async () => {
      await page.evaluate((t) => window.__player.seek(t), plan.t);
      await seekLanded(page);
      return hintsSettled(page);
    };
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const before = await hintsSettled(page);
    let s = await atT();
    for (const c of plan.chunks.slice(1))
      assert.ok(
        s.cachedChunks.includes(c),
        `chunk ${c} read on landing: ${JSON.stringify({ plan, cached: s.cachedChunks })}`,
      );
    assert.ok(!s.cachedChunks.includes(plan.farChunk), 'the far chunk is not read');
    assert.ok(s.hintReads > before.hintReads, `the landing's hint read chunks: ${JSON.stringify([before, s])}`);
    // The step the way the seek went was decompressed in the spare decoder: its first press resumes
    // there. The others decompress (the decoder stayed at T) bytes from the cache.
    assert.ok(
      s.hintDecoded > before.hintDecoded,
      `the landing's hint decompressed → in the spare decoder: ${JSON.stringify([before, s])}`,
    );
    // Each seek back to T comes from where the key went: the landing warms the step the same way
    // (→ after coming from before T, ← after coming back from T + 5 or the next kill).
    for (const [key, to, chunk, resumed] of [
      ['ArrowRight', plan.t + 5, plan.chunks[1], true],
      ['ArrowLeft', plan.t - 5, plan.chunks[2], true],
      [']', plan.next, plan.chunks[3], false],
      ['[', plan.prev, plan.chunks[4], false],
    ]) {
      const k0 = s;
      await page.keyboard.press(key);
      await seekLanded(page);
      const h = await here();
      assert.ok(
        Math.abs(h.time - to) < 1e-3 && h.chunk === chunk,
        `${key} -> ${h.time} (chunk ${h.chunk}), expected ${to} (chunk ${chunk})`,
      );
      if (resumed) {
        assert.equal(h.timing?.resumed, true, `${key}: resumed in the spare decoder: ${JSON.stringify(h.timing)}`);
        const k1 = await page.evaluate(() => window.__player.debug.workerStats());
        assert.equal(k1.swapped, k0.swapped + 1, 'the spare decoder became the decoder');
      } else {
        assert.equal(h.timing?.resumed, false, `${key}: the decoder was still at T`);
        assert.equal(
          h.timing?.cached,
          true,
          `${key}: its chunk's bytes were in the cache: ${JSON.stringify(h.timing)}`,
        );
      }
      await hintsSettled(page);
      s = await atT();
    }
    // Playing on from T: the decoder is still there (no second decompression of T's chunk).
    const s0 = s;
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction((t) => window.__player.currentTime > t + 0.2, plan.t, { timeout: 10_000 });
    await page.evaluate(() => window.__player.pause());
    const s1 = await page.evaluate(() => window.__player.debug.workerStats());
    assert.ok(s1.resumed > s0.resumed, `playing on resumed in T's chunk: ${JSON.stringify([s0, s1])}`);
    // The control: a seek nothing readied waits for the file.
    await page.evaluate((t) => window.__player.seek(t), plan.far);
    await seekLanded(page);
    const h = await here();
    assert.equal(h.chunk, plan.farChunk);
    assert.equal(h.timing?.cached, false, `the far seek read its chunk: ${JSON.stringify(h.timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("chunks over 512 KiB get no spare decoder (its memory): a seek's landing only reads there, and → decompresses from the cache", {
  timeout: 120_000,
}, async () => {
  // 2,000 entities: chunks of ~1.7 MB (a spare decoder would cost ~9 MiB of wasm memory).
  const big = fixture('spare-2000', { entities: 2000, seconds: 8, seed: 3 });
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', big);
    await page.waitForFunction(
      () => window.__player.state().name === 'spare-2000.flrep' && window.__player.state().ready,
      null,
      { timeout: 60_000 },
    );
    await page.evaluate(() => window.__player.pause());
    const before = await hintsSettled(page);
    await page.evaluate(() => window.__player.seek(0.5));
    await seekLanded(page);
    await page.evaluate(() => window.__player.seek(2.5));
    await seekLanded(page);
    const s = await hintsSettled(page);
    assert.equal(s.hintDecoded, before.hintDecoded, `no decompression for a hint: ${JSON.stringify(s)}`);
    assert.ok(s.heldChunks.length <= 1, `one decoder holds a chunk: ${JSON.stringify(s.heldChunks)}`);
    const next = await page.evaluate(() =>
      window.__player.info.chunks.findLastIndex(
        (c) => c.firstTick <= window.__player.debug.firstTick + Math.floor(7.5 * window.__player.debug.tickRate),
      ),
    );
    assert.ok(s.cachedChunks.includes(next), `→'s chunk read on landing: ${JSON.stringify(s.cachedChunks)}`);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await seekLanded(page);
    const { time, timing } = await playhead(page);
    assert.ok(Math.abs(time - 7.5) < 1e-3);
    assert.equal(timing?.resumed, false, 'decompressed');
    assert.equal(timing?.cached, true, `from the cache: ${JSON.stringify(timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('decoding happens in the worker and drawing in the render worker: the page loads neither wasm; the renderer wasm has no decoder', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    const s = await waitReady(page);
    assert.equal(s.renderInWorker, true, 'Chromium draws in a render worker');
    const pageResources = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(!pageResources.some((n) => /_bg\.wasm$/.test(n)), `the page loads no wasm: ${pageResources.join(', ')}`);
    assert.ok(
      !pageResources.some((n) => /decoder(_bg\.wasm|\.js)$/.test(n)),
      `page resources: ${pageResources.join(', ')}`,
    );
    const renderResources = await renderWorker(page).evaluate(() =>
      performance.getEntriesByType('resource').map((e) => e.name),
    );
    assert.ok(
      renderResources.some((n) => /renderer(_webgl)?_bg\.wasm$/.test(n)),
      `the render worker loads a renderer wasm: ${renderResources.join(', ')}`,
    );
    assert.ok(
      !renderResources.some((n) => /decoder/.test(n)),
      `render worker resources: ${renderResources.join(', ')}`,
    );
    const worker = decoderWorker(page);
    const workerResources = await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(
      workerResources.some((n) => n.endsWith('pkg/decoder/decoder.js')),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(
      workerResources.some((n) => n.endsWith('pkg/decoder/decoder_bg.wasm')),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(!workerResources.some((n) => /renderer/.test(n)));
    // A .flrep session fetches only the .flrep decoder build, and none of the page modules that only
    // .foldback / live sessions use (they are imported on demand).
    assert.ok(
      !workerResources.some((n) => /decoder_(spark|foldback)|worker-foldback\.js$/.test(n)),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(
      !pageResources.some((n) => /\/(ui\/foldback|live)\.js$/.test(n)),
      `page resources: ${pageResources.join(', ')}`,
    );
    // The page's module graph has no decoder import.
    const modules = await page.evaluate(() => [...document.querySelectorAll('script[type=module]')].map((s) => s.src));
    assert.equal(modules.length, 1);
    log.assertClean();
  } finally {
    await page.close();
  }
  for (const name of ['renderer', 'renderer_webgl']) {
    const wasm = fs.readFileSync(path.join(WWW, 'pkg', name, `${name}_bg.wasm`));
    const mod = await WebAssembly.compile(wasm);
    const names = [
      ...WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`),
      ...WebAssembly.Module.exports(mod).map((e) => e.name),
    ];
    const bad = names.filter((n) => /zstd|decod|session|chunk/i.test(n));
    assert.deepEqual(bad, [], `${name}: decoder symbols in imports/exports`);
    for (const s of ['ruzstd', 'DecoderSession', 'decodechunk', 'decoderSession'])
      assert.ok(!wasm.includes(s), `${name}_bg.wasm contains ${s}`);
    const js = fs.readFileSync(path.join(WWW, 'pkg', name, `${name}.js`), 'utf8');
    assert.doesNotMatch(js, /DecoderSession|decodeChunk/);
  }
});

test('download budget: a WebGPU .flrep session fetches at most 250 KB (gzip -9) of JS + wasm', {
  timeout: 120_000,
}, async (t) => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const backend = await page.evaluate(() => window.__player.state().backend);
    if (backend !== 'webgpu') {
      t.skip(`no WebGPU adapter here (backend ${backend}): the budget is for a WebGPU browser`);
      return;
    }
    await page.evaluate(() => window.__player.play());
    await page.waitForTimeout(1500);
    const urls = [
      ...(await page.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)])),
      ...(
        await Promise.all(
          page
            .workers()
            .map((w) =>
              w.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]),
            ),
        )
      ).flat(),
    ];
    const files = new Set();
    for (const u of urls) {
      let p = decodeURIComponent(new URL(u).pathname);
      if (!p.startsWith('/dist/')) continue;
      if (p.endsWith('/')) p += 'index.html';
      if (p.endsWith('.flrep')) continue; // the replay's own bytes
      files.add(path.join(ROOT, p));
    }
    const sizes = [...files].map((f) => [
      path.relative(WWW, f),
      zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length,
    ]);
    // The goal (issue 3) is JS + wasm; the page's HTML, CSS and icon are reported beside it.
    const code = sizes.filter(([f]) => /\.(js|wasm)$/.test(f));
    const total = code.reduce((a, [, n]) => a + n, 0);
    const all = sizes.reduce((a, [, n]) => a + n, 0);
    t.diagnostic(
      `JS + wasm: ${code.length} files, ${(total / 1000).toFixed(1)} KB gzipped; with HTML, CSS and icon ${(all / 1000).toFixed(1)} KB: ${sizes
        .sort((a, b) => b[1] - a[1])
        .map(([f, n]) => `${f} ${(n / 1000).toFixed(1)}`)
        .join(', ')}`,
    );
    assert.ok(
      code.some(([f]) => f.endsWith('render-worker.js')) && code.some(([f]) => f === 'worker.js'),
      'both workers counted',
    );
    assert.ok(
      sizes.some(([f]) => f.endsWith('decoder_bg.wasm')) && sizes.some(([f]) => f.endsWith('renderer_bg.wasm')),
      'both wasm builds counted',
    );
    assert.ok(
      !sizes.some(([f]) => /renderer_webgl|decoder_spark|decoder_foldback/.test(f)),
      'nothing a .flrep WebGPU session does not need',
    );
    assert.ok(total <= 250_000, `${total} bytes of JS + wasm gzipped > 250,000 (docs/performance.md, Download size)`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
