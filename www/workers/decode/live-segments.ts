// Live `.flrep` over HTTP segments in the decoder worker (docs/live.md "Segments" and "The
// player"), imported by workers/decode/live.ts for a manifest URL: `parseManifest` (the checks of
// `format::live::manifest`) and `SegmentFeed` (the manifest polled, each segment fetched once,
// evicted ones read again).
import {
  BACKOFF_MS,
  CHUNK_HEADER_LEN,
  HELD_BYTES,
  JOIN_S,
  LiveStore,
  MAX_KILLS,
  MAX_MANIFEST,
  MAX_PREFIX,
  MAX_SEGMENT,
  MAX_SEGMENTS,
  PLAIN_NAME,
  fail,
  messageOf,
  whole,
} from './live-store.ts';
import type { LiveChunk, LiveGap, ManifestKill } from './live-store.ts';
import type { ErrorLike } from './errors.ts';
import type { LiveStatus } from '../../lib/protocol/decode.ts';

/** JSON as parsed, before it is checked: any field may be anything. */
type Loose = { readonly [key: string]: unknown };

/** A file the manifest names beside it, and its size. */
export interface ManifestRef {
  uri: string;
  bytes: number;
}

/** A segment (a chunk's file) as the manifest lists it, checked. */
export interface ManifestSegment {
  seq: number;
  uri: string;
  offset: number;
  bytes: number;
  first: number;
  last: number;
  kills: ManifestKill[];
}

/** A manifest, checked (parseManifest). */
export interface Manifest {
  stream: string;
  rate: number;
  chunkTicks: number;
  target: number;
  prefix: ManifestRef;
  segments: ManifestSegment[];
  ended: boolean;
  file: ManifestRef | null;
}

/** Segments read by name (`read`), or why their ticks are a gap. */
type CatchUp = { read: { seq: number; body: Uint8Array }[]; gap?: undefined } | { gap: string; read?: undefined };

/** Reads a response body, refusing more than `cap` bytes (before reading, when it says its length). */
async function capped(res: Response, cap: number, what: string): Promise<Uint8Array> {
  const declared = Number(res.headers.get('Content-Length'));
  if (Number.isFinite(declared) && declared > cap) throw fail(`${what} is ${declared} bytes: over the ${cap} allowed`);
  // (An answer that is ok has a body.)
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      reader.cancel().catch(() => {});
      throw fail(`${what} is over the ${cap} bytes allowed`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A fetch that failed on the way (no answer, 5xx, 408, 429): worth asking again. */
const transient = (message: string) => Object.assign(new Error(message), { transient: true });

async function get(
  url: string,
  cap: number,
  what: string,
  signal: AbortSignal,
  cache: RequestCache = 'default',
): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { cache, signal });
  } catch (e) {
    if (signal.aborted) throw e;
    throw transient(`could not fetch ${what}: ${messageOf(e)}`);
  }
  if (!res.ok) {
    const m = `the server answered ${res.status} for ${what}`;
    throw res.status >= 500 || res.status === 408 || res.status === 429 || res.status === 404 ? transient(m) : fail(m);
  }
  return capped(res, cap, what);
}

/**
 * A manifest (docs/live.md "Segments") checked as `format::live::manifest` does: the shape, the
 * bounds, segments that follow each other, URIs that are plain file names. Returns it, or throws
 * an error naming what is wrong.
 */
