// www/core/core.ts in Node, end to end against fakes: a decoder worker that answers `open` and
// answers each `want` with a piece of the ticks asked (docs/worker-protocol.md), a renderer that
// records its calls, a DOM just deep enough for the stage and the labels, animation frames on a
// timer. Opening a Blob: loadstart, the open's answer as `info`, a want for the start, `ready` once
// its piece is held and the renderer runs; a seek waits for its frame (seeking … seeked, the
// promise resolves with the time) and the old session's late pieces are ignored; a gap is skipped
// and said; the worker's error and its crash fail the player with their message; dispose ends the
// worker and the canvas.
// Run: node --import tsx --test tests/unit/core.test.mjs
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Core } from '../../www/core/core.ts';
import { STRIDE } from '../../www/core/entities.ts';

// ---------------------------------------------------------------- a DOM deep enough

function fakeElement(tag) {
  const el = new EventTarget();
  Object.assign(el, {
    tag,
    attrs: {},
    children: [],
    style: {},
    hidden: false,
    removed: false,
    clientWidth: 640,
    clientHeight: 360,
    className: '',
    textContent: '',
    setAttribute: (k, v) => (el.attrs[k] = v),
    append: (...kids) => el.children.push(...kids),
    remove: () => (el.removed = true),
    getContext: () => null,
    getBoundingClientRect: () => ({ left: 0, top: 0, width: 640, height: 360 }),
    classList: { toggle() {}, add() {}, remove() {}, contains: () => false },
  });
  return el;
}

const timers = new Set();
beforeEach(() => {
  const document = { createElement: fakeElement, baseURI: 'http://127.0.0.1/' };
  globalThis.document = document;
  globalThis.window = {
    document,
    devicePixelRatio: 1,
    getComputedStyle: () => ({ getPropertyValue: () => '', fontFamily: '' }),
  };
  globalThis.ResizeObserver = class {
    observe() {}
    disconnect() {}
  };
  globalThis.matchMedia = () => new EventTarget();
  globalThis.requestAnimationFrame = (fn) => {
    const id = setTimeout(() => {
      timers.delete(id);
      fn(performance.now());
    }, 4);
    timers.add(id);
    return id;
  };
  globalThis.cancelAnimationFrame = (id) => {
    clearTimeout(id);
    timers.delete(id);
  };
});
afterEach(() => {
  for (const id of timers) clearTimeout(id);
  timers.clear();
});

// ---------------------------------------------------------------- the decoder worker

const INFO = {
  format: 'flrep',
  format_major: 1,
  format_minor: 0,
  engine_version: 'test',
  tick_rate_hz: 10,
  world: { kind: 'flat' },
  position_quantum_m: 1,
  velocity_quantum_mps: 1,
  start_unix_seconds: 0,
  mission_id: '',
  session_flags: 0,
  keyframe_interval_ticks: 50,
  first_tick: 0,
  last_tick: 599,
  entity_types: [{ index: 0, name: 'jet', category: 'aircraft' }],
  factions: [],
  participants: [{ entity: 1, name: 'Viper', faction: 0 }],
  mission_objects: [],
  metadata: [],
  warnings: [],
};

/** Frames of ticks [from, end): two entities each (ids 1 and 2), id-sorted, STRIDE ints a state. */
function piece(session, gen, from, end) {
  const n = end - from;
  const ticks = new Float64Array(n);
  const offsets = new Uint32Array(n + 1);
  const entities = new Int32Array(n * 2 * STRIDE);
  for (let i = 0; i < n; i++) {
    ticks[i] = from + i;
    offsets[i + 1] = (i + 1) * 2;
    for (let k = 0; k < 2; k++) {
      const o = (i * 2 + k) * STRIDE;
      entities[o] = k + 1;
      entities[o + 3] = from + i;
    }
  }
  return {
    type: 'piece',
    session,
    gen,
    chunk: Math.floor(from / 100),
    from,
    end,
    stride: 1,
    ticks,
    offsets,
    entities,
    events: [],
    eventTicks: new Float64Array(0),
    skippedEvents: 0,
    timing: null,
  };
}

/** A worker that answers `open` with INFO and each `want` with a piece of (at most 100 of) its
 *  ticks, unless told to hold them. */
class FakeWorker extends EventTarget {
  constructor(log) {
    super();
    this.log = log;
    this.holdWants = false;
    this.terminated = false;
  }
  postMessage(msg) {
    this.log.push(msg);
    const reply = (data) => queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data })));
    if (msg.method === 'open')
      reply({
        id: msg.id,
        result: {
          info: INFO,
          durationS: 59.9,
          fileLen: 1000,
          chunks: [],
          markers: [],
          markersComplete: true,
          name: msg.params.name,
          sourceKind: 'file',
          openReads: 1,
          openBytes: 100,
        },
      });
    else if (msg.method === 'want' && !this.holdWants) {
      const { session, gen, from, to } = msg.params;
      reply(piece(session, gen, from, Math.min(to, from + 100, INFO.last_tick + 1)));
    }
  }
  push(data) {
    this.dispatchEvent(new MessageEvent('message', { data }));
  }
  crash(message) {
    const e = new Event('error');
    e.message = message;
    this.dispatchEvent(e);
  }
  terminate() {
    this.terminated = true;
  }
}

/** A renderer that records its calls and draws every frame it is asked to. */
function fakeRenderer(calls) {
  const r = {
    render: () => true,
    labelsNear: () => [],
    labelOf: () => [],
    quiet: () => true,
    ready: () => true,
    cameraMode: () => 'orbit',
    request: () => Promise.resolve(null),
    wasmBytes: () => 0,
  };
  return new Proxy(r, {
    get: (t, k) =>
      k in t || typeof k === 'symbol' || k === 'then'
        ? t[k]
        : (...a) => {
            calls.push([k, ...a]);
          },
  });
}

/** A Core on a fake element with a fake decoder worker and renderer; its events recorded. */
function makeCore() {
  const log = [];
  const workers = [];
  const calls = [];
  const events = [];
  const core = new Core(fakeElement('div'), {
    spawn: () => {
      const w = new FakeWorker(log);
      workers.push(w);
      return w;
    },
    createRenderer: async (canvas) => ({
      renderer: fakeRenderer(calls),
      backend: 'webgpu',
      build: 'b',
      inWorker: true,
      canvas,
    }),
  });
  for (const ev of ['loadstart', 'info', 'ready', 'seeking', 'seeked', 'gap', 'error', 'backend'])
    core.on(ev, (d) => events.push([ev, d]));
  return { core, log, workers, calls, events };
}

/** Resolves once `pred()` holds (checked every few ms), or fails after `ms`. */
async function until(pred, what, ms = 10_000) {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
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
  // A piece of an older session (a file opened before) does nothing.
  workers[0].push(piece(0, w.gen, 400, 420));
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(core.pendingSeek, 'still waiting');
  workers[0].push(piece(1, w.gen, 400, 420));
  assert.equal(await landed, 40);
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
