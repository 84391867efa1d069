// Share links on the full page end to end in headless Chromium: a link built by the Share dialog
// opens another page at the same tick, following the same entity, in the same camera mode and view
// (the two canvases compared); `end` stops and `loop=1` loops; spoilers=0 shows no kill ahead of
// the playhead anywhere in the DOM or on the timeline's marker canvas; a link's bad values are
// notices, never errors; a file from the disk gets the time-only parameters; I / O, the timeline's
// handles and Copy (docs/embedding.md "Share links", "Spoiler-safe"; docs/playback.md "Share").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole } from './harness.mjs';
import {
  OUT,
  DEMO,
  waitReady,
  canvasShot,
  fractionDifferent,
  assertPicture,
  decodePng,
  settle,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
const KILL_RGB = [0xff, 0x6b, 0x5b]; // --ev-kill (style.css), the kill markers' colour
const CLIP_RGB = [0xa3, 0xe6, 0x35]; // --clip, the clip band's edges and handles
let srv;
let browser;

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  srv = await startServer(); // dist/ at the root: the page's folder is the server's root
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

/** A page of the player; `ended` events are counted in window.__ended (from the first one). */
async function openPage(query = '') {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.addInitScript(() => {
    let p;
    window.__ended = 0;
    Object.defineProperty(window, '__player', {
      configurable: true,
      get: () => p,
      set: (v) => {
        p = v;
        v.on('ended', () => window.__ended++);
      },
    });
  });
  await page.goto(`${srv.url}${query}`, { waitUntil: 'load' });
  return { page, log };
}

/** Opens the Share dialog and waits for its texts (the camera pose is asked of the renderer). */
async function openShare(page, { withView = false } = {}) {
  await page.click('#share-open');
  await page.waitForSelector('dialog#share[open]');
  if (withView && !(await page.isChecked('#share-view'))) await page.check('#share-view');
  await page.evaluate(() => document.getElementById('share').refresh());
}

/** The view an opener must reproduce: the clock, what is followed, the camera and its pose. */
const viewOf = (page) =>
  page.evaluate(async () => {
    const p = window.__player;
    return { state: p.getState(), pose: await p.cameraPose() };
  });

/** Both pages at rest on the same frame: no trails from how each got there (the picture only). */
async function still(page) {
  await page.evaluate(() => window.__player.diagnostics.clearTrails());
  await settle(page, 6);
}

test('a link from the Share dialog opens another page at that tick, following that entity, in that mode, with the same view', {
  timeout: 240_000,
}, async (t) => {
  const { page: sharer, log: sharerLog } = await openPage();
  let opener;
  let openerLog;
  try {
    await waitReady(sharer);
    await sharer.evaluate(() => window.__player.seekTick(2400)); // 40 s
    // Follow someone from the roster, then the Follow camera, then orbit and zoom it by pointer.
    const row = sharer.locator('#roster li[data-entity] button').nth(2);
    await row.click();
    const followed = await sharer.evaluate(() => window.__player.followed);
    assert.ok(followed >= 0, 'the roster row followed its entity');
    await sharer.click('#camera-modes button[data-mode="follow"]');
    await still(sharer);
    const before = await canvasShot(sharer, path.join(SHOTS, 'share-sharer-before.png'));
    const box = await sharer.locator('canvas.rp-canvas').boundingBox();
    await sharer.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await sharer.mouse.down();
    await sharer.mouse.move(box.x + box.width / 2 + 180, box.y + box.height / 2 - 60, { steps: 8 });
    await sharer.mouse.up();
    await sharer.mouse.wheel(0, -600);
    await still(sharer);
    await openShare(sharer, { withView: true });
    const link = await sharer.inputValue('#share-link');
    const want = await viewOf(sharer);
    await sharer.keyboard.press('Escape');
    await still(sharer);
    const a = await canvasShot(sharer, path.join(SHOTS, 'share-sharer.png'));
    assertPicture(a, 'the sharer');
    assert.ok(
      fractionDifferent(before.img, a.img) > 0.01,
      'orbiting and zooming changed the picture (the comparison below can tell views apart)',
    );

    const q = new URL(link);
    assert.equal(q.origin + q.pathname, srv.url, 'the link is to the page, in its own folder');
    assert.equal(q.searchParams.get('url'), 'demo/demo.flrep', 'the replay, relative to the page');
    assert.equal(q.searchParams.get('t'), '40');
    assert.equal(q.searchParams.get('camera'), 'follow');
    assert.equal(q.searchParams.get('follow'), want.state.follow);
    assert.equal(q.searchParams.get('view').split(',').length, 3, 'a follow pose: yaw, pitch, distance');

    ({ page: opener, log: openerLog } = await openPage(link.slice(srv.url.length)));
    await waitReady(opener);
    await opener.waitForFunction(() => window.__player.diagnostics.snapshot().firstFrameShown);
    await still(opener);
    const got = await viewOf(opener);
    assert.equal(got.state.tick, 2400);
    assert.equal(got.state.tick, want.state.tick);
    assert.ok(Math.abs(got.state.time - want.state.time) < 1e-3);
    assert.equal(got.state.camera, 'follow');
    assert.equal(got.state.follow, want.state.follow);
    assert.equal(got.state.playing, false);
    assert.equal(got.pose.length, want.pose.length);
    for (const [i, v] of got.pose.entries())
      assert.ok(
        Math.abs(v - want.pose[i]) <= 1e-4 * Math.max(1, Math.abs(want.pose[i])),
        `pose[${i}] ${v} ≈ ${want.pose[i]}`,
      );
    // The page shows what the link set: the Follow button, the followed entity in the roster and
    // the inspector.
    assert.equal(await opener.getAttribute('#camera-modes button[data-mode="follow"]', 'aria-checked'), 'true');
    assert.equal(await opener.getAttribute('#inspector', 'data-entity'), String(followed));
    await opener.waitForSelector(`#roster li.selected[data-entity="${followed}"]`);
    const b = await canvasShot(opener, path.join(SHOTS, 'share-opener.png'));
    assertPicture(b, 'the opener');
    const diff = fractionDifferent(a.img, b.img);
    t.diagnostic(`${link}: ${(diff * 100).toFixed(3)} % of the canvas differs (without the view: ~14 %)`);
    assert.ok(diff < 0.005, `the opener's canvas shows the sharer's picture (${(diff * 100).toFixed(2)} % differ)`);
    assert.deepEqual(await opener.evaluate(() => window.__player.notices), []);
    sharerLog.assertClean();
    openerLog.assertClean();
  } finally {
    await sharer.close();
    await opener?.close();
  }
});

test('every camera mode from a link, with its pose; t as m:ss; the mode buttons show it', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openPage('?url=demo/demo.flrep&t=0:42.5');
  try {
    await waitReady(page);
    assert.equal(await page.evaluate(() => window.__player.currentTime), 42.5, 't=0:42.5 is 42.5 s');
    const open = (q) =>
      page.evaluate(async (query) => {
        const p = window.__player;
        await p.load('demo/demo.flrep', new URLSearchParams(query));
        for (let i = 0; i < 600 && !(p.diagnostics.snapshot().ready && p.diagnostics.snapshot().firstFrameShown); i++)
          await new Promise((r) => setTimeout(r, 50));
        for (let i = 0; i < 4; i++) await new Promise(requestAnimationFrame);
        return {
          mode: p.cameraMode(),
          pose: await p.cameraPose(),
          follow: p.getState().follow,
          checked: document.querySelector('#camera-modes button[aria-checked="true"]')?.dataset.mode,
          notices: p.notices,
        };
      }, q);
    const orbit = await open('t=30&camera=orbit&view=100,-200,300,0.5,0.4,2500');
    assert.equal(orbit.mode, 'orbit');
    assert.equal(orbit.checked, 'orbit');
    assert.deepEqual(orbit.pose, [100, -200, 300, 0.5, 0.4, 2500]);
    const free = await open('t=30&camera=free&view=10,20,3000,1.25,-0.3');
    assert.equal(free.mode, 'free');
    assert.equal(free.checked, 'free');
    assert.deepEqual(free.pose, [10, 20, 3000, 1.25, -0.3]);
    const first = await open('t=30&camera=first&follow=Viper&view=0.2,-0.1');
    assert.equal(first.mode, 'first');
    assert.equal(first.checked, 'first');
    assert.equal(first.follow, 'Viper');
    assert.deepEqual(first.pose, [0.2, -0.1]);
    const kill = await open('t=44&camera=kill');
    assert.equal(kill.mode, 'kill');
    assert.equal(kill.checked, 'kill');
    assert.equal(await page.locator('#killcam-badge').isVisible(), true, 'the kill cam runs');
    for (const r of [orbit, free, first, kill]) assert.deepEqual(r.notices, []);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('end stops playback there (paused, `ended`); play again plays the clip again; loop=1 goes back to t', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage('?url=demo/demo.flrep&t=10&end=11.5&autoplay=1&speed=2');
  try {
    await waitReady(page);
    assert.equal(await page.inputValue('#speed'), '2', "the speed select shows the link's speed");
    await page.waitForFunction(() => window.__ended > 0, null, { timeout: 30_000 });
    await page.waitForTimeout(300);
    const s = await page.evaluate(() => ({
      ...window.__player.getState(),
      ended: window.__player.ended,
      n: window.__ended,
    }));
    assert.equal(s.playing, false);
    assert.equal(s.time, 11.5, 'paused on the clip end');
    assert.equal(s.ended, true);
    assert.equal(s.n, 1, 'ended once');
    assert.deepEqual(await page.evaluate(() => window.__player.clip), { start: 10, end: 11.5, loop: false });
    // Play again: from the clip's start, not on past its end.
    await page.click('#play');
    await page.waitForFunction(() => window.__player.playing && window.__player.currentTime < 11.4);
    await page.waitForFunction(() => window.__ended > 1, null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => window.__player.currentTime), 11.5);
    log.assertClean();
  } finally {
    await page.close();
  }
  const { page: lp, log: llog } = await openPage(
    '?url=demo/demo.flrep&t=tick:600&end=tick:690&loop=1&autoplay=1&speed=2',
  );
  try {
    await waitReady(lp);
    // Watch the clock: it passes 11.4 s, then comes back near 10 s, still playing.
    await lp.evaluate(() => {
      window.__loop = { high: false, back: false };
      window.__player.on('timeupdate', (t) => {
        if (t > 11.4) window.__loop.high = true;
        else if (window.__loop.high && t < 10.6) window.__loop.back = true;
      });
    });
    await lp.waitForFunction(() => window.__loop.back, null, { timeout: 30_000 });
    const s = await lp.evaluate(() => ({
      playing: window.__player.playing,
      t: window.__player.currentTime,
      n: window.__ended,
    }));
    assert.equal(s.playing, true, 'a loop goes on playing');
    assert.ok(s.t >= 10 && s.t < 11.5, `within the clip (${s.t})`);
    assert.equal(s.n, 0, 'a loop never ends');
    llog.assertClean();
  } finally {
    await lp.close();
  }
});

/** Pixels of the marker canvas near the kill colour, by column (device px) → count. */
const killColumns = (page) =>
  page.evaluate((rgb) => {
    const c = document.getElementById('scrub-markers');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const cols = {};
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] < 128) continue;
      if (Math.abs(d[i] - rgb[0]) + Math.abs(d[i + 1] - rgb[1]) + Math.abs(d[i + 2] - rgb[2]) > 40) continue;
      const x = (i / 4) % c.width;
      cols[x] = (cols[x] ?? 0) + 1;
    }
    return { cols, width: c.width, cssWidth: c.clientWidth };
  }, KILL_RGB);

