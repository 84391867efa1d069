// Writes dist/: what ships (served by npm start, the browser tests and the benches) from www/ (the
// readable source tree):
//   node scripts/dist.mjs      (also the last step of node scripts/build.mjs)
// Every .js file (the shell's modules and the wasm-bindgen glue in pkg/) is minified on its own by
// esbuild's transform (format esm): no bundling, so file names and paths stay as they are, and
// dynamic import()s, new Worker(new URL('./worker.js', import.meta.url)) and the glue's
// new URL('x_bg.wasm', import.meta.url) keep working. .css is minified the same way; everything else
// (index.html, wasm, the demo replay, ...) is copied. Incremental: a file is rewritten only when its
// source is newer than its output (or the esbuild version changed); files gone from www/ are removed.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, since, isMain } from './lib.mjs';

export const WWW_DIR = path.join(ROOT, 'www');
export const DIST_DIR = path.join(ROOT, 'dist');

function walk(dir, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue; // build stamps
    const r = path.join(rel, e.name);
    if (e.isDirectory()) out.push(...walk(dir, r));
    else if (e.isFile()) out.push(r);
  }
  return out;
}

export async function buildDist({ src = WWW_DIR, out = DIST_DIR } = {}) {
  const t0 = performance.now();
  const esbuild = await import('esbuild');
  const stampFile = path.join(out, '.dist-stamp');
  const stamp = `esbuild ${esbuild.version}`;
  const fresh = !(fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp);
  const files = walk(src);
  const keep = new Set(files);
  let written = 0;
  for (const rel of files) {
    const from = path.join(src, rel);
    const to = path.join(out, rel);
    const st = fs.statSync(from);
    if (!fresh && fs.existsSync(to) && fs.statSync(to).mtimeMs >= st.mtimeMs) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const ext = path.extname(rel);
    if (ext === '.js' || ext === '.mjs' || ext === '.css') {
      const code = fs.readFileSync(from, 'utf8');
      const loader = ext === '.css' ? 'css' : 'js';
      const r = await esbuild.transform(code, {
        loader,
        minify: true,
        ...(loader === 'js' ? { format: 'esm' } : {}),
        legalComments: 'none',
        sourcefile: rel,
      });
      fs.writeFileSync(to, r.code);
    } else {
      fs.copyFileSync(from, to);
    }
    written++;
  }
  // Remove what www/ no longer has.
  let removed = 0;
  if (fs.existsSync(out)) {
    for (const rel of walk(out)) {
      if (keep.has(rel)) continue;
      fs.rmSync(path.join(out, rel));
      removed++;
    }
  }
  fs.writeFileSync(stampFile, stamp);
  log(`dist/: ${written} file(s) written, ${removed} removed, ${files.length - written} unchanged (${since(t0)})`);
}

if (isMain(import.meta.url)) {
  buildDist().catch((e) => {
    console.error(`[replay-player] dist failed: ${e.message}`);
    process.exit(1);
  });
}
