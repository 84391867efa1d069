// www/core/loop.ts: the page's animation-frame loop against a fake host and a fake clock (frames,
// timers and performance.now() driven by hand): dt per frame, resting after quiet frames and
// 500 ms, waking, the once-a-second redraw while resting, stop(), and perf()'s timings.
// Run: node --import tsx --test tests/unit/loop.test.mjs
import assert from 'node:assert/strict';
import test from 'node:test';
import { FrameLoop } from '../../www/core/loop.ts';

/** A clock whose animation frames and timers run only when the test says so. */
function fakeClock() {
  const c = {
    t: 0,
    timeOrigin: 1_000_000,
    nextId: 1,
    frames: new Map(),
    timers: new Map(),
    requestAnimationFrame(cb) {
      const id = c.nextId++;
      c.frames.set(id, cb);
      return id;
    },
    cancelAnimationFrame(id) {
      c.frames.delete(id);
    },
    setTimeout(cb, ms) {
      const id = c.nextId++;
      c.timers.set(id, { cb, at: c.t + ms });
      return id;
    },
    clearTimeout(id) {
      c.timers.delete(id);
    },
    now: () => c.t,
    /** Runs the animation frames asked for so far at time `t` (ms); how many ran. */
    frame(t) {
      c.t = t;
      const due = [...c.frames.values()];
      c.frames.clear();
      for (const cb of due) cb(t);
      return due.length;
    },
    /** Moves the clock to `t` and runs the timers due by then. */
    advance(t) {
      c.t = t;
      for (const [id, { cb, at }] of [...c.timers]) {
        if (at > t) continue;
        c.timers.delete(id);
        cb();
      }
    },
  };
  return c;
}

/** A host that records each frame's dt; `quiet` says whether it may rest; `timed` whether frames count. */
function fakeHost(clock, { quiet = false, timed = false, drawMs = 0 } = {}) {
  const h = {
    dts: [],
    quiet,
    timed,
    renderer: { frameMs: () => 2, timeMs: () => 0.5, buildMs: () => 0.25 },
    drawFrame(dt) {
      h.dts.push(dt);
      clock.t += drawMs;
    },
    mayRest: () => h.quiet,
    frameTimed: () => h.timed,
  };
  return h;
}

function setup(opts) {
  const clock = fakeClock();
  const host = fakeHost(clock, opts);
  const loop = new FrameLoop(host, clock);
  return { clock, host, loop };
}

test('one frame per animation frame; dt is the seconds since the last, 0 first, at most 0.25', () => {
  const { clock, host } = setup();
  assert.equal(clock.frames.size, 1, 'the constructor asks for the first frame');
  clock.frame(1000);
  clock.frame(1016);
  clock.frame(1050);
  clock.frame(3000);
  assert.deepEqual(host.dts, [0, 0.016, 0.034, 0.25]);
  assert.equal(clock.frames.size, 1, 'each frame asks for the next');
});

test('restartClock(): the next frame steps by nothing', () => {
  const { clock, host, loop } = setup();
  clock.frame(100);
  clock.frame(116);
  loop.restartClock();
  clock.frame(132);
  clock.frame(148);
  assert.deepEqual(host.dts, [0, 0.016, 0, 0.016]);
});

test('it rests only after 3 quiet frames and 500 ms quiet, then asks for no frames', () => {
  const { clock, host, loop } = setup({ quiet: true });
  clock.frame(1000);
  clock.frame(1016);
  clock.frame(1032);
  assert.equal(loop.resting, false, '3 quiet frames but not 500 ms yet');
  clock.frame(1400);
  assert.equal(loop.resting, false);
  clock.frame(1500);
  assert.equal(loop.resting, true, '500 ms after the first quiet frame');
  assert.equal(clock.frames.size, 0, 'the frame it asked for is cancelled');
  assert.equal(clock.frame(1516), 0);
  assert.equal(host.dts.length, 5);
});

test('a frame that cannot rest restarts the quiet count', () => {
  const { clock, host, loop } = setup({ quiet: true });
  clock.frame(1000);
  clock.frame(1300);
  host.quiet = false;
  clock.frame(1400);
  host.quiet = true;
  clock.frame(1600);
  clock.frame(1700);
  assert.equal(loop.resting, false, 'quiet again since 1600 only');
  clock.frame(2000);
  assert.equal(loop.resting, false, '3 quiet frames, but 400 ms');
  clock.frame(2100);
  assert.equal(loop.resting, true);
});

test('stayAwake() keeps it up 500 ms more; restAfterFrames = Infinity never rests', () => {
  const { clock, loop } = setup({ quiet: true });
  clock.frame(1000);
  clock.frame(1200);
  clock.frame(1400);
  loop.stayAwake();
  clock.frame(1600);
  assert.equal(loop.resting, false);
  const never = setup({ quiet: true });
  never.loop.restAfterFrames = Number.POSITIVE_INFINITY;
  for (let t = 1000; t <= 11_000; t += 100) never.clock.frame(t);
  assert.equal(never.loop.resting, false);
});

