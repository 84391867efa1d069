// Download size of the player, and where the bytes of a wasm module go.
//
//   node tests/bench/wasm-sizes.mjs                 every artefact in dist/pkg (gzip -9), then what a
//                                                   WebGPU browser downloads to play the demo .flrep,
//                                                   measured from Chromium's network log (page +
//                                                   worker requests; each file sized as gzip -9),
//                                                   against the 250 KB goal. dist/ is what ships (www/
//                                                   minified, scripts/dist.mjs; run the build first)
//   node tests/bench/wasm-sizes.mjs --no-browser    the same from files only (the .flrep session's
//                                                   set: the shell's static imports + decoder + renderer)
//   node tests/bench/wasm-sizes.mjs <module.wasm> [top=25]
//       code bytes per crate (from the "name" section of cargo's output, before wasm-bindgen/wasm-opt
//       strip it), plus data. Proportions carry over to the optimised module only roughly (wasm-opt
//       inlines and removes), so it names the big contributors. E.g.
//       target/web/wasm32-unknown-unknown/release/replay_player.wasm (the last decoder build).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const GOAL_KB = 250;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WWW = path.join(ROOT, 'dist');
const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;

if (!process.argv[2] || process.argv[2].startsWith('--')) {
  await downloadSizes({ browser: !process.argv.includes('--no-browser') });
  process.exit(0);
}

