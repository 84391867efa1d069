// Live segments at scale (issue 21, docs/live.md "Segments"): `replay live-serve --generate
// --segments DIR` publishes a match in real time while nginx (Debian's nginx-light, started here on
// 127.0.0.1 with docs/live.md's location block as written) serves the directory to 1,000 simulated
// viewers that poll the manifest as a browser would (about once per target duration, revalidating
// with If-None-Match as its HTTP cache does under `max-age=1`), fetch the prefix once and each new
// segment once. Nothing of ours runs per viewer. Asserted: every viewer ends with the whole match
// (the prefix and segments it fetched are, byte for byte, the finished recording before its
// trailer), saw the end, fetched no segment twice; nginx answered only 200 and 304, with the cache
// lifetimes the doc gives. Printed (not asserted): requests, nginx CPU and peak memory, the delay
// from a segment's file appearing to the viewers having it, and bytes per viewer per minute beside
// the recording's own bytes per minute (docs/performance.md "Live"). The manifest lists a window of
// the latest 10 segments.
//   LIVE_POLLERS=1000 LIVE_SECONDS=20 node --test tests/e2e/live-pollers.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ROOT, replayBinPath } from './harness.mjs';
import { replayCli } from './player-helpers.mjs';
import { NGINX } from '../../scripts/setup.mjs';

const VIEWERS = Number(process.env.LIVE_POLLERS ?? 1000);
const SECONDS = Number(process.env.LIVE_SECONDS ?? 20);
const CHUNK_TICKS = 60; // 1 s chunks at 60 Hz
// The manifest lists the latest 10 segments (docs/live.md: for short chunks, a window keeps each
// poll small); a viewer polls about once a chunk, so it sees every segment listed.
const WINDOW = 10;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-live-nginx-'));
const segDir = path.join(tmp, 'live');
const finished = path.join(tmp, 'finished.flrep');
const ACCESS_LOG = path.join(tmp, 'access.log');
let nginx;
let origin;

/** The ```nginx block of docs/live.md's "Segments" section. */
function documentedBlock() {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'live.md'), 'utf8');
  const m = /```nginx\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('\n## Segments')));
  assert.ok(m, 'docs/live.md "Segments" has an nginx block');
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

/** utime + stime (s) and peak RSS (KiB) of a process, from /proc. */
function usage(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const hz = 100; // USER_HZ on Linux
  const cpu = (Number(f[11]) + Number(f[12])) / hz;
  const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpu, peakKiB: hwm ? Number(hwm[1]) : 0 };
}

before(async () => {
  assert.ok(fs.existsSync(NGINX), `${NGINX} not found: run node scripts/setup.mjs --browser (installs nginx-light)`);
  replayCli(['--help']); // builds the CLI when it is missing
  fs.mkdirSync(segDir);
  fs.mkdirSync(path.join(tmp, 'temp'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const block = documentedBlock().replace('alias /srv/live/;', `alias ${segDir}/;`);
  assert.ok(block.includes(segDir), 'the block serves the segments directory');
  const t = (name) => `${name}_temp_path ${path.join(tmp, 'temp', name)};`;
  fs.writeFileSync(
    path.join(tmp, 'nginx.conf'),
    `daemon off;
