// The player's vocabulary: the types its published surface speaks (docs/player-api.md,
// docs/embedding.md) and the page, the embeds and the workers share. Types only: nothing here
// exists at run time. The package's declarations (types/*.d.ts) are generated from the source
// (scripts/types.mjs), which takes these from here.
/** A time as links and options write it: seconds (95.2), "1:35.2" (m:ss.s), "1:02:03", "1m35s" or "tick:5712". */
export type TimeValue = number | string;

/** A camera mode (the renderer's names). */
export type CameraMode = 'orbit' | 'free' | 'follow' | 'first' | 'kill';

/** A side panel embed.html can show (`panels`). */
export type PanelName = 'recording' | 'roster' | 'kills';

/** The clock's states (docs/playback.md). */
export type PlaybackState = 'Stopped' | 'Playing' | 'Paused' | 'Rewinding' | 'FastForward';

/** A replay: a URL (read with HTTP Range requests), a local file or blob, or the file's bytes. */
export type ReplaySource = string | URL | Blob | ArrayBuffer | ArrayBufferView | LiveSource;
/** A live `.flrep` (docs/live.md "The player"): a manifest.json URL of HTTP segments, or ws:// wss://. */
export interface LiveSource {
  live: string;
}

/**
 * Where and how a replay opens: the same names as the share links' and embed.html's URL parameters
 * and the `<replay-player>` attributes (docs/embedding.md "Options"). A value that cannot be used is
 * ignored and named in a `notice` event; nothing throws.
 */
export interface LoadOptions {
  /** Where playback starts. */
  t?: TimeValue;
  /** The same as `t`. */
  start?: TimeValue;
  /** A clip: playing forward stops at `end` (`ended`), or goes back to `t` with `loop`. */
  end?: TimeValue;
  loop?: boolean | 0 | 1 | string;
  /** The entity the camera follows: a callsign, an entity id, or "#id". */
  follow?: string | number;
  camera?: CameraMode;
  /** The camera pose of the mode (orbit / free), as `cameraPose()` returns it: up to 8 numbers. */
  view?: number[] | string;
  /** 0.25, 0.5, 1, 2, 4, 8 or 16. */
  speed?: number | string;
  /** Play once the first frame can be drawn. */
  autoplay?: boolean | 0 | 1 | string;
  /** `false`: spoiler-safe (no kills, totals or remaining time before the playhead reaches them). */
  spoilers?: boolean | 0 | 1 | string;
  /** A still frame at this time before play (ignored with `autoplay`). */
  poster?: TimeValue;
}

/** create()'s options: the load options, and how the player draws. */
export interface PlayerOptions extends LoadOptions {
  /** Show the player's own (compact) controls. */
  controls?: boolean | 0 | 1 | string;
  /** The side panels to show (embed.html): names, or "roster,kills". */
  panels?: PanelName[] | string;
  /** Width / height of the player (16:9 by default): a number, "16:9" or "4/3". */
  aspect?: number | string;
  /** The origins allowed to command an iframe embed (embed.html's `origin=`). */
  origin?: string | string[];
  /** The WebGL2 renderer build even where WebGPU works. */
  forceWebgl?: boolean;
  /** Draw on the page instead of in the render worker. */
  renderInPage?: boolean;
  /** `false`: decode at once, even while the element is out of view (by default decoding waits). */
  lazy?: boolean;
  /** `false`: draw nothing but the canvas (no frame, compact controls or keyboard shortcuts). */
  ui?: boolean;
}

/** A part of the recording the player skips (docs/player-api.md `gaps`). */
export interface Gap {
  /** Seconds of playback. */
  from: number;
  to: number;
  /** 'damaged': the chunk cannot be decoded; 'unread': a server did not send it after retries. */
  cause: 'damaged' | 'unread';
  /** The reader's or the server's reason (text from the file or the network: show it as text). */
  reason: string;
}

