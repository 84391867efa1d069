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
