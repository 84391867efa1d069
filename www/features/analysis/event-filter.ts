// The Analysis panel's event filter (www/features/analysis/panel.ts): which events the kill feed and the
// timeline's markers show, and where N / Shift+N go. Pure; tests/unit/analysis.test.mjs.

/** The kinds a filter chooses among (eventKindKey's; every other custom kind is 'other'). */
export const FILTER_KINDS: readonly string[] = ['kill', 'spawn', 'despawn', 'chat', 'admin', 'alert_level', 'other'];

/** A kill as the player lists it (`handle.kills`, `kill` events). */
export interface Kill {
  kind: 'kill';
  tick: number;
  t?: number;
  killer: number;
  victim: number;
  /** An entity-type index. */
  weapon_type: number;
}

/** An event as the player lists it (`handle.events`: `kind`, `tick`, and the kind's fields; `t` its
 *  time in seconds). */
export type ReplayEvent =
  | Kill
  | { kind: 'spawn'; tick: number; t?: number; entity: number; participant: number }
  | { kind: 'despawn'; tick: number; t?: number; entity: number; reason: number | string }
  | { kind: 'chat'; tick: number; t?: number; participant: number; channel: number | string; text: string }
  | { kind: 'admin'; tick: number; t?: number; participant: number; action: number | string; detail: string }
  | { kind: 'alert_level'; tick: number; t?: number; level: number }
  | {
      kind: 'custom';
      tick: number;
      t?: number;
      type: number | string;
      source: number;
      target: number;
      pos: number[];
      data: unknown;
    };

/** What a filter chooses (the panel's selects and boxes). */
export interface Filter {
  /** An entity id, or −1 (anyone). */
  who: number;
  /** How `who` (and `faction`) take part in a kill. */
  role: 'killer' | 'victim' | 'either';
  /** A faction index, or −1. */
  faction: number;
  /** A weapon (type) index, or −1: only kills with it. */
  weapon: number;
  /** The kinds kept (FILTER_KINDS). */
  kinds: Set<string>;
}

/** What a filter asks of the player. */
export interface FilterHelpers {
  /** eventKindKey, with the custom kinds not in FILTER_KINDS as 'other'. */
  kindOf: (e: ReplayEvent) => string;
  /** An entity's faction. */
  factionOf: (id: number) => number | undefined;
  /** A participant (`entity`, `faction`). */
  participant: (id: number) => { entity: number; faction: number } | undefined;
}

/**
 * A predicate over events (each as the player lists them: `kind`, `tick`, and the kind's fields),
 * chosen by `f` (Filter) and read through `h` (FilterHelpers); null when the filter keeps everything.
 */
export function makeFilter(
  f: Filter,
  { kindOf, factionOf, participant }: FilterHelpers,
): ((e: ReplayEvent) => boolean) | null {
  const allKinds = FILTER_KINDS.every((k) => f.kinds.has(k));
  if (f.who < 0 && f.faction < 0 && f.weapon < 0 && allKinds) return null;
  const kind = (e: ReplayEvent): string => {
    const k = kindOf(e);
    return FILTER_KINDS.includes(k) ? k : 'other';
  };
  // The entities and factions an event is about (a kill's by role).
  const about = (e: ReplayEvent): number[] => {
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
        return 'source' in e && e.source !== undefined ? [e.source, e.target] : [];
    }
  };
  const factionsOf = (e: ReplayEvent, ids: number[]): (number | undefined)[] => {
    if (e.kind === 'chat' || e.kind === 'admin') {
      const p = participant(e.participant);
      return p ? [p.faction] : [];
    }
    return ids.map(factionOf);
  };
  return (e: ReplayEvent): boolean => {
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
export function stepMatch<E extends { tick: number }>(
  events: readonly E[],
  tick: number,
  dir: number,
  keep: ((e: E) => boolean) | null,
): E | null {
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
export function searchText<E extends ReplayEvent>(events: readonly E[], query: unknown, max = 50): E[] {
  const q = String(query ?? '')
    .trim()
    .toLowerCase();
  if (!q) return [];
  const out: E[] = [];
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
