// The compare worker's protocol (docs/worker-protocol.md, "The compare worker"): the Compare view
// (www/features/compare/view.ts) and the compare worker (www/workers/compare/main.ts). A new
// comparison is a new worker (the page ends the old one): there is no cancel message.

/** page → worker: compare A with B. */
export interface CompareRequest {
  type: 'compare';
  id: number;
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

/** worker → page. */
export type CompareMessage =
  /** At most every 100 ms: chunks decoded of both files over their chunks; ticks equal so far. */
  | { type: 'progress'; id: number; fraction: number; ticks: number }
  /** The outcome; each file's info (null for one that did not open); the time in the worker, the
   *  ranges read and their bytes. */
  | {
      type: 'result';
      id: number;
      outcome: CompareOutcome;
      info: [CompareInfo | null, CompareInfo | null];
      ms: number;
      reads: number;
      bytes: number;
    }
  /** A file could not be read or decoded: the reader's message, prefixed by the file's name. */
  | { type: 'error'; id: number; message: string };
