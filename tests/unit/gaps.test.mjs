// Unit tests of the parts the player skips (www/core/gaps.ts), of the `want`s around them
// (www/core/pieces.ts: a gap is never asked for, as if it were held) and of the sentence a
// viewer reads about one (www/app/gap-layer.ts `gapText`, pure).
// Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gaps } from '../../www/core/gaps.ts';
import { gapText } from '../../www/app/gap-layer.ts';
import { Timebase, HeldPieces } from '../../www/core/pieces.ts';

test('gaps: added once, found by tick, disjoint', () => {
  const g = new Gaps();
  assert.equal(g.add(240, 360, { cause: 'damaged' }), true);
  assert.equal(g.add(240, 360), false, 'the same gap again');
  assert.equal(g.add(300, 400), false, 'overlapping one');
  assert.equal(g.add(500, 500), false, 'empty');
  assert.equal(g.add(Number.NaN, 10), false, 'not a number');
  assert.equal(g.add(0, 120), true);
  assert.deepEqual(
    g.list.map((x) => [x.from, x.to]),
    [
      [0, 120],
      [240, 360],
    ],
    'sorted',
  );
  assert.equal(g.at(239), null);
  assert.equal(g.at(240).shown.cause, 'damaged', 'what the page shows of it comes along');
  assert.equal(g.at(359).from, 240);
  assert.equal(g.at(360), null, 'its end is the next chunk');
});

test('past a gap: forward to its end, backward to the tick before it, across touching gaps', () => {
  const g = new Gaps();
  g.add(120, 240);
  g.add(240, 360);
  g.add(600, 720);
  assert.equal(g.past(100, 1), 100, 'not in a gap: where it is');
  assert.equal(g.past(130, 1), 360, 'two touching gaps are one run');
  assert.equal(g.past(300, -1), 119);
  assert.equal(g.past(650, 1), 720, 'may be past the recording: the caller checks');
  assert.equal(g.past(120, 1) > 359, true, 'nothing of ticks 120..=359 to show');
  assert.equal(g.past(0, 1), 0);
});

test('the text a viewer reads: the span as the clock shows it, and why', () => {
  assert.equal(gapText(30, 32, 'damaged'), 'Skipped 00:30.0–00:32.0: this part of the recording is damaged.');
  assert.equal(
    gapText(3599.5, 3601, 'unread', 'the server answered 503'),
    'Skipped 59:59.5–1:00:01.0: the server did not send this part of the recording (the server answered 503).',
  );
  assert.match(gapText(0, 1, 'unread', 'x'.repeat(500)), /\(x{160}\)\.$/, 'a long reason is cut');
});

const timebase = () => {
  const tb = new Timebase();
  tb.set({ first_tick: 0, last_tick: 3599, tick_rate_hz: 60 });
  return tb;
};
const playing = { moving: true, speed: 1, direction: 1 };
const rewinding = { moving: true, speed: 1, direction: -1 };
const piece = (from, end) => ({
  chunk: Math.floor(from / 120),
  from,
  end,
  stride: 1,
  ticks: Float64Array.from({ length: end - from }, (_, i) => from + i),
  offsets: new Uint32Array(end - from + 1),
  entities: new Int32Array(0),
  events: [],
});

test('a gap is never asked for: playing up to one, the request goes on after it', () => {
  const gaps = new Gaps();
  const h = new HeldPieces(timebase(), gaps);
  h.add(piece(1780, 1800));
  // Without the gap known, the window [1790, 1820) asks from the first tick not held.
  assert.deepEqual(h.want(1790, playing, true), { from: 1800, to: 1820, stride: 1, dir: 1 });
  gaps.add(1800, 1920);
  assert.deepEqual(h.want(1790, playing, true), { from: -1, to: -1, stride: 1, dir: 1 }, 'the window ends in it');
  assert.deepEqual(h.want(1895, playing, true), { from: 1920, to: 1925, stride: 1, dir: 1 }, 'on after it');
});

test('rewinding away from a gap: the frames before the held run are asked for, the gap not', () => {
  const gaps = new Gaps();
  gaps.add(1800, 1920);
  const h = new HeldPieces(timebase(), gaps);
  h.add(piece(1790, 1800));
  // The playhead just before the gap, its frames held: the run held (with the gap) starts at 1790,
  // less than half the window (30 ticks) behind it, so what comes before that run is asked for.
  assert.deepEqual(h.want(1799, rewinding, true), { from: 1769, to: 1790, stride: 1, dir: -1 });
  // Asked again with nothing new: the same request, not another.
  assert.equal(h.want(1799, rewinding), null);
});
