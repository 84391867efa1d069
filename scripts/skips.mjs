// The skip gate of `npm test` (scripts/test.mjs): every test that did not run — a node:test skip or
// todo (scripts/skip-reporter.mjs writes them), a cargo test reported "ignored" — must be on the
// list below, or the run fails. A prerequisite that `npm test` installs (Chromium's WebGPU adapter,
// nginx, pyacmi, typescript, the built dist/) is never a reason to skip: the test fails instead.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib.mjs';

/**
 * The skips a green run may have: each with where, which test (a RegExp on its name) and why it
 * cannot run in `npm test`. Keep it short; an entry needs a reason a reviewer accepts.
 * @type {{where: 'node' | 'cargo', file?: string, name: RegExp, why: string}[]}
 */
export const ALLOWED_SKIPS = [
  // (none today: every test runs in `npm test` on the reference machine, Debian + Chromium's
  // SwiftShader WebGPU adapter. Add an entry here, with its reason, only for a test that cannot.)
];

/**
 * The fewest tests each step of `npm test` may report (scripts/test.mjs): a step that reports fewer
 * lost some (a file that stopped registering them, a target that no longer builds) and fails. Raise
 * a number when tests are added; lower it only with the tests that were removed on purpose.
 */
export const MIN_TESTS = {
  'cargo test': 322,
  'cargo test (quick)': 290,
  'js unit tests': 248,
  'browser tests': 174,
  'browser tests (smoke)': 19,
  'engine tests': 19,
};

/** The node:test reporter arguments: the usual output on stdout, the skips into `file`. */
export function reporterArgs(file) {
  const shown = process.stdout.isTTY ? 'spec' : 'tap';
  return [
    `--test-reporter=${shown}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(ROOT, 'scripts', 'skip-reporter.mjs')}`,
    `--test-reporter-destination=${file}`,
  ];
}

/**
 * What skip-reporter.mjs wrote to `file`: {skips, empty, ran, passed, failed, files, ms}. Throws when it
 * wrote no summary (node --test did not run, or was killed).
 */
export function readNodeSkips(file) {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  const rows = lines.map((l) => JSON.parse(l));
  const end = rows.find((r) => 'ran' in r);
  if (!end) throw new Error(`${file}: the skip reporter wrote no summary (did node --test run?)`);
  return {
    skips: rows.filter((r) => !('ran' in r) && !r.empty).map((r) => ({ where: 'node', ...r })),
    empty: rows.filter((r) => r.empty).map((r) => r.file),
    ran: end.ran,
    passed: end.passed ?? 0,
    failed: end.failed ?? 0,
    files: end.files ?? {},
    ms: end.ms ?? {},
  };
}

/**
 * Throws unless the step ran at least `min` tests and every file in it registered one; returns a
 * one-line summary otherwise. (A file whose `describe` was skipped registers none: the skip gate
 * names it first.)
 */
export function assertEnoughRan(step, { ran, empty, files }, min) {
  if (empty.length)
    throw new Error(
      `${step}: ${empty.length} test file(s) registered no test:\n${empty.map((f) => `  ${f}`).join('\n')}`,
    );
  if (ran < min)
    throw new Error(
      `${step}: ${ran} tests reported, at least ${min} expected (scripts/skips.mjs MIN_TESTS): a file stopped registering its tests?`,
    );
  return `${step}: ${ran} tests in ${Object.keys(files).length} files (at least ${min} expected)`;
}

/**
 * The tests cargo test reported ignored, from its output: `test NAME ... ignored[, reason]`.
 * Checked against the "N ignored" of each "test result:" line, so a changed format cannot hide one.
 */
export function cargoIgnored(output) {
  const skips = [];
  let total = 0;
  let results = 0;
  for (const line of output.split('\n')) {
    const m = /^test (.+?) \.\.\. ignored(?:, (.*))?$/.exec(line.trim());
    if (m) skips.push({ where: 'cargo', file: '', name: m[1], reason: m[2] ?? '', kind: 'ignored' });
    const r = /^test result: \w+\. \d+ passed; \d+ failed; (\d+) ignored;/.exec(line.trim());
    if (r) {
      results++;
      total += Number(r[1]);
    }
  }
  if (results === 0) throw new Error('cargo test printed no "test result:" line: cannot count its ignored tests');
  if (total !== skips.length)
    throw new Error(`cargo test: ${total} ignored by its summaries, ${skips.length} "... ignored" lines found`);
  return skips;
}

/** Passed and failed tests summed over cargo test's "test result:" lines. */
export function cargoCounts(output) {
  let passed = 0;
  let failed = 0;
  for (const line of output.split('\n')) {
    const r = /^test result: \w+\. (\d+) passed; (\d+) failed;/.exec(line.trim());
    if (r) {
      passed += Number(r[1]);
      failed += Number(r[2]);
    }
  }
  return { passed, failed };
}

/** The skips not on ALLOWED_SKIPS. */
export function unexplained(skips, allowed = ALLOWED_SKIPS) {
  return skips.filter(
    (s) => !allowed.some((a) => a.where === s.where && (!a.file || a.file === s.file) && a.name.test(s.name)),
  );
}

/** Throws, listing them, when any of `skips` is not allowed; returns a one-line summary otherwise. */
export function assertSkipsAllowed(step, skips, allowed = ALLOWED_SKIPS) {
  const bad = unexplained(skips, allowed);
  const show = (s) => `  ${s.where} ${s.file ? `${s.file}: ` : ''}${s.name}${s.reason ? ` (${s.reason})` : ''}`;
  if (bad.length)
    throw new Error(
      `${step}: ${bad.length} test(s) did not run and are not on the allowed list (scripts/skips.mjs):\n${bad
        .map(show)
        .join('\n')}`,
    );
  return `${step}: ${skips.length} skipped, all on the allowed list${skips.length ? `:\n${skips.map(show).join('\n')}` : ''}`;
}
