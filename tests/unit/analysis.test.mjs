// The Analysis panel's pure parts: the scoreboard's tally (www/features/analysis/scoreboard.ts), the event filter
// and N / Shift+N (www/features/analysis/event-filter.ts), and the geometry and units (www/features/analysis/geo.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tally, sortRows } from '../../www/features/analysis/scoreboard.ts';
import { makeFilter, stepMatch, searchText, FILTER_KINDS } from '../../www/features/analysis/event-filter.ts';
import {
  worldToGeodetic,
  motion,
  rangeBearing,
  fmtAlt,
  fmtDist,
  fmtSpeed,
  fmtHeading,
} from '../../www/features/analysis/geo.ts';

/** model::geodetic_to_world. */
function geodeticToWorld({ lat, lon, alt }, R) {
  const [la, lo] = [(lat * Math.PI) / 180, (lon * Math.PI) / 180];
  const r = R + alt;
  return [r * Math.cos(la) * Math.cos(lo), r * Math.cos(la) * Math.sin(lo), r * Math.sin(la)];
}

const FACTION = new Map([
  [1, 0],
  [2, 0],
  [3, 1],
  [4, 1],
]);
const factionOf = (id) => FACTION.get(id);
const kill = (tick, killer, victim, weapon_type = 7) => ({ kind: 'kill', tick, killer, victim, weapon_type });

test('tally counts kills, deaths, own-faction kills and the weapon used most, up to a tick', () => {
  const kills = [
    kill(10, 1, 3, 7),
    kill(20, 1, 2, 8),
    kill(30, 3, 1, 7),
    kill(40, 1, 4, 8),
    kill(50, 1, 3, 8),
    kill(60, 4, 4),
  ];
  const all = tally(kills, Infinity, factionOf);
  const by = new Map(all.rows.map((r) => [r.entity, r]));
  assert.equal(all.counted, 6);
  assert.deepEqual(
    [by.get(1).kills, by.get(1).deaths, by.get(1).teamKills, by.get(1).weapon, by.get(1).weaponKills],
    [4, 1, 1, 8, 3],
  );
  assert.deepEqual([by.get(3).kills, by.get(3).deaths], [1, 2]);
  // Killed by itself: a death, no kill.
  assert.deepEqual([by.get(4).kills, by.get(4).deaths, by.get(4).weapon], [0, 2, -1]);
  const f = new Map(all.factions.map((x) => [x.faction, x]));
  assert.deepEqual([f.get(0).kills, f.get(0).deaths, f.get(0).teamKills], [4, 2, 1]);
  assert.deepEqual([f.get(1).kills, f.get(1).deaths, f.get(1).teamKills], [1, 4, 0]);
  // Up to tick 30: the first three only; a weapon tie goes to the lower index.
  const mid = tally(kills, 30, factionOf);
  assert.equal(mid.counted, 3);
  const m1 = mid.rows.find((r) => r.entity === 1);
  assert.deepEqual([m1.kills, m1.deaths, m1.weapon, m1.weaponKills], [2, 1, 7, 1]);
  assert.equal(
    mid.rows.find((r) => r.entity === 4),
    undefined,
  );
});

test('sortRows sorts by a column either way, ties by name', () => {
  const rows = tally([kill(1, 1, 3), kill(2, 2, 3), kill(3, 2, 4), kill(4, 3, 1)], Infinity, factionOf).rows;
  const name = (id) => ['', 'Delta', 'Alpha', 'Echo', 'Bravo'][id];
  assert.deepEqual(
    sortRows(rows, 'kills', -1, name).map((r) => r.entity),
    [2, 1, 3, 4],
  );
  assert.deepEqual(
    sortRows(rows, 'name', 1, name).map((r) => r.entity),
    [2, 4, 1, 3],
  );
  assert.deepEqual(
    sortRows(rows, 'deaths', 1, name).map((r) => r.entity),
    [2, 4, 1, 3],
  );
});

const events = [
  { kind: 'spawn', tick: 1, entity: 1, participant: 11 },
  kill(5, 1, 3, 7),
  { kind: 'chat', tick: 6, participant: 13, channel: 0, text: 'Fox two, Iceman' },
  kill(8, 3, 1, 9),
  { kind: 'admin', tick: 9, participant: 11, action: 'kick', detail: 'Viper (AFK)' },
  { kind: 'alert_level', tick: 10, level: 2 },
  kill(12, 2, 4, 7),
  { kind: 'despawn', tick: 14, entity: 3, reason: 0 },
  { kind: 'custom', type: 'explosion', tick: 15, source: 1, target: 0, pos: [0, 0, 0], data: '' },
];
const PARTICIPANTS = new Map([
  [11, { id: 11, entity: 1, faction: 0 }],
  [13, { id: 13, entity: 3, faction: 1 }],
]);
const h = {
  kindOf: (e) => (e.kind === 'custom' ? e.type : e.kind),
  factionOf,
  participant: (id) => PARTICIPANTS.get(id),
};
const base = { who: -1, role: 'either', faction: -1, weapon: -1, kinds: new Set(FILTER_KINDS) };
const ticks = (pred) => events.filter(pred).map((e) => e.tick);

