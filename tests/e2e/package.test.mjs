// The packed player (docs/embedding.md "Installing the package"): `npm pack` of the built tree makes
// a tarball that installs into a fresh directory with no network, whose `exports` resolve to the
// built files, and whose player renders on a host page that imports it from node_modules/ under a
// strict CSP (script-src 'self' 'wasm-unsafe-eval').
//   node scripts/dist.mjs && node --test tests/e2e/package.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { startServer, launchBrowser, collectConsole, ROOT, WWW } from './harness.mjs';
import { OUT, canvasShot, assertPicture } from './player-helpers.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-pack-'));
const site = path.join(tmp, 'site');
const installed = path.join(site, 'node_modules', pkg.name);
let tarball;
let packedInfo;

function npm(args, cwd) {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    // Its own cache: nothing from (or into) the user's, and --offline proves no download is needed.
    env: { ...process.env, npm_config_cache: path.join(tmp, 'npm-cache'), npm_config_update_notifier: 'false' },
  });
  assert.equal(r.status, 0, `npm ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(() => {
  assert.ok(fs.existsSync(path.join(WWW, 'player.js')), 'dist/ is not built: run node scripts/dist.mjs first');
  // (--ignore-scripts: the run built dist/ already; `npm pack` alone runs the prepack build.)
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', tmp], ROOT));
  packedInfo = packed[0];
  tarball = path.join(tmp, packed[0].filename);
  fs.mkdirSync(site);
  fs.writeFileSync(path.join(site, 'package.json'), JSON.stringify({ name: 'host-site', private: true }));
  npm(['install', '--offline', '--no-audit', '--no-fund', tarball], site);
});

after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('the tarball holds the built player and the declarations, nothing else of the repository', (t) => {
  const list = packedInfo.files.map((f) => f.path);
  t.diagnostic(
    `package: ${list.length} files, ${(packedInfo.size / 1024).toFixed(0)} KiB packed, ${(packedInfo.unpackedSize / 1024).toFixed(0)} KiB unpacked`,
  );
  // Publishable (docs/versions.md): not private, a prepack that builds it, what a registry shows.
  assert.equal(pkg.private, undefined, 'not private');
  assert.equal(pkg.scripts.prepack, 'node scripts/build.mjs', 'npm pack from a clean clone builds what it packs');
  for (const k of ['name', 'version', 'description', 'license', 'keywords', 'types', 'exports', 'sideEffects'])
    assert.ok(pkg[k], `package.json has ${k}`);
  assert.deepEqual(
    list.filter((f) => /\.(map|d\.ts)$/.test(f) && !f.startsWith('types/')),
    [],
    'no source map, no declaration but types/',
  );
  for (const f of ['dist/player.js', 'dist/worker.js', 'dist/render-worker.js', 'dist/index.html', 'dist/sw.js'])
    assert.ok(list.includes(f), `${f} is in the package`);
  assert.ok(
    list.some((f) => /^dist\/pkg\/decoder\/.*\.wasm$/.test(f)),
    'the decoder wasm is in the package',
  );
  assert.ok(list.includes('types/player.d.ts') && list.includes('types/element.d.ts'), 'the declarations');
  // Whatever dist/ holds at its root ships (element.js and embed.html once built).
  for (const f of fs.readdirSync(WWW).filter((f) => !f.startsWith('.')))
    if (fs.statSync(path.join(WWW, f)).isFile()) assert.ok(list.includes(`dist/${f}`), `dist/${f} is in the package`);
  const outside = list.filter(
    (f) => !/^(dist|types)\//.test(f) && !['package.json', 'README.md', 'CHANGELOG.md'].includes(f),
  );
  assert.deepEqual(outside, [], 'nothing but dist/, types/, package.json, the README and the CHANGELOG');
  assert.ok(!list.some((f) => /(^|\/)\.dist-stamp$/.test(f)), 'no build stamp');
});

test('installed: exports resolve to the built files, with types', () => {
  const exp = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).exports;
  assert.equal(exp['./player.js'].default, './dist/player.js');
  assert.equal(exp['./player.js'].types, './types/player.d.ts');
  // Every target that names one file exists in the installed package (dist/ is built: the
  // suite's first check), the element and embed.html among them.
  const named = [];
  for (const [key, target] of Object.entries(exp)) {
    const targets = typeof target === 'string' ? [target] : Object.values(target);
    for (const t of targets.filter((t) => !t.includes('*'))) {
      assert.ok(fs.existsSync(path.join(installed, t)), `${key} → ${t} exists in the installed package`);
      named.push(t);
    }
  }
  for (const t of ['./dist/player.js', './dist/element.js', './dist/embed.html', './types/player.d.ts'])
    assert.ok(named.includes(t), `the exports name ${t}`);
  // Node's resolver reads the exports map as a bundler would.
  fs.writeFileSync(
    path.join(site, 'resolve.mjs'),
    `const names = ${JSON.stringify([`${pkg.name}`, `${pkg.name}/player.js`, `${pkg.name}/worker.js`, `${pkg.name}/pkg/decoder/decoder_bg.wasm`])};
const out = {};
for (const n of names) out[n] = new URL(import.meta.resolve(n)).pathname;
const m = await import('${pkg.name}/player.js');
out.create = typeof m.create;
console.log(JSON.stringify(out));
`,
  );
  const r = spawnSync(process.execPath, ['resolve.mjs'], { cwd: site, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout);
  const rel = (p) => path.relative(installed, p).split(path.sep).join('/');
  assert.equal(rel(got[pkg.name]), 'dist/player.js');
  assert.equal(rel(got[`${pkg.name}/player.js`]), 'dist/player.js');
  assert.equal(rel(got[`${pkg.name}/worker.js`]), 'dist/worker.js');
  assert.equal(rel(got[`${pkg.name}/pkg/decoder/decoder_bg.wasm`]), 'dist/pkg/decoder/decoder_bg.wasm');
  assert.equal(got.create, 'function', 'player.js exports create()');
});

test('a host page imports player.js from node_modules/ and its player renders (strict CSP)', async () => {
  const dir = `node_modules/${pkg.name}/dist`;
  fs.writeFileSync(
    path.join(site, 'index.html'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="host.css"><script type="module" src="host.js"></script></head>
<body><h1>A site</h1><div id="replay"></div></body></html>
`,
  );
  fs.writeFileSync(
    path.join(site, 'host.css'),
    'body { margin: 0; background: #fff; } #replay { position: relative; width: 800px; height: 450px; }\n',
  );
  fs.writeFileSync(
    path.join(site, 'host.js'),
    `import { create } from './${dir}/player.js';
window.__player = create('./${dir}/demo/demo.flrep', document.getElementById('replay'), { t: 4 });
`,
  );
  const srv = await startServer({
    root: site,
    headers: { 'Content-Security-Policy': "script-src 'self' 'wasm-unsafe-eval'" },
  });
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    const csp = [];
    page.on('console', (m) => /Content Security Policy/i.test(m.text()) && csp.push(m.text()));
    await page.goto(srv.url);
    await page.waitForFunction(
      () => window.__player.diagnostics.snapshot().ready || window.__player.diagnostics.snapshot().error,
      null,
      {
        timeout: 60_000,
      },
    );
    const s = await page.evaluate(() => window.__player.diagnostics.snapshot());
    assert.equal(s.error, null, `no error (${s.error})`);
    assert.ok(Math.abs(s.time - 4) < 0.1, `opened at t=4 (${s.time})`);
    fs.mkdirSync(OUT, { recursive: true });
    const shot = await canvasShot(page, path.join(OUT, 'package-host.png'));
    assertPicture(shot, 'installed package');
    // Every file the page and its workers fetched came from the installed package.
    const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    for (const u of fetched.filter((u) => u.startsWith(srv.url) && !/\/host\.(js|css)$/.test(u)))
      assert.ok(new URL(u).pathname.startsWith(`/${dir}/`), `${u} is the package's`);
    assert.deepEqual(csp, [], 'no CSP violations');
    log.assertClean();
  } finally {
    await browser.close();
    await srv.close();
  }
});

