// www/core/ghosts.ts: Compare's second recording, B, drawn over A on A's clock, against a fake
// player (clock, timebase, loop, notices) and a fake decoder client that answers `open` and takes
// pushed pieces. What is asked of B's worker, when, and what reaches the renderer.
// Run: node --import tsx --test tests/unit/ghosts.test.mjs
import assert from 'node:assert/strict';
import test from 'node:test';
import { Ghosts } from '../../www/core/ghosts.ts';
import { Timebase } from '../../www/core/pieces.ts';
import { STRIDE } from '../../www/core/entities.ts';

const INFO = { info: { first_tick: 0, last_tick: 6000, tick_rate_hz: 60 } };

function fakePlayer() {
  const tb = new Timebase();
  tb.set(INFO.info);
  const p = {
    tb,
    pb: { moving: false, speed: 1, direction: 0, time: 10 },
    wakes: 0,
    notices: [],
    loop: { wake: () => p.wakes++ },
    currentTickInt: () => tb.tickOf(p.pb.time),
    emit: (ev, d) => ev === 'notice' && p.notices.push(d.text),
  };
  return p;
}

/** A decoder client: records what it is sent; `open` answers when the test says. */
function fakeClient() {
  const c = { sent: [], opens: [], terminated: 0, hooks: null, spawn: null };
  c.make = (hooks, spawn) => {
    c.hooks = hooks;
    c.spawn = spawn;
    return {
      call: (method, params) => {
        c.sent.push([method, params]);
        return new Promise((resolve, reject) => c.opens.push({ resolve, reject }));
      },
      notify: (method, params) => c.sent.push([method, params]),
      terminate: () => c.terminated++,
    };
  };
  return c;
}

function fakeRenderer() {
  const r = { sets: [] };
  r.setGhostFrames = (a, ta, b, tb) => r.sets.push({ a: Array.from(a), ta, b: Array.from(b), tb });
  return r;
}

/** A `piece` of `session`: one frame per tick of [from, end), one entity whose x is its tick. */
function piece(session, from, end, gen = 1) {
  const ticks = Array.from({ length: end - from }, (_, i) => from + i);
  const entities = new Int32Array(ticks.length * STRIDE);
  const offsets = new Uint32Array(ticks.length + 1);
  ticks.forEach((tick, i) => {
    offsets[i + 1] = i + 1;
    entities[i * STRIDE] = 1;
    entities[i * STRIDE + 3] = tick;
  });
  const f = { type: 'piece', session, gen, chunk: 0, from, end, stride: 1, timing: null };
  return { ...f, ticks: Float64Array.from(ticks), offsets, entities, events: [], eventTicks: new Float64Array(0) };
}
const xOf = (words) => words[3];

async function opened() {
  const p = fakePlayer();
  const c = fakeClient();
  const g = new Ghosts(p, 'SPAWN', c.make);
  const done = g.open(new File([], 'b.rec'));
  c.opens[0].resolve(INFO);
  await done;
  return { p, c, g, session: c.sent[0][1].session };
}

test('the client is made with the player’s spawn; open sends the file and wakes the loop once open', async () => {
  const p = fakePlayer();
  const c = fakeClient();
  const g = new Ghosts(p, 'SPAWN', c.make);
  assert.equal(c.spawn, 'SPAWN');
  const file = new File([], 'b.rec');
  const done = g.open(file);
  assert.equal(g.name, 'b.rec');
  assert.equal(c.sent.length, 1);
  const [method, params] = c.sent[0];
  assert.equal(method, 'open');
  assert.equal(params.blob, file);
  assert.equal(params.name, 'b.rec');
  assert.equal(typeof params.session, 'number');
  const wakes = p.wakes;
  c.opens[0].resolve(INFO);
  await done;
  assert.equal(p.wakes, wakes + 1, 'woken once B is open');
  const unnamed = new Ghosts(p, undefined, fakeClient().make);
  unnamed.open(new Blob([]));
  assert.equal(unnamed.name, 'B', 'a Blob without a name is "B"');
});

test('each frame asks B’s worker for the ticks at A’s playhead, once until the need changes', async () => {
  const { p, c, g, session } = await opened();
  const r = fakeRenderer();
  g.frame(r, null);
  const wants = c.sent.filter(([m]) => m === 'want');
  assert.equal(wants.length, 1);
  assert.equal(wants[0][1].session, session);
  assert.equal(wants[0][1].from, 600, 'A at 10 s: tick 600');
  assert.equal(wants[0][1].to, 601, 'paused: the playhead’s tick');
  assert.equal(typeof wants[0][1].gen, 'number');
  g.frame(r, null);
  assert.equal(c.sent.filter(([m]) => m === 'want').length, 1, 'the same need is not sent again');
  p.pb.time = 20;
  g.frame(r, null);
  const again = c.sent.filter(([m]) => m === 'want');
  assert.equal(again.length, 2);
  assert.equal(again[1][1].from, 1200);
  assert.ok(again[1][1].gen > wants[0][1].gen, 'a new want has a new generation');
  assert.deepEqual(r.sets, [], 'nothing of B to draw yet');
});

