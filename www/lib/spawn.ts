// Starting a module worker from another origin (lib/shipped.ts's start functions call it there).
//
//   import { spawnWorker } from './spawn.ts';
//   const w = spawnWorker(workerUrl('decoder'), { name: 'replay-decoder' });   // lib/shipped.ts
//
// A page may load player.js from another origin (a CDN): `new Worker(url, { type: 'module' })`
// refuses a cross-origin script. There the worker starts as a same-origin `blob:` module whose only
// line imports the real one; inside it the module's own URL is still the real file's address, so the
// worker's own imports and its wasm resolve against the player's origin (which must then send
// `Access-Control-Allow-Origin`, and the host page's CSP must allow `worker-src blob:` and the
// player's origin: docs/embedding.md "CSP").

/** True when `url` can start a module worker directly from a page at `pageOrigin`. */
export function sameOrigin(url: string | URL, pageOrigin: string): boolean {
  return new URL(url).origin === pageOrigin;
}

/** The source of the blob: module that starts a cross-origin worker. */
export function trampolineSource(url: string | URL): string {
  return `import ${JSON.stringify(String(new URL(url)))};\n`;
}

/** What spawnWorker uses of the page's globals (tests hand in their own). */
export interface SpawnEnv {
  Worker: new (url: string, options: WorkerOptions) => Worker;
  Blob: typeof Blob;
  URL: Pick<typeof URL, 'createObjectURL' | 'revokeObjectURL'>;
  location: { origin: string };
}

/** A timer: a number in a browser, an object with `unref` under Node (the tests). */
type Timer = number & { unref?: () => void };

/**
 * A module Worker running the script at `url`. `env` is for tests (the page's origin, Worker, Blob,
 * URL.createObjectURL / revokeObjectURL).
 */
export function spawnWorker(url: string | URL, options: WorkerOptions = {}, env: SpawnEnv = globalThis): Worker {
  const href = String(new URL(url));
  const WorkerCtor = env.Worker;
  const opts: WorkerOptions = { ...options, type: 'module' };
  if (sameOrigin(href, env.location.origin)) return new WorkerCtor(href, opts);
  const blobUrl = env.URL.createObjectURL(new env.Blob([trampolineSource(href)], { type: 'text/javascript' }));
  try {
    return new WorkerCtor(blobUrl, opts);
  } finally {
    // The worker has fetched its script by the time it runs; the blob: URL is not needed after.
    const t = setTimeout(() => env.URL.revokeObjectURL(blobUrl), 30_000) as Timer;
    t?.unref?.();
  }
}
