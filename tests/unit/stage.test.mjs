// www/view/stage.ts in Node: the canvas and its renderer against a fake DOM (an element that is an
// EventTarget, a canvas that records its style, ResizeObserver and matchMedia that record) and a
// fake createRenderer. Started, it sizes the renderer to the element and the device pixel ratio and
// says so; a renderer that cannot start says why; a render worker that dies is reported once and
// restart() puts a fresh canvas in its place; while held, resizing leaves the renderer alone; the
// world and a tall canvas's fit reach the renderer; a click picks, a drag orbits, a pinch and the
// wheel zoom; dispose() frees and stops listening, also for a start that ends after it.
// Run: node --import tsx --test tests/unit/stage.test.mjs
import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { Stage, TAP_SLOP_TOUCH } from '../../www/view/stage.ts';

/** A canvas element as the stage uses one. */
class FakeCanvas {
  constructor() {
    this.style = {};
    this.attrs = {};
    this.removed = false;
    this.replacedBy = null;
    this.clientWidth = 800;
    this.clientHeight = 450;
  }
  setAttribute(k, v) {
    this.attrs[k] = v;
  }
  remove() {
    this.removed = true;
  }
  cloneNode() {
    const c = new FakeCanvas();
    c.className = this.className;
    return c;
  }
  replaceWith(c) {
    this.replacedBy = c;
  }
  getBoundingClientRect() {
    return { left: 100, top: 50, width: this.clientWidth, height: this.clientHeight };
  }
  setPointerCapture() {}
}

/** The container: an EventTarget with a size that holds the canvas. */
class FakeElement extends EventTarget {
  constructor() {
    super();
    this.clientWidth = 800;
    this.clientHeight = 450;
    this.children = [];
  }
  append(c) {
    this.children.push(c);
  }
}

const observers = [];
const media = [];
beforeEach(() => {
  observers.length = 0;
  media.length = 0;
  globalThis.document = {
    createElement: (tag) => {
      assert.equal(tag, 'canvas');
      return new FakeCanvas();
    },
  };
  globalThis.window = { devicePixelRatio: 2 };
  globalThis.ResizeObserver = class {
    constructor(fn) {
      this.fn = fn;
      this.observed = [];
      this.disconnected = false;
      observers.push(this);
    }
    observe(el) {
      this.observed.push(el);
    }
    disconnect() {
      this.disconnected = true;
    }
  };
  globalThis.matchMedia = (q) => {
    const m = new EventTarget();
    m.query = q;
    media.push(m);
    return m;
  };
});

/** A renderer that records its calls (and answers a pick with entity 42). */
function fakeRenderer(calls) {
  const rec =
    (name) =>
    (...a) =>
      calls.push([name, ...a]);
  return {
    resize: rec('resize'),
    setWorld: rec('setWorld'),
    setTypeCategories: (cats) => calls.push(['setTypeCategories', [...cats]]),
    clearTrails: rec('clearTrails'),
    setSelected: rec('setSelected'),
    follow: rec('follow'),
    setCameraMode: rec('setCameraMode'),
    resetCamera: rec('resetCamera'),
    zoom: rec('zoom'),
    orbit: rec('orbit'),
    free: rec('free'),
    request: (name, ...a) => {
      calls.push(['request', name, ...a]);
      return Promise.resolve(42);
    },
  };
}

