// Export → Video end to end in headless Chromium (www/features/export/video.ts, docs/export.md "Video
// clips"): a 2 s in/out selection exported at 30 fps and 320 × 180 through the dialog, the download
// read by ffprobe (Debian's ffmpeg: codec, size, frame count = duration × fps, duration), its
// middle frame (extracted by ffmpeg) against the player's own canvas at that time, the labels and
// the clock burned in; Cancel leaves no download; without VideoEncoder the dialog says it records
// in real time and MediaRecorder's WebM is read by ffprobe; frames the renderer answers without
// drawing are drawn again; and each part made to stall on purpose ends the export with a sentence.
// Every export here is waited for until it ends (the Export button back), then its sentence read:
// an export that fails says why at once instead of leaving a test waiting for a download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { OUT, waitReady, settle, decodePng, dist, pageSuite } from './player-helpers.mjs';

const DIR = path.join(OUT, 'video');
const W = 320;
const H = 180;
const FPS = 30;
const IN = 4;
const OUT_S = 6;

const suite = pageSuite({ setup: () => fs.mkdirSync(DIR, { recursive: true }) });

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'buffer', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** ffprobe's view of `file`'s video stream: codec, size, frames decoded, duration (s). */
function probe(file) {
  const j = JSON.parse(
    run('ffprobe', [
      ...['-v', 'error', '-select_streams', 'v:0', '-count_frames'],
      ...['-show_entries', 'stream=codec_name,width,height,nb_read_frames:format=duration'],
      ...['-of', 'json', file],
    ]).toString(),
  );
  const s = j.streams[0];
  return {
    codec: s.codec_name,
    width: s.width,
    height: s.height,
    frames: Number(s.nb_read_frames),
    duration: Number(j.format.duration),
  };
}

/** Frame `n` of `file` as a decoded PNG (written beside it). */
function frameOf(file, n) {
  const png = `${file}.frame${n}.png`;
  run('ffmpeg', ['-v', 'error', '-y', '-i', file, '-vf', `select=eq(n\\,${n})`, '-frames:v', '1', png]);
  return { png, img: decodePng(fs.readFileSync(png)) };
}

/** The page with the stage (the canvas) exactly W × H CSS px at devicePixelRatio 1 (so that the
 *  player's canvas and the video have the same pixels), trails off (a trail depends on how the
 *  playhead got to a time: a seek back clears it, stepping forward grows it), the clip IN–OUT_S. */
async function openVideoPage(init = null, query = '') {
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const log = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && log.push(m.text()));
  page.on('pageerror', (e) => log.push(String(e)));
  if (init) await page.addInitScript(init);
  await page.goto(`${suite.base}${query}`, { waitUntil: 'load' });
  await waitReady(page);
  await page.addStyleTag({
    content: `#stage { position: fixed !important; left: 0; top: 0; width: ${W}px !important; height: ${H}px !important; flex: none !important; z-index: 10000; }`,
  });
  await page.evaluate(
    async ({ a, b }) => {
      const p = window.__player;
      p.diagnostics.setTrailSeconds(0);
      p.setClip({ start: a, end: b, loop: false });
      await p.seek(a);
    },
    { a: IN, b: OUT_S },
  );
  await settle(page, 6);
  return { page, log };
}

/** The video's dialog, from the Share dialog's Clip section or (`viaExport`) the Export dialog's
 *  Video item, which closes the Export dialog and opens it. */
async function openDialog(page, viaExport = false) {
  if (viaExport) {
    await page.click('#export-open');
    await page.click('dialog[open] [data-export="video"]');
  } else {
    await page.click('#share-open');
    await page.click('#share-video');
  }
  await page.waitForSelector('dialog#video-export[open]');
  await page.selectOption('#video-res', `${W}x${H}`);
  await page.selectOption('#video-fps', String(FPS));
}

/** Presses Export and waits for the export to end (the Export button back: every wait of an
 *  export is bounded, docs/export.md); fails with the dialog's sentence unless it made a file, and
 *  saves the download as `file`. Returns the download. */
async function exportToFile(page, file) {
  const downloaded = page.waitForEvent('download', { timeout: 0 });
  await page.click('#video-start');
  await page.waitForFunction(() => document.querySelector('#video-start').disabled === false, null, {
    timeout: 300_000,
  });
  const status = await page.textContent('#video-status');
  assert.match(status, /^Done: /, 'the export made a file');
  const dl = await downloaded;
  await dl.saveAs(file);
  return dl;
}

