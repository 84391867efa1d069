// The per-format decoder wasm builds, driven directly from node (no browser): each opens the formats
// it is built for, produces the info/event shapes of the model's serde JSON (compared with the golden
// .jsonl dumps of the native CLI), and refuses the others with a clear message. Also checks which
// build carries which exports, so the .flrep decoder stays free of the SparkEngine/.foldback readers,
// and that the worker's magic → build table sends every fixture to a build that reads it.
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
  const lines = fs
    .readFileSync(jsonl, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return {
    info: lines.find((l) => l.type === 'info').info,
    events: lines.filter((l) => l.type === 'event').map((l) => l.event),
  };
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
  // Every fixture here is whole (a .flrep with its trailer index, a SparkEngine file with its events
  // block): its markers are complete, so the count below is always checked.
  assert.equal(r.markersComplete, true, `${path.basename(replay)}: markers complete`);
  const events = allEvents(dec, buf);
  assert.deepEqual(sortEvents(events), sortEvents(g.events), `${path.basename(replay)}: events`);
  // Markers are the recording's kills: all of them.
  const kills = g.events.filter((e) => e.kind === 'kill');
  for (const m of r.markers)
    assert.ok(
      kills.some((k) => key(k) === key(m)),
      `marker ${JSON.stringify(m)}`,
    );
  assert.equal(r.markers.length, kills.length, `${path.basename(replay)}: a marker per kill`);
  dec.free();
  return { r, events, kills };
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
    assert.ok(
      !exportsList.some((n) => /infojson|eventsjson/i.test(n)),
      `${name}: ${exportsList.filter((n) => /json/i.test(n))}`,
    );
  }
});

test('.flrep golden fixtures: every build gives the serde shapes of info and events', async () => {
  const files = fs.readdirSync(path.join(FIX, 'golden')).filter((f) => f.endsWith('.flrep'));
  assert.ok(files.length >= 4);
  for (const name of BUILDS) {
    const { mod } = await load(name);
    let withKills = 0;
    for (const f of files) {
      const { events, kills } = checkAgainstGolden(
        mod,
        path.join(FIX, 'golden', f),
        path.join(FIX, 'golden', f.replace(/\.flrep$/, '.jsonl')),
      );
      if (f === 'events.flrep')
        assert.ok(new Set(events.map((e) => e.kind)).size >= 4, 'events.flrep covers several kinds');
      if (kills.length) withKills++;
    }
    assert.ok(withKills >= 1, `${name}: a fixture with kills, so the markers are compared (${withKills})`);
  }
});

test('SparkEngine fixtures open in decoder_spark with the serde shapes; decoder refuses them by name', async () => {
  const files = fs.readdirSync(path.join(FIX, 'spark')).filter((f) => f.endsWith('.replay'));
  assert.ok(files.length >= 1);
  const spark = (await load('decoder_spark')).mod;
  const flrep = (await load('decoder')).mod;
  for (const f of files) {
    const { r } = checkAgainstGolden(
      spark,
      path.join(FIX, 'spark', f),
      path.join(FIX, 'spark', f.replace(/\.replay$/, '.jsonl')),
    );
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
    assert.throws(
      () => dec.feed(junk.subarray(o, o + l)),
      (e) => {
        messages.push(e.message);
        return /not a replay this player reads \(first bytes 74 68 69 73\)/.test(e.message);
      },
    );
    dec.free();
  }
  assert.equal(new Set(messages).size, 1, messages.join(' | '));
});

/** Pieces of chunk `i` from tick `from` to its end, as the worker asks for them: bytes only when the
 *  decoder cannot resume. Returns the pieces ({ticks, states per tick, events, end}) and how many
 *  needed the bytes. */
function pieces(dec, buf, i, from, stride, maxStates) {
  const [o, l] = dec.chunkRange(i);
  const out = [];
  let withBytes = 0;
  for (let k = 0; k < 10000; k++) {
    const resumable = dec.holdsChunk(i);
    if (!resumable) withBytes++;
    const d = dec.decodeRange(
      i,
      resumable ? new Uint8Array(0) : buf.subarray(o, o + l),
      from,
      Infinity,
      stride,
      maxStates,
    );
    const p = {
      from,
      ticks: [...d.ticks()],
      offsets: [...d.offsets()],
      entities: d.entities(),
      events: d.events(),
      end: d.end(),
      complete: d.complete(),
    };
    d.free();
    out.push(p);
    assert.equal(p.complete, p.end === undefined);
    if (p.end === undefined) break;
    assert.ok(p.end > from, `a piece moves on (${from} → ${p.end})`);
    from = p.end;
  }
  return { out, withBytes };
}

