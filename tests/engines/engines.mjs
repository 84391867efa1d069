// One small async API over the browsers that are not Chromium, for tests/engines/*.test.mjs:
//   Firefox ESR over WebDriver BiDi (puppeteer-core), WebKitGTK's MiniBrowser under WebKitWebDriver
//   (selenium-webdriver), both drawing into an Xvfb of their own (Firefox refuses WebGL2 headless
//   without a GPU; MiniBrowser has no headless mode).
//
//   const srv = await engineServer({ root, headers });   // serve() + the console collector in HTML
//   const eng = await launchEngine('firefox' | 'webkit');
//   const page = await eng.open(url);        // one window per engine, reused: open() navigates it
//   await page.evaluate((a) => ..., a);      // in the page; page.evaluateIn('iframe', fn, ...args)
//   await page.waitFor((a) => ..., a);       // until fn returns a truthy value (polls; timeout)
//   await page.click('#sel'); await page.clickAt(x, y); await page.press('Space');
//   await page.setFile('#file-input', path); const png = await page.screenshot();
//   page.assertClean();                      // no console error, uncaught exception or rejection
//   await eng.close(); await srv.close();
//
// The console: Firefox's BiDi log entries (console errors and uncaught errors of the page, its
// frames and its workers). WebKitWebDriver has no log endpoint and no BiDi, and MiniBrowser writes
// no console to stdout under automation, so engineServer() adds a collector script to every HTML
// page it serves (tests/engines/console-collector.js, a file of its own: the pages' CSPs allow
// 'self' scripts only): console.error, window errors (a resource that failed to load too),
// unhandled rejections, CSP violations and the errors of the page's workers, kept in
// window.__engineErrors of each frame; page.errors() reads them from the page and its iframes.
// What it cannot see: console.error called inside a worker (an uncaught error in one it sees).
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { Builder, By, Key } from 'selenium-webdriver';
import { startServer, WWW } from '../e2e/harness.mjs';

export const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
/** MiniBrowser of Debian's libwebkit2gtk-4.1-0 (`dpkg -S MiniBrowser`). */
export const MINIBROWSER = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const XVFB = process.env.XVFB_PATH ?? '/usr/bin/Xvfb';
export const VIEWPORT = { width: 1280, height: 800 };

const HERE = path.dirname(fileURLToPath(import.meta.url));
const COLLECTOR_PATH = '/__engine-console.js';
const COLLECTOR = fs.readFileSync(path.join(HERE, 'console-collector.js'), 'utf8');

/**
 * startServer() of tests/e2e/harness.mjs (serve() on a free loopback port) whose HTML pages load
 * the console collector first (a `<script src>` at the top of <head>), served at /__engine-console.js.
 * @param {{root?: string, headers?: Record<string,string>}} opts
 */
export async function engineServer(opts = {}) {
  const root = fs.realpathSync(opts.root ?? WWW);
  const headers = opts.headers ?? {};
  const srv = await startServer({ ...opts, headers });
  const [handler] = srv.server.listeners('request');
  srv.server.removeAllListeners('request');
  srv.server.on('request', (req, res) => {
    let p = '';
    try {
      p = decodeURIComponent((req.url ?? '/').split('?')[0].split('#')[0]);
    } catch {
      return handler(req, res);
    }
    const send = (type, body) => {
      res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache', ...headers });
      res.end(body);
    };
    if (p === COLLECTOR_PATH) return send('text/javascript; charset=utf-8', COLLECTOR);
    // An HTML page (index.html of a folder too) that exists under root: the collector goes first.
    const file = path.join(root, p.endsWith('/') ? `${p}index.html` : p);
    if (req.method === 'GET' && file.startsWith(root + path.sep) && file.endsWith('.html') && fs.existsSync(file)) {
      const html = fs.readFileSync(file, 'utf8');
      const tag = `<script src="${COLLECTOR_PATH}"></script>`;
      return send(
        'text/html; charset=utf-8',
        /<head>/i.test(html) ? html.replace(/<head>/i, `<head>${tag}`) : tag + html,
      );
    }
    return handler(req, res);
  });
  return srv;
}

