// The focused set of paths a visitor and a site owner take, run in Firefox ESR and WebKitGTK by
// tests/engines/firefox.test.mjs and webkit.test.mjs (Chromium runs the full suite, tests/e2e/).
// One Firefox per file (each scenario opens its page in its window); one MiniBrowser per scenario
// (it starts in under a second: see engines.mjs). Each scenario checks the backend the engine must
// get (WebGL2 in both; WebKitGTK has no WebGL in workers, so the player draws on the page there),
// canvas pixels in a screenshot, and a clean console.
//   engineSuite('firefox')   // at the top level of a test file: before/after + one test per scenario
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, WWW, replayBinPath } from '../e2e/harness.mjs';
import { OUT, DEMO, fixture, decodePng, assertDrawn as assertPictureDrawn } from '../e2e/player-helpers.mjs';
import { writeHosts } from '../e2e/embed-hosts.mjs';
import { engineServer, launchEngine } from './engines.mjs';
import { withOneRetry } from './retry.mjs';

/** What each engine must get: its backend, and whether it draws in the render worker. */
export const EXPECTED = {
  firefox: { backend: 'webgl2', inWorker: true },
  webkit: { backend: 'webgl2', inWorker: false },
};

/** The CSP lines of docs/embedding.md (the same as tests/e2e/embed.test.mjs's). */
const CSP = {
  iframe: (b) => `default-src 'none'; script-src 'self'; frame-src ${b}`,
  script: (b, c) =>
    `default-src 'none'; script-src 'self' ${b} 'wasm-unsafe-eval'; worker-src blob: ${b}; connect-src ${b} ${c}; style-src ${b}`,
};
const originOf = (srv) => srv.url.slice(0, -1);
/** The one allowance of these tests: Firefox and WebKit ask the host page's origin for its icon
 *  (/favicon.ico) by themselves, and the host's CSP of docs/embedding.md (default-src 'none', no
 *  img-src) blocks that request. It is the browser's request on the host's page, not the player's;
 *  Chromium headless asks for no icon. */
const hostIconBlocked = (srv) =>
  new RegExp(`img-src\\)?( at)? ${originOf(srv).replace(/[.]/g, '\\.')}/favicon\\.ico\\b`);

// ---------------------------------------------------------------- pictures

/** The page's screenshot cut to `rect` (CSS px; the windows have devicePixelRatio 1). */
function crop(img, rect) {
  const x0 = Math.max(0, Math.round(rect.x));
  const y0 = Math.max(0, Math.round(rect.y));
  const w = Math.min(img.width - x0, Math.round(rect.width));
  const h = Math.min(img.height - y0, Math.round(rect.height));
  return { width: w, height: h, at: (x, y) => img.at(x0 + x, y0 + y) };
}

/** The scene is drawn in `rect` of the screenshot: the stage's background around it, and both
 *  factions' colours on the aircraft (bottom `skip` px left out: the compact controls). */
function assertDrawn(png, rect, when, skip = 0) {
  const img = crop(decodePng(png), rect);
  assert.ok(
    img.width * (img.height - skip) > 10_000,
    `${when}: a canvas of some size (${img.width}×${img.height - skip})`,
  );
  assertPictureDrawn(img, when, skip);
}

