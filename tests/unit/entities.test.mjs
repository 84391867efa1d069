// Unit tests of the page's view of entities (www/core/entities.ts; no DOM) and of the shell's one
// binary search (bisect, www/core/clock.ts): finding an entity in a packed frame (sorted or not), its
// readout in display units, a frame's extent and alive marks, names from the info and the spawns.
// Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Entities,
  STRIDE,
  NO_ENTITY,
  NO_WEAPON,
  findEntity,
  entityState,
  frameExtent,
  aliveIn,
} from '../../www/core/entities.ts';
import { bisect, lowerBound, upperBound } from '../../www/core/clock.ts';

/** A packed frame of entities {id, type, faction, pos, vel, health, flags}. */
function frame(list) {
  const f = new Int32Array(list.length * STRIDE);
  list.forEach((e, i) => {
    const k = i * STRIDE;
    f[k] = e.id;
    f[k + 1] = e.type ?? 0;
    f[k + 2] = e.faction ?? 0;
    f.set(e.pos ?? [0, 0, 0], k + 3);
    f.set([0, 0, 0, 32767], k + 6);
    f.set(e.vel ?? [0, 0, 0], k + 10);
    f[k + 13] = e.health ?? 10000;
    f[k + 14] = e.flags ?? 1;
  });
  return f;
}

test('bisect: lower / upper bound, by a key, over records of a stride', () => {
  assert.equal(lowerBound([1, 2, 2, 3], 2), 1);
  assert.equal(upperBound([1, 2, 2, 3], 2), 3);
  assert.equal(lowerBound([], 5), 0);
  assert.equal(upperBound([1, 2], 9), 2);
  const byT = (e) => e.t;
  assert.equal(lowerBound([{ t: 1 }, { t: 4 }, { t: 9 }], 4, byT), 1);
  assert.equal(upperBound([{ t: 1 }, { t: 4 }, { t: 9 }], 4, byT), 2);
  const flat = Int32Array.from([5, 0, 7, 0, 9, 0]);
  assert.equal(bisect(flat, 7, false, null, 2), 1, 'record 1 of 3');
  assert.equal(bisect(flat, 8, true, null, 2), 2);
});

test('an entity in a packed frame: by binary search, by a scan when the frame is not sorted', () => {
  const sorted = frame([{ id: 3 }, { id: 8 }, { id: 4000000000 }]);
  assert.equal(findEntity(sorted, 8), STRIDE);
  assert.equal(findEntity(sorted, 4000000000), 2 * STRIDE, 'ids are unsigned');
  assert.equal(findEntity(sorted, 5), -1);
  const unsorted = frame([{ id: 9 }, { id: 2 }, { id: 5 }]);
  assert.equal(findEntity(unsorted, 2), STRIDE);
  assert.equal(findEntity(unsorted, 9), 0);
  assert.equal(findEntity(new Int32Array(0), 1), -1);
});

test("an entity's readout in display units; altitude on a planet", () => {
  const f = frame([{ id: 7, type: 2, faction: 1, pos: [300, 400, 0], vel: [30, 40, 0], health: 5000, flags: 0b101 }]);
  const info = { position_quantum_m: 0.01, velocity_quantum_mps: 0.1 };
  const s = entityState(f, 7, 42, info);
  assert.equal(s.tick, 42);
  assert.deepEqual(s.pos, [3, 4, 0]);
  assert.equal(s.speed, 5);
  assert.equal(s.health, 50);
  assert.deepEqual(s.flagNames, ['alive', 'firing']);
  assert.equal(s.alive, true);
  assert.deepEqual(s.orient, [0, 0, 0, 1]);
  assert.equal(s.altitude, undefined);
  const planet = { ...info, world: { kind: 'planet', radius_m: 4 } };
  assert.equal(entityState(f, 7, 42, planet).altitude, 1);
  assert.equal(entityState(f, 8, 42, info), null);
});

test("a frame's extent (metres) and its alive marks", () => {
  const f = frame([
    { id: 1, pos: [0, 0, 0], flags: 1 },
    { id: 2, pos: [300, 400, 0], flags: 0 },
  ]);
  assert.equal(frameExtent(f, 0.1), 50);
  assert.equal(frameExtent(new Int32Array(0), 1), 0);
  assert.deepEqual(
    [...aliveIn(f)],
    [
      [1, true],
      [2, false],
    ],
  );
});

