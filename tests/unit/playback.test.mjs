// Unit tests of the pure playback state machine (www/core/clock.ts): every transition, speeds,
// SeekTo clamping, reverse play reaching 0, the end, the kill cam, GetEventsNearTime windows and
// the Console_GetStatus readout. Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Playback, State, SPEEDS, nextSpeed, lowerBound, upperBound, frameIndexAt } from '../../www/core/clock.ts';

const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} ≉ ${b}`);
const ev = (t, kind = 'kill', extra = {}) => ({ t, kind, ...extra });

test('a loaded recording starts Stopped at 0 with speed 1', () => {
  const p = new Playback({ duration: 180 });
  assert.equal(p.state, State.Stopped);
  assert.equal(p.time, 0);
  assert.equal(p.speed, 1);
  assert.equal(p.moving, false);
  assert.equal(p.direction, 0);
  assert.equal(p.ended, false);
});

test('StartPlayback: Stopped → Playing from 0 (and from anywhere restarts at 0)', () => {
  const p = new Playback({ duration: 10 });
  p.start();
  assert.equal(p.state, State.Playing);
  assert.equal(p.time, 0);
  p.update(2);
  close(p.time, 2);
  p.start();
  assert.equal(p.time, 0);
  assert.equal(p.state, State.Playing);
});

test('Pause / Resume: Playing ↔ Paused; time frozen while Paused; toggle', () => {
  const p = new Playback({ duration: 10 });
  p.start();
  p.update(1);
  p.pause();
  assert.equal(p.state, State.Paused);
  p.update(5);
  close(p.time, 1);
  p.resume();
  assert.equal(p.state, State.Playing);
  p.update(0.5);
  close(p.time, 1.5);
  p.toggle();
  assert.equal(p.state, State.Paused);
  p.toggle();
  assert.equal(p.state, State.Playing);
  // pause() when not moving and resume() when not paused are no-ops.
  p.pause();
  p.pause();
  assert.equal(p.state, State.Paused);
  p.resume();
  p.resume();
  assert.equal(p.state, State.Playing);
});

test('resume() from Stopped is StartPlayback; play() from Paused continues from the playhead', () => {
  const p = new Playback({ duration: 10 });
  p.resume();
  assert.equal(p.state, State.Playing);
  assert.equal(p.time, 0);
  p.update(3);
  p.pause();
  p.play();
  assert.equal(p.state, State.Playing);
  close(p.time, 3);
});

test('Stop → Stopped at time 0 from every state', () => {
  for (const enter of [
    (p) => p.start(),
    (p) => {
      p.start();
      p.pause();
    },
    (p) => {
      p.seek(5);
      p.rewind();
    },
    (p) => p.fastForward(),
  ]) {
    const p = new Playback({ duration: 10 });
    p.seek(5);
    enter(p);
    p.update(0.5);
    p.stop();
    assert.equal(p.state, State.Stopped);
    assert.equal(p.time, 0);
    p.update(1);
    assert.equal(p.time, 0, 'a stopped clock does not move');
  }
});

test('reaching the end stops automatically (Stopped, time = duration); play() then starts from 0', () => {
  const p = new Playback({ duration: 10 });
  p.start();
  assert.deepEqual(p.update(9.5), []);
  const sig = p.update(1);
  assert.deepEqual(sig, ['ended']);
  assert.equal(p.state, State.Stopped);
  assert.equal(p.time, 10);
  assert.equal(p.ended, true);
  p.play();
  assert.equal(p.state, State.Playing);
  assert.equal(p.time, 0);
});

test('play() while Paused at the end restarts from 0', () => {
  const p = new Playback({ duration: 10 });
  p.seek(10);
  assert.equal(p.state, State.Paused);
  p.play();
  assert.equal(p.time, 0);
  assert.equal(p.state, State.Playing);
});

test('Rewinding plays backwards at the speed; reaching 0 → Paused at 0; resume then plays forward', () => {
  const p = new Playback({ duration: 10 });
  p.seek(3);
  p.rewind();
  assert.equal(p.state, State.Rewinding);
  assert.equal(p.direction, -1);
  p.update(1);
  close(p.time, 2);
  p.setSpeed(2);
  assert.equal(p.state, State.Rewinding, 'speed does not change the direction');
  p.update(0.5);
  close(p.time, 1);
  const sig = p.update(5);
  assert.deepEqual(sig, ['start']);
  assert.equal(p.time, 0);
  assert.equal(p.state, State.Paused);
  p.resume();
  assert.equal(p.direction, 1);
});

test('rewind() at time 0 is Paused at 0; pause during Rewinding resumes backwards', () => {
  const p = new Playback({ duration: 10 });
  p.rewind();
  assert.equal(p.state, State.Paused);
  assert.equal(p.time, 0);
  p.seek(5);
  p.rewind();
  p.update(1);
  p.pause();
  assert.equal(p.state, State.Paused);
  p.resume();
  assert.equal(p.state, State.Rewinding);
  p.update(1);
  close(p.time, 3);
  p.play();
  assert.equal(p.state, State.Playing, 'play() always goes forward');
});

test('FastForward: forward at a speed > 1; setSpeed moves between Playing and FastForward', () => {
  const p = new Playback({ duration: 100 });
  p.fastForward();
  assert.equal(p.state, State.FastForward);
  assert.equal(p.speed, 2);
  p.update(1);
  close(p.time, 2);
  p.fastForward(8);
  assert.equal(p.speed, 8);
  p.update(1);
  close(p.time, 10);
  p.setSpeed(1);
  assert.equal(p.state, State.Playing);
  p.setSpeed(0.25);
  p.update(4);
  close(p.time, 11);
  p.setSpeed(4);
  assert.equal(p.state, State.FastForward);
  assert.throws(() => p.fastForward(1), RangeError);
  // Paused: the speed changes, the state does not.
  p.pause();
  p.setSpeed(16);
  assert.equal(p.state, State.Paused);
  p.resume();
  assert.equal(p.state, State.FastForward);
});

test('speeds: every multiplier of the list advances time by dt × speed; negative/zero refused; clamped to 0.25–16', () => {
  assert.deepEqual(SPEEDS, [0.25, 0.5, 1, 2, 4, 8, 16]);
  for (const s of SPEEDS) {
    const p = new Playback({ duration: 1000 });
    p.setSpeed(s);
    p.start();
    p.update(2);
    close(p.time, 2 * s);
  }
  const p = new Playback({ duration: 10 });
  for (const bad of [-1, 0, NaN, 'x', Infinity]) assert.throws(() => p.setSpeed(bad), RangeError);
  assert.equal(p.speed, 1);
  p.setSpeed(100);
  assert.equal(p.speed, 16);
  p.setSpeed(0.01);
  assert.equal(p.speed, 0.25);
  assert.equal(nextSpeed(1), 2);
  assert.equal(nextSpeed(16), 16);
  assert.equal(nextSpeed(1, -1), 0.5);
  assert.equal(nextSpeed(0.25, -1), 0.25);
  assert.equal(nextSpeed(3), 4);
});

test('SeekTo clamps to [0, duration]; a seek while Stopped leaves it Paused there', () => {
  const p = new Playback({ duration: 180 });
  assert.equal(p.seek(-5), 0);
  assert.equal(p.state, State.Paused);
  assert.equal(p.seek(999), 180);
  assert.equal(p.seek(45.3), 45.3);
  assert.equal(p.seek(NaN), 0);
  p.start();
  p.seek(20);
  assert.equal(p.state, State.Playing, 'seeking while playing keeps playing');
});

test('update with canReach: time waits for frames (buffering)', () => {
  const p = new Playback({ duration: 10 });
  p.start();
  assert.deepEqual(
    p.update(1, () => false),
    ['buffering'],
  );
  assert.equal(p.time, 0);
  p.update(1, (t) => t <= 1);
  close(p.time, 1);
});

test('kill cam: seeks 5 s before, plays at 0.5×, pauses exactly on the kill, holds, then ends at 1×', () => {
  const p = new Playback({ duration: 60 });
  p.setSpeed(4);
  p.start();
  p.update(1);
  const k = p.startKillCam(20.5, { data: { camera: 'follow' } });
  assert.equal(k.from, 15.5);
  assert.equal(p.time, 15.5);
  assert.equal(p.speed, 0.5);
  assert.equal(p.state, State.Playing);
  assert.equal(p.killCamActive, true);
  p.update(4); // 2 s of playback
  close(p.time, 17.5);
  let sig = p.update(100);
  assert.deepEqual(sig, ['killcam-hold']);
  assert.equal(p.time, 20.5, 'exactly the kill time');
  assert.equal(p.state, State.Paused);
  assert.equal(p.killCamActive, true);
  sig = p.update(0.5);
  assert.deepEqual(sig, []);
  sig = p.update(1);
  assert.deepEqual(sig, ['killcam-end']);
  assert.equal(p.killCamActive, false);
  assert.equal(p.speed, 1);
  assert.equal(p.state, State.Paused);
  assert.equal(p.time, 20.5);
});

test('kill cam: clamps the start at 0; hold 0 ends at once; a seek, stop or speed change ends it', () => {
  const p = new Playback({ duration: 60 });
  p.startKillCam(2, { rewind: 5, hold: 0 });
  assert.equal(p.time, 0);
  assert.deepEqual(p.update(10), ['killcam-hold', 'killcam-end']);
  assert.equal(p.time, 2);
  for (const cancel of [
    (q) => q.seek(1),
    (q) => q.stop(),
    (q) => q.setSpeed(2),
    (q) => q.rewind(),
    (q) => q.stopKillCam(),
  ]) {
    const q = new Playback({ duration: 60 });
    q.startKillCam(30);
    q.update(1);
    cancel(q);
    assert.equal(q.killCamActive, false);
    assert.ok(q.speed === 1 || q.speed === 2);
  }
  // stopKillCam pauses; pausing inside the kill cam keeps it, resume continues it.
  const r = new Playback({ duration: 60 });
  r.startKillCam(30);
  r.pause();
  assert.equal(r.killCamActive, true);
  r.resume();
  r.update(2);
  close(r.time, 26);
  // play() during the hold ends the kill cam and plays on at 1×.
  r.update(100);
  assert.equal(r.killCam.phase, 'hold');
  r.play();
  assert.equal(r.killCamActive, false);
  assert.equal(r.state, State.Playing);
  assert.equal(r.speed, 1);
  close(r.time, 30);
});

test('eventsNear (GetEventsNearTime): [t - w, t + w], default window 0.1, inclusive edges', () => {
  const p = new Playback({ duration: 100, events: [ev(5), ev(1), ev(1.05, 'custom'), ev(1.1), ev(3), ev(0.9)] });
  assert.deepEqual(p.eventTimes, [0.9, 1, 1.05, 1.1, 3, 5]);
  p.seek(1);
  assert.deepEqual(
    p.eventsNear().map((e) => e.t),
    [0.9, 1, 1.05, 1.1],
  );
  assert.deepEqual(
    p.eventsNear(0.01).map((e) => e.t),
    [1],
  );
  assert.deepEqual(
    p.eventsNear(0).map((e) => e.t),
    [1],
  );
  assert.deepEqual(
    p.eventsNear(2).map((e) => e.t),
    [0.9, 1, 1.05, 1.1, 3],
  );
  p.seek(4);
  assert.deepEqual(p.eventsNear(), []);
  assert.deepEqual(
    p.eventsNear(1).map((e) => e.t),
    [3, 5],
  );
  p.seek(100);
  assert.deepEqual(p.eventsNear(), []);
  assert.deepEqual(
    p.eventsBetween(1, 3).map((e) => e.t),
    [1.05, 1.1, 3],
  );
  assert.deepEqual(p.eventsBetween(3, 1), []);
  p.addEvents([ev(2), ev(0.95)]);
  assert.deepEqual(p.eventTimes, [0.9, 0.95, 1, 1.05, 1.1, 2, 3, 5]);
  assert.equal(p.events.length, 8);
});

test('binary-search helpers: lowerBound/upperBound/frameIndexAt (SeekTo picks lower_bound, last past the end)', () => {
  const f = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3];
  assert.equal(frameIndexAt(f, 0.12), 3);
  assert.equal(frameIndexAt(f, 0.2), 4);
  assert.equal(frameIndexAt(f, 99), 6);
  assert.equal(frameIndexAt(f, -1), 0);
  assert.equal(frameIndexAt([], 1), -1);
  assert.equal(lowerBound([1, 2, 2, 3], 2), 1);
  assert.equal(upperBound([1, 2, 2, 3], 2), 3);
});

test('status() is Console_GetStatus: state, time, speed, frames, events, map, mode, kill cam', () => {
  const p = new Playback({ duration: 180, events: Array.from({ length: 47 }, (_, i) => ev(i)) });
  p.frames = 3600;
  p.map = 'de_dust2';
  p.mode = 'deathmatch';
  p.start();
  p.update(45.3);
  assert.equal(
    p.status(),
    [
      '=== Replay System ===',
      'Recording: NO',
      'Playback: Playing',
      'Playback time: 45.3s / 180.0s',
      'Speed: 1x',
      'Frames recorded: 3600',
      'Events recorded: 47',
      'Map: de_dust2',
      'Mode: deathmatch',
      'Kill cam: OFF',
    ].join('\n'),
  );
  p.camera = 'kill';
  p.startKillCam(100);
  const s = p.status();
  assert.match(s, /Speed: 0\.5x/);
  assert.match(s, /Camera: kill/);
  assert.match(s, /Kill cam: ON$/);
  const q = new Playback({ duration: 5 });
  assert.match(q.status(), /Map: —\nMode: —/);
  assert.match(q.status(), /Playback: Stopped/);
  assert.deepEqual(Object.keys(q.statusFields()), [
    'state',
    'time',
    'duration',
    'speed',
    'frames',
    'events',
    'map',
    'mode',
    'camera',
    'killCam',
  ]);
});

test('load() resets to Stopped at 0; a zero-length recording never moves', () => {
  const p = new Playback({ duration: 10 });
  p.start();
  p.update(3);
  p.load(20, [ev(1)]);
  assert.equal(p.state, State.Stopped);
  assert.equal(p.time, 0);
  assert.equal(p.duration, 20);
  assert.equal(p.events.length, 1);
  const z = new Playback({ duration: 0 });
  z.start();
  assert.deepEqual(z.update(1), ['ended']);
  assert.equal(z.time, 0);
});
