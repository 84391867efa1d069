// The full page installable and offline (docs/embedding.md "Installable and offline"): after one
// visit the service worker (www/sw.ts, registered by main.js once the first replay is up) holds
// this build's shell and wasm, and the page loads and plays a local file with the network cut; a
// new build is a new cache and the old one goes; replays and Range requests are never cached; the
// manifest is linked, valid and declares the file handlers an installed player opens files with,
// which main.js takes from the launch queue.
//   node scripts/dist.mjs && node --test tests/e2e/offline.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole, WWW, expectedBackend } from './harness.mjs';
import { OUT, DEMO, waitReady, canvasShot, assertPicture } from './player-helpers.mjs';
import { buildDist, serviceWorkerBuild } from '../../scripts/dist.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-offline-'));
// A build of its own: the test makes a second build of it.
const site = path.join(tmp, 'dist');
const LOCAL = path.join(tmp, 'local-match.flrep');
let srv;
/** Requests the server saw, and whether it answers at all (`cut`: the network is down). */
const seen = [];
let cut = false;
let browser;

before(async () => {
  assert.ok(fs.existsSync(path.join(WWW, 'sw.js')), 'dist/ is not built: run node scripts/dist.mjs first');
  await buildDist({ out: site });
  fs.copyFileSync(DEMO, LOCAL);
  srv = await startServer({ root: site });
  const handlers = srv.server.listeners('request');
  srv.server.removeAllListeners('request');
  srv.server.on('request', (req, res) => {
    seen.push({ url: req.url, range: req.headers.range ?? null, cut });
    if (cut) {
      req.socket.destroy();
      return;
    }
    for (const h of handlers) h.call(srv.server, req, res);
  });
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The page's caches: `{ name: [pathname + search, …] }`. */
const cacheContents = (page) =>
  page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) {
      const c = await caches.open(name);
      out[name] = (await c.keys()).map((r) => {
        const u = new URL(r.url);
        return u.pathname + u.search;
      });
    }
    return out;
  });

/** Until the page's caches are exactly `{ [name]: paths }` (the worker installs in the background). */
async function cachesBecome(page, name, paths, timeout = 60_000) {
  let last;
  for (const end = Date.now() + timeout; Date.now() < end; await page.waitForTimeout(200)) {
    last = await cacheContents(page);
    const keys = Object.keys(last);
    if (keys.length === 1 && keys[0] === name && paths.every((p) => last[name].includes(p))) return last[name];
  }
  throw new Error(`caches are not ${name} with ${paths.length} files: ${JSON.stringify(last).slice(0, 800)}`);
}

const expected = () => {
  const b = serviceWorkerBuild(site);
  return { name: `replay-player-${b.version}`, files: b.files.map((f) => `/${f}`), build: b };
};

let page;
let log;

test('one visit: the service worker holds this build, and nothing of the replays', { timeout: 120_000 }, async () => {
  page = await browser.newPage();
  log = collectConsole(page);
  await page.goto(srv.url);
  await waitReady(page);
  const { name, files } = expected();
  assert.ok(files.includes('/index.html') && files.includes('/main.js') && files.includes('/worker.js'));
  assert.ok(files.some((f) => /^\/pkg\/decoder\/.*\.wasm$/.test(f)) && files.some((f) => /renderer_bg\.wasm$/.test(f)));
  assert.ok(!files.some((f) => /renderer_webgl/.test(f)), 'the WebGL2 renderer is cached on first use, not on install');
  const held = await cachesBecome(page, name, files);
  assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.ready).active.state), 'activated');
  // A share link of a replay on this origin: its page is the cached shell, the replay is read by
  // Range requests that pass the worker by, and nothing of it is cached.
  await page.goto(`${srv.url}?url=demo/demo.flrep&t=3`);
  await waitReady(page);
  assert.ok(await page.evaluate(() => !!navigator.serviceWorker.controller), 'the page is controlled');
  const ranges = await page.evaluate(async () => {
    const r1 = await fetch('demo/demo.flrep', { headers: { Range: 'bytes=0-9' } });
    // A file the worker holds, asked for by range: the server's 206, not the cached whole file.
    const r2 = await fetch('pkg/decoder/decoder_bg.wasm', { headers: { Range: 'bytes=0-7' } });
    return [
      [r1.status, (await r1.arrayBuffer()).byteLength],
      [r2.status, (await r2.arrayBuffer()).byteLength],
    ];
  });
  assert.deepEqual(ranges, [
    [206, 10],
    [206, 8],
  ]);
  // The WebGL2 renderer is cached once used.
  const lazy = expected().build.lazy.find((f) => f.endsWith('.js'));
  await page.evaluate((f) => fetch(f).then((r) => r.text()), lazy);
  const after = (await cacheContents(page))[name];
  assert.ok(after.includes(`/${lazy}`), `${lazy} cached when first used`);
  assert.deepEqual(
    after.filter((p) => /\.(flrep|replay|foldback)$/.test(p) || p.includes('?') || p.startsWith('/demo/')),
    [],
    'no replay and no page with parameters in the cache',
  );
  assert.ok(
    held.length >= files.length && after.length === files.length + 1,
    `the build's files and the lazy one (${after.length})`,
  );
  const demoReads = seen.filter((r) => r.url.startsWith('/demo/'));
  assert.ok(demoReads.length >= 2 && demoReads.every((r) => r.range), 'the demo was read by Range requests');
  log.assertClean();
});

