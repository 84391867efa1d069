// Links to a moment: the query string of www/api/options.ts's vocabulary, written back (the Share
// dialog's links and embed snippets: www/features/share/links.ts).
//
//   import { linkQuery } from './links.ts';
//   `${base}?${linkQuery({ url, t: { seconds: 95.2 }, follow: 'Viper', camera: 'follow' })}`
//
// Pure. readOptions() (api/options.ts) reads back exactly what linkQuery() writes
// (tests/unit/options.test.mjs). A module apart from api/options.ts so that the first load, which only
// reads a link, does not carry the writer.

import type { Options } from './options.ts';

/** A time to write: a tick when it has one, else seconds. */
export interface TimeRef {
  seconds?: number;
  tick?: number;
}

/** What a link says: the options' vocabulary (`follow` a callsign or an id; times as TimeRef). */
export type LinkOptions = Omit<Options, 'follow' | 't' | 'end'> & {
  follow?: string | number | null;
  t?: TimeRef;
  end?: TimeRef;
};

/** Writes a time the way links carry it: seconds with at most 3 decimals, or `tick:N`. */
export function formatTime(t: TimeRef | null | undefined): string {
  if (t?.tick !== undefined && Number.isSafeInteger(t.tick) && t.tick >= 0) return `tick:${t.tick}`;
  const s = t?.seconds;
  if (s === undefined || !Number.isFinite(s) || s < 0) return '0';
  return String(Math.round(s * 1000) / 1000);
}

/**
 * The query string of a link to a moment: `?url=…&t=…` plus what is given (`end`, `loop`, `follow`,
 * `camera`, `view`, `speed`, `spoilers`…), in a fixed order. Values are encoded by URLSearchParams.
 */
export function linkQuery(o: LinkOptions): string {
  const q = new URLSearchParams();
  if (o.url) q.set('url', o.url);
  if (o.t) q.set('t', formatTime(o.t));
  if (o.end) q.set('end', formatTime(o.end));
  if (o.loop) q.set('loop', '1');
  if (o.follow !== undefined && o.follow !== null && o.follow !== '') q.set('follow', String(o.follow));
  if (o.camera) q.set('camera', o.camera);
  if (Array.isArray(o.view) && o.view.length) {
    q.set('view', o.view.map((n) => String(Math.round(n * 1e4) / 1e4)).join(','));
  }
  if (o.speed !== undefined && o.speed !== 1) q.set('speed', String(o.speed));
  if (o.autoplay) q.set('autoplay', '1');
  if (o.spoilers === false) q.set('spoilers', '0');
  if (o.controls === false) q.set('controls', '0');
  if (Array.isArray(o.panels) && o.panels.length) q.set('panels', o.panels.join(','));
  return q.toString();
}
