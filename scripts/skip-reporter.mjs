// A node:test reporter that writes one JSON line per test that did not run: skipped (`t.skip()`,
// `{skip}`) or todo. scripts/test.mjs gives it a file (--test-reporter-destination) beside the usual
// reporter and fails the run on any skip not allowed by scripts/skips.mjs: a green run cannot come
// from tests that did not run.
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/skip-reporter.mjs --test-reporter-destination=skips.jsonl FILES
// Each line: {"file": "tests/e2e/x.test.mjs", "name": "the test's name", "reason": "t.skip's text",
// "kind": "skip" | "todo"}. A last line {"ran": N} counts the tests that reported (run or not), so an
// empty file cannot pass for "nothing skipped".
import path from 'node:path';

export default async function* skipReporter(source) {
  let ran = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    // Suites (describe) report too; their tests are counted on their own.
    if (d.details?.type === 'suite') continue;
    ran++;
    const kind =
      d.skip !== undefined && d.skip !== false ? 'skip' : d.todo !== undefined && d.todo !== false ? 'todo' : '';
    if (!kind) continue;
    const reason = typeof d[kind] === 'string' ? d[kind] : '';
    const file = d.file ? path.relative(process.cwd(), d.file).split(path.sep).join('/') : '';
    yield `${JSON.stringify({ file, name: d.name, reason, kind })}\n`;
  }
  yield `${JSON.stringify({ ran })}\n`;
}
