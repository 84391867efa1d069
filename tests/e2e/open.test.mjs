// Opening replays end to end in headless Chromium: through the file picker, a drop, ?url= (with
// Range requests and from a server without them); the reader's errors reach the page, and a crash
// of either worker is reported and recovered from at the next file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { collectConsole } from './harness.mjs';
import {
  OUT,
  DEMO,
  fixture,
  newerMajorFixture,
  waitReady,
  playerState,
  canvasShot,
  decoderWorker,
  renderWorker,
  assertPicture,
  pageSuite,
  served,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
let t10;
let t10b;

const suite = pageSuite({
  setup: () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    t10 = fixture('t10', { seconds: 10, seed: 7 });
    t10b = fixture('t10b', { seconds: 10, seed: 11, entities: 12 });
  },
});
const openPage = suite.openPage;

test('opening a file through the file picker, then a second one replaces it', { timeout: 120_000 }, async () => {
  const { page, log } = await openPage();
  try {
    const first = await waitReady(page);
    assert.equal(first.name, 'demo/demo.flrep');
    // The demo through the picker: the open reads the head, tail and index only, not the file.
    await page.setInputFiles('#file-input', DEMO);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'demo.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    const demoStats = await page.evaluate(() => window.__player.diagnostics.workerStats());
    const demoSize = fs.statSync(DEMO).size;
    assert.ok(demoStats.openReads <= 4, `open took ${demoStats.openReads} reads`);
    assert.ok(demoStats.openBytes < 96 * 1024, `open read ${demoStats.openBytes} of ${demoSize} bytes`);
    assert.ok(demoStats.bytesRead < demoSize / 4, `chunk reads ${demoStats.bytesRead} of ${demoSize} bytes`);
    await page.setInputFiles('#file-input', t10);
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    let s = await playerState(page);
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02, `duration ${s.duration}`);
    assert.equal(await page.locator('#file-name').textContent(), 't10.flrep');
    assert.equal(s.info.sourceKind, 'file');
    assert.ok(s.info.openReads <= 4, `open took ${s.info.openReads} reads`);
    const rosterA = await page.locator('#roster-count').textContent();
    // A second file replaces the first without reloading the page.
    await page.setInputFiles('#file-input', t10b);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 't10b.flrep' && window.__player.diagnostics.snapshot().ready,
    );
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
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'dropped.flrep' && window.__player.diagnostics.snapshot().ready,
    );
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
    const page = await suite.browser.newPage();
    const log = collectConsole(page);
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.endsWith('/t10.flrep')) ranges.push(r.headers().range ?? '(none)');
    });
    await page.goto(`${suite.base}?url=${encodeURIComponent(served(t10))}`, { waitUntil: 'load' });
    return { page, log };
  })();
  try {
    const s = await waitReady(page);
    assert.equal(s.info.sourceKind, 'url');
    assert.equal(s.info.name, 't10.flrep');
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02);
    await page.evaluate(() => window.__player.seek(9));
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().chunksHeld.includes(4));
    if (ranges.length)
      assert.ok(
        ranges.every((r) => /^bytes=\d+-\d+$/.test(r)),
        `every request is a range: ${ranges.join(', ')}`,
      );
    const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
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

test("a bad file shows the reader's message on the page; a good file afterwards plays; the handle's status follows", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    assert.equal(await page.evaluate(() => window.__player.status), 'ready');
    await page.evaluate(() => {
      window.__statuses = [];
      window.__player.on('statuschange', (s) => window.__statuses.push(s));
    });
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
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    assert.equal(await page.locator('#error').isHidden(), true);
    // Each load: 'loading', then 'failed' (the two bad files) or 'ready'; disposed last, once.
    assert.deepEqual(await page.evaluate(() => window.__statuses), [
      'loading',
      'failed',
      'loading',
      'failed',
      'loading',
      'ready',
    ]);
    assert.deepEqual(
      await page.evaluate(() => {
        window.__player.dispose();
        window.__player.dispose();
        return [window.__player.status, window.__statuses.slice(-2)];
      }),
      ['disposed', ['ready', 'disposed']],
    );
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
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
    );
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
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().resting, null, { timeout: 10_000 });
    // Watched until the worker has been sent three frames: each one at least a second after the
    // last (the idle redraw), and the page's loop drawing next to nothing in between (awake, it
    // draws one every animation frame). A loaded machine only spaces them further apart.
    const idle = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const d = window.__player.diagnostics;
          d.perf({ reset: true });
          const posts = [];
          const t0 = performance.now();
          const timer = setInterval(() => {
            const { renderStats, frames } = d.perf();
            if (renderStats.posted > posts.length) posts.push({ at: performance.now(), frames });
            if (posts.length >= 3 || performance.now() - t0 > 30_000) {
              clearInterval(timer);
              resolve({ posts, ...d.perf().renderStats, frames: d.perf().frames, resting: d.snapshot().resting });
            }
          }, 20);
        }),
    );
    assert.ok(idle.posts.length >= 3, `three idle frames posted: ${JSON.stringify(idle)}`);
    const gaps = idle.posts.slice(1).map((p, i) => p.at - idle.posts[i].at);
    // (Sampled every 20 ms: a gap is seen up to 20 ms short of what it was.)
    assert.ok(
      gaps.every((g) => g >= 1000 - 40),
      `idle while paused: one frame a second, not more (${gaps.map((g) => g.toFixed(0)).join(', ')} ms apart)`,
    );
    assert.ok(
      idle.frames <= 10 * idle.posts.length + 10,
      `the page's loop rested (${idle.frames} animation frames over ${idle.posts.length} idle redraws; awake it draws 60 a second)`,
    );
    // Device loss: the renderer recreates its device in the worker; frames are drawn again.
    await page.evaluate(() => window.__player.diagnostics.loseDevice());
    // (Counted per reply: a recovery quicker than the page's polling is seen all the same.)
    await page.waitForFunction(() => window.__player.diagnostics.perf().renderStats.unready > 0, null, {
      timeout: 20_000,
    });
    await page.evaluate(() => window.__player.diagnostics.perf({ reset: true }));
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().rendererReady &&
        window.__player.diagnostics.perf().renderStats.drawn > 0,
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
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    const after = renderWorker(page);
    assert.ok(after && after !== before, 'a fresh render worker');
    assert.equal(page.workers().filter((w) => /render-worker\.js$/.test(w.url())).length, 1, 'the dead one is gone');
    const shot = await canvasShot(page, path.join(SHOTS, 'render-worker-restarted.png'));
    assertPicture(shot, 'after the restart');
  } finally {
    await page.close();
  }
});
