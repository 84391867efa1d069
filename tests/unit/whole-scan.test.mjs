// The whole-recording scan's envelope (www/features/analysis/whole-scan.ts): a bounded number of buckets, each
// bucket's min / max with their ticks, drawn as two points in the order the extremes happened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Envelope, BUCKETS } from '../../www/features/analysis/whole-scan.ts';

const sample = (tick, alt) => ({ tick, alt, groundSpeed: 1, verticalSpeed: 0, health: 100, distance: null });

test('Envelope: at most BUCKETS buckets, never finer than the stride; min / max and their ticks', () => {
  const long = new Envelope(0, 216_000, 60, 6);
  assert.equal(long.n, BUCKETS);
  const short = new Envelope(100, 160, 60, 6);
  assert.equal(short.n, 10, 'one bucket a sample at most');
  // 0..600 ticks, 10 buckets of 60: a sine, every 3 ticks.
  const e = new Envelope(0, 600, 60, 3, 10);
  const alt = (t) => 1000 * Math.sin(t / 50);
  for (let t = 0; t < 600; t += 3) e.add(sample(t, alt(t)));
  const b = e.inspect();
  assert.equal(b.length, 10);
  for (const x of b) {
    const ticks = [];
    for (let t = 0; t < 600; t += 3) if (t >= x.from && t < x.to) ticks.push(t);
    assert.equal(x.count, ticks.length);
    assert.equal(x.alt.min, Math.min(...ticks.map(alt)));
    assert.equal(x.alt.max, Math.max(...ticks.map(alt)));
    assert.equal(alt(x.alt.minTick), x.alt.min);
    assert.equal(alt(x.alt.maxTick), x.alt.max);
    assert.equal(x.distance, null, 'a series with no value has no extremes');
  }
  const [xs, ys] = e.points('alt');
  assert.equal(xs.length, 20);
  assert.ok(
    xs.every((x, i) => i === 0 || x > xs[i - 1]),
    'x ascending',
  );
  // Bucket 0 rises (min first), bucket 3 (ticks 180–240, past the crest at 78.5) falls: max first.
  assert.deepEqual([ys[0], ys[1]], [b[0].alt.min, b[0].alt.max]);
  assert.deepEqual([ys[6], ys[7]], [b[3].alt.max, b[3].alt.min]);
  // Empty buckets are gaps.
  const g = new Envelope(0, 600, 60, 3, 10);
  g.add(sample(10, 5));
  assert.deepEqual(g.points('alt')[1].slice(2, 4), [null, null]);
});
