// www/bridge/rpc.ts against a fake worker: replies matched to their requests by id, pushes, and what a
// crash does to the requests pending and to come. Its two users are covered on top of it:
// tests/unit/render-proxy.test.mjs (RenderProxy) and the browser tests (WorkerClient, the decoder
// worker's crash handling in tests/e2e/safety.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { Rpc } from '../../www/bridge/rpc.ts';

/** A Worker stand-in: records posts; `answer(data)` delivers a message, `crash(message)` an error event. */
class FakeWorker extends EventTarget {
  constructor() {
    super();
    this.posts = [];
    this.terminated = 0;
  }
  postMessage(msg, transfer = []) {
    this.posts.push({ msg, transfer });
  }
  terminate() {
    this.terminated++;
  }
  answer(data) {
    const ev = new Event('message');
    ev.data = data;
    this.dispatchEvent(ev);
  }
  crash(message) {
    const ev = new Event('error', { cancelable: true });
    ev.message = message;
    this.dispatchEvent(ev);
    return ev;
  }
  unreadable() {
    this.dispatchEvent(new Event('messageerror'));
  }
}

/** Settles `p` into `{ok, value}` / `{ok: false, error}` without an unhandled rejection. */
const settle = (p) =>
  p.then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, error }),
  );
const tick = () => new Promise((r) => setTimeout(r, 0));

function rig(opts = {}) {
  const w = new FakeWorker();
  const pushes = [];
  const deaths = [];
  const rpc = new Rpc(w, { onPush: (m) => pushes.push(m), onDeath: (m) => deaths.push(m), ...opts });
  return { w, rpc, pushes, deaths };
}

test('each request gets its own id, and replies settle the request with their id, in whatever order they come', async () => {
  const { w, rpc } = rig();
  const buf = new ArrayBuffer(8);
  const a = settle(rpc.request({ method: 'open', params: { n: 1 } }, [buf]));
  const b = settle(rpc.request({ method: 'stats', params: {} }));
  const c = settle(rpc.request({ method: 'want', params: {} }));
  assert.equal(w.posts.length, 3);
  const [ia, ib, ic] = w.posts.map((p) => p.msg.id);
  assert.equal(new Set([ia, ib, ic]).size, 3, 'distinct ids');
  assert.deepEqual(w.posts[0].msg, { id: ia, method: 'open', params: { n: 1 } });
  assert.deepEqual(w.posts[0].transfer, [buf], 'the transfer list is passed on');
  // Answered out of order: each reply goes to its own request.
  w.answer({ id: ic, result: 'c' });
  w.answer({ id: ia, result: { opened: true } });
  w.answer({ id: ib, error: { message: 'not a replay this player reads', fatal: false } });
  assert.deepEqual(await a, { ok: true, value: { opened: true } });
  const rb = await b;
  assert.equal(rb.ok, false);
  assert.equal(rb.error.message, 'not a replay this player reads');
  assert.equal(rb.error.fatal, false);
  assert.deepEqual(await c, { ok: true, value: 'c' });
  assert.equal(rpc.pending.size, 0);
  assert.equal(rpc.dead, false, 'a failed request does not kill the worker');
});

test('a reply for an unknown id, or a second reply for the same id, is ignored', async () => {
  const { w, rpc, pushes } = rig();
  const a = settle(rpc.request({ method: 'x' }));
  const id = w.posts[0].msg.id;
  w.answer({ id: id + 100, result: 'stray' });
  await tick();
  assert.equal(rpc.pending.size, 1, 'still waiting for its own reply');
  w.answer({ id, result: 'mine' });
  w.answer({ id, result: 'again' });
  assert.deepEqual(await a, { ok: true, value: 'mine' });
  assert.deepEqual(pushes, [], 'replies are not pushes');
});

test('messages without an id are pushes; malformed messages are ignored without throwing', async () => {
  const { w, rpc, pushes, deaths } = rig();
  const a = settle(rpc.request({ method: 'x' }));
  for (const junk of [null, undefined, 42, 'text', true, []]) w.answer(junk);
  assert.deepEqual(pushes, [], 'nothing the protocol knows');
  assert.equal(rpc.pending.size, 1);
  w.answer({ type: 'piece', gen: 3 });
  assert.deepEqual(pushes.at(-1), { type: 'piece', gen: 3 });
  // An error without the {message, fatal} shape still rejects its request, without throwing here.
  w.answer({ id: w.posts[0].msg.id, error: 'bad' });
  const r = await a;
  assert.equal(r.ok, false);
  assert.equal(r.error.message, 'bad');
  assert.equal(r.error.fatal, false);
  assert.deepEqual(deaths, []);
  assert.equal(rpc.dead, false);
});

