// Compare's ghosts (docs/playback.md "Comparing two recordings"): a second recording, B, drawn
// translucent over the player's own, A, so that where they drift apart shows. B is decoded by a
// worker of its own (the same worker.js and protocol: docs/worker-protocol.md `open`, `want`,
// `piece`), asked for the ticks A's clock needs, as the player's own window is (pieces.ts); each
// frame, B's frames at A's two ticks go to the renderer (`setGhostFrames`, docs/renderer.md) and
// are interpolated at A's time. B's tick T is drawn at A's tick T's time: recordings of one
// session share their tick numbers. Memory: B's window, the size of A's.
import type { OpenInfo, PlayerEventMap } from '../lib/types.ts';
import { WorkerClient } from '../bridge/decoder.ts';
import type { Spawn } from '../bridge/decoder.ts';
import type { DecodeParams } from '../lib/protocol/decode.ts';
import type { DecoderPush, Thrown } from './core.ts';
import { Timebase, HeldPieces } from './pieces.ts';
import type { ClockView, HeldFrame } from './pieces.ts';

/** A ghost frame this far (seconds) from the playhead is stale (a seek B has not caught up with). */
const STALE_S = 0.5;
const NONE = new Int32Array(0);

/** What ghosts are drawn from: a File/Blob, or a URL. */
export type GhostSource = (Blob & { name?: string }) | string | URL;

/** What ghosts use of the player (core.ts's Core): A's clock and timebase, its tick, the frame
 *  loop to wake, and the `notice` event. */
export interface GhostsHost {
  /** A's clock: where it is, and which way and how fast it moves (B's window follows it). */
  readonly pb: ClockView & { readonly time: number };
  /** A's timebase: B's tick T is drawn at A's tick T's time. */
  readonly tb: { timeOf(tick: number): number };
  readonly loop: { wake(): void };
  currentTickInt(): number;
  emit(ev: 'notice', detail: PlayerEventMap['notice']): void;
}

/** What ghosts use of B's decoder worker client (bridge/decoder.ts WorkerClient). */
export interface GhostsClient {
  call(method: 'open', params: DecodeParams<'open'>): Promise<unknown>;
  notify(method: 'want', params: DecodeParams<'want'>): void;
  terminate(): void;
}

/** What B's worker client tells the ghosts. */
export interface GhostsClientHooks {
  onPush: (m: unknown) => void;
  onFatal: (message: string) => void;
}

/** Starts B's worker client (default: a WorkerClient whose worker starts with `spawn`). */
export type GhostsClientFactory = (hooks: GhostsClientHooks, spawn?: Spawn) => GhostsClient;

const workerClient: GhostsClientFactory = ({ onPush, onFatal }, spawn) => new WorkerClient({ onPush, onFatal, spawn });

/** What ghosts draw with (the renderer, core.ts CoreRenderer). */
export interface GhostsRenderer {
  setGhostFrames(a: Int32Array, ta: number, b: Int32Array, tb: number): void;
}

export class Ghosts {
  #core: GhostsHost;
  #client: GhostsClient;
  #tb = new Timebase();
  #pieces = new HeldPieces(this.#tb);
  #session = 0;
  #open = false;
  /** The keys of the frames the renderer holds as ghosts ('' none, null: unknown, send again). */
  #sent: string | null = '';
  /** The tick of the ghost frame sent last. */
  #sentTick = 0;

  /** The recording drawn as ghosts (its name), or ''. */
  name: string;

