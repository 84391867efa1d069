// The parts of a recording the player cannot show: a chunk whose bytes are damaged (a failed
// checksum, a broken zstd frame) or that a server would not send after retries (docs/worker-
// protocol.md, `gap`). The worker reports each once; the clock skips them, a seek into one lands
// past it, and the page asks for no frame in them (pieces.ts). What a viewer reads about one:
// www/app/gap-layer.ts. No DOM, no worker (tests/unit/gaps.test.mjs).
/** A gap of ticks [from, to); `shown`: what the page shows of it (core.ts: seconds, cause, reason). */
export interface TickGap<S = object> {
  from: number;
  to: number;
  shown: S;
}

export class Gaps<S extends object = object> {
  /** Tick ranges [from, to) the player skips, sorted by `from`, disjoint: {from, to, shown}. */
  list: TickGap<S>[] = [];

  /** Adds the gap of ticks [from, to) (`shown`: what the page shows of it, seconds); false when it
   *  adds nothing (known already, empty, or overlapping one). */
  add(from: number, to: number, shown: S = {} as S): boolean {
    if (!(to > from) || this.list.some((g) => g.from < to && from < g.to)) return false;
    this.list.push({ from, to, shown });
    this.list.sort((a, b) => a.from - b.from);
    return true;
  }

  /** The gap holding integer tick `tick`, or null. */
  at(tick: number): TickGap<S> | null {
    for (const g of this.list) {
      if (g.from > tick) break;
      if (tick < g.to) return g;
    }
    return null;
  }

  /**
   * The first tick past the run of gaps that holds `tick` in direction `dir` (1: the tick after
   * the last one skipped; −1: the tick before the first one), or `tick` itself when no gap holds
   * it. May lie outside the recording (a gap at its end or start): the caller checks.
   */
  past(tick: number, dir: number): number {
    let t = tick;
    for (let g = this.at(t), k = 0; g && k <= this.list.length; g = this.at(t), k++) t = dir < 0 ? g.from - 1 : g.to;
    return t;
  }
}
