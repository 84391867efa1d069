// Work the picture does not wait for (the kill feed following the playhead, the roster's dead
// marks): run when the main thread is idle, at most `timeoutMs` later, coalesced (asking again
// before it ran does nothing). A seek's piece and the next frame never queue behind it.
// (Safari has no requestIdleCallback: a short timeout there.)
const later: (f: () => void, ms: number) => unknown =
  typeof requestIdleCallback === 'function'
    ? (f, ms) => requestIdleCallback(f, { timeout: ms })
    : (f) => setTimeout(f, 50);

/** Returns `schedule()`: runs `fn` once, when idle, however often it is called before that. */
export function idleTask(fn: () => void, timeoutMs = 250): () => void {
  let pending = false;
  return function schedule() {
    if (pending) return;
    pending = true;
    later(() => {
      pending = false;
      fn();
    }, timeoutMs);
  };
}
