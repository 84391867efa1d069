// Compare two recordings (the determinism gate in the page: docs/playback.md "Comparing two
// recordings"). "Compare…" or two recordings dropped / picked at once: A opens in the player, the
// compare worker (www/compare-worker.ts, started here through `newWorker`) compares A and B tick by
// tick with progress, and this panel says what it found: the first divergent tick, the entities
// that differ there with each field's value in A and in B, or "identical through tick N", or that B
// (or A) ends first, or why the two are not recordings of one session. A mark on the timeline at
// the divergence seeks there. Loaded on first use (main.ts); imports only widgets/format.ts (the
// worker's Rpc, www/bridge/rpc.ts, is handed in: `newRpc`).
// File strings (names, reasons) reach the DOM only as text.
import type { Controller } from '../../api/controller.ts';
import type { NewRpc, Rpc } from '../../bridge/rpc.ts';
import { el, fmtTime } from '../../widgets/format.ts';

// The compare worker's messages (docs/worker-protocol.md, "The compare worker"): both sides import them.
import type {
  CompareInfo,
  CompareOutcome,
  ComparePush,
  CompareRequest,
  CompareResult,
  DivergedEntity,
} from '../../lib/protocol/compare.ts';

/** What the Compare panel reads and drives of the player (www/api/player.ts's handle: types/player.d.ts). */
export type ComparePlayer = Pick<
  Controller,
  'ghosts' | 'showGhosts' | 'on' | 'info' | 'duration' | 'pause' | 'seekTick' | 'load' | 'entityName'
>;

/** createCompare()'s options (below). */
export interface CompareOptions {
  root: HTMLElement;
  newWorker: () => Worker;
  newRpc: NewRpc;
  timeline: { span: () => number };
  doc?: Document;
}

/** The Compare panel: createCompare()'s answer (main.ts keeps it). */
export type Compare = ReturnType<typeof createCompare>;

/** What #compare's inspect() answers: the current comparison's outcome, each recording's info and
 *  the worker's ms once it is done; null before (or while one runs). */
export interface CompareInspection {
  outcome: CompareOutcome;
  info: [CompareInfo | null, CompareInfo | null] | undefined;
  ms: number | undefined;
}

/** The panel's root (#compare) with its hook (test / inspection: `root.inspect()`). */
export interface CompareElement extends HTMLElement {
  inspect(): CompareInspection | null;
}

/** Fields whose values are lengths in the recording's quanta (shown in metres too). */
const METRES: Record<string, string> = { pos: 'position_quantum_m', vel: 'velocity_quantum_mps' };

/**
 * The Compare panel over `player`. root: the panel's element (index.html #compare); newWorker: a
 * new compare worker (main.ts, which knows its URL); newRpc: `new Rpc(worker, options)` of
 * www/bridge/rpc.ts (main.ts's: the first load holds it); timeline.span(): the seconds the bar spans
 */
