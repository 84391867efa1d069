// A damaged or unsent part of a recording costs only its own seconds, end to end in headless
// Chromium: a chunk with a flipped byte is skipped (the clock passes it, the timeline draws it
// hatched, a notice names its span, a seek into it lands at its end); over HTTP a chunk the server
// fails once is asked for again, one it always fails becomes a gap. A file cut short (no index)
// fills its kill markers and feed from a background scan. And the messages that say what to do:
// a server without CORS headers (two recordings picked at once: compare.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { OUT, fixture, killCount, waitReady, decodePng, dist, pageSuite } from './player-helpers.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

/** The file offsets of a .flrep's chunk headers ("FLCK", then the frame's length), in order. */
function chunkOffsets(buf) {
  for (let i = buf.indexOf('FLCK'); i >= 0; i = buf.indexOf('FLCK', i + 1)) {
    const list = [];
    let o = i;
    while (o + 36 <= buf.length && buf.toString('latin1', o, o + 4) === 'FLCK') {
      list.push(o);
      o += 36 + buf.readUInt32LE(o + 4);
    }
    if (list.length > 1 && (o === buf.length || buf.toString('latin1', o, o + 4) === 'FLIX')) return list;
  }
  throw new Error('no chain of chunks found');
}

/** 60 s, 30 chunks of 2 s (tick rate 60, keyframe interval 120): chunk 15 is [30 s, 32 s). */
const sixty = () => fixture('sixty', { seconds: 60 });
const MIDDLE = 15;

/** A copy of the 60 s recording with one byte flipped in the middle of chunk 15's zstd frame. */
function damaged() {
  const file = path.join(OUT, 'sixty-damaged.flrep');
  const b = fs.readFileSync(sixty());
  const offs = chunkOffsets(b);
  const at = offs[MIDDLE] + 36 + Math.floor((offs[MIDDLE + 1] - offs[MIDDLE] - 36) / 2);
  b[at] ^= 0x40;
  fs.writeFileSync(file, b);
  return file;
}

async function openFile(page, file) {
  await page.setInputFiles('#file-input', file);
  const name = path.basename(file);
  await page.waitForFunction(
    (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
    name,
  );
}

/** Plays at 4× from `from` s to the end, recording every time the clock showed and the text of
 *  every notice toast the page showed (they fade after 8 s). */
async function playThrough(page, from) {
  return page.evaluate(async (t) => {
    const p = window.__player;
    await p.seek(t);
    const toasts = [];
    new MutationObserver((list) => {
      for (const m of list)
        for (const n of m.addedNodes) if (n.classList?.contains('toast-notice')) toasts.push(n.textContent);
    }).observe(document.getElementById('toasts'), { childList: true });
    const seen = [];
    p.on('timeupdate', (v) => seen.push(v));
    const ended = new Promise((resolve) => p.on('ended', resolve));
    p.setSpeed(4);
    p.play();
    await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error('not ended')), 40_000))]);
    return { seen, toasts, time: p.currentTime, duration: p.duration, state: p.diagnostics.snapshot() };
  }, from);
}

/** Columns of the scrubber's screenshot holding the gap hatching's colour. */
async function hatchedColumns(page) {
  const png = await page.locator('#scrubber').screenshot({ path: path.join(OUT, 'damage-timeline.png') });
  const img = decodePng(png);
  const cols = [];
  for (let x = 0; x < img.width; x++) {
    let n = 0;
    for (let y = 0; y < img.height; y++) if (dist(img.at(x, y), [230, 180, 0]) < 40) n++;
    if (n >= 2) cols.push(x);
  }
  return { cols, width: img.width };
}