/** Pixels of `a` and `b` farther apart than `tol`, over the pixels `keep(x, y)` says. */
function differentIn(a, b, keep, tol) {
  let n = 0;
  let all = 0;
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++) {
      if (!keep(x, y)) continue;
      all++;
      const o = (y * a.width + x) * 4;
      if (dist([a.data[o], a.data[o + 1], a.data[o + 2]], [b.data[o], b.data[o + 1], b.data[o + 2]]) > tol) n++;
    }
  return n / Math.max(1, all);
}

/** The clip exported through the dialog on the page at `query`, downloaded as `name`, checked by
 *  ffprobe, and its middle frame against the player's canvas at that time. */
async function exportAndCompare(t, query, name) {
  const { page, log } = await openVideoPage(null, query);
  const inWorker = await page.evaluate(() => window.__player.diagnostics.snapshot().renderInWorker);
  assert.equal(inWorker, !query.includes('render=page'), `drawn ${inWorker ? 'in the render worker' : 'on the page'}`);
  await openDialog(page);
  const how = await page.textContent('#video-how');
  assert.match(how, /frame by frame/);
  assert.match(await page.textContent('#video-range'), /in\/out selection: 00:04\.0 – 00:06\.0 \(2\.0 s\)/);
  const file = path.join(DIR, name);
  const dl = await exportToFile(page, file);
  assert.match(dl.suggestedFilename(), /\.webm$/);
  const p = probe(file);
  assert.ok(p.codec === 'vp9' || p.codec === 'vp8', `codec ${p.codec}`);
  assert.equal(p.width, W);
  assert.equal(p.height, H);
  const want = (OUT_S - IN) * FPS;
  assert.ok(Math.abs(p.frames - want) <= 1, `${p.frames} frames, want ${want} ± 1`);
  assert.ok(Math.abs(p.duration - (OUT_S - IN)) <= 1.5 / FPS, `duration ${p.duration} s`);

  // The player's canvas at the middle frame's time (IN + 30 / 30 s), drawn by its own loop (the
  // dialog closed: its backdrop dims the page).
  await page.click('#video-export .share-head button');
  const mid = want / 2;
  const at = IN + mid / FPS;
  const back = await page.evaluate(async (at) => {
    const pl = window.__player;
    const before = pl.currentTime;
    await pl.seek(at);
    return before;
  }, at);
  assert.ok(Math.abs(back - IN) < 1e-6, `the playhead went back to where it was (${back})`);
  await settle(page, 8);
  const labels = await page.evaluate(() => {
    const d = window.__player.diagnostics;
    return d.snapshot().labels.map((id) => {
      const l = d.label(id);
      return { x: l.x, y: l.y, w: l.width };
    });
  });
  await page.evaluate(() => document.body.classList.add('test-hide-labels'));
  await page.addStyleTag({
    content: '.test-hide-labels .rp-labels, .test-hide-labels .stage-hint { visibility: hidden !important; }',
  });
  const canvasPng = path.join(DIR, `${name}.canvas.png`);
  const canvas = decodePng(await page.locator('canvas.rp-canvas').screenshot({ path: canvasPng }));
  const { img: frame } = frameOf(file, mid);
  assert.equal(canvas.width, W);
  assert.equal(frame.width, W);
  // Burned in: the clock's box (bottom left, h / 24 px text) and each label's box.
  const size = Math.max(12, Math.round(H / 24));
  const inClock = (x, y) => x < 80 && y > H - size - 3 * (size / 3) - 1;
  const inLabel = (x, y) => labels.some((l) => x >= l.x + 8 && x <= l.x + 14 + l.w && y >= l.y - 26 && y <= l.y);
  assert.ok(labels.length > 0, 'labels are shown at that time');
  // The picture: VP9 moves edges and flat colours by a few levels, so a pixel is "different" only
  // beyond 40 (of 441) in RGB distance, and ≤ 1 % of the pixels outside the burned-in boxes may be
  // (the aircraft's edges; 0.26 % here). Frame 0, 1 s earlier, differs ~10× more (2.4 %): the
  // comparison can tell another moment.
  const rest = (x, y) => !inClock(x, y) && !inLabel(x, y);
  const same = differentIn(frame, canvas, rest, 40);
  assert.ok(same <= 0.01, `middle frame vs canvas: ${(same * 100).toFixed(2)} % of pixels differ`);
  const clock = differentIn(frame, canvas, inClock, 40);
  assert.ok(clock > 0.1, `the clock is burned in (${(clock * 100).toFixed(1)} % of its box differs)`);
  const lab = differentIn(frame, canvas, inLabel, 40);
  assert.ok(lab > 0.1, `the labels are burned in (${(lab * 100).toFixed(1)} % of their boxes differ)`);
  const far = differentIn(frameOf(file, 0).img, canvas, rest, 40);
  assert.ok(far > same * 4 && far > 0.01, `frame 0 differs more (${(far * 100).toFixed(2)} %) than the middle one`);
  t.diagnostic(
    `differing pixels: middle ${(same * 100).toFixed(2)} %, frame 0 ${(far * 100).toFixed(2)} %; clock box ${(clock * 100).toFixed(1)} %, label boxes ${(lab * 100).toFixed(1)} %`,
  );
  assert.deepEqual(log, []);
  await page.close();
}