test('B’s frames at A’s pair of ticks go to the renderer at A’s times, once per pair', async () => {
  const { p, c, g, session } = await opened();
  const r = fakeRenderer();
  const wakes = p.wakes;
  c.hooks.onPush(piece(session + 1, 600, 620));
  assert.equal(p.wakes, wakes, 'a piece of another session is ignored');
  c.hooks.onPush(piece(session, 600, 620));
  assert.equal(p.wakes, wakes + 1, 'a piece wakes the loop');
  assert.equal(g.shown, false);
  assert.equal(g.tick, -1);
  g.frame(r, { tick: 605 });
  assert.equal(r.sets.length, 1);
  assert.equal(xOf(r.sets[0].a), 605, 'B’s frame at A’s tick');
  assert.equal(xOf(r.sets[0].b), 606, 'and the one after it');
  assert.equal(r.sets[0].ta, p.tb.timeOf(605));
  assert.equal(r.sets[0].tb, p.tb.timeOf(606));
  assert.equal(g.shown, true);
  assert.equal(g.tick, 605);
  g.frame(r, { tick: 605 });
  assert.equal(r.sets.length, 1, 'the same pair is not sent again');
  g.forget();
  g.frame(r, { tick: 605 });
  assert.equal(r.sets.length, 2, 'after forget() it is sent again');
  g.frame(r, { tick: 619 });
  assert.equal(xOf(r.sets[2].a), 619);
  assert.equal(xOf(r.sets[2].b), 619, 'no frame after the last: the pair is that frame twice');
});

test('ghosts with nothing of B at the playhead stay while within 0.5 s of it, then go', async () => {
  const { p, c, g, session } = await opened();
  const r = fakeRenderer();
  c.hooks.onPush(piece(session, 600, 620));
  g.frame(r, { tick: 600 });
  assert.equal(r.sets.length, 1);
  p.pb.time = 10.4;
  g.frame(r, { tick: 624 });
  assert.equal(r.sets.length, 1, '0.4 s from the ghosts: they stay');
  assert.equal(g.shown, true);
  p.pb.time = 10.6;
  g.frame(r, { tick: 636 });
  assert.equal(r.sets.length, 2, '0.6 s from the ghosts: they go');
  assert.deepEqual(r.sets[1], { a: [], ta: 0, b: [], tb: 0 });
  assert.equal(g.shown, false);
});

test('close ends the worker and the renderer’s ghosts go at the next frame, once', async () => {
  const { p, c, g, session } = await opened();
  const r = fakeRenderer();
  c.hooks.onPush(piece(session, 600, 620));
  g.frame(r, { tick: 600 });
  const wakes = p.wakes;
  g.close();
  assert.equal(c.terminated, 1);
  assert.equal(g.name, '');
  assert.equal(p.wakes, wakes + 1);
  const sent = c.sent.length;
  g.frame(r, { tick: 600 });
  assert.equal(r.sets.length, 2);
  assert.deepEqual(r.sets[1], { a: [], ta: 0, b: [], tb: 0 });
  g.frame(r, { tick: 600 });
  assert.equal(r.sets.length, 2, 'cleared once');
  assert.equal(c.sent.length, sent, 'nothing asked of a closed worker');
  c.hooks.onPush(piece(session, 600, 620));
  assert.equal(p.wakes, wakes + 1, 'a late piece of the closed session is ignored');
  g.close();
  assert.equal(c.terminated, 1, 'closing again has no worker to end');
});

test('an open overtaken by another does nothing when it answers', async () => {
  const p = fakePlayer();
  const c = fakeClient();
  const g = new Ghosts(p, undefined, c.make);
  const first = g.open(new File([], 'one.rec'));
  const second = g.open(new File([], 'two.rec'));
  assert.equal(c.terminated, 1, 'the first worker ends');
  assert.equal(g.name, 'two.rec');
  const wakes = p.wakes;
  c.opens[0].resolve(INFO);
  await first;
  assert.equal(p.wakes, wakes, 'the first answer is not taken');
  g.frame(fakeRenderer(), null);
  assert.equal(c.sent.filter(([m]) => m === 'want').length, 0, 'B is not open yet');
  c.opens[1].resolve(INFO);
  await second;
  g.frame(fakeRenderer(), null);
  const want = c.sent.find(([m]) => m === 'want');
  assert.equal(want[1].session, c.sent[1][1].session, 'asked under the second open’s session');
});

test('a failed open, an error push or a dead worker is a notice; a failed open rejects', async () => {
  const p = fakePlayer();
  const c = fakeClient();
  const g = new Ghosts(p, undefined, c.make);
  const done = g.open(new File([], 'b.rec'));
  c.opens[0].reject(new Error('not a recording'));
  await assert.rejects(done, /not a recording/);
  assert.deepEqual(p.notices, ['The second recording cannot be drawn over this one: not a recording']);
  const o = await opened();
  o.c.hooks.onPush({ type: 'error', session: o.session + 1, message: 'other' });
  assert.deepEqual(o.p.notices, [], 'an error of another session is ignored');
  o.c.hooks.onPush({ type: 'error', session: o.session, message: 'bad chunk' });
  assert.deepEqual(o.p.notices, ['The second recording cannot be drawn over this one: bad chunk']);
  const r = fakeRenderer();
  const sent = o.c.sent.length;
  o.g.frame(r, null);
  assert.equal(o.c.sent.length, sent, 'after an error nothing more is asked');
  o.c.hooks.onFatal('the decoder stopped: trap');
  assert.equal(o.p.notices[1], 'The second recording cannot be drawn over this one: the decoder stopped: trap');
});
