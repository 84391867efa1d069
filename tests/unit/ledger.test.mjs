// Unit tests of the page's event ledger (www/core/ledger.ts; no DOM): each event once whether it
// came with the open's markers or with a piece (deduplicated by the tick ranges seen, and kills by
// (tick, killer, victim) when the markers may not hold them all), kills in tick order, the kill
// nearest to a tick and [ / ]'s viewing points. Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLedger, KILL_LEAD_S } from '../../www/core/ledger.ts';
import { Timebase } from '../../www/core/pieces.ts';

const ledger = () => {
  const tb = new Timebase();
  tb.set({ first_tick: 0, last_tick: 6000, tick_rate_hz: 10 });
  return new EventLedger(tb);
};
const kill = (tick, killer = 1, victim = 2) => ({ tick, kind: 'kill', killer, victim, weapon_type: 65535 });
const chat = (tick) => ({ tick, kind: 'chat', participant: 1, channel: 0, text: 'hi' });

test("the open's markers: kills in tick order, each with its time", () => {
  const l = ledger();
  const got = l.add([kill(50), kill(20), { kind: 'kill' }, null], null, null, null, true);
  assert.equal(got.killAdded, true);
  assert.deepEqual(
    got.fresh.map((e) => [e.tick, e.t]),
    [
      [50, 5],
      [20, 2],
    ],
    'events without a tick are skipped',
  );
  assert.deepEqual(
    l.kills.map((k) => k.tick),
    [20, 50],
  );
  assert.equal(l.killTime(l.kills[0]), 2);
});

test("a piece's events are learned once: a second piece over the same ticks adds nothing", () => {
  const l = ledger();
  const events = [chat(10), chat(12)];
  assert.equal(l.add(events, 0, 20, null, true).fresh.length, 2);
  assert.equal(l.add(events, 0, 20, null, true), null);
  assert.equal(l.add([chat(15)], 10, 20, null, true), null, 'ticks already seen');
  assert.equal(l.add([chat(25)], 10, 30, null, true).fresh.length, 1, 'the new ticks only');
  assert.equal(l.learned(29), true);
  assert.equal(l.learned(30), false, 'ranges end exclusive');
});

test('deduplicated by the tick an event was recorded in, not its own tick', () => {
  const l = ledger();
  assert.equal(l.add([chat(5)], 10, 20, [15], true).fresh.length, 1, 'recorded in 15, tick 5');
  assert.equal(l.add([chat(5)], 0, 10, [5], true).fresh.length, 1, 'recorded in 5: not seen yet');
  assert.equal(l.add([chat(5)], 0, 20, [15], true), null);
});

test('touching and overlapping ranges merge', () => {
  const l = ledger();
  l.add([], 0, 10, null, true);
  l.add([], 20, 30, null, true);
  assert.equal(l.learned(15), false);
  l.add([], 10, 20, null, true);
  for (const t of [0, 9, 10, 15, 29]) assert.equal(l.learned(t), true, `tick ${t}`);
  l.add([], 5, 40, null, true);
  assert.equal(l.learned(39), true);
  assert.equal(l.learned(-1), false);
});

test('kills: with a complete index only the markers count; without one, each kill once by (tick, killer, victim)', () => {
  const complete = ledger();
  complete.add([kill(50)], null, null, null, true);
  assert.equal(complete.add([kill(50), kill(70), chat(60)], 40, 80, null, true).killAdded, false);
  assert.deepEqual(
    complete.kills.map((k) => k.tick),
    [50],
  );
  const partial = ledger();
  partial.add([kill(50)], null, null, null, false);
  const got = partial.add([kill(50), kill(50, 3, 4), kill(70)], 40, 80, null, false);
  assert.deepEqual(
    got.fresh.map((k) => [k.tick, k.killer]),
    [
      [50, 3],
      [70, 1],
    ],
  );
  assert.deepEqual(
    partial.kills.map((k) => k.tick),
    [50, 50, 70],
  );
});

test('the kill nearest to a tick; a tie goes to the upcoming one', () => {
  const l = ledger();
  assert.equal(l.nearestKill(10), null);
  l.add([kill(100), kill(200), kill(300)], null, null, null, true);
  assert.equal(l.nearestKill(0).tick, 100);
  assert.equal(l.nearestKill(140).tick, 100);
  assert.equal(l.nearestKill(150).tick, 200, 'tie');
  assert.equal(l.nearestKill(200).tick, 200);
  assert.equal(l.nearestKill(999).tick, 300);
});

test("[ and ]: the previous / next kill's viewing point, KILL_LEAD_S before it", () => {
  const l = ledger();
  l.add([kill(10), kill(100), kill(300)], null, null, null, true);
  // Kill times 1, 10, 30 s: viewing points 0 (clamped), 8, 28.
  assert.equal(KILL_LEAD_S, 2);
  assert.equal(l.killStart(1, 0), 8);
  assert.equal(l.killStart(1, 8), 28, 'not the one being watched');
  assert.equal(l.killStart(1, 28), null);
  assert.equal(l.killStart(-1, 30), 28);
  assert.equal(l.killStart(-1, 28.2), 8, 'just after ]: back a kill');
  assert.equal(l.killStart(-1, 0.4), null);
  assert.equal(l.killStart(-1, 5), 0);
});

test('spoiler-safe: only the kills up to the revealed tick are visible, and [ / ] and the nearest kill keep to them', () => {
  const l = ledger();
  l.add([kill(100), kill(300), kill(500)], null, null, null, true);
  assert.equal(l.visible, l.kills, 'everything is visible by default');
  assert.equal(l.reveal(250), true, 'hiding kills changes what is visible');
  assert.deepEqual(
    l.visible.map((k) => k.tick),
    [100],
  );
  const cached = l.visible;
  assert.equal(l.reveal(260), false, 'a tick with the same kills changes nothing');
  assert.equal(l.visible, cached, 'and keeps the list');
  assert.equal(l.nearestKill(290).tick, 100, 'the kill at 300 is not reached');
  assert.equal(l.killStart(1, 12), null, '] has nothing ahead to jump to');
  assert.equal(l.reveal(300), true);
  assert.deepEqual(
    l.visible.map((k) => k.tick),
    [100, 300],
  );
  // A kill learned later, before the revealed tick, shows at once.
  l.add([kill(200, 3, 4)], null, null, null, false);
  assert.deepEqual(
    l.visible.map((k) => k.tick),
    [100, 200, 300],
  );
  assert.equal(l.reveal(Infinity), true);
  assert.equal(l.visible.length, 4);
});

test('actorsIn: the killers and victims of the kills in a tick range (labels place them first)', () => {
  const l = ledger();
  l.add([kill(10, 1, 2), kill(40, 3, 4), kill(41, 5, 6), kill(90, 7, 8)], null, null, null, true);
  assert.deepEqual([...l.actorsIn(35, 60)].sort(), [3, 4, 5, 6]);
  assert.deepEqual([...l.actorsIn(0, 9)], []);
  // Spoiler-safe: a kill not yet revealed is no one's.
  l.reveal(40);
  assert.deepEqual([...l.actorsIn(35, 60)].sort(), [3, 4]);
});
