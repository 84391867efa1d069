// www/api/player.ts: the published handle against a fake controller. Every member of the published
// interface (read from the generated types/player.d.ts, so a member added there is tested here)
// reaches the controller with its arguments and hands back its answer; a setter seeks; the same
// controller always gives the same handle; nothing of the controller beyond the interface shows.
// Run: node --import tsx --test tests/unit/handle.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { handleOf } from '../../www/api/player.ts';
import { VERSION } from '../../www/api/constants.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How many parameters the declaration `decl` (from its name on) takes. */
function arity(decl) {
  let i = decl.indexOf('(');
  let depth = 0;
  let n = 0;
  let any = false;
  for (; i < decl.length; i++) {
    const ch = decl[i];
    if (ch === '(' || ch === '<' || ch === '{' || ch === '[') depth++;
    else if (ch === ')' || ch === '>' || ch === '}' || ch === ']') {
      if (ch === '>' && decl[i - 1] === '=') continue; // an arrow's =>
      if (--depth === 0) break;
    } else if (depth === 1 && ch === ',') n++;
    else if (depth === 1 && ch.trim()) any = true;
  }
  return any ? n + 1 : 0;
}

/** The published interface's members: name → {kind: 'method' | 'getter' | 'property', arity}. */
function published() {
  const lines = fs.readFileSync(path.join(ROOT, 'types', 'player.d.ts'), 'utf8').split('\n');
  const from = lines.findIndex((l) => /^export interface Player \{/.test(l));
  const to = lines.findIndex((l, i) => i > from && l === '}');
  const out = new Map();
  for (const l of lines.slice(from + 1, to)) {
    const m = /^\t(readonly\s+)?([A-Za-z_$][\w$]*)(\s*[<(])?/.exec(l);
    if (m) out.set(m[2], { kind: m[3] ? 'method' : m[1] ? 'getter' : 'property', arity: m[3] ? arity(l) : 0 });
  }
  return out;
}

/** A controller that records every call and answers each with a token of its own. */
function fakeController(calls) {
  const c = { extra: 'not published' };
  for (const [name, { kind }] of published()) {
    if (kind === 'method')
      c[name] = (...args) => {
        calls.push([name, ...args]);
        return `${name}-result`;
      };
    else
      Object.defineProperty(c, name, {
        get: () => `${name}-value`,
        set: (v) => calls.push([`set ${name}`, v]),
        enumerable: true,
      });
  }
  return c;
}

test('the published interface is what the handle forwards, member by member', () => {
  const members = published();
  assert.ok(members.size >= 35 && members.size <= 41, `${members.size} members`);
  const calls = [];
  const h = handleOf(fakeController(calls));
  const args = [1, 'two', { three: 3 }];
  assert.equal(members.get('captureFrame').arity, 3, 'arity() reads a declaration');
  assert.equal(members.get('on').arity, 2);
  assert.equal(members.get('play').arity, 0);
  for (const [name, { kind, arity: n }] of members) {
    if (kind === 'method') {
      calls.length = 0;
      const got = h[name](...args.slice(0, n));
      // Each method hands its declared arguments on and the controller's answer back (void
      // methods: nothing to hand back, but the call reached the controller).
      assert.equal(calls.length, 1, `${name} reached the controller once`);
      assert.equal(calls[0][0], name);
      assert.deepEqual(calls[0].slice(1), args.slice(0, n), `${name}'s ${n} arguments`);
      if (got !== undefined) assert.equal(got, `${name}-result`, `${name} answers`);
    } else if (name === 'version') {
      // (The one member that is the package's, not the controller's.)
      assert.equal(h.version, VERSION, "the version is the package's");
    } else {
      assert.equal(h[name], `${name}-value`, `${name} reads the controller`);
    }
  }
  calls.length = 0;
  h.currentTime = 12.5;
  assert.deepEqual(calls, [['set currentTime', 12.5]], 'setting currentTime seeks on the controller');
});

test('one handle per controller, and nothing else of the controller shows', () => {
  const c = fakeController([]);
  const h = handleOf(c);
  assert.equal(handleOf(c), h, 'the same handle each time');
  assert.notEqual(handleOf(fakeController([])), h, 'another controller, another handle');
  assert.equal(h.extra, undefined);
  assert.deepEqual(Object.keys(h), [], 'no own enumerable state (the controller is private)');
  assert.equal(JSON.stringify(h), '{}');
});
