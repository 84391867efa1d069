// The Analysis panel end to end in headless Chromium (www/features/analysis/panel.ts, loaded when it first
// opens): the scoreboard against `replay dump`'s kills (at the end and at a mid-point), a filter by
// one participant on the timeline's canvas (pixels) and in the feed with N / Shift+N through it,
// the chat search, range and bearing against the two states of the dump, the inspector's altitude
// against the crate's world_to_geodetic (`replay dump --geodetic`, a 600 km planet), the kill
// announcer, and axe-core over the page, the help and share dialogs and the panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { WWW } from './harness.mjs';
import {
  OUT,
  DEMO,
  waitReady,
  seekLanded,
  settle,
  replayCli,
  timelineMarkers,
  pageSuite,
  generated,
  served,
} from './player-helpers.mjs';

const MOON_RADIUS = 600_000;
let FIGHT = '';
let MOON = '';

const suite = pageSuite({
  setup: () => {
    FIGHT = generated('analysis.flrep', ['--seconds', '90', '--seed', '7', '--entities', '40']);
    MOON = generated('analysis-moon.flrep', [
      ...['--seconds', '20', '--seed', '3', '--entities', '8'],
      ...['--planet-radius', String(MOON_RADIUS)],
    ]);
  },
});

/** `replay dump` of `file`: the info, the kill events (tick order), and `tickLine(tick)`, the
 *  tick's line parsed (entities, and with `geodetic` their latitude, longitude and altitude). */
function dumpOf(file, geodetic = false) {
  const lines = replayCli(['dump', ...(geodetic ? ['--geodetic'] : []), file]).split('\n');
  const info = JSON.parse(lines[0]).info;
  const kills = lines
    .filter((l) => l.includes('"kind":"kill"'))
    .map((l) => JSON.parse(l).event)
    .sort((a, b) => a.tick - b.tick);
  const tickLine = (tick) => {
    const l = lines.find((x) => x.startsWith('{"entities"') && x.includes(`"tick":${tick},"type":"tick"`));
    return l ? JSON.parse(l) : null;
  };
  return { info, kills, tickLine };
}

/** The scoreboard the dump's kills make up to `upTo`: entity → [kills, deaths, own faction]. */
function expectedScores(d, upTo) {
  const faction = new Map(d.info.participants.map((p) => [p.entity, p.faction]));
  const s = new Map();
  const row = (id) => {
    if (!s.has(id)) s.set(id, [0, 0, 0]);
    return s.get(id);
  };
  for (const k of d.kills) {
    if (k.tick > upTo) break;
    row(k.victim)[1]++;
    if (k.killer === k.victim) continue;
    const r = row(k.killer);
    r[0]++;
    if (faction.get(k.killer) !== undefined && faction.get(k.killer) === faction.get(k.victim)) r[2]++;
  }
  return s;
}

/** The scoreboard as the page shows it: entity → [kills, deaths, own faction], and the rows' order. */
async function shownScores(page) {
  const rows = await page.$$eval('#an-score tbody tr[data-entity]', (trs) =>
    trs.map((tr) => [Number(tr.dataset.entity), [...tr.cells].slice(1, 4).map((td) => Number(td.textContent))]),
  );
  return { map: new Map(rows), order: rows.map(([e]) => e) };
}

async function openAnalysis(page) {
  await page.click('#analysis-open');
  await page.waitForFunction(() => {
    const p = document.getElementById('panel-analysis');
    return !!p.inspect && !p.hidden;
  });
}

async function openFile(file, query = '') {
  const url = `${suite.srv.url}${served(file).slice(1)}`;
  const { page, log } = await suite.openPage(`?url=${encodeURIComponent(url)}${query}`);
  await waitReady(page);
  await page.evaluate(() => window.__player.pause());
  return { page, log };
}

const seekTick = async (page, tick) => {
  await page.evaluate((t) => window.__player.seekTick(t), tick);
  await seekLanded(page);
  await settle(page, 4);
};

