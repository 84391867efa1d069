// The playback system in the browser (www/core/clock.ts wired into the shell): reverse play reaches
// the start, speeds and J/K/L, stop and the end, the kill cam (ends paused on the kill's tick with
// the previous camera at 1×), camera modes (buttons, keys, free-camera flying), the inspector, the
// event markers + legend, the status panel, the help overlay; and, when the CLI can write one, a
// SparkEngine .replay dropped on the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { collectConsole } from './harness.mjs';
import { fmtTime } from '../../www/widgets/format.ts';
import {
  OUT,
  fixture,
  waitReady,
  playerState,
  settle,
  decodePng,
  dist,
  timelineMarkers,
  killFeedRow,
  decoderWorker,
  pageSuite,
  clockFrames,
  clockSteps,
  generated,
  served,
} from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
/** The 10 s recording (generated in `setup`). */
let T10 = '';
const suite = pageSuite({
  setup: () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    T10 = fixture('t10', { seconds: 10, seed: 7 });
  },
});
const openPage = suite.openPage;

const pstate = (page) =>
  page.evaluate(() => {
    const s = window.__player.diagnostics.snapshot();
    return {
      time: s.time,
      tick: s.tick,
      duration: s.duration,
      playbackState: s.playbackState,
      speed: s.speed,
      killCam: s.killCam,
      killCamHolding: s.killCamHolding,
      cameraMode: s.cameraMode,
      followed: s.followed,
      selected: s.selected,
      chunksHeld: s.chunksHeld,
      status: s.status,
    };
  });

