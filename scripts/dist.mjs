// Writes dist/: what ships (served by npm start, the browser tests and the benches) from www/ (the
// readable source tree):
//   node scripts/dist.mjs      (also the last step of node scripts/build.mjs)
//
// The shell's modules ship bundled (esbuild, ESM with code splitting, minified): one file per entry
// (ENTRIES: what a page or a worker loads by URL: dist/main.js, dist/player.js, dist/embed.js,
// dist/element.js, dist/worker.js, ...; the embed forms' entries, EMBED_ENTRIES, in a build of
// their own) with its static imports inside, code that several entries share in a chunk file beside them
// (`chunk-<hash>.js`, loaded by their imports), and every `import('./x.js')` of a literal path its
// own chunk, loaded when it was before. Why: www/ keeps a module per concern, and gzipped one by one
// each file loses its share of the others' context (~200 bytes a file: ~4 KB of the first-load budget
// once player.js and worker.js were split along their seams; docs/performance-history.md "Download size").
// Every output sits at dist/'s root, as the entries do in www/, so a shipped file's URL is made
// against any module's own (lib/shipped.ts is the one that does it: the build fails on another).
// The glue in pkg/ is imported by a computed path and ships minified one file at a time; .css is minified; everything else (index.html, wasm, the demo replay,
// ...) is copied. Copies and the glue are incremental (rewritten when the source is newer or the
// esbuild version changed); the bundles are rebuilt every time (< 1 s); files gone from www/ are
// removed. sw.js (the service worker) is written last, with this build's version and file lists
// (serviceWorkerBuild()).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, log, since, isMain } from './lib.mjs';

export const WWW_DIR = path.join(ROOT, 'www');
export const DIST_DIR = path.join(ROOT, 'dist');
/** The modules loaded by URL: by index.html, by embed.html, by a host page (player.js, element.js), as workers. */
export const ENTRIES = [
  'main.js',
  'player.js',
  'embed.js',
  'element.js',
  'worker.js',
  'render-worker.js',
  'compare-worker.js',
  'export-worker.js',
];
/**
 * The embed forms' entries, bundled apart from the full page's (a second esbuild build): bundled
 * together, every module main.js shares with the embed UI (keyboard, marker layer, kill feed…)
 * would leave main.js for a chunk of its own, and the full page's first load would grow by each
 * chunk's lost gzip context (+1.8 KB measured). Apart, the player's inside ships twice in dist/
 * (once per build) and neither page downloads the other's.
 */
export const EMBED_ENTRIES = ['player.js', 'embed.js', 'element.js'];
/**
 * Entries bundled alone (a build each): the export worker (www/export-worker.ts) reads files with
 * worker.js's sources module; bundled with worker.js, that module would leave worker.js for a chunk
 * the two share, and the first load would pay for its lost gzip context.
 */
