// Comparing two recordings in the shipped wasm, without a browser: Node (V8, like Chromium) loads
// dist/pkg/decoder_spark (the build the compare worker loads) and, in alternating rounds, (1) decodes
// every chunk of A and then of B with DecoderSession.decodeChunk and (2) runs CompareSession over A
// and B, serving each want() from the files as the compare worker serves it from Blob.slice. B is A
// perturbed at its last tick (`replay generate --perturb-at`), so the comparison runs to the end.
// Prints the medians and their ratio (docs/performance.md "Compare"; goal ≤ 1.3×); asserts nothing.
//
//   node tests/bench/compare-wasm.mjs [rounds=5] [entities=200]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFile, median, fmt, machineLine, ROOT } from './lib.mjs';

const nums = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const ROUNDS = nums[0] ?? 5;
const ENTITIES = nums[1] ?? 200;
const SECONDS = 60;
const a = benchFile(`frame-${ENTITIES}`, { entities: ENTITIES, seconds: SECONDS });
const b = benchFile(`frame-${ENTITIES}-perturbed`, {
  entities: ENTITIES,
  seconds: SECONDS,
  extra: ['--perturb-at', String(SECONDS * 60 - 1)],
});

const files = [a, b].map((f) => {
  const fd = fs.openSync(f, 'r');
  return { fd, len: fs.fstatSync(fd).size };
});
const read = (side, offset, len) => {
  const buf = new Uint8Array(len);
  fs.readSync(files[side].fd, buf, 0, len, offset);
  return buf;
};

const pkg = path.resolve(ROOT, 'dist/pkg/decoder_spark');
const wasm = await import(pathToFileURL(path.join(pkg, 'decoder_spark.js')).href);
wasm.initSync({ module: fs.readFileSync(path.join(pkg, 'decoder_spark_bg.wasm')) });

/** Every chunk of both files decoded; returns the ticks decoded. */
function decodeBoth() {
  let ticks = 0;
  for (const side of [0, 1]) {
    const dec = new wasm.DecoderSession(files[side].len);
    for (let w = dec.want(); w; w = dec.want()) dec.feed(read(side, w[0], w[1]));
    for (let i = 0; i < dec.chunkCount(); i++) {
      const [o, l] = dec.chunkRange(i);
      const c = dec.decodeChunk(i, read(side, o, l));
      ticks += c.ticks().length;
      c.entities();
      c.free();
    }
    dec.free();
  }
  return ticks;
}

function compare() {
  const cmp = new wasm.CompareSession(files[0].len, files[1].len);
  for (let w = cmp.want(); w; w = cmp.want()) cmp.feed(read(w[0], w[1], w[2]));
  const o = cmp.outcome();
  cmp.free();
  return o;
}

console.log(machineLine());
const dec = [];
const cmp = [];
let outcome = null;
let ticks = 0;
for (let r = 0; r < ROUNDS; r++) {
  let t0 = performance.now();
  ticks = decodeBoth();
  dec.push(performance.now() - t0);
  t0 = performance.now();
  outcome = compare();
  cmp.push(performance.now() - t0);
}
const [d, c] = [median(dec), median(cmp)];
console.log(
  `${ENTITIES} aircraft × ${SECONDS} s, ${ticks} ticks decoded; compare: ${outcome.kind} at tick ${outcome.tickA ?? outcome.lastTick}`,
);
console.log(
  `decode of both ${fmt(d, 1)} ms, compare ${fmt(c, 1)} ms: ${fmt(c / d)}× (medians of ${ROUNDS}; every round: decode ${dec.map((x) => fmt(x, 0)).join(' ')}, compare ${cmp.map((x) => fmt(x, 0)).join(' ')})`,
);
console.log(machineLine());
