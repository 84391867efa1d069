// The decoder worker's protocol (docs/worker-protocol.md): what the page (www/bridge/decoder.ts and
// the clients over it) and the decoder worker (www/workers/decode/main.ts and the modules it hands
// work to) send each other. Both sides import these types; nothing here runs.
//
// Shapes: a request `{id, method, params}` gets exactly one reply, `{id, result}` or
// `{id, error: {message, fatal}}`; a notification `{method, params}` (no id) gets none; a message
// the worker sends without an id is a push (`DecodePush`, a union on `type`).

// ---------------------------------------------------------------- the recording (DecoderSession.info())

/** An event as the decoder hands it out (the model's serde JSON: `{tick, kind, ...fields}`). */
export type ReplayEvent =
  | { tick: number; kind: 'kill'; killer: number; victim: number; weapon_type: number }
  | { tick: number; kind: 'spawn'; entity: number; participant: number }
  | { tick: number; kind: 'despawn'; entity: number; reason: number }
  | { tick: number; kind: 'chat'; participant: number; channel: number; text: string }
  | { tick: number; kind: 'admin'; participant: number; action: string; detail: string }
  | { tick: number; kind: 'alert_level'; level: number }
  | { tick: number; kind: 'custom'; type: string; source: number; target: number; pos: number[]; data: string };

/** A kill event (the markers, the `scan` and `live` pushes' kills). */
export type KillEvent = Extract<ReplayEvent, { kind: 'kill' }>;

export interface EntityTypeInfo {
  index: number;
  id: string;
  display_name: string;
  category: 'other' | 'aircraft' | 'projectile' | 'ground' | 'character';
  projectile_kind: number;
}

export interface FactionInfo {
  index: number;
  id: string;
  display_name: string;
}

export interface ParticipantInfo {
  id: number;
  callsign: string;
  /** 4294967295: none. */
  entity: number;
  faction: number;
}

/** `model::RecordingInfo` as its serde JSON shape. */
export interface RecordingInfo {
  format: 'flrep' | 'spark_replay' | 'foldback';
  format_major: number;
  format_minor: number;
  engine_version: string;
  tick_rate_hz: number;
  world: { kind: 'planet'; radius_m: number } | { kind: 'flat' };
  position_quantum_m: number;
  velocity_quantum_mps: number;
  start_unix_seconds: number;
  mission_id: string;
  session_flags: number;
  keyframe_interval_ticks: number;
  first_tick: number;
  last_tick: number;
  entity_types: EntityTypeInfo[];
  factions: FactionInfo[];
  participants: ParticipantInfo[];
  mission_objects: { object_id: number; entity: number }[];
  metadata: [string, string][];
  warnings: string[];
  /** Not in the decoder's shape; a live open sets it (empty). */
  problems?: string[];
}

/** A chunk's file range and first (keyframe) tick. */
export interface ChunkInfo {
  offset: number;
  len: number;
  firstTick: number;
}

/** What `DecoderSession.info()` returns. */
export interface SessionInfo {
  info: RecordingInfo;
  durationS: number;
  fileLen: number;
  chunks: ChunkInfo[];
  markers: ReplayEvent[];
  markersComplete: boolean;
}

// ---------------------------------------------------------------- requests and notifications

/** `open`: exactly one of `blob` / `url` / `live`. */
export interface OpenParams {
  session?: number;
  blob?: Blob;
  url?: string;
  live?: string;
  name?: string;
}

/** A live source's state (docs/live.md "The player"). */
export type LiveStatus = 'live' | 'stalled' | 'reconnecting' | 'ended';

/** The `live` field of a live open's answer. */
export interface LiveOpenInfo {
  status: LiveStatus;
  kind: 'ws' | 'segments' | '';
  chunkS: number;
  pollMs: number;
  file: string | null;
  partial: boolean;
}

/** The answer to `open`. */
export interface OpenResult extends SessionInfo {
  name: string;
  sourceKind: 'file' | 'url' | 'live';
  openReads: number;
  openBytes: number;
  /** A live open only. */
  live?: LiveOpenInfo;
}

/** `want` (a notification): the ticks the page wants now. */
export interface WantParams {
  session: number;
  gen?: number;
  from: number;
  to: number;
  stride?: number;
  dir?: number;
  entities?: number[];
}

/** `prefetch` (a notification): a hint that the page may seek to `tick` soon. */
export interface PrefetchParams {
  session: number;
  tick: number | null;
  decode?: boolean;
  reads?: number[];
  keep?: boolean;
}

/** The kill scan's diagnostics (`stats.scan`). */
export interface ScanStats {
  done: number;
  total: number;
  kills: number;
  busyMs: number;
  sliceMs: number[];
  firstSliceMs: number[];
  wallMs: number;
  complete: boolean;
  unread: number;
}

/** A live source's diagnostics (`stats.live`, read when asked). */
export interface LiveStats {
  kind: 'ws' | 'segments';
  status: LiveStatus;
  chunks: number;
  seqs: [number, number];
  heldChunks: number;
  heldBytes: number;
  connections: number;
  resent: number;
  polls: number;
  fetched: number;
  byName: number;
}

/** The open replay's counters (workers/decode/replay.ts `Replay.stats`). */
export interface ReplayStats {
  reads: number;
  bytesRead: number;
  decoded: number;
  resumed: number;
  posted: number;
  cacheHits: number;
  dropped: number;
  hints: number;
  prefetched: number;
  warmed: number;
  hintReads: number;
  hintDecoded: number;
  swapped: number;
  openReads?: number;
  openBytes?: number;
  live?: LiveStats;
}