  /** `spawn`: how its worker starts (as the player's: bridge/decoder.ts); `makeClient`: how its
   *  worker client is made (a test's fake). */
  constructor(core: GhostsHost, spawn?: Spawn, makeClient: GhostsClientFactory = workerClient) {
    this.#core = core;
    // (bridge/decoder.ts declares the client's fields once its owner has typed it.)
    this.#client = makeClient(
      {
        onPush: (m: unknown) => this.#onPush(m as DecoderPush),
        onFatal: (message: string) => this.#failed(message),
      },
      spawn,
    );
    this.name = '';
  }

  /** Draws `src` (a File/Blob or a URL) as ghosts; resolves once it is open, or rejects. */
  async open(src: GhostSource): Promise<void> {
    this.close();
    const session = ++this.#session;
    const isBlob = typeof Blob !== 'undefined' && src instanceof Blob;
    this.name = isBlob ? src.name || 'B' : String(src);
    const params = isBlob
      ? { session, blob: src, name: this.name }
      : { session, url: new URL(String(src), document.baseURI).href };
    let info: OpenInfo;
    try {
      info = (await this.#client.call('open', params)) as unknown as OpenInfo;
    } catch (e) {
      if (session === this.#session) this.#failed((e as Thrown)?.message ?? String(e));
      throw e;
    }
    if (session !== this.#session) return;
    this.#tb.set(info.info);
    this.#pieces = new HeldPieces(this.#tb);
    this.#open = true;
    this.#sent = null;
    this.#core.loop.wake();
  }

  /** No more ghosts: the worker ends, the renderer drops them at the next frame. */
  close(): void {
    this.#session++;
    if (this.#open || this.name) this.#client.terminate();
    this.#open = false;
    this.name = '';
    this.#pieces = new HeldPieces(this.#tb);
    // (A new recording's stage.clear() has emptied the renderer's ghosts already.)
    if (this.#sent !== '') this.#sent = null;
    this.#core.loop.wake();
  }

  /** Whether B's frames are drawn, and the tick of the first of them (-1: none). Test hooks. */
  get shown(): boolean {
    return !!this.#sent;
  }
  get tick(): number {
    return this.#sent ? this.#sentTick : -1;
  }

  /** The renderer lost what it held (a new world, a new renderer): send the ghosts again. */
  forget(): void {
    if (this.#sent) this.#sent = null;
  }

  #failed(message: string): void {
    this.#open = false;
    this.#core.emit('notice', { text: `The second recording cannot be drawn over this one: ${message}` });
  }

  #onPush(m: DecoderPush): void {
    if (m.session !== this.#session) return;
    if (m.type === 'error') {
      this.#failed(m.message);
      return;
    }
    if (m.type !== 'piece') return;
    this.#pieces.add(m);
    this.#pieces.prune(this.#core.currentTickInt(), this.#core.pb);
    this.#core.loop.wake();
  }

  /** One frame: asks B's worker for what A's clock needs and hands the renderer B's frames at the
   *  ticks of A's pair (`a`, and the frame after it). */
  frame(r: GhostsRenderer, a: HeldFrame | null): void {
    const core = this.#core;
    if (!this.#open) {
      if (this.#sent !== '') this.#set(r, '', NONE, 0, NONE, 0);
      return;
    }
    const tick = core.currentTickInt();
    this.#pieces.prune(tick, core.pb);
    const w = this.#pieces.want(tick, core.pb);
    if (w) this.#client.notify('want', { session: this.#session, gen: this.#pieces.gen, ...w });
    const ga = a ? this.#pieces.frameAt(a.tick) : null;
    if (!ga) {
      // Nothing of B at the playhead yet: the last ghosts stay only while they are close to it.
      if (this.#sent && Math.abs(core.tb.timeOf(this.#sentTick) - core.pb.time) > STALE_S)
        this.#set(r, '', NONE, 0, NONE, 0);
      return;
    }
    const gb = this.#pieces.nextFrame(ga) ?? ga;
    const key = `${ga.key}|${gb.key}`;
    if (key === this.#sent) return;
    this.#sentTick = ga.tick;
    this.#set(r, key, ga.frame, core.tb.timeOf(ga.tick), gb.frame, core.tb.timeOf(gb.tick));
  }

  #set(r: GhostsRenderer, key: string, fa: Int32Array, ta: number, fb: Int32Array, tb: number): void {
    try {
      r.setGhostFrames(fa, ta, fb, tb);
      this.#sent = key;
    } catch (e) {
      console.warn(e);
    }
  }
}
