// Frames drawn on demand at a size of their own (docs/export.md "Video clips"; the handle's
// captureFrame()): the player's renderer, held (`stage.held`: the page's animation frames stop
// drawing, the renderer is sized to the capture), steps the playhead to each time asked — a seek,
// the kills' flashes the step crossed, one frame drawn the way the player draws one
// (core.drawFrame) and handed back by the render worker as a VideoFrame — with the callsign
// labels the player placed over it. No second renderer: what is captured is what the canvas shows.
// release() puts the size and the playhead back.
import type { Core } from './core.ts';
import { type Guard, unguarded } from '../lib/deadline.ts';

/** A callsign label over a captured frame, in capture pixels. */
export interface FrameLabel {
  text: string;
  x: number;
  y: number;
  sel: boolean;
  dead: boolean;
  hp: number;
}

/** A captured frame: its picture (the caller closes it; null when not asked for) and its labels. */
export interface CapturedFrame {
  image: VideoFrame | null;
  labels: FrameLabel[];
}

/** The clock's commands a capture uses (the controller's: a seek there also readies its hints). */
export interface CaptureClock {
  readonly currentTime: number;
  readonly paused: boolean;
  pause(): void;
  play(): void;
  seek(t: number): Promise<number>;
}

/** The renderer of the stage as a capture drives it (bridge/render.ts's proxy in a worker:
 *  `inFlight`, `replied` and `error` are its). */
interface CaptureRenderer {
  resize(width: number, height: number, dpr: number): void;
  clearTrails(): void;
  inFlight?: boolean;
  replied?: Promise<{ image?: VideoFrame | null; drawn?: boolean } | null | undefined>;
  stats?: { posted: number };
  error?: unknown;
}

/**
 * Holds `core`'s stage at `width` × `height` until release(): the clock pauses, the renderer draws
 * at that size. Throws when no recording is shown or another capture holds it.
 */
export class FrameCapture {
  #core: Core;
  #clock: CaptureClock;
  #r: CaptureRenderer;
  #back: number;
  #wasPlaying: boolean;
  #last: number | null = null;
  #released = false;
  /** Frames the renderer answered without drawing, drawn again (diagnostics). */
  redraws = 0;

  constructor(core: Core, clock: CaptureClock, width: number, height: number) {
    const stage = core.stage;
    const r = stage.renderer as CaptureRenderer | null;
    if (!core.info || !r) throw new Error('Open a recording first: there is nothing to capture.');
    if (stage.held) throw new Error('A capture (a video export) is already running.');
    if (!(width >= 1 && height >= 1 && width <= 8192 && height <= 8192))
      throw new Error(`a capture's size must be 1–8192 px each way (asked ${width} × ${height})`);
    this.#core = core;
    this.#clock = clock;
    this.#r = r;
    this.#back = clock.currentTime;
    this.#wasPlaying = clock.paused === false;
    clock.pause();
    stage.held = true;
    r.resize(Math.round(width), Math.round(height), 1);
    r.clearTrails();
  }

  /** The frame at `t` seconds drawn; `capture`: its picture as a VideoFrame (the caller closes
   *  it); the labels the player placed over it (in capture pixels). `guard` bounds each wait (the
   *  frame decoded, the renderer's answer): a part that never answers is a StallError naming it. */
  async frame(t: number, capture: boolean, guard: Guard = unguarded): Promise<CapturedFrame> {
    if (this.#released) throw new Error('this capture was released');
    const core = this.#core;
    const stage = core.stage;
    const r = this.#r;
    const at = `${t.toFixed(3)} s`;
    await guard(`the decoded frame at ${at}`, this.#clock.seek(t));
    // Kills and explosions the step crossed flash as they do playing forward.
    const last = this.#last;
    if (last !== null && t > last && t - last < 1) for (const e of core.pb.eventsBetween(last, t)) core.effect(e);
    this.#last = t;
    // Drawn, and its picture taken. A frame the renderer answers without drawing it (its surface
    // reconfigured after the resize, busy, its GPU device being recreated) is drawn again a moment
    // later, until it is drawn or `guard` gives up (then a picture that comes late is closed).
    let gaveUp = false;
    const draw = async (): Promise<VideoFrame | null> => {
      for (let tries = 1; ; tries++) {
        // A frame the page's loop posted before the hold is answered first (one in flight at most).
        while (stage.inWorker && r.inFlight) await r.replied;
        if (gaveUp) return null;
        const posted = r.stats?.posted ?? 0;
        const drawnHere = core.drawFrame(0, { capture });
        if (stage.inWorker) {
          // The frame was posted (a renderer that failed posts nothing: `replied` is an older frame's).
          if ((r.stats?.posted ?? 0) !== posted + 1)
            throw r.error ?? new Error(`the renderer did not take the frame at ${at}`);
          const reply = await r.replied;
          if (!reply) throw r.error ?? new Error(`the renderer did not draw the frame at ${at}`);
          if (reply.drawn && (!capture || reply.image)) {
            if (!gaveUp) return reply.image ?? null;
            reply.image?.close();
            return null;
          }
          reply.image?.close();
        } else if (drawnHere) {
          return capture ? new VideoFrame(stage.canvas, { timestamp: 0 }) : null;
        }
        this.redraws++;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100, 10 * tries)));
      }
    };
    const drawing = draw();
    const image = await guard(`the renderer's picture at ${at}`, drawing).catch((e) => {
      gaveUp = true;
      drawing.then(
        (late) => late?.close(),
        () => {},
      );
      throw e;
    });
    if (capture && !image) throw new Error(`the renderer drew no picture at ${t.toFixed(3)} s`);
    // The labels over this frame (the reply's positions are this frame's).
    core.placeLabels();
    const labels: FrameLabel[] = [];
    for (const id of core.labels.shown) {
      const el = core.labels.pool.get(id);
      if (el) labels.push({ text: el.rpText ?? '', x: el.rpX, y: el.rpY, sel: el.rpSel, dead: el.rpDead, hp: el.rpHp });
    }
    return { image, labels };
  }

  /** The player as it was: its size, the playhead where it was, playing again if it played. The
   *  stage is given back at once; `guard` bounds the wait for the frame where the playhead goes
   *  back (a decoder that stalled: the player shows it when it comes, and this resolves). */
  async release(guard: Guard = unguarded): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    const stage = this.#core.stage;
    stage.held = false;
    stage.resize();
    try {
      this.#r.clearTrails();
    } catch {
      /* a renderer that died: nothing to clear */
    }
    const back = this.#clock.seek(this.#back);
    this.#core.loop.wake();
    try {
      await guard('the frame where the playhead was', back);
    } catch {
      /* the player is free already; its playhead lands when the frame comes */
    }
    if (this.#wasPlaying) this.#clock.play();
  }
}
