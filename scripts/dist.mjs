// Writes dist/: what ships (served by npm start, the browser tests and the benches) from www/ (the
// readable source tree):
//   node scripts/dist.mjs      (also the last step of node scripts/build.mjs)
// Every .js file (the shell's modules and the wasm-bindgen glue in pkg/) is minified on its own by
// esbuild's transform (format esm): no bundling, so file names and paths stay as they are, and
// dynamic import()s, new Worker(new URL('./worker.js', import.meta.url)) and the glue's
// new URL('x_bg.wasm', import.meta.url) keep working. .css is minified the same way; everything else
// (index.html, wasm, the demo replay, ...) is copied. Incremental: a file is rewritten only when its
// source is newer than its output (or the esbuild version changed); files gone from www/ are removed.
// sw.js (the service worker) is written last, with this build's version and file lists
// (serviceWorkerBuild()).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, since, isMain } from './lib.mjs';

export const WWW_DIR = path.join(ROOT, 'www');
export const DIST_DIR = path.join(ROOT, 'dist');
const SW = 'sw.js';
/** Shipped files the service worker leaves alone: replays, build notes. */
const NOT_CACHED = [/^demo\//, /^pkg\/sizes\.json$/];
/** Cached when first used, not on install: the WebGL2 renderer (~0.9 MB) most browsers never load. */
const LAZY = [/^pkg\/renderer_webgl\//];

/**
 * The BUILD constant of sw.js for the files of `out`: `version` hashes every file's path and
 * bytes (a new build is a new service worker and a new cache), `files` are cached on install,
 * `lazy` when first used. Paths are relative to the service worker's scope (the folder).
 */
export function serviceWorkerBuild(out = DIST_DIR) {
  const rels = walk(out)
    .map((r) => r.split(path.sep).join('/'))
    .filter((r) => r !== SW && !NOT_CACHED.some((re) => re.test(r)))
    .sort();
  const hash = crypto.createHash('sha256');
  for (const r of rels) hash.update(`${r}\0`).update(fs.readFileSync(path.join(out, r)));
  const lazy = rels.filter((r) => LAZY.some((re) => re.test(r)));
  const files = rels.filter((r) => !lazy.includes(r));
  return { version: hash.digest('hex').slice(0, 16), files, lazy };
}

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
    if (rel === SW) continue;
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
  if (fs.existsSync(path.join(src, SW))) {
    const code = fs.readFileSync(path.join(src, SW), 'utf8');
    const marker = "const BUILD = { version: 'dev', files: [], lazy: [] };";
    if (!code.includes(marker)) throw new Error(`${SW}: the BUILD line dist.mjs fills in is missing`);
    const filled = code.replace(marker, `const BUILD = ${JSON.stringify(serviceWorkerBuild(out))};`);
    const r = await esbuild.transform(filled, { loader: 'js', minify: true, format: 'esm', legalComments: 'none' });
    fs.writeFileSync(path.join(out, SW), r.code);
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
