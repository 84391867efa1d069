// How the decoder worker's modules (www/worker*.js) tell errors apart: the message the page shows,
// and whether the wasm trapped (docs/worker-protocol.md, "Shapes": `fatal`).

import type { GapCause } from '../../lib/protocol/decode.ts';

/** What the worker's modules read of something thrown (anything may be: `unknown` in a catch), and
 *  the marks they set on their own errors: `unread` (a read failed after the retries: a gap's
 *  cause), `transient` (worth asking again), `live` (the live source's). */
export type ErrorLike =
  | {
      message?: unknown;
      name?: unknown;
      unread?: boolean;
      transient?: boolean;
      live?: boolean;
    }
  | null
  | undefined;

/** The message of an error, for the page (lib/errors.ts: the shell's one). */
import { messageOf } from '../../lib/errors.ts';

export { messageOf };

/** A wasm trap (panic → unreachable) leaves the module unusable: the page restarts the worker. */
export function isFatal(e: unknown): boolean {
  return e instanceof WebAssembly.RuntimeError;
}

/**
 * Why a chunk is a gap (docs/worker-protocol.md `gap`): `unread` when its bytes could not be read
 * (a server that kept failing: workers/decode/sources.ts retries first), else `damaged` (the reader's
 * message: a failed checksum, a broken frame). `reason` is short (no URL: the page has it).
 */
export function gapCause(e: unknown): GapCause {
  const reason = messageOf(e).replace(/ for \S+$/, '');
  return { cause: (e as ErrorLike)?.unread ? 'unread' : 'damaged', reason };
}
