// The kill feed, virtualized: a scroll container (#killfeed-scroll) holding the list (#killfeed),
// whose height is that of every row (the spacer); only the rows in view (+ OVERSCAN above and
// below) exist, absolutely positioned at index × ROW_PX. A long replay's thousands of kills cost a
// few dozen elements, and a seek touches only those (the current kill: binary search, then the
// rows in view). Click a row to watch from 2 s before the kill; its "Kill cam" button starts the
// kill cam. Rows carry role=listitem with aria-setsize / aria-posinset (the list's full size for
// assistive tech). Strings from files only ever go through textContent.
import { fmtTime, el } from './format.js';
import { factionColour } from '../player.js';

export const ROW_PX = 26;
const OVERSCAN = 6;

export function createKillFeed(player, root = document) {
  const scroller = root.getElementById('killfeed-scroll');
  const list = root.getElementById('killfeed');
  const killCount = root.getElementById('kill-count');

  let kills = []; // in tick order (player.kills)
  let times = [];
  const rows = new Map(); // index -> li in the document
  const spare = []; // detached rows to reuse
  let viewH = scroller.clientHeight;
  let scrollTop = 0;
  let past = -1; // last kill at or before the playhead
  let near = new Set(); // ticks of kills near the playhead
  let camTick;
  let nearKey = '';
  let empty = null;

  /** First kill with tick >= `tick` (kills is in tick order); kills.length if none. */
  function firstAtOrAfter(tick) {
    let lo = 0;
    let hi = kills.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (kills[mid].tick < tick) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  function makeRow() {
    const li = el('li');
    li.setAttribute('role', 'listitem');
    li.style.height = `${ROW_PX}px`;
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

  /** Fills `li` with kill `i` (text, colours, position, ARIA). */
  function fill(li, i) {
    const k = kills[i];
    const t = times[i];
    li.dataset.index = String(i);
    li.dataset.tick = String(k.tick);
    li.style.transform = `translateY(${i * ROW_PX}px)`;
    li.setAttribute('aria-setsize', String(kills.length));
    li.setAttribute('aria-posinset', String(i + 1));
    const b = li.firstChild;
    const [time, text] = b.children;
    const [killer, , victim, weapon] = text.children;
    time.textContent = fmtTime(t);
    killer.textContent = player.entityName(k.killer);
    victim.textContent = player.entityName(k.victim);
    weapon.textContent = ` (${player.weaponName(k.weapon_type)})`;
    const kf = player.entityFactionOf(k.killer);
    const vf = player.entityFactionOf(k.victim);
    killer.style.color = kf !== undefined ? factionColour(kf) : '';
    victim.style.color = vf !== undefined ? factionColour(vf) : '';
    const desc = player.killText(k);
    b.title = `${desc} — click to watch from 2 s before`;
    const cam = li.lastChild;
    cam.title = `Kill cam: ${player.killCamRewind} s before, at 0.5×, stopping on the kill`;
    cam.setAttribute('aria-label', `Kill cam for ${desc}`);
    mark(li, i);
  }

  /** Row state classes: future / latest (playhead), near, killcam. */
  function mark(li, i) {
    const tick = kills[i].tick;
    li.classList.toggle('future', i > past);
    li.classList.toggle('latest', i === past);
    li.classList.toggle('near', near.has(tick));
    li.classList.toggle('killcam', tick === camTick);
  }

  /** Makes the rows in view (+ overscan) exist; drops the others (keeps a focused one). */
  function render(refill = false) {
    const n = kills.length;
    const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
    const last = Math.min(n - 1, Math.ceil((scrollTop + viewH) / ROW_PX) + OVERSCAN);
    const focused = document.activeElement;
    for (const [i, li] of rows) {
      if (i >= n || ((i < first || i > last) && !li.contains(focused))) {
        li.remove();
        rows.delete(i);
        spare.push(li);
      } else if (refill) fill(li, i);
    }
    // Downwards, each new row before the next one: the document order stays the kills' order.
    for (let i = last; i >= first; i--) {
      if (rows.has(i)) continue;
      const li = spare.pop() ?? makeRow();
      fill(li, i);
      rows.set(i, li);
      list.insertBefore(li, rows.get(i + 1) ?? null);
    }
  }

  function setKills(list0) {
    kills = list0;
    times = kills.map((k) => player.killTime(k));
    killCount.textContent = kills.length ? String(kills.length) : '';
    list.style.height = `${kills.length * ROW_PX}px`;
    if (!kills.length) {
      for (const li of rows.values()) li.remove();
      rows.clear();
      if (!empty) empty = el('li', 'empty');
      empty.textContent = player.info ? 'No kills recorded' : '';
      list.style.height = '';
      list.append(empty);
      return;
    }
    empty?.remove();
    past = firstAtOrAfter(player.tick + 1) - 1;
    nearKey = '';
    render(true);
    markNear();
  }

  /** Keeps row `i` in view (as scrollIntoView({ block: 'nearest' }) would). */
  function reveal(i) {
    const top = i * ROW_PX;
    let next = scrollTop;
    if (top < scrollTop) next = top;
    else if (top + ROW_PX > scrollTop + viewH) next = top + ROW_PX - viewH;
    next = Math.max(0, Math.min(next, kills.length * ROW_PX - viewH));
    if (next !== scrollTop) {
      // Not read back (that would force a layout on every seek); the scroll event confirms it.
      scroller.scrollTop = next;
      scrollTop = next;
      render();
    }
  }

  function remark() {
    for (const [i, li] of rows) mark(li, i);
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
    const ticks = new Set(player.eventsNear(1.5).filter((e) => e.kind === 'kill').map((e) => e.tick));
    const kc = player.killCamKill?.tick;
    const key = `${[...ticks].join(',')}|${kc ?? ''}`;
    if (key === nearKey) return;
    nearKey = key;
    near = ticks;
    camTick = kc;
    remark();
    if (ticks.size) {
      const i = firstAtOrAfter(Math.min(...ticks));
      if (i < kills.length) reveal(i);
    }
  }

  scroller.addEventListener(
    'scroll',
    () => {
      scrollTop = scroller.scrollTop;
      render();
    },
    { passive: true },
  );
  new ResizeObserver(() => {
    viewH = scroller.clientHeight;
    scrollTop = scroller.scrollTop;
    render();
  }).observe(scroller);

  // One listener for every row (rows are reused for other kills as the list scrolls).
  list.addEventListener('click', (e) => {
    const li = e.target.closest('li[data-index]');
    if (!li) return;
    const k = kills[Number(li.dataset.index)];
    if (!k) return;
    if (e.target.closest('.kf-cam')) player.startKillCam(k);
    else if (e.target.closest('button')) player.seek(Math.max(0, player.killTime(k) - 2));
  });
  // Up / Down move between rows (the rows out of view do not exist to Tab to).
  list.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const li = e.target.closest('li[data-index]');
    if (!li) return;
    const i = Number(li.dataset.index) + (e.key === 'ArrowDown' ? 1 : -1);
    if (i < 0 || i >= kills.length) return;
    e.preventDefault();
    reveal(i);
    render();
    const cls = e.target.classList.contains('kf-cam') ? '.kf-cam' : 'button';
    rows.get(i)?.querySelector(cls).focus();
  });

  player.on('loadstart', () => setKills([]));
  player.on('info', () => setKills(player.kills));
  player.on('markers', (k) => setKills(k));
  player.on('killcam', () => {
    nearKey = '';
    markNear();
  });
  player.on('timeupdate', markPast);
  player.on('seeked', markPast);

  /** Test / inspection hook. */
  function inspect() {
    return { count: kills.length, rows: rows.size, rowPx: ROW_PX, scrollTop, viewH, past };
  }
  return { inspect, reveal };
}
