// Live `.flrep` in the page (`?live=`, docs/live.md "The player"), end to end in headless Chromium:
// a generated match published by `replay live-serve` as HTTP segments (served by the test's static
// server, and by nginx on loopback when it is installed) and over WebSocket. The player shows LIVE,
// follows the edge, shows kill markers as the manifest lists them, seeks back into what it
// received, and turns into an ordinary replay at the end, whose frame at tick T equals the
// finished file's (the same packed frame, opened as a file). Faults: a stalled manifest, a
// truncated segment and a hostile manifest end with their words; a WebSocket server killed
// mid-match and started again resumes with no missing or doubled chunk.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, WWW, replayBinPath } from './harness.mjs';
import { OUT, pageSuite, replayCli } from './player-helpers.mjs';
import { freshDir, liveState, waitFor, frameAt, fileFrame } from './live-helpers.mjs';
import { crc32 } from '../../www/workers/decode/live-ws.ts';

const s = pageSuite();

/** The match: a 56 s dogfight (its first kills come at about 49 s) played 4× faster, in 0.5 s chunks. */
const match = (seconds = 56) => [
  '--generate',
  '--seconds',
  String(seconds),
  '--entities',
  '40',
  '--seed',
  '7',
  '--live-chunk-ticks',
  '30',
];
const MATCH = match();

/** Starts `replay live-serve` with `args`; resolves once it printed `want` (a RegExp) with the match. */
function source(args, want) {
  const proc = spawn(replayBinPath(), ['live-serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const ready = new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = want.exec(out);
      if (m) resolve(m);
    });
    proc.stderr.on('data', (d) => {
      out += d;
    });
    exited.then((code) => reject(new Error(`live-serve exited (${code}) before it was ready: ${out}`)));
  });
  return { proc, ready, exited, output: () => out };
}

/** The kills `replay dump` lists for `file`: "tick:killer:victim" strings. */
function dumpKills(file) {
  return replayCli(['dump', file])
    .split('\n')
    .filter((l) => l.includes('"kind":"kill"'))
    .map((l) => JSON.parse(l).event)
    .map((e) => `${e.tick}:${e.killer}:${e.victim}`);
}

/** Until the timeline has grown 3 times (looks 250 ms apart, while live): it grows, and the
 *  playhead, following, stays within its delay (and what the 4× match runs ahead between two
 *  looks) of the edge. A count of growths, not a rate: a slow machine only takes more looks. */
async function checkFollows(page) {
  let st;
  const seen = [];
  let grew = 0;
  for (let i = 0; i < 120 && grew < 3; i++) {
    st = await liveState(page);
    if (st.status !== 'live') break;
    if (seen.length && st.duration > seen.at(-1).duration) grew++;
    seen.push(st);
    await page.waitForTimeout(250);
  }
  assert.ok(grew >= 3, `the timeline grew as chunks came (${grew} times in ${seen.length} looks)`);
  for (const x of seen.filter((x) => x.following)) {
    const behind = x.duration - x.t;
    // (The match plays 4× faster than the clock: the edge runs ahead between two follows.)
    assert.ok(
      behind >= 0 && behind <= x.delay + 3,
      `the playhead ${behind.toFixed(2)} s behind the edge (delay ${x.delay})`,
    );
  }
}

/**
 * The live session from the page's point of view, until the end; the checks both sources share.
 * `follows`: check the playhead follows the edge; `seekBack`: seek back and "Go live" (the source is
 * held meanwhile, so the match cannot end first: a source much faster than the clock passes false).
 */
