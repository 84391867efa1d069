// The Analysis panel of the full page (the top bar's Analysis button; docs/playback.md
// "Analysis"): the scoreboard (www/features/analysis/scoreboard.ts) counted up to the playhead or over the whole
// recording; a filter of the kill feed and the timeline's markers with N / Shift+N through what it
// keeps, and a search of chat and admin text (www/features/analysis/event-filter.ts); range and bearing between two
// entities (a line over the view: www/features/analysis/range-line.ts); the inspector in a pilot's units
// (www/features/analysis/geo.ts); kills announced to screen readers (www/features/analysis/announcer.ts); the telemetry plots
// (www/features/analysis/telemetry.ts: a chunk of their own, imported when the Plots section first opens).
//
// Loaded on first use (main.ts imports it when the panel first opens, or on N): a session that
// never opens it downloads none of it. It reads the player only through the handle
// (docs/player-api.md) and what main.ts hands in (the timeline's and the kill feed's filters, the
// roster's Shift+click, constants of the first load). Strings from files only as textContent.
import { el, fmtTime, setText } from '../../widgets/format.ts';
import { tally, sortRows } from './scoreboard.ts';
import type { Row, Tally } from './scoreboard.ts';
import { FILTER_KINDS, makeFilter, stepMatch, searchText } from './event-filter.ts';
import type { Filter, Kill, ReplayEvent } from './event-filter.ts';
import { scanEventsText } from './whole-scan.ts';
import { createRangeLine } from './range-line.ts';
import type { RangeFigures, RangeLine, RangeLinePlayer } from './range-line.ts';
import { createAnnouncer } from './announcer.ts';
import type { AnnouncerPlayer } from './announcer.ts';
import { motion, fmtAlt, fmtSpeed, fmtVs, fmtHeading, fmtLatLon, UNITS } from './geo.ts';
import type { Moving, Range, Units, World } from './geo.ts';
import { attachPlots } from './telemetry.ts';
import type { PlotsPlayer } from './plots.ts';

/** What the panel itself reads of the handle (docs/player-api.md). */
export interface PanelPlayer {
  readonly info: {
    info: {
      world: World;
      factions: { index: number; display_name: string }[];
      participants: { entity: number; faction: number; callsign: string }[];
    };
  } | null;
  /** The replay's address, or '' for a file or bytes. */
  readonly url: string;
  /** The File/Blob open, or null (a URL). */
  readonly file: Blob | null;
  readonly spoilerSafe: boolean;
  /** Every kill known, in tick order. */
  readonly kills: Kill[];
  /** Every event known, in time order (`t`: seconds of playback). */
  readonly events: ReplayEvent[];
  readonly tick: number;
  readonly currentTime: number;
  readonly selected: number;
  readonly pageWaitsForSeek: boolean;
  entityState(id: number): (Moving & { tick: number; anim: number }) | null;
  entityFactionOf(id: number): number | undefined;
  entityName(id: number): string;
  weaponName(index: number): string;
  killText(k: Kill): string;
  participant(id: number): { entity: number; faction: number; callsign: string } | undefined;
  follow(entity: number): void;
  seekTick(tick: number): Promise<number>;
  learnEvents(events: ReplayEvent[], from: number, end: number, recordedAt?: ArrayLike<number>): void;
  on(event: 'loadstart' | 'info' | 'markers' | 'events' | 'seeked', fn: () => void): () => void;
  on(event: 'pick', fn: (p: { id: number; shiftKey: boolean }) => void): () => void;
}

/** The handle as the panel and its parts read it. */
export type AnalysisPlayer = PanelPlayer & PlotsPlayer & RangeLinePlayer & AnnouncerPlayer;

/** What #panel-analysis's inspect() answers: the scoreboard as last counted (`upTo`: the tick it
 *  counts up to, null: the whole recording), the filter (null: none), the range's two entities
 *  (−1: none), its figures and its line over the view. */
export interface AnalysisInspection {
  score: Tally & { upTo: number | null };
  filter: Filter | null;
  range: { a: number; b: number; figures: RangeFigures | null; line: ReturnType<RangeLine['inspect']> };
}

