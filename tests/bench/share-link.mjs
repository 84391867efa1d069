// A share link into the middle of an hour: navigation start → the first frame of the link's moment
// (`?url=<hour-200.flrep>&t=<its middle>`), beside the demo's first frame (`dist/` alone) in the same
// run, and the bytes the link fetched: what the server sent for the replay until that frame (its
// log), against the open's reads (header, sections, trailer) and the one chunk at `t`. Each load in
// a fresh browser profile (cold), the two cases alternating; WebGPU.
//
//   node tests/bench/share-link.mjs [loads=5]
import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser, collectConsole, serveRoot, benchFile, median, fmt, machineLine, ROOT } from './lib.mjs';

const N = Number(process.argv[2] ?? 5);
const file = benchFile('hour-200', { entities: 200, seconds: 3600 });
const srv = await serveRoot();
const replayPath = `/${path.relative(ROOT, file).split(path.sep).join('/')}`;

// The server's log of the replay: each response's range and bytes, as sent.
const log = [];
const handlers = srv.server.listeners('request');
srv.server.removeAllListeners('request');
srv.server.on('request', (req, res) => {
  if (req.url.split('?')[0] === replayPath) {
    const entry = { range: req.headers.range ?? '', bytes: 0, status: 0 };
    log.push(entry);
    // The body's bytes as written (the server streams a range in pieces).
    const count = (fn) =>
      function (chunk, ...rest) {
        if (chunk && typeof chunk !== 'function') entry.bytes += Buffer.byteLength(chunk);
        entry.status = res.statusCode;
        return fn.call(this, chunk, ...rest);
      };
    res.write = count(res.write);
    res.end = count(res.end);
  }
  for (const h of handlers) h.call(srv.server, req, res);
});

/** Loads `query` in a fresh profile; the marks, where the playhead is, and what was read. */
async function load(query) {
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    const console = collectConsole(page);
    const from = log.length;
    await page.goto(srv.page + query, { waitUntil: 'commit' });
    await page.waitForFunction(
      () => performance.getEntriesByName('rp:first-frame').length > 0 || window.__player?.diagnostics.snapshot().error,
      null,
      { timeout: 120_000 },
    );
    const m = await page.evaluate(async () => {
      const p = window.__player;
      const mark = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      const tick = p.tick;
      const chunk = p.info ? p.info.chunks.findLastIndex((c) => c.firstTick <= tick) : -1;
      return {
        error: p.diagnostics.snapshot().error,
        firstFrame: mark('rp:first-frame'),
        info: mark('rp:info'),
        firstChunk: mark('rp:first-chunk'),
        time: p.currentTime,
        duration: p.duration,
        chunk,
        chunkLen: p.info?.chunks[chunk]?.len ?? 0,
        fileLen: p.info?.fileLen ?? 0,
        openReads: p.info?.openReads ?? 0,
        openBytes: p.info?.openBytes ?? 0,
        chunksHeld: p.diagnostics.snapshot().chunksHeld,
        chunkOffsets: p.info?.chunks.map((c) => c.offset) ?? [],
      };
    });
    if (m.error) throw new Error(m.error);
    m.reads = log.slice(from);
    // What reading ahead (the prefetch hints, the spare decoder) adds once the picture is up.
    await page.waitForTimeout(2000);
    m.readsAfter2s = log.slice(from);
    if (console.errors.length) process.stderr.write(`${console.errors.join('\n')}\n`);
    return m;
  } finally {
    await browser.close();
  }
}

const kib = (b) => `${fmt(b / 1024, 1)} KiB`;
const sum = (reads) => reads.reduce((n, r) => n + r.bytes, 0);

console.log(machineLine());
const size = fs.statSync(file).size;
// The middle of the file (its duration from one open, not counted).
const probe = await load(`?url=${encodeURIComponent(replayPath)}`);
const middle = Math.round(probe.duration / 2);
const linkQuery = `?url=${encodeURIComponent(replayPath)}&t=${middle}`;
console.log(
  `file: ${path.relative(ROOT, file)} (${fmt(size / 1048576, 0)} MiB); link: dist/${linkQuery}; ${N} cold loads of each, alternating`,
);
const demo = [];
const link = [];
for (let i = 0; i < N; i++) {
  demo.push(await load(''));
  link.push(await load(linkQuery));
}
const med = (runs, k) => median(runs.map((r) => r[k]));
console.log(
  '| case | loads | open done (rp:info) ms | first piece ms | **first frame ms** (median) | every load (ms) |',
);
console.log('|---|---|---|---|---|---|');
for (const [label, runs] of [
  ['demo (`dist/`)', demo],
  [`share link, t=${middle} s of an hour`, link],
]) {
  console.log(
    `| ${label} | ${runs.length} | ${fmt(med(runs, 'info'), 0)} | ${fmt(med(runs, 'firstChunk'), 0)} | **${fmt(med(runs, 'firstFrame'), 0)}** | ${runs.map((r) => fmt(r.firstFrame, 0)).join(', ')} |`,
  );
}
console.log(`link / demo first frame: ${fmt(med(link, 'firstFrame') / med(demo, 'firstFrame'), 2)}× (goal ≤ 1.2×)`);
const l = link[link.length - 1];
console.log(
  `the link's first frame: playhead ${fmt(l.time, 2)} s, chunk ${l.chunk} of the file (${kib(l.chunkLen)} compressed); chunks held ${JSON.stringify(l.chunksHeld)}`,
);
/** A read after the open, named by the chunks it starts in ("chunk 900"), else its range. */
function named(r, read) {
  const a = Number(/^bytes=(\d+)-/.exec(read.range)?.[1]);
  const k = r.chunkOffsets.findLastIndex((o) => o <= a);
  return k >= 0 && r.chunkOffsets[k] === a ? `chunk ${k} ${kib(read.bytes)}` : `${read.range} ${kib(read.bytes)}`;
}
console.log(
  '| link load | reads to the first frame (statuses) | bytes to the first frame | the open: reads, bytes | the reads after it | reads / bytes 2 s later |',
);
console.log('|---|---|---|---|---|---|');
link.forEach((r, i) => {
  console.log(
    `| ${i + 1} | ${r.reads.length} (${[...new Set(r.reads.map((x) => x.status))].join(', ')}) | ${kib(sum(r.reads))} | ${r.openReads}, ${kib(r.openBytes)} | ${r.reads
      .slice(r.openReads)
      .map((x) => named(r, x))
      .join(' · ')} | ${r.readsAfter2s.length} / ${kib(sum(r.readsAfter2s))} |`,
  );
});
console.log(`of the file's ${fmt(size / 1048576, 0)} MiB`);
console.log(machineLine());
await srv.close();
