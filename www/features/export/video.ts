// Export → Video (docs/export.md "Video clips"): the in/out selection (the player's clip; the whole
// recording without one) rendered to a WebM file frame by frame, not recorded off the screen. The
// player's own renderer draws each frame at the video's size (features/export/video-frames.ts), the frame is
// composed with the callsign labels and the clock, and encoded with WebCodecs (VP9, else VP8) into
// WebM by mediabunny (features/export/webm.ts, a chunk of its own, imported here on the first export): as fast
// as the machine draws. Without WebCodecs, MediaRecorder records the composing canvas in real time
// (features/export/video-recorder.ts). A root module, imported by main.ts on first use, so that it may import().
import type { Controller } from '../../api/controller.ts';
import { Composer, frameTimes, type VideoPlayer } from './video-frames.ts';
import { realtimeRecorder, type VideoSink } from './video-recorder.ts';
import { openVideoDialog as dialog } from './video-dialog.ts';
import { type Guard, guarded } from '../../lib/deadline.ts';

/** What Export → Video reads and drives of the player (www/api/controller.ts's Controller). */
export type VideoExportPlayer = VideoPlayer & Pick<Controller, 'clip' | 'duration' | 'name' | 'diagnostics'>;

/** exportVideo()'s options: start / end in seconds (default: exportRange); `realtime`:
 *  MediaRecorder even with WebCodecs; `drawOnly` (benchmarks): the frames drawn, not composed or
 *  encoded (no file); `stallMs`: how long any one part (the decoder, the renderer, the encoder, the
 *  recorder) may leave the export without an answer before it stops (default STALL_MS). */
export interface VideoOptions {
  fps?: number;
  width?: number;
  height?: number;
  start?: number;
  end?: number;
  realtime?: boolean;
  drawOnly?: boolean;
  stallMs?: number;
}

/** exportVideo()'s progress: frames done of all; whether it records in real time. */
export interface VideoProgress {
  done: number;
  total: number;
  realtime: boolean;
}

/** exportVideo()'s answer (`blob` null when drawing alone). */
export interface VideoResult {
  blob: Blob | null;
  codec: string | null;
  frames: number;
  fps: number;
  width: number;
  height: number;
  start: number;
  end: number;
  realtime: boolean;
  ms: number;
}

export const FRAME_RATES = [30, 60];
/** The resolutions offered (width × height); any other even size up to MAX_SIDE may be asked for. */
export const RESOLUTIONS: [number, number][] = [
  [1920, 1080],
  [1280, 720],
  [854, 480],
  [640, 360],
  [320, 180],
];
const MAX_SIDE = 3840;
/** Frames drawn but not yet encoded (or, drawing alone, not yet finished) at most. */
const IN_FLIGHT = 3;
/** The longest an export waits for any one answer (a frame decoded, drawn, taken by the encoder, the
 *  file finished) before it stops and says which did not come. A frame of a file read over HTTP
 *  waits for the source's retries (under 10 s); nothing else takes a second. */
export const STALL_MS = 30_000;
/** The longest the player is waited for while it is given back (it is free at once; this is the
 *  playhead's way back) and an encoder or recorder while it is stopped. */
const RELEASE_MS = 5_000;

/** Whether this browser encodes with WebCodecs (else the export records in real time). */
export function hasWebCodecs(): boolean {
  return typeof VideoEncoder === 'function' && typeof VideoFrame === 'function';
}

/** The range an export covers: the player's in/out selection, or the whole recording. */
export function exportRange(player: Pick<Controller, 'clip' | 'duration'>): { start: number; end: number } {
  const c = player.clip;
  const d = player.duration;
  const start = Math.min(d, Math.max(0, c?.start ?? 0));
  const end = Math.min(d, Math.max(start, c?.end ?? d));
  return { start, end };
}

function checked({ fps = 30, width = 1280, height = 720 }: VideoOptions) {
  if (!FRAME_RATES.includes(fps)) throw new Error(`a video is made at 30 or 60 fps, not ${fps}`);
  const ok = (v: number) => Number.isInteger(v) && v >= 16 && v <= MAX_SIDE && v % 2 === 0;
  if (!ok(width) || !ok(height))
    throw new Error(`a video is 16 to ${MAX_SIDE} even pixels a side, not ${width}×${height}`);
  return { fps, width, height };
}

/**
 * Renders `player`'s range to a WebM video (`opts`: VideoOptions; `how`: progress and
 * cancelling). Rejects with an AbortError when `signal` aborts (nothing is kept).
 */
