// The shell's layout (docs/ARCHITECTURE.md "Code map: the shell"): www/'s root holds only entry
// points, pages, styles and manifests; every folder states its thread and what it may import in its
// README.md ("May import: a, b"), and every module's imports keep to its folder's rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');

function files(dir = '') {
  return fs.readdirSync(path.join(WWW, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return rel === 'pkg' || rel === 'demo' ? [] : files(rel);
    return [rel];
  });
}

/** Folder → the folders its modules may import (from its README.md). */
function rules() {
  const out = new Map();
  for (const f of files().filter((f) => f.endsWith('/README.md'))) {
    const text = fs.readFileSync(path.join(WWW, f), 'utf8');
    const m = /May import: ([^.]+)\./.exec(text);
    assert.ok(m, `${f} says what its folder may import`);
    assert.match(text, /^`www\/[\w/-]+\/`: (Any thread|Page thread|[A-Z]\w+ worker)\b/, `${f} names its thread`);
    const may = m[1].trim() === 'nothing' ? [] : m[1].split(',').map((s) => s.trim());
    out.set(path.posix.dirname(f), may);
  }
  return out;
}

/** The folder whose rule a module keeps: the deepest folder with a README.md above it. */
function folderOf(rel, folders) {
  let d = path.posix.dirname(rel);
  while (d !== '.' && !folders.has(d)) d = path.posix.dirname(d);
  return d;
}

/** Relative import specifiers of a module: static, dynamic, type-only, re-exports. */
function importsOf(code) {
  return [...code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
}

test("www/'s root holds entry points, pages, styles and manifests only; each entry is one line of code", () => {
  const root = fs.readdirSync(WWW, { withFileTypes: true }).filter((e) => e.isFile());
  const odd = root.map((e) => e.name).filter((n) => !/\.(ts|html|css|svg|webmanifest)$|^tsconfig\.json$/.test(n));
  assert.deepEqual(odd, []);
  for (const e of root.filter((e) => e.name.endsWith('.ts') && e.name !== 'sw.ts')) {
    const code = fs
      .readFileSync(path.join(WWW, e.name), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('//'));
    assert.equal(code.length, 1, `${e.name} is one import of its folder: ${code.join(' | ')}`);
    assert.match(code[0], /^(import|export \*( as \w+)? from) '\.\/[\w-]+\/[\w/-]+\.ts';$/, e.name);
  }
});

test('every folder of www/ states its rule; every import keeps to it', () => {
  const folders = rules();
  assert.ok(folders.size >= 15, `${folders.size} folders with a rule`);
  const broken = [];
  for (const rel of files().filter((f) => f.endsWith('.ts') && f.includes('/'))) {
    const from = folderOf(rel, folders);
    assert.ok(folders.has(from), `${rel} is in a folder with a README.md`);
    const may = folders.get(from);
    for (const spec of importsOf(fs.readFileSync(path.join(WWW, rel), 'utf8'))) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), spec));
      // The published declarations (types only: a .d.ts) are every folder's vocabulary.
      if (target === '../types/player.d.ts') continue;
      if (target.startsWith('pkg/')) {
        if (from !== 'lib') broken.push(`${rel} → ${target}: only lib/wasm.ts loads a wasm build`);
        continue;
      }
      const to = folderOf(target, folders);
      const ok = to === from || to.startsWith(`${from}/`) || may.some((m) => to === m || to.startsWith(`${m}/`));
      if (!ok) broken.push(`${rel} → ${target}: ${from}/ may import ${may.join(', ') || 'nothing'}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('one module reads import.meta (lib/shipped.ts): every URL of a shipped file is made there', () => {
  const readers = files().filter(
    (f) =>
      f.endsWith('.ts') && /\bimport\.meta\b/.test(fs.readFileSync(path.join(WWW, f), 'utf8').replace(/\/\/.*$/gm, '')),
  );
  assert.deepEqual(readers, ['lib/shipped.ts']);
});