/** The panel's root (#panel-analysis) with its hooks (test / inspection: `root.inspect()`, the
 *  panel's state; `root.setRange(a, b)`, as the From and To lists set it; the plots answer on
 *  #an-plots, www/features/analysis/telemetry.ts). */
export interface AnalysisElement extends HTMLElement {
  inspect(): AnalysisInspection;
  setRange(a: number, b: number): void;
}

/** An event predicate (null: keeps everything), as the timeline and the kill feed take it. */
type Keep = ((e: ReplayEvent) => boolean) | null;

/** What main.ts hands in. */
export interface AnalysisOptions {
  /** The panel's (empty) section. */
  root: HTMLElement;
  /** The button that opens and closes it. */
  opener: HTMLElement;
  /** The player's element (the range line goes over it). */
  stage: HTMLElement;
  /** main.ts's timeline. */
  timeline: { setFilter(pred: Keep): void };
  /** main.ts's panels. */
  panels: { killfeed: { setFilter(pred: Keep): void }; onShiftPick: ((id: number) => void) | null };
  /** Constants and helpers of the first load. */
  lib: {
    factionColour: (index: number) => string;
    NO_ENTITY: number;
    eventKindKey: (e: ReplayEvent) => string;
    eventText: (player: AnalysisPlayer, e: ReplayEvent) => string;
  };
}

const KIND_LABELS: Record<string, string> = {
  kill: 'Kills',
  spawn: 'Spawns',
  despawn: 'Despawns',
  chat: 'Chat',
  admin: 'Admin actions',
  alert_level: 'Alert changes',
  other: 'Other',
};
/** [key, header, what it counts (the header's title and accessible name)]. */
const COLUMNS: [keyof Row | 'name', string, string][] = [
  ['name', 'Name', 'Name'],
  ['kills', 'Kills', 'Kills'],
  ['deaths', 'Deaths', 'Deaths'],
  ['teamKills', 'Own', 'Kills of their own faction'],
  ['weapon', 'Weapon', 'The weapon used most (its kills)'],
];
/** How often the scoreboard and the inspector follow the playhead (ms). */
const REFRESH_MS = 250;
const UNITS_KEY = 'replay-player.units';

