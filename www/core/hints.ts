// Prefetch hints: the page tells the worker where the next seek most likely goes (the pointer
// resting on the timeline or a kill row, a seek's landing, a key's next step), so that the seek
// neither reads nor decompresses (docs/worker-protocol.md `prefetch`). Nothing here waits in front
// of the picture: a hint is a notification, sent after HINT_DELAY_MS.
import type { PrefetchParams } from '../lib/protocol/decode.ts';
import type { EventLedger } from './ledger.ts';
import type { HeldPieces, Timebase } from './pieces.ts';

/** How long the pointer stays on a moment before the worker is told. */
const HINT_DELAY_MS = 60;
/** ← / → seek this far (seconds; the keyboard's step without Shift or Alt). */
export const SEEK_STEP_S = 5;

/** What Hints reads and calls on the player (core.ts `Core` is one). */
export interface HintsHost {
  /** The open's answer, once it came (only whether there is one). */
  readonly info: unknown;
  /** The open session: a hint for an older one is dropped. */
  readonly sessionId: number;
  readonly tb: Pick<Timebase, 'tickAt' | 'duration'>;
  /** The clock: whether it moves, the playhead, whether a kill cam plays. */
  readonly pb: { readonly moving: boolean; readonly time: number; readonly killCam: unknown };
  readonly pieces: Pick<HeldPieces, 'at'>;
  readonly ledger: Pick<EventLedger, 'killStart'>;
  readonly client: { notify(method: 'prefetch', params: PrefetchParams): void };
}

export class Hints {
  #p: HintsHost;
  #timer: number;
  /** The tick of the last hint sent (-1: none since the last seek or open). */
  prefetched: number;
  /** Hints sent for this file (diagnostics: the worker's stats count those it got). */
  sent: number;
  /** Which way the last seek went (−1 back, 1 on): which likely next seek a hint reads first. */
  lastSeekDir: number;

  /** `player`: the player the hints are for. */
  constructor(player: HintsHost) {
    this.#p = player;
    this.prefetched = -1;
    this.#timer = 0;
    this.sent = 0;
    this.lastSeekDir = 1;
  }

  /** A new file: nothing sent for it yet. */
  reset(): void {
    this.prefetched = -1;
    this.sent = 0;
  }

  /** A hint is waiting for its delay (tests: with the worker's stats, whether hints are done). */
  get waiting(): boolean {
    return this.#timer !== 0;
  }

  /** Forgets the hint waiting, if any, and what was prefetched (the clock jumped: the worker's
   *  decoder moved, and a hint for where the page was is stale). */
  cancel(): void {
    this.prefetched = -1;
    clearTimeout(this.#timer);
    this.#timer = 0;
  }

  /** Stops the hint waiting, for good (dispose). */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Sends the `prefetch` hint for `t` seconds after HINT_DELAY_MS (a newer hint or a seek cancels
   * it); nothing when the frames there are already held. Paused, it also names the moments the next
   * seek most likely goes to from the playhead (`likelyTicks()`), whose chunks the worker reads once
   * it is done with `t`'s. `keep`: the worker must not move the decoder the page plays from for it
   * (only a spare one, or none).
   */
  hint(t: number, { keep = false }: { keep?: boolean } = {}): void {
    const p = this.#p;
    const tick = p.tb.tickAt(t);
    const sid = p.sessionId;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = 0;
      if (!p.info || sid !== p.sessionId) return;
      const paused = !p.pb.moving;
      const warm = tick !== this.prefetched && !p.pieces.at(tick);
      const reads = paused ? this.#likelyTicks().filter((k) => k !== tick && !p.pieces.at(k)) : [];
      if (!warm && !reads.length) return;
      this.prefetched = tick;
      this.sent++;
      p.client.notify('prefetch', {
        session: p.sessionId,
        tick: warm ? tick : null,
        decode: paused,
        reads,
        keep,
      });
    }, HINT_DELAY_MS);
  }

  /**
   * A seek landed while paused: the worker gets the seeks most likely to follow ready. The next
   * ← / → step the way the seek went (5 s) is decompressed in its spare decoder (a `.flrep` has
   * one), so that a first → after a seek resumes there; the others' chunks (the other way, [ / ]:
   * `likelyTicks()`) are read, so that they do not wait for the file (on a server, a round trip).
   * The decoder the page plays from stays where the seek left it (`keep`): playing on, the
   * likeliest next step, resumes there without decompressing again. A key's own hint
   * (keyboard.ts: where the same key goes next) replaces this one.
   */
  landing(): void {
    const p = this.#p;
    if (!p.info || p.pb.moving || p.pb.killCam) return;
    const now = p.pb.time;
    const t = now + this.lastSeekDir * SEEK_STEP_S;
    if (t >= 0 && t <= p.tb.duration) this.hint(t, { keep: true });
    else this.hint(now, { keep: true });
  }

  /** From the playhead, paused: ← / → and [ / ]'s targets (ticks), most likely first. */
  #likelyTicks(): number[] {
    const p = this.#p;
    const t = p.pb.time;
    const d = this.lastSeekDir;
    const duration = p.tb.duration;
    const out: number[] = [];
    for (const x of [t + d * SEEK_STEP_S, t - d * SEEK_STEP_S, p.ledger.killStart(d, t), p.ledger.killStart(-d, t)]) {
      if (x === null || !(x >= 0) || x > duration) continue;
      const k = p.tb.tickAt(x);
      if (!out.includes(k)) out.push(k);
    }
    return out;
  }
}
