// Request/response over one worker's postMessage, and what happens when that worker dies: the page
// side shared by WorkerClient (the decoder worker), RenderProxy (the render worker), the Compare
// view (the compare worker) and workerExport (the export worker). A request is posted with a fresh
// `id` and settles on the one reply with that id, `{id, result}` or `{id, error: {message, fatal}}`
// (docs/worker-protocol.md, "Shapes"); a message without an id is a push, handed to `onPush`. When
// the worker dies (a worker `error` event, a message that could not be read, or the owner saying so
// with `die()`), it is terminated, every pending request is rejected with the crash's message, every
// later one too, and `onDeath` is told once. What the messages mean beyond that (methods, pushes, a
// `fatal` push) is each owner's business.

/** An Error of a request that failed: `fatal` when the wasm trapped (or the worker died). */
export interface RpcError extends Error {
  fatal: boolean;
}

/** What settles a pending request. */
interface Pending {
  resolve: (result: unknown) => void;
  reject: (e: Error) => void;
}

export interface RpcOptions<Push extends object> {
  /** a message without an id (ignored when not given) */
  onPush?: ((msg: Push) => void) | null;
  /** the worker died (once; not after `close()`) */
  onDeath?: ((message: string) => void) | null;
  /** the death message of a worker `error` event */
  crashMessage?: (ev: ErrorEvent) => string;
  /** the death message of a `messageerror` (none: not listened for) */
  unreadableMessage?: string | null;
  /** a reply whose error says `fatal` (the wasm trapped) kills the worker then and there; otherwise
   *  it only rejects its request (the worker says so another way) */
  dieOnFatalReply?: boolean;
}

/** A reply or a push as it arrives (not trusted: checked before use). */
interface Incoming {
  id?: number;
  result?: unknown;
  error?: { message?: string; fatal?: boolean } | string;
}

/** `new Rpc(port, options)`, handed to a feature loaded on first use (www/features/compare/view.ts,
 *  www/features/export/open.ts) by main.ts, so that the feature imports only this module's types:
 *  imported by a lazy module too, the class would leave main.js for a chunk of its own, and the
 *  first load would pay a request and the chunk's lost gzip context (+258 bytes gzipped, measured). */
export type NewRpc = <Push extends object>(port: Worker, options?: RpcOptions<Push>) => Rpc<Push>;

/** `Push`: what the worker's messages without an id are (each owner's protocol). */
export class Rpc<Push extends object = object> {
  port: Worker;
  onPush: ((msg: Push) => void) | null;
  onDeath: ((message: string) => void) | null;
  dieOnFatalReply: boolean;
  nextId: number;
  /** id → {resolve, reject} of the requests not answered yet. */
  pending: Map<number, Pending>;
  /** Set once the worker died or was closed: what every later request is rejected with. */
  error: Error | null;

  /**
   * @param port the worker (anything with postMessage, terminate and message/error events)
   */
  constructor(
    port: Worker,
    {
      onPush = null,
      onDeath = null,
      crashMessage = (ev) => ev?.message || 'the worker failed',
      unreadableMessage = null,
      dieOnFatalReply = false,
    }: RpcOptions<Push> = {},
  ) {
    this.port = port;
    this.onPush = onPush;
    this.onDeath = onDeath;
    this.dieOnFatalReply = dieOnFatalReply;
    this.nextId = 1;
    this.pending = new Map();
    this.error = null;
    port.addEventListener('message', (ev) => this.handle(ev.data));
    port.addEventListener('error', (ev) => {
      ev.preventDefault?.();
      this.die(crashMessage(ev));
    });
    if (unreadableMessage !== null) port.addEventListener('messageerror', () => this.die(unreadableMessage));
  }

  /** Whether the worker died or was closed (requests are refused, messages ignored). */
  get dead(): boolean {
    return this.error !== null;
  }

  /** Posts `{id, ...msg}`; resolves with the reply's `result`, or rejects with an Error carrying the
   *  reply's message and `fatal`. `transfer`: buffers moved to the worker. */
  request(msg: object, transfer: Transferable[] = []): Promise<unknown> {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (this.error) {
        reject(this.error);
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ id, ...msg }, transfer);
    });
  }

  /** Posts `msg` (no id: no reply); nothing once the worker died or was closed. */
  send(msg: object, transfer: Transferable[] = []): void {
    if (this.error) return;
    this.port.postMessage(msg, transfer);
  }

  handle(data: unknown): void {
    if (this.error || data === null || typeof data !== 'object' || Array.isArray(data)) return;
    const msg = data as Incoming;
    if (msg.id === undefined) {
      // (What a push is, is the owner's protocol: the worker's message as it came.)
      this.onPush?.(data as Push);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) {
      const e = new Error((typeof msg.error === 'object' ? msg.error.message : msg.error) ?? '') as RpcError;
      e.fatal = typeof msg.error === 'object' && !!msg.error.fatal;
      if (e.fatal && this.dieOnFatalReply) this.die(e.message);
      p.reject(e);
    } else {
      p.resolve(msg.result);
    }
  }

  /** The worker died: it is terminated, every pending and later request rejected with `message`
   *  (an Error with `fatal` set), and `onDeath(message)` called. Once; nothing after `close()`. */
  die(message: string): void {
    if (this.error) return;
    const err = new Error(message) as RpcError;
    err.fatal = true;
    this.end(err, err);
    this.onDeath?.(message);
  }

  /**
   * The owner is done with the worker: it is terminated and later requests are rejected with
   * `error` (default: Error('closed')). Pending requests are rejected with `error` when given, and
   * otherwise left unanswered (nobody waits for them any more).
   */
  close(error: Error | null = null): void {
    if (this.error) return;
    this.end(error ?? new Error('closed'), error);
  }

  end(refusal: Error, rejection: Error | null): void {
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
