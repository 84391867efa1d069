// The kill markers, the kill feed and the roster end to end in headless Chromium: they list the
// recorded kills and participants, follow the playhead, seek on a click, and stay small in the DOM
// for thousands of kills and a thousand participants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEMO,
  seekLanded,
  killCount,
  waitReady,
  playerState,
  settle,
  replayCli,
  timelineMarkers,
  roomiestKill,
  killFeedRow,
  feedRowText,
  pageSuite,
  generated,
} from './player-helpers.mjs';

const suite = pageSuite();
const openPage = suite.openPage;

test('kill markers and the kill feed list the recorded kills; hovering a marker shows its text; clicking a marker or a row seeks to the kill', {
  timeout: 120_000,
}, async () => {
  const expected = killCount(DEMO);
  assert.ok(expected > 0, 'the demo has kills');
  const { page, log } = await openPage();
  try {
    const s = await waitReady(page);
    assert.equal(s.markers, expected);
    assert.equal(s.info.markers.length, expected);
    // One marker per recorded kill, each where its time is on the scrubber.
    const box = await page.locator('#scrubber').boundingBox();
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, expected, 'one kill marker per kill');
    assert.deepEqual(
      m.kills.map((k) => k.tick),
      s.killFeed.map((k) => k.tick),
    );
    for (const [i, k] of m.kills.entries()) {
      assert.ok(Math.abs(k.x - (s.killFeed[i].time / s.duration) * box.width) <= 1, `marker ${i} at x ${k.x}`);
    }
    assert.ok(m.killColumns > 0 && m.killColumns <= expected);
    // The feed knows its full size (rows only exist in view).
    const setsize = await page.locator('#killfeed li').first().getAttribute('aria-setsize');
    assert.equal(Number(setsize), expected);
    assert.equal(await page.locator('#killfeed').getAttribute('role'), 'list');
    assert.equal(await page.locator('#killfeed li').first().getAttribute('role'), 'listitem');
    // Hover the marker with the most room around it: the tooltip shows "killer → victim (weapon)".
    const pick = roomiestKill(s.killFeed);
    const kill = s.killFeed[pick];
    const mk = m.kills[pick];
    assert.equal(await page.locator('#scrub-tip').isHidden(), true);
    await page.mouse.move(box.x + mk.x, box.y + mk.y);
    await page.locator('#scrub-tip').waitFor({ state: 'visible' });
    const tip = await page.locator('#scrub-tip').textContent();
    assert.equal(tip, kill.text);
    assert.match(tip, /^.+ → .+ \(.+\)$/);
    assert.doesNotMatch(tip, /weapon \d+|unknown weapon/);
    // Off the markers (on the track) the tooltip goes and the time shows instead.
    await page.mouse.move(box.x + mk.x, box.y + box.height / 2);
    assert.equal(await page.locator('#scrub-tip').isHidden(), true);
    assert.equal(await page.locator('#scrub-hover').isVisible(), true);
    // A real pointer click at the marker's position: 2 s before the kill, and no scrub to the click's x.
    await page.mouse.click(box.x + mk.x, box.y + mk.y);
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, Math.max(0, kill.time - 2));
    await settle(page, 4);
    let now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(
      kill.time - now <= 2.01 && kill.time - now >= 1.95,
      `playhead ${now} 2 s before the kill at ${kill.time}`,
    );
    // The kill feed: scrolled to the end it shows the last kill; clicking its row seeks there.
    const last = s.killFeed[expected - 1];
    await page.locator('#killfeed-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const lastRow = page.locator(`#killfeed li[aria-posinset="${expected}"]`);
    await lastRow.waitFor({ state: 'visible' });
    assert.equal(feedRowText(await lastRow.locator('.kf-text').textContent()), last.text);
    await lastRow.locator('button').click();
    await page.waitForFunction((t) => Math.abs(window.__player.currentTime - t) < 0.05, Math.max(0, last.time - 2));
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(last.time - now) <= 2.01);
    // A row in the middle, reached by scrolling.
    const mid = Math.floor(expected / 2);
    const row = await killFeedRow(page, mid);
    assert.equal(feedRowText(await row.locator('.kf-text').textContent()), s.killFeed[mid].text);
    await row.locator('button').click();
    await page.waitForFunction(
      (t) => Math.abs(window.__player.currentTime - t) < 0.05,
      Math.max(0, s.killFeed[mid].time - 2),
    );
    // Keyboard: ] goes to the next kill, [ back.
    await page.evaluate(() => window.__player.seek(0));
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press(']');
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(now - Math.max(0, s.killFeed[0].time - 2)) < 0.05, `] -> ${now}`);
    await page.keyboard.press(']');
    const second = await page.evaluate(() => window.__player.currentTime);
    assert.ok(second > now, `] again -> ${second}`);
    await page.keyboard.press('[');
    const starts = s.killFeed.map((k) => Math.max(0, k.time - 2)).filter((x) => x < second - 0.5);
    now = await page.evaluate(() => window.__player.currentTime);
    assert.ok(Math.abs(now - starts[starts.length - 1]) < 0.05, `[ -> ${now}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test("the kill feed follows the playhead, but a scroll of the user's after a seek wins until the next move", {
  timeout: 60_000,
}, async () => {
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    const idle = () => page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(r))));
    const feed = () =>
      page.evaluate(() => {
        const sc = document.getElementById('killfeed-scroll');
        return {
          top: sc.scrollTop,
          viewH: sc.clientHeight,
          rows: [...document.querySelectorAll('#killfeed li[data-index]')].map((li) => Number(li.dataset.index)),
        };
      });
    const kills = await page.evaluate(() => window.__player.kills.map((k) => window.__player.killTime(k)));
    const rowPx = await page.evaluate(() => {
      const sc = document.getElementById('killfeed-scroll');
      return sc.querySelector('#killfeed').offsetHeight / window.__player.kills.length;
    });
    const mid = Math.floor(kills.length / 2);
    const last = kills.length - 1;
    // The last kill first: the feed follows it down.
    await page.evaluate((t) => window.__player.seek(t), kills[last]);
    await seekLanded(page);
    await idle();
    const f0 = await feed();
    assert.ok(
      f0.top > 0 && f0.rows.includes(last),
      `the feed followed to the last kill: top ${f0.top}, rows ${f0.rows}`,
    );
    assert.ok(
      mid * rowPx > f0.viewH,
      `the middle kill's row is below the first view (${mid} rows of ${rowPx} px, view ${f0.viewH} px)`,
    );
    // A seek onto the middle kill, and the user scrolls the feed back to the top before the feed
    // followed (the scroll event dispatched at once, as the browser would a frame later).
    await page.evaluate((t) => {
      window.__player.seek(t);
      const sc = document.getElementById('killfeed-scroll');
      sc.scrollTop = 0;
      sc.dispatchEvent(new Event('scroll'));
    }, kills[mid]);
    await seekLanded(page);
    await idle();
    let f = await feed();
    assert.equal(f.top, 0, "the user's scroll stays");
    assert.ok(f.rows.includes(0) && !f.rows.includes(mid), `the top rows stay: ${f.rows}`);
    // The next move: the feed follows again (the last kill, near the playhead, is revealed).
    await page.evaluate((t) => window.__player.seek(t), kills[last]);
    await seekLanded(page);
    await idle();
    f = await feed();
    assert.ok(f.top > 0 && f.rows.includes(last), `the feed followed to the last kill: top ${f.top}, rows ${f.rows}`);
    // Without a scroll in between, a seek is followed too (back to the middle kill).
    await page.evaluate((t) => window.__player.seek(t), kills[mid]);
    await seekLanded(page);
    await idle();
    f = await feed();
    const top = mid * rowPx;
    assert.ok(
      f.top <= top && top + rowPx <= f.top + f.viewH + 1,
      `the middle kill's row is in view: top ${f.top}, row at ${top}`,
    );
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** ≈ 1,900 kills in 5 minutes (1,000 aircraft, each a participant, at 10 Hz; 35 MB, generated once per generator). */
function manyKillsFile() {
  return generated('many-kills.flrep', ['--seed', '7', '--entities', '1000', '--seconds', '300', '--tick-rate', '10']);
}

