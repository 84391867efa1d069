// Unit tests of the pieces the page holds and the `want`s it sends (www/core/pieces.ts; no DOM,
// no worker): the timebase, the window per speed and direction, the finest piece where pieces
// overlap, pruning to the kept range, what is asked for (and not asked again), frames by tick.
// Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Timebase, HeldPieces, wantWindow } from '../../www/core/pieces.ts';
import { STRIDE } from '../../www/core/entities.ts';

const timebase = (first = 100, last = 1099, rate = 60) => {
  const tb = new Timebase();
  tb.set({ first_tick: first, last_tick: last, tick_rate_hz: rate });
  return tb;
};
const paused = { moving: false, speed: 1, direction: 0 };
const playing = (speed = 1) => ({ moving: true, speed, direction: 1 });
const rewinding = (speed = 1) => ({ moving: true, speed, direction: -1 });

/** A `piece` message: one frame per tick in `ticks`, `n` entities each (ids 1..n, x = tick). */
function piece(from, end, { stride = 1, ticks = null, n = 2, chunk = 0 } = {}) {
  const t = ticks ?? Array.from({ length: Math.ceil((end - from) / stride) }, (_, i) => from + i * stride);
  const entities = new Int32Array(t.length * n * STRIDE);
  const offsets = new Uint32Array(t.length + 1);
  t.forEach((tick, i) => {
    offsets[i + 1] = (i + 1) * n;
    for (let k = 0; k < n; k++) {
      entities[(i * n + k) * STRIDE] = k + 1;
      entities[(i * n + k) * STRIDE + 3] = tick;
    }
  });
  return { chunk, from, end, stride, ticks: Float64Array.from(t), offsets, entities, events: [] };
}

test('the timebase turns ticks into seconds and back, clamped to the recording', () => {
  const tb = timebase(100, 1099, 60);
  assert.equal(tb.duration, 999 / 60);
  assert.equal(tb.timeOf(160), 1);
  assert.equal(tb.tickOf(1), 160);
  assert.equal(tb.tickOf(1 - 1e-9), 160, 'a hair before a tick still shows it');
  assert.equal(tb.tickOf(1000), 1099, 'at most the last tick');
  assert.equal(tb.tickAt(-5), 100, 'not before the first tick');
  assert.equal(tb.tickAt(0.5), 130);
  assert.equal(tb.tickAt(1e9), 1099);
  assert.equal(new Timebase().duration, 0);
});

test('the window: paused, only the playhead and the next frame; playing, 0.5 s ahead; thinned from 4×', () => {
  assert.deepEqual(wantWindow(paused, 60), { stride: 1, ahead: 1, dir: 1 });
  assert.deepEqual(wantWindow(playing(1), 60), { stride: 1, ahead: 30, dir: 1 });
  assert.deepEqual(wantWindow(playing(0.25), 2), { stride: 1, ahead: 4, dir: 1 }, 'at least 2 × stride + 2');
  assert.deepEqual(wantWindow(playing(4), 60), { stride: 2, ahead: 120, dir: 1 });
  assert.deepEqual(wantWindow(playing(16), 60), { stride: 8, ahead: 480, dir: 1 });
  assert.deepEqual(wantWindow(playing(64), 60), { stride: 8, ahead: 1920, dir: 1 }, 'one tick in 8 at most');
  assert.deepEqual(wantWindow(rewinding(1), 60), { stride: 1, ahead: 30, dir: -1 });
});

test('the piece at a tick: the finest where pieces overlap, at most `stride` coarse when asked', () => {
  const h = new HeldPieces(timebase());
  h.add(piece(100, 200, { stride: 4 }));
  h.add(piece(150, 160));
  assert.equal(h.at(155).stride, 1);
  assert.equal(h.at(170).stride, 4);
  assert.equal(h.at(170, 2), null, 'only pieces at most 2 coarse');
  assert.equal(h.at(200), null, 'end is exclusive');
  assert.equal(h.at(99), null);
});

test('a piece drops the pieces it covers at the same or a coarser stride; the list stays in order', () => {
  const h = new HeldPieces(timebase());
  h.add(piece(300, 400));
  h.add(piece(120, 140, { stride: 2 }));
  h.add(piece(100, 110));
  assert.deepEqual(
    h.list.map((p) => p.from),
    [100, 120, 300],
  );
  h.add(piece(100, 150, { stride: 2 }));
  assert.deepEqual(
    h.list.map((p) => [p.from, p.end, p.stride]),
    [
      [100, 110, 1],
      [100, 150, 2],
      [300, 400, 1],
    ],
    'the finer [100, 110) stays, the covered [120, 140)/2 goes',
  );
  assert.ok(
    h.list.every((p, i) => i === 0 || p.id !== h.list[i - 1].id),
    'each piece has its own id',
  );
});

