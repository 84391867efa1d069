// @ts-nocheck
// The scoreboard of the Analysis panel (www/features/analysis/panel.ts): per entity that killed or died, its
// kills, deaths, kills of its own faction and the weapon it used most; per faction the same
// totals. Counted from the kills the player already has (`handle.kills`: for a .flrep the index
// trailer's kill list), up to a tick: the playhead's (spoiler-safe by construction) or the last.
// Pure; tests/unit/analysis.test.mjs.

/**
 * @param {Array<{tick: number, killer: number, victim: number, weapon_type: number}>} kills  in tick order
 * @param {number} upTo  the last tick counted (Infinity: every kill)
 * @param {(id: number) => number | undefined} factionOf  an entity's faction
 * @returns {{rows: Row[], factions: FactionRow[], counted: number}}
 *
 * Row: {entity, faction, kills, deaths, teamKills, weapon (the index used most; -1 none),
 * weaponKills}. FactionRow: {faction, kills, deaths, teamKills}. A kill of an entity by itself
 * (the killer is the victim) counts as a death, not a kill. `counted`: the kills counted.
 */
export function tally(kills, upTo, factionOf) {
  const rows = new Map();
  const row = (id) => {
    let r = rows.get(id);
    if (!r) {
      r = { entity: id, faction: factionOf(id), kills: 0, deaths: 0, teamKills: 0, weapons: new Map() };
      rows.set(id, r);
    }
    return r;
  };
  let counted = 0;
  for (const k of kills) {
    if (k.tick > upTo) break;
    counted++;
    row(k.victim).deaths++;
    if (k.killer === k.victim) continue;
    const r = row(k.killer);
    r.kills++;
    const vf = factionOf(k.victim);
    if (r.faction !== undefined && vf === r.faction) r.teamKills++;
    r.weapons.set(k.weapon_type, (r.weapons.get(k.weapon_type) ?? 0) + 1);
  }
  const out = [];
  const factions = new Map();
  for (const r of rows.values()) {
    // The weapon used most; a tie goes to the lower weapon index (the same answer every time).
    let weapon = -1;
    let weaponKills = 0;
    for (const [w, n] of r.weapons)
      if (n > weaponKills || (n === weaponKills && w < weapon)) [weapon, weaponKills] = [w, n];
    out.push({
      entity: r.entity,
      faction: r.faction,
      kills: r.kills,
      deaths: r.deaths,
      teamKills: r.teamKills,
      weapon,
      weaponKills,
    });
    const fk = r.faction ?? -1;
    let f = factions.get(fk);
    if (!f) {
      f = { faction: fk, kills: 0, deaths: 0, teamKills: 0 };
      factions.set(fk, f);
    }
    f.kills += r.kills;
    f.deaths += r.deaths;
    f.teamKills += r.teamKills;
  }
  return { rows: out, factions: [...factions.values()].sort((a, b) => a.faction - b.faction), counted };
}

/** Sorts scoreboard rows by `key` (a Row field, or 'name' through `name(entity)`), `dir` 1
 *  ascending, −1 descending; ties by name, then id. Returns a new array. */
export function sortRows(rows, key, dir, name) {
  const text = (r) => String(name(r.entity));
  const cmp = (a, b) => {
    const va = key === 'name' ? text(a) : (a[key] ?? -1);
    const vb = key === 'name' ? text(b) : (b[key] ?? -1);
    const c = typeof va === 'string' ? va.localeCompare(vb) : va - vb;
    return c * dir || text(a).localeCompare(text(b)) || a.entity - b.entity;
  };
  return [...rows].sort(cmp);
}
