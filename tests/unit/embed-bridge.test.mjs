// www/embed/postmessage.ts: the iframe embed's postMessage protocol, against a fake window and handle.
import assert from 'node:assert/strict';
import test from 'node:test';
import { bindBridge, COMMAND_TYPE, EVENT_TYPE, parseCommand, TIMEUPDATES_PER_S } from '../../www/embed/postmessage.ts';

function fakeHandle() {
  const listeners = new Map();
  const calls = [];
  const h = {
    calls,
    currentTime: 0,
    duration: 60,
    on(ev, fn) {
      if (!listeners.has(ev)) listeners.set(ev, new Set());
      listeners.get(ev).add(fn);
      return () => h.off(ev, fn);
    },
    off(ev, fn) {
      listeners.get(ev)?.delete(fn);
    },
    emit(ev, d) {
      for (const fn of listeners.get(ev) ?? []) fn(d);
    },
    listenerCount: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
    getState: () => ({ time: h.currentTime, duration: 60, playing: false }),
    describeKill: (k) => ({ killer: `K${k.killer}`, victim: `V${k.victim}`, weapon: 'gun', time: k.time }),
  };
  for (const m of ['play', 'pause', 'seek', 'setSpeed', 'follow', 'setCamera', 'load']) {
    h[m] = (...args) => {
      calls.push([m, ...args]);
      if (m === 'follow' && args[0] === 'nobody') throw new Error('no entity is called "nobody"');
      if (m === 'setCamera' && args[0] === 'sideways') throw new Error('unknown camera mode "sideways"');
      if (m === 'seek') h.currentTime = args[0];
      // As the player's load(): a failed open is an `error` event, the promise resolves.
      if (m === 'load' && args[0].includes('missing')) h.emit('error', { message: 'the server answered 404' });
      return m === 'load' ? Promise.resolve() : undefined;
    };
  }
  return h;
}