/** Everything the page shows as text or in attributes (not the canvas). */
const pageText = (page) => page.evaluate(() => document.documentElement.outerHTML);

test('spoilers=0: no kill ahead of the playhead in the DOM or on the timeline canvas, no length; they show once played past', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openPage('?url=demo/demo.flrep&t=60&spoilers=0');
  try {
    await waitReady(page);
    await settle(page, 4);
    // What the recording holds (the open's markers: every kill, from the file's index).
    const all = await page.evaluate(() => {
      const p = window.__player;
      return p.info.markers
        .filter((m) => m.kind === 'kill')
        .map((k) => ({ tick: k.tick, time: p.killTime(k), text: p.killText(k) }));
    });
    const t0 = 60;
    const future = all.filter((k) => k.time > t0);
    const past = all.filter((k) => k.time <= t0);
    assert.ok(
      past.length >= 3 && future.length >= 10,
      `kills on both sides of 60 s (${past.length} / ${future.length})`,
    );
    const check = async (until, when) => {
      const s = await page.evaluate(() => ({
        kills: window.__player.kills.length,
        rows: [...document.querySelectorAll('#killfeed li[data-tick]')].map((li) => Number(li.dataset.tick)),
        count: document.getElementById('kill-count').textContent,
        legend: document.querySelector('.legend-item[data-kind="kill"] .legend-count')?.textContent,
        duration: document.getElementById('duration').textContent,
        max: document.getElementById('scrubber').getAttribute('aria-valuemax'),
        state: window.__player.getState(),
      }));
      const seen = all.filter((k) => k.time <= until);
      assert.equal(s.kills, seen.length, `${when}: the handle's kills`);
      assert.ok(
        s.rows.every((t) => t <= seen.at(-1).tick),
        `${when}: no kill feed row ahead (${s.rows.join(',')})`,
      );
      assert.equal(s.count, String(seen.length), `${when}: the kill count`);
      assert.equal(s.legend, String(seen.length), `${when}: the legend's count`);
      assert.equal(s.duration, '--:--', `${when}: no duration`);
      assert.equal(s.state.duration, null, `${when}: getState() without the duration`);
      assert.notEqual(Number(s.max), 119.98, `${when}: the slider's maximum is not the length`);
      const html = await pageText(page);
      for (const k of all.filter((x) => x.time > until)) {
        assert.ok(!html.includes(k.text), `${when}: "${k.text}" (at ${k.time.toFixed(1)} s) is nowhere in the page`);
        assert.ok(!html.includes(`data-tick="${k.tick}"`), `${when}: no element for the kill at tick ${k.tick}`);
      }
      for (const len of ['01:59.9', '119.98', '120.0s', '2 min', '7,200'])
        assert.ok(!html.includes(len), `${when}: the length (${len}) is nowhere in the page`);
      // The marker canvas: kill bars left of the playhead only (the bar spans the horizon).
      const { cols, width } = await killColumns(page);
      const span = await page.evaluate(() => document.getElementById('scrubber').inspect().span);
      const playX = (until / span) * width;
      const xs = Object.keys(cols).map(Number);
      assert.ok(xs.length > 0, `${when}: the kills reached are drawn`);
      assert.ok(
        xs.every((x) => x <= playX + 3),
        `${when}: no kill colour right of the playhead's x ${playX.toFixed(0)} (${xs.filter((x) => x > playX + 3).join(',')})`,
      );
      return { xs, playX };
    };
    const first = await check(t0, 'opened at 60 s');
    await page.screenshot({ path: path.join(SHOTS, 'share-spoilers-60.png') });
    // Play past some of them: they show, and still nothing beyond.
    await page.evaluate(() => {
      window.__player.setSpeed(4);
      window.__player.play();
    });
    await page.waitForFunction(() => window.__player.currentTime > 76, null, { timeout: 30_000 });
    await page.evaluate(() => window.__player.pause());
    await settle(page, 6);
    const t1 = await page.evaluate(() => window.__player.revealedUntil);
    assert.ok(
      all.some((k) => k.time > t0 && k.time <= t1),
      'kills between 60 s and where it stopped',
    );
    const later = await check(t1, `played to ${t1.toFixed(1)} s`);
    assert.ok(
      later.xs.some((x) => x > first.playX + 3),
      'the kills played past are drawn right of where the playhead was',
    );
    assert.ok((await page.locator('#killfeed li[data-tick]').count()) > 0, 'the kill feed shows the kills reached');
    await page.screenshot({ path: path.join(SHOTS, 'share-spoilers-played.png') });
    // The end reached (End): the length shows.
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.getElementById('duration').textContent === '01:59.9');
    assert.equal((await page.evaluate(() => window.__player.getState())).duration > 119, true);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a link's malformed and unknown values are notices (toasts), never errors; a follow that names nobody says so", {
  timeout: 120_000,
}, async () => {
  const q =
    '?url=demo/demo.flrep&t=abc&end=tick:x&follow=Nobody&camera=zoom&speed=3&view=1,2&loop=maybe&spoilers=perhaps&bogus=1&t2=%3Cscript%3E';
  const { page, log } = await openPage(q);
  try {
    await waitReady(page);
    await page.waitForFunction(() => window.__player.notices.some((n) => n.includes('Nobody')));
    await page.waitForFunction(() => window.__player.notices.some((n) => n.startsWith('Ignored view=')));
    const { notices, toasts } = await page.evaluate(() => ({
      notices: window.__player.notices,
      toasts: [...document.querySelectorAll('.toast-notice')].map((t) => t.textContent),
    }));
    for (const re of [
      /^Ignored t=abc: /,
      /^Ignored end=tick:x: /,
      /^Ignored camera=zoom: use one of orbit, free, follow, first, kill\.$/,
      /^Ignored speed=3: /,
      /^Ignored loop=maybe: /,
      /^Ignored spoilers=perhaps: /,
      /^Ignored the unknown parameter "bogus"\.$/,
      /^Ignored the unknown parameter "t2"\.$/,
      /^Nobody called "Nobody" is in this recording/,
      /^Ignored view=1,2: the orbit camera's view has 6 numbers\.$/,
    ])
      assert.ok(
        notices.some((n) => re.test(n)),
        `a notice ${re} (got ${JSON.stringify(notices)})`,
      );
    // Shown as toasts (at most 4 at once: the latest), as text.
    assert.ok(toasts.length >= 1 && toasts.every((t) => notices.includes(t)), JSON.stringify(toasts));
    assert.equal(await page.locator('.toast script').count(), 0);
    // The page still plays: the defaults stood in for what was ignored.
    const s = await page.evaluate(() => window.__player.getState());
    assert.equal(s.time, 0);
    assert.equal(s.speed, 1);
    assert.equal(s.camera, 'orbit');
    assert.equal(s.follow, null);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a file from the disk: the dialog says it cannot be linked and offers the time-only parameters', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', DEMO);
    await page.waitForFunction(() => {
      const s = window.__player.diagnostics.snapshot();
      return s.name === 'demo.flrep' && s.ready;
    });
    assert.equal(await page.evaluate(() => window.__player.url), '', 'a file has no address');
    await page.evaluate(() => window.__player.seek(42.5));
    await openShare(page);
    const disk = page.locator('#share-disk');
    assert.equal(await disk.isVisible(), true);
    assert.match(await disk.textContent(), /opened from your computer, so no link can open it/);
    assert.equal(await page.inputValue('#share-link'), '?t=42.5');
    assert.equal(await page.locator('#share-iframe').isVisible(), false, 'no embed snippets without an address');
    await page.check('#share-spoilers');
    await page.evaluate(() => document.getElementById('share').refresh());
    assert.equal(await page.inputValue('#share-link'), '?t=42.5&spoilers=0');
    await page.screenshot({ path: path.join(SHOTS, 'share-disk.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** The scrubber's pixels (a screenshot of it) and its box. */
async function scrubberShot(page, file) {
  const el = page.locator('#scrubber');
  const png = await el.screenshot({ path: file });
  return { img: decodePng(png), box: await el.boundingBox() };
}
/** Columns (CSS px of the scrubber) where the clip colour shows. */
function clipColumns({ img }) {
  const xs = new Set();
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++) {
      const [r, g, b] = img.at(x, y);
      if (Math.abs(r - CLIP_RGB[0]) + Math.abs(g - CLIP_RGB[1]) + Math.abs(b - CLIP_RGB[2]) < 30) xs.add(x);
    }
  return [...xs].sort((a, b) => a - b);
}

test('I / O and the timeline handles set the clip; the band is drawn; the clip stops playback; Copy copies or selects', {
  timeout: 180_000,
}, async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.url.replace(/\/$/, '') });
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const none = clipColumns(await scrubberShot(page, path.join(SHOTS, 'share-clip-none.png')));
    assert.deepEqual(none, [], 'no clip colour before a clip');
    await page.evaluate(() => window.__player.seek(20));
    await page.keyboard.press('i');
    await page.evaluate(() => window.__player.seek(50));
    await page.keyboard.press('o');
    await page.waitForFunction(() => window.__player.clip?.end === 50);
    assert.deepEqual(await page.evaluate(() => window.__player.clip), { start: 20, end: 50, loop: false });
    await settle(page, 3);
    const shot = await scrubberShot(page, path.join(SHOTS, 'share-clip-band.png'));
    const d = await page.evaluate(() => window.__player.duration);
    const x = (t) => (t / d) * shot.box.width;
    const cols = clipColumns(shot);
    assert.ok(cols.length > 20, `the band is drawn (${cols.length} columns)`);
    assert.ok(cols[0] >= x(20) - 6 && cols.at(-1) <= x(50) + 6, `between in and out (${cols[0]}–${cols.at(-1)})`);
    assert.ok(cols[0] <= x(20) + 6 && cols.at(-1) >= x(50) - 6, 'from in to out');
    // Drag the out handle to 80 s: the clip follows the pointer, the picture the handle.
    const out = await page.locator('.clip-out').boundingBox();
    await page.mouse.move(out.x + out.width / 2, out.y + out.height / 2);
    await page.mouse.down();
    await page.mouse.move(shot.box.x + x(80), out.y + out.height / 2, { steps: 6 });
    await page.mouse.up();
    const clip = await page.evaluate(() => window.__player.clip);
    assert.equal(clip.start, 20);
    assert.ok(Math.abs(clip.end - 80) < 0.5, `dragged to 80 s (${clip.end})`);
    await page.waitForFunction((e) => Math.abs(window.__player.currentTime - e) < 1e-6, clip.end);
    const dragged = clipColumns(await scrubberShot(page, path.join(SHOTS, 'share-clip-dragged.png')));
    assert.ok(dragged.at(-1) >= x(80) - 6 && dragged.at(-1) <= x(80) + 6, 'the band reaches the new out point');
    // The in handle by keyboard: ← moves it 5 s back (the page's ← does not seek meanwhile).
    await page.focus('.clip-in');
    await page.keyboard.press('ArrowLeft');
    assert.equal((await page.evaluate(() => window.__player.clip)).start, 15);
    await page.waitForFunction(() => window.__player.currentTime === 15, null, { timeout: 10_000 });
    // The clip plays and stops at its out point.
    await page.evaluate(() => window.__player.seek(window.__player.clip.end - 0.4));
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => window.__ended > 0, null, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => window.__player.currentTime), clip.end);

    // The dialog: keyboard in, Esc out, focus back on the Share button (and the selection kept:
    // the page's Esc would clear it).
    const sel = await page.evaluate(() => {
      const p = window.__player;
      p.select(p.info.info.participants[0].entity);
      return p.selected;
    });
    assert.ok(sel >= 0);
    await openShare(page);
    assert.match(await page.textContent('#share-in'), /00:15\.0/);
    const clipLink = new URL(await page.inputValue('#share-clip-link'));
    assert.equal(clipLink.searchParams.get('t'), '15');
    // To the millisecond, on the same tick (60 Hz) as the out point.
    const end = Number(clipLink.searchParams.get('end'));
    const tick = (t) => Math.floor(t * 60 + 1e-6);
    assert.ok(Math.abs(end - clip.end) <= 1e-3 && tick(end) === tick(clip.end), `end=${end} for ${clip.end}`);
    await page.check('#share-loop');
    await page.evaluate(() => document.getElementById('share').refresh());
    assert.equal(new URL(await page.inputValue('#share-clip-link')).searchParams.get('loop'), '1');
    assert.equal((await page.evaluate(() => window.__player.clip)).loop, true, "the dialog's loop is the player's");
    const iframe = await page.inputValue('#share-iframe');
    assert.match(
      iframe,
      /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\.html\?url=demo%2Fdemo\.flrep&amp;t=15&amp;end=/,
    );
    assert.match(
      await page.inputValue('#share-script'),
      /import \{ create \} from "http:\/\/127\.0\.0\.1:\d+\/player\.js";/,
    );
    assert.match(
      await page.inputValue('#share-element'),
      /<replay-player src="http:\/\/127\.0\.0\.1:\d+\/demo\/demo\.flrep" t="15"/,
    );
    // Copy: onto the clipboard.
    await page.click('button.share-copy[data-for="share-link"]');
    await page.waitForFunction(() => document.querySelector('.share-status').textContent.startsWith('Copied'));
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.inputValue('#share-link'));
    // Where the page may not write the clipboard: the text is selected for Ctrl+C.
    await page.evaluate(() => {
      navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
    });
    await page.click('button.share-copy[data-for="share-iframe"]');
    await page.waitForFunction(() => document.querySelector('.share-status').textContent.startsWith('Selected'));
    const selected = await page.evaluate(() => {
      const f = document.activeElement;
      return { id: f.id, all: f.selectionStart === 0 && f.selectionEnd === f.value.length };
    });
    assert.deepEqual(selected, { id: 'share-iframe', all: true });
    // Keys inside the dialog are the dialog's: Tab moves, Space on a button does not play.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    assert.equal(await page.evaluate(() => window.__player.playing), false);
    await page.screenshot({ path: path.join(SHOTS, 'share-dialog-clip.png') });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.getElementById('share').open);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'share-open', 'focus back on Share');
    assert.equal(await page.evaluate(() => window.__player.selected), sel, 'Esc closed the dialog only');
    // Clear (the dialog's Clear).
    await page.click('#share-open');
    await page.click('#share-clear');
    await page.waitForFunction(() => document.querySelector('.clip-band').hidden);
    log.assertClean();
  } finally {
    await page.close();
  }
});
