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
import type { Kill } from '../widgets/events.ts';

export const COMMAND_TYPE = 'replay-player:command';
export const EVENT_TYPE = 'replay-player:event';
export const COMMANDS = Object.freeze(['play', 'pause', 'seek', 'setSpeed', 'follow', 'setCamera', 'load', 'getState']);
/** Events the bridge posts (plus `state`, the answer to getState). */
export const EVENTS = Object.freeze(['ready', 'play', 'pause', 'seeked', 'timeupdate', 'ended', 'kill', 'error']);
/** At most this many `timeupdate` events a second (the player's own fire every frame). */
export const TIMEUPDATES_PER_S = 4;
/** Longest id, callsign or URL a command may carry. */
const MAX_TEXT = 2048;

/** A reply's id: what the command carried (idOf()). */
export type CommandId = number | string | undefined;

/** A message as it may arrive (anything: every field is checked before use). */
interface RawMessage {
  type?: unknown;
  id?: unknown;
  command?: unknown;
  args?: unknown;
}

/** A command parseCommand() has checked, its arguments normalised. */
export type Command =
  | { command: 'seek'; args: { time: number } }
  | { command: 'setSpeed'; args: { speed: number } }
  | { command: 'follow'; args: { entity: string | number | null } }
  | { command: 'setCamera'; args: { mode: string } }
  | { command: 'load'; args: { url: string } }
  | { command: 'play' | 'pause' | 'getState'; args: Record<string, never> };

/** parseCommand()'s answer for a command: carried out (`command`), or refused (`error`). */
export type ParsedCommand =
  | (Command & { id: CommandId; error?: undefined })
  | { id: CommandId; error: string; command?: undefined };

/** An `error` event's payload as the handle sends it (read defensively: `message`, or the value). */
type ErrorPayload = { message?: unknown } | null | undefined;

/** The handle's events the bridge listens to (EVENTS), and the payloads it reads. */
interface BridgeEvents {
  ready: unknown;
  play: unknown;
  pause: unknown;
  seeked: unknown;
  ended: unknown;
  error: ErrorPayload;
  timeupdate: unknown;
  kill: Kill;
}
type BridgeEvent = keyof BridgeEvents;

/** What the bridge asks of the player (the public handle, www/api/player.ts). */
export interface BridgeHandle {
  readonly currentTime: number;
  readonly duration: number;
  play(): unknown;
  pause(): unknown;
  seek(t: number): unknown;
  setSpeed(speed: number): unknown;
  follow(entity: string | number | null): unknown;
  setCamera(mode: string): unknown;
  load(src: string): unknown;
  getState(): unknown;
  describeKill(kill: Kill): unknown;
  on<K extends BridgeEvent>(ev: K, fn: (payload: BridgeEvents[K]) => void): (() => void) | undefined;
  off<K extends BridgeEvent>(ev: K, fn: (payload: BridgeEvents[K]) => void): void;
}

/** bindBridge()'s window, the origins allowed (none: any parent) and its clock (tests). */
export interface BridgeOptions {
  win: Window;
  origins?: string[];
  now?: () => number;
}

/** Whether `name` is one of COMMANDS. */
const isCommand = (name: string): name is Command['command'] => (COMMANDS as readonly string[]).includes(name);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_TEXT;

/** The id a reply carries: a short string or a finite number; anything else is no id. */
function idOf(data: RawMessage): CommandId {
  const id = data?.id;
  if (typeof id === 'number' && Number.isFinite(id)) return id;
  if (typeof id === 'string' && id.length <= 128) return id;
  return undefined;
}

/** Reads one argument of a command; `args` must be a plain object when present. */
function arg(data: RawMessage, name: string): unknown {
  const a = data.args;
  if (a === undefined || a === null) return undefined;
  if (typeof a !== 'object' || Array.isArray(a) || !Object.hasOwn(a, name)) return undefined;
  return (a as Record<string, unknown>)[name];
}