function fakeWindow() {
  const posted = [];
  const parent = { postMessage: (msg, target) => posted.push({ msg: structuredClone(msg), target }) };
  const handlers = new Set();
  return {
    posted,
    parent,
    addEventListener: (t, fn) => t === 'message' && handlers.add(fn),
    removeEventListener: (t, fn) => t === 'message' && handlers.delete(fn),
    handlers,
    deliver(data, { origin = 'https://host.example', source = parent } = {}) {
      for (const fn of handlers) fn({ data, origin, source });
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const cmd = (command, args, id) => ({ type: COMMAND_TYPE, command, args, id });

test('parseCommand leaves other messages alone and checks every argument', () => {
  for (const other of [null, undefined, 5, 'play', [], { type: 'x' }, { type: 'replay-player:event' }]) {
    assert.equal(parseCommand(other), null);
  }
  assert.deepEqual(parseCommand(cmd('seek', { time: 12.5 }, 'a')), { id: 'a', command: 'seek', args: { time: 12.5 } });
  assert.deepEqual(parseCommand(cmd('play', undefined, 3)), { id: 3, command: 'play', args: {} });
  assert.deepEqual(parseCommand(cmd('follow', { entity: 'Iceman' })), {
    id: undefined,
    command: 'follow',
    args: { entity: 'Iceman' },
  });
  const bad = [
    cmd('seek', { time: '12' }, 1),
    cmd('seek', { time: -1 }, 1),
    cmd('seek', { time: Number.NaN }, 1),
    cmd('seek', [12], 1),
    cmd('setSpeed', { speed: 0 }, 1),
    cmd('follow', { entity: 'x'.repeat(5000) }, 1),
    cmd('follow', { entity: { toString: 1 } }, 1),
    cmd('setCamera', {}, 1),
    cmd('load', { url: 7 }, 1),
    cmd('__proto__', {}, 1),
    cmd('constructor', {}, 1),
    cmd({ evil: true }, {}, 1),
  ];
  for (const b of bad) {
    const r = parseCommand(b);
    assert.equal(r.id, 1);
    assert.equal(typeof r.error, 'string', JSON.stringify(b).slice(0, 80));
    assert.equal(r.command, undefined);
  }
  // Prototype keys in args are not arguments.
  const proto = JSON.parse('{"type":"replay-player:command","command":"seek","args":{"__proto__":{"time":5}},"id":9}');
  assert.ok(parseCommand(proto).error);
  // An id that is not a short string or a finite number is no id.
  assert.equal(parseCommand(cmd('play', {}, { x: 1 })).id, undefined);
  assert.equal(parseCommand(cmd('play', {}, 'i'.repeat(200))).id, undefined);
});

test('commands from the parent run on the handle; a command with an id is answered with state', async () => {
  const win = fakeWindow();
  const h = fakeHandle();
  bindBridge(h, { win });
  win.deliver(cmd('seek', { time: 30 }, 'q1'));
  win.deliver(cmd('setCamera', { mode: 'follow' }));
  win.deliver(cmd('getState'));
  await settle();
  assert.deepEqual(h.calls, [
    ['seek', 30],
    ['setCamera', 'follow'],
  ]);
  const replies = win.posted.map((p) => p.msg);
  assert.deepEqual(replies, [
    { type: EVENT_TYPE, event: 'state', data: { time: 30, duration: 60, playing: false }, id: 'q1' },
    { type: EVENT_TYPE, event: 'state', data: { time: 30, duration: 60, playing: false } },
  ]);
  assert.ok(
    win.posted.every((p) => p.target === '*'),
    'without origin= events go to any parent',
  );
});

test('a bad command with an id gets an error event; without an id it is ignored; a throwing handle is answered', async () => {
  const win = fakeWindow();
  const h = fakeHandle();
  bindBridge(h, { win });
  win.deliver(cmd('seek', { time: 'soon' }, 7));
  win.deliver(cmd('seek', { time: 'soon' }));
  win.deliver(cmd('explode', {}, 8));
  win.deliver(cmd('follow', { entity: 'nobody' }, 9));
  await settle();
  assert.deepEqual(h.calls, [['follow', 'nobody']]);
  const msgs = win.posted.map((p) => p.msg);
  assert.equal(msgs.length, 3);
  assert.deepEqual(
    msgs.map((m) => [m.event, m.id]),
    [
      ['error', 7],
      ['error', 8],
      ['error', 9],
    ],
  );
  assert.match(msgs[0].data.message, /seek needs args.time/);
  assert.match(msgs[1].data.message, /unknown command "explode"/);
  assert.equal(msgs[2].data.message, 'no entity is called "nobody"');
});

test('a mode the camera does not have and a replay that cannot be opened are answered with errors', async () => {
  const win = fakeWindow();
  const h = fakeHandle();
  bindBridge(h, { win });
  win.deliver(cmd('setCamera', { mode: 'sideways' }, 'c'));
  win.deliver(cmd('load', { url: 'https://replays.example/missing.flrep' }, 'l1'));
  win.deliver(cmd('load', { url: 'https://replays.example/match.flrep' }, 'l2'));
  await settle();
  const answers = win.posted.filter((p) => p.msg.id !== undefined).map((p) => [p.msg.id, p.msg.event]);
  assert.deepEqual(answers, [
    ['c', 'error'],
    ['l1', 'error'],
    ['l2', 'state'],
  ]);
  const byId = (id) => win.posted.find((p) => p.msg.id === id).msg.data;
  assert.equal(byId('c').message, 'unknown camera mode "sideways"');
  assert.equal(byId('l1').message, 'the server answered 404');
  assert.equal(byId('l1').command, 'load');
});

test('origin= restricts who commands the player and where its events go', async () => {
  const win = fakeWindow();
  const h = fakeHandle();
  bindBridge(h, { win, origins: ['https://host.example'] });
  win.deliver(cmd('play', {}, 1), { origin: 'https://evil.example' });
  win.deliver(cmd('play', {}, 2), { source: {} });
  await settle();
  assert.deepEqual(h.calls, []);
  assert.deepEqual(win.posted, [], 'nothing is answered to a stranger');
  win.deliver(cmd('play', {}, 3));
  await settle();
  assert.deepEqual(h.calls, [['play']]);
  assert.deepEqual(
    win.posted.map((p) => p.target),
    ['https://host.example'],
  );
});

test('player events reach the parent; timeupdate at most 4 a second; kills as the feed shows them; unbind stops all', () => {
  const win = fakeWindow();
  const h = fakeHandle();
  let clock = 0;
  const unbind = bindBridge(h, { win, now: () => clock });
  h.emit('ready');
  h.emit('play');
  for (let i = 0; i < 60; i++) {
    clock = i * (1000 / 60);
    h.currentTime = i / 60;
    h.emit('timeupdate', i / 60);
  }
  h.emit('kill', { killer: 1, victim: 2, time: 0.5 });
  const events = win.posted.map((p) => p.msg.event);
  assert.equal(events[0], 'ready');
  assert.equal(events[1], 'play');
  assert.equal(events.filter((e) => e === 'timeupdate').length, TIMEUPDATES_PER_S);
  assert.deepEqual(win.posted.at(-1).msg.data, { killer: 'K1', victim: 'V2', weapon: 'gun', time: 0.5 });
  const n = win.posted.length;
  unbind();
  assert.equal(h.listenerCount(), 0);
  assert.equal(win.handlers.size, 0);
  h.emit('pause');
  win.deliver(cmd('play', {}, 1));
  assert.equal(win.posted.length, n);
});

test('a page that is not framed binds nothing', () => {
  const win = fakeWindow();
  win.parent = win;
  const h = fakeHandle();
  bindBridge(h, { win });
  assert.equal(h.listenerCount(), 0);
  assert.equal(win.handlers.size, 0);
});
