// npm test: everything. What runs when (docs/performance.md "The suite" has the times):
//   setup        the quick installs (the Rust target, npm, PyPI); the slow ones go on in the
//                background, each awaited where it is needed: Debian's packages (the browser tests)
//                and the cargo installs, one after another: wasm-bindgen-cli (the bindgen step of
//                the wasm builds), s3s-fs (cargo test's S3 test), cargo-fuzz (the fuzz smoke pass)
//   gates        cargo fmt, Biome, the package's declarations, import cycles (scripts/lint.mjs)
//   then three lanes side by side, each printing under its name:
//     [rust]  cargo test --workspace built, with clippy as its rustc (the native clippy gate) ->
//             cargo test run -> the fuzz harness's clippy -> .flrep conformance
//             (tests/conformance/check.sh) -> ACMI read-back (tests/acmi/check.sh) -> fuzz smoke
//             (these four niced: the browser tests are the longer lane) -> the engine tests
//             (Firefox ESR, WebKitGTK: tests/engines/)
//     [web]   the six wasm builds, each linted by clippy as it compiles (the wasm clippy gates) ->
//             the demo (written by the `replay` CLI the Rust lane built) and dist/ -> tsc over
//             www/ -> the JS unit tests
//     [e2e]   once dist/ and the CLI exist: the Chromium browser tests, two files at a time, the
//             longest first (LONGEST_FIRST)
//   tree check.
// Each step's seconds are printed as it ends, and all of them with `N passed, N failed` at the end,
// whether the run passed or not.
//   npm test                   all of it
//   npm test -- --rust-only    only the Rust lane
//   npm test -- --e2e-only     only build + unit + browser tests (tests/e2e/*.test.mjs)
//   npm test -- --no-build     with --e2e-only: use the existing www/pkg (dist/ is still refreshed)
//   npm test -- --no-fuzz      skip the fuzz smoke pass (5 s per cargo-fuzz target)
//   npm test -- --no-lint      skip the gates (static and clippy)
//   npm test -- --quick        the tier for changing code (a few minutes on a warm machine): the
//                              static gates, cargo test without the slow targets (SLOW_CARGO_TESTS)
//                              linted as it builds, the wasm builds, tsc, the unit tests and a
//                              smoke set of browser tests (QUICK_E2E), then the tree check. CI runs
//                              everything.
// The gate over what each step ran (scripts/skips.mjs): a step fails when a test in it was skipped
// (node:test skip or todo, a skipped or todo describe, cargo "ignored") that is not on the short,
// commented list there, when a test file in it registered no test, and when it ran fewer tests
// than MIN_TESTS says. REPLAY_TEST_NO_S3=1 (a person's flag, never set here) leaves the S3 test
// out, and the run says so.
// The tree check (scripts/tree.mjs): tests write only ignored paths; the run fails when a path git
// does not ignore changed while it ran — a tracked file or an untracked one — dirty tree or not.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, clippyEnv, lane, laneName, log, run, since } from './lib.mjs';
import { startSetup } from './setup.mjs';
import { build } from './build.mjs';
import { buildDist } from './dist.mjs';
import { clippyFuzz, staticGates } from './lint.mjs';
import {
  MIN_TESTS,
  assertEnoughRan,
  assertSkipsAllowed,
  cargoCounts,
  cargoIgnored,
  readNodeSkips,
  reporterArgs,
} from './skips.mjs';
import { assertTreeUnchanged, treeState } from './tree.mjs';
import { CACHE_DIR, cacheEnabled, linkTargetCache, pruneWorkspaceUnits } from './cache.mjs';

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

const CARGO_TARGET = process.env.CARGO_TARGET_DIR
  ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR)
  : path.join(ROOT, 'target');
/** The `replay` CLI cargo test builds (the test profile): the demo, the checks and the browser
 *  tests use it, so that npm test builds no release CLI (npm start and npm run release do). */
const TEST_REPLAY = path.join(CARGO_TARGET, 'debug', 'replay');

/** Tests passed and failed over the run's steps (the closing line). */
const totals = { passed: 0, failed: 0 };
/** Each step's name, lane, seconds and outcome, in the order they ended. */
const steps = [];

/** Runs step `name` (in the current lane): its seconds are printed when it ends, and kept. */
async function step(name, fn) {
  const t = performance.now();
  log(`== ${name}`);
  try {
    const v = await fn();
    steps.push({ name, lane: laneName(), s: (performance.now() - t) / 1000, ok: true });
    log(`== ${name}: passed in ${since(t)}`);
    return v;
  } catch (e) {
    steps.push({ name, lane: laneName(), s: (performance.now() - t) / 1000, ok: false });
    log(`== ${name}: FAILED after ${since(t)}`);
    throw e;
  }
}

