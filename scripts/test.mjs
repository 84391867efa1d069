// npm test: everything. Setup (incl. Chromium) -> gates (fmt, lints) -> cargo test --workspace ->
// .flrep conformance (tests/conformance/check.sh) -> ACMI read-back (tests/acmi/check.sh) -> build ->
// browser tests (Chromium) -> engine tests (Firefox ESR, WebKitGTK: tests/engines/).
//   npm test                   all of it
//   npm test -- --rust-only    only cargo test --workspace, the conformance and ACMI checks
//   npm test -- --e2e-only     only build + browser tests (tests/e2e/*.test.mjs)
//   npm test -- --no-build     with --e2e-only: use the existing www/pkg (dist/ is still refreshed)
//   npm test -- --no-fuzz      skip the fuzz smoke pass (5 s per cargo-fuzz target)
//   npm test -- --no-lint      skip the gates (scripts/lint.mjs: cargo fmt, Biome, clippy per build)
//   npm test -- --quick        the tier for changing code (a few minutes on a warm machine): the
//                              gates with the native clippy only, tsc, cargo test without the slow
//                              targets (SLOW_CARGO_TESTS), the unit tests, the build and a smoke set
//                              of browser tests (QUICK_E2E). CI runs everything.
// The JS unit tests (tests/unit/*.test.mjs, plain node:test, no browser) run before the browser tests.
// The skip gate (scripts/skips.mjs): a step fails when a test in it was skipped (node:test skip or
// todo, cargo "ignored") that is not on the short, commented list there.
// The tree check: tests write only ignored paths; a run that started on a clean tree fails when it
// leaves a tracked file modified (`git status --porcelain`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, probe, run, since } from './lib.mjs';
import { setup } from './setup.mjs';
import { build } from './build.mjs';
import { buildDist } from './dist.mjs';
import { lint } from './lint.mjs';
import { assertSkipsAllowed, cargoIgnored, readNodeSkips, reporterArgs } from './skips.mjs';

const args = new Set(process.argv.slice(2));
const rustOnly = args.has('--rust-only');
const e2eOnly = args.has('--e2e-only');
const noBuild = args.has('--no-build');
const noFuzz = args.has('--no-fuzz');
const noLint = args.has('--no-lint');
const quick = args.has('--quick');

/** crate/tests/ targets --quick leaves out: load tests, the S3 server, the byte-by-byte sweeps. */
const SLOW_CARGO_TESTS = ['host_load', 'live_load', 'host_s3', 'sweeps'];
/** The browser tests --quick runs: the page opens and plays files, the controls, an embed on a host page. */
const QUICK_E2E = ['open', 'controls', 'host-page'];

/** `node --test ARGS` (the usual output), then the skip gate over what it reported. */
async function nodeTest(step, testArgs) {
  const dir = path.join(ROOT, 'tests', 'output');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `skips-${step.replace(/\W+/g, '-')}.jsonl`);
  fs.rmSync(file, { force: true });
  // tsx: the tests import the shell's TypeScript modules (www/**/*.ts) as they are.
  await run(process.execPath, ['--import', 'tsx', '--test', ...reporterArgs(file), ...testArgs]);
  const { skips, ran } = readNodeSkips(file);
  log(`${assertSkipsAllowed(step, skips)} (${ran} tests reported)`);
}

