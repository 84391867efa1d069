// The events the page knows of: the open's markers (the index trailer's kills) and every event of
// the pieces it has seen, each once, and the kills among them in tick order (the timeline's
// markers, the kill feed, [ / ] and the kill cam). No DOM: the player adds what arrives and hands
// the fresh events to the clock (core/clock.ts keeps them in time order; tests/unit/ledger.test.mjs).
import type { KillEvent, ReplayEvent } from '../lib/types.ts';
import { upperBound } from './clock.ts';
import type { Timebase } from './pieces.ts';

/** A kill is watched from this long before it ([ / ], a kill marker's or row's click). */
export const KILL_LEAD_S = 2;

/** An event the page knows, with `t`, its playback seconds. */
export type TimedEvent = ReplayEvent & { t: number };
/** A kill the page knows, with `t`, its playback seconds. */
export type TimedKill = KillEvent & { t: number };
/** Ticks [from, end). */
type Range = [number, number];

const byTick = (k: { tick: number }) => k.tick;
const rangeEnd = (r: Range) => r[1];

export class EventLedger {
  /** Spoiler-safe views show kills up to this tick only (Infinity: every kill). */
  #visibleTick = Infinity;
  /** `visible`'s cache: the kills up to #visibleTick, or null when it must be computed again. */
  #visible: TimedKill[] | null = null;
  #tb: Timebase;
  /** (tick, killer, victim) of the kills known, while the open's markers may not hold them all. */
  #killKeys = new Set<string>();
  /** Tick ranges [from, end) whose events the page has from pieces (sorted, disjoint): a piece's
   *  events are every event of its ticks, so an event in a range already learned is a duplicate. */
  #ranges: Range[] = [];
  /** Kills in tick order (each with `t`, its playback seconds). */
  kills: TimedKill[] = [];

  constructor(tb: Timebase) {
    this.#tb = tb;
  }

  /**
   * Adds events of every kind: the open's markers (no range), or a piece's events (every event
   * recorded in its ticks [from, end); `recordedAt[k]`: the tick event k was recorded in).
   * Deduplicated by tick range, not by a key per event (a 1 GB recording has ~100,000 events; a
   * JSON key each cost more than the events), and kills also by their (tick, killer, victim) unless
   * the open's markers hold every kill (`complete`). Returns the new events (each with `t`) and
   * whether kills were among them, or null when nothing was new.
   */
  add(
    events: ArrayLike<ReplayEvent>,
    from: number | null,
    end: number | null,
    recordedAt: ArrayLike<number> | null,
    complete: boolean,
  ): { fresh: TimedEvent[]; killAdded: boolean } | null {
    const ranged = from !== null && end !== null && end > from;
    let killAdded = false;
    const fresh: TimedEvent[] = [];
    for (let k = 0; k < events.length; k++) {
      const e = events[k];
      if (!e || typeof e.tick !== 'number') continue;
      // Deduplicated by the tick the event was recorded in (its own tick may differ, docs/worker-protocol.md `piece`).
      if (ranged && this.learned(recordedAt?.[k] ?? e.tick)) continue;
      if (e.kind === 'kill') {
        // With a complete index every kill came with the open's markers.
        if (ranged && complete) continue;
        if (!complete) {
          const key = `${e.tick}:${e.killer}:${e.victim}`;
          if (this.#killKeys.has(key)) continue;
          this.#killKeys.add(key);
        }
      }
      const ev: TimedEvent = { ...e, t: this.#tb.timeOf(e.tick) };
      fresh.push(ev);
      if (ev.kind === 'kill') {
        this.kills.push(ev);
        killAdded = true;
      }
    }
    if (ranged) this.#learn(from, end);
    if (!fresh.length) return null;
    if (killAdded) {
      this.kills.sort((a, b) => a.tick - b.tick);
      this.#visible = null;
    }
    return { fresh, killAdded };
  }

  /**
   * The kills a viewer may see: every kill, or in a spoiler-safe view those up to the tick the
   * playhead has reached (`reveal()`). The timeline, the kill feed, [ / ] and the kill cam use these.
   */
  get visible(): TimedKill[] {
    if (this.#visibleTick === Infinity) return this.kills;
    this.#visible ??= this.kills.slice(0, upperBound(this.kills, this.#visibleTick, byTick));
    return this.#visible;
  }

  /** The entity ids of the killers and victims of the visible kills in ticks [from, to]. */
  actorsIn(from: number, to: number): Set<number> {
    const kills = this.visible;
    const ids = new Set<number>();
    for (let i = upperBound(kills, to, byTick) - 1; i >= 0 && kills[i].tick >= from; i--) {
      ids.add(kills[i].killer);
      ids.add(kills[i].victim);
    }
    return ids;
  }

  /** Spoiler-safe: kills after `tick` stay hidden (Infinity shows them all). Returns whether the
   *  visible kills changed. */
  reveal(tick: number): boolean {
    if (tick === this.#visibleTick) return false;
    const upTo = (t: number) => (t === Infinity ? this.kills.length : upperBound(this.kills, t, byTick));
    const before = upTo(this.#visibleTick);
    const after = upTo(tick);
    this.#visibleTick = tick;
    // The same count is the same prefix: the cached list stays.
    if (before !== after) this.#visible = null;
    return before !== after;
  }

  /** Whether the events of `tick` came with a piece already. */
  learned(tick: number): boolean {
    const r = this.#ranges;
    const i = upperBound(r, tick, rangeEnd);
    return i < r.length && r[i][0] <= tick;
  }

  /** Marks the events of ticks [from, end) as learned (merging touching ranges). */
  #learn(from: number, end: number): void {
    const out: Range[] = [];
    let a = from;
    let b = end;
    let placed = false;
    for (const [x, y] of this.#ranges) {
      if (y < a) out.push([x, y]);
      else if (x > b) {
        if (!placed) {
          out.push([a, b]);
          placed = true;
        }
        out.push([x, y]);
      } else {
        a = Math.min(a, x);
        b = Math.max(b, y);
      }
    }
    if (!placed) out.push([a, b]);
    this.#ranges = out;
  }

  /** The kill nearest to `tick` (ties: the upcoming one), or null. */
  nearestKill(tick: number): TimedKill | null {
    const kills = this.visible;
    if (!kills.length) return null;
    const i = upperBound(kills, tick, byTick) - 1;
    const before = i >= 0 ? kills[i] : null;
    const after = i + 1 < kills.length ? kills[i + 1] : null;
    if (!before) return after;
    if (!after) return before;
    return tick - before.tick < after.tick - tick ? before : after;
  }

  /** Playback seconds of kill `k`. */
  killTime(k: Pick<KillEvent, 'tick'>): number {
    return this.#tb.timeOf(k.tick);
  }

  /**
   * The time [ (`dir` −1) or ] (1) seeks to from `now` (seconds): the previous / next kill's viewing
   * point (KILL_LEAD_S before it), or null when there is none that way. ] goes to the first viewing
   * point after `now`; [ to the last one more than half a second before it (so that [ pressed just
   * after ] goes back a kill, not to the start of the one being watched).
   */
  killStart(dir: number, now: number): number | null {
    const kills = this.visible;
    if (dir > 0) {
      for (const k of kills) {
        const s = Math.max(0, this.killTime(k) - KILL_LEAD_S);
        if (s > now + 0.05) return s;
      }
    } else {
      for (let i = kills.length - 1; i >= 0; i--) {
        const s = Math.max(0, this.killTime(kills[i]) - KILL_LEAD_S);
        if (s < now - 0.5) return s;
      }
    }
    return null;
  }
}
