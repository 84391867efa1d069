// A scenario run once more when the engine under it died or hung (tests/engines/scenarios.mjs,
// WebKitGTK): the first try is stopped before the second starts — its engine is closed, so every
// call it still makes fails — and the retry is named (`onRetry`). No browser here: unit-tested with
// fakes (tests/unit/engine-retry.test.mjs).

/** `p`, or an error once `ms` passed (a hung web process answers nothing), naming `lastCall()`. */
export function withDeadline(p, ms, lastCall = () => '') {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the scenario did not finish in ${ms} ms (last in the page: ${lastCall()})`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Runs `attempt()` within `ms`; when it fails in a way `died(error)` recognises (the engine's
 * death or hang, not the player's fault), `restart()` stops the engine the first try runs in and
 * starts a fresh one, `onRetry(why)` names the retry, and `attempt()` runs once more within `ms`.
 * Any other failure, and a second one of any kind, is the result.
 */
export async function withOneRetry(attempt, { ms, died, restart, onRetry, lastCall }) {
  const first = attempt();
  try {
    return await withDeadline(first, ms, lastCall);
  } catch (e) {
    if (!died(e)) throw e;
    // (What the first try does after its engine is gone fails; nobody waits for it.)
    first.catch(() => {});
    await restart();
    onRetry(String(e?.message ?? e).split('\n')[0]);
    return withDeadline(attempt(), ms, lastCall);
  }
}
