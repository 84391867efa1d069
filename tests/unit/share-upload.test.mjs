// www/features/share/upload.ts: how the Share dialog finds a replay host, asks its limits, uploads a file
// and reads the host's answers (a fake XMLHttpRequest and a fake document: no browser). The
// dialog end to end, against a real `replay host`, is tests/e2e/host-upload.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hostApi,
  hostConfig,
  uploadError,
  uploadReplay,
  hostedPage,
  hostLink,
} from '../../www/features/share/upload.ts';

/** A document with the given head elements ({selector: attributes}) at `baseURI`. */
function fakeDoc(baseURI, elements) {
  return {
    baseURI,
    querySelector: (sel) => {
      const attrs = elements[sel];
      return attrs ? { getAttribute: (k) => attrs[k] ?? null } : null;
    },
  };
}

test('hostApi: the meta of the page own origin, absolute with a trailing slash; none or another origin is null', () => {
  const base = 'http://127.0.0.1:9000/r/abc';
  assert.equal(
    hostApi(fakeDoc(base, { 'meta[name="replay-host"]': { content: '/api' } })),
    'http://127.0.0.1:9000/api/',
  );
  assert.equal(
    hostApi(fakeDoc(base, { 'meta[name="replay-host"]': { content: '/api/' } })),
    'http://127.0.0.1:9000/api/',
  );
  assert.equal(hostApi(fakeDoc(base, {})), null);
  assert.equal(hostApi(fakeDoc(base, { 'meta[name="replay-host"]': { content: 'https://evil.example/api/' } })), null);
  assert.equal(hostApi(fakeDoc(base, { 'meta[name="replay-host"]': { content: 'http://[bad' } })), null);
});

test('hostConfig: reads the limits; a bad answer is a sentence, not a throw of JSON', async () => {
  const ok = (body) => async () => ({ ok: true, status: 200, json: async () => body });
  assert.deepEqual(
    await hostConfig('http://h/api/', ok({ uploads: true, maxUploadBytes: 1024, tokenRequired: false })),
    {
      uploads: true,
      maxUploadBytes: 1024,
      tokenRequired: false,
    },
  );
  // Missing or odd values: no uploads, no limit known, no token.
  assert.deepEqual(await hostConfig('http://h/api/', ok({ uploads: 'yes', maxUploadBytes: 'x' })), {
    uploads: false,
    maxUploadBytes: Number.POSITIVE_INFINITY,
    tokenRequired: false,
  });
  await assert.rejects(
    hostConfig('http://h/api/', async () => ({ ok: false, status: 500 })),
    /did not say whether it takes uploads \(status 500\)/,
  );
});

test('uploadError: the host message for a refused file, a sentence for each status', () => {
  assert.match(
    uploadError(422, { error: 'chunk 3: zstd frame corrupt' }),
    /refused the file: chunk 3: zstd frame corrupt/,
  );
  assert.match(uploadError(413, null), /larger than this host takes/);
  assert.match(uploadError(401, null), /upload token/);
  assert.match(uploadError(429, null), /Too many uploads/);
  assert.match(uploadError(503, { error: 'store down' }), /could not store/);
  assert.match(uploadError(500, { error: 'x'.repeat(2000) }), /answered 500/);
  assert.ok(uploadError(500, { error: 'x'.repeat(2000) }).length < 600, 'a long message is cut');
});

/** A fake XMLHttpRequest answering `status` with `body` after reporting progress. */
function fakeXhr(status, body, seen) {
  return class {
    constructor() {
      this.upload = {};
      this.headers = {};
      seen.xhr = this;
    }
    open(method, url) {
      this.method = method;
      this.url = url;
    }
    setRequestHeader(k, v) {
      // Real browsers throw on a header value outside Latin-1.
      if ([...String(v)].some((ch) => ch.codePointAt(0) > 0xff)) throw new TypeError('not a ByteString');
      this.headers[k] = v;
    }
    abort() {
      this.onabort?.();
    }
    send(blob) {
      this.sent = blob;
      queueMicrotask(() => {
        this.upload.onprogress?.({ loaded: 5, total: 10, lengthComputable: true });
        this.upload.onprogress?.({ loaded: 10, total: 10, lengthComputable: true });
        this.status = status;
        this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
        this.onload?.();
      });
    }
  };
}

