// Export → Video's encoder where the browser has WebCodecs: VP9 (VP8 where VP9 cannot be encoded
// at this size) through VideoEncoder, muxed into WebM by mediabunny (bundled into this module's own
// chunk: loaded only when a video is exported). Each composed frame is taken from the composing
// canvas with its own timestamp (frame i at i / fps), so the video's timing is exact whatever the
// drawing's speed; `add()` waits while the encoder's queue is full.
import { BufferTarget, CanvasSource, Output, QUALITY_HIGH, WebMOutputFormat, canEncodeVideo } from 'mediabunny';
import type { VideoSink } from './video-recorder.ts';

/** The first of VP9, VP8 this browser encodes at `width` × `height`, or null. */
export async function videoCodec(width: number, height: number): Promise<'vp9' | 'vp8' | null> {
  for (const codec of ['vp9', 'vp8'] as const) if (await canEncodeVideo(codec, { width, height })) return codec;
  return null;
}

/** A WebM encoder of `canvas`'s pictures at `fps`: `add(i)` frame i, `finish()` → Blob, `cancel()`. */
export async function webmEncoder(
  canvas: HTMLCanvasElement | OffscreenCanvas,
  { fps, width, height }: { fps: number; width: number; height: number },
): Promise<VideoSink> {
  const codec = await videoCodec(width, height);
  if (!codec) throw new Error(`this browser encodes neither VP9 nor VP8 at ${width}×${height}`);
  const output = new Output({ format: new WebMOutputFormat(), target: new BufferTarget() });
  const source = new CanvasSource(canvas, { codec, bitrate: QUALITY_HIGH, keyFrameInterval: 2 });
  output.addVideoTrack(source, { frameRate: fps });
  await output.start();
  return {
    codec,
    add: (i: number) => source.add(i / fps, 1 / fps),
    async finish() {
      await output.finalize();
      // finalize() has written the buffer.
      return new Blob([output.target.buffer as ArrayBuffer], { type: 'video/webm' });
    },
    cancel: () => output.cancel(),
  };
}
