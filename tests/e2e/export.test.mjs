// Export in the page (docs/export.md "In the player"), end to end in headless Chromium: the Export
// dialog's ACMI of the whole recording and of the in / out selection is byte for byte what
// `replay export --acmi` writes of the same range of the same file (and, where .cache/acmi-venv
// has pyacmi, read back by it against `replay dump`: tests/acmi/check_acmi.py); a replay clip
// (.flrep and SparkEngine .replay) has the source's `replay hash` over the range; a file read over
// HTTP fetches only the open's ranges and the range's chunks; Cancel ends the export, its reads
// and its download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { OUT, replayCli, waitReady, pageSuite, fixture, generated } from './player-helpers.mjs';
import { ROOT, replayBinPath } from './harness.mjs';

const suite = pageSuite();
const GOLDEN = path.join(ROOT, 'tests', 'fixtures', 'golden');
const PY = path.join(ROOT, '.cache', 'acmi-venv', 'bin', 'python');
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core over the page: the serious and critical violations (as tests/e2e/analysis.test.mjs). */
async function axe(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

/** Opens the page with `query` (or the demo), picks `file` when given, waits until it is ready. */
async function openWith(file, query = '') {
  const { page, log } = await suite.openPage(query);
  await waitReady(page);
  if (file) {
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
      path.basename(file),
    );
  }
  return { page, log };
}

/** Opens the Export dialog and picks the range: 'whole' or 'clip' (the in / out selection). */
async function openDialog(page, range) {
  await page.click('#export-open');
  await page.waitForSelector('#export[open]');
  await page.check(`#export-range-${range}`);
}

/** Clicks item `id` of the open dialog; returns the download's bytes, saved as tests/output/NAME. */
async function exportBytes(page, id, name) {
  const [dl] = await Promise.all([
    page.waitForEvent('download', { timeout: 120_000 }),
    page.click(`[data-export="${id}"]`),
  ]);
  const file = path.join(OUT, name);
  await dl.saveAs(file);
  await page.waitForFunction(() => !document.getElementById('export').inspect().running);
  return { file, bytes: fs.readFileSync(file), suggested: dl.suggestedFilename() };
}

/** `replay export FILE --acmi OUT ARGS`: the bytes and the tick range it reports. */
function cliAcmi(src, name, args = []) {
  const out = path.join(OUT, name);
  const r = spawnSync(replayBinPath(), ['export', src, '--acmi', out, ...args], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const m = /ticks (\d+)\.\.=(\d+)/.exec(r.stderr);
  assert.ok(m, r.stderr);
  return { bytes: fs.readFileSync(out), from: Number(m[1]), to: Number(m[2]) };
}

/** The one entry of the zip `file`, read by Python's zipfile (which checks its CRC-32): `stdout`
 *  its bytes, `stderr` its name and compression type. */
function unzipped(file) {
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n' +
        '[i] = z.infolist()\nsys.stderr.write(i.filename + " " + str(i.compress_type))\nsys.stdout.buffer.write(z.read(i))',
      file,
    ],
    { maxBuffer: 1 << 28 },
  );
  assert.equal(r.status, 0, String(r.stderr));
  return r;
}

/** pyacmi's read-back of `acmi` against `replay dump SRC` over ticks from..=to. Without pyacmi the
 *  test is marked skipped (counted: npm test installs it and fails on a skip not allowed). */
