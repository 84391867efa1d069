// Export → Video where the browser has no WebCodecs: MediaRecorder on the composing canvas's
// stream, in real time (the dialog says so). Each frame is pushed to the stream as it is composed
// (`requestFrame`) and the steps are paced at 1 / fps of the wall clock, since MediaRecorder stamps
// frames with the time they arrive: the video is as long as the range when the machine draws at
// least as fast as the video plays, longer frames stretching it where it cannot.

/** Where the composed frames go (this recorder, or webm.ts's encoder): `add(i)` once frame i is
 *  composed (resolves when the next may be), `finish()` → the video, `cancel()` (nothing kept). */
export interface VideoSink {
  codec: string;
  add(i: number): Promise<void>;
  finish(): Promise<Blob>;
  cancel(): Promise<void>;
}

/** The WebM types tried, best first. */
const TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];

/** A real-time WebM recorder of `canvas` (an HTMLCanvasElement) at `fps`: `add(i)` after frame i
 *  is drawn, `finish()` → Blob, `cancel()`. */
export function realtimeRecorder(canvas: HTMLCanvasElement, { fps }: { fps: number }): VideoSink {
  if (typeof MediaRecorder === 'undefined' || !canvas.captureStream)
    throw new Error('this browser has neither WebCodecs nor MediaRecorder: it cannot make a video');
  const type = TYPES.find((t) => MediaRecorder.isTypeSupported(t));
  if (!type) throw new Error('this browser records no WebM video');
  const stream = canvas.captureStream(0);
  const [track] = stream.getVideoTracks();
  const rec = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 8e6 });
  const parts: Blob[] = [];
  rec.ondataavailable = (e) => {
    if (e.data.size) parts.push(e.data);
  };
  const stopped = new Promise<unknown>((resolve) => {
    rec.onstop = resolve;
  });
  rec.start(1000);
  const t0 = performance.now();
  const stop = async () => {
    if (rec.state !== 'inactive') rec.stop();
    await stopped;
    for (const t of stream.getTracks()) t.stop();
  };
  return {
    codec: type.includes('vp8') ? 'vp8' : 'vp9',
    async add(i: number) {
      (track as CanvasCaptureMediaStreamTrack).requestFrame?.();
      // The frame is taken when the canvas next paints: not drawn over before then.
      await new Promise((resolve) => requestAnimationFrame(resolve));
      // Frame i + 1 is due at (i + 1) / fps of the wall clock from the start.
      const wait = t0 + ((i + 1) * 1000) / fps - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    },
    async finish() {
      await stop();
      return new Blob(parts, { type: 'video/webm' });
    },
    async cancel() {
      await stop();
      parts.length = 0;
    },
  };
}
