// www/core/moment.ts: where a link opens a recording (t, poster), its clip (end, loop), its view
// (follow, camera, view) and spoiler-safety, against a fake player. Run: node --test tests/unit/
import assert from 'node:assert/strict';
import test from 'node:test';
import { Moment } from '../../www/core/moment.ts';
import { Playback } from '../../www/core/clock.ts';
import { Timebase } from '../../www/core/pieces.ts';
import { readOptions } from '../../www/api/options.ts';

function fakePlayer({ names = { Iceman: 10 } } = {}) {
  const calls = [];
  const notices = [];
  const tb = new Timebase();
  tb.set({ first_tick: 0, last_tick: 6000, tick_rate_hz: 60 });
  const pb = new Playback();
  pb.load(100, []);
  const p = {
    tb,
    pb,
    duration: 100,
    calls,
    notices,
    emit: (ev, d) => ev === 'notice' && notices.push(d.text),
    entities: { find: (w) => names[w] ?? -1 },
    camera: {
      select: (id, o) => calls.push(['select', id, o.follow]),
      setMode: (m) => {
        calls.push(['mode', m]);
        p.cameraMode = m;
      },
      startKillCam: () => calls.push(['killcam']),
      mode: () => p.cameraMode,
    },
    cameraMode: 'orbit',
    renderer: { setCameraPose: (a) => calls.push(['pose', Array.from(a)]) },
  };
  p.moment = new Moment(p);
  return p;
}
const opts = (q) => readOptions(new URLSearchParams(q)).options;

// A MomentHost that writes down, in one list and in order, everything Moment asks of it: the
// clock's seeks and speed, the events it emits, the camera's and the renderer's calls.
function recordingHost({ names = { Iceman: 10 }, renderer = true, mode = 'orbit' } = {}) {
  const asks = [];
  const tb = new Timebase();
  tb.set({ first_tick: 0, last_tick: 6000, tick_rate_hz: 60 });
  let speed = 1;
  const h = {
    asks,
    tb,
    duration: 100,
    pb: {
      time: 0,
      get speed() {
        return speed;
      },
      set speed(v) {
        asks.push(['speed', v]);
        speed = v;
      },
      seek(t) {
        asks.push(['seek', t]);
        h.pb.time = t;
        return t;
      },
    },
    emit: (ev, d) => asks.push(['emit', ev, d]),
    entities: { find: (w) => names[w] ?? -1 },
    camera: {
      mode: () => mode,
      select: (id, o) => asks.push(['select', id, o]),
      setMode: (m) => {
        asks.push(['setMode', m]);
        mode = m;
      },
      startKillCam: () => asks.push(['startKillCam']),
    },
    renderer: renderer ? { setCameraPose: (a) => asks.push(['setCameraPose', a]) } : null,
  };
  h.moment = new Moment(h);
  return h;
}

test('the clock starts at t before anything is decoded; a tick is the recording tick; speed is set', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=1:35.2&speed=4'));
  p.moment.opened();
  assert.equal(p.pb.time, 95.2);
  assert.equal(p.pb.speed, 4);
  assert.equal(p.moment.start, 95.2);
  const q = fakePlayer();
  q.moment.set(opts('t=tick:5712'));
  q.moment.opened();
  assert.equal(q.pb.time, 95.2, 'tick 5712 at 60 Hz');
});

test('a time past the end goes to the end with a notice', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=500'));
  p.moment.opened();
  assert.equal(p.pb.time, 100);
  assert.equal(p.notices.length, 1);
  assert.match(p.notices[0], /past the end of this recording \(100\.0 s\)/);
});

test('a poster is the still shown before play; playing starts at t', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=10&poster=42'));
  p.moment.opened();
  assert.equal(p.pb.time, 42);
  assert.equal(p.moment.posterPending, true);
  assert.equal(p.moment.start, 10);
  p.moment.jumped(10);
  assert.equal(p.moment.posterPending, false, 'any jump ends the poster');
  const auto = fakePlayer();
  auto.moment.set(opts('t=10&poster=42&autoplay=1'));
  auto.moment.opened();
  assert.equal(auto.pb.time, 10, 'with autoplay the poster is not shown');
});

test('a clip stops at its end, or loops to its start; an end not after the start is refused', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=10&end=20'));
  p.moment.opened();
  assert.deepEqual(p.moment.clip, { start: 10, end: 20, loop: false });
  assert.equal(p.moment.advanced(18, 19.9), null);
  assert.equal(p.moment.advanced(19.9, 20.05), 'stop');
  assert.equal(p.moment.advanced(20.05, 20.1), null, 'once, as the end is crossed');
  const l = fakePlayer();
  l.moment.set(opts('t=10&end=tick:1200&loop=1'));
  l.moment.opened();
  assert.deepEqual(l.moment.clip, { start: 10, end: 20, loop: true });
  assert.equal(l.moment.advanced(19.99, 20.2), 'loop');
  const bad = fakePlayer();
  bad.moment.set(opts('t=30&end=20'));
  bad.moment.opened();
  assert.equal(bad.moment.clip, null);
  assert.match(bad.notices[0], /not after its start/);
});