test('offline: the page loads from the cache and plays a local file', { timeout: 120_000 }, async () => {
  assert.ok(page, 'the first visit ran');
  await browser.context.setOffline(true);
  cut = true;
  const before = seen.length;
  try {
    const offLog = collectConsole(page);
    // A share link's page, offline: the shell comes from the cache; its replay cannot.
    await page.goto(`${srv.url}?url=demo/demo.flrep&t=3`);
    await page.waitForFunction(() => window.__player?.diagnostics.snapshot().error, null, { timeout: 60_000 });
    await page.setInputFiles('#file-input', LOCAL);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'local-match.flrep' &&
        window.__player.diagnostics.snapshot().ready,
      null,
      { timeout: 60_000 },
    );
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => window.__player.currentTime > 1, null, { timeout: 30_000 });
    fs.mkdirSync(OUT, { recursive: true });
    assertPicture(await canvasShot(page, path.join(OUT, 'offline-local-file.png')), 'offline, a local file');
    const s = await page.evaluate(() => window.__player.diagnostics.snapshot());
    assert.equal(s.error, null);
    assert.equal(s.backend, expectedBackend(true), 'the WebGPU renderer started offline (no quiet fallback)');
    // Nothing reached the server but the browser's own update checks of sw.js (which the cut
    // network failed, as it must not fail the page): every file came from the cache.
    assert.deepEqual(
      seen.slice(before).filter((r) => r.url !== '/sw.js'),
      [],
      'the page and its workers fetched nothing from the network',
    );
    // What failed is the linked replay alone (the network is down), said on the page as an error.
    offLog.assertClean([/demo\/demo\.flrep/, /Failed to load resource: net::ERR_INTERNET_DISCONNECTED/]);
  } finally {
    cut = false;
    await browser.context.setOffline(false);
  }
});

test('a new build is a new cache; the old one is deleted', { timeout: 120_000 }, async () => {
  assert.ok(page, 'the first visit ran');
  const old = expected();
  // A change to one shipped file (newer than its source, so the build keeps it).
  const css = path.join(site, 'style.css');
  fs.writeFileSync(css, `${fs.readFileSync(css, 'utf8')}\n/* build 2 */\n`);
  await buildDist({ out: site });
  const next = expected();
  assert.notEqual(next.name, old.name, 'a new version');
  await page.goto(srv.url);
  await waitReady(page);
  await cachesBecome(page, next.name, next.files);
  const cachedCss = await page.evaluate(
    async (n) => (await (await caches.open(n)).match('style.css')).text(),
    next.name,
  );
  assert.ok(cachedCss.includes('build 2'), "the new cache holds the new build's files");
});

test('the manifest: linked, valid, with file handlers; the launch queue opens a file', {
  timeout: 120_000,
}, async () => {
  const p = await browser.newPage();
  const plog = collectConsole(p);
  // An installed player launched with a file: the browser hands the page a launch queue.
  await p.addInitScript(() => {
    // Chromium has one (window.launchQueue, on Window.prototype): this one stands in for it.
    Object.defineProperty(window, 'launchQueue', {
      configurable: true,
      value: {
        setConsumer(fn) {
          window.__launchConsumer = fn;
        },
      },
    });
  });
  try {
    await p.goto(srv.url);
    await waitReady(p);
    const href = await p.evaluate(() => document.querySelector('link[rel="manifest"]')?.href);
    assert.equal(href, `${srv.url}manifest.webmanifest`);
    const res = await fetch(href);
    assert.match(res.headers.get('content-type'), /^application\/manifest\+json/);
    const m = JSON.parse(await res.text());
    assert.ok(m.name && m.short_name && m.start_url && m.display === 'standalone');
    const inScope = (u) => new URL(u, href).href.startsWith(new URL(m.scope, href).href);
    assert.ok(inScope(m.start_url), 'start_url is in scope');
    for (const icon of m.icons) assert.ok(fs.existsSync(path.join(site, icon.src)), `icon ${icon.src} ships`);
    const exts = m.file_handlers.flatMap((h) => Object.values(h.accept).flat());
    assert.deepEqual([...exts].sort(), ['.flrep', '.foldback', '.replay']);
    for (const h of m.file_handlers) assert.ok(inScope(h.action), `${h.action} is in scope`);
    // main.js consumes the launch queue: a launched file is opened.
    await p.evaluate(async () => {
      const bytes = await (await fetch('demo/demo.flrep')).blob();
      const file = new File([bytes], 'launched.flrep');
      await window.__launchConsumer({ files: [{ kind: 'file', name: file.name, getFile: async () => file }] });
    });
    await p.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'launched.flrep' &&
        window.__player.diagnostics.snapshot().ready,
    );
    plog.assertClean();
  } finally {
    await p.close();
  }
});
