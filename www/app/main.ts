// Page boot: creates the player on the stage, wires the UI (each part handed to what needs it),
// opens ?url=, a picked or dropped file, or the bundled demo. Exposes the facade as window.__player
// (the test hook); the UI's parts answer tests on their own elements (docs/playback.md).
import { createController } from '../api/controller.ts';
import { SEEK_STEP_S, factionColour, NO_ENTITY, VERSION, readsLine } from '../api/constants.ts';
import { eventKindKey, eventText } from '../widgets/events.ts';
import { WorkerClient } from '../bridge/decoder.ts';
import { Rpc, type NewRpc } from '../bridge/rpc.ts';
import { createTimeline } from './timeline.ts';
import { createPanels } from './panels.ts';
import { bindKeyboard } from '../widgets/keyboard.ts';
import { el } from '../widgets/format.ts';
import { shippedUrl, startCompare } from '../lib/shipped.ts';
import type { Controller } from '../api/controller.ts';
import type { CameraMode, PlayerEventMap } from '../lib/types.ts';
import type { Timeline } from './timeline.ts';
import type { Panels } from './panels.ts';
import type { Hud } from './hud.ts';
import type { Menus } from './menus.ts';
import type { RecordingBanner } from './recording-banner.ts';
import type { createShare } from '../features/share/dialog.ts';
import type { createAnalysis } from '../features/analysis/panel.ts';
import type { createFoldbackView } from '../features/foldback/view.ts';
import type { createCompare } from '../features/compare/view.ts';
import type { createLiveView } from '../features/live/view.ts';

/** The page's UI: each lazily loaded part once it exists (kept here, handed to what needs it).
 *  Test / inspection: #scrubber, #scrub-markers, #killfeed, #roster, .rec-banner and .live-badge
 *  answer inspect() themselves, as the features' elements do below (docs/playback.md). */
interface AppUi {
  timeline: Timeline;
  panels: Panels;
  banner?: RecordingBanner;
  hud?: Hud;
  menus?: Menus;
  live?: ReturnType<typeof createLiveView>;
}

type Share = ReturnType<typeof createShare>;
type Analysis = ReturnType<typeof createAnalysis>;
type FoldbackView = ReturnType<typeof createFoldbackView>;
type Compare = ReturnType<typeof createCompare>;

/** An installed app's launch queue (the manifest's file_handlers; not in TypeScript's DOM library). */
interface LaunchQueue {
  setConsumer(consumer: (params: { files?: readonly FileSystemFileHandle[] }) => void): void;
}

declare global {
  interface Window {
    /** The page's player (the test hook). */
    __player: Controller;
    launchQueue?: LaunchQueue;
  }
}

// (The page's elements: index.html has each one asked for.)
const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
// A replay host's page /r/{id} names its replay in <meta name="replay-src"> (no inline script under
// its CSP); the link's own parameters (t, follow…) are in the address as on any share link
// (docs/hosting.md "The pages").
const hostSrc = document.querySelector<HTMLMetaElement>('meta[name="replay-src"]')?.content;
if (hostSrc) params.set('url', hostSrc);
/** The host page's own replay: its title (from the file, escaped by the host) names it, not its id. */
const hosted = hostSrc
  ? {
      url: new URL(hostSrc, location.href).href,
      name: document.querySelector<HTMLMetaElement>('meta[property="og:title"]')?.content || '',
      title: document.title,
    }
  : undefined;
const DEMO = 'demo/demo.flrep';

const stage = $('stage');
const player = createController(null, stage, {
  forceWebgl: params.get('renderer') === 'webgl',
  renderInPage: params.get('render') === 'page',
});
window.__player = player;

const ui: AppUi = {
  // The timeline's zoom (app/timeline-zoom.ts) is imported on the first wheel or touch on it.
  timeline: createTimeline(player, document, { loadZoom: () => import('./timeline-zoom.ts') }),
  panels: createPanels(player),
};

// What only some recordings need, imported on first use: the note over the stage about a file cut
// short (and its kill scan), the hatching of the parts skipped on the timeline (damaged chunks).
player.on('info', function cutOnce(open: PlayerEventMap['info']) {
  if (open.markersComplete && !open.info.warnings.length) return;
  player.off('info', cutOnce);
  import('./recording-banner.ts').then(({ createRecordingBanner }) => {
    ui.banner = createRecordingBanner(player, stage, open);
  });
});
player.on('gap', function gapsOnce() {
  player.off('gap', gapsOnce);
  // (A notice for each gap, in words: what was skipped and why.)
  import('./gap-layer.ts').then(({ createGapLayer }) =>
    ui.timeline.showGaps(
      createGapLayer(player, $('scrubber'), (text) => toast('notice', text, 8000), ui.timeline.span),
    ),
  );
});

