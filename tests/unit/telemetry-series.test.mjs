// The plots' samples (www/features/analysis/telemetry-series.ts): an entity read out of a packed frame, and the
// second decoder worker's protocol as the series source speaks it (a fake worker here: the real one
// is tests/e2e/plots.test.mjs's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stateIn, SeriesSource, SAMPLES_PER_S } from '../../www/features/analysis/telemetry-series.ts';

const INFO = {
  first_tick: 100,
  last_tick: 100 + 60 * 30,
  tick_rate_hz: 60,
  position_quantum_m: 0.5,
  velocity_quantum_mps: 0.25,
  world: { kind: 'flat' },
};

/** A packed frame of entities `[id, z, vz, health]` (sorted by id). */
function frame(list) {
  const f = new Int32Array(list.length * 16);
  for (const [i, [id, z, vz, health]] of list.entries())
    f.set([id, 1, 0, 10, 20, z, 0, 0, 0, 32767, 8, 0, vz, health, 1, 0], i * 16);
  return f;
}

test('stateIn finds an entity by id in a frame of a piece and scales it by the quanta', () => {
  const ents = new Int32Array([
    ...frame([[9, 0, 0, 0]]),
    ...frame([
      [2, 40, 4, 8000],
      [5, 60, -8, 3050],
      [7, 2, 0, 10000],
    ]),
  ]);
  const s = stateIn(ents, 1, 4, 5, INFO);
  assert.deepEqual(s.pos, [5, 10, 30]);
  assert.deepEqual(s.vel, [2, 0, -2]);
  assert.equal(s.health, 30.5, 'hundredths of a point');
  assert.equal(stateIn(ents, 1, 4, 9, INFO), null, 'entity 9 is in another frame');
  assert.equal(stateIn(ents, 1, 4, 6, INFO), null);
});

function fakeWorker() {
  const w = new EventTarget();
  w.sent = [];
  w.postMessage = (m) => {
    w.sent.push(m);
    if (m.method === 'open') queueMicrotask(() => w.reply({ id: m.id, result: { info: INFO } }));
  };
  w.reply = (data) => w.dispatchEvent(Object.assign(new Event('message'), { data }));
  w.terminate = () => {};
  return w;
}

function piece(src, from, end, stride, entity) {
  const ticks = [];
  for (let t = from; t < end; t += stride) ticks.push(t);
  const frames = ticks.map((t) => frame([[entity, t, 4, 5000]]));
  const entities = new Int32Array(frames.length * 16);
  for (const [i, f] of frames.entries()) entities.set(f, i * 16);
  return {
    type: 'piece',
    session: src.session,
    gen: src.gen,
    from,
    end,
    ticks: Float64Array.from(ticks),
    offsets: Uint32Array.from({ length: ticks.length + 1 }, (_, i) => i),
    entities,
  };
}

test('SeriesSource: opens the source, asks for the window thinned, samples the pieces; forward asks only the new part', async () => {
  const w = fakeWorker();
  let told = 0;
  const src = new SeriesSource(
    () => w,
    () => told++,
  );
  await src.open('https://example.test/a.flrep');
  assert.deepEqual(w.sent[0].params, { session: 1, url: 'https://example.test/a.flrep' });
  src.want(3, -1, 100, 700);
  const want = w.sent.at(-1);
  assert.equal(want.method, 'want');
  assert.equal(want.id, undefined, 'a notification');
  const stride = 60 / SAMPLES_PER_S;
  assert.deepEqual(want.params, { session: 1, gen: 1, from: 100, to: 700, stride, dir: 1, entities: [3] });
  w.reply(piece(src, 100, 400, stride, 3));
  w.reply(piece(src, 400, 700, stride, 3));
  assert.equal(src.samples.length, 100);
  assert.equal(src.samples[1].tick, 106);
  assert.ok(Math.abs(src.samples[1].t - 0.1) < 1e-9);
  assert.equal(src.samples[1].alt, 53, 'z × the quantum on a flat world');
  assert.equal(src.samples[1].verticalSpeed, 1);
  assert.equal(src.samples[1].health, 50);
  assert.equal(src.samples[1].distance, null);
  assert.ok(told >= 2);
  // A piece of an older request is not sampled.
  const stale = piece(src, 700, 760, stride, 3);
  stale.gen = 0;
  w.reply(stale);
  assert.equal(src.samples.length, 100);
  // The window moves forward: only [700, 1000) is asked for, what is before 400 is dropped.
  src.want(3, -1, 400, 1000);
  assert.deepEqual(w.sent.at(-1).params, { session: 1, gen: 2, from: 700, to: 1000, stride, dir: 1, entities: [3] });
  assert.equal(src.samples[0].tick, 400);
  // Asked for already: nothing sent.
  const n = w.sent.length;
  src.want(3, -1, 400, 1000);
  assert.equal(w.sent.length, n);
  // Another entity: everything again, and only the two sampled come back.
  src.want(4, 3, 400, 1000);
  assert.deepEqual(w.sent.at(-1).params, {
    session: 1,
    gen: 3,
    from: 400,
    to: 1000,
    stride,
    dir: 1,
    entities: [4, 3],
  });
  assert.equal(src.samples.length, 0);
  // Clamped to the recording.
  src.want(4, 3, 1500, 2500);
  assert.equal(w.sent.at(-1).params.to, INFO.last_tick + 1);
});
