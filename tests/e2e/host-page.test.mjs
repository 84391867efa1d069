// An embed never breaks its host page, and the project's own server serves what the embed snippets
// need (issue 31). A host page on one origin embeds the player served from another:
// - the element and the script form with player.css held back by the player's server until the host
//   page has drawn HELD_FRAMES frames (whatever the machine's speed): the
//   player's box and the host page's text after it are measured every animation frame, before,
//   during and after the sheet loads; neither may go past the box the player ends with (an
//   unstyled player whose timeline canvases fed back into their own size once grew to 33,554,364
//   px in Chromium, pushing the page's text down as far);
// - native controls in the element's shadow root (the speed and camera menus) are dark;
// - embed.html opened alone declares its icon (no /favicon.ico, no 404);
// - the script and element snippets of the Share dialog (www/features/share/links.ts), pasted as they
//   are into a page of another origin, play against scripts/serve.mjs (npm start) as it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole, ROOT, WWW } from './harness.mjs';
import { embedSnippets } from '../../www/features/share/links.ts';
import { within } from '../../www/lib/deadline.ts';

const OUT = path.join(ROOT, 'target', 'e2e');
const HOST_DIR = path.join(OUT, 'host-page');
const DEMO = path.join(WWW, 'demo', 'demo.flrep');
/** How many animation frames the host page samples while player.css is held back (the server
 *  answers it once the page has sampled them: however slow the machine, the claim is made of them). */
const HELD_FRAMES = 10;
/** The host pages' box for the player: 640 px wide, so 360 px tall (16:9, player.css). */
const WIDTH = 640;
const HEIGHT = (WIDTH * 9) / 16;

// The host page: text, the player's box, text. Its script is a file (the page's CSP has no
// 'unsafe-inline'); it records, every animation frame from before the player is imported, the
// box's size, how far below the box's top the next paragraph starts, and whether the player's
// stylesheet has loaded. ?form=element|script, ?player=<the player's folder>.
const HOST_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>A forum post</title>
  <script type="module" src="host.js"></script>
</head>
<body>
  <h1>A forum post</h1>
  <p id="before">The text before the replay.</p>
  <div id="slot"></div>
  <p id="after">The text after the replay.</p>
