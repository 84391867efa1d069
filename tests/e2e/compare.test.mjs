// Compare two recordings in the page (docs/playback.md "Comparing two recordings"), end to end in
// headless Chromium: two files picked or dropped at once (or "Compare…") open A and run the compare
// worker; a pair written by `replay generate --perturb-at T` reports exactly tick T, the perturbed
// entity and field with both values, as `replay diff` prints them, and the timeline's mark seeks
// to T; identical files say "identical through tick N", files of two sessions say why they cannot
// be compared, and a SparkEngine pair diverges at its tick too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { OUT, waitReady, pageSuite, seekLanded, canvasShot, fractionDifferent, generated } from './player-helpers.mjs';
import { replayBinPath } from './harness.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

const DOGFIGHT = ['--entities', '12', '--seconds', '20', '--seed', '5'];
const T = 500;

/** `replay diff A B`: its exit code and stdout (exit 1 is a difference, not a failure). */
function diff(a, b) {
  const r = spawnSync(replayBinPath(), ['diff', a, b], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout };
}

/** Picks `files` with the page's Open input and waits for the comparison's outcome. */
async function compareFiles(page, files, input = '#file-input') {
  await page.setInputFiles(input, files);
  await page.waitForFunction(() => document.getElementById('compare').inspect?.(), null, { timeout: 60_000 });
  return page.evaluate(() => document.getElementById('compare').inspect());
}

const statusText = (page) => page.locator('#compare .cmp-status').textContent();

