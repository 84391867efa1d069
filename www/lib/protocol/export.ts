// The export worker's protocol (docs/worker-protocol.md, "The export worker"): the page
// (www/features/export/open.ts, over www/bridge/rpc.ts) and the export worker
// (www/workers/export/main.ts), and that worker and its helper (the same script, writing the later
// part of a large ACMI export). The page's job is one request `{id, ...ExportRequest}` (Rpc adds
// the id); the worker pushes its progress (`ExportPush`, no id) and answers once, `{id, result}` or
// `{id, error: {message}}`. Cancel is the page ending the worker (and with it its helper): there is
// no cancel message.

/** Bytes posted (their buffer transferred): on an ArrayBuffer of their own. */
export type ExportBytes = Uint8Array<ArrayBuffer>;

/** What an export writes: an ACMI (text, or zipped) or a replay clip. */
export type ExportKind = 'acmi' | 'clip';

/** page → worker (the request: Rpc adds the `id`): export `src` (a Blob, or a URL read with HTTP
 *  Range requests) from `from` to `to` (seconds from the start, inclusive; null: the recording's
 *  ends). `zip` (ACMI only): a file name; the output is then a .zip with that one entry.
 *  `workers`: how many may write, 1 or 2. */
export interface ExportRequest {
  type: 'export';
  kind: ExportKind;
  src: Blob | string;
  from: number | null;
  to: number | null;
  zip: string | null;
  workers: number;
}

/** `[offset, bytes]`: bytes to write over what was handed on, at that offset of the output. */
export type ExportPatch = [offset: number, bytes: ExportBytes];

/** A part of the output: bytes (transferred, maybe empty), or a Blob (a part the helper wrote). */
export type ExportOutput = { bytes: ExportBytes; blob?: undefined } | { blob: Blob; bytes?: undefined };

/** worker → page, without an id (pushes). */
export type ExportPush =
  /** Open: the format ('flrep' or 'spark'), the chunks to read and the range's ticks. */
  | { type: 'begin'; format: string; chunks: number; fromTick: number; toTick: number }
  /** After each chunk: its output, chunks done of all. */
  | ({ type: 'part'; done: number; of: number } & ExportOutput);

/** The request's result: the rest of the output (bytes transferred) and the patches; ranges read
 *  (the helper's too), their bytes, the time in the worker, how many workers wrote. */
export type ExportResult = {
  patches: ExportPatch[];
  reads: number;
  bytesRead: number;
  ms: number;
  workers: number;
} & ExportOutput;

/** worker → page: the one reply to the request, its result or the reader's or the writer's message. */
export type ExportReply = { id: number; result: ExportResult } | { id: number; error: { message: string } };

/** Anything the export worker posts the page. */
export type ExportMessage = ExportPush | ExportReply;

/** The helper's part of a job: chunks from `writeFrom` on (the ones before are followed, not
 *  written); `zip`: deflated, as a deflate stream of its own. */
export interface HelperJob {
  src: Blob;
  from: number | null;
  to: number | null;
  writeFrom: number;
  zip: boolean;
}

/** worker → helper: the compiled exporter first, then the part to write. */
export type HelperRequest = { type: 'load'; module: WebAssembly.Module | null } | ({ type: 'export-part' } & HelperJob);

/** helper → worker: each chunk's output from `writeFrom` on, then the rest with its reads and the
 *  CRC-32 and size of its text (zipped; else 0), or its error. */
export type HelperMessage =
  | { type: 'part'; bytes: ExportBytes }
  | { type: 'done'; bytes: ExportBytes; reads: number; bytesRead: number; crc: number; len: number }
  | { type: 'error'; message: string };

/** Anything the export worker is posted: the page's job (with the id Rpc gave it), or (a helper)
 *  its export worker's. */
export type ExportWorkerRequest = ({ id: number } & ExportRequest) | HelperRequest;
