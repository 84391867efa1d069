// Fakes for Node tests of the player's inside (tests/unit/core.test.mjs, controller.test.mjs): a DOM
// just deep enough for the stage and the labels, animation frames on a timer, a decoder worker that
// answers `open` and each `want` (docs/worker-protocol.md), and a renderer that records its calls.
import { beforeEach, afterEach } from 'node:test';
import { STRIDE } from '../../www/core/entities.ts';

// ---------------------------------------------------------------- a DOM deep enough

export function fakeElement(tag) {
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

/** Installs the DOM globals (fresh for each test) and clears the frame timers after each. */
export function installDom() {
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
}

// ---------------------------------------------------------------- the decoder worker

export const INFO = {
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
  participants: [{ id: 1, callsign: 'Viper', entity: 1, faction: 0 }],
  mission_objects: [],
  metadata: [],
  warnings: [],
};

/** Frames of ticks [from, end): two entities each (ids 1 and 2), id-sorted, STRIDE ints a state. */
export function piece(session, gen, from, end) {
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
export class FakeWorker extends EventTarget {
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
export function fakeRenderer(calls) {
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

/** Options that start a player's workers and renderer as fakes: `log` gets every message posted to a
 *  decoder worker, `workers` each one started, `calls` every renderer call. */
export function fakeStarts({ log = [], workers = [], calls = [] } = {}) {
  return {
    log,
    workers,
    calls,
    options: {
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
    },
  };
}

/** Resolves once `pred()` holds (checked every few ms); fails naming `what` after `ms`. */
export async function until(pred, what, ms = 10_000) {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
