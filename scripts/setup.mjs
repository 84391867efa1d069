// Installs what the build and the tests need when it is missing. Idempotent; quick when all is present.
//   import { setup } from './setup.mjs'; await setup({ browser: true });
//   node scripts/setup.mjs [--browser]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, lane, log, run, probe, isMain } from './lib.mjs';
import { linkTargetCache } from './cache.mjs';

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
  'vite',
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
  await run('cargo', ['install', 'wasm-bindgen-cli', '--version', WASM_BINDGEN_VERSION, ...INSTALL_DIR]);
  if (!wasmBindgenPath()) {
    throw new Error(`wasm-bindgen ${WASM_BINDGEN_VERSION} still not found (is ~/.cargo/bin on PATH?)`);
  }
}

/** The cargo installs build in one target directory, one after another: what they share (serde,
 *  clap, syn, tokio…) is compiled once. Kept between runs under ~/.cache (a reinstall is quick). */
const INSTALL_DIR = [
  '--target-dir',
  path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'replay-player', 'cargo-install'),
];

/** The nightly toolchain and cargo-fuzz, for npm test's fuzz smoke pass (scripts/fuzz.sh). */
async function ensureCargoFuzz() {
  if (
    !probe('rustup', ['toolchain', 'list'])
      .stdout.split('\n')
      .some((l) => l.startsWith('nightly'))
  ) {
    log('installing the nightly toolchain (libFuzzer needs -Z flags)');
    await run('rustup', ['toolchain', 'install', 'nightly', '--profile', 'minimal']);
  }
  if (probe('cargo', ['+nightly', 'fuzz', '--version']).ok) {
    log('ok: cargo-fuzz');
    return;
  }
  log('installing cargo-fuzz');
  await run('cargo', ['install', 'cargo-fuzz', '--locked', ...INSTALL_DIR]);
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
  await run('cargo', ['install', 's3s-fs', '--version', S3S_FS_VERSION, '--features', 'binary', ...INSTALL_DIR]);
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

/** ffprobe / ffmpeg, for tests/e2e/video.test.mjs (Export → Video's WebM read back; Debian's ffmpeg). */
export const FFPROBE = '/usr/bin/ffprobe';
/** Firefox ESR, driven over WebDriver BiDi by puppeteer-core (tests/engines/). */
export const FIREFOX = '/usr/bin/firefox-esr';
/** WebKitGTK's WebDriver; it starts MiniBrowser (tests/engines/). */
export const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver';
/** The X server the Firefox and WebKit tests draw into (Firefox needs a real window for WebGL2). */
export const XVFB = '/usr/bin/Xvfb';

/** The Debian packages the browser tests use: the file each gives, the package. */
const DEBIAN_PACKAGES = [
  [CHROMIUM, 'chromium'],
  [NGINX, 'nginx-light'],
  [FFPROBE, 'ffmpeg'],
  [FIREFOX, 'firefox-esr'],
  [WEBKIT_DRIVER, 'webkit2gtk-driver'],
  [XVFB, 'xvfb'],
];

/** Chromium, nginx, ffmpeg, Firefox ESR, WebKitGTK's WebDriver (with MiniBrowser) and Xvfb: the
 *  missing ones in one apt-get. */
async function ensureDebianPackages() {
  const missing = DEBIAN_PACKAGES.filter(([file]) => !fs.existsSync(file));
  for (const [file] of DEBIAN_PACKAGES.filter((e) => !missing.includes(e))) log(`ok: ${file}`);
  if (missing.length === 0) return;
  const pkgs = missing.map(([, pkg]) => pkg);
  log(`installing ${pkgs.join(', ')} with apt-get (takes a minute or two)`);
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

/**
 * Installs what is missing; resolves once all is there.
 * @param {{browser?: boolean, fuzz?: boolean}} opts  browser: also the Debian packages of the
 *  browser tests (Chromium, nginx, ffmpeg, Firefox ESR, WebKitWebDriver, Xvfb); fuzz: the nightly
 *  toolchain and cargo-fuzz. See startSetup() for the order.
 */
export async function setup(opts = {}) {
  const s = await startSetup(opts);
  await Promise.all(Object.values(s));
}

/**
 * Starts the installs; resolves once the quick ones are done (the Rust target, the npm packages,
 * PyPI's zstandard: what the gates and every build need), with a promise for each slow one, still
 * going in a lane of its own: `debian` (one apt-get: only the browser tests wait for it) and the
 * cargo installs one after another (sharing a target directory), `wasmBindgen` (the wasm builds'
 * bindgen step waits for it), `s3sFs` (the run of cargo test's S3 test), `cargoFuzz` (the fuzz
 * smoke pass), `acmiVenv` (PyPI pyacmi: the ACMI read-back and the browser export test). npm test
 * compiles while they install (scripts/test.mjs).
 */
export async function startSetup({ browser = false, fuzz = false } = {}) {
  // cargo install puts binaries in ~/.cargo/bin; make sure children see it.
  const bin = path.dirname(cargoBin('cargo'));
  if (!(process.env.PATH ?? '').split(path.delimiter).includes(bin)) {
    process.env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
  }
  const quiet = (p) => {
    p.catch(() => {});
    return p;
  };
  // The compile cache kept between clones (scripts/cache.mjs), before anything compiles.
  linkTargetCache();
  // (rustup first: the cargo installs build with the toolchain it may still be completing.)
  await ensureRust();
  const debian = quiet(browser ? lane('apt', ensureDebianPackages) : Promise.resolve());
  const wasmBindgen = quiet(lane('install', ensureWasmBindgen));
  const s3sFs = quiet(wasmBindgen.then(() => lane('install', ensureS3sFs)));
  const cargoFuzz = quiet(s3sFs.then(() => (fuzz ? lane('install', ensureCargoFuzz) : undefined)));
  await Promise.all([lane('npm', ensureNodeModules), lane('pip', ensurePythonZstandard)]);
  // The ACMI reader (PyPI pyacmi in .cache/acmi-venv): the ACMI read-back and the browser export
  // test both read with it, in different lanes, so it is installed once, here.
  const acmiVenv = quiet(lane('pip', () => run('bash', [path.join(ROOT, 'tests', 'acmi', 'check.sh'), '--venv-only'])));
  return { debian, wasmBindgen, s3sFs, cargoFuzz, acmiVenv };
}

if (isMain(import.meta.url)) {
  setup({ browser: process.argv.includes('--browser'), fuzz: process.argv.includes('--fuzz') }).catch((e) => {
    console.error(`[replay-player] setup failed: ${e.message}`);
    process.exit(1);
  });
}
