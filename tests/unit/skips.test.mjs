// The gate of npm test (scripts/skips.mjs, scripts/skip-reporter.mjs): a skipped, todo or ignored
// test or suite fails the run unless it is on the allowed list; so do a test file that registers no
// test and a step that runs fewer tests than it expects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/lib.mjs';
import {
  ALLOWED_SKIPS,
  MIN_TESTS,
  assertEnoughRan,
  assertSkipsAllowed,
  cargoCounts,
  cargoIgnored,
  readNodeSkips,
  reporterArgs,
  unexplained,
} from '../../scripts/skips.mjs';

test('the reporter writes every skip, todo and nested skip of a node --test run, and how many tests reported', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skips-'));
  try {
    const file = path.join(dir, 'some.test.mjs');
    fs.writeFileSync(
      file,
      [
        "import { test } from 'node:test';",
        "test('runs', () => {});",
        "test('skipped by option', { skip: 'no nginx' }, () => {});",
        "test('skipped inside', (t) => { t.skip('no adapter'); });",
        "test('a todo', { todo: 'later' }, () => {});",
        "test('outer', async (t) => { await t.test('inner', (u) => u.skip()); });",
      ].join('\n'),
    );
    const out = path.join(dir, 'skips.jsonl');
    // (Without NODE_TEST_CONTEXT: this test's runner sets it, and a child run would then report to it.)
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--test', ...reporterArgs(out), file], { cwd: ROOT, encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /skipped inside/, 'the usual report still goes to stdout');
    const { skips, ran } = readNodeSkips(out);
    assert.equal(ran, 6);
    assert.deepEqual(
      skips.map((s) => [s.name, s.kind, s.reason]),
      [
        ['skipped by option', 'skip', 'no nginx'],
        ['skipped inside', 'skip', 'no adapter'],
        ['a todo', 'todo', 'later'],
        ['inner', 'skip', ''],
      ],
    );
    assert.ok(skips.every((s) => s.where === 'node' && s.file.endsWith('some.test.mjs')));
    assert.throws(() => assertSkipsAllowed('unit', skips), /4 test\(s\) did not run(.|\n)*no adapter/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing or summary-less skip file is an error, not "nothing skipped"', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skips-'));
  try {
    assert.throws(() => readNodeSkips(path.join(dir, 'none.jsonl')), /no summary/);
    fs.writeFileSync(path.join(dir, 'cut.jsonl'), '{"file":"a","name":"b","reason":"","kind":"skip"}\n');
    assert.throws(() => readNodeSkips(path.join(dir, 'cut.jsonl')), /no summary/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("cargo's ignored tests are read from its output and checked against its summaries", () => {
  const out = [
    'running 3 tests',
    'test a::one ... ok',
    'test a::two ... ignored',
    'test b::three ... ignored, needs a subprocess',
    '',
    'test result: ok. 1 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.01s',
    '',
    'running 0 tests',
    'test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  ].join('\n');
  assert.deepEqual(
    cargoIgnored(out).map((s) => [s.name, s.reason]),
    [
      ['a::two', ''],
      ['b::three', 'needs a subprocess'],
    ],
  );
  // A summary counting more than the lines found: the format changed, nothing is assumed.
  assert.throws(() => cargoIgnored(out.replace('2 ignored', '3 ignored')), /3 ignored by its summaries, 2/);
  assert.throws(() => cargoIgnored('running 1 test\n'), /no "test result:" line/);
  assert.deepEqual(cargoIgnored('test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out'), []);
});

test('only a skip on the allowed list passes: by where, file and name', () => {
  const allowed = [{ where: 'node', file: 'tests/e2e/x.test.mjs', name: /^needs a GPU/, why: 'a reason' }];
  const s = (where, file, name) => ({ where, file, name, reason: '' });
  assert.deepEqual(unexplained([s('node', 'tests/e2e/x.test.mjs', 'needs a GPU here')], allowed), []);
  assert.equal(unexplained([s('node', 'tests/e2e/y.test.mjs', 'needs a GPU here')], allowed).length, 1);
  assert.equal(unexplained([s('cargo', '', 'needs a GPU here')], allowed).length, 1);
  assert.equal(unexplained([s('node', 'tests/e2e/x.test.mjs', 'other')], allowed).length, 1);
  assert.match(assertSkipsAllowed('step', []), /0 skipped/);
  // Every entry of the real list says why.
  for (const a of ALLOWED_SKIPS) assert.ok(a.why && a.name instanceof RegExp, JSON.stringify(a));
});

/** Runs `node --test` over `files` (name → source) with the gate's reporter; returns its report. */
function reportOf(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skips-'));
  try {
    const paths = Object.entries(files).map(([name, src]) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, src);
      return file;
    });
    const out = path.join(dir, 'skips.jsonl');
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--test', ...reporterArgs(out), ...paths], {
      cwd: dir,
      encoding: 'utf8',
      env,
    });
    return { status: r.status, report: readNodeSkips(out) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a skipped or todo describe is a skip the gate sees, though it registers no test', () => {
  const { status, report } = reportOf({
    'suites.test.mjs': [
      "import { describe, test } from 'node:test';",
      "test('runs', () => {});",
      "describe.skip('skipped suite', () => { test('never', () => {}); });",
      "describe('suite skipped by option', { skip: 'no nginx' }, () => { test('never2', () => {}); });",
      "describe.todo('todo suite', () => { test('inside a todo', () => {}); });",
    ].join('\n'),
  });
  assert.equal(status, 0);
  const suites = report.skips.filter((s) => s.suite).map((s) => [s.name, s.kind, s.reason]);
  assert.deepEqual(suites, [
    ['skipped suite', 'skip', ''],
    ['suite skipped by option', 'skip', 'no nginx'],
    ['todo suite', 'todo', ''],
  ]);
  assert.throws(() => assertSkipsAllowed('unit', report.skips), /did not run(.|\n)*skipped suite/);
});

test('a test file that registers no test fails the gate; so do fewer tests than the step expects', () => {
  const { status, report } = reportOf({
    'full.test.mjs': "import { test } from 'node:test';\ntest('a', () => {});\ntest('b', () => {});\n",
    'empty.test.mjs': "import { test } from 'node:test';\n// every test here was deleted\n",
  });
  assert.equal(status, 0, 'node --test itself passes an empty file');
  assert.deepEqual(report.empty, ['empty.test.mjs']);
  assert.equal(report.ran, 2, 'the empty file is not counted as a test');
  assert.equal(report.passed, 2);
  assert.deepEqual(report.files, { 'full.test.mjs': 2 });
  assert.throws(() => assertEnoughRan('unit', report, 1), /1 test file\(s\) registered no test:\n {2}empty\.test\.mjs/);
  const full = { ...report, empty: [] };
  assert.match(assertEnoughRan('unit', full, 2), /2 tests in 1 files/);
  assert.throws(() => assertEnoughRan('unit', full, 3), /2 tests reported, at least 3 expected/);
});

test('passed and failed are counted, a failed test and a file that throws among them', () => {
  const { status, report } = reportOf({
    'mixed.test.mjs':
      "import { test } from 'node:test';\ntest('ok', () => {});\ntest('bad', () => { throw new Error('x'); });\n",
    'throws.test.mjs': "throw new Error('cannot even load');\n",
  });
  assert.notEqual(status, 0);
  assert.equal(report.passed, 1);
  assert.equal(report.failed, 2, 'the failing test and the file that threw');
  assert.deepEqual(report.empty, [], 'a file that threw is a failure, not an empty file');
});

test("cargo's passed and failed tests are summed over its summaries", () => {
  const out = [
    'test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s',
    'test result: FAILED. 4 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s',
  ].join('\n');
  assert.deepEqual(cargoCounts(out), { passed: 7, failed: 2 });
  for (const [step, n] of Object.entries(MIN_TESTS)) assert.ok(Number.isInteger(n) && n > 0, `${step}: ${n}`);
});
