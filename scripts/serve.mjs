// A tiny zero-dependency static file server for dist/ (npm start, browser tests) or any directory.
//   import { serve } from './serve.mjs'; const server = serve({ root, port, host, headers });
//   node scripts/serve.mjs [--root dist] [--port 8080] [--host 127.0.0.1]   (PORT env also works)
// Features: MIME types (application/wasm), HTTP Range (single range), HEAD, no directory
// traversal, Cache-Control: no-cache, the public headers a page on another origin needs (CORS:
// PUBLIC_HEADERS), optional extra headers (e.g. a CSP for tests; they win over the defaults).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ROOT, isMain } from './lib.mjs';

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.wgsl': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
  // Replay files are opaque bytes.
  '.flrep': 'application/octet-stream',
  '.replay': 'application/octet-stream',
  '.foldback': 'application/octet-stream',
};

/**
 * Sent with every answer: the player's files and the replays are public, and the embed snippets
 * the Share dialog hands out load them from the embedding page's origin (module scripts, the
 * workers' imports and the .wasm fetches are CORS requests; a replay's Range reads need
 * Content-Range exposed): docs/embedding.md "Hosting", the reference for any other host.
 * Cross-Origin-Resource-Policy lets a page that sets Cross-Origin-Embedder-Policy load them too.
 */
export const PUBLIC_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};
/** The answer to a CORS preflight (a Range a browser does not send without one). */
const PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'Range',
  'Access-Control-Max-Age': '86400',
};

export function mimeType(file) {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Parses a Range header against a resource of `size` bytes.
 * Returns null (no/unsupported range: send the whole body), 'unsatisfiable', or {start, end} (inclusive).
 * Only single ranges are supported; multi-range requests get the whole body (allowed by RFC 9110).
 */
export function parseRange(header, size) {
  if (typeof header !== 'string') return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null; // malformed or multi-range: ignore the header
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  let start;
  let end;
  if (a === '') {
    // suffix: the last n bytes
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return null; // invalid range: ignore (RFC 9110 14.1.1)
  }
  if (!Number.isSafeInteger(start) || start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

/** Maps a URL path onto a file below root; null when it escapes root or is malformed. */
function resolvePath(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/');
  if (segments.some((s) => s === '..')) return null;
  const full = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  if (full !== root && !full.startsWith(root + path.sep)) return null;
  return full;
}

/**
 * Starts the server. Returns the http.Server (already listening; await `once(server, 'listening')`
 * or use server.address() after the 'listening' event). port 0 picks a free port.
 * @param {{root?: string, port?: number, host?: string, headers?: Record<string,string>, quiet?: boolean}} opts
 */
export function serve({
  root = path.join(ROOT, 'dist'),
  port = 8080,
  host = '127.0.0.1',
  headers = {},
  quiet = true,
} = {}) {
  const absRoot = fs.realpathSync(path.resolve(root));
  const server = http.createServer((req, res) => {
    const send = (status, body, extra = {}) => {
      res.writeHead(status, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Cache-Control': 'no-cache',
        ...PUBLIC_HEADERS,
        ...headers,
        ...extra,
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...PUBLIC_HEADERS, ...PREFLIGHT, ...headers });
      res.end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'method not allowed\n', { Allow: 'GET, HEAD, OPTIONS' });
      return;
    }
    const urlPath = (req.url ?? '/').split('?')[0].split('#')[0];
    let file = resolvePath(absRoot, urlPath);
    if (!quiet) process.stdout.write(`${req.method} ${req.url}\n`);
    if (file === null) {
      send(403, 'forbidden\n');
      return;
    }
    let stat;
    try {
      stat = fs.statSync(file);
      if (stat.isDirectory()) {
        if (!urlPath.endsWith('/')) {
          send(301, 'moved\n', { Location: `${urlPath}/` });
          return;
        }
        file = path.join(file, 'index.html');
        stat = fs.statSync(file);
      }
      // Symlinks must not lead out of root either.
      const real = fs.realpathSync(file);
      if (real !== absRoot && !real.startsWith(absRoot + path.sep)) {
        send(403, 'forbidden\n');
        return;
      }
    } catch {
      send(404, 'not found\n');
      return;
    }
    if (!stat.isFile()) {
      send(404, 'not found\n');
      return;
    }
    // The size and the bytes of one file: a file replaced by a rename (a live manifest) between a
    // stat by name and the read would send the new bytes cut to the old length.
    let fd;
    try {
      fd = fs.openSync(file, 'r');
      stat = fs.fstatSync(fd);
    } catch {
      if (fd !== undefined) fs.closeSync(fd);
      send(404, 'not found\n');
      return;
    }
    const size = stat.size;
    const base = {
      'Content-Type': mimeType(file),
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-cache',
      'Last-Modified': stat.mtime.toUTCString(),
      'X-Content-Type-Options': 'nosniff',
      ...PUBLIC_HEADERS,
      ...headers,
    };
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      fs.closeSync(fd);
      res.writeHead(416, { ...base, 'Content-Range': `bytes */${size}`, 'Content-Length': 0 });
      res.end();
      return;
    }
    let status = 200;
    let start = 0;
    let end = size - 1;
    if (range) {
      status = 206;
      ({ start, end } = range);
      base['Content-Range'] = `bytes ${start}-${end}/${size}`;
    }
    const length = size === 0 ? 0 : end - start + 1;
    res.writeHead(status, { ...base, 'Content-Length': length });
    if (req.method === 'HEAD' || length === 0) {
      fs.closeSync(fd);
      res.end();
      return;
    }
    const stream = fs.createReadStream(file, { fd, start, end });
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
  server.listen(port, host);
  return server;
}

if (isMain(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt;
  };
  const root = path.resolve(arg('root', path.join(ROOT, 'dist')));
  const port = Number(arg('port', process.env.PORT ?? 8080));
  const host = arg('host', '127.0.0.1');
  const server = serve({ root, port, host, quiet: !process.argv.includes('--verbose') });
  server.on('listening', () => {
    const { port: p } = server.address();
    console.log(`serving ${root} on http://${host}:${p}/`);
  });
  server.on('error', (e) => {
    console.error(`serve: ${e.message}`);
    process.exit(1);
  });
}