export function parseManifest(bytes: Uint8Array): Manifest {
  if (bytes.length > MAX_MANIFEST)
    throw fail(`the manifest is ${bytes.length} bytes: over the ${MAX_MANIFEST} allowed`);
  let m: Loose;
  try {
    m = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    throw fail(`the manifest is not JSON (${messageOf(e)})`);
  }
  const bad = (what: string) => fail(`the manifest's ${what}`);
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw fail('the manifest is not a JSON object');
  if (m.version !== 1) throw bad(`version is ${JSON.stringify(m.version)?.slice(0, 20)}: this player reads version 1`);
  if (typeof m.stream !== 'string' || !/^[0-9a-f]{8}$/.test(m.stream)) throw bad('stream id is not 8 hex digits');
  if (!whole(m.tick_rate_hz, 1, 100000)) throw bad(`tick_rate_hz ${m.tick_rate_hz} is not a whole number in 1–100000`);
  if (!whole(m.chunk_ticks, 1, 1e9)) throw bad(`chunk_ticks ${m.chunk_ticks} is not a positive whole number`);
  if (!whole(m.target_duration_s, 0, 86400)) throw bad(`target_duration_s ${m.target_duration_s} is out of range`);
  const ref = (o: unknown, what: string, max: number): ManifestRef => {
    if (!o || typeof o !== 'object') throw bad(`${what} is missing`);
    const r = o as Loose;
    if (typeof r.uri !== 'string' || !PLAIN_NAME.test(r.uri))
      throw bad(`${what} URI ${JSON.stringify(String(r.uri).slice(0, 80))} is not a plain file name beside it`);
    if (!whole(r.bytes, 1, max)) throw bad(`${what} size ${r.bytes} is out of range (1–${max})`);
    return { uri: r.uri, bytes: r.bytes };
  };
  const prefix = ref(m.prefix, 'prefix', MAX_PREFIX);
  if (!Array.isArray(m.segments)) throw bad('segments are not a list');
  if (m.segments.length > MAX_SEGMENTS) throw bad(`${m.segments.length} segments: over the ${MAX_SEGMENTS} allowed`);
  const segments: ManifestSegment[] = [];
  // (Each segment's fields are checked below before they are used as numbers.)
  type RawSegment = Loose & { seq: number; offset: number; first_tick: number; last_tick: number };
  for (const [k, s] of (m.segments as (RawSegment | null)[]).entries()) {
    if (!s || typeof s !== 'object') throw bad(`segment ${k} is not an object`);
    const { uri, bytes } = ref(s, `segment ${k}`, MAX_SEGMENT);
    if (bytes < CHUNK_HEADER_LEN) throw bad(`segment ${k} is ${bytes} bytes: under a chunk header`);
    for (const f of ['seq', 'offset', 'first_tick', 'last_tick'])
      if (!whole(s[f])) throw bad(`segment ${k}'s ${f} ${s[f]} is not a whole number`);
    if (s.last_tick < s.first_tick)
      throw bad(`segment ${s.seq} ends at tick ${s.last_tick} before it starts (${s.first_tick})`);
    const prev = segments[segments.length - 1];
    if (prev && (s.seq !== prev.seq + 1 || s.offset !== prev.offset + prev.bytes || s.first_tick <= prev.last))
      throw bad(
        `segment ${s.seq} does not follow segment ${prev.seq} (seq, offset ${s.offset} or tick ${s.first_tick})`,
      );
    if (!prev && s.offset < prefix.bytes) throw bad(`segment ${s.seq} starts at ${s.offset}, inside the prefix`);
    const kills = s.kills ?? [];
    if (!Array.isArray(kills) || kills.length > MAX_KILLS)
      throw bad(`segment ${s.seq}'s kills are not a list of ≤ ${MAX_KILLS}`);
    const ks = (kills as (Loose | null)[]).map((x): ManifestKill => {
      if (
        !x ||
        !whole(x.tick) ||
        !whole(x.killer, 0, 0xffffffff) ||
        !whole(x.victim, 0, 0xffffffff) ||
        !whole(x.weapon ?? 0, 0, 0xffffffff)
      )
        throw bad(`segment ${s.seq} has a kill that is not {tick, killer, victim, weapon}`);
      if (x.tick < s.first_tick || x.tick > s.last_tick)
        throw bad(`segment ${s.seq} has a kill at tick ${x.tick}, outside its ticks`);
      return { tick: x.tick, killer: x.killer, victim: x.victim, weapon: (x.weapon ?? 0) as number };
    });
    segments.push({ seq: s.seq, uri, offset: s.offset, bytes, first: s.first_tick, last: s.last_tick, kills: ks });
  }
  if (typeof m.ended !== 'boolean') throw bad('ended is not true or false');
  if (m.file !== undefined && m.file !== null && !m.ended) throw bad('file is named before the end');
  // The complete recording beside the manifest, once the match is over (docs/live.md "Segments").
  const file = m.file === undefined || m.file === null ? null : ref(m.file, 'file', Number.MAX_SAFE_INTEGER);
  return {
    stream: m.stream,
    rate: m.tick_rate_hz,
    chunkTicks: m.chunk_ticks,
    target: m.target_duration_s,
    prefix,
    segments,
    ended: m.ended,
    file,
  };
}

