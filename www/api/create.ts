// The player a site embeds: one replay on one canvas (docs/player-api.md, the whole surface;
// docs/embedding.md "Script").
//
//   import { create } from './create.ts';
//   const p = create(srcOrNull, element, { t: '1:35', follow: 'Iceman', autoplay: true });
//   p.on('ready', (info) => ...); p.play(); p.seek(12.5); p.currentTime; p.duration;
//   p.load(fileOrUrlOrBytes, options); p.dispose();
//
// create() is the embed forms' player: its own UI (embed/mount.ts: frame, keys, compact controls),
// workers from wherever this file is served, nothing decoded until it is in view. createPlayer()
// is the handle alone, for a page served with the player that draws its own UI (index.html).
//
// The handle itself and createPlayer() are www/api/player.ts's (re-exported here): its events are listed
// there and in docs/player-api.md.
import { Player, open } from './player.ts';
import type { PlayerOptions, ReplaySource } from './player.ts';
import { readOptions } from './options.ts';
import { spawnWorker } from '../bridge/spawn.ts';
import { whenInView } from '../view/viewport.ts';
import { mountUI } from '../embed/mount.ts';

export {
  createPlayer,
  SEEK_SHOW_MS,
  SPEEDS,
  State,
  STRIDE,
  NO_ENTITY,
  NO_WEAPON,
  FLAG_NAMES,
  findEntity,
  KILL_LEAD_S,
  SEEK_STEP_S,
  MAX_LABELS,
  CAMERA_MODES,
  FACTION_COLOURS,
  factionColour,
} from './player.ts';

/** create()'s options: a load's options and the embed's settings (`ui`, `lazy`, `controls`, `aspect`). */
export type CreateOptions = PlayerOptions & { ui?: boolean; lazy?: boolean; controls?: unknown; aspect?: unknown };

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
export function create(src: ReplaySource | null, element: HTMLElement, opts: CreateOptions = {}): Player {
  const { options } = readOptions({ controls: opts.controls, aspect: opts.aspect });
  const ui =
    opts.ui === false
      ? null
      : (p: Player) => mountUI(p, element, { controls: options.controls !== false, aspect: options.aspect });
  const inside = { ...opts, spawn: spawnWorker, whenInView: opts.lazy === false ? null : whenInView };
  return open(new Player(element, inside, ui), src, opts);
}
