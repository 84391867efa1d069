// A virtualized list (the kill feed and the roster): a scroll container holding a list whose height
// is that of every row; only the rows in view (+ OVERSCAN above and below) exist, absolutely
// positioned at index × rowPx. Thousands of entries cost a few dozen elements, and the page's
// layout never walks the rest (a 2,000-row roster laid out in full cost ~19 ms per animation frame).
// Rows are reused for other entries as the list scrolls: `makeRow()` builds an empty one, `fill(li,
// i)` writes entry i into it. Rows carry role=listitem, data-index and aria-setsize / aria-posinset
// (the list's full size for assistive tech). Up / Down move the focus between rows (rows out of view
// do not exist to Tab to). Positions are never read back from the layout on the hot path: the scroll
// event and a ResizeObserver report them.
import { el } from './format.ts';

const OVERSCAN = 6;

/** createVirtualList()'s parts: the scroll container, the list in it, the rows' height and how
 *  rows are made and filled. */
export interface VirtualListOptions {
  scroller: HTMLElement;
  list: HTMLElement;
  rowPx: number;
  makeRow: () => HTMLLIElement;
  fill: (li: HTMLLIElement, i: number) => void;
}

/** What a list's inspect() answers: entries, rows in the document, row height, scroll, view height. */
export interface VirtualListInspection {
  count: number;
  rows: number;
  rowPx: number;
  scrollTop: number;
  viewH: number;
}

/** The list element with its hook (test / inspection: `list.inspect()`; the kill feed's adds to it). */
export interface InspectableList<T = VirtualListInspection> extends HTMLElement {
  inspect(): T;
}

/** What createVirtualList() returns. */
export interface VirtualList {
  setCount(n: number, emptyText?: string): void;
  reveal(i: number): void;
  render(refill?: boolean): void;
  forEachRow(fn: (li: HTMLLIElement, i: number) => void): void;
  inspect(): VirtualListInspection;
  readonly count: number;
  readonly userScrolledAt: number;
}

