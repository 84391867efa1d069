// Helpers of the live browser tests (tests/e2e/live*.test.mjs): a fresh output folder, the live
// view's state, waiting for it, the frame at a tick, and a file's own frame to compare with.
import fs from 'node:fs';
import path from 'node:path';
import { OUT } from './player-helpers.mjs';

/** A fresh directory under tests/output/ (served by the suite's server at /tests/output/NAME/). */
export function freshDir(name) {
  const dir = path.join(OUT, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export const liveState = (page) =>
  page.evaluate(() => {
    // The live view's state: its badge's inspect() (www/features/live/view.ts).
    const b = document.querySelector('.live-badge');
    const l = b?.inspect();
    return {
      status: l?.status,
      following: l?.following,
      delay: l?.delay,
      t: __player.currentTime,
      duration: __player.duration,
      kills: __player.kills.length,
      tick: __player.diagnostics.snapshot().frameTick ?? -1,
      last: __player.diagnostics.snapshot().lastTick,
      gaps: __player.diagnostics.snapshot().gaps,
      error: __player.diagnostics.snapshot().error,
      badge: b && !b.hidden ? b.textContent : '',
      goLive: !!b && !b.querySelector('button').hidden,
    };
  });

export async function waitFor(page, what, fn, timeout = 30000) {
  const t0 = Date.now();
  let last;
  while (Date.now() - t0 < timeout) {
    last = await liveState(page);
    if (fn(last)) return last;
    await page.waitForTimeout(100);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

/** The packed frame the page shows at `tick` (paused there): an array of numbers. */
export async function frameAt(page, tick) {
  return page.evaluate(async (tick) => {
    const p = window.__player;
    p.pause();
    const d = p.diagnostics;
    await p.seekTick(tick);
    for (let i = 0; i < 200 && d.frame()?.tick !== tick; i++) await new Promise((r) => requestAnimationFrame(r));
    const f = d.frame();
    return { tick: f?.tick, frame: f?.frame ?? [] };
  }, tick);
}

/** Opens `file` (a path under the repository) as an ordinary replay; its frame at `tick`. */
export async function fileFrame(s, file, tick) {
  const rel = path
    .relative(path.join(OUT, '..', '..'), file)
    .split(path.sep)
    .join('/');
  const { page, log } = await s.openPage(`?url=${encodeURIComponent(`../${rel}`)}`);
  await page.waitForFunction(() => window.__player.diagnostics.snapshot().ready, null, { timeout: 30000 });
  const f = await frameAt(page, tick);
  log.assertClean();
  await page.close();
  return f;
}
