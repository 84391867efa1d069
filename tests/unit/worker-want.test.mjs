// A `want`'s `entities` (docs/worker-protocol.md): the page's message is as hostile as a file, so
// only a short list of integer ids narrows the pieces; anything else means every entity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityList } from '../../www/workers/decode/replay.ts';

test('entityList: a short list of integer ids, else every entity (null)', () => {
  assert.deepEqual(entityList([3, 0, 4294967295]), Uint32Array.from([3, 0, 4294967295]));
  assert.deepEqual(entityList([]), new Uint32Array(0), 'none: ticks and events only');
  for (const bad of [
    undefined,
    null,
    'all',
    { length: 2, 0: 1, 1: 2 },
    [1.5],
    [-1],
    [2 ** 32],
    [Number.NaN],
    ['1'],
    [1n],
    Array.from({ length: 65 }, (_, i) => i),
  ])
    assert.equal(
      entityList(bad),
      null,
      JSON.stringify(bad, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
    );
  assert.equal(entityList(Array.from({ length: 64 }, (_, i) => i)).length, 64);
});
