// The .foldback divergence view's side of the decoder worker (fb* methods, docs/worker-protocol.md),
// imported by worker.js on the first fb* request so that a .flrep session never downloads it.
// One FoldbackView (decoder_foldback build) over one or more opened files (their sources kept for
// on-demand range reads), or over a live connection whose messages the page forwards (fbLive*).
// Data is served per tick / entity / field, never the whole file. Its sources and decoder loading
// are the worker's own modules (the same instances: the view's sessions come from its wasm).
import { ensureWasm, openSession } from './decoders.ts';
import { BlobSource, UrlSource } from './sources.ts';
import type { Source } from './sources.ts';
import type { Builds } from '../../lib/wasm.ts';
import type { DecodeMethods, DecodeParams, DecodeResult, FbOverview } from '../../lib/protocol/decode.ts';

/** The fb* methods: each one's params and result (lib/protocol/decode.ts). */
type FbMethod = Extract<keyof DecodeMethods, `fb${string}`>;
export type FoldbackMethods = {
  [M in FbMethod]: (params: DecodeParams<M>) => DecodeResult<M> | Promise<DecodeResult<M>>;
};

/** The open view: its FoldbackView, the sources of its files (read on demand), whether it is live. */
interface Fb {
  view: InstanceType<Builds['decoder_foldback']['FoldbackView']>;
  sources: Source[];
  live: boolean;
}

/** A range the view asks for (its `readsJson`). */
interface FbRange {
  source: number;
  offset: number;
  len: number;
}

/** Most bytes read for one field-history request (the span is shortened to fit). */
const FB_MAX_SPAN_BYTES = 64 * 1024 * 1024;
let fb: Fb | null = null;

function fbClose(): void {
  if (!fb) return;
  for (const s of fb.sources) s.close?.();
  try {
    fb.view.free();
  } catch {
    /* already freed */
  }
  fb = null;
}

function fbNeed(): Fb {
  if (!fb) throw new Error('no .foldback session is open');
  return fb;
}

/** Reads the model's ranges for ticks from..=to: `[meta Float64Array, data Uint8Array]`. */
async function fbRead(from: number, to: number): Promise<[Float64Array, Uint8Array]> {
  const f = fbNeed();
  const reads: FbRange[] = JSON.parse(f.view.readsJson(from, to));
  const meta = new Float64Array(reads.length * 3);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const [i, r] of reads.entries()) {
    if (total + r.len > FB_MAX_SPAN_BYTES)
      throw new Error(`the ticks ${from}–${to} span more than ${FB_MAX_SPAN_BYTES} bytes`);
    const b = await f.sources[r.source].read(r.offset, r.len);
    meta[i * 3] = r.source;
    meta[i * 3 + 1] = r.offset;
    meta[i * 3 + 2] = b.length;
    parts.push(b);
    total += b.length;
  }
  const data = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return [meta, data];
}

function fbOverview(): FbOverview {
  const f = fbNeed();
  return {
    summary: JSON.parse(f.view.summaryJson()),
    segments: JSON.parse(f.view.segmentsJson()),
    extras: JSON.parse(f.view.extrasJson()),
  };
}

/** The fb* methods (worker.js hands every fb* request here). */
export const foldbackMethods: FoldbackMethods = {
  /** `{files: [{blob, name} | {url}]}`: opens each (.foldback by magic) and compares them. */
  async fbOpen(params) {
    const { FoldbackView } = await ensureWasm('decoder_foldback');
    fbClose();
    const files = params?.files ?? [];
    if (files.length === 0) throw new Error('fbOpen needs at least one file');
    const view = new FoldbackView();
    const sources: Source[] = [];
    fb = { view, sources, live: false };
    try {
      for (const file of files) {
        // (A file without a url is a local one.)
        const source = file.url ? await UrlSource.open(file.url) : new BlobSource(file.blob as Blob);
        sources.push(source);
        const { dec } = await openSession(source, null, 'decoder_foldback', 'this file is not a .foldback session');
        try {
          const label = files.length > 1 ? file.name || source.name || `file ${sources.length}` : '';
          view.addSession(dec, label);
        } finally {
          dec.free();
        }
      }
    } catch (e) {
      fbClose();
      throw e;
    }
    return fbOverview();
  },
  fbOverview() {
    return fbOverview();
  },
  fbTimeline(p) {
    return JSON.parse(fbNeed().view.timelineJson(p.from, p.to, p.limit ?? 10000));
  },
  async fbTick(p) {
    const [meta, data] = await fbRead(p.tick, p.tick);
    return JSON.parse(fbNeed().view.tickDetailJson(p.tick, meta, data));
  },
  async fbEntity(p) {
    const [meta, data] = await fbRead(p.tick, p.tick);
    return JSON.parse(fbNeed().view.entityDetailJson(p.tick, String(p.entity), meta, data));
  },
  async fbField(p) {
    const [meta, data] = await fbRead(p.from, p.to);
    return JSON.parse(fbNeed().view.fieldHistoryJson(String(p.entity), String(p.field), p.from, p.to, meta, data));
  },
  /** Starts a live view (the page owns the WebSocket and forwards its messages here). */
  async fbLiveStart() {
    const { FoldbackView } = await ensureWasm('decoder_foldback');
    fbClose();
    fb = { view: new FoldbackView(), sources: [], live: true };
    return {};
  },
  /** A text message: hello (a new recording) / goodbye / other. */
  fbLiveControl(p) {
    const f = fbNeed();
    return JSON.parse(f.view.liveControl(String(p.text)));
  },
  /** A batch of binary messages: `{data: Uint8Array (concatenated), lens: Uint32Array}`. */
  fbLivePush(p) {
    return JSON.parse(fbNeed().view.livePush(p.data, p.lens));
  },
  /** The received session as .foldback bytes (header from the hello + the frames). */
  fbLiveBytes() {
    return fbNeed().view.liveBytes();
  },
  fbClose() {
    fbClose();
    return {};
  },
};
