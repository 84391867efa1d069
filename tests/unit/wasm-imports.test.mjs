// scripts/wasm-imports.mjs: the glue module's imports get short names in the wasm and in the glue,
// the module still instantiates and runs with the renamed glue, other modules' imports keep their
// names, and a glue that does not name an import exactly once stops the build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortenImports } from '../../scripts/wasm-imports.mjs';

const GLUE = './x_bg.js';
const LOG = '__wbg_log_0123456789abcdef';
const G = '__wbg_g_fedcba9876543210';

const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const name = (s) => [...leb(Buffer.byteLength(s)), ...Buffer.from(s)];
const section = (id, body) => [id, ...leb(body.length), ...body];

/** A module importing a function, a global and a table from the glue and a memory from `env`;
 *  its export `run` returns the function's result plus the global. */
function module() {
  const imports = [
    ...leb(4),
    ...name(GLUE),
    ...name(LOG),
    0,
    0, // a function of type 0
    ...name(GLUE),
    ...name(G),
    3,
    0x7f,
    0, // an immutable i32 global
    ...name('env'),
    ...name('memory'),
    2,
    0,
    1, // a memory, 1 page
    ...name(GLUE),
    ...name('__wbindgen_externrefs'),
    1,
    0x6f,
    0,
    1, // an externref table
  ];
  return Buffer.from([
    ...[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, [1, 0x60, 0, 1, 0x7f]),
    ...section(2, imports),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('run'), 0, 1]),
    ...section(10, [1, 7, 0, 0x10, 0, 0x23, 0, 0x6a, 0x0b]),
  ]);
}

const glueText = (extra = '') => `const import0 = {
        __proto__: null,
        ${LOG}: function() {
            return 40;
        },
        ${G}: 2,
        __wbindgen_externrefs: null,${extra}
    };`;

/** Evaluates the import object of a glue text as test glue (a plain object literal). */
const importObject = (text) => new Function(`${text}; return import0;`)();

test('the glue module imports get short names in both files; the module runs with the new glue', async () => {
  const r = shortenImports(module(), glueText(), GLUE);
  assert.equal(r.renamed, 3);
  const names = WebAssembly.Module.imports(new WebAssembly.Module(r.wasm)).map((i) => `${i.module}:${i.name}`);
  assert.deepEqual(names, [`${GLUE}:a`, `${GLUE}:b`, 'env:memory', `${GLUE}:c`]);
  assert.ok(!r.glue.includes(LOG) && !r.glue.includes(G), 'no old name left in the glue');
  assert.ok(r.wasm.length < module().length, 'the module is smaller');
  const glue = importObject(r.glue);
  const table = new WebAssembly.Table({ element: 'externref', initial: 1 });
  const { instance } = await WebAssembly.instantiate(r.wasm, {
    [GLUE]: { a: glue.a, b: new WebAssembly.Global({ value: 'i32' }, glue.b), c: table },
    env: { memory: new WebAssembly.Memory({ initial: 1 }) },
  });
  assert.equal(instance.exports.run(), 42);
});

test('an import the glue does not name once stops the build; a damaged section too', () => {
  assert.throws(
    () => shortenImports(module(), glueText().replace(`${G}:`, 'other:'), GLUE),
    /the import __wbg_g_fedcba9876543210 is a key 0 times/,
  );
  assert.throws(
    () => shortenImports(module(), glueText(`\n        ${LOG}: 1,`), GLUE),
    /the import __wbg_log_0123456789abcdef is a key 2 times/,
  );
  const bad = module();
  const at = bad.indexOf(Buffer.from(LOG));
  bad[at - 1] = 0x7f; // the name's length now runs over the next import
  assert.throws(() => shortenImports(bad, glueText(), GLUE), /wasm:/);
});

test('a module without imports of that glue is left as it is', () => {
  const r = shortenImports(module(), glueText(), './other_bg.js');
  assert.equal(r.renamed, 0);
  assert.deepEqual(r.wasm, module());
});