/** `cargo ARGS` with its stdout shown and kept; rejects on a non-zero exit. */
function runKeepingStdout(cmd, cmdArgs) {
  log(`$ ${[cmd, ...cmdArgs].join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd: ROOT, stdio: ['inherit', 'pipe', 'inherit'] });
    const out = [];
    child.stdout.on('data', (b) => {
      out.push(b);
      process.stdout.write(b);
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0
        ? resolve(Buffer.concat(out).toString('utf8'))
        : reject(new Error(`${cmd}: exited with ${signal ?? code}`)),
    );
  });
}

/**
 * Tracked files modified, staged or deleted (`git status --porcelain`, untracked files aside), or
 * null when git or the repository is missing.
 */
function trackedChanges() {
  const r = probe('git', ['status', '--porcelain', '--untracked-files=no']);
  return r.ok ? r.stdout.split('\n').filter(Boolean) : null;
}

/**
 * Tests write only ignored paths: when the tree was clean at the start, a tracked file modified by
 * the run fails it (a developer's own edits, made before the run, do not: the check is skipped).
 */
function assertTreeUnchanged(before) {
  if (before === null) return log('tree check: no git repository, skipped');
  if (before.length)
    return log(`tree check: skipped (${before.length} tracked file(s) already modified before the run)`);
  const after = trackedChanges() ?? [];
  if (after.length)
    throw new Error(
      `the run modified tracked files (tests must write only ignored paths):\n${after.map((l) => `  ${l}`).join('\n')}`,
    );
  log('tree check: no tracked file modified by the run');
}

async function main() {
  const t0 = performance.now();
  const treeBefore = trackedChanges();
  const timings = [];
  const step = async (name, fn) => {
    const t = performance.now();
    log(`== ${name}`);
    await fn();
    timings.push(`${name}: ${since(t)}`);
  };

  await step('setup', () => setup({ browser: !rustOnly }));
  if (quick) {
    await quickTier(step);
    log(`quick tier passed in ${since(t0)} (${timings.join(', ')}); CI runs everything (npm test)`);
    return;
  }
  // The gates first: they are quick and fail the run before the long steps.
  if (!noLint && !e2eOnly) await step('gates', () => lint());
  if (!e2eOnly) {
    await step('cargo test --workspace', async () => {
      const out = await runKeepingStdout('cargo', ['test', '--workspace']);
      log(assertSkipsAllowed('cargo test', cargoIgnored(out)));
    });
    // An independent Python reader of docs/format/flrep.md must dump every generated and hand-made
    // file exactly as `replay dump` does, and refuse the same files (tests/conformance/README.md).
    // It uses the debug `replay` that cargo test just built.
    const replay = path.join(process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target'), 'debug', 'replay');
    await step('conformance', () =>
      run('bash', ['tests/conformance/check.sh'], { env: { ...process.env, REPLAY: replay } }),
    );
    // Every ACMI export read back by an independent reader (PyPI pyacmi, installed into
    // .cache/acmi-venv when missing) and compared with `replay dump` (tests/acmi/check.sh).
    await step('acmi read-back', () =>
      run('bash', ['tests/acmi/check.sh'], { env: { ...process.env, REPLAY: replay } }),
    );
    // A short smoke pass of every cargo-fuzz target (installs nightly + cargo-fuzz when missing); its
    // ledger rows go to the ignored crate/fuzz/logs/runs.tsv. Recorded runs: `npm run fuzz -- --ledger 600`.
    if (!noFuzz) await step('fuzz smoke', () => run('bash', ['scripts/fuzz.sh', '5']));
  }
  if (!rustOnly) {
    const unitDir = path.join(ROOT, 'tests', 'unit');
    const units = fs.existsSync(unitDir)
      ? fs
          .readdirSync(unitDir)
          .filter((f) => f.endsWith('.test.mjs'))
          .sort()
          .map((f) => path.join('tests', 'unit', f))
      : [];
    if (units.length) await step('js unit tests', () => nodeTest('js unit tests', units));
    if (!noBuild) await step('build', () => build({ skipSetup: true }));
    else await step('dist', () => buildDist());
    // The shell type-checks in strict mode (www/tsconfig.json, www/workers/tsconfig.json) against
    // wasm-bindgen's declarations of the builds just made (www/pkg/*/*.d.ts).
    await step('tsc www/', () =>
      run(process.execPath, [path.join('scripts', 'check-types.mjs'), '--shell', '--require']),
    );
    const dir = path.join(ROOT, 'tests', 'e2e');
    const files = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.test.mjs'))
          .sort()
          .map((f) => path.join('tests', 'e2e', f))
      : [];
    if (files.length === 0) throw new Error('no browser tests found in tests/e2e/');
    // export.test.mjs reads its ACMI exports back with pyacmi: installed here when missing.
    if (e2eOnly) await step('pyacmi', () => run('bash', ['tests/acmi/check.sh', '--venv-only']));
    // --test-concurrency=1: each test file starts its own Chromium; 2 cores do not fit several.
    await step('browser tests', () => nodeTest('browser tests', ['--test-concurrency=1', ...files]));
    // Firefox ESR and WebKitGTK (tests/engines/, docs/browsers.md): the focused set of a visitor's and
    // a site owner's paths, one browser per file (puppeteer-core over BiDi; WebKitWebDriver), in Xvfb.
    const engines = ['firefox', 'webkit'].map((e) => path.join('tests', 'engines', `${e}.test.mjs`));
    await step('engine tests', () => nodeTest('engine tests', ['--test-concurrency=1', ...engines]));
  }
  assertTreeUnchanged(treeBefore);
  log(`all passed in ${since(t0)} (${timings.join(', ')})`);
}

/** npm test -- --quick: what a change is checked with before the full suite. */
async function quickTier(step) {
  await step('gates (quick)', () => lint({ quick: true }));
  await step('cargo test (quick)', async () => {
    const targets = fs
      .readdirSync(path.join(ROOT, 'crate', 'tests'))
      .filter((f) => f.endsWith('.rs'))
      .map((f) => f.slice(0, -3))
      .filter((t) => !SLOW_CARGO_TESTS.includes(t))
      .flatMap((t) => ['--test', t]);
    const out = await runKeepingStdout('cargo', ['test', '--workspace', '--lib', '--bins', ...targets]);
    log(assertSkipsAllowed('cargo test', cargoIgnored(out)));
  });
  await step('build', () => build({ skipSetup: true }));
  await step('tsc www/', () =>
    run(process.execPath, [path.join('scripts', 'check-types.mjs'), '--shell', '--require']),
  );
  const units = fs
    .readdirSync(path.join(ROOT, 'tests', 'unit'))
    .filter((f) => f.endsWith('.test.mjs'))
    .sort()
    .map((f) => path.join('tests', 'unit', f));
  await step('js unit tests', () => nodeTest('js unit tests', units));
  const smoke = QUICK_E2E.map((f) => path.join('tests', 'e2e', `${f}.test.mjs`));
  await step('browser tests (smoke)', () => nodeTest('browser tests', ['--test-concurrency=1', ...smoke]));
}

main().catch((e) => {
  console.error(`[replay-player] test failed: ${e.message}`);
  process.exit(1);
});
