// Unit tests of the live `.flrep` parts of the decoder worker that hold no wasm: the manifest's
// checks (www/workers/decode/live-segments.ts `parseManifest`, docs/live.md "Segments"), the store of chunks
// received (`LiveStore`: chunks that follow each other, the bounded memory, an evicted chunk read
// again and checked), and the WebSocket messages (www/workers/decode/live-ws.ts `parseMessage`, `crc32`).
// Run: node --test tests/unit/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveStore, CHUNK_HEADER_LEN, MAX_SEGMENT } from '../../www/workers/decode/live.ts';
import { parseManifest } from '../../www/workers/decode/live-segments.ts';
import { parseMessage, crc32 } from '../../www/workers/decode/live-ws.ts';

const enc = (o) => new TextEncoder().encode(JSON.stringify(o));

/** A manifest of `n` segments of 1,000 bytes, 30 ticks each, after a 452-byte prefix. */
function manifest(n = 3, patch = {}) {
  return {
    version: 1,
    stream: '6dc80733',
    tick_rate_hz: 60,
    chunk_ticks: 30,
    target_duration_s: 1,
    prefix: { uri: 'prefix.flrep', bytes: 452 },
    segments: Array.from({ length: n }, (_, i) => ({
      seq: i,
      uri: `chunk-${String(i).padStart(8, '0')}.flck`,
      offset: 452 + i * 1000,
      bytes: 1000,
      first_tick: i * 30,
      last_tick: i * 30 + 29,
      kills: i === 1 ? [{ tick: 40, killer: 3, victim: 17, weapon: 1 }] : [],
    })),
    ended: false,
    ...patch,
  };
}

test('a manifest as the source writes it is read: segments, kills, ended', () => {
  const m = parseManifest(enc(manifest(3)));
  assert.equal(m.segments.length, 3);
  assert.deepEqual(m.segments[1].kills, [{ tick: 40, killer: 3, victim: 17, weapon: 1 }]);
  assert.equal(m.ended, false);
  const end = parseManifest(enc(manifest(3, { ended: true, file: { uri: 'recording.flrep', bytes: 3500 } })));
  assert.equal(end.ended, true);
  assert.deepEqual(end.file, { uri: 'recording.flrep', bytes: 3500 }, 'the complete recording, at the end');
  assert.equal(m.file, null);
});

test('a hostile manifest is refused with what is wrong', () => {
  const bad = (patch, re, n = 3) => assert.throws(() => parseManifest(enc({ ...manifest(n), ...patch })), re);
  const seg = (k, p) => {
    const m = manifest(3);
    Object.assign(m.segments[k], p);
    return { segments: m.segments };
  };
  assert.throws(() => parseManifest(new TextEncoder().encode('{"version":1,')), /not JSON/);
  bad({ version: 2 }, /version is 2: this player reads version 1/);
  bad({ stream: '../x' }, /stream id is not 8 hex digits/);
  bad({ prefix: { uri: '../../secret', bytes: 452 } }, /prefix URI "..\/..\/secret" is not a plain file name/);
  bad({ prefix: { uri: 'https://evil.example/p', bytes: 452 } }, /not a plain file name/);
  bad(seg(1, { uri: '.hidden' }), /segment 1 URI ".hidden" is not a plain file name/);
  bad(seg(1, { uri: 'a/b.flck' }), /not a plain file name/);
  bad(seg(2, { bytes: MAX_SEGMENT + 1 }), /segment 2 size \d+ is out of range/);
  bad(seg(2, { bytes: 10, offset: 2452 }), /segment 2 is 10 bytes: under a chunk header/);
  bad(seg(2, { seq: 5 }), /segment 5 does not follow segment 1/);
  bad(seg(2, { offset: 9999 }), /does not follow/);
  bad(seg(2, { first_tick: 50 }), /does not follow/);
  bad(seg(1, { last_tick: 10 }), /segment 1 ends at tick 10 before it starts \(30\)/);
  bad(seg(1, { kills: [{ tick: 999, killer: 1, victim: 2, weapon: 0 }] }), /kill at tick 999, outside its ticks/);
  bad(seg(1, { kills: [{ tick: 40, killer: -1, victim: 2 }] }), /not \{tick, killer, victim, weapon\}/);
  bad(seg(0, { seq: 1.5 }), /seq 1.5 is not a whole number/);
  bad({ file: { uri: 'recording.flrep', bytes: 10 } }, /file is named before the end/);
  bad({ ended: true, file: { uri: '../other/recording.flrep', bytes: 10 } }, /file URI .* is not a plain file name/);
  bad({ ended: true, file: { uri: 'recording.flrep', bytes: -1 } }, /file size -1 is out of range/);
  bad({ ended: true, file: 'recording.flrep' }, /file is missing/);
  bad({ segments: {} }, /segments are not a list/);
  assert.throws(() => parseManifest(new Uint8Array(8 * 1024 * 1024 + 1)), /over the 8388608 allowed/);
});

