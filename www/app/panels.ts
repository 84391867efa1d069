// Side panels: playback status (Console_GetStatus), recording info (+ reader warnings), roster
// (callsigns, faction swatches; click to follow; virtualized), kill feed (www/widgets/killfeed.ts: click to seek;
// "Kill cam" per kill), and the inspector card on the stage (selected/followed entity: health, flag chips, motion).
// Strings from files only ever go through textContent.
import { fmtAltitude, fmtBytes, fmtDuration, fmtHeading, fmtSpeed, el, setText } from '../widgets/format.ts';
import { factionColour, NO_ENTITY, FLAG_NAMES } from '../api/constants.ts';
import { createKillFeed } from '../widgets/killfeed.ts';
import { createVirtualList } from '../widgets/virtual-list.ts';
import { idleTask } from '../widgets/idle.ts';
import type { Controller } from '../api/controller.ts';

/** The open's answer as the handle holds it (`player.info`, the `info` event's payload). */
type Open = NonNullable<Controller['info']>;
/** A participant of the recording (the roster's rows). */
type Participant = Open['info']['participants'][number];
/** A faction and an entity type as the recording lists them. */
type Faction = Open['info']['factions'][number];
type EntityType = Open['info']['entity_types'][number];

/** What main.ts hands the Analysis panel of the panels. (Test / inspection: #killfeed's and
 *  #roster's own inspect(), www/widgets/killfeed.ts and virtual-list.ts.) */
export interface Panels {
  killfeed: ReturnType<typeof createKillFeed>;
  /** `onShiftPick(entity)`: a roster row Shift+clicked (set by the Analysis panel). */
  onShiftPick: ((entity: number) => void) | null;
}

const ROSTER_ROW_PX = 28;

