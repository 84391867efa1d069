// The package's TypeScript declarations (types/*.d.ts, generated from the source by
// scripts/types.mjs; check-types.mjs --shell checks they are current): they parse, the published
// handle is narrow, every export of player.js is declared and nothing else is, and package.json's
// exports name them. With the compiler installed (a devDependency), they type-check too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { loadTypescript, checkTypes } from '../../scripts/check-types.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const PLAYER_DTS = read('types/player.d.ts');

/** The lines of `src` between the line matching `start` and the next line that is exactly `}`. */
function block(src, start) {
  const lines = src.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  assert.ok(from >= 0, `${start} found`);
  const to = lines.findIndex((l, i) => i > from && l === '}');
  return lines.slice(from + 1, to);
}

/** Member names of `interface Player` in types/player.d.ts (generated from www/api/player.ts). */
function declaredMembers() {
  const names = new Set();
  for (const l of block(PLAYER_DTS, /^export interface Player \{/)) {
    const m = /^\t(?:readonly\s+)?([A-Za-z_$][\w$]*)\s*[<(:?]/.exec(l);
    if (m) names.add(m[1]);
  }
  return names;
}

test('the declarations parse as TypeScript', async () => {
  for (const f of fs.readdirSync(path.join(ROOT, 'types')).filter((f) => f.endsWith('.d.ts'))) {
    await assert.doesNotReject(transform(read(`types/${f}`), { loader: 'ts', sourcefile: f }), f);
  }
});

test('the published handle is narrow: at most 40 members besides status, no inside', () => {
  const declared = declaredMembers();
  assert.ok(
    declared.has('status') && declared.has('diagnostics') && declared.has('captureFrame'),
    [...declared].join(),
  );
  assert.ok(declared.size - 1 <= 40, `${declared.size - 1} members besides status`);
  for (const inside of ['state', 'debug', 'videoSource', 'startKillCam', 'learnEvents'])
    assert.ok(!declared.has(inside), `${inside} is not published`);
  // The handle class forwards exactly the interface (tsc checks `implements`; nothing more is public).
  const cls = block(read('www/api/player.ts'), /^export class Handle implements Player \{/);
  const members = new Set(
    cls.map((l) => /^ {2}(?:get |set )?([A-Za-z_$][\w$]*)[(<]/.exec(l)?.[1]).filter((n) => n && n !== 'constructor'),
  );
  assert.deepEqual([...members].sort(), [...declared].sort());
});

test('every export of player.js is declared, and nothing it lacks', async () => {
  const exported = Object.keys(await import('../../www/player.ts')).sort();
  const declared = [...PLAYER_DTS.matchAll(/^export (?:declare )?(?:const|function|let|class) ([A-Za-z_$][\w$]*)/gm)]
    .map((m) => m[1])
    .sort();
  assert.deepEqual([...new Set(declared)], exported);
});

test('every event the player emits is in PlayerEventMap', () => {
  const emitted = new Set();
  const inside = ['core', 'view'].flatMap((d) => fs.readdirSync(path.join(ROOT, 'www', d)).map((f) => `www/${d}/${f}`));
  for (const f of ['www/api/controller.ts', ...inside])
    for (const m of read(f).matchAll(/\bemit\('([a-z]+)'/g)) emitted.add(m[1]);
  const map = block(PLAYER_DTS, /^export interface PlayerEventMap \{/)
    .map((l) => /^\s+([a-z]+):/.exec(l)?.[1])
    .filter(Boolean);
  assert.ok(emitted.size > 15, `emits were read (${emitted.size})`);
  assert.deepEqual(
    [...emitted].filter((e) => !map.includes(e)),
    [],
    'events emitted but not declared',
  );
});

test('package.json: exports and types name the declarations and the built files', () => {
  const pkg = JSON.parse(read('package.json'));
  assert.equal(pkg.private, undefined, 'publishable (docs/versions.md)');
  assert.equal(pkg.types, './types/player.d.ts');
  for (const key of ['.', './player.js', './element.js']) {
    const e = pkg.exports[key];
    assert.ok(e?.types && fs.existsSync(path.join(ROOT, e.types)), `${key}: types ${e?.types} exists`);
    assert.match(e.default, /^\.\/dist\/[a-z-]+\.js$/, `${key}: a built file`);
    assert.ok(
      fs.existsSync(path.join(ROOT, 'www', e.default.slice('./dist/'.length).replace(/\.js$/, '.ts'))) ||
        key === './element.js',
    );
  }
  assert.equal(pkg.exports['./embed.html'], './dist/embed.html');
  assert.equal(pkg.exports['./*'], './dist/*');
  assert.ok(pkg.files.includes('dist/') && pkg.files.includes('types/'));
});

test('the declarations type-check (scripts/check-types.mjs)', (t) => {
  const ts = loadTypescript();
  if (!ts) {
    t.skip('typescript is not installed');
    return;
  }
  assert.deepEqual(checkTypes(ts), []);
});

test("the element's forwarded members are published ones, declared on the element", () => {
  const dts = read('types/element.d.ts');
  // (tsc checks METHODS and GETTERS `satisfies readonly (keyof Player)[]`.)
  assert.match(dts, /export interface ReplayPlayerElement extends Pick<Player, \(typeof METHODS\)\[number\]>/);
  assert.match(dts, /"replay-player": ReplayPlayerElement;/, 'the tag name map');
  for (const own of ['load', 'dispose', 'on', 'off', 'player', 'src', 'currentTime'])
    assert.match(dts, new RegExp(`\\b${own}\\b`), `element.d.ts declares ${own}`);
  assert.doesNotMatch(dts, /\b(startKillCam|videoSource|debug)\b/);
});
