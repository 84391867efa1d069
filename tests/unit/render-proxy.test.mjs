// The page side of the render worker (www/bridge/render.ts) against a fake worker: what it posts,
// when, what it transfers, and what its reads answer. The real worker is covered by the browser
// tests (tests/e2e/render.test.mjs: pixels drawn by it; frame-budget: labels from its replies).
import test from 'node:test';
import assert from 'node:assert/strict';
import { RenderProxy } from '../../www/bridge/render.ts';

/** A Worker stand-in: records posts; `reply(result)` / `fail(message, fatal)` answer the oldest. */
class FakeWorker extends EventTarget {
  constructor() {
    super();
    this.posts = [];
    this.terminated = false;
  }
  postMessage(msg, transfer = []) {
    this.posts.push({ msg, transfer });
  }
  terminate() {
    this.terminated = true;
  }
  answer(data) {
    const ev = new Event('message');
    ev.data = data;
    this.dispatchEvent(ev);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const reply = (over = {}) => ({
  drawn: true,
  labels: new Float64Array([7, 10, 20, 1]),
  of: [],
  cameraMode: 'orbit',
  ready: true,
  frameMs: 3,
  timeMs: 1,
  buildMs: 2,
  wasmBytes: 1 << 20,
  ...over,
});

function proxy() {
  const w = new FakeWorker();
  const fatal = [];
  const p = new RenderProxy(w, 'webgpu', (m) => fatal.push(m));
  return { w, p, fatal };
}

test('calls are queued and sent in order with one frame; frames are copied and their buffers transferred', async () => {
  const { w, p } = proxy();
  const piece = new Int32Array(64).map((_, i) => i);
  const a = piece.subarray(0, 32);
  const b = piece.subarray(32, 64);
  p.setWorld('flat', 0, 0.01);
  p.setFrames(a, 1, b, 2);
  p.setTime(1.25);
  p.zoom(-3);
  assert.equal(w.posts.length, 0, 'nothing posted before render()');
  assert.equal(p.render(), false, 'nothing drawn yet');
  assert.equal(w.posts.length, 1);
  const { msg, transfer } = w.posts[0];
  assert.equal(msg.type, 'frame');
  assert.deepEqual(
    msg.params.cmds.map((c) => c[0]),
    ['setWorld', 'setFrames', 'setTime', 'zoom'],
  );
  const [, ca, ta, cb, tb] = msg.params.cmds[1];
  assert.deepEqual([...ca], [...a]);
  assert.deepEqual([...cb], [...b]);
  assert.deepEqual([ta, tb], [1, 2]);
  assert.notEqual(ca.buffer, piece.buffer, "a copy, not the page's piece");
  assert.equal(ca.length, 32, 'only the frame, not the whole piece');
  assert.deepEqual(transfer, [ca.buffer, cb.buffer], 'both copies transferred, once each');
  // The page's piece is untouched (transferring a subarray's buffer would have detached it).
  assert.equal(piece.length, 64);
  w.answer({ id: msg.id, result: reply() });
  await tick();
  assert.equal(p.render(), true, 'the reply said drawn');
});

test('one frame in flight: render() posts nothing until the reply, and setFrames/setTime replace what they make moot', async () => {
  const { w, p } = proxy();
  p.render();
  const first = w.posts[0].msg;
  const f = (v) => new Int32Array(16).fill(v);
  p.setTime(1);
  p.pushFrame(f(1), 1.1);
  p.setTime(2);
  p.setTime(3);
  assert.equal(p.render(), false);
  assert.equal(w.posts.length, 1, 'no second frame while one is in flight');
  assert.equal(p.stats.skipped, 1);
  p.setFrames(f(2), 2, f(3), 3); // replaces the pushFrame and the times before it
  p.orbit(5, 6);
  p.setTime(2.5);
  p.setTime(2.75);
  w.answer({ id: first.id, result: reply() });
  await tick();
  p.render();
  assert.equal(w.posts.length, 2);
  const cmds = w.posts[1].msg.params.cmds;
  assert.deepEqual(
    cmds.map((c) => c[0]),
    ['setFrames', 'orbit', 'setTime'],
  );
  assert.equal(cmds[2][1], 2.75, 'the last time wins');
  assert.deepEqual([...cmds[0][1]], [...f(2)]);
});

test('setFrames with the same frame twice sends one copy; pushFrame copies only the new frame', () => {
  const { w, p } = proxy();
  const a = new Int32Array(16).fill(4);
  p.setFrames(a, 1, a, 1);
  p.render();
  const [c] = w.posts[0].msg.params.cmds;
  assert.equal(c[1], c[3]);
  assert.equal(w.posts[0].transfer.length, 1);
});

test('reads answer from the last reply: labels, labelOf for the ids asked, timings; the camera mode the page set wins until confirmed', async () => {
  const { w, p } = proxy();
  assert.deepEqual([...p.labelsNear(8)], [], 'no reply yet');
  assert.deepEqual(p.labelOf(42), [], 'not asked before');
  p.render();
  const m1 = w.posts[0].msg;
  assert.equal(m1.params.near, 8, 'the label count asked for');
  assert.deepEqual(m1.params.ids, [42], 'the ids whose labels were asked for');
  p.setCameraMode('free');
  assert.equal(p.cameraMode(), 'free', 'mirrored at once');
  // The reply to a frame posted before the change must not undo it.
  w.answer({ id: m1.id, result: reply({ of: [[42, [42, 5, 6, 1]]], cameraMode: 'orbit' }) });
  await tick();
  assert.equal(p.cameraMode(), 'free');
  assert.deepEqual([...p.labelsNear(8)], [7, 10, 20, 1]);
  assert.deepEqual(p.labelOf(42), [42, 5, 6, 1]);
  assert.equal(p.frameMs(), 3);
  assert.equal(p.buildMs(), 2);
  assert.equal(p.wasmBytes(), 1 << 20);
  assert.ok(p.ready());
  p.render();
  const m2 = w.posts[1].msg;
  // The renderer may refuse a mode (follow with nothing to follow): its answer is kept then.
  w.answer({ id: m2.id, result: reply({ cameraMode: 'orbit' }) });
  await tick();
  assert.equal(p.cameraMode(), 'orbit');
  assert.throws(() => p.setCameraMode('sideways'), /unknown camera mode/);
  p.follow(3);
  assert.equal(p.cameraMode(), 'follow', 'following from orbit switches to follow, as the renderer does');
});

test('request() answers a read now; a failed frame makes render() throw; a trap kills the worker and says so', async () => {
  const { w, p, fatal } = proxy();
  const picked = p.request('pick', 10, 20);
  const q = w.posts[0].msg;
  assert.equal(q.type, 'call');
  assert.deepEqual(q.params, { name: 'pick', args: [10, 20] });
  w.answer({ id: q.id, result: 17 });
  assert.equal(await picked, 17);

  p.render();
  w.answer({ id: w.posts[1].msg.id, error: { message: 'GPU device lost and could not be recreated', fatal: false } });
  await tick();
  assert.throws(() => p.render(), /could not be recreated/);
  assert.deepEqual(fatal, []);

  const { w: w2, p: p2, fatal: fatal2 } = proxy();
  const pending = assert.rejects(p2.request('labels'), /unreachable/, 'a read in flight is rejected');
  p2.render();
  w2.answer({ id: w2.posts[1].msg.id, error: { message: 'unreachable', fatal: true } });
  await tick();
  await pending;
  assert.deepEqual(fatal2, ['unreachable']);
  assert.ok(w2.terminated);
  assert.throws(() => p2.render(), /unreachable/);
  await assert.rejects(p2.request('pick', 0, 0), /unreachable/);
});

test('contentDrawn() turns true only once a frame that carried entity frames was drawn (first-frame timing)', async () => {
  const { w, p } = proxy();
  p.render(); // background only: no frames sent yet
  w.answer({ id: w.posts[0].msg.id, result: reply() });
  await tick();
  assert.equal(p.render(), true);
  assert.equal(p.contentDrawn(), false, 'drawn, but without entities');
  p.setFrames(new Int32Array(16), 0, new Int32Array(16), 0);
  assert.equal(p.render(), true, 'render() still answers for the frame before');
  assert.equal(p.contentDrawn(), false);
  w.answer({ id: w.posts[1].msg.id, result: reply({ drawn: false }) });
  await tick();
  assert.equal(p.contentDrawn(), false, 'not drawn (device being recreated)');
  p.render();
  w.answer({ id: w.posts[2].msg.id, result: reply() });
  await tick();
  assert.equal(p.contentDrawn(), true, 'frames were sent before this frame');
});

test('idle: nothing changed since a drawn frame posts nothing (a paused player lets the worker and GPU rest), but once a second it redraws', async () => {
  const { w, p } = proxy();
  const f = new Int32Array(16).fill(1);
  p.setFrames(f, 1, f, 1);
  p.setTime(1.5);
  p.render();
  w.answer({ id: w.posts[0].msg.id, result: reply() });
  await tick();
  // Paused: the player sets the same time every frame.
  for (let i = 0; i < 5; i++) {
    p.setTime(1.5);
    assert.equal(p.render(), true);
  }
  assert.equal(w.posts.length, 1, 'nothing posted while nothing changed');
  assert.equal(p.stats.idle, 5);
  // Input makes a frame.
  p.orbit(3, 0);
  p.setTime(1.5);
  p.render();
  assert.equal(w.posts.length, 2);
  assert.deepEqual(
    w.posts[1].msg.params.cmds.map((c) => c[0]),
    ['orbit', 'setTime'],
    'with other calls the time is sent again',
  );
  w.answer({ id: w.posts[1].msg.id, result: reply() });
  await tick();
  // A new time makes a frame.
  p.setTime(1.6);
  p.render();
  assert.equal(w.posts.length, 3);
  w.answer({ id: w.posts[2].msg.id, result: reply({ drawn: false, ready: false }) });
  await tick();
  // Not drawn (device being recreated): keep posting until a frame is drawn.
  p.setTime(1.6);
  p.render();
  assert.equal(w.posts.length, 4, 'a frame that was not drawn is retried');
  w.answer({ id: w.posts[3].msg.id, result: reply() });
  await tick();
  p.render();
  assert.equal(w.posts.length, 4);
  // A second later an idle frame is drawn anyway (a loss while idle is noticed).
  p.postedAt -= 1001;
  p.render();
  assert.equal(w.posts.length, 5);
  assert.deepEqual(w.posts[4].msg.params.cmds, []);
});

test('idle, but the page asks for a label the last reply lacks (a new selection) or for more labels: a frame is posted for it', async () => {
  const { w, p } = proxy();
  p.labelsNear(8);
  p.render();
  w.answer({ id: w.posts[0].msg.id, result: reply() });
  await tick();
  p.labelsNear(8);
  p.render();
  assert.equal(w.posts.length, 1, 'idle');
  assert.deepEqual(p.labelOf(99), [], 'not known yet');
  p.render();
  assert.equal(w.posts.length, 2, 'posted for the new id');
  assert.deepEqual(w.posts[1].msg.params.ids, [99]);
  w.answer({ id: w.posts[1].msg.id, result: reply({ of: [[99, [99, 1, 2, 1]]] }) });
  await tick();
  assert.deepEqual(p.labelOf(99), [99, 1, 2, 1]);
  p.render();
  assert.equal(w.posts.length, 2, 'idle again once answered');
  p.labelsNear(16);
  p.render();
  assert.equal(w.posts.length, 3, 'more labels asked for');
  assert.equal(w.posts[2].msg.params.near, 16);
});

test('quiet() says when the player may rest its loop; onActivity fires for every queued call and every reply', async () => {
  const { w, p } = proxy();
  const woke = [];
  p.onActivity = (kind) => woke.push(kind);
  assert.equal(p.quiet(), false, 'nothing drawn yet');
  const f = new Int32Array(16).fill(1);
  p.setFrames(f, 1, f, 1);
  assert.equal(woke.length, 1, 'a queued call');
  assert.equal(p.quiet(), false, 'something queued');
  p.render();
  assert.equal(p.quiet(), false, 'a frame in flight');
  w.answer({ id: w.posts[0].msg.id, result: reply() });
  await tick();
  assert.deepEqual(woke, ['call', 'reply'], 'the queued call, then the reply');
  assert.equal(p.quiet(), true, 'drawn, nothing queued');
  // A time is sent once; the same time again queues nothing and stays quiet; input does not.
  p.setTime(1);
  assert.equal(p.quiet(), false, 'a new time queued');
  p.render();
  w.answer({ id: w.posts[w.posts.length - 1].msg.id, result: reply() });
  await tick();
  p.setTime(1);
  assert.equal(p.quiet(), true, 'the same time: nothing queued');
  const n = woke.length;
  p.orbit(1, 0);
  assert.equal(woke.length, n + 1);
  assert.equal(p.quiet(), false, 'camera input queued');
  p.render();
  w.answer({ id: w.posts[w.posts.length - 1].msg.id, result: reply({ drawn: false, ready: false }) });
  await tick();
  assert.equal(p.quiet(), false, 'a frame not drawn (device being recreated) is not quiet');
  p.render();
  w.answer({ id: w.posts[w.posts.length - 1].msg.id, result: reply() });
  await tick();
  assert.equal(p.quiet(), true);
  p.labelOf(5);
  assert.equal(p.quiet(), false, 'a label asked for that the last reply lacks');
});