// ---------------------------------------------------------------- status: progress, errors

const progress = $('progress');
const progressBar = $('progress-bar');
const progressText = $('progress-text');
const errorBox = $('error');
const errorText = $('error-text');
const fileName = $('file-name');
const badge = $('backend-badge');
const cameraModes = $('camera-modes');
const cameraButtons = [...cameraModes.querySelectorAll<HTMLButtonElement>('button[data-mode]')];
const resetCamera = $<HTMLButtonElement>('reset-camera');
const shareBtn = $<HTMLButtonElement>('share-open');
const analysisBtn = $<HTMLButtonElement>('analysis-open');
const exportBtn = $<HTMLButtonElement>('export-open');

const PHASES: Record<string, [text: string, fraction: number]> = {
  wasm: ['Starting the decoder…', 0.05],
  connect: ['Connecting…', 0.1],
  download: ['Downloading…', 0.1],
  open: ['Reading the file index…', 0.3],
};

function showProgress(text: string, fraction: number) {
  progress.hidden = false;
  progressText.textContent = text;
  progressBar.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

function showError(message: unknown) {
  progress.hidden = true;
  const m = String(message);
  errorText.textContent = m.charAt(0).toUpperCase() + m.slice(1);
  errorBox.hidden = false;
}

player.on('loadstart', ({ name: fileName_, src }: PlayerEventMap['loadstart']) => {
  errorBox.hidden = true;
  const own = hosted?.name && typeof src === 'string' && new URL(src, location.href).href === hosted.url;
  const name = own ? hosted.name : fileName_;
  const short = name.length > 120 ? `${name.slice(0, 117)}…` : name;
  fileName.textContent = short;
  fileName.title = name;
  document.title = own ? hosted.title : `${short} — Replay Player`;
  for (const b of cameraButtons) b.disabled = true;
  resetCamera.disabled = shareBtn.disabled = analysisBtn.disabled = exportBtn.disabled = true;
  showCameraMode('orbit');
  showProgress('Opening…', 0.02);
});

player.on('progress', (m: PlayerEventMap['progress']) => {
  const [text, base] = PHASES[m.phase] ?? ['Opening…', 0.2];
  let f = base;
  if (m.phase === 'download' && m.total > 0) f = 0.1 + 0.6 * (m.loaded / m.total);
  if (m.phase === 'open' && m.total > 0) f = 0.3 + 0.4 * (m.loaded / m.total);
  showProgress(text, f);
});

player.on('info', () => showProgress('Decoding the first seconds…', 0.85));

player.on('ready', () => {
  progressBar.style.width = '100%';
  progress.hidden = true;
  for (const b of cameraButtons) b.disabled = false;
  resetCamera.disabled = shareBtn.disabled = analysisBtn.disabled = exportBtn.disabled = false;
  showCameraMode(player.cameraMode());
  // A link's clip (t + end) is drawn on the timeline.
  if (player.clip) share(() => {});
});

player.on('error', ({ message }: PlayerEventMap['error']) => showError(message));
$('error-dismiss').addEventListener('click', () => {
  errorBox.hidden = true;
});

player.on('backend', (b: PlayerEventMap['backend']) => {
  badge.textContent = b === 'webgl2' ? 'WebGL2' : b === 'webgpu' ? 'WebGPU' : b;
  badge.title = `Graphics backend: ${badge.textContent}`;
});

// ---------------------------------------------------------------- camera modes

function showCameraMode(mode: string) {
  for (const b of cameraButtons) {
    const on = b.dataset.mode === mode;
    b.setAttribute('aria-checked', String(on));
    b.classList.toggle('on', on);
  }
}
for (const b of cameraButtons) {
  b.addEventListener('click', () => {
    player.setCameraMode(b.dataset.mode as CameraMode);
    showCameraMode(player.cameraMode());
  });
}
resetCamera.addEventListener('click', () => {
  player.resetCamera();
  showCameraMode(player.cameraMode());
});
player.on('cameramode', showCameraMode);
// The first-person instruments (app/hud.ts), imported the first time the camera rides an entity.
let hud: Promise<Hud> | null = null;
player.on('cameramode', (mode: PlayerEventMap['cameramode']) => {
  if (mode !== 'first' && !hud) return;
  hud ??= import('./hud.ts').then((m) => (ui.hud = m.createHud(player, $('stage'))));
  hud.then((h) => h.show(player.cameraMode() === 'first'));
});
player.on('selection', () => showCameraMode(player.cameraMode()));

// ---------------------------------------------------------------- every size: the menu, the drawer

// The ☰ menu (at most 1240 px wide) and the Details drawer (narrow landscape): app/menus.ts, loaded
// when one is first opened. ui.menus once it exists (Escape closes them).
let menusReady: Promise<Menus> | null = null;
const menus = (fn: (m: Menus) => void) => {
  menusReady ??= import('./menus.ts').then(
    (m) =>
      (ui.menus = m.createMenus({
        topbar: document.querySelector('.topbar') as Element,
        menuBtn: $('menu-toggle'),
        menu: $('top-actions'),
        sideBtn: $('side-toggle'),
        layout: $('layout'),
      })),
  );
  menusReady.then(fn, () => {
    menusReady = null;
  });
};
$('menu-toggle').addEventListener('click', () => menus((m) => m.toggleMenu()));
$('side-toggle').addEventListener('click', () => menus((m) => m.toggleDrawer()));

// ---------------------------------------------------------------- kill cam badge, toasts

const killBadge = $('killcam-badge');
const killSub = $('killcam-sub');
player.on('killcam', ({ active, holding, kill }: PlayerEventMap['killcam']) => {
  killBadge.hidden = !active;
  killBadge.classList.toggle('holding', !!holding);
  stage.classList.toggle('killcam-on', !!active);
  if (active && kill)
    killSub.textContent = `${player.entityName(kill.killer)} → ${player.entityName(kill.victim)} · 0.5×`;
});

const toasts = $('toasts');
/** A toast (text only); a notice about the link stays long enough to be read. */
function toast(kind: string, text: string, ms = 2200) {
  const t = el('div', `toast toast-${kind}`, text);
  toasts.append(t);
  while (toasts.childElementCount > 4) toasts.firstElementChild?.remove();
  setTimeout(() => t.classList.add('out'), ms);
  setTimeout(() => t.remove(), ms + 500);
}
player.on('toast', ({ kind, text }: PlayerEventMap['toast']) => toast(kind === 'pickup' ? 'pickup' : 'info', text));
// Options of the link the page could not use (a malformed t, a follow that names nobody).
player.on('notice', ({ text }: PlayerEventMap['notice']) => toast('notice', text, 8000));
player.on('loadstart', () => {
  toasts.replaceChildren();
  killBadge.hidden = true;
});

// ---------------------------------------------------------------- keyboard + help overlay

// The overlay's table of keys (app/keys.ts) is loaded when it first opens.
const help = $('help');
let helpReady: Promise<void> | null = null;
function toggleHelp(show = help.hidden) {
  if (!show) {
    help.hidden = true;
    return;
  }
  helpReady ??= import('./keys.ts').then((m) => {
    m.renderKeys($('help-keys'));
    // About: the version and what it reads (docs/versions.md).
    $('help-about').textContent = `replay-player ${VERSION} · ${readsLine()}`;
  });
  helpReady.then(
    () => {
      help.hidden = false;
      $('help-close').focus();
    },
    () => {
      helpReady = null;
    },
  );
}
$('help-open').addEventListener('click', () => toggleHelp(true));
$('help-close').addEventListener('click', () => toggleHelp(false));
help.addEventListener('click', (e) => {
  if (e.target === help) toggleHelp(false);
});
bindKeyboard(player, document, {
  onHelp: () => toggleHelp(),
  onClip: (point: 'in' | 'out', t = player.currentTime) => share((s) => s.mark(point, t)),
  onMatch: (dir: 1 | -1) =>
    analysis((a) => {
      a.show(true);
      a.step(dir);
    }),
  onEscape: () => {
    if (help.hidden) return (ui.menus?.close() ?? false) || ui.timeline.unzoom();
    toggleHelp(false);
    return true;
  },
});

// ---------------------------------------------------------------- share: links, the clip, embeds

// features/share/dialog.ts (the Share dialog; the clip's in / out points on the timeline) is loaded on first
// use: the Share button, I / O, or a link with a clip (test / inspection: dialog#share's refresh()).
// Export → Video, from the Export dialog or the Share dialog's clip (features/export/video.ts on first
// use; test / inspection: dialog#video-export's exportVideo()).
const video = (opener: HTMLElement = shareBtn) =>
  import('../features/export/video.ts').then(
    (m) => m.openVideoDialog(player, { opener }),
    (e) => toast('notice', `Video export could not be loaded: ${e?.message ?? e}`),
  );
let shareReady: Promise<Share> | null = null;
function share(fn: (s: Share) => void) {
  shareReady ??= import('../features/share/dialog.ts').then((m) =>
    m.createShare(player, {
      opener: shareBtn,
      timeline: ui.timeline,
      step: SEEK_STEP_S,
      video,
    }),
  );
  shareReady.then(fn, (e) => {
    shareReady = null;
    toast('notice', `Sharing could not be loaded: ${e?.message ?? e}`);
  });
}
shareBtn.addEventListener('click', () => share((s) => s.open()));

// The Rpc (www/bridge/rpc.ts) of the export and compare workers: handed to their features, which
// import only its types, so that it stays in main.js (the decoder's client holds it already).
const newRpc: NewRpc = (port, options) => new Rpc(port, options);

// Export (www/features/export/open.ts: the dialog, ACMI and clips in the export worker) is loaded on first use
// (test / inspection: dialog#export's inspect()).
let exportSrc: PlayerEventMap['loadstart']['src'] | undefined;
player.on('loadstart', (e: PlayerEventMap['loadstart']) => (exportSrc = e.src));
exportBtn.addEventListener('click', () =>
  import('../features/export/open.ts').then(
    (m) => m.openExport(player, exportSrc, exportBtn, { video: () => video(exportBtn), newRpc }),
    (e) => toast('notice', `Export could not be loaded: ${e?.message ?? e}`),
  ),
);

// ---------------------------------------------------------------- analysis: scores, filters, range

// features/analysis/panel.ts (the scoreboard, the filter of the feed and the markers with N / Shift+N, the
// search, range and bearing, the inspector's units, the kill announcer) is loaded when the panel
// first opens (the Analysis button, or N / Shift+N). Test / inspection: #panel-analysis's inspect() and
// setRange(), #an-plots' (the plots) inspect() and the rest (features/analysis/telemetry.ts).
let analysisReady: Promise<Analysis> | null = null;
function analysis(fn: (a: Analysis) => void) {
  analysisReady ??= import('../features/analysis/panel.ts').then((m) =>
    m.createAnalysis(player, {
      root: $('panel-analysis'),
      opener: analysisBtn,
      stage,
      timeline: ui.timeline,
      panels: ui.panels,
      lib: { factionColour, NO_ENTITY, eventKindKey, eventText },
    }),
  );
  analysisReady.then(fn, (e) => {
    analysisReady = null;
    toast('notice', `The Analysis panel could not be loaded: ${e?.message ?? e}`);
  });
}
analysisBtn.addEventListener('click', () => analysis((a) => a.toggle()));
// Shift+click on the view or in the roster measures range and bearing to that entity: the first
// one loads the panel (which listens itself from then on).
player.on('pick', ({ id, shiftKey }: PlayerEventMap['pick']) => {
  if (shiftKey && id >= 0 && !analysisReady) analysis((a) => a.shiftPick(id));
});
ui.panels.onShiftPick = (id) => analysis((a) => a.shiftPick(id));

// ---------------------------------------------------------------- .foldback divergence view

// features/foldback/view.ts (and features/foldback/foldback-live.ts, which it imports) is loaded on
// first use: a .flrep or SparkEngine session never downloads it. `fbView` once it exists (test /
// inspection: #foldback's inspect()).
let foldbackReady: Promise<FoldbackView> | null = null;
let fbView: FoldbackView | null = null;
function foldbackView(): Promise<FoldbackView> {
  foldbackReady ??= import('../features/foldback/view.ts').then(
    ({ createFoldbackView }) =>
      (fbView = createFoldbackView({
        root: $('foldback'),
        onShow: (on: boolean) => stage.classList.toggle('foldback-on', on),
        newClient: (o: ConstructorParameters<typeof WorkerClient>[0]) => new WorkerClient(o),
      })),
  );
  foldbackReady.catch(() => {
    foldbackReady = null;
  });
  return foldbackReady;
}
const withFoldback = (fn: (v: FoldbackView) => void) =>
  foldbackView().then(fn, (e) => {
    progress.hidden = true;
    showError(`the divergence view could not be loaded: ${e?.message ?? e}`);
  });
// Every new file starts clean: a recording opened after a .foldback closes the divergence view
// (and a .foldback still loading its view when another file is opened does not open it).
let opens = 0;
player.on('loadstart', () => {
  opens++;
  fbView?.close();
});
player.on('foldback', ({ src }: PlayerEventMap['foldback']) => {
  progress.hidden = true;
  const mine = opens;
  withFoldback((v) => {
    if (mine === opens) v.openFiles([src]);
  });
});
$('live-open').addEventListener('click', () => withFoldback((v) => v.showLive()));
// ---------------------------------------------------------------- comparing two recordings

// features/compare/view.ts (the panel, the timeline's mark) and the compare worker with its wasm are loaded on
// the first comparison (test / inspection: #compare's inspect()).
let compareReady: Promise<Compare> | null = null;
function compare(a: File, b: File, notice = '') {
  compareReady ??= import('../features/compare/view.ts').then((m) =>
    m.createCompare(player, {
      root: $('compare'),
      newWorker: startCompare,
      newRpc,
      timeline: ui.timeline,
    }),
  );
  compareReady.then(
    (c) => {
      c.run(a, b);
      // After A's loadstart, which clears the toasts.
      if (notice) toast('notice', notice, 8000);
    },
    (e) => {
      compareReady = null;
      showError(`the comparison could not be loaded: ${e?.message ?? e}`);
    },
  );
}
const compareInput = $<HTMLInputElement>('compare-input');
$('compare-open').addEventListener('click', () => compareInput.click());
compareInput.addEventListener('change', () => {
  const files = [...(compareInput.files ?? [])];
  compareInput.value = '';
  if (files.length === 2) compare(files[0], files[1]);
  else if (files.length) toast('notice', `Pick two recordings to compare (${files.length} picked): A, then B.`, 8000);
});

/** Several .foldback files at once are compared (one per peer, or several runs); two recordings
 *  open the comparison of A and B (of more, the first two, and a notice says so). */
function openFiles(files: File[]) {
  const foldback = files.length > 1 && files.every((f) => /\.foldback$/i.test(f.name));
  if (foldback) withFoldback((v) => v.openFiles(files));
  else if (files.length > 1)
    compare(
      files[0],
      files[1],
      files.length > 2
        ? `Comparing ${files[0].name} with ${files[1].name} (${files.length} were picked): a comparison takes two.`
        : '',
    );
  else if (files.length) player.load(files[0]);
}

// ---------------------------------------------------------------- opening files

const input = $<HTMLInputElement>('file-input');
input.addEventListener('change', () => {
  openFiles([...(input.files ?? [])]);
  input.value = '';
});

const overlay = $('drop-overlay');
let dragDepth = 0;
const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
document.addEventListener('dragenter', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  overlay.hidden = false;
});
document.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  // (hasFiles: it has a dataTransfer.)
  e.dataTransfer!.dropEffect = 'copy';
});
document.addEventListener('dragleave', (e) => {
  if (!hasFiles(e)) return;
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) overlay.hidden = true;
});
document.addEventListener('drop', (e) => {
  e.preventDefault();
  dragDepth = 0;
  overlay.hidden = true;
  openFiles([...(e.dataTransfer?.files ?? [])]);
});