async function watchLive(page, file, src, { follows = true, seekBack = true } = {}) {
  // LIVE, and following: the playhead stays within a chunk and the delay of the edge as it grows.
  let st = await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.badge.includes('LIVE') && x.tick >= 0);
  assert.equal(st.error, null);
  if (follows) await checkFollows(page);

  // Seeking back: the frame there, the badge says how far behind, "Go live" returns to the edge.
  // The source is stopped (SIGSTOP) meanwhile: the session is still live by construction, not
  // because the match happened not to end yet. (Held, a segments source may read as stalled.)
  const first = await page.evaluate(() => __player.diagnostics.snapshot().firstTick);
  if (seekBack) {
    src.proc.kill('SIGSTOP');
    try {
      st = await liveState(page);
      assert.equal(st.status, 'live', 'the match is still live when the source is held');
      const back = await page.evaluate(async () => {
        const p = window.__player;
        p.pause();
        await p.seek(1.0);
        return { tick: p.tick, t: p.currentTime };
      });
      assert.equal(back.tick, first + 60, 'the seek back shows 1.0 s after the first tick received (60 Hz)');
      st = await liveState(page);
      assert.ok(['live', 'stalled'].includes(st.status), `still live: ${st.status}`);
      assert.equal(st.following, false, 'a seek back leaves the edge');
      assert.ok(st.goLive, 'Go live is offered');
      assert.match(st.badge, st.status === 'live' ? /\d+ s behind/ : /stalled/);
      await page.click('.live-badge button');
      st = await waitFor(page, 'back at the edge', (x) => x.following && x.duration - x.t < x.delay + 3);
      assert.equal(st.goLive, false, 'at the edge, Go live is gone');
    } finally {
      src.proc.kill('SIGCONT');
    }
  }

  // Kill markers from the source, while it is live: each one a kill of the finished file.
  st = await waitFor(page, 'a kill marker', (x) => x.kills > 0, 40000);
  const liveKills = await page.evaluate(() => __player.kills.map((k) => `${k.tick}:${k.killer}:${k.victim}`));

  // The end: an ordinary replay (no badge, the whole length, plays to its end).
  st = await waitFor(page, 'the end of the match', (x) => x.status === 'ended', 40000);
  await src.exited;
  st = await waitFor(page, 'the badge gone', (x) => x.badge === '');
  const info = replayCli(['info', file]);
  const ticks = Number(/\((\d+) ticks/.exec(info)[1]);
  assert.equal(Math.round(st.duration * 60), ticks - 1 - first, 'the whole match from the join is on the timeline');
  const fileKills = dumpKills(file).filter((k) => Number(k.split(':')[0]) >= first);
  for (const k of liveKills) assert.ok(fileKills.includes(k), `live kill ${k} is one of the file's`);
  const allKills = await page.evaluate(() => __player.kills.map((k) => `${k.tick}:${k.killer}:${k.victim}`));
  assert.deepEqual(allKills, fileKills, "at the end the markers are the file's kills");

  // Frames: the same at tick T as the finished file's (before, at and after a chunk boundary).
  for (const T of [first + 45, first + 1234, ticks - 2]) {
    const live = await frameAt(page, T);
    const want = await fileFrame(s, file, T);
    assert.equal(live.tick, T);
    assert.ok(live.frame.length > 0, `a frame at tick ${T}`);
    assert.deepEqual(live.frame, want.frame, `the frame at tick ${T} is the finished file's`);
  }
  // Plays to its end as any replay does.
  const ended = await page.evaluate(async () => {
    const p = window.__player;
    await p.seek(p.duration - 0.5);
    const e = new Promise((r) => p.on('ended', () => r(true)));
    p.play();
    return Promise.race([e, new Promise((r) => setTimeout(() => r(false), 5000))]);
  });
  assert.ok(ended, "playing on reaches the replay's end");
  return { ...st, first };
}