test('wake() after a rest: frames again, the first with dt 0; cheap (no second frame) when awake', () => {
  const { clock, host, loop } = setup({ quiet: true });
  loop.wake();
  assert.equal(clock.frames.size, 1, 'awake: no frame asked for twice');
  for (const t of [1000, 1200, 1400, 1600]) clock.frame(t);
  assert.equal(loop.resting, true);
  assert.equal(clock.timers.size, 1, 'a redraw timer while resting');
  loop.wake();
  assert.equal(loop.resting, false);
  assert.equal(clock.timers.size, 0, 'the redraw timer is cleared');
  assert.equal(clock.frames.size, 1);
  host.dts.length = 0;
  clock.frame(5000);
  clock.frame(5016);
  assert.deepEqual(host.dts, [0, 0.016], 'no jump for the time at rest');
  // Woken actively, it waits the full 500 ms again before resting.
  clock.frame(5032);
  assert.equal(loop.resting, false);
  clock.frame(5516);
  assert.equal(loop.resting, true);
});

test('resting, a timer runs one frame a second and it rests again straight after', () => {
  const { clock, host, loop } = setup({ quiet: true });
  for (const t of [1000, 1200, 1400, 1600]) clock.frame(t);
  assert.equal(loop.resting, true);
  const [timer] = clock.timers.values();
  assert.equal(timer.at, 2600, 'REST_REDRAW_MS after resting');
  clock.advance(2599);
  assert.equal(loop.resting, true);
  clock.advance(2600);
  assert.equal(loop.resting, false, 'the timer wakes it');
  host.dts.length = 0;
  clock.frame(2610);
  clock.frame(2626);
  assert.equal(loop.resting, false, 'not before 3 quiet frames');
  clock.frame(2642);
  assert.equal(loop.resting, true, 'a redraw wake does not wait 500 ms');
  assert.deepEqual(host.dts, [0, 0.016, 0.016]);
  // An active wake puts the 500 ms back.
  loop.wake();
  for (const t of [4000, 4016, 4032]) clock.frame(t);
  assert.equal(loop.resting, false);
});

test('stop(): no more frames or timers, and wake() does nothing', () => {
  const { clock, host, loop } = setup({ quiet: true });
  for (const t of [1000, 1200, 1400, 1600]) clock.frame(t);
  assert.equal(clock.timers.size, 1);
  loop.stop();
  assert.equal(clock.timers.size, 0);
  loop.wake();
  assert.equal(clock.frames.size, 0);
  const awake = setup();
  awake.clock.frame(1000);
  awake.loop.stop();
  assert.equal(awake.clock.frames.size, 0, 'the frame asked for is cancelled');
  awake.loop.wake();
  assert.equal(awake.clock.frames.size, 0);
  assert.equal(host.dts.length, 4);
});

test("perf(): each timed frame's main-thread ms and the renderer's, oldest first; reset empties", () => {
  const { clock, host, loop } = setup({ drawMs: 3 });
  clock.frame(1000);
  assert.equal(loop.perf().frames, 0, 'untimed frames do not count');
  host.timed = true;
  clock.frame(1016);
  clock.frame(1032);
  const p = loop.perf(true);
  assert.equal(p.frames, 2);
  assert.deepEqual(p.totalMs, [3, 3], 'drawFrame took 3 ms on the clock');
  assert.deepEqual(p.renderMs, [2, 2]);
  assert.deepEqual(p.timeMs, [0.5, 0.5]);
  assert.deepEqual(p.buildMs, [0.25, 0.25]);
  assert.equal(loop.perf().frames, 0, 'reset');
});

test('perf() keeps the last 1024 frames, oldest first', () => {
  const { clock, host, loop } = setup({ timed: true });
  let ms = 0;
  host.drawFrame = () => {
    clock.t += ++ms;
  };
  for (let i = 0; i < 1030; i++) clock.frame((i + 1) * 10_000);
  const p = loop.perf();
  assert.equal(p.frames, 1024);
  assert.equal(p.totalMs[0], 7, 'the first 6 are gone');
  assert.equal(p.totalMs[1023], 1030);
});

test("pieceTimed(): a piece's timings on the page's clock, the last 512 kept", () => {
  const { clock, loop } = setup();
  clock.t = 250;
  const timing = { resumed: false, cached: true, read: 1, decode: 2, extract: 3, copy: 4 };
  loop.pieceTimed({ chunk: 7, from: 420, timing: { ...timing, startedAt: 1_000_100, postedAt: 1_000_180 } }, 200);
  assert.deepEqual(loop.perf().chunks, [{ index: 7, from: 420, ...timing, transit: 20, page: 50, started: 100 }]);
  loop.pieceTimed({ chunk: 8, from: 0, timing: { ...timing, startedAt: 0, postedAt: 1_000_200 } }, 240);
  assert.equal('started' in loop.perf().chunks[1], false, 'no start time: none given');
  for (let i = 0; i < 520; i++)
    loop.pieceTimed({ chunk: 100 + i, from: 0, timing: { ...timing, startedAt: 0, postedAt: 0 } }, 0);
  const chunks = loop.perf(true).chunks;
  assert.equal(chunks.length, 512);
  assert.equal(chunks[0].index, 108, 'the first 10 of 522 are gone');
  assert.equal(loop.perf().chunks.length, 0, 'reset');
});
