// The three embed forms end to end in headless Chromium (docs/embedding.md), each the way a site
// uses it: a host page on one origin (A) embeds the player served from a second (B: a CDN, the
// packed tarball's files laid out as jsDelivr and unpkg serve a package,
// /npm/replay-player@VERSION/dist/player.js, with CORS *), which reads the replay from a third
// (C: CORS + Range), under the host's strict CSP
// (the lines docs/embedding.md gives, nothing more). Three servers on three loopback ports are
// three origins. Canvas pixels are checked, the console must stay clean, and no CSP violation may
// be reported (the `securitypolicyviolation` events of every frame, and the console's CSP lines).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { startServer, launchBrowser, collectConsole, ROOT, WWW, expectedBackend, replayBinPath } from './harness.mjs';
import { OUT, DEMO, decodePng, replayCli, assertDrawn as assertDrawnAt } from './player-helpers.mjs';
import { writeHosts } from './embed-hosts.mjs';

const SHOTS = path.join(OUT, 'screenshots');
const HOST_DIR = path.join(OUT, 'embed-host');
const origin = (srv) => srv.url.slice(0, -1);

let browser;
/** B: the player (the package at B's /npm/NAME@VERSION/); C: the replays; A: the host pages, one server per CSP. */
let B;
/** Where the player is: B's /npm/NAME@VERSION/dist/. */
let PLAYER;
/** The CDN's folder (removed after). */
let cdnDir;
let C;
let frameHost;
let scriptHost;
/** The host servers' headers (read per response: a test may change the CSP). */
const hostHeaders = { frame: {}, script: {} };
/** The player server's headers (the same: the live test lets embed.html connect to a third origin). */
const playerHeaders = { 'Access-Control-Allow-Origin': '*' };
/** Every request the replay server got: { url, range }. */
const replayRequests = [];
/** The CSP lines of docs/embedding.md ("CSP"), for origins b (the player) and c (the replays). */
export const CSP = {
  iframe: (b) => `default-src 'none'; script-src 'self'; frame-src ${b}`,
  script: (b, c) =>
    `default-src 'none'; script-src 'self' ${b} 'wasm-unsafe-eval'; worker-src blob: ${b}; connect-src ${b} ${c}; style-src ${b}`,
};

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  writeHosts(HOST_DIR, path.join(WWW, 'favicon.svg'));
  // Headers objects are read per response: the CSPs are filled in once every port is known.
  const frameHeaders = hostHeaders.frame;
  const scriptHeaders = hostHeaders.script;
  // The CDN: `npm pack` of this tree (dist/ built by the run) unpacked at /npm/NAME@VERSION/.
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const cdn = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-cdn-'));
  const at = path.join(cdn, 'npm', `${pkg.name}@${pkg.version}`);
  fs.mkdirSync(at, { recursive: true });
  const packed = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', cdn], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: path.join(cdn, 'npm-cache'), npm_config_update_notifier: 'false' },
  });
  assert.equal(packed.status, 0, `npm pack: ${packed.stderr}`);
  const tarball = path.join(cdn, JSON.parse(packed.stdout)[0].filename);
  const untar = spawnSync('tar', ['-xzf', tarball, '--strip-components=1', '-C', at], { encoding: 'utf8' });
  assert.equal(untar.status, 0, `tar: ${untar.stderr}`);
  cdnDir = cdn;
  B = await startServer({ root: cdn, headers: playerHeaders });
  PLAYER = `${B.url}npm/${pkg.name}@${pkg.version}/dist/`;
  C = await startServer({
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
    },
  });
  C.server.on('request', (req) => replayRequests.push({ url: req.url, range: req.headers.range ?? '' }));
  frameHost = await startServer({ root: HOST_DIR, headers: frameHeaders });
  scriptHost = await startServer({ root: HOST_DIR, headers: scriptHeaders });
  frameHeaders['Content-Security-Policy'] = CSP.iframe(origin(B));
  scriptHeaders['Content-Security-Policy'] = CSP.script(origin(B), origin(C));
  // embed.html under the player's own strict CSP (docs/embedding.md "CSP"; its workers get it too:
  // same origin as it; img-src: its icon).
  playerHeaders['Content-Security-Policy'] =
    `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self' ${origin(C)}; ` +
    `style-src 'self'; img-src 'self'; frame-ancestors ${origin(frameHost)}`;
  browser = await launchBrowser({ webgpu: true });
  // Every frame records the CSP violations it sees, and the page's animation frames and timers
  // (after dispose() none may be asked for).
  await browser.context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
    const count = { raf: 0, timers: 0 };
    window.__count = count;
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (f) => {
      count.raf++;
      return raf(f);
    };
    const st = window.setTimeout.bind(window);
    window.setTimeout = (...a) => {
      count.timers++;
      return st(...a);
    };
    const si = window.setInterval.bind(window);
    window.setInterval = (...a) => {
      count.timers++;
      return si(...a);
    };
  });
});

after(async () => {
  await browser?.close();
  for (const s of [B, C, frameHost, scriptHost]) await s?.close();
  if (cdnDir) fs.rmSync(cdnDir, { recursive: true, force: true });
});

async function openHost(host, file, extra = '') {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(`${host.url}${file}?player=${PLAYER}&replays=${C.url}${extra}`, { waitUntil: 'load' });
  return { page, log };
}

/** No CSP violation in any frame of `page`, nor a CSP message in its (or its workers') console. */
async function assertNoCsp(page, log) {
  for (const f of page.frames()) {
    const v = await f.evaluate(() => window.__csp ?? []);
    assert.deepEqual(v, [], `CSP violations in ${f.url()}`);
  }
  const lines = log.messages.filter((m) => /Content Security Policy/i.test(m));
  assert.deepEqual(lines, [], 'CSP messages in the console');
}