/** Starts an Xvfb on a display it picks itself (-displayfd); resolves to {display, close}. */
export async function startXvfb() {
  const proc = spawn(XVFB, ['-displayfd', '1', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A test process that ends without its after() hook (killed at a timeout) leaves no X server.
  process.once('exit', () => proc.kill());
  let out = '';
  let err = '';
  proc.stderr.on('data', (d) => {
    err += d;
  });
  const display = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    proc.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it gave a display: ${err}`)));
  });
  return {
    display,
    close: async () => {
      if (proc.exitCode !== null) return;
      proc.kill();
      await once(proc, 'exit');
    },
  };
}

/** A free loopback TCP port (for WebKitWebDriver). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Key names as Playwright/puppeteer spell them → selenium's. */
const SELENIUM_KEYS = {
  Space: ' ',
  ArrowRight: Key.ARROW_RIGHT,
  ArrowLeft: Key.ARROW_LEFT,
  ArrowUp: Key.ARROW_UP,
  ArrowDown: Key.ARROW_DOWN,
  Home: Key.HOME,
  End: Key.END,
  Escape: Key.ESCAPE,
  Enter: Key.ENTER,
  Tab: Key.TAB,
};

/** What both engines' pages share: waitFor and assertClean over their evaluate and errors. */
function withCommon(page) {
  page.waitFor = async (fn, arg, { timeout = 30_000, what = fn.toString(), diag = null } = {}) => {
    const end = Date.now() + timeout;
    for (;;) {
      const v = await page.evaluate(fn, arg);
      if (v) return v;
      if (Date.now() > end) {
        const seen = diag ? ` (${await page.evaluate(diag).catch((e) => e.message)})` : '';
        throw new Error(`timed out after ${timeout} ms waiting for ${what}${seen}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  page.assertClean = async (ignore = []) => {
    const left = (await page.errors()).filter((e) => !ignore.some((re) => re.test(e)));
    if (left.length) throw new Error(`${page.engine} reported ${left.length} error(s):\n${left.join('\n')}`);
  };
  return page;
}

// ---------------------------------------------------------------- Firefox (puppeteer-core, BiDi)

async function launchFirefox(display) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX,
    // No display: headless with WebGL off (webgl.disabled), a browser with neither WebGL2 nor WebGPU
    // on any machine (headless Firefox here has no WebGL2 anyway: no GPU).
    headless: !display,
    ...(display ? {} : { extraPrefsFirefox: { 'webgl.disabled': true } }),
    env: display ? { ...process.env, DISPLAY: display } : process.env,
    args: [`--width=${VIEWPORT.width}`, `--height=${VIEWPORT.height + 100}`],
    timeout: 60_000,
  });
  const version = await browser.version();
  const tab = await browser.newPage();
  await tab.setViewport(VIEWPORT);
  const log = [];
  tab.on('console', (m) => {
    if (m.type() === 'error') log.push(`console.error: ${m.text()}`);
  });
  tab.on('pageerror', (e) => log.push(`pageerror: ${e?.stack ?? e?.message ?? String(e)}`));
  const frameOf = async (selector) => {
    const el = await tab.waitForSelector(selector, { timeout: 30_000 });
    const f = await el.contentFrame();
    if (!f) throw new Error(`${selector} is not a frame`);
    return f;
  };
  const page = withCommon({
    engine: 'firefox',
    tab,
    evaluate: (fn, ...args) => tab.evaluate(fn, ...args),
    evaluateIn: async (selector, fn, ...args) => (await frameOf(selector)).evaluate(fn, ...args),
    click: async (selector) => (await tab.waitForSelector(selector, { timeout: 10_000 })).click(),
    clickAt: (x, y) => tab.mouse.click(x, y),
    moveTo: (x, y) => tab.mouse.move(x, y),
    press: (key) => tab.keyboard.press(key),
    setFile: async (selector, file) => (await tab.$(selector)).uploadFile(file),
    screenshot: async () => Buffer.from(await tab.screenshot({ type: 'png' })),
    errors: async () => [...log],
  });
  return {
    name: 'firefox',
    version,
    async open(url) {
      log.length = 0;
      await tab.goto(url, { waitUntil: 'load', timeout: 60_000 });
      return page;
    },
    async close() {
      await browser.close().catch(() => {});
    },
  };
}

// ---------------------------------------------------------------- WebKit (selenium, WebKitWebDriver)