/** The answer to `stats` (null: nothing open). */
export interface DecodeStats extends ReplayStats {
  cacheBytes: number;
  cachedChunks: number[];
  heldChunks: number[];
  hinting: boolean;
  retries: number;
  gaps: number[];
  scan: ScanStats | null;
  wasmMemoryBytes: number;
}

/** A file for `fbOpen`: a local one or one on a server. */
export interface FbFile {
  blob?: Blob;
  url?: string;
  name?: string;
}

/** The divergence view's overview (its JSON, parsed: the page reads what it knows of it). */
export interface FbOverview {
  summary: unknown;
  segments: unknown;
  extras: unknown;
}

/** What `fbLivePush` answers: the binary live messages accepted, refused, the first few errors. */
export interface FbLivePushResult {
  accepted: number;
  refused: number;
  errors: string[];
}

/** What `fbLiveControl` answers: the text message, `{type, …}` (`hello`, `goodbye` with its
 *  `reason`, another type). */
export interface FbLiveControlResult {
  type: string;
  reason?: string;
  [field: string]: unknown;
}

/** Every method: its params and its result (the fb* JSON the page narrows where it is `unknown`). */
export interface DecodeMethods {
  open: { params: OpenParams; result: OpenResult };
  want: { params: WantParams; result: { ignored: true } | { gen: number } };
  prefetch: { params: PrefetchParams; result: { ignored?: true } };
  close: { params: Record<string, never>; result: Record<string, never> };
  stats: { params: Record<string, never>; result: DecodeStats | null };
  __trap: { params: { async?: boolean }; result: { scheduled: true } };
  fbOpen: { params: { files: FbFile[] }; result: FbOverview };
  fbOverview: { params: Record<string, never>; result: FbOverview };
  fbTimeline: { params: { from: number; to: number; limit?: number }; result: unknown };
  fbTick: { params: { tick: number }; result: unknown };
  fbEntity: { params: { tick: number; entity: string | number }; result: unknown };
  fbField: { params: { entity: string | number; field: string; from: number; to: number }; result: unknown };
  fbLiveStart: { params: Record<string, never>; result: Record<string, never> };
  fbLiveControl: { params: { text: string }; result: FbLiveControlResult };
  fbLivePush: { params: { data: Uint8Array; lens: Uint32Array }; result: FbLivePushResult };
  fbLiveBytes: { params: Record<string, never>; result: Uint8Array };
  fbClose: { params: Record<string, never>; result: Record<string, never> };
}

export type DecodeMethod = keyof DecodeMethods;
export type DecodeParams<M extends DecodeMethod> = DecodeMethods[M]['params'];
export type DecodeResult<M extends DecodeMethod> = DecodeMethods[M]['result'];

/** A request (`id`) or a notification (no `id`), page → worker. */
export type DecodeRequest = {
  [M in DecodeMethod]: { id?: number; method: M; params: DecodeParams<M> };
}[DecodeMethod];

/** A reply, worker → page. */
export type DecodeReply = { id: number; result: unknown } | { id: number; error: { message: string; fatal: boolean } };

// ---------------------------------------------------------------- pushed messages (worker → page)

export interface ProgressPush {
  type: 'progress';
  session: number;
  phase: 'wasm' | 'connect' | 'download' | 'open';
  loaded: number;
  total: number;
}

/** A piece's diagnostics (docs/performance.md, *Measuring hooks*). */
export interface PieceTiming {
  resumed: boolean;
  cached: boolean;
  read: number;
  decode: number;
  extract: number;
  copy: number;
  startedAt: number;
  postedAt: number;
}

/** Decoded frames of one chunk's ticks `[from, end)`. */
export interface PiecePush {
  type: 'piece';
  session: number;
  gen: number;
  chunk: number;
  from: number;
  end: number;
  stride: number;
  ticks: Float64Array;
  offsets: Uint32Array;
  entities: Int32Array;
  events: ReplayEvent[];
  eventTicks: Float64Array;
  skippedEvents: number;
  /** null only while the worker builds the message. */
  timing: PieceTiming | null;
}

/** Why a chunk cannot be shown. */
export interface GapCause {
  cause: 'damaged' | 'unread';
  reason: string;
}

/** A chunk that cannot be shown: its ticks `[fromTick, toTick)` are skipped (`chunk` -1: a live
 *  source's ticks that never came). */
export interface GapPush extends GapCause {
  type: 'gap';
  session: number;
  chunk: number;
  fromTick: number;
  toTick: number;
}

export interface ScanPush {
  type: 'scan';
  session: number;
  done: number;
  total: number;
  kills: ReplayEvent[];
  complete: boolean;
}

/** A live recording grew, or its source's status changed. */
export interface LiveGrowthPush {
  type: 'live';
  session: number;
  status: LiveStatus;
  lastTick: number;
  chunks: number;
  fileLen: number;
  file: string | null;
  partial: boolean;
  kills: ReplayEvent[];
  /** Wall-clock ms when the worker had the new chunks (a growth only). */
  arrivedAt?: number;
}

/** A live source failed (the chunks received still decode). */
export interface LiveFailedPush {
  type: 'live';
  session: number;
  status: 'failed';
  kills: ReplayEvent[];
  error: string;
}

export type LivePush = LiveGrowthPush | LiveFailedPush;

/** A failure not tied to a request. */
export interface ErrorPush {
  type: 'error';
  session: number | undefined;
  index?: number;
  message: string;
  fatal: boolean;
}

/** The wasm trapped: the worker is unusable. */
export interface FatalPush {
  type: 'fatal';
  message: string;
}

export type DecodePush = ProgressPush | PiecePush | GapPush | ScanPush | LivePush | ErrorPush | FatalPush;

/** Anything the worker posts. */
export type DecodeOutbound = DecodeReply | DecodePush;
