// Seek latency in the browser: a 1-hour, 200-entity replay (≈ 330 MB) opened with the file
// picker, 100 random seeks while paused, each timed from the seek() call to the frame at the new
// time being on the main thread (seek()'s promise: the piece with the playhead's frame arrived). Two runs:
// "isolated" (the worker is idle when each seek starts) and "back to back" (the next seek starts
// as soon as the previous one resolved; the worker may still be decoding the chunks after it).
// Where the time goes, from the piece message's timing (www/workers/decode/replay.ts): before (seek() to the
// worker starting the piece: the page's own work, the request's post, the worker's queue),
// Blob.slice read, wasm decode, copy out of wasm + events, transit (postMessage → onmessage),
// page (the page's handling), after (what the parts leave: from there to the promise).
//
// A third run, "hovered", moves the real pointer over the timeline to where the seek goes 150 ms
// before it (the timeline sends the worker a prefetch hint: it reads, and idle, decompresses that
// chunk), the way a click on the timeline or a kill row follows the pointer resting there.
//
// Three more time the keyboard: → and ← pressed once a seek forward (through the API) landed,
// and → again (once → landed, the page hints the worker with where → goes next: it reads and
// decompresses that chunk). Since session 9 a paused seek's landing readies the likely next
// seeks: the step the way it went (→ here) decompressed in the worker's spare decoder (→ then
// resumes), the others' chunks (← here) read into the cache (← then decompresses but does not
// read); before, both were cold seeks by key.
//
// With --bare the kill feed and the timeline's kill markers (one DOM element per kill: 7,449 on
// this file) are hidden (display: none), which shows the decoder + player path without that UI.
//
// --render=page draws on the page (the renderer on the main thread) instead of in the render worker.
//
// --latency=MS opens the file with ?url= (HTTP Range reads) from the bench server, every response
// of which starts MS later: a server far away (a round trip per read) instead of a local file.
//
// Experiments: --rest=MS waits that much more before each isolated seek; --css=CSS adds a
// stylesheet to the page; BENCH_CHROME_ARGS="…" passes more Chromium flags.
//
//   node tests/bench/seek.mjs [seeks=100] [--bare] [--render=page] [--no-rest] [--rest=MS] [--css=CSS] [--latency=MS]
import path from 'node:path';
import {
  ROOT,
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  percentile,
  median,
  mean,
  fmt,
  machineLine,
  openPlayerPage,
  rng,
} from './lib.mjs';

const args = process.argv.slice(2);
const BARE = args.includes('--bare');
const N = Number(args.find((a) => /^\d+$/.test(a)) ?? 100);
const file = benchFile('hour-200', { entities: 200, seconds: 3600 });
const HOVER_MS = 150;
// --rest=MS: wait that long more before each isolated seek (the software GPU done drawing the last one).
// --css=CSS: a stylesheet added to the page (an experiment: what the page's rendering costs a seek).
const CSS = args.find((a) => a.startsWith('--css='))?.slice(6) ?? '';
const REST_MS = Number(args.find((a) => a.startsWith('--rest='))?.slice(7) ?? 0);
const LATENCY_MS = Number(args.find((a) => a.startsWith('--latency='))?.slice(10) ?? 0);

/**
 * One paused seek timed to its frame on the main thread: `seek(t)` through the API, or, with
 * t === 'key' ('key-left'), → (←) pressed on the page (the keyboard's own handler). The timing of the piece that
 * brought the playhead's frame comes along (docs/worker-protocol.md).
 */
async function seekOnce(page, t) {
  return page.evaluate(async (target) => {
    const p = window.__player;
    const last = p.diagnostics.perf().chunks.at(-1);
    const t0 = performance.now();
    if (target === 'key' || target === 'key-left') {
      const done = new Promise((res) => {
        const off = p.on('seeked', () => {
          off();
          res();
        });
      });
      document.dispatchEvent(
        new KeyboardEvent('keydown', {
          key: target === 'key' ? 'ArrowRight' : 'ArrowLeft',
          bubbles: true,
          cancelable: true,
        }),
      );
      await done;
    } else await p.seek(target);
    const ms = performance.now() - t0;
    // perfChunks keeps the last 512: the pieces since the seek are those after the entry that was
    // last before it.
    const piece = p.diagnostics.pieceAt(p.tick) ?? null;
    const timing = piece
      ? (p.diagnostics
          .perf()
          .chunks.slice(p.diagnostics.perf().chunks.lastIndexOf(last) + 1)
          .find((c) => c.index === piece.chunk && c.from === piece.from) ?? null)
      : null;
    // `before`: seek() to the worker starting the piece (the page's work, the request's post and
    // the worker's queue); `after`: what the parts do not cover (after the page handled the piece).
    if (timing && Number.isFinite(timing.started)) {
      timing.before = timing.started - t0;
      timing.after = ms - timing.before - timing.read - timing.decode - timing.extract - timing.transit - timing.page;
    }
    return { ms, ci: piece?.chunk ?? -1, timing };
  }, t);
}

