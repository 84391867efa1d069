// Installs what the build and the tests need when it is missing. Idempotent; quick when all is present.
//   import { setup } from './setup.mjs'; await setup({ browser: true });
//   node scripts/setup.mjs [--browser]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, log, run, probe, isMain } from './lib.mjs';

export const WASM_BINDGEN_VERSION = '0.2.130';
export const WASM_TARGET = 'wasm32-unknown-unknown';
export const CHROMIUM = '/usr/bin/chromium';
/** The web server the hosting test starts (Debian's nginx-light). */
export const NGINX = '/usr/sbin/nginx';
/** The S3-compatible server the replay host's S3 test starts on loopback (crates.io `s3s-fs`). */
export const S3S_FS_VERSION = '0.14.1';
// The conformance check's Python reader (tests/conformance/) decompresses with PyPI's zstandard.
const PY_ZSTANDARD = 'zstandard==0.25.0';
const NPM_PACKAGES = [
  'playwright-core',
  'puppeteer-core',
  'selenium-webdriver',
  'binaryen',
  'esbuild',
  '@biomejs/biome',
  'typescript',
  'tsx',
  'madge',
  'dts-bundle-generator',
];

function cargoBin(name) {
  const home = process.env.CARGO_HOME ?? path.join(os.homedir(), '.cargo');
  return path.join(home, 'bin', name);
}

/** The wasm-bindgen executable to use (PATH first, then ~/.cargo/bin). */
export function wasmBindgenPath() {
  for (const cand of ['wasm-bindgen', cargoBin('wasm-bindgen')]) {
    const r = probe(cand, ['--version']);
    if (r.ok && r.stdout === `wasm-bindgen ${WASM_BINDGEN_VERSION}`) return cand;
  }
  return null;
}

async function ensureRust() {
  if (!probe('cargo', ['--version']).ok || !probe('rustup', ['--version']).ok) {
    throw new Error('cargo/rustup not found: install Rust with rustup (https://rustup.rs) and re-run');
  }
  const installed = probe('rustup', ['target', 'list', '--installed']).stdout.split('\n');
  // clippy and rustfmt are in rustup's default profile; a minimal one lacks them (the gates need both).
  const components = probe('rustup', ['component', 'list', '--installed']).stdout.split('\n');
  const missing = ['clippy', 'rustfmt'].filter((c) => !components.some((l) => l.startsWith(`${c}-`)));
  if (missing.length) await run('rustup', ['component', 'add', ...missing]);
  if (installed.includes(WASM_TARGET)) {
    log(`ok: rust target ${WASM_TARGET}`);
  } else {
    await run('rustup', ['target', 'add', WASM_TARGET]);
  }
}

async function ensureWasmBindgen() {
  if (wasmBindgenPath()) {
    log(`ok: wasm-bindgen ${WASM_BINDGEN_VERSION}`);
    return;
  }
  log(`installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (takes a few minutes)`);
  // No --locked: the published lock file of 0.2.130 does not build with current toolchains.
  await run('cargo', ['install', 'wasm-bindgen-cli', '--version', WASM_BINDGEN_VERSION]);
  if (!wasmBindgenPath()) {
    throw new Error(`wasm-bindgen ${WASM_BINDGEN_VERSION} still not found (is ~/.cargo/bin on PATH?)`);
  }
}

/** `s3s-fs` (an S3-compatible server over a directory) for crate/tests/host_s3.rs; ~4 minutes. */
async function ensureS3sFs() {
  for (const cand of ['s3s-fs', cargoBin('s3s-fs')]) {
    if (probe(cand, ['--help']).ok) {
      log('ok: s3s-fs');
      return;
    }
  }
  log(`installing s3s-fs ${S3S_FS_VERSION} (takes a few minutes)`);
  await run('cargo', ['install', 's3s-fs', '--version', S3S_FS_VERSION, '--features', 'binary']);
}

async function ensureNodeModules() {
  const missing = NPM_PACKAGES.filter((p) => !fs.existsSync(path.join(ROOT, 'node_modules', p, 'package.json')));
  if (missing.length === 0) {
    log('ok: node_modules');
    return;
  }
  log(`installing npm packages (missing: ${missing.join(', ')})`);
  const hasLock = fs.existsSync(path.join(ROOT, 'package-lock.json'));
  await run('npm', [hasLock ? 'ci' : 'install', '--no-audit', '--no-fund']);
}

/** apt-get update has run in this process. */
let aptUpdated = false;

/** Installs Debian packages with apt-get (root only; `hint` says what to do otherwise). */
async function aptGetInstall(packages, hint) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !fs.existsSync('/usr/bin/apt-get')) throw new Error(hint);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    await run('apt-get', ['update'], { env });
    aptUpdated = true;
  }
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env });
}

