// lib/: no thread of its own. Small helpers any thread imports; they import nothing of the player.
//
// Where the player's files are served: the one module that reads `import.meta.url`. dist/ bundles
// every module into files at its own root (scripts/dist.mjs), so this module's URL, wherever its
// code lands (an entry, a chunk, a worker's bundle), is the folder that holds player.js, the worker
// entries, player.css and pkg/. A worker started through a blob: trampoline (bridge/spawn.ts) still
// sees the real file's URL here.

/** The URL of the shipped file `rel` (relative to the player's folder: './worker.js', './pkg/…'). */
export function shippedUrl(rel: string): URL {
  return new URL(rel, import.meta.url);
}