test('segments: LIVE, the edge followed, kill markers, seek back, Go live, the end an ordinary replay', {
  timeout: 90000,
}, async () => {
  const dir = freshDir('live-seg');
  const file = path.join(OUT, 'live-seg.flrep');
  const src = source([...MATCH, '--rate', '4', '--segments', dir, '--out', file], /segments in/);
  await src.ready;
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-seg/manifest.json')}`);
  await watchLive(page, file, src);
  const stats = await page.evaluate(() => __player.diagnostics.workerStats());
  // Each segment fetched once (and no more polls than a quarter chunk apart allow).
  assert.equal(stats.live.fetched, stats.live.chunks, 'each segment fetched once');
  log.assertClean();
  await page.close();
  segmentsWritten = dir;
});

/** The finished segments directory the test above wrote in this run (null: not run, or failed). */
let segmentsWritten = null;

/** A finished segments directory (the test above's, written in this run, or made here) copied to
 *  `name`, its manifest cut to the first `n` segments and not ended. Returns {dir, manifest}. */
function partialDir(name, n) {
  let from = segmentsWritten;
  if (!from) {
    from = freshDir('live-seg-static');
    const r = spawnSync(replayBinPath(), ['live-serve', ...MATCH, '--rate', '20', '--segments', from]);
    assert.equal(r.status, 0, `replay live-serve: ${r.stderr}`);
    segmentsWritten = from;
  }
  const dir = freshDir(name);
  for (const f of fs.readdirSync(from)) fs.copyFileSync(path.join(from, f), path.join(dir, f));
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const full = m.segments;
  // Renamed into place, as live-serve does: a poll never reads half a manifest.
  const write = (k, patch = {}) => {
    const tmp = path.join(dir, '.manifest.json.tmp');
    fs.writeFileSync(
      tmp,
      JSON.stringify({ ...m, segments: full.slice(0, k), ended: false, file: undefined, ...patch }),
    );
    fs.renameSync(tmp, path.join(dir, 'manifest.json'));
  };
  write(n);
  return { dir, full, write };
}

test('a manifest that stops changing says stalled; one gone says reconnecting; both resume', {
  timeout: 30000,
}, async () => {
  const { dir, write } = partialDir('live-stalled', 8);
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-stalled/manifest.json')}`);
  const st = await waitFor(page, 'stalled', (x) => x.status === 'stalled', 15000);
  assert.match(st.badge, /stalled/);
  assert.equal(st.error, null);
  assert.ok(st.duration > 3.5, `what was received plays (${st.duration} s)`);
  const back = await page.evaluate(async () => {
    await __player.seek(1.5);
    return __player.tick;
  });
  assert.equal(back, 90);
  // The manifest gone (404): reconnecting, asked for again after a backoff; back with two more
  // segments: live again, and the timeline grows by them.
  fs.rmSync(path.join(dir, 'manifest.json'));
  await waitFor(page, 'reconnecting', (x) => x.status === 'reconnecting' && /reconnecting/.test(x.badge), 10000);
  write(10);
  const again = await waitFor(page, 'live again', (x) => x.status === 'live' && x.duration > st.duration, 15000);
  assert.equal(Math.round((again.duration - st.duration) * 60), 60, 'two more 30-tick chunks');
  log.assertClean([/Failed to load resource: the server responded with a status of 404/]);
  await page.close();
});

