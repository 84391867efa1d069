// @ts-nocheck
// The Analysis panel's event filter (www/features/analysis/panel.ts): which events the kill feed and the
// timeline's markers show, and where N / Shift+N go. Pure; tests/unit/analysis.test.mjs.

/** The kinds a filter chooses among (eventKindKey's; every other custom kind is 'other'). */
export const FILTER_KINDS = ['kill', 'spawn', 'despawn', 'chat', 'admin', 'alert_level', 'other'];

/**
 * A predicate over events (each as the player lists them: `kind`, `tick`, and the kind's fields).
 * @param {object} f
 * @param {number} f.who  an entity id, or −1 (anyone)
 * @param {'killer'|'victim'|'either'} f.role  how `who` (and `faction`) take part in a kill
 * @param {number} f.faction  a faction index, or −1
 * @param {number} f.weapon  a weapon (type) index, or −1: only kills with it
 * @param {Set<string>} f.kinds  the kinds kept (FILTER_KINDS)
 * @param {object} h
 * @param {(e: object) => string} h.kindOf  eventKindKey, with the custom kinds not in FILTER_KINDS
 *   as 'other'
 * @param {(id: number) => number | undefined} h.factionOf  an entity's faction
 * @param {(id: number) => object | undefined} h.participant  a participant (`entity`, `faction`)
 * @returns {((e: object) => boolean) | null}  null when the filter keeps everything
 */
export function makeFilter(f, { kindOf, factionOf, participant }) {
  const allKinds = FILTER_KINDS.every((k) => f.kinds.has(k));
  if (f.who < 0 && f.faction < 0 && f.weapon < 0 && allKinds) return null;
  const kind = (e) => {
    const k = kindOf(e);
    return FILTER_KINDS.includes(k) ? k : 'other';
  };
  // The entities and factions an event is about (a kill's by role).
  const about = (e) => {
    switch (e.kind) {
      case 'kill':
        if (f.role === 'killer') return [e.killer];
        if (f.role === 'victim') return [e.victim];
        return [e.killer, e.victim];
      case 'spawn':
      case 'despawn':
        return [e.entity];
      case 'chat':
      case 'admin': {
        const p = participant(e.participant);
        return p ? [p.entity] : [];
      }
      default:
        return e.source !== undefined ? [e.source, e.target] : [];
    }
  };
  const factionsOf = (e, ids) => {
    if (e.kind === 'chat' || e.kind === 'admin') {
      const p = participant(e.participant);
      return p ? [p.faction] : [];
    }
    return ids.map(factionOf);
  };
  return (e) => {
    if (!f.kinds.has(kind(e))) return false;
    if (f.weapon >= 0 && !(e.kind === 'kill' && e.weapon_type === f.weapon)) return false;
    if (f.who < 0 && f.faction < 0) return true;
    const ids = about(e);
    if (f.who >= 0 && !ids.includes(f.who)) return false;
    if (f.faction >= 0 && !factionsOf(e, ids).includes(f.faction)) return false;
    return true;
  };
}

/**
 * The event N (`dir` 1) or Shift+N (−1) goes to from tick `tick`: the first kept event after it, or
 * the last before it; null when there is none. `events` in time order; `keep` null keeps all.
 */
export function stepMatch(events, tick, dir, keep) {
  if (dir > 0) {
    for (const e of events) if (e.tick > tick && (!keep || keep(e))) return e;
  } else {
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i];
      if (e.tick < tick && (!keep || keep(e))) return e;
    }
  }
  return null;
}

/** The chat and admin events whose text holds `query` (ignoring case), at most `max`, in time order. */
export function searchText(events, query, max = 50) {
  const q = String(query ?? '')
    .trim()
    .toLowerCase();
  if (!q) return [];
  const out = [];
  for (const e of events) {
    if (out.length >= max) break;
    let text = '';
    if (e.kind === 'chat') text = String(e.text ?? '');
    else if (e.kind === 'admin') text = `${e.action ?? ''} ${e.detail ?? ''}`;
    else continue;
    if (text.toLowerCase().includes(q)) out.push(e);
  }
  return out;
}