function readBack(t, acmi, src, from, to, name) {
  if (!fs.existsSync(PY)) {
    t.skip(`pyacmi read-back not done: ${PY} missing (tests/acmi/check.sh --venv-only installs it)`);
    return;
  }
  const dump = path.join(OUT, `${name}.dump.jsonl`);
  fs.writeFileSync(dump, replayCli(['dump', src]));
  const r = spawnSync(
    PY,
    [path.join(ROOT, 'tests', 'acmi', 'check_acmi.py'), acmi, dump, String(from), String(to), name],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
}

/** `replay hash FILE` as a Map tick → hash. */
function hashes(file) {
  const m = new Map();
  for (const line of replayCli(['hash', file]).trim().split('\n')) {
    const [tick, h] = line.split(/\s+/);
    m.set(Number(tick), h);
  }
  return m;
}

test('ACMI of the whole recording and of the in / out selection = replay export of the same range, byte for byte', {
  timeout: 240_000,
}, async (t) => {
  const src = path.join(GOLDEN, 'events.flrep');
  const { page, log } = await openWith(src);
  try {
    // No selection: the whole recording is the only range.
    await page.click('#export-open');
    await page.waitForSelector('#export[open]');
    assert.equal(await page.isDisabled('#export-range-clip'), true);
    assert.equal(await page.isChecked('#export-range-whole'), true);
    // The decoder_export wasm is fetched only now, by the export.
    const fetched = [];
    page.on('request', (r) => fetched.push(r.url()));
    const whole = await exportBytes(page, 'acmi', 'export-whole.txt.acmi');
    assert.ok(
      fetched.some((u) => u.includes('decoder_export')),
      'the export wasm is fetched on the first export',
    );
    assert.equal(whole.suggested, 'events.txt.acmi');
    const cliWhole = cliAcmi(src, 'export-whole-cli.txt.acmi');
    assert.ok(whole.bytes.length > 1000);
    assert.ok(
      whole.bytes.equals(cliWhole.bytes),
      `the page's ACMI (${whole.bytes.length} bytes) = the CLI's (${cliWhole.bytes.length})`,
    );
    assert.match(await page.textContent('#export-status'), /^Saved events\.txt\.acmi \([\d,]+ bytes\)\.$/);
    readBack(t, whole.file, src, cliWhole.from, cliWhole.to, 'export-whole');

    // The in / out selection (the player's clip).
    await page.keyboard.press('Escape');
    const clip = { start: 1.5, end: 4.25 };
    await page.evaluate((c) => window.__player.setClip(c), clip);
    await openDialog(page, 'clip');
    const part = await exportBytes(page, 'acmi', 'export-part.txt.acmi');
    const cliPart = cliAcmi(src, 'export-part-cli.txt.acmi', ['--from', String(clip.start), '--to', String(clip.end)]);
    assert.ok(part.bytes.length < whole.bytes.length);
    assert.ok(
      part.bytes.equals(cliPart.bytes),
      `the range's ACMI (${part.bytes.length} bytes) = the CLI's (${cliPart.bytes.length})`,
    );
    readBack(t, part.file, src, cliPart.from, cliPart.to, 'export-part');

    // Zipped: a .zip.acmi whose one entry is the same text (read by Python's zipfile, which checks
    // the entry's CRC-32), named as `replay export --acmi NAME.zip.acmi` names it.
    const zipped = await exportBytes(page, 'acmi-zip', 'export-part.zip.acmi');
    assert.equal(zipped.suggested, 'events.zip.acmi');
    const unzip = unzipped(zipped.file);
    assert.equal(String(unzip.stderr), 'events.txt.acmi 8', 'one deflated entry, named as the CLI names it');
    assert.ok(unzip.stdout.equals(cliPart.bytes), `unzipped: ${unzip.stdout.length} bytes = the CLI's text`);
    assert.ok(zipped.bytes.length < cliPart.bytes.length / 2, `deflated (${zipped.bytes.length} bytes)`);
    await page.locator('#export').screenshot({ path: path.join(OUT, 'export-dialog.png') });
    assert.deepEqual(await axe(page), [], 'the Export dialog');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a replay clip of the selection has the source hashes over the range (.flrep and SparkEngine .replay)', {
  timeout: 240_000,
}, async () => {
  const spark = generated('export-spark.replay', ['--format', 'spark', '--seconds', '20', '--seed', '4']);
  for (const [src, clip, ext] of [
    [fixture('export-clip', { seconds: 20, seed: 3, entities: 10 }), { start: 4, end: 11.5 }, '.flrep'],
    [spark, { start: 3, end: 9.25 }, '.replay'],
  ]) {
    const { page, log } = await openWith(src);
    try {
      await page.evaluate((c) => window.__player.setClip(c), clip);
      await openDialog(page, 'clip');
      const base = path.basename(src).replace(/\.[^.]+$/, '');
      const out = await exportBytes(page, 'clip', `export-clip-${base}${ext}`);
      assert.equal(out.suggested, `${base}-clip${ext}`);
      replayCli(['validate', out.file]);
      // The CLI's clip of the same range: the same bytes.
      const cliFile = path.join(OUT, `export-clip-${base}-cli${ext}`);
      replayCli(['clip', src, '--from', String(clip.start), '--to', String(clip.end), '--out', cliFile]);
      assert.ok(out.bytes.equals(fs.readFileSync(cliFile)), `${base}: the page's clip = replay clip's`);
      const mine = hashes(out.file);
      const theirs = hashes(src);
      assert.ok(mine.size > 10, `${base}: ${mine.size} ticks`);
      for (const [tick, h] of mine) assert.equal(h, theirs.get(tick), `${base}: tick ${tick}`);
      // Only the range: its first and last ticks are the selection's.
      const rate = await page.evaluate(() => window.__player.info.info.tick_rate_hz);
      const first = await page.evaluate(() => window.__player.info.info.first_tick);
      const ticks = [...mine.keys()];
      assert.equal(ticks[0], first + Math.round(clip.start * rate));
      assert.equal(ticks.at(-1), first + Math.round(clip.end * rate));
      log.assertClean();
    } finally {
      await page.close();
    }
  }
});

test("a large local file's ACMI is written by two workers, text and zipped: the bytes of one and of the CLI; a damaged chunk fails both alike", {
  timeout: 240_000,
}, async () => {
  // Over 1 MiB of chunks: the export worker hands the later part to a helper where the page
  // reports four cores (as many as most viewers' machines have; this one has two).
  const src = fixture('export-split', { seconds: 60, seed: 5, entities: 60 });
  assert.ok(fs.statSync(src).size > 1.2 * 2 ** 20, `${fs.statSync(src).size} bytes`);
  const cli = cliAcmi(src, 'export-split-cli.txt.acmi');
  const { page, log } = await openWith(src);
  try {
    const chunks = await page.evaluate(() => window.__player.info.chunks);
    assert.ok(chunks.length >= 5, `${chunks.length} chunks`);
    const cores = (n) =>
      page.evaluate(
        (k) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => k, configurable: true }),
        n,
      );
    await cores(4);
    await openDialog(page, 'whole');
    const two = await exportBytes(page, 'acmi', 'export-split-2.txt.acmi');
    const detail = await page.evaluate(() => document.getElementById('export').inspect().detail);
    assert.equal(detail.workers, 2, 'two workers wrote it');
    // Both read every chunk of the range: the helper follows the ones before its part.
    assert.ok(detail.reads > 2 * chunks.length * 0.6, `${detail.reads} reads of ${chunks.length} chunks`);
    assert.ok(
      two.bytes.equals(cli.bytes),
      `two workers' ACMI (${two.bytes.length} bytes) = the CLI's (${cli.bytes.length})`,
    );
    // Two cores: one worker, the same bytes.
    await cores(2);
    const one = await exportBytes(page, 'acmi', 'export-split-1.txt.acmi');
    assert.equal((await page.evaluate(() => document.getElementById('export').inspect().detail)).workers, 1);
    assert.ok(one.bytes.equals(cli.bytes), 'one worker = the CLI');
    // Zipped: the entry's text is the CLI's, its CRC-32 checked, with two workers (from 2 cores:
    // the helper's deflate stream after this worker's, the CRC combined) and with one.
    for (const [n, workers] of [
      [2, 2],
      [1, 1],
    ]) {
      await cores(n);
      const zipped = await exportBytes(page, 'acmi-zip', `export-split-${workers}.zip.acmi`);
      assert.equal((await page.evaluate(() => document.getElementById('export').inspect().detail)).workers, workers);
      const unzip = unzipped(zipped.file);
      assert.equal(String(unzip.stderr), 'export-split.txt.acmi 8');
      assert.ok(unzip.stdout.equals(cli.bytes), `${workers} worker(s): the unzipped text = the CLI's`);
      assert.ok(zipped.bytes.length < cli.bytes.length / 2, `deflated (${zipped.bytes.length} bytes)`);
    }
    log.assertClean();

    // A chunk damaged (a byte of its payload: its checksum fails): the last, in the helper's
    // part (after it wrote some), and the second, in this worker's part (which the helper skims
    // and fails on first): the export fails with the message of one worker meeting it.
    await page.keyboard.press('Escape');
    for (const [at, c] of [
      ['last', chunks.at(-1)],
      ['second', chunks[1]],
    ]) {
      const name = `export-split-damaged-${at}.flrep`;
      const b = fs.readFileSync(src);
      b[c.offset + Math.floor(c.len / 2)] ^= 0x5a;
      fs.writeFileSync(path.join(OUT, name), b);
      await page.setInputFiles('#file-input', path.join(OUT, name));
      await page.waitForFunction(
        (n) => window.__player.diagnostics.snapshot().name === n && window.__player.diagnostics.snapshot().ready,
        name,
      );
      const failed = [];
      for (const n of [4, 2]) {
        await cores(n);
        await openDialog(page, 'whole');
        await page.click('[data-export="acmi"]');
        await page.waitForFunction(() => !document.getElementById('export').inspect().running, null, {
          timeout: 120_000,
        });
        failed.push(await page.textContent('#export-status'));
        await page.keyboard.press('Escape');
      }
      assert.equal(failed[0], `Export failed: chunk at offset ${c.offset} is corrupt: ${failed[0].split(': ').at(-1)}`);
      assert.match(failed[0], /CRC-32 [0-9a-f]{8}, header says [0-9a-f]{8}$/, at);
      assert.equal(failed[0], failed[1], `${at}: two workers fail as one does`);
    }
  } finally {
    await page.close();
  }
});

