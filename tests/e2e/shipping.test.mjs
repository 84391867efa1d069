// What the player page loads, end to end in headless Chromium: decoding stays in the worker and
// drawing in the render worker (the page loads neither wasm), and a WebGPU .flrep session's
// download stays within the 250 KB budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, WWW, expectedBackend } from './harness.mjs';
import { waitReady, decoderWorker, renderWorker, pageSuite } from './player-helpers.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

test('decoding happens in the worker and drawing in the render worker: the page loads neither wasm; the renderer wasm has no decoder', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    const s = await waitReady(page);
    assert.equal(s.renderInWorker, true, 'Chromium draws in a render worker');
    const pageResources = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(!pageResources.some((n) => /_bg\.wasm$/.test(n)), `the page loads no wasm: ${pageResources.join(', ')}`);
    assert.ok(
      !pageResources.some((n) => /decoder(_bg\.wasm|\.js)$/.test(n)),
      `page resources: ${pageResources.join(', ')}`,
    );
    const renderResources = await renderWorker(page).evaluate(() =>
      performance.getEntriesByType('resource').map((e) => e.name),
    );
    assert.ok(
      renderResources.some((n) => /renderer(_webgl)?_bg\.wasm$/.test(n)),
      `the render worker loads a renderer wasm: ${renderResources.join(', ')}`,
    );
    assert.ok(
      !renderResources.some((n) => /decoder/.test(n)),
      `render worker resources: ${renderResources.join(', ')}`,
    );
    const worker = decoderWorker(page);
    const workerResources = await worker.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(
      workerResources.some((n) => n.endsWith('pkg/decoder/decoder.js')),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(
      workerResources.some((n) => n.endsWith('pkg/decoder/decoder_bg.wasm')),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(!workerResources.some((n) => /renderer/.test(n)));
    // A .flrep session fetches only the .flrep decoder build, and none of the page modules that only
    // .foldback / live sessions use (they are imported on demand).
    assert.ok(
      !workerResources.some((n) => /decoder_(spark|foldback)|worker-foldback\.js$/.test(n)),
      `worker resources: ${workerResources.join(', ')}`,
    );
    assert.ok(
      !pageResources.some((n) => /\/(ui\/foldback|live)\.js$/.test(n)),
      `page resources: ${pageResources.join(', ')}`,
    );
    // The page's module graph has no decoder import.
    const modules = await page.evaluate(() => [...document.querySelectorAll('script[type=module]')].map((s) => s.src));
    assert.equal(modules.length, 1);
    log.assertClean();
  } finally {
    await page.close();
  }
  for (const name of ['renderer', 'renderer_webgl']) {
    const wasm = fs.readFileSync(path.join(WWW, 'pkg', name, `${name}_bg.wasm`));
    const mod = await WebAssembly.compile(wasm);
    const names = [
      ...WebAssembly.Module.imports(mod).map((i) => `${i.module}.${i.name}`),
      ...WebAssembly.Module.exports(mod).map((e) => e.name),
    ];
    const bad = names.filter((n) => /zstd|decod|session|chunk/i.test(n));
    assert.deepEqual(bad, [], `${name}: decoder symbols in imports/exports`);
    for (const s of ['ruzstd', 'DecoderSession', 'decodechunk', 'decoderSession'])
      assert.ok(!wasm.includes(s), `${name}_bg.wasm contains ${s}`);
    const js = fs.readFileSync(path.join(WWW, 'pkg', name, `${name}.js`), 'utf8');
    assert.doesNotMatch(js, /DecoderSession|decodeChunk/);
  }
});

test('download budget: a WebGPU .flrep session fetches at most 250 KB (gzip -9) of JS + wasm', {
  timeout: 120_000,
}, async (t) => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    // The budget is for a WebGPU browser: the harness's flags give one (no skip on a quiet fallback).
    assert.equal(await page.evaluate(() => window.__player.diagnostics.snapshot().backend), expectedBackend(true));
    await page.evaluate(() => window.__player.play());
    await page.waitForTimeout(1500);
    const urls = [
      ...(await page.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)])),
      ...(
        await Promise.all(
          page
            .workers()
            .map((w) =>
              w.evaluate(() => [location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]),
            ),
        )
      ).flat(),
    ];
    const files = new Set();
    for (const u of urls) {
      let p = decodeURIComponent(new URL(u).pathname);
      if (!p.startsWith('/dist/')) continue;
      if (p.endsWith('/')) p += 'index.html';
      if (p.endsWith('.flrep')) continue; // the replay's own bytes
      files.add(path.join(ROOT, p));
    }
    const sizes = [...files].map((f) => [
      path.relative(WWW, f),
      zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length,
    ]);
    // The goal (issue 3) is JS + wasm; the page's HTML, CSS and icon are reported beside it.
    const code = sizes.filter(([f]) => /\.(js|wasm)$/.test(f));
    const total = code.reduce((a, [, n]) => a + n, 0);
    const all = sizes.reduce((a, [, n]) => a + n, 0);
    t.diagnostic(
      `JS + wasm: ${code.length} files, ${(total / 1000).toFixed(1)} KB gzipped; with HTML, CSS and icon ${(all / 1000).toFixed(1)} KB: ${sizes
        .sort((a, b) => b[1] - a[1])
        .map(([f, n]) => `${f} ${(n / 1000).toFixed(1)}`)
        .join(', ')}`,
    );
    assert.ok(
      code.some(([f]) => f.endsWith('render-worker.js')) && code.some(([f]) => f === 'worker.js'),
      'both workers counted',
    );
    assert.ok(
      sizes.some(([f]) => f.endsWith('decoder_bg.wasm')) && sizes.some(([f]) => f.endsWith('renderer_bg.wasm')),
      'both wasm builds counted',
    );
    assert.ok(
      !sizes.some(([f]) => /renderer_webgl|decoder_spark|decoder_foldback|decoder_export|export-worker/.test(f)),
      'nothing a .flrep WebGPU session does not need',
    );
    assert.ok(total <= 250_000, `${total} bytes of JS + wasm gzipped > 250,000 (docs/performance.md, Download size)`);
    log.assertClean();
  } finally {
    await page.close();
  }
});
