// Export → Video's frames (docs/export.md "Video clips"): the player's capture (core/capture.ts:
// its own renderer, held at the video's size, steps the playhead frame by frame) gives each
// picture and the callsign labels placed over it; each is composed here on a 2D canvas with the
// clock burned in. No second renderer: what the video shows is what the canvas shows.
import { fmtTime } from '../../widgets/format.ts';
import type { FrameCapture, FrameLabel } from '../../api/controller.ts';

export type { FrameLabel };

/** What the export holds of the player (www/api/controller.ts's Controller): a capture of its frames. */
export interface VideoPlayer {
  capture(width: number, height: number): Promise<FrameCapture>;
}

/** The times of the frames of [start, end) at `fps`: frame i at start + i / fps (duration × fps of them). */
export function frameTimes(start: number, end: number, fps: number): number[] {
  const n = Math.max(1, Math.round((end - start) * fps));
  return Array.from({ length: n }, (_, i) => start + i / fps);
}

/** Label style (style.css .rp-label): 11 px text on a dark box, the selected one bold on blue, a
 *  2 px health bar under the name; the box BOX_DX / BOX_DY from the entity's point (labels.ts). */
const LABEL = { dx: 10, dy: -24, padX: 5, font: '11px', h: 22 };
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, "Helvetica Neue", Arial, sans-serif';

/** Composes the video's frames on `canvas` (2D): the picture, its labels, the clock. */
export class Composer {
  canvas: HTMLCanvasElement | OffscreenCanvas;
  ctx: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

  constructor(canvas: HTMLCanvasElement | OffscreenCanvas) {
    this.canvas = canvas;
    // null: thrown just below.
    this.ctx = canvas.getContext('2d', { alpha: false }) as Composer['ctx'];
    if (!this.ctx) throw new Error('this browser gives no 2D canvas to compose the video on');
  }

  /** Draws `image` (a VideoFrame, closed here), `labels` and the clock at `t` seconds. */
  draw(image: VideoFrame, labels: FrameLabel[], t: number) {
    const { ctx, canvas } = this;
    const w = canvas.width;
    const h = canvas.height;
    ctx.drawImage(image, 0, 0, w, h);
    image.close();
    ctx.textBaseline = 'top';
    for (const l of labels) this.#label(l);
    // The clock, bottom left, as the timeline writes it.
    const text = fmtTime(t);
    const size = Math.max(12, Math.round(h / 24));
    ctx.font = `${size}px ui-monospace, "DejaVu Sans Mono", monospace`;
    const tw = ctx.measureText(text).width;
    const pad = Math.round(size / 3);
    ctx.globalAlpha = 1;
    ctx.fillStyle = 'rgba(11, 14, 20, 0.62)';
    ctx.fillRect(pad, h - size - 3 * pad, tw + 2 * pad, size + 2 * pad);
    ctx.fillStyle = '#e6ebf3';
    ctx.fillText(text, 2 * pad, h - size - 2 * pad);
  }

  #label({ text, x, y, sel, dead, hp }: FrameLabel) {
    const ctx = this.ctx;
    ctx.font = `${sel ? '600 ' : ''}${LABEL.font} ${FONT}`;
    const x0 = x + LABEL.dx;
    const y0 = y + LABEL.dy;
    const bw = Math.ceil(ctx.measureText(text).width) + 2 * LABEL.padX;
    ctx.globalAlpha = dead ? 0.45 : 1;
    ctx.fillStyle = sel ? 'rgba(31, 95, 138, 0.9)' : 'rgba(11, 14, 20, 0.62)';
    ctx.fillRect(x0, y0, bw, LABEL.h - 2);
    ctx.fillStyle = sel ? '#fff' : '#e6ebf3';
    ctx.fillText(text, x0 + LABEL.padX, y0 + 2);
    if (dead) {
      ctx.fillRect(x0 + LABEL.padX, y0 + 8, bw - 2 * LABEL.padX, 1);
    } else if (hp >= 0) {
      ctx.fillStyle = 'rgba(255, 255, 255, 0.14)';
      ctx.fillRect(x0 + LABEL.padX, y0 + 16, bw - 2 * LABEL.padX, 2);
      ctx.fillStyle = hp < 30 ? '#ff6b5b' : hp < 65 ? '#f0c04a' : '#3ecf8e';
      ctx.fillRect(x0 + LABEL.padX, y0 + 16, ((bw - 2 * LABEL.padX) * hp) / 100, 2);
    }
    ctx.globalAlpha = 1;
  }
}
