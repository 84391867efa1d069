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
import { benchFile, median, fmt, machineLine, openFile, wasmDecodeAll, wasmExportAcmi } from './lib.mjs';

const rounds = Number(process.argv[2] ?? 15);
const dirs = process.argv.slice(3).map((d) => path.resolve(d));
if (!dirs.length) throw new Error('usage: export-wasm-builds.mjs ROUNDS DIR...');
const file = benchFile('frame-200', { entities: 200, seconds: 60 });
const src = openFile(file);
// Each build's glue is imported under a URL of its own (a query), so each keeps its own instance.
const mods = [];
for (const [k, dir] of dirs.entries()) {
  const m = await import(`${pathToFileURL(path.join(dir, 'decoder_export.js')).href}?build=${k}`);
  m.initSync({ module: fs.readFileSync(path.join(dir, 'decoder_export_bg.wasm')) });
  mods.push(m);
}

console.log(machineLine());
const dec = [];
const exp = dirs.map(() => []);
const bytes = [];
for (let r = 0; r < rounds; r++) {
  let t0 = performance.now();
  wasmDecodeAll(mods[0], src);
  dec.push(performance.now() - t0);
  for (const [k, m] of mods.entries()) {
    t0 = performance.now();
    bytes[k] = wasmExportAcmi(m, src);
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