/** Until the page has sent its hint after a key's seek and the worker is done with every hint. */
async function hinted(page) {
  // A tree without keyboard hints (BENCH_WWW= an older build): only let the worker settle.
  if ((await page.evaluate(() => window.__player.diagnostics.snapshot().hints.sent)) === undefined) return idle(page);
  await page.waitForFunction(() => window.__player.diagnostics.snapshot().hints.prefetched !== -1, null, {
    timeout: 10_000,
  });
  const sent = await page.evaluate(() => window.__player.diagnostics.snapshot().hints.sent);
  for (;;) {
    const s = await page.evaluate(() => window.__player.diagnostics.workerStats());
    if (s.hints >= sent && !s.hinting) return;
    await page.waitForTimeout(20);
  }
}

async function idle(page) {
  // The worker is idle once its counts stop moving (after a seek it reads the chunk after the
  // playhead's, and, paused, those of the likely next seeks).
  let last = -1;
  for (;;) {
    await page.waitForTimeout(60);
    const s = await page.evaluate(async () => ({
      ...(await window.__player.diagnostics.workerStats()),
      waiting: window.__player.diagnostics.snapshot().hints.waiting,
    }));
    const k = `${s.decoded}:${s.posted}:${s.cacheHits}:${s.reads}:${s.hinting}`;
    if (k === last && !s.waiting && !s.hinting) return s;
    last = k;
  }
}

function report(label, runs) {
  const ms = runs.map((r) => r.ms);
  // Every seek with its piece's timing; `resumed` counts the pieces decoded from a chunk the
  // decoder already held (no read, no decompression: read is 0 for them).
  const withT = runs.filter((r) => r.timing);
  const resumed = runs.filter((r) => r.timing?.resumed).length;
  const cached = runs.filter((r) => r.timing?.cached).length;
  const part = (k) => median(withT.map((r) => r.timing[k]));
  const partP95 = (k) =>
    percentile(
      withT.map((r) => r.timing[k]),
      0.95,
    );
  console.log(
    `| ${label} | ${runs.length} | **${fmt(median(ms))}** | **${fmt(percentile(ms, 0.95))}** | ${fmt(Math.max(...ms))} | ${fmt(mean(ms))} | ` +
      ['before', 'read', 'decode', 'extract', 'transit', 'page', 'after']
        .map((k) => `${fmt(part(k))} / ${fmt(partP95(k))}`)
        .join(' | ') +
      ` | ${resumed} | ${cached} |`,
  );
}