/** A live recording's news (docs/worker-protocol.md `live`). */
export interface LiveUpdate {
  type: 'live';
  session: number;
  /** 'live', 'stalled', 'reconnecting', 'ended' (an ordinary replay from now on), 'failed'. */
  status: 'live' | 'stalled' | 'reconnecting' | 'ended' | 'failed';
  /** The last tick received (absent when only the status changed after a failure). */
  lastTick?: number;
  /** Chunks received; the recording's bytes so far. */
  chunks?: number;
  fileLen?: number;
  /** The kills the new chunks hold (they join `markers`). */
  kills: ReplayEvent[];
  /** Wall-clock ms (timeOrigin + now) the worker had the new chunks. */
  arrivedAt?: number;
  /** Why the source ended ('failed'). */
  error?: string;
}

/** The kill scan of a recording without an index: chunks scanned of `total`, kills found. */
export interface KillScan {
  done: number;
  total: number;
  kills: number;
  complete: boolean;
}

/** The recording's description (the serde shape of `model::RecordingInfo`, docs/worker-protocol.md `open`). */
export interface RecordingInfo {
  format: string;
  format_major: number;
  format_minor: number;
  engine_version?: string;
  tick_rate_hz: number;
  world: { kind: 'planet'; radius_m: number } | { kind: 'flat' };
  position_quantum_m: number;
  velocity_quantum_mps: number;
  start_unix_seconds: number;
  mission_id?: string;
  session_flags?: number;
  keyframe_interval_ticks: number;
  first_tick: number;
  last_tick: number;
  entity_types: EntityType[];
  factions: { index: number; id: number; display_name: string }[];
  participants: Participant[];
  mission_objects?: { object_id: number; entity: number }[];
  metadata: [string, string][];
  warnings: string[];
}

export interface EntityType {
  index: number;
  id: number;
  display_name: string;
  category: 'other' | 'aircraft' | 'projectile' | 'ground' | 'character';
  projectile_kind?: unknown;
}

export interface Participant {
  id: number;
  callsign: string;
  /** 4294967295 (NO_ENTITY): none. */
  entity: number;
  faction: number;
}

/** The open's answer (`handle.info`, the `info` and `ready` events). */
export interface OpenInfo {
  info: RecordingInfo;
  /** `(last_tick - first_tick) / tick_rate_hz`. */
  durationS: number;
  /** The file's length in bytes. */
  fileLen: number;
  /** Every chunk's file range and first (keyframe) tick, ascending. */
  chunks: { offset: number; len: number; firstTick: number }[];
  /** The kills known at open (from the index trailer). */
  markers: ReplayEvent[];
  markersComplete: boolean;
  name: string;
  sourceKind: 'file' | 'url' | 'live';
  /** A live open (`load({live})`): the source's state then (docs/live.md "The player"). */
  live?: {
    status: LiveUpdate['status'];
    kind?: string;
    chunkS?: number;
    pollMs?: number;
    file?: string | null;
    partial?: boolean;
  } | null;
  openReads: number;
  openBytes: number;
}

/** An event of the recording; `t` is its time in seconds of playback (in `events`). */
export type ReplayEvent = (
  | KillEvent
  | { kind: 'spawn'; entity: number; participant: number }
  | { kind: 'despawn'; entity: number; reason: number | string }
  | { kind: 'chat'; participant: number; channel: number | string; text: string }
  | { kind: 'admin'; participant: number; action: number | string; detail: string }
  | { kind: 'alert_level'; level: number }
  | { kind: 'custom'; type: number | string; source: number; target: number; pos: number[]; data: unknown }
) & { tick: number; t?: number };

export interface KillEvent {
  kind: 'kill';
  tick: number;
  killer: number;
  victim: number;
  /** An entity-type index; 65535 (NO_WEAPON): unknown. */
  weapon_type: number;
  t?: number;
}

/** A kill as a viewer reads it (`describeKill`): names from the file (show them as text). */
export interface KillDescription {
  killer: string;
  victim: string;
  weapon: string;
  time: number;
}

/** The clip: seconds; `end` null plays to the end. */
export interface Clip {
  start: number;
  end: number | null;
  loop: boolean;
}

/** What an embedding page may know of the player now (the iframe's `state` message). */
/** An event with its time (seconds of playback): how the handle's events and lists give them. */
export type Timed<E> = E & { t: number };

