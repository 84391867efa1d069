// www/core/camera.ts: selection and follow, the renderer's camera modes, the kill cam (started,
// ended by another mode, ended by the clock with the camera restored) and the free camera's flight,
// against a fake player: a renderer that records its calls, the real clock, a recorded emitter.
// Run: node --import tsx --test tests/unit/camera.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Camera } from '../../www/core/camera.ts';
import { Playback } from '../../www/core/clock.ts';
import { NO_ENTITY } from '../../www/core/entities.ts';

const kill = (tick, killer = 3, victim = 4) => ({ kind: 'kill', tick, killer, victim, weapon_type: 65535 });

/** A renderer whose camera mode follows its calls the way bridge/render.ts's proxy mirrors them. */
function fakeRenderer(calls) {
  let mode = 'orbit';
  return {
    cameraMode: () => mode,
    setSelected: (id) => calls.push(['setSelected', id]),
    follow: (id) => {
      calls.push(['follow', id]);
      if (id >= 0 && mode === 'orbit') mode = 'follow';
    },
    setCameraMode: (m) => {
      calls.push(['setCameraMode', m]);
      if (!['orbit', 'free', 'follow', 'first', 'kill'].includes(m)) throw new Error(`unknown camera mode ${m}`);
      mode = m;
    },
    killCam: (killer, victim) => {
      calls.push(['killCam', killer, victim]);
      mode = 'kill';
    },
    fly: (f, r, u) => calls.push(['fly', f, r, u]),
  };
}

/** A player as core.ts's Core is to the camera: snap/afterChange/cmd as Core's (afterChange hands
 *  a kill cam the clock ended back to the camera), everything else recorded in `calls`. */
function fakePlayer({ renderer = true, open = true, participants = [{ entity: 7 }], kills = [kill(600)] } = {}) {
  const calls = [];
  const events = [];
  const pb = new Playback();
  pb.load(100, []);
  const p = {
    calls,
    events,
    pb,
    renderer: renderer ? fakeRenderer(calls) : null,
    info: open ? { info: { participants } } : null,
    stage: { fitCamera: () => calls.push(['fitCamera']) },
    ledger: { killTime: (k) => k.tick / 60 },
    loop: {
      restartClock: () => calls.push(['restartClock']),
      wake: () => calls.push(['wake']),
    },
    sceneExtentM: 1000,
    nearestKill: () => kills[0] ?? null,
    snap: () => ({ state: pb.state, moving: pb.moving, speed: pb.speed, kc: pb.killCam }),
    afterChange(before) {
      calls.push(['afterChange', before.kc === null ? null : 'kc']);
      if (before.kc && pb.killCam !== before.kc && !pb.killCam) p.camera.killCamEnded(before.kc);
    },
    cmd(fn) {
      if (!p.info) return undefined;
      const before = p.snap();
      try {
        return fn(pb);
      } finally {
        p.afterChange(before);
      }
    },
    jumped: () => calls.push(['jumped', pb.time]),
    emit: (ev, d) => events.push([ev, d]),
  };
  p.camera = new Camera(p);
  return p;
}

test('select: the renderer is told, the selection is emitted; follow also follows it', () => {
  const p = fakePlayer();
  p.camera.select(5);
  assert.equal(p.camera.selected, 5);
  assert.equal(p.camera.followId, -1, 'selecting alone follows nothing');
  assert.deepEqual(p.calls, [['setSelected', 5]]);
  assert.deepEqual(p.events, [['selection', 5]]);

  p.calls.length = p.events.length = 0;
  p.camera.select(6, { follow: true });
  assert.equal(p.camera.followId, 6);
  assert.deepEqual(p.calls, [
    ['setSelected', 6],
    ['follow', 6],
  ]);
  assert.deepEqual(p.events, [
    ['selection', 6],
    ['cameramode', 'follow'],
  ]);

  p.calls.length = p.events.length = 0;
  p.camera.select(-9, { follow: true });
  assert.equal(p.camera.selected, -1, 'any negative id is "nothing"');
  assert.equal(p.camera.followId, -1);
  assert.deepEqual(p.calls, [
    ['setSelected', -1],
    ['follow', -1],
  ]);
});

test('before there is a renderer: the selection is kept and emitted, modes are orbit and ignored', () => {
  const p = fakePlayer({ renderer: false });
  assert.equal(p.camera.mode(), 'orbit');
  p.camera.select(5, { follow: true });
  assert.equal(p.camera.selected, 5);
  assert.equal(p.camera.followId, -1, 'nothing is followed without a renderer');
  assert.deepEqual(p.events, [
    ['selection', 5],
    ['cameramode', 'orbit'],
  ]);
  p.events.length = 0;
  p.camera.setMode('free');
  p.camera.resetView();
  assert.deepEqual(p.events, [], 'setMode and resetView wait for a renderer');
  assert.deepEqual(p.calls, []);
});