</body>
</html>
`;
const HOST_JS = `const q = new URLSearchParams(location.search);
const player = q.get('player');
const slot = document.getElementById('slot');
const after = document.getElementById('after');
const samples = [];
window.__samples = samples;
window.__ready = false;
let box = null;
const sheet = () => {
  const root = box?.shadowRoot ?? document;
  const link = [...root.querySelectorAll('link[rel="stylesheet"]')].find((l) => l.href.startsWith(player));
  return !!link?.sheet;
};
const sample = () => {
  const s = slot.getBoundingClientRect();
  const r = box ? box.getBoundingClientRect() : s;
  samples.push({ h: r.height, w: r.width, after: after.getBoundingClientRect().top - s.top, sheet: sheet() });
  if (!window.__stop) requestAnimationFrame(sample);
};
requestAnimationFrame(sample);
const demo = player + 'demo/demo.flrep';
if (q.get('form') === 'element') {
  await import(player + 'element.js');
  box = document.createElement('replay-player');
  box.style.width = '${WIDTH}px';
  box.setAttribute('src', demo);
  box.addEventListener('ready', () => (window.__ready = true));
  slot.append(box);
  window.__player = box;
} else {
  const { create } = await import(player + 'player.js');
  box = document.createElement('div');
  box.style.width = '${WIDTH}px';
  slot.append(box);
  const p = create(demo, box);
  p.on('ready', () => (window.__ready = true));
  window.__player = p;
}
`;

/** The host page's policy (docs/embedding.md "CSP", the script and element forms). */
const csp = (b) =>
  `default-src 'none'; script-src 'self' ${b} 'wasm-unsafe-eval'; worker-src blob: ${b}; connect-src ${b}; style-src ${b}`;

let browser;
/** The player (dist/) with CORS headers of its own, player.css held back while `holdCss`. */
let P;
let holdCss = false;
/** The requests for player.css held back, answered by releaseCss(). */
let heldCss = [];
/** Called when a request for player.css is held (openHeldBack waits on it). */
let onHeld = () => {};
function releaseCss() {
  const held = heldCss;
  heldCss = [];
  for (const answer of held) answer();
}
/** The player (dist/) served by scripts/serve.mjs as `npm start` serves it: no headers added. */
let S;
/** The host pages' origin. */
let A;
const hostHeaders = {};
const origin = (srv) => srv.url.slice(0, -1);

before(async () => {
  if (!fs.existsSync(DEMO)) throw new Error(`${DEMO} missing: run npm run build`);
  fs.mkdirSync(HOST_DIR, { recursive: true });
  fs.writeFileSync(path.join(HOST_DIR, 'host.html'), HOST_HTML);
  fs.writeFileSync(path.join(HOST_DIR, 'host.js'), HOST_JS);
  fs.copyFileSync(path.join(WWW, 'favicon.svg'), path.join(HOST_DIR, 'favicon.ico'));
  P = await startServer({
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
    },
  });
  // Holds player.css back: the server's own handler answers it when releaseCss() is called.
  const [handler] = P.server.listeners('request');
  P.server.removeAllListeners('request');
  P.server.on('request', (req, res) => {
    if (holdCss && req.url.split('?')[0] === '/player.css') {
      heldCss.push(() => handler(req, res));
      onHeld();
    } else handler(req, res);
  });
  S = await startServer();
  A = await startServer({ root: HOST_DIR, headers: hostHeaders });
  browser = await launchBrowser({ webgpu: true });
  await browser.context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
    );
  });
});

after(async () => {
  await browser?.close();
  for (const s of [P, S, A]) await s?.close();
});

/** Opens the host page with the player in `form`, player.css held back; returns once it has
 *  loaded, the player is ready and has played a moment. */
async function openHeldBack(form) {
  holdCss = true;
  hostHeaders['Content-Security-Policy'] = csp(origin(P));
  const page = await browser.newPage();
  const log = collectConsole(page);
  const asked = new Promise((resolve) => {
    onHeld = resolve;
  });
  await page.goto(`${A.url}host.html?form=${form}&player=${P.url}`, { waitUntil: 'load' });
  // The sheet comes once the player has asked for it (its link is in the page) and the page has
  // drawn HELD_FRAMES frames more with the player's box and without it.
  await within(asked, 'the player asking for player.css', 60_000);
  const from = await page.evaluate(() => window.__samples.length);
  await page.waitForFunction(
    ([n, from]) => window.__samples.slice(from).filter((s) => !s.sheet && s.w > 0).length >= n,
    [HELD_FRAMES, from],
    { timeout: 60_000, polling: 50 },
  );
  assert.ok(heldCss.length > 0, 'player.css was asked for and is held back');
  releaseCss();
  await page.waitForFunction(() => window.__ready && window.__samples.at(-1)?.sheet, null, {
    timeout: 60_000,
    polling: 50,
  });
  // Played a while after the sheet came (the markers drawn as kills are reached).
  await page.evaluate(() => window.__player.play());
  await page.waitForFunction(() => window.__player.currentTime > 1.5, null, { timeout: 30_000, polling: 50 });
  await page.evaluate(() => {
    window.__stop = true;
  });
  return { page, log };
}

/** Every frame sampled: the box and the text after it never past the box the player ends with. */
function assertNeverBeyondBox(t, form, samples) {
  const last = samples.at(-1);
  const held = samples.filter((s) => !s.sheet && s.w > 0);
  const maxH = Math.max(...samples.map((s) => s.h));
  const maxAfter = Math.max(...samples.map((s) => s.after));
  t.diagnostic(
    `${form}: ${samples.length} frames (${held.length} before player.css loaded); box ${last.w}×${last.h} px at the end, ` +
      `at most ${maxH} px tall; the text after it at most ${maxAfter} px below the box's top (${last.after} at the end)`,
  );
  // By construction: frames were sampled while the sheet was held back, and after it applied.
  assert.ok(held.length >= HELD_FRAMES, `${form}: ${held.length} frames sampled while player.css was held back`);
  assert.ok(last.sheet, `${form}: player.css applied at the end`);
  assert.equal(last.w, WIDTH, `${form}: the box's width at the end`);
  assert.ok(Math.abs(last.h - HEIGHT) <= 1, `${form}: the box at the end is ${WIDTH}×${HEIGHT} (16:9): ${last.h}`);
  const beyond = samples.filter((s) => s.h > last.h + 0.5 || s.after > last.after + 0.5);
  assert.deepEqual(
    beyond.slice(0, 5),
    [],
    `${form}: ${beyond.length} frame(s) where the player took more than its ${last.h} px box (at most ${maxH} px tall)`,
  );
}

async function assertNoCsp(page, log) {
  for (const f of page.frames()) assert.deepEqual(await f.evaluate(() => window.__csp ?? []), [], 'CSP violations');
  assert.deepEqual(
    log.messages.filter((m) => /Content Security Policy/i.test(m)),
    [],
    'CSP messages in the console',
  );
}