export function createVirtualList({ scroller, list, rowPx, makeRow, fill }: VirtualListOptions): VirtualList {
  let count = 0;
  const rows = new Map<number, HTMLLIElement>(); // index -> li in the document
  const spare: HTMLLIElement[] = []; // detached rows to reuse
  let viewH = scroller.clientHeight;
  let scrollTop = 0;
  let empty: HTMLLIElement | null = null;

  function place(li: HTMLLIElement, i: number) {
    li.dataset.index = String(i);
    li.style.transform = `translateY(${i * rowPx}px)`;
    li.setAttribute('aria-setsize', String(count));
    li.setAttribute('aria-posinset', String(i + 1));
    fill(li, i);
  }

  /** Makes the rows in view (+ overscan) exist; drops the others (keeps a focused one). */
  function render(refill = false) {
    const first = Math.max(0, Math.floor(scrollTop / rowPx) - OVERSCAN);
    const last = Math.min(count - 1, Math.ceil((scrollTop + viewH) / rowPx) + OVERSCAN);
    const focused = document.activeElement;
    if (
      rows.size &&
      last >= first &&
      ![...rows.entries()].some(([i, li]) => (i >= first && i <= last) || li.contains(focused))
    ) {
      jump(first, last);
      return;
    }
    for (const [i, li] of rows) {
      if (i >= count || ((i < first || i > last) && !li.contains(focused))) {
        li.remove();
        rows.delete(i);
        spare.push(li);
      } else if (refill) place(li, i);
    }
    // Downwards, each new row before the next one: the document order stays the entries' order.
    for (let i = last; i >= first; i--) {
      if (rows.has(i)) continue;
      const li = spare.pop() ?? newRow();
      place(li, i);
      rows.set(i, li);
      list.insertBefore(li, rows.get(i + 1) ?? null);
    }
  }

  /**
   * A jump (a seek far away, a scroll by more than the view): none of the rows stays, so they are
   * filled again in place, in order (no element leaves or joins the document: only their text and
   * position change, which lays out far less than removing and inserting every row).
   */
  function jump(first: number, last: number) {
    const old = [...rows.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    rows.clear();
    let k = 0;
    for (let i = first; i <= last; i++) {
      const li = old[k++] ?? spare.pop() ?? newRow();
      place(li, i);
      rows.set(i, li);
      if (!li.isConnected) list.append(li);
    }
    for (; k < old.length; k++) {
      old[k].remove();
      spare.push(old[k]);
    }
  }

  function newRow() {
    const li = makeRow();
    li.setAttribute('role', 'listitem');
    li.style.height = `${rowPx}px`;
    return li;
  }

  /**
   * A new list of `n` entries (every row in view is filled again). With none, `emptyText` (when
   * not empty) is shown as the one row.
   */
  function setCount(n: number, emptyText = '') {
    count = n;
    // Rows hold buttons; with none, the region itself takes the focus, so that a keyboard can
    // scroll its text when the panel is short (axe: scrollable-region-focusable).
    if (n) scroller.removeAttribute('tabindex');
    else scroller.tabIndex = 0;
    if (!n) {
      for (const li of rows.values()) li.remove();
      rows.clear();
      list.style.height = '';
      if (emptyText) {
        if (!empty) empty = el('li', 'empty');
        empty.textContent = emptyText;
        list.append(empty);
      } else empty?.remove();
      return;
    }
    empty?.remove();
    list.style.height = `${n * rowPx}px`;
    // Clamped as the browser will clamp it (the list may have shrunk); the scroll event confirms.
    scrollTop = Math.max(0, Math.min(scrollTop, n * rowPx - viewH));
    render(true);
  }

  /** Keeps row `i` in view (as scrollIntoView({ block: 'nearest' }) would). */
  function reveal(i: number) {
    if (i < 0 || i >= count) return;
    const top = i * rowPx;
    let next = scrollTop;
    if (top < scrollTop) next = top;
    else if (top + rowPx > scrollTop + viewH) next = top + rowPx - viewH;
    next = Math.max(0, Math.min(next, count * rowPx - viewH));
    if (next !== scrollTop) {
      // Not read back (that would force a layout); the scroll event confirms it.
      scroller.scrollTop = next;
      scrollTop = next;
      render();
    }
  }

  /** Calls `fn(li, i)` for every row that exists (to update state classes in place). */
  function forEachRow(fn: (li: HTMLLIElement, i: number) => void) {
    for (const [i, li] of rows) fn(li, i);
  }

  // When the last scroll not made by reveal() happened (the user's wheel, drag or keys).
  let userScrolledAt = -Infinity;
  scroller.addEventListener(
    'scroll',
    () => {
      if (Math.abs(scroller.scrollTop - scrollTop) >= 1) userScrolledAt = performance.now();
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

  // Up / Down: the same control (by position among the row's buttons) in the next / previous row.
  list.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    // (The list's own event: its target is an element in it.)
    const target = e.target as Element;
    const li = target.closest<HTMLLIElement>('li[data-index]');
    if (!li) return;
    const i = Number(li.dataset.index) + (e.key === 'ArrowDown' ? 1 : -1);
    if (i < 0 || i >= count) return;
    e.preventDefault();
    const k = [...li.querySelectorAll('button, input')].indexOf(target);
    reveal(i);
    render();
    rows.get(i)?.querySelectorAll<HTMLElement>('button, input')[Math.max(0, k)]?.focus();
  });

  /** Test / inspection hook. */
  function inspect(): VirtualListInspection {
    return { count, rows: rows.size, rowPx, scrollTop, viewH };
  }
  // Test / inspection: the list answers for itself (#roster; the kill feed's own, www/widgets/killfeed.ts).
  Object.defineProperty(list, 'inspect', { value: inspect satisfies InspectableList['inspect'], configurable: true });
  return {
    setCount,
    reveal,
    render,
    forEachRow,
    inspect,
    get count() {
      return count;
    },
    /** `performance.now()` of the last scroll the list did not make itself (-Infinity: none). */
    get userScrolledAt() {
      return userScrolledAt;
    },
  };
}