test('makeFilter: by participant and role, faction, weapon and kind', () => {
  assert.equal(makeFilter(base, h), null, 'everything: no filter');
  assert.deepEqual(ticks(makeFilter({ ...base, who: 1 }, h)), [1, 5, 8, 9, 15]);
  assert.deepEqual(ticks(makeFilter({ ...base, who: 1, role: 'killer', kinds: new Set(['kill']) }, h)), [5]);
  assert.deepEqual(ticks(makeFilter({ ...base, who: 1, role: 'victim', kinds: new Set(['kill']) }, h)), [8]);
  assert.deepEqual(ticks(makeFilter({ ...base, faction: 1, role: 'killer' }, h)), [6, 8, 14]);
  assert.deepEqual(ticks(makeFilter({ ...base, weapon: 7 }, h)), [5, 12]);
  assert.deepEqual(ticks(makeFilter({ ...base, kinds: new Set(['chat', 'admin', 'alert_level']) }, h)), [6, 9, 10]);
  assert.deepEqual(ticks(makeFilter({ ...base, kinds: new Set(['other']) }, h)), [15]);
});

test('stepMatch goes to the next / previous kept event; searchText finds chat and admin text', () => {
  const keep = makeFilter({ ...base, who: 1, kinds: new Set(['kill']) }, h);
  assert.equal(stepMatch(events, 0, 1, keep).tick, 5);
  assert.equal(stepMatch(events, 5, 1, keep).tick, 8);
  assert.equal(stepMatch(events, 8, 1, keep), null);
  assert.equal(stepMatch(events, 8, -1, keep).tick, 5);
  assert.equal(stepMatch(events, 5, -1, keep), null);
  assert.equal(stepMatch(events, 12, -1, null).tick, 10);
  assert.deepEqual(
    searchText(events, 'ICEMAN').map((e) => e.tick),
    [6],
  );
  assert.deepEqual(
    searchText(events, 'viper').map((e) => e.tick),
    [9],
  );
  assert.deepEqual(
    searchText(events, 'kick').map((e) => e.tick),
    [9],
  );
  assert.deepEqual(searchText(events, '  '), []);
});

test('geodetic: the crate formula, on a small planet; motion and range in a pilot units', () => {
  const R = 600_000;
  const p = geodeticToWorld({ lat: 30, lon: 45, alt: 1000 }, R);
  const g = worldToGeodetic(p, R);
  assert.ok(Math.abs(g.lat - 30) < 1e-9 && Math.abs(g.lon - 45) < 1e-9 && Math.abs(g.alt - 1000) < 1e-6);
  // Flying due east at 100 m/s, climbing 5 m/s, nose east (a yaw of −90° about up from north…):
  // the local frame at (lat 0, lon 0) is east = +Y, north = +Z, up = +X.
  const world = { kind: 'planet', radius_m: R };
  const st = { pos: [R + 2000, 0, 0], vel: [5, 100, 0], orient: [0, 0, Math.SQRT1_2, Math.SQRT1_2] };
  const m = motion(st, world);
  assert.ok(Math.abs(m.alt - 2000) < 1e-6);
  assert.ok(Math.abs(m.verticalSpeed - 5) < 1e-9);
  assert.ok(Math.abs(m.groundSpeed - 100) < 1e-9);
  assert.ok(Math.abs(m.track - 90) < 1e-9, `track ${m.track}`);
  // The nose: the body's +X rotated 90° about world +Z is world +Y, which is east here.
  assert.ok(Math.abs(m.heading - 90) < 1e-9, `heading ${m.heading}`);
  // A flat world: bearing from the plane, closure from the relative velocity.
  const a = { pos: [0, 0, 1000], vel: [0, 100, 0] };
  const b = { pos: [3000, 4000, 1500], vel: [0, -100, 0] };
  const r = rangeBearing(a, b, { kind: 'flat' });
  assert.ok(Math.abs(r.distance - Math.hypot(3000, 4000, 500)) < 1e-9);
  assert.ok(Math.abs(r.bearing - (Math.atan2(3000, 4000) * 180) / Math.PI) < 1e-9);
  assert.equal(r.altDiff, 500);
  assert.ok(Math.abs(r.closure - (200 * 4000) / r.distance) < 1e-9);
  // Due north on a planet: bearing 0.
  const n = rangeBearing(
    { pos: p, vel: [0, 0, 0] },
    { pos: geodeticToWorld({ lat: 31, lon: 45, alt: 1000 }, R), vel: [0, 0, 0] },
    world,
  );
  assert.ok(Math.abs(n.bearing) < 1e-6 || Math.abs(n.bearing - 360) < 1e-6, `bearing ${n.bearing}`);
  assert.equal(fmtAlt(3048, 'imperial'), '10,000 ft');
  assert.equal(fmtAlt(3048, 'metric'), '3,048.0 m');
  assert.equal(fmtDist(1852 * 2.5, 'imperial'), '2.50 NM');
  assert.equal(fmtDist(2500, 'metric'), '2.50 km');
  assert.equal(fmtSpeed(100, 'imperial'), '194 kt');
  assert.equal(fmtHeading(7.4), '007°');
  assert.equal(fmtHeading(359.7), '000°');
});
