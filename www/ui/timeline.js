// The timeline bar: transport (rewind / play-pause / stop / fast forward), clock, scrubber
// (pointer events; follows the pointer), kill markers on the scrubber's top row, every other event
// kind as a smaller shape on its bottom row (with a legend), speed select.
import { fmtTime, el } from './format.js';
import { nextSpeed } from '../playback.js';
import { eventKindKey, eventKindLabel, eventText } from './events.js';

export function createTimeline(player, root = document) {
  const $ = (id) => root.getElementById(id);
  const playBtn = $('play');
  const timeEl = $('time');
  const tickEl = $('tick');
  const durEl = $('duration');
  const scrubber = $('scrubber');
  const fill = $('scrub-fill');
  const thumb = $('scrub-thumb');
  const markersEl = $('scrub-markers');
  const hover = $('scrub-hover');
  const speed = $('speed');
  const rewindBtn = $('rewind');
  const stopBtn = $('stop');
  const ffBtn = $('ffwd');
  const eventsEl = $('scrub-events');
  const legend = $('legend');

  let scrubbing = false;
  let wasPlaying = false;
  let pendingX = null;
  let rafScrub = 0;

  const fraction = () => (player.duration > 0 ? Math.min(1, Math.max(0, player.currentTime / player.duration)) : 0);

  function update() {
    const f = fraction();
    fill.style.width = `${(f * 100).toFixed(3)}%`;
    thumb.style.left = `${(f * 100).toFixed(3)}%`;
    timeEl.textContent = fmtTime(player.currentTime);
    tickEl.textContent = `tick ${player.tick}`;
    scrubber.setAttribute('aria-valuenow', player.currentTime.toFixed(1));
    scrubber.setAttribute('aria-valuetext', fmtTime(player.currentTime));
  }

  function setPlaying(p) {
    playBtn.classList.toggle('playing', p);
    playBtn.setAttribute('aria-label', p ? 'Pause' : 'Play');
    playBtn.title = p ? 'Pause (Space)' : 'Play (Space)';
  }

  function timeAtX(clientX) {
    const r = scrubber.getBoundingClientRect();
    const f = r.width > 0 ? Math.min(1, Math.max(0, (clientX - r.left) / r.width)) : 0;
    return f * player.duration;
  }

  function scrubTo(clientX) {
    pendingX = clientX;
    if (rafScrub) return;
    rafScrub = requestAnimationFrame(() => {
      rafScrub = 0;
      if (pendingX !== null) player.seek(timeAtX(pendingX));
      pendingX = null;
    });
  }

  scrubber.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !player.info) return;
    if (e.target.closest('.scrub-marker')) return;
    scrubbing = true;
    wasPlaying = !player.paused;
    if (wasPlaying) player.pause();
    scrubber.setPointerCapture(e.pointerId);
    player.seek(timeAtX(e.clientX));
    e.preventDefault();
  });
  scrubber.addEventListener('pointermove', (e) => {
    if (player.info && player.duration > 0) {
      const t = timeAtX(e.clientX);
      const r = scrubber.getBoundingClientRect();
      hover.hidden = false;
      hover.textContent = fmtTime(t);
      hover.style.left = `${Math.min(r.width, Math.max(0, e.clientX - r.left))}px`;
    }
    if (scrubbing) scrubTo(e.clientX);
  });
  scrubber.addEventListener('pointerleave', () => {
    hover.hidden = true;
  });
  const endScrub = (e) => {
    if (!scrubbing) return;
    scrubbing = false;
    if (pendingX !== null) {
      cancelAnimationFrame(rafScrub);
      rafScrub = 0;
      player.seek(timeAtX(pendingX));
      pendingX = null;
    }
    if (e.type === 'pointerup') player.seek(timeAtX(e.clientX));
    if (wasPlaying) player.play();
  };
  scrubber.addEventListener('pointerup', endScrub);
  scrubber.addEventListener('pointercancel', endScrub);
  scrubber.addEventListener('keydown', (e) => {
    // Arrow keys are handled globally; stop the page from scrolling.
    if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') e.preventDefault();
  });

  playBtn.addEventListener('click', () => player.toggle());
  rewindBtn.addEventListener('click', () => {
    if (player.playbackState === 'Rewinding') player.setSpeed(nextSpeed(player.speed));
    else player.rewind();
  });
  stopBtn.addEventListener('click', () => player.stop());
  ffBtn.addEventListener('click', () => player.fastForward(player.playbackState === 'FastForward' ? nextSpeed(player.speed) : undefined));
  speed.addEventListener('change', () => {
    player.setSpeed(Number(speed.value));
    speed.blur();
  });

  function setTransport() {
    const st = player.playbackState;
    rewindBtn.classList.toggle('active', st === 'Rewinding');
    ffBtn.classList.toggle('active', st === 'FastForward');
    rewindBtn.setAttribute('aria-pressed', String(st === 'Rewinding'));
    ffBtn.setAttribute('aria-pressed', String(st === 'FastForward'));
  }

  let killMarkers = [];
  function renderMarkers(kills) {
    markersEl.replaceChildren();
    killMarkers = [];
    nearMarkers = [];
    const d = player.duration;
    if (!(d > 0)) return;
    for (const k of kills) {
      const t = player.killTime(k);
      const b = el('button', 'scrub-marker');
      b.type = 'button';
      b.style.left = `${((t / d) * 100).toFixed(3)}%`;
      b.title = player.killText(k);
      b.setAttribute('aria-label', `Kill at ${fmtTime(t)}: ${b.title}`);
      b.dataset.tick = String(k.tick);
      b.addEventListener('pointerenter', () => {
        b.title = player.killText(k);
      });
      b.addEventListener('pointerdown', (e) => e.stopPropagation());
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        player.seek(Math.max(0, t - 2));
      });
      markersEl.append(b);
      killMarkers.push({ b, t });
    }
    lastNear = '';
    markNear();
  }

  // Other events: one small shape per event (at most ~500 per kind: one per 0.2 % of the bar).
  let buckets = new Set();
  let kindCounts = new Map();
  function resetEvents() {
    eventsEl.replaceChildren();
    buckets = new Set();
    kindCounts = new Map();
    renderLegend();
  }
  function addEventMarkers(events) {
    const d = player.duration;
    if (!(d > 0)) return;
    const frag = document.createDocumentFragment();
    for (const e of events) {
      const key = eventKindKey(e);
      kindCounts.set(key, (kindCounts.get(key) ?? 0) + 1);
      if (e.kind === 'kill') continue;
      const slot = `${key}:${Math.round((e.t / d) * 500)}`;
      if (buckets.has(slot)) continue;
      buckets.add(slot);
      const m = el('span', `scrub-event ev-${key}`);
      m.style.left = `${((Math.min(d, Math.max(0, e.t)) / d) * 100).toFixed(3)}%`;
      m.title = `${fmtTime(e.t)} ${eventText(player, e)}`;
      m.dataset.kind = key;
      frag.append(m);
    }
    eventsEl.append(frag);
    renderLegend();
  }
  function renderLegend() {
    legend.replaceChildren();
    const keys = [...kindCounts.keys()].sort((a, b) => (a === 'kill' ? -1 : b === 'kill' ? 1 : a.localeCompare(b)));
    if (!keys.includes('kill')) keys.unshift('kill');
    for (const key of keys) {
      const item = el('span', 'legend-item');
      item.dataset.kind = key;
      item.append(el('span', `legend-shape ev-${key}`), el('span', 'legend-name', eventKindLabel(key)), el('span', 'legend-count', kindCounts.get(key) ?? 0));
      legend.append(item);
    }
    legend.hidden = !player.info;
  }

  // Kill markers within a second of the playhead light up (events near the playhead). Only the
  // markers that change are touched (killMarkers is in time order; there can be thousands).
  let lastNear = '';
  let nearTimer = 0;
  let nearMarkers = [];
  function markNear() {
    if (!killMarkers.length) return;
    const t = player.currentTime;
    let lo = 0;
    let hi = killMarkers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (killMarkers[mid].t < t - 1) lo = mid + 1;
      else hi = mid;
    }
    const near = [];
    for (let i = lo; i < killMarkers.length && killMarkers[i].t <= t + 1; i++) near.push(killMarkers[i]);
    const key = near.map((m) => m.t).join(',');
    if (key === lastNear) return;
    lastNear = key;
    for (const m of nearMarkers) m.b.classList.remove('near');
    for (const m of near) m.b.classList.add('near');
    nearMarkers = near;
  }

  player.on('loadstart', () => {
    markersEl.replaceChildren();
    killMarkers = [];
    resetEvents();
    for (const b of [playBtn, rewindBtn, stopBtn, ffBtn]) b.disabled = true;
    setPlaying(false);
    durEl.textContent = fmtTime(0);
    update();
  });
  player.on('info', () => {
    durEl.textContent = fmtTime(player.duration);
    scrubber.setAttribute('aria-valuemax', player.duration.toFixed(1));
    renderMarkers(player.kills);
    resetEvents();
    addEventMarkers(player.events);
    update();
  });
  player.on('ready', () => {
    for (const b of [playBtn, rewindBtn, stopBtn, ffBtn]) b.disabled = false;
  });
  player.on('markers', (kills) => renderMarkers(kills));
  player.on('events', (fresh) => {
    if (player.duration > 0 && legend.childElementCount) addEventMarkers(fresh);
  });
  player.on('timeupdate', () => {
    update();
    const now = performance.now();
    if (now - nearTimer > 100) {
      nearTimer = now;
      markNear();
    }
  });
  player.on('seeked', () => {
    update();
    markNear();
  });
  player.on('play', () => setPlaying(true));
  player.on('pause', () => setPlaying(false));
  player.on('statechange', setTransport);
  player.on('ratechange', (v) => {
    if (Number(speed.value) !== v) {
      const opt = [...speed.options].find((o) => Number(o.value) === v);
      if (opt) speed.value = opt.value;
    }
  });
  update();
  return { update };
}
