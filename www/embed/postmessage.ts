// @ts-nocheck
// The iframe embed's postMessage protocol (docs/embedding.md "postMessage"): commands from the
// host page to the player, events from the player to the host page.
//
//   to the player:   { type: 'replay-player:command', command, args, id }
//   from the player: { type: 'replay-player:event', event, data, id }
//
//   import { bindBridge } from './postmessage.ts';
//   const unbind = bindBridge(handle, { win: window, origins });   // embed.html does this
//
// A message is as hostile as a file: anything may arrive (wrong types, huge strings, prototype
// keys, other sites' messages). parseCommand never throws; a command that cannot be carried out is
// answered with an `error` event when it has an id, and ignored when it has none.

export const COMMAND_TYPE = 'replay-player:command';
export const EVENT_TYPE = 'replay-player:event';
export const COMMANDS = Object.freeze(['play', 'pause', 'seek', 'setSpeed', 'follow', 'setCamera', 'load', 'getState']);
/** Events the bridge posts (plus `state`, the answer to getState). */
export const EVENTS = Object.freeze(['ready', 'play', 'pause', 'seeked', 'timeupdate', 'ended', 'kill', 'error']);
/** At most this many `timeupdate` events a second (the player's own fire every frame). */
export const TIMEUPDATES_PER_S = 4;
/** Longest id, callsign or URL a command may carry. */
const MAX_TEXT = 2048;

