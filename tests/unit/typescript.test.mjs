// The shell is TypeScript, checked in strict mode: no JavaScript source in www/ (pkg/ is
// wasm-bindgen's output), and nothing that switches the checker off (`@ts-nocheck`, `@ts-ignore`,
// `@ts-expect-error`). The check itself is scripts/check-types.mjs --shell, a step of npm test after
// the wasm build (its declarations, www/pkg/*/*.d.ts, are wasm-bindgen's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');

/** www/'s files (paths from www/), pkg/ and demo/ left out. */
function sources(dir = '') {
  return fs.readdirSync(path.join(WWW, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return rel === 'pkg' || rel === 'demo' ? [] : sources(rel);
    return [rel];
  });
}

test('www/ holds no JavaScript source: the shell is TypeScript', () => {
  assert.deepEqual(
    sources().filter((f) => /\.(js|mjs|cjs|jsx)$/.test(f)),
    [],
  );
  assert.ok(sources().filter((f) => f.endsWith('.ts')).length > 50, 'the modules were found');
});

test('no module switches the type checker off', () => {
  const off = sources()
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(WWW, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (/@ts-(nocheck|ignore|expect-error)\b/.test(l) ? [`${f}:${i + 1}: ${l.trim()}`] : [])),
    );
  assert.deepEqual(off, []);
});
