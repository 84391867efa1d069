// The playback clock against the wall clock: the demo played at each speed for SECONDS, the clock's
// advance per wall second (in the page: performance.now()), beside the speed asked for, and the
// animation frames a second. The figures the browser tests no longer assert (tests/e2e/
// playback.test.mjs checks each frame's step is Δts × speed; this prints the rate that results,
// which falls short of the speed when frames are slow and the clock waits for pieces).
//
//   node tests/bench/clock.mjs [seconds=3] [rounds=2]
import { launchBrowser, serveRoot, fmt, machineLine, openPlayerPage } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 3);
const ROUNDS = Number(process.argv[3] ?? 2);
const SPEEDS = [0.25, 1, 4];

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
const rows = [];
try {
  const { page, log } = await openPlayerPage(browser, srv);
  for (let r = 0; r < ROUNDS; r++) {
    for (const speed of SPEEDS) {
      const m = await page.evaluate(
        async ({ speed, ms }) => {
          const p = window.__player;
          p.pause();
          await p.seek(0.5);
          p.setSpeed(speed);
          p.play();
          // Once the clock moves (the first frames after a seek may wait for their piece).
          const start = p.currentTime;
          while (p.currentTime === start) await new Promise((res) => requestAnimationFrame(res));
          const t0 = p.currentTime;
          const w0 = performance.now();
          let frames = 0;
          while (performance.now() - w0 < ms && p.currentTime < p.duration - 0.1) {
            await new Promise((res) => requestAnimationFrame(res));
            frames++;
          }
          const wall = (performance.now() - w0) / 1000;
          const advance = p.currentTime - t0;
          p.pause();
          return { wall, advance, frames };
        },
        // At 4× the demo (10 s) lasts 2.4 s from 0.5 s: the loop stops short of its end.
        { speed, ms: SECONDS * 1000 },
      );
      const rate = m.advance / m.wall;
      rows.push(
        `| ${r + 1} | ${speed}× | ${fmt(m.wall, 2)} s | ${fmt(rate, 3)} s/s | ${fmt(rate / speed, 3)} | ${fmt(m.frames / m.wall, 1)} |`,
      );
    }
  }
  log.assertClean();
  await page.close();
} finally {
  await browser.close();
  await srv.close();
}
console.log('| round | speed | wall | clock rate | rate / speed | frames/s |');
console.log('| ----- | ----- | ---- | ---------- | ------------ | -------- |');
for (const row of rows) console.log(row);
console.log(machineLine());