/**
 * `node --test ARGS` (the usual output), then the gate over what it reported: no skip off the
 * allowed list, no file without tests, at least MIN_TESTS[step] tests; the slowest files shown.
 */
async function nodeTest(name, testArgs, env = process.env) {
  const dir = path.join(ROOT, 'tests', 'output');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `skips-${name.replace(/\W+/g, '-')}.jsonl`);
  fs.rmSync(file, { force: true });
  // tsx: the tests import the shell's TypeScript modules (www/**/*.ts) as they are.
  let failure = null;
  await run(process.execPath, ['--import', 'tsx', '--test', ...reporterArgs(file), ...testArgs], { env }).catch((e) => {
    failure = e;
  });
  const report = readNodeSkips(file);
  totals.passed += report.passed;
  totals.failed += report.failed;
  const slow = Object.entries(report.ms)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([f, ms]) => `${path.basename(f)} ${(ms / 1000).toFixed(1)} s`);
  log(`${name}: ${report.passed} passed, ${report.failed} failed; slowest files: ${slow.join(', ')}`);
  if (failure) throw failure;
  log(assertSkipsAllowed(name, report.skips));
  log(assertEnoughRan(name, report, MIN_TESTS[name] ?? 1));
}

/** `cargo test --no-run ARGS` with clippy as the workspace's rustc (the clippy gate of all it
 *  builds; not with --no-lint): then the CLI the other steps use is there. */
async function cargoTestBuild(cargoArgs) {
  await run('cargo', ['test', '--no-run', ...cargoArgs], { env: cargoEnv() });
  replayBuilt.resolve(TEST_REPLAY);
}

/** The environment of cargo test's build and run (the same: the run rebuilds nothing). */
const cargoEnv = () => (noLint ? process.env : clippyEnv());

/** `cargo test ARGS` (built already), then the gate: nothing ignored off the list, at least
 *  MIN_TESTS[name] passed. */
async function cargoTestRun(name, cargoArgs) {
  let out = '';
  let failure = null;
  await run('cargo', ['test', ...cargoArgs], { env: cargoEnv(), keep: true })
    .then((o) => {
      out = o;
    })
    .catch((e) => {
      out = e.stdout ?? '';
      failure = e;
    });
  const { passed, failed } = cargoCounts(out);
  totals.passed += passed;
  totals.failed += failed;
  log(`${name}: ${passed} passed, ${failed} failed`);
  if (failure) throw failure;
  log(assertSkipsAllowed(name, cargoIgnored(out)));
  if (passed < (MIN_TESTS[name] ?? 1))
    throw new Error(
      `${name}: ${passed} tests passed, at least ${MIN_TESTS[name]} expected (scripts/skips.mjs MIN_TESTS)`,
    );
  if (/host_s3 LEFT OUT/.test(out)) {
    leftOut.push('S3 (crate/tests/host_s3.rs): REPLAY_TEST_NO_S3 is set and s3s-fs is missing');
    log(`LEFT OUT of this run: ${leftOut.at(-1)}`);
  }
}

/** What a person's flag left out of this run (named in the summary). */
const leftOut = [];