test("the page's in and out points: a clip of the recording, clamped; a reversed one is not taken", () => {
  const p = fakePlayer();
  p.moment.set({});
  p.moment.opened();
  assert.deepEqual(p.moment.setClip({ start: -5, end: 30 }), { start: 0, end: 30, loop: false });
  assert.deepEqual(p.moment.setClip({ start: 50, end: 40 }), { start: 0, end: 30, loop: false });
  assert.deepEqual(p.moment.setClip({ start: 90, end: 900, loop: true }), { start: 90, end: 100, loop: true });
  assert.equal(p.moment.setClip(null), null);
});

test('the view goes on the first frame: follow, then the camera mode, then its pose; once', () => {
  const p = fakePlayer();
  p.moment.set(opts('follow=Iceman&camera=follow&view=0.5,0.2,300'));
  p.moment.opened();
  p.moment.firstFrame();
  p.moment.firstFrame();
  assert.deepEqual(p.calls, [
    ['select', 10, true],
    ['mode', 'follow'],
    ['pose', [0.5, 0.2, 300]],
  ]);
  const q = fakePlayer();
  q.moment.set(opts('follow=Goose&camera=kill'));
  q.moment.opened();
  q.moment.firstFrame();
  assert.deepEqual(q.calls, [['killcam']]);
  assert.match(q.notices[0], /Nobody called "Goose"/);
});

test('spoiler-safe: the furthest time reached grows with playing and landing, not with rewinding', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=30&spoilers=0'));
  p.moment.opened();
  assert.equal(p.moment.spoilerSafe, true);
  assert.equal(p.moment.revealedUntil, 30);
  p.moment.advanced(30, 31);
  assert.equal(p.moment.revealedUntil, 31);
  p.moment.jumped(10);
  assert.equal(p.moment.revealedUntil, 31);
  p.moment.jumped(70);
  assert.equal(p.moment.revealedUntil, 70);
  p.moment.set({});
  assert.equal(p.moment.spoilerSafe, false, 'a new load forgets the last options');
});

test('a loop without an end loops at the end of the recording; a clip without one never stops', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=90&loop=1'));
  p.moment.opened();
  assert.deepEqual(p.moment.clip, { start: 90, end: null, loop: true });
  assert.equal(p.moment.advanced(99.9, 100), 'loop');
  const q = fakePlayer();
  q.moment.set({});
  q.moment.opened();
  q.moment.setClip({ start: 10, end: null });
  assert.equal(q.moment.advanced(99.9, 100), null);
});

test('where a clip stopped is its end', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=10&end=20'));
  p.moment.opened();
  assert.equal(p.moment.atClipEnd(20), true);
  assert.equal(p.moment.atClipEnd(19.9), false);
  p.moment.setClip({ start: 5, end: null });
  assert.equal(p.moment.atClipEnd(100), false, 'a clip to the end has no clip end');
  p.moment.setClip(null);
  assert.equal(p.moment.atClipEnd(20), false, 'no clip, no clip end');
});

