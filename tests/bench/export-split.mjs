// The ACMI export in two workers beside one, beside a plain decode of the same file, in the same
// run (docs/performance.md "Exports"; docs/export.md "Two workers"): Node (V8, like Chromium)
// loads dist/pkg/decoder_export, and in alternating rounds (1) decodes every chunk as the player
// does, (2) exports the whole recording on this thread, (3) exports it in two: this thread writes
// chunks [first, k) while a worker_thread (the same module, started once) skims and follows the
// chunks before k and writes the rest, for each split fraction asked. The two outputs joined are
// checked equal to the one thread's bytes in every round. Prints medians; asserts nothing.
//
//   node tests/bench/export-split.mjs [rounds=7] [fractions=0.55,0.6,0.65] [entities=200]
import fs from 'node:fs';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import {
  benchFile,
  fmt,
  machineLine,
  median,
  openFile,
  wasmDecodeAll,
  wasmExportChunks,
  wasmExportPart,
  ROOT,
} from './lib.mjs';

const pkg = path.resolve(ROOT, 'dist/pkg/decoder_export');
const wasm = await import(pathToFileURL(path.join(pkg, 'decoder_export.js')).href);
wasm.initSync({ module: fs.readFileSync(path.join(pkg, 'decoder_export_bg.wasm')) });

if (!isMainThread) {
  const src = openFile(workerData.file);
  parentPort.on('message', ({ from }) => {
    const parts = [];
    wasmExportPart(wasm, src, { from, parts });
    parentPort.postMessage(
      parts,
      parts.map((p) => p.buffer),
    );
  });
} else {
  const args = process.argv.slice(2);
  const rounds = Number(args[0] ?? 7);
  const fractions = (args[1] ?? '0.55,0.6,0.65').split(',').map(Number);
  const entities = Number(args[2] ?? 200);
  const file = benchFile(`frame-${entities}`, { entities, seconds: 60 });
  const src = openFile(file);
  const worker = new Worker(new URL(import.meta.url), { workerData: { file } });
  const ask = (from) =>
    new Promise((resolve) => {
      worker.once('message', resolve);
      worker.postMessage({ from });
    });
  const [first, end] = wasmExportChunks(wasm, src);
  await ask(first + 1); // the worker's wasm warmed up
  const cat = (ps) => Buffer.concat(ps.map((p) => Buffer.from(p.buffer, p.byteOffset, p.length)));
  const t = { decode: [], one: [] };
  for (const f of fractions) t[f] = [];
  let same = true;
  console.log(machineLine());
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    wasmDecodeAll(wasm, src);
    t.decode.push(performance.now() - t0);
    const whole = [];
    t0 = performance.now();
    wasmExportPart(wasm, src, { parts: whole });
    t.one.push(performance.now() - t0);
    const want = cat(whole);
    for (const f of fractions) {
      const k = first + Math.max(1, Math.min(end - first - 1, Math.round((end - first) * f)));
      t0 = performance.now();
      const rest = ask(k);
      const head = [];
      wasmExportPart(wasm, src, { until: k, parts: head });
      const tail = await rest;
      t[f].push(performance.now() - t0);
      same &&= Buffer.compare(cat([...head, ...tail]), want) === 0;
    }
  }
  const d = median(t.decode);
  const line = (name, a) =>
    `${name}: ${fmt(median(a), 0)} ms (${fmt(d / median(a))}× the decode; rounds ${a.map((v) => fmt(v, 0)).join(' ')})`;
  console.log(`${path.basename(file)}: chunks ${first}..${end}; decode ${fmt(d, 0)} ms (medians of ${rounds})`);
  console.log(line('one thread', t.one));
  for (const f of fractions) console.log(line(`two, split at ${f}`, t[f]));
  console.log(`the two parts joined equal the one thread's bytes in every round: ${same}`);
  console.log(machineLine());
  await worker.terminate();
}
