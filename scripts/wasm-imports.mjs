// Short import names for a wasm-bindgen build (scripts/build.mjs runs it after wasm-opt).
//
// wasm-bindgen names every import the glue hands the module `__wbg_<what>_<16 hex digits>`: the
// renderer has 284 of them, written twice (the wasm's import section and the glue's import
// object), and the hex digits do not compress. Renaming them to `a`, `b`, … in both files takes
// 8.6 KB off the renderer's gzipped download (docs/performance-history.md, Download size). binaryen's
// `--minify-imports` renames only imports from `env`, and its `-and-exports` variants also rename
// the exports the shell reads by name (`memory`), so this renames just the glue module's imports:
// the wasm's import section is rewritten (names and the section's length; nothing else moves) and
// each old name must be a key of the glue's import object exactly once, or the build fails.
import fs from 'node:fs';

/** Reads an unsigned LEB128 at `p`: [value, next offset]. */
function leb(buf, p) {
  let v = 0;
  let shift = 0;
  for (;;) {
    if (p >= buf.length) throw new Error('wasm: a LEB128 runs past the end');
    const b = buf[p++];
    v += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return [v, p];
    shift += 7;
    if (shift > 35) throw new Error('wasm: a LEB128 over 5 bytes');
  }
}

function encodeLeb(v) {
  const out = [];
  do {
    let b = v & 0x7f;
    v = Math.floor(v / 128);
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

const encodeName = (s) => {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([encodeLeb(b.length), b]);
};

/** Skips an import's description (kind byte first): the offset after it. */
function skipDesc(buf, p) {
  const kind = buf[p++];
  const limits = (q) => {
    const flags = buf[q++];
    [, q] = leb(buf, q);
    if (flags & 1) [, q] = leb(buf, q);
    return q;
  };
  switch (kind) {
    case 0: // function: a type index
      return leb(buf, p)[1];
    case 1: // table: a reference type, then limits
      return limits(p + 1);
    case 2: // memory: limits
      return limits(p);
    case 3: // global: a value type and mutability
      return p + 2;
    case 4: // tag: an attribute and a type index
      return leb(buf, p + 1)[1];
    default:
      throw new Error(`wasm: import kind ${kind} not known`);
  }
}

/** The n-th short name: a … z, then aa, ab, … (base 26, no digits: any key works, these read well). */
function shortName(n) {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return s;
}

/**
 * Renames the imports of `module` (the glue's, `./<name>_bg.js`) in `wasm` (a Buffer) and in
 * `glue` (the glue's source text). Returns `{ wasm, glue, renamed }`.
 */
export function shortenImports(wasm, glue, module) {
  if (wasm.readUInt32LE(0) !== 0x6d736100) throw new Error('wasm: no \\0asm magic');
  let p = 8;
  while (p < wasm.length) {
    const id = wasm[p];
    const [size, body] = leb(wasm, p + 1);
    const end = body + size;
    if (end > wasm.length) throw new Error(`wasm: section ${id} runs past the end`);
    if (id !== 2) {
      p = end;
      continue;
    }
    const [count, first] = leb(wasm, body);
    const parts = [encodeLeb(count)];
    const renames = new Map();
    let q = first;
    for (let i = 0; i < count; i++) {
      const [ml, ms] = leb(wasm, q);
      const mod = wasm.toString('utf8', ms, ms + ml);
      const [nl, ns] = leb(wasm, ms + ml);
      const name = wasm.toString('utf8', ns, ns + nl);
      const descEnd = skipDesc(wasm, ns + nl);
      let newName = name;
      if (mod === module) {
        newName = renames.get(name) ?? shortName(renames.size);
        renames.set(name, newName);
      }
      parts.push(encodeName(mod), encodeName(newName), wasm.subarray(ns + nl, descEnd));
      q = descEnd;
    }
    if (q !== end) throw new Error(`wasm: the import section is ${size} bytes, its imports ${q - body}`);
    let text = glue;
    for (const [old, short] of renames) {
      // A key of the import object: `old: function(` (wasm-bindgen writes one per line).
      const key = new RegExp(`(^|[\\s,{])${old.replace(/\$/g, '\\$')}(\\s*:)`, 'g');
      const hits = text.match(key)?.length ?? 0;
      if (hits !== 1) throw new Error(`glue: the import ${old} is a key ${hits} times (1 expected)`);
      text = text.replace(key, `$1${short}$2`);
    }
    const section = Buffer.concat(parts);
    const out = Buffer.concat([
      wasm.subarray(0, p),
      Buffer.from([2]),
      encodeLeb(section.length),
      section,
      wasm.subarray(end),
    ]);
    return { wasm: out, glue: text, renamed: renames.size };
  }
  return { wasm, glue, renamed: 0 };
}

/** `shortenImports` on the files of a wasm-bindgen `--target web` output (`<name>_bg.wasm`, `<name>.js`). */
export function shortenImportFiles(wasmPath, jsPath, name) {
  const r = shortenImports(fs.readFileSync(wasmPath), fs.readFileSync(jsPath, 'utf8'), `./${name}_bg.js`);
  fs.writeFileSync(wasmPath, r.wasm);
  fs.writeFileSync(jsPath, r.glue);
  return r.renamed;
}