/** A chunk of `len` bytes holding ticks [first, last] (only its header matters here). */
function chunk(len, first, last, fill = 7) {
  const b = new Uint8Array(len).fill(fill);
  const v = new DataView(b.buffer);
  b.set([0x46, 0x4c, 0x43, 0x4b]);
  v.setUint32(4, len - CHUNK_HEADER_LEN, true);
  v.setBigUint64(12, BigInt(first), true);
  v.setBigUint64(20, BigInt(last), true);
  return b;
}

test('the store: chunks follow each other; the open reads prefix and headers from memory', () => {
  const s = new LiveStore(new Uint8Array(100).fill(1));
  s.append(0, chunk(200, 0, 29));
  s.append(1, chunk(300, 30, 59), { first: 30, last: 59, name: 'c1' });
  assert.equal(s.length, 600);
  assert.throws(() => s.append(3, chunk(200, 60, 89)), /chunk 3 after chunk 1: chunks are missing/);
  assert.throws(() => s.append(2, chunk(200, 50, 89)), /starts at tick 50, not after chunk 1's last tick 59/);
  assert.throws(
    () => s.append(2, chunk(200, 60, 89), { first: 60, last: 90, name: 'c2' }),
    /holds ticks 60–89, the manifest says 60–90 \(c2\)/,
  );
  const cut = chunk(200, 60, 89).subarray(0, 150);
  assert.throws(() => s.append(2, cut), /chunk 2 is 150 bytes but its header says 200/);
  // The opener's reads: the first read (the prefix, zeros after it), a chunk header, the tail.
  const head = s.openBytes(0, 600);
  assert.equal(head[99], 1);
  assert.equal(head[100], 0);
  assert.deepEqual(s.openBytes(300, 36), chunk(300, 30, 59).subarray(0, 36));
  assert.deepEqual(s.openBytes(592, 8), new Uint8Array(8));
  assert.throws(() => s.openBytes(301, 36), /not a chunk header/);
});

test('the store keeps a bounded number of bytes; an evicted chunk is read again and checked', async () => {
  const fetched = [];
  const files = new Map();
  const s = new LiveStore(new Uint8Array(100), {
    heldBytes: 2500,
    refetch: async (c) => {
      fetched.push(c.seq);
      return files.get(c.seq);
    },
  });
  for (let i = 0; i < 10; i++) {
    const b = chunk(1000, i * 30, i * 30 + 29, i);
    files.set(i, b);
    s.append(i, b, { name: `c${i}` });
  }
  assert.ok(s.heldBytes <= 2500, `${s.heldBytes} bytes held`);
  assert.deepEqual([...s.held.keys()], [8, 9]);
  const c0 = s.chunks[0];
  const b0 = await s.read(c0.at, c0.len);
  assert.equal(b0[500], 0);
  assert.deepEqual(fetched, [0]);
  // Held again now: no second fetch.
  await s.read(c0.at, c0.len);
  assert.deepEqual(fetched, [0]);
  // Reading a held chunk counts its bytes once: the held bytes are what the held chunks weigh.
  for (let k = 0; k < 5; k++) await s.read(c0.at, c0.len);
  const weigh = () => [...s.held.values()].reduce((n, b) => n + b.length, 0);
  assert.equal(s.heldBytes, weigh());
  assert.equal(s.held.size, 2, 'two chunks of 1000 bytes fit in 2500');
  // A segment whose file changed is refused.
  files.set(1, chunk(1000, 999, 1999, 1));
  await assert.rejects(s.read(s.chunks[1].at, 1000), /segment c1 changed since it was first read/);
  await assert.rejects(s.read(5, 1000), /no chunk at offset 5 of 1000 bytes/);
  // Without segments (WebSocket), an evicted chunk is not there any more, in words.
  const ws = new LiveStore(new Uint8Array(100), { heldBytes: 1500 });
  for (let i = 0; i < 4; i++) ws.append(i, chunk(1000, i * 30, i * 30 + 29));
  await assert.rejects(ws.read(ws.chunks[0].at, 1000), /chunk 0 is no longer held/);
});

/** A WebSocket message: kind byte and fields. */
function msg(kind, build) {
  const b = new Uint8Array(4096);
  const v = new DataView(b.buffer);
  b[0] = kind;
  const n = build(b, v);
  return b.buffer.slice(0, n);
}
const hello = (version = 1, magic = 'FLLV') =>
  msg(1, (b, v) => {
    b.set(
      [...magic].map((c) => c.charCodeAt(0)),
      1,
    );
    v.setUint16(5, version, true);
    v.setUint32(7, 0xdeadbeef, true);
    v.setBigUint64(11, 4n, true);
    v.setBigUint64(19, 5n, true);
    v.setUint32(27, 60, true);
    v.setUint32(31, 30, true);
    return 35;
  });

test('WebSocket messages: the four kinds read; malformed ones refused with their numbers', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  const h = parseMessage(hello());
  assert.deepEqual(h, { kind: 1, stream: 0xdeadbeef, firstSeq: 4, headSeq: 5, rate: 60, chunkTicks: 30 });
  assert.throws(() => parseMessage(hello(2)), /protocol version 2: this player reads version 1/);
  assert.throws(() => parseMessage(hello(1, 'XXXX')), /not "FLLV"/);
  assert.throws(() => parseMessage(hello().slice(0, 20)), /a hello message of 20 bytes: it needs 35/);
  assert.throws(() => parseMessage(new ArrayBuffer(0)), /an empty message/);
  assert.throws(() => parseMessage('text'), /binary messages only/);
  assert.throws(() => parseMessage(new Uint8Array([9, 0, 0]).buffer), /unknown kind 9/);
  const c = parseMessage(
    msg(3, (b, v) => {
      v.setBigUint64(1, 7n, true);
      v.setBigUint64(9, 1234n, true);
      b.set(chunk(100, 0, 29), 17);
      return 117;
    }),
  );
  assert.equal(c.seq, 7);
  assert.equal(c.offset, 1234);
  assert.equal(c.bytes.length, 100);
  assert.throws(
    () =>
      parseMessage(
        msg(3, (_b, v) => {
          v.setBigUint64(1, 2n ** 60n, true);
          return 117;
        }),
      ),
    /a number over 2\^53 at byte 1/,
  );
  const bye = (len, total) =>
    msg(4, (b, v) => {
      v.setBigUint64(1, 12n, true);
      v.setUint16(9, len, true);
      b.set(new TextEncoder().encode('match_over'), 11);
      return total;
    });
  assert.deepEqual(parseMessage(bye(10, 21)), { kind: 4, endSeq: 12, reason: 'match_over' });
  assert.throws(() => parseMessage(bye(300, 21)), /reason is 300 bytes in a 21-byte message/);
});

