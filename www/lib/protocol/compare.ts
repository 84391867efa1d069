// The compare worker's protocol (docs/worker-protocol.md, "The compare worker"): the Compare view
// (www/features/compare/view.ts, over www/bridge/rpc.ts) and the compare worker
// (www/workers/compare/main.ts). The comparison is one request `{id, ...CompareRequest}` (Rpc adds
// the id); the worker pushes its progress (`ComparePush`, no id) and answers once, `{id, result}` or
// `{id, error: {message}}`. A new comparison is a new worker (the page ends the old one): there is
// no cancel message.

/** page → worker (the request: Rpc adds the `id`): compare A with B. */
export interface CompareRequest {
  type: 'compare';
  a: File;
  b: File;
}

/** An entity that differs at the first divergent tick: in both (its fields that differ, A's value
 *  and B's) or in one only. */
export interface DivergedEntity {
  id: number;
  presence: 'both' | 'onlyA' | 'onlyB';
  fields: { field: string; a: number; b: number }[];
}

/** What the comparison found (crate/src/web/decoder/compare.rs). Hashes as 16 hex digits, as
 *  `replay hash` prints them; at most 64 entities listed. */
export type CompareOutcome =
  | { kind: 'identical'; ticks: number; lastTick: number; lastTickB: number }
  | {
      kind: 'diverged';
      identicalTicks: number;
      tickA: number;
      tickB: number;
      hashA: string;
      hashB: string;
      entities: DivergedEntity[];
      entitiesDiffering: number;
    }
  | { kind: 'shorter'; ticks: number; lastTick: number; ended: 'A' | 'B'; nextTick: number }
  | { kind: 'mismatched'; reasons: string[] };

/** A file's `RecordingInfo` (the decoder's `open` result's `info` shape), as the wasm made it. */
export type CompareInfo = Readonly<Record<string, unknown>>;

/** worker → page, without an id (pushes). */
export type ComparePush =
  /** At most every 100 ms: chunks decoded of both files over their chunks; ticks equal so far. */
  { type: 'progress'; fraction: number; ticks: number };

/** The request's result: the outcome; each file's info (null for one that did not open); the time
 *  in the worker, the ranges read and their bytes. */
export interface CompareResult {
  outcome: CompareOutcome;
  info: [CompareInfo | null, CompareInfo | null];
  ms: number;
  reads: number;
  bytes: number;
}

/** worker → page: the one reply to the request, its result or, when a file could not be read or
 *  decoded, the reader's message prefixed by the file's name. */
export type CompareReply = { id: number; result: CompareResult } | { id: number; error: { message: string } };

/** Anything the compare worker posts the page. */
export type CompareMessage = ComparePush | CompareReply;
