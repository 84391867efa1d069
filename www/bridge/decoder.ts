// Page side of the decoder worker: request/response RPC over postMessage plus pushed messages.
// When the worker dies (an uncaught error event, or a wasm trap it reports as fatal), pending
// requests are rejected, `onFatal` is told, and the next request starts a fresh worker.
// Protocol: docs/worker-protocol.md; the request/reply and crash handling: www/bridge/rpc.ts.
import { Rpc } from './rpc.ts';
import { startDecoder, type ShippedWorker } from '../lib/shipped.ts';
import type { DecodeMethod, DecodeParams, DecodePush, DecodeResult } from '../lib/protocol/decode.ts';

/** How one of the player's workers starts, in place of lib/shipped.ts's (tests hand in fakes). */
export type Spawn = (which: ShippedWorker) => Worker;

/** What a WorkerClient tells its owner. */
export interface WorkerClientOptions {
  onPush?: (msg: DecodePush) => void;
  onFatal?: (message: string) => void;
  /** how the worker starts (default lib/shipped.ts `startDecoder`) */
  spawn?: Spawn;
}

export class WorkerClient {
  onPush: (msg: DecodePush) => void;
  onFatal: (message: string) => void;
  spawn: Spawn;
  /** The Rpc over the running worker (null: none; the next call starts one). */
  rpc: Rpc<DecodePush> | null;
  restarts: number;

  /**
   * @param handlers  spawn: how the worker starts
   *   (default lib/shipped.ts `startDecoder`, from any origin)
   */
  constructor({ onPush, onFatal, spawn }: WorkerClientOptions = {}) {
    this.onPush = onPush ?? (() => {});
    this.onFatal = onFatal ?? (() => {});
    this.spawn = spawn ?? startDecoder;
    this.rpc = null;
    this.restarts = 0;
  }

  /** The running worker's Rpc, or a new worker's. */
  ensure(): Rpc<DecodePush> {
    if (this.rpc) return this.rpc;
    const w = this.spawn('decoder');
    const rpc: Rpc<DecodePush> = new Rpc<DecodePush>(w, {
      onPush: (msg) => this.push(rpc, msg),
      onDeath: (message) => {
        if (this.rpc === rpc) this.rpc = null;
        this.restarts++;
        this.onFatal(message);
      },
      crashMessage: (ev) =>
        ev.message ? `the decoder stopped: ${ev.message}` : 'the decoder could not start (worker error)',
      unreadableMessage: 'the decoder sent a message that could not be read',
    });
    this.rpc = rpc;
    return rpc;
  }

  push(rpc: Rpc<DecodePush>, msg: DecodePush): void {
    // A trap outside any request (decoding a wanted chunk) arrives as an `error` marked fatal: the
    // wasm instance is as unusable as after a `fatal`, so the worker is replaced the same way.
    if (msg.type === 'fatal' || (msg.type === 'error' && msg.fatal)) {
      rpc.die(msg.message);
      return;
    }
    this.onPush(msg);
  }

  /** Calls a worker method; resolves with its result or rejects with an Error(reader's message). */
  call<M extends DecodeMethod>(method: M, params: DecodeParams<M> = {}): Promise<DecodeResult<M>> {
    // (The worker answers `method` with its result: the protocol's, lib/protocol/decode.ts.)
    return this.ensure().request({ method, params }) as Promise<DecodeResult<M>>;
  }

  /** Fire-and-forget (no reply is sent). */
  notify<M extends DecodeMethod>(method: M, params: DecodeParams<M> = {}): void {
    this.rpc?.send({ method, params });
  }

  terminate(): void {
    const rpc = this.rpc;
    this.rpc = null;
    rpc?.close(new Error('closed'));
  }
}
