// Export → Video's speed against drawing alone (www/features/export/video.ts): the demo's RANGE seconds
// exported at FPS and W × H (the player's renderer held and stepped frame by frame, each frame
// handed back as a VideoFrame, composed with its labels and clock, encoded VP9 into WebM by
// mediabunny) beside the same steps with `drawOnly` (seek, draw, the frame waited for: a 2 × 2
// pixel read, since the renderer's call returns before the GPU has drawn; nothing composed or
// encoded), alternating, ROUNDS of each, in one page. Prints the frames per second of each (median
// of the rounds) and their ratio (goal ≥ 0.8×: the export is bound by drawing, not by encoding or
// copying).
//
//   node tests/bench/video-export.mjs [width=320] [height=180] [fps=30] [range=4] [rounds=3]
import { launchBrowser, serveRoot, median, fmt, machineLine, openPlayerPage } from './lib.mjs';

const W = Number(process.argv[2] ?? 320);
const H = Number(process.argv[3] ?? 180);
const FPS = Number(process.argv[4] ?? 30);
const RANGE = Number(process.argv[5] ?? 4);
const ROUNDS = Number(process.argv[6] ?? 3);
const START = 4;

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page } = await openPlayerPage(browser, srv);
  await page.click('#share-open');
  await page.click('#share-video');
  await page.waitForFunction(() => document.getElementById('video-export')?.exportVideo);
  await page.keyboard.press('Escape');
  const rate = { export: [], draw: [] };
  let codec = '';
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of r % 2 ? ['export', 'draw'] : ['draw', 'export']) {
      const out = await page.evaluate(
        async ({ w, h, fps, start, end, drawOnly }) => {
          const v = await document.getElementById('video-export').exportVideo({
            fps,
            width: w,
            height: h,
            start,
            end,
            drawOnly,
          });
          return { frames: v.frames, ms: v.ms, codec: v.codec, bytes: v.blob?.size ?? 0 };
        },
        { w: W, h: H, fps: FPS, start: START, end: START + RANGE, drawOnly: mode === 'draw' },
      );
      rate[mode].push((out.frames * 1000) / out.ms);
      if (mode === 'export') {
        codec = out.codec;
        bytes = out.bytes;
      }
    }
  }
  const e = median(rate.export);
  const d = median(rate.draw);
  console.log(`${RANGE} s at ${FPS} fps, ${W}×${H} (${RANGE * FPS} frames), ${ROUNDS} rounds each, alternating`);
  console.log(`| mode | frames / s (median) | rounds |\n|---|---|---|`);
  console.log(
    `| draw only (seek, draw, the frame finished) | ${fmt(d, 1)} | ${rate.draw.map((x) => fmt(x, 1)).join(', ')} |`,
  );
  console.log(
    `| export (+ VideoFrame back, compose, ${codec} WebM) | ${fmt(e, 1)} | ${rate.export.map((x) => fmt(x, 1)).join(', ')} |`,
  );
  console.log(`export / draw only = ${fmt(e / d)}× (goal ≥ 0.8×); the video ${(bytes / 1024).toFixed(0)} KiB`);
} finally {
  await browser.close();
  await srv.close();
}