const isText = (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT;

/** The id a reply carries: a short string or a finite number; anything else is no id. */
function idOf(data) {
  const id = data?.id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  if (typeof id === 'string' && id.length <= 128) return id;
  return undefined;
}

/** Reads one argument of a command; `args` must be a plain object when present. */
function arg(data, name) {
  const a = data.args;
  if (a === undefined || a === null) return undefined;
  if (typeof a !== 'object' || Array.isArray(a) || !Object.hasOwn(a, name)) return undefined;
  return a[name];
}

/**
 * Validates a message. Returns null when it is not a command at all (another protocol's message:
 * left alone), `{ id, error }` when it is a command that cannot be carried out, or
 * `{ id, command, args }` with the arguments checked and normalised.
 */
export function parseCommand(data) {
  if (!data || typeof data !== 'object' || Array.isArray(data) || data.type !== COMMAND_TYPE) return null;
  const id = idOf(data);
  const command = data.command;
  if (typeof command !== 'string' || !COMMANDS.includes(command)) {
    const name = typeof command === 'string' ? command.slice(0, 40) : typeof command;
    return { id, error: `unknown command "${name}" (one of ${COMMANDS.join(', ')})` };
  }
  switch (command) {
    case 'seek': {
      const time = arg(data, 'time');
      if (typeof time !== 'number' || !Number.isFinite(time) || time < 0) {
        return { id, error: 'seek needs args.time, a number of seconds ≥ 0' };
      }
      return { id, command, args: { time } };
    }
    case 'setSpeed': {
      const speed = arg(data, 'speed');
      if (typeof speed !== 'number' || !Number.isFinite(speed) || speed <= 0) {
        return { id, error: 'setSpeed needs args.speed, a positive number' };
      }
      return { id, command, args: { speed } };
    }
    case 'follow': {
      const entity = arg(data, 'entity');
      if (entity === null) return { id, command, args: { entity: null } };
      if (!(isText(entity) || (Number.isSafeInteger(entity) && entity >= 0))) {
        return { id, error: 'follow needs args.entity, a callsign, an entity id, or null' };
      }
      return { id, command, args: { entity } };
    }
    case 'setCamera': {
      const mode = arg(data, 'mode');
      if (!isText(mode)) return { id, error: 'setCamera needs args.mode' };
      return { id, command, args: { mode } };
    }
    case 'load': {
      const url = arg(data, 'url');
      if (!isText(url)) return { id, error: 'load needs args.url, the address of a replay' };
      return { id, command, args: { url } };
    }
    default:
      return { id, command, args: {} };
  }
}

/**
 * Opens `url` on `handle`; rejects with the player's `error` when the open fails (the handle's
 * load() resolves either way: its failures are events).
 */
async function loadOrFail(handle, url) {
  let failed = null;
  const off = handle.on('error', (e) => {
    failed ??= e;
  });
  try {
    await handle.load(url);
  } finally {
    off?.();
  }
  if (failed) throw new Error(String(failed.message ?? failed));
}

/**
 * Wires a player handle to the window's messages. `handle` is the public handle of player.js
 * (play, pause, seek, setSpeed, follow, setCamera, load, on/off, getState()).
 * A command with an id is answered once it is carried out: with `state`, or with an `error`
 * naming what was wrong (a bad argument, a callsign nobody has, an unknown camera mode, a replay
 * that could not be opened).
 * `origins`: the origins allowed to command the player and to receive its events (from the
 * `origin=` parameter); empty = any parent may command it and events go to the parent with
 * targetOrigin '*' (they carry only what the page shows: times, state, kills as the feed shows
 * them). Only the parent window's messages are read. Returns a function that unbinds.
 */
export function bindBridge(handle, { win, origins = [], now = () => performance.now() }) {
  const parent = win.parent;
  if (!parent || parent === win) return () => {};
  const allowed = (origin) => origins.length === 0 || origins.includes(origin);
  const post = (event, data, id) => {
    const msg = { type: EVENT_TYPE, event, data: data ?? null };
    if (id !== undefined) msg.id = id;
    try {
      if (origins.length === 0) parent.postMessage(msg, '*');
      // One post per allowed origin: the browser delivers only the one the parent has.
      else for (const o of origins) parent.postMessage(msg, o);
    } catch {
      // A payload the structured clone refuses, or a parent gone: nothing to tell.
    }
  };

  const run = async (c) => {
    switch (c.command) {
      case 'play':
        return handle.play();
      case 'pause':
        return handle.pause();
      case 'seek':
        return handle.seek(c.args.time);
      case 'setSpeed':
        return handle.setSpeed(c.args.speed);
      case 'follow':
        return handle.follow(c.args.entity);
      case 'setCamera':
        return handle.setCamera(c.args.mode);
      case 'load':
        return loadOrFail(handle, c.args.url);
      default:
        return undefined;
    }
  };

  const onMessage = (e) => {
    if (e.source !== parent || !allowed(e.origin)) return;
    const c = parseCommand(e.data);
    if (!c) return;
    if (c.error) {
      if (c.id !== undefined) post('error', { message: c.error, command: e.data?.command ?? null }, c.id);
      return;
    }
    Promise.resolve()
      .then(() => run(c))
      .then(
        () => {
          if (c.command === 'getState' || c.id !== undefined) post('state', handle.getState(), c.id);
        },
        (err) => {
          if (c.id !== undefined) post('error', { message: String(err?.message ?? err), command: c.command }, c.id);
        },
      );
  };
  win.addEventListener('message', onMessage);

  let lastUpdate = -Infinity;
  const listeners = {
    ready: () => post('ready', handle.getState()),
    play: () => post('play', { time: handle.currentTime }),
    pause: () => post('pause', { time: handle.currentTime }),
    seeked: () => post('seeked', { time: handle.currentTime }),
    ended: () => post('ended', { time: handle.currentTime }),
    error: (e) => post('error', { message: String(e?.message ?? e) }),
    timeupdate: () => {
      const t = now();
      if (t - lastUpdate < 1000 / TIMEUPDATES_PER_S) return;
      lastUpdate = t;
      post('timeupdate', { time: handle.currentTime, duration: handle.duration });
    },
    kill: (k) => post('kill', handle.describeKill(k)),
  };
  for (const [ev, fn] of Object.entries(listeners)) handle.on(ev, fn);
  return () => {
    win.removeEventListener('message', onMessage);
    for (const [ev, fn] of Object.entries(listeners)) handle.off(ev, fn);
  };
}