test('reset forgets the selection and the followed entity', () => {
  const p = fakePlayer();
  p.camera.select(5, { follow: true });
  p.camera.reset();
  assert.equal(p.camera.selected, -1);
  assert.equal(p.camera.followId, -1);
});

test('"follow"/"first" with nothing followed follow the selection, else the first real participant', () => {
  const p = fakePlayer();
  p.camera.select(5);
  p.calls.length = p.events.length = 0;
  p.camera.setMode('first');
  assert.equal(p.camera.followId, 5);
  assert.deepEqual(p.calls, [
    ['setSelected', 5],
    ['follow', 5],
    ['setCameraMode', 'first'],
  ]);
  assert.deepEqual(p.events.at(-1), ['cameramode', 'first']);

  const q = fakePlayer({ participants: [{ entity: NO_ENTITY }, { entity: 8 }, { entity: 9 }] });
  q.camera.setMode('follow');
  assert.equal(q.camera.selected, 8, 'a participant without an entity is skipped');
  assert.equal(q.camera.followId, 8);

  const r = fakePlayer({ participants: [{ entity: NO_ENTITY }] });
  r.camera.setMode('follow');
  assert.equal(r.camera.followId, -1, 'nobody to follow');
  assert.deepEqual(r.calls, [['setCameraMode', 'follow']]);

  const s = fakePlayer();
  s.camera.select(5, { follow: true });
  s.calls.length = 0;
  s.camera.setMode('first');
  assert.deepEqual(s.calls, [['setCameraMode', 'first']], 'one already followed stays followed');
});

test("a mode the renderer refuses is warned about; the renderer's mode is still emitted", (t) => {
  const warned = t.mock.method(console, 'warn', () => {});
  const p = fakePlayer();
  p.camera.setMode('sideways');
  assert.equal(warned.mock.callCount(), 1);
  assert.deepEqual(p.events, [['cameramode', 'orbit']]);
});

test('the kill cam: seeks before the kill, plays at 0.5×, the renderer watches killer → victim', () => {
  const p = fakePlayer();
  p.camera.select(2);
  p.calls.length = p.events.length = 0;
  const k = p.camera.startKillCam();
  assert.equal(k, p.nearestKill(), 'the nearest kill by default');
  assert.equal(p.camera.killCamKill, k);
  assert.equal(p.pb.time, 5, 'kill at 10 s, 5 s of rewind');
  assert.equal(p.pb.speed, 0.5);
  assert.equal(p.pb.killCam.until, 10);
  assert.deepEqual(p.pb.killCam.data, { mode: 'orbit', follow: -1, selected: 2 }, 'what to restore');
  assert.deepEqual(p.calls, [
    ['restartClock'],
    ['afterChange', null],
    ['setSelected', 4],
    ['follow', 4],
    ['killCam', 3, 4],
    ['jumped', 5],
  ]);
  assert.deepEqual(p.events, [
    ['killcam', { active: true, holding: false, kill: k }],
    ['cameramode', 'kill'],
  ]);

  const q = fakePlayer();
  q.camera.killCamRewind = 2;
  q.camera.startKillCam(kill(300));
  assert.equal(q.pb.time, 3, 'killCamRewind is the default rewind');
  q.camera.startKillCam(kill(300), { rewind: 8 });
  assert.equal(q.pb.time, 0, 'a rewind past the start starts at 0');
});

test('a kill cam started during one keeps the camera the first started from', () => {
  const p = fakePlayer();
  p.camera.select(6, { follow: true });
  p.camera.startKillCam(kill(600));
  p.camera.startKillCam(kill(1200, 8, 9));
  assert.deepEqual(p.pb.killCam.data, { mode: 'follow', follow: 6, selected: 6 });
  assert.equal(p.pb.killCam.until, 20);
});

test('no kill cam without a recording or a kill; "kill" mode without one re-emits the mode', () => {
  const p = fakePlayer({ open: false });
  assert.equal(p.camera.startKillCam(kill(600)), null);
  assert.deepEqual(p.calls, []);
  const q = fakePlayer({ kills: [] });
  q.camera.setMode('kill');
  assert.equal(q.pb.killCam, null);
  assert.deepEqual(q.events, [['cameramode', 'orbit']]);
  const r = fakePlayer();
  r.camera.setMode('kill');
  assert.equal(r.camera.killCamKill, r.nearestKill(), '"kill" runs the nearest kill');
});

