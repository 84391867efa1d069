// What the page's main thread runs around a seek whose chunk the worker already holds (the pointer
// rested over the timeline there): a CDP trace over N such seeks, the main thread's top-level
// tasks and the trace events inside them summed by name (largest first). For finding what the
// seek's piece waits behind ("transit" in seek.mjs).
//
//   node tests/bench/seek-probe.mjs [seeks=20] [--profile]   (BENCH_WWW=www: readable names)
import {
  profileTimes,
  frameKey,
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  fmt,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const N = Number(process.argv[2] ?? 20);
const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page } = await openPlayerPage(browser, srv, '');
  await openWithPicker(page, benchFile('hour-200', { entities: 200, seconds: 3600 }));
  const duration = await page.evaluate(() => window.__player.duration);
  const box = await page.locator('#scrubber').boundingBox();
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  const PROFILE = process.argv.includes('--profile');
  if (PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await cdp.send('Tracing.start', {
    categories:
      'devtools.timeline,toplevel,v8.execute,blink.user_timing,disabled-by-default-devtools.timeline.invalidationTracking',
    transferMode: 'ReportEvents',
  });
  for (let i = 0; i < N; i++) {
    const f = (i + 0.5) / N;
    const x = box.x + f * box.width;
    await page.mouse.move(x, box.y + box.height / 2);
    await page.waitForTimeout(150);
    // timeAtX's own formula (www/app/timeline.ts), so the hint and the seek name the same moment.
    await page.evaluate(
      (t) => {
        performance.mark('probe:seek');
        return window.__player.seek(t).then(() => performance.mark('probe:seeked'));
      },
      ((x - box.x) / box.width) * duration,
    );
    await page.waitForTimeout(300);
  }
  await cdp.send('Tracing.end');
  await traced;
  if (PROFILE) {
    // Inclusive JS time per seek (every function on a sample's stack, once per sample).
    const { profile } = await cdp.send('Profiler.stop');
    const { inclusive: incl, stacks } = profileTimes(profile);
    // Self time of what the heaviest function calls (its direct callees, natives included).
    const FOCUS = process.env.PROBE_FOCUS;
    if (FOCUS) {
      const self = new Map();
      for (const { chain, ms } of stacks) {
        const at = chain.findIndex((cf) => cf.functionName === FOCUS);
        if (at < 0) continue;
        const key = at > 0 ? frameKey(chain[at - 1]) : '(self)';
        self.set(key, (self.get(key) ?? 0) + ms);
      }
      console.log(`under ${FOCUS}, ms per seek:`);
      for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10))
        console.log(`${fmt(v / N, 2).padStart(8)}  ${k}`);
    }
    console.log('JS inclusive ms per seek (whole run, top 15):');
    for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(`${fmt(v / N, 2).padStart(8)}  ${k}`);
  }
  const fire = events.find((e) => e.name === 'FireAnimationFrame');
  const main = (e) => fire && e.pid === fire.pid && e.tid === fire.tid;
  const tasks = events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && main(e));
  // Only what runs between each seek() call and its promise resolving (the performance marks).
  const marks = (name) =>
    events
      .filter((e) => e.name === name)
      .map((e) => e.ts)
      .sort((a, b) => a - b);
  const starts = marks('probe:seek');
  const ends = marks('probe:seeked');
  const windows = starts.map((s0) => [s0, ends.find((t) => t > s0) ?? s0]);
  const inWindow = (e) => windows.some(([a, b]) => e.ts >= a && e.ts <= b);
  const spans = windows.map(([a, b]) => (b - a) / 1000).sort((x, y) => x - y);
  console.log(
    `seek() → resolved, ms: p50 ${fmt(spans[Math.floor(spans.length / 2)])}, max ${fmt(spans[spans.length - 1])}`,
  );
  const byName = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !main(e) || e.name === 'ThreadControllerImpl::RunTask' || !inWindow(e)) continue;
    const k =
      e.name === 'FunctionCall'
        ? `FunctionCall ${e.args?.data?.functionName || ''} ${(e.args?.data?.url || '').split('/').pop()}:${e.args?.data?.lineNumber ?? ''}`
        : e.name === 'EventDispatch'
          ? `EventDispatch ${e.args?.data?.type}`
          : e.name;
    const r = byName.get(k) ?? { n: 0, ms: 0 };
    r.n++;
    r.ms += e.dur / 1000;
    byName.set(k, r);
  }
  const total = tasks.reduce((a, e) => a + e.dur / 1000, 0);
  console.log(
    `${N} hovered seeks: main thread ${fmt(total, 1)} ms in ${tasks.length} tasks (${fmt(total / N, 1)} ms per seek, wall)`,
  );
  for (const [k, r] of [...byName.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30))
    console.log(`${fmt(r.ms / N, 2).padStart(8)} ms/seek  ×${r.n}  ${k}`);
  const layouts = events.filter((e) => e.ph === 'X' && e.name === 'Layout' && main(e) && inWindow(e));
  const lk = new Map();
  for (const e of layouts) {
    const b = e.args?.beginData ?? {};
    const k = `dirty ${b.dirtyObjects} / total ${b.totalObjects}`;
    const r = lk.get(k) ?? { n: 0, ms: 0 };
    r.n++;
    r.ms += e.dur / 1000;
    lk.set(k, r);
  }
  console.log('layouts in the seek windows:');
  for (const [k, r] of [...lk.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 8))
    console.log(`${fmt(r.ms / N, 2).padStart(8)} ms/seek  ×${r.n}  ${k}`);
  const reasons = new Map();
  for (const e of events) {
    if (e.name !== 'LayoutInvalidationTracking' || !inWindow(e)) continue;
    const d = e.args?.data ?? {};
    const k = `${d.reason ?? ''} ${d.nodeName ?? ''}`;
    reasons.set(k, (reasons.get(k) ?? 0) + 1);
  }
  for (const [k, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12))
    console.log(`${String(n).padStart(6)}  ${k}`);
} finally {
  await browser.close();
  await srv.close();
}
