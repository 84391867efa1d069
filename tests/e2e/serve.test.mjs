// Smoke test of the test infrastructure itself: the static server (Range, HEAD, MIME, traversal)
// and headless Chromium (a page loads; WebGPU adapter availability is logged, not asserted).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchBrowser, collectConsole, gpuAdapterInfo, WWW } from './harness.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-serve-'));
const root = path.join(tmp, 'root');
const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7 + 3) & 0xff));
// The smallest valid wasm module: magic + version.
const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
let srv;

before(async () => {
  fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'data.bin'), BYTES);
  fs.writeFileSync(path.join(root, 'empty.bin'), Buffer.alloc(0));
  fs.writeFileSync(path.join(root, 'tiny.wasm'), WASM);
  fs.writeFileSync(path.join(root, 'sub', 'index.html'), '<!doctype html><title>sub</title>');
  fs.writeFileSync(path.join(root, 'app.js'), 'document.title = "loaded:" + (1 + 1);\n');
  fs.writeFileSync(
    path.join(root, 'index.html'),
    '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>smoke</title><script type="module" src="app.js"></script>',
  );
  fs.writeFileSync(path.join(tmp, 'secret.txt'), 'do not serve');
  srv = await startServer({ root, headers: { 'X-Test-Header': 'yes' } });
});