const srv = await serveRoot({ latencyMs: LATENCY_MS });
// BENCH_CHROME_ARGS: extra Chromium flags for an experiment (space-separated).
const browser = await launchBrowser({
  webgpu: true,
  args: (process.env.BENCH_CHROME_ARGS || '').split(' ').filter(Boolean),
});
console.log(machineLine());
try {
  const query = [
    process.argv.includes('--render=page') ? 'render=page' : '',
    LATENCY_MS ? `url=${encodeURIComponent(srv.url + path.relative(ROOT, file))}` : '',
  ]
    .filter(Boolean)
    .join('&');
  const { page, log } = await openPlayerPage(browser, srv, query ? `?${query}` : '');
  if (!LATENCY_MS) await openWithPicker(page, file);
  // --no-rest: the page's loop runs every frame while paused (as before session 6's resting).
  if (args.includes('--no-rest'))
    await page.evaluate(() => {
      window.__player.diagnostics.stayAwake();
    });
  if (CSS) await page.addStyleTag({ content: CSS });
  if (BARE) await page.addStyleTag({ content: '#killfeed, #scrub-markers { display: none !important; }' });
  const { duration, chunks } = await page.evaluate(() => ({
    duration: window.__player.duration,
    chunks: window.__player.info.chunks.length,
  }));
  console.log(
    `file: ${file} (${fmt(duration / 60, 1)} min, ${chunks} chunks), ${N} random seeks while paused${BARE ? ' (--bare: kill feed and kill markers hidden)' : ''}, ${LATENCY_MS ? `opened with ?url= from a server answering ${LATENCY_MS} ms late, ` : ''}renderer ${process.argv.includes('--render=page') ? 'on the page' : 'in the render worker'}`,
  );
  const r = rng(42);
  for (let i = 0; i < 5; i++) await seekOnce(page, r() * duration); // warm-up (JIT, caches)
  await idle(page);
  const isolated = [];
  for (let i = 0; i < N; i++) {
    if (REST_MS) await page.waitForTimeout(REST_MS);
    isolated.push(await seekOnce(page, r() * duration));
    await idle(page);
  }
  const b2b = [];
  for (let i = 0; i < N; i++) b2b.push(await seekOnce(page, r() * duration));
  await idle(page);
  // Hovered: the pointer rests over the timeline where the seek goes (a real mouse move: the
  // timeline's pointermove sends the prefetch hint) HOVER_MS before the seek, as a click would.
  const box = await page.locator('#scrubber').boundingBox();
  const hovered = [];
  for (let i = 0; i < N; i++) {
    const f = r();
    const x = box.x + f * box.width;
    await page.mouse.move(x, box.y + box.height / 2);
    await page.waitForTimeout(HOVER_MS);
    // timeAtX's own formula, so the hint and the seek name the same moment.
    hovered.push(await seekOnce(page, ((x - box.x) / box.width) * duration));
    await page.mouse.move(box.x + box.width / 2, box.y - 200);
    await idle(page);
  }
  // Keys: an API seek to a random moment, then → (5 s on: a cold seek by key), then, once the
  // worker has the hint that → sent (the same key's next target), → again.
  // Before each key, two API seeks, the second half a second after the first: the page has just
  // landed from a seek forward (the landing readies the step the way it went: → since session 9).
  const keyCold = [];
  const keyAgain = [];
  const keyLeft = [];
  const landForward = async (x) => {
    await seekOnce(page, x - 0.5);
    await seekOnce(page, x);
    await idle(page);
  };
  for (let i = 0; i < N; i++) {
    await landForward(15 + r() * (duration - 30));
    keyCold.push(await seekOnce(page, 'key'));
    await hinted(page);
    keyAgain.push(await seekOnce(page, 'key'));
    await idle(page);
    await landForward(15 + r() * (duration - 30));
    keyLeft.push(await seekOnce(page, 'key-left'));
    await idle(page);
  }
  const stats = await page.evaluate(() => window.__player.diagnostics.workerStats());
  console.log('');
  console.log(
    '| run | seeks | p50 ms | p95 ms | max ms | mean ms | before p50/p95 | read p50/p95 | decode p50/p95 | extract p50/p95 | transit p50/p95 | page p50/p95 | after p50/p95 | resumed | cached |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  report('isolated (worker idle at each seek)', isolated);
  report('back to back', b2b);
  report(`hovered (pointer at the target ${HOVER_MS} ms before; worker idle)`, hovered);
  report('→ after a seek forward landed', keyCold);
  report('→ again (the first → hinted it)', keyAgain);
  report('← after a seek forward landed', keyLeft);
  console.log('');
  console.log(
    `worker stats after the runs: decoded ${stats.decoded}, posted ${stats.posted}, resumed ${stats.resumed}, prefetched ${stats.prefetched ?? 0}, warmed ${stats.warmed ?? 0}, reads ${stats.reads}, ${fmt(stats.bytesRead / Math.max(1, stats.reads) / 1024, 0)} KiB per read, dropped ${stats.dropped ?? 0}, cache hits ${stats.cacheHits}, decoded per seek ${fmt(stats.decoded / (6 * N + 5), 2)}, posted per seek ${fmt(stats.posted / (6 * N + 5), 2)}`,
  );
  if (log.errors.length) console.error(log.errors.join('\n'));
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
