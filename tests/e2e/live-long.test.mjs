// A long live match in headless Chromium: the worker holds at most 8 MiB of chunks; those it
// evicted are read again from their segment files when a seek needs them (docs/live.md).
// The worker's live stats are read when asked: a snapshot taken at the last growth once hid the
// segment reads a seek made after it, and this test failed for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { replayBinPath } from './harness.mjs';
import { pageSuite } from './player-helpers.mjs';
import { freshDir, waitFor, frameAt, fileFrame } from './live-helpers.mjs';

const s = pageSuite();

test('a long match: chunks past the 8 MiB budget are evicted and read again from their segments when a seek needs them', {
  timeout: 120000,
}, async () => {
  // 200 aircraft for 100 s in 2 s chunks: ~9 MB of chunks, more than the 8 MiB the worker holds.
  const from = freshDir('live-long-static');
  const gen = spawnSync(
    replayBinPath(),
    [
      'live-serve',
      '--generate',
      '--seconds',
      '100',
      '--entities',
      '200',
      '--seed',
      '3',
      '--rate',
      '50',
      '--segments',
      from,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(gen.status, 0, gen.stderr);
  const dir = freshDir('live-long');
  for (const f of fs.readdirSync(from)) fs.copyFileSync(path.join(from, f), path.join(dir, f));
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const total = m.segments.reduce((n, x) => n + x.bytes, 0);
  assert.ok(total > 8 * 1024 * 1024, `the segments (${total} bytes) are more than the worker holds`);
  const write = (k) => {
    const tmp = path.join(dir, '.manifest.json.tmp');
    fs.writeFileSync(tmp, JSON.stringify({ ...m, segments: m.segments.slice(0, k), ended: false, file: undefined }));
    fs.renameSync(tmp, path.join(dir, 'manifest.json'));
  };
  // Joined at the start (two segments listed), then the rest of the match listed as it "closes".
  write(2);
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-long/manifest.json')}`);
  try {
    await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.tick >= 0);
    for (let k = 6; k < m.segments.length; k += 4) {
      write(k);
      await page.waitForTimeout(300);
    }
    write(m.segments.length);
    const last = m.segments.at(-1).last_tick;
    await waitFor(page, 'every segment', (x) => x.last === last, 60000);
    const stats = () => page.evaluate(async () => (await __player.diagnostics.workerStats()).live);
    const before = await stats();
    assert.equal(before.chunks, m.segments.length);
    assert.ok(before.heldBytes <= 8 * 1024 * 1024, `held ${before.heldBytes} bytes: within the budget`);
    assert.ok(before.heldChunks < before.chunks, `${before.heldChunks} of ${before.chunks} chunks held`);
    assert.equal(before.fetched, before.chunks, 'each segment fetched once so far');
    const first = await page.evaluate(() => __player.diagnostics.snapshot().firstTick);
    assert.equal(first, m.segments[0].first_tick, 'the session holds the match from its start');
    // Seeks through the second half of the match (the player's own 4 MiB cache of compressed
    // chunks moves on with them), then back to its start: chunks evicted from memory are read
    // again from their segment files (by the seek, or by the prefetch a paused seek's landing
    // sends), and the frame at the start is the recording's.
    for (const seg of m.segments.slice(-25)) await frameAt(page, seg.first_tick + 1);
    const T = m.segments[0].first_tick + 45;
    const live = await frameAt(page, T);
    const after = await stats();
    assert.ok(
      after.fetched > before.fetched,
      `evicted chunks were fetched again (${before.fetched} → ${after.fetched} segment reads)`,
    );
    assert.ok(after.heldBytes <= 8 * 1024 * 1024, `still within the budget (${after.heldBytes} bytes)`);
    const want = await fileFrame(s, path.join(from, 'recording.flrep'), T);
    assert.equal(live.tick, T);
    assert.deepEqual(live.frame, want.frame, `the frame at tick ${T} is the recording's`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