/** The embed's picture is drawn; its bottom `skip` px (the compact controls) left out. */
const assertDrawn = (img, when, skip = 60) => assertDrawnAt(img, when, skip);

/** Whether `img` shows both factions (assertDrawn's test, without asserting). */
function drawn(img, skip = 0) {
  try {
    assertDrawn(img, '', skip);
    return true;
  } catch {
    return false;
  }
}

async function shot(locator, name) {
  return decodePng(await locator.screenshot({ path: path.join(SHOTS, name) }));
}

/** Waits until `fn()` (evaluated in `where`) is truthy; returns its value. (Polled by a timer:
 *  the host's CSP has no 'unsafe-eval', and the page's animation frames are counted.) */
async function until(where, fn, arg, timeout = 30_000) {
  const h = await where.waitForFunction(fn, arg, { timeout, polling: 50 });
  return h.jsonValue();
}

// The events the host page got from its frames (iframe.js: {frame, origin, event, data, id}) that
// match `m`: its frame, event, id, and a `data.time` after `after`. (The matcher is written out in
// each: page functions travel as their source, and the host's CSP allows no eval.)
const hostEvents = (page, m) =>
  page.evaluate(
    (m) =>
      window.__host.events.filter(
        (e) =>
          (m.frame === undefined || e.frame === m.frame) &&
          (m.event === undefined || e.event === m.event) &&
          (m.id === undefined || e.id === m.id) &&
          (m.after === undefined || e.data?.time > m.after),
      ),
    m,
  );
/** Waits for the first host event that matches `m`. */
const hostEvent = (page, m, timeout) =>
  until(
    page,
    (m) =>
      window.__host.events.find(
        (e) =>
          (m.frame === undefined || e.frame === m.frame) &&
          (m.event === undefined || e.event === m.event) &&
          (m.id === undefined || e.id === m.id) &&
          (m.after === undefined || e.data?.time > m.after),
      ) ?? null,
    m,
    timeout,
  );