/**
 * Serves `file` with Range (and CORS) on another port, logging each Range request; each answer
 * waits `delayMs` first.
 */
async function rangeServer(file, delayMs = 0) {
  const body = fs.readFileSync(file);
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  };
  const log = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) {
      res.writeHead(200, { ...cors, 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const a = Number(m[1]);
    const b = Math.min(body.length - 1, Number(m[2]));
    log.push([a, b + 1]);
    setTimeout(() => {
      res.writeHead(206, {
        ...cors,
        'Content-Type': 'application/octet-stream',
        'Content-Length': b - a + 1,
        'Content-Range': `bytes ${a}-${b}/${body.length}`,
      });
      res.end(body.subarray(a, b + 1));
    }, delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/${path.basename(file)}`,
    log,
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

/** Waits until `log` has not grown for `quietMs`. */
async function quiet(log, quietMs = 1500) {
  for (let n = -1; n !== log.length; ) {
    n = log.length;
    await new Promise((r) => setTimeout(r, quietMs));
  }
}

test('over HTTP the export fetches only the open and the chunks of the range; the ACMI = the CLI', {
  timeout: 240_000,
}, async () => {
  const src = fixture('export-remote', { seconds: 60, seed: 11, entities: 16 });
  const srv = await rangeServer(src);
  const { page, log } = await openWith(null, `?url=${encodeURIComponent(srv.url)}`);
  try {
    await page.waitForFunction((n) => window.__player.diagnostics.snapshot().name.endsWith(n), path.basename(src));
    const clip = { start: 20, end: 31 };
    await page.evaluate((c) => window.__player.setClip(c), clip);
    const chunks = await page.evaluate(() => window.__player.info.chunks);
    assert.ok(chunks.length >= 10, `${chunks.length} chunks`);
    const info = await page.evaluate(() => window.__player.info.info);
    await quiet(srv.log);
    srv.log.length = 0;

    await openDialog(page, 'clip');
    const out = await exportBytes(page, 'acmi', 'export-remote.txt.acmi');
    const cli = cliAcmi(src, 'export-remote-cli.txt.acmi', ['--from', String(clip.start), '--to', String(clip.end)]);
    assert.ok(out.bytes.equals(cli.bytes), `remote ACMI (${out.bytes.length} bytes) = the CLI's (${cli.bytes.length})`);
    assert.equal(out.suggested, 'export-remote.txt.acmi');

    // The chunks holding ticks from..=to, by their first ticks (as the crate's chunk_for_tick).
    const chunkFor = (tick) =>
      Math.max(
        0,
        chunks.findLastIndex((c) => c.firstTick <= tick),
      );
    const want = chunks.slice(chunkFor(cli.from), chunkFor(cli.to) + 1);
    assert.ok(want.length >= 3 && want.length < chunks.length / 2, `${want.length} of ${chunks.length} chunks`);
    const firstChunk = Math.min(...chunks.map((c) => c.offset));
    const lastEnd = Math.max(...chunks.map((c) => c.offset + c.len));
    // (The open's first read, of 64 KiB from 0, can reach into the chunks: not a chunk read.)
    const chunkReads = srv.log.filter(([a, b]) => a > 0 && a < lastEnd && b > firstChunk);
    // Each chunk of the range read once, nothing else of the chunk area.
    assert.deepEqual(
      chunkReads.map(([a, b]) => [a, b - a]).sort((x, y) => x[0] - y[0]),
      want.map((c) => [c.offset, c.len]),
      `reads of the chunk area: ${JSON.stringify(chunkReads)}`,
    );
    // The open: the first 64 KiB (in the chunk area for a small file, then served from memory) and the trailer.
    const other = srv.log.filter((r) => !chunkReads.includes(r));
    assert.ok(other.length <= 3, `the open's reads: ${JSON.stringify(other)}`);
    const total = srv.log.reduce((a, [x, y]) => a + y - x, 0);
    const size = fs.statSync(src).size;
    assert.ok(total < size / 2, `${total} of ${size} bytes read`);
    assert.ok(info.last_tick > cli.to);
    log.assertClean();
  } finally {
    await page.close();
    srv.close();
  }
});

test('Cancel stops the export: no more reads, no download, the dialog says so; the next export works', {
  timeout: 240_000,
}, async () => {
  const src = fixture('export-remote', { seconds: 60, seed: 11, entities: 16 });
  const srv = await rangeServer(src, 400);
  const { page, log } = await openWith(null, `?url=${encodeURIComponent(srv.url)}`);
  try {
    await page.waitForFunction((n) => window.__player.diagnostics.snapshot().name.endsWith(n), path.basename(src));
    await quiet(srv.log);
    const downloads = [];
    page.on('download', (d) => downloads.push(d));
    await openDialog(page, 'whole');
    await page.click('[data-export="acmi"]');
    // Some chunks in: the progress bar moves.
    await page.waitForFunction(() => document.querySelector('#export .export-progress').value > 0, null, {
      timeout: 60_000,
    });
    assert.equal(await page.isVisible('#export-cancel'), true);
    await page.click('#export-cancel');
    await page.waitForFunction(() => !document.getElementById('export').inspect().running);
    assert.equal(await page.textContent('#export-status'), 'Cancelled.');
    const at = srv.log.length;
    await new Promise((r) => setTimeout(r, 2500));
    assert.ok(srv.log.length <= at + 1, `reads after Cancel: ${srv.log.length - at}`);
    assert.equal(downloads.length, 0);
    const chunks = await page.evaluate(() => window.__player.info.chunks.length);
    assert.ok(at < chunks, `${at} reads before Cancel, of ${chunks} chunks`);
    // The dialog still works: a short range exports.
    await page.evaluate(() => window.__player.setClip({ start: 1, end: 2 }));
    await page.keyboard.press('Escape');
    await openDialog(page, 'clip');
    const out = await exportBytes(page, 'acmi', 'export-after-cancel.txt.acmi');
    assert.ok(out.bytes.equals(cliAcmi(src, 'export-after-cancel-cli.txt.acmi', ['--from', '1', '--to', '2']).bytes));
    log.assertClean();
  } finally {
    await page.close();
    srv.close();
  }
});
