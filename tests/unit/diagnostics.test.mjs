// www/core/diagnostics.ts against a fake Core (the real clock, timebase, ledger, gaps and
// entities; recorded client, renderer, loop and labels): a snapshot is plain data that does not
// follow the player afterwards; frameDrawn() waits for a frame and wakes the loop; holdWants()
// drops `want` and gives the client its own notify back; the knobs reach what they turn.
// Run: node --import tsx --test tests/unit/diagnostics.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreDiagnostics } from '../../www/core/diagnostics.ts';
import { Playback } from '../../www/core/clock.ts';
import { Timebase } from '../../www/core/pieces.ts';
import { EventLedger } from '../../www/core/ledger.ts';
import { Gaps } from '../../www/core/gaps.ts';
import { Entities } from '../../www/core/entities.ts';

/** The decoder worker's client as bridge/decoder.ts's: notify() on its prototype. */
class FakeClient {
  constructor(sent) {
    this.sent = sent;
    this.restarts = 0;
  }
  notify(m, params) {
    this.sent.push([m, params]);
  }
  call(m, params) {
    this.sent.push([m, params]);
    return Promise.resolve({ asked: m });
  }
}

function fakeCore() {
  const log = [];
  const sent = [];
  const tb = new Timebase();
  const core = {
    log,
    sent,
    tb,
    pb: new Playback({ duration: 60 }),
    ledger: new EventLedger(tb),
    gaps: new Gaps(),
    entities: new Entities(),
    client: new FakeClient(sent),
    camera: { killCamKill: null, followId: -1, selected: 7, mode: () => 'orbit' },
    stage: { backend: 'webgpu', build: 'webgpu', inWorker: true, held: false },
    renderer: {
      quiet: () => true,
      ready: () => true,
      labelOf: (id) => new Float64Array([id, 10, 20, 1]),
      request: async (name) => {
        log.push(['request', name]);
        return new Float32Array([3, 1, 2, 1]);
      },
      zoom: (f) => log.push(['zoom', f]),
      clearTrails: () => log.push(['clearTrails']),
      setTrailSeconds: (s) => log.push(['setTrailSeconds', s]),
      debugLoseDevice: () => log.push(['loseDevice']),
    },
    pieces: {
      list: [{ chunk: 2, from: 100, end: 160, stride: 1, ticks: new Int32Array(60), offsets: [0, 5, 9] }],
      heldBytes: () => 1234,
      at: (tick) => (tick >= 100 && tick < 160 ? core.pieces.list[0] : null),
      frameAt: (tick) => (tick >= 100 && tick < 160 ? { tick, frame: new Int32Array([1, 2, 3]) } : null),
      nextFrame: (a) => ({ tick: a.tick + 1 }),
    },
    loop: { resting: false, perfN: 42, restAfterFrames: 90, wake: () => log.push(['wake']) },
    hints: { sent: 3, prefetched: 120, waiting: false },
    labels: { shown: new Set([5, 6]), hidden: 4, pool: new Map() },
    ghosts: null,
    cur: { key: 'a', tick: 130, frame: new Int32Array([9, 8]) },
    frameHooks: new Set(),
    info: null,
    loaded: true,
    readyEmitted: true,
    firstFrameShown: true,
    sourceName: 'demo.flrep',
    buffering: false,
    pendingSeek: null,
    seekShowMs: 100,
    error: null,
    labelsOff: false,
    entityCount: 12,
    duration: 60,
    currentTickInt: () => 130,
    keepRange: () => [100, 200],
    playbackStatus: () => ({ text: 'Paused' }),
    updateWant: (force) => log.push(['updateWant', force]),
    perf: (o) => ({ frames: 1, reset: !!o?.reset }),
    workerStats: () => core.client.call('stats', {}),
  };
  return core;
}

