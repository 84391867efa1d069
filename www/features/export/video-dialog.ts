// The Export → Video dialog (docs/export.md "Video clips"): the range (the in/out selection or the
// whole recording), the frame rate and the resolution, Export, a progress bar and Cancel; the file
// is downloaded when the video is done, nothing when it was cancelled. Where the browser has no
// WebCodecs it says that the video is recorded in real time. Styled as the Share dialog (its
// classes: no stylesheet of its own in the first load). What it runs is handed in by
// www/features/export/video.ts (a ui/ module imports nothing of the first load but format.ts).
import { el, fmtTime } from '../../widgets/format.ts';
import type { VideoExportPlayer, VideoOptions, VideoResult, exportRange, exportVideo, hasWebCodecs } from './video.ts';

/** What the dialog runs, handed in by www/features/export/video.ts. */
export interface VideoDialogApi {
  exportVideo: typeof exportVideo;
  exportRange: typeof exportRange;
  hasWebCodecs: typeof hasWebCodecs;
  FRAME_RATES: number[];
  RESOLUTIONS: [number, number][];
}

/** The dialog's handle: its node, refresh(), start() (tests press Export through the DOM), cancel(). */
export type VideoDialog = ReturnType<typeof build>;

/** The dialog (`dialog#video-export`, built on first open) with its hook (test / inspection:
 *  `dialog.exportVideo(opts)` renders the player's range as Export does, with any of exportVideo()'s
 *  options, `drawOnly` too (tests/bench/video-export.mjs); nothing is downloaded, the dialog shows
 *  nothing of it). */
export interface VideoDialogElement extends HTMLDialogElement {
  exportVideo(opts?: VideoOptions): Promise<VideoResult>;
}

let dialog: VideoDialog | null = null;

/**
 * Opens the dialog over `player` (built on first use); `opener` gets the focus back on close.
 * `api`: `{exportVideo, exportRange, hasWebCodecs, FRAME_RATES, RESOLUTIONS}` (www/features/export/video.ts).
 * Returns the dialog's handle: `{dialog, start()}` (tests press Export through the DOM).
 */
export function openVideoDialog(
  player: VideoExportPlayer,
  { opener, ...api }: { opener?: HTMLElement | null } & VideoDialogApi,
): VideoDialog {
  dialog ??= build(player, api);
  dialog.refresh();
  dialog.node.addEventListener('close', () => opener?.focus?.(), { once: true });
  if (!dialog.node.open) dialog.node.showModal();
  return dialog;
}

