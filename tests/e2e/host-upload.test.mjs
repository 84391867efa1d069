// Upload and get link, end to end in headless Chromium against a real `replay host` (issue 32,
// "The page"; www/features/share/upload.ts): a file opened from the disk on the host's player page is
// uploaded from the Share dialog; the link it gives, opened in a fresh browser, plays that replay at
// the chosen moment; a file the host refuses shows the reader's message; a plain static host
// (scripts/serve.mjs) offers no upload and is asked nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, WWW, launchBrowser, collectConsole, startServer, replayBinPath } from './harness.mjs';
import { OUT, fixture, waitReady, settle, canvasShot, assertPicture } from './player-helpers.mjs';

const SHOTS = path.join(OUT, 'screenshots');
let host; // { url, proc, dir }
let browser;

/** Starts `replay host` on a free port over a fresh data directory; resolves once it listens. */
async function startHost() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-host-upload-'));
  const proc = spawn(replayBinPath(), ['host', '--data', dir, '--listen', '127.0.0.1:0', '--player', WWW], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (code) => reject(new Error(`replay host exited (${code}): ${err}`)));
  });
  return { url, proc, dir };
}

before(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  host = await startHost();
  browser = await launchBrowser({ webgpu: true });
});

after(async () => {
  await browser?.close();
  host?.proc.kill();
  if (host) fs.rmSync(host.dir, { recursive: true, force: true });
});

