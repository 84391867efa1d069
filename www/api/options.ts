// The player's options, one vocabulary for every way in: share-link / embed.html URL parameters,
// create(src, el, options) and <replay-player> attributes (docs/embedding.md "Options").
//
//   import { readOptions, parseTime } from './options.ts';
//   const { options, notices } = readOptions(new URLSearchParams(location.search));
//   const { options } = readOptions({ t: 95.2, camera: 'follow', autoplay: true });
//
// Pure: no DOM, no player. Values come from strangers (a link someone posted, a host page's
// attributes): nothing here throws. A value that cannot be read is left out of `options` and named
// in `notices` (one sentence each, for the page to show as text); unknown names are noticed too.
// Writing them back into a link is www/api/links.ts's (linkQuery(), formatTime()): apart, so that the
// first load, which only reads a link, does not carry the writer (the Share dialog loads it).

import { SPEEDS } from '../core/speeds.ts';
import type { LinkTime, MomentOptions } from '../core/moment.ts';

/** Camera modes a link may ask for (the renderer's names, docs/renderer.md "Cameras"). */
export const CAMERA_MODES = Object.freeze(['orbit', 'free', 'follow', 'first', 'kill'] as const);
export type CameraMode = (typeof CAMERA_MODES)[number];
/** Side panels embed.html can show (`panels=`). */
export const PANELS = Object.freeze(['recording', 'roster', 'kills'] as const);
export type PanelName = (typeof PANELS)[number];

/** A time as a link gives it (core/moment.ts applies it). */
export type { LinkTime } from '../core/moment.ts';

/** The options read (docs/embedding.md "Options"): each present only when its value was read. What
 *  the player applies to a load (core/moment.ts MomentOptions), and what the page and embeds read. */
export interface Options extends Omit<MomentOptions, 'camera'> {
  url?: string;
  camera?: CameraMode;
  controls?: boolean;
  panels?: PanelName[];
  origin?: string[];
  aspect?: number;
} /** Longest text value read (a callsign, a URL); longer values are refused, not cut. */
export const MAX_VALUE_LENGTH = 2048;
/** Most numbers in a camera pose (`view=`). */
export const MAX_VIEW_NUMBERS = 8;

const TIME_HELP = 'use seconds (95.2), m:ss (1:35.2), h:mm:ss or tick:5712';

/**
 * A time as links write it: `95.2` (seconds), `1:35.2` (m:ss.s), `1:02:03` (h:mm:ss),
 * `1m35.2s` / `2h` (YouTube's), or `tick:5712` (a tick number). Returns `{ seconds }` or
 * `{ tick }`, or null when it is none of these. Negative times are not times.
 */
export function parseTime(value: unknown): LinkTime | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? { seconds: value } : null;
  if (typeof value !== 'string') return null;
  const s = value.trim();
  if (s.length === 0 || s.length > 32) return null;
  let m = /^tick:(\d{1,15})$/i.exec(s);
  if (m) return { tick: Number(m[1]) };
  if (/^\d+(\.\d+)?$/.test(s)) return { seconds: Number(s) };
  m = /^(?:(\d+):)?(\d+):(\d{1,2}(?:\.\d+)?)$/.exec(s);
  if (m) {
    const [h, min, sec] = [Number(m[1] ?? 0), Number(m[2]), Number(m[3])];
    if (sec >= 60 || (m[1] !== undefined && min >= 60)) return null;
    return { seconds: h * 3600 + min * 60 + sec };
  }
  m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/i.exec(s);
  if (m && (m[1] || m[2] || m[3])) {
    return { seconds: Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) };
  }
  return null;
}

function parseBool(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  if (typeof value !== 'string') return null;
  const s = value.trim().toLowerCase();
  // A bare attribute (`<replay-player autoplay>`) or `?autoplay` reads as on.
  if (s === '' || s === '1' || s === 'true' || s === 'yes' || s === 'on') return true;
  if (s === '0' || s === 'false' || s === 'no' || s === 'off') return false;
  return null;
}

function parseText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const s = value.trim();
  return s.length > 0 && s.length <= MAX_VALUE_LENGTH ? s : null;
}

function parseSpeed(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  return (SPEEDS as readonly number[]).includes(n) ? n : null;
}

function parseCamera(value: unknown): CameraMode | null {
  const s = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return CAMERA_MODES.find((m) => m === s) ?? null;
}

/** `panels=roster,kills` (or an array): the known names, in the order given, without repeats. */
function parsePanels(value: unknown): PanelName[] | null {
  const list: unknown[] | null = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!list || list.length > PANELS.length * 2) return null;
  const out: PanelName[] = [];
  for (const v of list) {
    const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
    if (s === '' || s === 'none') continue;
    const panel = PANELS.find((p) => p === s);
    if (!panel) return null;
    if (!out.includes(panel)) out.push(panel);
  }
  return out;
}

