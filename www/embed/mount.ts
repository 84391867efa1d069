// The player's own UI, one component for the three embed forms (docs/embedding.md): the frame
// around the canvas (player.css linked into the document or the shadow root, the aspect ratio,
// focus, loading / error / notice messages: embed/frame.ts), keyboard shortcuts while the
// player has focus (widgets/keyboard.ts), the compact controls (embed/compact.ts), and a live
// recording's badge and edge following (features/live/view.ts, imported on the first live open:
// `load({live})` from any of the three forms).
//
//   import { mountUI } from './mount.ts';
//   const ui = mountUI(handle, element, { controls: true, aspect: 16 / 9 });
//   ui.setControls(false); ui.setAspect(4 / 3); ui.dispose();
//
// create() (player.js) mounts it; embed.js and element.js mount it themselves. The full page draws
// its own UI (createPlayer()) and never downloads this: nothing here runs at import (esbuild drops
// it from the full page's bundle).
import { bindKeyboard, type KeyboardPlayer, type KeyTarget } from '../widgets/keyboard.ts';
import { createFrame, type FramePlayer } from './frame.ts';
import { createControls, type Controls, type ControlsPlayer } from './compact.ts';
import { playerCssUrl } from '../lib/shipped.ts';
import type { attachLiveView } from '../features/live/view.ts';

/** The live view (features/live/view.ts), as the UI keeps it. */
type LiveView = ReturnType<typeof attachLiveView>;
/** What the live view asks of the player. */
type LiveViewPlayer = Parameters<typeof attachLiveView>[0];

/** The handle's `info` event as the UI reads it: a live open names its source. */
interface LiveInfoEvents {
  info: { live?: unknown } | null;
}

/** What the UI asks of the player (the public handle, www/api/player.ts): its parts' needs. */
export type MountPlayer = FramePlayer &
  KeyboardPlayer &
  ControlsPlayer &
  LiveViewPlayer & {
    readonly info: Parameters<typeof attachLiveView>[2];
    on<K extends keyof LiveInfoEvents>(ev: K, fn: (payload: LiveInfoEvents[K]) => void): () => void;
  };

/** mountUI()'s options (see mountUI()). */
export interface MountOptions {
  controls?: boolean;
  aspect?: number | null;
  fill?: boolean;
  keys?: KeyTarget;
}

/** What mountUI() returns. */
export interface MountedUI {
  setControls(on: boolean): void;
  setAspect(a?: number | null): void;
  /** Shows `text` over the picture (or hides the message with ''). */
  message(text: string, error?: boolean): void;
  dispose(): void;
}

/** The player's stylesheet, beside this module wherever the player is hosted. */
export const stylesheet = () => playerCssUrl().href;

/**
 * Mounts the UI on `element` (the container the player's canvas fills).
 * `controls`: the compact controls (default on); `aspect`: width / height (default 16:9);
 * `fill`: fill the container instead (embed.html); `keys`: where keyboard shortcuts are listened
 * for (default `element`: only while the player has focus).
 */
export function mountUI(
  player: MountPlayer,
  element: HTMLElement,
  { controls = true, aspect, fill = false, keys = element }: MountOptions = {},
): MountedUI {
  const frame = createFrame(player, element, { stylesheet: stylesheet(), aspect, fill });
  const unbindKeys = bindKeyboard(player, keys);
  let bar: Controls | null = null;
  const setControls = (on: boolean) => {
    if (on && !bar) bar = createControls(player, element);
    else if (!on && bar) {
      bar.dispose();
      bar = null;
    }
  };
  // The live view; it disposes itself when another recording opens (`disposed`).
  let live: LiveView | null = null;
  let gone = false;
  const liveOn = () => !!live && !live.disposed;
  const offLive = player.on('info', (open: LiveInfoEvents['info']) => {
    if (!open?.live || liveOn()) return;
    import('../features/live/view.ts').then(
      ({ attachLiveView }) => {
        // The live open may have been replaced while the module came (or the UI disposed).
        if (gone || liveOn() || !player.info?.live) return;
        live = attachLiveView(player, element, player.info);
      },
      (e) => frame.message(`The live view could not be loaded: ${e?.message ?? e}`, true),
    );
  });
  setControls(controls !== false);
  return {
    setControls,
    setAspect: frame.setAspect,
    /** Shows `text` over the picture (or hides the message with ''). */
    message: frame.message,
    dispose() {
      gone = true;
      offLive();
      live?.dispose();
      setControls(false);
      unbindKeys();
      frame.dispose();
    },
  };
}
