// The Analysis panel's Plots section (docs/playback.md "Analysis"): imports the plots
// (features/analysis/plots.ts, uPlot with them: a chunk of their own) when the section first opens,
// and starts the plots' decoder worker (worker.js, the decoder worker's entry). Nothing of it is in
// the first load.
import { shippedUrl } from '../../lib/shipped.ts';
import type { Plots, PlotsOptions, PlotsPlayer } from './plots.ts';

/** A second decoder worker (www/features/analysis/telemetry-series.ts speaks its protocol). */
const spawn = () => new Worker(shippedUrl('./worker.js'), { type: 'module', name: 'replay-telemetry' });

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
  out.scan = (confirmed) => load().then((p) => p.scanWhole(confirmed));
  return out as AttachedPlots; // scan set just above
}