// A site that takes the package through a bundler (docs/embedding.md "In a bundler"): a fresh Vite
// app made here imports `create` from 'replay-player' and builds (the project's own Vite, run in the
// app's folder: the app's node_modules holds only the installed tarball). The built app, served
// from its own origin, plays the demo with the workers, the glue, the .wasm and player.css that the
// bundler found and emitted under its assets/ (no file of node_modules/ is served).
test('a Vite app imports create from the package, builds, and its built page plays the demo', async () => {
  const app = path.join(tmp, 'vite-app');
  fs.mkdirSync(path.join(app, 'public'), { recursive: true });
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'vite-site', private: true, type: 'module' }),
  );
  npm(['install', '--offline', '--no-audit', '--no-fund', tarball], app);
  fs.copyFileSync(path.join(installed, 'dist', 'demo', 'demo.flrep'), path.join(app, 'public', 'demo.flrep'));
  fs.writeFileSync(
    path.join(app, 'index.html'),
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vite site</title><link rel="icon" href="data:,"></head>
<body style="margin:0"><div id="replay" style="position:relative;width:800px;height:450px"></div>
<script type="module" src="/main.ts"></script></body></html>
`,
  );
  // TypeScript, as a site writes it: the package's declarations type it.
  fs.writeFileSync(
    path.join(app, 'main.ts'),
    `import { create, VERSION, READS, type Player } from 'replay-player';
const el = document.getElementById('replay');
if (!el) throw new Error('no #replay');
const player: Player = create('/demo.flrep', el, { t: 4 });
const major: number = READS.flrep.major;
Object.assign(window, { __player: player, __version: [VERSION, player.version, major] });
`,
  );
  const vite = path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: app, encoding: 'utf8' });
  assert.equal(built.status, 0, `vite build failed:\n${built.stdout}\n${built.stderr}`);
  const out = path.join(app, 'dist');
  const assets = fs.readdirSync(path.join(out, 'assets'));
  for (const want of [
    /^worker-.*\.js$/,
    /^render-worker-.*\.js$/,
    /^decoder_bg-.*\.wasm$/,
    /^renderer_bg-.*\.wasm$/,
    /^player-.*\.css$/,
  ])
    assert.ok(
      assets.some((a) => want.test(a)),
      `the build emitted ${want} (${assets.join(', ')})`,
    );

  const srv = await startServer({
    root: out,
    headers: { 'Content-Security-Policy': "script-src 'self' 'wasm-unsafe-eval'" },
  });
  const browser = await launchBrowser({ webgpu: true });
  try {
    const page = await browser.newPage();
    const log = collectConsole(page);
    const failed = [];
    page.on('response', (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
    await page.goto(srv.url);
    await page.waitForFunction(
      () => window.__player?.diagnostics.snapshot().ready || window.__player?.diagnostics.snapshot().error,
      null,
      { timeout: 60_000 },
    );
    const s = await page.evaluate(() => window.__player.diagnostics.snapshot());
    assert.equal(s.error, null, `no error (${s.error})`);
    assert.equal(s.backend, 'webgpu', 'the WebGPU build, found by the bundler');
    assert.equal(s.renderInWorker, true, 'drawn in the render worker the bundler emitted');
    assert.ok(Math.abs(s.time - 4) < 0.1, `opened at t=4 (${s.time})`);
    assert.deepEqual(
      await page.evaluate(() => window.__version),
      [pkg.version, pkg.version, 1],
      'the version a site sees',
    );
    fs.mkdirSync(OUT, { recursive: true });
    assertPicture(await canvasShot(page, path.join(OUT, 'package-vite.png')), 'the Vite app');
    assert.deepEqual(failed, [], 'nothing the player asked for was missing');
    const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    const workers = page.workers().map((w) => new URL(w.url()).pathname);
    assert.ok(
      workers.some((w) => /^\/assets\/worker-.*\.js$/.test(w)),
      `the decoder worker is the build's: ${workers}`,
    );
    assert.ok(
      workers.some((w) => /^\/assets\/render-worker-.*\.js$/.test(w)),
      `the render worker too: ${workers}`,
    );
    for (const u of fetched.filter((u) => u.startsWith(srv.url)))
      assert.ok(/^\/(assets\/|demo\.flrep$)/.test(new URL(u).pathname), `${u} is one of the build's files`);
    log.assertClean();
  } finally {
    await browser.close();
    await srv.close();
  }

  // The same consumer type-checks strictly under both resolutions a site uses.
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const [moduleResolution, module] of [
    ['bundler', 'esnext'],
    ['node16', 'node16'],
  ]) {
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          lib: ['es2022', 'dom'],
          module,
          moduleResolution,
        },
        files: ['main.ts'],
      }),
    );
    const r = spawnSync(process.execPath, [tsc, '-p', app], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc --strict (${moduleResolution}) on the Vite app:\n${r.stdout}\n${r.stderr}`);
  }
});