test("a view of another length than the mode's pose is noticed, not applied", () => {
  const p = fakePlayer();
  p.moment.set(opts('camera=free&view=1,2,3'));
  p.moment.opened();
  p.moment.firstFrame();
  assert.deepEqual(p.calls, [['mode', 'free']]);
  assert.match(p.notices[0], /the free camera's view has 5 numbers/);
  const q = fakePlayer();
  q.moment.set(opts('view=1,2,3,0.1,0.2,300'));
  q.moment.opened();
  q.moment.firstFrame();
  assert.deepEqual(q.calls, [['pose', [1, 2, 3, 0.1, 0.2, 300]]], 'an orbit pose in orbit');
});

test('spoiler-safe hides the length until the end is reached, even in a notice', () => {
  const p = fakePlayer();
  p.moment.set(opts('t=500&spoilers=0'));
  p.moment.opened();
  assert.doesNotMatch(p.notices[0], /100/);
  assert.match(p.notices[0], /past the end of this recording\./);
  const q = fakePlayer();
  q.moment.set(opts('t=30&spoilers=0'));
  q.moment.opened();
  assert.equal(q.moment.lengthHidden, true);
  q.moment.advanced(99, 100);
  assert.equal(q.moment.lengthHidden, false, 'played to the end');
  const r = fakePlayer();
  r.moment.set(opts('t=30'));
  r.moment.opened();
  assert.equal(r.moment.lengthHidden, false, 'not spoiler-safe');
});

test('opening without options asks nothing of the player: no seek, no speed, no event', () => {
  const h = recordingHost();
  h.moment.set(undefined);
  h.moment.opened();
  h.moment.firstFrame();
  assert.deepEqual(h.asks, []);
  assert.equal(h.moment.start, 0);
  assert.equal(h.moment.clip, null);
  const z = recordingHost();
  z.moment.set(opts('t=0'));
  z.moment.opened();
  assert.deepEqual(z.asks, [], 't=0 is where the clock already is: no seek');
});

test('opening asks one seek, then the speed and its ratechange; a poster is the one seek', () => {
  const h = recordingHost();
  h.moment.set(opts('t=tick:1200&speed=2'));
  h.moment.opened();
  assert.deepEqual(h.asks, [
    ['seek', 20],
    ['speed', 2],
    ['emit', 'ratechange', 2],
  ]);
  assert.equal(h.moment.revealedUntil, 20, 'what the seek landed on is revealed');
  const p = recordingHost();
  p.moment.set(opts('t=10&poster=42'));
  p.moment.opened();
  assert.deepEqual(p.asks, [['seek', 42]], 'the poster still, not t, is decoded first');
  assert.equal(p.moment.start, 10);
});

test('autoplay: the poster is skipped, the clock seeks to t; a new load forgets autoplay', () => {
  const h = recordingHost();
  h.moment.set(opts('t=10&poster=42&autoplay=1&speed=0.5'));
  assert.equal(h.moment.autoplay, true);
  h.moment.opened();
  assert.equal(h.moment.posterPending, false);
  assert.deepEqual(h.asks, [
    ['seek', 10],
    ['speed', 0.5],
    ['emit', 'ratechange', 0.5],
  ]);
  const q = recordingHost();
  q.moment.set(opts('poster=42'));
  q.moment.opened();
  assert.equal(q.moment.autoplay, false);
  assert.equal(q.moment.posterPending, true);
  q.moment.set({});
  assert.equal(q.moment.posterPending, false, 'set() forgets the last poster');
});

test('a notice is emitted as it is written down, with the same words', () => {
  const h = recordingHost();
  h.moment.set(opts('t=tick:9000&end=5'), ['From reading: speed=3 ignored.']);
  h.moment.opened();
  const emitted = h.asks.filter((a) => a[1] === 'notice').map((a) => a[2].text);
  assert.equal(emitted.length, 2, 'the time past the end, the end before the start');
  assert.deepEqual(h.moment.notices, ['From reading: speed=3 ignored.', ...emitted]);
  assert.match(emitted[0], /tick 9000 is past the end/);
  assert.deepEqual(h.asks[1], ['seek', 100], 'noticed first, then the clock goes to the end');
});

test('the view asks the camera in order: follow, kill cam; an orbit pose goes to the renderer', () => {
  const h = recordingHost();
  h.moment.set(opts('follow=Iceman&camera=kill'));
  h.moment.opened();
  h.moment.firstFrame();
  assert.deepEqual(h.asks, [['select', 10, { follow: true }], ['startKillCam']]);
  const v = recordingHost();
  v.moment.set(opts('view=1,2,3,0.1,0.2,300'));
  v.moment.opened();
  v.moment.firstFrame();
  assert.equal(v.asks.length, 1);
  assert.equal(v.asks[0][0], 'setCameraPose');
  assert.ok(v.asks[0][1] instanceof Float64Array, 'the renderer gets a Float64Array');
  assert.deepEqual(Array.from(v.asks[0][1]), [1, 2, 3, 0.1, 0.2, 300]);
});

test("the pose's length is checked against the mode the link just set, not the one before", () => {
  const h = recordingHost({ mode: 'orbit' });
  h.moment.set(opts('camera=first&view=0.3,0.1'));
  h.moment.opened();
  h.moment.firstFrame();
  assert.deepEqual(
    h.asks.map((a) => a[0]),
    ['setMode', 'setCameraPose'],
  );
  assert.equal(h.moment.notices.length, 0);
});

test('a pose the renderer refuses changes nothing and throws nothing', () => {
  const h = recordingHost();
  h.renderer.setCameraPose = () => {
    throw new Error('refused');
  };
  h.moment.set(opts('view=1,2,3,0.1,0.2,300'));
  h.moment.opened();
  assert.doesNotThrow(() => h.moment.firstFrame());
  assert.deepEqual(h.moment.notices, []);
});

test('no renderer on the first frame: the view is not applied, then or later; a new load applies it', () => {
  const h = recordingHost({ renderer: false });
  h.moment.set(opts('follow=Goose&camera=free'));
  h.moment.opened();
  h.moment.firstFrame();
  assert.deepEqual(h.asks, [], 'not even the notice for a callsign nobody has');
  h.renderer = { setCameraPose: () => h.asks.push(['setCameraPose']) };
  h.moment.firstFrame();
  assert.deepEqual(h.asks, [], 'the first frame was the chance');
  h.moment.set(opts('camera=free'));
  h.moment.opened();
  h.moment.firstFrame();
  assert.deepEqual(h.asks, [['setMode', 'free']]);
});
