// The .foldback divergence view (docs/format/foldback.md "Browser view"): a per-peer timeline
// (agree / disagree / no hash), the first divergent tick (D or the button), per tick the entities
// whose Level-2 hashes differ, per entity the fields whose Level-3 hashes differ with each peer's
// value side by side and the tick its history starts to differ, metadata, snapshot sizes and
// warnings. Data comes from the decoder worker on demand (fb* RPC methods over the wasm
// FoldbackView). Every string from a file reaches the DOM through textContent (el()).
import { el, fmtBytes } from '../../widgets/format.ts';
import { createLive, type FoldbackClient } from './foldback-live.ts';

// The decoder's FoldbackView JSON (crate/src/format/foldback/diverge.rs), as this view reads it:
// ticks as numbers, hashes as hex strings, entity ids as strings.

/** A tick's, an entity's or a field's state among the peers. */
export type FbStatus = 'agree' | 'disagree' | 'missing';

/** The overview's summary: its tick range, none before any tick is read. */
export type FbSummary = FbSummaryOf &
  ({ first_tick: number; last_tick: number } | { first_tick: null; last_tick: null });

/** The summary but its tick range. */
interface FbSummaryOf {
  sources: {
    source: number;
    label: string;
    build_id: string;
    tick_rate_hz: number;
    peer_count: number;
    ended_cleanly: boolean;
  }[];
  peers: { peer: number; label: string }[];
  ticks: number;
  agree: number;
  disagree: number;
  missing: number;
  first_divergent_tick: number | null;
  warnings: string[];
}

/** The overview's extras: each source's metadata and its snapshots' [tick, peer, compressed length]. */
export interface FbExtras {
  metadata: [string, string][][];
  snapshots: [number, number, number][][];
}

/** `fbOpen` / `fbOverview`. */
interface FbOverview {
  summary: FbSummary;
  extras: FbExtras;
}

/** A row of `fbTimeline`: a tick and each peer's hash. */
export interface FbTickRow {
  tick: number;
  status: FbStatus;
  hashes: (string | null)[];
}

/** `fbTick`: the tick's hashes and entities. */
export interface FbTickDetail {
  tick: number;
  status: FbStatus | null;
  hashes: (string | null)[];
  entities: { entity: string; status: FbStatus; fields: number; fields_differing: number }[];
  entities_differing: number;
  errors: string[];
}

/** A peer's value of a field: its hash and its views (hex; i32, u32, … where they apply). */
interface FbPeerValue {
  hash: string;
  value: { hex: string; hex_truncated: boolean; [view: string]: unknown };
}

/** `fbEntity`: the entity's fields at a tick. */
export interface FbEntityDetail {
  tick: number;
  entity: string;
  status: FbStatus;
  fields: { name: string; status: FbStatus; peers: (FbPeerValue | null)[] }[];
  errors: string[];
}

/** `fbField`: where a field's history starts to differ. */
export interface FbFieldHistory {
  from: number;
  to: number;
  first_differing_tick: number | null;
  last_agreeing_tick: number | null;
}

/** The view's state (what #foldback's inspect() answers: a copy, computed on call). */
export interface FoldbackState {
  summary: FbSummary | null;
  extras?: FbExtras;
  rows: FbTickRow[];
  selectedTick: number | null;
  tickDetail: FbTickDetail | null;
  entity: string | null;
  entityDetail: FbEntityDetail | null;
  histories: Record<string, FbFieldHistory>;
  live: boolean;
  gen: number;
}

/** createFoldbackView()'s options: the panel, the page's stage told when it shows, a decoder client. */
export interface FoldbackViewOptions {
  root: HTMLElement;
  onShow?: (on: boolean) => void;
  newClient: (o: { onFatal: (message: string) => void }) => FoldbackClient;
}

/** The divergence view: createFoldbackView()'s answer (main.ts keeps it). */
export type FoldbackView = ReturnType<typeof createFoldbackView>;

/** The view's root (#foldback) with its hook (test / inspection: `root.inspect()`, the state). */
export interface FoldbackElement extends HTMLElement {
  inspect(): FoldbackState;
}

/** Okabe–Ito blue / orange / grey: distinguishable with every common colour-vision deficiency. */
export const FB_COLORS = { agree: '#0072B2', disagree: '#E69F00', missing: '#9a9a9a' };
const TIMELINE_LIMIT = 20000;
const HISTORY_SPAN = 2000;

