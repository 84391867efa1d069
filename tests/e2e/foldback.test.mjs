// The .foldback divergence view end to end in headless Chromium: a generated session with a desync
// injected at a known tick / entity / field opened through the file picker shows that first
// divergent tick, the entity and the field with both peers' values and where its history starts to
// differ; two per-run files compared together; live mode against `replay live-demo` (same tick,
// entity and field), then the game killed and restarted → the page reconnects (a new hello) and
// the view updates.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startServer, launchBrowser, collectConsole, ROOT, replayBinPath } from './harness.mjs';
import { OUT, replayCli } from './player-helpers.mjs';

const T = 120;
const ENTITY = '102';
const FIELD = 'health';
let srv;
let browser;
let base;
let file;
const children = new Set();

before(async () => {
  fs.mkdirSync(OUT, { recursive: true });
  file = path.join(OUT, 'desync.foldback');
  replayCli([
    'generate',
    '--format',
    'foldback',
    '--out',
    file,
    '--ticks',
    '300',
    '--desync-tick',
    String(T),
    '--desync-entity',
    ENTITY,
    '--desync-field',
    FIELD,
  ]);
  srv = await startServer({ root: ROOT });
  base = `${srv.url}dist/`;
  browser = await launchBrowser({ webgpu: false });
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await browser?.close();
  await srv?.close();
});

async function openPage() {
  const page = await browser.newPage();
  const log = collectConsole(page);
  await page.goto(base, { waitUntil: 'load' });
  return { page, log };
}

/** Waits for the view to show `tick` as selected with ENTITY's FIELD row; returns what it shows. */
async function waitDesync(page, tick, timeout = 30_000) {
  await page.waitForFunction(
    ({ tick, entity, field }) => {
      const h = document.getElementById('fb-tick-title');
      const e = document.getElementById('fb-entity-title');
      const row = document.querySelector(`#fb-fields tr.fb-field-row[data-field="${field}"]`);
      return (
        h?.dataset.tick === String(tick) &&
        e?.dataset.entity === entity &&
        row &&
        row.querySelector('.fb-history')?.dataset.tick !== undefined
      );
    },
    { tick, entity: ENTITY, field: FIELD },
    { timeout },
  );
  return page.evaluate((field) => {
    const row = document.querySelector(`#fb-fields tr.fb-field-row[data-field="${field}"]`);
    return {
      first: document.getElementById('fb-first-tick').dataset.tick,
      entities: [...document.querySelectorAll('#fb-entities .fb-entity')].map((b) => b.dataset.entity),
      values: [...row.querySelectorAll('td.fb-value')].map((td) => ({
        hex: td.querySelector('.fb-view-hex')?.textContent,
        i32: td.querySelector('.fb-view-i32')?.textContent,
      })),
      history: row.querySelector('.fb-history').dataset.tick,
      lanes: document.querySelectorAll('#fb-lanes canvas').length,
      legend: document.querySelector('.fb-legend').textContent,
    };
  }, FIELD);
}

test('a desynced .foldback opened through the file picker shows the first divergent tick, entity and field with both peers’ values', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await page.setInputFiles('#file-input', file);
    const v = await waitDesync(page, T);
    assert.equal(v.first, String(T));
    assert.ok(v.entities.includes(ENTITY), `entities ${v.entities}`);
    assert.equal(v.values.length, 2);
    assert.notEqual(v.values[0].hex, v.values[1].hex);
    assert.equal(Math.abs(Number(v.values[0].i32) - Number(v.values[1].i32)), 1, JSON.stringify(v.values));
    assert.equal(v.history, String(T));
    assert.equal(v.lanes, 2);
    assert.match(v.legend, /agree.*differs.*no hash/);
    // Metadata as a table, snapshot sizes.
    assert.ok((await page.locator('#fb-metadata tr').count()) >= 4);
    assert.ok((await page.locator('#fb-snapshots .fb-snap').count()) >= 1);
    // D jumps back to the first divergence after another tick is selected (tick 10: a click on
    // the first lane there, as the view maps a click to a tick).
    await page.locator('#fb-lanes canvas').first().scrollIntoViewIfNeeded();
    const at = await page.evaluate(() => {
      const s = document.getElementById('foldback').inspect().summary;
      const r = document.querySelector('#fb-lanes canvas').getBoundingClientRect();
      const span = s.last_tick - s.first_tick + 1;
      return { x: r.left + ((10 - s.first_tick + 0.5) / span) * r.width, y: r.top + r.height / 2 };
    });
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction(() => document.getElementById('fb-tick-title')?.dataset.tick === '10');
    await page.keyboard.press('d');
    await waitDesync(page, T);
    log.assertClean([/WebSocket/i, /ERR_CONNECTION_REFUSED/]);
  } finally {
    await page.close();
  }
});

