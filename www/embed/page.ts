// The iframe embed, embed.html (docs/embedding.md "iframe and postMessage"): one player filling the
// frame, opened with the page's parameters (api/options.ts: the share links' vocabulary: url, t, end,
// loop, follow, camera, view, speed, autoplay, spoilers, poster) plus `controls=0|1`,
// `panels=kills,roster,recording` and `origin=` (who may command it over postMessage, where its
// events go: embed/postmessage.ts), or `live=` instead of `url=`: a live recording (a segments
// manifest.json or ws:// wss://, docs/live.md), with its LIVE badge (embed/mount.ts). Keys work while
// the frame has focus (they never reach the host).
import { embedded } from '../api/embedded.ts';
import { mountUI } from './mount.ts';
import { readOptions } from '../api/options.ts';
import { bindBridge } from './postmessage.ts';

/** The options embed.html reads from its URL (api/options.ts readOptions()). */
interface PageOptions {
  url?: string;
  controls?: boolean;
  panels?: string[];
  /** The origins allowed to command the player (absent: any, or none when `origin=` was unreadable). */
  origin?: string[];
}

const params = new URLSearchParams(location.search);
const { options }: { options: PageOptions } = readOptions(params);
// (embed.html's markup holds it.)
const frame = document.getElementById('player') as HTMLElement;
const player = embedded(null, frame, {
  ui: false,
  forceWebgl: params.get('renderer') === 'webgl',
  renderInPage: params.get('render') === 'page',
});
const ui = mountUI(player, frame, { controls: options.controls !== false, fill: true, keys: document });
// Test hook, as on the full page: the page's controller. (The UI's parts answer for themselves on
// their elements: the markers' canvas .rp-scrub-markers, #killfeed, .live-badge: inspect().)
(window as { __player?: unknown }).__player = player;

// An `origin=` that cannot be read commands nothing (rather than leaving the player to anyone).
if (!params.has('origin') || options.origin) bindBridge(player, { win: window, origins: options.origin ?? [] });

if (options.panels?.length) {
  import('./side-panels.ts').then(
    ({ createEmbedPanels }) =>
      createEmbedPanels(player, document.getElementById('panels') as HTMLElement, options.panels ?? []),
    (e) => ui.message(`The panels could not be loaded: ${e?.message ?? e}`, true),
  );
}

const live = params.get('live');
if (live) player.load({ live });
else if (options.url) player.load(options.url, params);
else ui.message('No replay to show: this embed needs ?url= (the replay’s address) or ?live=.', true);
