// Hostile files in the browser (docs/security.md, "Browser"), in headless Chromium:
//  1. strings from a file (callsigns, faction / entity-type names, engine version, mission id,
//     metadata, chat, admin, custom events, the file name) that are HTML or script render as text:
//     no script runs, no element is injected, the strings are in the panels' textContent; a name
//     with a bidi override is refused and the reader's error shows as text;
//  2. the page plays under `Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'` (and a
//     strict default-src 'self' policy) with no violation;
//  3. a wasm trap in the decoder (in a reply, and outside any request) shows an error in words and
//     the next file opens in a restarted worker;
//  4. a zstd bomb (a 64 KB frame that expands to 2 GiB, declared 64 KiB) fails with the reader's
//     message while the decoder's wasm memory stays small;
//  5. the page has no window `message` listener, and messages posted to it change nothing.
// The hostile-strings replay is written by `cargo run --release --example make_hostile_strings`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole, ROOT, WWW } from './harness.mjs';
import {
  DEMO,
  BACKGROUND,
  waitReady,
  playerState,
  settle,
  decodePng,
  fractionNear,
  timelineMarkers,
  decoderWorker,
  renderWorker,
  hostileStrings,
} from './player-helpers.mjs';

const HOSTILE = path.join(ROOT, 'tests', 'fixtures', 'hostile');
/** The recording with markup in its strings (player-helpers.mjs hostileStrings()). */
let STRINGS = '';

// The payloads of make_hostile_strings.rs: each sets window.__pwned if it ever runs.
const IMG = '<img src=x onerror="window.__pwned=1">';
const SCRIPT = '<script>window.__pwned=2</script>';
const SVG = '"><svg onload=window.__pwned=3>';
const JS_URL = 'javascript:window.__pwned=4';
const IFRAME = '<iframe src="javascript:parent.__pwned=5"></iframe>';
const RTL = 'שלום عليكم <b>rtl</b>';
const LONG_PREFIX = 'LONG:<img src=x onerror="window.__pwned=9">';
const FILE_NAME = '"><img src=x onerror="window.__pwned=10">.flrep';

let srv;
let browser;
let base;

