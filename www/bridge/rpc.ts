// @ts-nocheck
// Request/response over one worker's postMessage, and what happens when that worker dies: the page
// side shared by WorkerClient (the decoder worker) and RenderProxy (the render worker). A request is
// posted with a fresh `id` and settles on the one reply with that id, `{id, result}` or
// `{id, error: {message, fatal}}` (docs/worker-protocol.md, "Shapes"); a message without an id is
// a push, handed to `onPush`. When the worker dies (a worker `error` event, a message that could not
// be read, or the owner saying so with `die()`), it is terminated, every pending request is rejected
// with the crash's message, every later one too, and `onDeath` is told once. What the messages mean
// beyond that (methods, pushes, a `fatal` push) is each owner's business.

export class Rpc {
  /**
   * @param {Worker} port the worker (anything with postMessage, terminate and message/error events)
   * @param {object} [o]
   * @param {(msg: object) => void} [o.onPush] a message without an id (ignored when not given)
   * @param {(message: string) => void} [o.onDeath] the worker died (once; not after `close()`)
   * @param {(ev: ErrorEvent) => string} [o.crashMessage] the death message of a worker `error` event
   * @param {string} [o.unreadableMessage] the death message of a `messageerror` (none: not listened for)
   * @param {boolean} [o.dieOnFatalReply] a reply whose error says `fatal` (the wasm trapped) kills the
   *   worker then and there; otherwise it only rejects its request (the worker says so another way)
   */
  constructor(
    port,
    {
      onPush = null,
      onDeath = null,
      crashMessage = (ev) => ev?.message || 'the worker failed',
      unreadableMessage = null,
      dieOnFatalReply = false,
    } = {},
  ) {
    this.port = port;
    this.onPush = onPush;
    this.onDeath = onDeath;
    this.dieOnFatalReply = dieOnFatalReply;
    this.nextId = 1;
    /** id → {resolve, reject} of the requests not answered yet. */
    this.pending = new Map();
    /** Set once the worker died or was closed: what every later request is rejected with. */
    this.error = null;
    port.addEventListener('message', (ev) => this.handle(ev.data));
    port.addEventListener('error', (ev) => {
      ev.preventDefault?.();
      this.die(crashMessage(ev));
    });
    if (unreadableMessage !== null) port.addEventListener('messageerror', () => this.die(unreadableMessage));
  }

  /** Whether the worker died or was closed (requests are refused, messages ignored). */
  get dead() {
    return this.error !== null;
  }

  /** Posts `{id, ...msg}`; resolves with the reply's `result`, or rejects with an Error carrying the
   *  reply's message and `fatal`. `transfer`: buffers moved to the worker. */
  request(msg, transfer = []) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.error) {
        reject(this.error);
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, ...msg }, transfer);
    });
  }

  /** Posts `msg` (no id: no reply); nothing once the worker died or was closed. */
  send(msg, transfer = []) {
    if (this.error) return;
    this.port.postMessage(msg, transfer);
  }

  handle(msg) {
    if (this.error || msg === null || typeof msg !== 'object' || Array.isArray(msg)) return;
    if (msg.id === undefined) {
      this.onPush?.(msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) {
      const e = new Error((typeof msg.error === 'object' ? msg.error.message : msg.error) ?? '');
      e.fatal = !!msg.error.fatal;
      if (e.fatal && this.dieOnFatalReply) this.die(e.message);
      p.reject(e);
    } else {
      p.resolve(msg.result);
    }
  }

  /** The worker died: it is terminated, every pending and later request rejected with `message`
   *  (an Error with `fatal` set), and `onDeath(message)` called. Once; nothing after `close()`. */
  die(message) {
    if (this.error) return;
    const err = new Error(message);
    err.fatal = true;
    this.end(err, err);
    this.onDeath?.(message);
  }

  /**
   * The owner is done with the worker: it is terminated and later requests are rejected with
   * `error` (default: Error('closed')). Pending requests are rejected with `error` when given, and
   * otherwise left unanswered (nobody waits for them any more).
   */
  close(error = null) {
    if (this.error) return;
    this.end(error ?? new Error('closed'), error);
  }

  end(refusal, rejection) {
    this.error = refusal;
    try {
      this.port.terminate();
    } catch {
      /* already gone */
    }
    const pending = [...this.pending.values()];
    this.pending.clear();
    if (rejection) for (const p of pending) p.reject(rejection);
  }
}