export function createFoldbackView({ root, onShow, newClient }: FoldbackViewOptions) {
  // The decoder worker's client comes from the page (`new WorkerClient(o)`): this module, loaded on
  // first use, then shares nothing with the first load but widgets/format.ts.
  const client = newClient({ onFatal: (m) => setError(`the decoder stopped: ${m}`) });
  const state: FoldbackState = {
    summary: null,
    rows: [],
    selectedTick: null,
    tickDetail: null,
    entity: null,
    entityDetail: null,
    histories: {},
    live: false,
    gen: 0,
  };
  // Test / inspection: #foldback's inspect() (computed on call).
  const inspect = (): FoldbackState => ({ ...state });
  Object.defineProperty(root, 'inspect', { value: inspect satisfies FoldbackElement['inspect'], configurable: true });
  // Counts opens and closes: an open answered after a later one (or a close) is dropped.
  let opening = 0;

  root.replaceChildren();
  const head = el('div', 'fb-head');
  const title = el('h2', 'fb-title', 'Divergence');
  const firstBtn = el('button', 'btn', 'First divergence (D)');
  firstBtn.type = 'button';
  firstBtn.id = 'fb-first-button';
  const firstText = el('span', 'fb-first', '');
  firstText.id = 'fb-first-tick';
  const closeBtn = el('button', 'btn', 'Close');
  closeBtn.type = 'button';
  head.append(title, firstBtn, firstText, closeBtn);

  const liveBar = el('div', 'fb-live');
  const liveUrl = el('input', 'fb-live-url');
  liveUrl.id = 'fb-live-url';
  liveUrl.type = 'url';
  liveUrl.placeholder = 'ws://127.0.0.1:PORT';
  liveUrl.setAttribute('aria-label', 'Live WebSocket URL');
  const liveConnect = el('button', 'btn', 'Connect');
  liveConnect.type = 'button';
  liveConnect.id = 'fb-live-connect';
  const liveDisconnect = el('button', 'btn', 'Disconnect');
  liveDisconnect.type = 'button';
  liveDisconnect.id = 'fb-live-disconnect';
  const liveSave = el('button', 'btn', 'Save .foldback');
  liveSave.type = 'button';
  liveSave.id = 'fb-live-save';
  const liveStatus = el('span', 'fb-live-status', 'not connected');
  liveStatus.id = 'fb-live-status';
  liveStatus.setAttribute('role', 'status');
  liveBar.append(el('span', 'fb-label', 'Live:'), liveUrl, liveConnect, liveDisconnect, liveSave, liveStatus);

  const errorBox = el('div', 'fb-error');
  errorBox.id = 'fb-error';
  errorBox.setAttribute('role', 'alert');
  errorBox.hidden = true;
  const warnings = el('ul', 'warnings fb-warnings');
  warnings.id = 'fb-warnings';
  const legend = el('div', 'fb-legend');
  for (const [k, label] of [
    ['agree', 'all peers agree'],
    ['disagree', 'hash differs'],
    ['missing', 'no hash'],
  ] as const) {
    const sw = el('span', `fb-swatch fb-${k}`);
    sw.style.background = FB_COLORS[k];
    legend.append(sw, el('span', '', label));
  }
  const lanes = el('div', 'fb-lanes');
  lanes.id = 'fb-lanes';
  const body = el('div', 'fb-body');
  const tickPane = el('section', 'fb-pane');
  tickPane.id = 'fb-tick';
  const entityPane = el('section', 'fb-pane');
  entityPane.id = 'fb-entity';
  const infoPane = el('section', 'fb-pane');
  infoPane.id = 'fb-info';
  body.append(tickPane, entityPane, infoPane);
  root.append(head, liveBar, errorBox, warnings, legend, lanes, body);

  function setError(m: string) {
    errorBox.textContent = m ? String(m) : '';
    errorBox.hidden = !m;
  }

  function show() {
    root.hidden = false;
    onShow?.(true);
  }
  /** Hides the view and closes its files (the Close button; a new recording opened on the page). */
  function close() {
    opening++;
    if (root.hidden) return;
    live.disconnect();
    root.hidden = true;
    client.notify('fbClose', {});
    onShow?.(false);
  }
  closeBtn.addEventListener('click', close);

  // ---------------------------------------------------------------- overview

  async function loadOverview(ov: FbOverview) {
    state.summary = ov.summary;
    state.extras = ov.extras;
    const s = ov.summary;
    title.textContent = state.live ? 'Divergence — live' : 'Divergence';
    firstText.textContent =
      s.first_divergent_tick != null ? `first divergent tick: ${s.first_divergent_tick}` : 'no divergent tick';
    firstText.dataset.tick = String(s.first_divergent_tick ?? '');
    firstBtn.disabled = s.first_divergent_tick == null;
    warnings.replaceChildren(
      ...s.warnings.map((w) => el('li', w.includes('different build') ? 'fb-build-warning' : '', w)),
    );
    warnings.hidden = s.warnings.length === 0;
    state.rows =
      s.first_tick == null
        ? []
        : ((await client.call('fbTimeline', {
            from: s.first_tick,
            to: s.last_tick,
            limit: TIMELINE_LIMIT,
          })) as FbTickRow[]);
    drawLanes();
    drawInfo();
  }

  function peerState(row: FbTickRow, p: number): FbStatus {
    const h = row.hashes[p];
    if (h == null) return 'missing';
    if (row.status !== 'disagree') return 'agree';
    const counts = new Map<string, number>();
    for (const x of row.hashes) if (x != null) counts.set(x, (counts.get(x) ?? 0) + 1);
    const best = Math.max(...counts.values());
    const winners = [...counts.entries()].filter(([, c]) => c === best);
    return winners.length === 1 && winners[0][0] === h ? 'agree' : 'disagree';
  }

  function drawLanes() {
    const s = state.summary;
    lanes.replaceChildren();
    if (!s || s.first_tick == null) {
      lanes.append(el('p', 'fb-empty', state.live ? 'waiting for frames…' : 'no ticks'));
      return;
    }
    const span = Math.max(1, s.last_tick - s.first_tick + 1);
    const W = 1000;
    for (const peer of s.peers) {
      const lane = el('div', 'fb-lane');
      lane.append(el('span', 'fb-lane-label', peer.label));
      const c = document.createElement('canvas');
      c.width = W;
      c.height = 14;
      c.className = 'fb-lane-canvas';
      c.dataset.peer = String(peer.peer);
      const g = c.getContext('2d') as CanvasRenderingContext2D; // a new canvas: never null
      // Worst state wins a pixel column: disagree > missing > agree.
      const rank = { agree: 0, missing: 1, disagree: 2 };
      const col = new Array(W).fill(-1);
      for (const row of state.rows) {
        const x = Math.min(W - 1, Math.floor(((row.tick - s.first_tick) / span) * W));
        col[x] = Math.max(col[x], rank[peerState(row, peer.peer)]);
      }
      const names = ['agree', 'missing', 'disagree'] as const;
      for (let x = 0; x < W; x++) {
        if (col[x] < 0) continue;
        g.fillStyle = FB_COLORS[names[col[x]]];
        g.fillRect(x, 0, 1, 14);
      }
      const mark = (t: number | null, color: string) => {
        if (t == null) return;
        const x = Math.floor(((t - s.first_tick) / span) * W);
        g.fillStyle = color;
        g.fillRect(Math.max(0, x - 1), 0, 3, 14);
      };
      mark(s.first_divergent_tick, '#ffffff');
      if (state.selectedTick != null) mark(state.selectedTick, '#CC79A7');
      c.addEventListener('click', (ev) => {
        const r = c.getBoundingClientRect();
        const t = s.first_tick + Math.floor(((ev.clientX - r.left) / r.width) * span);
        selectTick(nearestTick(t));
      });
      lane.append(c);
      lanes.append(lane);
    }
    const axis = el('div', 'fb-axis');
    axis.append(
      el('span', '', `tick ${s.first_tick}`),
      el('span', '', `${s.ticks} ticks · ${s.agree} agree · ${s.disagree} disagree · ${s.missing} missing`),
      el('span', '', `tick ${s.last_tick}`),
    );
    lanes.append(axis);
  }

  function nearestTick(t: number): number {
    let best = t;
    let d = Infinity;
    for (const r of state.rows) {
      const dd = Math.abs(r.tick - t);
      if (dd < d) {
        d = dd;
        best = r.tick;
      }
    }
    return best;
  }

  function drawInfo() {
    infoPane.replaceChildren(el('h3', '', 'Recording'));
    // loadOverview() set it just before (state.summary!).
    const s = state.summary!;
    const x = state.extras ?? { metadata: [], snapshots: [] };
    const t = el('table', 'fb-table fb-meta');
    t.id = 'fb-metadata';
    const row = (k: string, v: string) => {
      const tr = el('tr');
      tr.append(el('th', '', k), el('td', '', v));
      t.append(tr);
    };
    for (const src of s.sources) {
      const p = s.sources.length > 1 ? `${src.label}: ` : '';
      row(`${p}build id`, src.build_id);
      row(`${p}tick rate`, `${src.tick_rate_hz} Hz`);
      row(`${p}peers`, String(src.peer_count));
      row(`${p}ended cleanly`, src.ended_cleanly ? 'yes' : 'no');
      for (const [k, v] of x.metadata[src.source] ?? []) row(`${p}${k}`, v);
    }
    infoPane.append(t);
    const snaps = x.snapshots.flatMap((list, source) => list.map(([tick, peer, len]) => ({ source, tick, peer, len })));
    infoPane.append(el('h3', '', `Snapshots (${snaps.length})`));
    const strip = el('div', 'fb-snaps');
    strip.id = 'fb-snapshots';
    const max = Math.max(1, ...snaps.map((q) => q.len));
    for (const q of snaps.slice(0, 300)) {
      const b = el('div', 'fb-snap');
      b.style.height = `${Math.max(2, Math.round((q.len / max) * 40))}px`;
      b.title = `tick ${q.tick} · peer ${q.peer} · ${fmtBytes(q.len)} compressed`;
      b.addEventListener('click', () => selectTick(q.tick));
      strip.append(b);
    }
    infoPane.append(strip);
  }

  // ---------------------------------------------------------------- tick / entity / field

  async function selectTick(tick: number | null | undefined) {
    if (tick == null || !state.summary) return;
    const gen = ++state.gen;
    state.selectedTick = tick;
    drawLanes();
    let d: FbTickDetail;
    try {
      d = (await client.call('fbTick', { tick })) as FbTickDetail;
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    if (gen !== state.gen) return;
    state.tickDetail = d;
    tickPane.replaceChildren();
    const h = el('h3', '', `Tick ${d.tick} — ${d.status ?? 'no hashes'}`);
    h.id = 'fb-tick-title';
    h.dataset.tick = String(d.tick);
    tickPane.append(h);
    const ht = el('table', 'fb-table');
    for (const p of state.summary.peers) {
      const tr = el('tr');
      tr.append(el('th', '', p.label), el('td', 'mono', d.hashes[p.peer] ?? '— no hash —'));
      ht.append(tr);
    }
    tickPane.append(ht);
    const differing = d.entities.filter((e) => e.status !== 'agree');
    tickPane.append(el('p', '', `${d.entities_differing} of ${d.entities.length} entities differ`));
    const list = el('ul', 'fb-entities');
    list.id = 'fb-entities';
    for (const e of differing.slice(0, 500)) {
      const li = el('li');
      const b = el(
        'button',
        `fb-entity fb-${e.status}`,
        `entity ${e.entity} · ${e.status} · ${e.fields_differing}/${e.fields} fields`,
      );
      b.type = 'button';
      b.dataset.entity = e.entity;
      b.addEventListener('click', () => selectEntity(d.tick, e.entity));
      li.append(b);
      list.append(li);
    }
    tickPane.append(list);
    for (const m of d.errors) tickPane.append(el('p', 'fb-frame-error', m));
    entityPane.replaceChildren();
    if (differing.length > 0) await selectEntity(d.tick, differing[0].entity);
  }

  function valueCell(pv: FbPeerValue | null) {
    const td = el('td', 'fb-value');
    if (!pv) {
      td.textContent = '— absent —';
      return td;
    }
    const v = pv.value;
    const dl = el('dl', 'fb-views');
    const add = (k: string, val: unknown) => {
      if (val === undefined || val === null) return;
      dl.append(el('dt', '', k), el('dd', `mono fb-view-${k}`, String(val)));
    };
    add('hex', v.hex + (v.hex_truncated ? '…' : ''));
    for (const k of ['i32', 'u32', 'f32', 'i64', 'u64', 'f64', 'utf8']) add(k, v[k]);
    add('hash', pv.hash);
    td.append(dl);
    return td;
  }

  async function selectEntity(tick: number, entity: string) {
    const gen = state.gen;
    let d: FbEntityDetail;
    try {
      d = (await client.call('fbEntity', { tick, entity })) as FbEntityDetail;
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    if (gen !== state.gen) return;
    state.entity = entity;
    state.entityDetail = d;
    state.histories = {};
    for (const b of tickPane.querySelectorAll<HTMLElement>('.fb-entity'))
      b.classList.toggle('on', b.dataset.entity === entity);
    entityPane.replaceChildren();
    const h = el('h3', '', `Entity ${d.entity} at tick ${d.tick} — ${d.status}`);
    h.id = 'fb-entity-title';
    h.dataset.entity = d.entity;
    entityPane.append(h);
    const t = el('table', 'fb-table fb-fields');
    t.id = 'fb-fields';
    const hr = el('tr');
    // A tick was selected first (state.summary!).
    hr.append(
      el('th', '', 'field'),
      ...state.summary!.peers.map((p) => el('th', '', p.label)),
      el('th', '', 'history differs from'),
    );
    t.append(hr);
    const differing = d.fields.filter((f) => f.status !== 'agree');
    for (const f of differing) {
      const tr = el('tr', 'fb-field-row');
      tr.dataset.field = f.name;
      tr.append(el('th', 'fb-field-name', f.name), ...f.peers.map(valueCell));
      const hist = el('td', 'fb-history', '…');
      tr.append(hist);
      t.append(tr);
      const from = Math.max(state.summary!.first_tick ?? 0, tick - HISTORY_SPAN);
      (client.call('fbField', { entity, field: f.name, from, to: tick }) as Promise<FbFieldHistory>)
        .then((r) => {
          if (gen !== state.gen) return;
          state.histories[f.name] = r;
          hist.textContent = r.first_differing_tick != null ? `tick ${r.first_differing_tick}` : 'no difference seen';
          hist.dataset.tick = String(r.first_differing_tick ?? '');
          if (r.last_agreeing_tick != null)
            hist.title = `last agreeing tick ${r.last_agreeing_tick} (searched ${r.from}–${r.to})`;
        })
        .catch((e) => {
          hist.textContent = e.message;
        });
    }
    entityPane.append(t);
    if (differing.length === 0)
      entityPane.append(el('p', '', 'no field differs (the entity hash differs, or Level-3 data is absent)'));
    for (const m of d.errors) entityPane.append(el('p', 'fb-frame-error', m));
  }

  function jumpFirst() {
    const t = state.summary?.first_divergent_tick;
    if (t != null) selectTick(t);
  }
  firstBtn.addEventListener('click', jumpFirst);
  document.addEventListener(
    'keydown',
    (e) => {
      if (root.hidden || e.ctrlKey || e.metaKey || e.altKey) return;
      const tag = (e.target as HTMLElement | null)?.tagName;
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
      if (e.key === 'd' || e.key === 'D') {
        e.preventDefault();
        e.stopImmediatePropagation();
        jumpFirst();
      }
    },
    true,
  );

  // ---------------------------------------------------------------- files

  async function openFiles(files: (string | (Blob & { name?: string }))[]) {
    const mine = ++opening;
    show();
    setError('');
    live.disconnect();
    state.live = false;
    state.selectedTick = null;
    tickPane.replaceChildren(el('p', '', 'Opening…'));
    entityPane.replaceChildren();
    const list = files.map((f) =>
      typeof f === 'string' ? { url: new URL(f, location.href).href, name: f } : { blob: f, name: f.name || '' },
    );
    try {
      const ov = (await client.call('fbOpen', { files: list })) as FbOverview;
      if (mine !== opening) return;
      await loadOverview(ov);
      tickPane.replaceChildren();
      jumpFirst();
    } catch (e) {
      if (mine !== opening) return;
      setError((e as Error).message);
      tickPane.replaceChildren();
    }
  }

  // ---------------------------------------------------------------- live

  let refreshTimer = 0;
  let refreshing = false;
  function scheduleRefresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(async () => {
      refreshTimer = 0;
      if (refreshing) return scheduleRefresh();
      refreshing = true;
      try {
        const hadFirst = state.summary?.first_divergent_tick;
        await loadOverview((await client.call('fbOverview', {})) as FbOverview);
        if (hadFirst == null && state.summary?.first_divergent_tick != null) jumpFirst();
      } catch (e) {
        setError((e as Error).message);
      } finally {
        refreshing = false;
      }
    }, 500);
  }

  const live = createLive({
    client,
    onStatus: (text, kind) => {
      liveStatus.textContent = text;
      liveStatus.dataset.state = kind;
    },
    onHello: () => {
      state.live = true;
      state.selectedTick = null;
      state.summary = null;
      tickPane.replaceChildren();
      entityPane.replaceChildren();
      scheduleRefresh();
    },
    onData: scheduleRefresh,
    onWarning: (m) => setError(m),
  });
  liveConnect.addEventListener('click', async () => {
    show();
    setError('');
    state.live = true;
    try {
      await client.call('fbLiveStart', {});
      live.connect(liveUrl.value.trim());
    } catch (e) {
      setError((e as Error).message);
    }
  });
  liveDisconnect.addEventListener('click', () => live.disconnect());
  liveSave.addEventListener('click', () => live.save());

  return {
    openFiles,
    close,
    showLive() {
      show();
      liveUrl.focus();
    },
  };
}