test('Export → Video: the clip as a 30 fps 320×180 VP9 WebM whose middle frame is the canvas', (t) =>
  exportAndCompare(t, '', 'clip.webm'));

test('Drawn on the page (no render worker, ?render=page) the video is the canvas too', (t) =>
  exportAndCompare(t, '?render=page', 'clip-page.webm'));

test('At 60 fps a 1 s clip is 60 frames of 1.0 s (from the Export dialog)', async () => {
  const { page, log } = await openVideoPage();
  await page.evaluate(() => window.__player.setClip({ start: 4, end: 5, loop: false }));
  await openDialog(page, true);
  assert.equal(
    await page.evaluate(() => document.getElementById('export').inspect().open),
    false,
    'the Export dialog gave way',
  );
  await page.selectOption('#video-fps', '60');
  const file = path.join(DIR, 'clip60.webm');
  await exportToFile(page, file);
  const p = probe(file);
  assert.ok(Math.abs(p.frames - 60) <= 1, `${p.frames} frames, want 60 ± 1`);
  assert.ok(Math.abs(p.duration - 1) <= 1.5 / 60, `duration ${p.duration} s`);
  assert.equal(p.width, W);
  assert.deepEqual(log, []);
  await page.close();
});

test('Cancel stops the export and leaves no download; the player is as it was', async () => {
  const { page, log } = await openVideoPage();
  await openDialog(page);
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.click('#video-start');
  // Under way (past a tenth), or ended: an export that failed says why here, not in a timeout.
  await page.waitForFunction(
    () => document.querySelector('#video-progress').value > 0.1 || !document.querySelector('#video-start').disabled,
    null,
    { timeout: 120_000 },
  );
  assert.match(await page.textContent('#video-status'), /^Frame \d+ of 60/, 'the export is under way');
  await page.click('#video-cancel');
  await page.waitForFunction(() => /Cancelled/.test(document.querySelector('#video-status').textContent));
  const s = await page.evaluate(() => ({
    time: window.__player.currentTime,
    held: window.__player.diagnostics.snapshot().stageHeld,
    progress: document.querySelector('#video-progress').value,
  }));
  assert.ok(s.progress < 1, `cancelled before the end (${s.progress})`);
  assert.equal(s.held, false);
  assert.ok(Math.abs(s.time - IN) < 1e-6, `the playhead is back at ${IN} s (${s.time})`);
  // (The dialog downloads only on the way to "Done": a cancelled export never calls it.)
  assert.equal(downloads, 0);
  assert.equal(await page.isEnabled('#video-start'), true);
  assert.deepEqual(log, []);
  await page.close();
});

