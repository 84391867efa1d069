// Side panels: recording info (+ reader warnings), roster (callsigns, faction swatches; click to
// follow), kill feed (click to seek). Strings from files only ever go through textContent.
import { fmtTime, fmtBytes, fmtDuration, el } from './format.js';
import { factionColour, NO_ENTITY } from '../player.js';

export function createPanels(player, root = document) {
  const $ = (id) => root.getElementById(id);
  const infoList = $('info-list');
  const warnings = $('warnings');
  const roster = $('roster');
  const rosterCount = $('roster-count');
  const feed = $('killfeed');
  const killCount = $('kill-count');

  // ---------------------------------------------------------------- info

  function row(label, value) {
    infoList.append(el('dt', '', label), el('dd', '', value));
  }

  function renderInfo(open) {
    infoList.replaceChildren();
    warnings.replaceChildren();
    warnings.hidden = true;
    if (!open) return;
    const i = open.info;
    const formatName = { flrep: 'FLREP', spark_replay: 'SparkEngine replay', foldback: 'Foldback' }[i.format] ?? String(i.format);
    row('Format', `${formatName} ${i.format_major}.${i.format_minor}`);
    row('Engine', i.engine_version || '—');
    row('Tick rate', `${i.tick_rate_hz} Hz`);
    row('Duration', `${fmtDuration(open.durationS)} (${i.last_tick - i.first_tick + 1} ticks)`);
    row('Keyframes', `every ${i.keyframe_interval_ticks} ticks (${(i.keyframe_interval_ticks / (i.tick_rate_hz || 1)).toFixed(1)} s)`);
    row('Mission', i.mission_id || '—');
    row('World', i.world?.kind === 'planet' ? `planet, radius ${(i.world.radius_m / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} km` : 'flat');
    let start = '—';
    if (i.start_unix_seconds > 0) {
      try {
        start = new Date(i.start_unix_seconds * 1000).toISOString().replace('.000Z', 'Z');
      } catch {
        start = String(i.start_unix_seconds);
      }
    }
    row('Recorded', start);
    row('Entity types', String(i.entity_types.length));
    row('Factions', String(i.factions.length));
    row('Participants', String(i.participants.length));
    row('File', `${fmtBytes(open.fileLen)} · ${open.chunks.length} chunks`);
    for (const [k, v] of i.metadata ?? []) row(k, v);
    if (i.warnings.length) {
      for (const w of i.warnings) warnings.append(el('li', '', w));
      warnings.hidden = false;
    }
  }

  // ---------------------------------------------------------------- roster

  let rosterItems = new Map(); // entity id -> li

  function renderRoster(open) {
    roster.replaceChildren();
    rosterItems = new Map();
    rosterCount.textContent = '';
    if (!open) return;
    const i = open.info;
    const factionName = (f) => i.factions.find((x) => x.index === f)?.display_name || `Faction ${f}`;
    const people = [...i.participants].sort((a, b) => a.faction - b.faction || a.callsign.localeCompare(b.callsign));
    rosterCount.textContent = String(people.length);
    if (!people.length) {
      roster.append(el('li', 'empty', 'No participants recorded'));
      return;
    }
    for (const p of people) {
      const li = el('li');
      const b = el('button');
      b.type = 'button';
      const sw = el('span', 'swatch');
      sw.style.background = factionColour(p.faction);
      b.append(sw, el('span', 'callsign', p.callsign || `#${p.id}`), el('span', 'faction-name', factionName(p.faction)));
      b.title = p.entity === NO_ENTITY ? 'Not in the recording at the start' : 'Follow';
      b.addEventListener('click', () => {
        if (p.entity !== NO_ENTITY) player.follow(p.entity);
      });
      li.append(b);
      li.dataset.entity = String(p.entity);
      roster.append(li);
      if (p.entity !== NO_ENTITY) rosterItems.set(p.entity, li);
    }
  }

  function markSelected(id) {
    for (const [eid, li] of rosterItems) li.classList.toggle('selected', eid === id);
    rosterItems.get(id)?.scrollIntoView({ block: 'nearest' });
  }

  let aliveTimer = 0;
  function refreshAlive() {
    const alive = player.aliveNow();
    if (!alive.size) return;
    for (const [eid, li] of rosterItems) li.classList.toggle('dead', alive.get(eid) !== true);
  }

  // ---------------------------------------------------------------- kill feed

  let feedItems = [];
  let lastPast = -2;

  function renderFeed(kills) {
    feed.replaceChildren();
    feedItems = [];
    lastPast = -2;
    killCount.textContent = kills.length ? String(kills.length) : '';
    if (!kills.length) {
      feed.append(el('li', 'empty', player.info ? 'No kills recorded' : ''));
      return;
    }
    for (const k of kills) {
      const t = player.killTime(k);
      const li = el('li');
      const b = el('button');
      b.type = 'button';
      const text = el('span', 'kf-text');
      const killer = el('span', 'kf-killer', player.entityName(k.killer));
      const victim = el('span', 'kf-victim', player.entityName(k.victim));
      const kf = player.entityFactionOf(k.killer);
      const vf = player.entityFactionOf(k.victim);
      if (kf !== undefined) killer.style.color = factionColour(kf);
      if (vf !== undefined) victim.style.color = factionColour(vf);
      text.append(killer, el('span', 'kf-arrow', '→'), victim, el('span', 'kf-weapon', ` (${player.weaponName(k.weapon_type)})`));
      b.append(el('span', 'kf-time', fmtTime(t)), text);
      b.title = `${player.killText(k)} — click to watch from 2 s before`;
      b.addEventListener('click', () => player.seek(Math.max(0, t - 2)));
      li.append(b);
      li.dataset.tick = String(k.tick);
      feed.append(li);
      feedItems.push({ li, tick: k.tick });
    }
    markPast();
  }

  function markPast() {
    if (!feedItems.length) return;
    const tick = player.tick;
    let past = -1;
    for (let i = 0; i < feedItems.length && feedItems[i].tick <= tick; i++) past = i;
    if (past === lastPast) return;
    lastPast = past;
    feedItems.forEach((f, i) => {
      f.li.classList.toggle('future', i > past);
      f.li.classList.toggle('latest', i === past);
    });
  }

  // ---------------------------------------------------------------- wiring

  player.on('loadstart', () => {
    renderInfo(null);
    renderRoster(null);
    renderFeed([]);
  });
  player.on('info', (open) => {
    renderInfo(open);
    renderRoster(open);
    renderFeed(player.kills);
  });
  player.on('markers', (kills) => renderFeed(kills));
  player.on('selection', markSelected);
  player.on('timeupdate', () => {
    markPast();
    const now = performance.now();
    if (now - aliveTimer > 400) {
      aliveTimer = now;
      refreshAlive();
    }
  });
  player.on('seeked', () => {
    markPast();
    refreshAlive();
  });
  player.on('ready', refreshAlive);
}
