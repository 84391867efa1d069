// The scoreboard of the Analysis panel (www/features/analysis/panel.ts): per entity that killed or died, its
// kills, deaths, kills of its own faction and the weapon it used most; per faction the same
// totals. Counted from the kills the player already has (`handle.kills`: for a .flrep the index
// trailer's kill list), up to a tick: the playhead's (spoiler-safe by construction) or the last.
// Pure; tests/unit/analysis.test.mjs.

/** A kill as tally() reads it (`handle.kills`). */
export interface TallyKill {
  tick: number;
  killer: number;
  victim: number;
  weapon_type: number;
}

/** A scoreboard row: an entity's counts; `weapon` the index used most (-1 none). */
export interface Row {
  entity: number;
  faction: number | undefined;
  kills: number;
  deaths: number;
  teamKills: number;
  weapon: number;
  weaponKills: number;
}

/** A faction's totals (`faction` −1: no faction). */
export interface FactionRow {
  faction: number;
  kills: number;
  deaths: number;
  teamKills: number;
}

/** tally()'s answer. */
export interface Tally {
  rows: Row[];
  factions: FactionRow[];
  counted: number;
}

/** A row while counting: the kills per weapon index. */
interface Counting {
  entity: number;
  faction: number | undefined;
  kills: number;
  deaths: number;
  teamKills: number;
  weapons: Map<number, number>;
}

/**
 * Counts `kills` (in tick order) up to tick `upTo` (the last tick counted; Infinity: every kill),
 * `factionOf` giving an entity's faction.
 *
 * Row: {entity, faction, kills, deaths, teamKills, weapon (the index used most; -1 none),
 * weaponKills}. FactionRow: {faction, kills, deaths, teamKills}. A kill of an entity by itself
 * (the killer is the victim) counts as a death, not a kill. `counted`: the kills counted.
 */
export function tally(kills: readonly TallyKill[], upTo: number, factionOf: (id: number) => number | undefined): Tally {
  const rows = new Map<number, Counting>();
  const row = (id: number): Counting => {
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
  const out: Row[] = [];
  const factions = new Map<number, FactionRow>();
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
export function sortRows(
  rows: readonly Row[],
  key: keyof Row | 'name',
  dir: number,
  name: (entity: number) => unknown,
): Row[] {
  const text = (r: Row): string => String(name(r.entity));
  const cmp = (a: Row, b: Row): number => {
    const va = key === 'name' ? text(a) : (a[key] ?? -1);
    const vb = key === 'name' ? text(b) : (b[key] ?? -1);
    const c = typeof va === 'string' ? va.localeCompare(String(vb)) : va - Number(vb);
    return c * dir || text(a).localeCompare(text(b)) || a.entity - b.entity;
  };
  return [...rows].sort(cmp);
}
