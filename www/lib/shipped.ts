// lib/: no thread of its own. Small helpers any thread imports; they import nothing of the player.
//
// Where the player's files are served: the one module that reads `import.meta.url`. dist/ bundles
// every module into files at its own root (scripts/dist.mjs), so this module's URL, wherever its
// code lands (an entry, a chunk, a worker's bundle), is the folder that holds player.js, the worker
// entries, player.css and pkg/. A worker started through a blob: trampoline (lib/spawn.ts) still
// sees the real file's URL here.
//
// Every file create() needs is named here as a literal, `new URL('./file', import.meta.url)` and
// `new Worker(new URL('./file.js', import.meta.url), { type: 'module', name: '…' })`: the forms a
// site's bundler (Vite, webpack 5, Parcel, Rspack) recognises, so a build that imports the package
// emits the workers (with their own imports), the glue, the .wasm and player.css beside its own
// files (docs/embedding.md "In a bundler"). A URL made at run time is invisible to it.
import { sameOrigin, spawnWorker } from './spawn.ts';

/** The URL of the shipped file `rel` (relative to the player's folder: './sw.js'): for the full
 *  page's own files, never bundled by a site. */
export function shippedUrl(rel: string): URL {
  return new URL(rel, HERE);
}

// (A copy, so that the run-time URLs above and in workerUrl() are not read as assets by a bundler.)
const HERE = import.meta.url;

/** The player's module workers, each an entry of dist/. */
export type ShippedWorker = 'decoder' | 'telemetry' | 'renderer' | 'compare' | 'export' | 'export-part';

/** Each worker's file in the player's folder, and the name it shows in a browser's tools. */
export const WORKERS: Readonly<Record<ShippedWorker, { file: string; name: string }>> = Object.freeze({
  decoder: { file: './worker.js', name: 'replay-decoder' },
  telemetry: { file: './worker.js', name: 'replay-telemetry' },
  renderer: { file: './render-worker.js', name: 'replay-renderer' },
  compare: { file: './compare-worker.js', name: 'replay-compare' },
  export: { file: './export-worker.js', name: 'replay-export' },
  'export-part': { file: './export-worker.js', name: 'replay-export-part' },
});

/** The URL of worker `which` where the player is served. */
export function workerUrl(which: ShippedWorker): URL {
  return new URL(WORKERS[which].file, HERE);
}

/** Worker `which` from another origin than the page's (a CDN), where a page cannot start a worker
 *  from the script's URL: through a same-origin blob: module (lib/spawn.ts); null on the page's
 *  own origin (a site's bundle, a self-hosted dist/), where the literal `new Worker(new URL(…))`
 *  below, the form a bundler rewrites, starts it. */
function fromElsewhere(which: ShippedWorker): Worker | null {
  if (sameOrigin(HERE, globalThis.location.origin)) return null;
  return spawnWorker(workerUrl(which), { name: WORKERS[which].name });
}

// One function per worker, so that a bundle holds (and a site's bundler builds) only the workers
// its code starts: create() never starts the compare or export workers.

/** The decoder worker (bridge/decoder.ts). */
export const startDecoder = (): Worker =>
  fromElsewhere('decoder') ??
  new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'replay-decoder' });

/** The decoder worker that reads the telemetry of the plots (features/analysis/telemetry.ts). */
export const startTelemetry = (): Worker =>
  fromElsewhere('telemetry') ??
  new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'replay-telemetry' });

/** The render worker (bridge/renderer.ts). */
export const startRenderer = (): Worker =>
  fromElsewhere('renderer') ??
  new Worker(new URL('./render-worker.js', import.meta.url), { type: 'module', name: 'replay-renderer' });

/** The compare worker (the full page's Compare). */
export const startCompare = (): Worker =>
  fromElsewhere('compare') ??
  new Worker(new URL('./compare-worker.js', import.meta.url), { type: 'module', name: 'replay-compare' });

/** The export worker (features/export/open.ts). */
export const startExport = (): Worker =>
  fromElsewhere('export') ??
  new Worker(new URL('./export-worker.js', import.meta.url), { type: 'module', name: 'replay-export' });

/** An export worker's helper, the same script (workers/export/main.ts). */
export const startExportPart = (): Worker =>
  fromElsewhere('export-part') ??
  new Worker(new URL('./export-worker.js', import.meta.url), { type: 'module', name: 'replay-export-part' });

/** The player's stylesheet (the embed forms link it). */
export const playerCssUrl = (): URL => new URL('./player.css', import.meta.url);

/** The export worker's .wasm, fetched once and handed to its helpers compiled. */
export const exportWasmUrl = (): URL => new URL('./pkg/decoder_export/decoder_export_bg.wasm', import.meta.url);