/** When the manifest's window has moved past segments this viewer never read (a tab asleep, a slow
 *  network), they are read by their names (docs/live.md: names follow from seq), at most this many
 *  and HELD_BYTES / 2 of them; beyond that, or when one cannot be read, their ticks are a gap. */
export const CATCHUP_MAX = 64;

/** A segment's file name from its seq (docs/live.md "Segments"). */
export const segmentName = (seq: number): string => `chunk-${String(seq).padStart(8, '0')}.flck`;

/**
 * The HTTP segments feed: polls manifest.json (a few times a chunk, with the browser's HTTP cache
 * revalidating it), fetches each new segment once (immutable files), and reads evicted ones again.
 * Status: 'live', 'stalled' (the manifest has not changed for 1.5× its target duration),
 * 'reconnecting' (the manifest could not be read: backoff), 'ended' (the match is over).
 */
export class SegmentFeed {
  url: string;
  status: LiveStatus;
  /** Aborts the manifest reads (halt) and, on close, the segment reads too. */
  ctl: AbortController;
  segCtl: AbortController;
  stopped: boolean;
  store: LiveStore | null;
  manifest: Manifest | null;
  changedAt: number;
  timer: ReturnType<typeof setTimeout> | 0;
  onGrow: ((kills: ManifestKill[], readKills?: number[]) => void) | null;
  onStatus: (() => void) | null;
  onError: ((e: unknown) => void) | null;
  /** Manifest reads and segment fetches (stats, the bench); segments read by name. */
  polls: number;
  fetched: number;
  byName: number;
  /** Where the last segment held ends in the source's file (the next one starts there). */
  fileEnd: number;
  /** Ticks of segments that could not be read, not told yet: [{fromTick, toTick, reason}]. */
  gaps: LiveGap[];
  /** The session lacks part of the match: it joined after its start, or segments went unread. */
  partial: boolean;
  /** The complete recording's URL once the manifest names it (the match is over), else null. */
  file: string | null;

  constructor(url: string) {
    this.url = url;
    this.status = 'live';
    this.ctl = new AbortController();
    this.segCtl = new AbortController();
    this.stopped = false;
    this.store = null;
    this.manifest = null;
    this.changedAt = 0;
    this.timer = 0;
    this.onGrow = null;
    this.onStatus = null;
    this.onError = null;
    this.polls = 0;
    this.fetched = 0;
    this.byName = 0;
    this.fileEnd = 0;
    this.gaps = [];
    this.partial = false;
    this.file = null;
  }