test('the scoreboard counts the kills of replay dump: up to the playhead, then the whole recording; sorts; a row follows', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(FIGHT);
  assert.ok(d.kills.length >= 10, `${d.kills.length} kills`);
  const { page, log } = await openFile(FIGHT);
  try {
    // Loaded on first use: the panel's chunk (dist/ names it by a hash) comes when it opens.
    const chunk = fs
      .readdirSync(WWW)
      .find((f) => f.endsWith('.js') && fs.readFileSync(path.join(WWW, f), 'utf8').includes('Announce kills'));
    assert.ok(chunk && chunk !== 'main.js', `the panel is a chunk of its own (${chunk})`);
    const loaded = () =>
      page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()));
    assert.ok(!(await loaded()).includes(chunk), 'not in the first load');
    await openAnalysis(page);
    assert.ok((await loaded()).includes(chunk), 'loaded when the panel opens');
    // A mid-point: only the kills up to the playhead's tick count.
    const mid = d.kills[Math.floor(d.kills.length / 2)].tick;
    await seekTick(page, mid);
    const tick = await page.evaluate(() => window.__player.tick);
    assert.equal(tick, mid);
    const want = expectedScores(d, tick);
    await page.waitForFunction(
      (n) => document.getElementById('panel-analysis').inspect().score.counted === n,
      d.kills.filter((k) => k.tick <= tick).length,
    );
    let shown = await shownScores(page);
    assert.deepEqual(
      new Map([...shown.map].sort((a, b) => a[0] - b[0])),
      new Map([...want].sort((a, b) => a[0] - b[0])),
    );
    assert.ok(
      d.kills.some((k) => k.tick > tick),
      'kills after the mid-point are left out',
    );
    assert.match(await page.textContent('#an-score-note'), /^Up to .* · \d+ kills$/);
    // On to a moment before the next kill: the count stays, the note names the new time.
    const next = d.kills.find((k) => k.tick > tick).tick;
    assert.ok(next - tick > 12, `room before the next kill (${tick} → ${next})`);
    const noteBefore = await page.textContent('#an-score-note');
    await seekTick(page, Math.min(tick + 60, next - 1));
    await page.waitForFunction((was) => document.querySelector('#an-score-note').textContent !== was, noteBefore);
    assert.equal(
      (await page.textContent('#an-score-note')).replace(/^Up to \S+/, ''),
      noteBefore.replace(/^Up to \S+/, ''),
      'the same kills counted',
    );
    // The whole recording: every kill of the dump.
    await page.check('#an-whole');
    await page.waitForFunction(
      (n) => document.getElementById('panel-analysis').inspect().score.counted === n,
      d.kills.length,
    );
    shown = await shownScores(page);
    const all = expectedScores(d, Infinity);
    assert.deepEqual(
      new Map([...shown.map].sort((a, b) => a[0] - b[0])),
      new Map([...all].sort((a, b) => a[0] - b[0])),
    );
    // Sorted by kills, most first (the default); the weapon used most as the dump says.
    const kills = shown.order.map((e) => shown.map.get(e)[0]);
    assert.deepEqual(
      kills,
      [...kills].sort((a, b) => b - a),
    );
    const top = shown.order[0];
    const used = new Map();
    for (const k of d.kills)
      if (k.killer === top && k.victim !== top) used.set(k.weapon_type, (used.get(k.weapon_type) ?? 0) + 1);
    const [w, n] = [...used].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
    const weaponText = await page.textContent(`#an-score tr[data-entity="${top}"] td:nth-child(5)`);
    assert.equal(weaponText, `${await page.evaluate((x) => window.__player.weaponName(x), w)} (${n})`);
    // Per faction: the sums of the rows.
    const factions = await page.$$eval('#an-factions tbody tr', (trs) =>
      trs.map((tr) => [...tr.cells].slice(1).map((td) => Number(td.textContent))),
    );
    const sum = (i) => [...all.values()].reduce((a, r) => a + r[i], 0);
    assert.deepEqual(
      [0, 1, 2].map((i) => factions.reduce((a, f) => a + f[i], 0)),
      [sum(0), sum(1), sum(2)],
    );
    // Sort by deaths (a click: most first; again: fewest first).
    await page.click('#an-score th button[data-key="deaths"]');
    shown = await shownScores(page);
    let deaths = shown.order.map((e) => shown.map.get(e)[1]);
    assert.deepEqual(
      deaths,
      [...deaths].sort((a, b) => b - a),
    );
    await page.click('#an-score th button[data-key="deaths"]');
    shown = await shownScores(page);
    deaths = shown.order.map((e) => shown.map.get(e)[1]);
    assert.deepEqual(
      deaths,
      [...deaths].sort((a, b) => a - b),
    );
    assert.equal(await page.getAttribute('#an-score th:has(button[data-key="deaths"])', 'aria-sort'), 'ascending');
    // A row's click follows its entity.
    const row = shown.order[0];
    await page.click(`#an-score tr[data-entity="${row}"] td:nth-child(2)`);
    await page.waitForFunction((e) => window.__player.followed === e, row);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('spoilers=0: the scoreboard has no whole-recording totals', { timeout: 120_000 }, async () => {
  const { page, log } = await openFile(FIGHT, '&spoilers=0');
  try {
    await openAnalysis(page);
    assert.equal(await page.isDisabled('#an-whole'), true);
    await page.evaluate(() => {
      const b = document.getElementById('an-whole');
      b.disabled = false;
      b.click();
    });
    await settle(page, 2);
    const s = await page.evaluate(() => document.getElementById('panel-analysis').inspect().score);
    assert.notEqual(s.upTo, null, 'counted up to the playhead only');
    assert.equal(s.counted, 0, 'at the start, no kill is counted');
    log.assertClean();
  } finally {
    await page.close();
  }
});

