// The Analysis panel's Plots section (docs/playback.md "Analysis"): imports the plots
// (features/analysis/plots.ts, uPlot with them: a chunk of their own) when the section first opens,
// and starts the plots' decoder worker (worker.js, the decoder worker's entry). Nothing of it is in
// the first load.
import { startTelemetry } from '../../lib/shipped.ts';
import type { Plots, PlotsInspection, PlotsOptions, PlotsPlayer, PlotsScanState } from './plots.ts';

/** A second decoder worker (www/features/analysis/telemetry-series.ts speaks its protocol). */
const spawn = startTelemetry;

/** attachPlots()'s answer. */
export interface AttachedPlots {
  /** The plots once loaded (null before). */
  plots: Plots | null;
  /** A promise of them once asked for. */
  loaded: Promise<Plots> | null;
  dispose: () => void;
  /** The whole-recording scan, the section open or not (`confirmed`: a server's file may be read
   *  whole); resolves when it ends. */
  scan: (confirmed: boolean) => Promise<unknown>;
}

/** What #an-plots' inspect() answers: whether the plots were asked for (the section opened or a
 *  scan began: their chunk imported, or on its way); once they are loaded (null before), their
 *  window, samples and plots (Plots' inspect()) and the whole-recording scan (scanState()). */
export interface PlotsSectionInspection {
  asked: boolean;
  plots: PlotsInspection | null;
  scan: PlotsScanState | null;
}

/** The Plots section (#an-plots) with the plots' hooks (test / inspection): `inspect()`; the
 *  scan's envelope per bucket and the plots' worker's stats; the time ⇄ CSS px of plot `key`'s
 *  over-layer (where a click seeks); the whole-recording scan started (`confirmed`: a server's file
 *  without asking; resolves when it ends) or cancelled. Null (nothing done) before the plots load. */
export interface PlotsSectionElement extends HTMLDetailsElement {
  inspect(): PlotsSectionInspection;
  envelope(): ReturnType<Plots['envelope']>;
  workerStats(): ReturnType<Plots['workerStats']> | null;
  timeToPos(key: string, t: number): number | null;
  posToTime(key: string, x: number): number | null;
  scanWhole(confirmed: boolean): Promise<unknown>;
  cancelScan(): void;
}

/**
 * Wires `section` (a closed <details>) to the plots: the first open imports them, every toggle
 * tells them whether they are shown. `o`: createPlots' options but `spawn` (www/features/analysis/plots.ts).
 * Returns {plots: the plots once loaded (null before), loaded: a promise of them once asked for}.
 */
export function attachPlots(
  player: PlotsPlayer,
  section: HTMLDetailsElement,
  o: Omit<PlotsOptions, 'spawn'>,
): AttachedPlots {
  const body = document.createElement('div');
  body.className = 'an-plots-body';
  section.append(body);
  const out: Omit<AttachedPlots, 'scan'> & Partial<Pick<AttachedPlots, 'scan'>> = {
    plots: null,
    loaded: null,
    dispose: () => out.plots?.dispose(),
  };
  const load = () =>
    (out.loaded ??= import('./plots.ts').then((m) => {
      out.plots = m.createPlots(player, body, { ...o, spawn });
      return out.plots;
    }));
  section.addEventListener('toggle', () => load().then((p) => p.setOpen(section.open)));
  /** The whole-recording scan, the section open or not (`confirmed`: a server's file may be read
   *  whole); resolves when it ends. */
  const scan = (confirmed: boolean) => load().then((p) => p.scanWhole(confirmed));
  out.scan = scan;
  // Test / inspection: #an-plots' hooks (computed on call).
  const hooks: Omit<PlotsSectionElement, keyof HTMLDetailsElement> = {
    inspect: () => ({
      asked: !!out.loaded,
      plots: out.plots?.inspect() ?? null,
      scan: out.plots?.scanState() ?? null,
    }),
    envelope: () => out.plots?.envelope() ?? null,
    workerStats: () => out.plots?.workerStats() ?? null,
    timeToPos: (key, t) => out.plots?.timeToPos(key, t) ?? null,
    posToTime: (key, x) => out.plots?.posToTime(key, x) ?? null,
    scanWhole: scan,
    cancelScan: () => out.plots?.cancelScan(),
  };
  for (const [name, value] of Object.entries(hooks))
    Object.defineProperty(section, name, { value, configurable: true });
  return out as AttachedPlots; // scan set just above
}