test('pruning keeps the playhead and the window in the playing direction', () => {
  const tb = timebase(0, 9999, 60);
  const h = new HeldPieces(tb);
  assert.deepEqual(h.keepRange(1000, paused), [1000, 1031], 'paused: KEEP_S ahead (30 ticks)');
  assert.deepEqual(h.keepRange(1000, playing(4)), [1000, 1121]);
  assert.deepEqual(h.keepRange(1000, rewinding(1)), [970, 1002]);
  for (const [a, b] of [
    [900, 960],
    [960, 1001],
    [1001, 1020],
    [1031, 1100],
  ])
    h.add(piece(a, b));
  h.prune(1000, paused);
  assert.deepEqual(
    h.list.map((p) => p.from),
    [960, 1001],
  );
});

test('want: the uncovered ticks from the playhead on; the same request is not sent twice', () => {
  const tb = timebase(100, 1099, 60);
  const h = new HeldPieces(tb);
  assert.deepEqual(h.want(200, paused), { from: 200, to: 201, stride: 1, dir: 1 });
  assert.equal(h.gen, 1);
  assert.equal(h.want(200, paused), null, 'in flight already');
  assert.deepEqual(h.want(200, paused, true), { from: 200, to: 201, stride: 1, dir: 1 }, 'forced');
  assert.equal(h.gen, 2);
  h.add(piece(200, 215));
  assert.deepEqual(h.want(200, playing(1)), { from: 215, to: 230, stride: 1, dir: 1 });
  assert.equal(h.want(201, playing(1)), null, 'a little further ahead: what was asked for is in flight');
  assert.deepEqual(h.want(1090, playing(1)), { from: 1090, to: 1100, stride: 1, dir: 1 }, 'not past the end');
  h.add(piece(1090, 1100));
  assert.deepEqual(h.want(1090, playing(1)), { from: -1, to: -1, stride: 1, dir: 1 }, 'nothing missing: cleared');
  assert.deepEqual(
    h.want(200, playing(16)),
    { from: 215, to: 680, stride: 8, dir: 1 },
    'a finer piece covers a coarse want',
  );
});

test('want while rewinding: the playhead first, then the ticks before the held run once it is short', () => {
  const tb = timebase(100, 1099, 60);
  const h = new HeldPieces(tb);
  assert.deepEqual(h.want(500, rewinding(1)), { from: 470, to: 501, stride: 1, dir: -1 }, 'own frames missing');
  h.add(piece(490, 510));
  assert.deepEqual(h.want(500, rewinding(1)), { from: 470, to: 490, stride: 1, dir: -1 }, 'the run is short');
  h.add(piece(460, 490));
  assert.deepEqual(
    h.want(500, rewinding(1)),
    { from: -1, to: -1, stride: 1, dir: -1 },
    'the run is long enough: nothing',
  );
  assert.deepEqual(h.want(110, rewinding(1)).from, 100, 'not before the first tick');
});

test('frames by tick: the last at or before it, the next one across pieces, times and keys', () => {
  const tb = timebase(100, 1099, 10);
  const h = new HeldPieces(tb);
  h.add(piece(100, 110, { ticks: [100, 104, 108], n: 3 }));
  h.add(piece(110, 120, { ticks: [112, 116] }));
  const a = h.frameAt(106);
  assert.equal(a.tick, 104);
  assert.equal(a.t, 0.4);
  assert.equal(a.frame.length, 3 * STRIDE);
  assert.equal(a.frame[3], 104);
  assert.equal(a.key, `${a.piece.id}:1`);
  assert.equal(h.frameAt(101).tick, 100);
  const last = h.frameAt(109);
  assert.equal(last.tick, 108);
  const next = h.nextFrame(last);
  assert.equal(next.tick, 112, 'the next piece');
  assert.equal(next.frame.length, 2 * STRIDE);
  assert.equal(h.nextFrame(h.frameAt(117)), null, 'nothing held after');
  assert.equal(h.frameAt(125), null);
  assert.equal(h.heldBytes(), (3 * 3 + 2 * 2) * STRIDE * 4 + (3 + 2) * 8 + (4 + 3) * 4);
});