export interface PlayerState {
  time: number;
  /** null while spoiler-safe playback hides it. */
  duration: number | null;
  tick: number;
  playing: boolean;
  speed: number;
  camera: CameraMode;
  /** The followed entity's name, or null. */
  follow: string | null;
  /** The replay's address, or null for a file or bytes. */
  url: string | null;
}

/** The status readout (docs/playback.md "Status readout"). */
export interface PlaybackStatus {
  state: PlaybackState;
  time: number;
  /** null before a recording is open. */
  duration: number | null;
  speed: number;
  /** null before a recording is open. */
  frames: number | null;
  events: number;
  map: string;
  mode: string;
  camera: string;
  killCam: boolean;
  text: string;
}

/** An entity at the playhead in display units (metres, m/s, 0–1). */
export interface EntityState {
  id: number;
  tick: number;
  type: number;
  faction: number;
  pos: [number, number, number];
  vel: [number, number, number];
  speed: number;
  orient: [number, number, number, number];
  health: number;
  flags: number;
  flagNames: string[];
  anim: number;
  alive: boolean;
  /** Metres above the planet's surface (planet worlds). */
  altitude?: number;
}

/** The free camera's held keys. */
export interface FlyKeys {
  forward?: -1 | 0 | 1;
  right?: -1 | 0 | 1;
  up?: -1 | 0 | 1;
  fast?: boolean;
}

/**
 * Where a player is: nothing loaded yet · a load began · its first frame can be drawn · opening,
 * decoding or drawing failed (the next `load()` starts afresh) · disposed.
 */
export type PlayerStatus = 'idle' | 'loading' | 'ready' | 'failed' | 'disposed';

/** Every event of the handle and its payload (`on(name, fn)`: fn gets the payload). */
export interface PlayerEventMap {
  /** `status` changed (before the event that changed it: `loadstart`, `ready`, `error`). */
  statuschange: PlayerStatus;
  /** `load()` began; `src` is what it was given. */
  loadstart: { name: string; src: ReplaySource };
  /** While opening (docs/worker-protocol.md `progress`). */
  progress: {
    type: 'progress';
    session: number;
    phase: 'wasm' | 'connect' | 'download' | 'open';
    loaded: number;
    total: number;
  };
  /** The recording is open; its first frames are being decoded. */
  info: OpenInfo;
  /** The first frame can be drawn (once per load). */
  ready: OpenInfo;
  /** The file is a `.foldback` determinism log: not played by the player. */
  foldback: { src: Blob | string; name: string; info: unknown };
  /** The renderer started. */
  backend: 'webgpu' | 'webgl2';
  /** Opening, decoding or drawing failed, or a worker crashed. */
  error: { message: string };
  /** An option of the load could not be used (one sentence). */
  notice: { text: string };
  /** A part of the recording skipped (a damaged chunk, or one a server did not send after retries). */
  gap: Gap;
  /** A recording without an index: the background kill scan's progress. */
  scan: KillScan;
  /** A live recording (`load({live})`, docs/live.md "The player") grew, or its source changed state. */
  live: LiveUpdate;
  play: undefined;
  pause: undefined;
  /** The speed changed. */
  ratechange: number;
  statechange: PlaybackStatus;
  /** A seek started (its target, seconds). */
  seeking: number;
  /** A seek's frame is decoded (seconds). */
  seeked: number;
  /** The playhead moved (seconds). */
  timeupdate: number;
  /** Playing forward reached the end (or the clip's end). */
  ended: undefined;
  /** Events became known. */
  events: Timed<ReplayEvent>[];
  /** The kill list grew (every kill known, tick order; spoiler-safe: those reached). */
  markers: Timed<KillEvent>[];
  /** The playhead crossed an event playing forward. */
  event: Timed<ReplayEvent>;
  /** The playhead crossed a kill (before that kill's `event`). */
  kill: Timed<KillEvent>;
  /** A pickup was crossed (text from file strings: show it as text). */
  toast: { kind: string; text: string };
  killcam: { active: boolean; holding: boolean; kill: KillEvent | null };
  cameramode: CameraMode;
  /** The selection changed (entity id, -1: none). */
  selection: number;
  /** A click on the canvas picked entity `id` (-1: none); with Shift the selection stays. */
  pick: { id: number; shiftKey: boolean };
}

export type PlayerEventName = keyof PlayerEventMap;
