// The full page and the embed at every size, in headless Chromium: phone portrait and landscape, a
// small laptop, desktop, full HD — no sideways scroll; play, Open, the timeline, speed, the camera
// modes (in the ☰ menu where the bar folds), the side panels (under the canvas or in the Details
// drawer) and the help dialog visible, inside the viewport and not covered (elementFromPoint);
// touch: a tap selects (within its slop), a drag orbits, a pinch zooms, a thumb seeks on the
// scrubber (from a kill marker too). Screenshots in tests/output/layout/ (docs/playback.md
// "Every size").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OUT, DEMO, waitReady, settle, pageSuite, timelineMarkers } from './player-helpers.mjs';
import { collectConsole } from './harness.mjs';

const SHOTS = path.join(OUT, 'layout');
const suite = pageSuite({ setup: () => fs.mkdirSync(SHOTS, { recursive: true }) });

const SIZES = [
  [390, 844],
  [844, 390],
  [800, 500],
  [1280, 800],
  [1920, 1080],
];

/** A page on `url` (relative to dist/) at w × h, its console collected. */
async function pageAt(url, w, h) {
  const page = await suite.browser.newPage();
  await page.setViewportSize({ width: w, height: h });
  const log = collectConsole(page);
  await page.goto(`${suite.base}${url}`, { waitUntil: 'load' });
  return { page, log };
}

/** Resizes and lets the layout, the canvas and the lists follow. */
async function resize(page, w, h) {
  await page.setViewportSize({ width: w, height: h });
  await settle(page, 4);
}

/**
 * Where each selector's element stands: visible (a box, not visibility:hidden), inside the viewport,
 * and the element at its centre is it or inside it (not covered). `scroll`: scrolled into view
 * first (a panel in a scrolled list of panels).
 */
function placement(page, selectors, { scroll = false } = {}) {
  return page.evaluate(
    ({ selectors, scroll }) =>
      selectors.map((sel) => {
        const el = document.querySelector(sel);
        if (!el) return { sel, missing: true };
        if (scroll) el.scrollIntoView({ block: 'nearest' });
        const r = el.getBoundingClientRect();
        const cs = getComputedStyle(el);
        const visible = r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && Number(cs.opacity) > 0;
        const inside = r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        const covered = !hit || !(el === hit || el.contains(hit));
        return {
          sel,
          visible,
          inside,
          covered,
          box: [r.left, r.top, r.right, r.bottom].map(Math.round),
          hit: hit ? `${hit.tagName.toLowerCase()}#${hit.id}.${hit.className}` : null,
        };
      }),
    { selectors, scroll },
  );
}

function assertPlaced(list, where) {
  for (const p of list) {
    assert.ok(!p.missing, `${where}: ${p.sel} exists`);
    assert.ok(p.visible, `${where}: ${p.sel} visible (${JSON.stringify(p)})`);
    assert.ok(p.inside, `${where}: ${p.sel} inside the viewport (${JSON.stringify(p)})`);
    assert.ok(!p.covered, `${where}: ${p.sel} not covered (${JSON.stringify(p)})`);
  }
}

/** The page's (or frame's) width against its viewport's, and the bars' children that stick out of it. */
const overflow = (page) =>
  page.evaluate(() => ({
    doc: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
    inner: innerWidth,
    out: [
      ...document.querySelectorAll('.topbar > *, .top-actions > *, .timeline > *, .transport > *, .rp-controls > *'),
    ]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5);
      })
      .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`),
  }));

const CAMERA = ['orbit', 'free', 'follow', 'first', 'kill'].map((m) => `#camera-modes button[data-mode="${m}"]`);
const BARS = ['#play', '.file-button', '#scrubber', '#speed', '#help-open'];

