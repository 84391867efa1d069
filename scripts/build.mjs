// Builds the wasm artefacts into www/pkg/ and the bundled demo replay into www/demo/, then dist/
// (what ships: www/ with its JS and CSS minified, scripts/dist.mjs).
//   node scripts/build.mjs            (npm run build)
//   node scripts/build.mjs --only decoder_export   (one artefact; the rest as www/pkg/ has them)
// Artefacts (one crate, six feature sets):
//   decoder           Web Worker: .flrep reader + wasm boundary (release, wasm-opt -O3: speed)
//   decoder_spark     the same + SparkEngine .replay             (fetched only for such a file)
//   decoder_foldback  the same + .foldback + divergence view     (fetched only for .foldback / live)
//   decoder_export    the same + ACMI export, replay clips       (fetched only on the first Export)
//   renderer        page: wgpu renderer, WebGPU only           (wasm-size, wasm-opt -Os: size)
//   renderer_webgl  page: wgpu renderer, WebGPU + WebGL2       (wasm-size, wasm-opt -Os: size)
// Then writes www/pkg/sizes.json (raw and gzip -9 sizes; dist/pkg/sizes.json: the same of the shipped,
// minified glue).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ROOT, clippyEnv, log, run, since, isMain } from './lib.mjs';
import { setup, wasmBindgenPath, WASM_TARGET, WASM_BINDGEN_VERSION } from './setup.mjs';
import { buildDist, DIST_DIR } from './dist.mjs';
import { shortenImportFiles } from './wasm-imports.mjs';

export const PKG_DIR = path.join(ROOT, 'www', 'pkg');
export const DEMO = path.join(ROOT, 'www', 'demo', 'demo.flrep');

export const ARTEFACTS = [
  // The worker picks one decoder by the file's first bytes (www/decoders.js).
  { name: 'decoder', profile: 'release', features: 'decoder-web', opt: '-O3' },
  { name: 'decoder_spark', profile: 'release', features: 'decoder-spark', opt: '-O3' },
  { name: 'decoder_foldback', profile: 'release', features: 'decoder-foldback', opt: '-O3' },
  // The exports (ACMI, replay clips): fetched by the export worker on the first Export only.
  { name: 'decoder_export', profile: 'release', features: 'decoder-export', opt: '-O3' },
  { name: 'renderer', profile: 'wasm-size', features: 'render-web', opt: '-Os' },
  { name: 'renderer_webgl', profile: 'wasm-size', features: 'webgl', opt: '-Os' },
];

// Features rustc enables by default for wasm32-unknown-unknown (Rust >= 1.82) that wasm-bindgen's
// output keeps; wasm-opt must be told, or it rejects the module.
const WASM_OPT_FEATURES = [
  '--enable-bulk-memory',
  '--enable-nontrapping-float-to-int',
  '--enable-sign-ext',
  '--enable-mutable-globals',
  '--enable-reference-types',
  '--enable-multivalue',
];

/** The wasm builds' own target directory (inside the workspace's): a native build (cargo test,
 *  the release CLI) and the wasm builds then take different cargo locks and can run side by side
 *  (npm test's two lanes); the host-side build scripts of each are kept apart too. */
export const WEB_TARGET_DIR = path.join(
  process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target'),
  'web',
);

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** cargo's line for warnings it printed about the workspace's crate (replayed on a fresh build). */
const CRATE_WARNINGS = /warning: `replay-player` \(lib\) generated \d+ warnings?/;

/** Builds artefact `a` into the web target directory `tgt`; `lint`: the crate is compiled by
 *  clippy-driver (scripts/lib.mjs clippyEnv: this feature set's clippy gate). A warning of rustc's
 *  about the crate (dead code in this feature set, say) fails the build either way. */
