// Page side of the decoder worker: request/response RPC over postMessage plus pushed messages.
// When the worker dies (an uncaught error event, or a wasm trap it reports as fatal), pending
// requests are rejected, `onFatal` is told, and the next request starts a fresh worker.
// Protocol: docs/worker-protocol.md.

export class WorkerClient {
  /**
   * @param {{onPush?: (msg: object) => void, onFatal?: (message: string) => void}} handlers
   */
  constructor({ onPush, onFatal } = {}) {
    this.onPush = onPush ?? (() => {});
    this.onFatal = onFatal ?? (() => {});
    this.worker = null;
    this.nextId = 1;
    this.pending = new Map();
    this.restarts = 0;
  }

  ensure() {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'replay-decoder' });
    w.addEventListener('message', (ev) => this.handle(w, ev.data));
    w.addEventListener('error', (ev) => {
      ev.preventDefault();
      this.die(w, ev.message ? `the decoder stopped: ${ev.message}` : 'the decoder could not start (worker error)');
    });
    w.addEventListener('messageerror', () => this.die(w, 'the decoder sent a message that could not be read'));
    this.worker = w;
    return w;
  }

  handle(w, msg) {
    if (w !== this.worker || !msg) return;
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) {
        const e = new Error(msg.error.message);
        e.fatal = !!msg.error.fatal;
        p.reject(e);
      } else {
        p.resolve(msg.result);
      }
      return;
    }
    // A trap outside any request (decoding a wanted chunk) arrives as an `error` marked fatal: the
    // wasm instance is as unusable as after a `fatal`, so the worker is replaced the same way.
    if (msg.type === 'fatal' || (msg.type === 'error' && msg.fatal)) {
      this.die(w, msg.message);
      return;
    }
    this.onPush(msg);
  }

  /** Kills the worker (after a crash); the next call starts a new one. */
  die(w, message) {
    if (w !== this.worker) return;
    this.worker = null;
    this.restarts++;
    try {
      w.terminate();
    } catch {
      /* ignore */
    }
    const err = new Error(message);
    err.fatal = true;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.onFatal(message);
  }

  /** Calls a worker method; resolves with its result or rejects with an Error(reader's message). */
  call(method, params = {}) {
    const w = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.postMessage({ id, method, params });
    });
  }

  /** Fire-and-forget (no reply is sent). */
  notify(method, params = {}) {
    if (!this.worker) return;
    this.worker.postMessage({ method, params });
  }

  terminate() {
    if (this.worker) {
      this.worker.terminate();
      this.worker = null;
    }
    for (const p of this.pending.values()) p.reject(new Error('closed'));
    this.pending.clear();
  }
}