/** The host's player page with `file` opened from the disk. */
async function openOnHost(b, file) {
  const page = await b.newPage();
  const log = collectConsole(page);
  await page.goto(`${host.url}/index.html`, { waitUntil: 'load' });
  await waitReady(page);
  await page.setInputFiles('#file-input', file);
  const name = path.basename(file);
  await page.waitForFunction(
    (n) =>
      window.__player.diagnostics.snapshot().name === n &&
      (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
    name,
    { timeout: 60_000 },
  );
  return { page, log };
}

async function openShare(page) {
  await page.click('#share-open');
  await page.waitForSelector('dialog#share[open]');
  await page.evaluate(() => document.getElementById('share').refresh());
}

test('a file from the disk: Upload and get link, then the link plays it at the moment in a fresh browser', {
  timeout: 240_000,
}, async () => {
  const file = fixture('host-upload', { seconds: 30, seed: 11, entities: 24 });
  const { page, log } = await openOnHost(browser, file);
  await page.evaluate(() => window.__player.seek(12.5));
  await page.waitForFunction(() => Math.abs(window.__player.currentTime - 12.5) < 0.05);
  await openShare(page);
  // Before the upload: no address, the host's offer.
  assert.equal(await page.isVisible('#share-upload'), true, 'the host offers Upload and get link');
  assert.match(await page.textContent('#share-disk'), /upload it to this host/);
  assert.ok(!(await page.inputValue('#share-link')).includes('/r/'), 'no host link before the upload');

  await page.click('#share-upload');
  await page.waitForFunction(() => /Uploaded/.test(document.querySelector('#share-host-note').textContent), null, {
    timeout: 60_000,
  });
  await page.evaluate(() => document.getElementById('share').refresh());
  const link = await page.inputValue('#share-link');
  const token = await page.inputValue('#share-token');
  const iframe = await page.inputValue('#share-iframe');
  const oembed = await page.inputValue('#share-oembed');
  const id = /\/r\/([0-9a-f]{32})\?/.exec(link)?.[1];
  assert.ok(id, `the moment link is the host's /r/{id} page: ${link}`);
  assert.equal(new URL(link).searchParams.get('t'), '12.5');
  assert.equal(new URL(link).searchParams.get('url'), null, 'the page names its replay itself');
  assert.ok(token.length >= 16, 'the delete token is shown');
  assert.ok(await page.isVisible('#share-token'), 'the token row is visible');
  assert.ok(iframe.includes(`${host.url}/embed.html?`) && iframe.includes(`files%2F${id}`), iframe);
  assert.equal(new URL(oembed).searchParams.get('url'), link, 'the oEmbed address names the link');
  // The stored bytes are the file's.
  const stored = Buffer.from(await (await fetch(`${host.url}/files/${id}`)).arrayBuffer());
  assert.ok(stored.equals(fs.readFileSync(file)), 'the host stores the very bytes of the file');
  await page.screenshot({ path: path.join(SHOTS, 'host-upload-dialog.png') });
  log.assertClean();
  await page.close();

  // The link, in a browser that never saw the file.
  const fresh = await launchBrowser({ webgpu: true });
  try {
    const p2 = await fresh.newPage();
    const log2 = collectConsole(p2);
    await p2.goto(link, { waitUntil: 'load' });
    await waitReady(p2);
    const st = await p2.evaluate(() => ({ url: window.__player.url, t: window.__player.currentTime }));
    // The tab keeps the host's title (from the file), not the file's address.
    const served = await (await fetch(link)).text();
    const title = /<title>([^<]*)<\/title>/.exec(served)?.[1];
    assert.ok(title && !title.includes('/files/'), `served title: ${title}`);
    assert.equal(await p2.evaluate(() => document.title), title.replaceAll('&amp;', '&'));
    assert.doesNotMatch(await p2.textContent('#file-name'), /files\//);
    assert.equal(st.url, `${host.url}/files/${id}`);
    assert.ok(Math.abs(st.t - 12.5) < 0.05, `opens at the moment (${st.t})`);
    await settle(p2, 6);
    assertPicture(
      await canvasShot(p2, path.join(SHOTS, 'host-upload-link.png'), { strictCsp: true }),
      'the uploaded replay at 12.5 s',
    );
    log2.assertClean();
  } finally {
    await fresh.close();
  }
});

test('a file the host refuses: the reader message in the dialog, no link, nothing listed', {
  timeout: 120_000,
}, async () => {
  const before = await (await fetch(`${host.url}/api/replays`)).json();
  // A damaged chunk: the player opens it (it plays what it can) but the host's check refuses it.
  const bad = path.join(ROOT, 'tests', 'fixtures', 'hostile', 'chunk_crc_mismatch.flrep');
  const { page, log } = await openOnHost(browser, bad);
  await openShare(page);
  await page.click('#share-upload');
  await page.waitForFunction(
    () => /refused the file/.test(document.querySelector('#share-host-note').textContent),
    null,
    {
      timeout: 60_000,
    },
  );
  const note = await page.textContent('#share-host-note');
  assert.match(note, /chunk|CRC|crc/, `the reader's message: ${note}`);
  assert.ok(!(await page.inputValue('#share-link')).includes('/r/'), 'no link for a refused file');
  assert.equal(await page.isDisabled('#share-upload'), false, 'the button can be pressed again');
  const afterList = await (await fetch(`${host.url}/api/replays`)).json();
  assert.equal(afterList.replays.length, before.replays.length, 'nothing listed');
  // The browser's own line for the 422 answer is the only console error.
  const errs = log.errors.filter((e) => !/status of 422/.test(e));
  assert.deepEqual(errs, []);
  await page.close();
});

test('a plain static host: no upload offered, the host API never asked', { timeout: 120_000 }, async () => {
  const srv = await startServer();
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    const asked = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/')) asked.push(r.url());
    });
    await page.goto(srv.url, { waitUntil: 'load' });
    await waitReady(page);
    await page.setInputFiles('#file-input', fixture('host-upload', { seconds: 30, seed: 11, entities: 24 }));
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'host-upload.flrep' &&
        window.__player.diagnostics.snapshot().ready,
    );
    await openShare(page);
    assert.equal(await page.isVisible('#share-upload'), false);
    assert.match(await page.textContent('#share-disk'), /no link can open it/);
    assert.deepEqual(asked, []);
    log.assertClean();
    await page.close();
  } finally {
    await srv.close();
  }
});
