// Helpers for the player's browser tests: replay fixtures (generated with the `replay` CLI into
// tests/output/), a PNG decoder for screenshot pixel checks, and page helpers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { before, after } from 'node:test';
import { ROOT, WWW, cargoTargetDir, replayBinPath, startServer, launchBrowser, collectConsole } from './harness.mjs';

export const OUT = path.join(ROOT, 'tests', 'output');
export const DEMO = path.join(WWW, 'demo', 'demo.flrep');
export const BACKGROUND = [0x10, 0x14, 0x1c];
/** The renderer's faction palette (crate/src/render/scene.rs FACTION_RGB). */
export const FACTION_HEX = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#882255',
  '#999933',
  '#AA4499',
  '#DDDDDD',
  '#CC6677',
  '#DDCC77',
  '#44AA99',
];
export const FACTION_RGB = FACTION_HEX.map((h) => [
  parseInt(h.slice(1, 3), 16),
  parseInt(h.slice(3, 5), 16),
  parseInt(h.slice(5, 7), 16),
]);

/**
 * The usual preamble of a player test file, called at its top level: the repository root served
 * (the page at /dist/, replays generated into /tests/output/ on the same origin), one Chromium for
 * the file (WebGPU unless `webgpu: false`), and `openPage(query)` → `{page, log}` (a new page on
 * `dist/` + query, its console collected). `setup` runs in `before`, after the checks. The fields
 * (`srv`, `browser`, `base`) are set once `before` has run.
 */
export function pageSuite({ webgpu = true, setup = null } = {}) {
  const s = { srv: null, browser: null, base: '' };
  before(async () => {
    if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
    await setup?.();
    s.srv = await startServer({ root: ROOT });
    s.base = `${s.srv.url}dist/`;
    s.browser = await launchBrowser({ webgpu });
  });
  after(async () => {
    await s.browser?.close();
    await s.srv?.close();
  });
  s.openPage = async (query = '') => {
    const page = await s.browser.newPage();
    const log = collectConsole(page);
    await page.goto(`${s.base}${query}`, { waitUntil: 'load' });
    return { page, log };
  };
  return s;
}

function replayBin() {
  const bin = replayBinPath();
  if (!fs.existsSync(bin)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'replay-player', '--bin', 'replay'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('cargo build of the replay CLI failed');
  }
  return bin;
}