test('two recordings diverging at T: tick T, the entity and field with both values, as replay diff; the mark seeks there', {
  timeout: 120_000,
}, async () => {
  const a = generated('cmp-a.flrep', DOGFIGHT);
  const b = generated(`cmp-b-${T}.flrep`, [...DOGFIGHT, '--perturb-at', String(T)]);
  const cli = diff(a, b);
  assert.equal(cli.code, 1, cli.out);
  // "  entity 1: A pos.x=-123\n            B pos.x=-115"
  const m =
    /first difference at tick (\d+) \(A\) \/ (\d+) \(B\): hash (\w+) vs (\w+)\n.*\n {2}entity (\d+): A pos\.x=(-?\d+)\n\s+B pos\.x=(-?\d+)\n$/.exec(
      cli.out,
    );
  assert.ok(m, cli.out);
  const [, tickA, tickB, hashA, hashB, id, xa, xb] = m;
  assert.deepEqual([Number(tickA), Number(tickB)], [T, T]);

  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const { outcome } = await compareFiles(page, [a, b]);
    assert.equal(outcome.kind, 'diverged');
    assert.deepEqual(
      [outcome.tickA, outcome.tickB, outcome.hashA, outcome.hashB, outcome.entitiesDiffering],
      [T, T, hashA, hashB, 1],
    );
    assert.deepEqual(outcome.entities, [
      { id: Number(id), presence: 'both', fields: [{ field: 'pos.x', a: Number(xa), b: Number(xb) }] },
    ]);
    // The panel says it, as text.
    assert.equal(await statusText(page), `First divergent tick: ${T}`);
    const row = page.locator(`#compare tr[data-entity="${id}"][data-field="pos.x"]`);
    assert.equal(await row.locator('.cmp-a').textContent(), xa);
    assert.equal(await row.locator('.cmp-b').textContent(), xb);
    assert.match(await row.textContent(), /\+8 \(1\.000 m\)/);
    // A is open in the player.
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'cmp-a.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    await page.locator('#compare').screenshot({ path: path.join(OUT, 'compare-diverged.png') });

    // The mark sits at T on the timeline, and a click on it seeks to T.
    const mark = page.locator('#scrubber .compare-mark');
    await mark.waitFor({ state: 'visible' });
    const [mb, sb] = [await mark.boundingBox(), await page.locator('#scrubber').boundingBox()];
    const dur = await page.evaluate(() => window.__player.duration);
    const want = sb.x + (sb.width * (T / 60)) / dur;
    assert.ok(Math.abs(mb.x + mb.width / 2 - want) < 2, `mark at ${mb.x + mb.width / 2}, T at ${want}`);
    assert.notEqual(await page.evaluate(() => window.__player.tick), T);
    await mark.click();
    await page.waitForFunction((t) => window.__player.tick === t, T);
    await seekLanded(page);
    assert.equal(await page.evaluate(() => window.__player.tick), T);
    await page.locator('.timeline').screenshot({ path: path.join(OUT, 'compare-mark.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('identical files: "identical through tick N"; files of two sessions: why not', { timeout: 120_000 }, async () => {
  const a = generated('cmp-a.flrep', DOGFIGHT);
  const same = path.join(OUT, 'cmp-a-copy.flrep');
  fs.copyFileSync(a, same);
  const other = generated('cmp-30hz.flrep', [...DOGFIGHT, '--tick-rate', '30']);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    // Through the Compare… button's own picker.
    let r = await compareFiles(page, [a, same], '#compare-input');
    assert.deepEqual(r.outcome, { kind: 'identical', ticks: 1200, lastTick: 1199, lastTickB: 1199 });
    assert.equal(await statusText(page), 'Identical through tick 1199 (1200 ticks).');
    assert.equal(await page.locator('#scrubber .compare-mark').isHidden(), true, 'no mark: nothing diverged');
    assert.equal(diff(a, same).out, 'identical: 1200 ticks\n');

    // A new comparison replaces the last one (its outcome, once it is there, is another).
    const last = JSON.stringify(r.outcome);
    await page.setInputFiles('#file-input', [a, other]);
    await page.waitForFunction((was) => {
      const now = document.getElementById('compare').inspect();
      return now && JSON.stringify(now.outcome) !== was;
    }, last);
    r = await page.evaluate(() => document.getElementById('compare').inspect());
    assert.deepEqual(r.outcome, { kind: 'mismatched', reasons: ['tick rate 60 Hz (A) vs 30 Hz (B)'] });
    assert.match(await statusText(page), /cannot be compared: they are not recordings of one session/);
    assert.deepEqual(await page.locator('#compare .cmp-reasons li').allTextContents(), [
      'tick rate 60 Hz (A) vs 30 Hz (B)',
    ]);
    assert.equal(
      diff(a, other).out,
      'cannot compare: not recordings of one session: tick rate 60 Hz (A) vs 30 Hz (B)\n',
    );
    // Another file opened: the comparison closes.
    await page.setInputFiles('#file-input', other);
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().name === 'cmp-30hz.flrep');
    assert.equal(await page.locator('#compare').isHidden(), true);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a SparkEngine pair diverges at its tick; three files picked compare the first two', {
  timeout: 120_000,
}, async () => {
  const spark = ['--format', 'spark', '--players', '4', '--seconds', '10'];
  const a = generated('cmp-a.replay', spark);
  const b = generated('cmp-b.replay', [...spark, '--perturb-at', '4000']);
  const c = generated('cmp-a.flrep', DOGFIGHT);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const { outcome } = await compareFiles(page, [a, b, c]);
    assert.equal(outcome.kind, 'diverged');
    assert.equal(outcome.tickA, 4000);
    assert.equal(outcome.entities.length, 1);
    assert.deepEqual(
      outcome.entities[0].fields.map((f) => [f.field, f.b - f.a]),
      [['pos.x', 1024]],
    );
    assert.match(diff(a, b).out, /^first difference at tick 4000 \(A\) \/ 4000 \(B\)/);
    assert.deepEqual(await page.locator('#toasts .toast-notice').allTextContents(), [
      'Comparing cmp-a.replay with cmp-b.replay (3 were picked): a comparison takes two.',
    ]);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'cmp-a.replay' && window.__player.diagnostics.snapshot().ready,
    );
    await page.locator('#scrubber .compare-mark').click();
    await page.waitForFunction(() => window.__player.tick === 4000);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("B drawn over A: translucent ghosts at A's tick, moved by seeks and play, gone when unticked", {
  timeout: 120_000,
}, async () => {
  // Two seeds of one session (the same header): every entity of B is elsewhere than A's.
  const a = generated('cmp-a.flrep', DOGFIGHT);
  const b = generated('cmp-seed6.flrep', [...DOGFIGHT.slice(0, -1), '6']);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const { outcome } = await compareFiles(page, [a, b]);
    assert.equal(outcome.kind, 'diverged');
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'cmp-a.flrep' && window.__player.diagnostics.snapshot().ready,
    );
    assert.equal(await page.evaluate(() => window.__player.ghosts), 'cmp-seed6.flrep');
    const ghostAt = (t) =>
      page.waitForFunction(
        (tick) =>
          window.__player.diagnostics.snapshot().ghosts?.tick === tick &&
          !window.__player.diagnostics.snapshot().seekPending,
        t,
        { timeout: 20_000 },
      );
    // The canvas alone: the panel (over the canvas, its box hovered or not) out of the picture.
    const shot = async (name) => {
      await page.evaluate(() => {
        document.getElementById('compare').style.visibility = 'hidden';
      });
      const s = await canvasShot(page, path.join(OUT, name));
      await page.evaluate(() => {
        document.getElementById('compare').style.visibility = '';
      });
      return s;
    };
    await page.evaluate(() => window.__player.seek(8));
    await ghostAt(await page.evaluate(() => window.__player.tick));
    const on = await shot('compare-ghosts-on.png');

    // Unticked: the ghosts go, and A's picture is all that is left.
    await page.locator('#compare .cmp-ghosts input').uncheck();
    await page.waitForFunction(
      () => !window.__player.diagnostics.snapshot().ghosts?.shown && window.__player.ghosts === '',
    );
    const off = await shot('compare-ghosts-off.png');
    const differ = fractionDifferent(on.img, off.img) * on.img.width * on.img.height;
    assert.ok(differ >= 200, `the ghosts add pixels to the picture (${differ} differ)`);
    // Ticked again: the same picture as before.
    await page.locator('#compare .cmp-ghosts input').check();
    await ghostAt(await page.evaluate(() => window.__player.tick));
    const again = await shot('compare-ghosts-again.png');
    const same = fractionDifferent(on.img, again.img) * on.img.width * on.img.height;
    assert.ok(same < differ / 10, `the ghosts come back where they were (${same} of ${differ} differ)`);

    // A seek and play move both: B's frame is A's tick.
    await page.evaluate(() => window.__player.seek(14));
    await ghostAt(await page.evaluate(() => window.__player.tick));
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => window.__player.currentTime > 15);
    await page.evaluate(() => window.__player.pause());
    await ghostAt(await page.evaluate(() => window.__player.tick));

    // Another file opened: no ghosts left over it.
    await page.setInputFiles('#file-input', b);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'cmp-seed6.flrep' &&
        window.__player.diagnostics.snapshot().ready,
    );
    assert.equal(await page.evaluate(() => window.__player.ghosts), '');
    assert.equal(await page.evaluate(() => window.__player.diagnostics.snapshot().ghosts?.shown), false);
    log.assertClean();
  } finally {
    await page.close();
  }
});