/** Screenshot of the page saved as tests/output/engines/<engine>-<name>.png; returns the PNG. */
async function shot(page, name) {
  // A few animation frames first: the frame asked for is on the screen (as tests/e2e's canvasShot).
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        let k = 0;
        const f = () => (++k >= 8 ? resolve() : requestAnimationFrame(f));
        requestAnimationFrame(f);
      }),
  );
  const png = await page.screenshot();
  const dir = path.join(OUT, 'engines');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${page.engine}-${name}.png`), png);
  return png;
}

// ---------------------------------------------------------------- page helpers (run in the page)

const ready = () =>
  window.__player && (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error);
const stateOf = () => {
  const s = window.__player.diagnostics.snapshot();
  return {
    ready: s.ready,
    error: s.error,
    name: s.name,
    backend: s.backend,
    inWorker: s.renderInWorker,
    time: s.time,
    duration: s.duration,
    playing: s.playing,
  };
};

async function openPlayer(ctx, query = '') {
  const page = await ctx.engine.open(`${ctx.base}${query}`);
  await page.waitFor(ready, undefined, { timeout: 60_000, what: 'the player ready' });
  const s = await page.evaluate(stateOf);
  assert.equal(s.error, null);
  assert.equal(s.ready, true);
  assert.equal(s.backend, EXPECTED[page.engine].backend, 'the backend this engine gets');
  assert.equal(s.inWorker, EXPECTED[page.engine].inWorker, 'drawn in the render worker or on the page');
  return { page, s };
}

const rectOf = (sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  return { x: r.x, y: r.y, width: r.width, height: r.height };
};

/** A copy of a 60 s recording with one byte flipped in the middle of chunk 15 ([30 s, 32 s)). */
function damagedFixture() {
  const file = path.join(OUT, 'engines-sixty-damaged.flrep');
  const b = fs.readFileSync(fixture('sixty', { seconds: 60 }));
  const offs = [];
  for (let i = b.indexOf('FLCK'); i >= 0 && offs.length === 0; i = b.indexOf('FLCK', i + 1)) {
    const list = [];
    let o = i;
    while (o + 36 <= b.length && b.toString('latin1', o, o + 4) === 'FLCK') {
      list.push(o);
      o += 36 + b.readUInt32LE(o + 4);
    }
    if (list.length > 1 && (o === b.length || b.toString('latin1', o, o + 4) === 'FLIX')) offs.push(...list);
  }
  assert.ok(offs.length >= 30, `30 chunks found (${offs.length})`);
  const at = offs[15] + 36 + Math.floor((offs[16] - offs[15] - 36) / 2);
  b[at] ^= 0x40;
  fs.writeFileSync(file, b);
  return file;
}

// ---------------------------------------------------------------- the scenarios

/** name → async (ctx) => void; ctx: {engine, base (dist/ on the suite's server), srv, hosts}. */
export const SCENARIOS = {
  'the demo opens and draws; play advances, seek lands; Space and ArrowRight': async (ctx) => {
    const { page, s } = await openPlayer(ctx);
    assert.equal(s.name, 'demo/demo.flrep');
    assertDrawn(await shot(page, 'demo'), await page.evaluate(rectOf, 'canvas.rp-canvas'), 'the demo');
    await page.evaluate(() => window.__player.play());
    await page.waitFor(() => window.__player.currentTime > 1, undefined, { what: 'play advances past 1 s' });
    const landed = await page.evaluate(async () => {
      window.__player.pause();
      return window.__player.seek(20);
    });
    assert.ok(Math.abs(landed - 20) < 1e-6, `seek(20) landed at ${landed}`);
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 20) < 1e-6);
    // The keyboard: a click on the page's corner gives it the keys; ArrowRight is +5 s, Space plays.
    await page.clickAt(5, 5);
    await page.press('ArrowRight');
    await page.waitFor(() => Math.abs(window.__player.currentTime - 25) < 1e-6, undefined, {
      what: 'ArrowRight: 25 s',
    });
    await page.press('Space');
    await page.waitFor(() => window.__player.currentTime > 25.3, undefined, { what: 'Space plays' });
    await page.press('Space');
    await page.waitFor(() => window.__player.paused, undefined, { what: 'Space pauses' });
    await page.assertClean();
  },

  'a click on a kill marker of the timeline lands 2 s before that kill': async (ctx) => {
    const { page } = await openPlayer(ctx);
    const { kills, box, feed } = await page.evaluate(() => {
      const r = document.getElementById('scrubber').getBoundingClientRect();
      return {
        kills: document.getElementById('scrub-markers').inspect().kills,
        box: { x: r.x, y: r.y },
        feed: window.__player.diagnostics.snapshot().killFeed.map((k) => k.time),
      };
    });
    assert.ok(kills.length > 10 && kills.length === feed.length, `kill markers: ${kills.length} of ${feed.length}`);
    // The marker with the most room to its neighbours.
    let pick = 0;
    let room = -1;
    feed.forEach((t, i) => {
      const gap = Math.min(i > 0 ? t - feed[i - 1] : Infinity, i + 1 < feed.length ? feed[i + 1] - t : Infinity);
      if (gap > room) [room, pick] = [gap, i];
    });
    const want = Math.max(0, feed[pick] - 2);
    await page.moveTo(box.x + kills[pick].x, box.y + kills[pick].y);
    await page.clickAt(box.x + kills[pick].x, box.y + kills[pick].y);
    await page.waitFor((t) => Math.abs(window.__player.currentTime - t) < 0.05, want, {
      what: `the playhead at ${want} s`,
    });
    await page.assertClean();
  },

  'a picked file opens (the file input)': async (ctx) => {
    const t10 = fixture('t10', { seconds: 10, seed: 7 });
    const { page } = await openPlayer(ctx);
    await page.setFile('#file-input', t10);
    await page.waitFor(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
      undefined,
      {
        what: 't10.flrep open',
      },
    );
    const s = await page.evaluate(stateOf);
    assert.ok(Math.abs(s.duration - 599 / 60) < 0.02, `duration ${s.duration}`);
    assert.equal(s.error, null);
    await page.assertClean();
  },

  'a share link with t=30 opens at 30 s': async (ctx) => {
    const { page, s } = await openPlayer(ctx, '?t=30');
    assert.ok(Math.abs(s.time - 30) < 1e-6, `opened at ${s.time}`);
    await page.assertClean();
  },

  'a damaged chunk is crossed at 4×: the gap named, the end reached': async (ctx) => {
    const file = damagedFixture();
    const { page } = await openPlayer(ctx);
    await page.setFile('#file-input', file);
    await page.waitFor(
      (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
      path.basename(file),
      { what: 'the damaged file open' },
    );
    const run = await page.evaluate(async () => {
      const p = window.__player;
      await p.seek(26);
      const seen = [];
      p.on('timeupdate', (v) => seen.push(v));
      const ended = new Promise((resolve) => p.on('ended', resolve));
      p.setSpeed(4);
      p.play();
      await Promise.race([ended, new Promise((_, reject) => setTimeout(() => reject(new Error('not ended')), 45_000))]);
      return { seen, time: p.currentTime, duration: p.duration, error: p.diagnostics.snapshot().error, gaps: p.gaps };
    });
    assert.equal(run.error, null);
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
    assert.equal(run.gaps.length, 1);
    assert.equal(run.gaps[0].cause, 'damaged');
    assert.ok(Math.abs(run.gaps[0].from - 30) < 0.02 && Math.abs(run.gaps[0].to - 32) < 0.02, JSON.stringify(run.gaps));
    await page.assertClean();
  },

  'a live .flrep over segments: LIVE, then the whole replay at the end': async (ctx) => {
    // The match's segments made at once (live-serve at 20×), then published as a live source
    // would: its first 8 segments (not ended), one more every 0.5 s while the page looks (an
    // unchanged manifest reads as stalled after 1.5 s), then all of them, ended.
    const dir = path.join(OUT, `engines-live-${ctx.engine.name}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const args = ['--generate', '--seconds', '24', '--entities', '20', '--seed', '7', '--live-chunk-ticks', '30'];
    const made = spawnSync(replayBinPath(), ['live-serve', ...args, '--rate', '20', '--segments', dir], {
      encoding: 'utf8',
    });
    assert.equal(made.status, 0, `live-serve: ${made.stderr}`);
    const manifest = path.join(dir, 'manifest.json');
    const full = JSON.parse(fs.readFileSync(manifest, 'utf8'));
    assert.equal(full.segments.length, 48, 'a 24 s match in 0.5 s segments');
    // Renamed into place, as live-serve does: a poll never reads half a manifest.
    const publish = (m) => {
      fs.writeFileSync(`${manifest}.tmp`, JSON.stringify(m));
      fs.renameSync(`${manifest}.tmp`, manifest);
    };
    let n = 8;
    const partial = () => publish({ ...full, segments: full.segments.slice(0, n), ended: false, file: undefined });
    partial();
    const growing = setInterval(() => {
      if (n < full.segments.length - 1) {
        n++;
        partial();
      }
    }, 500);
    // The live view's state once it is `want` ('live' with its badge and a frame, or 'ended').
    const liveIs = (want) => {
      // The live view's state: its badge's inspect() (www/features/live/view.ts).
      const b = document.querySelector('.live-badge');
      const l = b?.inspect?.();
      if (!window.__player || !l) return null;
      const s = {
        status: l.status,
        badge: b && !b.hidden ? b.textContent : '',
        tick: window.__player.diagnostics.snapshot().frameTick ?? -1,
        duration: window.__player.duration,
        error: window.__player.diagnostics.snapshot().error ?? null,
      };
      if (want === 'live') return s.status === 'live' && s.badge.includes('LIVE') && s.tick >= 0 ? s : null;
      return s.status === want ? s : null;
    };
    const diag = () =>
      JSON.stringify({
        status: document.querySelector('.live-badge')?.inspect?.().status,
        duration: window.__player?.duration,
      });
    let page;
    try {
      const rel = path.relative(path.join(ROOT, 'dist'), manifest);
      page = await ctx.engine.open(`${ctx.base}?live=${encodeURIComponent(rel)}`);
      const live = await page.waitFor(liveIs, 'live', { timeout: 30_000, what: 'LIVE', diag });
      assert.equal(live.error, null);
      assert.ok(live.duration >= 4 - 0.1 && live.duration < 24 - 0.1, `part of the match received: ${live.duration} s`);
      const s = await page.evaluate(() => window.__player.diagnostics.snapshot());
      assert.equal(s.backend, EXPECTED[page.engine].backend);
      assertDrawn(await shot(page, 'live'), await page.evaluate(rectOf, 'canvas.rp-canvas'), 'live');
    } finally {
      clearInterval(growing);
    }
    publish(full);
    const end = await page.waitFor(liveIs, 'ended', { timeout: 40_000, what: 'the end of the match', diag });
    assert.equal(end.badge, '', 'no LIVE badge at the end');
    assert.ok(Math.abs(end.duration - 24) < 0.1, `the whole match: ${end.duration} s`);
    await page.assertClean();
  },

  'embed.html in an iframe on another origin, driven by postMessage, under the strict CSP': async (ctx) => {
    const { hosts } = ctx;
    const page = await ctx.engine.open(
      `${hosts.frame.url}iframe.html?player=${hosts.player}&replays=${hosts.replays.url}`,
    );
    await page.waitFor(() => !!window.__host, undefined, { what: 'the host script' });
    await page.evaluate((a) => window.__host.frame('main', `origin=${encodeURIComponent(a)}`), originOf(hosts.frame));
    const wait = (m) =>
      page.waitFor(
        (want) => window.__host.events.find((e) => Object.entries(want).every(([k, v]) => e[k] === v)) ?? null,
        m,
        { timeout: 60_000, what: JSON.stringify(m) },
      );
    const r = await wait({ event: 'ready' });
    assert.equal(r.origin, originOf(hosts.B), 'events come from the player origin');
    assert.ok(r.data.duration > 100, 'ready carries the state');
    await page.evaluate(() => window.__host.send('main', 'seek', { time: 30 }, 's1'));
    const s1 = await wait({ id: 's1' });
    assert.ok(Math.abs(s1.data.time - 30) < 1e-6, `the state at the seek's time: ${s1.data.time}`);
    await page.evaluate(() => window.__host.send('main', 'play', {}, 'p1'));
    assert.equal((await wait({ id: 'p1' })).data.playing, true);
    await page.waitFor(
      () => window.__host.events.some((e) => e.event === 'timeupdate' && e.data.time > 31),
      undefined,
      {
        what: 'a timeupdate past 31 s',
      },
    );
    await page.evaluate(() => window.__host.send('main', 'pause', {}, 'q1'));
    assert.equal((await wait({ id: 'q1' })).data.playing, false);
    const inner = await page.evaluateIn('iframe', () => {
      const s = window.__player.diagnostics.snapshot();
      return { backend: s.backend, inWorker: s.renderInWorker };
    });
    assert.deepEqual(inner, EXPECTED[page.engine]);
    assertDrawn(await shot(page, 'embed-iframe'), await page.evaluate(rectOf, 'iframe'), 'the iframe', 60);
    await page.assertClean([hostIconBlocked(hosts.frame)]);
  },

  'create() from another origin under the strict CSP': async (ctx) => {
    const { hosts } = ctx;
    const page = await ctx.engine.open(
      `${hosts.script.url}script.html?player=${hosts.player}&replays=${hosts.replays.url}`,
    );
    const s = await page.waitFor(
      () => {
        const st = window.__p?.diagnostics.snapshot();
        return st && (st.ready || st.error)
          ? { ready: st.ready, error: st.error, time: st.time, backend: st.backend, inWorker: st.renderInWorker }
          : null;
      },
      undefined,
      { timeout: 60_000, what: 'the script form ready' },
    );
    assert.equal(s.error, null);
    assert.equal(s.time, 10, 'opened at t');
    assert.deepEqual({ backend: s.backend, inWorker: s.inWorker }, EXPECTED[page.engine]);
    assertDrawn(await shot(page, 'embed-script'), await page.evaluate(rectOf, '#player'), 'the script form', 60);
    await page.evaluate(() => window.__p.play());
    await page.waitFor(() => window.__p.currentTime > 10.3, undefined, { what: 'create(): play advances' });
    await page.evaluate(() => window.__p.pause());
    await page.assertClean([hostIconBlocked(hosts.script)]);
  },

  '<replay-player> from another origin under the strict CSP': async (ctx) => {
    const { hosts } = ctx;
    const page = await ctx.engine.open(
      `${hosts.script.url}element.html?player=${hosts.player}&replays=${hosts.replays.url}`,
    );
    await page.waitFor(() => window.__events?.some((e) => e.type === 'ready'), undefined, {
      timeout: 60_000,
      what: "the element's ready event",
    });
    const first = await page.evaluate(() => {
      const e = document.getElementById('rp');
      return { t: e.currentTime, d: e.duration, custom: window.__events[0].custom };
    });
    assert.equal(first.t, 10);
    assert.ok(first.d > 100);
    assert.equal(first.custom, true, 'CustomEvents');
    assertDrawn(await shot(page, 'embed-element'), await page.evaluate(rectOf, '#rp'), 'the element', 60);
    await page.evaluate(() => document.getElementById('rp').setAttribute('t', '50'));
    await page.waitFor(
      () => window.__events.some((e) => e.type === 'seeked' && Math.abs(e.detail - 50) < 1e-6),
      undefined,
      { what: 't="50" seeks' },
    );
    await page.evaluate(() => document.getElementById('rp').play());
    await page.waitFor(() => window.__events.some((e) => e.type === 'timeupdate' && e.detail > 50.5), undefined, {
      what: 'timeupdate events past 50.5 s',
    });
    await page.evaluate(() => document.getElementById('rp').pause());
    await page.assertClean([hostIconBlocked(hosts.script)]);
  },
};