test('Without WebCodecs the dialog says it records in real time, and MediaRecorder makes a WebM', async () => {
  const { page, log } = await openVideoPage(() => {
    delete window.VideoEncoder;
  });
  await openDialog(page);
  assert.match(await page.textContent('#video-how'), /no WebCodecs: the video is recorded in real time/);
  const file = path.join(DIR, 'realtime.webm');
  await exportToFile(page, file);
  const p = probe(file);
  assert.ok(p.codec === 'vp9' || p.codec === 'vp8', `codec ${p.codec}`);
  assert.equal(p.width, W);
  assert.equal(p.height, H);
  // Real time: MediaRecorder keeps the frames the page drew while it recorded, which is as many as
  // the machine managed (58 of 60 idle, far fewer on a loaded one): no count in a time here, only
  // that it holds a moving picture, not one still. tests/bench/video-export.mjs gives the rates.
  assert.ok(p.frames >= 2, `${p.frames} frames`);
  assert.deepEqual(log, []);
  await page.close();
});

// ---------------------------------------------------------------- stalls made on purpose
// Each part an export waits on made to never answer (docs/export.md "Nothing waits forever"): the
// export ends with the sentence naming that part (videoStallMs: a short limit), nothing is
// downloaded, the player is given back and plays; with a limit of ten minutes, Cancel ends the
// same stall at once.

/** A VideoEncoder that takes frames and never answers (no output, no dequeue, a flush that never
 *  ends): an encoder that hung. `isConfigSupported` is the browser's. */
function stuckEncoder() {
  const Real = window.VideoEncoder;
  window.__encoded = 0;
  class StuckEncoder extends EventTarget {
    static isConfigSupported(config) {
      return Real.isConfigSupported(config);
    }
    constructor() {
      super();
      this.state = 'unconfigured';
      this.encodeQueueSize = 0;
      this.ondequeue = null;
    }
    configure() {
      this.state = 'configured';
    }
    encode() {
      this.encodeQueueSize++;
      window.__encoded++;
    }
    flush() {
      return new Promise(() => {});
    }
    reset() {}
    close() {
      this.state = 'closed';
    }
  }
  window.VideoEncoder = StuckEncoder;
}

/** No WebCodecs, and a MediaRecorder whose stop() never stops it (no `stop` event: the file never
 *  ends). */
function stuckRecorder() {
  delete window.VideoEncoder;
  MediaRecorder.prototype.stop = function stop() {};
}

/** Starts the dialog's export with the parts made to stall by `stall(page)` (after the dialog is
 *  open) and waits for it to end; returns the status, the downloads and the player's state. */
async function stalledExport(page, { stallMs, stall, cancelAfterFirstFrame = false }) {
  await page.evaluate((ms) => {
    window.__player.diagnostics.videoStallMs = ms;
  }, stallMs);
  if (!(await page.isVisible('dialog#video-export[open]'))) await openDialog(page);
  let downloads = 0;
  page.on('download', () => downloads++);
  await stall?.(page);
  await page.click('#video-start');
  if (cancelAfterFirstFrame) {
    // Started: the dialog says so, then Cancel while a part does not answer.
    await page.waitForFunction(() => document.querySelector('#video-cancel').disabled === false);
    await page.click('#video-cancel');
  }
  // The export ended (the Export button is back): a file, had one been made, was downloaded before.
  await page.waitForFunction(() => document.querySelector('#video-start').disabled === false, null, {
    timeout: 120_000,
  });
  const s = await page.evaluate(() => ({
    status: document.querySelector('#video-status').textContent,
    held: window.__player.diagnostics.snapshot().stageHeld,
    canvasWidth: document.querySelector('canvas.rp-canvas').clientWidth,
  }));
  return { ...s, downloads };
}

/** The player after a stalled export: free (not held), and once the stalled part answers again it
 *  seeks and plays. */
async function playsAfter(page, unstall) {
  await unstall?.(page);
  const back = await page.evaluate(async (at) => {
    const p = window.__player;
    const landed = await p.seek(at);
    p.play();
    const t0 = p.currentTime;
    await new Promise((resolve) => {
      const f = () => (p.currentTime > t0 + 0.2 ? resolve() : requestAnimationFrame(f));
      requestAnimationFrame(f);
    });
    p.pause();
    return landed;
  }, IN + 1);
  assert.ok(Math.abs(back - (IN + 1)) < 1e-6, `a seek lands after the stall (${back})`);
}

const holdWants = (on) => (page) => page.evaluate((h) => window.__player.diagnostics.holdWants(h), on);
const holdFrames = (on) => (page) => page.evaluate((h) => window.__player.diagnostics.holdFrames(h), on);

