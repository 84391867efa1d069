// Shared helpers for the browser tests (tests/e2e/*.test.mjs, run with `node --test`).
//   const { url, close } = await startServer();             // serves dist/ on a free port
//   const browser = await launchBrowser({ webgpu: true });   // headless Debian Chromium
//   const page = await browser.newPage(); const log = collectConsole(page);
//   await page.goto(url); ...; log.assertClean(); await browser.close(); await close();
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// What the browser tests load: dist/, i.e. www/ as shipped (minified by scripts/dist.mjs, part of
// node scripts/build.mjs). Tests that serve the repository root open the page at <url>dist/.
export const WWW = path.join(ROOT, 'dist');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** cargo's target directory (honours CARGO_TARGET_DIR, which CI caches may set). */
export function cargoTargetDir() {
  return process.env.CARGO_TARGET_DIR ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR) : path.join(ROOT, 'target');
}

/** Path of the native `replay` CLI the tests run: REPLAY_BIN (npm test sets it to the one cargo
 *  test built), else the release one of `npm run build` (cargo run --release --bin replay). */
export function replayBinPath() {
  if (process.env.REPLAY_BIN) return path.resolve(ROOT, process.env.REPLAY_BIN);
  return path.join(cargoTargetDir(), 'release', process.platform === 'win32' ? 'replay.exe' : 'replay');
}

/**
 * Serves `root` (default dist/) on 127.0.0.1 at a free port.
 * @param {{root?: string, headers?: Record<string,string>}} opts  headers: extra response headers (e.g. a CSP).
 * @returns {Promise<{url: string, port: number, server: import('node:http').Server, close: () => Promise<void>}>}
 */
export async function startServer(opts = {}) {
  const server = serve({ root: opts.root ?? WWW, port: 0, host: '127.0.0.1', headers: opts.headers ?? {} });
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e))]);
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

const BASE_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--ignore-gpu-blocklist',
  // The GPU here is SwiftShader on the CPU: on 2 busy cores one of its tasks can outlast the GPU
  // process's watchdog, which then kills it, and every page's device is lost at once ("A valid
  // external Instance reference no longer exists"). A real GPU has no such tasks; the player's
  // recovery from a lost device is tested on purpose (tests/e2e/renderer-surface.test.mjs).
  '--disable-gpu-watchdog',
];
const WEBGPU_ARGS = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
];
const NO_WEBGPU_ARGS = ['--use-angle=swiftshader', '--disable-blink-features=WebGPU'];

/** The backend the player must pick in a Chromium launched with `{webgpu}`: WebGPU with the WebGPU
 *  flags (SwiftShader's Vulkan adapter), WebGL2 without. Tests assert it: no quiet fallback. */
export const expectedBackend = (webgpu = true) => (webgpu ? 'webgpu' : 'webgl2');

/**
 * Throws unless a page of `context` gets a WebGPU adapter. Launched with the WebGPU flags, Chromium
 * here has SwiftShader's adapter; without one every WebGPU test would quietly test the WebGL2
 * fallback instead, so the run fails. (WebGPU needs a secure context: about:blank is not one, so
 * the probe page is a routed http://127.0.0.1 URL answered in the browser, no server.)
 */
async function requireWebGPU(context) {
  const page = await context.newPage();
  try {
    const url = 'http://127.0.0.1/__webgpu-probe';
    await page.route(url, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>probe</title>' }));
    await page.goto(url);
    const gpu = await gpuAdapterInfo(page);
    if (!gpu.adapter)
      throw new Error(
        `Chromium launched with the WebGPU flags gave no WebGPU adapter (${JSON.stringify(gpu)}): the browser tests expect SwiftShader's (Debian chromium, Vulkan SwiftShader ICD)`,
      );
  } finally {
    await page.close();
  }
}

/**
 * Launches headless Chromium with a fresh temporary profile.
 * webgpu: true  -> WebGPU enabled (SwiftShader Vulkan); throws when the browser gives no adapter.
 * webgpu: false -> navigator.gpu is absent (exercises the WebGL2 fallback); WebGL2 via SwiftShader.
 * @param {{webgpu?: boolean, headless?: boolean, args?: string[], viewport?: {width:number,height:number}}} opts
 * @returns {Promise<{context: import('playwright-core').BrowserContext, newPage: () => Promise<import('playwright-core').Page>, close: () => Promise<void>}>}
 */
export async function launchBrowser({
  webgpu = true,
  headless = true,
  args = [],
  viewport = { width: 1280, height: 720 },
} = {}) {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found (npm test installs it when run as root)`);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'replay-player-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless,
    viewport,
    args: [...BASE_ARGS, ...(webgpu ? WEBGPU_ARGS : NO_WEBGPU_ARGS), ...args],
    timeout: 60_000,
  });
  if (webgpu)
    await requireWebGPU(context).catch(async (e) => {
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, { recursive: true, force: true });
      throw e;
    });
  // What the player must pick here (waitReady() checks it, but where a page forces a renderer).
  context.expectedBackend = expectedBackend(webgpu);
  if (!webgpu) {
    // Belt and braces: hide navigator.gpu even if the flag is ignored.
    await context.addInitScript(() => {
      try {
        Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
      } catch {
        /* ignore */
      }
    });
  }
  let closed = false;
  return {
    context,
    newPage: async () => {
      const pages = context.pages();
      // Reuse the blank first tab of the persistent context once.
      if (pages.length === 1 && pages[0].url() === 'about:blank' && !pages[0].__used) {
        pages[0].__used = true;
        return pages[0];
      }
      return context.newPage();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await context.close().catch(() => {});
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Records console errors, page errors (uncaught exceptions) and unhandled promise rejections of a
 * page and its workers (synchronous: call it right before page.goto()).
 * @returns {{errors: string[], messages: string[], assertClean: (ignore?: RegExp[]) => void}}
 */
export function collectConsole(page) {
  const errors = [];
  const messages = [];
  const onConsole = (where) => (msg) => {
    const text = `${where}${msg.type()}: ${msg.text()}`;
    messages.push(text);
    if (msg.type() === 'error') errors.push(text);
  };
  page.on('console', onConsole(''));
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.stack ?? err.message ?? String(err)}`));
  page.on('crash', () => errors.push('page crashed'));
  // Notes (verified with Chromium 156 + playwright-core 1.65): page 'console' also carries the
  // console messages of the page's workers, and 'pageerror' carries uncaught exceptions and
  // unhandled promise rejections of the page and its workers, so no worker listeners are needed.
  return {
    errors,
    messages,
    /** Throws when any error was recorded (except those matching one of `ignore`). */
    assertClean(ignore = []) {
      const left = errors.filter((e) => !ignore.some((re) => re.test(e)));
      if (left.length) throw new Error(`browser reported ${left.length} error(s):\n${left.join('\n')}`);
    },
  };
}

/** Asks the page for a WebGPU adapter; returns a short description (never throws). */
export async function gpuAdapterInfo(page) {
  return page.evaluate(async () => {
    if (!('gpu' in navigator) || !navigator.gpu) return { gpu: false, adapter: false };
    try {
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return { gpu: true, adapter: false };
      const info = adapter.info ?? {};
      return {
        gpu: true,
        adapter: true,
        vendor: info.vendor ?? '',
        architecture: info.architecture ?? '',
        description: info.description ?? '',
      };
    } catch (e) {
      return { gpu: true, adapter: false, error: String(e) };
    }
  });
}
