// Shared pieces of the browser benchmarks (tests/bench/*.mjs). These scripts PRINT figures; they
// assert nothing and are not part of `npm test`. Inputs are generated once into target/bench/
// (git-ignored) with the `replay` CLI and reused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServer, launchBrowser, collectConsole, ROOT, cargoTargetDir, replayBinPath } from '../e2e/harness.mjs';

export { startServer, launchBrowser, collectConsole, ROOT };

export const BENCH_DIR = path.join(cargoTargetDir(), 'bench');

/** Generates (once) target/bench/<name>.flrep (`extra`: more `replay generate` options); returns its path. */
export function benchFile(name, { entities, seconds, seed = 7, extra = [] }) {
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const file = path.join(BENCH_DIR, `${name}.flrep`);
  if (fs.existsSync(file)) return file;
  const bin = replayBinPath();
  if (!fs.existsSync(bin)) {
    const r = spawnSync('cargo', ['build', '--release', '-p', 'replay-player', '--bin', 'replay'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error('cargo build of the replay CLI failed');
  }
  console.error(`generating ${path.relative(ROOT, file)} (${entities} entities, ${seconds} s)…`);
  const tmp = `${file}.tmp.flrep`;
  const r = spawnSync(
    bin,
    [
      'generate',
      '--out',
      tmp,
      '--seed',
      String(seed),
      '--entities',
      String(entities),
      '--seconds',
      String(seconds),
      '--max-file-mb',
      '4096',
      ...extra,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`replay generate failed: ${r.stderr}`);
  fs.renameSync(tmp, file);
  return file;
}

/** A seeded PRNG (mulberry32) in [0, 1): the benches' random seek targets, the same every run. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function percentile(values, p) {
  const v = [...values].sort((a, b) => a - b);
  if (!v.length) return NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.round((v.length - 1) * p)))];
}
export const median = (v) => percentile(v, 0.5);
export const mean = (v) => v.reduce((a, b) => a + b, 0) / (v.length || 1);
export const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : String(x));
export const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;

/** One line about the machine and its load (figures on a shared machine are noisy). */
/** A file opened for reading pieces of it: `{ len, read(offset, n) }` (a fresh `Uint8Array`). */
export function openFile(file) {
  const fd = fs.openSync(file, 'r');
  const len = fs.fstatSync(fd).size;
  const read = (offset, n) => {
    const b = new Uint8Array(n);
    fs.readSync(fd, b, 0, n, offset);
    return b;
  };
  return { len, read };
}

/**
 * The player's plain decode in a wasm `decoder*` module: opens a file of `len` bytes with
 * `DecoderSession`, then decodes every chunk and hands its ticks and packed frames out to JS, as
 * the decoder worker does. Returns the ticks decoded.
 */
export function wasmDecodeAll(wasm, { len, read }) {
  let ticks = 0;
  const d = new wasm.DecoderSession(len);
  for (let w = d.want(); w; w = d.want()) d.feed(read(w[0], w[1]));
  for (let i = 0; i < d.chunkCount(); i++) {
    const [o, l] = d.chunkRange(i);
    const c = d.decodeChunk(i, read(o, l));
    ticks += c.ticks().length;
    c.entities();
    c.free();
  }
  d.free();
  return ticks;
}

/**
 * The whole recording as ACMI with a `decoder_export` module's `ExportSession`, chunk by chunk
 * as www/export-worker.ts drives it, each chunk's output taken out. Returns the bytes written.
 */
export function wasmExportAcmi(wasm, src, { parts } = {}) {
  return wasmExportPart(wasm, src, { parts });
}

/**
 * A part of the whole recording's ACMI export, as one of the export worker's two workers writes
 * it: chunks `[first, until)` written (`until`: `begin`'s end when absent), or, with `from`, the
 * chunks from `from` on, those before it followed (`ExportSession.writeFrom`). Returns the bytes
 * written; each output piece is pushed onto `parts` when given.
 */
export function wasmExportPart(wasm, { len, read }, { from, until, parts } = {}) {
  const x = new wasm.ExportSession(len);
  for (let w = x.want(); w; w = x.want()) x.feed(read(w[0], w[1]));
  const [first, end] = x.begin('acmi', undefined, undefined);
  if (from !== undefined) x.writeFrom(from);
  const stop = until ?? end;
  let bytes = 0;
  const keep = (b) => {
    bytes += b.length;
    parts?.push(b);
  };
  for (let i = first; i < stop; i++) {
    const [o, l] = x.chunkRange(i);
    keep(x.chunk(i, read(o, l)));
  }
  if (stop === end) keep(x.finish());
  x.free();
  return bytes;
}

/** The chunks of the whole recording's ACMI export: `[first, end]` of `ExportSession.begin`. */
export function wasmExportChunks(wasm, { len, read }) {
  const x = new wasm.ExportSession(len);
  for (let w = x.want(); w; w = x.want()) x.feed(read(w[0], w[1]));
  const [first, end] = x.begin('acmi', undefined, undefined);
  x.free();
  return [first, end];
}

export function machineLine() {
  const [l1, l5] = os.loadavg();
  return `machine: ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? '?'}), load average ${l1.toFixed(1)} (1 min) / ${l5.toFixed(1)} (5 min) at ${new Date().toISOString()}`;
}

/** Serves the repository root; the page is at <url>dist/ (what ships). */
export async function serveRoot({ latencyMs = 0 } = {}) {
  const srv = await startServer({ root: ROOT });
  // latencyMs: every response starts that much later (a server far away: a round trip per read).
  if (latencyMs > 0) {
    const handlers = srv.server.listeners('request');
    srv.server.removeAllListeners('request');
    srv.server.on('request', (req, res) =>
      setTimeout(() => {
        for (const h of handlers) h.call(srv.server, req, res);
      }, latencyMs),
    );
  }
  // BENCH_WWW=<dir> serves another copy (e.g. a baseline build, or www for the unminified source).
  return { ...srv, page: `${srv.url}${process.env.BENCH_WWW || 'dist'}/` };
}

/** Waits until window.__player has shown its first frame (or failed). */
export async function waitReady(page, timeout = 120_000) {
  await page.waitForFunction(() => window.__player, null, { timeout });
  await olderTreeDebug(page);
  await page.waitForFunction(
    () =>
      window.__player && (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
    null,
    { timeout },
  );
  const s = await page.evaluate(() => ({
    ready: window.__player.diagnostics.snapshot().ready,
    error: window.__player.diagnostics.snapshot().error,
    backend: window.__player.diagnostics.snapshot().backend,
  }));
  if (!s.ready) throw new Error(`player did not become ready: ${s.error}`);
  await olderTreeDebug(page);
  return s;
}

/** The benches read the player through `window.__player.diagnostics` (docs/player-api.md); a
 *  tree from before it (BENCH_WWW= an older build) had `debug` (the inside) and `state()`: what the
 *  benches read is mapped onto them, so that A/B runs keep working. */
function olderTreeDebug(page) {
  return page.evaluate(() => {
    const p = window.__player;
    if (p.diagnostics) return;
    const d = p.debug ?? p;
    p.diagnostics = {
      snapshot: () => ({
        ...p.state(),
        entityCount: d.entityCount,
        frameTick: d.cur?.tick ?? null,
        hints: { sent: d.hints?.sent ?? d.hintsSent, prefetched: d.hints?.prefetched, waiting: d.hints?.waiting },
        labels: [...(d.labels?.shown ?? [])],
        labelsHidden: d.labels?.hidden ?? 0,
        pieces: d.pieces?.list ?? [],
        heldBytes: d.pieces?.heldBytes?.() ?? 0,
      }),
      perf: (o) => d.perf(o),
      workerStats: () => d.workerStats(),
      pieceAt: (tick) => d.pieces?.at?.(tick) ?? null,
      stayAwake: () => {
        if (d.loop) d.loop.restAfterFrames = Infinity;
      },
    };
  });
}

/** Opens a local file through the page's file picker (<input type=file>); waits for the first frame. */
export async function openWithPicker(page, file) {
  await page.evaluate(() => {
    window.__benchLoaded = false;
    window.__player.on('ready', () => {
      window.__benchLoaded = true;
    });
  });
  await page.setInputFiles('#file-input', file);
  await page.waitForFunction(() => window.__benchLoaded || window.__player.diagnostics.snapshot().error, null, {
    timeout: 120_000,
  });
  const err = await page.evaluate(() => window.__player.diagnostics.snapshot().error);
  if (err) throw new Error(`opening ${file} failed: ${err}`);
}

/** Waits `n` animation frames in the page. */
export async function frames(page, n) {
  await page.evaluate(
    (k) =>
      new Promise((resolve) => {
        let i = 0;
        const f = () => (++i >= k ? resolve() : requestAnimationFrame(f));
        requestAnimationFrame(f);
      }),
    n,
  );
}

/** A new page on the player, ready (renderer and worker up), with its console collected. */
export async function openPlayerPage(browser, srv, query = '') {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(srv.page + query);
  await page.waitForFunction(() => window.__player, null, { timeout: 120_000 });
  await olderTreeDebug(page);
  await page.waitForFunction(() => window.__player.diagnostics.snapshot().ready, null, { timeout: 120_000 });
  return { page, log };
}

/** A page of the bench server with nothing of the player on it (a same-origin text file). */
export async function openEmptyPage(browser, srv) {
  const page = await browser.newPage();
  await page.goto(`${srv.url}README.md`);
  return page;
}

/** Picks the local `file` on `page` through a file input it adds (`#bench-file-input`): a File,
 *  as a viewer drops one. */
export async function pickBenchFile(page, file) {
  await page.evaluate(() => {
    if (document.getElementById('bench-file-input')) return;
    const i = document.createElement('input');
    i.type = 'file';
    i.id = 'bench-file-input';
    document.body.append(i);
  });
  await page.setInputFiles('#bench-file-input', file);
}

/**
 * Runs the worker script `src` on `page` with the local `file`, picked through a file input it
 * adds: posts `{ file, ...params }`, resolves with the worker's first message (the worker is then
 * ended). `module`: a module worker (it may import the shipped wasm glue).
 */
export async function runFileWorker(page, file, src, params, { module = false } = {}) {
  await pickBenchFile(page, file);
  return page.evaluate(
    ({ src, params, module }) =>
      new Promise((resolve, reject) => {
        const w = new Worker(
          URL.createObjectURL(new Blob([src], { type: 'text/javascript' })),
          module ? { type: 'module' } : {},
        );
        w.onmessage = (e) => {
          w.terminate();
          resolve(e.data);
        };
        w.onerror = (e) => reject(new Error(e.message));
        w.postMessage({ file: document.getElementById('bench-file-input').files[0], ...params });
      }),
    { src, params, module },
  );
}

// ---------------------------------------------------------------- CPU profiles (CDP Profiler)

/** "function file:line" of a profile call frame (line 1-based, as editors show it). */
export const frameKey = (cf) => `${cf.functionName || '(anon)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`;

/**
 * Walks a CDP `Profiler.stop` profile: `self` (ms per frame key where samples landed), `inclusive`
 * (ms per JS frame key on a sample's stack, once per sample) and `stacks` (each sample's call
 * frames, innermost first, with its ms) for other cuts.
 */
export function profileTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const inclusive = new Map();
  const stacks = [];
  for (let i = 0; i < profile.samples.length; i++) {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const chain = [];
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) chain.push(byId.get(id).callFrame);
    stacks.push({ chain, ms });
    if (chain[0]) self.set(frameKey(chain[0]), (self.get(frameKey(chain[0])) ?? 0) + ms);
    const seen = new Set();
    for (const cf of chain) {
      if (!cf.url) continue;
      const key = frameKey(cf);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  }
  return { self, inclusive, stacks };
}
