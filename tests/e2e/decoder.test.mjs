// The per-format decoder wasm builds, driven directly from node (no browser): each opens the formats
// it is built for, produces the info/event shapes of the model's serde JSON (compared with the golden
// .jsonl dumps of the native CLI), and refuses the others with a clear message. Also checks which
// build carries which exports, so the .flrep decoder stays free of the SparkEngine/.foldback readers.
//   node --test tests/e2e/decoder.test.mjs      (after node scripts/build.mjs)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, WWW } from './harness.mjs';

const FIX = path.join(ROOT, 'tests', 'fixtures');
const BUILDS = ['decoder', 'decoder_spark', 'decoder_foldback'];

async function load(name) {
  const mod = await import(pathToFileURL(path.join(WWW, 'pkg', name, `${name}.js`)).href);
  const bytes = fs.readFileSync(path.join(WWW, 'pkg', name, `${name}_bg.wasm`));
  mod.initSync({ module: bytes });
  return { mod, bytes };
}

/** Opens `file` with the sans-IO loop the worker uses; returns the open DecoderSession. */
function open(mod, file) {
  const buf = fs.readFileSync(file);
  const dec = new mod.DecoderSession(buf.length);
  for (let want = dec.want(); want; want = dec.want()) dec.feed(buf.subarray(want[0], want[0] + want[1]));
  return { dec, buf };
}

function golden(jsonl) {
  const lines = fs.readFileSync(jsonl, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { info: lines.find((l) => l.type === 'info').info, events: lines.filter((l) => l.type === 'event').map((l) => l.event) };
}

const sortKeys = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));

/** Every event of every chunk, in chunk order (the dump's order). */
function allEvents(dec, buf) {
  const out = [];
  for (let i = 0; i < dec.chunkCount(); i++) {
    const [o, l] = dec.chunkRange(i);
    const c = dec.decodeChunk(i, buf.subarray(o, o + l));
    out.push(...c.events());
    c.free();
  }
  return out;
}

const key = (e) => JSON.stringify(sortKeys(e));
const sortEvents = (evs) => [...evs].sort((a, b) => a.tick - b.tick || key(a).localeCompare(key(b)));

function checkAgainstGolden(mod, replay, jsonl) {
  const { dec, buf } = open(mod, replay);
  const g = golden(jsonl);
  const r = dec.info();
  // deepStrictEqual ignores key order: the same keys and values as serde's JSON.
  assert.deepEqual(r.info, g.info, `${path.basename(replay)}: info`);
  assert.equal(r.fileLen, buf.length);
  assert.equal(r.durationS, (g.info.last_tick - g.info.first_tick) / g.info.tick_rate_hz);
  assert.equal(r.chunks.length, dec.chunkCount());
  for (const [i, c] of r.chunks.entries()) {
    assert.deepEqual(Object.keys(c).sort(), ['firstTick', 'len', 'offset']);
    assert.deepEqual([c.offset, c.len], [...dec.chunkRange(i)]);
    assert.equal(c.firstTick, dec.chunkFirstTick(i));
  }
  assert.equal(typeof r.markersComplete, 'boolean');
  const events = allEvents(dec, buf);
  assert.deepEqual(sortEvents(events), sortEvents(g.events), `${path.basename(replay)}: events`);
  // Markers are the recording's kills (when complete: all of them).
  const kills = g.events.filter((e) => e.kind === 'kill');
  for (const m of r.markers) assert.ok(kills.some((k) => key(k) === key(m)), `marker ${JSON.stringify(m)}`);
  if (r.markersComplete) assert.equal(r.markers.length, kills.length);
  dec.free();
  return { r, events };
}


test('each decoder build exports only what its formats need', async () => {
  for (const name of BUILDS) {
    const { mod, bytes } = await load(name);
    assert.equal(typeof mod.DecoderSession, 'function', `${name}: DecoderSession`);
    const exportsList = WebAssembly.Module.exports(await WebAssembly.compile(bytes)).map((e) => e.name);
    const hasView = exportsList.some((n) => /^foldbackview_/.test(n));
    assert.equal(hasView, name === 'decoder_foldback', `${name}: FoldbackView exported: ${hasView}`);
    assert.equal(typeof mod.FoldbackView === 'function', name === 'decoder_foldback');
    // The JSON-string API is gone: info and events are plain objects built in wasm.
    assert.ok(!exportsList.some((n) => /infojson|eventsjson/i.test(n)), `${name}: ${exportsList.filter((n) => /json/i.test(n))}`);
  }
});

test('.flrep golden fixtures: every build gives the serde shapes of info and events', async () => {
  const files = fs.readdirSync(path.join(FIX, 'golden')).filter((f) => f.endsWith('.flrep'));
  assert.ok(files.length >= 4);
  for (const name of BUILDS) {
    const { mod } = await load(name);
    for (const f of files) {
      const { events } = checkAgainstGolden(mod, path.join(FIX, 'golden', f), path.join(FIX, 'golden', f.replace(/\.flrep$/, '.jsonl')));
      if (f === 'events.flrep') assert.ok(new Set(events.map((e) => e.kind)).size >= 4, 'events.flrep covers several kinds');
    }
  }
});

test('SparkEngine fixtures open in decoder_spark with the serde shapes; decoder refuses them by name', async () => {
  const files = fs.readdirSync(path.join(FIX, 'spark')).filter((f) => f.endsWith('.replay'));
  assert.ok(files.length >= 1);
  const spark = (await load('decoder_spark')).mod;
  const flrep = (await load('decoder')).mod;
  for (const f of files) {
    const { r } = checkAgainstGolden(spark, path.join(FIX, 'spark', f), path.join(FIX, 'spark', f.replace(/\.replay$/, '.jsonl')));
    assert.equal(r.info.format, 'spark_replay');
    assert.throws(() => open(flrep, path.join(FIX, 'spark', f)), /does not include the SparkEngine replay reader/);
  }
});

test('.foldback opens in decoder_foldback only; unknown bytes get the same message from every build', async () => {
  const fb = path.join(FIX, 'foldback', 'agree.foldback');
  const { dec } = open((await load('decoder_foldback')).mod, fb);
  const r = dec.info();
  assert.equal(r.info.format, 'foldback');
  assert.equal(r.chunks.length, 0);
  dec.free();
  for (const name of ['decoder', 'decoder_spark']) {
    const { mod } = await load(name);
    assert.throws(() => open(mod, fb), /does not include the foldback reader/, name);
  }
  const junk = Buffer.from('this is not a replay file at all\n');
  const messages = [];
  for (const name of BUILDS) {
    const { mod } = await load(name);
    const dec = new mod.DecoderSession(junk.length);
    const [o, l] = dec.want();
    assert.throws(() => dec.feed(junk.subarray(o, o + l)), (e) => {
      messages.push(e.message);
      return /not a replay this player reads \(first bytes 74 68 69 73\)/.test(e.message);
    });
    dec.free();
  }
  assert.equal(new Set(messages).size, 1, messages.join(' | '));
});
