// The whole-recording scan of the Analysis panel end to end in headless Chromium
// (www/features/analysis/whole-scan.ts in the plots' worker, www/features/analysis/telemetry-series.ts): a file opened before the
// panel existed is read again from the File the player holds; the scan's min / max envelope of the
// selected entity's altitude holds, bucket by bucket, values of `replay dump --geodetic` at the
// ticks it names, within the dump's extremes of the bucket; it can be cancelled; a server's file is
// scanned only once asked; the scan's events join the player's (every non-kill event of the dump),
// so the chat search and N over a chat filter reach past the chunks the player decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OUT, waitReady, settle, replayCli, pageSuite, seekLanded, generated, served } from './player-helpers.mjs';

let FILE = '';
const RADIUS = 600_000;
/** The player's memory budget (docs/performance.md "Memory"): the plots' worker stays under it. */
const BUDGET = 64 * 1024 * 1024;

const suite = pageSuite({
  setup: () => {
    FILE = generated('whole-moon.flrep', [
      ...['--seconds', '120', '--seed', '5', '--entities', '8'],
      ...['--planet-radius', String(RADIUS)],
    ]);
  },
});

/** `replay dump --geodetic`: the info, every event, and each entity's altitude at each tick it is in. */
function dumpOf(file) {
  const lines = replayCli(['dump', '--geodetic', file]).split('\n');
  const info = JSON.parse(lines[0]).info;
  const events = [];
  const alt = new Map(); // entity → Map(tick → altitude)
  for (const l of lines) {
    if (l.startsWith('{"entities"')) {
      const t = JSON.parse(l);
      t.entities.forEach((e, k) => {
        if (!alt.has(e.id)) alt.set(e.id, new Map());
        alt.get(e.id).set(t.tick, t.geodetic[k][2]);
      });
    } else if (l.includes('"event"')) events.push(JSON.parse(l).event);
  }
  return { info, events, alt };
}

const plots = (page, fn, arg) => page.evaluate(fn, arg);

