// Page boot: creates the player on the stage, wires the UI, opens ?url=, a picked or dropped file,
// or the bundled demo. Exposes the facade as window.__player (test hook).
import { createPlayer, SEEK_STEP_S } from './handle.js';
import { WorkerClient } from './worker-client.js';
import { createTimeline } from './ui/timeline.js';
import { createPanels } from './ui/panels.js';
import { bindKeyboard } from './ui/keyboard.js';
import { el } from './ui/format.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const DEMO = 'demo/demo.flrep';

const stage = $('stage');
const player = createPlayer(null, stage, {
  forceWebgl: params.get('renderer') === 'webgl',
  renderInPage: params.get('render') === 'page',
});
window.__player = player;

// Test / inspection hooks of the UI (marker positions, kill feed rows): window.__ui.
window.__ui = { timeline: createTimeline(player), panels: createPanels(player) };

// What only some recordings need, imported on first use: the note over the stage about a file cut
// short (and its kill scan), the hatching of the parts skipped on the timeline (damaged chunks).
player.on('info', function cutOnce(open) {
  if (open.markersComplete && !open.info.warnings.length) return;
  player.off('info', cutOnce);
  import('./ui/recording-banner.js').then(({ createRecordingBanner }) => {
    window.__ui.banner = createRecordingBanner(player, stage, open);
  });
});
player.on('gap', function gapsOnce() {
  player.off('gap', gapsOnce);
  // (A notice for each gap, in words: what was skipped and why.)
  import('./ui/gaps.js').then(({ createGapLayer }) =>
    window.__ui.timeline.showGaps(
      createGapLayer(player, $('scrubber'), (text) => toast('notice', text, 8000), window.__ui.timeline.span),
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
const cameraButtons = [...cameraModes.querySelectorAll('button[data-mode]')];
const resetCamera = $('reset-camera');
const shareBtn = $('share-open');

const PHASES = {
  wasm: ['Starting the decoder…', 0.05],
  connect: ['Connecting…', 0.1],
  download: ['Downloading…', 0.1],
  open: ['Reading the file index…', 0.3],
};

function showProgress(text, fraction) {
  progress.hidden = false;
  progressText.textContent = text;
  progressBar.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%`;
}

function showError(message) {
  progress.hidden = true;
  const m = String(message);
  errorText.textContent = m.charAt(0).toUpperCase() + m.slice(1);
  errorBox.hidden = false;
}

player.on('loadstart', ({ name }) => {
  errorBox.hidden = true;
  const short = name.length > 120 ? `${name.slice(0, 117)}…` : name;
  fileName.textContent = short;
  fileName.title = name;
  document.title = `${short} — Replay Player`;
  for (const b of cameraButtons) b.disabled = true;
  resetCamera.disabled = shareBtn.disabled = true;
  showCameraMode('orbit');
  showProgress('Opening…', 0.02);
});

player.on('progress', (m) => {
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
  resetCamera.disabled = shareBtn.disabled = false;
  showCameraMode(player.cameraMode());
  // A link's clip (t + end) is drawn on the timeline.
  if (player.clip) share(() => {});
});

player.on('error', ({ message }) => showError(message));
$('error-dismiss').addEventListener('click', () => {
  errorBox.hidden = true;
});

player.on('backend', (b) => {
  badge.textContent = b === 'webgl2' ? 'WebGL2' : b === 'webgpu' ? 'WebGPU' : b;
  badge.title = `Graphics backend: ${badge.textContent}`;
});

// ---------------------------------------------------------------- camera modes

function showCameraMode(mode) {
  for (const b of cameraButtons) {
    const on = b.dataset.mode === mode;
    b.setAttribute('aria-checked', String(on));
    b.classList.toggle('on', on);
  }
}
for (const b of cameraButtons) {
  b.addEventListener('click', () => {
    player.setCameraMode(b.dataset.mode);
    showCameraMode(player.cameraMode());
  });
}
resetCamera.addEventListener('click', () => {
  player.resetCamera();
  showCameraMode(player.cameraMode());
});
player.on('cameramode', showCameraMode);
player.on('selection', () => showCameraMode(player.cameraMode()));

// ---------------------------------------------------------------- kill cam badge, toasts

const killBadge = $('killcam-badge');
const killSub = $('killcam-sub');
player.on('killcam', ({ active, holding, kill }) => {
  killBadge.hidden = !active;
  killBadge.classList.toggle('holding', !!holding);
  stage.classList.toggle('killcam-on', !!active);
  if (active && kill)
    killSub.textContent = `${player.entityName(kill.killer)} → ${player.entityName(kill.victim)} · 0.5×`;
});

const toasts = $('toasts');
/** A toast (text only); a notice about the link stays long enough to be read. */
function toast(kind, text, ms = 2200) {
  const t = el('div', `toast toast-${kind}`, text);
  toasts.append(t);
  while (toasts.childElementCount > 4) toasts.firstElementChild.remove();
  setTimeout(() => t.classList.add('out'), ms);
  setTimeout(() => t.remove(), ms + 500);
}
player.on('toast', ({ kind, text }) => toast(kind === 'pickup' ? 'pickup' : 'info', text));
// Options of the link the page could not use (a malformed t, a follow that names nobody).
player.on('notice', ({ text }) => toast('notice', text, 8000));
player.on('loadstart', () => {
  toasts.replaceChildren();
  killBadge.hidden = true;
});

// ---------------------------------------------------------------- keyboard + help overlay

// The overlay's table of keys (ui/keys.js) is loaded when it first opens.
const help = $('help');
let helpReady = null;
function toggleHelp(show = help.hidden) {
  if (!show) {
    help.hidden = true;
    return;
  }
  helpReady ??= import('./ui/keys.js').then((m) => m.renderKeys($('help-keys')));
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
  onClip: (point, t = player.currentTime) => share((s) => s.mark(point, t)),
  onEscape: () => {
    if (help.hidden) return false;
    toggleHelp(false);
    return true;
  },
});

// ---------------------------------------------------------------- share: links, the clip, embeds

// ui/share.js (the Share dialog; the clip's in / out points on the timeline) is loaded on first
// use: the Share button, I / O, or a link with a clip. window.__share is set once it exists.
let shareReady = null;
function share(fn) {
  shareReady ??= import('./ui/share.js').then(
    (m) =>
      (window.__share = m.createShare(player, { opener: shareBtn, timeline: window.__ui.timeline, step: SEEK_STEP_S })),
  );
  shareReady.then(fn, (e) => {
    shareReady = null;
    toast('notice', `Sharing could not be loaded: ${e?.message ?? e}`);
  });
}
shareBtn.addEventListener('click', () => share((s) => s.open()));

// ---------------------------------------------------------------- .foldback divergence view

// ui/foldback.js (and live.js, which it imports) is loaded on first use: a .flrep or SparkEngine
// session never downloads it. window.__foldbackView is set once it exists (test hook).
let foldbackReady = null;
function foldbackView() {
  foldbackReady ??= import('./ui/foldback.js').then(({ createFoldbackView }) => {
    const view = createFoldbackView({
      root: $('foldback'),
      onShow: (on) => stage.classList.toggle('foldback-on', on),
      newClient: (o) => new WorkerClient(o),
    });
    window.__foldbackView = view;
    return view;
  });
  foldbackReady.catch(() => {
    foldbackReady = null;
  });
  return foldbackReady;
}
const withFoldback = (fn) =>
  foldbackView().then(fn, (e) => {
    progress.hidden = true;
    showError(`the divergence view could not be loaded: ${e?.message ?? e}`);
  });
player.on('foldback', ({ src }) => {
  progress.hidden = true;
  withFoldback((v) => v.openFiles([src]));
});
$('live-open').addEventListener('click', () => withFoldback((v) => v.showLive()));
/** Several .foldback files at once are compared (one per peer, or several runs); of several
 *  recordings the first opens, and a notice says so. */
function openFiles(files) {
  const compare = files.length > 1 && files.every((f) => /\.foldback$/i.test(f.name));
  if (compare) withFoldback((v) => v.openFiles(files));
  else if (files.length) player.load(files[0]);
  if (files.length > 1 && !compare)
    toast(
      'notice',
      `Opened ${files[0].name} only (${files.length} were picked): the player shows one recording at a time.`,
      8000,
    );
}

// ---------------------------------------------------------------- opening files

const input = $('file-input');
input.addEventListener('change', () => {
  openFiles([...(input.files ?? [])]);
  input.value = '';
});

const overlay = $('drop-overlay');
let dragDepth = 0;
const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
document.addEventListener('dragenter', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  overlay.hidden = false;
});
document.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = 'copy';
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
  window.launchQueue.setConsumer(async ({ files }) => {
    const picked = await Promise.all((files ?? []).map((h) => h.getFile()));
    if (picked.length) openFiles(picked);
  });
}

// The service worker (sw.js: the shell and wasm, offline) once the first replay is up and the page
// is idle, so that its downloads never compete with the first frame.
player.on('ready', function registerOnce() {
  player.off('ready', registerOnce);
  if (!('serviceWorker' in navigator)) return;
  const later = window.requestIdleCallback ?? ((fn) => setTimeout(fn, 2000));
  later(() => navigator.serviceWorker.register('sw.js').catch(() => {}));
});

// ---------------------------------------------------------------- first replay: a share link

// ?url=…&t=…&follow=…&camera=…&view=…&speed=…&end=…&loop=1&autoplay=1&spoilers=0
// (docs/embedding.md "Share links"); values the player cannot use arrive as notices. options.js is
// fetched only for a link: the demo opens without it.
if (params.size === 0) player.load(DEMO);
else import('./options.js').then(({ readOptions }) => player.load(readOptions(params).options.url ?? DEMO, params));
