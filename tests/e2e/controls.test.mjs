// The player's controls end to end in headless Chromium: the loop rests while nothing changes,
// the keyboard and the roster, scrubbing, a seek's clock and timeline waiting for its frame, and a
// whole playback of the demo at 16x without console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  OUT,
  waitReady,
  playerState,
  canvasShot,
  fractionDifferent,
  settle,
  pageSuite,
  clockFrames,
  clockSteps,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
const suite = pageSuite({
  setup: () => {
    fs.mkdirSync(SHOTS, { recursive: true });
  },
});
const openPage = suite.openPage;

test('a paused, untouched player rests (no animation frames); input, a selection or play wakes it, and the clock does not jump', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.seek(20));
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().resting, null, { timeout: 10_000 });
    const frames = () => page.evaluate(() => window.__player.diagnostics.snapshot().loopFrames);
    const n0 = await frames();
    await page.waitForTimeout(600);
    assert.ok((await frames()) - n0 <= 6, 'no frames while resting (but the once-a-second redraw)');
    const a = await canvasShot(page, path.join(SHOTS, 'rest-before.png'));
    // A drag on the canvas orbits the camera: the loop wakes, the worker draws a new picture.
    const box = await page.locator('canvas.rp-canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 160, box.y + box.height / 2 + 40, { steps: 8 });
    await page.mouse.up();
    assert.equal(
      await page.evaluate(() => window.__player.diagnostics.snapshot().resting),
      false,
      'input woke the loop',
    );
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().resting, null, { timeout: 10_000 });
    const b = await canvasShot(page, path.join(SHOTS, 'rest-after-orbit.png'));
    const changed = fractionDifferent(a.img, b.img);
    assert.ok(
      changed > 0.02,
      `the orbit redrew the picture while paused (${(changed * 100).toFixed(1)} % of pixels changed)`,
    );
    // A selection from the API: its label shows.
    const id = await page.evaluate(() => window.__player.info.info.participants[0].entity);
    await page.evaluate((i) => window.__player.select(i), id);
    await page.waitForFunction(
      (i) => {
        const el = document.querySelector('.rp-label.selected');
        return el && !el.hidden && el.textContent.includes(window.__player.entityName(i));
      },
      id,
      { timeout: 10_000 },
    );
    // Play after resting: the clock goes on from where it stood (the rest is not a step).
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().resting, null, { timeout: 10_000 });
    // The first frame after play() steps the clock by nothing (not by the time the loop rested, nor
    // a clamped 0.25 s), the next ones by Δts × speed: structure, no wall-clock bound.
    const clock = await clockFrames(page, 8, { play: true });
    const t0 = clock.t0;
    assert.equal(clock.frames[0].time, t0, `the first frame after a rest keeps the clock: ${JSON.stringify(clock)}`);
    const steps = clockSteps(clock.frames);
    assert.deepEqual(
      steps.filter((x) => x.step > x.dt + 1e-9),
      [],
      `no frame steps by more than its Δts: ${JSON.stringify(steps)}`,
    );
    await page.waitForFunction((t) => window.__player.currentTime > t, t0, { timeout: 10_000 });
    await page.waitForTimeout(300);
    assert.equal(
      await page.evaluate(() => window.__player.diagnostics.snapshot().resting),
      false,
      'playing never rests',
    );
    await page.evaluate(() => window.__player.pause());
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('keyboard and roster: space, arrows, ticks, Home/End; clicking a callsign follows it', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 5) < 1e-6);
    await page.keyboard.press('Shift+ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 6) < 1e-6);
    await page.keyboard.press('Alt+ArrowRight');
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - 36) < 1e-6);
    const tick = await page.evaluate(() => window.__player.tick);
    await page.keyboard.press('.');
    assert.equal(await page.evaluate(() => window.__player.tick), tick + 1);
    await page.keyboard.press(',');
    await page.keyboard.press(',');
    assert.equal(await page.evaluate(() => window.__player.tick), tick - 1);
    await page.keyboard.press('End');
    const d = await page.evaluate(() => [window.__player.currentTime, window.__player.duration]);
    assert.equal(d[0], d[1]);
    await page.keyboard.press('Home');
    assert.equal(await page.evaluate(() => window.__player.currentTime), 0);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.__player.currentTime > 0.3);
    await page.keyboard.press('Space');
    assert.equal(await page.evaluate(() => window.__player.paused), true);
    // Roster: click follows + selects.
    const li = page.locator('#roster li').nth(3);
    const entity = Number(await li.getAttribute('data-entity'));
    await li.locator('button').click();
    const st = await page.evaluate(() => ({ sel: window.__player.selected, mode: window.__player.cameraMode() }));
    assert.equal(st.sel, entity);
    assert.equal(st.mode, 'follow');
    assert.equal(await li.evaluate((e) => e.classList.contains('selected')), true);
    await settle(page);
    await page.screenshot({ path: path.join(SHOTS, 'follow.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('scrubbing follows the pointer on the timeline', { timeout: 120_000 }, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const box = await page.locator('#scrubber').boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.1, y);
    await page.mouse.down();
    for (const f of [0.2, 0.4, 0.6]) {
      await page.mouse.move(box.x + box.width * f, y, { steps: 3 });
    }
    await page.mouse.up();
    const s = await playerState(page);
    assert.ok(Math.abs(s.time / s.duration - 0.6) < 0.02, `at ${s.time} of ${s.duration}`);
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().chunksHeld.length > 0);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a seek's clock and timeline change with its frame, not before; a drag moves them at once; a slow seek shows its time after seekShowMs", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const r = await page.evaluate(async () => {
      const p = window.__player;
      p.pause();
      const shown = () =>
        [document.getElementById('time').textContent, document.getElementById('scrub-thumb-rail').style.transform].join(
          ' @ ',
        );
      const out = {};
      // A seek far away (its frame is not on the page): nothing of the page moves until it lands.
      await p.seek(p.duration * 0.1);
      const s0 = shown();
      const seek = p.seek(p.duration * 0.7);
      out.cold = { pending: p.seekPending, during: shown(), before: s0 };
      await seek;
      // They change in the animation frame that draws the seek's frame.
      out.cold.atSeeked = shown();
      await new Promise((res) => requestAnimationFrame(res));
      out.cold.after = shown();
      // A seek whose frame never comes (the worker never asked): its time shows after seekShowMs.
      p.diagnostics.holdWants(true);
      const s1 = shown();
      const slow = p.seek(p.duration * 0.3);
      out.slow = { before: s1, during: shown(), waitMs: p.diagnostics.seekShowMs };
      await new Promise((res) => setTimeout(res, p.diagnostics.seekShowMs + 150));
      out.slow.pending = p.seekPending;
      out.slow.later = shown();
      p.diagnostics.holdWants(false);
      await slow;
      // For the drag below: a seek that never lands, and a long wait, so only the drag moves them.
      p.diagnostics.seekShowMs = 60_000;
      p.diagnostics.holdWants(true);
      window.__restoreWant = () => {
        p.diagnostics.seekShowMs = 100;
        p.diagnostics.holdWants(false);
      };
      return out;
    });
    assert.equal(r.cold.pending, true, JSON.stringify(r));
    assert.equal(r.cold.during, r.cold.before, `the page waits for the seek's frame: ${JSON.stringify(r)}`);
    assert.notEqual(r.cold.after, r.cold.before, JSON.stringify(r));
    assert.equal(r.slow.during, r.slow.before, JSON.stringify(r));
    assert.equal(r.slow.pending, true, JSON.stringify(r));
    assert.notEqual(
      r.slow.later,
      r.slow.before,
      `a seek without its frame shows its time after ${r.slow.waitMs} ms: ${JSON.stringify(r)}`,
    );
    // A drag: the seek under the pointer never lands here, and the clock and thumb follow at once.
    const before = await page.evaluate(() => document.getElementById('time').textContent);
    const box = await page.locator('#scrubber').boundingBox();
    await page.mouse.move(box.x + box.width * 0.85, box.y + box.height / 2);
    await page.mouse.down();
    const d = await page.evaluate(() => ({
      pending: window.__player.seekPending,
      clock: document.getElementById('time').textContent,
      thumb: document.getElementById('scrub-thumb-rail').style.transform,
    }));
    await page.evaluate(() => window.__restoreWant());
    await page.mouse.up();
    assert.equal(d.pending, true, JSON.stringify(d));
    assert.notEqual(d.clock, before, `a drag moves the clock at once: ${JSON.stringify(d)}`);
    assert.match(d.thumb, /translateX\(8[45](\.\d+)?%\)/, JSON.stringify(d));
    await page.waitForFunction(() => !window.__player.seekPending);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a whole playback of the demo at 16x: no console errors or unhandled rejections, ends', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.selectOption('#speed', '16');
    await page.evaluate(() => {
      window.__ended = false;
      window.__player.on('ended', () => {
        window.__ended = true;
      });
      window.__player.play();
    });
    await page.waitForFunction(() => window.__ended, null, { timeout: 200_000, polling: 500 });
    const s = await playerState(page);
    assert.equal(s.time, s.duration);
    assert.equal(s.playing, false);
    const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
    assert.ok(stats.decoded >= s.info.chunks, `every chunk decoded once at least (${stats.decoded}/${s.info.chunks})`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
