// The per-frame budget of the page at a few hundred entities: the callsign labels are capped
// (MAX_LABELS) with the selected entity always labelled, the page holds only the decoded pieces
// its window needs while playing (forwards, fast and thinned, and backwards), and the inspector reads the right entity from the
// id-sorted frame after a seek (no per-tick index).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, collectConsole, ROOT } from './harness.mjs';
import { fixture, waitReady, settle, served } from './player-helpers.mjs';

const ENTITIES = 400;
let srv;
let browser;
let base;
/** The 400-entity recording (generated in `before`). */
let E400 = '';

before(async () => {
  E400 = fixture('e400', { seconds: 20, seed: 11, entities: ENTITIES });
  srv = await startServer({ root: ROOT });
  base = `${srv.url}dist/`;
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

async function openE400() {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(`${base}?url=${encodeURIComponent(served(E400))}`, { waitUntil: 'load' });
  await waitReady(page);
  return { page, log };
}

/** Records, every animation frame for `ms`, the pieces held (and whether each is in the page's
 *  keep range at that frame) and the labels shown. */
function watch(page, ms) {
  return page.evaluate(
    (dur) =>
      new Promise((resolve) => {
        const p = window.__player;
        const out = { frames: 0, maxBytes: 0, held: '', outside: [], strides: [], maxLabels: 0, times: [] };
        const t0 = performance.now();
        const f = () => {
          out.frames++;
          const bytes = p.diagnostics.snapshot().heldBytes;
          const [lo, hi] = p.diagnostics.snapshot().keepRange;
          const desc = () =>
            `[${lo}, ${hi}): ${p.diagnostics
              .snapshot()
              .pieces.map((q) => `${q.from}-${q.end}/${q.stride}`)
              .join(' ')}`;
          if (bytes > out.maxBytes) {
            out.maxBytes = bytes;
            out.held = desc();
          }
          for (const q of p.diagnostics.snapshot().pieces) {
            if (!out.strides.includes(q.stride)) out.strides.push(q.stride);
            if (q.end <= lo || q.from >= hi) out.outside.push(desc());
          }
          out.maxLabels = Math.max(out.maxLabels, document.querySelectorAll('.rp-label:not([hidden])').length);
          out.times.push(p.currentTime);
          // At least `dur` ms and 12 frames (SwiftShader on a loaded machine draws a few per second).
          if ((performance.now() - t0 < dur || out.frames < 12) && performance.now() - t0 < 30_000)
            requestAnimationFrame(f);
          else resolve(out);
        };
        requestAnimationFrame(f);
      }),
    ms,
  );
}

test('playing holds only the pieces its window needs (1×, 8× thinned, rewinding) and shows at most MAX_LABELS labels', {
  timeout: 240_000,
}, async () => {
  const { page, log } = await openE400();
  try {
    // (MAX_LABELS of www/view/labels.ts.)
    const max = 64;
    await page.evaluate(() => {
      window.__player.setSpeed(1);
      window.__player.play();
    });
    const one = await watch(page, 3000);
    await page.evaluate(() => window.__player.setSpeed(8));
    const fast = await watch(page, 4000);
    await page.evaluate(() => window.__player.seek(15));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    await page.evaluate(() => {
      window.__player.setSpeed(2);
      window.__player.rewind();
    });
    const back = await watch(page, 3000);
    for (const [name, w] of [
      ['1×', one],
      ['8×', fast],
      ['rewinding', back],
    ]) {
      assert.ok(w.frames > 3, `${name}: frames drawn (${w.frames})`);
      // Nothing outside the window is held after a frame has pruned it (the playhead's piece and
      // those ahead of it in the playing direction) ...
      assert.deepEqual(w.outside.slice(0, 3), [], `${name}: pieces outside the keep range`);
      // ... and that is far less than the two whole chunks the page used to hold (2 × 120 ticks ×
      // 400 entities × 64 bytes = 6.1 MB): about 0.5 s of wall time at the speed, thinned from 4×,
      // plus the pieces that straddle its ends (16,384 states each at most).
      assert.ok(w.maxBytes <= 4 * 1048576, `${name}: ${w.maxBytes} bytes of frames held (${w.held})`);
      assert.ok(w.maxLabels <= max, `${name}: at most ${max} labels, saw ${w.maxLabels}`);
    }
    assert.ok(one.maxLabels > 0, 'labels are shown');
    assert.deepEqual(one.strides, [1], 'every tick at 1×');
    assert.ok(fast.strides.includes(4), `one tick in 4 at 8× (${fast.strides})`);
    assert.ok(
      fast.times[fast.times.length - 1] > fast.times[0] + 2,
      `8× moved the playhead (${fast.times[0]} → ${fast.times.at(-1)})`,
    );
    assert.ok(back.times[back.times.length - 1] < back.times[0], 'rewinding moved the playhead back');
    // Past chunk boundaries at 8× (2 s chunks): playback did not stall on a dropped chunk.
    const s = await page.evaluate(() => window.__player.diagnostics.snapshot());
    assert.equal(s.error, null);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the selected entity is always labelled, even when the label cap is full', { timeout: 120_000 }, async () => {
  const { page, log } = await openE400();
  try {
    await page.evaluate(() => window.__player.seek(5));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    await settle(page, 4);
    // A visible, named entity that is not labelled now (the cap or the declutter left it out).
    const id = await page.evaluate(async () => {
      const p = window.__player;
      const L = await p.diagnostics.rendererLabels();
      for (let i = 0; i < L.length; i += 4) {
        if (L[i + 3] === 1 && p.diagnostics.hasName(L[i]) && !p.diagnostics.snapshot().labels.includes(L[i]))
          return L[i];
      }
      return -1;
    });
    const shown = await page.evaluate(() => window.__player.diagnostics.snapshot().labels.length);
    assert.ok(shown > 0 && shown <= 64, `labels shown ${shown}`);
    assert.ok(id >= 0, 'some visible entity is unlabelled (more candidates than labels)');
    await page.evaluate((x) => window.__player.select(x), id);
    await settle(page, 4);
    const r = await page.evaluate((x) => {
      const p = window.__player;
      const l = p.diagnostics.label(x);
      return {
        shown: p.diagnostics.snapshot().labels.includes(x),
        count: p.diagnostics.snapshot().labels.length,
        visible: !!l?.visible,
        selected: !!l?.selected,
        text: l?.text,
        name: p.entityName(x),
      };
    }, id);
    assert.ok(r.shown && r.visible, 'the selected entity has a visible label');
    assert.ok(r.selected, 'its label is styled as selected');
    assert.equal(r.text, r.name);
    assert.ok(r.count <= 64, `still at most 64 labels (${r.count})`);
    // Playing: it stays labelled frame after frame.
    await page.evaluate(() => window.__player.play());
    const kept = await page.evaluate(
      (x) =>
        new Promise((resolve) => {
          let n = 0;
          let ok = 0;
          const f = () => {
            const p = window.__player;
            const L = p.diagnostics.labelOf(x);
            // Counted only while it is on screen (it may fly off).
            if (L.length === 4 && L[3] === 1) {
              n++;
              if (p.diagnostics.snapshot().labels.includes(x)) ok++;
            }
            // Until it was on screen in 20 frames (30 s at most: then the count below fails).
            if (n < 20 && performance.now() - t0 < 30_000) requestAnimationFrame(f);
            else resolve({ n, ok });
          };
          const t0 = performance.now();
          requestAnimationFrame(f);
        }),
      id,
    );
    assert.ok(kept.n >= 20, `it was on screen in 20 frames playing (${kept.n})`);
    assert.equal(kept.ok, kept.n, `labelled in every frame it was visible (${kept.ok}/${kept.n})`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the inspector shows the right entity after a seek (binary search over the id-sorted frame)', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openE400();
  try {
    const check = () =>
      page.evaluate(() => {
        const p = window.__player;
        const f = p.diagnostics.frame().frame;
        const n = f.length / 16;
        const bad = [];
        // Every entity of the frame is found at its own row, and an absent id is not found.
        let maxId = 0;
        for (let k = 0; k < n; k++) {
          const id = f[k * 16] >>> 0;
          maxId = Math.max(maxId, id);
          const st = p.entityState(id);
          const q = p.info.info.position_quantum_m;
          if (
            !st ||
            st.id !== id ||
            Math.abs(st.pos[0] - f[k * 16 + 3] * q) > 1e-9 ||
            st.tick !== p.diagnostics.snapshot().frameTick
          )
            bad.push(id);
        }
        return {
          n,
          bad,
          absent: p.entityState(maxId + 1000),
          tick: p.tick,
          curTick: p.diagnostics.snapshot().frameTick,
        };
      });
    for (const t of [3, 17.5, 0.5]) {
      await page.evaluate((x) => window.__player.seek(x), t);
      await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
      await settle(page, 3);
      const r = await check();
      assert.ok(r.n > 100, `entities in the frame (${r.n})`);
      assert.deepEqual(r.bad, [], `entityState wrong for ${r.bad.length} entities at ${t} s`);
      assert.equal(r.absent, null);
      assert.equal(r.curTick, r.tick, 'the current frame is the playhead tick');
    }
    // The inspector panel follows a selection across a seek.
    const id = await page.evaluate(() => window.__player.diagnostics.frame().frame[16 * 7] >>> 0);
    await page.evaluate((x) => window.__player.select(x), id);
    await page.evaluate(() => window.__player.seek(12));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    await page.waitForFunction((x) => document.getElementById('inspector').dataset.entity === String(x), id);
    const name = await page.evaluate((x) => window.__player.entityName(x), id);
    await page.waitForFunction((n) => document.getElementById('insp-name').textContent === n, name);
    log.assertClean();
  } finally {
    await page.close();
  }
});