test('decodeRange: pieces resume in the chunk without its bytes and rebuild decodeChunk exactly (.flrep and SparkEngine)', async () => {
  const cases = [
    ['decoder', path.join(FIX, 'golden', 'events.flrep')],
    [
      'decoder_spark',
      path.join(
        FIX,
        'spark',
        fs.readdirSync(path.join(FIX, 'spark')).find((f) => f.endsWith('.replay')),
      ),
    ],
  ];
  for (const [build, file] of cases) {
    const { mod } = await load(build);
    const { dec, buf } = open(mod, file);
    let checked = 0;
    for (let i = 0; i < dec.chunkCount(); i++) {
      const [o, l] = dec.chunkRange(i);
      const c = dec.decodeChunk(i, buf.subarray(o, o + l));
      const whole = { ticks: [...c.ticks()], offsets: [...c.offsets()], entities: c.entities(), events: c.events() };
      c.free();
      if (whole.ticks.length < 3) continue;
      const perTick = whole.offsets[1] - whole.offsets[0];
      // Two ticks' worth of states per piece: several pieces per chunk.
      const { out, withBytes } = pieces(dec, buf, i, whole.ticks[0], 1, Math.max(1, 2 * perTick));
      assert.ok(out.length >= 2, `${build} chunk ${i}: ${out.length} pieces`);
      // .flrep resumes where the last piece stopped; SparkEngine decodes its (small) chunk each time.
      // (.flrep: decodeChunk above left the chunk's payload in the decoder: no piece needs the bytes.)
      assert.equal(
        withBytes,
        build === 'decoder' ? 0 : out.length,
        `${build} chunk ${i}: pieces that needed the bytes`,
      );
      const ticks = out.flatMap((p) => p.ticks);
      assert.deepEqual(ticks, whole.ticks, `${build} chunk ${i}: ticks`);
      const entities = out.flatMap((p) => [...p.entities]);
      assert.deepEqual(entities, [...whole.entities], `${build} chunk ${i}: packed frames`);
      assert.deepEqual(out.flatMap((p) => p.events).map(key), whole.events.map(key), `${build} chunk ${i}: events`);
      for (const p of out) assert.equal(p.ticks[0], p.from, 'a piece starts on its tick');
      // Thinned to a quarter of the chunk's span: fewer ticks, kept ticks that far apart, and each
      // kept frame the whole chunk's frame at that tick.
      const span = whole.ticks.at(-1) - whole.ticks[0];
      const stride = Math.max(2, Math.floor(span / 4));
      const thinPieces = pieces(dec, buf, i, whole.ticks[0], stride, 1 << 20).out;
      const thin = thinPieces.flatMap((p) => p.ticks);
      assert.ok(
        thin.length >= 2 && thin.length <= 5 && (thin.length < whole.ticks.length || whole.ticks.length <= 5),
        `${build}: ${thin} of ${whole.ticks}`,
      );
      for (let k = 1; k < thin.length; k++) assert.ok(thin[k] - thin[k - 1] >= stride);
      for (const p of thinPieces) {
        for (let k = 0; k < p.ticks.length; k++) {
          const w = whole.ticks.indexOf(p.ticks[k]);
          assert.ok(w >= 0);
          assert.deepEqual(
            [...p.entities.subarray(p.offsets[k] * 16, p.offsets[k + 1] * 16)],
            [...whole.entities.subarray(whole.offsets[w] * 16, whole.offsets[w + 1] * 16)],
          );
        }
      }
      // keepOnly: a frame of two entities (the plots' pieces), each row the whole frame's.
      const ids = [whole.entities[16 * (perTick - 1)], whole.entities[0]];
      const d = dec.decodeRange(i, buf.subarray(o, o + l), whole.ticks[0], Infinity, 1, 1 << 20);
      d.keepOnly(Uint32Array.from(ids));
      const [oTicks, oOffsets, oEntities] = [[...d.ticks()], [...d.offsets()], d.entities()];
      d.free();
      assert.deepEqual(oTicks, whole.ticks, `${build} chunk ${i}: keepOnly keeps every tick`);
      for (let k = 0; k < oTicks.length; k++) {
        const rows = [];
        for (let e = whole.offsets[k]; e < whole.offsets[k + 1]; e++)
          if (ids.includes(whole.entities[e * 16])) rows.push(...whole.entities.subarray(e * 16, e * 16 + 16));
        assert.deepEqual([...oEntities.subarray(oOffsets[k] * 16, oOffsets[k + 1] * 16)], rows);
      }
      assert.ok(oEntities.length < whole.entities.length || perTick <= 2, 'the others are left out');
      checked++;
    }
    assert.ok(checked >= 1, `${build}: chunks checked`);
    // Hostile arguments are refused or clamped, never a trap.
    assert.throws(() => dec.decodeRange(dec.chunkCount() + 5, new Uint8Array(10), 0, 10, 1, 10));
    assert.throws(() => dec.decodeRange(0, new Uint8Array(0), 1e6, 1e6 + 1, 1, 10));
    const d = dec.decodeRange(0, buf.subarray(...(([o, l]) => [o, o + l])(dec.chunkRange(0))), -5, NaN, 0, -1);
    assert.ok(d.ticks().length >= 1);
    d.free();
    dec.free();
  }
});