test('whole recording: a file opened before the panel; the envelope holds the dump altitudes of each bucket; cancel', {
  timeout: 240_000,
}, async () => {
  const d = dumpOf(FILE);
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => {
      window.__opened = false;
      window.__player.on('ready', () => {
        window.__opened = true;
      });
    });
    // Opened before the Analysis panel exists.
    await page.setInputFiles('#file-input', FILE);
    await page.waitForFunction(() => window.__opened);
    await page.evaluate(() => window.__player.pause());
    await page.click('#analysis-open');
    await page.waitForFunction(() => {
      const p = document.getElementById('panel-analysis');
      return !!p.inspect && !p.hidden;
    });
    // An aircraft (its altitude varies) in the recording the longest.
    const spread = (e) => Math.max(...d.alt.get(e).values()) - Math.min(...d.alt.get(e).values());
    const id = [...d.alt.keys()]
      .filter((e) => spread(e) > 100)
      .sort((a, b) => d.alt.get(b).size - d.alt.get(a).size)[0];
    assert.ok(id !== undefined && d.alt.get(id).size > 60 * d.info.tick_rate_hz, 'an aircraft in a minute or more');
    await page.evaluate((x) => window.__player.select(x), id);
    await page.click('#an-plots summary');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().plots?.samples.length > 10);
    assert.equal(await plots(page, () => document.getElementById('an-plots').inspect().plots.error), '');

    // Cancelled once it began (playing: short spans with rests between), it stops there, and
    // nothing more is asked for.
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const p = document.getElementById('an-plots');
          window.__player.play();
          p.scanWhole(true);
          const t = setInterval(() => {
            if (p.inspect().scan?.progress > 0) {
              p.cancelScan();
              clearInterval(t);
              resolve();
            }
          }, 0);
        }),
    );
    await page.evaluate(() => window.__player.pause());
    const c1 = await plots(page, () => document.getElementById('an-plots').inspect().scan);
    await settle(page, 20);
    const c2 = await plots(page, () => document.getElementById('an-plots').inspect().scan);
    assert.equal(c1.state, 'cancelled');
    assert.ok(c1.progress > 0 && c1.progress < 1, `cancelled at ${c1.progress}`);
    assert.equal(c2.pieces, c1.pieces, 'no piece taken after the cancel');
    assert.match(await page.textContent('#an-plots-scan'), /cancelled/);

    // The whole recording: the button (a file from the disk: no question asked).
    await page.click('#an-plots-scan .pl-whole');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().scan.state === 'done', null, {
      timeout: 120_000,
    });
    const env = await plots(page, () => document.getElementById('an-plots').envelope());
    assert.ok(env.length > 100 && env.length <= 600, `${env.length} buckets`);
    let checked = 0;
    for (const b of env) {
      const inBucket = [...d.alt.get(id)].filter(([t]) => t >= b.from && t < b.to).map(([, a]) => a);
      if (!inBucket.length) {
        assert.equal(b.alt, null, `bucket ${b.from}–${b.to}: the entity is not in it`);
        continue;
      }
      // Every bucket the entity is in throughout has samples.
      if (inBucket.length >= Math.floor(b.to - b.from)) assert.ok(b.count > 0 && b.alt, `bucket ${b.from}–${b.to}`);
      if (!b.alt) continue;
      for (const [v, t] of [
        [b.alt.min, b.alt.minTick],
        [b.alt.max, b.alt.maxTick],
      ]) {
        assert.ok(t >= b.from && t < b.to, `tick ${t} in ${b.from}–${b.to}`);
        const want = d.alt.get(id).get(t);
        assert.ok(Math.abs(v - want) < 1e-6, `tick ${t}: ${v} vs the dump's ${want}`);
      }
      assert.ok(b.alt.min >= Math.min(...inBucket) - 1e-6 && b.alt.max <= Math.max(...inBucket) + 1e-6);
      checked++;
    }
    assert.ok(checked >= env.length / 2, `${checked} of ${env.length} buckets checked`);
    assert.ok(new Set(env.map((b) => Math.round(b.alt?.max ?? 0))).size > 20, 'the envelope follows the altitude');
    // Drawn: the plot spans the recording, two points a bucket; the note says so.
    const drawn = await page.evaluate(() => {
      const q = document.getElementById('an-plots').inspect().plots;
      return { whole: q.whole, range: q.range, note: document.getElementById('an-plots-note').textContent };
    });
    assert.equal(drawn.whole, true);
    assert.ok(Math.abs(drawn.range[1] - (d.info.last_tick - d.info.first_tick) / d.info.tick_rate_hz) < 0.1);
    assert.match(drawn.note, new RegExp(`whole recording · ${env.length} buckets`));
    // A click on the whole plot seeks there (90 s).
    const g = await page.evaluate(() => {
      const r = document.querySelector('.pl-plot[data-key="alt"] .u-over').getBoundingClientRect();
      return { x: r.x, y: r.y + r.height / 2, at: document.getElementById('an-plots').timeToPos('alt', 90) };
    });
    await page.mouse.click(g.x + g.at, g.y);
    await seekLanded(page);
    const t = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(t - 90) < 0.5, `clicked at 90 s, at ${t}`);
    // The plots' worker stayed within the player's memory budget.
    const stats = await plots(page, () => document.getElementById('an-plots').workerStats());
    assert.ok(stats.wasmMemoryBytes + stats.cacheBytes < BUDGET, JSON.stringify(stats));
    await page.locator('#an-plots-list').scrollIntoViewIfNeeded();
    await page.locator('#an-plots-list').screenshot({ path: path.join(OUT, 'whole-scan.png') });
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('whole recording: a server file is scanned once asked; its events reach the search and N', {
  timeout: 240_000,
}, async () => {
  const d = dumpOf(FILE);
  const url = `${suite.srv.url}${served(FILE).slice(1)}`;
  const { page, log } = await suite.openPage(`?url=${encodeURIComponent(url)}`);
  const key = (e) => `${e.kind}@${e.tick}`;
  const nonKill = (es) =>
    es
      .filter((e) => e.kind !== 'kill')
      .map(key)
      .sort();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    await page.click('#analysis-open');
    await page.waitForFunction(() => {
      const p = document.getElementById('panel-analysis');
      return !!p.inspect && !p.hidden;
    });
    const lastChat = d.events.filter((e) => e.kind === 'chat').at(-1);
    const known = () => page.evaluate(() => window.__player.events.map((e) => ({ kind: e.kind, tick: e.tick })));
    assert.ok(!(await known()).some((e) => key(e) === key(lastChat)), 'the last chat is beyond what the player read');
    const search = async (text) => {
      await page.fill('#an-search', text);
      return page.$$eval('#an-results .an-result', (bs) => bs.map((b) => Number(b.dataset.tick)));
    };
    const before = await search(lastChat.text);
    assert.ok(!before.includes(lastChat.tick));

    // Asked first (it downloads the whole file): nothing is read until the second press.
    await page.click('.an-scan');
    assert.match(await page.textContent('#an-scan-note'), /downloads the whole file/);
    await settle(page, 10);
    assert.equal(
      await page.evaluate(() => document.getElementById('an-plots').inspect().scan?.state ?? 'none'),
      'none',
    );
    await page.click('.an-scan');
    await page.waitForFunction(() => document.getElementById('an-plots').inspect().scan?.state === 'done', null, {
      timeout: 120_000,
    });
    await page.waitForFunction(() => /Every event/.test(document.getElementById('an-scan-note').textContent));
    // Every event of the dump that is not a kill, each once.
    assert.deepEqual(nonKill(await known()), nonKill(d.events));
    // The search finds the last chat (and every chat with its text, at the dump's ticks).
    const want = d.events.filter((e) => e.kind === 'chat' && e.text === lastChat.text).map((e) => e.tick);
    assert.deepEqual(await search(lastChat.text), want.slice(0, 50));
    // A chat-only filter: N visits the dump's chats in order from the start.
    await page.$$eval('.an-kinds input[type=checkbox]', (bs) => {
      for (const b of bs) {
        b.checked = b.dataset.kind === 'chat';
        b.dispatchEvent(new Event('change', { bubbles: true }));
      }
    });
    await page.evaluate(() => window.__player.seekTick(window.__player.info.info.first_tick));
    await seekLanded(page);
    const chats = [...new Set(d.events.filter((e) => e.kind === 'chat').map((e) => e.tick))].filter(
      (t) => t > d.info.first_tick,
    );
    const visited = [];
    for (let i = 0; i < chats.length; i++) {
      await page.click('#panel-analysis .an-next');
      await seekLanded(page);
      visited.push(await page.evaluate(() => window.__player.tick));
    }
    assert.deepEqual(visited, chats);
    log.assertClean();
  } finally {
    await page.close();
  }
});