for (const [path, init] of [
  ['WebCodecs', null],
  ['MediaRecorder', () => delete window.VideoEncoder],
]) {
  test(`${path}: a frame the decoder never sends ends the export with a sentence, no file; the player plays after`, async () => {
    const { page, log } = await openVideoPage(init);
    const r = await stalledExport(page, { stallMs: 3000, stall: holdWants(true) });
    assert.match(
      r.status,
      /^The video could not be made: the decoded frame at 4\.\d{3} s did not come within 3 s\. No file was made\.$/,
    );
    assert.equal(r.downloads, 0);
    assert.equal(r.held, false, 'the player is given back');
    assert.equal(r.canvasWidth, W, 'the canvas has its own size again');
    await playsAfter(page, holdWants(false));
    assert.deepEqual(log, []);
    await page.close();
  });

  test(`${path}: Cancel ends an export whose frame never comes, at once`, async () => {
    const { page, log } = await openVideoPage(init);
    const r = await stalledExport(page, { stallMs: 600_000, stall: holdWants(true), cancelAfterFirstFrame: true });
    assert.equal(r.status, 'Cancelled: no file was made.');
    assert.equal(r.downloads, 0);
    assert.equal(r.held, false);
    await playsAfter(page, holdWants(false));
    assert.deepEqual(log, []);
    await page.close();
  });

  test(`${path}: a picture the renderer never answers ends the export with a sentence; the late one is closed`, async () => {
    const { page, log } = await openVideoPage(init);
    const r = await stalledExport(page, { stallMs: 3000, stall: holdFrames(true) });
    assert.match(
      r.status,
      /^The video could not be made: the renderer's picture at 4\.\d{3} s did not come within 3 s\. No file was made\.$/,
    );
    assert.equal(r.downloads, 0);
    assert.equal(r.held, false);
    // The answers held back are handed on (the late picture among them: closed, no warning).
    await playsAfter(page, holdFrames(false));
    assert.deepEqual(log, []);
    await page.close();
  });
}

test('WebCodecs: an encoder that never answers ends the export with a sentence naming it; Cancel ends it at once', async () => {
  const { page, log } = await openVideoPage(stuckEncoder);
  const r = await stalledExport(page, { stallMs: 3000 });
  assert.match(
    r.status,
    /^The video could not be made: the VP[89] encoder's answer to frame \d+ did not come within 3 s\. No file was made\.$/,
  );
  assert.ok((await page.evaluate(() => window.__encoded)) > 0, 'the stuck encoder was given frames');
  assert.equal(r.downloads, 0);
  assert.equal(r.held, false);
  const c = await stalledExport(page, { stallMs: 600_000, cancelAfterFirstFrame: true });
  assert.equal(c.status, 'Cancelled: no file was made.');
  assert.equal(c.downloads, 0);
  assert.equal(c.held, false);
  await playsAfter(page);
  assert.deepEqual(log, []);
  await page.close();
});

test('MediaRecorder: a recorder that never finishes its file ends the export with a sentence naming it', async () => {
  const { page, log } = await openVideoPage(stuckRecorder);
  const r = await stalledExport(page, { stallMs: 3000 });
  assert.match(
    r.status,
    /^The video could not be made: the video recorder's finished file did not come within 3 s\. No file was made\.$/,
  );
  assert.equal(r.downloads, 0);
  assert.equal(r.held, false);
  await playsAfter(page);
  assert.deepEqual(log, []);
  await page.close();
});

test('Frames the renderer answers without drawing (a busy or reconfigured surface) are drawn again: the video is whole', async () => {
  const { page, log } = await openVideoPage();
  await openDialog(page);
  // The first capture frame and two more come back "not drawn", as a surface that was busy says.
  assert.equal(await page.evaluate(() => window.__player.diagnostics.undrawnFrames(3)), 3);
  const file = path.join(DIR, 'redrawn.webm');
  await exportToFile(page, file);
  assert.equal(await page.evaluate(() => window.__player.diagnostics.undrawnFrames()), 0, 'the three were answered');
  assert.match(await page.textContent('#video-status'), /^Done: 60 frames/);
  const p = probe(file);
  assert.ok(Math.abs(p.frames - 60) <= 1, `${p.frames} frames, want 60 ± 1`);
  assert.deepEqual(log, []);
  await page.close();
});