/** Runs the replay CLI; returns stdout. */
export function replayCli(args) {
  const r = spawnSync(replayBin(), args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`replay ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/**
 * tests/output/fixtures/<generator>/: where the replays the tests generate are kept, in a folder
 * named by the `replay` CLI that wrote them (its size and build time), so that a rebuilt generator
 * writes every fixture afresh and no test reads a file an older generator wrote.
 */
export function fixturesDir() {
  const st = fs.statSync(replayBin());
  const dir = path.join(OUT, 'fixtures', `${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** `file` (under the repository root) as the suite's server serves it: `/tests/output/…`. */
export function served(file) {
  return `/${path.relative(ROOT, file).split(path.sep).join('/')}`;
}

/** fixturesDir()/<name>, written (once per generator) by `replay generate ARGS`; its path. */
export function generated(name, args) {
  const file = path.join(fixturesDir(), name);
  if (!fs.existsSync(file)) {
    // Written beside, then renamed: a run stopped half way leaves no half file under the name, and
    // two test files that make it at once (npm test runs two at a time) each write their own.
    const part = `${file}.${process.pid}.part${path.extname(file)}`;
    replayCli(['generate', '--out', part, ...args]);
    fs.renameSync(part, file);
  }
  return file;
}

/**
 * The recording with markup in every string (crate/examples/make_hostile_strings.rs), written by
 * the example as cargo test built it (target/debug/examples/; built here when missing), into a
 * folder named by that build as fixturesDir() is by the CLI's.
 */
export function hostileStrings() {
  const exe = path.join(cargoTargetDir(), 'debug', 'examples', 'make_hostile_strings');
  if (!fs.existsSync(exe)) {
    const r = spawnSync('cargo', ['build', '-q', '-p', 'replay-player', '--example', 'make_hostile_strings'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('cargo build of the make_hostile_strings example failed');
  }
  const st = fs.statSync(exe);
  const dir = path.join(OUT, 'fixtures', `strings-${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}`);
  const file = path.join(dir, 'hostile-strings.flrep');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    const r = spawnSync(exe, [part], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`make_hostile_strings failed: ${r.stderr}`);
    fs.renameSync(part, file);
  }
  return file;
}

/** A generated `<name>.flrep` of `seconds` seconds (generated()); returns its path. */
export function fixture(name, { seconds = 10, seed = 7, entities } = {}) {
  const args = ['--seconds', String(seconds), '--seed', String(seed)];
  if (entities) args.push('--entities', String(entities));
  return generated(`${name}.flrep`, args);
}

/** A copy of `src` with the format major version set to `major` (the reader refuses it). */
export function newerMajorFixture(src, major = 2) {
  const file = path.join(OUT, `newer-major-${major}.flrep`);
  const b = fs.readFileSync(src);
  b.writeUInt16LE(major, 4);
  fs.writeFileSync(file, b);
  return file;
}

/** Number of kill events in a replay, from `replay dump`. */
export function killCount(file) {
  return replayCli(['dump', file])
    .split('\n')
    .filter((l) => l.includes('"kind":"kill"')).length;
}

// ---------------------------------------------------------------- PNG

/** Decodes an 8-bit, non-interlaced RGB/RGBA PNG (what Chromium screenshots are). */
export function decodePng(buf) {
  const sig = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  if (!buf.subarray(0, 8).equals(sig)) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat = [];
  while (at < buf.length) {
    const len = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9];
      if (depth !== 8 || data[12] !== 0 || (colorType !== 2 && colorType !== 6)) {
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${colorType}, interlace ${data[12]})`);
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const px = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp] : 0;
      const b = prev[x];
      const c = x >= bpp ? prev[x - bpp] : 0;
      let v = line[x];
      if (f === 1) v += a;
      else if (f === 2) v += b;
      else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      px[o] = line[x * bpp];
      px[o + 1] = line[x * bpp + 1];
      px[o + 2] = line[x * bpp + 2];
      px[o + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return {
    width,
    height,
    data: px,
    at: (x, y) => [px[(y * width + x) * 4], px[(y * width + x) * 4 + 1], px[(y * width + x) * 4 + 2]],
  };
}

export const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Fraction of pixels within `tol` of `rgb`. */
export function fractionNear(img, rgb, tol = 6) {
  let n = 0;
  for (let i = 0; i < img.width * img.height; i++) {
    const o = i * 4;
    if (dist([img.data[o], img.data[o + 1], img.data[o + 2]], rgb) <= tol) n++;
  }
  return n / (img.width * img.height);
}

/** Fraction of pixels that differ (by more than `tol`) between two same-size images. */
export function fractionDifferent(a, b, tol = 24) {
  if (a.width !== b.width || a.height !== b.height) return 1;
  let n = 0;
  for (let i = 0; i < a.width * a.height; i++) {
    const o = i * 4;
    if (dist([a.data[o], a.data[o + 1], a.data[o + 2]], [b.data[o], b.data[o + 1], b.data[o + 2]]) > tol) n++;
  }
  return n / (a.width * a.height);
}

/** Colour-ish match: same hue family as a faction colour (lighting scales brightness). */
export function nearFaction(rgb, faction, tol = 70) {
  const f = FACTION_RGB[faction % FACTION_RGB.length];
  if (dist(rgb, f) <= tol) return true;
  // Shaded: compare chromaticity (normalised colour) when bright enough.
  const s = rgb[0] + rgb[1] + rgb[2];
  const fs = f[0] + f[1] + f[2];
  if (s < 90) return false;
  const n = rgb.map((v) => v / s);
  const fn = f.map((v) => v / fs);
  return dist(n, fn) < 0.08;
}

// ---------------------------------------------------------------- page

/** Waits until the player (of a page or a frame) has shown its first frame (or an error); returns its state. */
export async function waitReady(page, timeout = 60_000) {
  await page.waitForFunction(
    () =>
      window.__player && (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
    null,
    { timeout },
  );
  const s = await playerState(page);
  if (!s.ready) throw new Error(`player did not become ready: ${s.error}`);
  // No quiet fallback: in a browser launched with WebGPU (its adapter checked at launch) the
  // player draws with WebGPU unless the page asked for a renderer (?renderer=webgl).
  // (`page` may be a Frame: its page holds the browser context.)
  const want = (page.context ? page : page.page()).context().expectedBackend;
  // (Ready means a renderer started: an empty backend is no exception.)
  if (want && s.backend !== want && !new URL(page.url()).searchParams.has('renderer'))
    throw new Error(`the player drew with ${s.backend || 'nothing'}, not ${want} (${page.url()})`);
  return s;
}

export async function playerState(page) {
  return page.evaluate(() => {
    const s = window.__player.diagnostics.snapshot();
    return { ...s, info: s.info ? { ...s.info, chunks: s.info.chunks.length } : null };
  });
}

/** Lets the render loop draw a few frames (and the compositor present them). */
export async function settle(page, frames = 8) {
  await page.evaluate(
    (n) =>
      new Promise((resolve) => {
        let k = 0;
        const f = () => (++k >= n ? resolve() : requestAnimationFrame(f));
        requestAnimationFrame(f);
      }),
    frames,
  );
}

/**
 * The player's clock over `n` animation frames, read in a frame callback registered after the
 * player's own loop (so it runs after it in each frame): [{ts, time}], `ts` the frame's timestamp
 * (ms), `time` the clock the player stepped to in that frame. The loop steps the clock by the
 * frames' timestamps (www/core/loop.ts: dt = Δts, at most 0.25 s; 0 on the first frame after a
 * rest or a play()), so tests compare steps with Δts × speed instead of timing anything.
 * `play`: call play() first (the loop's frame callback is then registered before this one).
 */
export function clockFrames(page, n, { play = false } = {}) {
  return page.evaluate(
    ({ n, play }) =>
      new Promise((resolve) => {
        const p = window.__player;
        const t0 = p.currentTime;
        if (play) p.play();
        const out = [];
        const f = (ts) => {
          out.push({ ts, time: p.currentTime });
          if (out.length < n) requestAnimationFrame(f);
          else resolve({ t0, frames: out });
        };
        requestAnimationFrame(f);
      }),
    { n, play },
  );
}

/** [{dt (s), step (s of playback)}] between the consecutive frames of clockFrames(). */
export const clockSteps = (frames) =>
  frames.slice(1).map((f, i) => ({ dt: (f.ts - frames[i].ts) / 1000, step: f.time - frames[i].time }));

/** The decoder worker of `page` (the render worker, render-worker.js, is the other one). */
export function decoderWorker(page) {
  return page.workers().find((w) => /\/worker\.js$/.test(w.url()));
}

/** The render worker of `page`, or undefined when the page draws itself (?render=page). */
export function renderWorker(page) {
  return page.workers().find((w) => /\/render-worker\.js$/.test(w.url()));
}

/** Screenshot of the canvas (labels hidden) decoded to pixels, plus the entity label positions. */
export async function canvasShot(page, file, { strictCsp = false } = {}) {
  if (strictCsp) {
    // A page under a strict CSP refuses the <style> below (and says so in its console): the CSSOM.
    await page.evaluate(() => {
      for (const e of document.querySelectorAll('.rp-labels, .stage-hint')) e.style.visibility = 'hidden';
    });
  } else {
    await page.evaluate(() => document.body.classList.add('test-hide-labels'));
    await page
      .addStyleTag({
        content: '.test-hide-labels .rp-labels, .test-hide-labels .stage-hint { visibility: hidden !important; }',
      })
      .catch(() => {});
  }
  await settle(page);
  const points = await page.evaluate(async () => {
    const p = window.__player;
    const L = await p.diagnostics.rendererLabels();
    const out = [];
    for (let i = 0; i < L.length; i += 4)
      if (L[i + 3] === 1) out.push({ id: L[i], x: L[i + 1], y: L[i + 2], faction: p.diagnostics.factionOf(L[i]) });
    return out;
  });
  const canvas = page.locator('canvas.rp-canvas');
  const png = await canvas.screenshot({ path: file });
  await page.evaluate(() => document.body.classList.remove('test-hide-labels'));
  return { img: decodePng(png), points };
}

// ---------------------------------------------------------------- picture checks

/** The background #10141c fills the space around the globe and the corners. */
export function assertBackground(img) {
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

export function assertPicture({ img, points }, when) {
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

// ---------------------------------------------------------------- timeline markers, kill feed

/**
 * The timeline's markers from the page's inspection hook (#scrub-markers' inspect(), see
 * www/widgets/marker-layer.ts): one entry per kill ({ x, y, t, tick }) and one per drawn event slot
 * ({ x, y, kind, count }), x / y in CSS px relative to #scrubber's box.
 */
export async function timelineMarkers(page) {
  return page.evaluate(() => document.getElementById('scrub-markers').inspect());
}

/** Index of the kill with the most room (in seconds) to its neighbours. */
export function roomiestKill(killFeed) {
  let pick = 0;
  let room = -1;
  killFeed.forEach((k, i) => {
    const gap = Math.min(
      i > 0 ? k.time - killFeed[i - 1].time : Infinity,
      i + 1 < killFeed.length ? killFeed[i + 1].time - k.time : Infinity,
    );
    if (gap > room) {
      room = gap;
      pick = i;
    }
  });
  return pick;
}

/**
 * Scrolls the (virtualized) kill feed like a user would until row `index` (0-based) exists, and
 * returns its locator (rows only exist while in view).
 */
export async function killFeedRow(page, index) {
  const row = page.locator(`#killfeed li[aria-posinset="${index + 1}"]`);
  await page.locator('#killfeed-scroll').evaluate((e, i) => {
    const rowPx =
      e.querySelector('#killfeed').offsetHeight /
      Number(e.querySelector('#killfeed li[aria-setsize]').getAttribute('aria-setsize'));
    e.scrollTop = Math.max(0, (i + 0.5) * rowPx - e.clientHeight / 2);
  }, index);
  await row.waitFor({ state: 'visible', timeout: 10_000 });
  return row;
}

/** Until the player's pending seek (if any) has its frame. */
export const seekLanded = (page) =>
  page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending, null, { timeout: 10_000 });

/** The playhead (`time`), its chunk, and the timing the worker sent with the piece that holds it
 *  (docs/worker-protocol.md `piece`; null when no piece holds it). */
export const playhead = (page) =>
  page.evaluate(() => {
    const p = window.__player;
    const tick = p.tick;
    const piece = p.diagnostics.pieceAt(tick);
    return {
      time: p.currentTime,
      chunk: p.info.chunks.findLastIndex((c) => c.firstTick <= tick),
      timing: piece
        ? (p.diagnostics.perf().chunks.findLast((c) => c.index === piece.chunk && c.from === piece.from) ?? null)
        : null,
    };
  });

/** Until no prefetch hint waits on the page and the worker got and handled every one sent. */
export async function hintsSettled(page) {
  for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(25)) {
    const s = await page.evaluate(async () => {
      const p = window.__player;
      if (p.diagnostics.snapshot().hints.waiting) return null;
      const w = await p.diagnostics.workerStats();
      return w.hints === p.diagnostics.snapshot().hints.sent && !w.hinting ? w : null;
    });
    if (s) return s;
  }
  throw new Error('timed out: prefetch hints still waiting or being handled');
}

/** "killer → victim (weapon)" from a feed row's .kf-text (the arrow is spaced by CSS margins). */
export const feedRowText = (t) => t.replace(/\s*→\s*/, ' → ');

/**
 * The picture is drawn (not blank): the stage's background around the scene, and both factions'
 * colours on the aircraft. `img` is a screenshot of the player; its bottom `skip` px (the compact
 * controls) are left out.
 */
export function assertDrawn(img, when, skip = 0) {
  let f0 = 0;
  let f1 = 0;
  let bg = 0;
  const h = img.height - skip;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < img.width; x++) {
      const px = img.at(x, y);
      if (nearFaction(px, 0)) f0++;
      else if (nearFaction(px, 1)) f1++;
      else if (Math.hypot(px[0] - BACKGROUND[0], px[1] - BACKGROUND[1], px[2] - BACKGROUND[2]) < 28) bg++;
    }
  const n = img.width * h;
  assert.ok(bg / n > 0.25, `${when}: the stage's background around the scene (${((100 * bg) / n).toFixed(1)}%)`);
  assert.ok(f0 >= 20 && f1 >= 20, `${when}: both factions' colours drawn (${f0}, ${f1} px)`);
}
