// Where the bytes of a wasm module go: code bytes per crate (from the "name" section of cargo's
// output, before wasm-bindgen/wasm-opt strip it), plus data. Proportions carry over to the
// optimised module only roughly (wasm-opt inlines and removes), so it names the big contributors.
//
//   node tests/bench/wasm-sizes.mjs target/wasm32-unknown-unknown/release/replay_player.wasm [top=25]
import fs from 'node:fs';

const file = process.argv[2];
const TOP = Number(process.argv[3] ?? 25);
const buf = fs.readFileSync(file);
let at = 8;
function uleb() {
  let r = 0;
  let s = 0;
  for (;;) {
    const b = buf[at++];
    r += (b & 0x7f) * 2 ** s;
    s += 7;
    if (!(b & 0x80)) return r;
  }
}
function str() {
  const n = uleb();
  const s = buf.toString('utf8', at, at + n);
  at += n;
  return s;
}
let importedFuncs = 0;
const bodies = [];
const names = new Map();
const sections = [];
while (at < buf.length) {
  const id = buf[at++];
  const size = uleb();
  const start = at;
  const end = at + size;
  let label = String(id);
  if (id === 0) {
    const name = str();
    label = `custom:${name}`;
    if (name === 'name') {
      while (at < end) {
        const sub = buf[at++];
        const sz = uleb();
        const subEnd = at + sz;
        if (sub === 1) {
          const n = uleb();
          for (let i = 0; i < n; i++) {
            const idx = uleb();
            names.set(idx, str());
          }
        }
        at = subEnd;
      }
    }
  } else if (id === 2) {
    label = 'import';
    const n = uleb();
    for (let i = 0; i < n; i++) {
      str();
      str();
      const kind = buf[at++];
      if (kind === 0) {
        uleb();
        importedFuncs++;
      } else if (kind === 1) {
        at++;
        const f = uleb();
        uleb();
        if (f & 1) uleb();
      } else if (kind === 2) {
        const f = uleb();
        uleb();
        if (f & 1) uleb();
      } else if (kind === 3) {
        at += 2;
      } else {
        uleb();
      }
    }
  } else if (id === 10) {
    label = 'code';
    const n = uleb();
    for (let i = 0; i < n; i++) {
      const sz = uleb();
      bodies.push(sz);
      at += sz;
    }
  } else if (id === 11) label = 'data';
  sections.push([label, size]);
  at = end;
}
function demangle(n) {
  // Legacy Rust mangling: _ZN<len><ident>...E; v0 (_R) is left alone.
  if (!n.startsWith('_ZN')) return n;
  const parts = [];
  let i = 3;
  while (i < n.length && n[i] !== 'E') {
    let j = i;
    while (n[j] >= '0' && n[j] <= '9') j++;
    const len = Number(n.slice(i, j));
    if (!len) break;
    parts.push(n.slice(j, j + len));
    i = j + len;
  }
  return parts.join('::');
}
function crateOf(name) {
  if (name.startsWith('_R')) {
    // v0 mangling: the first crate root is C<disambiguator>_<len><ident> (or C<len><ident>).
    const m = /C(?:s[0-9A-Za-z]*_)?(\d+)([A-Za-z_][0-9A-Za-z_]*)/.exec(name);
    if (m) return m[2].slice(0, Number(m[1]));
  }
  let d = demangle(name);
  if (d.startsWith('replay_player::')) return d.split('::').slice(0, d.split('::')[1] === 'format' || d.split('::')[1] === 'web' ? 3 : 2).join('::');
  const impl = /^_<(?:impl )?([^ >]+)/.exec(d) ?? /^<([^ >]+)/.exec(d);
  if (impl) d = impl[1];
  d = d.replace(/^_?\$LT\$/, '').replace(/^\.\./, '');
  const c = d.split(/::|\$u20\$|\.\./)[0];
  return c || name;
}
const byCrate = new Map();
const fns = [];
bodies.forEach((sz, i) => {
  const n = names.get(i + importedFuncs) ?? `func[${i + importedFuncs}]`;
  const c = crateOf(n);
  byCrate.set(c, (byCrate.get(c) ?? 0) + sz);
  fns.push([sz, demangle(n)]);
});
const total = buf.length;
console.log(`${file}: ${total} bytes, ${bodies.length} functions (${names.size} named)`);
console.log('sections: ' + sections.map(([l, s]) => `${l} ${s}`).join(', '));
console.log('\n| crate (by function names) | code bytes | share of code |\n|---|---|---|');
const code = bodies.reduce((a, b) => a + b, 0);
for (const [c, s] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`| ${c} | ${s} | ${((100 * s) / code).toFixed(1)}% |`);
console.log('\nbiggest functions:');
for (const [s, n] of fns.sort((a, b) => b[0] - a[0]).slice(0, 12)) console.log(`  ${s}  ${n.slice(0, 140)}`);