/**
 * How WebKitWebDriver reports a MiniBrowser whose web process died or hung. Seen here about once in
 * four runs of webkit.test.mjs, in the scenarios that play at 4×; the kernel logged the web process's
 * segfault in Mesa's swrast_dri.so (software GL) and a trap in libwebkit2gtk: the engine's, not the
 * player's (the same scenario alone passed 6 of 6 and 5 of 5 runs).
 */
const WEBKIT_DIED =
  /session deleted because of page crash or hang|Could not parse script result|invalid session id|no longer running|did not finish in \d+ ms/;

/** Where the engine tests note a scenario run twice (scripts/test.mjs prints them in its summary). */
export const RETRIES_FILE = path.join(OUT, 'engine-retries.jsonl');

function recordRetry(row) {
  fs.mkdirSync(path.dirname(RETRIES_FILE), { recursive: true });
  fs.appendFileSync(RETRIES_FILE, `${JSON.stringify(row)}\n`);
}

/**
 * What a visitor whose browser has neither WebGPU nor WebGL2 sees (headless Firefox with WebGL off): the box
 * that says the browser cannot draw the replay, over a page whose clock, timeline and kill feed work.
 */
async function cannotDraw(base) {
  const eng = await launchEngine('firefox', { webgl: false });
  try {
    const page = await eng.open(base);
    await page.waitFor(ready, undefined, { timeout: 60_000, what: 'the player ready or failed' });
    const s = await page.evaluate(() => {
      const st = window.__player.diagnostics.snapshot();
      const box = document.getElementById('error');
      return {
        error: st.error,
        backend: st.backend,
        duration: st.duration,
        boxShown: !box.hidden && box.getBoundingClientRect().height > 0,
        title: box.querySelector('.error-title').textContent,
        text: document.getElementById('error-text').textContent,
        kills: window.__player.kills.length,
        feed: Number(document.querySelector('#killfeed li[aria-setsize]')?.getAttribute('aria-setsize')),
        markers: document.getElementById('scrub-markers').inspect().kills.length,
      };
    });
    assert.match(s.error ?? '', /^This browser cannot draw the replay: .*WebGL2/, 'the reason, WebGL2 named');
    assert.equal(s.backend, '', 'no backend');
    assert.equal(s.boxShown, true, 'the box is shown');
    assert.equal(s.title, 'This replay cannot be played');
    assert.equal(s.text, s.error);
    assert.ok(s.duration > 100, `the recording is open (${s.duration} s)`);
    assert.ok(s.kills > 10 && s.feed === s.kills && s.markers === s.kills, JSON.stringify(s));
    // The clock and the playhead follow a seek.
    await page.evaluate(() => window.__player.seek(30));
    await page.waitFor(() => /00:30\.0/.test(document.querySelector('.clock, #clock')?.textContent ?? ''), undefined, {
      what: 'the clock at 00:30.0',
    });
    await shot(page, 'cannot-draw');
    await page.assertClean();
  } finally {
    await eng.close();
  }
}

