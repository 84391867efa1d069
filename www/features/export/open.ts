// Export (docs/export.md "In the player"), imported by main.ts on the first click on Export: starts
// the export worker (www/export-worker.ts, with the decoder_export wasm: fetched only now) over the
// one Rpc module and hands the dialog (www/features/export/dialog.ts) its items. Nothing of it is
// in the first load.
import { createExport, type ExportContext, type ExportDialog, type ExportItem, type ExportPlayer } from './dialog.ts';
import type { NewRpc } from '../../bridge/rpc.ts';
import { startExport } from '../../lib/shipped.ts';

// The export worker's messages (docs/worker-protocol.md, "The export worker"): both sides import them.
import type { ExportBytes, ExportPush, ExportRequest, ExportResult } from '../../lib/protocol/export.ts';

/** What a worker export reports of itself (the dialog's `detail`). */
export interface WorkerExportDetail {
  workers: number;
  ms: number;
  reads: number;
  bytesRead: number;
}

/** The export worker: one per export (Cancel ends it, and with it its reads). */
const spawn = startExport;

/** What the export worker is given for the player's source: a Blob as is, bytes as a Blob, a URL
 *  made absolute. */
function sourceFor(src: unknown): Blob | string {
  if (src instanceof Blob) return src;
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) return new Blob([src as BlobPart]);
  return new URL(String(src), location.href).href;
}

/**
 * Runs one export in a fresh worker: `kind` 'acmi' or 'clip'. The export is one request over
 * www/bridge/rpc.ts (`newRpc`: main.ts's, handed in); the worker pushes the output chunk by chunk,
 * and each part becomes a Blob at once (Blob parts can live on disk: the page never holds the whole
 * output in its memory), joined into one Blob with the reply's rest, after the patches (a
 * SparkEngine clip's header) are written over the parts they fall in. Cancel (`ctx.signal`) ends
 * the worker and rejects with an AbortError; the worker's error, or its crash, rejects with its
 * message.
 */
export async function workerExport(
  newRpc: NewRpc,
  kind: 'acmi' | 'clip',
  ctx: ExportContext,
  { zip = false } = {},
): Promise<WorkerExportDetail> {
  const cancelled = () => new DOMException('the export was cancelled', 'AbortError');
  if (ctx.signal.aborted) throw cancelled();
  const parts: { at: number; blob: Blob }[] = [];
  let at = 0;
  let format = '';
  // A part comes as bytes, or as a Blob (one a second worker wrote: docs/export.md "In the player").
  const keep = (bytes?: ExportBytes, blob?: Blob) => {
    const b = blob instanceof Blob ? blob : bytes?.length ? new Blob([bytes]) : null;
    if (!b?.size) return;
    parts.push({ at, blob: b });
    at += b.size;
  };
  const rpc = newRpc<ExportPush>(spawn(), {
    onPush: (m) => {
      if (m.type === 'begin') {
        format = m.format;
        ctx.progress(0, `Reading ${m.chunks} chunk${m.chunks === 1 ? '' : 's'} (ticks ${m.fromTick}–${m.toTick})…`);
      } else if (m.type === 'part') {
        keep(m.bytes, m.blob);
        ctx.progress(m.done / Math.max(1, m.of), `Chunk ${m.done} of ${m.of}: ${at.toLocaleString('en')} bytes`);
      }
    },
    crashMessage: (e) => e.message || 'the export worker failed',
  });
  const abort = () => rpc.close(cancelled());
  ctx.signal.addEventListener('abort', abort, { once: true });
  try {
    const job: ExportRequest = {
      type: 'export',
      kind,
      src: sourceFor(ctx.src),
      from: ctx.range.from,
      to: ctx.range.to,
      // The zip's one entry: the text file, named as `replay export --acmi NAME.zip.acmi` names it.
      zip: zip ? `${ctx.name}.txt.acmi` : null,
      // A second worker writes part of a large ACMI export where the browser leaves it a core:
      // zipped from 2 cores (the deflate outweighs the rest), text from 4 (on 2 it ran no faster
      // than one: docs/export.md "In the player").
      workers: (navigator.hardwareConcurrency || 1) >= (zip ? 2 : 4) ? 2 : 1,
    };
    // (The worker answers the request with an ExportResult: lib/protocol/export.ts.)
    const m = (await rpc.request(job)) as ExportResult;
    keep(m.bytes, m.blob);
    for (const [offset, bytes] of m.patches) patch(parts, offset, bytes);
    const ext = kind === 'acmi' ? (zip ? '.zip.acmi' : '.txt.acmi') : format === 'spark' ? '.replay' : '.flrep';
    const type = kind === 'acmi' ? (zip ? 'application/zip' : 'text/plain') : 'application/octet-stream';
    const blob = new Blob(
      parts.map((p) => p.blob),
      { type },
    );
    ctx.download(blob, `${ctx.name}${kind === 'acmi' ? '' : '-clip'}${ext}`);
    return { workers: m.workers, ms: m.ms, reads: m.reads, bytesRead: m.bytesRead };
  } finally {
    ctx.signal.removeEventListener('abort', abort);
    rpc.close();
  }
}

