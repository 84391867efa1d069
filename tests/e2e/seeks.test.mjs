// What a seek costs the worker, end to end in headless Chromium: a paused seek decodes only the
// frames at its tick; prefetch hints (the pointer resting on the timeline or a kill row, a key's
// next step, a seek's landing) leave the next seek nothing to read or decompress; the spare decoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seekLanded, hintsSettled, playhead, fixture, waitReady, killFeedRow, pageSuite } from './player-helpers.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

test('a paused seek decodes only the frames at its tick; playing on resumes in that chunk without decompressing it again', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const r = await page.evaluate(async () => {
      const p = window.__player;
      p.pause();
      const firsts = p.info.chunks.map((c) => c.firstTick);
      const chunkOf = (t) => firsts.findLastIndex((f) => f <= t);
      const out = [];
      // Far from the playhead (not decoded yet): the chunk must be read and decompressed.
      for (const frac of [0.61, 0.27]) {
        const ci = chunkOf(
          p.diagnostics.snapshot().firstTick + Math.floor(frac * p.duration * p.diagnostics.snapshot().tickRate),
        );
        // A tick a third of the way into the chunk.
        const tick = firsts[ci] + Math.floor((firsts[ci + 1] - firsts[ci]) / 3);
        const before = await p.diagnostics.workerStats();
        await p.seek((tick - p.diagnostics.snapshot().firstTick) / p.diagnostics.snapshot().tickRate + 1e-4);
        const at = p.tick;
        const seen = {
          tick: at,
          pieces: p.diagnostics.snapshot().pieces,
          frame: p.diagnostics.frameAt(at).frame.length,
          next: p.diagnostics.frameAt(at).next,
        };
        const afterSeek = await p.diagnostics.workerStats();
        // Play on for 20 ticks, then pause: the window stays inside the chunk.
        p.setSpeed(1);
        p.play();
        for (let k = 0; k < 400 && p.tick < at + 20; k++) await new Promise((res) => setTimeout(res, 25));
        p.pause();
        await new Promise((res) => setTimeout(res, 300));
        const played = await p.diagnostics.workerStats();
        out.push({
          ...seen,
          chunkEnd: firsts[ci + 1],
          reached: p.tick,
          held: p.diagnostics.snapshot().pieces,
          decodedBySeek: afterSeek.decoded - afterSeek.hintDecoded - (before.decoded - before.hintDecoded),
          decodedByPlay: played.decoded - played.hintDecoded - (afterSeek.decoded - afterSeek.hintDecoded),
          resumedByPlay: played.resumed - afterSeek.resumed,
        });
      }
      return out;
    });
    for (const s of r) {
      const msg = JSON.stringify(s);
      // The seek's piece: the frame at its tick and the next one (for interpolation), nothing more.
      assert.equal(s.pieces.length, 1, msg);
      assert.deepEqual(
        [s.pieces[0].from, s.pieces[0].end, s.pieces[0].ticks, s.pieces[0].stride],
        [s.tick, s.tick + 2, 2, 1],
        msg,
      );
      assert.equal(s.next, s.tick + 1, msg);
      assert.ok(s.frame > 0);
      assert.equal(s.decodedBySeek, 1, `one decompression for the seek: ${msg}`);
      // Playing on rolled forward from where the seek stopped: no second decompression of the chunk
      // (the landing's hint decompresses → 5 s on in the spare decoder: not counted here).
      assert.ok(s.reached >= s.tick + 20 && s.reached < s.chunkEnd - 30, msg);
      assert.equal(s.decodedByPlay, 0, msg);
      assert.ok(s.resumedByPlay >= 1, msg);
      assert.ok(
        s.held.every((h) => h.stride === 1 && h.end > s.tick),
        msg,
      );
    }
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the pointer resting on the timeline or a kill row prefetches: the click there neither reads nor decompresses (paused); playing, a hint only reads', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const stats = () => page.evaluate(() => window.__player.diagnostics.workerStats());
    const waitFor = (pred, what) =>
      page.waitForFunction(pred, null, { timeout: 10_000 }).catch(() => assert.fail(`timed out: ${what}`));
    // Until the worker's stats (asked of the worker: a promise, so polled from here) satisfy `ok`.
    const statsUntil = async (ok, what) => {
      for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(25)) {
        const s = await stats();
        if (ok(s)) return s;
      }
      assert.fail(`timed out: ${what}`);
    };
    const box = await page.locator('#scrubber').boundingBox();
    const y = box.y + box.height / 2; // between the kill row and the event row: no marker under it
    const duration = await page.evaluate(() => window.__player.duration);
    // The timing the worker sent with the piece that holds the playhead (docs/worker-protocol.md).
    const pieceTiming = async () => (await playhead(page)).timing;

    // Paused: the hint reads the chunk and positions the decoder at the moment under the pointer.
    const x = box.x + 0.63 * box.width;
    // Decompressions for pieces (a hint's are counted in `hintDecoded` too: a landing's hint
    // decompresses the next → step in the spare decoder).
    const forPieces = (s) => s.decoded - s.hintDecoded;
    let s0 = await hintsSettled(page);
    await page.mouse.move(x, y);
    await statsUntil((s) => s.warmed > s0.warmed, 'the hovered chunk warmed');
    const s1 = await stats();
    assert.equal(
      s1.decoded,
      s0.decoded + 1,
      `warming decompressed the hovered chunk once: ${JSON.stringify([s0, s1])}`,
    );
    await page.mouse.down();
    await page.mouse.up();
    await waitFor('!window.__player.diagnostics.snapshot().seekPending', 'the click seeked');
    const s2 = await stats();
    const t = await page.evaluate(() => window.__player.currentTime);
    assert.ok(
      Math.abs(t - 0.63 * duration) < duration / box.width,
      `the click seeked under the pointer: ${t} vs ${0.63 * duration}`,
    );
    assert.equal(forPieces(s2), forPieces(s1), 'the seek decompressed nothing');
    // (The worker reads the next chunk ahead once idle: reads may grow, the seek's piece read nothing.)
    let timing = await pieceTiming();
    // (`resumed`: the decoder held the chunk, so no bytes were asked for. Its `read` ms is timer
    // noise then, not asserted: tests/bench/seek.mjs prints the timings.)
    assert.equal(timing?.resumed, true, `the seek resumed where the hint left the decoder: ${JSON.stringify(timing)}`);

    // A kill row: the hint is the moment a click seeks to (2 s before the kill).
    const kills = await page.evaluate(() => window.__player.kills.map((k) => window.__player.killTime(k)));
    const idx = kills.findIndex((k) => Math.abs(k - 2 - t) > 10);
    // The feed follows the playhead when the page is idle (www/widgets/idle.ts): let it, then scroll.
    await page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(r))));
    const row = await killFeedRow(page, idx);
    s0 = await hintsSettled(page);
    await row.locator('button').hover();
    await statsUntil((s) => s.warmed > s0.warmed, "the kill row's chunk warmed");
    const s3 = await stats();
    await row.locator('button').click();
    await waitFor('!window.__player.diagnostics.snapshot().seekPending', 'the row seeked');
    const s4 = await stats();
    assert.ok(Math.abs((await page.evaluate(() => window.__player.currentTime)) - (kills[idx] - 2)) < 1e-3);
    assert.equal(forPieces(s4), forPieces(s3), "the row's seek decompressed nothing");
    timing = await pieceTiming();
    assert.equal(timing?.resumed, true, `the row's seek resumed: ${JSON.stringify(timing)}`);

    // Playing: a hint reads the chunk (a click there need not wait for the file) but leaves the
    // decoder to the playback (no decompression for it). (The pointer leaves the kill feed first:
    // rows changing under a still pointer are hovered again.)
    await page.mouse.move(5, 5);
    await page.evaluate(() => window.__player.play());
    // A moment whose chunk is neither cached nor held by a decoder (the spare one holds where the
    // last landing's hint went).
    const { f, target } = await page.evaluate(async () => {
      const p = window.__player;
      const w = await p.diagnostics.workerStats();
      for (let f = 0.12; f < 0.95; f += 0.03) {
        const tick =
          p.diagnostics.snapshot().firstTick + Math.floor(f * p.duration * p.diagnostics.snapshot().tickRate);
        const c = p.info.chunks.findLastIndex((ch) => ch.firstTick <= tick);
        if (!w.cachedChunks.includes(c) && !w.heldChunks.includes(c) && !p.diagnostics.pieceAt(tick))
          return { f, target: c };
      }
      return { f: 0, target: -1 };
    });
    assert.ok(target >= 0, 'a chunk to hover that is not cached yet');
    s0 = await stats();
    await page.mouse.move(box.x + f * box.width, y);
    // A hint waiting for its delay is dropped when the clock jumps (a stall's resync under load,
    // core/hints.ts cancel()): a pointer that rests on is hovered again each 2 s, 1 px aside,
    // over the same chunk, as a hand would drift.
    let nudge = 0;
    await statsUntil((s) => {
      if (s.cachedChunks.includes(target)) return true;
      if (++nudge % 80 === 0) page.mouse.move(box.x + f * box.width + ((nudge / 80) % 2), y).catch(() => {});
      return false;
    }, `chunk ${target} read while playing`);
    const s5 = await stats();
    assert.equal(s5.warmed, s0.warmed, 'no warming while playing');
    await page.evaluate(() => window.__player.pause());
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a key pressed again is ready: after ] or ← lands (paused), the same key's next seek neither reads nor decompresses", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const stats = () => page.evaluate(() => window.__player.diagnostics.workerStats());
    // After a key's seek landed: the page sent its hint (a seek resets `prefetched`; the hint sets
    // it), and the worker got every hint sent and is done with them. Returns the worker's stats.
    const hinted = async (what) => {
      await page
        .waitForFunction(() => window.__player.diagnostics.snapshot().hints.prefetched !== -1, null, {
          timeout: 10_000,
        })
        .catch(() => assert.fail(`no hint sent: ${what}`));
      const sent = await page.evaluate(() => window.__player.diagnostics.snapshot().hints.sent);
      for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(25)) {
        const s = await stats();
        if (s.hints === sent && !s.hinting) return s;
      }
      return assert.fail(`timed out: the worker handling the hint ${what}`);
    };
    // The playhead, its chunk, and the worker's timing for the piece that holds it.
    const here = () => playhead(page);
    const chunkOf = (t) =>
      page.evaluate((x) => {
        const p = window.__player;
        return p.info.chunks.findLastIndex(
          (c) => c.firstTick <= p.diagnostics.snapshot().firstTick + Math.floor(x * p.diagnostics.snapshot().tickRate),
        );
      }, t);
    // Three kills in a row whose viewing points (2 s before) lie in three different chunks, so that
    // each ] needs a chunk the decoder does not hold.
    const plan = await page.evaluate(() => {
      const p = window.__player;
      const chunkAt = (t) =>
        p.info.chunks.findLastIndex(
          (c) => c.firstTick <= p.diagnostics.snapshot().firstTick + Math.floor(t * p.diagnostics.snapshot().tickRate),
        );
      const starts = [...new Set(p.kills.map((k) => Math.max(0, p.killTime(k) - 2)))].sort((a, b) => a - b);
      for (let i = 0; i + 2 < starts.length; i++) {
        const c = starts.slice(i, i + 3).map(chunkAt);
        // (Nor is the next two's chunk the one the landing of the seek to the first kill readies:
        // → 5 s on.)
        if (
          c[0] !== c[1] &&
          c[1] !== c[2] &&
          c[0] !== c[2] &&
          !c.slice(1).includes(chunkAt(starts[i] + 5)) &&
          starts[i] > 12
        )
          return { starts: starts.slice(i, i + 3), chunks: c };
      }
      return null;
    });
    assert.ok(plan, 'the demo has three kills in three chunks');
    await page.evaluate((t) => window.__player.seek(t), plan.starts[0]);
    await seekLanded(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    // ] : a seek to the next kill that decompresses its chunk (the seek's landing only read it);
    // once it landed, the worker warms the one after.
    const s0 = await hintsSettled(page);
    assert.equal(s0.hinting, false);
    await page.keyboard.press(']');
    await seekLanded(page);
    let h = await here();
    assert.ok(Math.abs(h.time - plan.starts[1]) < 1e-3, `] -> ${h.time}, expected ${plan.starts[1]}`);
    assert.equal(h.timing?.resumed, false, 'the first ] decompressed its chunk');
    const s1 = await hinted('after ]');
    assert.equal(s1.warmed, s0.warmed + 1, 'the hint warmed a chunk');
    assert.equal(
      s1.decoded,
      s0.decoded + 2,
      `the seek and the hint each decompressed once: ${JSON.stringify([s0, s1])}`,
    );
    // ] again: where the hint left the decoder.
    await page.keyboard.press(']');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - plan.starts[2]) < 1e-3, `] again -> ${h.time}, expected ${plan.starts[2]}`);
    assert.equal(h.chunk, plan.chunks[2]);
    assert.equal(h.timing?.resumed, true, `the second ] neither read nor decompressed: ${JSON.stringify(h.timing)}`);

    // ← : 5 s back, then again (the two steps land in two other chunks).
    await hinted('after the second ]');
    const t0 = h.time;
    assert.notEqual(await chunkOf(t0 - 5), await chunkOf(t0 - 10), 'the two steps back are in different chunks');
    assert.notEqual(await chunkOf(t0 - 10), h.chunk);
    await page.keyboard.press('ArrowLeft');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - (t0 - 5)) < 1e-3, `← -> ${h.time}, expected ${t0 - 5}`);
    assert.equal(h.timing?.resumed, false, 'the first ← decompressed its chunk');
    await hinted('after ←');
    await page.keyboard.press('ArrowLeft');
    await seekLanded(page);
    h = await here();
    assert.ok(Math.abs(h.time - (t0 - 10)) < 1e-3, `← twice -> ${h.time}, expected ${t0 - 10}`);
    assert.equal(h.timing?.resumed, true, `the second ← neither read nor decompressed: ${JSON.stringify(h.timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("a paused seek's landing readies ← / → / [ / ]: → resumes in the spare decoder, the others' chunks are read; the decoder stays for playing on", {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    // A moment T whose chunk, T ± 5 s's and the previous / next kill's viewing points' are five
    // different chunks, and a far moment F in a sixth (a control: nothing readies it).
    const plan = await page.evaluate(async () => {
      const p = window.__player;
      const cached = (await p.diagnostics.workerStats()).cachedChunks;
      const chunkAt = (t) =>
        p.info.chunks.findLastIndex(
          (c) =>
            c.firstTick <=
            p.diagnostics.snapshot().firstTick + Math.floor(t * p.diagnostics.snapshot().tickRate + 1e-6),
        );
      for (let t = 12; t < p.duration - 12; t += 0.5) {
        const prev = p.killStart(-1, t);
        const next = p.killStart(1, t);
        if (prev === null || next === null) continue;
        const c = [t, t + 5, t - 5, next, prev].map(chunkAt);
        if (new Set(c).size !== 5) continue;
        const far = [...Array(p.info.chunks.length).keys()].findLast(
          (k) => k > 0 && !cached.includes(k) && c.every((x) => Math.abs(x - k) > 2),
        );
        if (far === undefined) continue;
        return {
          t,
          prev,
          next,
          chunks: c,
          far:
            (p.info.chunks[far].firstTick - p.diagnostics.snapshot().firstTick + 3) / p.diagnostics.snapshot().tickRate,
          farChunk: far,
        };
      }
      return null;
    });
    assert.ok(plan, 'the demo has such a moment');
    const here = () => playhead(page);
    // Seeks to T and waits for its landing hint; the worker's stats then.
    const atT = async () => {
      await page.evaluate((t) => window.__player.seek(t), plan.t);
      await seekLanded(page);
      return hintsSettled(page);
    };
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const before = await hintsSettled(page);
    let s = await atT();
    for (const c of plan.chunks.slice(1))
      assert.ok(
        s.cachedChunks.includes(c),
        `chunk ${c} read on landing: ${JSON.stringify({ plan, cached: s.cachedChunks })}`,
      );
    assert.ok(!s.cachedChunks.includes(plan.farChunk), 'the far chunk is not read');
    assert.ok(s.hintReads > before.hintReads, `the landing's hint read chunks: ${JSON.stringify([before, s])}`);
    // The step the way the seek went was decompressed in the spare decoder: its first press resumes
    // there. The others decompress (the decoder stayed at T) bytes from the cache.
    assert.ok(
      s.hintDecoded > before.hintDecoded,
      `the landing's hint decompressed → in the spare decoder: ${JSON.stringify([before, s])}`,
    );
    // Each seek back to T comes from where the key went: the landing warms the step the same way
    // (→ after coming from before T, ← after coming back from T + 5 or the next kill).
    for (const [key, to, chunk, resumed] of [
      ['ArrowRight', plan.t + 5, plan.chunks[1], true],
      ['ArrowLeft', plan.t - 5, plan.chunks[2], true],
      [']', plan.next, plan.chunks[3], false],
      ['[', plan.prev, plan.chunks[4], false],
    ]) {
      const k0 = s;
      await page.keyboard.press(key);
      await seekLanded(page);
      const h = await here();
      assert.ok(
        Math.abs(h.time - to) < 1e-3 && h.chunk === chunk,
        `${key} -> ${h.time} (chunk ${h.chunk}), expected ${to} (chunk ${chunk})`,
      );
      if (resumed) {
        assert.equal(h.timing?.resumed, true, `${key}: resumed in the spare decoder: ${JSON.stringify(h.timing)}`);
        const k1 = await page.evaluate(() => window.__player.diagnostics.workerStats());
        assert.equal(k1.swapped, k0.swapped + 1, 'the spare decoder became the decoder');
      } else {
        assert.equal(h.timing?.resumed, false, `${key}: the decoder was still at T`);
        assert.equal(
          h.timing?.cached,
          true,
          `${key}: its chunk's bytes were in the cache: ${JSON.stringify(h.timing)}`,
        );
      }
      await hintsSettled(page);
      s = await atT();
    }
    // Playing on from T: the decoder is still there (no second decompression of T's chunk).
    const s0 = s;
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction((t) => window.__player.currentTime > t + 0.2, plan.t, { timeout: 10_000 });
    await page.evaluate(() => window.__player.pause());
    const s1 = await page.evaluate(() => window.__player.diagnostics.workerStats());
    assert.ok(s1.resumed > s0.resumed, `playing on resumed in T's chunk: ${JSON.stringify([s0, s1])}`);
    // The control: a seek nothing readied waits for the file.
    await page.evaluate((t) => window.__player.seek(t), plan.far);
    await seekLanded(page);
    const h = await here();
    assert.equal(h.chunk, plan.farChunk);
    assert.equal(h.timing?.cached, false, `the far seek read its chunk: ${JSON.stringify(h.timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("chunks over 512 KiB get no spare decoder (its memory): a seek's landing only reads there, and → decompresses from the cache", {
  timeout: 120_000,
}, async () => {
  // 2,000 entities: chunks of ~1.7 MB (a spare decoder would cost ~9 MiB of wasm memory).
  const big = fixture('spare-2000', { entities: 2000, seconds: 8, seed: 3 });
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', big);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'spare-2000.flrep' &&
        window.__player.diagnostics.snapshot().ready,
      null,
      { timeout: 60_000 },
    );
    await page.evaluate(() => window.__player.pause());
    const before = await hintsSettled(page);
    await page.evaluate(() => window.__player.seek(0.5));
    await seekLanded(page);
    await page.evaluate(() => window.__player.seek(2.5));
    await seekLanded(page);
    const s = await hintsSettled(page);
    assert.equal(s.hintDecoded, before.hintDecoded, `no decompression for a hint: ${JSON.stringify(s)}`);
    assert.ok(s.heldChunks.length <= 1, `one decoder holds a chunk: ${JSON.stringify(s.heldChunks)}`);
    const next = await page.evaluate(() =>
      window.__player.info.chunks.findLastIndex(
        (c) =>
          c.firstTick <=
          window.__player.diagnostics.snapshot().firstTick +
            Math.floor(7.5 * window.__player.diagnostics.snapshot().tickRate),
      ),
    );
    assert.ok(s.cachedChunks.includes(next), `→'s chunk read on landing: ${JSON.stringify(s.cachedChunks)}`);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('ArrowRight');
    await seekLanded(page);
    const { time, timing } = await playhead(page);
    assert.ok(Math.abs(time - 7.5) < 1e-3);
    assert.equal(timing?.resumed, false, 'decompressed');
    assert.equal(timing?.cached, true, `from the cache: ${JSON.stringify(timing)}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
