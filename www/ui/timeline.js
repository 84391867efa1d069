// The timeline bar: play/pause, clock, scrubber (pointer events; follows the pointer), kill
// markers on the scrubber, speed select.
import { fmtTime, el } from './format.js';

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
  speed.addEventListener('change', () => {
    player.setSpeed(Number(speed.value));
    speed.blur();
  });

  function renderMarkers(kills) {
    markersEl.replaceChildren();
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
    }
  }

  player.on('loadstart', () => {
    markersEl.replaceChildren();
    playBtn.disabled = true;
    setPlaying(false);
    durEl.textContent = fmtTime(0);
    update();
  });
  player.on('info', () => {
    durEl.textContent = fmtTime(player.duration);
    scrubber.setAttribute('aria-valuemax', player.duration.toFixed(1));
    renderMarkers(player.kills);
    update();
  });
  player.on('ready', () => {
    playBtn.disabled = false;
  });
  player.on('markers', (kills) => renderMarkers(kills));
  player.on('timeupdate', update);
  player.on('seeked', update);
  player.on('play', () => setPlaying(true));
  player.on('pause', () => setPlaying(false));
  player.on('ratechange', (v) => {
    if (Number(speed.value) !== v) speed.value = String(v);
  });
  update();
  return { update };
}
