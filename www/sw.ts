// The service worker of the full page: the app shell and the wasm, cached per build, so that an
// installed (or once visited) player opens local files with no network (docs/embedding.md
// "Installable and offline").
//
// scripts/dist.mjs replaces BUILD below with this build's version (a hash of every shipped file),
// the files to cache on install (the shell, the decoders, the WebGPU renderer) and the files to
// cache when first used (the WebGL2 renderer); a new build is a new sw.js, hence a new cache, and
// the old one is deleted once the new worker activates. Nothing else is touched: replays (the demo
// too), Range requests, other origins and anything but GET go to the network as if there were no
// service worker, so the player's HTTP Range reads stay what they are.
const BUILD = { version: 'dev', files: [], lazy: [] };
const CACHE = `replay-player-${BUILD.version}`;
const PREFIX = 'replay-player-';
/** This worker's global scope (the worker lib types `self` as any worker's). */
const sw = self as unknown as ServiceWorkerGlobalScope;

sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // cache: 'no-cache': revalidated, so the files of this build (not an older one the HTTP cache
      // kept), and a 304 for what the page has just downloaded.
      await cache.addAll(BUILD.files.map((f) => new Request(new URL(f, scope), { cache: 'no-cache' })));
      await sw.skipWaiting();
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
      }
    })(),
  );
});

const scope = new URL(sw.registration.scope);
const known = new Set([...BUILD.files, ...BUILD.lazy].map((f) => new URL(f, scope).pathname));

sw.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || req.headers.has('range')) return;
  const url = new URL(req.url);
  if (url.origin !== scope.origin) return;
  // A page (index.html?url=…&t=…, embed.html?…) is the same page whatever its parameters.
  const page = req.mode === 'navigate';
  // A folder (`/`, `/player/?url=…`) may be another page than the player's: a replay host answers
  // its gallery at `/` (docs/hosting.md). Its navigations go to the network first; the cached
  // index.html only when the network fails (offline).
  const folder = page && url.pathname.endsWith('/');
  const path = folder ? `${url.pathname}index.html` : url.pathname;
  if (!known.has(path)) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      if (folder) return fetch(req).catch(async (e) => (await cache.match(path)) ?? Promise.reject(e));
      const hit = await cache.match(path);
      if (hit) return hit;
      const res = await fetch(req);
      if (res.ok && res.status === 200 && res.type === 'basic') await cache.put(path, res.clone());
      return res;
    })(),
  );
});