master_process off;
worker_rlimit_nofile 8192;
pid ${path.join(tmp, 'nginx.pid')};
error_log ${path.join(tmp, 'error.log')} warn;
events { worker_connections 4096; }
http {
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(t).join('\n    ')}
    types { application/json json; application/octet-stream flrep flck; }
    keepalive_requests 100000;
    log_format live '$status $request_method $uri $body_bytes_sent';
    access_log ${ACCESS_LOG} live;
    server {
        listen 127.0.0.1:${port};
${block}
    }
}
`,
  );
  nginx = spawn(NGINX, ['-p', tmp, '-e', path.join(tmp, 'error.log'), '-c', path.join(tmp, 'nginx.conf')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    if (nginx.exitCode !== null)
      throw new Error(`nginx exited: ${fs.readFileSync(path.join(tmp, 'error.log'), 'utf8')}`);
    const up = await fetch(`${origin}/`)
      .then(() => true)
      .catch(() => false);
    if (up) break;
    if (Date.now() > end) throw new Error('nginx did not start listening');
  }
});

after(async () => {
  if (nginx && nginx.exitCode === null) {
    nginx.kill('SIGTERM');
    await once(nginx, 'exit');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Whether the match's writer (live-serve) has exited. */
const served = { exited: false };

/** One viewer: polls the manifest, fetches the prefix once and each segment it lists once. */
async function viewer(i, seen) {
  const base = `${origin}/live/`;
  const v = {
    bytes: 0,
    requests: 0,
    polls: 0,
    segments: new Map(),
    prefix: null,
    ended: false,
    error: null,
    caughtUp: 0,
  };
  let etag = null;
  let manifest = null;
  const get = async (uri, headers = {}) => {
    v.requests++;
    const r = await fetch(base + uri, { headers });
    const body = Buffer.from(await r.arrayBuffer());
    v.bytes += body.length;
    return { r, body };
  };
  // Viewers join over the first second, as people opening a link do.
  await sleep((i * 1000) / VIEWERS);
  // Until the manifest says the match ended (a loaded machine polls slower, so no fixed window):
  // once the writer has exited, at most 5 more polls (a manifest that never ends is a failure).
  for (let after = 0; after < 5; after += served.exited ? 1 : 0) {
    const { r, body } = await get('manifest.json', etag ? { 'If-None-Match': etag } : {});
    v.polls++;
    if (r.status === 200) {
      etag = r.headers.get('etag');
      manifest = JSON.parse(body.toString('utf8'));
    } else if (r.status !== 304 && r.status !== 404) {
      throw new Error(`viewer ${i}: manifest answered ${r.status}`);
    }
    if (manifest) {
      if (!v.prefix) v.prefix = (await get(manifest.prefix.uri)).body;
      // A viewer that fell behind for longer than the window (a loaded machine, a tab that slept)
      // reads the segments that left the manifest by their names, as the player does
      // (docs/live.md "A window that moved past unread segments"); the byte check below covers them.
      const first = manifest.segments[0]?.seq ?? 0;
      for (let seq = v.segments.size ? Math.max(...v.segments.keys()) + 1 : 0; seq < first; seq++) {
        const uri = `chunk-${String(seq).padStart(8, '0')}.flck`;
        const { r: cr, body: cb } = await get(uri);
        if (cr.status !== 200) throw new Error(`viewer ${i}: ${uri} (read by name) answered ${cr.status}`);
        v.segments.set(seq, cb);
        v.caughtUp++;
        const t = seen.get(uri) ?? [];
        t.push(Date.now());
        seen.set(uri, t);
      }
      for (const s of manifest.segments) {
        if (v.segments.has(s.seq)) continue;
        const { r: sr, body: sb } = await get(s.uri);
        if (sr.status !== 200) throw new Error(`viewer ${i}: ${s.uri} answered ${sr.status}`);
        if (sb.length !== s.bytes) throw new Error(`viewer ${i}: ${s.uri} is ${sb.length} bytes, listed ${s.bytes}`);
        v.segments.set(s.seq, sb);
        const t = seen.get(s.uri) ?? [];
        t.push(Date.now());
        seen.set(s.uri, t);
      }
      if (manifest.ended) {
        v.ended = true;
        break;
      }
    }
    // About once per target duration (a browser's poll), jittered so the viewers spread out.
    await sleep(((manifest?.target_duration_s ?? 1) * 1000 * (0.75 + Math.random() * 0.5)) | 0);
  }
  return v;
}

test(`${VIEWERS} viewers polling live segments from nginx all get the whole match, byte for byte`, {
  timeout: (SECONDS + 600) * 1000,
}, async (t) => {
  const before = usage(nginx.pid);
  const serve = spawn(
    replayBinPath(),
    [
      'live-serve',
      '--generate',
      ...['--entities', '20', '--seconds', String(SECONDS), '--seed', '7'],
      ...['--live-chunk-ticks', String(CHUNK_TICKS), '--manifest-window', String(WINDOW)],
      ...['--segments', segDir, '--out', finished],
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serveLog = '';
  serve.stdout.on('data', (d) => {
    serveLog += d;
  });
  serve.stderr.on('data', (d) => {
    serveLog += d;
  });
  // The segments' files appear as the match is written: their times, for the delay figure.
  const appeared = new Map();
  const watch = setInterval(() => {
    for (const f of fs.readdirSync(segDir))
      if (f.endsWith('.flck') && !appeared.has(f)) appeared.set(f, fs.statSync(path.join(segDir, f)).mtimeMs);
  }, 20);
  const seen = new Map();
  const t0 = Date.now();
  serve.on('exit', () => {
    served.exited = true;
  });
  const viewers = await Promise.all(
    Array.from({ length: VIEWERS }, (_, i) =>
      viewer(i, seen).catch((e) => ({ error: String(e?.message ?? e), segments: new Map() })),
    ),
  );
  const wall = (Date.now() - t0) / 1000;
  clearInterval(watch);
  const [code] = serve.exitCode === null ? await once(serve, 'exit') : [serve.exitCode];
  assert.equal(code, 0, `live-serve: ${serveLog}`);
  const after = usage(nginx.pid);

  // Every viewer has the whole match: the prefix and the segments, in order, are the finished
  // recording's bytes before its trailer.
  const file = fs.readFileSync(finished);
  const manifest = JSON.parse(fs.readFileSync(path.join(segDir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.ended, true, 'the manifest says the match is over');
  const last = manifest.segments.at(-1);
  const count = last.seq + 1;
  const want = crypto
    .createHash('sha256')
    .update(file.subarray(0, last.offset + last.bytes))
    .digest('hex');
  const errors = viewers.filter((v) => v.error).map((v) => v.error);
  assert.deepEqual(errors.slice(0, 3), [], `${errors.length} viewers failed`);
  for (const [i, v] of viewers.entries()) {
    assert.ok(v.ended, `viewer ${i} saw the end`);
    assert.equal(v.segments.size, count, `viewer ${i} has every segment`);
    const h = crypto.createHash('sha256').update(v.prefix);
    for (let seq = 0; seq < count; seq++) h.update(v.segments.get(seq) ?? Buffer.alloc(0));
    assert.equal(h.digest('hex'), want, `viewer ${i}'s bytes are the recording's`);
  }
  assert.equal(seen.size, count, 'every segment fetched');
  for (const [uri, times] of seen) assert.equal(times.length, VIEWERS, `${uri} fetched once by each viewer`);

  // nginx: only 200 and 304; the cache lifetimes of docs/live.md.
  // (The readiness probe's `/` is not the directory's; a manifest asked for before the first one
  // is written is a 404, which a viewer polls past.)
  const lines = fs
    .readFileSync(ACCESS_LOG, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '))
    .filter(([, , uri]) => uri.startsWith('/live/'));
  const status = {};
  for (const [code] of lines) status[code] = (status[code] ?? 0) + 1;
  const requests = viewers.reduce((a, v) => a + v.requests, 0);
  assert.equal(lines.length, requests, 'nginx logged every request the viewers made');
  const odd = lines.filter(
    ([code, , uri]) => !(code === '200' || code === '304' || (code === '404' && uri === '/live/manifest.json')),
  );
  assert.deepEqual(odd.slice(0, 3), [], `nginx answered ${JSON.stringify(status)}`);
  const m = await fetch(`${origin}/live/manifest.json`);
  assert.equal(m.headers.get('cache-control'), 'public, max-age=1');
  const seg = await fetch(`${origin}/live/${manifest.segments[0].uri}`);
  assert.equal(seg.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  await Promise.all([m.arrayBuffer(), seg.arrayBuffer()]);

  // Figures.
  const delays = [];
  for (const [uri, times] of seen) {
    const at = appeared.get(uri);
    if (at !== undefined) for (const x of times) delays.push(x - at);
  }
  delays.sort((a, b) => a - b);
  const q = (p) => delays[Math.min(delays.length - 1, Math.floor(p * delays.length))] ?? NaN;
  const minutes = SECONDS / 60;
  const perViewer = viewers.reduce((a, v) => a + v.bytes, 0) / VIEWERS / minutes;
  const filePerMinute = file.length / minutes;
  const polls = viewers.reduce((a, v) => a + v.polls, 0);
  t.diagnostic(
    `live-pollers: ${VIEWERS} viewers, ${SECONDS} s match in ${count} segments of ${CHUNK_TICKS} ticks (manifest window ${WINDOW}), ` +
      `${wall.toFixed(1)} s wall; ${requests} requests (${(requests / wall).toFixed(0)}/s; ${polls} manifest polls, ${viewers.reduce((a, v) => a + v.caughtUp, 0)} segments read by name after leaving the window), nginx ${JSON.stringify(status)}; ` +
      `nginx CPU ${(after.cpu - before.cpu).toFixed(2)} s (${((1000 * (after.cpu - before.cpu)) / VIEWERS).toFixed(2)} ms per viewer), peak RSS ${(after.peakKiB / 1024).toFixed(1)} MiB; ` +
      `segment on disk -> a viewer has it: p50 ${q(0.5).toFixed(0)} ms, p95 ${q(0.95).toFixed(0)} ms, max ${q(1).toFixed(0)} ms; ` +
      `bytes per viewer per minute ${perViewer.toFixed(0)} vs the file's ${filePerMinute.toFixed(0)}: ${(perViewer / filePerMinute).toFixed(3)}x; ` +
      `live-serve: ${serveLog.trim().split('\n').at(-1)}`,
  );
});