async function buildArtefact(a, tgt, { lint = false, bindgen = null } = {}) {
  const t0 = performance.now();
  const env = { ...(lint ? clippyEnv() : process.env), CARGO_TARGET_DIR: tgt };
  const { stderr } = await run(
    'cargo',
    [
      'build',
      '-p',
      'replay-player',
      '--lib',
      '--target',
      WASM_TARGET,
      '--profile',
      a.profile,
      '--no-default-features',
      '--features',
      a.features,
    ],
    { env, keepErr: true },
  );
  const warned = CRATE_WARNINGS.exec(stderr);
  if (warned) throw new Error(`${a.name} (features ${a.features}): ${warned[0]} (shown above)`);
  // All builds of a profile write the same file name: bindgen it before the next cargo build.
  const wasmIn = path.join(tgt, WASM_TARGET, a.profile, 'replay_player.wasm');
  if (!fs.existsSync(wasmIn)) throw new Error(`cargo did not produce ${wasmIn}`);
  const outDir = path.join(PKG_DIR, a.name);
  const wasmOut = path.join(outDir, `${a.name}_bg.wasm`);
  const jsOut = path.join(outDir, `${a.name}.js`);
  // Skip wasm-bindgen + wasm-opt when cargo's output, the tools and the flags are unchanged.
  const stampFile = path.join(outDir, '.build-stamp');
  const stamp = JSON.stringify({
    input: sha256(wasmIn),
    bindgen: WASM_BINDGEN_VERSION,
    opt: a.opt,
    features: WASM_OPT_FEATURES,
    imports: 'short-1',
  });
  if (
    fs.existsSync(wasmOut) &&
    fs.existsSync(jsOut) &&
    fs.existsSync(stampFile) &&
    fs.readFileSync(stampFile, 'utf8') === stamp
  ) {
    log(`${a.name}: unchanged, skipping wasm-bindgen and wasm-opt`);
    return;
  }
  fs.rmSync(outDir, { recursive: true, force: true });
  // (npm test compiles while setup still installs wasm-bindgen-cli: this is where it is needed.)
  await bindgen;
  await run(wasmBindgenPath() ?? 'wasm-bindgen', [
    '--target',
    'web',
    '--out-dir',
    outDir,
    '--out-name',
    a.name,
    wasmIn,
  ]);
  const wasmOpt = path.join(ROOT, 'node_modules', '.bin', 'wasm-opt');
  await run(wasmOpt, [a.opt, ...WASM_OPT_FEATURES, wasmOut, '-o', wasmOut]);
  // The glue's imports get short names (their hashed ones do not compress: scripts/wasm-imports.mjs).
  const renamed = shortenImportFiles(wasmOut, jsOut, a.name);
  // The optimised module must still compile.
  await WebAssembly.compile(fs.readFileSync(wasmOut));
  fs.writeFileSync(stampFile, stamp);
  log(`${a.name}: built in ${since(t0)} (${renamed} imports renamed)`);
}

/** The demo replay, written by `replayBin` (a `replay` CLI built already: npm test's, by cargo
 *  test) or by the release CLI (`cargo run --release`). The generator writes the same bytes from
 *  the same seed whatever the build (docs/ARCHITECTURE.md, determinism). */
async function buildDemo(replayBin = null) {
  fs.mkdirSync(path.dirname(DEMO), { recursive: true });
  const args = ['generate', '--out', path.relative(ROOT, DEMO), '--seed', '1', '--entities', '40', '--seconds', '120'];
  if (replayBin) await run(replayBin, args);
  else await run('cargo', ['run', '--release', '-p', 'replay-player', '--bin', 'replay', '--', ...args]);
}

function sizes(pkgDir = PKG_DIR) {
  const out = {};
  for (const a of ARTEFACTS) {
    const entry = {};
    for (const [kind, file] of [
      ['wasm', `${a.name}_bg.wasm`],
      ['js', `${a.name}.js`],
    ]) {
      const p = path.join(pkgDir, a.name, file);
      if (!fs.existsSync(p)) continue;
      const buf = fs.readFileSync(p);
      entry[kind] = { file: `${a.name}/${file}`, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 9 }).length };
    }
    out[a.name] = entry;
  }
  return out;
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/**
 * The wasm artefacts, the demo and dist/. `lint`: each wasm build is also its feature set's clippy
 * gate (npm test); `replayBin`: the CLI that writes the demo, or a promise of it (npm test's, built
 * by cargo test in the other lane; default: the release CLI, built here); `bindgen`: a promise of
 * wasm-bindgen-cli still being installed (npm test's setup), awaited before it is first run.
 */
export async function build({ skipSetup = false, lint = false, replayBin = null, bindgen = null } = {}) {
  const t0 = performance.now();
  if (!skipSetup) await setup();
  // `--only NAME[,NAME]`: just these artefacts (the others as they are in www/pkg/).
  const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]?.split(',') : null;
  for (const a of ARTEFACTS)
    if (!only || only.includes(a.name)) await buildArtefact(a, WEB_TARGET_DIR, { lint, bindgen });

  // The demo replay is part of the product: failing to generate it fails the build.
  await buildDemo(await replayBin);

  fs.writeFileSync(path.join(PKG_DIR, 'sizes.json'), `${JSON.stringify(sizes(), null, 2)}\n`);
  await buildDist();
  const s = sizes(path.join(DIST_DIR, 'pkg'));
  fs.writeFileSync(path.join(DIST_DIR, 'pkg', 'sizes.json'), `${JSON.stringify(s, null, 2)}\n`);
  log('sizes as shipped in dist/ (raw / gzip -9):');
  for (const [name, entry] of Object.entries(s)) {
    for (const [kind, v] of Object.entries(entry)) {
      log(`  ${`${name}.${kind}`.padEnd(22)} ${kib(v.raw).padStart(11)} / ${kib(v.gzip).padStart(11)}`);
    }
  }
  log(`build done in ${since(t0)}`);
  return s;
}

if (isMain(import.meta.url)) {
  build().catch((e) => {
    console.error(`[replay-player] build failed: ${e.message}`);
    process.exit(1);
  });
}