test('a replay with thousands of kills keeps the DOM small: a virtualized feed, markers on one canvas', {
  timeout: 240_000,
}, async (t) => {
  const file = manyKillsFile();
  const recorded = Number(/kill markers:\s+(\d+)/.exec(replayCli(['info', file]))?.[1]);
  assert.ok(recorded >= 1000, `thousands of kills: ${recorded}`);
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'many-kills.flrep' &&
        window.__player.diagnostics.snapshot().ready,
      null,
      { timeout: 120_000 },
    );
    const s = await playerState(page);
    assert.equal(s.markers, recorded);
    const m = await timelineMarkers(page);
    assert.equal(m.kills.length, recorded, 'a marker per kill');
    assert.ok(m.killColumns < m.width + 1, `merged per pixel column: ${m.killColumns} columns`);
    const dom = () =>
      page.evaluate(() => ({
        feedRows: document.querySelectorAll('#killfeed li').length,
        scrubber: document.querySelectorAll('#scrubber *').length,
        setsize: Number(document.querySelector('#killfeed li').getAttribute('aria-setsize')),
      }));
    let d = await dom();
    t.diagnostic(
      `${recorded} kills: ${d.feedRows} feed rows, ${d.scrubber} elements in the scrubber, ${m.killColumns} marker columns`,
    );
    assert.equal(d.setsize, recorded);
    assert.ok(d.feedRows > 0 && d.feedRows < 100, `feed rows in the DOM: ${d.feedRows}`);
    assert.ok(d.scrubber < 20, `elements in the scrubber: ${d.scrubber}`);
    // Seeks keep the current kill in view and the DOM small.
    for (const f of [0.9, 0.25, 0.6]) {
      const k = s.killFeed[Math.floor(f * recorded)];
      await page.evaluate((tt) => window.__player.seek(tt), k.time);
      await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending, null, { timeout: 60_000 });
      // The kills near the playhead (1.5 s) are highlighted; the first of them is scrolled into view
      // (the feed follows the playhead once the page is idle after the seek: www/widgets/idle.ts).
      await page.waitForFunction(
        (t) =>
          [...document.querySelectorAll('#killfeed li.near')].some(
            (li) =>
              Math.abs(
                (Number(li.dataset.tick) - window.__player.diagnostics.snapshot().firstTick) /
                  window.__player.diagnostics.snapshot().tickRate -
                  t,
              ) <= 1.6,
          ),
        k.time,
        { timeout: 10_000 },
      );
      const near = page.locator('#killfeed li.near').first();
      await near.waitFor({ state: 'visible' });
      const shown = await near.evaluate((li) => {
        const r = li.getBoundingClientRect();
        const v = document.getElementById('killfeed-scroll').getBoundingClientRect();
        return { tick: Number(li.dataset.tick), inView: r.top >= v.top - 1 && r.bottom <= v.bottom + 1 };
      });
      assert.equal(shown.inView, true, `a kill near ${k.time} s is in view`);
      const shownKill = s.killFeed.find((x) => x.tick === shown.tick);
      assert.ok(
        Math.abs(shownKill.time - k.time) <= 1.6,
        `the row in view (${shownKill.time} s) is near the playhead (${k.time} s)`,
      );
      d = await dom();
      assert.ok(d.feedRows < 100, `feed rows after a seek: ${d.feedRows}`);
    }
    // Scrolled to the end: the last kill; still few rows.
    await page.locator('#killfeed-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const lastRow = page.locator(`#killfeed li[aria-posinset="${recorded}"]`);
    await lastRow.waitFor({ state: 'visible' });
    assert.equal(feedRowText(await lastRow.locator('.kf-text').textContent()), s.killFeed[recorded - 1].text);
    d = await dom();
    assert.ok(d.feedRows < 100, `feed rows at the end: ${d.feedRows}`);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('a roster of 1,000 participants keeps the DOM small: only the rows in view; following one far down reveals it; dead marks follow the playhead', {
  timeout: 240_000,
}, async (t) => {
  const file = manyKillsFile();
  const { page, log } = await openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'many-kills.flrep' &&
        window.__player.diagnostics.snapshot().ready,
      null,
      { timeout: 120_000 },
    );
    // The roster's order: by faction, then callsign.
    const people = await page.evaluate(() =>
      [...window.__player.info.info.participants].sort(
        (a, b) => a.faction - b.faction || a.callsign.localeCompare(b.callsign),
      ),
    );
    assert.equal(people.length, 1000);
    const dom = () =>
      page.evaluate(() => {
        const lis = [...document.querySelectorAll('#roster li')];
        return {
          rows: lis.length,
          setsize: Number(lis[0].getAttribute('aria-setsize')),
          count: document.getElementById('roster-count').textContent,
          shown: lis.map((li) => ({
            pos: Number(li.getAttribute('aria-posinset')),
            entity: Number(li.dataset.entity),
            callsign: li.querySelector('.callsign').textContent,
            dead: li.classList.contains('dead'),
            selected: li.classList.contains('selected'),
          })),
        };
      });
    let d = await dom();
    t.diagnostic(`${people.length} participants: ${d.rows} roster rows in the DOM`);
    assert.equal(d.setsize, 1000);
    assert.equal(d.count, '1000');
    assert.ok(d.rows > 0 && d.rows < 80, `roster rows in the DOM: ${d.rows}`);
    // Each row shows the participant at its position.
    for (const r of d.shown) assert.equal(r.callsign, people[r.pos - 1].callsign, `row ${r.pos}`);
    // Following a participant far down the list scrolls its row into view and marks it selected.
    const far = people[870];
    await page.evaluate((id) => window.__player.follow(id), far.entity);
    const row = page.locator(`#roster li[data-entity="${far.entity}"]`);
    await row.waitFor({ state: 'visible' });
    const seen = await row.evaluate((li) => {
      const r = li.getBoundingClientRect();
      const v = document.getElementById('roster-scroll').getBoundingClientRect();
      return {
        inView: r.top >= v.top - 1 && r.bottom <= v.bottom + 1,
        selected: li.classList.contains('selected'),
        pos: Number(li.getAttribute('aria-posinset')),
      };
    });
    assert.deepEqual(seen, { inView: true, selected: true, pos: 871 });
    d = await dom();
    assert.equal(d.shown.filter((r) => r.selected).length, 1, 'one row selected');
    assert.ok(d.rows < 80, `roster rows after following: ${d.rows}`);
    // Late in the battle some of the rows in view are dead, exactly those the frame at the playhead says.
    await page.evaluate(() => window.__player.seek(window.__player.duration - 1));
    await page.waitForFunction(() => !window.__player.diagnostics.snapshot().seekPending, null, { timeout: 60_000 });
    await page.waitForFunction(
      () => {
        const alive = window.__player.aliveNow();
        const lis = [...document.querySelectorAll('#roster li')];
        return (
          alive.size > 0 &&
          lis.every((li) => li.classList.contains('dead') === (alive.get(Number(li.dataset.entity)) !== true))
        );
      },
      null,
      { timeout: 10_000 },
    );
    d = await dom();
    const dead = d.shown.filter((r) => r.dead).length;
    t.diagnostic(`${dead} of ${d.rows} rows in view dead at the end`);
    assert.ok(dead > 0 && dead < d.rows, `some rows dead, some alive: ${dead} of ${d.rows}`);
    // Scrolled to the end: the last participant; clicking it follows it.
    await page.locator('#roster-scroll').evaluate((e) => {
      e.scrollTop = e.scrollHeight;
    });
    const last = page.locator('#roster li[aria-posinset="1000"]');
    await last.waitFor({ state: 'visible' });
    assert.equal(await last.locator('.callsign').textContent(), people[999].callsign);
    await last.locator('button').click();
    assert.equal(await page.evaluate(() => window.__player.selected), people[999].entity);
    assert.equal(await last.evaluate((li) => li.classList.contains('selected')), true);
    d = await dom();
    assert.ok(d.rows < 80, `roster rows at the end: ${d.rows}`);
    // Keyboard: Up moves the focus to the row above.
    await last.locator('button').focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.evaluate(() => document.activeElement.closest('li')?.getAttribute('aria-posinset')), '999');
    log.assertClean();
  } finally {
    await page.close();
  }
});
