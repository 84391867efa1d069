// "Upload and get link" (docs/hosting.md "The page"): where the page is served by a replay host
// (`replay host`), a file opened from the disk is uploaded to it and shared as that host's link.
//
// The host says so in the page it serves: `<meta name="replay-host" content="/api/">` (its API's
// address). A static host writes none, so the page asks nothing of it (no request, no 404 in the
// console) and the Share dialog says, as before, that a file from the disk cannot be linked. The
// host's limits come from `GET <api>config`, asked once, when the dialog first needs them.
//
// A replay the page opened from the host (its `/r/{id}` page) is already hosted: `hostedPage()`
// reads the page's own `<link rel="canonical">`, `<meta name="replay-src">` and oEmbed link.
//
// No DOM of the dialog here (www/features/share/dialog.ts); the host's strings reach the DOM there only as
// textContent / value.

/** The host's uploads (`GET <api>config`), as hostConfig() reads them. */
export interface HostConfig {
  uploads: boolean;
  maxUploadBytes: number;
  tokenRequired: boolean;
}

/** A hosted replay's addresses (absolute, http(s)): the host's answer to an upload, or its own page's. */
export interface Hosted {
  id: string;
  page: string;
  file: string;
  embed: string;
  oembed: string | null;
  poster: string | null;
  deleteToken: string;
}

/** uploadReplay()'s options. */
export interface UploadOptions {
  token?: string;
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  Xhr?: new () => XMLHttpRequest;
}

/** A value parsed from the host's JSON, read field by field (each checked where it is read). */
type JsonFields = { readonly [key: string]: unknown } | null | undefined;

/** The host's API address (absolute, ending in `/`, on the page's own origin), or null. */
export function hostApi(doc: Document = document): string | null {
  const v = doc.querySelector('meta[name="replay-host"]')?.getAttribute('content');
  if (!v) return null;
  try {
    const u = new URL(v, doc.baseURI);
    if (u.origin !== new URL(doc.baseURI).origin) return null;
    return u.href.endsWith('/') ? u.href : `${u.href}/`;
  } catch {
    return null;
  }
}

/**
 * The host's uploads: `{ uploads, maxUploadBytes, tokenRequired }` from `GET <api>config`.
 * Rejects with a sentence when the host does not answer.
 */
export async function hostConfig(api: string, fetchImpl: typeof fetch = fetch): Promise<HostConfig> {
  let c: JsonFields;
  try {
    const r = await fetchImpl(`${api}config`, { headers: { accept: 'application/json' } });
    if (!r.ok) throw new Error(`status ${r.status}`);
    c = await r.json();
  } catch (e) {
    throw new Error(`The host did not say whether it takes uploads (${(e as Error).message}).`);
  }
  const max = Number(c?.maxUploadBytes);
  return {
    uploads: c?.uploads === true,
    maxUploadBytes: Number.isFinite(max) && max > 0 ? max : Number.POSITIVE_INFINITY,
    tokenRequired: c?.tokenRequired === true,
  };
}

/** The sentence for a refused upload: the host's own message where it gave one (422: the reader's). */
export function uploadError(status: number, body: JsonFields): string {
  const said = typeof body?.error === 'string' ? body.error.slice(0, 500) : '';
  switch (status) {
    case 401:
    case 403:
      return 'This host takes uploads only with its upload token.';
    case 413:
      return `The file is larger than this host takes${said ? ` (${said})` : ''}.`;
    case 422:
      return `The host refused the file: ${said || 'it is not a replay it can read'}.`;
    case 429:
      return 'Too many uploads from here for now: try again in a minute.';
    case 503:
      return 'The host could not store the file just now: try again later.';
    default:
      return `The upload failed (the host answered ${status}${said ? `: ${said}` : ''}).`;
  }
}

/** The host's answer to an upload, checked: every address absolute, on http(s). */
function hostedOf(body: JsonFields, base: string): Hosted | null {
  const abs = (v: unknown): string | null => {
    if (typeof v !== 'string' || !v) return null;
    try {
      const u = new URL(v, base);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
    } catch {
      return null;
    }
  };
  const out = {
    id: typeof body?.id === 'string' ? body.id : '',
    page: abs(body?.page),
    file: abs(body?.file),
    embed: abs(body?.embed),
    oembed: abs(body?.oembed),
    poster: abs(body?.poster),
    deleteToken: typeof body?.deleteToken === 'string' ? body.deleteToken : '',
  };
  return out.page && out.file && out.embed ? (out as Hosted) : null; // page, file and embed: checked
}

/**
 * Uploads `file` (a File/Blob) to the host's `<api>replays`. Resolves with
 * `{ id, page, file, embed, oembed, poster, deleteToken }` (absolute addresses); rejects with an
 * Error whose message is a sentence for the person (the host's own where it gave one), or an
 * AbortError when `signal` aborts. `onProgress(sent, total)` follows the bytes sent.
 * XMLHttpRequest, not fetch: only it reports an upload's progress.
 */
export function uploadReplay(
  api: string,
  file: Blob & { name?: string },
  { token = '', onProgress, signal, Xhr = XMLHttpRequest }: UploadOptions = {},
): Promise<Hosted> {
  return new Promise((resolve, reject) => {
    const x = new Xhr();
    x.open('POST', `${api}replays`);
    x.setRequestHeader('Content-Type', 'application/octet-stream');
    // A header is Latin-1 only: the name goes percent-encoded (the host decodes it).
    if (file.name) x.setRequestHeader('X-Filename', encodeURIComponent(String(file.name).slice(0, 200)));
    if (token) x.setRequestHeader('Authorization', `Bearer ${token}`);
    x.upload.onprogress = (e) => onProgress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    x.onload = () => {
      let body: JsonFields = null;
      try {
        body = JSON.parse(x.responseText);
      } catch {
        /* not JSON: the status says enough */
      }
      if (x.status !== 200 && x.status !== 201) return reject(new Error(uploadError(x.status, body)));
      const hosted = hostedOf(body, api);
      if (hosted) resolve(hosted);
      else reject(new Error('The host answered the upload without a link.'));
    };
    x.onerror = () => reject(new Error('The upload failed: the host could not be reached.'));
    x.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    signal?.addEventListener('abort', () => x.abort(), { once: true });
    x.send(file);
  });
}

/**
 * The host's own addresses of the replay this page was opened on (a host's `/r/{id}` page), when
 * `url` is that replay: `{ page, file, embed, oembed }` (embed.html in the player's folder `base`),
 * else null.
 */
export function hostedPage(url: string, base: string, doc: Document = document): Hosted | null {
  const canonical = doc.querySelector('link[rel="canonical"]')?.getAttribute('href');
  const src = doc.querySelector('meta[name="replay-src"]')?.getAttribute('content');
  const oembed = doc.querySelector('link[rel="alternate"][type="application/json+oembed"]')?.getAttribute('href');
  if (!url || !canonical || !src) return null;
  let file: string;
  try {
    file = new URL(src, doc.baseURI).href;
  } catch {
    return null;
  }
  if (file !== url) return null;
  const page = new URL(canonical, doc.baseURI);
  page.search = '';
  page.hash = '';
  return hostedOf({ page: page.href, file, embed: `${base}embed.html`, oembed }, doc.baseURI);
}

/** A link to the host's page of a replay at the moment `query` (linkQuery() without `url`). */
export function hostLink(page: string, query: string): string {
  return query ? `${page}?${query}` : page;
}