test('two files opened together are compared (one peer each); a different build id warns', {
  timeout: 120_000,
}, async () => {
  const a = path.join(OUT, 'one-peer-a.foldback');
  const b = path.join(OUT, 'one-peer-b.foldback');
  replayCli(['generate', '--format', 'foldback', '--out', a, '--peers', '1', '--ticks', '200', '--seed', '1']);
  replayCli(['generate', '--format', 'foldback', '--out', b, '--peers', '1', '--ticks', '200', '--seed', '1']);
  // Patch b's build id (header bytes 16..32) to force the warning.
  const bytes = fs.readFileSync(b);
  bytes.fill(0xab, 16, 32);
  fs.writeFileSync(b, bytes);
  const { page } = await openPage();
  try {
    await page.setInputFiles('#file-input', [a, b]);
    await page.waitForFunction(() => document.querySelectorAll('#fb-lanes canvas').length === 2, null, {
      timeout: 60_000,
    });
    const w = await page.locator('#fb-warnings li.fb-build-warning').count();
    assert.ok(w >= 1, 'build-id warning shown');
    const first = await page.locator('#fb-first-tick').textContent();
    assert.match(first, /no divergent tick/);
  } finally {
    await page.close();
  }
});

function startLiveDemo(port) {
  return new Promise((resolve, reject) => {
    const c = spawn(
      replayBinPath(),
      [
        'live-demo',
        '--port',
        String(port),
        '--tick-rate',
        '10',
        '--ticks',
        '100000',
        '--desync-tick',
        String(T),
        '--desync-entity',
        ENTITY,
        '--desync-field',
        FIELD,
      ],
      { cwd: ROOT },
    );
    children.add(c);
    c.on('exit', () => children.delete(c));
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child: c, port: Number(m[1]) });
    });
    c.on('error', reject);
    setTimeout(() => reject(new Error(`live-demo did not start: ${out}`)), 20_000);
  });
}

test('live mode: the page connects to replay live-demo, shows the desync, and reconnects after the game restarts', {
  timeout: 180_000,
}, async () => {
  // The page first (it takes seconds to load here), then the game: live mode has no backlog, so
  // the viewer must be connected before the desync tick (12 s in at 10 Hz).
  const { page, log } = await openPage();
  await page.click('#live-open');
  const { child, port } = await startLiveDemo(0);
  try {
    await page.fill('#fb-live-url', `ws://127.0.0.1:${port}`);
    await page.click('#fb-live-connect');
    await page.waitForFunction(() => document.getElementById('fb-live-status')?.dataset.state === 'connected', null, {
      timeout: 20_000,
    });
    const v = await waitDesync(page, T, 60_000);
    assert.equal(v.first, String(T));
    assert.equal(v.history, String(T));
    assert.notEqual(v.values[0].hex, v.values[1].hex);
    // Kill the game: the page shows it is reconnecting; restart it on the same port.
    child.kill('SIGKILL');
    await page.waitForFunction(
      () => document.getElementById('fb-live-status')?.dataset.state === 'reconnecting',
      null,
      { timeout: 20_000 },
    );
    await startLiveDemo(port);
    await page.waitForFunction(() => document.getElementById('fb-live-status')?.dataset.state === 'connected', null, {
      timeout: 30_000,
    });
    // A new hello: a new session whose view fills again up to the desync.
    await page.waitForFunction(
      () => {
        const { summary } = document.getElementById('foldback').inspect();
        return summary === null || (summary.last_tick ?? 1e9) < 100;
      },
      null,
      { timeout: 30_000 },
    );
    const v2 = await waitDesync(page, T, 60_000);
    assert.equal(v2.first, String(T));
    // Saving what was received gives a .foldback download.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#fb-live-save')]);
    const saved = await dl.path();
    const head = fs.readFileSync(saved).subarray(0, 4).toString('latin1');
    assert.equal(head, 'FBK1');
    const info = replayCli(['info', saved]);
    assert.match(info, /peer/i);
    log.assertClean([/WebSocket/i, /ERR_CONNECTION_REFUSED/]);
  } finally {
    await page.close();
  }
});
