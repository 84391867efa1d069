// docs/ARCHITECTURE.md stays true of the tree: every repository path it names in backticks
// (`crate/…`, `www/…`, `tests/…`, `scripts/…`, `docs/…`, `shaders/…`, `types/…`) and every
// docs/….md it cites in prose exists. A name without one of those roots (`widgets/format.ts`,
// `player/`, prose such as a/b) is not taken for a path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROOTS = ['crate', 'www', 'tests', 'scripts', 'docs', 'shaders', 'types'];

/** A whole code span that is a path under one of ROOTS: no spaces, only path characters, `*` a
 *  wildcard within the last segment. */
const CODE_PATH = new RegExp(`^(?:${ROOTS.join('|')})/[A-Za-z0-9_.*/-]*$`);
/** A docs/….md cited in prose (not part of a longer path or a URL). */
const PROSE_DOC = /(?<![\w./-])docs\/[A-Za-z0-9_/-]+\.md\b/g;

/** The repository paths a Markdown text names, in order of first mention, each once. */
export function namedPaths(markdown) {
  const found = new Set();
  for (const [, span] of markdown.matchAll(/`([^`\n]+)`/g)) {
    if (CODE_PATH.test(span)) found.add(span);
  }
  const prose = markdown.replace(/`[^`\n]*`/g, ' ');
  for (const [doc] of prose.matchAll(PROSE_DOC)) found.add(doc);
  return [...found];
}

/** Whether a named path exists under `root`: a trailing `/` must be a folder; a `*` in the last
 *  segment must match at least one entry of its folder. */
export function exists(root, named) {
  const dirOnly = named.endsWith('/');
  const rel = dirOnly ? named.slice(0, -1) : named;
  const base = path.posix.basename(rel);
  if (base.includes('*')) {
    const dir = path.join(root, path.posix.dirname(rel));
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return false;
    const pattern = new RegExp(`^${base.split('*').map(escapeRegExp).join('[^/]*')}$`);
    return fs.readdirSync(dir).some((entry) => pattern.test(entry));
  }
  const full = path.join(root, rel);
  if (!fs.existsSync(full)) return false;
  return !dirOnly || fs.statSync(full).isDirectory();
}

function escapeRegExp(s) {
  return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

test('namedPaths takes whole code spans under the repository roots and docs/*.md in prose', () => {
  const text = [
    'The map: `crate/src/lib.rs`, `www/ui/` and `shaders/*.wgsl`; `widgets/format.ts` and `player/` are',
    'relative names, `cargo run -p x` a command, `www/index.html`, `main.js` a list, a/b prose;',
    'see docs/worker-protocol.md and docs/format/flrep.md §6.2, not https://x.example/docs/a.md',
    'or `docs/live.md` twice: docs/live.md.',
  ].join('\n');
  assert.deepEqual(namedPaths(text), [
    'crate/src/lib.rs',
    'www/ui/',
    'shaders/*.wgsl',
    'www/index.html',
    'docs/live.md',
    'docs/worker-protocol.md',
    'docs/format/flrep.md',
  ]);
});

test('exists tells a real path, folder and wildcard from a wrong one', () => {
  assert.equal(exists(ROOT, 'docs/ARCHITECTURE.md'), true);
  assert.equal(exists(ROOT, 'tests/unit/'), true);
  assert.equal(exists(ROOT, 'shaders/*.wgsl'), true);
  assert.equal(exists(ROOT, 'docs/ARCHITECTURE.md/'), false, 'a file named as a folder');
  assert.equal(exists(ROOT, 'www/no-such-module.js'), false);
  assert.equal(exists(ROOT, 'shaders/*.glsl'), false);
  assert.equal(exists(ROOT, 'no-such-dir/*.js'), false);
});

test('every repository path docs/ARCHITECTURE.md names exists', () => {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const named = namedPaths(text);
  // The map names about a hundred paths: a handful means the extraction broke, not the tree.
  assert.ok(named.length >= 40, `only ${named.length} paths found in docs/ARCHITECTURE.md`);
  const missing = named.filter((p) => !exists(ROOT, p));
  assert.deepEqual(missing, [], `docs/ARCHITECTURE.md names paths that do not exist: ${missing.join(', ')}`);
});
