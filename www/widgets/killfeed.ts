// The kill feed, virtualized (www/widgets/virtual-list.ts: a scroll container, #killfeed-scroll, holding
// the list, #killfeed; only the rows in view exist). A long replay's thousands of kills cost a few
// dozen elements, and a seek touches only those (the current kill: binary search, then the rows in
// view). Click a row to watch from 2 s before the kill; its "Kill cam" button starts the kill cam.
// Strings from files only ever go through textContent.
import { fmtTime, el } from './format.ts';
import { createVirtualList, type InspectableList, type VirtualListInspection } from './virtual-list.ts';
import { idleTask } from './idle.ts';
import { factionColour, KILL_LEAD_S } from '../api/constants.ts';
import { lowerBound } from '../core/clock.ts';
import type { Kill } from './events.ts';

/** The handle's events the feed listens to, and the payloads it reads. */
interface KillFeedEvents {
  loadstart: unknown;
  info: unknown;
  markers: readonly Kill[];
  scan: { complete: boolean };
  killcam: unknown;
  seeking: unknown;
  timeupdate: unknown;
  seeked: unknown;
}

/** What the kill feed asks of the player (the handle, www/api/player.ts). */
export interface KillFeedPlayer {
  readonly info: unknown;
  readonly tick: number;
  readonly kills: readonly Kill[];
  readonly weaponsRecorded: boolean;
  readonly spoilerSafe: boolean;
  /** A recording without an index: how far the kill scan got (null: the index gave every kill). */
  readonly scan: { complete: boolean } | null;
  readonly killCamKill: Kill | null;
  readonly killCamRewind: number;
  killTime(kill: Kill): number;
  killText(kill: Kill): string;
  entityName(id: number): string;
  weaponName(index: number): string;
  entityFactionOf(id: number): number | undefined;
  eventsNear(window: number): readonly { kind: string; tick: number }[];
  startKillCam(kill: Kill): unknown;
  seek(t: number): unknown;
  prefetch(t: number): void;
  on<K extends keyof KillFeedEvents>(ev: K, fn: (payload: KillFeedEvents[K]) => void): unknown;
}

/** What the feed's inspect() answers: the list's, the last kill at or before the playhead (its
 *  index), each kill's tick. */
export interface KillFeedInspection extends VirtualListInspection {
  past: number;
  ticks: number[];
}

/** What createKillFeed() returns. */
export interface KillFeed {
  inspect(): KillFeedInspection;
  reveal(i: number): void;
  setFilter(pred: ((kill: Kill) => boolean) | null): void;
}

export const ROW_PX = 26;
/** Faction colours as text on the dark feed: the two darkest lightened to 4.5:1 (WCAG AA). */
const TEXT: Record<string, string> = { '#0072B2': '#4d9de0', '#D55E00': '#ec7a35' };
const textColour = (f: number) => {
  const c = factionColour(f);
  return TEXT[c] ?? c;
};
const byTick = (k: Kill) => k.tick;

