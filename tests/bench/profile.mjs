// CPU profile of the page's main thread while playing at 1× (CDP Profiler): self time per
// function, top N. For finding what a frame spends its time on (frame.mjs gives the totals).
//
//   node tests/bench/profile.mjs [seconds=8] [entities=2000] [top=30]
// (BENCH_WWW=www profiles the unminified source: readable function names and lines.)
import {
  profileTimes,
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  frames,
  fmt,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 8);
const N = Number(process.argv[3] ?? 2000);
const TOP = Number(process.argv[4] ?? 30);

const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page, log } = await openPlayerPage(
    browser,
    srv,
    process.argv.includes('--render=page') ? '?render=page' : '',
  );
  await openWithPicker(page, benchFile(`frame-${N}`, { entities: N, seconds: 60 }));
  await page.evaluate(() => {
    window.__player.setSpeed(1);
    window.__player.play();
  });
  await frames(page, 30);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.waitForTimeout(SECONDS * 1000);
  const { profile } = await cdp.send('Profiler.stop');
  const nFrames = await page.evaluate(() => window.__player.diagnostics.perf().frames);
  // Self time per function, and inclusive time (a function counts every sample it is on the stack of).
  const { self, inclusive: incl } = profileTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`profile ${fmt(total, 0)} ms over ${SECONDS} s (${nFrames} frames recorded by perf())`);
  for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(`${fmt(v, 1).padStart(9)} ms  ${fmt((100 * v) / total, 1).padStart(5)} %  ${k}`);
  console.log(`\ninclusive (ms per frame of perf(), top ${TOP}):`);
  for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP))
    console.log(`${fmt(v / Math.max(1, nFrames), 2).padStart(9)} ms  ${k}`);
  if (log.errors.length) console.error(log.errors.join('\n'));
} finally {
  await browser.close();
  await srv.close();
}
console.log(machineLine());