/** The files a page module graph loads statically, following `import … from './x.js'` (not import()); minified or not. */
function staticGraph(entry) {
  const seen = new Set();
  const visit = (f) => {
    if (seen.has(f) || !fs.existsSync(f)) return;
    seen.add(f);
    const src = fs.readFileSync(f, 'utf8');
    for (const m of src.matchAll(/(?:^|[;\s}])import\s*(?:[^'"();]*?from\s*)?['"](\.[^'"]+)['"]/g))
      visit(path.resolve(path.dirname(f), m[1]));
  };
  visit(entry);
  return [...seen];
}

async function downloadSizes({ browser }) {
  const sizes = JSON.parse(fs.readFileSync(path.join(WWW, 'pkg', 'sizes.json'), 'utf8'));
  console.log('| artefact | wasm raw / gz | JS glue raw / gz | gz total |\n|---|---|---|---|');
  for (const [name, e] of Object.entries(sizes)) {
    const t = (e.wasm?.gzip ?? 0) + (e.js?.gzip ?? 0);
    console.log(
      `| ${name} | ${e.wasm?.raw ?? '-'} / ${e.wasm?.gzip ?? '-'} | ${e.js?.raw ?? '-'} / ${e.js?.gzip ?? '-'} | ${kb(t)} |`,
    );
  }
  let files;
  let how;
  if (browser) {
    files = await measureSession();
    how = 'Chromium network log, WebGPU, demo.flrep until the first frame + 3 s of playback';
  } else {
    const shell = ['index.html', 'style.css', 'favicon.svg', 'worker.js', 'bridge/decoder.ts'].map((f) =>
      path.join(WWW, f),
    );
    files = [
      ...new Set([
        ...shell,
        ...staticGraph(path.join(WWW, 'main.js')),
        ...staticGraph(path.join(WWW, 'worker.js')),
        ...['decoder/decoder.js', 'decoder/decoder_bg.wasm', 'renderer/renderer.js', 'renderer/renderer_bg.wasm'].map(
          (f) => path.join(WWW, 'pkg', f),
        ),
      ]),
    ];
    how = "from files: the shell's static imports + the .flrep decoder + the WebGPU renderer";
  }
  const rows = files
    .map((f) => ({ f: path.relative(WWW, f), raw: fs.statSync(f).size, gz: gz(fs.readFileSync(f)) }))
    .sort((a, b) => b.gz - a.gz);
  const group = (r) =>
    r.f.startsWith('pkg/decoder') ? 'decoder' : r.f.startsWith('pkg/renderer') ? 'renderer' : 'shell';
  console.log(`\nWhat a WebGPU .flrep session downloads (${how}); the replay's own byte ranges not counted:\n`);
  console.log('| file | raw | gzip -9 |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.f} | ${r.raw} | ${r.gz} |`);
  const by = {};
  for (const r of rows) by[group(r)] = (by[group(r)] ?? 0) + r.gz;
  const total = rows.reduce((a, r) => a + r.gz, 0);
  console.log(
    `\ndecoder ${kb(by.decoder ?? 0)} + renderer ${kb(by.renderer ?? 0)} + shell ${kb(by.shell ?? 0)} = ${kb(total)} gzipped`,
  );
  // The goal counts JS + wasm, as the download-budget test does (tests/e2e/shipping.test.mjs); the
  // HTML, CSS and icon are listed above but not in it.
  const code = rows.filter((r) => /\.(m?js|wasm)$/.test(r.f)).reduce((a, r) => a + r.gz, 0);
  const met = code <= GOAL_KB * 1000;
  const margin = met ? `${kb(GOAL_KB * 1000 - code)} to spare` : `${kb(code - GOAL_KB * 1000)} over`;
  console.log(`JS + wasm ${kb(code)}: goal <= ${GOAL_KB} KB ${met ? 'met' : 'NOT met'} (${margin})`);
}

/** Plays the demo in Chromium (WebGPU) and lists every file of dist/ the page and its worker fetched. */
async function measureSession() {
  const { startServer, launchBrowser } = await import('../e2e/harness.mjs');
  const srv = await startServer({ root: WWW });
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    const urls = new Set();
    page.on('request', (r) => urls.add(r.url()));
    await page.goto(srv.url, { waitUntil: 'load' });
    await page.waitForFunction(
      () =>
        window.__player &&
        (window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error),
      null,
      { timeout: 120_000 },
    );
    const st = await page.evaluate(() => ({
      ready: window.__player.diagnostics.snapshot().ready,
      error: window.__player.diagnostics.snapshot().error,
      backend: window.__player.diagnostics.snapshot().backend,
    }));
    if (!st.ready) throw new Error(`the demo did not open: ${st.error}`);
    if (st.backend !== 'webgpu') console.log(`warning: the backend is ${st.backend}, not webgpu`);
    await page.evaluate(() => window.__player.play());
    await page.waitForTimeout(3000);
    // Worker fetches (module imports, wasm) as the worker saw them, in case the page log lacks them.
    for (const list of [
      await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)),
      ...(await Promise.all(
        page.workers().map((w) => w.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name))),
      )),
    ]) {
      for (const u of list) urls.add(u);
    }
    const files = new Set();
    for (const u of urls) {
      const url = new URL(u);
      if (url.origin !== new URL(srv.url).origin) continue;
      let p = decodeURIComponent(url.pathname);
      if (p.endsWith('/')) p += 'index.html';
      const f = path.join(WWW, p);
      if (!f.startsWith(WWW) || f.endsWith('.flrep') || !fs.existsSync(f)) continue;
      files.add(f);
    }
    return [...files];
  } finally {
    await browser.close();
    await srv.close();
  }
}

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
  if (d.startsWith('replay_player::'))
    return d
      .split('::')
      .slice(0, d.split('::')[1] === 'format' || d.split('::')[1] === 'web' ? 3 : 2)
      .join('::');
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
console.log(`sections: ${sections.map(([l, s]) => `${l} ${s}`).join(', ')}`);
console.log('\n| crate (by function names) | code bytes | share of code |\n|---|---|---|');
const code = bodies.reduce((a, b) => a + b, 0);
for (const [c, s] of [...byCrate].sort((a, b) => b[1] - a[1]).slice(0, TOP))
  console.log(`| ${c} | ${s} | ${((100 * s) / code).toFixed(1)}% |`);
console.log('\nbiggest functions:');
for (const [s, n] of fns.sort((a, b) => b[0] - a[0]).slice(0, 12)) console.log(`  ${s}  ${n.slice(0, 140)}`);
