// The Plots section of the Analysis panel (www/features/analysis/panel.ts; docs/playback.md "Analysis"): the
// selected entity's altitude (above the recording's planet radius: www/features/analysis/geo.ts), ground speed,
// vertical speed and health, and its distance to the range's "To" entity, over ±60 s around the
// playhead, drawn with uPlot. The samples come from a second decoder worker over the same source
// (www/features/analysis/telemetry-series.ts). A line follows the playhead every frame (a transform, no redraw);
// the window re-centres when the playhead is more than RECENTRE_S from its middle (then only the
// new part is decoded). A click or a drag on a plot seeks to the time under the pointer (the window
// holds still during a drag).
//
// Its own chunk (www/features/analysis/telemetry.ts loadPlots: uPlot with it), imported when the section first
// opens: a session that never opens it downloads none of it. Strings from files: none drawn.
import uPlot from 'uplot';
import uPlotCss from 'uplot/dist/uPlot.min.css';
import { SeriesSource } from './telemetry-series.ts';
import type { Sample, SeriesKey } from './telemetry-series.ts';
import { WholeScan } from './whole-scan.ts';
import type { ScanHooks, ScanState } from './whole-scan.ts';
import { FT_PER_M, KT_PER_MPS, M_PER_NM } from './geo.ts';
import type { Units } from './geo.ts';
import { el, setText } from '../../widgets/format.ts';

/** Seconds either side of the window's middle. */
export const HALF_S = 60;
/** The playhead this far from the middle re-centres the window on it. */
const RECENTRE_S = 10;
const HEIGHT = 74;
const NUM0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const NUM2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** Samples arrive a piece at a time: drawn at most this often (ms). */
const DRAW_MS = 100;

const CSS = `.pl-plot{position:relative;margin:2px 0 6px}.pl-plot .u-over{cursor:col-resize;touch-action:none}
.pl-head{position:absolute;top:0;bottom:0;left:0;width:0;border-left:1.5px solid var(--accent,#e0a030);pointer-events:none;will-change:transform}
.pl-scan{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:center;font-size:11.5px;margin:2px 0}.pl-title{display:flex;justify-content:space-between;font-size:11.5px;opacity:.9}.pl-note{font-size:11.5px;opacity:.8;margin:2px 0}`;

/** [key, title, unit text and the factor from SI, per units; its colour]. */
type SeriesDef = [SeriesKey, string, [string, number], string];

function seriesDefs(units: Units | ''): SeriesDef[] {
  const imp = units !== 'metric';
  return [
    ['alt', 'Altitude', imp ? ['ft', FT_PER_M] : ['m', 1], '#4ea1ff'],
    ['groundSpeed', 'Ground speed', imp ? ['kt', KT_PER_MPS] : ['km/h', 3.6], '#52c77a'],
    ['verticalSpeed', 'Vertical speed', imp ? ['ft/min', 60 * FT_PER_M] : ['m/s', 1], '#c9a0ff'],
    ['health', 'Health', ['%', 1], '#ff7a6b'],
    ['distance', 'Distance', imp ? ['NM', 1 / M_PER_NM] : ['km', 1 / 1000], '#f0c040'],
  ];
}

/** What the plots read of the handle. */
export interface PlotsPlayer {
  /** The open's answer (only whether there is one is read here), or null. */
  readonly info: object | null;
  readonly selected: number;
  readonly duration: number;
  readonly currentTime: number;
  readonly tick: number;
  readonly playing: boolean;
  readonly pageWaitsForSeek: boolean;
  entityName(id: number): string;
  seek(t: number): unknown;
  onFrame(fn: () => void): () => void;
  on(event: 'seeked' | 'selection' | 'loadstart', fn: () => void): () => void;
}

/** createPlots()'s options. */
export interface PlotsOptions {
  /** The player's source (a URL or a file), null: none to reopen. */
  source: () => string | Blob | null;
  /** A decoder worker (www/features/analysis/telemetry.ts). */
  spawn: () => Worker;
  /** The range's "To" entity (−1: none). */
  other: () => number;
  /** 'imperial' or 'metric'. */
  units: () => Units;
  /** The whole-recording scan's events (the player's ledger learns them). */
  onEvents?: ScanHooks['onEvents'];
  /** Told how the whole-recording scan goes (scanState()). */
  onScan?: (state: PlotsScanState) => void;
}

