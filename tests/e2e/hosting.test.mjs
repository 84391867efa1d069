// Hosting on a plain static server (docs/embedding.md "Hosting"): the nginx server blocks of that
// section, run as written (their ports and folders put in) by nginx started here on 127.0.0.1 (no
// daemon, stopped after): one serves a replay, the other the self-host archive (scripts/archive.mjs),
// unpacked, under a sub-path (/tools/replays/). The full
// page from the second opens the replay from the first (another origin) with ?url=, reading it by
// Range requests nginx answers with 206, and draws it.
//   node scripts/dist.mjs && node --test tests/e2e/hosting.test.mjs    (nginx: node scripts/setup.mjs --browser)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { launchBrowser, collectConsole, ROOT, WWW } from './harness.mjs';
import { OUT, DEMO, waitReady, canvasShot, assertPicture } from './player-helpers.mjs';
import { NGINX } from '../../scripts/setup.mjs';
import { writeArchive } from '../../scripts/archive.mjs';
import { unzipSync } from 'fflate';

const SUB = '/tools/replays/';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-nginx-'));
const replays = path.join(tmp, 'replays');
const ACCESS_LOG = path.join(tmp, 'access.log');
let nginx;
let replayOrigin;
let playerOrigin;
let browser;
/** The unpacked self-host archive's folder, and the archive's size. */
let site;
let archiveBytes;

/** The ```nginx block of docs/embedding.md's "Hosting" section. */
function documentedConfig() {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'embedding.md'), 'utf8');
  const hosting = doc.slice(doc.indexOf('\n## Hosting'));
  const m = /```nginx\n([\s\S]*?)```/.exec(hosting);
  assert.ok(m, 'docs/embedding.md "Hosting" has an nginx block');
  return m[1];
}

