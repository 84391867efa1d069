// The skip gate of npm test (scripts/skips.mjs, scripts/skip-reporter.mjs): a skipped, todo or
// ignored test fails the run unless it is on the allowed list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../scripts/lib.mjs';
import {
  ALLOWED_SKIPS,
  assertSkipsAllowed,
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
