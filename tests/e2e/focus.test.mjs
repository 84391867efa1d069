// Keys do what they say and every new file starts clean, in headless Chromium: Space plays / pauses
// after a click on a kill row, a roster row or the Open button (it does not press them again); a
// keyboard-focused row still presses with Enter and shows its focus; a text field keeps its keys. A
// .flrep opened after a .foldback closes the divergence view; selection, follow and the camera mode
// of the last file are gone; a file opened while another is still opening wins (docs/playback.md
// "Keys" and "A new file").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { OUT, DEMO, waitReady, pageSuite, fixture, killFeedRow, replayCli, served } from './player-helpers.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

const playing = (page) => page.evaluate(() => window.__player.playbackState === 'Playing');
const pause = (page) => page.evaluate(() => window.__player.pause());

test('Space plays / pauses after a click on a kill row, a roster row or Open; Enter presses a keyboard-focused row', {
  timeout: 120_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    // A kill row: the click seeks to 2 s before its kill (paused); Space then plays, again pauses.
    const row = await killFeedRow(page, 1);
    await row.locator('button').first().click();
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending);
    assert.equal(await page.evaluate(() => document.activeElement.closest('#killfeed') !== null), true);
    const seeked = await page.evaluate(() => window.__player.currentTime);
    await page.keyboard.press('Space');
    assert.equal(await playing(page), true, 'Space after a click on a kill row plays');
    await page.keyboard.press('Space');
    assert.equal(await playing(page), false, 'and pauses');
    assert.ok(
      (await page.evaluate(() => window.__player.currentTime)) >= seeked - 0.01,
      'the row was not pressed again',
    );

    // The keyboard moves the focus to the next row: Enter presses it (a seek to its kill), its focus shows.
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => {
      const a = document.activeElement;
      const cs = getComputedStyle(a);
      return {
        row: a.closest('li')?.getAttribute('aria-posinset'),
        visible: a.matches(':focus-visible'),
        outline: cs.outlineStyle,
        width: cs.outlineWidth,
      };
    });
    assert.equal(focused.row, '3', 'the focus moved to the next row');
    assert.ok(focused.visible && focused.outline !== 'none' && focused.width !== '0px', JSON.stringify(focused));
    await page.keyboard.press('Enter');
    const want = await page.evaluate(() => Math.max(0, window.__player.killTime(window.__player.kills[2]) - 2));
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, want, { timeout: 10_000 });
    // … and so does Space, on a row the keyboard focused: it presses it (no play).
    await page.evaluate(() => window.__player.seek(1));
    await page.keyboard.press('Space');
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, want, { timeout: 10_000 });
    assert.equal(await playing(page), false, 'Space pressed the keyboard-focused row');

    // A roster row: the click selects and follows; Space plays.
    await page.locator('#roster li button').first().click();
    await page.waitForFunction(() => window.__player.selected >= 0);
    await page.keyboard.press('Space');
    assert.equal(await playing(page), true, 'Space after a click on a roster row plays');
    await pause(page);

    // A text field keeps its keys: Space types, the player does not play.
    await page.evaluate(() => {
      const t = document.createElement('input');
      t.type = 'text';
      t.id = 'test-text';
      document.body.append(t);
    });
    await page.click('#test-text');
    await page.keyboard.press('Space');
    await page.keyboard.press('l');
    assert.equal(await playing(page), false, 'keys in a text field are its own');
    assert.equal(await page.inputValue('#test-text'), ' l');
    await page.evaluate(() => document.getElementById('test-text').remove());

    // The Open button: a file picked; Space then plays (it does not open the picker again).
    const file = fixture('t10', { seconds: 10 });
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('.file-button')]);
    await chooser.setFiles(file);
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
      null,
      {
        timeout: 30_000,
      },
    );
    let reopened = false;
    page.once('filechooser', () => {
      reopened = true;
    });
    await page.keyboard.press('Space');
    assert.equal(await playing(page), true, 'Space after Open plays');
    assert.equal(reopened, false, 'the picker did not open again');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a .flrep after a .foldback: no divergence view; selection, follow and camera from the last file are gone', {
  timeout: 120_000,
}, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  const fb = path.join(OUT, 'clean-state.foldback');
  replayCli(['generate', '--format', 'foldback', '--out', fb, '--ticks', '200', '--desync-tick', '50']);
  const flrep = fixture('t10', { seconds: 10 });
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    // The demo, left with an entity selected and followed in first person.
    const id = await page.evaluate(() => window.__player.info.info.participants[0].entity);
    await page.evaluate((i) => {
      window.__player.select(i, { follow: true });
      window.__player.setCameraMode('first');
    }, id);
    assert.equal(await page.evaluate(() => window.__player.cameraMode()), 'first');
    await page.locator('#inspector').waitFor({ state: 'visible' });

    await page.setInputFiles('#file-input', fb);
    await page.locator('#foldback').waitFor({ state: 'visible', timeout: 30_000 });
    await page.locator('#fb-first-tick[data-tick="50"]').waitFor({ timeout: 30_000 });

    await page.setInputFiles('#file-input', flrep);
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().name === 't10.flrep' && window.__player.diagnostics.snapshot().ready,
      null,
      {
        timeout: 30_000,
      },
    );
    const s = await page.evaluate(() => ({
      foldback: !document.getElementById('foldback').hidden,
      foldbackOn: document.getElementById('stage').classList.contains('foldback-on'),
      selected: window.__player.selected,
      followed: window.__player.followed,
      mode: window.__player.cameraMode(),
      shown: document.querySelector('#camera-modes button[aria-checked="true"]').dataset.mode,
      inspector: !document.getElementById('inspector').hidden,
    }));
    assert.deepEqual(s, {
      foldback: false,
      foldbackOn: false,
      selected: -1,
      followed: -1,
      mode: 'orbit',
      shown: 'orbit',
      inspector: false,
    });
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** Serves `file` with Range and CORS on another port, holding every answer until `release()`. */
async function heldServer(file) {
  const body = fs.readFileSync(file);
  const cors = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
  };
  let released = false;
  const held = [];
  const seen = { requests: 0 };
  const answer = (req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      res.end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) {
      res.writeHead(200, { ...cors, 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const a = Number(m[1]);
    const b = Math.min(body.length - 1, Number(m[2]));
    res.writeHead(206, {
      ...cors,
      'Content-Type': 'application/octet-stream',
      'Content-Length': b - a + 1,
      'Content-Range': `bytes ${a}-${b}/${body.length}`,
    });
    res.end(body.subarray(a, b + 1));
  };
  const server = http.createServer((req, res) => {
    seen.requests++;
    if (released) answer(req, res);
    else held.push(() => answer(req, res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/${path.basename(file)}`,
    seen,
    release() {
      released = true;
      for (const f of held.splice(0)) f();
    },
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

test('a file opened while another is still opening wins: the earlier one, answered later, does not take its place', {
  timeout: 120_000,
}, async () => {
  const slow = await heldServer(DEMO);
  const flrep = fixture('t10', { seconds: 10 });
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    const fast = `..${served(flrep)}`;
    await page.evaluate(
      ({ slow, fast }) => {
        window.__first = window.__player.load(slow);
        window.__player.load(fast);
      },
      { slow: slow.url, fast },
    );
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name.endsWith('t10.flrep') &&
        window.__player.diagnostics.snapshot().ready,
      null,
      {
        timeout: 30_000,
      },
    );
    assert.ok(slow.seen.requests >= 1, 'the first open was under way');
    // The first open's server answers now, after the second file opened.
    slow.release();
    await page.evaluate(() => window.__first);
    // The worker still serves the second file: a seek lands, playing moves the clock on.
    await page.evaluate(() => window.__player.seek(8));
    await page.waitForFunction(
      () => !window.__player.diagnostics.snapshot().seekPending && Math.abs(window.__player.currentTime - 8) < 0.01,
      null,
      {
        timeout: 15_000,
      },
    );
    const s = await page.evaluate(() => ({
      name: window.__player.diagnostics.snapshot().name,
      duration: window.__player.duration,
      error: document.getElementById('error').hidden ? null : document.getElementById('error-text').textContent,
    }));
    assert.ok(s.name.endsWith('t10.flrep'), s.name);
    assert.ok(Math.abs(s.duration - 10) < 0.5, `the second file's duration (${s.duration})`);
    assert.equal(s.error, null);
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(
      () => window.__player.currentTime > 8.5 && !window.__player.diagnostics.snapshot().buffering,
      null,
      {
        timeout: 15_000,
      },
    );
    log.assertClean();
  } finally {
    await page.close();
    slow.close();
  }
});