after(async () => {
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Raw request (no URL normalisation, unlike fetch). */
function raw(method, urlPath, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: srv.port, method, path: urlPath, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('GET whole file: 200, Accept-Ranges, no-cache, extra headers', async () => {
  const r = await raw('GET', '/data.bin');
  assert.equal(r.status, 200);
  assert.equal(r.headers['accept-ranges'], 'bytes');
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.equal(r.headers['x-test-header'], 'yes');
  assert.equal(Number(r.headers['content-length']), BYTES.length);
  assert.deepEqual(r.body, BYTES);
});

test('Range bytes=a-b: 206 with the right bytes and Content-Range', async () => {
  const r = await raw('GET', '/data.bin', { Range: 'bytes=10-19' });
  assert.equal(r.status, 206);
  assert.equal(r.headers['content-range'], `bytes 10-19/${BYTES.length}`);
  assert.equal(Number(r.headers['content-length']), 10);
  assert.deepEqual(r.body, BYTES.subarray(10, 20));
});

test('Range bytes=a- and bytes=-n', async () => {
  const open = await raw('GET', '/data.bin', { Range: 'bytes=990-' });
  assert.equal(open.status, 206);
  assert.equal(open.headers['content-range'], `bytes 990-999/${BYTES.length}`);
  assert.deepEqual(open.body, BYTES.subarray(990));
  const suffix = await raw('GET', '/data.bin', { Range: 'bytes=-5' });
  assert.equal(suffix.status, 206);
  assert.equal(suffix.headers['content-range'], `bytes 995-999/${BYTES.length}`);
  assert.deepEqual(suffix.body, BYTES.subarray(995));
  const clamped = await raw('GET', '/data.bin', { Range: 'bytes=998-5000' });
  assert.equal(clamped.status, 206);
  assert.deepEqual(clamped.body, BYTES.subarray(998));
  const bigSuffix = await raw('GET', '/data.bin', { Range: 'bytes=-5000' });
  assert.equal(bigSuffix.status, 206);
  assert.deepEqual(bigSuffix.body, BYTES);
});

test('unsatisfiable Range: 416 with Content-Range bytes */size', async () => {
  for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
    const r = await raw('GET', '/data.bin', { Range: range });
    assert.equal(r.status, 416, range);
    assert.equal(r.headers['content-range'], `bytes */${BYTES.length}`, range);
  }
  const empty = await raw('GET', '/empty.bin', { Range: 'bytes=0-' });
  assert.equal(empty.status, 416);
});

test('malformed or multi-range Range headers are ignored (200, whole body)', async () => {
  for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-3']) {
    const r = await raw('GET', '/data.bin', { Range: range });
    assert.equal(r.status, 200, range);
    assert.deepEqual(r.body, BYTES, range);
  }
});

test('HEAD: headers without a body, ranges too', async () => {
  const r = await raw('HEAD', '/data.bin');
  assert.equal(r.status, 200);
  assert.equal(Number(r.headers['content-length']), BYTES.length);
  assert.equal(r.body.length, 0);
  const rr = await raw('HEAD', '/data.bin', { Range: 'bytes=0-9' });
  assert.equal(rr.status, 206);
  assert.equal(Number(rr.headers['content-length']), 10);
  assert.equal(rr.body.length, 0);
});

test('MIME types', async () => {
  assert.equal((await raw('HEAD', '/tiny.wasm')).headers['content-type'], 'application/wasm');
  assert.match((await raw('HEAD', '/app.js')).headers['content-type'], /^text\/javascript/);
  assert.match((await raw('HEAD', '/index.html')).headers['content-type'], /^text\/html/);
  assert.match((await raw('HEAD', '/')).headers['content-type'], /^text\/html/);
  assert.equal((await raw('HEAD', '/data.bin')).headers['content-type'], 'application/octet-stream');
});

test('the built wasm artefacts (when present) are served as application/wasm', async (t) => {
  const pkg = path.join(WWW, 'pkg');
  const wasm = fs.existsSync(pkg)
    ? fs.readdirSync(pkg, { recursive: true }).filter((f) => String(f).endsWith('.wasm'))
    : [];
  if (wasm.length === 0) {
    t.skip('dist/pkg not built');
    return;
  }
  const www = await startServer();
  try {
    for (const f of wasm) {
      const r = await fetch(`${www.url}pkg/${String(f).split(path.sep).join('/')}`, { method: 'HEAD' });
      assert.equal(r.status, 200, f);
      assert.equal(r.headers.get('content-type'), 'application/wasm', f);
    }
  } finally {
    await www.close();
  }
});

test('directories, 404 and 405', async () => {
  const dir = await raw('GET', '/sub');
  assert.equal(dir.status, 301);
  assert.equal(dir.headers.location, '/sub/');
  const idx = await raw('GET', '/sub/');
  assert.equal(idx.status, 200);
  assert.match(idx.body.toString(), /<title>sub<\/title>/);
  assert.equal((await raw('GET', '/nope.txt')).status, 404);
  assert.equal((await raw('POST', '/data.bin')).status, 405);
});

test('no directory traversal', async () => {
  for (const p of [
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/sub/../../secret.txt',
    '/%2e%2e%5csecret.txt',
    '/..\\secret.txt',
    '/%00',
  ]) {
    const r = await raw('GET', p);
    assert.ok(r.status === 403 || r.status === 404 || r.status === 400, `${p} -> ${r.status}`);
    assert.ok(!r.body.toString().includes('do not serve'), p);
  }
});

test('Chromium launches, loads a page, instantiates wasm; WebGPU adapter logged', { timeout: 120_000 }, async (t) => {
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    const res = await page.goto(srv.url, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    await page.waitForFunction(() => document.title === 'loaded:2', null, { timeout: 10_000 });
    // application/wasm is required by instantiateStreaming.
    const ok = await page.evaluate(async () => {
      const { instance } = await WebAssembly.instantiateStreaming(fetch('tiny.wasm'));
      return instance instanceof WebAssembly.Instance;
    });
    assert.equal(ok, true);
    // Range requests from the browser.
    const ranged = await page.evaluate(async () => {
      const r = await fetch('data.bin', { headers: { Range: 'bytes=10-13' } });
      return { status: r.status, bytes: Array.from(new Uint8Array(await r.arrayBuffer())) };
    });
    assert.equal(ranged.status, 206);
    assert.deepEqual(ranged.bytes, Array.from(BYTES.subarray(10, 14)));
    const gpu = await gpuAdapterInfo(page);
    t.diagnostic(`WebGPU: ${JSON.stringify(gpu)}`);
    const webgl2 = await page.evaluate(() => !!document.createElement('canvas').getContext('webgl2'));
    t.diagnostic(`WebGL2: ${webgl2}`);
    log.assertClean();
  } finally {
    await browser.close();
  }
});

test('Chromium with webgpu: false hides navigator.gpu', { timeout: 120_000 }, async () => {
  const browser = await launchBrowser({ webgpu: false });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    await page.goto(srv.url, { waitUntil: 'load' });
    const gpu = await gpuAdapterInfo(page);
    assert.equal(gpu.gpu, false);
    log.assertClean();
  } finally {
    await browser.close();
  }
});
