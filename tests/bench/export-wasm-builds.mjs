// Two or more builds of the export wasm side by side, in one process: each directory holds a
// wasm-bindgen `decoder_export` package (dist/pkg/decoder_export copied aside before and after a
// change). Rounds alternate a plain decode (with the first build, as export-wasm.mjs decodes)
// and each build's ACMI export of the whole recording; prints the medians, each export's ratio to
// the decode and its bytes (which must be equal across builds that claim the same output).
// docs/performance.md "Exports"; asserts nothing.
//
//   node tests/bench/export-wasm-builds.mjs ROUNDS DIR...   (frame-200, 200 aircraft × 60 s)
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFile, median, fmt, machineLine } from './lib.mjs';

const rounds = Number(process.argv[2] ?? 15);
const dirs = process.argv.slice(3).map((d) => path.resolve(d));
if (!dirs.length) throw new Error('usage: export-wasm-builds.mjs ROUNDS DIR...');
const file = benchFile('frame-200', { entities: 200, seconds: 60 });
const fd = fs.openSync(file, 'r');
const len = fs.fstatSync(fd).size;
const read = (o, n) => {
  const b = new Uint8Array(n);
  fs.readSync(fd, b, 0, n, o);
  return b;
};
// Each build's glue is imported under a URL of its own (a query), so each keeps its own instance.
const mods = [];
for (const [k, dir] of dirs.entries()) {
  const m = await import(`${pathToFileURL(path.join(dir, 'decoder_export.js')).href}?build=${k}`);
  m.initSync({ module: fs.readFileSync(path.join(dir, 'decoder_export_bg.wasm')) });
  mods.push(m);
}

function decode(wasm) {
  const d = new wasm.DecoderSession(len);
  for (let w = d.want(); w; w = d.want()) d.feed(read(w[0], w[1]));
  for (let i = 0; i < d.chunkCount(); i++) {
    const [o, l] = d.chunkRange(i);
    const c = d.decodeChunk(i, read(o, l));
    c.ticks();
    c.entities();
    c.free();
  }
  d.free();
}

function exportAcmi(wasm) {
  const x = new wasm.ExportSession(len);
  for (let w = x.want(); w; w = x.want()) x.feed(read(w[0], w[1]));
  const [first, end] = x.begin('acmi', undefined, undefined);
  let bytes = 0;
  for (let i = first; i < end; i++) {
    const [o, l] = x.chunkRange(i);
    bytes += x.chunk(i, read(o, l)).length;
  }
  bytes += x.finish().length;
  x.free();
  return bytes;
}

console.log(machineLine());
const dec = [];
const exp = dirs.map(() => []);
const bytes = [];
for (let r = 0; r < rounds; r++) {
  let t0 = performance.now();
  decode(mods[0]);
  dec.push(performance.now() - t0);
  for (const [k, m] of mods.entries()) {
    t0 = performance.now();
    bytes[k] = exportAcmi(m);
    exp[k].push(performance.now() - t0);
  }
}
const d = median(dec);
console.log(`decode ${fmt(d, 1)} ms (medians of ${rounds})`);
for (const [k, dir] of dirs.entries()) {
  const e = median(exp[k]);
  console.log(`${dir}: ACMI export ${fmt(e, 1)} ms, ${fmt(d / e)}× the decode, ${bytes[k]} bytes`);
}
console.log(machineLine());