async function freePort() {
  const s = net.createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** GET / OPTIONS from Node (headers as sent, no CORS filtering). */
async function request(url, init) {
  const r = await fetch(url, init);
  await r.arrayBuffer();
  return r;
}

before(async () => {
  assert.ok(fs.existsSync(NGINX), `${NGINX} not found: run node scripts/setup.mjs --browser (installs nginx-light)`);
  assert.ok(fs.existsSync(path.join(WWW, 'index.html')), 'dist/ is not built: run node scripts/dist.mjs first');
  fs.mkdirSync(replays);
  fs.mkdirSync(path.join(tmp, 'temp'));
  fs.copyFileSync(DEMO, path.join(replays, 'match.flrep'));
  // The self-host archive (scripts/archive.mjs, what a release attaches), unpacked as an operator
  // does: its one folder, replay-player-VERSION/, served at the sub-path.
  const archive = await writeArchive(tmp);
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(path.basename(archive.file), `replay-player-${version}.zip`);
  for (const [name, data] of Object.entries(unzipSync(fs.readFileSync(archive.file)))) {
    assert.ok(name.startsWith(`replay-player-${version}/`) && !name.includes('..'), `${name}: inside its folder`);
    if (name.endsWith('/')) continue;
    fs.mkdirSync(path.dirname(path.join(tmp, name)), { recursive: true });
    fs.writeFileSync(path.join(tmp, name), data);
  }
  site = path.join(tmp, `replay-player-${version}`);
  for (const f of ['index.html', 'player.js', 'embed.html', 'worker.js', 'pkg/decoder/decoder_bg.wasm'])
    assert.ok(fs.existsSync(path.join(site, f)), `the archive holds ${f}`);
  archiveBytes = archive.bytes;
  const [a, b] = [await freePort(), await freePort()];
  replayOrigin = `http://127.0.0.1:${a}`;
  playerOrigin = `http://127.0.0.1:${b}`;
  // The documented blocks with this machine's ports and folders.
  let n = 0;
  const servers = documentedConfig()
    .replace(/listen 80;/g, () => `listen 127.0.0.1:${[a, b][n++]};`)
    .replace('root /srv/replays;', `root ${replays};`)
    .replace(/alias \/srv\/replay-player-[^/]+\/;/, `alias ${site}/;`);
  assert.equal(n, 2, 'two server blocks');
  const t = (name) => `${name}_temp_path ${path.join(tmp, 'temp', name)};`;
  fs.writeFileSync(
    path.join(tmp, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${path.join(tmp, 'nginx.pid')};
error_log ${path.join(tmp, 'error.log')} warn;
events { worker_connections 64; }
http {
    include /etc/nginx/mime.types;
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(t).join('\n    ')}
    log_format ranges '$server_port $status $request_method $uri "$http_range" $body_bytes_sent';
    access_log ${ACCESS_LOG} ranges;
${servers}
}
`,
  );
  nginx = spawn(NGINX, ['-p', tmp, '-e', path.join(tmp, 'error.log'), '-c', path.join(tmp, 'nginx.conf')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    if (nginx.exitCode !== null)
      throw new Error(`nginx exited: ${fs.readFileSync(path.join(tmp, 'error.log'), 'utf8')}`);
    const up = await Promise.all(
      [replayOrigin, playerOrigin].map((o) =>
        fetch(`${o}/`)
          .then(() => true)
          .catch(() => false),
      ),
    );
    if (up.every(Boolean)) break;
    if (Date.now() > end) throw new Error('nginx did not start listening');
  }
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  if (nginx && nginx.exitCode === null) {
    nginx.kill('SIGTERM');
    await once(nginx, 'exit');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The access log's lines: `{port, status, method, uri, range, bytes}`. */
function accessLog() {
  return fs
    .readFileSync(ACCESS_LOG, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [, port, status, method, uri, range, bytes] = /^(\d+) (\d+) (\S+) (\S+) "([^"]*)" (\d+)$/.exec(l);
      return { port: Number(port), status: Number(status), method, uri, range, bytes: Number(bytes) };
    });
}

test('the replay host: 206 with Content-Range and the CORS headers; a preflight is answered', async () => {
  const size = fs.statSync(path.join(replays, 'match.flrep')).size;
  const r = await request(`${replayOrigin}/match.flrep`, {
    headers: { Range: 'bytes=0-65535', Origin: playerOrigin },
  });
  assert.equal(r.status, 206);
  assert.equal(r.headers.get('content-range'), `bytes 0-65535/${size}`);
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  assert.match(r.headers.get('access-control-expose-headers'), /Content-Range.*Content-Length.*Accept-Ranges/);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('content-encoding'), null, 'not compressed');
  // A whole-file answer says ranges are supported (nginx sends it there, not on a 206).
  const head = await request(`${replayOrigin}/match.flrep`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('accept-ranges'), 'bytes');
  assert.equal(Number(head.headers.get('content-length')), size);
  assert.match(head.headers.get('cache-control'), /max-age=/);
  // Even when the client accepts gzip: ranges stay ranges.
  const gz = await request(`${replayOrigin}/match.flrep`, {
    headers: { Range: 'bytes=100-199', 'Accept-Encoding': 'gzip, br' },
  });
  assert.equal(gz.status, 206);
  const pre = await request(`${replayOrigin}/match.flrep`, {
    method: 'OPTIONS',
    headers: {
      Origin: playerOrigin,
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'range',
    },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  assert.match(pre.headers.get('access-control-allow-headers'), /Range/i);
});

test("the player's host: a sub-path, application/wasm, CORS, revalidated", async (t) => {
  t.diagnostic(`self-host archive: ${(archiveBytes / 1024).toFixed(0)} KiB`);
  const wasm = await request(`${playerOrigin}${SUB}pkg/decoder/decoder_bg.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  assert.equal(wasm.headers.get('access-control-allow-origin'), '*');
  assert.equal(wasm.headers.get('cache-control'), 'no-cache');
  const js = await request(`${playerOrigin}${SUB}player.js`);
  assert.match(js.headers.get('content-type'), /javascript/);
});

test('the full page from a sub-path opens a replay on another origin with ?url=', { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const log = collectConsole(page);
  const src = `${replayOrigin}/match.flrep`;
  const before = accessLog().length;
  await page.goto(`${playerOrigin}${SUB}?url=${encodeURIComponent(src)}&t=6`);
  const s = await waitReady(page);
  assert.equal(s.info.sourceKind, 'url');
  assert.ok(Math.abs(s.time - 6) < 0.1, `at the link's moment (${s.time})`);
  fs.mkdirSync(OUT, { recursive: true });
  assertPicture(await canvasShot(page, path.join(OUT, 'hosting-nginx.png')), 'a replay from nginx');
  // The replay was read in ranges, each answered 206, and never whole.
  const reads = accessLog()
    .slice(before)
    .filter((l) => l.uri === '/match.flrep');
  assert.ok(reads.length >= 3, `opening and the first chunk took several reads (${reads.length})`);
  for (const r of reads) {
    assert.equal(r.status, 206, `${r.method} ${r.range} → ${r.status}`);
    assert.match(r.range, /^bytes=\d+-\d+$/);
  }
  const size = fs.statSync(path.join(replays, 'match.flrep')).size;
  const total = reads.reduce((n, r) => n + r.bytes, 0);
  assert.ok(total < size / 2, `read ${total} of ${size} bytes`);
  // The player's own files came from the sub-path.
  const own = accessLog()
    .slice(before)
    .filter((l) => l.port === Number(new URL(playerOrigin).port));
  assert.ok(own.length > 5 && own.every((l) => l.uri.startsWith(SUB)), 'every player file from the sub-path');
  assert.ok(
    own.every((l) => l.status === 200 || l.status === 304),
    `player files answered (${own.map((l) => l.status)})`,
  );
  // The service worker's scope is the sub-path.
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, `${playerOrigin}${SUB}`);
  log.assertClean();
  await page.close();
});