test('joining a match in progress takes its last 30 s of segments: the timeline starts there; at the end the whole recording opens', {
  timeout: 60000,
}, async () => {
  const { dir, full, write } = partialDir('live-join', 1000);
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-join/manifest.json')}`);
  await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.tick >= 0);
  const got = await page.evaluate(async () => ({
    first: __player.diagnostics.snapshot().firstTick,
    last: __player.diagnostics.snapshot().lastTick,
    stats: (await __player.diagnostics.workerStats()).live,
  }));
  const last = full.at(-1);
  const joined = full.filter((x) => (last.last_tick - x.first_tick) / 60 <= 30);
  assert.ok(full.length > joined.length, `the match (${full.length} segments) is longer than 30 s`);
  assert.equal(got.first, joined[0].first_tick, 'the timeline starts at the first segment of the last 30 s');
  assert.equal(got.last, last.last_tick);
  assert.equal(got.stats.fetched, joined.length, 'only those segments fetched');
  assert.deepEqual(got.stats.seqs, [joined[0].seq, last.seq]);

  // The match ends and the manifest names the complete recording: this session lacks the first
  // part of the match, so the whole recording opens instead, at the tick the playhead was on,
  // with its own kill markers (every kill, the first part's too) and a notice saying so.
  const file = path.join(dir, 'recording.flrep');
  const at = await page.evaluate(async () => {
    const p = window.__player;
    p.pause();
    await p.seek(5);
    return p.tick;
  });
  // (The live view's badge, held: the view goes, and its badge with it, once the whole file opens.)
  const badge = await page.evaluateHandle(() => document.querySelector('.live-badge'));
  write(full.length, { ended: true, file: { uri: 'recording.flrep', bytes: fs.statSync(file).size } });
  await page.waitForFunction(
    (b) =>
      b.inspect().whole &&
      window.__player.url.endsWith('/recording.flrep') &&
      window.__player.diagnostics.snapshot().ready,
    badge,
    { timeout: 20000 },
  );
  await badge.dispose();
  const whole = await page.evaluate(() => ({
    first: __player.diagnostics.snapshot().firstTick,
    last: __player.diagnostics.snapshot().lastTick,
    tick: __player.tick,
    playing: __player.playing,
    kills: __player.kills.map((k) => `${k.tick}:${k.killer}:${k.victim}`),
    badge: document.querySelector('.live-badge')?.hidden === false,
    toasts: [...document.querySelectorAll('#toasts .toast-notice')].map((t) => t.textContent),
  }));
  assert.equal(whole.first, full[0].first_tick, "the timeline starts at the match's first tick");
  assert.equal(whole.last, last.last_tick);
  assert.equal(whole.tick, at, 'the same moment');
  assert.equal(whole.playing, false, 'paused, as it was');
  assert.equal(whole.badge, false, 'no LIVE badge: an ordinary replay');
  assert.deepEqual(whole.kills, dumpKills(file), "the whole recording's kills");
  assert.ok(
    whole.toasts.some((t) => /match is over: its whole recording is open/.test(t)),
    JSON.stringify(whole.toasts),
  );
  log.assertClean();
  await page.close();
});

test('a manifest window that moved past unread segments: they are read by name, their kills too; one gone is a gap', {
  timeout: 60000,
}, async () => {
  const { dir, full, write } = partialDir('live-window', 1);
  const K = full.findIndex((x) => x.kills.length > 0);
  assert.ok(K > 10 && K + 12 < full.length, `a kill well inside the match (segment ${K} of ${full.length})`);
  write(K - 2);
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-window/manifest.json')}`);
  await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.tick >= 0);
  await waitFor(page, 'the join', (x) => x.status === 'live' && x.last === full[K - 3].last_tick);

  // The window moves past segments K−2 … K+2 (a tab asleep): read by their names, no gap.
  write(0, { segments: full.slice(K + 3, K + 6) });
  await waitFor(page, 'the segments after the window moved', (x) => x.last === full[K + 5].last_tick);
  let got = await page.evaluate(async () => ({
    stats: (await window.__player.diagnostics.workerStats()).live,
    gaps: window.__player.diagnostics.snapshot().gaps,
    kills: window.__player.kills.map((k) => `${k.tick}:${k.killer}:${k.victim}`),
  }));
  assert.equal(got.stats.byName, 5, 'the five segments the manifest no longer listed, read by name');
  assert.equal(got.gaps, 0, 'no gap');
  const killsOf = (from, to) =>
    full.slice(from, to).flatMap((x) => x.kills.map((k) => `${k.tick}:${k.killer}:${k.victim}`));
  for (const k of killsOf(K - 2, K + 3)) assert.ok(got.kills.includes(k), `kill ${k} of a segment read by name`);
  // Its frames are the finished file's.
  const T = full[K].first_tick + 7;
  const live = await frameAt(page, T);
  const want = await fileFrame(s, path.join(dir, 'recording.flrep'), T);
  assert.equal(live.tick, T);
  assert.deepEqual(live.frame, want.frame, `the frame at tick ${T} (a segment read by name) is the file's`);

  // Again, with one of those files gone from the server: their ticks are a gap; the rest plays.
  fs.rmSync(path.join(dir, full[K + 7].uri));
  write(0, { segments: full.slice(K + 9, K + 12) });
  await waitFor(page, 'the segments after the gap', (x) => x.last === full[K + 11].last_tick && x.gaps > 0);
  got = await page.evaluate(
    async ([a, b]) => {
      const d = window.__player.diagnostics;
      window.__player.pause();
      const gap = d.gapAt(a);
      await window.__player.seekTick(b);
      return {
        gap: JSON.stringify(gap),
        status: document.querySelector('.live-badge').inspect().status,
        tick: window.__player.tick,
        error: d.snapshot().error,
      };
    },
    [full[K + 7].first_tick + 2, full[K + 10].first_tick + 3],
  );
  assert.match(got.gap, /3 segments \(.*\) left the manifest before they were read, and .*404/);
  assert.equal(got.status, 'live');
  assert.equal(got.error, null);
  assert.equal(got.tick, full[K + 10].first_tick + 3, 'after the gap it plays');
  log.assertClean([/Failed to load resource: the server responded with a status of 404/]);
  await page.close();
});

