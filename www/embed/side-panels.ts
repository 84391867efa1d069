// The side panels embed.html shows when `panels=` names them (docs/embedding.md "iframe"), in the
// order named, compactly:
//   kills      the kill feed (widgets/killfeed.ts: virtualized, click a kill to watch from 2 s before;
//              spoiler-safe, only the kills the playhead has reached)
//   roster     the participants by faction, click one to follow it
//   recording  what the recording is: format, length (not when spoiler-safe), tick rate,
//              participants, map and mode
// File strings reach the DOM as text only.
import { createKillFeed, type KillFeedPlayer } from '../widgets/killfeed.ts';
import { createVirtualList } from '../widgets/virtual-list.ts';
import { el, fmtDuration } from '../widgets/format.ts';
import { factionColour, NO_ENTITY } from '../api/constants.ts';

/** A participant as the roster reads it (the recording's `participants`). */
interface Participant {
  id: number;
  callsign: string;
  /** NO_ENTITY: none. */
  entity: number;
  faction: number;
}

/** The recording's description as the panels read it (`handle.info.info`). */
interface RecordingInfo {
  format: string;
  format_major: number;
  format_minor: number;
  tick_rate_hz: number;
  participants: Participant[];
  metadata?: [string, string][];
}

/** The handle's events the roster and recording panels listen to. */
interface PanelEvents {
  loadstart: unknown;
  info: unknown;
  /** The selected entity (-1: none). */
  selection: number;
}

/** What the panels ask of the player (the public handle, www/api/player.ts). */
export type PanelsPlayer = KillFeedPlayer & {
  readonly info: { info: RecordingInfo } | null;
  readonly duration: number;
  readonly spoilerSafe: boolean;
  /** The followed entity, or -1. */
  readonly followed: number;
  follow(entity: number): unknown;
  on<K extends keyof PanelEvents>(ev: K, fn: (payload: PanelEvents[K]) => void): unknown;
};

const ROSTER_ROW_PX = 24;
const FORMATS: Record<string, string> = {
  flrep: 'FLREP',
  spark_replay: 'SparkEngine replay',
  spark: 'SparkEngine replay',
};

function section(className: string, title: string) {
  const s = el('section', `rp-panel ${className}`);
  const h = el('h2', '', title);
  s.append(h);
  return { s, h };
}

function killsPanel(player: PanelsPlayer, container: HTMLElement) {
  const { s, h } = section('rp-panel-kills', 'Kills ');
  const count = el('span');
  count.id = 'kill-count';
  h.append(count);
  const scroll = el('div', 'rp-list-scroll');
  scroll.id = 'killfeed-scroll';
  const list = el('ol', 'rp-list killfeed');
  list.id = 'killfeed';
  list.setAttribute('aria-label', 'Kills');
  scroll.append(list);
  s.append(scroll);
  container.append(s);
  return createKillFeed(player, document);
}

function rosterPanel(player: PanelsPlayer, container: HTMLElement) {
  const { s } = section('rp-panel-roster', 'Roster');
  const scroll = el('div', 'rp-list-scroll');
  const list = el('ul', 'rp-list rp-roster');
  list.setAttribute('aria-label', 'Participants');
  scroll.append(list);
  s.append(scroll);
  container.append(s);
  let people: Participant[] = [];
  let selected = -1;
  const mark = (li: HTMLLIElement, i: number) =>
    li.classList.toggle('selected', people[i].entity !== NO_ENTITY && people[i].entity === selected);
  const view = createVirtualList({
    scroller: scroll,
    list,
    rowPx: ROSTER_ROW_PX,
    makeRow: () => {
      const li = el('li');
      const b = el('button');
      b.type = 'button';
      b.append(el('span', 'swatch'), el('span', 'callsign'));
      li.append(b);
      return li;
    },
    fill: (li, i) => {
      const p = people[i];
      // (A row as makeRow() builds it.)
      const b = li.firstChild as HTMLButtonElement;
      const [sw, name] = b.children as HTMLCollectionOf<HTMLElement>;
      sw.style.background = factionColour(p.faction);
      name.textContent = p.callsign || `#${p.id}`;
      b.title = p.entity === NO_ENTITY ? 'Not in the recording at the start' : 'Follow';
      mark(li, i);
    },
  });
  const render = () => {
    const i = player.info?.info;
    people = i ? [...i.participants].sort((a, b) => a.faction - b.faction || a.callsign.localeCompare(b.callsign)) : [];
    view.setCount(people.length, i ? 'No participants recorded' : '');
  };
  list.addEventListener('click', (e) => {
    // (The list's own event: its target is an element in it.)
    const li = (e.target as Element).closest<HTMLElement>('li[data-index]');
    const p: Participant | undefined = li ? people[Number(li.dataset.index)] : undefined;
    if (p && p.entity !== NO_ENTITY) player.follow(p.entity);
  });
  player.on('loadstart', render);
  player.on('info', render);
  player.on('selection', (id) => {
    selected = player.followed >= 0 ? player.followed : id;
    view.forEachRow(mark);
  });
  render();
}

function recordingPanel(player: PanelsPlayer, container: HTMLElement) {
  const { s } = section('rp-panel-info', 'Recording');
  const dl = el('dl', 'rp-info');
  s.append(dl);
  container.append(s);
  const render = () => {
    dl.replaceChildren();
    const open = player.info;
    if (!open) return;
    const i = open.info;
    const meta = new Map(i.metadata ?? []);
    const rows = [
      ['Format', `${FORMATS[i.format] ?? String(i.format)} ${i.format_major}.${i.format_minor}`],
      // Spoiler-safe: how long it lasts is what is left to see.
      ...(player.spoilerSafe ? [] : [['Length', fmtDuration(player.duration)]]),
      ['Tick rate', `${i.tick_rate_hz} Hz`],
      ['Participants', String(i.participants.length)],
      ...(meta.has('map') ? [['Map', meta.get('map')]] : []),
      ...(meta.has('mode') ? [['Mode', meta.get('mode')]] : []),
    ];
    for (const [k, v] of rows) dl.append(el('dt', '', k), el('dd', '', v));
  };
  player.on('loadstart', render);
  player.on('info', render);
  render();
}

const PANELS: Record<string, (player: PanelsPlayer, container: HTMLElement) => unknown> = {
  kills: killsPanel,
  roster: rosterPanel,
  recording: recordingPanel,
};

/** Shows the panels `names` (api/options.ts PANELS) in `container` for the player `player`. */
export function createEmbedPanels(player: PanelsPlayer, container: HTMLElement, names: readonly string[]): void {
  for (const name of names) if (Object.hasOwn(PANELS, name)) PANELS[name](player, container);
  container.hidden = !container.childElementCount;
}