/** Every fixture replay under tests/fixtures (recursively). */
function allFixtures(dir = FIX) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) return allFixtures(f);
    return /\.(flrep|replay|foldback)$/.test(e.name) ? [f] : [];
  });
}

test("the worker's magic → build table routes every fixture to a build that reads its format", async () => {
  // The shipped table (www/workers/decode/decoders.ts, bundled into dist/worker.js); tests/unit/worker-decoders.test.mjs holds it
  // against format::sniff's source and docs/worker-protocol.md.
  const { decoderFor, DEFAULT_DECODER } = await import(
    pathToFileURL(path.join(ROOT, 'www', 'workers', 'decode', 'decoders.ts')).href
  );
  const mods = Object.fromEntries(await Promise.all(BUILDS.map(async (b) => [b, (await load(b)).mod])));
  /** Opens `file` in `build`: its format, or the error the reader refused it with. */
  const attempt = (build, file) => {
    try {
      const { dec } = open(mods[build], file);
      const format = dec.info().info.format;
      dec.free();
      return { format };
    } catch (e) {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${build} trapped on ${file}: ${e.message}`);
      return { error: e.message };
    }
  };
  const MISSING_READER = /does not include the .* reader/;
  const routed = new Map();
  let dumps = 0;
  for (const f of allFixtures()) {
    const name = path.relative(FIX, f);
    const buf = fs.readFileSync(f);
    const build = decoderFor(buf.subarray(0, 64 * 1024));
    const got = attempt(build, f);
    // The build picked has the reader: the file opens, or that reader refuses it for its own reason.
    assert.doesNotMatch(got.error ?? '', MISSING_READER, `${name} → ${build}`);
    if (/^not a replay this player reads/.test(got.error ?? ''))
      assert.equal(build, DEFAULT_DECODER, `${name}: unknown magic → the default build`);
    const jsonl = f.replace(/\.\w+$/, '.jsonl');
    if (fs.existsSync(jsonl)) {
      const info = golden(jsonl).info;
      assert.equal(got.format, info.format, `${name} opens in ${build} as its dump says`);
      dumps++;
    }
    if (got.format) routed.set(got.format, [...(routed.get(got.format) ?? []), [f, build]]);
  }
  assert.ok(dumps >= 10, `${dumps} fixtures with a golden dump`);
  assert.deepEqual([...routed.keys()].sort(), ['flrep', 'foldback', 'spark_replay']);
  // The choice matters: a SparkEngine or .foldback file in any other build is refused for the
  // missing reader (a table pointing elsewhere would fail above).
  for (const format of ['spark_replay', 'foldback']) {
    const [file, build] = routed.get(format)[0];
    for (const other of BUILDS.filter((b) => b !== build))
      assert.match(attempt(other, file).error ?? '', MISSING_READER, `${path.relative(FIX, file)} in ${other}`);
  }
});
