// The embed forms' controller (create(), <replay-player>, embed.html): workers from wherever
// player.js is served (lib/shipped.ts), decoding once the element is in view (unless `lazy:
// false`), and the embed UI (embed/mount.ts) unless `ui: false` (the element and the iframe page
// mount it themselves). Internal: create() gives a site its published handle.
import { Controller, open, type ControllerOptions } from './controller.ts';
import type { PlayerOptions, ReplaySource } from '../lib/types.ts';
import { readOptions } from './options.ts';
import { whenInView } from '../view/viewport.ts';
import { mountUI } from '../embed/mount.ts';

/** A controller on `element` for an embed form, loading `src` (when given) with `opts`. */
export function embedded(src: ReplaySource | null, element: HTMLElement, opts: PlayerOptions = {}): Controller {
  const { options } = readOptions({ controls: opts.controls, aspect: opts.aspect });
  const ui =
    opts.ui === false
      ? null
      : (c: Controller) => mountUI(c, element, { controls: options.controls !== false, aspect: options.aspect });
  const inside: ControllerOptions = {
    ...(opts as ControllerOptions),
    whenInView: opts.lazy === false ? null : whenInView,
  };
  return open(new Controller(element, inside, ui), src, opts);
}