function build(
  player: VideoExportPlayer,
  { exportVideo, exportRange, hasWebCodecs, FRAME_RATES, RESOLUTIONS }: VideoDialogApi,
) {
  const node = el('dialog', 'share');
  node.id = 'video-export';
  // Test / inspection: #video-export's exportVideo(opts) (the benchmark's rates).
  const direct = (opts?: VideoOptions) => exportVideo(player, opts);
  Object.defineProperty(node, 'exportVideo', {
    value: direct satisfies VideoDialogElement['exportVideo'],
    configurable: true,
  });
  node.setAttribute('aria-labelledby', 'video-title');
  const box = el('div', 'share-box');
  const head = el('div', 'share-head');
  const title = el('h2', '', 'Export video');
  title.id = 'video-title';
  const close = el('button', 'btn', 'Close');
  close.type = 'button';
  close.addEventListener('click', () => node.close());
  head.append(title, close);

  const range = el('p', 'share-note');
  range.id = 'video-range';
  const how = el('p', 'share-note');
  how.id = 'video-how';

  const select = (id: string, label: string, options: string[][]): [HTMLLabelElement, HTMLSelectElement] => {
    const l = el('label', 'share-check', `${label} `);
    const s = el('select');
    s.id = id;
    for (const [value, text] of options) {
      const o = el('option', '', text);
      o.value = value;
      s.append(o);
    }
    l.append(s);
    return [l, s];
  };
  const [fpsLabel, fps] = select(
    'video-fps',
    'Frame rate',
    FRAME_RATES.map((f) => [String(f), `${f} fps`]),
  );
  const [resLabel, res] = select(
    'video-res',
    'Resolution',
    RESOLUTIONS.map(([w, h]) => [`${w}x${h}`, `${w} × ${h}`]),
  );
  res.value = '1280x720';

  const row = el('div', 'share-row');
  const go = el('button', 'btn', 'Export');
  go.type = 'button';
  go.id = 'video-start';
  const cancel = el('button', 'btn', 'Cancel');
  cancel.type = 'button';
  cancel.id = 'video-cancel';
  cancel.disabled = true;
  row.append(go, cancel);
  const bar = el('progress');
  bar.id = 'video-progress';
  bar.max = 1;
  bar.value = 0;
  const status = el('p', 'share-note');
  status.id = 'video-status';
  status.setAttribute('role', 'status');

  const section = el('section', 'share-section');
  section.append(range, fpsLabel, resLabel, how, row, bar, status);
  box.append(head, section);
  node.append(box);
  document.body.append(node);

  let job: { ctl: AbortController; done: Promise<VideoResult | null> } | null = null;
  const d = {
    node,
    refresh() {
      const { start, end } = exportRange(player);
      range.textContent = `${player.clip ? 'The in/out selection' : 'The whole recording'}: ${fmtTime(start)} – ${fmtTime(end)} (${(end - start).toFixed(1)} s)`;
      how.textContent = hasWebCodecs()
        ? 'Drawn frame by frame and encoded as VP9 WebM (as fast as this machine draws).'
        : 'This browser has no WebCodecs: the video is recorded in real time (MediaRecorder), as long as the range plays.';
    },
    async start() {
      if (job) return job.done;
      const [w, h] = res.value.split('x').map(Number);
      const ctl = new AbortController();
      go.disabled = true;
      cancel.disabled = false;
      bar.value = 0;
      status.textContent = 'Starting…';
      const t0 = performance.now();
      job = {
        ctl,
        done: exportVideo(
          player,
          // (`videoStallMs`: a diagnostics knob, for tests that make a part stall on purpose.)
          { fps: Number(fps.value), width: w, height: h, stallMs: player.diagnostics.videoStallMs },
          {
            signal: ctl.signal,
            onProgress: ({ done, total }) => {
              bar.value = done / total;
              const rate = (done * 1000) / Math.max(1, performance.now() - t0);
              status.textContent = `Frame ${done} of ${total} (${rate.toFixed(1)} frames a second)`;
            },
          },
        )
          .then(
            (r) => {
              // Not drawOnly: a file was made (r.blob!).
              download(
                r.blob!,
                `${(player.name || 'replay').replace(/\.[^.]*$/, '')}-${fmtTime(r.start).replace(/[:.]/g, '')}.webm`,
              );
              status.textContent = `Done: ${r.frames} frames, ${r.width} × ${r.height} at ${r.fps} fps, ${(r.blob!.size / 1048576).toFixed(1)} MiB.`;
              return r;
            },
            (e) => {
              status.textContent =
                e?.name === 'AbortError'
                  ? 'Cancelled: no file was made.'
                  : `The video could not be made: ${e?.message ?? e}. No file was made.`;
              return null;
            },
          )
          .finally(() => {
            job = null;
            go.disabled = false;
            cancel.disabled = true;
          }),
      };
      return job.done;
    },
    cancel() {
      job?.ctl.abort();
    },
  };
  go.addEventListener('click', () => d.start());
  cancel.addEventListener('click', () => d.cancel());
  // Closing the dialog cancels an export under way.
  node.addEventListener('close', () => d.cancel());
  return d;
}

/** Saves `blob` as `name` (a download of an object URL, revoked once the click has taken it). */
function download(blob: Blob, name: string) {
  const a = el('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}
