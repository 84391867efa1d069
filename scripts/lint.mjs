// The gates: formatting and lints that fail `npm test` (and CI).
//   node scripts/lint.mjs        (npm run lint: every gate on its own, clippy as `cargo clippy`)
// - cargo fmt --check (the workspace and crate/fuzz; style in rustfmt.toml)
// - Biome: format + lint of www/, scripts/, tests/ (biome.jsonc)
// - tsc over the package's declarations (types/, scripts/check-types.mjs)
// - no import cycle among the shell's modules (madge over www/)
// - cargo clippy -D warnings for every feature set that ships: the native default (all targets:
//   lib, CLI, tests, examples), the fuzz harness, and each wasm build of scripts/build.mjs
//   (decoders, renderers). The crate-wide lints (no unwrap/expect/panic/unchecked indexing,
//   docs/ARCHITECTURE.md invariant 1) are in the workspace Cargo.toml.
//
// In `npm test` clippy does not check the crate a second time: the builds that the tests need
// (cargo test's, each wasm build) compile the workspace's crates with clippy-driver as rustc
// (scripts/lib.mjs `clippyEnv()`: cargo's RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` itself sets it), so each
// feature set is linted by the very build that ships or tests it, and the dependencies are
// compiled once instead of once more per `cargo clippy` (docs/performance.md "The suite").
import path from 'node:path';
import { DENY, ROOT, log, run, since, isMain } from './lib.mjs';
import { ARTEFACTS, WEB_TARGET_DIR } from './build.mjs';
import { WASM_TARGET } from './setup.mjs';

const FUZZ_MANIFEST = path.join('crate', 'fuzz', 'Cargo.toml');

/** The gates that compile nothing: formatting, Biome, the declarations, import cycles. */
export async function staticGates() {
  const t0 = performance.now();
  await run('cargo', ['fmt', '--all', '--check']);
  await run('cargo', ['fmt', '--all', '--check', '--manifest-path', FUZZ_MANIFEST]);
  await run(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['ci', '--colors=off', '--error-on-warnings', '.']);
  // The package's TypeScript declarations, a site's use of them, and the exports' types conditions.
  await run(process.execPath, [path.join('scripts', 'check-types.mjs'), '--require']);
  await cycles();
  log(`static gates passed in ${since(t0)}`);
}

/** `cargo clippy` of the native crates, all targets (lib, CLI, tests, examples). */
export function clippyNative() {
  return run('cargo', ['clippy', '--workspace', '--all-targets', '--', ...DENY]);
}

/** `cargo clippy` of the fuzz harness (its own workspace). */
export function clippyFuzz(opts = {}) {
  return run('cargo', ['clippy', '--manifest-path', FUZZ_MANIFEST, '--', ...DENY], opts);
}

/** `cargo clippy` of each wasm build's feature set (in the web builds' target directory). */
export async function clippyWasm() {
  for (const features of [...new Set(ARTEFACTS.map((a) => a.features))]) {
    await run(
      'cargo',
      [
        'clippy',
        '-p',
        'replay-player',
        '--lib',
        '--target',
        WASM_TARGET,
        '--no-default-features',
        '--features',
        features,
        '--',
        ...DENY,
      ],
      { env: { ...process.env, CARGO_TARGET_DIR: WEB_TARGET_DIR } },
    );
  }
}

/** Every gate with clippy as its own pass (npm run lint); `quick`: the native clippy only. */
export async function lint({ quick = false } = {}) {
  const t0 = performance.now();
  await staticGates();
  await clippyNative();
  if (quick) return log(`gates (quick) passed in ${since(t0)}`);
  await clippyFuzz();
  await clippyWasm();
  log(`gates passed in ${since(t0)}`);
}

/** The shell's import graph has no cycle at run time, dynamic imports included (madge, over www/'s .ts). */
export async function cycles() {
  const madge = (await import('madge')).default;
  const graph = await madge(path.join(ROOT, 'www'), {
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, 'www', 'tsconfig.json'),
    excludeRegExp: [/^pkg\//, /^demo\//],
    // A cycle that exists at run time: `import type` is erased (a part naming Core's type is not one).
    detectiveOptions: { ts: { skipTypeImports: true }, tsx: { skipTypeImports: true } },
  });
  const found = graph.circular();
  if (found.length)
    throw new Error(`import cycles in www/ (madge):\n${found.map((c) => `  ${c.join(' > ')}`).join('\n')}`);
  const n = Object.keys(graph.obj()).length;
  if (n < 50) throw new Error(`madge read only ${n} modules of www/`);
  log(`ok: no import cycle among ${n} modules of www/`);
}

if (isMain(import.meta.url)) {
  lint().catch((e) => {
    console.error(`[replay-player] lint failed: ${e.message}`);
    process.exit(1);
  });
}