export const APART_ENTRIES = ['export-worker.js'];
/** Files of www/ that never ship: the TypeScript configs and each folder's README (its rule). */
const SOURCE_ONLY = /(^|\/)(tsconfig\.json|README\.md)$/;
/** Chunks esbuild writes beside the entries. */
const CHUNK = /^chunk-[A-Z0-9]+\.js$/;
const SW = 'sw.js';
/** Its source (TypeScript, transformed alone: not bundled). */
const SW_SRC = 'sw.ts';
/** The one module that reads import.meta.url (below). */
const SHIPPED = path.join('lib', 'shipped.ts');
/** Shipped files the service worker leaves alone: replays, build notes. */
const NOT_CACHED = [/^demo\//, /^pkg\/sizes\.json$/, /\.d\.ts$/];
/** Cached when first used, not on install: the WebGL2 renderer (~0.9 MB) most browsers never load, the
 *  exporter (its worker and wasm: the first Export),
 *  and the embed forms' page and stylesheet (their bundles: EMBED_ONLY). */
const LAZY = [
  /^pkg\/renderer_webgl\//,
  /^pkg\/decoder_export\//,
  /^export-worker\.js$/,
  /^embed\.html$/,
  /^player\.css$/,
];
/** dist/'s note of the files only the embed forms' build and the bundles apart wrote (the full page
 *  never loads them at its start: the service worker caches them on use). */
const EMBED_ONLY = '.embed-only.json';

/**
 * The BUILD constant of sw.js for the files of `out`: `version` hashes every file's path and
 * bytes (a new build is a new service worker and a new cache), `files` are cached on install,
 * `lazy` when first used. Paths are relative to the service worker's scope (the folder).
 */
export function serviceWorkerBuild(out = DIST_DIR) {
  const note = path.join(out, EMBED_ONLY);
  const embedOnly = new Set(fs.existsSync(note) ? JSON.parse(fs.readFileSync(note, 'utf8')) : []);
  const rels = walk(out)
    .map((r) => r.split(path.sep).join('/'))
    .filter((r) => r !== SW && !NOT_CACHED.some((re) => re.test(r)))
    .sort();
  const hash = crypto.createHash('sha256');
  for (const r of rels) hash.update(`${r}\0`).update(fs.readFileSync(path.join(out, r)));
  const lazy = rels.filter((r) => embedOnly.has(r) || LAZY.some((re) => re.test(r)));
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

/** The modules of www/ (source tree paths) the bundles are made of: every .ts outside pkg/. */
/** An entry's source: `main.js` (what ships) is made from `main.ts`. */
const source = (entry) => entry.replace(/\.js$/, '.ts');

function isModule(rel) {
  return path.extname(rel) === '.ts' && rel.split(path.sep)[0] !== 'pkg' && rel !== SW_SRC;
}

const PACKAGE_VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

/** esbuild: www/pkg/ imported from www/lib/ stays external, as dist/'s own './pkg/…'. */
const glueExternal = (src) => ({
  name: 'glue-external',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/pkg\// }, (a) => {
      if (path.relative(src, a.resolveDir) !== 'lib')
        return { errors: [{ text: `${a.path}: only www/lib/wasm.ts imports a wasm build's glue` }] };
      return { path: a.path.replace(/^\.\.\//, './'), external: true };
    });
  },
});

export async function buildDist({ src = WWW_DIR, out = DIST_DIR } = {}) {
  const t0 = performance.now();
  const esbuild = await import('esbuild');
  const stampFile = path.join(out, '.dist-stamp');
  const stamp = `esbuild ${esbuild.version}`;
  const fresh = !(fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp);
  const all = walk(src).filter((r) => !SOURCE_ONLY.test(r));
  const modules = all.filter(isModule);
  // Every output sits at dist/'s root, so a module's `import.meta.url` is dist/'s root wherever its
  // code lands; one module reads it (lib/shipped.ts), the rest ask it, so a move cannot break a URL.
  for (const rel of modules) {
    if (rel === SHIPPED || ENTRIES.map(source).includes(rel)) continue;
    const code = (await esbuild.transform(fs.readFileSync(path.join(src, rel), 'utf8'), { loader: 'ts', minify: true }))
      .code;
    if (/\bimport\.meta\b/.test(code))
      throw new Error(`www/${rel}: only ${SHIPPED} reads import.meta (its shippedUrl() gives a shipped file's URL)`);
  }
  fs.mkdirSync(out, { recursive: true });
  const build = (entries) =>
    esbuild.build({
      entryPoints: entries.map((e) => path.join(src, source(e))),
      outdir: out,
      outbase: src,
      bundle: true,
      splitting: true,
      format: 'esm',
      minify: true,
      legalComments: 'none',
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      metafile: true,
      logLevel: 'silent',
      // A stylesheet a lazily loaded module injects (uPlot's, www/features/analysis/plots.ts): imported as text.
      loader: { '.css': 'text' },
      // The glue (lib/wasm.ts imports '../pkg/<build>/<build>.js') is never bundled: it stays an
      // import of './pkg/…' beside the chunks, for a browser and for a site's bundler to follow.
      plugins: [glueExternal(src)],
      // The player's version (www/api/constants.ts VERSION), package.json's.
      define: { __REPLAY_PLAYER_VERSION__: JSON.stringify(PACKAGE_VERSION) },
    });
  const bundles = await Promise.all([
    build(ENTRIES.filter((e) => !EMBED_ENTRIES.includes(e) && !APART_ENTRIES.includes(e))),
    build(ENTRIES.filter((e) => EMBED_ENTRIES.includes(e))),
    ...APART_ENTRIES.map((e) => build([e])),
  ]);
  const outputs = (b) => Object.keys(b.metafile.outputs).map((o) => path.relative(out, o));
  const bundled = new Set(bundles.flatMap(outputs));
  // An entry bundled to nothing was dropped as free of side effects (package.json "sideEffects"
  // must name www/: esbuild reads it for the sources too).
  for (const e of ENTRIES)
    if (fs.statSync(path.join(out, e)).size === 0)
      throw new Error(`dist/${e} is empty: its imports were tree-shaken away`);
  const pageOutputs = new Set(outputs(bundles[0]));
  // The offline page (the full page) needs none of these: the service worker caches them on use.
  // ... and the chunks of the bundles apart (the export worker's zip stream): cached on use.
  const apartChunks = bundles
    .slice(2)
    .flatMap(outputs)
    .filter((r) => CHUNK.test(r));
  fs.writeFileSync(
    path.join(out, EMBED_ONLY),
    JSON.stringify([...outputs(bundles[1]), ...apartChunks].filter((r) => !pageOutputs.has(r))),
  );
  const keep = new Set([...all.filter((r) => !isModule(r) && r !== SW_SRC), ...bundled, SW]);
  let written = 0;
  for (const rel of all.filter((r) => !isModule(r) && r !== SW_SRC)) {
    const from = path.join(src, rel);
    const to = path.join(out, rel);
    if (!fresh && fs.existsSync(to) && fs.statSync(to).mtimeMs >= fs.statSync(from).mtimeMs) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const ext = path.extname(rel);
    if (ext === '.js' || ext === '.css') {
      const loader = ext === '.css' ? 'css' : 'js';
      const r = await esbuild.transform(fs.readFileSync(from, 'utf8'), {
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
  // Remove what www/ no longer has (old modules, chunks of an earlier build).
  let removed = 0;
  for (const rel of walk(out)) {
    if (keep.has(rel)) continue;
    fs.rmSync(path.join(out, rel));
    removed++;
  }
  removeEmptyDirs(out);
  if (fs.existsSync(path.join(src, SW_SRC))) {
    const code = fs.readFileSync(path.join(src, SW_SRC), 'utf8');
    const marker = "const BUILD = { version: 'dev', files: [], lazy: [] };";
    if (!code.includes(marker)) throw new Error(`${SW}: the BUILD line dist.mjs fills in is missing`);
    const filled = code.replace(marker, `const BUILD = ${JSON.stringify(serviceWorkerBuild(out))};`);
    const r = await esbuild.transform(filled, { loader: 'ts', minify: true, format: 'esm', legalComments: 'none' });
    fs.writeFileSync(path.join(out, SW), r.code);
  }
  fs.writeFileSync(stampFile, stamp);
  const chunks = [...bundled].filter((r) => CHUNK.test(r)).length;
  log(
    `dist/: ${ENTRIES.length} entries + ${chunks} chunk(s) bundled from ${modules.length} modules; ` +
      `${written} file(s) copied, ${removed} removed (${since(t0)})`,
  );
}

function removeEmptyDirs(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const sub = path.join(dir, e.name);
    removeEmptyDirs(sub);
    if (fs.readdirSync(sub).length === 0) fs.rmdirSync(sub);
  }
}

if (isMain(import.meta.url)) {
  buildDist().catch((e) => {
    console.error(`[replay-player] dist failed: ${e.message}`);
    process.exit(1);
  });
}
