// The gates: formatting and lints that fail `npm test` (and CI).
//   node scripts/lint.mjs        (npm run lint)
// - cargo fmt --check (the workspace and crate/fuzz; style in rustfmt.toml)
// - Biome: format + lint of www/, scripts/, tests/ (biome.jsonc)
// - cargo clippy -D warnings for every feature set that ships: the native default (all targets:
//   lib, CLI, tests, examples), the fuzz harness, and each wasm build of scripts/build.mjs
//   (decoders, renderers). The crate-wide lints (no unwrap/expect/panic/unchecked indexing,
//   docs/ARCHITECTURE.md invariant 1) are in the workspace Cargo.toml.
import path from 'node:path';
import { ROOT, log, run, since, isMain } from './lib.mjs';
import { ARTEFACTS } from './build.mjs';
import { WASM_TARGET } from './setup.mjs';

const FUZZ_MANIFEST = path.join('crate', 'fuzz', 'Cargo.toml');

export async function lint() {
  const t0 = performance.now();
  await run('cargo', ['fmt', '--all', '--check']);
  await run('cargo', ['fmt', '--all', '--check', '--manifest-path', FUZZ_MANIFEST]);
  await run(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['ci', '--colors=off', '--error-on-warnings', '.']);
  const deny = ['--', '-D', 'warnings'];
  await run('cargo', ['clippy', '--workspace', '--all-targets', ...deny]);
  await run('cargo', ['clippy', '--manifest-path', FUZZ_MANIFEST, ...deny]);
  // One check per distinct feature set (the decoders share the release profile, the renderers
  // wasm-size; clippy checks features, not profiles).
  for (const features of [...new Set(ARTEFACTS.map((a) => a.features))]) {
    await run('cargo', [
      'clippy',
      '-p',
      'replay-player',
      '--lib',
      '--target',
      WASM_TARGET,
      '--no-default-features',
      '--features',
      features,
      ...deny,
    ]);
  }
  log(`gates passed in ${since(t0)}`);
}

if (isMain(import.meta.url)) {
  lint().catch((e) => {
    console.error(`[replay-player] lint failed: ${e.message}`);
    process.exit(1);
  });
}
