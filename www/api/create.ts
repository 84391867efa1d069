// The player a site embeds: one replay on one canvas (docs/player-api.md, the whole surface;
// docs/embedding.md "Script").
//
//   import { create } from './create.ts';
//   const p = create(srcOrNull, element, { t: '1:35', follow: 'Iceman', autoplay: true });
//   p.on('ready', (info) => ...); p.play(); p.seek(12.5); p.currentTime; p.duration;
//   p.load(fileOrUrlOrBytes, options); p.dispose();
//
// create() is the embed forms' player: its own UI (embed/mount.ts: frame, keys, compact controls),
// workers from wherever this file is served, nothing decoded until it is in view. It returns the
// published handle (api/player.ts); the controller behind it (api/controller.ts) stays inside.
import { handleOf, type Player } from './player.ts';
import type { PlayerOptions, ReplaySource } from '../lib/types.ts';
import { embedded } from './embedded.ts';

export { CAMERA_MODES, SPEEDS, FACTION_COLOURS, factionColour, VERSION, READS } from './constants.ts';
export type { Player } from './player.ts';
export type {
  Diagnostics,
  Perf,
  PieceTimes,
  Snapshot,
  FrameCopy,
  LabelInfo,
  PieceSummary,
  FeedRow,
  WorkerStats,
} from '../core/diagnostics.ts';
export type * from '../lib/types.ts';

/**
 * The embed forms' player (docs/embedding.md "Script"): creates a player on `element` (the
 * container the canvas fills) and, when `src` is given (a URL, a File/Blob or an ArrayBuffer),
 * starts loading it with `opts` (docs/embedding.md "Options": t, end, loop, follow, camera, view,
 * speed, autoplay, spoilers, poster, controls, aspect). Its workers start wherever player.js is
 * served (another origin too: www/bridge/spawn.ts); it decodes nothing until `element` comes into
 * view (`lazy: false`: at once). Its own UI (embed/mount.ts) is drawn into
 * `element`: the frame, keyboard shortcuts while it has focus and, unless `controls: false`, the
 * compact controls; `ui: false` draws none (embed.js and element.js mount it themselves).
 * `opts` also takes forceWebgl, renderInPage (draw on the page instead of in a render worker).
 */
export function create(src: ReplaySource | null, element: HTMLElement, opts: PlayerOptions = {}): Player {
  return handleOf(embedded(src, element, opts));
}
