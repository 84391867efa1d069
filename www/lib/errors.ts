// What an error says, for a person: the one `messageOf` of the shell (every thread). An Error's
// message when it has one, else the thrown value as text (a string thrown by wasm-bindgen glue, a
// DOMException's name and message, a rejected fetch).

/** The sentence to show for `e` (never empty for an Error without a message: its name then). */
export function messageOf(e: unknown): string {
  if (e instanceof Error || (typeof e === 'object' && e !== null && 'message' in e)) {
    const m = (e as { message?: unknown }).message;
    if (typeof m === 'string' && m) return m;
    if (e instanceof Error) return e.name || 'Error';
  }
  return String(e);
}
