// Loaded first by every HTML page tests/engines/engines.mjs's server sends (WebKitWebDriver gives no
// console): records into window.__engineErrors what Chromium's and Firefox's consoles would show as
// errors: console.error, uncaught errors (and resources that failed to load), unhandled
// rejections, CSP violations, and the uncaught errors of the page's workers.
(() => {
  const errors = [];
  window.__engineErrors = errors;
  const text = (v) => {
    if (v instanceof Error) return `${v.name}: ${v.message}`;
    if (typeof v === 'object' && v !== null) {
      try {
        return JSON.stringify(v);
      } catch {
        return String(v);
      }
    }
    return String(v);
  };
  const consoleError = console.error.bind(console);
  console.error = (...args) => {
    errors.push(`console.error: ${args.map(text).join(' ')}`);
    consoleError(...args);
  };
  addEventListener(
    'error',
    (e) => {
      const t = e.target;
      if (t && t !== window && t instanceof Element) {
        errors.push(`failed to load: <${t.localName}> ${t.src || t.href || ''}`);
      } else {
        errors.push(`pageerror: ${e.message} (${e.filename}:${e.lineno})`);
      }
    },
    true,
  );
  addEventListener('unhandledrejection', (e) => errors.push(`unhandled rejection: ${text(e.reason)}`));
  document.addEventListener('securitypolicyviolation', (e) =>
    errors.push(`CSP: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
  );
  // Workers: their uncaught errors reach the Worker object as an 'error' event.
  const W = window.Worker;
  if (W) {
    window.Worker = class extends W {
      constructor(...args) {
        super(...args);
        this.addEventListener('error', (e) => errors.push(`worker error: ${e.message} (${e.filename}:${e.lineno})`));
      }
    };
  }
})();
