// What the Share dialog (www/features/share/dialog.ts) offers, as text: a link to a moment or a clip, the
// time-only parameters (a file from the disk has no address), and the embed snippets: an iframe of
// embed.html, a script that imports player.js, and the <replay-player> element (docs/embedding.md).
//
//   const o = { url, t: { seconds: 95.2 }, follow: 'Viper', camera: 'follow', view: [0.5, 0.2, 300] };
//   pageLink('https://host/player/', o)   // https://host/player/?url=…&t=95.2&follow=Viper&…
//   embedSnippets('https://host/player/', o).iframe
//
// Pure: no DOM, no player. The options are www/api/options.ts's (www/api/links.ts's linkQuery() writes every value, so
// links and snippets say the same thing). Values come from files (a callsign) and reach the
// snippets only escaped: URLSearchParams in addresses, &…; in HTML attributes, \u003c in scripts.

import { linkQuery } from '../../api/links.ts';
import type { LinkOptions } from '../../api/links.ts';

/** A link's options and times (api/links.ts's, as linkQuery() writes them). */
export type { LinkOptions, TimeRef as LinkTime } from '../../api/links.ts';

/** create()'s options as createOptions() writes them: times as numbers or "tick:N". */
export type CreateOptions = Record<string, string | number | boolean | number[]>;

/**
 * How a link names the replay at `url` (absolute) from the player's folder `base`: relative when
 * it lies under that folder (a shorter link that still works where the folder is copied), else
 * absolute.
 */
export function linkUrl(url: string, base: string): string {
  if (!url?.startsWith(base)) return url;
  const rest = url.slice(base.length);
  try {
    if (rest && new URL(rest, base).href === url) return rest;
  } catch {
    /* not a relative address: keep it whole */
  }
  return url;
}

/** The full page at `base` opened at the moment `o` says (o.url relative where it can be). */
export function pageLink(base: string, o: LinkOptions): string {
  const q = linkQuery({ ...o, url: o.url ? linkUrl(o.url, base) : undefined });
  return q ? `${base}?${q}` : base;
}

/** `?t=…&…` without a replay: for a file from the disk, to add to a link of wherever it is put. */
export function timeParams(o: LinkOptions): string {
  const q = linkQuery({ ...o, url: undefined });
  return q ? `?${q}` : '';
}

/** Text as an HTML attribute value (between double quotes). */
export function escapeAttr(s: unknown): string {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A value as a JavaScript literal that is safe inside a <script> element (no `</script>`). */
export function jsValue(v: unknown): string {
  return JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The options of `o` as create() takes them (names as in links; times as numbers or "tick:N"). */
export function createOptions(o: LinkOptions): CreateOptions {
  const out: CreateOptions = {};
  for (const [k, v] of new URLSearchParams(linkQuery({ ...o, url: undefined }))) {
    if (k === 'loop' || k === 'autoplay') out[k] = true;
    else if (k === 'spoilers' || k === 'controls') out[k] = false;
    else if (k === 't' || k === 'end') out[k] = v.startsWith('tick:') ? v : Number(v);
    else if (k === 'speed') out[k] = Number(v);
    else if (k === 'view') out[k] = v.split(',').map(Number);
    else out[k] = v;
  }
  return out;
}

/** The attributes of `o` as <replay-player> takes them (booleans bare, spoilers="off"). */
function attributes(o: LinkOptions): string {
  let s = '';
  for (const [k, v] of new URLSearchParams(linkQuery({ ...o, url: undefined }))) {
    if (k === 'loop' || k === 'autoplay') s += ` ${k}`;
    else if (k === 'spoilers' || k === 'controls') s += ` ${k}="off"`;
    else s += ` ${k}="${escapeAttr(v)}"`;
  }
  return s;
}

/**
 * The three embed forms for the replay at `o.url` (absolute) and the moment of `o`, from the
 * player's folder `base`: `iframe` (embed.html with the link's parameters), `script` (create()
 * from player.js) and `element` (<replay-player> defined by element.js).
 */
export function embedSnippets(
  base: string,
  o: LinkOptions & { url: string },
): { iframe: string; script: string; element: string } {
  const src = `${base}embed.html?${linkQuery({ ...o, url: linkUrl(o.url, base) })}`;
  const entries = Object.entries(createOptions(o)).map(([k, v]) => `${k}: ${jsValue(v)}`);
  const opts = entries.length ? `{ ${entries.join(', ')} }` : '{}';
  return {
    iframe: `<iframe src="${escapeAttr(src)}" width="640" height="360" title="Replay" allow="fullscreen" allowfullscreen></iframe>`,
    script: [
      '<div id="replay"></div>',
      '<script type="module">',
      `  import { create } from ${jsValue(`${base}player.js`)};`,
      `  create(${jsValue(o.url)}, document.getElementById("replay"), ${opts});`,
      '</script>',
    ].join('\n'),
    element: [
      `<script type="module" src="${escapeAttr(`${base}element.js`)}"></script>`,
      `<replay-player src="${escapeAttr(o.url)}"${attributes(o)}></replay-player>`,
    ].join('\n'),
  };
}
