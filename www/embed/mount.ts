// @ts-nocheck
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
import { bindKeyboard } from '../widgets/keyboard.ts';
import { createFrame } from './frame.ts';
import { createControls } from './compact.ts';
import { shippedUrl } from '../lib/shipped.ts';

/** The player's stylesheet, beside this module wherever the player is hosted. */
export const stylesheet = () => shippedUrl('./player.css').href;

/**
 * Mounts the UI on `element` (the container the player's canvas fills).
 * `controls`: the compact controls (default on); `aspect`: width / height (default 16:9);
 * `fill`: fill the container instead (embed.html); `keys`: where keyboard shortcuts are listened
 * for (default `element`: only while the player has focus).
 */
export function mountUI(player, element, { controls = true, aspect, fill = false, keys = element } = {}) {
  const frame = createFrame(player, element, { stylesheet: stylesheet(), aspect, fill });
  const unbindKeys = bindKeyboard(player, keys);
  let bar = null;
  const setControls = (on) => {
    if (on && !bar) bar = createControls(player, element);
    else if (!on && bar) {
      bar.dispose();
      bar = null;
    }
  };
  // The live view; it disposes itself when another recording opens (`disposed`).
  let live = null;
  let gone = false;
  const liveOn = () => !!live && !live.disposed;
  const offLive = player.on('info', (open) => {
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
    /** The compact controls' parts (tests): `markers()` like the full page's timeline. */
    get controls() {
      return bar;
    },
    /** The live view while a live recording is open (features/live/view.ts), else null. */
    get live() {
      return liveOn() ? live : null;
    },
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