test('a truncated segment ends the source with its numbers; a hostile manifest too; the page keeps working', {
  timeout: 30000,
}, async () => {
  const { dir, full, write } = partialDir('live-cut', 4);
  const { page, log } = await s.openPage(`?live=${encodeURIComponent('../tests/output/live-cut/manifest.json')}`);
  await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.tick >= 0);
  // The next segment listed, its file cut short.
  const seg = full[4];
  const f = path.join(dir, seg.uri);
  fs.writeFileSync(f, fs.readFileSync(f).subarray(0, seg.bytes - 100));
  write(5);
  let st = await waitFor(page, 'the error', (x) => x.status === 'failed', 10000);
  assert.match(
    st.badge,
    new RegExp(`${seg.uri} is ${seg.bytes - 100} bytes, the manifest says ${seg.bytes}: cut short`),
  );
  // What was received still plays; another file opens.
  const tick = await page.evaluate(async () => {
    await __player.seek(0.5);
    return __player.tick;
  });
  assert.equal(tick, 30);
  // A manifest that points elsewhere: refused at the open, in words, and the page opens the demo.
  write(4, { prefix: { uri: '../../dist/demo/demo.flrep', bytes: 452 } });
  await page.goto(`${s.base}?live=${encodeURIComponent('../tests/output/live-cut/manifest.json')}`);
  await page.waitForFunction(() => !document.getElementById('error').hidden, null, { timeout: 10000 });
  const text = await page.textContent('#error-text');
  assert.equal(await page.isVisible('.live-badge'), false, 'the error box says it, not the badge');
  assert.match(text, /prefix URI "\.\.\/\.\.\/dist\/demo\/demo\.flrep" is not a plain file name/);
  await page.evaluate(() => __player.load('demo/demo.flrep'));
  await page.waitForFunction(() => window.__player.diagnostics.snapshot().ready, null, { timeout: 20000 });
  st = await liveState(page);
  assert.ok(st.duration > 100, 'the demo opened after the refused source');
  assert.equal(await page.$('.live-badge'), null, 'an ordinary recording opened: the live badge is gone');
  log.assertClean([/Failed to load resource/]);
  await page.close();
});

