// A SparkEngine match looks like one (headless Chromium): each player its own colour on the canvas
// and in the roster's swatches, players at a readable size, kills named "Explosion" where the file
// says so and no "(unknown weapon)" (the feed says once that weapons are not recorded); and the
// first-person camera's instruments (www/app/hud.ts), loaded on first use, reading what the
// inspector reads. Screenshots: tests/output/screenshots/spark-view-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  OUT,
  FACTION_HEX,
  waitReady,
  settle,
  canvasShot,
  nearFaction,
  playerState,
  pageSuite,
  generated,
} from './player-helpers.mjs';

const suite = pageSuite();
const SHOTS = path.join(OUT, 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });

function sparkMatch() {
  return generated('match-10p.replay', ['--format', 'spark', '--players', '10', '--seconds', '60', '--seed', '4']);
}

const rgbOf = (css) => (/rgba?\((\d+), (\d+), (\d+)/.exec(css) ?? []).slice(1, 4).map(Number);

test('a SparkEngine match: a colour per player on the canvas and in the roster, readable players, kills without "(unknown weapon)"', {
  timeout: 240_000,
}, async () => {
  const file = sparkMatch();
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    await page.setInputFiles('#file-input', file);
    await page.waitForFunction(
      () =>
        window.__player.diagnostics.snapshot().name === 'match-10p.replay' &&
        window.__player.diagnostics.snapshot().ready,
      null,
      {
        timeout: 120_000,
      },
    );
    const s = await playerState(page);
    const players = s.info.info.participants;
    assert.equal(players.length, 10, 'ten players');
    // Each player a faction of its own, a function of its id.
    assert.equal(new Set(players.map((p) => p.faction)).size, 10, `factions: ${players.map((p) => p.faction)}`);
    // The roster's swatches: ten distinct colours, the renderer's palette.
    await page.waitForFunction(() => document.querySelectorAll('#roster .swatch').length >= 10);
    const swatches = await page.evaluate(() =>
      [...document.querySelectorAll('#roster .swatch')].map((e) => getComputedStyle(e).backgroundColor),
    );
    const hexes = FACTION_HEX.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)).join(','));
    assert.equal(new Set(swatches).size, swatches.length, `distinct swatches: ${swatches}`);
    for (const c of swatches) assert.ok(hexes.includes(rgbOf(c).join(',')), `${c} is a palette colour`);
    // Play a little and look at the canvas: the players' pixels carry their own colours.
    await page.evaluate(() => window.__player.seek(20));
    await settle(page, 10);
    const shot = await canvasShot(page, path.join(SHOTS, 'spark-view-canvas.png'));
    const seen = new Set();
    let sized = 0;
    for (const p of shot.points) {
      let hits = 0;
      for (let dy = -12; dy <= 12; dy++) {
        for (let dx = -12; dx <= 12; dx++) {
          const x = Math.round(p.x) + dx;
          const y = Math.round(p.y) + dy;
          if (x < 0 || y < 0 || x >= shot.img.width || y >= shot.img.height) continue;
          if (nearFaction(shot.img.at(x, y), p.faction, 40)) hits++;
        }
      }
      if (hits >= 3) seen.add(p.faction);
      // Readable: a character drawn at least ~22 px tall covers dozens of its colour's pixels.
      if (hits >= 40) sized++;
    }
    assert.ok(seen.size >= 6, `distinct player colours found on the canvas: ${[...seen]}`);
    assert.ok(sized >= 3, `players drawn at a readable size: ${sized} of ${shot.points.length}`);
    await page.screenshot({ path: path.join(SHOTS, 'spark-view-page.png') });
    // The kill feed: no "(unknown weapon)"; explosion kills named; the note said once.
    const text = await page.evaluate(() => document.documentElement.outerHTML);
    assert.ok(!/unknown weapon/i.test(text), 'no "(unknown weapon)" on the page');
    assert.equal(await page.locator('.kf-note').count(), 1);
    assert.equal(await page.locator('.kf-note').isVisible(), true, 'the feed says weapons are not recorded');
    const weapons = await page.evaluate(() =>
      window.__player.kills.map((k) => window.__player.weaponName(k.weapon_type)),
    );
    assert.ok(weapons.includes('Explosion'), `a kill by the killer's own explosion: ${[...new Set(weapons)]}`);
    assert.ok(
      weapons.every((w) => w === 'Explosion' || w === ''),
      `weapons: ${[...new Set(weapons)]}`,
    );
    log.assertClean();
  } finally {
    await page.close();
  }
});

test('first person: the instruments load on first use and read what the inspector reads; the horizon is drawn', {
  timeout: 180_000,
}, async () => {
  const { page, log } = await suite.openPage();
  try {
    await waitReady(page);
    // Whether a script the page has loaded holds the HUD's code (dist/ names lazy chunks by hash).
    const loaded = () =>
      page.evaluate(async () => {
        const js = performance.getEntriesByType('resource').filter((e) => /\.js$/.test(e.name));
        const texts = await Promise.all(js.map((e) => fetch(e.name).then((r) => r.text())));
        return texts.some((t) => t.includes('hud-horizon'));
      });
    await page.evaluate(async () => {
      window.__player.pause();
      await window.__player.seek(30);
    });
    await settle(page, 5);
    assert.equal(await loaded(), false, 'not in the first load');
    assert.equal(await page.locator('.hud').count(), 0);
    const id = await page.evaluate(() => window.__player.info.info.participants[2].entity);
    await page.evaluate((e) => {
      window.__player.select(e, { follow: true });
      window.__player.setCameraMode('first');
    }, id);
    await page.locator('.hud').waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(await loaded(), true, 'loaded on first use');
    await settle(page, 5);
    const read = await page.evaluate(() => {
      const v = (sel) => document.querySelector(sel)?.textContent ?? '';
      const dd = (label) =>
        [...document.querySelectorAll('#insp-list dt')].find((d) => d.textContent === label)?.nextElementSibling
          ?.textContent;
      return {
        hud: {
          heading: v('.hud-heading .hud-value'),
          speed: v('.hud-speed .hud-value'),
          alt: v('.hud-altitude .hud-value'),
        },
        insp: { heading: dd('Heading'), speed: dd('Speed'), alt: dd('Altitude') },
        entity: document.querySelector('.hud').dataset.entity,
        inspected: document.getElementById('inspector').dataset.entity,
      };
    });
    assert.equal(read.entity, String(id));
    assert.equal(read.inspected, String(id));
    assert.match(read.hud.heading, /^\d{3}°$/);
    assert.deepEqual(read.hud, read.insp, 'the HUD reads what the inspector reads');
    // The horizon and the reticle: HUD-green and white pixels on its canvas.
    const px = await page.evaluate(() => {
      const c = document.querySelector('.hud-horizon');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let green = 0;
      let white = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3] < 100) continue;
        if (d[i + 1] > 200 && d[i] < 160 && d[i + 2] < 200) green++;
        if (d[i] > 230 && d[i + 1] > 230 && d[i + 2] > 230) white++;
      }
      return { green, white };
    });
    assert.ok(px.green > 200, `the horizon line and ladder: ${px.green} px`);
    assert.ok(px.white > 40, `the reticle: ${px.white} px`);
    await page.screenshot({ path: path.join(SHOTS, 'spark-view-hud.png') });
    // Another camera mode hides it.
    await page.evaluate(() => window.__player.setCameraMode('orbit'));
    await page.locator('.hud').waitFor({ state: 'hidden' });
    log.assertClean();
  } finally {
    await page.close();
  }
});