/**
 * At the top level of a test file: the servers (the repository root, the player at /dist/; the
 * embed hosts on their own origins with the CSP of docs/embedding.md), `name`'s browser for the
 * whole file, and one test per scenario.
 */
export function engineSuite(name) {
  const ctx = { engine: null, base: '', srv: null, hosts: null };
  const servers = [];
  before(async () => {
    if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
    const hostDir = path.join(OUT, 'engines-embed-host');
    writeHosts(hostDir, path.join(WWW, 'favicon.svg'));
    ctx.srv = await engineServer({ root: ROOT });
    ctx.base = `${ctx.srv.url}dist/`;
    servers.push(ctx.srv);
    // The embeds: B the player (dist/ at /dist/), C the replays, the hosts on two more origins.
    const playerHeaders = { 'Access-Control-Allow-Origin': '*' };
    const frameHeaders = {};
    const scriptHeaders = {};
    const B = await engineServer({ root: ROOT, headers: playerHeaders });
    const C = await engineServer({
      headers: {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
      },
    });
    const frame = await engineServer({ root: hostDir, headers: frameHeaders });
    const script = await engineServer({ root: hostDir, headers: scriptHeaders });
    servers.push(B, C, frame, script);
    frameHeaders['Content-Security-Policy'] = CSP.iframe(originOf(B));
    scriptHeaders['Content-Security-Policy'] = CSP.script(originOf(B), originOf(C));
    playerHeaders['Content-Security-Policy'] =
      `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self' ${originOf(C)}; ` +
      `style-src 'self'; frame-ancestors ${originOf(frame)}`;
    ctx.hosts = { B, player: `${B.url}dist/`, replays: C, frame, script };
    ctx.engine = await launchEngine(name);
    console.log(`# ${name}: ${ctx.engine.version}`);
  });
  after(async () => {
    await ctx.engine?.close();
    for (const s of servers) await s.close();
  });
  if (name === 'firefox')
    test(
      'firefox without WebGL (neither WebGPU nor WebGL2): the "cannot draw" box; clock, timeline and kills work',
      {
        timeout: 120_000,
      },
      () => cannotDraw(ctx.base),
    );
  for (const [title, run] of Object.entries(SCENARIOS))
    test(`${name}: ${title}`, { timeout: name === 'webkit' ? 240_000 : 120_000 }, async (t) => {
      if (name !== 'webkit') return run(ctx);
      // WebKitGTK's web process dies or hangs now and then under Mesa's software GL (WEBKIT_DIED):
      // the first try is stopped with its engine, and the scenario runs once more in a fresh one,
      // named in the output and in the run's summary (scripts/test.mjs); a second death or hang
      // fails the test (tests/engines/retry.mjs).
      await withOneRetry(() => run(ctx), {
        ms: 60_000,
        died: (e) => WEBKIT_DIED.test(e?.message ?? ''),
        lastCall: () => ctx.engine.lastCall?.() ?? '',
        restart: async () => {
          await ctx.engine.close();
          ctx.engine = await launchEngine(name);
        },
        onRetry: (why) => {
          t.diagnostic(
            `RETRIED: WebKit's web process died or hung (${why}); the first try was stopped, once more in a fresh engine`,
          );
          console.log(`# RETRIED ${name}: ${title}: ${why}`);
          recordRetry({ engine: name, scenario: title, why });
        },
      });
    });
}