test('every size: no sideways scroll; play, Open, timeline, speed, camera modes, panels and help visible and reachable', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await pageAt('', 1280, 800);
  try {
    await waitReady(page);
    for (const [w, h] of SIZES) {
      const where = `${w}×${h}`;
      await resize(page, w, h);
      const o = await overflow(page);
      assert.ok(o.doc <= o.inner && o.body <= o.inner, `${where}: no sideways scroll (${JSON.stringify(o)})`);
      assert.deepEqual(o.out, [], `${where}: nothing of the bars outside the viewport`);
      assertPlaced(await placement(page, BARS), where);
      await page.screenshot({ path: path.join(SHOTS, `page-${w}x${h}.png`) });

      // The camera modes: on the bar, or in the ☰ menu where the bar folds (at most 1240 px).
      const folded = await page.locator('#menu-toggle').isVisible();
      assert.equal(folded, w <= 1240, `${where}: the menu button shows exactly where the bar folds`);
      if (folded) {
        assert.equal(await page.locator('#camera-modes').isVisible(), false, `${where}: folded away`);
        await page.click('#menu-toggle');
        await page.locator('#menu-toggle[aria-expanded="true"]').waitFor();
        await page.locator('#camera-modes').waitFor({ state: 'visible' });
      }
      assertPlaced(await placement(page, [...CAMERA, '#reset-camera', '#share-open', '#live-open']), `${where} camera`);
      if (folded) await page.screenshot({ path: path.join(SHOTS, `menu-${w}x${h}.png`) });
      // A mode chosen from the menu takes and closes the menu.
      await page.click(CAMERA[1]);
      assert.equal(await page.evaluate(() => window.__player.cameraMode()), 'free', `${where}: free camera chosen`);
      if (folded) assert.equal(await page.locator('#camera-modes').isVisible(), false, `${where}: menu closed`);
      await page.keyboard.press('1');
      assert.equal(await page.evaluate(() => window.__player.cameraMode()), 'orbit');

      // The side panels: at the side, under the canvas (narrow portrait) or in the drawer (narrow landscape).
      const drawer = await page.locator('#side-toggle').isVisible();
      assert.equal(drawer, w <= 860 && w > h, `${where}: the drawer exactly on narrow landscape screens`);
      if (drawer) {
        assert.equal(await page.locator('#panel-kills').isVisible(), false, `${where}: the drawer starts closed`);
        await page.click('#side-toggle');
        await page.waitForFunction(() => {
          const r = document.getElementById('side').getBoundingClientRect();
          return (
            r.right <= innerWidth + 0.5 && getComputedStyle(document.getElementById('side')).visibility === 'visible'
          );
        });
        await page.screenshot({ path: path.join(SHOTS, `drawer-${w}x${h}.png`) });
      }
      for (const panel of [
        '#panel-status h2',
        '#panel-roster h2',
        '#roster li button',
        '#panel-kills h2',
        '#killfeed li button',
      ])
        assertPlaced(await placement(page, [panel], { scroll: true }), `${where} panels`);
      // The lists keep room for rows (they do not shrink to their headings).
      const lists = await page.evaluate(() =>
        ['roster-scroll', 'killfeed-scroll'].map((id) => document.getElementById(id).clientHeight),
      );
      assert.ok(Math.min(...lists) >= 90, `${where}: the roster and kill lists show rows (${lists} px)`);
      if (w <= 860 && h > w) await page.screenshot({ path: path.join(SHOTS, `panels-${w}x${h}.png`) });
      if (drawer) {
        await page.keyboard.press('Escape');
        await page.waitForFunction(() => getComputedStyle(document.getElementById('side')).visibility === 'hidden');
      }

      // The help dialog, at every size.
      await page.click('#help-open');
      await page.locator('#help').waitFor({ state: 'visible' });
      assertPlaced(await placement(page, ['.help-box', '#help-close']), `${where} help`);
      await page.screenshot({ path: path.join(SHOTS, `help-${w}x${h}.png`) });
      await page.keyboard.press('Escape');
      await page.locator('#help').waitFor({ state: 'hidden' });
    }
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the embed with its compact controls at 360×640 and 640×360: no sideways scroll, every control reachable', {
  timeout: 120_000,
}, async () => {
  // The bundled demo, beside embed.html in dist/.
  const demo = path.relative(path.dirname(path.dirname(DEMO)), DEMO);
  for (const [w, h] of [
    [360, 640],
    [640, 360],
  ]) {
    // As a site embeds it: an iframe filling a w × h window.
    const page = await suite.browser.newPage();
    await page.setViewportSize({ width: w, height: h });
    const log = collectConsole(page);
    try {
      // The host page from the server's origin (routed, answered in the browser): a secure context,
      // as a site's https page is, so the embed draws with WebGPU (setContent's about:blank is not
      // one, and its frame fell back to WebGL2).
      const host = `${suite.base}__layout-host.html`;
      await page.route(host, (r) =>
        r.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><body style="margin:0"><iframe src="${suite.base}embed.html?url=${encodeURIComponent(demo)}" style="display:block;border:0;width:100vw;height:100vh"></iframe></body>`,
        }),
      );
      await page.goto(host);
      const frame = await (await page.waitForSelector('iframe')).contentFrame();
      await frame.waitForLoadState('load');
      await waitReady(frame);
      const o = await overflow(frame);
      assert.ok(o.doc <= o.inner && o.body <= o.inner, `embed ${w}×${h}: no sideways scroll (${JSON.stringify(o)})`);
      const controls = await placement(frame, ['.rp-play', '.rp-time', '.rp-scrub', '.rp-speed', '.rp-camera']);
      assertPlaced(controls, `embed ${w}×${h}`);
      await page.screenshot({ path: path.join(SHOTS, `embed-${w}x${h}.png`) });
      log.assertClean();
    } finally {
      await page.close();
    }
  }
});

// ---------------------------------------------------------------- touch

/** One finger (or several) through CDP: [[x, y], …] per step; an empty list lifts them. */
async function touch(cdp, type, points) {
  await cdp.send('Input.dispatchTouchEvent', {
    type,
    touchPoints: points.map(([x, y], id) => ({ x, y, id, radiusX: 4, radiusY: 4, force: 1 })),
  });
}

/** A finger from `a` to `b` in `steps` moves. */
async function swipe(cdp, a, b, steps = 8) {
  await touch(cdp, 'touchStart', [a]);
  for (let i = 1; i <= steps; i++)
    await touch(cdp, 'touchMove', [[a[0] + ((b[0] - a[0]) * i) / steps, a[1] + ((b[1] - a[1]) * i) / steps]]);
  await touch(cdp, 'touchEnd', []);
}

/** The camera's pose once `ok(pose)` holds, or after 10 s (the last pose read: the caller asserts). */
async function poseWhen(page, ok) {
  let pose = null;
  for (const end = Date.now() + 10_000; Date.now() < end; await settle(page, 2)) {
    pose = await page.evaluate(() => window.__player.cameraPose());
    if (ok(pose)) break;
  }
  return pose;
}

test('touch on a phone: a tap selects (a small slop), a drag orbits, a pinch zooms, a thumb seeks', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await pageAt('', 390, 844);
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await waitReady(page);
    await page.evaluate(() => window.__player.seek(20));
    await settle(page);
    const box = await page.locator('canvas.rp-canvas').boundingBox();
    // The entity whose label is nearest the canvas' middle: a tap (the finger moving 6 px, more
    // than a mouse's 4 px, less than a finger's slop) on its marker selects it.
    const target = await page.evaluate(async () => {
      const p = window.__player;
      const L = await p.diagnostics.rendererLabels();
      const c = document.querySelector('canvas.rp-canvas').getBoundingClientRect();
      let best = null;
      for (let i = 0; i < L.length; i += 4) {
        if (L[i + 3] !== 1) continue;
        const d = Math.hypot(L[i + 1] - c.width / 2, L[i + 2] - c.height / 2);
        if (!best || d < best.d) best = { id: L[i], x: L[i + 1], y: L[i + 2], d };
      }
      return best;
    });
    assert.ok(target, 'an entity on screen');
    const at = [box.x + target.x, box.y + target.y];
    await touch(cdp, 'touchStart', [at]);
    await touch(cdp, 'touchMove', [[at[0] + 3, at[1] + 2]]);
    await touch(cdp, 'touchMove', [[at[0] + 6, at[1]]]);
    await touch(cdp, 'touchEnd', []);
    await page.waitForFunction(() => window.__player.selected >= 0, null, { timeout: 10_000 });

    // A drag orbits: the camera's pose changes, and nothing new is selected. (Back to the orbit
    // camera first: the tap's selection is followed.)
    const cardGone = await page.evaluate(() => {
      window.__player.select(-1);
      window.__player.resetCamera();
      return document.getElementById('inspector').hidden;
    });
    // The card showed the followed entity; with nothing followed it leaves the stage at once (it
    // used to wait for the next 150 ms refresh, and under load the finger below landed on it).
    assert.ok(cardGone, 'the inspector card is gone once nothing is selected or followed');
    await settle(page, 2);
    assert.equal(await page.evaluate(() => window.__player.cameraMode()), 'orbit');
    // The render worker has applied the reset (nothing queued or in flight) before the pose is read.
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().rendererQuiet, null, { timeout: 10_000 });
    const pose0 = await page.evaluate(() => window.__player.cameraPose());
    const from = [box.x + box.width / 2 - 60, box.y + box.height / 2];
    const to = [box.x + box.width / 2 + 80, box.y + box.height / 2 + 30];
    // What the finger lands on, and what the stage hears of it (the failure message says).
    const hit = await page.evaluate(([x, y]) => {
      const seen = [];
      window.__touchSeen = seen;
      for (const t of ['pointerdown', 'pointermove', 'pointerup', 'pointercancel'])
        document.addEventListener(t, (e) => seen.length < 40 && seen.push(`${t}#${e.pointerId}`), true);
      const el = document.elementFromPoint(x, y);
      return `${el?.tagName.toLowerCase()}.${el?.className}`;
    }, from);
    assert.equal(hit, 'canvas.rp-canvas', 'the drag starts on the canvas');
    // The pose is the render worker's, reported after the frames it draws: under load that is
    // later than a few frames, so wait for it to change (a drag that did not orbit times out).
    const moved = (p) => JSON.stringify(p) !== JSON.stringify(pose0);
    await swipe(cdp, from, to);
    let pose1 = await poseWhen(page, moved);
    if (!moved(pose1)) {
      // Twice in about twenty clean-clone runs a swipe injected under load changed nothing (never
      // here, in 20 runs beside other browser tests): what the page heard goes to the log, and the
      // finger tries once more. A drag that never orbits still fails.
      console.log('the first swipe did not orbit:', await page.evaluate(() => window.__touchSeen.join(' ')));
      await swipe(cdp, from, to);
      pose1 = await poseWhen(page, moved);
    }
    const seen = await page.evaluate(() => window.__touchSeen.join(' '));
    assert.ok(moved(pose1), `the drag orbited (the page heard: ${seen})`);
    assert.equal(await page.evaluate(() => window.__player.selected), -1, 'a drag selects nothing');

    // A pinch (two fingers apart) zooms in: the orbit camera's distance gets shorter.
    const cx = box.x + box.width / 2;
    const cy = box.y + box.height / 2;
    await touch(cdp, 'touchStart', [
      [cx - 30, cy],
      [cx + 30, cy],
    ]);
    for (let i = 1; i <= 8; i++)
      await touch(cdp, 'touchMove', [
        [cx - 30 - i * 12, cy],
        [cx + 30 + i * 12, cy],
      ]);
    await touch(cdp, 'touchEnd', []);
    const pose2 = await poseWhen(page, (p) => p[5] < pose1[5] * 0.9);
    const distance = (pose) => pose[5]; // orbit: [target x, y, z, yaw, pitch, distance]
    assert.ok(
      distance(pose2) < distance(pose1) * 0.9,
      `the pinch zoomed in (distance ${distance(pose1)} → ${distance(pose2)})`,
    );

    // A thumb on the scrubber: pressed at 20 %, slid to 60 %, lifted: the playhead is at 60 %.
    const s = await page.locator('#scrubber').boundingBox();
    assert.ok(s.height >= 40, `the scrubber is thumb-sized (${s.height} px tall)`);
    const y = s.y + s.height / 2;
    const d = await page.evaluate(() => window.__player.duration);
    await swipe(cdp, [s.x + s.width * 0.2, y], [s.x + s.width * 0.6, y]);
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending, null, { timeout: 10_000 });
    let t = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(t / d - 0.6) < 0.03, `the thumb seeked to 60 % (${((t / d) * 100).toFixed(1)} %)`);
    // Slid from a kill marker (on a crowded timeline every press may land on one): it scrubs too.
    const kill = (await timelineMarkers(page)).kills.find((m) => m.x > s.width * 0.1 && m.x < s.width * 0.5);
    assert.ok(kill, 'a kill marker in the first half');
    await swipe(cdp, [s.x + kill.x, s.y + kill.y], [s.x + s.width * 0.85, s.y + kill.y]);
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending, null, { timeout: 10_000 });
    t = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(t / d - 0.85) < 0.03, `slid from a kill marker to 85 % (${((t / d) * 100).toFixed(1)} %)`);
    await page.screenshot({ path: path.join(SHOTS, 'touch-390x844.png') });
    log.assertClean();
  } finally {
    await cdp.detach().catch(() => {});
    await page.close();
  }
});