/** Drops `file` on the stage as a browser would (DataTransfer with a File). */
async function dropFile(page, file, name) {
  const b64 = fs.readFileSync(file).toString('base64');
  await page.evaluate(
    async ([data, n]) => {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      const f = new File([bytes], n, { type: 'application/octet-stream' });
      const dt = new DataTransfer();
      dt.items.add(f);
      const target = document.getElementById('stage');
      for (const type of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    [b64, name],
  );
  await page.waitForFunction(
    (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
    name,
    {
      timeout: 60_000,
    },
  );
}

test('reverse playback: time decreases while Rewinding, earlier chunks arrive, and it ends Paused at 0', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openPage(`?url=${encodeURIComponent(served(T10))}`);
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.seek(9.5));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    let s = await pstate(page);
    assert.deepEqual(s.chunksHeld.includes(0), false, 'the first chunk is not held at 9.5 s');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    s = await pstate(page);
    assert.equal(s.playbackState, 'Rewinding');
    assert.equal(s.speed, 1);
    await page.keyboard.press('j'); // again: faster
    await page.keyboard.press('j');
    s = await pstate(page);
    assert.equal(s.speed, 4);
    assert.equal(s.playbackState, 'Rewinding');
    assert.equal(await page.locator('#rewind').getAttribute('aria-pressed'), 'true');
    const samples = [];
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const x = await pstate(page);
      samples.push(x);
      if (x.playbackState !== 'Rewinding') break;
      await page.waitForTimeout(150);
    }
    const times = samples.map((x) => x.time);
    for (let i = 1; i < times.length; i++)
      assert.ok(times[i] <= times[i - 1] + 1e-9, `time decreases while rewinding: ${times.join(', ')}`);
    assert.ok(
      new Set(times.map((t) => t.toFixed(3))).size >= 3,
      `several distinct times while rewinding: ${times.join(', ')}`,
    );
    const end = samples[samples.length - 1];
    assert.equal(end.time, 0);
    assert.equal(end.tick, 0);
    assert.equal(end.playbackState, 'Paused');
    assert.ok(end.chunksHeld.includes(0), `chunk 0 held at the start (${end.chunksHeld})`);
    assert.equal(await page.locator('#status-state').textContent(), 'Paused');
    // Resuming after reaching the start plays forwards.
    await page.keyboard.press('Space');
    await page.waitForFunction(() => window.__player.currentTime > 0.2);
    s = await pstate(page);
    assert.equal(s.playbackState, 'FastForward', 'forward again, at the 4× it was rewinding at');
    assert.equal(s.speed, 4);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('speeds, J/K/L, stop and the end: FastForward above 1×, Stopped at 0 / at the end; the status panel follows', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openPage(`?url=${encodeURIComponent(served(T10))}`);
  try {
    await waitReady(page);
    let s = await pstate(page);
    assert.equal(s.playbackState, 'Stopped');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('l');
    s = await pstate(page);
    assert.equal(s.playbackState, 'Playing');
    assert.equal(s.speed, 1);
    for (const want of [2, 4, 8]) {
      await page.keyboard.press('l');
      s = await pstate(page);
      assert.equal(s.speed, want);
      assert.equal(s.playbackState, 'FastForward');
    }
    assert.equal(await page.locator('#speed').inputValue(), '8');
    await page.keyboard.press('k');
    s = await pstate(page);
    assert.equal(s.playbackState, 'Paused');
    // The speed select: slower than 1× is Playing, faster is FastForward; time moves accordingly:
    // each animation frame steps the clock by the frame's Δts × the speed, never more (fewer while
    // frames are awaited). No wall-clock rate here: tests/bench/clock.mjs prints those.
    await page.evaluate(() => window.__player.seek(1));
    await page.selectOption('#speed', '0.25');
    await page.evaluate(() => window.__player.play());
    const stepsAt = async (speed) => {
      // Once the clock moves (software rendering can stall the first frames after a seek).
      const t0 = (await pstate(page)).time;
      await page.waitForFunction((t) => window.__player.currentTime > t + 0.01, t0, { timeout: 30_000 });
      const state = (await pstate(page)).playbackState;
      const steps = clockSteps((await clockFrames(page, 8)).frames);
      const shown = JSON.stringify(steps);
      // A frame's Δts counts at most 0.25 s (www/core/loop.ts): a loaded machine drawing two
      // frames a second steps by 0.25 × speed per frame, not by the wall-clock gap.
      const want = (x) => Math.min(x.dt, 0.25) * speed;
      assert.deepEqual(
        steps.filter((x) => x.step > want(x) + 1e-9),
        [],
        `${speed}×: no frame steps the clock by more than min(Δts, 0.25 s) × speed: ${shown}`,
      );
      const exact = steps.filter((x) => x.dt > 0 && Math.abs(x.step - want(x)) < 1e-9);
      assert.ok(exact.length > 0, `${speed}×: frames step the clock by exactly Δts × speed: ${shown}`);
      return state;
    };
    assert.equal(await stepsAt(0.25), 'Playing');
    await page.selectOption('#speed', '4');
    assert.equal((await pstate(page)).playbackState, 'FastForward');
    // (From 1 s: 8 frames at 4× stay well inside the 10 s demo even at a few frames a second.)
    await page.evaluate(() => window.__player.seek(1));
    assert.equal(await stepsAt(4), 'FastForward');
    assert.match(await page.locator('#status-list dd[data-key="speed"]').textContent(), /^4x$/);
    assert.match(await page.locator('#status-list dd[data-key="time"]').textContent(), /^\d+\.\ds \/ 10\.0s$/);
    // Stop (X): Stopped at 0.
    await page.keyboard.press('x');
    s = await pstate(page);
    assert.equal(s.playbackState, 'Stopped');
    assert.equal(s.time, 0);
    // Reaching the end stops automatically, on the last frame.
    await page.evaluate(() => window.__player.seek(window.__player.duration - 0.3));
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().playbackState === 'Stopped', null, {
      timeout: 60_000,
    });
    s = await pstate(page);
    assert.equal(s.time, s.duration);
    assert.match(
      s.status,
      /^=== Replay System ===\nRecording: NO\nPlayback: Stopped\nPlayback time: 10\.0s \/ 10\.0s\nSpeed: 4x\nFrames recorded: 600\n/,
    );
    // Play after the end starts again from 0.
    await page.click('#play');
    s = await pstate(page);
    assert.ok(s.time < 1, `restarted at ${s.time}`);
    assert.equal(s.playbackState, 'FastForward');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("kill cam from the kill feed: 5 s before at 0.5× in the kill camera, ends paused on the kill's tick with the previous camera at 1×", {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    const st = await waitReady(page);
    const kills = st.killFeed;
    // A kill at least 5 s in, with no other kill in the 5 s before it.
    const idx = kills.findIndex((k, i) => k.time > 6 && (i === 0 || k.time - kills[i - 1].time > 1));
    assert.ok(idx >= 0, 'a kill to watch');
    const kill = kills[idx];
    // The camera before: follow a participant.
    await page.locator('#roster li').nth(2).locator('button').click();
    const prev = await pstate(page);
    assert.equal(prev.cameraMode, 'follow');
    await (await killFeedRow(page, idx)).locator('.kf-cam').click();
    let s = await pstate(page);
    assert.equal(s.killCam, true);
    assert.equal(s.speed, 0.5);
    assert.equal(s.cameraMode, 'kill');
    assert.ok(Math.abs(s.time - (kill.time - 5)) < 0.05, `starts 5 s before the kill (${s.time} vs ${kill.time})`);
    assert.equal(await page.locator('#killcam-badge').isVisible(), true);
    assert.match(await page.locator('#killcam-badge').textContent(), /KILL CAM/);
    assert.equal(await page.locator('#status-list dd[data-key="killCam"]').textContent(), 'ON');
    assert.equal(await page.locator('.segmented button[data-mode="kill"]').getAttribute('aria-checked'), 'true');
    await page.waitForFunction((t0) => window.__player.currentTime > t0 + 0.1, s.time, { timeout: 60_000 });
    await settle(page, 4);
    await page.screenshot({ path: path.join(SHOTS, 'playback-killcam.png') });
    // Playing forward at 0.5× until the kill, then holding there.
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().killCamHolding || !window.__player.diagnostics.snapshot().killCam,
      null,
      {
        timeout: 180_000,
        polling: 100,
      },
    );
    s = await pstate(page);
    assert.equal(s.tick, kill.tick, 'paused exactly on the kill tick');
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().killCam, null, { timeout: 30_000 });
    s = await pstate(page);
    assert.equal(s.tick, kill.tick);
    assert.equal(s.time, kill.time);
    assert.equal(s.playbackState, 'Paused');
    assert.equal(s.speed, 1);
    assert.equal(s.cameraMode, prev.cameraMode);
    assert.equal(s.followed, prev.followed);
    assert.equal(await page.locator('#killcam-badge').isHidden(), true);
    assert.equal(await page.locator('#speed').inputValue(), '1');
    assert.equal(await page.locator('#status-list dd[data-key="killCam"]').textContent(), 'OFF');
    // C: the kill cam on the nearest kill; Esc ends it early and restores the camera.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('c');
    s = await pstate(page);
    assert.equal(s.killCam, true);
    assert.equal(
      await page.evaluate(() => window.__player.diagnostics.snapshot().killCamKill.tick),
      kill.tick,
      'the nearest kill is the one at the playhead',
    );
    await page.keyboard.press('Escape');
    s = await pstate(page);
    assert.equal(s.killCam, false);
    assert.equal(s.speed, 1);
    assert.equal(s.cameraMode, prev.cameraMode);
    assert.equal(s.playbackState, 'Paused');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("camera modes: segmented control and keys 1–5, free camera flies with WASD; inspector shows the followed entity's flags", {
  timeout: 180_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.seek(20));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    const mode = () => page.evaluate(() => window.__player.cameraMode());
    await page.click('.segmented button[data-mode="free"]');
    assert.equal(await mode(), 'free');
    assert.equal(await page.locator('.segmented button[data-mode="free"]').getAttribute('aria-checked'), 'true');
    // Hold W: the free camera flies forward (entities move on screen while the replay is paused).
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const labelsAt = () => page.evaluate(() => window.__player.diagnostics.rendererLabels());
    await settle(page, 3);
    const before = await labelsAt();
    await page.keyboard.down('w');
    // Held for 700 ms and for at least 4 drawn frames: the camera moves in the frame callback, and
    // on a loaded machine with a software GPU 700 ms can pass between two frames (the test used to
    // fail then, with the key released before any frame saw it).
    await Promise.all([page.waitForTimeout(700), settle(page, 4)]);
    await page.keyboard.up('w');
    await settle(page, 3);
    const after = await labelsAt();
    let moved = 0;
    for (let i = 0; i + 3 < Math.min(before.length, after.length); i += 4) {
      if (before[i] === after[i] && Math.hypot(before[i + 1] - after[i + 1], before[i + 2] - after[i + 2]) > 2) moved++;
    }
    assert.ok(moved > 0, 'entities moved on screen after flying forward');
    assert.equal((await pstate(page)).playbackState, 'Paused', 'W flew the camera, it did not play');
    // Keys: 3 follow (the first participant when nothing is selected), 4 first person, 1 orbit.
    await page.keyboard.press('3');
    assert.equal(await mode(), 'follow');
    const followed = (await pstate(page)).followed;
    assert.ok(followed >= 0, 'something is followed');
    await page.keyboard.press('4');
    assert.equal(await mode(), 'first');
    await settle(page, 3);
    await page.screenshot({ path: path.join(SHOTS, 'playback-first-person.png') });
    await page.keyboard.press('1');
    assert.equal(await mode(), 'orbit');
    await page.keyboard.press('2');
    assert.equal(await mode(), 'free');
    await page.click('.segmented button[data-mode="follow"]');
    assert.equal(await mode(), 'follow');
    // Inspector: the followed entity, its flags as chips, health, live values.
    const insp = page.locator('#inspector');
    await page.waitForFunction(
      () => !document.getElementById('inspector').hidden && document.getElementById('inspector').dataset.flags,
    );
    assert.equal(await insp.getAttribute('data-entity'), String(followed));
    const name = await page.evaluate((id) => window.__player.entityName(id), followed);
    assert.equal(await page.locator('#insp-name').textContent(), name);
    const flags = (await insp.getAttribute('data-flags')).split(',');
    const expected = await page.evaluate((id) => window.__player.entityState(id).flagNames, followed);
    assert.deepEqual(flags, expected);
    assert.ok(flags.includes('alive') && flags.includes('visible'), `flags ${flags}`);
    assert.equal(await page.locator('#insp-flags .chip').count(), 8);
    assert.deepEqual(await page.locator('#insp-flags .chip.on').allTextContents(), expected);
    assert.match(await page.locator('#insp-health-text').textContent(), /^\d+(\.\d)? HP$/);
    assert.match(await page.locator('#insp-list dd').nth(2).textContent(), /m\/s/);
    const tick0 = await page.locator('#insp-list dd').nth(4).textContent();
    await page.evaluate(() => window.__player.seek(25));
    await page.waitForFunction((t) => document.querySelectorAll('#insp-list dd')[4].textContent !== t, tick0);
    // Health bars under the labels; a dead entity's label is dimmed.
    assert.ok((await page.locator('.rp-label:not([hidden]) .rp-hp-fill').count()) > 0);
    await settle(page, 3);
    await page.screenshot({ path: path.join(SHOTS, 'playback-inspector.png') });
    // The help overlay (its table of keys is loaded when it first opens: app/keys.ts).
    await page.keyboard.press('?');
    await page.locator('#help').waitFor({ state: 'visible', timeout: 10_000 });
    assert.match(await page.locator('#help-keys').textContent(), /Play backwards/);
    await page.screenshot({ path: path.join(SHOTS, 'playback-help.png') });
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#help').isHidden(), true);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('timeline: kills on the top row, every other event kind as its own smaller marker, with a legend', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    const s = await waitReady(page);
    await page.evaluate(() => window.__player.seek(40));
    await page.waitForFunction(() => Object.keys(window.__player.diagnostics.snapshot().eventKinds).length >= 3);
    await settle(page, 3);
    const kinds = await page.evaluate(() => window.__player.diagnostics.snapshot().eventKinds);
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, s.markers, 'one kill marker per kill');
    const others = Object.keys(kinds).filter((k) => k !== 'kill');
    assert.ok(others.length >= 2, `other event kinds known: ${others}`);
    for (const k of others) {
      assert.ok(kinds[k] > 0, `${k} events known`);
      assert.ok(
        m.events.some((e) => e.kind === k),
        `${k} markers`,
      );
      assert.match(
        await page.locator(`.legend-item[data-kind="${k}"]`).textContent(),
        new RegExp(`${String(kinds[k])}$`),
      );
    }
    assert.equal(m.events.filter((e) => e.kind === 'kill').length, 0, 'kills are not repeated on the bottom row');
    assert.match(await page.locator('.legend-item[data-kind="kill"]').textContent(), new RegExp(`^Kill${s.markers}$`));
    assert.ok(
      Math.min(...m.events.map((e) => e.y)) > Math.max(...m.kills.map((k) => k.y)) + 10,
      'other events sit below the kill markers',
    );
    // What is drawn: kill red at each kill marker's column on the top row; each event slot in its
    // kind's colour (the legend's colour) on the bottom row. The pointer is away from the bar.
    await page.mouse.move(5, 5);
    await settle(page, 3);
    const img = decodePng(await page.locator('#scrubber').screenshot({ timeout: 90_000 }));
    const cssColour = (k) =>
      page.evaluate((kind) => {
        const probe = document.createElement('span');
        probe.style.color = getComputedStyle(document.documentElement).getPropertyValue(`--ev-${kind}`);
        document.body.append(probe);
        const c = getComputedStyle(probe).color.match(/\d+/g).map(Number);
        probe.remove();
        return c;
      }, k);
    const closest = (x, y, rgb, r = 3) => {
      let best = Infinity;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const px = Math.round(x) + dx;
          const py = Math.round(y) + dy;
          if (px >= 0 && py >= 0 && px < img.width && py < img.height) best = Math.min(best, dist(img.at(px, py), rgb));
        }
      }
      return best;
    };
    const red = await cssColour('kill');
    const far = m.kills.filter((k) => Math.abs(k.t - 40) > 2); // not highlighted as near the playhead
    for (const k of far) assert.ok(closest(k.x, k.y, red, 1) < 40, `kill marker drawn at x ${k.x}`);
    // Between the markers, the top row is not red.
    const gaps = [];
    for (let i = 1; i < m.kills.length; i++)
      if (m.kills[i].x - m.kills[i - 1].x > 12) gaps.push((m.kills[i].x + m.kills[i - 1].x) / 2);
    assert.ok(gaps.length > 0);
    for (const x of gaps) assert.ok(closest(x, m.kills[0].y, red, 2) > 80, `no marker at x ${x}`);
    for (const k of others) {
      const rgb = await cssColour(k);
      for (const e of m.events.filter((ev) => ev.kind === k))
        assert.ok(closest(e.x, e.y, rgb) < 60, `${k} marker drawn at x ${e.x}: ${closest(e.x, e.y, rgb)}`);
    }
    // Hovering an event marker shows its time and text (of that marker, or of one in the same column).
    const box = await page.locator('#scrubber').boundingBox();
    const labels = Object.fromEntries(
      await page
        .locator('.legend-item')
        .evaluateAll((els) => els.map((el) => [el.dataset.kind, el.querySelector('.legend-name').textContent])),
    );
    let hovered = 0;
    for (const k of others.filter((x) => x !== 'other')) {
      const e = m.events.find((ev) => ev.kind === k);
      await page.mouse.move(box.x + e.x, box.y + e.y);
      await page.locator('#scrub-tip').waitFor({ state: 'visible' });
      const tip = await page.locator('#scrub-tip').textContent();
      const here = m.events.filter((o) => Math.abs(o.x - e.x) < 0.5 && o.kind !== 'other');
      assert.ok(
        here.some((o) => tip.startsWith(`${fmtTime(o.t)} ${labels[o.kind]}`)),
        `${k} tooltip: ${tip}`,
      );
      hovered++;
    }
    assert.ok(hovered > 0, 'an event marker hovered');
    await page.mouse.move(5, 5);
    await page.screenshot({
      path: path.join(SHOTS, 'playback-timeline.png'),
      clip: { x: 0, y: 600, width: 1280, height: 120 },
      timeout: 90_000,
    });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('timeline markers at devicePixelRatio 2: a backing store of twice the CSS size, markers where the kills are', {
  timeout: 120_000,
}, async () => {
  const page = await suite.browser.newPage();
  const log = collectConsole(page);
  try {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setDeviceMetricsOverride', {
      width: 1280,
      height: 720,
      deviceScaleFactor: 2,
      mobile: false,
    });
    await page.goto(`${suite.base}`, { waitUntil: 'load' });
    const s = await waitReady(page);
    await page.waitForFunction(() => {
      const c = document.getElementById('scrub-markers');
      return (
        window.devicePixelRatio === 2 &&
        c.clientWidth > 0 &&
        c.width === Math.round(c.clientWidth * 2) &&
        c.height === Math.round(c.clientHeight * 2)
      );
    });
    const m = await timelineMarkers(page);
    assert.equal(m.dpr, 2);
    assert.equal(m.kills.length, s.markers);
    const box = await page.locator('#scrubber').boundingBox();
    for (const [i, k] of m.kills.entries()) {
      assert.ok(Math.abs(k.x - (s.killFeed[i].time / s.duration) * box.width) <= 1, `marker ${i} at x ${k.x}`);
    }
    await page.mouse.move(5, 5);
    await settle(page, 3);
    // The backing store's pixels (device px): a kill-red bar at each marker, nothing between them.
    const red = [0xff, 0x6b, 0x5b];
    const xs = m.kills.filter((x) => x.t > 2).map((k) => k.x);
    const px = await page.evaluate(
      (list) => {
        const c = document.getElementById('scrub-markers').getContext('2d');
        return list.map(([x, y]) => Array.from(c.getImageData(x - 2, y, 5, 1).data));
      },
      xs.map((x) => [Math.round(x * 2), Math.round(m.kills[0].y * 2)]),
    );
    px.forEach((row, i) => {
      let best = Infinity;
      for (let j = 0; j < 5; j++)
        if (row[j * 4 + 3] > 200) best = Math.min(best, dist(row.slice(j * 4, j * 4 + 3), red));
      assert.ok(best < 40, `kill marker at x ${xs[i]} (2x): ${best}`);
    });
    // Bars are 2 CSS px = 4 device px wide: crisp, not a blurred 1 px line scaled up.
    const widths = await page.evaluate(
      (list) => {
        const c = document.getElementById('scrub-markers').getContext('2d');
        return list.map(
          ([x, y]) => Array.from(c.getImageData(x - 6, y, 13, 1).data).filter((_, j) => j % 4 === 3 && _ > 200).length,
        );
      },
      xs.map((x) => [Math.round(x * 2), Math.round(m.kills[0].y * 2)]),
    );
    assert.ok(
      widths.every((n) => n >= 4),
      `bar widths in device px: ${widths}`,
    );
    await cdp.detach();
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** A SparkEngine .replay written by the CLI (player-helpers.mjs generated()). */
const sparkFixture = () => generated('dm.replay', ['--format', 'spark', '--seconds', '40', '--seed', '3']);

test("a SparkEngine .replay dropped on the page plays, shows its map/mode and kill markers, and its kill cam ends on the kill's frame", {
  timeout: 240_000,
}, async () => {
  const file = sparkFixture();
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await dropFile(page, file, 'dm.replay');
    const s = await playerState(page);
    const meta = new Map(s.info.info.metadata);
    assert.ok(meta.get('map'), 'the file names a map');
    // The Recording panel refreshes on its own beat after the open: wait for it, then compare.
    await page
      .waitForFunction(
        (m) => document.querySelector('#status-list dd[data-key="map"]')?.textContent === m,
        meta.get('map'),
        { timeout: 10_000 },
      )
      .catch(() => {});
    assert.equal(await page.locator('#status-list dd[data-key="map"]').textContent(), meta.get('map'));
    assert.equal(await page.locator('#status-list dd[data-key="mode"]').textContent(), meta.get('mode'));
    assert.match(s.status, new RegExp(`Map: ${meta.get('map')}\\nMode: ${meta.get('mode')}`));
    assert.ok(s.markers > 0, 'the deathmatch has kills');
    assert.equal((await timelineMarkers(page)).kills.length, s.markers);
    // The worker fetched the SparkEngine decoder build for it (by its magic), not the .foldback one.
    const workerResources = await decoderWorker(page).evaluate(() =>
      performance.getEntriesByType('resource').map((e) => e.name),
    );
    assert.ok(
      workerResources.some((n) => n.endsWith('pkg/decoder_spark/decoder_spark_bg.wasm')),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(
      !workerResources.some((n) => /decoder_foldback/.test(n)),
      `worker resources: ${workerResources.join(', ')}`,
    );
    // It plays.
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => window.__player.currentTime > 0.5);
    await settle(page, 3);
    await page.screenshot({ path: path.join(SHOTS, 'playback-spark.png') });
    // Kill cam on a kill at least 5 s in.
    const kill = s.killFeed.find((k) => k.time > 5);
    assert.ok(kill, 'a kill after 5 s');
    await page.evaluate(
      (tick) => window.__player.startKillCam(window.__player.kills.find((k) => k.tick === tick)),
      kill.tick,
    );
    assert.equal((await pstate(page)).speed, 0.5);
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().killCam, null, {
      timeout: 200_000,
      polling: 100,
    });
    const e = await pstate(page);
    assert.equal(e.tick, kill.tick);
    assert.equal(e.playbackState, 'Paused');
    assert.equal(e.speed, 1);
    log.assertClean();
  } finally {
    await page.close();
  }
});
