// Waits that cannot hang: a promise raced against a time limit and an AbortSignal. What a long job
// made of many awaits (Export → Video: a frame decoded, drawn, encoded…) wraps each of them in, so
// that a part that never answers ends the job with a sentence naming it, and Cancel ends it at
// once whatever it was waiting for. No DOM: any thread.

/** The error of a wait that ran out: `what` did not come within `ms`. */
export class StallError extends Error {
  readonly what: string;
  readonly ms: number;
  constructor(what: string, ms: number) {
    super(`${what} did not come within ${formatSeconds(ms)}`);
    this.name = 'StallError';
    this.what = what;
    this.ms = ms;
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** An AbortError, as `signal.throwIfAborted()` throws (its reason when that is an Error). */
function aborted(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The job was cancelled.', 'AbortError');
}

/**
 * `p`, or a StallError naming `what` once `ms` passed without it (ms ≤ 0 or Infinity: no limit),
 * or an AbortError as soon as `signal` aborts. `p` itself goes on (nothing here can stop it); what
 * it settles with later is ignored.
 */
export function within<T>(p: Promise<T>, what: string, ms: number, signal?: AbortSignal | null): Promise<T> {
  if (signal?.aborted) {
    p.catch(() => {});
    return Promise.reject(aborted(signal));
  }
  const limited = ms > 0 && Number.isFinite(ms);
  if (!limited && !signal) return p;
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      done();
      reject(aborted(signal as AbortSignal));
    };
    const done = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (limited)
      timer = setTimeout(() => {
        done();
        reject(new StallError(what, ms));
      }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        done();
        resolve(v);
      },
      (e) => {
        done();
        reject(e);
      },
    );
  });
}

/** A wait a job hands to its parts: `guard(what, p)` is `within(p, what, ms, signal)` of the job. */
export type Guard = <T>(what: string, p: Promise<T>) => Promise<T>;

/** The guard of a job with time limit `ms` per wait and `signal`. */
export function guarded(ms: number, signal?: AbortSignal | null): Guard {
  return (what, p) => within(p, what, ms, signal);
}

/** No limit, no cancelling: what a part waits with when nobody handed it a guard. */
export const unguarded: Guard = (_what, p) => p;
