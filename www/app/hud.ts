// The first-person instruments (docs/playback.md "First person"): a horizon line that rolls and
// pitches with the entity ridden, a fixed reticle, and heading, speed and altitude as text, over the
// stage while the camera is in first-person mode. Imported on first use (main.ts), so it imports
// nothing of the first load but widgets/format.ts; the entity's state comes from the handle
// (`entityState`: the same numbers the inspector shows).
import { fmtAltitude, fmtHeading, fmtSpeed } from '../widgets/format.ts';
import type { Controller } from '../api/controller.ts';

/** Degrees of pitch per CSS px of the horizon's travel: the ladder spans ±30° over ±(h/2). */
const PITCH_SPAN_DEG = 30;

/** The instruments: `show(on)` while first person; `element` is their box on the stage. */
export interface Hud {
  show(v: boolean): void;
  element: HTMLDivElement;
}

/**
 * `player`: the handle (entityState, followed, selected, on, cameraMode); `stage`: the positioned
 * box over the canvas.
 */
export function createHud(player: Controller, stage: HTMLElement): Hud {
  const root = document.createElement('div');
  root.className = 'hud';
  root.hidden = true;
  root.setAttribute('role', 'group');
  root.setAttribute('aria-label', 'Instruments');
  const canvas = document.createElement('canvas');
  canvas.className = 'hud-horizon';
  canvas.setAttribute('aria-hidden', 'true');
  const read = document.createElement('div');
  read.className = 'hud-read';
  const cell = (name: string, label: string) => {
    const d = document.createElement('div');
    d.className = `hud-cell hud-${name}`;
    const l = document.createElement('span');
    l.className = 'hud-label';
    l.textContent = label;
    const v = document.createElement('span');
    v.className = 'hud-value';
    v.textContent = '—';
    d.append(l, v);
    read.append(d);
    return v;
  };
  const hdg = cell('heading', 'HDG');
  const spd = cell('speed', 'SPD');
  const alt = cell('altitude', 'ALT');
  root.append(canvas, read);
  stage.append(root);

  let on = false;
  let raf = 0;
  const shown = { hdg: '', spd: '', alt: '', key: '' };
  const set = (node: HTMLElement, k: keyof typeof shown, text: string) => {
    if (shown[k] !== text) {
      shown[k] = text;
      node.textContent = text;
    }
  };

  /** The entity ridden: the followed one (first person rides it), else the selected. */
  const ridden = () => (player.followed >= 0 ? player.followed : player.selected);

  /** Draws in the next animation frame (once however many changes ask for it). */
  const schedule = () => {
    if (on && !raf) raf = requestAnimationFrame(draw);
  };
  // Redrawn when what it shows can change (the page's loop rests while nothing does).
  for (const ev of ['timeupdate', 'seeked', 'selection', 'cameramode', 'killcam'] as const) player.on(ev, schedule);
  window.addEventListener('resize', schedule);

  function draw() {
    raf = 0;
    if (!on) return;
    const id = ridden();
    const st = id >= 0 ? player.entityState(id) : null;
    root.dataset.entity = String(id);
    if (!st) {
      set(hdg, 'hdg', '—');
      set(spd, 'spd', '—');
      set(alt, 'alt', '—');
      return;
    }
    set(hdg, 'hdg', `${fmtHeading(st.heading)}°`);
    set(spd, 'spd', fmtSpeed(st.speed));
    set(alt, 'alt', fmtAltitude(st));
    root.dataset.heading = st.heading.toFixed(1);
    root.dataset.pitch = st.pitch.toFixed(1);
    root.dataset.roll = st.roll.toFixed(1);
    horizon(st.pitch, st.roll);
  }

  function horizon(pitch: number, roll: number) {
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    const key = `${w}x${h}@${dpr}:${pitch.toFixed(1)}:${roll.toFixed(1)}`;
    if (key === shown.key) return;
    shown.key = key;
    const bw = Math.max(1, Math.round(w * dpr));
    const bh = Math.max(1, Math.round(h * dpr));
    if (canvas.width !== bw || canvas.height !== bh) {
      canvas.width = bw;
      canvas.height = bh;
    }
    const c = canvas.getContext('2d');
    if (!c) return;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, bw, bh);
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    const cx = w / 2;
    const cy = h / 2;
    const pxPerDeg = h / 2 / PITCH_SPAN_DEG;
    // The horizon and its pitch ladder, rolled about the centre (the world rolls against the body).
    c.save();
    c.translate(cx, cy);
    c.rotate((-roll * Math.PI) / 180);
    c.translate(0, pitch * pxPerDeg);
    c.strokeStyle = 'rgba(120, 255, 170, 0.9)';
    c.fillStyle = 'rgba(120, 255, 170, 0.9)';
    c.lineWidth = 2;
    c.beginPath();
    c.moveTo(-w, 0);
    c.lineTo(-40, 0);
    c.moveTo(40, 0);
    c.lineTo(w, 0);
    c.stroke();
    c.lineWidth = 1;
    c.font = '10px sans-serif';
    c.textBaseline = 'middle';
    for (let d = -30; d <= 30; d += 10) {
      if (d === 0) continue;
      const y = -d * pxPerDeg;
      c.beginPath();
      c.setLineDash(d < 0 ? [4, 3] : []);
      c.moveTo(-50, y);
      c.lineTo(-20, y);
      c.moveTo(20, y);
      c.lineTo(50, y);
      c.stroke();
      c.fillText(String(d), 54, y);
    }
    c.setLineDash([]);
    c.restore();
    // The reticle: fixed at the centre (where the nose points).
    c.strokeStyle = 'rgba(255, 255, 255, 0.95)';
    c.lineWidth = 2;
    c.beginPath();
    c.arc(cx, cy, 6, 0, Math.PI * 2);
    c.moveTo(cx - 22, cy);
    c.lineTo(cx - 10, cy);
    c.moveTo(cx + 10, cy);
    c.lineTo(cx + 22, cy);
    c.moveTo(cx, cy - 10);
    c.lineTo(cx, cy - 16);
    c.stroke();
  }

  /** Shows the instruments (first person) or hides them. */
  function show(v: boolean) {
    if (v === on) return;
    on = v;
    root.hidden = !v;
    shown.key = '';
    if (v) schedule();
    else if (raf) {
      cancelAnimationFrame(raf);
      raf = 0;
    }
  }

  return { show, element: root };
}
