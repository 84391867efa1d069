// Which layouts the page runs while playing 1× at N entities: the CDP trace's Layout events over a
// few seconds, largest first, with how many layout objects each touched (beginData) and the
// element it started from, and what is painted (by the element each paint starts from). For finding
// what relayouts / repaints the page every frame.
//
//   node tests/bench/layout-probe.mjs [seconds=5] [entities=2000] [--hide=CSS-SELECTOR] [--css=CSS-TO-ADD] [--render=page]
import {
  launchBrowser,
  serveRoot,
  benchFile,
  openWithPicker,
  frames,
  fmt,
  machineLine,
  openPlayerPage,
} from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 5);
const N = Number(process.argv[3] ?? 2000);
const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
console.log(machineLine());
try {
  const { page } = await openPlayerPage(browser, srv, process.argv.includes('--render=page') ? '?render=page' : '');
  await openWithPicker(page, benchFile(`frame-${N}`, { entities: N, seconds: 60 }));
  const hide = process.argv.find((a) => a.startsWith('--hide='))?.slice(7);
  if (hide) await page.addStyleTag({ content: `${hide} { display: none !important; }` });
  const css = process.argv.find((a) => a.startsWith('--css='))?.slice(6);
  if (css) await page.addStyleTag({ content: css });
  await page.evaluate(() => window.__player.play());
  await frames(page, 30);
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const traced = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', {
    categories:
      'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking',
    transferMode: 'ReportEvents',
  });
  await page.waitForTimeout(SECONDS * 1000);
  await cdp.send('Tracing.end');
  await traced;
  const layouts = events.filter((e) => e.ph === 'X' && e.name === 'Layout');
  const total = layouts.reduce((a, e) => a + e.dur / 1000, 0);
  console.log(`${layouts.length} layouts, ${fmt(total, 1)} ms in ${SECONDS} s`);
  const roots = new Map();
  for (const e of layouts) {
    const b = e.args?.beginData ?? {};
    const key = `dirty ${b.dirtyObjects} / total ${b.totalObjects}${b.partialLayout ? ' (partial)' : ''}`;
    const r = roots.get(key) ?? { n: 0, ms: 0 };
    r.n++;
    r.ms += e.dur / 1000;
    roots.set(key, r);
  }
  for (const [k, r] of [...roots.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15))
    console.log(`${fmt(r.ms, 1).padStart(8)} ms  ×${r.n}  ${k}`);
  const inv = events.filter(
    (e) =>
      e.name === 'LayoutInvalidationTracking' ||
      e.name === 'ScheduleStyleInvalidationTracking' ||
      e.name === 'PaintInvalidationTracking',
  );
  const reasons = new Map();
  for (const e of inv) {
    const d = e.args?.data ?? {};
    const k = `${e.name}: ${d.reason ?? ''} ${d.nodeName ?? ''}${d.paintId ? ` (layer ${d.paintId})` : ''}`;
    reasons.set(k, (reasons.get(k) ?? 0) + 1);
  }
  for (const [k, n] of [...reasons.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${String(n).padStart(6)}  ${k}`);
  // What is painted: Paint events by the element they start from (a layer's root), time and count.
  const paints = events.filter((e) => e.ph === 'X' && e.name === 'Paint');
  const byNode = new Map();
  for (const e of paints) {
    const d = e.args?.data ?? {};
    const r = byNode.get(d.nodeId) ?? { n: 0, ms: 0, clip: d.clip };
    r.n++;
    r.ms += e.dur / 1000;
    byNode.set(d.nodeId, r);
  }
  console.log(
    `${paints.length} paints, ${fmt(
      paints.reduce((a, e) => a + e.dur / 1000, 0),
      1,
    )} ms in ${SECONDS} s`,
  );
  await cdp.send('DOM.getDocument', { depth: 0 });
  for (const [node, r] of [...byNode.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) {
    let name = String(node);
    try {
      const { node: n } = await cdp.send('DOM.describeNode', { backendNodeId: node });
      const attrs = n.attributes ?? [];
      const get = (k) => attrs[attrs.indexOf(k) + 1];
      name = `${n.nodeName.toLowerCase()}${attrs.includes('id') ? `#${get('id')}` : ''}${attrs.includes('class') ? `.${get('class').split(' ').join('.')}` : ''}`;
    } catch {
      /* gone */
    }
    console.log(`${fmt(r.ms, 1).padStart(8)} ms  ×${r.n}  ${name}  clip ${JSON.stringify(r.clip)}`);
  }
} finally {
  await browser.close();
  await srv.close();
}
