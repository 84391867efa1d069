// The Analysis panel's Plots section (docs/playback.md "Analysis"), as far as it needs a URL of its
// own: www/ui/ modules may use neither import() nor import.meta (scripts/dist.mjs), so this root
// module, bundled into the panel's chunk (ui/analysis.js imports it), imports the plots
// (www/ui/plots.js, uPlot with them: a chunk of their own) when the section first opens, and starts
// the plots' decoder worker (worker.js beside it). Nothing of it is in the first load.

/** A second decoder worker (www/ui/telemetry-series.js speaks its protocol). */
const spawn = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'replay-telemetry' });

/**
 * Wires `section` (a closed <details>) to the plots: the first open imports them, every toggle
 * tells them whether they are shown. `o`: createPlots' options but `spawn` (www/ui/plots.js).
 * Returns {plots: the plots once loaded (null before), loaded: a promise of them once asked for}.
 */
export function attachPlots(player, section, o) {
  const body = document.createElement('div');
  body.className = 'an-plots-body';
  section.append(body);
  const out = { plots: null, loaded: null, dispose: () => out.plots?.dispose() };
  const load = () =>
    (out.loaded ??= import('./ui/plots.js').then((m) => {
      out.plots = m.createPlots(player, body, { ...o, spawn });
      return out.plots;
    }));
  section.addEventListener('toggle', () => load().then((p) => p.setOpen(section.open)));
  /** The whole-recording scan, the section open or not (`confirmed`: a server's file may be read
   *  whole); resolves when it ends. */
  out.scan = (confirmed) => load().then((p) => p.scanWhole(confirmed));
  return out;
}