/** The scan's state for the page (scanState()). */
export interface PlotsScanState {
  state: ScanState | 'asking' | 'none';
  progress: number;
  entity: number;
  other: number;
  pieces: number;
  spans: number;
  ms: number;
  error: string;
  remote: boolean;
  asking: boolean;
  whole: boolean;
}

/** What the plots' inspect() answers: the window (its middle, its range in seconds), the entities
 *  sampled, the worker's error, the pieces taken, the samples' ticks and values, whether the whole
 *  recording is drawn, each plot's key, whether it is hidden and the value it shows. */
export interface PlotsInspection {
  centre: number;
  range: [number, number];
  entity: number;
  other: number;
  error: string;
  pieces: number;
  samples: Sample[];
  whole: boolean;
  plots: { key: SeriesKey; hidden: boolean; value: string | null }[];
}

/** A plot: its series, the factor from SI, its uPlot and its elements. */
interface Chart {
  key: SeriesKey;
  k: number;
  unit: string;
  u: uPlot;
  wrap: HTMLDivElement;
  value: HTMLSpanElement;
  headLine: HTMLDivElement;
}

/** The plots of `root` (the section's body) for `player` (the handle); `o`: PlotsOptions. */
export function createPlots(
  player: PlotsPlayer,
  root: HTMLElement,
  { source, spawn, other, units, onEvents, onScan }: PlotsOptions,
) {
  if (!document.getElementById('pl-style')) {
    const style = el('style');
    style.id = 'pl-style';
    style.textContent = uPlotCss + CSS;
    document.head.append(style);
  }
  const note = el('p', 'pl-note');
  note.id = 'an-plots-note';
  const box = el('div', 'pl-plots');
  box.id = 'an-plots-list';
  // The whole recording: a scan of the file in the plots' worker (www/features/analysis/whole-scan.ts).
  const scanRow = el('div', 'pl-scan');
  scanRow.id = 'an-plots-scan';
  const scanText = el('span', 'pl-scan-text');
  scanText.setAttribute('role', 'status');
  const mk = (text: string, cls: string, fn: () => void) => {
    const b = el('button', `btn ${cls}`, text);
    b.type = 'button';
    b.addEventListener('click', fn);
    return b;
  };
  const wholeBtn = mk('Whole recording', 'pl-whole', () =>
    scan?.state === 'done' && scanFits() ? setWhole(!whole) : ask(),
  );
  const goBtn = mk('Download and scan', 'pl-go', () => startScan());
  const cancelBtn = mk('Cancel', 'pl-cancel', () => {
    if (scan?.state === 'running') scan.cancel();
    asking = false;
    showScan();
  });
  scanRow.append(wholeBtn, scanText, goBtn, cancelBtn);
  root.append(scanRow, note, box);

  const src = new SeriesSource(spawn, () => schedule());
  let openedFor: string | Blob | null = null;
  let opening: Promise<boolean> | null = null;
  let centre = NaN;
  let entity = -1;
  let open = false;
  let charts: Chart[] = [];
  let chartUnits: Units | '' = '';
  let drawTimer = 0;
  let lastHeadPx: number[] = [];
  /** A drag on a plot: the window stays put under the pointer until it ends. */
  let dragging = false;
  /** The whole-recording scan (null: none yet), whether its envelope is drawn, whether a remote
   *  file's download is being asked about. */
  let scan: WholeScan | null = null;
  let whole = false;
  let asking = false;

  function build() {
    for (const c of charts) c.u.destroy();
    box.replaceChildren();
    chartUnits = units();
    const width = Math.max(160, Math.floor(root.clientWidth || 280));
    charts = seriesDefs(chartUnits).map(([key, title, [unit, k], colour]): Chart => {
      const wrap = el('div', 'pl-plot');
      wrap.dataset.key = key;
      const head = el('div', 'pl-title');
      const value = el('span', 'pl-value', '—');
      value.dataset.key = key;
      head.append(el('span', '', `${title} (${unit})`), value);
      const plot = el('div');
      wrap.append(head, plot);
      box.append(wrap);
      const u = new uPlot(
        {
          width,
          height: HEIGHT,
          legend: { show: false },
          cursor: { drag: { x: false, y: false, setScale: false }, points: { show: false }, y: false },
          scales: { x: { time: false, auto: false, range: () => xRange() } },
          axes: [
            { show: key === 'distance' || key === 'health', size: 22, stroke: '#999', grid: { stroke: '#8883' } },
            { size: 56, stroke: '#999', grid: { stroke: '#8883' } },
          ],
          series: [{}, { stroke: colour, width: 1.5, spanGaps: false }],
        },
        [[], []],
        plot,
      );
      const headLine = el('div', 'pl-head');
      u.over.append(headLine);
      seekOnPointer(u);
      return { key, k, unit, u, wrap, value, headLine };
    });
    lastHeadPx = charts.map(() => NaN);
    draw();
  }

  const xRange = (): [number, number] =>
    whole && scan?.envelope
      ? [0, Math.max(1, player.duration)]
      : Number.isFinite(centre)
        ? [centre - HALF_S, centre + HALF_S]
        : [0, 2 * HALF_S];
  /** The scan sampled what is selected now (its envelope is the selection's). */
  const scanFits = () => scan?.envelope && scan.a === player.selected && scan.b === scanOther();
  const scanOther = () => {
    const sel = player.selected;
    const b = sel >= 0 ? other() : -1;
    return b === sel ? -1 : b;
  };

  /** The scan's state for the page: {state, progress, entity, events, remote, asking}. */
  function scanState(): PlotsScanState {
    return {
      state: scan?.state ?? (asking ? 'asking' : 'none'),
      progress: scan?.progress ?? 0,
      entity: scan?.a ?? -1,
      other: scan?.b ?? -1,
      pieces: scan?.pieces ?? 0,
      spans: scan?.spans ?? 0,
      ms: scan ? (scan.endedAt || performance.now()) - scan.startedAt : 0,
      error: scan?.error ?? '',
      remote: typeof source() === 'string',
      asking,
      whole,
    };
  }

  function showScan() {
    const st = scanState();
    const running = st.state === 'running';
    goBtn.hidden = !asking;
    cancelBtn.hidden = !(running || asking);
    wholeBtn.hidden = running || asking;
    wholeBtn.textContent = whole ? `Around the playhead (±${HALF_S} s)` : 'Whole recording';
    wholeBtn.setAttribute('aria-pressed', String(whole));
    const pct = `${Math.floor(st.progress * 100)} %`;
    setText(
      scanText,
      asking
        ? 'Scanning the whole recording downloads the whole file from its server.'
        : running
          ? `Scanning the whole recording… ${pct}`
          : st.state === 'done'
            ? scanFits() || (scan?.a ?? -1) < 0 // (a state 'done' is the scan's)
              ? `Whole recording scanned (${(st.ms / 1000).toFixed(1)} s)`
              : 'Whole recording scanned for another selection: press again to scan this one'
            : st.state === 'cancelled'
              ? `Scan cancelled at ${pct}`
              : st.state === 'failed'
                ? `The scan stopped: ${st.error}`
                : '',
    );
    onScan?.(st);
  }

  /** The first press: a file from the disk scans at once; one from a server asks first. */
  function ask() {
    if (scan?.state === 'running') return;
    if (typeof source() === 'string' && !asking) {
      asking = true;
      showScan();
      goBtn.focus();
      return;
    }
    startScan();
  }

  /** Starts the scan (once the worker is open), sampling the selection; events either way. */
  async function startScan() {
    asking = false;
    scan?.cancel();
    scan = null;
    const ok = await ensureOpen();
    if (!ok || !src.info) {
      showScan();
      return;
    }
    const a = player.selected;
    const me = new WholeScan(src, a, a >= 0 ? scanOther() : -1, {
      waits: () => player.pageWaitsForSeek,
      playing: () => player.playing,
      onEvents: (events, from, end, at) => {
        if (scan === me) onEvents?.(events, from, end, at);
      },
      onProgress: () => {
        if (scan !== me) return;
        if (me.state === 'done' && me.envelope && scanFits()) whole = true;
        showScan();
        schedule();
      },
    });
    scan = me;
    showScan();
    return me.done;
  }

  function setWhole(on: boolean) {
    whole = on;
    lastHeadPx = charts.map(() => NaN);
    showScan();
    draw();
  }

  /** A press seeks to the time under the pointer; a drag keeps seeking (each seek supersedes). */
  function seekOnPointer(u: uPlot) {
    const over = u.over;
    let down = false;
    const at = (e: PointerEvent) => {
      const r = over.getBoundingClientRect();
      const t = u.posToVal(Math.min(r.width, Math.max(0, e.clientX - r.left)), 'x');
      return Math.min(player.duration, Math.max(0, t));
    };
    over.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      down = dragging = true;
      over.setPointerCapture?.(e.pointerId);
      player.seek(at(e));
    });
    over.addEventListener('pointermove', (e) => {
      if (down) player.seek(at(e));
    });
    const up = (e: PointerEvent) => {
      down = dragging = false;
      over.releasePointerCapture?.(e.pointerId);
    };
    over.addEventListener('pointerup', up);
    over.addEventListener('pointercancel', up);
  }

  function schedule() {
    if (!drawTimer) drawTimer = setTimeout(draw, DRAW_MS);
  }

  function draw() {
    clearTimeout(drawTimer);
    drawTimer = 0;
    if (!open) return;
    if (chartUnits !== units()) return build();
    if (whole && !scanFits()) whole = false;
    const s = src.samples;
    const env = whole ? (scan?.envelope ?? null) : null; // whole only while scanFits(): the scan is there
    const xs = s.map((x) => x.t);
    for (const c of charts) {
      const [wx, wy] = env ? env.points(c.key) : [xs, null];
      const ys = wy
        ? wy.map((v) => (v === null ? null : v * c.k))
        : s.map((x) => {
            const v = x[c.key];
            return v === null ? null : v * c.k;
          });
      c.u.batch(() => {
        c.u.setData([wx, ys], false);
        c.u.setScale('x', { min: xRange()[0], max: xRange()[1] });
      });
      c.wrap.hidden = c.key === 'distance' && src.b < 0;
    }
    lastHeadPx = charts.map(() => NaN);
    setText(
      note,
      src.error
        ? `The plots could not be read: ${src.error}`
        : entity < 0
          ? 'Select an entity to plot it (and a range "To" entity for the distance).'
          : env
            ? `${player.entityName(entity)} · whole recording · ${env.n} buckets (min / max)`
            : `${player.entityName(entity)} · ±${HALF_S} s · ${s.length} samples`,
    );
    follow(true);
  }

  /** The sample at or before `tick` and the one after: the value at the playhead, interpolated. */
  function valueAt(key: SeriesKey, tick: number): number | null {
    const s = src.samples;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (s[m].tick <= tick) lo = m + 1;
      else hi = m;
    }
    const a = s[lo - 1];
    if (!a || a[key] === null) return null;
    if (a.tick === tick) return a[key];
    const b = s[lo];
    if (!b || b[key] === null || b.tick - a.tick > 2 * (src.info?.tick_rate_hz || 1)) return null;
    return a[key] + ((b[key] - a[key]) * (tick - a.tick)) / (b.tick - a.tick);
  }

  /** Per frame: the playhead's line (a composited layer's transform: no layout, no paint), the
   *  window and the entity it samples; with `values` (4 times a second, a seek, a redraw) also the
   *  values at the playhead. */
  function follow(values = false) {
    if (!open) return;
    const t = player.currentTime;
    want(t);
    for (let i = 0; i < charts.length; i++) {
      const c = charts[i];
      const px = Math.round(c.u.valToPos(t, 'x') * 2) / 2;
      if (px !== lastHeadPx[i]) {
        lastHeadPx[i] = px;
        c.headLine.style.transform = `translateX(${px}px)`;
      }
    }
    if (values === true) readouts();
  }

  function readouts() {
    const tick = player.tick;
    for (const c of charts) {
      const v = valueAt(c.key, tick);
      const text = v === null ? '—' : (c.key === 'distance' ? NUM2 : NUM0).format(v * c.k);
      if (c.value.textContent !== text) {
        c.value.textContent = text;
        if (v === null) delete c.value.dataset.value;
        else c.value.dataset.value = String(v);
        c.value.dataset.tick = String(tick);
      }
    }
  }

  /** Opens the player's source in the plots' worker once per recording; resolves with whether
   *  it is open. */
  function ensureOpen(): Promise<boolean> {
    if (!player.info) return Promise.resolve(false);
    const s = source();
    if (!s) {
      if (!src.error) {
        src.error = 'the player holds no source to read again';
        schedule();
      }
      return Promise.resolve(false);
    }
    if (openedFor !== s) {
      openedFor = s;
      src.error = '';
      opening = src
        .open(s)
        .then(() => {
          opening = null;
          centre = NaN;
          follow(true);
          return true;
        })
        .catch((e) => {
          opening = null;
          if (String(e?.message) !== 'superseded' && String(e?.message) !== 'closed') {
            src.error = String(e?.message ?? e);
            schedule();
          }
          return false;
        });
    }
    return opening ?? Promise.resolve(!!src.info);
  }

  /** Keeps the window around `t` for the selection (the source opened first). */
  function want(t: number) {
    ensureOpen();
    if (opening || !src.info) return;
    const sel = player.selected;
    const b = sel >= 0 ? other() : -1;
    const to = b === sel ? -1 : b;
    const recentre = !Number.isFinite(centre) || (!dragging && Math.abs(t - centre) > RECENTRE_S);
    if (!recentre && sel === entity && to === src.b) return;
    if (recentre) {
      centre = t;
      // The scale at once (a click's time under the pointer is read from it); the data follows.
      if (!whole) for (const c of charts) c.u.setScale('x', { min: centre - HALF_S, max: centre + HALF_S });
      lastHeadPx = charts.map(() => NaN);
    }
    entity = sel;
    const rate = src.info.tick_rate_hz || 1;
    const first = src.info.first_tick;
    src.want(sel, to, first + (centre - HALF_S) * rate, first + (centre + HALF_S) * rate + 1);
    schedule();
  }

  const offFrame = player.onFrame(() => follow());
  const offs = [
    player.on('seeked', () => follow(true)),
    player.on('selection', () => follow(true)),
    player.on('loadstart', () => {
      scan?.cancel();
      scan = null;
      whole = asking = false;
      showScan();
      src.close();
      openedFor = null;
      centre = NaN;
      entity = -1;
      schedule();
    }),
  ];
  showScan();
  // Paused, no frame is drawn: the refresh of the panel's readouts follows instead.
  const timer = setInterval(() => {
    if (!document.hidden) follow(true);
  }, 250);

  return {
    /** The section opened or closed: only an open one samples and draws. */
    setOpen(on: boolean) {
      open = on;
      if (on) {
        if (!charts.length || chartUnits !== units()) build();
        else draw();
      }
    },
    /** Starts the whole-recording scan (a server's file: asks first, unless `confirmed`). */
    scanWhole(confirmed = false) {
      if (confirmed) return startScan();
      ask();
      return scan?.done ?? null;
    },
    cancelScan: () => scan?.cancel(),
    scanState,
    /** The scan's envelope per bucket (plain numbers), or null. */
    envelope: () => scan?.envelope?.inspect() ?? null,
    /** The plots' worker's stats (its wasm memory, its cache). */
    workerStats: () => src.stats(),
    /** Test / inspection hook (#an-plots answers it): the window, the samples, the plots. */
    inspect: (): PlotsInspection => ({
      centre,
      range: xRange(),
      entity,
      other: src.b,
      error: src.error,
      pieces: src.pieces,
      samples: src.samples.map((s) => ({ ...s })),
      whole,
      plots: charts.map((c) => ({ key: c.key, hidden: c.wrap.hidden, value: c.value.dataset.value ?? null })),
    }),
    /** The time under CSS pixel `x` of the over-layer of plot `key` (tests click there). */
    posToTime: (key: string, x: number) => charts.find((c) => c.key === key)?.u.posToVal(x, 'x') ?? null,
    timeToPos: (key: string, t: number) => charts.find((c) => c.key === key)?.u.valToPos(t, 'x') ?? null,
    dispose() {
      offFrame();
      for (const off of offs) off();
      clearInterval(timer);
      clearTimeout(drawTimer);
      scan?.cancel();
      for (const c of charts) c.u.destroy();
      src.close();
      root.replaceChildren();
    },
  };
}

/** The plots (createPlots()'s answer). */
export type Plots = ReturnType<typeof createPlots>;
