// www/core/core.ts in Node, end to end against fakes: a decoder worker that answers `open` and
// answers each `want` with a piece of the ticks asked (docs/worker-protocol.md), a renderer that
// records its calls, a DOM just deep enough for the stage and the labels, animation frames on a
// timer. Opening a Blob: loadstart, the open's answer as `info`, a want for the start, `ready` once
// its piece is held and the renderer runs; a seek waits for its frame (seeking … seeked, the
// promise resolves with the time) and the old session's late pieces are ignored; a gap is skipped
// and said; the worker's error and its crash fail the player with their message; dispose ends the
// worker and the canvas.
// Run: node --import tsx --test tests/unit/core.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Core } from '../../www/core/core.ts';
import { fakeElement, installDom, fakeStarts, piece, until } from './fakes.mjs';

installDom();

/** A Core on a fake element with a fake decoder worker and renderer; its events recorded. */
function makeCore() {
  const { log, workers, calls, options } = fakeStarts();
  const events = [];
  const core = new Core(fakeElement('div'), options);
  for (const ev of ['loadstart', 'info', 'ready', 'seeking', 'seeked', 'gap', 'error', 'backend'])
    core.on(ev, (d) => events.push([ev, d]));
  return { core, log, workers, calls, events };
}

const wants = (log) => log.filter((m) => m.method === 'want').map((m) => m.params);
const blob = () => Object.assign(new Blob([new Uint8Array(8)]), { name: 'match.flrep' });

test('opening a Blob: loadstart, info, a want for the start, ready once its frames are held', async () => {
  const { core, log, events } = makeCore();
  await core.load(blob());
  assert.equal(events[0][0], 'loadstart');
  assert.equal(events[0][1].name, 'match.flrep');
  const open = log.find((m) => m.method === 'open');
  assert.equal(open.params.session, 1);
  assert.equal(open.params.name, 'match.flrep');
  assert.ok(events.some(([e, d]) => e === 'info' && d.info.last_tick === 599));
  assert.ok(Math.abs(core.duration - 59.9) < 1e-9);
  const w = wants(log)[0];
  assert.equal(w.session, 1);
  assert.equal(w.from, 0, 'the first want is for the start');
  await until(() => events.some(([e]) => e === 'ready'), 'ready');
  assert.equal(core.readyEmitted, true);
  assert.ok(
    events.some(([e, d]) => e === 'backend' && d === 'webgpu'),
    'the renderer started',
  );
  assert.ok(core.pieces.at(0), 'the start is held');
  await until(() => core.cur !== null, 'a frame drawn');
  assert.equal(core.entityCount, 2);
  core.dispose();
});

test('a seek waits for its frame; the old session’s pieces are ignored', async () => {
  const { core, log, events, workers } = makeCore();
  await core.load(blob());
  await until(() => core.readyEmitted, 'ready');
  workers[0].holdWants = true;
  core.cmd((pb) => pb.seek(40));
  const landed = core.jumped();
  assert.ok(core.pendingSeek, 'the seek waits');
  assert.ok(events.some(([e, d]) => e === 'seeking' && d === 40));
  const w = wants(log).at(-1);
  assert.equal(w.from <= 400 && 400 < w.to, true, `the want holds tick 400 (${w.from}–${w.to})`);
  // A piece of an older session (a file opened before) does nothing: the worker's messages are
  // handled in order, so once the current session's piece has landed the seek, the older one has
  // been handled too — and neither landed it nor is held.
  const stale = piece(0, w.gen, 400, 420);
  workers[0].push(stale);
  assert.ok(core.pendingSeek, 'still waiting');
  const fresh = piece(1, w.gen, 400, 420);
  workers[0].push(fresh);
  assert.equal(await landed, 40);
  assert.ok(
    core.pieces.list.some((p) => p.ticks === fresh.ticks),
    'the current piece is held',
  );
  assert.ok(!core.pieces.list.some((p) => p.ticks === stale.ticks), 'the older session’s piece is not');
  assert.ok(events.some(([e, d]) => e === 'seeked' && d === 40));
  assert.equal(core.currentTickInt(), 400);
  core.dispose();
});

test('a gap is skipped and said; a worker error fails the player with its message', async () => {
  const { core, events, workers } = makeCore();
  await core.load(blob());
  await until(() => core.readyEmitted, 'ready');
  workers[0].push({
    type: 'gap',
    session: 1,
    chunk: 2,
    fromTick: 200,
    toTick: 300,
    cause: 'damaged',
    reason: 'bad CRC',
  });
  const gap = events.find(([e]) => e === 'gap')?.[1];
  assert.deepEqual(gap, { from: 20, to: 30, cause: 'damaged', reason: 'bad CRC' });
  assert.ok(core.gaps.at(250), 'the gap is known by tick');
  // A seek into it lands at its end.
  core.cmd((pb) => pb.seek(25));
  core.jumped();
  assert.equal(core.pb.time, 30);
  workers[0].push({ type: 'error', session: 1, message: 'the reader gave up' });
  assert.deepEqual(events.at(-1), ['error', { message: 'the reader gave up' }]);
  assert.equal(core.error, 'the reader gave up');
  core.dispose();
});

test('a crashed worker fails the player; the next load starts a fresh one; dispose ends it all', async () => {
  const { core, events, workers } = makeCore();
  await core.load(blob());
  workers[0].crash('unreachable executed');
  const err = events.filter(([e]) => e === 'error').at(-1)?.[1].message;
  assert.match(err, /^The decoder crashed \(the decoder stopped: unreachable executed\)/);
  assert.equal(workers[0].terminated, true);
  assert.equal(core.client.restarts, 1);
  await core.load(blob());
  assert.equal(workers.length, 2, 'a fresh worker');
  await until(() => core.readyEmitted, 'ready again');
  const canvas = core.stage.canvas;
  core.dispose();
  assert.equal(workers[1].terminated, true);
  assert.equal(canvas.removed, true);
  assert.equal(core.disposed, true);
});