// ---------------------------------------------------------------- installed: files from the desktop

// An installed player opens .flrep / .replay / .foldback files from the desktop (the manifest's
// file_handlers) through the launch queue.
if ('launchQueue' in window) {
  window.launchQueue?.setConsumer(async ({ files }) => {
    const picked = await Promise.all((files ?? []).map((h) => h.getFile()));
    if (picked.length) openFiles(picked);
  });
}

// The service worker (sw.js: the shell and wasm, offline) once the first replay is up and the page
// is idle, so that its downloads never compete with the first frame.
player.on('ready', function registerOnce() {
  player.off('ready', registerOnce);
  if (!('serviceWorker' in navigator)) return;
  const later = window.requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 2000));
  // Beside this script (a host's /r/{id} page is not in the player's folder).
  later(() => navigator.serviceWorker.register(shippedUrl('./sw.js')).catch(() => {}));
});

// ---------------------------------------------------------------- first replay: a share link

// ?url=…&t=…&follow=…&camera=…&view=…&speed=…&end=…&loop=1&autoplay=1&spoilers=0
// (docs/embedding.md "Share links"); values the player cannot use arrive as notices. api/options.ts is
// fetched only for a link: the demo opens without it.
// ?live=: a live .flrep (www/features/live/view.ts, imported then: docs/live.md "The player").
const live = params.get('live');
if (live) import('../features/live/view.ts').then((m) => (ui.live = m.createLiveView(player, stage, live)));
else if (params.size === 0) player.load(DEMO);
else
  import('../api/options.ts').then(({ readOptions }) => player.load(readOptions(params).options.url ?? DEMO, params));