test('WebSocket: LIVE, the edge followed; the server killed mid-match and started again resumes with no gap or duplicate', {
  timeout: 90000,
}, async () => {
  const file = path.join(OUT, 'live-ws.flrep');
  const a = source([...MATCH, '--rate', '4', '--ws', '127.0.0.1:0'], /ws:\/\/127\.0\.0\.1:(\d+)/);
  const port = (await a.ready)[1];
  const { page, log } = await s.openPage(`?live=${encodeURIComponent(`ws://127.0.0.1:${port}`)}`);
  await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.tick >= 0);
  const joined = await page.evaluate(() => __player.diagnostics.workerStats().then((s) => s.live.seqs[0]));
  await checkFollows(page);
  a.proc.kill('SIGKILL');
  await a.exited;
  const before = await page.evaluate(() => __player.diagnostics.workerStats().then((s) => s.live));
  await waitFor(page, 'reconnecting', (x) => x.status === 'reconnecting', 10000);
  // The same match again (the generator is deterministic), faster: it passes the chunks the
  // player holds, and the player resumes after its last one.
  // (--ws-queue: the viewer catching up 16× faster is not skipped ahead: that is the next test's.)
  const b = source(
    [...MATCH, '--rate', '16', '--ws', `127.0.0.1:${port}`, '--ws-queue', '1000', '--out', file],
    /ws:\/\//,
  );
  await b.ready;
  // (The second server plays 16× faster than the clock: following is checked before the kill.)
  const st = await watchLive(page, file, b, { follows: false, seekBack: false });
  const after = await page.evaluate(() => __player.diagnostics.workerStats().then((s) => s.live));
  assert.ok(after.connections >= 2, `connected again (${after.connections} connections)`);
  assert.equal(after.seqs[0], joined, 'the session still starts where it joined');
  assert.ok(before.seqs[1] > joined, 'chunks came before the server was killed');
  const chunks = Number(/chunks:\s+(\d+)/.exec(replayCli(['info', file]))[1]);
  assert.equal(after.seqs[1], chunks - 1, 'every chunk up to the last');
  assert.equal(after.chunks, chunks - joined, 'no chunk missing or twice: one per seq');
  assert.equal(st.status, 'ended');
  log.assertClean();
  await page.close();
});

