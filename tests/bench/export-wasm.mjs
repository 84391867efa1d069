// ACMI export in the shipped wasm, beside a plain decode of the same file in the same run: Node
// (V8, like Chromium) loads dist/pkg/decoder_export (the build the export worker loads) and, in
// alternating rounds, (1) decodes every chunk with DecoderSession.decodeChunk (the player's decode,
// the packed frames handed out) and (2) runs ExportSession 'acmi' over the whole recording, chunk
// by chunk as www/export-worker.ts does, taking each chunk's output out. Prints the medians and
// the export's throughput over the decode's, by wall clock and by the process's CPU time
// (process.cpuUsage(): steadier on a shared machine; the wasm runs on this one thread)
// (docs/performance.md "Exports"; goal ≥ 0.5×); asserts nothing. The bytes are served from the file as the worker serves them from Blob.slice.
//
//   node tests/bench/export-wasm.mjs [rounds=5] [entities=200] [seconds=60]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFile, median, fmt, machineLine, openFile, wasmDecodeAll, wasmExportAcmi, ROOT } from './lib.mjs';

const nums = process.argv
  .slice(2)
  .filter((a) => /^\d+$/.test(a))
  .map(Number);
const ROUNDS = nums[0] ?? 5;
const ENTITIES = nums[1] ?? 200;
const SECONDS = nums[2] ?? 60;
const file = benchFile(`frame-${ENTITIES}${SECONDS === 60 ? '' : `-${SECONDS}s`}`, {
  entities: ENTITIES,
  seconds: SECONDS,
});
const src = openFile(file);
const len = src.len;

const pkg = path.resolve(ROOT, 'dist/pkg/decoder_export');
const wasm = await import(pathToFileURL(path.join(pkg, 'decoder_export.js')).href);
wasm.initSync({ module: fs.readFileSync(path.join(pkg, 'decoder_export_bg.wasm')) });

const decode = () => wasmDecodeAll(wasm, src);
const exportAcmi = () => wasmExportAcmi(wasm, src);

console.log(machineLine());
const dec = [];
const exp = [];
const decCpu = [];
const expCpu = [];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let ticks = 0;
let bytes = 0;
for (let r = 0; r < ROUNDS; r++) {
  let [t0, c0] = [performance.now(), cpu()];
  ticks = decode();
  dec.push(performance.now() - t0);
  decCpu.push(cpu() - c0);
  [t0, c0] = [performance.now(), cpu()];
  bytes = exportAcmi();
  exp.push(performance.now() - t0);
  expCpu.push(cpu() - c0);
}
const [d, e] = [median(dec), median(exp)];
console.log(
  `${ENTITIES} aircraft × ${SECONDS} s (${fmt(len / 1048576, 1)} MiB), ${ticks} ticks; ACMI ${fmt(bytes / 1048576, 1)} MiB (${fmt(bytes / 1048576 / (SECONDS / 60), 1)} MiB per minute)`,
);
console.log(
  `decode ${fmt(d, 1)} ms, ACMI export ${fmt(e, 1)} ms: export throughput ${fmt(d / e)}× the decode's (medians of ${ROUNDS}; every round: decode ${dec.map((x) => fmt(x, 0)).join(' ')}, export ${exp.map((x) => fmt(x, 0)).join(' ')})`,
);
const [dc, ec] = [median(decCpu), median(expCpu)];
console.log(`CPU time: decode ${fmt(dc, 1)} ms, ACMI export ${fmt(ec, 1)} ms: ${fmt(dc / ec)}×`);
console.log(machineLine());