/** A promise with its resolve and reject. */
function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((y, n) => {
    resolve = y;
    reject = n;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** The `replay` CLI of this run, once the Rust lane has built it (rejected if that lane fails first). */
const replayBuilt = deferred();

/** The test files of `dir` (tests/unit, tests/e2e), sorted; `only`: just these names. */
function testFiles(dir, only = null) {
  const abs = path.join(ROOT, 'tests', dir);
  const first = (f) => {
    const i = LONGEST_FIRST.indexOf(f.slice(0, -'.test.mjs'.length));
    return i < 0 ? LONGEST_FIRST.length : i;
  };
  const files = fs.existsSync(abs)
    ? fs
        .readdirSync(abs)
        .filter((f) => f.endsWith('.test.mjs') && (!only || only.includes(f.slice(0, -'.test.mjs'.length))))
        .sort()
        .sort((a, b) => first(a) - first(b))
    : [];
  if (files.length === 0) throw new Error(`no test files in tests/${dir}/`);
  return files.map((f) => path.join('tests', dir, f));
}

/** The environment of the checks and browser tests: the CLI this run built. */
const testEnv = () => ({ ...process.env, REPLAY_BIN: TEST_REPLAY, REPLAY: TEST_REPLAY });

/** cargo test's arguments: all of it, or (`quickTier`) without the slow targets. */
function cargoTestArgs(quickTier) {
  if (!quickTier) return ['--workspace'];
  const targets = fs
    .readdirSync(path.join(ROOT, 'crate', 'tests'))
    .filter((f) => f.endsWith('.rs'))
    .map((f) => f.slice(0, -3))
    .filter((t) => !SLOW_CARGO_TESTS.includes(t))
    .flatMap((t) => ['--test', t]);
  return ['--workspace', '--lib', '--bins', '--examples', ...targets];
}

/** The Rust lane's second half: cargo test run (built already), the fuzz harness's clippy,
 *  conformance, ACMI, fuzz smoke. `tools`: setup's promises of what is still installing. */
async function rustChecks(tools, { quickTier = false } = {}) {
  const name = quickTier ? 'cargo test (quick)' : 'cargo test';
  await tools.s3sFs;
  await step(`${name} run`, () => cargoTestRun(name, cargoTestArgs(quickTier)));
  if (quickTier) return;
  // (From here the Rust lane runs at a lower priority: the browser tests beside it are the longer
  // lane, and a page starved of CPU is what makes their waits long.)
  if (!noLint) await step('clippy (fuzz harness)', () => clippyFuzz({ nice: BEHIND }));
  // An independent Python reader of docs/format/flrep.md must dump every generated and hand-made
  // file exactly as `replay dump` does, and refuse the same files (tests/conformance/README.md).
  await step('conformance', () => run('bash', ['tests/conformance/check.sh'], { env: testEnv(), nice: BEHIND }));
  // Every ACMI export read back by an independent reader (PyPI pyacmi, installed into
  // .cache/acmi-venv when missing) and compared with `replay dump` (tests/acmi/check.sh).
  await tools.acmiVenv;
  await step('acmi read-back', () => run('bash', ['tests/acmi/check.sh'], { env: testEnv(), nice: BEHIND }));
  // A short smoke pass of every cargo-fuzz target; its ledger rows go to the ignored
  // crate/fuzz/logs/runs.tsv. Recorded runs: `npm run fuzz -- --ledger 600`.
  if (!noFuzz) {
    await tools.cargoFuzz;
    await step('fuzz smoke', () => run('bash', ['scripts/fuzz.sh', '5'], { nice: BEHIND }));
  }
}

/** The browser test files that take longest (tests/output/skips-browser-tests.jsonl's `ms` of a
 *  run), started first: two at a time, a long file started last would run alone at the end. */
const LONGEST_FIRST = [
  'video',
  'embed',
  'damage',
  'renderer-surface',
  'analysis',
  'playback',
  'live',
  'share',
  'host-page',
  'export',
  'crowds',
  'controls',
  'feed',
];

/** Settled once dist/ is built (the browser tests start then, beside tsc and the unit tests). */
const distBuilt = deferred();

/** The web lane: the wasm builds (linted as they compile), the demo and dist/, tsc, the unit tests. */
async function webLane(tools) {
  try {
    if (!noBuild)
      await step('wasm builds + demo + dist', () =>
        build({ skipSetup: true, lint: !noLint, replayBin: replayBuilt.promise, bindgen: tools.wasmBindgen }),
      );
    else await step('dist', () => buildDist());
    distBuilt.resolve();
  } catch (e) {
    distBuilt.reject(e);
    throw e;
  }
  // The shell type-checks in strict mode (www/tsconfig.json, www/workers/tsconfig.json) against
  // wasm-bindgen's declarations of the builds just made (www/pkg/*/*.d.ts).
  await step('tsc www/', () =>
    run(process.execPath, [path.join('scripts', 'check-types.mjs'), '--shell', '--require']),
  );
  await step('js unit tests', () => nodeTest('js unit tests', testFiles('unit')));
}

/** Runs each of `parts` ([lane name, fn]) in its lane, side by side; the first failure fails the
 *  run once all have stopped. */
async function sideBySide(...parts) {
  const results = await Promise.allSettled(parts.filter(Boolean).map(([name, fn]) => lane(name, fn)));
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The Chromium browser tests, two files at a time (each its own Chromium), the longest first.
 *  `tools.debian`: the browsers installing. */
async function browserTests(tools, only = null) {
  await Promise.all([tools.debian, tools.acmiVenv]);
  const name = only ? 'browser tests (smoke)' : 'browser tests';
  await step(name, () => nodeTest(name, [`--test-concurrency=${E2E_AT_ONCE}`, ...testFiles('e2e', only)], testEnv()));
}

/** Firefox ESR and WebKitGTK, after the Rust lane's checks (beside the Chromium files' end). */
async function engineTests(tools) {
  await tools.debian;
  // Firefox ESR and WebKitGTK (tests/engines/, docs/browsers.md): the focused set of a visitor's and
  // a site owner's paths, one browser per file (puppeteer-core over BiDi; WebKitWebDriver), in Xvfb.
  const engines = ['firefox', 'webkit'].map((e) => path.join('tests', 'engines', `${e}.test.mjs`));
  fs.rmSync(ENGINE_RETRIES, { force: true });
  try {
    // (One at a time: each holds an Xvfb, and WebKitGTK's software GL is the slowest part of the run.)
    await step('engine tests', () => nodeTest('engine tests', ['--test-concurrency=1', ...engines], testEnv()));
  } finally {
    // A WebKit scenario whose web process died or hung ran twice, the first try stopped
    // (tests/engines/scenarios.mjs): each is named here and in the summary.
    retries.push(
      ...(fs.existsSync(ENGINE_RETRIES) ? fs.readFileSync(ENGINE_RETRIES, 'utf8').split('\n').filter(Boolean) : []).map(
        (l) => JSON.parse(l),
      ),
    );
  }
}

/** tests/engines/scenarios.mjs RETRIES_FILE: the scenarios an engine's death or hang made run twice. */
const ENGINE_RETRIES = path.join(ROOT, 'tests', 'output', 'engine-retries.jsonl');
const retries = [];

/** The nice(1) value of the Rust lane's steps that run beside the browser tests. */
const BEHIND = 10;

/** Browser test files run at once. */
const E2E_AT_ONCE = 2;

async function main() {
  const t0 = performance.now();
  const treeBefore = treeState(ROOT);
  let failure = null;
  try {
    const tools = await step('setup', () => startSetup({ browser: !rustOnly, fuzz: !quick && !noFuzz && !e2eOnly }));
    if (!noLint && !e2eOnly) await step(quick ? 'gates (quick)' : 'gates', () => staticGates());
    const rustBuild = ['rust', () => step('cargo test build', () => cargoTestBuild(cargoTestArgs(quick)))];
    if (rustOnly) {
      await sideBySide(rustBuild);
      await sideBySide(['rust', () => rustChecks(tools)]);
    } else if (e2eOnly) {
      // The CLI the browser tests use, without the rest of the Rust lane.
      await sideBySide(
        [
          'rust',
          async () => {
            if (!fs.existsSync(TEST_REPLAY)) await run('cargo', ['build', '-p', 'replay-player', '--bin', 'replay']);
            replayBuilt.resolve(TEST_REPLAY);
          },
        ],
        ['web', () => webLane(tools)],
        [
          'e2e',
          async () => {
            await Promise.all([distBuilt.promise, replayBuilt.promise]);
            await browserTests(tools);
            await engineTests(tools);
          },
        ],
      );
    } else {
      // Three lanes: the Rust build and checks (then the other engines, beside the Chromium files'
      // end); the wasm builds, dist/, tsc and the unit tests; the Chromium files, from the moment
      // dist/ and the CLI exist. A failed build stops the lanes that wait for it.
      await sideBySide(
        [
          'rust',
          async () => {
            try {
              await rustBuild[1]();
            } catch (e) {
              replayBuilt.reject(e);
              throw e;
            }
            await rustChecks(tools, { quickTier: quick });
            if (!quick) await engineTests(tools);
          },
        ],
        ['web', () => webLane(tools)],
        [
          'e2e',
          async () => {
            await Promise.all([distBuilt.promise, replayBuilt.promise]);
            await browserTests(tools, quick ? QUICK_E2E : null);
          },
        ],
      );
    }
    await Promise.all(Object.values(tools));
    log(assertTreeUnchanged(ROOT, treeBefore));
  } catch (e) {
    failure = e;
  }
  // The compile cache keeps the dependencies and the recent clones' crates (scripts/cache.mjs).
  if (cacheEnabled()) {
    const freed = pruneWorkspaceUnits(linkTargetCache());
    if (freed) log(`compile cache (${CACHE_DIR}): ${(freed / 2 ** 20).toFixed(0)} MiB of older clones' crates removed`);
  }
  summary(t0, failure);
  if (failure) {
    console.error(`[replay-player] test failed: ${failure.message}`);
    process.exit(1);
  }
}

/** The closing lines: every step's seconds, the tests passed and failed, the wall time. */
function summary(t0, failure) {
  const wall = (performance.now() - t0) / 1000;
  log('== steps (seconds; the two lanes overlap):');
  for (const s of steps)
    log(
      `   ${s.ok ? '  ' : '✗ '}${`${s.lane ? `[${s.lane}] ` : ''}${s.name}`.padEnd(36)} ${s.s.toFixed(1).padStart(7)}`,
    );
  for (const r of retries)
    log(`RETRIED (${r.engine}'s web process died or hung; the first try stopped): ${r.scenario}: ${r.why}`);
  log(
    `${totals.passed} passed, ${totals.failed} failed${retries.length ? `, ${retries.length} run twice` : ''}; ${failure ? 'FAILED' : 'all passed'} in ${wall.toFixed(1)} s (${(wall / 60).toFixed(1)} min)`,
  );
}

main();