test('a snapshot is plain data, a copy that does not follow the player', () => {
  const core = fakeCore();
  const d = new CoreDiagnostics(core);
  const s = d.snapshot();
  assert.equal(s.name, 'demo.flrep');
  assert.equal(s.tick, 130);
  assert.equal(s.frameTick, 130);
  assert.deepEqual(s.labels, [5, 6]);
  assert.equal(s.labelsHidden, 4);
  assert.deepEqual(s.keepRange, [100, 200]);
  assert.deepEqual(s.pieces, [{ chunk: 2, from: 100, end: 160, stride: 1, ticks: 60, states: 9 }]);
  assert.deepEqual(s.chunksHeld, [2]);
  assert.deepEqual(s.hints, { sent: 3, prefetched: 120, waiting: false });
  assert.equal(s.loopFrames, 42);
  assert.equal(s.rendererReady, true);
  assert.equal(s.seekPending, false);
  assert.equal(s.status, '', 'no recording open: no status line');
  // Plain data: it survives JSON, and the player changing afterwards does not change it.
  assert.deepEqual(JSON.parse(JSON.stringify(s)), s);
  core.labels.shown.add(9);
  core.pendingSeek = () => {};
  assert.deepEqual(s.labels, [5, 6]);
  assert.equal(d.snapshot().seekPending, true);
  assert.deepEqual(d.snapshot().labels, [5, 6, 9]);
});

test('frames and pieces by tick; none where nothing is held', () => {
  const d = new CoreDiagnostics(fakeCore());
  assert.deepEqual(d.frame(), { tick: 130, frame: [9, 8], next: null });
  assert.deepEqual(d.frameAt(120), { tick: 120, frame: [1, 2, 3], next: 121 });
  assert.equal(d.frameAt(500), null);
  assert.equal(d.pieceAt(150).chunk, 2);
  assert.equal(d.pieceAt(160), null);
  assert.deepEqual(d.labelOf(4), [4, 10, 20, 1]);
});

test('frameDrawn() resolves after the next frame drawn and wakes a resting loop', async () => {
  const core = fakeCore();
  const d = new CoreDiagnostics(core);
  let done = false;
  const p = d.frameDrawn().then(() => (done = true));
  assert.deepEqual(core.log, [['wake']]);
  await Promise.resolve();
  assert.equal(done, false, 'not before a frame');
  for (const fn of [...core.frameHooks]) fn();
  await p;
  assert.equal(done, true);
  assert.equal(core.frameHooks.size, 0, 'its hook removed');
});

test('holdWants() drops the page’s `want` and gives the client its own notify back', () => {
  const core = fakeCore();
  const d = new CoreDiagnostics(core);
  d.holdWants(true);
  d.holdWants(true);
  core.client.notify('want', { from: 1 });
  core.client.notify('prefetch', { t: 2 });
  assert.deepEqual(core.sent, [['prefetch', { t: 2 }]], 'want dropped, the rest sent');
  d.holdWants(false);
  assert.equal(Object.hasOwn(core.client, 'notify'), false, 'the prototype’s notify again');
  core.client.notify('want', { from: 3 });
  assert.deepEqual(core.sent.at(-1), ['want', { from: 3 }]);
  assert.deepEqual(core.log.at(-1), ['updateWant', true], 'the want sent again at once');
});

test('the knobs reach what they turn', async () => {
  const core = fakeCore();
  const d = new CoreDiagnostics(core);
  d.seekShowMs = 60_000;
  assert.equal(core.seekShowMs, 60_000);
  d.stayAwake();
  assert.equal(core.loop.restAfterFrames, Infinity);
  d.labelsOff = true;
  assert.equal(core.labelsOff, true);
  d.zoom(9000);
  d.clearTrails();
  d.setTrailSeconds(0);
  d.loseDevice();
  assert.deepEqual(await d.rendererLabels(), [3, 1, 2, 1]);
  assert.deepEqual(core.log.slice(-5), [
    ['zoom', 9000],
    ['clearTrails'],
    ['setTrailSeconds', 0],
    ['loseDevice'],
    ['request', 'labels'],
  ]);
  assert.deepEqual(await d.trapWorker({ async: true }), { asked: '__trap' });
  assert.deepEqual(core.sent.at(-1), ['__trap', { async: true }]);
  assert.deepEqual(await d.workerStats(), { asked: 'stats' });
  assert.deepEqual(d.perf({ reset: true }), { frames: 1, reset: true });
});
