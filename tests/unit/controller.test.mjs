// www/api/controller.ts in Node over a real Core with a fake decoder worker and renderer
// (tests/unit/fakes.mjs): the status and its `statuschange` before the event that changed it; the
// clock's commands (play, pause, toggle, step, seekTick, speed); follow by callsign and its refusal;
// a camera mode that is none; a load's options read (t, speed, a value it cannot use as a notice);
// what an embedding page may know (getState); captureFrame before anything is open.
// Run: node --import tsx --test tests/unit/controller.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Controller } from '../../www/api/controller.ts';
import { fakeElement, installDom, fakeStarts, until } from './fakes.mjs';

installDom();

function makeController() {
  const { log, workers, options } = fakeStarts();
  const events = [];
  const c = new Controller(fakeElement('div'), options);
  for (const ev of ['statuschange', 'loadstart', 'ready', 'error', 'notice', 'play', 'pause', 'ratechange'])
    c.on(ev, (d) => events.push([ev, d]));
  return { c, log, workers, events };
}

const blob = () => Object.assign(new Blob([new Uint8Array(8)]), { name: 'match.flrep' });

test('status: idle, loading, ready, failed, disposed; each change before the event that made it', async () => {
  const { c, workers, events } = makeController();
  assert.equal(c.status, 'idle');
  assert.equal(c.error, null);
  await c.load(blob());
  assert.deepEqual(
    events.slice(0, 2).map(([e, d]) => (e === 'statuschange' ? d : e)),
    ['loading', 'loadstart'],
  );
  await until(() => c.status === 'ready', 'ready');
  const i = events.findIndex(([e]) => e === 'ready');
  assert.deepEqual(events[i - 1], ['statuschange', 'ready']);
  workers[0].push({ type: 'error', session: 1, message: 'the reader gave up' });
  assert.equal(c.status, 'failed');
  assert.equal(c.error, 'the reader gave up');
  assert.deepEqual(events.slice(-2), [
    ['statuschange', 'failed'],
    ['error', { message: 'the reader gave up' }],
  ]);
  c.dispose();
  assert.equal(c.status, 'disposed');
  assert.deepEqual(events.at(-1), ['statuschange', 'disposed']);
  c.dispose();
  assert.equal(events.filter(([, d]) => d === 'disposed').length, 1, 'once');
});

test("the clock's commands", async () => {
  const { c, events } = makeController();
  // Before a recording is open nothing moves (a speed is kept for it).
  c.play();
  assert.equal(c.playing, false);
  c.setSpeed(4);
  assert.equal(c.speed, 4);
  c.setSpeed(-1);
  c.setSpeed('fast');
  assert.equal(c.speed, 4, 'what is not a positive number is ignored');
  await c.load(blob());
  await until(() => c.status === 'ready', 'ready');
  c.setSpeed(1);
  c.play();
  assert.equal(c.playing, true);
  assert.equal(c.playbackState, 'Playing');
  c.toggle();
  assert.equal(c.paused, true);
  assert.ok(events.some(([e]) => e === 'pause'));
  assert.equal(await c.seekTick(100), 10);
  assert.equal(c.tick, 100);
  c.play();
  const t = await c.step(5);
  assert.equal(c.playing, false, 'a step pauses');
  assert.equal(c.tick, 105);
  assert.ok(Math.abs(t - 10.5) < 1e-9);
  await c.stop();
  assert.equal(c.playbackState, 'Stopped');
  assert.equal(c.currentTime, 0);
  c.dispose();
});

test('follow by callsign, refusals with a sentence, and what an embedding page may know', async () => {
  const { c } = makeController();
  await c.load(blob());
  await until(() => c.status === 'ready', 'ready');
  c.follow('Viper');
  assert.equal(c.followed, 1);
  assert.equal(c.selected, 1);
  assert.throws(() => c.follow('Nobody'), /nobody called "Nobody" is in this recording/);
  assert.throws(() => c.setCamera('drone'), /unknown camera mode "drone"/);
  await c.seek(12.5);
  assert.deepEqual(c.getState(), {
    time: 12.5,
    duration: c.duration,
    tick: 125,
    playing: false,
    speed: 1,
    camera: c.cameraMode(),
    follow: 'Viper',
    url: null,
  });
  c.follow(null);
  assert.equal(c.followed, -1);
  c.dispose();
});

test("a load's options: where it opens and how fast; a value it cannot use is a notice", async () => {
  const { c, events } = makeController();
  await c.load(blob(), { t: '0:20', speed: 2, follow: 'Ghost' });
  await until(() => c.status === 'ready', 'ready');
  assert.equal(c.currentTime, 20);
  assert.equal(c.speed, 2);
  await until(() => events.some(([e]) => e === 'notice'), 'the notice');
  assert.match(events.find(([e]) => e === 'notice')[1].text, /Ghost/);
  assert.ok(c.notices.some((n) => /Ghost/.test(n)));
  c.dispose();
});

test('captureFrame with nothing open rejects with a sentence', async () => {
  const { c } = makeController();
  await assert.rejects(c.captureFrame(0, 64, 64), /Open a recording first/);
  c.dispose();
});