for (const form of ['element', 'script']) {
  test(`${form} form: with player.css held back the player never takes more than its box, and the page's text never moves past it`, {
    timeout: 120_000,
  }, async (t) => {
    const { page, log } = await openHeldBack(form);
    try {
      assertNeverBeyondBox(t, form, await page.evaluate(() => window.__samples));
      await page.screenshot({ path: path.join(OUT, `host-page-${form}.png`) });
      await assertNoCsp(page, log);
      log.assertClean();
    } finally {
      await page.close();
    }
  });
}

test('native controls are drawn dark: color-scheme in the element shadow root and in the script form', {
  timeout: 90_000,
}, async () => {
  holdCss = false;
  releaseCss();
  hostHeaders['Content-Security-Policy'] = csp(origin(P));
  for (const form of ['element', 'script']) {
    const page = await browser.newPage();
    const log = collectConsole(page);
    try {
      await page.goto(`${A.url}host.html?form=${form}&player=${P.url}`, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__ready && window.__samples.at(-1)?.sheet, null, {
        timeout: 60_000,
        polling: 50,
      });
      const schemes = await page.evaluate(() => {
        const root = document.querySelector('replay-player')?.shadowRoot ?? document;
        return {
          page: getComputedStyle(document.documentElement).colorScheme,
          selects: [...root.querySelectorAll('select')].map((s) => [s.className, getComputedStyle(s).colorScheme]),
        };
      });
      // The host page is light (it declares no scheme); the player's menus are not.
      assert.equal(schemes.page, 'normal', `${form}: the host page's own scheme`);
      assert.equal(schemes.selects.length, 2, `${form}: the speed and camera menus (${JSON.stringify(schemes)})`);
      for (const [name, scheme] of schemes.selects) assert.equal(scheme, 'dark', `${form}: ${name}'s color-scheme`);
      await assertNoCsp(page, log);
      log.assertClean();
    } finally {
      await page.close();
    }
  }
});

/** embed.html's own policy in docs/embedding.md ("CSP"), for the replays on its own origin. */
const EMBED_CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'";

for (const policy of [null, EMBED_CSP]) {
  test(`embed.html opened alone declares its icon: no /favicon.ico asked for, no 404${policy ? ', nothing refused by its strict CSP' : ''}`, {
    timeout: 60_000,
  }, async () => {
    // A server (an origin) of its own: the browser keeps an origin's icon once it has it.
    const E = await startServer({ headers: policy ? { 'Content-Security-Policy': policy } : {} });
    const requests = [];
    E.server.on('request', (req) => requests.push(req.url.split('?')[0]));
    const page = await browser.newPage();
    const log = collectConsole(page);
    const failed = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    try {
      await page.goto(`${E.url}embed.html?url=${encodeURIComponent('demo/demo.flrep')}`, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__player?.diagnostics.snapshot().ready, null, {
        timeout: 30_000,
        polling: 50,
      });
      // The browser asks for a page's icon after it loads: wait until it has asked for one.
      const deadline = Date.now() + 15_000;
      while (!requests.some((u) => /favicon/.test(u)) && Date.now() < deadline) await page.waitForTimeout(100);
      const icons = requests.filter((u) => /favicon/.test(u));
      assert.deepEqual(icons, ['/favicon.svg'], `the icons asked for (every request: ${requests.join(' ')})`);
      assert.equal(
        await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute('href')),
        'favicon.svg',
      );
      assert.deepEqual(failed, [], 'answers of 400 and more');
      await assertNoCsp(page, log);
      log.assertClean();
    } finally {
      await page.close();
      await E.close();
    }
  });
}

