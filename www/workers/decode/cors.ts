// Why a replay on a server could not be opened, in words that say what to do (workers/decode/sources.ts
// imports this when an open fails): a server on another origin that does not allow this page to
// read the file (CORS), or does not let it read the file's size; one that cannot be reached.
import { messageOf } from '../../lib/errors.ts';

/** An origin other than this page's (the worker's), or null (same origin, or not a URL). */
export function otherOrigin(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o !== self.location.origin ? o : null;
  } catch {
    return null;
  }
}

/**
 * Why `fetch(url)` failed with no answer to read (a TypeError: "Failed to fetch"): for another
 * origin, a no-cors request tells a server that answered (it did not allow this page to read it:
 * CORS) from one that could not be reached.
 */
export async function fetchFailure(url: string, e: unknown): Promise<Error> {
  const origin = otherOrigin(url);
  if (origin) {
    const reached = await fetch(url, { method: 'HEAD', mode: 'no-cors', cache: 'no-store' }).then(
      () => true,
      () => false,
    );
    if (reached)
      return new Error(
        `the server at ${origin} did not allow this page to read the file: it must send Access-Control-Allow-Origin (and, for seeking, Access-Control-Expose-Headers: Content-Range)`,
      );
    return new Error(`could not reach the server at ${origin} (${messageOf(e)})`);
  }
  return new Error(`could not fetch ${url}: ${messageOf(e)}`);
}

/** A 206 without a readable Content-Range: another origin that does not expose it, else a malformed answer. */
export function noRange(url: string): Error {
  const origin = otherOrigin(url);
  return new Error(
    origin
      ? `the server at ${origin} did not let this page read the file's size: it must send Access-Control-Expose-Headers: Content-Range`
      : `the server sent a malformed Content-Range for ${url}`,
  );
}
