import { launchBrowser, serveRoot, benchFile, openWithPicker, machineLine, openPlayerPage } from './lib.mjs';
const srv = await serveRoot();
const browser = await launchBrowser({ webgpu: true });
try {
  const { page } = await openPlayerPage(browser, srv, '');
  await openWithPicker(page, benchFile('hour-200', { entities: 200, seconds: 3600 }));
  const r = await page.evaluate(async () => {
    const kf = window.__ui.panels.killfeed;
    const out = [];
    for (let j = 0; j < 10; j++) {
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const i = Math.floor(Math.random() * kf.inspect().count);
      const t0 = performance.now();
      kf.reveal(i);
      const t1 = performance.now();
      document.body.offsetHeight;
      const t2 = performance.now();
      out.push([(t1 - t0).toFixed(2), (t2 - t1).toFixed(2), kf.inspect().rows]);
    }
    return out;
  });
  console.log(JSON.stringify(r));
} finally { await browser.close(); await srv.close(); }