export function createPanels(player: Controller, root: Document = document): Panels {
  // (The page's elements: index.html has each of them.)
  const $ = <T extends HTMLElement = HTMLElement>(id: string) => root.getElementById(id) as T;
  const infoList = $('info-list');
  const warnings = $('warnings');
  const roster = $('roster');
  const rosterCount = $('roster-count');
  const infoSummary = $('info-summary');
  const statusState = $('status-state');
  const statusList = $('status-list');

  // ---------------------------------------------------------------- info

  function row(label: string, value: string) {
    infoList.append(el('dt', '', label), el('dd', '', value));
  }

  // Spoiler-safe: the length (and the chunk count that tells it) show once the end was reached.
  let lengthHidden = false;
  function renderInfo(open: Open | null) {
    infoList.replaceChildren();
    warnings.replaceChildren();
    warnings.hidden = true;
    infoSummary.textContent = '';
    if (!open) return;
    const i = open.info;
    const formatName =
      (
        {
          flrep: 'FLREP',
          spark_replay: 'SparkEngine replay',
          spark: 'SparkEngine replay',
          foldback: 'Foldback',
        } as Record<string, string>
      )[i.format] ?? String(i.format);
    lengthHidden = player.playbackStatus().duration === null;
    const length = lengthHidden ? '' : ` · ${fmtDuration(open.durationS)}`;
    infoSummary.textContent = `${formatName} ${i.format_major}.${i.format_minor}${length}${i.warnings.length ? ' · ⚠' : ''}`;
    row('Format', `${formatName} ${i.format_major}.${i.format_minor}`);
    row('Engine', i.engine_version || '—');
    row('Tick rate', `${i.tick_rate_hz} Hz`);
    row(
      'Duration',
      lengthHidden
        ? 'hidden until the end (spoiler-safe)'
        : `${fmtDuration(open.durationS)} (${i.last_tick - i.first_tick + 1} ticks)`,
    );
    row(
      'Keyframes',
      `every ${i.keyframe_interval_ticks} ticks (${(i.keyframe_interval_ticks / (i.tick_rate_hz || 1)).toFixed(1)} s)`,
    );
    row('Mission', i.mission_id || '—');
    row(
      'World',
      i.world?.kind === 'planet'
        ? `planet, radius ${(i.world.radius_m / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} km`
        : 'flat',
    );
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
    row('File', `${fmtBytes(open.fileLen)}${lengthHidden ? '' : ` · ${open.chunks.length} chunks`}`);
    for (const [k, v] of i.metadata ?? []) row(k, v);
    if (i.warnings.length) {
      for (const w of i.warnings) warnings.append(el('li', '', w));
      warnings.hidden = false;
    }
  }

  // ---------------------------------------------------------------- roster

  // Virtualized like the kill feed (www/widgets/virtual-list.ts): a 2,000-entity recording's roster is a
  // few dozen elements, so a frame's layout never walks 2,000 rows.
  let people: Participant[] = []; // participants, by faction then callsign
  let factionNames = new Map<number, string>();
  let rowOf = new Map<number, number>(); // entity id -> index in people
  let selectedId = -1;
  let alive = new Map<number, boolean>(); // entity id -> alive, at the playhead (empty: not known yet)

  function makeRosterRow() {
    const li = el('li');
    const b = el('button');
    b.type = 'button';
    b.append(el('span', 'swatch'), el('span', 'callsign'), el('span', 'faction-name'));
    li.append(b);
    return li;
  }

  function fillRoster(li: HTMLElement, i: number) {
    const p = people[i];
    li.dataset.entity = String(p.entity);
    // (A row of makeRosterRow(): its button, and the button's three spans.)
    const b = li.firstChild as HTMLButtonElement;
    const [sw, callsign, faction] = b.children as HTMLCollectionOf<HTMLElement>;
    sw.style.background = factionColour(p.faction);
    callsign.textContent = p.callsign || `#${p.id}`;
    faction.textContent = factionNames.get(p.faction) ?? `Faction ${p.faction}`;
    b.title = p.entity === NO_ENTITY ? 'Not in the recording at the start' : 'Follow';
    markRoster(li, i);
  }

  /** Row state classes: selected, dead (touched only where they change). */
  function markRoster(li: HTMLElement, i: number) {
    const p = people[i];
    const on = p.entity !== NO_ENTITY;
    const sel = on && p.entity === selectedId;
    const dead = on && alive.size > 0 && alive.get(p.entity) !== true;
    if (li.classList.contains('selected') !== sel) li.classList.toggle('selected', sel);
    if (li.classList.contains('dead') !== dead) li.classList.toggle('dead', dead);
  }

  const rosterView = createVirtualList({
    scroller: $('roster-scroll'),
    list: roster,
    rowPx: ROSTER_ROW_PX,
    makeRow: makeRosterRow,
    fill: fillRoster,
  });

  function renderRoster(open: Open | null) {
    people = [];
    rowOf = new Map<number, number>();
    alive = new Map<number, boolean>();
    rosterCount.textContent = '';
    if (!open) {
      rosterView.setCount(0);
      return;
    }
    const i = open.info;
    factionNames = new Map(i.factions.map((f: Faction) => [f.index, f.display_name || `Faction ${f.index}`]));
    people = [...i.participants].sort((a, b) => a.faction - b.faction || a.callsign.localeCompare(b.callsign));
    people.forEach((p, k) => {
      if (p.entity !== NO_ENTITY && !rowOf.has(p.entity)) rowOf.set(p.entity, k);
    });
    rosterCount.textContent = String(people.length);
    rosterView.setCount(people.length, 'No participants recorded');
  }

  // One listener for every row (rows are reused for other participants as the list scrolls).
  roster.addEventListener('click', (e) => {
    const li = (e.target as Element).closest<HTMLElement>('li[data-index]');
    const p = li && (e.target as Element).closest('button') ? people[Number(li.dataset.index)] : undefined;
    if (!p || p.entity === NO_ENTITY) return;
    // Shift+click: a second entity for the Analysis panel's range line (when it is open).
    if (e.shiftKey && api.onShiftPick) api.onShiftPick(p.entity);
    else player.follow(p.entity);
  });

  function markSelected(id: number) {
    selectedId = id;
    rosterView.forEachRow(markRoster);
    const k = rowOf.get(id);
    if (k !== undefined) rosterView.reveal(k);
  }

  let aliveTimer = 0;
  function refreshAlive() {
    const a = player.aliveNow();
    if (!a.size) return;
    alive = a;
    rosterView.forEachRow(markRoster);
  }

  // ---------------------------------------------------------------- kill feed (www/widgets/killfeed.ts)

  const killfeed = createKillFeed(player, root);

  // ---------------------------------------------------------------- playback status

  const statusCells = new Map<string, HTMLElement>();
  function statusRow(key: string, label: string) {
    const dd = el('dd', '', '—');
    dd.dataset.key = key;
    statusList.append(el('dt', '', label), dd);
    statusCells.set(key, dd);
  }
  for (const [k, l] of [
    ['time', 'Time'],
    ['speed', 'Speed'],
    ['frames', 'Frames'],
    ['events', 'Events'],
    ['map', 'Map'],
    ['mode', 'Mode'],
    ['camera', 'Camera'],
    ['killCam', 'Kill cam'],
  ])
    statusRow(k, l);
  const CAMERA_NAMES: Record<string, string> = {
    orbit: 'Orbit',
    free: 'Free',
    follow: 'Follow',
    first: 'First person',
    kill: 'Kill cam',
  };

  function setCell(key: string, text: string) {
    // (Every key has its cell: statusRow() above.)
    setText(statusCells.get(key)!, text);
  }
  function renderStatus() {
    if (!player.info) {
      statusState.textContent = 'Stopped';
      statusState.dataset.state = 'Stopped';
      for (const dd of statusCells.values()) dd.textContent = '—';
      return;
    }
    const s = player.playbackStatus();
    if (statusState.textContent !== s.state) {
      statusState.textContent = s.state;
      statusState.dataset.state = s.state;
    }
    setCell('time', `${s.time.toFixed(1)}s${s.duration === null ? '' : ` / ${s.duration.toFixed(1)}s`}`);
    setCell('speed', `${Number(s.speed.toFixed(2))}x`);
    setCell('frames', s.frames === null ? '—' : s.frames.toLocaleString('en-US'));
    if (lengthHidden && s.duration !== null) renderInfo(player.info);
    setCell('events', s.events.toLocaleString('en-US'));
    setCell('map', s.map || '—');
    setCell('mode', s.mode || '—');
    setCell('camera', CAMERA_NAMES[s.camera] ?? s.camera);
    setCell('killCam', s.killCam ? 'ON' : 'OFF');
    statusCells.get('killCam')?.classList.toggle('on', s.killCam);
    statusList.title = s.text;
  }

  // ---------------------------------------------------------------- inspector (on the stage)

  const insp = $('inspector');
  const inspName = $('insp-name');
  const inspId = $('insp-id');
  const inspSub = $('insp-sub');
  const inspSwatch = $('insp-swatch');
  const inspFill = $('insp-health-fill');
  const inspHealth = $('insp-health-text');
  const inspList = $('insp-list');
  const inspFlags = $('insp-flags');
  const inspCells = new Map<string, HTMLElement>();
  for (const [k, l] of [
    ['pos', 'Position'],
    ['alt', 'Altitude'],
    ['speed', 'Speed'],
    ['anim', 'Anim state'],
    ['tick', 'Tick'],
    ['hdg', 'Heading'],
  ]) {
    const dd = el('dd', '', '—');
    inspList.append(el('dt', '', l), dd);
    inspCells.set(k, dd);
  }
  const chips = FLAG_NAMES.map((name, bit) => {
    const c = el('span', 'chip', name);
    c.dataset.flag = name;
    c.title = `flag bit ${bit} (0x${(1 << bit).toString(16).padStart(2, '0')})`;
    inspFlags.append(c);
    return c;
  });
  $('insp-close').addEventListener('click', () => {
    player.select(-1);
  });

  function inspectedId() {
    if (player.killCamKill) return player.killCamKill.victim;
    if (player.selected >= 0) return player.selected;
    return player.followed;
  }

  function renderInspector() {
    const id = inspectedId();
    if (!player.info || id < 0) {
      insp.hidden = true;
      return;
    }
    insp.hidden = false;
    insp.dataset.entity = String(id);
    const st = player.entityState(id);
    const name = player.entityName(id);
    setText(inspName, name);
    setText(inspId, `#${id}`);
    const i = player.info.info;
    if (!st) {
      setText(inspSub, 'Not in the recording at this time');
      insp.classList.add('absent');
      insp.classList.remove('dead');
      inspFill.style.width = '0%';
      setText(inspHealth, '—');
      for (const dd of inspCells.values()) setText(dd, '—');
      for (const c of chips) c.classList.remove('on');
      insp.dataset.flags = '';
      return;
    }
    insp.classList.remove('absent');
    insp.classList.toggle('dead', !st.alive);
    const typeName = player.typeName(st.type) || `type ${st.type}`;
    const category = i.entity_types.find((t: EntityType) => t.index === st.type)?.category ?? 'other';
    const faction = i.factions.find((f: Faction) => f.index === st.faction)?.display_name || `Faction ${st.faction}`;
    setText(inspSub, `${typeName} · ${category} · ${faction}`);
    inspSwatch.style.background = factionColour(st.faction);
    const hp = Math.max(0, Math.min(100, st.health));
    inspFill.style.width = `${hp}%`;
    inspFill.className = `insp-health-fill${hp < 30 ? ' low' : hp < 65 ? ' mid' : ''}`;
    setText(inspHealth, `${st.health.toFixed(st.health % 1 ? 1 : 0)} HP`);
    const big = st.pos.some((v) => Math.abs(v) >= 100000);
    // (inspCells holds a cell for each of these keys: made above.)
    setText(
      inspCells.get('pos')!,
      big
        ? `${st.pos.map((v) => (v / 1000).toFixed(2)).join(', ')} km`
        : `${st.pos.map((v) => v.toFixed(1)).join(', ')} m`,
    );
    setText(inspCells.get('alt')!, fmtAltitude(st));
    setText(inspCells.get('hdg')!, `${fmtHeading(st.heading)}°`);
    setText(inspCells.get('speed')!, fmtSpeed(st.speed));
    setText(inspCells.get('anim')!, String(st.anim));
    setText(inspCells.get('tick')!, String(st.tick));
    for (const [bit, c] of chips.entries()) c.classList.toggle('on', ((st.flags >>> bit) & 1) === 1);
    insp.dataset.flags = st.flagNames.join(',');
  }

  // ---------------------------------------------------------------- wiring

  player.on('loadstart', () => {
    renderInfo(null);
    renderRoster(null);
    renderStatus();
    insp.hidden = true;
  });
  player.on('statechange', renderStatus);
  player.on('killcam', () => {
    renderInspector();
    renderStatus();
  });
  // The inspector shows the followed entity when nothing is selected: a follow that ends (Esc, the
  // orbit view) takes the card off the stage at once, not at the next refresh.
  player.on('cameramode', () => {
    renderStatus();
    renderInspector();
  });
  player.on('selection', renderInspector);
  // Live values: the frame at the playhead changes with time, with arriving chunks, with the camera.
  setInterval(() => {
    // Not while a seek waits for its frame (its values are the old frame's; see timeline.ts).
    if (document.hidden || player.pageWaitsForSeek) return;
    renderStatus();
    renderInspector();
  }, 150);
  player.on('info', (open: Open) => {
    renderInfo(open);
    renderRoster(open);
  });
  player.on('selection', markSelected);
  player.on('timeupdate', () => {
    const now = performance.now();
    if (now - aliveTimer > 400 && !player.pageWaitsForSeek) {
      aliveTimer = now;
      refreshAlive();
    }
  });
  player.on('seeked', idleTask(refreshAlive));
  player.on('ready', refreshAlive);
  /** `onShiftPick(entity)`: a roster row Shift+clicked (set by the Analysis panel). */
  const api: Panels = { killfeed, onShiftPick: null };
  return api;
}