export function createCompare(
  player: ComparePlayer,
  { root, newWorker, newRpc, timeline, doc = document }: CompareOptions,
) {
  // The full page's timeline: always there.
  const scrubber = doc.getElementById('scrubber') as HTMLElement;
  const mark = el('button', 'compare-mark');
  mark.type = 'button';
  mark.hidden = true;
  scrubber.append(mark);

  const head = el('header', 'cmp-head');
  const title = el('h2', 'cmp-title', 'Compare');
  const close = el('button', 'btn cmp-close', 'Close');
  close.type = 'button';
  head.append(title, close);
  const names = el('div', 'cmp-names');
  const bar = el('div', 'progress-track cmp-track');
  const fill = el('div', 'progress-bar');
  bar.append(fill);
  const status = el('p', 'cmp-status');
  status.setAttribute('role', 'status');
  const detail = el('div', 'cmp-detail');
  // B's entities drawn translucent over A's (the player's ghosts), on by default.
  const ghostBox = el('input');
  ghostBox.type = 'checkbox';
  ghostBox.checked = true;
  const ghostLabel = el('label', 'cmp-ghosts');
  ghostLabel.append(ghostBox, el('span', '', ' Draw B over A (translucent)'));
  root.replaceChildren(head, names, ghostLabel, bar, status, detail);

  /** The current comparison's worker (closed when it ends: a late message of it is ignored). */
  let rpc: Rpc<ComparePush> | null = null;
  /** The current comparison: {a, b, outcome?, info?, ms?, markTick?}. */
  let cur: {
    a: File;
    b: File;
    outcome?: CompareOutcome;
    info?: [CompareInfo | null, CompareInfo | null];
    ms?: number;
    markTick?: number | null;
  } | null = null;
  /** Our own load of A (its loadstart is not another file). */
  let loadingA = false;

  function stop() {
    rpc?.close();
    rpc = null;
  }

  function hide() {
    stop();
    if (cur && player.ghosts) player.showGhosts(null);
    cur = null;
    root.hidden = true;
    mark.hidden = true;
  }

  /** B over A while the box is ticked and the two can be compared. */
  function ghosts() {
    const on = !!cur && ghostBox.checked && cur.outcome?.kind !== 'mismatched';
    if (!on) {
      if (player.ghosts) player.showGhosts(null);
      return;
    }
    // on: cur is set (cur!).
    if (!player.ghosts) player.showGhosts(cur!.b).catch(() => {});
  }
  ghostBox.addEventListener('change', ghosts);
  close.addEventListener('click', hide);

  player.on('loadstart', () => {
    if (!loadingA) hide();
  });
  // A's timeline is known (or its span changed): the mark moves with it.
  player.on('info', () => place());
  player.on('ready', () => place());
  player.on('timeupdate', () => place());

  /** Seconds of A's playback at A's tick `tick`. */
  function timeOf(tick: number): number | null {
    const i = player.info?.info;
    if (!i) return null;
    return (tick - i.first_tick) / (i.tick_rate_hz || 1);
  }

  let placed = '';
  function place() {
    const t = cur?.markTick != null ? timeOf(cur.markTick) : null;
    const span = timeline.span() || player.duration;
    const key = t === null || !(span > 0) ? '' : `${t}|${span}`;
    if (key === placed) return;
    placed = key;
    mark.hidden = !key;
    // key: t is a number (t!).
    if (key) mark.style.left = `${Math.min(100, Math.max(0, (t! / span) * 100))}%`;
  }

  /** Seeks A to its tick `tick` (the divergence). */
  function seekTo(tick: number) {
    if (!player.info) return;
    player.pause();
    player.seekTick(tick);
  }
  mark.addEventListener('click', (e) => {
    e.stopPropagation();
    if (cur?.markTick != null) seekTo(cur.markTick);
  });
  // The mark is a button over the scrubber: a press on it is not a scrub.
  mark.addEventListener('pointerdown', (e) => e.stopPropagation());

  function progress(f: number | null, text: string) {
    bar.hidden = f === null;
    if (f !== null) fill.style.width = `${Math.round(Math.min(1, Math.max(0, f)) * 100)}%`;
    status.textContent = text;
  }

  /** Compares `a` with `b` (Files): A opens in the player, the worker compares. */
  function run(a: File, b: File) {
    stop();
    cur = { a, b };
    placed = '';
    mark.hidden = true;
    root.hidden = false;
    names.replaceChildren(el('div', 'cmp-name', `A  ${a.name}`), el('div', 'cmp-name', `B  ${b.name}`));
    detail.replaceChildren();
    progress(0, 'Comparing tick by tick…');
    loadingA = true;
    try {
      player.load(a);
    } finally {
      loadingA = false;
    }
    ghostLabel.hidden = false;
    ghosts();
    // Its pushes are the progress; the reply its result, or its error (the worker's crash too).
    const r = newRpc<ComparePush>(newWorker(), {
      onPush: (m) => {
        if (m.type === 'progress') progress(m.fraction, `Comparing tick by tick… ${m.ticks} ticks identical so far`);
      },
      crashMessage: (e) => e.message || 'the compare worker stopped',
    });
    rpc = r;
    // (The worker answers the request with a CompareResult: lib/protocol/compare.ts.)
    (r.request({ type: 'compare', a, b } satisfies CompareRequest) as Promise<CompareResult>).then(
      (result) => {
        if (rpc === r) done(result);
      },
      (e: unknown) => {
        if (rpc === r) fail(e instanceof Error ? e.message : String(e));
      },
    );
  }

  function fail(message: string) {
    stop();
    progress(null, `The comparison failed: ${message}`);
  }

  /** The current comparison's result. */
  function done(m: CompareResult) {
    stop();
    if (!cur) return;
    Object.assign(cur, { outcome: m.outcome, info: m.info, ms: m.ms });
    show(m.outcome, m.info);
    // Two recordings of different sessions have nothing to overlay.
    if (m.outcome.kind === 'mismatched') {
      ghostLabel.hidden = true;
      ghosts();
    }
  }

  function show(o: CompareOutcome, info: [CompareInfo | null, CompareInfo | null]) {
    if (!cur) return; // done() shows the current comparison's result only
    progress(null, '');
    detail.replaceChildren();
    cur.markTick = null;
    if (o.kind === 'identical') {
      title.textContent = 'Compare: identical';
      status.textContent = `Identical through tick ${o.lastTick} (${o.ticks} ticks).`;
    } else if (o.kind === 'mismatched') {
      title.textContent = 'Compare: not one session';
      status.textContent = 'These two files cannot be compared: they are not recordings of one session.';
      const ul = el('ul', 'cmp-reasons');
      for (const r of o.reasons) ul.append(el('li', '', r));
      detail.append(ul);
    } else if (o.kind === 'shorter') {
      title.textContent = `Compare: ${o.ended} is shorter`;
      const other = o.ended === 'A' ? 'B' : 'A';
      status.textContent =
        o.lastTick === null
          ? `${o.ended} has no ticks; ${other} starts with tick ${o.nextTick}.`
          : `Identical for ${o.ticks} ticks (through tick ${o.lastTick}); ${o.ended} ends there, ${other} goes on with tick ${o.nextTick}.`;
      // The mark where they stop matching: A's tick (when B ended) or A's end.
      cur.markTick = o.ended === 'B' ? o.nextTick : o.lastTick;
      if (cur.markTick !== null) detail.append(goButton(cur.markTick));
    } else if (o.kind === 'diverged') {
      title.textContent = 'Compare: diverged';
      status.textContent =
        o.tickA === o.tickB
          ? `First divergent tick: ${o.tickA}`
          : `First divergent tick: ${o.tickA} (A) / ${o.tickB} (B)`;
      cur.markTick = o.tickA;
      const sum = el(
        'p',
        'cmp-summary',
        `${o.identicalTicks} ticks identical before it; ${o.entitiesDiffering} ${o.entitiesDiffering === 1 ? 'entity differs' : 'entities differ'}` +
          (o.entities.length < o.entitiesDiffering ? ` (the first ${o.entities.length} listed)` : '') +
          `. Hash ${o.hashA} (A) vs ${o.hashB} (B).`,
      );
      detail.append(sum, goButton(o.tickA), entityTable(o.entities, info?.[0]));
    }
    if (cur.markTick !== null) {
      mark.title = `Where A and B stop matching: tick ${cur.markTick} (click to go there)`;
      mark.setAttribute('aria-label', `Divergence at tick ${cur.markTick}: go there`);
    }
    place();
  }

  function goButton(tick: number) {
    const t = timeOf(tick);
    const b = el('button', 'btn cmp-go', `Go to tick ${tick}${t === null ? '' : ` (${fmtTime(t)})`}`);
    b.type = 'button';
    b.addEventListener('click', () => seekTo(tick));
    return b;
  }

  function entityTable(entities: DivergedEntity[], infoA: CompareInfo | null | undefined) {
    const table = el('table', 'cmp-table');
    const hr = el('tr');
    for (const h of ['Entity', 'Field', 'A', 'B', 'B − A']) hr.append(el('th', '', h));
    table.append(el('thead'), el('tbody'));
    table.tHead?.append(hr);
    for (const e of entities) {
      const name = `${player.entityName(e.id)} (#${e.id})`;
      if (e.presence !== 'both') {
        const tr = el('tr', 'cmp-row');
        tr.dataset.entity = String(e.id);
        tr.append(el('td', '', name), el('td', '', e.presence === 'onlyA' ? 'only in A' : 'only in B'));
        table.tBodies[0].append(tr);
        continue;
      }
      e.fields.forEach((f, k) => {
        const tr = el('tr', 'cmp-row');
        tr.dataset.entity = String(e.id);
        tr.dataset.field = f.field;
        const q = infoA?.[METRES[f.field.split('.')[0]]] as number | undefined;
        const d = f.b - f.a;
        const delta = q
          ? `${d > 0 ? '+' : ''}${d} (${(d * q).toFixed(3)} m${f.field.startsWith('vel') ? '/s' : ''})`
          : `${d > 0 ? '+' : ''}${d}`;
        tr.append(
          el('td', '', k === 0 ? name : ''),
          el('td', 'cmp-field', f.field),
          el('td', 'cmp-a', f.a),
          el('td', 'cmp-b', f.b),
          el('td', '', delta),
        );
        table.tBodies[0].append(tr);
      });
    }
    return table;
  }

  // Test / inspection: #compare's inspect() (computed on call).
  const inspect = (): CompareInspection | null =>
    cur?.outcome ? { outcome: cur.outcome, info: cur.info, ms: cur.ms } : null;
  Object.defineProperty(root, 'inspect', { value: inspect satisfies CompareElement['inspect'], configurable: true });

  return {
    run,
    hide,
    mark,
  };
}
