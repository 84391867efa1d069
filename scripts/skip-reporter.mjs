// A node:test reporter that writes what the gate of `npm test` checks (scripts/skips.mjs): one JSON
// line per test or suite that did not run — skipped (`t.skip()`, `{skip}`, `describe.skip`) or todo
// (`{todo}`, `describe.todo`) — and one per test file that registered no test at all (node:test
// reports such a file as one passing test named by its path), then a summary line. scripts/test.mjs
// gives it a file (--test-reporter-destination) beside the usual reporter and fails the run on any
// skip not allowed by scripts/skips.mjs, on an empty file, and on fewer tests than the step expects:
// a green run cannot come from tests that did not run.
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/skip-reporter.mjs --test-reporter-destination=skips.jsonl FILES
// Lines: {"file": "tests/e2e/x.test.mjs", "name": "the test's name", "reason": "t.skip's text",
// "kind": "skip" | "todo", "suite": true (a describe)}; {"file": "…", "empty": true}. The last line
// {"ran": N, "passed": P, "failed": F, "files": {"tests/…": tests in it}, "ms": {"tests/…": its
// top-level tests' and suites' milliseconds}} counts the tests that reported (run or not; suites
// aside), so an empty report cannot pass for "nothing skipped", and says where the time went.
import path from 'node:path';

/** `file` relative to the working directory, with forward slashes. */
const rel = (file) => (file ? path.relative(process.cwd(), file).split(path.sep).join('/') : '');

export default async function* skipReporter(source) {
  let ran = 0;
  let passed = 0;
  let failed = 0;
  const files = {};
  const ms = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    const file = rel(d.file);
    if (d.nesting === 0) ms[file] = Math.round((ms[file] ?? 0) + (d.details?.duration_ms ?? 0));
    const suite = d.details?.type === 'suite';
    const kind =
      d.skip !== undefined && d.skip !== false ? 'skip' : d.todo !== undefined && d.todo !== false ? 'todo' : '';
    // A file that registered nothing: node:test reports the file itself, named by its path.
    if (!suite && d.nesting === 0 && d.file && d.name === d.file) {
      if (event.type === 'test:fail') failed++;
      else if (!(file in files)) yield `${JSON.stringify({ file, empty: true })}\n`;
      continue;
    }
    if (kind) {
      const reason = typeof d[kind] === 'string' ? d[kind] : '';
      yield `${JSON.stringify({ file, name: d.name, reason, kind, ...(suite ? { suite: true } : {}) })}\n`;
    }
    // Suites (describe) report too; their tests are counted on their own.
    if (suite) {
      if (event.type === 'test:fail' && !kind) failed++;
      continue;
    }
    ran++;
    files[file] = (files[file] ?? 0) + 1;
    if (event.type === 'test:fail') failed++;
    else if (!kind) passed++;
  }
  yield `${JSON.stringify({ ran, passed, failed, files, ms })}\n`;
}