test('iframe: embed.html from another origin, driven only through postMessage under the host page strict CSP', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openHost(frameHost, 'iframe.html');
  try {
    await page.evaluate((a) => window.__host.frame('main', `origin=${encodeURIComponent(a)}`), origin(frameHost));
    const events = (m) => hostEvents(page, m);
    const wait = (m) => hostEvent(page, m);
    const ready = await wait({ event: 'ready' });
    assert.equal(ready.origin, origin(B), 'events come from the player origin');
    assert.ok(ready.data.duration > 100, 'ready carries the state');
    // seek → the state at that time (answered with the command's id).
    await page.evaluate(() => window.__host.send('main', 'seek', { time: 30 }, 's1'));
    const s1 = await wait({ id: 's1' });
    assert.equal(s1.event, 'state');
    assert.ok(Math.abs(s1.data.time - 30) < 1e-6, `the state at the seek's time: ${s1.data.time}`);
    assert.equal(s1.data.playing, false);
    assert.ok((await events({ event: 'seeked' })).length >= 1, 'a seeked event');
    const frame = page.locator('iframe');
    assertDrawn(await shot(frame, 'embed-iframe-30s.png'), 'iframe at 30 s');
    // play → timeupdates advance (at most 4 a second) → pause.
    await page.evaluate(() => window.__host.send('main', 'play', {}, 'p1'));
    assert.equal((await wait({ id: 'p1' })).data.playing, true);
    await wait({ event: 'timeupdate', after: 31.2 });
    await page.evaluate(() => window.__host.send('main', 'pause', {}, 'q1'));
    const q1 = await wait({ id: 'q1' });
    assert.equal(q1.data.playing, false);
    const times = (await events({ event: 'timeupdate' })).map((e) => e.data.time);
    assert.ok(times.length >= 3, `timeupdates (${times.length})`);
    assert.ok(
      times.every((t, i) => i === 0 || t > times[i - 1]),
      `timeupdates advance: ${times.map((t) => t.toFixed(2))}`,
    );
    assert.ok((await events({ event: 'play' })).length && (await events({ event: 'pause' })).length);
    // A kill as the playhead passes it: names as the feed shows them.
    const firstKill = await page
      .frames()
      .find((f) => f.url().startsWith(B.url))
      .evaluate(() => window.__player.killTime(window.__player.kills[0]));
    await page.evaluate((t) => window.__host.send('main', 'seek', { time: t - 0.5 }, 's2'), firstKill);
    await wait({ id: 's2' });
    await page.evaluate(() => window.__host.send('main', 'play'));
    const kill = await wait({ event: 'kill' });
    await page.evaluate(() => window.__host.send('main', 'pause', {}, 'q2'));
    await wait({ id: 'q2' });
    assert.ok(typeof kill.data.killer === 'string' && kill.data.killer.length > 0, JSON.stringify(kill.data));
    assert.ok(Math.abs(kill.data.time - firstKill) < 1e-6);
    // getState, setSpeed, setCamera, follow.
    await page.evaluate(() => {
      window.__host.send('main', 'setSpeed', { speed: 2 }, 'v');
      window.__host.send('main', 'follow', { entity: 'Iceman' }, 'f');
      window.__host.send('main', 'setCamera', { mode: 'first' }, 'c');
      window.__host.send('main', 'getState', {}, 'g');
    });
    const g = await wait({ id: 'g' });
    assert.equal(g.data.speed, 2);
    assert.equal(g.data.follow, 'Iceman');
    assert.equal(g.data.camera, 'first');
    assert.ok(g.data.url.startsWith(C.url));
    assertDrawn(await shot(frame, 'embed-iframe-first-person.png'), 'iframe, first person');
    // Events went only to the allowed origin, and the host page's CSP saw nothing blocked.
    assert.ok((await events({})).every((e) => e.origin === origin(B)));
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('script: create() from another origin under the host page strict CSP; keys only while the player has focus', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openHost(scriptHost, 'script.html');
  try {
    const s = await until(page, () => {
      const st = window.__p?.diagnostics.snapshot();
      return st && (st.ready || st.error)
        ? { ready: st.ready, error: st.error, time: st.time, inWorker: st.renderInWorker }
        : null;
    });
    assert.equal(s.error, null);
    assert.equal(s.time, 10, 'opened at t');
    assert.equal(s.inWorker, true, 'drawn in the render worker (started cross-origin)');
    const workers = page.workers().map((w) => w.url());
    assert.equal(workers.length, 2, `a decoder and a render worker: ${workers}`);
    assert.ok(
      workers.every((u) => u.startsWith('blob:')),
      'started through blob: modules',
    );
    const player = page.locator('#player');
    const box = await player.boundingBox();
    assert.ok(Math.abs(box.width / box.height - 16 / 9) < 0.02, `16:9 by default (${box.width}×${box.height})`);
    assert.equal(await page.locator('#player .rp-controls').count(), 1, 'the compact controls are drawn');
    assertDrawn(await shot(player, 'embed-script.png'), 'script form');
    // Kill markers on the compact scrubber (spoilers on: every kill).
    const markers = await page.evaluate(() => window.__p.kills.length);
    assert.ok(markers > 10);
    // The host page's keys stay the host page's: Space in its input types a space.
    await page.focus('#search');
    await page.keyboard.press('Space');
    await page.keyboard.press('l');
    assert.equal(await page.inputValue('#search'), ' l');
    assert.equal(await page.evaluate(() => window.__p.playing), false, 'keys on the host page do nothing');
    // Tab reaches the player: its focus shows, and its keys work.
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const el = document.getElementById('player');
      return {
        active: document.activeElement === el,
        visible: el.matches(':focus-visible'),
        outline: getComputedStyle(el).outlineStyle,
      };
    });
    assert.deepEqual(focus, { active: true, visible: true, outline: 'solid' });
    await page.keyboard.press('Space');
    await until(page, () => window.__p.playing && window.__p.currentTime > 10.3);
    await page.keyboard.press('k');
    assert.equal(await page.evaluate(() => window.__p.playing), false, 'K paused it');
    // The controls: play and the camera select.
    await page.locator('#player .rp-play').click();
    await until(page, () => window.__p.playing);
    await page.locator('#player .rp-play').click();
    await page.locator('#player .rp-camera').selectOption('follow');
    assert.equal(await page.evaluate(() => window.__p.cameraMode()), 'follow');
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('custom element: <replay-player> from another origin under the strict CSP; attributes apply live, events are DOM events', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openHost(scriptHost, 'element.html');
  try {
    await until(page, () => window.__events?.some((e) => e.type === 'ready'));
    const el = page.locator('replay-player');
    const first = await page.evaluate(() => {
      const e = document.getElementById('rp');
      return {
        t: e.currentTime,
        d: e.duration,
        safe: e.getState().duration === null,
        kills: e.kills.length,
        custom: window.__events[0].custom,
      };
    });
    assert.equal(first.t, 10);
    assert.ok(first.d > 100);
    assert.equal(first.safe, true, 'spoilers="off": the state hides the length');
    assert.equal(first.kills, 0, 'spoiler-safe: no kill before 10 s is known yet');
    assert.equal(first.custom, true, 'CustomEvents');
    assert.equal(await page.locator('replay-player .rp-controls').count(), 1, 'controls in the shadow root');
    assertDrawn(await shot(el, 'embed-element.png'), 'custom element');
    // Live attributes: t seeks, camera, speed, controls.
    await page.evaluate(() => document.getElementById('rp').setAttribute('t', '50'));
    await until(page, () => window.__events.some((e) => e.type === 'seeked' && Math.abs(e.detail - 50) < 1e-6));
    const live = await page.evaluate(() => {
      const e = document.getElementById('rp');
      e.setAttribute('camera', 'follow');
      e.setAttribute('speed', '4');
      e.setAttribute('controls', 'off');
      return { mode: e.cameraMode(), speed: e.speed, kills: e.kills.length };
    });
    assert.deepEqual({ mode: live.mode, speed: live.speed }, { mode: 'follow', speed: 4 });
    assert.ok(live.kills > 0, 'spoiler-safe: the kills before 50 s are known now');
    assert.equal(await page.locator('replay-player .rp-controls').count(), 0, 'controls="off"');
    await page.evaluate(() => document.getElementById('rp').setAttribute('controls', ''));
    assert.equal(await page.locator('replay-player .rp-controls').count(), 1);
    // A camera mode it does not have is a notice, not an exception.
    await page.evaluate(() => document.getElementById('rp').setAttribute('camera', 'sideways'));
    assert.ok(
      await page.evaluate(() => window.__events.some((e) => e.type === 'notice' && /camera/.test(e.detail.text))),
    );
    // Methods: play / pause; the events arrive as DOM events with their payload.
    await page.evaluate(() => document.getElementById('rp').play());
    await until(page, () => window.__events.some((e) => e.type === 'timeupdate' && e.detail > 50.5));
    await page.evaluate(() => document.getElementById('rp').pause());
    assert.ok(await page.evaluate(() => window.__events.some((e) => e.type === 'play')));
    // Removed from the document: its workers end.
    assert.equal(page.workers().length, 2);
    await page.evaluate(() => document.getElementById('rp').remove());
    for (let i = 0; i < 50 && page.workers().length; i++) await page.waitForTimeout(100);
    assert.equal(page.workers().length, 0, 'no worker left');
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('iframe: panels= shows the kill feed, roster and recording; spoilers=0 hides what the playhead has not reached; controls=0 draws none', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openHost(frameHost, 'iframe.html');
  try {
    await page.evaluate(() => {
      window.__host.frame('safe', 't=50&spoilers=0&panels=kills,roster,recording', 640, 300);
      window.__host.frame('bare', 'controls=0', 400, 225);
    });
    await hostEvent(page, { frame: 'safe', event: 'ready' });
    await hostEvent(page, { frame: 'bare', event: 'ready' });
    const safe = page.frames().find((f) => f.url().includes('p%3Dsafe'));
    const bare = page.frames().find((f) => f.url().includes('p%3Dbare'));
    const seen = () =>
      safe.evaluate(() => {
        const p = window.__player;
        return {
          now: p.currentTime,
          all: p.diagnostics.snapshot().killsKnown,
          rows: [...document.querySelectorAll('#killfeed li[data-tick]')].map((li) => Number(li.dataset.tick)),
          count: document.getElementById('kill-count').textContent,
          markers: document
            .querySelector('.rp-scrub-markers')
            .inspect()
            .kills.map((k) => k.t),
          time: document.querySelector('.rp-time').textContent,
          roster: document.querySelectorAll('.rp-roster li[data-index]').length,
          info: [...document.querySelectorAll('.rp-info dt')].map((d) => d.textContent),
          tickNow: p.tick,
        };
      });
    await until(safe, () => document.querySelectorAll('#killfeed li[data-tick]').length > 0);
    const at50 = await seen();
    assert.ok(at50.all > at50.markers.length, 'the recording has kills after 50 s');
    assert.ok(
      at50.markers.length > 0 && at50.markers.every((t) => t <= 50),
      `markers only up to 50 s: ${at50.markers}`,
    );
    assert.ok(
      at50.rows.every((tick) => tick <= at50.tickNow),
      'the kill feed: only kills reached',
    );
    assert.equal(at50.count, String(at50.markers.length));
    assert.doesNotMatch(at50.time, /\//, `no duration: ${at50.time}`);
    assert.ok(at50.roster > 10, 'the roster');
    assert.ok(at50.info.includes('Format') && !at50.info.includes('Length'), `no length: ${at50.info}`);
    assertDrawn(await shot(page.locator('iframe').first(), 'embed-panels-spoiler-safe.png'), 'panels', 60);
    // Playing on reveals what the playhead passes.
    await page.evaluate(() => window.__host.send('safe', 'seek', { time: 80 }, 'later'));
    await hostEvent(page, { frame: 'safe', id: 'later' });
    const at80 = await seen();
    assert.ok(at80.markers.length > at50.markers.length && at80.markers.every((t) => t <= 80));
    // controls=0: the picture alone.
    assert.equal(await bare.evaluate(() => document.querySelectorAll('.rp-controls, .rp-big-play').length), 0);
    assertDrawn(await shot(page.locator('iframe').nth(1), 'embed-controls-0.png'), 'controls=0', 0);
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the CSP lines are the least that works: without any one of their sources the script form fails or is blocked', {
  timeout: 240_000,
}, async () => {
  const b = origin(B);
  const c = origin(C);
  const full = CSP.script(b, c);
  const without = {
    // The control: the whole set works (so a failure below is the missing source's).
    'nothing (the whole set)': full,
    'script-src B (player.js)': full.replace(`script-src 'self' ${b}`, "script-src 'self'"),
    "'wasm-unsafe-eval'": full.replace(" 'wasm-unsafe-eval'", ''),
    'worker-src blob: (the trampoline)': full.replace('worker-src blob: ', 'worker-src '),
    'worker-src B (the worker modules)': full.replace(`worker-src blob: ${b}`, 'worker-src blob:'),
    'connect-src B (the wasm)': full.replace(`connect-src ${b} ${c}`, `connect-src ${c}`),
    'connect-src C (the replay)': full.replace(`connect-src ${b} ${c}`, `connect-src ${b}`),
    'style-src B (player.css)': full.replace(`; style-src ${b}`, ''),
  };
  const headers = (await fetch(`${scriptHost.url}script.html`)).headers.get('content-security-policy');
  assert.equal(headers, full, 'the host serves the documented CSP');
  const failures = {};
  try {
    for (const [what, csp] of Object.entries(without)) {
      if (csp === full) assert.ok(what.startsWith('nothing'), what);
      setHostCsp(csp);
      const page = await browser.newPage();
      const log = collectConsole(page);
      try {
        await page.goto(`${scriptHost.url}script.html?player=${PLAYER}&replays=${C.url}`, { waitUntil: 'load' });
        // Whichever comes first: a violation, the player ready, or its error (one always comes).
        await page.waitForFunction(
          () =>
            window.__csp.length || window.__p?.diagnostics.snapshot().ready || window.__p?.diagnostics.snapshot().error,
          null,
          { timeout: 60_000, polling: 100 },
        );
        const r = await page.evaluate(() => ({
          csp: window.__csp,
          error: window.__p ? window.__p.diagnostics.snapshot().error : 'no player',
          ready: !!window.__p?.diagnostics.snapshot().ready,
        }));
        const consoleCsp = log.messages.filter((m) => /Content Security Policy/i.test(m));
        failures[what] = !!(r.csp.length || r.error || consoleCsp.length);
        // The control: under the whole set the player does not merely not fail, it plays.
        if (csp === full)
          assert.equal(r.ready, true, `the documented CSP: the player became ready (${JSON.stringify(r)})`);
      } finally {
        await page.close();
      }
    }
  } finally {
    setHostCsp(full);
  }
  const { 'nothing (the whole set)': control, ...rest } = failures;
  assert.equal(control, false, 'the documented CSP works');
  assert.deepEqual(
    Object.entries(rest).filter(([, failed]) => !failed),
    [],
    'every source of the CSP is needed',
  );
});

/** The script host's CSP for the next pages (the server reads its headers per response). */
function setHostCsp(csp) {
  // startServer keeps the headers object it was given: see before().
  hostHeaders.script['Content-Security-Policy'] = csp;
}

test('several players: three play independently, a poster shows its still, one off-screen fetches only its info until scrolled to; dispose() ends workers, frames and timers', {
  timeout: 240_000,
}, async (t) => {
  const { page, log } = await openHost(scriptHost, 'several.html');
  const reads = (who) => replayRequests.filter((r) => r.url.endsWith(`?p=${who}`)).map((r) => r.range);
  try {
    await until(page, () => {
      const P = window.__players;
      return P && ['a', 'b', 'c'].every((k) => P[k].diagnostics.snapshot().ready) && !!P.off.info;
    });
    // Off-screen: the info is open (kill markers, duration), nothing decoded, no renderer.
    const off = await page.evaluate(() => {
      const s = window.__players.off.diagnostics.snapshot();
      return { pieces: s.pieces.length, backend: s.backend, ready: s.ready, duration: s.duration > 0 };
    });
    assert.deepEqual(off, { pieces: 0, backend: '', ready: false, duration: true });
    const offReads = reads('off');
    assert.ok(offReads.length >= 1 && offReads.length <= 3, `the open's reads only: ${offReads}`);
    assert.deepEqual(
      offReads,
      reads('a').slice(0, offReads.length),
      'the same reads as any open (header, sections, trailer)',
    );
    assert.ok(reads('a').length > offReads.length, 'a player in view went on to read chunks');
    t.diagnostic(`off-screen player: ${offReads.length} Range reads (${offReads.join(', ')}), no chunk, no renderer`);
    assert.equal(
      page.workers().length,
      7,
      'two workers for each of the three in view, the decoder alone for the off-screen one',
    );
    // The poster: player c shows the still at 40 s before it plays.
    const c0 = await page.evaluate(() => window.__players.c.currentTime);
    assert.equal(c0, 40);
    const boxes = page.locator('#row > div');
    for (const [i, name] of ['a', 'b', 'c'].entries())
      assertDrawn(await shot(boxes.nth(i), `embed-several-${name}.png`), `player ${name}`);
    // Independent clocks: a at 2×, c at 1× from its start (a poster is not where playing starts), b paused.
    await page.evaluate(() => {
      const { a, c } = window.__players;
      a.setSpeed(2);
      a.play();
      c.play();
    });
    await until(page, () => window.__players.a.currentTime > 7.5);
    const clocks = await page.evaluate(() => {
      const { a, b, c } = window.__players;
      a.pause();
      c.pause();
      return { a: a.currentTime, b: b.currentTime, c: c.currentTime };
    });
    assert.equal(clocks.b, 30, 'b did not move');
    assert.ok(clocks.c > 0 && clocks.c < 5, `c played from its start, not from the poster: ${clocks.c}`);
    assert.ok(clocks.a - 5 > 1.3 * clocks.c, `a at 2× went further than c at 1×: ${JSON.stringify(clocks)}`);
    // What one more player costs (figures).
    const cost = await page.evaluate(async () => {
      const p = window.__players.a;
      const w = await p.diagnostics.workerStats();
      return {
        decoderWasm: w.wasmMemoryBytes,
        rendererWasm: p.diagnostics.perf().rendererWasmBytes,
        heldPieces: p.diagnostics.snapshot().heldBytes,
        pageHeap: performance.memory?.usedJSHeapSize ?? 0,
      };
    });
    const mb = (n) => (n / 1048576).toFixed(1);
    t.diagnostic(
      `per player: 2 workers; decoder wasm ${mb(cost.decoderWasm)} MiB, renderer wasm ${mb(cost.rendererWasm)} MiB, ` +
        `decoded pieces held ${mb(cost.heldPieces)} MiB; the page's JS heap with 3 playing + 1 waiting: ${mb(cost.pageHeap)} MiB`,
    );
    // Scrolled into view: the off-screen player decodes and draws.
    await page.locator('#far').scrollIntoViewIfNeeded();
    await until(page, () => window.__players.off.diagnostics.snapshot().ready);
    assert.ok(reads('off').length > offReads.length, 'in view, it reads chunks');
    assertDrawn(await shot(page.locator('#far > div'), 'embed-several-scrolled.png'), 'the player scrolled to');
    assert.equal(page.workers().length, 8);
    // dispose(): its two workers end, its canvas goes.
    await page.evaluate(() => window.__players.a.dispose());
    for (let i = 0; i < 50 && page.workers().length > 6; i++) await page.waitForTimeout(100);
    assert.equal(page.workers().length, 6, 'player a: both workers ended');
    assert.equal(await page.locator('#row > div').first().locator('canvas').count(), 0);
    // The others go on: b plays.
    await page.evaluate(() => window.__players.b.play());
    await until(page, () => window.__players.b.currentTime > 30.3);
    // Every player disposed: no worker, no animation frame, no timer asked for afterwards.
    await page.evaluate(() => {
      for (const k of ['b', 'c', 'off']) window.__players[k].dispose();
    });
    for (let i = 0; i < 50 && page.workers().length; i++) await page.waitForTimeout(100);
    assert.equal(page.workers().length, 0, 'no worker left');
    const before = await page.evaluate(() => ({ ...window.__count }));
    await page.waitForTimeout(1500);
    const afterwards = await page.evaluate(() => ({ ...window.__count }));
    assert.deepEqual(afterwards, before, 'nothing asked for an animation frame or a timer after dispose()');
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('hostile: malformed postMessages, bad parameters and an origin= mismatch throw nothing, run nothing, and a command with an id is answered', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openHost(frameHost, 'iframe.html');
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  const frameOf = (name) => page.frames().find((f) => f.name() === name || f.url().includes(`p%3D${name}`));
  try {
    const a = origin(frameHost);
    await page.evaluate((a) => {
      // Three side by side, all in view (a framed player out of view would wait to be scrolled to).
      window.__host.frame('h', `origin=${encodeURIComponent(a)}`, 400, 225);
      // Commands are for http://127.0.0.1:9 only: this page may not drive it, nor hear from it.
      window.__host.frame('m', `origin=${encodeURIComponent('http://127.0.0.1:9')}`, 400, 225);
      window.__host.frame(
        'p',
        new URLSearchParams({
          t: 'banana',
          speed: '99',
          camera: '<img src=x onerror=alert(1)>',
          panels: '<script>alert(2)</script>',
          follow: 'Nobody',
          view: '1,2,x',
          unknown: '1',
        }).toString(),
        400,
        225,
      );
    }, a);
    await hostEvent(page, { frame: 'h', event: 'ready' });
    await hostEvent(page, { frame: 'p', event: 'ready' });
    // Hostile messages to h: other protocols' messages are left alone; commands that cannot be
    // carried out are answered with an error when they have an id.
    await page.evaluate(() => {
      const T = 'replay-player:command';
      const h = window.__host;
      for (const junk of ['hello', 42, null, [], { type: 'x' }, { type: 'replay-player:event', event: 'ready' }])
        h.raw('h', junk);
      h.raw('h', { type: T, command: 'explode', id: 1 });
      h.raw('h', { type: T, command: 'seek', args: { time: 'soon' }, id: 2 });
      h.raw('h', { type: T, command: 'x'.repeat(1_000_000), id: 3 });
      h.raw('h', { type: T, command: '__proto__', id: 4 });
      h.raw(
        'h',
        JSON.parse('{"type":"replay-player:command","command":"seek","args":{"__proto__":{"time":5}},"id":5}'),
      );
      h.raw('h', { type: T, command: 'follow', args: { entity: '<img src=x onerror=alert(3)>' }, id: 6 });
      h.raw('h', { type: T, command: 'setCamera', args: { mode: 'constructor' }, id: 7 });
      h.raw('h', { type: T, command: 'seek', args: { time: 20 }, id: { toString: null } });
      h.raw('h', { type: T, command: 'setSpeed', args: 'fast', id: 8 });
      h.raw('h', { type: T, command: 'getState', id: 9 });
    });
    const answers = [];
    for (let id = 1; id <= 9; id++) answers.push(await hostEvent(page, { frame: 'h', id }));
    assert.deepEqual(
      answers.map((e) => e.event),
      ['error', 'error', 'error', 'error', 'error', 'error', 'error', 'error', 'state'],
    );
    for (const e of answers.slice(0, 8)) {
      assert.equal(typeof e.data.message, 'string');
      assert.ok(e.data.message.length < 300, `a short message: ${e.data.message.slice(0, 80)}…`);
    }
    assert.match(answers[0].data.message, /unknown command "explode"/);
    assert.match(answers[5].data.message, /nobody called/);
    // The seek without a usable id still ran (ids are optional); nothing else moved the player.
    assert.equal(answers[8].data.time, 20);
    assert.equal(answers[8].data.playing, false);
    // A load that cannot be opened is answered with its error (last: it closes the replay).
    await page.evaluate(() =>
      window.__host.raw('h', {
        type: 'replay-player:command',
        command: 'load',
        args: { url: 'javascript:alert(4)' },
        id: 10,
      }),
    );
    assert.equal((await hostEvent(page, { frame: 'h', id: 10 })).event, 'error');
    // m: origin= names another origin: nothing it is sent runs, and nothing reaches this page.
    await page.evaluate(() => {
      window.__host.send('m', 'play', {}, 'm1');
      window.__host.send('m', 'getState', {}, 'm2');
    });
    const m = frameOf('m');
    await until(m, () => window.__player?.diagnostics.snapshot().ready);
    await page.waitForTimeout(500);
    assert.deepEqual(await hostEvents(page, { frame: 'm' }), [], 'no event, no answer');
    assert.equal(await m.evaluate(() => window.__player.playing), false, 'the command did not run');
    // p: bad parameters are notices shown as text; the player opens anyway.
    const p = frameOf('p');
    const shown = await p.evaluate(() => ({
      notices: window.__player.notices,
      dom: [...document.querySelectorAll('.rp-notice')].map((n) => n.textContent),
      imgs: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      panels: document.getElementById('panels').hidden,
      time: window.__player.currentTime,
      speed: window.__player.speed,
    }));
    for (const re of [
      /t=banana/,
      /speed=99/,
      /camera=<img src=x onerr/,
      /panels=/,
      /view=1,2,x/,
      /unknown parameter "unknown"/,
    ])
      assert.ok(
        shown.notices.some((n) => re.test(n)),
        `${re}: ${shown.notices.join(' | ')}`,
      );
    assert.ok(shown.dom.length > 0 && shown.dom.every((text) => shown.notices.includes(text) || /Nobody/.test(text)));
    assert.equal(shown.imgs, 0, 'no element made from a parameter');
    assert.equal(shown.scripts, 1, "embed.html's own script only");
    assert.equal(shown.panels, true, 'no panel from a bad panels=');
    assert.deepEqual({ time: shown.time, speed: shown.speed }, { time: 0, speed: 1 });
    assertDrawn(await shot(page.locator('iframe').nth(2), 'embed-bad-parameters.png'), 'bad parameters');
    assert.deepEqual(dialogs, [], 'nothing executed');
    await assertNoCsp(page, log);
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** The player's files (dist/, gzip -9 bytes) a page, its frames and its workers fetched from
 *  below `base` (the player's address). Every frame and worker must answer: one that cannot would
 *  leave its downloads out of the count. */
async function fetchedFrom(page, base) {
  const urls = [];
  const entries = () => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)];
  for (const f of page.frames()) urls.push(...(await f.evaluate(entries)));
  for (const w of page.workers()) urls.push(...(await w.evaluate(entries)));
  const files = new Set();
  for (const u of urls) {
    const url = new URL(u);
    url.search = '';
    if (!url.href.startsWith(base)) continue;
    let p = decodeURIComponent(url.href.slice(base.length));
    if (p === '' || p.endsWith('/')) p += 'index.html';
    if (!p.endsWith('.flrep')) files.add(p);
  }
  return [...files].map((f) => [f, zlib.gzipSync(fs.readFileSync(path.join(WWW, f)), { level: 9 }).length]);
}

/**
 * A live player's state in `where` (a page or a frame): `kind` 'iframe' (embed.html's own page),
 * 'script' (create() in live.html) or 'element' (<replay-player> there).
 */
const liveState = (where, kind) =>
  where.evaluate((kind) => {
    const el = document.getElementById('rp');
    const [root, p] =
      kind === 'iframe'
        ? [document, window.__player]
        : kind === 'script'
          ? [document.querySelector('#row > div'), window.__script]
          : [el?.shadowRoot, el?.player];
    const b = root?.querySelector('.live-badge');
    return {
      kind,
      badge: b && !b.hidden ? b.textContent : '',
      state: b?.dataset.state ?? '',
      duration: p?.duration ?? 0,
      t: p?.currentTime ?? 0,
      first: p?.diagnostics.snapshot().firstTick ?? -1,
      error: p?.diagnostics.snapshot().error ?? null,
    };
  }, kind);

test('live: embed.html?live=, create({live}) and <replay-player live> from another origin show LIVE, follow the edge, end as the replay', {
  timeout: 180_000,
}, async () => {
  // The match's segments on a third origin (a CDN, say): the sites' CSPs name it in connect-src.
  const dir = path.join(OUT, 'embed-live');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const L = await startServer({ root: dir, headers: { 'Access-Control-Allow-Origin': '*' } });
  const saved = {
    script: hostHeaders.script['Content-Security-Policy'],
    player: playerHeaders['Content-Security-Policy'],
  };
  hostHeaders.script['Content-Security-Policy'] = CSP.script(origin(B), `${origin(C)} ${origin(L)}`);
  playerHeaders['Content-Security-Policy'] = saved.player.replace(
    `connect-src 'self' ${origin(C)}`,
    `connect-src 'self' ${origin(C)} ${origin(L)}`,
  );
  // A 60 s match played 2× faster in 0.5 s chunks: about 30 s live, for the three forms to say
  // LIVE and each to see its timeline grow three times (the pictures come after).
  const file = path.join(OUT, 'embed-live.flrep');
  const args = ['--generate', '--seconds', '60', '--entities', '40', '--seed', '7', '--live-chunk-ticks', '30'];
  const src = spawn(replayBinPath(), ['live-serve', ...args, '--rate', '2', '--segments', dir, '--out', file], {
    stdio: 'ignore',
  });
  const exited = once(src, 'exit');
  const pages = [];
  try {
    for (let i = 0; i < 100 && !fs.existsSync(path.join(dir, 'manifest.json')); i++)
      await new Promise((r) => setTimeout(r, 100));
    const manifest = encodeURIComponent(`${L.url}manifest.json`);
    const framePage = await openHost(frameHost, 'iframe.html');
    pages.push(framePage);
    // (The host's frame() adds url= the demo: live= wins.)
    await framePage.page.evaluate((m) => window.__host.frame('live', `live=${m}`, 480, 270), manifest);
    const scriptPage = await openHost(scriptHost, 'live.html', `&live=${manifest}`);
    pages.push(scriptPage);
    const embed = () => framePage.page.frames().find((f) => f.url().includes('embed.html'));
    for (let i = 0; i < 100 && !embed(); i++) await framePage.page.waitForTimeout(100);
    const forms = [
      [embed(), 'iframe'],
      [scriptPage.page, 'script'],
      [scriptPage.page, 'element'],
    ];
    const all = () => Promise.all(forms.map(([w, k]) => liveState(w, k)));

    // LIVE in each, with the picture drawn.
    let st;
    for (let i = 0; i < 300; i++) {
      st = await all();
      if (st.every((x) => x.state === 'live' && x.badge.includes('LIVE') && x.duration > 1)) break;
      await framePage.page.waitForTimeout(100);
    }
    for (const x of st) {
      assert.equal(x.state, 'live', `${x.kind}: the badge says LIVE (${JSON.stringify(x)})`);
      assert.equal(x.error, null, `${x.kind}: no error`);
    }
    // Until each timeline has grown 3 times (looks 250 ms apart; a count, not a rate: a slow
    // machine only takes more looks) the playhead follows the edge: within a chunk, the margin and
    // the poll (about 1 s), plus what the 2× match runs ahead between two looks.
    const looks = [];
    const live = (k) => looks.map((l) => l[k]).filter((x) => x.state === 'live');
    const growths = (seen) => seen.filter((x, i) => i > 0 && x.duration > seen[i - 1].duration).length;
    for (let i = 0; i < 80 && forms.some((_, k) => growths(live(k)) < 3); i++) {
      looks.push(await all());
      await framePage.page.waitForTimeout(250);
    }
    for (let k = 0; k < forms.length; k++) {
      const seen = live(k);
      const grew = growths(seen);
      assert.ok(grew >= 3, `${forms[k][1]}: the timeline grew as chunks came (${grew} times in ${seen.length} looks)`);
      for (const x of seen) {
        const behind = x.duration - x.t;
        assert.ok(behind >= 0 && behind <= 4, `${x.kind}: the playhead ${behind.toFixed(2)} s behind the edge`);
      }
    }

    const pictures = [
      [framePage.page.locator('iframe'), 'live-iframe.png', 0],
      [scriptPage.page.locator('#row > div'), 'live-script.png', 60],
      [scriptPage.page.locator('#rp'), 'live-element.png', 60],
    ];
    // (After the looks: the match is live for a limited time, the pictures need none of it.) LIVE
    // is said when the first chunk is in; its first frame may come a few animation frames later
    // on a loaded machine: look again (at most 40 times, 250 ms apart) before asserting.
    for (const [loc, name, skip] of pictures) {
      let img = await shot(loc, name);
      for (let i = 0; i < 40 && !drawn(img, skip); i++) {
        await framePage.page.waitForTimeout(250);
        img = await shot(loc, name);
      }
      assertDrawn(img, name, skip);
    }

    // The end: the badge goes, and each holds the whole match from where it joined.
    await exited;
    const ticks = Number(/\((\d+) ticks/.exec(replayCli(['info', file]))[1]);
    for (let i = 0; i < 300; i++) {
      st = await all();
      if (st.every((x) => x.badge === '' && Math.round(x.duration * 60) === ticks - 1 - x.first)) break;
      await framePage.page.waitForTimeout(100);
    }
    for (const x of st) {
      assert.equal(x.badge, '', `${x.kind}: the badge gone at the end`);
      assert.equal(Math.round(x.duration * 60), ticks - 1 - x.first, `${x.kind}: the whole match from the join`);
    }
    for (const { page, log } of pages) {
      await assertNoCsp(page, log);
      log.assertClean();
    }
  } finally {
    src.kill();
    hostHeaders.script['Content-Security-Policy'] = saved.script;
    playerHeaders['Content-Security-Policy'] = saved.player;
    for (const { page } of pages) await page.close();
    await L.close();
  }
});

test('download: what each embed form fetches for a WebGPU .flrep session, beside the full page (goal: at most 10 KB gzipped more)', {
  timeout: 240_000,
}, async (t) => {
  const plain = await startServer();
  const sums = {};
  const kb = (n) => (n / 1000).toFixed(1);
  try {
    const forms = {
      'full page': async (page) => {
        await page.goto(plain.url, { waitUntil: 'load' });
        await until(page, () => window.__player?.diagnostics.snapshot().ready);
        await page.evaluate(() => window.__player.play());
        return { from: plain.url, backend: await page.evaluate(() => window.__player.backend) };
      },
      iframe: async (page) => {
        await page.goto(`${frameHost.url}iframe.html?player=${PLAYER}&replays=${C.url}`, { waitUntil: 'load' });
        await page.evaluate(() => window.__host.frame('bytes', 'autoplay=1'));
        await hostEvent(page, { event: 'play' });
        const f = page.frames().find((x) => x.url().startsWith(B.url));
        return { from: PLAYER, backend: await f.evaluate(() => window.__player.backend) };
      },
      script: async (page) => {
        await page.goto(`${scriptHost.url}script.html?player=${PLAYER}&replays=${C.url}`, { waitUntil: 'load' });
        await until(page, () => window.__p?.diagnostics.snapshot().ready);
        await page.evaluate(() => window.__p.play());
        return { from: PLAYER, backend: await page.evaluate(() => window.__p.backend) };
      },
      element: async (page) => {
        await page.goto(`${scriptHost.url}element.html?player=${PLAYER}&replays=${C.url}`, { waitUntil: 'load' });
        await until(page, () => window.__events?.some((e) => e.type === 'ready'));
        await page.evaluate(() => document.getElementById('rp').play());
        return { from: PLAYER, backend: await page.evaluate(() => document.getElementById('rp').backend) };
      },
    };
    for (const [form, open] of Object.entries(forms)) {
      const page = await browser.newPage();
      try {
        const { from, backend } = await open(page);
        // The figures are for a WebGPU browser: the harness's flags give one (no skip on a fallback).
        assert.equal(backend, expectedBackend(true), `${form}: the backend`);
        await page.waitForTimeout(1500);
        const sizes = await fetchedFrom(page, from);
        const code = sizes.filter(([f]) => /\.(js|wasm)$/.test(f));
        // The wasm is fetched by the workers: both builds counted means the workers' downloads are.
        for (const wasm of ['decoder_bg.wasm', 'renderer_bg.wasm'])
          assert.ok(
            code.some(([f]) => f.endsWith(`/${wasm}`)),
            `${form}: ${wasm} counted (${code.map(([f]) => f)})`,
          );
        sums[form] = code.reduce((n, [, b]) => n + b, 0);
        const css = sizes.filter(([f]) => /\.(css|html)$/.test(f)).reduce((n, [, b]) => n + b, 0);
        assert.ok(
          !sizes.some(([f]) => /renderer_webgl|decoder_spark|decoder_foldback|main\.js|style\.css/.test(f)) ||
            form === 'full page',
          `${form}: nothing it does not need (${sizes.map(([f]) => f)})`,
        );
        t.diagnostic(
          `${form}: JS + wasm ${kb(sums[form])} KB gzipped (${code.length} files), HTML + CSS ${kb(css)} KB: ${sizes
            .sort((x, y) => y[1] - x[1])
            .map(([f, n]) => `${f} ${kb(n)}`)
            .join(', ')}`,
        );
      } finally {
        await page.close();
      }
    }
    for (const form of ['iframe', 'script', 'element']) {
      const extra = sums[form] - sums['full page'];
      t.diagnostic(`${form}: ${extra >= 0 ? '+' : ''}${kb(extra)} KB of JS + wasm over the full page`);
      assert.ok(extra <= 10_000, `${form}: ${extra} bytes more than the full page (goal: at most 10 KB)`);
    }
  } finally {
    await plain.close();
  }
});