test("npm start's server: the Share dialog's script and element snippets play from another origin", {
  timeout: 120_000,
}, async () => {
  // The snippets exactly as the Share dialog writes them for the demo at 0:10, on a page of A
  // (no policy of its own: the snippet's inline script is the site owner's).
  delete hostHeaders['Content-Security-Policy'];
  const snippets = embedSnippets(S.url, { url: `${S.url}demo/demo.flrep`, t: { seconds: 10 } });
  fs.writeFileSync(
    path.join(HOST_DIR, 'snippets.html'),
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>snippets</title></head>\n<body>\n<h1>Pasted snippets</h1>\n${snippets.script}\n${snippets.element}\n</body>\n</html>\n`,
  );
  assert.match(snippets.script, /create\(".*demo\.flrep", document\.getElementById\("replay"\), \{ t: 10 \}\)/);
  assert.match(snippets.element, /<replay-player src=".*demo\.flrep" t="10"><\/replay-player>/);
  const page = await browser.newPage();
  const log = collectConsole(page);
  try {
    // Both players in view (each as wide as the page: 711 px tall): a player out of view waits.
    await page.setViewportSize({ width: 1280, height: 1600 });
    await page.goto(`${A.url}snippets.html`, { waitUntil: 'load' });
    // Each player's scrubber tells its time (aria-valuenow): both open at 10 s, then play.
    const times = () =>
      page.evaluate(() =>
        [document, document.querySelector('replay-player')?.shadowRoot].map((r) =>
          Number(r?.querySelector('.rp-scrub')?.getAttribute('aria-valuenow') ?? Number.NaN),
        ),
      );
    await page
      .waitForFunction(
        () =>
          [document, document.querySelector('replay-player')?.shadowRoot].every(
            (r) =>
              r?.querySelector('.rp-status')?.hidden &&
              Number(r.querySelector('.rp-scrub')?.getAttribute('aria-valuenow')) >= 10,
          ),
        null,
        { timeout: 60_000, polling: 100 },
      )
      .catch((e) => {
        throw new Error(`the snippets' players did not open the demo at 10 s: ${e.message}\n${log.errors.join('\n')}`);
      });
    const opened = await times();
    await page.locator('#replay .rp-play').click();
    await page.locator('replay-player .rp-play').click();
    await page.waitForFunction(
      (t0) =>
        [document, document.querySelector('replay-player')?.shadowRoot].every(
          (r, i) => Number(r.querySelector('.rp-scrub')?.getAttribute('aria-valuenow')) > t0[i] + 1,
        ),
      opened,
      { timeout: 30_000, polling: 100 },
    );
    assert.ok(
      await page.locator('#replay').evaluate((e) => e.classList.contains('rp-playing')),
      'the script form plays',
    );
    assert.ok(await page.locator('replay-player').evaluate((e) => e.playing), 'the element plays');
    // What the player's files were answered with, as the browser saw them.
    const r = await fetch(`${S.url}player.js`, { headers: { Origin: origin(A) } });
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("the README's three embed snippets, its placeholder hosts replaced, open the replay at 95 s from another origin", {
  timeout: 120_000,
}, async () => {
  delete hostHeaders['Content-Security-Policy'];
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embed a replay'), readme.indexOf('## A link to a moment'));
  const blocks = [...section.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 3, 'the iframe, script and element snippets');
  const placeholder = 'https://replays.example/match.flrep';
  const demo = `${S.url}demo/demo.flrep`;
  const html = blocks
    .join('\n')
    .replaceAll('https://player.example/rp/', S.url)
    .replaceAll(encodeURIComponent(placeholder), encodeURIComponent(demo))
    .replaceAll(placeholder, demo);
  assert.doesNotMatch(html, /\.example/, 'every placeholder replaced');
  fs.writeFileSync(
    path.join(HOST_DIR, 'readme.html'),
    `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>README</title></head>\n<body>\n${html}\n</body>\n</html>\n`,
  );
  const page = await browser.newPage();
  const log = collectConsole(page);
  try {
    // All three in view (the iframe 360 px, the others as wide as the page: 711 px each).
    await page.setViewportSize({ width: 1280, height: 1900 });
    await page.goto(`${A.url}readme.html`, { waitUntil: 'load' });
    const frame = page.frames().find((f) => f.url().includes('embed.html'));
    assert.ok(frame, 'the iframe');
    await frame.waitForFunction(() => window.__player?.diagnostics.snapshot().ready, null, {
      timeout: 60_000,
      polling: 100,
    });
    await page.waitForFunction(
      () =>
        [document, document.querySelector('replay-player')?.shadowRoot].every(
          (r) => r?.querySelector('.rp-status')?.hidden && r.querySelector('.rp-scrub')?.getAttribute('aria-valuenow'),
        ),
      null,
      { timeout: 60_000, polling: 100 },
    );
    const at = [
      await frame.evaluate(() => window.__player.currentTime),
      ...(await page.evaluate(() =>
        [document, document.querySelector('replay-player').shadowRoot].map((r) =>
          Number(r.querySelector('.rp-scrub').getAttribute('aria-valuenow')),
        ),
      )),
    ];
    for (const [i, t] of at.entries())
      assert.ok(Math.abs(t - 95) < 0.1, `${['iframe', 'script', 'element'][i]} at ${t} s`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