async function launchWebKit(display) {
  const port = await freePort();
  const driverProc = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
    env: { ...process.env, DISPLAY: display },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.once('exit', () => driverProc.kill());
  let driverOut = '';
  for (const s of [driverProc.stdout, driverProc.stderr])
    s.on('data', (d) => {
      driverOut = (driverOut + d).slice(-4000);
    });
  const stopDriver = async () => {
    if (driverProc.exitCode !== null) return;
    driverProc.kill();
    await once(driverProc, 'exit');
  };
  /** A new MiniBrowser session (the driver takes a moment to listen: retried for 10 s). */
  const newSession = async () => {
    for (let i = 0; ; i++) {
      try {
        const d = await new Builder()
          .usingServer(`http://127.0.0.1:${port}`)
          .withCapabilities({
            browserName: 'MiniBrowser',
            // WebGL in workers stays off (WebKitGTK's default): the player then draws on the page.
            'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
          })
          .build();
        await d.manage().setTimeouts({ script: 60_000, pageLoad: 60_000 });
        await d.manage().window().setRect({ width: VIEWPORT.width, height: VIEWPORT.height });
        return d;
      } catch (e) {
        if (i >= 50 || driverProc.exitCode !== null) throw new Error(`WebKitWebDriver: ${e.message}\n${driverOut}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  let driver;
  try {
    driver = await newSession();
  } catch (e) {
    await stopDriver();
    throw e;
  }
  const caps = await driver.getCapabilities();
  const version = `${caps.get('browserName')}/${caps.get('browserVersion')}`;
  let used = false;
  // A function and its arguments run as an async script: its result (or its error) comes back.
  let lastCall = '';
  const run = async (fn, args) => {
    lastCall = fn.toString().replace(/\s+/g, ' ').slice(0, 160);
    const r = await driver
      .executeAsyncScript(
        `const done = arguments[arguments.length - 1];
       const args = JSON.parse(arguments[0]);
       Promise.resolve().then(() => (${fn.toString()})(...args)).then(
         (v) => done({ ok: v === undefined ? null : JSON.parse(JSON.stringify(v)) }),
         (e) => done({ error: String(e && e.stack ? e.message + '\\n' + e.stack : e) }));`,
        JSON.stringify(args),
      )
      .catch((e) => {
        // The driver's and MiniBrowser's own output says more when the web process died.
        e.message += `\n--- WebKitWebDriver / MiniBrowser output (last lines):\n${driverOut.slice(-1500)}`;
        throw e;
      });
    if (r && 'error' in r) throw new Error(`in WebKit: ${r.error}`);
    return r?.ok ?? null;
  };
  const inFrame = async (selector, f) => {
    await driver.switchTo().frame(await driver.findElement(By.css(selector)));
    try {
      return await f();
    } finally {
      await driver.switchTo().defaultContent();
    }
  };
  const readErrors = () => run(() => window.__engineErrors ?? ['(no console collector in this page)'], []);
  const page = withCommon({
    engine: 'webkit',
    driver,
    evaluate: (fn, ...args) => run(fn, args),
    evaluateIn: (selector, fn, ...args) => inFrame(selector, () => run(fn, args)),
    click: async (selector) => (await driver.findElement(By.css(selector))).click(),
    clickAt: (x, y) =>
      driver
        .actions()
        .move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' })
        .click()
        .perform(),
    moveTo: (x, y) =>
      driver
        .actions()
        .move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' })
        .perform(),
    press: (key) => {
      const k = SELENIUM_KEYS[key] ?? key;
      return driver.actions().keyDown(k).keyUp(k).perform();
    },
    setFile: async (selector, file) => (await driver.findElement(By.css(selector))).sendKeys(file),
    screenshot: async () => Buffer.from(await driver.takeScreenshot(), 'base64'),
    async errors() {
      const out = [...(await readErrors())];
      const frames = await driver.findElements(By.css('iframe'));
      for (let i = 0; i < frames.length; i++) {
        await driver.switchTo().frame(i);
        try {
          for (const e of await readErrors()) out.push(`iframe ${i}: ${e}`);
        } finally {
          await driver.switchTo().defaultContent();
        }
      }
      return out;
    },
  });
  return {
    name: 'webkit',
    version,
    /** The last lines WebKitWebDriver and MiniBrowser wrote (stdout and stderr). */
    output: () => driverOut,
    /** The start of the last function run in the page (what a hung page was doing). */
    lastCall: () => lastCall,
    // A fresh MiniBrowser for each page (it starts in under a second): after several player pages
    // in one session, its web process was seen to die (1 run in 4, "session deleted because of
    // page crash or hang"); one page per session, it did not (0 in 5).
    async open(url) {
      if (used) {
        await driver.quit().catch(() => {});
        driver = await newSession();
      }
      used = true;
      await driver.get(url);
      return page;
    },
    async close() {
      await driver.quit().catch(() => {});
      await stopDriver();
    },
  };
}

/**
 * Starts an Xvfb and `name`'s browser in it ('firefox' or 'webkit'); resolves to
 * {name, version, open(url) → page, close()}. One window: open() navigates it.
 * `webgl: false` (Firefox only): no Xvfb, headless Firefox with WebGL off: a browser that cannot draw.
 */
export async function launchEngine(name, { webgl = true } = {}) {
  if (!webgl) {
    if (name !== 'firefox') throw new Error(`${name} without WebGL is not offered (Firefox only)`);
    return launchFirefox(null);
  }
  const xvfb = await startXvfb();
  let eng;
  try {
    eng = name === 'firefox' ? await launchFirefox(xvfb.display) : await launchWebKit(xvfb.display);
  } catch (e) {
    await xvfb.close();
    throw e;
  }
  const close = eng.close;
  eng.close = async () => {
    await close();
    await xvfb.close();
  };
  eng.display = xvfb.display;
  return eng;
}
