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
//
// One exception (PRIVATE below): a module whose inside is split into files of its own folder
// (www/player.js and www/player/) ships as one file, dist/player.js, with the folder's modules
// bundled in (esbuild, every import that leaves the folder kept as an import): each file gzipped
// alone loses its share of the others' context (~200 bytes a file), and those files are imported by
// nothing else. A private module may not use import() or import.meta (its paths would change), and
// no other module may import one (it is not shipped); both fail the build.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, since, isMain } from './lib.mjs';

export const WWW_DIR = path.join(ROOT, 'www');
export const DIST_DIR = path.join(ROOT, 'dist');
/** Modules shipped with their private folder bundled in: entry file → folder (paths in www/). */
export const PRIVATE = { 'player.js': 'player' };

const inFolder = (rel, folder) => rel.startsWith(`${folder}${path.sep}`);
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;

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
  const all = walk(src);
  const folders = Object.values(PRIVATE);
  const files = all.filter((rel) => !folders.some((f) => inFolder(rel, f)));
  const keep = new Set(files);
  let written = 0;
  for (const rel of files) {
    if (rel === SW) continue;
    const from = path.join(src, rel);
    const to = path.join(out, rel);
    const folder = PRIVATE[rel];
    // A bundle is as new as the newest of its entry and its folder's files.
    const mtime = Math.max(
      fs.statSync(from).mtimeMs,
      ...(folder ? all.filter((r) => inFolder(r, folder)).map((r) => fs.statSync(path.join(src, r)).mtimeMs) : []),
    );
    if (!fresh && fs.existsSync(to) && fs.statSync(to).mtimeMs >= mtime) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const ext = path.extname(rel);
    if (folder) {
      fs.writeFileSync(to, await bundlePrivate(esbuild, src, rel, folder, all));
    } else if (ext === '.js' || ext === '.mjs' || ext === '.css') {
      const code = fs.readFileSync(from, 'utf8');
      const loader = ext === '.css' ? 'css' : 'js';
      const r = await esbuild.transform(code, {
        loader,
        minify: true,
        ...(loader === 'js' ? { format: 'esm' } : {}),
        legalComments: 'none',
        sourcefile: rel,
      });
      if (loader === 'js') refusePrivateImports(r.code, rel, folders);
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
  for (const f of folders) {
    const dir = path.join(out, f);
    if (fs.existsSync(dir) && walk(dir).length === 0) fs.rmSync(dir, { recursive: true });
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

/** `rel` (minified, comments gone) must not import a module of a private folder: it is not shipped. */
function refusePrivateImports(code, rel, folders) {
  for (const m of code.matchAll(SPECIFIERS)) {
    const target = path.join(path.dirname(rel), m[1]);
    const folder = folders.find((f) => inFolder(target, f));
    if (folder)
      throw new Error(`${rel} imports ${m[1]}: the modules of www/${folder}/ ship inside www/${folder}.js only`);
  }
}

/** dist's `rel` (an entry of PRIVATE): the entry with the modules of `folder` bundled in, minified;
 *  imports leaving the folder stay imports, their paths relative to the entry. */
async function bundlePrivate(esbuild, src, rel, folder, all) {
  const folderAbs = path.join(src, folder);
  for (const r of all.filter((x) => inFolder(x, folder))) {
    if (path.extname(r) !== '.js') throw new Error(`www/${r}: only .js modules belong in www/${folder}/`);
    const code = (await esbuild.transform(fs.readFileSync(path.join(src, r), 'utf8'), { minify: true })).code;
    if (/\bimport\s*\(|\bimport\.meta\b/.test(code))
      throw new Error(`www/${r}: a module of www/${folder}/ may not use import() or import.meta (its paths change)`);
  }
  const entry = path.join(src, rel);
  const r = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'private-folder',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (a) => {
            if (a.kind === 'entry-point') return undefined;
            const abs = path.resolve(a.resolveDir, a.path);
            if (abs.startsWith(`${folderAbs}${path.sep}`)) return undefined;
            const to = path.relative(path.dirname(entry), abs).split(path.sep).join('/');
            return { path: to.startsWith('.') ? to : `./${to}`, external: true };
          });
        },
      },
    ],
  });
  return r.outputFiles[0].text;
}

if (isMain(import.meta.url)) {
  buildDist().catch((e) => {
    console.error(`[replay-player] dist failed: ${e.message}`);
    process.exit(1);
  });
}