/** A stage on a fake element whose createRenderer answers with `answer(canvas, opts)`. */
function stageWith(answer) {
  const el = new FakeElement();
  const told = [];
  const on = {
    started: () => told.push(['started']),
    died: (m) => told.push(['died', m]),
    failed: (e) => told.push(['failed', e.message]),
    activity: (k) => told.push(['activity', k]),
    picked: (id, shift) => told.push(['picked', id, shift]),
  };
  const starts = [];
  const createRenderer = async (canvas, opts) => {
    starts.push({ canvas, opts });
    return answer(canvas, opts);
  };
  const stage = new Stage(el, { forceWebgl: true, createRenderer }, on);
  return { el, stage, told, starts };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

test('started: the canvas in the element, the renderer sized to it at the pixel ratio', async () => {
  const calls = [];
  const { el, stage, told, starts } = stageWith(() => ({
    renderer: fakeRenderer(calls),
    backend: 'webgpu',
    build: 'renderer',
    inWorker: true,
  }));
  assert.deepEqual(el.children, [stage.canvas]);
  assert.equal(stage.canvas.className, 'rp-canvas');
  assert.equal(stage.canvas.attrs['aria-label'], 'Replay view');
  assert.equal(observers[0].observed[0], el, 'the element is observed for its size');
  assert.equal(media[0].query, '(resolution: 2dppx)');
  await stage.start();
  assert.equal(starts[0].opts.forceWebgl, true);
  assert.equal(starts[0].canvas, stage.canvas);
  assert.deepEqual(told, [['started']]);
  assert.equal(stage.backend, 'webgpu');
  assert.equal(stage.inWorker, true);
  assert.deepEqual(calls, [['resize', 800, 450, 2]]);
  assert.deepEqual([stage.canvas.style.width, stage.canvas.style.height], ['800px', '450px']);
  // The render worker's activity reaches the owner; the element resized, so is the renderer.
  stage.renderer.onActivity('reply');
  assert.deepEqual(told.at(-1), ['activity', 'reply']);
  el.clientWidth = 0;
  observers[0].fn();
  assert.deepEqual(calls.at(-1), ['resize', 1, 450, 2], 'never narrower than 1 px');
  // Held (a capture): the renderer keeps its own size.
  stage.held = true;
  el.clientWidth = 300;
  observers[0].fn();
  assert.deepEqual(calls.at(-1), ['resize', 1, 450, 2]);
  // The pixel ratio changed: resized, and watched again at the new ratio.
  stage.held = false;
  window.devicePixelRatio = 3;
  media[0].dispatchEvent(new Event('change'));
  assert.deepEqual(calls.at(-1), ['resize', 300, 450, 3]);
  assert.equal(media[1].query, '(resolution: 3dppx)');
});

test('a renderer that cannot start says why; one that dies is reported once and restarts fresh', async () => {
  const { stage, told } = stageWith(() => {
    throw new Error('no adapter');
  });
  await stage.start();
  assert.deepEqual(told, [['failed', 'no adapter']]);
  assert.equal(stage.renderer, null);

  const calls = [];
  const s2 = stageWith((_canvas, opts) => ({
    renderer: fakeRenderer(calls),
    backend: 'webgl2',
    build: 'b',
    inWorker: true,
    fatal: opts.onFatal,
  }));
  await s2.stage.start();
  const first = s2.starts[0];
  const old = s2.stage.canvas;
  first.opts.onFatal('unreachable');
  assert.equal(s2.stage.renderer, null);
  assert.equal(s2.stage.dead, true);
  assert.deepEqual(s2.told.at(-1), ['died', 'unreachable']);
  s2.stage.restart();
  assert.equal(s2.stage.dead, false);
  assert.notEqual(s2.stage.canvas, old, 'a fresh canvas (one given to a worker cannot be given again)');
  assert.equal(old.replacedBy, s2.stage.canvas);
  await flush();
  assert.equal(s2.starts.length, 2);
  assert.equal(s2.starts[1].canvas, s2.stage.canvas);
  // The dead renderer's late news is ignored.
  first.opts.onFatal('late');
  assert.equal(s2.told.filter((t) => t[0] === 'died').length, 1);
});

test("the world's shape and categories, an empty picture, a tall canvas's fit", async () => {
  const calls = [];
  const { stage } = stageWith(() => ({
    renderer: fakeRenderer(calls),
    backend: 'webgpu',
    build: 'b',
    inWorker: false,
  }));
  await stage.start();
  calls.length = 0;
  stage.setWorld({
    world: { kind: 'planet', radius_m: 6371000 },
    position_quantum_m: 0.5,
    entity_types: [
      { index: 0, category: 'aircraft' },
      { index: 3, category: 'character' },
      { index: 2, category: 'spaceship' },
    ],
  });
  assert.deepEqual(calls, [
    ['setWorld', 'planet', 6371000, 0.5],
    ['setTypeCategories', [1, 0, 0, 4]],
    ['clearTrails'],
    ['setSelected', -1],
    ['follow', -1],
    ['setCameraMode', 'orbit'],
  ]);
  calls.length = 0;
  stage.fitCamera();
  assert.deepEqual(calls, [['resetCamera']], 'wider than tall: the fit as it is');
  stage.canvas.clientWidth = 400;
  stage.canvas.clientHeight = 800;
  calls.length = 0;
  stage.fitCamera();
  assert.equal(calls[1][0], 'zoom');
  assert.ok(Math.abs(calls[1][1] - 1000 * Math.log(2)) < 1e-9, 'backs off by height / width');
});

/** A pointer event as the stage reads one. */
function pointer(type, target, { id = 1, x = 0, y = 0, kind = 'mouse', shift = false } = {}) {
  const e = new Event(type);
  Object.defineProperties(e, {
    target: { value: target },
    pointerId: { value: id },
    clientX: { value: x },
    clientY: { value: y },
    pointerType: { value: kind },
    shiftKey: { value: shift },
  });
  return e;
}

test('the pointer: a click picks, a drag orbits, a pinch and the wheel zoom; dispose stops it all', async () => {
  const calls = [];
  const { el, stage, told } = stageWith(() => ({
    renderer: fakeRenderer(calls),
    backend: 'webgpu',
    build: 'b',
    inWorker: true,
  }));
  await stage.start();
  const c = stage.canvas;
  calls.length = 0;
  // A click that moved 3 px (a mouse's slop is 4): a pick at the point in the canvas.
  el.dispatchEvent(pointer('pointerdown', c, { x: 300, y: 200, shift: true }));
  el.dispatchEvent(pointer('pointermove', c, { x: 303, y: 200 }));
  el.dispatchEvent(pointer('pointerup', c, { x: 303, y: 200, shift: true }));
  await flush();
  assert.deepEqual(
    calls.filter((x) => x[0] === 'request'),
    [['request', 'pick', 203, 150]],
  );
  assert.deepEqual(told.at(-1), ['picked', 42, true]);
  // A drag: orbits by each move once past the slop, and picks nothing.
  calls.length = 0;
  el.dispatchEvent(pointer('pointerdown', c, { x: 300, y: 200 }));
  el.dispatchEvent(pointer('pointermove', c, { x: 310, y: 205 }));
  el.dispatchEvent(pointer('pointermove', c, { x: 320, y: 205 }));
  el.dispatchEvent(pointer('pointerup', c, { x: 320, y: 205 }));
  await flush();
  assert.deepEqual(calls, [
    ['orbit', 10, 5],
    ['orbit', 10, 0],
  ]);
  // A finger may move TAP_SLOP_TOUCH px and still tap.
  calls.length = 0;
  el.dispatchEvent(pointer('pointerdown', c, { x: 300, y: 200, kind: 'touch' }));
  el.dispatchEvent(pointer('pointermove', c, { x: 300 + TAP_SLOP_TOUCH - 1, y: 200, kind: 'touch' }));
  el.dispatchEvent(pointer('pointerup', c, { x: 300 + TAP_SLOP_TOUCH - 1, y: 200, kind: 'touch' }));
  await flush();
  assert.deepEqual(
    calls.map((x) => x[0]),
    ['request'],
  );
  // Two fingers: the distance between them zooms.
  calls.length = 0;
  el.dispatchEvent(pointer('pointerdown', c, { id: 1, x: 100, y: 100, kind: 'touch' }));
  el.dispatchEvent(pointer('pointerdown', c, { id: 2, x: 200, y: 100, kind: 'touch' }));
  el.dispatchEvent(pointer('pointermove', c, { id: 2, x: 150, y: 100, kind: 'touch' }));
  assert.deepEqual(calls, [['zoom', 200]], 'closer by 50 px: zoomed out by 4 × 50');
  el.dispatchEvent(pointer('pointercancel', c, { id: 1 }));
  el.dispatchEvent(pointer('pointercancel', c, { id: 2 }));
  // The wheel: lines and pages are scaled to pixels; the page does not scroll.
  calls.length = 0;
  const wheel = (deltaY, deltaMode) => {
    const e = new Event('wheel', { cancelable: true });
    Object.defineProperties(e, { target: { value: c }, deltaY: { value: deltaY }, deltaMode: { value: deltaMode } });
    el.dispatchEvent(e);
    return e.defaultPrevented;
  };
  assert.equal(wheel(10, 0), true);
  wheel(1, 1);
  wheel(1, 2);
  assert.deepEqual(calls, [
    ['zoom', 10],
    ['zoom', 33],
    ['zoom', 400],
  ]);
  // Disposed: freed, the canvas gone, nothing listened to any more.
  let freed = 0;
  stage.renderer.free = () => freed++;
  stage.dispose();
  assert.equal(freed, 1);
  assert.equal(c.removed, true);
  assert.equal(observers[0].disconnected, true);
  calls.length = 0;
  assert.equal(wheel(10, 0), false);
  el.dispatchEvent(pointer('pointerdown', c, { x: 1, y: 1 }));
  el.dispatchEvent(pointer('pointerup', c, { x: 1, y: 1 }));
  await flush();
  assert.deepEqual(calls, []);
});

test('a start that ends after dispose frees its renderer and says nothing', async () => {
  let release;
  let freed = 0;
  const { stage, told } = stageWith(
    () =>
      new Promise((resolve) => {
        release = () =>
          resolve({
            renderer: { ...fakeRenderer([]), free: () => freed++ },
            backend: 'webgpu',
            build: 'b',
            inWorker: true,
          });
      }),
  );
  const started = stage.start();
  await flush();
  stage.dispose();
  release();
  await started;
  assert.equal(freed, 1);
  assert.equal(stage.renderer, null);
  assert.deepEqual(told, []);
});