async function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) {
    log(`ok: ${CHROMIUM}`);
    return;
  }
  log('installing chromium with apt-get (takes a minute)');
  await aptGetInstall(
    ['chromium'],
    `${CHROMIUM} not found. Install Chromium (Debian/Ubuntu: sudo apt-get install -y chromium) and re-run.`,
  );
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} still missing after apt-get install`);
}

/** nginx, for tests/e2e/hosting.test.mjs (the documented replay host, started by the test itself). */
async function ensureNginx() {
  if (fs.existsSync(NGINX)) {
    log(`ok: ${NGINX}`);
    return;
  }
  log('installing nginx-light with apt-get');
  await aptGetInstall(
    ['nginx-light'],
    `${NGINX} not found. Install nginx (Debian/Ubuntu: sudo apt-get install -y nginx-light) and re-run.`,
  );
  if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} still missing after apt-get install`);
}

/** ffprobe / ffmpeg, for tests/e2e/video.test.mjs (Export → Video's WebM read back; Debian's ffmpeg). */
export const FFPROBE = '/usr/bin/ffprobe';
async function ensureFfmpeg() {
  if (fs.existsSync(FFPROBE)) {
    log(`ok: ${FFPROBE}`);
    return;
  }
  log('installing ffmpeg with apt-get');
  await aptGetInstall(
    ['ffmpeg'],
    `${FFPROBE} not found. Install ffmpeg (Debian/Ubuntu: sudo apt-get install -y ffmpeg) and re-run.`,
  );
  if (!fs.existsSync(FFPROBE)) throw new Error(`${FFPROBE} still missing after apt-get install`);
}

/** Firefox ESR, driven over WebDriver BiDi by puppeteer-core (tests/engines/). */
export const FIREFOX = '/usr/bin/firefox-esr';
/** WebKitGTK's WebDriver; it starts MiniBrowser (tests/engines/). */
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
/** The X server the Firefox and WebKit tests draw into (Firefox needs a real window for WebGL2). */
export const XVFB = '/usr/bin/Xvfb';
const ENGINE_PACKAGES = [
  [FIREFOX, 'firefox-esr'],
  [WEBKIT_DRIVER, 'webkit2gtk-driver'],
  [XVFB, 'xvfb'],
];

/** Firefox ESR, WebKitGTK's WebDriver (with MiniBrowser) and Xvfb, for tests/engines/. */
async function ensureEngines() {
  const missing = ENGINE_PACKAGES.filter(([file]) => !fs.existsSync(file));
  for (const [file] of ENGINE_PACKAGES.filter((e) => !missing.includes(e))) log(`ok: ${file}`);
  if (missing.length === 0) return;
  const pkgs = missing.map(([, pkg]) => pkg);
  log(`installing ${pkgs.join(', ')} with apt-get (takes a minute)`);
  await aptGetInstall(
    pkgs,
    `${missing.map(([f]) => f).join(', ')} not found. Install them (Debian/Ubuntu: sudo apt-get install -y ${pkgs.join(' ')}) and re-run.`,
  );
  const still = missing.filter(([file]) => !fs.existsSync(file));
  if (still.length) throw new Error(`${still.map(([f]) => f).join(', ')} still missing after apt-get install`);
}

/** python3 with the zstandard package, for the .flrep conformance check (tests/conformance/check.sh). */
async function ensurePythonZstandard() {
  if (probe('python3', ['-c', 'import zstandard']).ok) {
    log('ok: python3 zstandard');
    return;
  }
  if (!probe('python3', ['--version']).ok) {
    throw new Error(
      'python3 not found: install Python 3 (Debian/Ubuntu: apt-get install -y python3 python3-pip) and re-run',
    );
  }
  log(`installing ${PY_ZSTANDARD} for python3 (the conformance check's reader)`);
  await run('python3', ['-m', 'pip', 'install', '--quiet', PY_ZSTANDARD]);
  if (!probe('python3', ['-c', 'import zstandard']).ok) throw new Error('python3 still cannot import zstandard');
}

/** @param {{browser?: boolean}} opts  browser: also ensure Chromium, nginx, ffmpeg, Firefox ESR,
 *  WebKitWebDriver and Xvfb (for the browser tests). */
export async function setup({ browser = false } = {}) {
  // cargo install puts binaries in ~/.cargo/bin; make sure children see it.
  const bin = path.dirname(cargoBin('cargo'));
  if (!(process.env.PATH ?? '').split(path.delimiter).includes(bin)) {
    process.env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  }
  await ensureRust();
  await ensureNodeModules();
  await ensureWasmBindgen();
  await ensurePythonZstandard();
  await ensureS3sFs();
  if (browser) {
    await ensureChromium();
    await ensureNginx();
    await ensureFfmpeg();
    await ensureEngines();
  }
}

if (isMain(import.meta.url)) {
  setup({ browser: process.argv.includes('--browser') }).catch((e) => {
    console.error(`[replay-player] setup failed: ${e.message}`);
    process.exit(1);
  });
}