export async function exportVideo(
  player: VideoExportPlayer,
  opts: VideoOptions = {},
  { onProgress, signal }: { onProgress?: (p: VideoProgress) => void; signal?: AbortSignal } = {},
): Promise<VideoResult> {
  const { fps, width, height } = checked(opts);
  const range = exportRange(player);
  const start = opts.start ?? range.start;
  const end = opts.end ?? range.end;
  if (!(end > start)) throw new Error(`the range ${start}–${end} s is empty: nothing to export`);
  const realtime = !!opts.realtime || !hasWebCodecs();
  const times = frameTimes(start, end, fps);
  const t0 = performance.now();
  // Every wait below: a StallError naming the part that did not answer, or an AbortError at once.
  const guard: Guard = guarded(opts.stallMs ?? STALL_MS, signal);
  const held = await guard('the player (held for the video)', player.capture(width, height));
  let sink: VideoSink | null = null;
  try {
    let composer: Composer | null = null;
    if (!opts.drawOnly) {
      // MediaRecorder needs a page canvas (its stream); the encoder takes an OffscreenCanvas.
      const canvas = realtime ? document.createElement('canvas') : new OffscreenCanvas(width, height);
      canvas.width = width;
      canvas.height = height;
      composer = new Composer(canvas);
      sink = realtime
        ? realtimeRecorder(canvas as HTMLCanvasElement, { fps })
        : await guard(
            'the video encoder',
            import('./webm.ts').then((m) => m.webmEncoder(canvas, { fps, width, height })),
          );
    }
    const encoder = realtime ? 'the video recorder' : `the ${(sink?.codec ?? 'video').toUpperCase()} encoder`;
    const answer = (i: number) =>
      composer
        ? `${encoder}'s answer to frame ${i + 1}${realtime ? ' (MediaRecorder records only while the page is shown)' : ''}`
        : `the picture of frame ${i + 1}`;
    // Frames waited for: the GPU draws frame i while frame i + 1 is stepped to and asked for (at
    // most IN_FLIGHT at once: the encoder's backpressure, `add()`'s promise, still holds).
    const waits: { i: number; p: Promise<unknown> }[] = [];
    const wait = async (max: number) => {
      while (waits.length > max) {
        const w = waits.shift()!;
        await guard(answer(w.i), w.p);
      }
    };
    for (let i = 0; i < times.length; i++) {
      signal?.throwIfAborted();
      const { image, labels } = await held.frame(times[i], true, guard);
      if (composer) {
        // The composed canvas is taken as it is when add() is called (mediabunny's VideoSample).
        // Composing: both made above; `capture` asked for the picture.
        composer.draw(image!, labels, times[i]);
        waits.push({ i, p: sink!.add(i) });
      } else {
        // Drawing alone (the benchmark's reference): the frame finished (the GPU draws after the
        // call returns; a read waits for it), 2 × 2 pixels read, nothing composed or encoded.
        const px = new Uint8Array(16);
        waits.push({
          i,
          p: image!
            .copyTo(px, { rect: { x: 0, y: 0, width: 2, height: 2 }, format: 'RGBA' })
            .finally(() => image!.close()),
        });
      }
      waits.at(-1)?.p.catch(() => {});
      // (MediaRecorder takes the canvas when it next paints: one frame at a time.)
      await wait(realtime ? 0 : IN_FLIGHT - 1);
      onProgress?.({ done: i + 1 - waits.length, total: times.length, realtime });
    }
    await wait(0);
    onProgress?.({ done: times.length, total: times.length, realtime });
    signal?.throwIfAborted();
    const codec = sink?.codec ?? null;
    const blob = sink ? await guard(`${encoder}'s finished file`, sink.finish()) : null;
    sink = null;
    return { blob, codec, frames: times.length, fps, width, height, start, end, realtime, ms: performance.now() - t0 };
  } finally {
    // Nothing kept, and the player given back, whatever stalled (each wait bounded).
    const stop = guarded(RELEASE_MS);
    if (sink) await stop('the encoder stopping', sink.cancel()).catch(() => {});
    await held.release(stop);
  }
}

/** Opens the Export → Video dialog (features/export/video-dialog.ts) over `player`; `opener` gets focus back. */
export function openVideoDialog(player: VideoExportPlayer, { opener }: { opener?: HTMLElement | null } = {}) {
  return dialog(player, { opener, exportVideo, exportRange, hasWebCodecs, FRAME_RATES, RESOLUTIONS });
}