test('a worker error event kills it: every pending request is rejected with the crash message, once', async () => {
  const { w, rpc, deaths } = rig({ crashMessage: (ev) => `the decoder stopped: ${ev.message}` });
  const calls = [settle(rpc.request({ method: 'a' })), settle(rpc.request({ method: 'b' }))];
  const ev = w.crash('out of memory');
  assert.ok(ev.defaultPrevented, 'the error is handled (not reported as uncaught)');
  for (const r of await Promise.all(calls)) {
    assert.equal(r.ok, false);
    assert.equal(r.error.message, 'the decoder stopped: out of memory');
    assert.equal(r.error.fatal, true);
  }
  assert.deepEqual(deaths, ['the decoder stopped: out of memory']);
  assert.equal(w.terminated, 1);
  w.crash('again');
  rpc.die('and again');
  assert.equal(deaths.length, 1, 'told once');
  assert.equal(w.terminated, 1);
});

test('after death: requests are rejected with the crash message and not posted, sends are dropped, late replies ignored', async () => {
  const { w, rpc, pushes } = rig();
  settle(rpc.request({ method: 'a' }));
  const id = w.posts[0].msg.id;
  rpc.die('the wasm trapped');
  const r = await settle(rpc.request({ method: 'b' }));
  assert.equal(r.ok, false);
  assert.equal(r.error.message, 'the wasm trapped');
  rpc.send({ method: 'want' });
  assert.equal(w.posts.length, 1, 'nothing posted after death');
  w.answer({ id, result: 'too late' });
  w.answer({ type: 'piece' });
  assert.deepEqual(pushes, [], 'a dead worker pushes nothing');
});

test('a fatal reply rejects its request; it kills the worker only with dieOnFatalReply', async () => {
  const quiet = rig();
  const a = settle(quiet.rpc.request({ method: 'a' }));
  const b = settle(quiet.rpc.request({ method: 'b' }));
  quiet.w.answer({ id: quiet.w.posts[0].msg.id, error: { message: 'unreachable', fatal: true } });
  const ra = await a;
  assert.equal(ra.error.message, 'unreachable');
  assert.equal(ra.error.fatal, true);
  assert.equal(quiet.rpc.dead, false, 'left to the owner (the decoder worker follows with a fatal push)');
  quiet.w.answer({ id: quiet.w.posts[1].msg.id, result: 2 });
  assert.deepEqual(await b, { ok: true, value: 2 });

  const dying = rig({ dieOnFatalReply: true });
  const c = settle(dying.rpc.request({ method: 'c' }));
  const d = settle(dying.rpc.request({ method: 'd' }));
  dying.w.answer({ id: dying.w.posts[0].msg.id, error: { message: 'unreachable', fatal: true } });
  assert.equal((await c).error.message, 'unreachable');
  const rd = await d;
  assert.equal(rd.ok, false, 'the other pending request is rejected too');
  assert.equal(rd.error.message, 'unreachable');
  assert.deepEqual(dying.deaths, ['unreachable']);
  assert.equal(dying.w.terminated, 1);
});

test('a message that cannot be read kills the worker when a message is given for it', async () => {
  const { w, rpc, deaths } = rig({ unreadableMessage: 'the decoder sent a message that could not be read' });
  const a = settle(rpc.request({ method: 'a' }));
  w.unreadable();
  assert.equal((await a).error.message, 'the decoder sent a message that could not be read');
  assert.deepEqual(deaths, ['the decoder sent a message that could not be read']);

  const other = rig();
  settle(other.rpc.request({ method: 'a' }));
  other.w.unreadable();
  assert.equal(other.rpc.dead, false, 'not listened for without a message');
});

test('close(): terminates without onDeath; pending requests rejected with the given error, or left unanswered', async () => {
  const { w, rpc, deaths } = rig();
  const a = settle(rpc.request({ method: 'a' }));
  rpc.close(new Error('closed'));
  const r = await a;
  assert.equal(r.error.message, 'closed');
  assert.equal(r.error.fatal, undefined, 'not a crash');
  assert.equal(w.terminated, 1);
  assert.deepEqual(deaths, []);
  assert.equal((await settle(rpc.request({ method: 'b' }))).error.message, 'closed');

  const quiet = rig();
  let settled = false;
  quiet.rpc.request({ method: 'a' }).then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  quiet.rpc.close();
  await tick();
  assert.equal(settled, false, 'left unanswered');
  assert.equal(quiet.rpc.pending.size, 0);
  quiet.w.crash('after close');
  assert.deepEqual(quiet.deaths, [], 'a closed worker does not die');
});