/** A camera pose: up to MAX_VIEW_NUMBERS finite numbers, comma-separated (or an array). */
function parseView(value: unknown): number[] | null {
  const list: unknown[] | null = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
  if (!list || list.length === 0 || list.length > MAX_VIEW_NUMBERS) return null;
  const out: number[] = [];
  for (const v of list) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) return null;
    out.push(n);
  }
  return out;
}

/** `origin=https://a.example,https://b.example`: exact origins (scheme://host[:port]). */
function parseOrigins(value: unknown): string[] | null {
  const list: unknown[] | null = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(/[\s,]+/)
      : null;
  if (!list || list.length > 16) return null;
  const out: string[] = [];
  for (const v of list) {
    if (typeof v !== 'string' || v === '') continue;
    let u;
    try {
      u = new URL(v);
    } catch {
      return null;
    }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.origin !== v.replace(/\/$/, '')) return null;
    if (!out.includes(u.origin)) out.push(u.origin);
  }
  return out.length ? out : null;
}

/** `aspect=16:9`, `4/3` or a number (width / height), between 0.2 and 5. */
function parseAspect(value: unknown): number | null {
  let n = typeof value === 'number' ? value : NaN;
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[:/]\s*(\d+(?:\.\d+)?))?\s*$/.exec(value);
    if (m) n = m[2] === undefined ? Number(m[1]) : Number(m[1]) / Number(m[2]);
  }
  return Number.isFinite(n) && n >= 0.2 && n <= 5 ? n : null;
}

/**
 * Every option: its reader, and the notice when the value cannot be read. `url` and `src` are one
 * option (`src` for create() and the element's attribute).
 */
const READERS: { [K in keyof Options]-?: [(value: unknown) => Options[K] | null, string] } = {
  url: [parseText, 'not a replay address'],
  t: [parseTime, TIME_HELP],
  end: [parseTime, TIME_HELP],
  loop: [parseBool, 'use 1 or 0'],
  follow: [parseText, 'not a callsign or entity id'],
  camera: [parseCamera, `use one of ${CAMERA_MODES.join(', ')}`],
  view: [parseView, `up to ${MAX_VIEW_NUMBERS} numbers separated by commas`],
  speed: [parseSpeed, `use one of ${SPEEDS.join(', ')}`],
  autoplay: [parseBool, 'use 1 or 0'],
  spoilers: [parseBool, 'use 1 or 0'],
  controls: [parseBool, 'use 1 or 0'],
  panels: [parsePanels, `use names among ${PANELS.join(', ')}`],
  poster: [parseTime, TIME_HELP],
  origin: [parseOrigins, 'use origins such as https://example.com, separated by commas'],
  aspect: [parseAspect, 'use a ratio such as 16:9'],
};
/** Whether `name` is an option's own name. */
const isOption = (name: string): name is keyof Options => Object.hasOwn(READERS, name);
const ALIASES: Record<string, keyof Options> = { src: 'url', start: 't' };
/** Parameters the full page reads for itself (not options of the player; never noticed). */
const PAGE_PARAMS = new Set(['renderer', 'render', 'live']);

/** Shows a value in a notice: short, one line (a notice is text, but a link can be long). */
function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : Array.isArray(v) ? v.join(',') : String(v);
  const one = s.replace(/\p{Cc}/gu, ' ');
  return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

/**
 * Reads options from URL parameters (a URLSearchParams) or a plain object (create()'s options, the
 * element's attributes). Returns `{ options, notices }`: `options` holds only values that were read
 * (times as `{ seconds }` / `{ tick }`, booleans, numbers, arrays), `notices` one sentence for each
 * value ignored. Option names are case-sensitive, as URL parameters are.
 */
export function readOptions(source: unknown): { options: Options; notices: string[] } {
  const options: Options = {};
  const notices: string[] = [];
  const entries: [string, unknown][] =
    source instanceof URLSearchParams
      ? [...source.entries()]
      : source && typeof source === 'object'
        ? Object.entries(source)
        : [];
  for (const [rawName, value] of entries) {
    if (typeof rawName !== 'string' || PAGE_PARAMS.has(rawName)) continue;
    const name = Object.hasOwn(ALIASES, rawName) ? ALIASES[rawName] : isOption(rawName) ? rawName : null;
    if (name === null) {
      // create()'s object may carry the page's own settings (forceWebgl, renderInPage…): only a
      // URL parameter or an attribute is a stranger's word worth a notice.
      if (source instanceof URLSearchParams) notices.push(`Ignored the unknown parameter "${shown(rawName)}".`);
      continue;
    }
    if (value === undefined || value === null) continue;
    const [read, help] = READERS[name];
    const v = read(value);
    if (v === null) notices.push(`Ignored ${rawName}=${shown(value)}: ${help}.`);
    else (options as Record<keyof Options, unknown>)[name] = v;
  }
  return { options, notices };
}