/** A WebSocket server of our own on 127.0.0.1 that sends `messages` (Buffers) to each viewer. */
async function hostileServer(messages) {
  const server = http.createServer();
  const sockets = new Set();
  server.on('upgrade', (req, socket) => {
    sockets.add(socket);
    const accept = crypto
      .createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    for (const m of messages) {
      const head =
        m.length < 126 ? Buffer.from([0x82, m.length]) : Buffer.from([0x82, 126, m.length >> 8, m.length & 0xff]);
      socket.write(Buffer.concat([head, m]));
    }
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    close: () => {
      for (const k of sockets) k.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

/** The WebSocket messages of docs/live.md: hello, prefix, chunk. */
function wsHello(stream, firstSeq = 0) {
  const b = Buffer.alloc(35);
  b[0] = 1;
  b.write('FLLV', 1, 'latin1');
  b.writeUInt16LE(1, 5);
  b.writeUInt32LE(stream, 7);
  b.writeBigUInt64LE(BigInt(firstSeq), 11);
  b.writeBigUInt64LE(BigInt(firstSeq + 1), 19);
  b.writeUInt32LE(60, 27);
  b.writeUInt32LE(30, 31);
  return b;
}
function wsPrefix(stream, prefix) {
  const b = Buffer.concat([Buffer.alloc(5), prefix]);
  b[0] = 2;
  b.writeUInt32LE(stream, 1);
  return b;
}
function wsChunk(seq, offset, bytes) {
  const b = Buffer.concat([Buffer.alloc(17), bytes]);
  b[0] = 3;
  b.writeBigUInt64LE(BigInt(seq), 1);
  b.writeBigUInt64LE(BigInt(offset), 9);
  return b;
}

test('WebSocket: a hostile message ends the source with its numbers; what came plays; the page keeps working', {
  timeout: 30000,
}, async () => {
  const { dir, full } = partialDir('live-ws-hostile', 3);
  const prefix = fs.readFileSync(path.join(dir, 'prefix.flrep'));
  const stream = crc32(prefix);
  const c0 = fs.readFileSync(path.join(dir, full[0].uri));
  const c1 = fs.readFileSync(path.join(dir, full[1].uri));
  // Chunk 1 claimed at an offset that is not where chunk 0 ended.
  const bad = full[1].offset + 7;
  const srv = await hostileServer([
    wsHello(stream),
    wsPrefix(stream, prefix),
    wsChunk(0, full[0].offset, c0),
    wsChunk(1, bad, c1),
  ]);
  try {
    const { page, log } = await s.openPage(`?live=${encodeURIComponent(`ws://127.0.0.1:${srv.port}`)}`);
    const st = await waitFor(page, 'the error', (x) => x.status === 'failed', 15000);
    assert.match(st.badge, new RegExp(`chunk 1 at offset ${bad}: the previous one ended at ${full[1].offset}`));
    const tick = await page.evaluate(async () => {
      await __player.seek(0.25);
      return __player.tick;
    });
    assert.equal(tick, 15, 'chunk 0 plays');
    await page.evaluate(() => __player.load('demo/demo.flrep'));
    await page.waitForFunction(() => window.__player.duration > 100, null, { timeout: 20000 });
    log.assertClean();
    await page.close();
  } finally {
    await srv.close();
  }
});

test('WebSocket: chunks the server skipped (a viewer that fell behind) are a gap; the rest plays', {
  timeout: 30000,
}, async () => {
  const { dir, full } = partialDir('live-ws-skip', 4);
  const prefix = fs.readFileSync(path.join(dir, 'prefix.flrep'));
  const stream = crc32(prefix);
  const chunk = (k) => wsChunk(k, full[k].offset, fs.readFileSync(path.join(dir, full[k].uri)));
  const srv = await hostileServer([wsHello(stream), wsPrefix(stream, prefix), chunk(0), chunk(3)]);
  try {
    const { page, log } = await s.openPage(`?live=${encodeURIComponent(`ws://127.0.0.1:${srv.port}`)}`);
    await page.waitForFunction((t) => window.__player.diagnostics.snapshot().lastTick === t, full[3].last_tick, {
      timeout: 15000,
    });
    await page.waitForFunction(() => window.__player.diagnostics.snapshot().gaps > 0, null, { timeout: 10000 });
    const got = await page.evaluate(
      async ([a, b]) => {
        const d = window.__player.diagnostics;
        window.__player.pause();
        await window.__player.seekTick(b);
        return {
          inGap: !!d.gapAt(a),
          status: document.querySelector('.live-badge').inspect().status,
          tick: window.__player.tick,
        };
      },
      [full[1].first_tick + 5, full[3].first_tick + 3],
    );
    assert.deepEqual(got, { inGap: true, status: 'live', tick: full[3].first_tick + 3 });
    const shown = await page.evaluate(() => window.__player.diagnostics.gapAt(40));
    assert.match(JSON.stringify(shown), /2 chunks skipped by the server/);
    log.assertClean();
    await page.close();
  } finally {
    await srv.close();
  }
});

const NGINX = '/usr/sbin/nginx';

/** docs/live.md's nginx block, as written (its folder put in), in a server on 127.0.0.1 that also
 *  serves dist/ at its root. Returns {origin, log(), stop()}. */
async function startNginx(liveDir) {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'live.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('\n## Segments')))?.[1];
  assert.ok(block?.includes('alias /srv/live/;'), 'docs/live.md "Segments" has the nginx block');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-live-nginx-'));
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  const t = (name) => `${name}_temp_path ${path.join(tmp, name)};`;
  const accessLog = path.join(tmp, 'access.log');
  fs.writeFileSync(
    path.join(tmp, 'nginx.conf'),
    `daemon off;
master_process off;
pid ${path.join(tmp, 'nginx.pid')};
error_log ${path.join(tmp, 'error.log')} warn;
events { worker_connections 64; }
http {
    include /etc/nginx/mime.types;
    types { application/wasm wasm; text/javascript js mjs; }
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(t).join('\n    ')}
    log_format live '$status $uri "$http_range" $body_bytes_sent "$sent_http_cache_control"';
    access_log ${accessLog} live;
    server {
        listen 127.0.0.1:${port};
        location / { root ${WWW}; }
${block.replace('alias /srv/live/;', `alias ${liveDir}/;`)}
    }
}
`,
  );
  const proc = spawn(NGINX, ['-p', tmp, '-e', path.join(tmp, 'error.log'), '-c', path.join(tmp, 'nginx.conf')], {
    stdio: 'ignore',
  });
  const origin = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
    if (proc.exitCode !== null)
      throw new Error(`nginx exited: ${fs.readFileSync(path.join(tmp, 'error.log'), 'utf8')}`);
    if (
      await fetch(`${origin}/index.html`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > end) throw new Error('nginx did not start listening');
  }
  return {
    origin,
    log: () => fs.readFileSync(accessLog, 'utf8').split('\n').filter(Boolean),
    stop: async () => {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await once(proc, 'exit');
      }
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

test("segments from nginx (docs/live.md's block): LIVE, the end a replay equal to the file; each segment fetched once", {
  timeout: 60000,
  skip: fs.existsSync(NGINX) ? false : `${NGINX} is not installed (Debian nginx-light): this variant is skipped`,
}, async () => {
  const dir = freshDir('live-nginx');
  const file = path.join(OUT, 'live-nginx.flrep');
  const server = await startNginx(dir);
  try {
    const src = source([...match(24), '--rate', '4', '--segments', dir, '--out', file], /segments in/);
    await src.ready;
    const page = await s.browser.newPage();
    const { collectConsole } = await import('./harness.mjs');
    const log = collectConsole(page);
    await page.goto(`${server.origin}/?live=${encodeURIComponent('/live/manifest.json')}`);
    await waitFor(page, 'LIVE', (x) => x.status === 'live' && x.badge.includes('LIVE') && x.tick >= 0);
    const st = await waitFor(page, 'the end', (x) => x.status === 'ended' && x.badge === '', 30000);
    await src.exited;
    const ticks = Number(/\((\d+) ticks/.exec(replayCli(['info', file]))[1]);
    assert.equal(Math.round(st.duration * 60), ticks - 1);
    const T = 700;
    const live = await frameAt(page, T);
    const want = await fileFrame(s, file, T);
    assert.ok(live.frame.length > 0);
    assert.deepEqual(live.frame, want.frame, `the frame at tick ${T} is the finished file's`);
    const lines = server.log().filter((l) => l.includes('/live/'));
    const segs = lines.filter((l) => /\.flck /.test(l));
    const uris = segs.map((l) => l.split(' ')[1]);
    // Every segment of the finished manifest fetched, each once (so the checks below see them all).
    const published = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).segments.length;
    assert.ok(published > 1, `the manifest lists the match's segments (${published})`);
    assert.equal(uris.length, published, `each of the ${published} segments fetched once: ${uris.length} fetches`);
    assert.equal(new Set(uris).size, uris.length, 'no segment fetched twice');
    assert.ok(
      segs.every((l) => l.startsWith('200 ') && l.includes('immutable')),
      'segments served whole, immutable',
    );
    const polls = lines.filter((l) => l.includes('manifest.json'));
    assert.ok(polls.length > 1, `the manifest polled while live (${polls.length} polls)`);
    assert.ok(
      polls.every((l) => l.includes('max-age=1')),
      'the manifest with its short lifetime',
    );
    log.assertClean();
    await page.close();
  } finally {
    await server.stop();
  }
});