  /** What a manifest says of the end: the complete recording's URL. */
  #ending(m: Manifest): void {
    if (m.ended && m.file) this.file = this.#uri(m.file.uri);
  }

  #uri(uri: string): string {
    return new URL(uri, this.url).href;
  }

  /** The manifest now. One that is not JSON is read again twice first (a response cut short by a
   *  server that raced the manifest's rename); what it says is never let pass. */
  async #manifest(): Promise<Manifest> {
    for (let k = 0; ; k++) {
      this.polls++;
      const bytes = await get(this.url, MAX_MANIFEST, 'the manifest', this.ctl.signal, 'no-cache');
      try {
        return parseManifest(bytes);
      } catch (e) {
        if (k >= 2 || !/not JSON/.test((e as Error).message)) throw e;
      }
    }
  }

  async #segment(s: { uri: string; bytes: number }): Promise<Uint8Array> {
    const b = await get(this.#uri(s.uri), s.bytes, `segment ${s.uri}`, this.segCtl.signal);
    this.fetched++;
    if (b.length !== s.bytes)
      throw fail(`segment ${s.uri} is ${b.length} bytes, the manifest says ${s.bytes}: cut short`);
    return b;
  }

  /** The first manifest, the prefix and the segments listed: `{store, kills}`. */
  async start(): Promise<{ store: LiveStore; kills: ManifestKill[] }> {
    const m = await this.#manifest();
    if (!m.segments.length && !m.ended) {
      // Nothing closed yet: wait for the first chunk.
      return this.#waitFirst();
    }
    return this.#begin(m);
  }

  async #waitFirst(): Promise<{ store: LiveStore; kills: ManifestKill[] }> {
    for (let i = 0; i < 600; i++) {
      await new Promise((r) => setTimeout(r, 250));
      if (this.stopped) throw new Error('closed');
      const m = await this.#manifest();
      if (m.segments.length) return this.#begin(m);
      if (m.ended) break;
    }
    throw fail('the live source has published no chunk');
  }

  async #begin(m: Manifest): Promise<{ store: LiveStore; kills: ManifestKill[] }> {
    if (!m.segments.length) throw fail('the manifest lists no segment');
    const prefix = await get(this.#uri(m.prefix.uri), m.prefix.bytes, 'the prefix', this.ctl.signal);
    if (prefix.length !== m.prefix.bytes)
      throw fail(`the prefix is ${prefix.length} bytes, the manifest says ${m.prefix.bytes}: cut short`);
    if (m.segments[0].offset !== prefix.length && m.segments[0].seq === 0)
      throw fail(`segment 0 starts at ${m.segments[0].offset}, the prefix is ${prefix.length} bytes`);
    const store = new LiveStore(prefix, { refetch: (c: LiveChunk) => this.#segment({ uri: c.name, bytes: c.len }) });
    this.store = store;
    // Joining: the latest segments (JOIN_S of the match, at most HELD_BYTES); what came before is
    // not part of this session (its timeline starts there).
    let from = m.segments.length - 1;
    // (The manifest lists a segment: checked above.)
    const newest = m.segments.at(-1) as ManifestSegment;
    for (let bytes = m.segments[from].bytes; from > 0; from--) {
      const s = m.segments[from - 1];
      if (bytes + s.bytes > HELD_BYTES || (newest.last - s.first) / m.rate > JOIN_S) break;
      bytes += s.bytes;
    }
    const join = m.segments.slice(from);
    // A match joined after its first segment (or a manifest whose window no longer lists it).
    this.partial = join[0].seq > 0;
    const bodies = await Promise.all(join.map((s) => this.#segment(s)));
    const kills: ManifestKill[] = [];
    join.forEach((s, k) => {
      store.append(s.seq, bodies[k], { first: s.first, last: s.last, name: s.uri });
      kills.push(...s.kills);
    });
    this.manifest = m;
    const end = join.at(-1) as ManifestSegment;
    this.fileEnd = end.offset + end.bytes;
    this.changedAt = performance.now();
    if (m.ended) this.status = 'ended';
    this.#ending(m);
    return { store, kills };
  }

  /** A chunk's duration (s). */
  get chunkS(): number {
    // (Read after start(): the first manifest is there.)
    const m = this.manifest as Manifest;
    return m.chunkTicks / m.rate;
  }

  /** ms between manifest reads: a quarter of a chunk, 150 to 250 ms (a chunk is seen at most
   *  that long after it is listed: the follow delay's margin has it; docs/live.md "The player"). */
  get pollMs(): number {
    const m = this.manifest as Manifest;
    return Math.min(250, Math.max(150, (m.chunkTicks / m.rate) * 250));
  }

  /** How long an unchanged manifest means a stalled source: 1.5× its target duration (at least a chunk). */
  get stallMs(): number {
    const m = this.manifest as Manifest;
    return 1500 * Math.max(m.target, m.chunkTicks / m.rate, 0.5);
  }

  run(): void {
    if (this.status === 'ended') return;
    let attempt = 0;
    const tick = async () => {
      if (this.stopped) return;
      try {
        const m = await this.#manifest();
        attempt = 0;
        await this.#apply(m);
        if (this.status === 'reconnecting') this.#set('live');
      } catch (e) {
        if (this.stopped) return;
        if (!(e as ErrorLike)?.transient) {
          this.onError?.(e);
          return;
        }
        this.#set('reconnecting');
        this.timer = setTimeout(tick, BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]);
        return;
      }
      if (this.stopped || this.status === 'ended') return;
      if (performance.now() - this.changedAt > this.stallMs) this.#set('stalled');
      this.timer = setTimeout(tick, this.pollMs);
    };
    this.timer = setTimeout(tick, this.pollMs);
  }

  #set(status: LiveStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.onStatus?.();
  }

  /** A new manifest: the same stream; the segments after the last one held are fetched in order. */
  async #apply(m: Manifest): Promise<void> {
    // (After start(): the first manifest and the store are there, and the store holds a chunk.)
    const was = this.manifest as Manifest;
    const store = this.store as LiveStore;
    if (m.stream !== was.stream || m.prefix.bytes !== was.prefix.bytes || m.rate !== was.rate)
      throw fail(`the manifest now describes another stream (${m.stream}, was ${was.stream})`);
    const next = store.nextSeq as number;
    const last = m.segments[m.segments.length - 1];
    if (last && last.seq < next - 1) throw fail(`the manifest went back from segment ${next - 1} to ${last.seq}`);
    const known = m.segments.find((s) => s.seq === next - 1);
    const held = store.chunks[store.chunks.length - 1];
    if (known && (known.first !== held.first || known.last !== held.last || known.bytes !== held.len))
      throw fail(`the manifest's segment ${known.seq} is not the one read before`);
    const fresh = m.segments.filter((s) => s.seq >= next);
    // The window moved past segments never read: by their names, or a gap.
    const missed = fresh.length && fresh[0].seq !== next ? await this.#catchUp(next, fresh[0]) : null;
    if (this.stopped) return;
    this.manifest = m;
    if (fresh.length) {
      const bodies = await Promise.all(fresh.map((s) => this.#segment(s)));
      if (this.stopped) return;
      const kills: ManifestKill[] = [];
      /** Store indices of chunks whose kills no manifest lists (read by name): read from the chunk. */
      const readKills: number[] = [];
      for (const { seq, body } of missed?.read ?? []) {
        store.append(seq, body, { name: segmentName(seq) });
        readKills.push(store.chunks.length - 1);
      }
      const before = store.chunks[store.chunks.length - 1];
      fresh.forEach((s, k) => {
        const skip = k === 0 && !!missed?.gap;
        store.append(s.seq, bodies[k], { first: s.first, last: s.last, name: s.uri, skip });
        kills.push(...s.kills);
      });
      if (missed?.gap) {
        this.gaps.push({ fromTick: before.last + 1, toTick: fresh[0].first, reason: missed.gap });
        this.partial = true;
      }
      const end = fresh[fresh.length - 1];
      this.fileEnd = end.offset + end.bytes;
      this.changedAt = performance.now();
      if (m.ended) this.status = 'ended';
      else if (this.status === 'stalled') this.status = 'live';
      this.#ending(m);
      this.onGrow?.(kills, readKills);
    } else if (m.ended) {
      this.#ending(m);
      this.#set('ended');
    }
  }

  /**
   * Segments `next` … `upto.seq − 1`, which the manifest no longer lists, read by their names:
   * `{read: [{seq, body}]}` once their bytes end where `upto` starts, else `{gap: why}` (too many,
   * too large, a file gone, bytes that do not end there). A failure worth trying again (not a 404)
   * is thrown: the manifest is read again after a backoff. The chunks' own headers are checked
   * when they are appended (LiveStore.append).
   */
  async #catchUp(next: number, upto: ManifestSegment): Promise<CatchUp> {
    const n = upto.seq - next;
    const what = `${n} segment${n > 1 ? 's' : ''} (${next}–${upto.seq - 1}) left the manifest before they were read`;
    if (n > CATCHUP_MAX) return { gap: `${what}: more than ${CATCHUP_MAX} to read again` };
    const read: { seq: number; body: Uint8Array }[] = [];
    let end = this.fileEnd;
    for (let seq = next; seq < upto.seq; seq++) {
      let body: Uint8Array;
      try {
        body = await get(this.#uri(segmentName(seq)), MAX_SEGMENT, `segment ${segmentName(seq)}`, this.segCtl.signal);
      } catch (e) {
        if (this.stopped || ((e as ErrorLike)?.transient && !/answered 404/.test((e as Error).message))) throw e;
        return { gap: `${what}, and ${messageOf(e)}` };
      }
      this.fetched++;
      this.byName++;
      end += body.length;
      if (end - this.fileEnd > HELD_BYTES / 2) return { gap: `${what}: over ${HELD_BYTES / 2} bytes to read again` };
      read.push({ seq, body });
    }
    if (end !== upto.offset)
      return { gap: `${what}: read by name they end at byte ${end}, segment ${upto.seq} starts at ${upto.offset}` };
    return { read };
  }

  /** No more manifest reads (the chunks received stay readable). */
  halt(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ctl.abort();
  }

  stop(): void {
    this.halt();
    this.segCtl.abort();
  }
}