/**
 * Validates a message. Returns null when it is not a command at all (another protocol's message:
 * left alone), `{ id, error }` when it is a command that cannot be carried out, or
 * `{ id, command, args }` with the arguments checked and normalised.
 */
export function parseCommand(data: unknown): ParsedCommand | null {
  if (!data || typeof data !== 'object' || Array.isArray(data) || (data as RawMessage).type !== COMMAND_TYPE)
    return null;
  const id = idOf(data);
  const command = (data as RawMessage).command;
  if (typeof command !== 'string' || !isCommand(command)) {
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
      if (!(isText(entity) || (typeof entity === 'number' && Number.isSafeInteger(entity) && entity >= 0))) {
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
async function loadOrFail(handle: BridgeHandle, url: string) {
  // (The listener may set it while load() runs: typed as it may be, not as the flow analysis sees it.)
  let failed = null as ErrorPayload;
  const off = handle.on('error', (e: ErrorPayload) => {
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
export function bindBridge(
  handle: BridgeHandle,
  { win, origins = [], now = () => performance.now() }: BridgeOptions,
): () => void {
  const parent = win.parent;
  if (!parent || parent === win) return () => {};
  const allowed = (origin: string) => origins.length === 0 || origins.includes(origin);
  const post = (event: string, data: unknown, id?: CommandId) => {
    const msg: { type: string; event: string; data: unknown; id?: CommandId } = {
      type: EVENT_TYPE,
      event,
      data: data ?? null,
    };
    if (id !== undefined) msg.id = id;
    try {
      if (origins.length === 0) parent.postMessage(msg, '*');
      // One post per allowed origin: the browser delivers only the one the parent has.
      else for (const o of origins) parent.postMessage(msg, o);
    } catch {
      // A payload the structured clone refuses, or a parent gone: nothing to tell.
    }
  };

  const run = async (c: ParsedCommand) => {
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

  const onMessage = (e: MessageEvent<unknown>) => {
    if (e.source !== parent || !allowed(e.origin)) return;
    const c = parseCommand(e.data);
    if (!c) return;
    if (c.error) {
      if (c.id !== undefined)
        post('error', { message: c.error, command: (e.data as RawMessage | null)?.command ?? null }, c.id);
      return;
    }
    Promise.resolve()
      .then(() => run(c))
      .then(
        () => {
          if (c.command === 'getState' || c.id !== undefined) post('state', handle.getState(), c.id);
        },
        (err: ErrorPayload) => {
          if (c.id !== undefined) post('error', { message: String(err?.message ?? err), command: c.command }, c.id);
        },
      );
  };
  win.addEventListener('message', onMessage);

  let lastUpdate = -Infinity;
  const listeners: { [K in BridgeEvent]: (payload: BridgeEvents[K]) => void } = {
    ready: () => post('ready', handle.getState()),
    play: () => post('play', { time: handle.currentTime }),
    pause: () => post('pause', { time: handle.currentTime }),
    seeked: () => post('seeked', { time: handle.currentTime }),
    ended: () => post('ended', { time: handle.currentTime }),
    error: (e: ErrorPayload) => post('error', { message: String(e?.message ?? e) }),
    timeupdate: () => {
      const t = now();
      if (t - lastUpdate < 1000 / TIMEUPDATES_PER_S) return;
      lastUpdate = t;
      post('timeupdate', { time: handle.currentTime, duration: handle.duration });
    },
    kill: (k: Kill) => post('kill', handle.describeKill(k)),
  };
  // Each event with its own listener (generic in the event: the listener's payload is that event's).
  const listen = <K extends BridgeEvent>(ev: K) => handle.on(ev, listeners[ev]);
  const unlisten = <K extends BridgeEvent>(ev: K) => handle.off(ev, listeners[ev]);
  const names = Object.keys(listeners) as BridgeEvent[];
  for (const ev of names) listen(ev);
  return () => {
    win.removeEventListener('message', onMessage);
    for (const ev of names) unlisten(ev);
  };
}
