// A seek's decode in the shipped decoder wasm, without a browser: Node (V8, like Chromium) loads
// dist/pkg/decoder, opens the 1-hour 200-entity file of seek.mjs and times decodeRange() for
// random paused seeks ([t, t + 1), as the worker asks): cold (a chunk the decoder does not hold:
// copy in, decompress, CRC, roll forward from the keyframe) and held (the same chunk again, a
// tick earlier: the roll forward alone). Each tree is run in turn, round after round, so an A/B
// sees the same machine. Prints figures; asserts nothing.
//
//   node tests/bench/decode-wasm.mjs [seeks=200] [rounds=3] [--www=DIR[,DIR…]]   (default dist)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFile, percentile, median, fmt, machineLine, openFile, ROOT, rng } from './lib.mjs';

const args = process.argv.slice(2);
const nums = args.filter((a) => /^\d+$/.test(a)).map(Number);
const N = nums[0] ?? 200;
const ROUNDS = nums[1] ?? 3;
const trees = (args.find((a) => a.startsWith('--www='))?.slice(6) ?? 'dist').split(',');
const file = benchFile('hour-200', { entities: 200, seconds: 3600 });
const { len: fileLen, read } = openFile(file);

async function load(dir) {
  const pkg = path.resolve(ROOT, dir, 'pkg/decoder');
  const wasm = await import(`${pathToFileURL(path.join(pkg, 'decoder.js')).href}?tree=${encodeURIComponent(dir)}`);
  wasm.initSync({ module: fs.readFileSync(path.join(pkg, 'decoder_bg.wasm')) });
  const dec = new wasm.DecoderSession(fileLen);
  for (let w = dec.want(); w; w = dec.want()) dec.feed(read(w[0], w[1]));
  return dec;
}

function run(dec) {
  const { first_tick: first, last_tick: last } = dec.info().info;
  // (Until session 8 this read fields that do not exist: every "random" tick was NaN, i.e. chunk 0
  // held, rolled forward ~82 ticks each time. A shape change must stop the bench, not skew it.)
  if (!Number.isFinite(first) || !Number.isFinite(last) || last <= first + 2)
    throw new Error(`bad tick range ${first}..${last}`);
  const r = rng(42);
  const cold = [];
  const held = [];
  for (let k = 0; k < N; k++) {
    const t = first + Math.floor(r() * (last - first - 2)) + 1;
    const i = dec.chunkForTick(t);
    // Cold: a chunk the decoder does not hold (the random tick fell in the last one's: next).
    if (dec.holdsChunk(i)) continue;
    const [offset, len] = dec.chunkRange(i);
    const bytes = read(offset, len);
    let t0 = performance.now();
    dec.decodeRange(i, bytes, t, t + 1, 1, 16384).free();
    cold.push(performance.now() - t0);
    // The same chunk again, one tick earlier: the decoder stands past it and rolls forward again.
    const back = Math.max(dec.chunkFirstTick(i), t - 1);
    t0 = performance.now();
    dec.decodeRange(i, new Uint8Array(0), back, back + 1, 1, 16384).free();
    held.push(performance.now() - t0);
  }
  return { cold, held };
}

console.log(machineLine());
console.log(
  `file: ${path.relative(ROOT, file)} (${fmt(fileLen / 1048576, 0)} MiB), ${N} random paused seeks per round, ${ROUNDS} rounds, Node ${process.version}\n`,
);
const decs = [];
for (const dir of trees) decs.push({ dir, dec: await load(dir), cold: [], held: [] });
for (const d of decs) run(d.dec); // warm-up: V8 tiers the hot functions up
for (let round = 0; round < ROUNDS; round++) {
  for (const d of decs) {
    const { cold, held } = run(d.dec);
    d.cold.push(...cold);
    d.held.push(...held);
  }
}
console.log('| tree | cold seek p50 / p95 ms | roll forward alone (held) p50 / p95 ms |');
console.log('|---|---|---|');
for (const d of decs) {
  console.log(
    `| ${d.dir} | **${fmt(median(d.cold))}** / ${fmt(percentile(d.cold, 0.95))} | ${fmt(median(d.held))} / ${fmt(percentile(d.held, 0.95))} |`,
  );
}