/** A seeded PRNG (xorshift32): the same mutations every run. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

/** `bytes` with a few bytes changed, cut, repeated or inserted (what a hostile server sends). */
function mutate(bytes, r) {
  let b = Uint8Array.from(bytes);
  for (let k = 1 + r(4); k > 0; k--) {
    const at = r(Math.max(1, b.length));
    switch (r(5)) {
      case 0:
        b[at] = r(256);
        break;
      case 1:
        b = b.slice(0, at);
        break;
      case 2:
        b = Uint8Array.from([...b.slice(0, at), ...b.slice(at, at + 1 + r(32)), ...b.slice(at)]);
        break;
      case 3:
        b[at] ^= 1 << r(8);
        break;
      default:
        b = Uint8Array.from([...b.slice(0, at), r(256), ...b.slice(at)]);
    }
  }
  return b;
}

/** What a parser may do with hostile bytes: return, or throw the live source's own error (a
 *  message naming what is wrong), never a TypeError, a RangeError or anything else. */
function survives(parse, bytes) {
  try {
    parse(bytes);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof Error && e.live === true && e.message.length > 0, `${e?.name}: ${e?.message}`);
    return 'refused';
  }
}

test('mutated manifests and WebSocket messages: refused with the source error, never another exception', () => {
  const r = rng(0x5eed);
  const seen = { ok: 0, refused: 0 };
  // Manifests: text-level mutations (JSON that still parses with odd values) and byte-level ones.
  const base = [manifest(3), manifest(1), manifest(4, { ended: true, file: { uri: 'recording.flrep', bytes: 4452 } })];
  const values = [null, true, -1, 1.5, 2 ** 53, '', 'x'.repeat(300), [], {}, '../x', 1e308, '__proto__'];
  for (let i = 0; i < 4000; i++) {
    const m = structuredClone(base[r(base.length)]);
    // One field somewhere in the manifest replaced by an odd value.
    const paths = [];
    const walk = (o, p) => {
      for (const k of Object.keys(o)) {
        paths.push([...p, k]);
        if (o[k] && typeof o[k] === 'object') walk(o[k], [...p, k]);
      }
    };
    walk(m, []);
    const path = paths[r(paths.length)];
    let o = m;
    for (const k of path.slice(0, -1)) o = o[k];
    o[path.at(-1)] = values[r(values.length)];
    seen[survives(parseManifest, enc(m))]++;
    seen[survives(parseManifest, mutate(enc(base[r(base.length)]), r))]++;
  }
  assert.ok(seen.refused > 4000 && seen.ok > 0, JSON.stringify(seen));
  // WebSocket messages: every kind, mutated.
  const kinds = [
    hello(),
    msg(2, (b, v) => {
      v.setUint32(1, 0xdeadbeef, true);
      b.set(new Uint8Array(40).fill(7), 5);
      return 45;
    }),
    msg(3, (b, v) => {
      v.setBigUint64(1, 7n, true);
      v.setBigUint64(9, 1234n, true);
      b.set(chunk(100, 0, 29), 17);
      return 117;
    }),
    msg(4, (b, v) => {
      v.setBigUint64(1, 12n, true);
      v.setUint16(9, 10, true);
      b.set(new TextEncoder().encode('match_over'), 11);
      return 21;
    }),
  ];
  const ws = { ok: 0, refused: 0 };
  for (let i = 0; i < 4000; i++) {
    const m = mutate(new Uint8Array(kinds[r(kinds.length)]), r);
    ws[survives(parseMessage, m.buffer)]++;
  }
  assert.ok(ws.refused > 1000 && ws.ok > 0, JSON.stringify(ws));
});
