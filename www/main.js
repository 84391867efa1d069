// Page boot: creates the player on the stage, wires the UI, opens ?url=, a picked or dropped file,
// or the bundled demo. Exposes the facade as window.__player (test hook).
import { create } from './player.js';
import { createTimeline } from './ui/timeline.js';
import { createPanels } from './ui/panels.js';
import { bindKeyboard } from './ui/keyboard.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const DEMO = 'demo/demo.flrep';

const stage = $('stage');
const player = create(null, stage, { forceWebgl: params.get('renderer') === 'webgl' });
window.__player = player;

createTimeline(player);
createPanels(player);
bindKeyboard(player);

// ---------------------------------------------------------------- status: progress, errors

const progress = $('progress');
const progressBar = $('progress-bar');
const progressText = $('progress-text');
const errorBox = $('error');
const errorText = $('error-text');
const fileName = $('file-name');
const badge = $('backend-badge');
const cameraMode = $('camera-mode');
const resetCamera = $('reset-camera');

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
  cameraMode.disabled = true;
  resetCamera.disabled = true;
  cameraMode.value = 'orbit';
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
  cameraMode.disabled = false;
  resetCamera.disabled = false;
});

player.on('error', ({ message }) => showError(message));
$('error-dismiss').addEventListener('click', () => {
  errorBox.hidden = true;
});

player.on('backend', (b) => {
  badge.textContent = b === 'webgl2' ? 'WebGL2' : b === 'webgpu' ? 'WebGPU' : b;
  badge.title = `Graphics backend: ${badge.textContent}`;
});

// ---------------------------------------------------------------- camera controls

cameraMode.addEventListener('change', () => {
  const mode = cameraMode.value;
  if (mode === 'kill') {
    // The kill camera frames the most recent kill at or before the playhead.
    const tick = player.tick;
    const k = [...player.kills].reverse().find((x) => x.tick <= tick) ?? player.kills[0];
    if (k) player.renderer?.killCam(k.killer, k.victim);
    else player.setCameraMode('orbit');
  } else if ((mode === 'follow' || mode === 'first') && player.selected < 0) {
    // Nothing selected yet: follow the first participant.
    const p = player.info?.info.participants.find((x) => x.entity !== 4294967295);
    if (p) player.follow(p.entity);
    player.setCameraMode(mode);
  } else {
    player.setCameraMode(mode);
  }
  cameraMode.value = player.cameraMode();
  cameraMode.blur();
});
resetCamera.addEventListener('click', () => {
  player.resetCamera();
  cameraMode.value = player.cameraMode();
});
player.on('selection', () => {
  cameraMode.value = player.cameraMode();
});

// ---------------------------------------------------------------- opening files

const input = $('file-input');
input.addEventListener('change', () => {
  const f = input.files?.[0];
  if (f) player.load(f);
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
  const f = e.dataTransfer?.files?.[0];
  if (f) player.load(f);
});

// ---------------------------------------------------------------- first replay

const url = params.get('url');
player.load(url && url.trim() ? url.trim() : DEMO);