test('another mode during a kill cam ends it at 1× without restoring the old camera', () => {
  const p = fakePlayer();
  p.camera.select(6, { follow: true });
  p.camera.startKillCam();
  p.calls.length = p.events.length = 0;
  p.camera.setMode('free');
  assert.equal(p.pb.killCam, null);
  assert.equal(p.pb.speed, 1);
  assert.equal(p.camera.killCamKill, null);
  assert.deepEqual(
    p.calls,
    [
      ['afterChange', null],
      ['setCameraMode', 'free'],
    ],
    'no restore',
  );
  assert.deepEqual(p.events, [
    ['killcam', { active: false, holding: false, kill: null }],
    ['cameramode', 'free'],
  ]);
});

test('the clock ending the kill cam restores the selection, the follow and the mode', () => {
  const p = fakePlayer();
  p.camera.select(6, { follow: true });
  p.camera.setMode('first');
  p.camera.startKillCam();
  p.calls.length = p.events.length = 0;
  p.cmd((pb) => pb.update(20)); // to the kill, then the hold
  assert.equal(p.pb.killCam?.phase, 'hold');
  assert.deepEqual(p.calls, [['afterChange', 'kc']], 'still on the kill');
  p.cmd((pb) => pb.update(2));
  assert.equal(p.pb.killCam, null);
  assert.equal(p.camera.killCamKill, null);
  assert.deepEqual(p.calls.slice(1), [
    ['afterChange', 'kc'],
    ['setSelected', 6],
    ['follow', 6],
    ['setCameraMode', 'first'],
  ]);
  assert.deepEqual(p.events, [
    ['killcam', { active: false, holding: false, kill: null }],
    ['cameramode', 'first'],
  ]);
});

test('a kill cam with nothing to restore ends on orbit, nothing selected or followed', () => {
  const p = fakePlayer();
  p.camera.killCamEnded({ data: null });
  assert.deepEqual(p.calls, [
    ['setSelected', -1],
    ['follow', -1],
    ['setCameraMode', 'orbit'],
  ]);
});

test('resetView ends a kill cam, follows nothing and fits the scene', () => {
  const p = fakePlayer();
  p.camera.select(6, { follow: true });
  p.camera.startKillCam();
  p.calls.length = p.events.length = 0;
  p.camera.resetView();
  assert.equal(p.pb.killCam, null);
  assert.equal(p.camera.followId, -1);
  assert.equal(p.camera.selected, 6, 'the selection stays');
  assert.deepEqual(p.calls, [['afterChange', null], ['setCameraMode', 'orbit'], ['follow', -1], ['fitCamera']]);
  assert.deepEqual(p.events.at(-1), ['cameramode', 'orbit']);
});

test('the free camera flies only in free mode with a key held, scaled by the scene, fast and dt', () => {
  const p = fakePlayer();
  assert.equal(p.camera.flying, false);
  p.camera.setFlyKeys({ forward: 1, right: -1 });
  assert.equal(p.camera.flying, true);
  assert.deepEqual(p.calls, [['wake']], 'a key wakes the loop');
  p.calls.length = 0;
  p.camera.flyStep(0.5);
  assert.deepEqual(p.calls, [], 'orbit mode does not fly');
  p.camera.setMode('free');
  p.calls.length = 0;
  p.camera.flyStep(0);
  assert.deepEqual(p.calls, [], 'no time, no flight');
  p.camera.flyStep(0.5);
  // 1000 m scene × 0.12 = 120 m/s, half a second.
  assert.deepEqual(p.calls, [['fly', 60, -60, 0]]);
  p.calls.length = 0;
  p.camera.setFlyKeys({ up: 1, fast: true });
  p.calls.length = 0;
  p.camera.flyStep(0.5);
  assert.deepEqual(p.calls, [['fly', 240, -240, 240]], 'fast is 4×; keys set before are kept');
  p.calls.length = 0;
  p.sceneExtentM = 1;
  p.camera.flyStep(1);
  assert.deepEqual(p.calls, [['fly', 16, -16, 16]], 'at least 4 m/s');
  p.calls.length = 0;
  p.sceneExtentM = 1e6;
  p.camera.flyStep(1);
  assert.deepEqual(p.calls, [['fly', 12000, -12000, 12000]], 'at most 3000 m/s');
  p.camera.setFlyKeys({ forward: 0, right: 0, up: 0 });
  assert.equal(p.camera.flying, false);
  p.calls.length = 0;
  p.camera.flyStep(1);
  assert.deepEqual(p.calls, []);
});
