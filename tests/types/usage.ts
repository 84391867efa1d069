// A site's use of the declarations (types/*.d.ts), type-checked by scripts/check-types.mjs with
// `tsc --strict`: what must compile does, and each `@ts-expect-error` line must be an error (a
// declaration that grew too loose fails the check as surely as one that is wrong).
import { CAMERA_MODES, create, type Player, type PlayerState, type PlayerStatus, SPEEDS } from '../../types/player.js';
import type { ReplayPlayerElement } from '../../types/element.js';

const stage = document.createElement('div');
const p: Player = create('https://replays.example/match.flrep', stage, {
  t: '1:35.2',
  end: 'tick:9000',
  loop: true,
  follow: 'Viper',
  camera: 'follow',
  speed: 2,
  autoplay: 1,
  spoilers: false,
  controls: true,
  poster: 30,
  aspect: '16:9',
});
create(new Blob([]), stage);
create(new ArrayBuffer(8), stage, { renderInPage: true });
create(null, stage).load(new URL('https://replays.example/other.flrep'), { t: 12 });

const off: () => void = p.on('ready', (info) => {
  const rate: number = info.info.tick_rate_hz;
  const chunks: number = info.chunks.length;
  console.log(rate, chunks, info.markers.length);
});
off();
p.on('timeupdate', (t) => t.toFixed(1));
p.on('kill', (k) => p.describeKill(k).killer.toUpperCase());
p.on('error', (e) => e.message.length);
p.on('notice', (n) => n.text.length);
p.on('play', () => {});
// @ts-expect-error: timeupdate carries a number
p.on('timeupdate', (t: string) => t);
// @ts-expect-error: no such event
p.on('tiemupdate', () => {});

p.play();
p.pause();
p.seek(95.2).then((t: number) => t + 1);
p.currentTime = 10;
const d: number = p.duration;
p.setSpeed(SPEEDS[3]);
p.follow('Viper');
p.follow(12);
p.follow(null);
p.setCamera(CAMERA_MODES[0]);
// @ts-expect-error: not a camera mode
p.setCamera('drone');
const s: PlayerState = p.getState();
const playing: boolean = s.playing && p.playing;
const status: PlayerStatus = p.status;
p.on('statuschange', (now) => now === 'failed' && p.error?.length);
p.captureFrame(12, 320, 180).then((image: ImageBitmap) => image.close());
const frames: number = p.diagnostics.perf().renderStats?.drawn ?? 0;
p.diagnostics.snapshot().killFeed.map((k) => k.text);
// @ts-expect-error: the inside is not published (diagnostics is)
p.debug;
// @ts-expect-error: the full page's commands are not the site's
p.startKillCam();
// @ts-expect-error: state() became diagnostics.snapshot()
p.state();
const clip = p.setClip({ start: 5, end: 9, loop: true });
if (clip) clip.end?.toFixed();
// @ts-expect-error: duration is read-only
p.duration = 3;
p.dispose();
console.log(d, playing, status, frames);

const el = document.querySelector('replay-player');
if (el) {
  const e: ReplayPlayerElement = el;
  e.src = 'https://replays.example/match.flrep';
  e.addEventListener('kill', (ev) => ev.detail.victim);
  e.addEventListener('timeupdate', (ev) => ev.detail.toFixed(1));
  e.addEventListener('click', (ev) => ev.clientX);
  e.play();
  e.seek(3);
  const t: number = e.currentTime;
  console.log(t, e.getState().url);
}
const made = document.createElement('replay-player');
made.setAttribute('spoilers', 'off');
made.follow('Viper');
