// www/core/hints.ts: the `prefetch` hints the page sends the decoder worker (docs/worker-protocol.md
// `prefetch`): after their delay, the newest only, not for frames already held, with the likely next
// seeks' ticks when paused, and a seek's landing one step the way it went. Against a fake player and
// node:test's mocked timers. Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Hints, SEEK_STEP_S } from '../../www/core/hints.ts';
import { Timebase } from '../../www/core/pieces.ts';

/** A player at 60 Hz, 100 s long, paused at `time`; `held`: ticks whose frames are held; `kills`:
 *  [ / ]'s viewing points (seconds). */
function fakePlayer({ time = 50, moving = false, held = [], kills = [] } = {}) {
  const tb = new Timebase();
  tb.set({ first_tick: 0, last_tick: 6000, tick_rate_hz: 60 });
  const sent = [];
  const p = {
    info: {},
    sessionId: 3,
    tb,
    pb: { moving, time, killCam: null },
    pieces: { at: (k) => (held.includes(k) ? { from: k, end: k + 1, stride: 1 } : null) },
    ledger: {
      killStart: (dir, now) =>
        (dir > 0 ? kills.find((s) => s > now + 0.05) : kills.findLast((s) => s < now - 0.5)) ?? null,
    },
    client: { notify: (method, params) => sent.push([method, params]) },
    sent,
  };
  p.hints = new Hints(p);
  return p;
}

/** A fake player, with setTimeout mocked for test `t` (the first time). */
const mocked = new WeakSet();
const setup = (t, opts) => {
  if (!mocked.has(t)) t.mock.timers.enable({ apis: ['setTimeout'] });
  mocked.add(t);
  return fakePlayer(opts);
};

test('a hint is sent only after its delay, paused with the likely next seeks to read', (t) => {
  const p = setup(t, { kills: [20, 70] });
  p.hints.hint(30);
  t.mock.timers.tick(59);
  assert.equal(p.sent.length, 0, 'nothing before 60 ms');
  assert.equal(p.hints.waiting, true);
  t.mock.timers.tick(1);
  assert.equal(p.hints.waiting, false);
  assert.deepEqual(p.sent, [
    [
      'prefetch',
      // From the playhead (50 s), forward first: → (55 s), ← (45 s), ] (70 s), [ (20 s).
      { session: 3, tick: 1800, decode: true, reads: [3300, 2700, 4200, 1200], keep: false },
    ],
  ]);
  assert.equal(p.hints.prefetched, 1800);
  assert.equal(p.hints.sent, 1);
});

test('a newer hint replaces the one waiting; only the newest is sent', (t) => {
  const p = setup(t, { moving: true });
  p.hints.hint(10);
  t.mock.timers.tick(40);
  p.hints.hint(12, { keep: true });
  t.mock.timers.tick(40);
  assert.equal(p.sent.length, 0, "the second hint's delay starts again");
  t.mock.timers.tick(20);
  assert.deepEqual(p.sent, [['prefetch', { session: 3, tick: 720, decode: false, reads: [], keep: true }]]);
});

test('playing, nothing is sent for a tick already held or already hinted', (t) => {
  const p = setup(t, { moving: true, held: [600] });
  p.hints.hint(10);
  t.mock.timers.tick(60);
  assert.equal(p.sent.length, 0, 'tick 600 is held');
  p.hints.hint(20);
  t.mock.timers.tick(60);
  p.hints.hint(20);
  t.mock.timers.tick(60);
  assert.deepEqual(
    p.sent.map(([, m]) => m.tick),
    [1200],
    'the same tick twice: once',
  );
  p.hints.cancel();
  p.hints.hint(20);
  t.mock.timers.tick(60);
  assert.equal(p.sent.length, 2, 'after cancel() it is sent again');
  assert.equal(p.hints.sent, 2);
});

test('paused on a tick already held, only the reads go; reads skip held ticks and the hinted one', (t) => {
  // Back last: ← (45 s) comes before → (55 s); 55 s's frames are held.
  const p = setup(t, { held: [3000, 3300] });
  p.hints.lastSeekDir = -1;
  p.hints.hint(45);
  t.mock.timers.tick(60);
  assert.deepEqual(p.sent, [['prefetch', { session: 3, tick: 2700, decode: true, reads: [], keep: false }]]);
  p.hints.hint(45);
  t.mock.timers.tick(60);
  assert.equal(p.sent.length, 1, 'hinted already, and nothing else to read');
  const q = setup(t, { held: [3000] });
  q.hints.hint(50);
  t.mock.timers.tick(60);
  assert.deepEqual(q.sent, [['prefetch', { session: 3, tick: null, decode: true, reads: [3300, 2700], keep: false }]]);
});

test('the likely seeks stay inside the recording and are not repeated', (t) => {
  const p = setup(t, { time: 2, kills: [0, 1.2] });
  p.hints.hint(90);
  t.mock.timers.tick(60);
  // → 7 s; ← -3 s is before the start; ] none after 2 s; [ 1.2 s (the last more than 0.5 s before).
  assert.deepEqual(p.sent[0][1].reads, [420, 72]);
  const q = setup(t, { time: 98, kills: [98 + SEEK_STEP_S] });
  q.hints.hint(10);
  t.mock.timers.tick(60);
  assert.deepEqual(q.sent[0][1].reads, [5580], '→ and ] past the end are dropped');
});

test('a hint for a closed or replaced recording is dropped when its delay ends', (t) => {
  const p = setup(t);
  p.hints.hint(10);
  p.sessionId = 4;
  t.mock.timers.tick(60);
  p.info = null;
  p.hints.hint(10);
  t.mock.timers.tick(60);
  assert.equal(p.sent.length, 0);
  assert.equal(p.hints.sent, 0);
  p.info = {};
  p.hints.hint(10);
  t.mock.timers.tick(60);
  assert.equal(p.sent[0][1].session, 4, 'the session when the hint was asked for');
});

test('cancel() and stop() drop the hint waiting; reset() forgets what was sent', (t) => {
  const p = setup(t, { moving: true });
  p.hints.hint(10);
  p.hints.cancel();
  assert.equal(p.hints.waiting, false);
  p.hints.hint(11);
  p.hints.stop();
  t.mock.timers.tick(100);
  assert.equal(p.sent.length, 0);
  p.hints.hint(10);
  t.mock.timers.tick(60);
  assert.equal(p.hints.sent, 1);
  p.hints.reset();
  assert.equal(p.hints.sent, 0);
  assert.equal(p.hints.prefetched, -1);
});

test("a seek's landing hints one step the way it went, keeping the page's decoder", (t) => {
  const p = setup(t);
  p.hints.lastSeekDir = -1;
  p.hints.landing();
  t.mock.timers.tick(60);
  assert.equal(p.sent.length, 1);
  assert.equal(p.sent[0][1].tick, 45 * 60, '← from 50 s');
  assert.equal(p.sent[0][1].keep, true);
  const end = setup(t, { time: 97 });
  end.hints.landing();
  t.mock.timers.tick(60);
  assert.equal(end.sent[0][1].tick, 97 * 60, 'past the end: the playhead itself');
  for (const q of [setup(t, { moving: true }), setup(t)]) {
    if (!q.pb.moving) q.pb.killCam = { phase: 'play' };
    q.hints.landing();
    t.mock.timers.tick(60);
    assert.equal(q.sent.length, 0, 'not while playing or in a kill cam');
    assert.equal(q.hints.waiting, false);
  }
  const none = setup(t);
  none.info = null;
  none.hints.landing();
  assert.equal(none.hints.waiting, false, 'nothing open');
});