test('uploadReplay: posts the file with its name encoded, reports progress, resolves absolute addresses', async () => {
  const seen = {};
  const progress = [];
  const file = { name: 'müller’s <match>.flrep', size: 10 };
  const answer = {
    id: 'a'.repeat(32),
    page: '/r/aaaa',
    file: '/files/aaaa',
    embed: '/embed.html?url=%2Ffiles%2Faaaa',
    oembed: '/oembed?url=x',
    poster: '/r/aaaa/poster.png',
    deleteToken: 'tok',
  };
  const h = await uploadReplay('http://127.0.0.1:9000/api/', file, {
    Xhr: fakeXhr(201, answer, seen),
    onProgress: (s, t) => progress.push([s, t]),
  });
  assert.equal(seen.xhr.method, 'POST');
  assert.equal(seen.xhr.url, 'http://127.0.0.1:9000/api/replays');
  assert.equal(seen.xhr.sent, file);
  assert.equal(seen.xhr.headers['Content-Type'], 'application/octet-stream');
  assert.equal(decodeURIComponent(seen.xhr.headers['X-Filename']), file.name);
  assert.deepEqual(progress, [
    [5, 10],
    [10, 10],
  ]);
  assert.equal(h.page, 'http://127.0.0.1:9000/r/aaaa');
  assert.equal(h.file, 'http://127.0.0.1:9000/files/aaaa');
  assert.equal(h.deleteToken, 'tok');
});

test('uploadReplay: a refusal rejects with the reader message; an answer without a link or with a script URL rejects', async () => {
  const seen = {};
  await assert.rejects(
    uploadReplay('http://h/api/', { name: 'x', size: 1 }, { Xhr: fakeXhr(422, { error: 'bad magic' }, seen) }),
    /refused the file: bad magic/,
  );
  await assert.rejects(
    uploadReplay('http://h/api/', { name: 'x', size: 1 }, { Xhr: fakeXhr(201, 'not json', seen) }),
    /without a link/,
  );
  await assert.rejects(
    uploadReplay(
      'http://h/api/',
      { name: 'x', size: 1 },
      {
        Xhr: fakeXhr(201, { page: 'javascript:alert(1)', file: '/f', embed: '/e' }, seen),
      },
    ),
    /without a link/,
  );
});

test('hostedPage: the host page of the replay open, only when the page is about that replay', () => {
  const doc = fakeDoc('http://127.0.0.1:9000/r/abc?t=5', {
    'link[rel="canonical"]': { href: 'http://127.0.0.1:9000/r/abc?t=5' },
    'meta[name="replay-src"]': { content: '/files/abc' },
    'link[rel="alternate"][type="application/json+oembed"]': { href: '/oembed?url=x&format=json' },
  });
  const base = 'http://127.0.0.1:9000/';
  const h = hostedPage('http://127.0.0.1:9000/files/abc', base, doc);
  assert.equal(h.page, 'http://127.0.0.1:9000/r/abc', 'the page without its moment');
  assert.equal(h.embed, 'http://127.0.0.1:9000/embed.html');
  assert.equal(h.oembed, 'http://127.0.0.1:9000/oembed?url=x&format=json');
  // Another replay opened in that page (a file picked there) is not the page's.
  assert.equal(hostedPage('http://127.0.0.1:9000/files/other', base, doc), null);
  assert.equal(hostedPage('', base, doc), null);
  assert.equal(hostedPage('http://127.0.0.1:9000/files/abc', base, fakeDoc(doc.baseURI, {})), null);
});

test('hostLink: the page alone or with its moment', () => {
  assert.equal(hostLink('http://h/r/abc', ''), 'http://h/r/abc');
  assert.equal(hostLink('http://h/r/abc', 't=5&loop=1'), 'http://h/r/abc?t=5&loop=1');
});