export function createKillFeed(player: KillFeedPlayer, root: Document | DocumentFragment = document): KillFeed {
  // (The page's markup holds them: index.html, or embed/side-panels.ts's kills panel.)
  const scroller = root.getElementById('killfeed-scroll') as HTMLElement;
  const list = root.getElementById('killfeed') as HTMLElement;
  const killCount = root.getElementById('kill-count') as HTMLElement;
  // Said once above the feed where the file records no weapons (its kills name none).
  const note = el('p', 'kf-note', 'Weapons not recorded in this file');
  note.hidden = true;
  scroller.before(note);

  let kills: readonly Kill[] = []; // in tick order (player.kills)
  let times: number[] = [];
  let past = -1; // last kill at or before the playhead
  let near = new Set<number>(); // ticks of kills near the playhead
  let camTick: number | undefined;
  let nearKey = '';
  let movedAt = 0; // performance.now() of the playhead's last move (or a new list): the feed follows it

  /** First kill with tick >= `tick` (kills is in tick order); kills.length if none. */
  function firstAtOrAfter(tick: number) {
    return lowerBound(kills, tick, byTick);
  }

  function makeRow() {
    const li = el('li');
    const b = el('button');
    b.type = 'button';
    const text = el('span', 'kf-text');
    text.append(el('span', 'kf-killer'), el('span', 'kf-arrow', '→'), el('span', 'kf-victim'), el('span', 'kf-weapon'));
    b.append(el('span', 'kf-time'), text);
    // An <input type=button> (a real button for keyboards and screen readers) so that the row's
    // seek <button> stays the only <button> of the entry.
    const cam = document.createElement('input');
    cam.type = 'button';
    cam.className = 'kf-cam';
    cam.value = 'Kill cam';
    li.append(b, cam);
    return li;
  }

  /** Fills `li` with kill `i` (text, colours, state classes). */
  function fill(li: HTMLLIElement, i: number) {
    const k = kills[i];
    const t = times[i];
    li.dataset.tick = String(k.tick);
    // (A row as makeRow() builds it.)
    const b = li.firstChild as HTMLButtonElement;
    const [time, text] = b.children;
    const [killer, , victim, weapon] = text.children as HTMLCollectionOf<HTMLElement>;
    time.textContent = fmtTime(t);
    killer.textContent = player.entityName(k.killer);
    victim.textContent = player.entityName(k.victim);
    const w = player.weaponName(k.weapon_type);
    weapon.textContent = w ? ` (${w})` : '';
    const kf = player.entityFactionOf(k.killer);
    const vf = player.entityFactionOf(k.victim);
    killer.style.color = kf !== undefined ? textColour(kf) : '';
    victim.style.color = vf !== undefined ? textColour(vf) : '';
    const desc = player.killText(k);
    b.title = `${desc} — click to watch from 2 s before`;
    const cam = li.lastChild as HTMLInputElement;
    cam.title = `Kill cam: ${player.killCamRewind} s before, at 0.5×, stopping on the kill`;
    cam.setAttribute('aria-label', `Kill cam for ${desc}`);
    mark(li, i);
  }

  /** Row state classes: future / latest (playhead), near, killcam. */
  function mark(li: HTMLLIElement, i: number) {
    const tick = kills[i].tick;
    li.classList.toggle('future', i > past);
    li.classList.toggle('latest', i === past);
    li.classList.toggle('near', near.has(tick));
    li.classList.toggle('killcam', tick === camTick);
  }

  const view = createVirtualList({ scroller, list, rowPx: ROW_PX, makeRow, fill });

  // A filter of the rows (the Analysis panel's, www/features/analysis/panel.ts): `keep(kill)`, or null.
  let keep: ((kill: Kill) => boolean) | null = null;
  function setKills(list0: readonly Kill[]) {
    kills = keep ? list0.filter(keep) : list0;
    times = kills.map((k) => player.killTime(k));
    killCount.textContent = kills.length ? String(kills.length) : '';
    note.hidden = !player.info || player.weaponsRecorded || !kills.length;
    past = firstAtOrAfter(player.tick + 1) - 1;
    nearKey = '';
    movedAt = performance.now();
    const scanning = player.scan && !player.scan.complete;
    const none = scanning ? 'Finding kills…' : player.spoilerSafe ? 'No kills yet' : 'No kills recorded';
    view.setCount(kills.length, player.info ? none : '');
    if (kills.length) markNear();
  }

  function remark() {
    view.forEachRow(mark);
  }

  // The playhead moved: O(log kills + rows in view).
  function markPast() {
    if (!kills.length) return;
    const p = firstAtOrAfter(player.tick + 1) - 1;
    if (p !== past) {
      past = p;
      remark();
    }
    markNear();
  }

  // Kills near the playhead (GetEventsNearTime with a 1.5 s window) are highlighted and kept in view.
  function markNear() {
    const ticks = new Set(
      player
        .eventsNear(1.5)
        .filter((e) => e.kind === 'kill')
        .map((e) => e.tick),
    );
    const kc = player.killCamKill?.tick;
    const key = `${[...ticks].join(',')}|${kc ?? ''}`;
    if (key === nearKey) return;
    nearKey = key;
    near = ticks;
    camTick = kc;
    remark();
    // A scroll of the user's since the playhead last moved wins: the feed follows at the next move.
    if (ticks.size && view.userScrolledAt < movedAt) {
      const i = firstAtOrAfter(Math.min(...ticks));
      if (i < kills.length) view.reveal(i);
    }
  }

  // One listener for every row (rows are reused for other kills as the list scrolls).
  list.addEventListener('click', (e) => {
    // (The list's own event: its target is an element in it.)
    const target = e.target as Element;
    const li = target.closest<HTMLElement>('li[data-index]');
    if (!li) return;
    const k: Kill | undefined = kills[Number(li.dataset.index)];
    if (!k) return;
    if (target.closest('.kf-cam')) player.startKillCam(k);
    else if (target.closest('button')) player.seek(Math.max(0, player.killTime(k) - KILL_LEAD_S));
  });
  // Hovering a row: the worker gets the chunk a click would seek to ready (player.prefetch).
  list.addEventListener('pointerover', (e) => {
    const target = e.target as Element;
    const li = target.closest<HTMLElement>('li[data-index]');
    const k: Kill | undefined = li ? kills[Number(li.dataset.index)] : undefined;
    if (!k) return;
    player.prefetch(
      target.closest('.kf-cam')
        ? Math.max(0, player.killTime(k) - player.killCamRewind)
        : Math.max(0, player.killTime(k) - KILL_LEAD_S),
    );
  });
  player.on('loadstart', () => {
    seeking = false;
    setKills([]);
  });
  player.on('info', () => setKills(player.kills));
  player.on('markers', (k) => setKills(k));
  player.on('scan', (s) => {
    if (s.complete && !kills.length) setKills(player.kills);
  });
  player.on('killcam', () => {
    movedAt = performance.now();
    nearKey = '';
    markNear();
  });
  // Off the seek's and the frame's critical path (www/widgets/idle.ts): the feed follows the playhead
  // when the main thread is idle; during a seek, once its frame has arrived.
  const markPastSoon = idleTask(markPast);
  let seeking = false;
  player.on('seeking', () => {
    seeking = true;
    movedAt = performance.now();
  });
  player.on('timeupdate', () => {
    movedAt = performance.now();
    if (!seeking) markPastSoon();
  });
  player.on('seeked', () => {
    seeking = false;
    markPastSoon();
  });

  /** Test / inspection hook. */
  function inspect(): KillFeedInspection {
    return { ...view.inspect(), past, ticks: kills.map(byTick) };
  }
  // Test / inspection: #killfeed.inspect() (in place of the virtual list's: www/widgets/virtual-list.ts).
  Object.defineProperty(list, 'inspect', {
    value: inspect satisfies InspectableList<KillFeedInspection>['inspect'],
    configurable: true,
  });
  /** Lists only the kills `pred(kill)` keeps (null: every one). */
  function setFilter(pred: ((kill: Kill) => boolean) | null) {
    keep = pred;
    setKills(player.kills);
  }
  return { inspect, reveal: view.reveal, setFilter };
}
