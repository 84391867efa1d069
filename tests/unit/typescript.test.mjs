// The shell is TypeScript: no JavaScript source in www/ (pkg/ is wasm-bindgen's output), and the
// modules not yet typed in strict mode (`// @ts-nocheck` on their first line) only ever fewer:
// UNTYPED is the list the conversion started from; a module may leave it, none may join it.
// (The type check itself: scripts/check-types.mjs --shell, a step of npm test after the build.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WWW = path.join(ROOT, 'www');

/** www/'s files (paths from www/), pkg/ and demo/ left out. */
function sources(dir = '') {
  return fs.readdirSync(path.join(WWW, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return rel === 'pkg' || rel === 'demo' ? [] : sources(rel);
    return [rel];
  });
}

const UNTYPED = new Set(
  fs
    .readFileSync(path.join(ROOT, 'tests', 'unit', 'untyped.txt'), 'utf8')
    .split('\n')
    .filter(Boolean),
);

test('www/ holds no JavaScript source: the shell is TypeScript', () => {
  assert.deepEqual(
    sources().filter((f) => /\.(js|mjs|cjs)$/.test(f)),
    [],
  );
  assert.ok(sources().filter((f) => f.endsWith('.ts')).length > 50, 'the modules were found');
});

test('no module joins the untyped list: a new module is typed from its first line', () => {
  const untyped = sources().filter(
    (f) => f.endsWith('.ts') && /^\/\/ @ts-nocheck/.test(fs.readFileSync(path.join(WWW, f), 'utf8')),
  );
  assert.deepEqual(
    untyped.filter((f) => !UNTYPED.has(f)),
    [],
    'modules marked @ts-nocheck that tests/unit/untyped.txt does not list',
  );
  // Nothing else in the shell switches the checker off.
  const off = sources()
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(WWW, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (i > 0 && /@ts-nocheck/.test(l) ? [`${f}:${i + 1}`] : [])),
    );
  assert.deepEqual(off, []);
});