/** Writes `bytes` at file offset `offset` over the parts it falls in (each a Blob made again). */
function patch(parts: { at: number; blob: Blob }[], offset: number, bytes: ExportBytes) {
  for (const p of parts) {
    const a = Math.max(offset, p.at);
    const b = Math.min(offset + bytes.length, p.at + p.blob.size);
    if (a >= b) continue;
    const s = p.blob;
    p.blob = new Blob([s.slice(0, a - p.at), bytes.subarray(a - offset, b - offset), s.slice(b - p.at)]);
  }
}

/**
 * The dialog's items, in order, their workers behind `newRpc`. Another way out adds its item here,
 * after these: `{ id: 'video', label: 'Video…', title, run: (ctx) => import('./video.ts').then((m) => m.run(ctx)) }`
 * (the WebM export, issue 20; ctx: www/features/export/dialog.ts).
 */
export const exportItems = (newRpc: NewRpc): ExportItem[] => [
  {
    id: 'acmi',
    label: 'ACMI (Tacview)',
    title: 'Tacview ACMI 2.2 text (.txt.acmi) of the range: objects, positions, kills, chat',
    run: (ctx) => workerExport(newRpc, 'acmi', ctx),
  },
  {
    id: 'acmi-zip',
    label: 'ACMI, zipped',
    title: 'The same ACMI text deflated into a .zip.acmi (Tacview opens it as it is): about 2.5× smaller',
    run: (ctx) => workerExport(newRpc, 'acmi', ctx, { zip: true }),
  },
  {
    id: 'clip',
    label: 'Replay clip',
    title: 'The range as a replay file of its own (.flrep, or .replay for a SparkEngine recording)',
    run: (ctx) => workerExport(newRpc, 'clip', ctx),
  },
];

let dialog: ExportDialog | null = null;
/** Opens the Export dialog for the player's recording `src` (a File / Blob or a URL); `video()`
 *  (main.ts: www/features/export/video.ts on first use) opens the video's own dialog for its Video… item;
 *  `newRpc`: `new Rpc(worker, options)` of www/bridge/rpc.ts (main.ts's: the first load holds it). */
export function openExport(
  player: ExportPlayer,
  src: unknown,
  opener: HTMLElement | null,
  { video = null, newRpc }: { video?: (() => unknown) | null; newRpc: NewRpc },
): ExportDialog {
  const items: ExportItem[] = video
    ? [
        ...exportItems(newRpc),
        {
          id: 'video',
          label: 'Video (WebM)…',
          title: 'A frame-exact WebM video of the range: its rate and size are chosen next',
          handOff: video,
        },
      ]
    : exportItems(newRpc);
  dialog ??= createExport(player, { opener, items });
  dialog.open(src);
  return dialog;
}
