// @ts-nocheck
// How the decoder worker's modules (www/worker*.js) tell errors apart: the message the page shows,
// and whether the wasm trapped (docs/worker-protocol.md, "Shapes": `fatal`).

/** The message of an error, for the page. */
export function messageOf(e) {
  if (e && typeof e.message === 'string' && e.message) return e.message;
  return String(e);
}

/** A wasm trap (panic → unreachable) leaves the module unusable: the page restarts the worker. */
export function isFatal(e) {
  return e instanceof WebAssembly.RuntimeError;
}

/**
 * Why a chunk is a gap (docs/worker-protocol.md `gap`): `unread` when its bytes could not be read
 * (a server that kept failing: workers/decode/sources.ts retries first), else `damaged` (the reader's
 * message: a failed checksum, a broken frame). `reason` is short (no URL: the page has it).
 */
export function gapCause(e) {
  const reason = messageOf(e).replace(/ for \S+$/, '');
  return { cause: e?.unread ? 'unread' : 'damaged', reason };
}