before(async () => {
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  STRINGS = hostileStrings();
  srv = await startServer({ root: WWW });
  base = srv.url;
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

/**
 * Before any page script: records dialogs, elements a markup injection would add (a
 * MutationObserver over the whole document), inline event-handler attributes, CSP violations and
 * window `message` listeners the page registers.
 */
function watchdog() {
  window.__watch = { added: [], handlerAttrs: [], csp: [], messageListeners: 0, dialogs: 0 };
  const W = window.__watch;
  for (const name of ['alert', 'confirm', 'prompt']) {
    const orig = window[name];
    window[name] = function (...a) {
      W.dialogs++;
      return orig.apply(this, a);
    };
  }
  document.addEventListener('securitypolicyviolation', (e) => {
    W.csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
  });
  const addListener = window.addEventListener;
  window.addEventListener = function (type, ...rest) {
    if (type === 'message') W.messageListeners++;
    return addListener.call(this, type, ...rest);
  };
  Object.defineProperty(window, 'onmessage', {
    configurable: true,
    set() {
      W.messageListeners++;
    },
    get() {
      return null;
    },
  });
  const sel = 'img, script, svg, iframe, object, embed, frame, base, form, meta';
  // Elements a markup injection would create, and attributes that would run script; the page's own
  // markup (parsed before load) is not counted.
  const check = (n) => {
    if (n.nodeType !== 1 || document.readyState === 'loading') return;
    const els = [n, ...n.querySelectorAll('*')];
    for (const e of els) {
      if (e.matches(sel)) W.added.push(e.outerHTML.slice(0, 120));
      for (const a of e.attributes)
        if (/^on/i.test(a.name) || /^\s*javascript:/i.test(a.value))
          W.handlerAttrs.push(`${e.tagName} ${a.name}=${a.value.slice(0, 60)}`);
    }
  };
  new MutationObserver((list) => {
    for (const m of list) {
      for (const n of m.addedNodes) check(n);
      if (m.type === 'attributes') check(m.target);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true });
}

async function openPage(url = base) {
  const page = await browser.newPage();
  const log = collectConsole(page);
  const dialogs = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await page.addInitScript(watchdog);
  await page.goto(url, { waitUntil: 'load' });
  return { page, log, dialogs };
}

const watch = (page) =>
  page.evaluate(() => ({
    ...window.__watch,
    pwned: window.__pwned,
    dangerous: document.querySelectorAll('img, script, svg, iframe, object, embed').length,
  }));
const texts = (page, selector) => page.locator(selector).evaluateAll((els) => els.map((e) => e.textContent));
const childElements = (page, selector) =>
  page.locator(selector).evaluateAll((els) => els.reduce((n, e) => n + e.querySelectorAll('*').length, 0));

function assertNothingRan(w, dialogs, when) {
  assert.equal(w.pwned, undefined, `${when}: a payload ran (window.__pwned = ${w.pwned})`);
  assert.equal(w.dialogs, 0, `${when}: a dialog was opened`);
  assert.deepEqual(dialogs, [], `${when}: dialogs`);
  assert.deepEqual(w.added, [], `${when}: elements added to the document`);
  assert.deepEqual(w.handlerAttrs, [], `${when}: event-handler or javascript: attributes`);
}

test('strings from a file render as text: no script runs, no element is injected, the panels show the strings', {
  timeout: 240_000,
}, async (t) => {
  const { page, log, dialogs } = await openPage();
  try {
    await waitReady(page);
    const before = await watch(page);
    assertNothingRan(before, dialogs, 'the demo');
    // Pickup toasts: record their text before they fade.
    await page.evaluate(() => {
      window.__toasts = [];
      new MutationObserver((l) => {
        for (const m of l) for (const n of m.addedNodes) window.__toasts.push(n.textContent);
      }).observe(document.getElementById('toasts'), { childList: true });
    });
    // Through the picker, under a file name that is markup too.
    await page.setInputFiles('#file-input', {
      name: FILE_NAME,
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(STRINGS),
    });
    await page.waitForFunction(
      (n) =>
        window.__player.diagnostics.snapshot().name === n &&
        (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
      FILE_NAME,
      { timeout: 60_000 },
    );
    const s = await playerState(page);
    assert.equal(s.error, null, `opens: ${s.error}`);
    assert.equal(s.info.info.participants.length, 6);

    // File name: top bar text and the document title.
    assert.equal(await page.locator('#file-name').textContent(), FILE_NAME);
    assert.ok((await page.title()).startsWith(FILE_NAME));

    // Roster: callsigns and faction names, as text, each in a span without child elements.
    const callsigns = await texts(page, '#roster .callsign');
    for (const c of [IMG, SCRIPT, SVG, JS_URL, RTL])
      assert.ok(callsigns.includes(c), `roster shows ${c}: ${JSON.stringify(callsigns)}`);
    assert.ok(
      callsigns.some((c) => c.startsWith(LONG_PREFIX) && c.length === 4096),
      'roster shows the 4 KiB callsign whole',
    );
    const factions = await texts(page, '#roster .faction-name');
    assert.ok(
      factions.includes(IFRAME) && factions.includes(JS_URL),
      `faction names: ${JSON.stringify([...new Set(factions)])}`,
    );
    assert.equal(await childElements(page, '#roster .callsign, #roster .faction-name'), 0);

    // Recording panel: engine version, mission id, metadata keys and values.
    await page.locator('#panel-info summary').click();
    const info = await texts(page, '#info-list dt, #info-list dd');
    for (const v of [IMG, SCRIPT, SVG, JS_URL, IFRAME, RTL]) assert.ok(info.includes(v), `info panel shows ${v}`);
    assert.ok(
      info.some((v) => v.startsWith(LONG_PREFIX)),
      'info panel shows the long metadata value',
    );
    assert.equal(await childElements(page, '#info-list dt, #info-list dd'), 0);

    // Status panel: map and mode come from metadata.
    const status = await texts(page, '#status-list dd');
    assert.ok(status.includes(IMG) && status.includes(SVG), `status map/mode: ${JSON.stringify(status)}`);

    // Kill feed: callsigns and the weapon's entity-type name.
    const feed = await texts(page, '#killfeed .kf-text');
    assert.equal(feed.length, 4, `kill feed: ${JSON.stringify(feed)}`);
    assert.ok(
      feed[0].includes(IMG) && feed[0].includes(SCRIPT) && feed[0].includes(`(${IMG})`),
      `first kill: ${feed[0]}`,
    );
    assert.equal(await childElements(page, '#killfeed .kf-text span'), 0);
    assert.equal(Number(await page.locator('#killfeed li').first().getAttribute('aria-setsize')), 4);
    // Timeline: hovering the first kill marker shows its text in the tooltip, as text.
    const box = await page.locator('#scrubber').boundingBox();
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, 4);
    await page.mouse.move(box.x + m.kills[0].x, box.y + m.kills[0].y);
    await page.locator('#scrub-tip').waitFor({ state: 'visible' });
    const tip = await page.locator('#scrub-tip').textContent();
    assert.ok(tip.includes(IMG) && tip.includes(SCRIPT), `marker tooltip: ${tip}`);
    assert.equal(await childElements(page, '#scrub-tip'), 0);
    await page.mouse.move(5, 5);

    // Play at 4x through the pickup (3 s) and a kill; labels over the canvas carry callsigns.
    await page.evaluate(() => {
      window.__player.setSpeed(4);
      window.__player.play();
    });
    await page.waitForFunction(() => window.__player.currentTime > 8 || window.__player.ended, null, {
      timeout: 60_000,
    });
    await page.evaluate(() => window.__player.pause());
    // Timeline events (titles; events arrive with their chunks): chat, admin, custom types and data.
    // (the tooltip of each drawn event marker, hovered in turn).
    const evBox = await page.locator('#scrubber').boundingBox();
    const tips = [];
    for (const e of (await timelineMarkers(page)).events) {
      await page.mouse.move(evBox.x + e.x, evBox.y + e.y);
      await page.locator('#scrub-tip').waitFor({ state: 'visible' });
      tips.push(await page.locator('#scrub-tip').textContent());
      assert.equal(await childElements(page, '#scrub-tip'), 0);
    }
    await page.mouse.move(5, 5);
    const evTitles = tips.join('\n');
    for (const v of [
      `Chat (${IMG}): ${SCRIPT} ${IMG}`,
      `Admin (participant 0): ${SVG} ${JS_URL}`,
      `${IMG}: ${SVG}`,
      `${SCRIPT}: ${SCRIPT} #99 (${IFRAME})`,
    ]) {
      assert.ok(evTitles.includes(v), `an event title contains ${v}:\n${evTitles}`);
    }

    const toasts = await page.evaluate(() => window.__toasts);
    assert.ok(toasts.includes(`${SVG} picked up ${IMG}`), `pickup toast: ${JSON.stringify(toasts)}`);
    const labels = await texts(page, '.rp-label .rp-name');
    t.diagnostic(`labels: ${labels.length}`);
    if (labels.length)
      assert.ok(
        labels.every((l) => [IMG, SCRIPT, SVG, JS_URL, RTL].includes(l) || l.startsWith(LONG_PREFIX)),
        `labels: ${JSON.stringify(labels)}`,
      );

    // An entity without a callsign is named by its entity type; the inspector shows it as text.
    await page.evaluate(() => window.__player.select(99));
    await page.waitForFunction(() => document.getElementById('insp-name').textContent.length > 0);
    assert.equal(await page.locator('#insp-name').textContent(), `${SCRIPT} #99`);
    assert.equal(await page.locator('#insp-sub').textContent(), `${SCRIPT} · ground · ${JS_URL}`);
    // The kill cam badge: killer → victim.
    await page.evaluate(() => window.__player.startKillCam(window.__player.kills[0]));
    await page.waitForFunction(() => document.getElementById('killcam-sub').textContent.length > 0);
    assert.equal(await page.locator('#killcam-sub').textContent(), `${IMG} → ${SCRIPT} · 0.5×`);
    await page.evaluate(() => window.__player.stopKillCam());

    await settle(page, 10);
    const w = await watch(page);
    assertNothingRan(w, dialogs, 'the hostile-strings replay');
    assert.equal(w.dangerous, before.dangerous, 'no img/script/svg/iframe/object/embed element was added');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a name with a bidi override (U+202E) is refused: the reader's error shows, as text", {
  timeout: 120_000,
}, async () => {
  const { page, log, dialogs } = await openPage();
  try {
    await waitReady(page);
    for (const [file, what] of [
      ['string_bidi_override.flrep', 'callsign'],
      ['string_bidi_isolate_type_name.flrep', 'entity type name'],
    ]) {
      await page.setInputFiles('#file-input', path.join(HOSTILE, file));
      await page.waitForFunction(
        (f) => window.__player.diagnostics.snapshot().name === f && window.__player.diagnostics.snapshot().error,
        file,
        {
          timeout: 60_000,
        },
      );
      await page.waitForSelector('#error:not([hidden])');
      const text = await page.locator('#error-text').textContent();
      assert.match(
        text,
        new RegExp(`bad string in ${what} at offset \\d+: contains a bidirectional-override character`, 'i'),
      );
      assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(text), 'the message carries no bidi control');
      assert.equal(await childElements(page, '#error-text'), 0);
      // Nothing of the refused file reached the panels.
      assert.equal(await page.locator('#roster li').count(), 0);
    }
    assertNothingRan(await watch(page), dialogs, 'bidi files');
    log.assertClean();
  } finally {
    await page.close();
  }
});

const CSP_BASIC = "script-src 'self' 'wasm-unsafe-eval'";
const CSP_STRICT =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

for (const [label, policy] of [
  ["script-src 'self' 'wasm-unsafe-eval'", CSP_BASIC],
  ["a strict default-src 'self' policy", CSP_STRICT],
]) {
  test(`under CSP ${label}: the demo plays at 4x, seeks and follows a kill marker with no violation`, {
    timeout: 240_000,
  }, async (t) => {
    const csp = await startServer({ root: WWW, headers: { 'Content-Security-Policy': policy } });
    const { page, log, dialogs } = await openPage(csp.url);
    try {
      const s = await waitReady(page);
      assert.equal(s.name, 'demo/demo.flrep');
      // The worker got the same policy (its script's response header): watch it there too.
      const worker = decoderWorker(page);
      assert.ok(worker, 'a decoder worker runs');
      // And the render worker, which loads the renderer wasm (compiled under 'wasm-unsafe-eval').
      const render = renderWorker(page);
      assert.ok(render && s.renderInWorker, 'a render worker draws');
      for (const w of [worker, render]) {
        await w.evaluate(() => {
          self.__csp = [];
          self.addEventListener('securitypolicyviolation', (e) =>
            self.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
          );
        });
      }
      await page.selectOption('#speed', '4');
      await page.locator('#play').click();
      await page.waitForFunction(() => window.__player.currentTime > 6, null, { timeout: 60_000 });
      const t0 = await page.evaluate(() => window.__player.currentTime);
      assert.ok(t0 > 6, `played to ${t0}`);
      await page.evaluate(() => window.__player.pause());
      await page.evaluate(() => window.__player.seek(window.__player.duration / 2));
      await page.waitForFunction(
        () =>
          window.__player.diagnostics.snapshot().chunksHeld.length > 0 &&
          !window.__player.diagnostics.snapshot().seekPending,
        null,
        { timeout: 60_000 },
      );
      const mk = (await timelineMarkers(page)).kills[1];
      const sb = await page.locator('#scrubber').boundingBox();
      await page.mouse.click(sb.x + mk.x, sb.y + mk.y);
      const kill = (await playerState(page)).killFeed[1];
      await page.waitForFunction((k) => Math.abs(window.__player.currentTime - Math.max(0, k - 2)) < 0.05, kill.time, {
        timeout: 30_000,
      });
      await settle(page, 10);
      // Frames were drawn: the canvas shows more than the background.
      assert.equal(await page.evaluate(() => window.__player.diagnostics.snapshot().firstFrameShown), true);
      const png = decodePng(await page.locator('canvas.rp-canvas').screenshot());
      const bg = fractionNear(png, BACKGROUND, 6);
      t.diagnostic(`background fraction ${bg.toFixed(3)}`);
      assert.ok(bg < 0.999, 'the canvas is not blank');

      const w = await watch(page);
      const workerCsp = [...(await worker.evaluate(() => self.__csp)), ...(await render.evaluate(() => self.__csp))];
      const consoleCsp = log.messages.filter((m) => /Content Security Policy|Refused to/i.test(m));
      t.diagnostic(`CSP violations: page ${w.csp.length}, worker ${workerCsp.length}, console ${consoleCsp.length}`);
      assert.deepEqual(w.csp, [], 'securitypolicyviolation events on the page');
      assert.deepEqual(workerCsp, [], 'securitypolicyviolation events in the workers');
      assert.deepEqual(consoleCsp, [], 'console messages about the CSP');
      assertNothingRan(w, dialogs, 'CSP');
      log.assertClean();
    } finally {
      await page.close();
      await csp.close();
    }
  });
}

test('a wasm trap in the decoder: the page says so in words and the next file opens in a restarted worker', {
  timeout: 180_000,
}, async () => {
  const { page, dialogs } = await openPage();
  try {
    await waitReady(page);
    // 1. A trap in the reply to a request (test hook `__trap`, www/worker.ts).
    const r = await page.evaluate(() =>
      window.__player.diagnostics.trapWorker().then(
        () => ({ ok: true }),
        (e) => ({ message: e.message, fatal: e.fatal }),
      ),
    );
    assert.equal(r.fatal, true, `the trap is fatal: ${JSON.stringify(r)}`);
    assert.match(r.message, /memory access out of bounds|unreachable/i);
    await page.waitForSelector('#error:not([hidden])');
    assert.match(
      await page.locator('#error-text').textContent(),
      /^The decoder crashed \((memory access out of bounds|unreachable)[^)]*\)\. Open the file again, or another one\.$/,
    );
    assert.equal((await playerState(page)).workerRestarts, 1);
    await page.setInputFiles('#file-input', STRINGS);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'hostile-strings.flrep' &&
        (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
      null,
      { timeout: 60_000 },
    );
    let s = await playerState(page);
    assert.equal(s.error, null);
    assert.equal(await page.locator('#error').isHidden(), true);
    assert.equal(await page.locator('#roster li').count(), 6);

    // 2. A trap outside any request (as while decoding a wanted chunk): the worker is replaced too.
    await page.evaluate(() => window.__player.diagnostics.trapWorker({ async: true }));
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().workerRestarts === 2, null, {
      timeout: 30_000,
    });
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error-text').textContent(), /decoder crashed/i);
    await page.setInputFiles('#file-input', DEMO);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'demo.flrep' &&
        (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
      null,
      { timeout: 60_000 },
    );
    s = await playerState(page);
    assert.equal(s.error, null);
    assert.equal(s.workerRestarts, 2);
    await page.evaluate(() => window.__player.seek(30));
    await page.waitForFunction(
      () =>
        !window.__player.diagnostics.snapshot().seekPending &&
        window.__player.diagnostics.snapshot().chunksHeld.length > 0,
      null,
      { timeout: 30_000 },
    );
    assertNothingRan(await watch(page), dialogs, 'trap');
  } finally {
    await page.close();
  }
});

test("zstd bombs: the reader's error shows and the decoder's wasm memory stays small", {
  timeout: 180_000,
}, async (t) => {
  const { page, log } = await openPage();
  const MiB = 1024 * 1024;
  const mib = (b) => `${(b / MiB).toFixed(2)} MiB`;
  try {
    await waitReady(page);
    const demo = await page.evaluate(() => window.__player.diagnostics.workerStats());
    assert.ok(demo.wasmMemoryBytes > 0, "stats report the decoder's wasm memory");
    // wasm memory never shrinks: each figure is the peak so far. zstd_bomb_2gib: a 64 KB frame of
    // 16,384 RLE blocks (2 GiB) with an 8 MiB window, declared 64 KiB. zstd_bomb_at_cap: 32 MiB
    // declared as 16 MiB, the largest chunk accepted (the legitimate worst case plus one block).
    const cases = [
      ['zstd_bomb_2gib.flrep', 65536, 64 * MiB],
      ['zstd_bomb_at_cap.flrep', 16 * MiB, 96 * MiB],
    ];
    let prev = demo.wasmMemoryBytes;
    for (const [file, declared, cap] of cases) {
      await page.setInputFiles('#file-input', path.join(HOSTILE, file));
      await page.waitForFunction(
        (f) => window.__player.diagnostics.snapshot().name === f && window.__player.diagnostics.snapshot().error,
        file,
        {
          timeout: 60_000,
        },
      );
      await page.waitForSelector('#error:not([hidden])');
      assert.equal(
        await page.locator('#error-text').textContent(),
        `Chunk at offset 417: zstd frame decompresses to more than the declared ${declared} bytes`,
      );
      // Try to play and seek over it: every attempt fails the same way.
      await page.evaluate(async () => {
        const p = window.__player;
        p.play();
        await new Promise((r) => setTimeout(r, 1000));
        p.seek(0.5);
        await new Promise((r) => setTimeout(r, 500));
        p.seek(0);
        await new Promise((r) => setTimeout(r, 500));
      });
      const st = await page.evaluate(() => window.__player.diagnostics.workerStats());
      t.diagnostic(
        `${file}: decoder wasm memory ${mib(st.wasmMemoryBytes)} (was ${mib(prev)}; ${st.reads} chunk reads, ${st.decoded} decoded)`,
      );
      assert.ok(st.reads >= 1, 'the chunk was read');
      assert.equal(st.decoded, 0);
      assert.ok(st.wasmMemoryBytes < cap, `${file}: wasm memory ${mib(st.wasmMemoryBytes)} over ${mib(cap)}`);
      prev = st.wasmMemoryBytes;
    }
    assert.equal((await playerState(page)).workerRestarts, 0, 'no trap');
    // The decoder still works: a good file opens and plays in the same worker.
    await page.setInputFiles('#file-input', DEMO);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'demo.flrep' &&
        (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
      null,
      { timeout: 60_000 },
    );
    assert.equal((await playerState(page)).error, null);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('window messages: the page registers no message listener, and messages posted to it (also from another origin) change nothing', {
  timeout: 120_000,
}, async () => {
  const { page, log, dialogs } = await openPage();
  try {
    const s0 = await waitReady(page);
    const w = await watch(page);
    assert.equal(w.messageListeners, 0, 'no window message listener');
    // Protocol-shaped messages from the page's own origin and from an opaque-origin iframe.
    await page.evaluate(async () => {
      const msgs = [
        { type: 'fatal', message: 'forged' },
        { type: 'error', session: 1, message: 'forged', fatal: true },
        { id: 1, method: 'open', params: { url: 'javascript:alert(1)' } },
        {
          type: 'piece',
          session: 1,
          gen: 99,
          chunk: 0,
          from: 0,
          end: 1e9,
          stride: 1,
          ticks: [],
          offsets: [0],
          entities: [],
          events: [],
        },
      ];
      for (const m of msgs) window.postMessage(m, '*');
      const f = document.createElement('iframe');
      f.sandbox = 'allow-scripts';
      f.src = `data:text/html,${encodeURIComponent(`<script>for (const m of ${JSON.stringify(msgs)}) parent.postMessage(m, '*');</script>`)}`;
      document.body.append(f);
      await new Promise((r) => setTimeout(r, 1000));
      f.remove();
    });
    const s1 = await playerState(page);
    assert.equal(s1.error, null);
    assert.equal(s1.workerRestarts, 0);
    assert.equal(s1.name, s0.name);
    assert.equal(await page.locator('#error').isHidden(), true);
    assert.equal(dialogs.length, 0);
    log.assertClean();
  } finally {
    await page.close();
  }
});