/** The Analysis panel of `player` (the handle) in `o.root` (AnalysisOptions). */
export function createAnalysis(
  player: AnalysisPlayer,
  { root, opener, stage, timeline, panels, lib }: AnalysisOptions,
) {
  const { factionColour, NO_ENTITY, eventKindKey, eventText } = lib;
  const id = (s: string) => `an-${s}`;
  // (What was stored is checked against UNITS: then it is one of them.)
  let units: Units = (UNITS as readonly (string | null)[]).includes(localStorage.getItem(UNITS_KEY))
    ? (localStorage.getItem(UNITS_KEY) as Units)
    : 'imperial';

  // ---------------------------------------------------------------- building blocks

  function button(text: string, cls: string, onClick: () => void, title?: string): HTMLButtonElement {
    const b = el('button', cls ? `btn ${cls}` : 'btn', text);
    b.type = 'button';
    if (title) b.title = title;
    b.addEventListener('click', onClick);
    return b;
  }
  function select(name: string, label: string, onChange: () => void): [HTMLLabelElement, HTMLSelectElement] {
    const wrap = el('label', 'an-field');
    wrap.append(el('span', 'an-field-label', label));
    const s = el('select');
    s.id = id(name);
    s.addEventListener('change', onChange);
    wrap.append(s);
    return [wrap, s];
  }
  function option(s: HTMLSelectElement, value: number | string, text: string) {
    const o = el('option', '', text);
    o.value = String(value);
    s.append(o);
  }
  function checkbox(
    name: string,
    text: string,
    checked: boolean,
    onChange: () => void,
  ): [HTMLLabelElement, HTMLInputElement] {
    const label = el('label', 'an-check');
    const box = el('input');
    box.type = 'checkbox';
    box.id = id(name);
    box.checked = checked;
    box.addEventListener('change', onChange);
    label.append(box, document.createTextNode(` ${text}`));
    return [label, box];
  }
  function section(name: string, title: string, open = true): HTMLDetailsElement {
    const d = el('details', 'an-section');
    d.id = id(name);
    d.open = open;
    const s = el('summary', '');
    s.append(el('h3', '', title));
    d.append(s);
    return d;
  }

  // ---------------------------------------------------------------- the panel

  root.replaceChildren();
  root.classList.add('analysis');
  const head = el('div', 'an-head');
  const title = el('h2', '', 'Analysis');
  title.id = id('title');
  root.setAttribute('aria-labelledby', title.id);
  const closeBtn = button('Close', 'an-close', () => show(false), 'Close the Analysis panel');
  head.append(title, closeBtn);
  root.append(head);

  // ---------------------------------------------------------------- scoreboard

  const scoreSec = section('scoreboard', 'Scoreboard');
  const [wholeLabel, wholeBox] = checkbox('whole', 'Whole recording', false, () => renderScore(true));
  const scoreNote = el('p', 'an-note');
  scoreNote.id = id('score-note');
  const table = el('table', 'an-table');
  table.id = id('score');
  const cap = el('caption', 'sr-only', 'Kills, deaths, kills of their own faction and the weapon used most');
  const thead = el('thead');
  const headRow = el('tr');
  let sortKey: keyof Row | 'name' = 'kills';
  let sortDir = -1;
  const sortButtons = new Map<keyof Row | 'name', HTMLTableCellElement>();
  for (const [key, text, what] of COLUMNS) {
    const th = el('th');
    th.scope = 'col';
    th.title = what;
    if (key !== 'weapon') {
      const b = button(text, 'an-sort', () => {
        if (sortKey === key) sortDir = -sortDir;
        else [sortKey, sortDir] = [key, key === 'name' ? 1 : -1];
        renderScore(true);
      });
      b.dataset.key = key;
      if (what !== text) b.setAttribute('aria-label', what);
      th.append(b);
      sortButtons.set(key, th);
    } else th.textContent = text;
    headRow.append(th);
  }
  thead.append(headRow);
  const tbody = el('tbody');
  table.append(cap, thead, tbody);
  const factionTable = el('table', 'an-table an-factions');
  factionTable.id = id('factions');
  const fhead = el('tr');
  for (const t of ['Faction', 'Kills', 'Deaths', 'Own']) {
    const th = el('th', '', t);
    if (t === 'Own') th.title = 'Kills of their own faction';
    th.scope = 'col';
    fhead.append(th);
  }
  const fthead = el('thead');
  fthead.append(fhead);
  const fbody = el('tbody');
  factionTable.append(el('caption', 'sr-only', 'Totals per faction'), fthead, fbody);
  const scoreScroll = el('div', 'an-scroll');
  scoreScroll.append(table);
  scoreSec.append(wholeLabel, scoreNote, scoreScroll, factionTable);
  root.append(scoreSec);

  /** What the scoreboard last showed (the count and the rule), so that a refresh that counts the
   *  same kills writes nothing. */
  let scoreKey = '';
  let score: Tally & { upTo: number } = { rows: [], factions: [], counted: 0, upTo: 0 };
  const factionName = (f: number) =>
    player.info?.info.factions.find((x) => x.index === f)?.display_name || (f >= 0 ? `Faction ${f}` : 'No faction');

  function renderScore(force = false) {
    if (!player.info || root.hidden) return;
    const whole = wholeBox.checked && !player.spoilerSafe;
    const kills = player.kills;
    const upTo = whole ? Infinity : player.tick;
    // The kills counted are a prefix of the kill list (tick order): its length says if anything changed.
    let n = 0;
    if (whole) n = kills.length;
    else {
      let lo = 0;
      let hi = kills.length;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (kills[m].tick <= upTo) lo = m + 1;
        else hi = m;
      }
      n = lo;
    }
    const key = `${whole}|${n}|${kills.length}|${sortKey}|${sortDir}`;
    // The note names the playhead's time even when no kill was passed since the last count.
    const note = () =>
      setText(
        scoreNote,
        whole
          ? `Whole recording · ${score.counted} kills`
          : `Up to ${fmtTime(player.currentTime)} · ${score.counted} kills`,
      );
    if (!force && key === scoreKey) {
      note();
      return;
    }
    scoreKey = key;
    score = { ...tally(kills, upTo, (e) => player.entityFactionOf(e)), upTo };
    note();
    for (const [k, th] of sortButtons)
      th.setAttribute('aria-sort', k === sortKey ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    const rows = sortRows(score.rows, sortKey, sortDir, (e) => player.entityName(e));
    tbody.replaceChildren();
    for (const r of rows) {
      const tr = el('tr');
      tr.dataset.entity = String(r.entity);
      const nameCell = el('td', 'an-name');
      const b = button('', 'an-follow', () => player.follow(r.entity), 'Follow');
      const sw = el('span', 'swatch');
      if (r.faction !== undefined) sw.style.background = factionColour(r.faction);
      b.append(sw, document.createTextNode(player.entityName(r.entity)));
      nameCell.append(b);
      tr.append(
        nameCell,
        el('td', 'an-num', r.kills),
        el('td', 'an-num', r.deaths),
        el('td', 'an-num', r.teamKills),
        el('td', 'an-weapon', r.weapon >= 0 ? `${player.weaponName(r.weapon)} (${r.weaponKills})` : '—'),
      );
      tbody.append(tr);
    }
    if (!rows.length) {
      const tr = el('tr');
      const td = el('td', 'an-empty', 'No kills yet');
      td.colSpan = COLUMNS.length;
      tr.append(td);
      tbody.append(tr);
    }
    fbody.replaceChildren();
    for (const f of score.factions) {
      const tr = el('tr');
      const name = el('td', 'an-name');
      const sw = el('span', 'swatch');
      if (f.faction >= 0) sw.style.background = factionColour(f.faction);
      name.append(sw, document.createTextNode(factionName(f.faction)));
      tr.append(name, el('td', 'an-num', f.kills), el('td', 'an-num', f.deaths), el('td', 'an-num', f.teamKills));
      fbody.append(tr);
    }
  }
  // A row's click follows its entity (the name's button is the keyboard's way to it).
  tbody.addEventListener('click', (e: MouseEvent) => {
    const target = e.target as Element; // a click in the body: on one of its elements
    const tr = target.closest<HTMLTableRowElement>('tr[data-entity]');
    if (tr && !target.closest('button')) player.follow(Number(tr.dataset.entity));
  });

  // ---------------------------------------------------------------- filter, N / Shift+N, search

  const filterSec = section('filter', 'Filter and search');
  const [whoWrap, whoSel] = select('who', 'Participant', applyFilter);
  const [roleWrap, roleSel] = select('role', 'As', applyFilter);
  option(roleSel, 'either', 'killer or victim');
  option(roleSel, 'killer', 'killer');
  option(roleSel, 'victim', 'victim');
  const [factionWrap, factionSel] = select('faction', 'Faction', applyFilter);
  const [weaponWrap, weaponSel] = select('weapon', 'Weapon', applyFilter);
  const kinds = el('fieldset', 'an-kinds');
  kinds.append(el('legend', '', 'Events'));
  const kindBoxes = new Map<string, HTMLInputElement>();
  for (const k of FILTER_KINDS) {
    const [label, box] = checkbox(`kind-${k}`, KIND_LABELS[k], true, applyFilter);
    box.dataset.kind = k;
    kinds.append(label);
    kindBoxes.set(k, box);
  }
  const stepRow = el('div', 'an-row');
  const prevBtn = button('◀ Previous', 'an-prev', () => step(-1), 'Previous matching event (Shift+N)');
  const nextBtn = button('Next ▶', 'an-next', () => step(1), 'Next matching event (N)');
  const matchNote = el('span', 'an-note');
  matchNote.id = id('matches');
  matchNote.setAttribute('aria-live', 'polite');
  stepRow.append(prevBtn, nextBtn, matchNote);
  const resetBtn = button('Show everything', 'an-reset', () => {
    whoSel.value = '-1';
    roleSel.value = 'either';
    factionSel.value = '-1';
    weaponSel.value = '-1';
    for (const b of kindBoxes.values()) b.checked = true;
    applyFilter();
  });
  stepRow.append(resetBtn);

  const searchWrap = el('div', 'an-search');
  const searchLabel = el('label', 'an-field-label', 'Search chat and admin text');
  const search = el('input');
  search.type = 'search';
  search.id = id('search');
  searchLabel.htmlFor = search.id;
  const results = el('ul', 'an-results');
  results.id = id('results');
  results.setAttribute('aria-label', 'Search results');
  searchWrap.append(searchLabel, search, results);
  // Events beyond the chunks the player decoded: the whole recording read in the plots' worker.
  const scanRow = el('div', 'an-row');
  const scanNote = el('span', 'an-note');
  scanNote.id = id('scan-note');
  scanNote.setAttribute('role', 'status');
  let scanAsked = false;
  const scanBtn = button('Search the whole recording', 'an-scan', () => {
    if (player.url && !scanAsked) {
      scanAsked = true;
      scanBtn.textContent = 'Download and scan';
      setText(scanNote, 'This downloads the whole file from its server');
      return;
    }
    plots.scan(true);
  });
  scanRow.append(scanBtn, scanNote);
  filterSec.append(whoWrap, roleWrap, factionWrap, weaponWrap, kinds, stepRow, searchWrap, scanRow);
  root.append(filterSec);

  let keep: Keep = null;
  function currentFilter(): Filter {
    return {
      who: Number(whoSel.value),
      role: roleSel.value as Filter['role'], // one of its options
      faction: Number(factionSel.value),
      weapon: Number(weaponSel.value),
      kinds: new Set([...kindBoxes].filter(([, b]) => b.checked).map(([k]) => k)),
    };
  }
  function applyFilter() {
    keep = makeFilter(currentFilter(), {
      kindOf: eventKindKey,
      factionOf: (e) => player.entityFactionOf(e),
      participant: (p) => player.participant(p),
    });
    timeline.setFilter(keep);
    panels.killfeed.setFilter(keep);
    countMatches();
  }
  function countMatches() {
    if (!keep) {
      setText(matchNote, '');
      return;
    }
    let n = 0;
    for (const e of player.events) if (keep(e)) n++;
    setText(matchNote, `${n} matching event${n === 1 ? '' : 's'}`);
  }
  /** N (1) / Shift+N (−1): the next / previous event the filter keeps; the playhead goes to its tick. */
  function step(dir: number) {
    const e = stepMatch(player.events, player.tick, dir, keep);
    if (!e) {
      setText(matchNote, dir > 0 ? 'No matching event after the playhead' : 'No matching event before the playhead');
      return null;
    }
    // (The player's events carry their time; fmtTime reads none as 0 all the same.)
    setText(matchNote, `${fmtTime(e.t ?? 0)} ${eventText(player, e)}`);
    return player.seekTick(e.tick);
  }

  function runSearch() {
    results.replaceChildren();
    const found = searchText(player.events, search.value);
    for (const e of found) {
      const li = el('li');
      const b = button(`${fmtTime(e.t ?? 0)} ${eventText(player, e)}`, 'an-result', () => player.seekTick(e.tick));
      b.dataset.tick = String(e.tick);
      li.append(b);
      results.append(li);
    }
    if (search.value.trim() && !found.length) results.append(el('li', 'an-empty', 'Nothing found'));
    return found;
  }
  search.addEventListener('input', runSearch);
  search.addEventListener('keydown', (e: KeyboardEvent) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const found = runSearch();
    const next = found.find((x) => x.tick > player.tick) ?? found[0];
    if (next) player.seekTick(next.tick);
  });

  // ---------------------------------------------------------------- range and bearing

  const rangeSec = section('range', 'Range and bearing');
  const [aWrap, aSel] = select('range-a', 'From', () => setRange(Number(aSel.value), rangeB));
  const [bWrap, bSel] = select('range-b', 'To', () => setRange(rangeA, Number(bSel.value)));
  const rangeRow = el('div', 'an-row');
  rangeRow.append(
    button('Swap', 'an-swap', () => setRange(rangeB, rangeA)),
    button('Clear', 'an-clear', () => setRange(-1, -1)),
  );
  const rangeList = el('dl', 'an-readout');
  rangeList.id = id('range');
  const rangeCells = new Map<keyof Range, HTMLElement>();
  for (const [k, l] of [
    ['distance', 'Distance'],
    ['bearing', 'Bearing'],
    ['closure', 'Closure'],
    ['altDiff', 'Altitude difference'],
  ] satisfies [keyof Range, string][]) {
    const dd = el('dd', '', '—');
    dd.dataset.key = k;
    rangeList.append(el('dt', '', l), dd);
    rangeCells.set(k, dd);
  }
  const rangeHint = el('p', 'an-note', 'Shift+click an entity in the view or in the roster to measure to it.');
  rangeSec.append(aWrap, bWrap, rangeRow, rangeList, rangeHint);
  root.append(rangeSec);

  const line = createRangeLine(player, stage, () => units);
  let rangeA = -1;
  let rangeB = -1;
  function setRange(a: number, b: number) {
    rangeA = Number.isFinite(a) ? a : -1;
    rangeB = Number.isFinite(b) ? b : -1;
    aSel.value = String(rangeA);
    bSel.value = String(rangeB);
    line.set(rangeA, rangeB);
    renderRange();
  }
  function renderRange() {
    const f = line.figures;
    for (const [k, dd] of rangeCells) {
      if (!f) {
        setText(dd, '—');
        delete dd.dataset.value;
        continue;
      }
      const v = f[k];
      dd.dataset.value = String(v);
      setText(
        dd,
        k === 'distance'
          ? fmtDistText(v)
          : k === 'bearing'
            ? fmtHeading(v)
            : k === 'closure'
              ? fmtSpeed(v, units, true)
              : fmtAlt(v, units, true),
      );
    }
  }
  const fmtDistText = (m: number) =>
    units === 'metric' ? `${(m / 1000).toFixed(3)} km` : `${(m / 1852).toFixed(3)} NM`;
  // A Shift+click on the view or in the roster measures from the selection (or the last "From") to it.
  function shiftPick(id: number) {
    if (!(id >= 0)) return;
    const from = rangeA >= 0 && rangeA !== id ? rangeA : player.selected;
    if (from >= 0 && from !== id) setRange(from, id);
    else setRange(id, -1);
    if (root.hidden) show(true);
  }
  const offPick = player.on('pick', ({ id: picked, shiftKey }) => {
    if (shiftKey) shiftPick(picked);
  });
  panels.onShiftPick = shiftPick;

  const plotsSec = section('plots', 'Plots', false);
  root.append(plotsSec);
  // The source to read again: the URL, or the File the player holds (a reference, not its bytes).
  const source = () => player.url || player.file;
  const plots = attachPlots(player, plotsSec, {
    source,
    other: () => rangeB,
    units: () => units,
    // The whole-recording scan's events join the player's (search, N, the filter's count).
    onEvents: (events, from, end, at) => player.learnEvents(events, from, end, at),
    onScan: (st) => {
      scanBtn.hidden = st.state === 'running';
      setText(scanNote, scanEventsText(st));
      if (st.state === 'done') {
        countMatches();
        if (search.value.trim()) runSearch();
      }
    },
  });

  // ---------------------------------------------------------------- settings: units, announcements

  const setSec = section('settings', 'Units and announcements');
  const unitsSet = el('fieldset', 'an-units');
  unitsSet.append(el('legend', '', 'Units'));
  const unitRadios = new Map<string, HTMLInputElement>();
  for (const [u, text] of [
    ['imperial', 'Pilot (ft, kt, NM)'],
    ['metric', 'Metric (m, km/h, km)'],
  ] satisfies [Units, string][]) {
    const label = el('label', 'an-check');
    const r = el('input');
    r.type = 'radio';
    r.name = 'an-units';
    r.value = u;
    r.id = id(`units-${u}`);
    r.checked = u === units;
    r.addEventListener('change', () => {
      if (!r.checked) return;
      units = u;
      try {
        localStorage.setItem(UNITS_KEY, u);
      } catch {
        /* private mode: the choice lasts the page */
      }
      renderInspector(true);
      renderRange();
    });
    label.append(r, document.createTextNode(` ${text}`));
    unitsSet.append(label);
    unitRadios.set(u, r);
  }
  const announcer = createAnnouncer(player, document.body);
  const [announceLabel, announceBox] = checkbox('announce', 'Announce kills to screen readers', false, () =>
    announcer.setEnabled(announceBox.checked),
  );
  setSec.append(unitsSet, announceLabel);
  root.append(setSec);

  // ---------------------------------------------------------------- the inspector in a pilot's units

  // The inspector card (panels.ts) shows the selected entity; its position rows are shown here in
  // the chosen units instead, with latitude, longitude, heading and vertical speed.
  const insp = document.getElementById('inspector');
  const baseList = document.getElementById('insp-list');
  const pilot = el('dl', 'insp-list insp-pilot');
  pilot.id = 'insp-pilot';
  const pilotCells = new Map<string, [HTMLElement, HTMLElement]>();
  const pilotRows = [
    ['lat', 'Latitude'],
    ['lon', 'Longitude'],
    ['alt', 'Altitude'],
    ['heading', 'Heading'],
    ['track', 'Track'],
    ['speed', 'Speed'],
    ['groundSpeed', 'Ground speed'],
    ['verticalSpeed', 'Vertical speed'],
    ['anim', 'Anim state'],
    ['tick', 'Tick'],
  ];
  for (const [k, l] of pilotRows) {
    const dt = el('dt', '', l);
    const dd = el('dd', '', '—');
    dd.dataset.key = k;
    pilot.append(dt, dd);
    pilotCells.set(k, [dt, dd]);
  }
  baseList?.after(pilot);
  let inspKey = '';
  function renderInspector(force = false) {
    if (!insp || insp.hidden) return;
    const eid = Number(insp.dataset.entity);
    const st = player.entityState(eid);
    if (baseList) baseList.hidden = true;
    const key = `${eid}|${st?.tick}|${units}`;
    if (!force && key === inspKey) return;
    inspKey = key;
    if (!st) {
      for (const [, dd] of pilotCells.values()) {
        setText(dd, '—');
        delete dd.dataset.value;
      }
      return;
    }
    const m = motion(st, player.info?.info.world);
    const flat = m.lat === null;
    const put = (k: string, text: string, value: number | null | undefined, label?: string) => {
      const cell = pilotCells.get(k);
      if (!cell) return; // (every key of pilotRows has one)
      const [dt, dd] = cell;
      if (label) setText(dt, label);
      setText(dd, text);
      if (value === null || value === undefined) delete dd.dataset.value;
      else dd.dataset.value = String(value);
    };
    const metres = (v: number) => (units === 'metric' ? `${v.toFixed(1)} m` : `${Math.round(v * 3.28084)} ft`);
    // (A flat world's motion has `north` and `east`: motion() sets them where it sets no latitude.)
    put(
      'lat',
      flat ? metres(m.north ?? 0) : fmtLatLon(m.lat, true),
      flat ? m.north : m.lat,
      flat ? 'North' : 'Latitude',
    );
    put(
      'lon',
      flat ? metres(m.east ?? 0) : fmtLatLon(m.lon, false),
      flat ? m.east : m.lon,
      flat ? 'East' : 'Longitude',
    );
    put('alt', fmtAlt(m.alt, units), m.alt);
    put('heading', fmtHeading(m.heading), m.heading);
    put('track', fmtHeading(m.track), m.track);
    put('speed', fmtSpeed(m.speed, units), m.speed);
    put('groundSpeed', fmtSpeed(m.groundSpeed, units), m.groundSpeed);
    put('verticalSpeed', fmtVs(m.verticalSpeed, units), m.verticalSpeed);
    put('anim', String(st.anim), st.anim);
    put('tick', String(st.tick), st.tick);
  }

  // ---------------------------------------------------------------- the lists: people, factions, weapons

  function people() {
    const info = player.info?.info;
    if (!info) return [];
    const seen = new Set<number>();
    const out: { entity: number; faction: number; name: string }[] = [];
    for (const p of info.participants) {
      if (p.entity === NO_ENTITY || seen.has(p.entity)) continue;
      seen.add(p.entity);
      out.push({ entity: p.entity, faction: p.faction, name: p.callsign || `#${p.entity}` });
    }
    out.sort((a, b) => a.faction - b.faction || a.name.localeCompare(b.name));
    return out;
  }
  function fillLists() {
    const info = player.info?.info;
    const list = people();
    for (const [s, none] of [
      [whoSel, 'Anyone'],
      [aSel, '—'],
      [bSel, '—'],
    ] satisfies [HTMLSelectElement, string][]) {
      const v = s.value;
      s.replaceChildren();
      option(s, -1, none);
      for (const p of list) option(s, p.entity, p.name);
      s.value = [...s.options].some((o) => o.value === v) ? v : '-1';
    }
    const fv = factionSel.value;
    factionSel.replaceChildren();
    option(factionSel, -1, 'Any');
    for (const f of info?.factions ?? []) option(factionSel, f.index, f.display_name || `Faction ${f.index}`);
    factionSel.value = [...factionSel.options].some((o) => o.value === fv) ? fv : '-1';
    fillWeapons();
  }
  let weaponCount = -1;
  function fillWeapons() {
    const kills = player.kills;
    if (kills.length === weaponCount) return;
    weaponCount = kills.length;
    const wv = weaponSel.value;
    const weapons = [...new Set(kills.map((k) => k.weapon_type))].sort((a, b) => a - b);
    weaponSel.replaceChildren();
    option(weaponSel, -1, 'Any');
    for (const w of weapons) option(weaponSel, w, player.weaponName(w));
    weaponSel.value = [...weaponSel.options].some((o) => o.value === wv) ? wv : '-1';
  }

  // ---------------------------------------------------------------- showing, following the player

  function show(on = root.hidden) {
    if (on === !root.hidden) return;
    root.hidden = !on;
    opener.setAttribute('aria-expanded', String(on));
    opener.classList.toggle('on', on);
    if (on) {
      fillLists();
      renderScore(true);
      renderInspector(true);
    } else opener.focus();
  }
  const timers = [
    setInterval(() => {
      if (document.hidden || player.pageWaitsForSeek) return;
      renderScore();
      renderInspector();
      if (rangeA >= 0 && rangeB >= 0) renderRange();
    }, REFRESH_MS),
  ];
  const offs = [
    player.on('loadstart', () => {
      setRange(-1, -1);
      search.value = '';
      results.replaceChildren();
      scanAsked = false;
      scanBtn.textContent = 'Search the whole recording';
      scanBtn.hidden = false;
      setText(scanNote, '');
      weaponCount = -1;
      scoreKey = '';
      whoSel.value = factionSel.value = weaponSel.value = '-1';
      keep = null;
      timeline.setFilter(null);
      panels.killfeed.setFilter(null);
      setText(matchNote, '');
    }),
    player.on('info', () => {
      fillLists();
      wholeBox.disabled = player.spoilerSafe;
      wholeLabel.title = player.spoilerSafe
        ? 'Hidden in a spoiler-safe view: only what the playhead has reached counts'
        : '';
      if (player.spoilerSafe) wholeBox.checked = false;
      applyFilter();
      renderScore(true);
    }),
    player.on('markers', () => {
      fillWeapons();
      renderScore();
    }),
    player.on('events', () => {
      if (keep) countMatches();
    }),
    player.on('seeked', () => {
      renderScore();
      renderInspector();
      renderRange();
    }),
  ];
  if (player.info) {
    fillLists();
    wholeBox.disabled = player.spoilerSafe;
    applyFilter();
  }
  opener.setAttribute('aria-controls', root.id);
  // Test / inspection: #panel-analysis's inspect() (computed on call) and setRange(a, b) (any two
  // entities, where the From and To lists hold the participants only).
  const inspect = (): AnalysisInspection => ({
    score: { ...score, upTo: Number.isFinite(score.upTo) ? score.upTo : null },
    filter: keep ? currentFilter() : null,
    range: { a: rangeA, b: rangeB, figures: line.figures, line: line.inspect() },
  });
  Object.defineProperties(root, {
    inspect: { value: inspect satisfies AnalysisElement['inspect'], configurable: true },
    setRange: { value: setRange satisfies AnalysisElement['setRange'], configurable: true },
  });

  return {
    show,
    toggle: () => show(root.hidden),
    step,
    shiftPick,
    get units() {
      return units;
    },
    setUnits(u: string) {
      const r = unitRadios.get(u);
      if (!r) return;
      r.checked = true;
      r.dispatchEvent(new Event('change'));
    },
    announcer,
    dispose() {
      for (const t of timers) clearInterval(t);
      for (const off of offs) off();
      offPick();
      panels.onShiftPick = null;
      line.dispose();
      plots.dispose();
      announcer.dispose();
      pilot.remove();
      if (baseList) baseList.hidden = false;
    },
  };
}

/** The Analysis panel (createAnalysis()'s answer). */
export type Analysis = ReturnType<typeof createAnalysis>;
