// The package's TypeScript declarations (types/*.d.ts) against the code they describe: they parse
// as TypeScript, every public member of the handle (www/api/player.ts's Player class) and every export
// of player.js is declared and nothing else is, and package.json's exports name them. With the
// compiler installed (a devDependency), scripts/check-types.mjs type-checks them too.
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
/** Members of the handle that are not its API (docs/player-api.md "debug"; `videoSource`: the inside
 *  for Export → Video, www/features/export/video-frames.ts). */
const NOT_API = new Set(['constructor', 'debug', 'videoSource']);

/** The lines of `src` between the line matching `start` and the next line that is exactly `}`. */
function block(src, start) {
  const lines = src.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  assert.ok(from >= 0, `${start} found`);
  const to = lines.findIndex((l, i) => i > from && l === '}');
  return lines.slice(from + 1, to);
}

/** Public member names of the Player class in www/api/player.ts (methods, getters, setters). */
function handleMembers() {
  const names = new Set();
  for (const l of block(read('www/api/player.ts'), /^export class Player \{/)) {
    const m = /^ {2}(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?([A-Za-z_$][\w$]*)\s*[(<]/.exec(l);
    if (m && !NOT_API.has(m[1])) names.add(m[1]);
  }
  return names;
}

/** Member names of `interface Player` in types/player.d.ts. */
function declaredMembers() {
  const names = new Set();
  for (const l of block(PLAYER_DTS, /^export interface Player \{/)) {
    const m = /^ {2}(?:readonly\s+)?([A-Za-z_$][\w$]*)\s*[<(:?]/.exec(l);
    if (m) names.add(m[1]);
  }
  return names;
}

test('the declarations parse as TypeScript', async () => {
  for (const f of fs.readdirSync(path.join(ROOT, 'types')).filter((f) => f.endsWith('.d.ts'))) {
    await assert.doesNotReject(transform(read(`types/${f}`), { loader: 'ts', sourcefile: f }), f);
  }
});

test('every public member of the handle is declared, and nothing it lacks', () => {
  const code = handleMembers();
  const declared = declaredMembers();
  assert.ok(code.size > 40, `the class was read (${code.size} members)`);
  assert.deepEqual(
    [...code].filter((n) => !declared.has(n)),
    [],
    'members of www/api/player.ts missing from types/player.d.ts',
  );
  assert.deepEqual(
    [...declared].filter((n) => !code.has(n)),
    [],
    'members declared in types/player.d.ts that www/api/player.ts does not have',
  );
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
  for (const f of ['www/api/player.ts', ...inside])
    for (const m of read(f).matchAll(/\bemit\('([a-z]+)'/g)) emitted.add(m[1]);
  const map = block(PLAYER_DTS, /^export interface PlayerEventMap \{/)
    .map((l) => /^ {2}([a-z]+):/.exec(l)?.[1])
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
  assert.equal(pkg.private, true, 'not published');
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

/** The string literals of `const NAME = [...]` in `src`. */
function arrayOf(src, name) {
  const m = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(src);
  assert.ok(m, `${name} found`);
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]).sort();
}

/** The string literals of `export type NAME = | 'a' | 'b'` in `src`. */
function unionOf(src, name) {
  const m = new RegExp(`export type ${name} =([^;]*);`).exec(src);
  assert.ok(m, `${name} found`);
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1]).sort();
}

test("the element's declared methods and getters are the ones element.js forwards", () => {
  const js = read('www/embed/element.ts');
  const dts = read('types/element.d.ts');
  assert.deepEqual(unionOf(dts, 'ElementMethod'), arrayOf(js, 'METHODS'));
  assert.deepEqual(unionOf(dts, 'ElementGetter'), arrayOf(js, 'GETTERS'));
  for (const own of ['load', 'dispose', 'on', 'off', 'player', 'src', 'currentTime']) {
    assert.match(js, new RegExp(`^  (get |set )?${own}\\(`, 'm'), `element.js has ${own}`);
    assert.match(dts, new RegExp(`\\b${own}\\b`), `element.d.ts declares ${own}`);
  }
});
