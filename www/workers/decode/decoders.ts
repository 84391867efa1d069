// The decoder worker's decoder builds: which wasm reads a file (by its first 4 bytes), loading each
// build once, and opening a DecoderSession over a source with the sans-IO want/feed loop.
// docs/worker-protocol.md, "Decoder builds".
//
// One decoder wasm per format family (scripts/build.mjs): the worker reads the file's first bytes
// and loads only the build that reads it, so a .flrep session never downloads the SparkEngine or
// .foldback readers (nor the divergence view). The magic numbers are those of `format::sniff`
// (crate/src/format/mod.rs; tests/unit/worker-decoders.test.mjs holds the two together, and
// tests/e2e/decoder.test.mjs opens every fixture in the build named); anything else goes to the
// .flrep build, whose Session refuses it with the reader's "not a replay this player reads" message.
// The decoder glue is imported dynamically so that its fetch belongs to the worker (a static
// import of a module worker is fetched through the page in Chromium).
import { messageOf } from './errors.ts';
import { FIRST_READ } from './sources.ts';
import type { OnProgress, Source } from './sources.ts';
import { loadWasm } from '../../lib/wasm.ts';
import type { Builds } from '../../lib/wasm.ts';

/** The decoder builds this worker loads (the export build is the export worker's). */
export type DecoderBuild = 'decoder' | 'decoder_spark' | 'decoder_foldback';

/** A DecoderSession (each build's class has the same API: wasm-bindgen's declarations). */
export type DecoderSession = InstanceType<Builds['decoder']['DecoderSession']>;

/** A decoder the pieces (or hints) come from: `rpChunk` is the chunk it decoded last (stats). */
export type PlayDecoder = DecoderSession & { rpChunk?: number };

/** A loaded decoder build: its DecoderSession class, FoldbackView (decoder_foldback only) and memory. */
export interface DecoderWasm {
  DecoderSession: Builds['decoder']['DecoderSession'];
  FoldbackView: Builds['decoder_foldback']['FoldbackView'] | null;
  memory: WebAssembly.Memory | null;
}

/** The decoder_foldback build, loaded: it has the FoldbackView. */
export interface FoldbackWasm extends DecoderWasm {
  FoldbackView: Builds['decoder_foldback']['FoldbackView'];
}

/** A session opened by openSession, with what the open read. */
export interface Opened {
  dec: DecoderSession;
  wasm: DecoderWasm;
  reads: number;
  bytesRead: number;
}

export const DECODER_BY_MAGIC: Readonly<Record<string, DecoderBuild>> = Object.freeze({
  FLRP: 'decoder',
  YLPR: 'decoder_spark',
  RPLY: 'decoder_spark', // SparkEngine's magic written big-endian: that reader refuses it by name
  FBK1: 'decoder_foldback',
});
export const DEFAULT_DECODER: DecoderBuild = 'decoder';

/** Entity states per decodeRange at most (16 i32 each: 1 MiB of packed frames): what bounds the
 *  decoder's wasm memory and the page's, whatever the number of entities. */
export const PIECE_STATES = 16384;

/** The first 4 bytes of `head` as text (the magic), or null when it is shorter. */
function magicOf(head: Uint8Array): string | null {
  return head.length < 4 ? null : String.fromCharCode(head[0], head[1], head[2], head[3]);
}

/** The decoder build for a file starting with `head` (a Uint8Array of at least its first 4 bytes). */
export function decoderFor(head: Uint8Array): DecoderBuild {
  const magic = magicOf(head);
  if (magic === null) return DEFAULT_DECODER;
  return Object.hasOwn(DECODER_BY_MAGIC, magic) ? DECODER_BY_MAGIC[magic] : DEFAULT_DECODER;
}

/** Decoder builds loaded so far: name → Promise<{DecoderSession, FoldbackView, memory}>. */
const decoders = new Map<DecoderBuild, Promise<DecoderWasm>>();

/** Loads (once) the decoder build `name` ('decoder', 'decoder_spark', 'decoder_foldback'). */
export function ensureWasm(name: 'decoder_foldback'): Promise<FoldbackWasm>;
export function ensureWasm(name?: DecoderBuild): Promise<DecoderWasm>;
export function ensureWasm(name: DecoderBuild = DEFAULT_DECODER): Promise<DecoderWasm> {
  let ready = decoders.get(name);
  if (!ready) {
    ready = (async (): Promise<DecoderWasm> => {
      const { mod, exports } = await loadWasm(name);
      // FoldbackView exists in decoder_foldback only.
      return {
        DecoderSession: mod.DecoderSession,
        FoldbackView: (mod as Partial<Builds['decoder_foldback']>).FoldbackView ?? null,
        memory: exports?.memory ?? null,
      };
    })().catch((e) => {
      decoders.delete(name);
      throw new Error(`the decoder could not be loaded: ${messageOf(e)}`);
    });
    decoders.set(name, ready);
  }
  return ready;
}

/**
 * Reads the head of `source` (the range every reader asks for first), loads the decoder build for
 * its magic and opens a DecoderSession. Reads inside the head are served from it, so the open
 * costs no extra read. Returns `{dec, wasm, reads, bytesRead}`; `dec` is the open session.
 * `only`: the build to use (the .foldback view's sessions must come from its own wasm instance);
 * a file of a format that build does not read fails with `onlyMessage`.
 */
export async function openSession(
  source: Source,
  onRead: OnProgress | null,
  only: DecoderBuild | null = null,
  onlyMessage = '',
): Promise<Opened> {
  onRead?.(0, Math.min(source.length, FIRST_READ));
  const head = await source.read(0, Math.min(source.length, FIRST_READ));
  const sniffed = decoderFor(head);
  // An unrecognised magic is left to the reader (its "not a replay" message).
  const known = Object.hasOwn(DECODER_BY_MAGIC, magicOf(head) ?? '');
  if (only && known && sniffed !== only) throw new Error(onlyMessage);
  const wasm = await ensureWasm(only ?? sniffed);
  const dec = new wasm.DecoderSession(source.length);
  let reads = 1;
  let bytesRead = head.length;
  try {
    let step = 0;
    let first = true;
    for (let want = dec.want(); want; want = dec.want()) {
      const [offset, len] = want;
      let bytes;
      if (first && offset === 0 && len <= head.length) {
        bytes = head.subarray(0, len);
      } else {
        onRead?.(bytesRead, bytesRead + len);
        bytes = await source.read(offset, len);
        reads++;
        bytesRead += bytes.length;
      }
      first = false;
      dec.feed(bytes);
      if (++step > 100000) throw new Error('the reader asked for too many reads while opening');
    }
  } catch (e) {
    try {
      dec.free();
    } catch {
      /* ignore */
    }
    throw e;
  }
  return { dec, wasm, reads, bytesRead };
}