test('one damaged chunk costs only its seconds: 4× plays across it to the end; the gap is drawn, named and seeks land past it', {
  timeout: 120_000,
}, async () => {
  const file = damaged();
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await openFile(page, file);
    const run = await playThrough(page, 26);
    assert.equal(run.state.error, null, 'no "cannot be played" for one damaged chunk');
    assert.ok(run.time >= run.duration - 0.01, `played to the end (${run.time} of ${run.duration})`);
    assert.ok(
      run.seen.some((t) => t > 32.5),
      'the clock went past the gap',
    );
    assert.deepEqual(
      run.seen.filter((t) => t > 30 + 1e-6 && t < 32 - 1e-6),
      [],
      'the clock never stood inside the gap',
    );
    assert.ok(
      run.state.chunksHeld.some((c) => c > MIDDLE + 1),
      `frames after the gap: ${run.state.chunksHeld}`,
    );
    const gaps = await page.evaluate(() => window.__player.gaps);
    assert.equal(gaps.length, 1);
    assert.equal(gaps[0].cause, 'damaged');
    assert.ok(Math.abs(gaps[0].from - 30) < 0.02 && Math.abs(gaps[0].to - 32) < 0.02, JSON.stringify(gaps));
    assert.match(gaps[0].reason, /CRC|corrupt|zstd|checksum/i);
    // The notice, in words: its span and why.
    assert.deepEqual(run.toasts, ['Skipped 00:30.0–00:32.0: this part of the recording is damaged.']);
    // Drawn hatched on the timeline, where the gap is and nowhere else.
    const drawn = await page.evaluate(() => document.getElementById('scrubber').inspect().gaps);
    assert.equal(drawn.length, 1);
    const { cols, width } = await hatchedColumns(page);
    const x0 = Math.floor(drawn[0].x0);
    const x1 = Math.ceil(drawn[0].x1);
    const inside = cols.filter((x) => x >= x0 && x < x1).length;
    assert.ok(inside >= (x1 - x0) * 0.8, `hatched columns inside the gap: ${inside} of ${x1 - x0}`);
    assert.ok(
      cols.length - inside <= 2,
      `hatching only at the gap (${cols.length - inside} columns outside, width ${width})`,
    );
    // The reason on hover.
    const box = await page.locator('#scrubber').boundingBox();
    await page.mouse.move(box.x + (drawn[0].x0 + drawn[0].x1) / 2, box.y + box.height / 2);
    await page.locator('#scrub-tip').waitFor({ state: 'visible' });
    await page.screenshot({ path: path.join(OUT, 'damage-gap-tip.png') });
    assert.match(await page.locator('#scrub-tip').textContent(), /^Skipped 00:30\.0–00:32\.0: .*damaged \(.+\)\.$/);
    // A seek into the known gap lands at its end; paused there, the frame is the next chunk's.
    const landed = await page.evaluate(async () => {
      const p = window.__player;
      p.pause();
      const t = await p.seek(31);
      return { t, tick: p.tick, chunk: p.diagnostics.pieceAt(p.tick)?.chunk };
    });
    assert.ok(Math.abs(landed.t - 32) < 1e-6, `landed at ${landed.t}`);
    assert.equal(landed.chunk, MIDDLE + 1);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a seek into a damaged chunk not yet known lands at its end', { timeout: 60_000 }, async () => {
  const file = damaged();
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await openFile(page, file);
    const r = await page.evaluate(async () => {
      const p = window.__player;
      const before = p.gaps.length;
      const t = await p.seek(30.7);
      return { before, t, gaps: p.gaps.length, error: p.diagnostics.snapshot().error };
    });
    assert.equal(r.before, 0);
    assert.equal(r.gaps, 1);
    assert.equal(r.error, null);
    assert.ok(Math.abs(r.t - 32) < 1e-6, `landed at ${r.t}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

/**
 * Serves the 60 s recording with Range (and CORS) on another port; a request for the range that
 * starts at `failAt` is answered 503 `failures` times.
 */
async function flakyServer(file, failAt, failures) {
  const body = fs.readFileSync(file);
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  };
  const seen = { failed: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) {
      res.writeHead(200, { ...cors, 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const a = Number(m[1]);
    const b = Math.min(body.length - 1, Number(m[2]));
    if (a === failAt && seen.failed < failures) {
      seen.failed++;
      res.writeHead(503, { ...cors, 'Content-Type': 'text/plain' });
      res.end('busy');
      return;
    }
    res.writeHead(206, {
      ...cors,
      'Content-Type': 'application/octet-stream',
      'Content-Length': b - a + 1,
      'Content-Range': `bytes ${a}-${b}/${body.length}`,
    });
    res.end(body.subarray(a, b + 1));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/sixty.flrep`,
    seen,
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

test('over HTTP a chunk the server fails once is asked for again (no gap); one it always fails is a gap', {
  timeout: 180_000,
}, async () => {
  const file = sixty();
  const at = chunkOffsets(fs.readFileSync(file))[MIDDLE];
  // Once: retried.
  let srv = await flakyServer(file, at, 1);
  try {
    const { page, log } = await openPage(`?url=${encodeURIComponent(srv.url)}`);
    try {
      await waitReady(page);
      const run = await playThrough(page, 26);
      assert.equal(srv.seen.failed, 1, 'the server failed the range once');
      const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
      assert.ok(stats.retries >= 1, `asked for again (${stats.retries})`);
      assert.deepEqual(stats.gaps, []);
      assert.deepEqual(await page.evaluate(() => window.__player.gaps), []);
      assert.ok(run.time >= run.duration - 0.01);
      assert.ok(
        run.seen.some((t) => t > 30.2 && t < 31.8),
        'the clock went through the chunk it waited for',
      );
      log.assertClean([/503/]);
    } finally {
      await page.close();
    }
  } finally {
    srv.close();
  }
  // Always: a gap, said to be the server's.
  srv = await flakyServer(file, at, Infinity);
  try {
    const { page, log } = await openPage(`?url=${encodeURIComponent(srv.url)}`);
    try {
      await waitReady(page);
      const run = await playThrough(page, 26);
      assert.ok(srv.seen.failed >= 4, `asked four times at least (${srv.seen.failed})`);
      assert.equal(run.state.error, null);
      assert.ok(run.time >= run.duration - 0.01, 'played to the end');
      const gaps = await page.evaluate(() => window.__player.gaps);
      assert.equal(gaps.length, 1);
      assert.equal(gaps[0].cause, 'unread');
      assert.deepEqual(run.toasts, [
        'Skipped 00:30.0–00:32.0: the server did not send this part of the recording (the server answered 503 Service Unavailable).',
      ]);
      log.assertClean([/503/]);
    } finally {
      await page.close();
    }
  } finally {
    srv.close();
  }
});

test('a recording cut short: the kill markers and the kill feed fill in from the background scan; the page says it was cut', {
  timeout: 120_000,
}, async () => {
  const src = fixture('cut-src', { seconds: 120, entities: 200 });
  const file = path.join(OUT, 'cut-60.flrep');
  const b = fs.readFileSync(src);
  fs.writeFileSync(file, b.subarray(0, Math.floor(b.length * 0.6)));
  const expected = killCount(file);
  assert.ok(expected > 20, `kills in what remains (${expected})`);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await openFile(page, file);
    const open = await page.evaluate(() => ({
      markers: window.__player.info.markers.length,
      complete: window.__player.info.markersComplete,
    }));
    assert.deepEqual(open, { markers: 0, complete: false }, 'no index: no kills known at open');
    await page.waitForFunction(() => window.__player.scan?.complete, null, { timeout: 60_000 });
    const s = await page.evaluate(() => ({
      kills: window.__player.kills.length,
      scan: window.__player.scan,
      markers: document.getElementById('scrub-markers').inspect().kills.length,
    }));
    assert.equal(s.kills, expected, 'every kill of the chunks that remain');
    assert.equal(s.scan.kills, expected);
    assert.equal(s.markers, expected, 'one marker each');
    await page.locator('#killfeed li').first().waitFor();
    assert.equal(Number(await page.locator('#killfeed li').first().getAttribute('aria-setsize')), expected);
    // The scan keeps nothing once done (its decoder freed, no chunk cached for it).
    const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
    assert.equal(stats.scan.complete, true);
    assert.equal(stats.scan.done, stats.scan.total);
    // The page says it was cut, where it is seen.
    const banner = page.locator('.rec-banner');
    assert.equal(await banner.isVisible(), true);
    assert.match(
      await banner.textContent(),
      new RegExp(
        `^This recording was cut short: it ends at \\d\\d:\\d\\d\\.\\d, and it has no index\\. ${expected} kills found in what remains\\.`,
      ),
    );
    await page.screenshot({ path: path.join(OUT, 'damage-cut.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a server without CORS headers: the message names the server and the header it must send', {
  timeout: 60_000,
}, async () => {
  const body = fs.readFileSync(sixty());
  const server = http.createServer((_req, res) => {
    // No Access-Control-* header at all (the page is on another origin).
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${server.address().port}`;
  try {
    const { page } = await openPage(`?url=${encodeURIComponent(`${origin}/sixty.flrep`)}`);
    try {
      await page.waitForSelector('#error:not([hidden])');
      assert.equal(
        await page.locator('#error-text').textContent(),
        `The server at ${origin} did not allow this page to read the file: it must send Access-Control-Allow-Origin (and, for seeking, Access-Control-Expose-Headers: Content-Range)`,
      );
    } finally {
      await page.close();
    }
  } finally {
    server.closeAllConnections?.();
    server.close();
  }
});
