// Time to first frame of the demo: navigation start → the first render() that drew entities
// (performance.mark 'rp:first-frame' in www/core/core.ts; a mark's startTime counts from navigation
// start). Median of N loads, each in a fresh browser profile (cold: no HTTP or code cache), then N
// reloads in one browser (warm). WebGPU (SwiftShader) and WebGL2 (a browser without navigator.gpu,
// so it fetches the WebGL2 renderer build).
//
//   node tests/bench/ttff.mjs [loads=5] [--render=page]
import { launchBrowser, collectConsole, serveRoot, median, fmt, machineLine } from './lib.mjs';

const N = Number(process.argv[2] ?? 5);
// --render=page: the renderer on the page instead of in the render worker.
const QUERY = process.argv.includes('--render=page') ? '?render=page' : '';

async function marks(page) {
  await page.waitForFunction(
    () => performance.getEntriesByName('rp:first-frame').length > 0 || window.__player?.diagnostics.snapshot().error,
    null,
    { timeout: 120_000 },
  );
  return page.evaluate(() => {
    const m = (n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      error: window.__player.diagnostics.snapshot().error,
      backend: window.__player.diagnostics.snapshot().backend,
      entities: window.__player.diagnostics.snapshot().entityCount ?? window.__player.entityCount ?? 0,
      domContentLoaded: nav?.domContentLoadedEventEnd ?? NaN,
      rendererReady: m('rp:renderer-ready'),
      info: m('rp:info'),
      firstFrame: m('rp:first-frame'),
    };
  });
}

function summary(label, runs) {
  const keys = ['domContentLoaded', 'info', 'rendererReady', 'firstFrame'];
  const med = Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))]));
  console.log(
    `| ${label} | ${runs[0]?.backend} | ${runs.length} | ${fmt(med.domContentLoaded, 0)} | ${fmt(med.info, 0)} | ${fmt(med.rendererReady, 0)} | **${fmt(med.firstFrame, 0)}** | ${runs.map((r) => fmt(r.firstFrame, 0)).join(', ')} |`,
  );
}

const srv = await serveRoot();
console.log(machineLine());
console.log(
  '| case | backend | loads | DOMContentLoaded ms | open done (rp:info) ms | renderer ready ms | first frame ms (median) | every load (ms) |',
);
console.log('|---|---|---|---|---|---|---|---|');
try {
  for (const webgpu of [true, false]) {
    const cold = [];
    for (let i = 0; i < N; i++) {
      const browser = await launchBrowser({ webgpu });
      try {
        const page = await browser.newPage();
        const log = collectConsole(page);
        await page.goto(srv.page + QUERY, { waitUntil: 'commit' });
        const m = await marks(page);
        if (m.error) throw new Error(m.error);
        if (!m.entities) throw new Error('first frame without entities');
        cold.push(m);
        if (log.errors.length) console.error(log.errors.join('\n'));
      } finally {
        await browser.close();
      }
    }
    summary(`${webgpu ? 'WebGPU' : 'WebGL2'} cold (fresh profile per load)`, cold);
    const warm = [];
    const browser = await launchBrowser({ webgpu });
    try {
      const page = await browser.newPage();
      await page.goto(srv.page + QUERY, { waitUntil: 'commit' });
      await marks(page);
      for (let i = 0; i < N; i++) {
        await page.reload({ waitUntil: 'commit' });
        warm.push(await marks(page));
      }
    } finally {
      await browser.close();
    }
    summary(`${webgpu ? 'WebGPU' : 'WebGL2'} warm (reload, same profile)`, warm);
  }
} finally {
  await srv.close();
}
console.log(machineLine());