/** Kill-coloured pixels of the marker canvas's kill row at CSS x (±1 px). */
async function killPixelsAt(page, xs) {
  return page.evaluate((list) => {
    const c = document.getElementById('scrub-markers');
    const dpr = c.width / c.clientWidth;
    const g = c.getContext('2d');
    return list.map((x) => {
      const img = g.getImageData(
        Math.max(0, Math.round((x - 1) * dpr)),
        Math.round(3 * dpr),
        Math.ceil(3 * dpr),
        Math.round(10 * dpr),
      );
      let n = 0;
      for (let i = 0; i < img.data.length; i += 4) {
        const [r, gg, b, a] = img.data.slice(i, i + 4);
        if (a > 128 && r > 200 && gg < 140 && b < 120) n++;
      }
      return n;
    });
  }, xs);
}

test('a filter by one participant leaves exactly their kills on the timeline canvas and in the feed; N / Shift+N visit them in order; search seeks', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(FIGHT);
  // The participant in the most kills (as killer or victim).
  const inKills = new Map();
  for (const k of d.kills) for (const e of new Set([k.killer, k.victim])) inKills.set(e, (inKills.get(e) ?? 0) + 1);
  const [who] = [...inKills].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  const theirs = d.kills.filter((k) => k.killer === who || k.victim === who);
  const others = d.kills.filter((k) => k.killer !== who && k.victim !== who);
  assert.ok(theirs.length >= 2 && others.length >= 2, `${theirs.length} / ${others.length}`);
  const { page, log } = await openFile(FIGHT);
  try {
    await openAnalysis(page);
    const all = await timelineMarkers(page);
    assert.equal(all.kills.length, d.kills.length);
    await page.selectOption('#an-who', String(who));
    await page.waitForFunction(
      (n) => document.getElementById('scrub-markers').inspect().kills.length === n,
      theirs.length,
    );
    const m = await timelineMarkers(page);
    assert.deepEqual(
      m.kills.map((k) => k.tick),
      theirs.map((k) => k.tick),
    );
    const feed = await page.evaluate(() => document.getElementById('killfeed').inspect());
    assert.deepEqual(
      feed.ticks,
      theirs.map((k) => k.tick),
    );
    assert.equal(Number(await page.getAttribute('#killfeed li', 'aria-setsize')), theirs.length);
    // The canvas: kill bars at their x, none at the others' (those at least 4 px from any of theirs).
    const xOf = (k) => all.kills.find((x) => x.tick === k.tick).x;
    const mine = theirs.map(xOf);
    const away = others.map(xOf).filter((x) => mine.every((y) => Math.abs(x - y) >= 4));
    assert.ok(away.length >= 1, 'some other kill is apart from theirs on the canvas');
    const atMine = await killPixelsAt(page, mine);
    const atAway = await killPixelsAt(page, away);
    assert.ok(
      atMine.every((n) => n > 0),
      `kill pixels at their kills: ${atMine}`,
    );
    assert.ok(
      atAway.every((n) => n === 0),
      `no kill pixels at the others': ${atAway}`,
    );
    // Without the filter, the others' bars come back.
    await page.click('.an-reset');
    await page.waitForFunction(
      (n) => document.getElementById('scrub-markers').inspect().kills.length === n,
      d.kills.length,
    );
    await settle(page, 3);
    assert.ok((await killPixelsAt(page, away)).every((n) => n > 0));
    // Kills only, as victim (or as killer when they died less than twice): N visits them in order,
    // then Shift+N back.
    const role = d.kills.filter((k) => k.victim === who).length >= 2 ? 'victim' : 'killer';
    await page.selectOption('#an-who', String(who));
    await page.selectOption('#an-role', role);
    for (const k of ['spawn', 'despawn', 'chat', 'admin', 'alert_level', 'other']) await page.uncheck(`#an-kind-${k}`);
    const deaths = [...new Set(d.kills.filter((k) => k[role] === who).map((k) => k.tick))];
    assert.ok(deaths.length >= 2, `${deaths.length} kills as ${role}`);
    await page.waitForFunction(
      (n) => new Set(document.getElementById('killfeed').inspect().ticks).size === n,
      deaths.length,
    );
    await seekTick(page, 0);
    await page.focus('#play');
    await page.evaluate(() => document.activeElement.blur());
    const visited = [];
    for (let i = 0; i < deaths.length + 1; i++) {
      await page.keyboard.press('n');
      await seekLanded(page);
      visited.push(await page.evaluate(() => window.__player.tick));
    }
    assert.deepEqual(visited, [...deaths, deaths.at(-1)], 'N: each death in order, then stays');
    const back = [];
    for (let i = 0; i < deaths.length - 1; i++) {
      await page.keyboard.press('Shift+N');
      await seekLanded(page);
      back.push(await page.evaluate(() => window.__player.tick));
    }
    assert.deepEqual(back, deaths.slice(0, -1).reverse(), 'Shift+N: back in order');
    // The buttons do the same.
    await page.click('.an-next');
    await seekLanded(page);
    assert.equal(await page.evaluate(() => window.__player.tick), deaths[1]);
    // Search chat (the chat of the parts decoded so far: every kill comes with the index, chat with
    // the chunks): the matches are the dump's, and a match's button seeks to it.
    const chat = replayCli(['dump', FIGHT])
      .split('\n')
      .filter((l) => l.includes('"kind":"chat"'))
      .map((l) => JSON.parse(l).event);
    const learned = await page.evaluate(
      (ts) => ts.map((t) => window.__player.diagnostics.learned(t)),
      chat.map((c) => c.tick),
    );
    const known = chat.filter((_, i) => learned[i]);
    const now = await page.evaluate(() => window.__player.tick);
    const pick = known.find((c) => Math.abs(c.tick - now) > 30);
    assert.ok(pick, `a chat message decoded away from the playhead (${known.length} of ${chat.length} known)`);
    const word = pick.text.split(/\s+/)[0].replace(/[^A-Za-z]/g, '');
    await page.fill('#an-search', word.toUpperCase());
    const hits = known.filter((c) => c.text.toLowerCase().includes(word.toLowerCase())).map((c) => c.tick);
    await page.waitForFunction(
      (n) => document.querySelectorAll('#an-results button').length === n,
      Math.min(50, hits.length),
    );
    const resultTicks = await page.$$eval('#an-results button', (bs) => bs.map((b) => Number(b.dataset.tick)));
    assert.deepEqual(resultTicks, hits.slice(0, 50));
    await page.click(`#an-results button[data-tick="${pick.tick}"]`);
    await seekLanded(page);
    assert.equal(await page.evaluate(() => window.__player.tick), pick.tick);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('range and bearing: Shift+click a second entity; the line and the distance shown equal the two states of the dump', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(FIGHT);
  const { page, log } = await openFile(FIGHT);
  try {
    await openAnalysis(page);
    const tick = 1800;
    await seekTick(page, tick);
    const line = d.tickLine(tick);
    const alive = line.entities.filter((e) => (e.flags & 1) === 1);
    const [a, b] = [alive[0], alive.at(-1)];
    await page.evaluate((id) => window.__player.select(id), a.id);
    // The second one under the pointer: where the renderer drew it (asked for, then answered).
    let at = null;
    for (let i = 0; i < 50 && !at?.visible; i++) {
      at = await page.evaluate((id) => window.__player.screenPosition(id), b.id);
      await settle(page, 2);
    }
    assert.ok(at?.visible, `entity ${b.id} is on screen`);
    const box = await page.locator('#stage canvas').first().boundingBox();
    await page.keyboard.down('Shift');
    await page.mouse.click(box.x + at.x, box.y + at.y);
    await page.keyboard.up('Shift');
    await page.waitForFunction(
      ([x, y]) => {
        const r = document.getElementById('panel-analysis').inspect().range;
        return r.a === x && r.b === y && r.figures && r.line.visible;
      },
      [a.id, b.id],
    );
    assert.equal(await page.evaluate(() => window.__player.selected), a.id, 'Shift+click kept the selection');
    const q = d.info.position_quantum_m;
    const want = Math.hypot(...[0, 1, 2].map((j) => (b.pos[j] - a.pos[j]) * q));
    await page.waitForFunction(() => document.querySelector('#an-range dd[data-key="distance"]').dataset.value);
    const shown = Number(await page.getAttribute('#an-range dd[data-key="distance"]', 'data-value'));
    assert.ok(Math.abs(shown - want) <= q, `distance ${shown} vs ${want} from the dump`);
    const text = await page.textContent('#an-range dd[data-key="distance"]');
    assert.ok(Math.abs(Number(text.replace(/ NM$/, '')) - want / 1852) <= 0.0005 + q / 1852, `${text} vs ${want} m`);
    const bearing = Number(await page.getAttribute('#an-range dd[data-key="bearing"]', 'data-value'));
    assert.ok(bearing >= 0 && bearing < 360);
    // The line runs between where the two are drawn; its label says the distance.
    const l = await page.evaluate(() => document.getElementById('panel-analysis').inspect().range.line);
    const pa = await page.evaluate((id) => window.__player.screenPosition(id), a.id);
    const pb = await page.evaluate((id) => window.__player.screenPosition(id), b.id);
    assert.ok(
      Math.hypot(l.x1 - pa.x, l.y1 - pa.y) <= 1 && Math.hypot(l.x2 - pb.x, l.y2 - pb.y) <= 1,
      JSON.stringify({ l, pa, pb }),
    );
    assert.match(l.text, /NM · \d{3}° · [+-]?\d+ kt · Δalt [+-]?[\d,]+ ft$/);
    fs.mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: path.join(OUT, 'analysis-range.png') });
    // Clear: the line goes.
    await page.click('.an-clear');
    await page.waitForFunction(() => !document.getElementById('panel-analysis').inspect().range.line.visible);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('the inspector: latitude, longitude and altitude equal the crate world_to_geodetic on a 600 km planet; ft / m toggle', {
  timeout: 180_000,
}, async () => {
  const d = dumpOf(MOON, true);
  assert.equal(d.info.world.radius_m, MOON_RADIUS);
  const { page, log } = await openFile(MOON);
  try {
    await openAnalysis(page);
    const tick = 600;
    await seekTick(page, tick);
    const line = d.tickLine(tick);
    const k = line.entities.findIndex((e) => (e.flags & 1) === 1);
    const e = line.entities[k];
    const [lat, lon, alt] = line.geodetic[k];
    await page.evaluate((id) => window.__player.select(id), e.id);
    await page.waitForFunction(
      ([id, t]) =>
        document.getElementById('inspector').dataset.entity === String(id) &&
        document.querySelector('#insp-pilot dd[data-key="tick"]').dataset.value === String(t),
      [e.id, tick],
    );
    const value = (key) => page.getAttribute(`#insp-pilot dd[data-key="${key}"]`, 'data-value').then(Number);
    assert.ok(Math.abs((await value('alt')) - alt) < 1e-6, `altitude ${await value('alt')} vs ${alt}`);
    assert.ok(Math.abs((await value('lat')) - lat) < 1e-9);
    assert.ok(Math.abs((await value('lon')) - lon) < 1e-9);
    // Read as Earth it would be far underground: the radius is the file's.
    assert.ok(alt > -1000 && alt < 50_000, `altitude ${alt} m`);
    await page.check('#an-units-imperial');
    await page.waitForFunction(() => / ft$/.test(document.querySelector('#insp-pilot dd[data-key="alt"]').textContent));
    const ft = await page.textContent('#insp-pilot dd[data-key="alt"]');
    assert.equal(ft, `${Math.round(alt / 0.3048).toLocaleString('en-US')} ft`);
    assert.match(await page.textContent('#insp-pilot dd[data-key="speed"]'), /^[\d,]+ kt$/);
    assert.match(await page.textContent('#insp-pilot dd[data-key="verticalSpeed"]'), /^[+-]?[\d,]+ ft\/min$/);
    assert.match(await page.textContent('#insp-pilot dd[data-key="lat"]'), /^\d+\.\d{5}° [NS]$/);
    await page.check('#an-units-metric');
    await page.waitForFunction(() => / m$/.test(document.querySelector('#insp-pilot dd[data-key="alt"]').textContent));
    assert.equal(
      await page.textContent('#insp-pilot dd[data-key="alt"]'),
      `${alt.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} m`,
    );
    assert.match(await page.textContent('#insp-pilot dd[data-key="speed"]'), /^[\d,.]+ km\/h$/);
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('kills are announced (aria-live) only when the toggle is on', { timeout: 180_000 }, async () => {
  const d = dumpOf(FIGHT);
  const { page, log } = await openFile(FIGHT);
  try {
    await openAnalysis(page);
    const first = d.kills[0];
    const rate = d.info.tick_rate_hz;
    // Off (the default): crossing a kill says nothing.
    await seekTick(page, Math.max(0, first.tick - rate));
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction((t) => window.__player.tick > t, first.tick + 5);
    await page.evaluate(() => window.__player.pause());
    assert.equal(await page.textContent('#kill-announcer'), '');
    // On: the kill's text.
    await page.check('#an-announce');
    await seekTick(page, Math.max(0, first.tick - rate));
    await page.evaluate(() => window.__player.play());
    await page.waitForFunction(() => document.getElementById('kill-announcer').textContent !== '', null, {
      timeout: 20_000,
    });
    await page.evaluate(() => window.__player.pause());
    const said = await page.textContent('#kill-announcer');
    const text = await page.evaluate((k) => window.__player.killText(k), first);
    assert.ok(said.startsWith(text), `${said} / ${text}`);
    assert.equal(await page.getAttribute('#kill-announcer', 'aria-live'), 'polite');
    log.assertClean();
  } finally {
    await page.close();
  }
});

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core over the page: the serious and critical violations (id, impact, targets). */
async function axe(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}

test('axe-core: no serious or critical violation with a replay open, in the help and share dialogs, and in the Analysis panel', {
  timeout: 180_000,
}, async () => {
  assert.ok(fs.existsSync(DEMO));
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    await page.evaluate(() => window.__player.pause());
    await settle(page, 4);
    assert.deepEqual(await axe(page), [], 'a replay open');
    await page.keyboard.press('?');
    await page.locator('#help').waitFor({ state: 'visible' });
    assert.deepEqual(await axe(page), [], 'the help dialog');
    await page.click('#help-close');
    await page.click('#share-open');
    await page.waitForFunction(() => document.querySelector('dialog[open]'));
    assert.deepEqual(await axe(page), [], 'the share dialog');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    await openAnalysis(page);
    await page.evaluate(() => window.__player.select(window.__player.info.info.participants[0].entity));
    await settle(page, 4);
    assert.deepEqual(await axe(page), [], 'the Analysis panel');
    // Every control of the panel is reachable by Tab and shows its focus: each control Tab lands on
    // is marked; then no shown, enabled, tabbable control may be left unmarked (a radio group
    // counts as reached by any of its radios: Tab enters a group once).
    const SEL = '#panel-analysis button, #panel-analysis select, #panel-analysis input, #panel-analysis summary';
    const controls = await page.$$eval(SEL, (els) => els.length);
    assert.ok(controls > 0, 'the panel has controls');
    let seen = 0;
    let outlined = 0;
    // From the control before the panel's first (its Close button), Tab onwards.
    await page.focus('#panel-analysis .an-close');
    await page.keyboard.press('Shift+Tab');
    for (let i = 0; i < controls + 20; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate(() => {
        const a = document.activeElement;
        if (!a?.closest('#panel-analysis')) return null;
        if (a.dataset.tabSeen) return { again: true };
        a.dataset.tabSeen = '1';
        const cs = getComputedStyle(a);
        return { outline: cs.outlineStyle !== 'none' && cs.outlineWidth !== '0px' };
      });
      if (f && !f.again) {
        seen++;
        if (f.outline) outlined++;
      }
    }
    const missed = await page.$$eval(SEL, (els) => {
      const reached = (e) =>
        e.dataset.tabSeen ||
        (e.type === 'radio' && e.name && [...document.getElementsByName(e.name)].some((r) => r.dataset.tabSeen));
      return els
        .filter((e) => !e.disabled && e.tabIndex >= 0 && e.checkVisibility({ visibilityProperty: true }))
        .filter((e) => !reached(e))
        .map((e) => e.outerHTML.slice(0, 100));
    });
    assert.deepEqual(missed, [], `every shown control reached by Tab (${seen} reached of ${controls})`);
    assert.ok(seen >= 5, `the panel's controls were tabbed through (${seen})`);
    assert.equal(outlined, seen, 'each shows a focus outline');
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('axe-core: a recording with no kills, the Analysis panel open: the empty kill feed can take the focus', {
  timeout: 120_000,
}, async () => {
  assert.equal(dumpOf(MOON).kills.length, 0, 'the file has no kills');
  const { page, log } = await openFile(MOON);
  try {
    await openAnalysis(page);
    await settle(page, 4);
    // The panel leaves the feed shorter than its one row: a scroll region, with no row to focus.
    const feed = await page.$eval('#killfeed-scroll', (e) => ({
      over: e.scrollHeight > e.clientHeight,
      tabIndex: e.tabIndex,
      buttons: e.querySelectorAll('button, input').length,
    }));
    assert.deepEqual(feed, { over: true, tabIndex: 0, buttons: 0 });
    assert.deepEqual(await axe(page), [], 'a recording with no kills, the panel open');
    log.assertClean();
  } finally {
    await page.close();
  }
});