test("names: participants' callsigns, spawns, types; weapons and kill texts", () => {
  const e = new Entities();
  e.learnInfo({
    entity_types: [
      { index: 0, id: 'tank', display_name: 'Tank' },
      { index: 3, id: 'rifle', display_name: '' },
    ],
    participants: [
      { id: 1, callsign: 'Viper', entity: 10, faction: 2 },
      { id: 2, callsign: 'Ghost', entity: NO_ENTITY, faction: 1 },
    ],
  });
  assert.equal(e.name(10), 'Viper');
  assert.equal(e.factionOf(10), 2);
  assert.equal(e.participant(2).callsign, 'Ghost');
  const c = {
    events: [
      { kind: 'spawn', entity: 11, participant: 2 },
      { kind: 'spawn', entity: 12, participant: 99 },
    ],
    offsets: Uint32Array.from([0, 2]),
    entities: frame([
      { id: 13, type: 0 },
      { id: 14, type: 5 },
    ]),
  };
  e.learnPiece(c);
  assert.equal(e.name(11), 'Ghost', 'a spawn names its entity');
  assert.equal(e.factionOf(11), 1);
  assert.equal(e.name(12), '#12', 'an unknown participant');
  assert.equal(e.name(13), 'Tank #13', 'by type');
  assert.equal(e.name(14), '#14', 'an unknown type');
  assert.equal(e.typeName(3), 'rifle', 'the id when there is no display name');
  assert.equal(e.weaponName(NO_WEAPON), 'unknown weapon');
  assert.equal(e.weaponName(7), 'weapon 7');
  assert.equal(e.killText({ killer: 10, victim: 11, weapon_type: 3 }), 'Viper → Ghost (rifle)');
});

test('find: the entity a link or a command names, by callsign (exact, else any case) or id', () => {
  const e = new Entities();
  e.learnInfo({
    entity_types: [{ index: 0, id: 'tank', display_name: 'Tank' }],
    participants: [
      { id: 1, callsign: 'Iceman', entity: 10, faction: 0 },
      { id: 2, callsign: 'ICEMAN', entity: 11, faction: 1 },
      { id: 3, callsign: 'Maverick', entity: 12, faction: 1 },
      { id: 4, callsign: '77', entity: 13, faction: 1 },
      { id: 5, callsign: 'Maverick', entity: 14, faction: 0 },
    ],
  });
  e.learnPiece({ events: [], offsets: Uint32Array.from([0, 1]), entities: frame([{ id: 40, type: 0 }]) });
  assert.equal(e.find('Iceman'), 10);
  assert.equal(e.find('ICEMAN'), 11, 'an exact match wins over one ignoring case');
  assert.equal(e.find('maverick'), 12);
  assert.equal(e.find(' Maverick '), 12);
  assert.equal(e.find('77'), 13, 'a callsign that looks like an id is the callsign');
  assert.equal(e.find('#40'), 40, 'an id the recording knows (a frame showed it)');
  assert.equal(e.find('12'), 12);
  assert.equal(e.find('#999'), -1, 'an id nobody has');
  assert.equal(e.find('Goose'), -1);
  assert.equal(e.find(''), -1);
  assert.equal(e.find(null), -1);
  assert.equal(e.find(12), 12, 'a number is taken as an id');
  assert.equal(e.find(-3), -1);
  assert.equal(e.find(1.5), -1);
  // How a link names an entity: what find() takes back to it.
  for (const id of [10, 11, 12, 13, 14, 40]) assert.equal(e.find(e.ref(id)), id, `ref(${id}) = ${e.ref(id)}`);
  assert.equal(e.ref(12), 'Maverick');
  assert.equal(e.ref(14), '#14', 'a callsign someone else has first: the id');
  assert.equal(e.ref(40), '#40', 'no callsign: the id');
});

test('attitude: heading from north clockwise, pitch nose up, roll right wing down (the HUD and the inspector)', async () => {
  const { attitude } = await import('../../www/core/entities.ts');
  const axis = (ax, deg) => {
    const h = (deg * Math.PI) / 360;
    const s = Math.sin(h);
    return [ax === 'x' ? s : 0, ax === 'y' ? s : 0, ax === 'z' ? s : 0, Math.cos(h)];
  };
  const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-6, `${what}: ${a} vs ${b}`);
  // Body +X forward: the identity faces east on a flat world (x east, y north, z up).
  let a = attitude([0, 0, 0, 1], [0, 0, 100], false);
  near(a.heading, 90, 'identity heading');
  near(a.pitch, 0, 'identity pitch');
  near(a.roll, 0, 'identity roll');
  // Yawed +90° (counter-clockwise from above): facing north.
  a = attitude(axis('z', 90), [0, 0, 0], false);
  near(a.heading % 360, 0, 'north');
  a = attitude(axis('z', -45), [0, 0, 0], false);
  near(a.heading, 135, 'south-east');
  // About the forward axis by +30°: the left wing rises, the right wing down.
  a = attitude(axis('x', 30), [0, 0, 0], false);
  near(a.roll, 30, 'roll');
  near(a.pitch, 0, 'roll alone does not pitch');
  // About the left axis by −20°: the nose rises.
  a = attitude(axis('y', -20), [0, 0, 0], false);
  near(a.pitch, 20, 'pitch');
  // On a planet the frame is the point's: at (0, R, 0) up is +y, east −x, north +z.
  a = attitude(axis('z', 180), [0, 6371000, 0], true);
  near(a.heading, 90, 'facing −x at (0, R, 0) is east');
});
