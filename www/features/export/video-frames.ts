// Export → Video's frames (docs/export.md "Video clips"): the player's own renderer, held for the
// export (`stage.held`: the page's animation frames stop drawing, the renderer is sized to the
// video), steps the playhead frame by frame — a seek to each frame's time, the kills' flashes the
// step crossed, one frame drawn the way the player draws one (core.drawFrame) and handed back by the
// render worker as a VideoFrame — and each picture is composed on a 2D canvas with the callsign
// labels the player placed over it and the clock burned in. No second renderer: what the video
// shows is what the canvas shows.
import { fmtTime } from '../../widgets/format.ts';

/** A callsign label the player placed (view/labels.ts's pool: an element with its rp* fields). */
interface PlacedLabel {
  /** null until the label was first placed (a shown label has its text). */
  rpText: string | null;
  rpX: number;
  rpY: number;
  rpSel: boolean;
  rpDead: boolean;
  rpHp: number;
}

/** The renderer of the stage, as the export drives it (bridge/render.ts's RenderProxy in a worker:
 *  `inFlight`, `replied` and `error` are its). */
interface VideoRenderer {
  resize(width: number, height: number, dpr: number): void;
  clearTrails(): void;
  inFlight?: boolean;
  replied?: Promise<{ image?: VideoFrame | null } | null | undefined>;
  error?: unknown;
}

/** The player's inside that the export draws with (www/core/core.ts: `player.videoSource()`). */
export interface VideoCore {
  stage: {
    renderer: VideoRenderer | null;
    held: boolean;
    inWorker: boolean;
    canvas: HTMLCanvasElement | OffscreenCanvas;
    resize(): void;
  };
  info: unknown;
  pb: { eventsBetween(t0: number, t1: number): Iterable<unknown> };
  effect(e: unknown): void;
  drawFrame(dt: number, by: { capture: boolean }): void;
  placeLabels(): void;
  labels: { shown: Iterable<number>; pool: { get(id: number): PlacedLabel | undefined } };
  loop: { wake?: () => void };
}

/** What the export holds of the player (www/api/player.ts's handle and its videoSource()). */
export interface VideoPlayer {
  videoSource(): VideoCore;
  readonly currentTime: number;
  readonly paused: boolean;
  pause(): void;
  play(): void;
  seek(t: number): Promise<number>;
}

/** A label over a frame, in video pixels. */
export interface FrameLabel {
  text: string;
  x: number;
  y: number;
  sel: boolean;
  dead: boolean;
  hp: number;
}

/** The stage held for an export: holdStage()'s answer. */
export type HeldStage = ReturnType<typeof holdStage>;

/** The times of the frames of [start, end) at `fps`: frame i at start + i / fps (duration × fps of them). */
export function frameTimes(start: number, end: number, fps: number): number[] {
  const n = Math.max(1, Math.round((end - start) * fps));
  return Array.from({ length: n }, (_, i) => start + i / fps);
}

/** Label style (style.css .rp-label): 11 px text on a dark box, the selected one bold on blue, a
 *  2 px health bar under the name; the box BOX_DX / BOX_DY from the entity's point (labels.js). */
const LABEL = { dx: 10, dy: -24, padX: 5, font: '11px', h: 22 };
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, "Helvetica Neue", Arial, sans-serif';

/**
 * Holds player `player`'s stage for an export at `width` × `height`: the player pauses, its
 * renderer draws at the video's size until `release()`, which puts the size and the playhead back.
 * Throws when no recording is shown or another export holds it.
 */
export function holdStage(player: VideoPlayer, width: number, height: number) {
  const core = player.videoSource();
  const stage = core.stage;
  const r = stage.renderer;
  if (!core.info || !r) throw new Error('Open a recording first: there is nothing to export.');
  if (stage.held) throw new Error('A video export is already running.');
  const back = player.currentTime;
  const wasPlaying = player.paused === false;
  player.pause();
  stage.held = true;
  r.resize(width, height, 1);
  r.clearTrails();
  let last: number | null = null;
  return {
    core,
    /** The frame at `t` seconds drawn; `capture`: its picture as a VideoFrame (the caller closes
     *  it); the labels the player placed over it (`{text, x, y, sel, dead, hp}` in video pixels). */
    async frame(t: number, capture: boolean): Promise<{ image: VideoFrame | null; labels: FrameLabel[] }> {
      await player.seek(t);
      // Kills and explosions the step crossed flash as they do playing forward.
      if (last !== null && t > last && t - last < 1) for (const e of core.pb.eventsBetween(last, t)) core.effect(e);
      last = t;
      // A frame the page's loop posted before the hold is answered first (one in flight at most).
      while (stage.inWorker && r.inFlight) await r.replied;
      core.drawFrame(0, { capture });
      let image: VideoFrame | null = null;
      if (stage.inWorker) {
        const reply = await r.replied;
        if (!reply) throw r.error ?? new Error('the renderer did not draw the frame');
        image = reply.image ?? null;
      } else if (capture) {
        image = new VideoFrame(stage.canvas, { timestamp: 0 });
      }
      if (capture && !image) throw new Error(`the renderer drew no picture at ${t.toFixed(3)} s`);
      // The labels over this frame (the reply's positions are this frame's).
      core.placeLabels();
      const labels: FrameLabel[] = [];
      for (const id of core.labels.shown) {
        const el = core.labels.pool.get(id);
        if (el)
          labels.push({ text: el.rpText ?? '', x: el.rpX, y: el.rpY, sel: el.rpSel, dead: el.rpDead, hp: el.rpHp });
      }
      return { image, labels };
    },
    /** The player as it was: its size, the playhead where it was, playing again if it played. */
    async release() {
      stage.held = false;
      stage.resize();
      try {
        r.clearTrails();
      } catch {
        /* a renderer that died: nothing to clear */
      }
      await player.seek(back);
      core.loop.wake?.();
      if (wasPlaying) player.play();
    },
  };
}

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
