// The decoder worker's magic → decoder build table (www/workers/decode/decoders.ts) against the Rust
// `format::sniff` (crate/src/format/mod.rs, read as text: the magics and the FormatKind each names),
// the table in docs/worker-protocol.md ("Decoder builds") and the first bytes of the fixtures.
// That each build named really reads its files is checked with the wasm builds themselves, after the
// build: tests/e2e/decoder.test.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECODER_BY_MAGIC, DEFAULT_DECODER, decoderFor } from '../../www/workers/decode/decoders.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIX = path.join(ROOT, 'tests', 'fixtures');

/** `format::sniff`'s arms: magic → the FormatKind's serde name (snake_case, as in the dumps). */
function rustSniff() {
  const src = fs.readFileSync(path.join(ROOT, 'crate', 'src', 'format', 'mod.rs'), 'utf8');
  const at = src.indexOf('pub fn sniff(');
  assert.ok(at >= 0, 'crate/src/format/mod.rs has no `pub fn sniff(`: update this test');
  const body = src.slice(at, src.indexOf('\n}', at));
  const arms = new Map();
  for (const m of body.matchAll(/b"([^"]{4})"\s*=>\s*Some\(FormatKind::(\w+)\)/g))
    arms.set(
      m[1],
      m[2].replace(/(?<=[a-z])([A-Z])/g, '_$1').toLowerCase(), // serde(rename_all = "snake_case")
    );
  assert.ok(arms.size >= 3, `sniff's arms not found (${arms.size}): update this test to its shape`);
  assert.match(body, /_\s*=>\s*None/, 'anything else is not recognised');
  assert.match(body, /head\.get\(\.\.4\)\?/, 'fewer than 4 bytes are not recognised');
  return arms;
}

/** docs/worker-protocol.md's "Decoder builds" table: build → the magics its `fetched` cell names. */
function documentedBuilds() {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'worker-protocol.md'), 'utf8');
  const rows = new Map();
  for (const m of doc.matchAll(/^\| `pkg\/(\w+)\/` \|[^|\n]*\|[^|\n]*\|([^|\n]*)\|$/gm))
    rows.set(m[1], { magics: [...m[2].matchAll(/`([A-Z0-9]{4})`/g)].map((x) => x[1]), fetched: m[2] });
  assert.ok(rows.size >= 3, `the Decoder builds table not found in docs/worker-protocol.md (${rows.size} rows)`);
  return rows;
}

/** Every fixture file (recursively), with its first bytes. */
function fixtures(dir = FIX) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...fixtures(f));
    else if (/\.(flrep|replay|foldback)$/.test(e.name)) out.push(f);
  }
  return out;
}

const head = (f) => {
  const fd = fs.openSync(f, 'r');
  try {
    const b = Buffer.alloc(64);
    const n = fs.readSync(fd, b, 0, 64, 0);
    return new Uint8Array(b.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
};
const magic = (h) => String.fromCharCode(...h.subarray(0, 4));
const ascii = (s) => new TextEncoder().encode(s);

test('the worker knows exactly the magics `format::sniff` recognises', () => {
  const arms = rustSniff();
  assert.deepEqual(Object.keys(DECODER_BY_MAGIC).sort(), [...arms.keys()].sort());
});

test('magics of one format go to one build; .flrep to the default one', () => {
  const arms = rustSniff();
  const buildOf = new Map();
  for (const [m, format] of arms) {
    const build = DECODER_BY_MAGIC[m];
    if (buildOf.has(format)) assert.equal(build, buildOf.get(format), `${m} (${format})`);
    buildOf.set(format, build);
  }
  assert.equal(buildOf.get('flrep'), DEFAULT_DECODER, '.flrep is read by the default build');
});

test('docs/worker-protocol.md names the same build for every magic, and the default one for the rest', () => {
  const rows = documentedBuilds();
  const documented = new Map();
  for (const [build, { magics }] of rows) for (const m of magics) documented.set(m, build);
  assert.deepEqual(
    Object.fromEntries([...documented].sort()),
    Object.fromEntries(Object.entries(DECODER_BY_MAGIC).sort()),
  );
  assert.match(rows.get(DEFAULT_DECODER)?.fetched ?? '', /anything unrecognised/);
});

test('fixtures: each golden file starts with a magic sniff gives its dump format, and the worker picks that format build', () => {
  const arms = rustSniff();
  const formats = new Set();
  let checked = 0;
  for (const f of fixtures()) {
    const jsonl = f.replace(/\.\w+$/, '.jsonl');
    if (!fs.existsSync(jsonl)) continue;
    const info = fs
      .readFileSync(jsonl, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'info')?.info;
    assert.ok(info?.format, `${jsonl}: no info line`);
    const h = head(f);
    assert.equal(arms.get(magic(h)), info.format, `${path.relative(ROOT, f)}: sniff says`);
    // The build for the format (the one every magic of that format maps to).
    const build = DECODER_BY_MAGIC[[...arms].find(([, fmt]) => fmt === info.format)[0]];
    assert.equal(decoderFor(h), build, path.relative(ROOT, f));
    formats.add(info.format);
    checked++;
  }
  assert.deepEqual([...formats].sort(), [...new Set(arms.values())].sort(), 'a golden file of every format');
  assert.ok(checked >= 6, `${checked} golden fixtures`);
});

test('fixtures of a magic sniff does not know, and heads under 4 bytes, get the default build', () => {
  const arms = rustSniff();
  const unknown = fixtures().filter((f) => !arms.has(magic(head(f))));
  // bad_magic.flrep, bad_magic.replay, the empty files: the reader gives its "not a replay" message.
  assert.ok(unknown.length >= 3, unknown.join(', '));
  for (const f of unknown) assert.equal(decoderFor(head(f)), DEFAULT_DECODER, path.relative(ROOT, f));
  for (const s of ['', 'F', 'FLR', 'flrp', 'FLRQ', 'YLP', ' FLRP', 'toSt', '__pr', 'RPL'])
    assert.equal(decoderFor(ascii(s)), DEFAULT_DECODER, JSON.stringify(s));
  // Only the first 4 bytes count.
  for (const m of arms.keys()) assert.equal(decoderFor(ascii(`${m}\u0001\u0000garbage`)), DECODER_BY_MAGIC[m]);
});
