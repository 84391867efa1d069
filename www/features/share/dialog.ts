// The Share dialog of the full page (the top bar's Share button; docs/playback.md "Share"): a link
// to this moment (with the view: the followed entity, the camera mode and its pose, the speed), a
// clip marked with in / out points (I / O, the handles on the timeline: www/features/share/clip.ts) and its
// link, and the embed snippets (iframe, script, <replay-player>), each with a Copy button. A file
// opened from the disk has no address: the dialog says so and offers the time-only parameters;
// where the page is served by a replay host (`replay host`) it offers "Upload and get link"
// instead (www/features/share/upload.ts), and then the host's links (`/r/{id}`, its embed.html, oEmbed).
//
// Loaded on first use (main.ts imports it when the button, I / O or a link's clip needs it): a
// session that never shares downloads none of it. A <dialog> opened modal: the keyboard reaches
// every control, Esc closes it and the focus goes back to the Share button. The links are built by
// www/features/share/links.ts from www/api/options.ts's vocabulary; every text goes in as a value or
// textContent.
import type { Controller } from '../../api/controller.ts';
import { el, fmtTime } from '../../widgets/format.ts';
import { createClip, type ClipPlayer, type ClipPoint } from './clip.ts';
import { pageLink, timeParams, embedSnippets } from './links.ts';
import { linkQuery } from '../../api/links.ts';
import { hostApi, hostConfig, uploadReplay, hostedPage, hostLink, type HostConfig, type Hosted } from './upload.ts';
import type { LinkOptions } from './links.ts';

/** What the Share dialog reads and drives of the player (www/api/player.ts's handle: types/player.d.ts). */
export type SharePlayer = ClipPlayer & Pick<Controller, 'spoilerSafe' | 'file' | 'url' | 'getState' | 'cameraPose'>;

/** createShare()'s options. */
export interface ShareOptions {
  opener?: HTMLElement | null;
  timeline: { span: () => number };
  step: number;
  video?: (() => unknown) | null;
  root?: Document;
}

/** A read-only field of the dialog: one line, or several. */
type Field = HTMLInputElement | HTMLTextAreaElement;

/** The dialog's parts that refresh() and the host's section write, once built. */
interface Parts {
  disk: HTMLParagraphElement;
  view: HTMLInputElement;
  spoilers: HTMLInputElement;
  at: HTMLSpanElement;
  link: Field;
  inAt: HTMLSpanElement;
  outAt: HTMLSpanElement;
  loop: HTMLInputElement;
  clearBtn: HTMLButtonElement;
  clipNote: HTMLParagraphElement;
  clipRow: HTMLDivElement;
  clipLink: Field;
  embedNote: HTMLParagraphElement;
  snippets: HTMLDivElement;
  iframe: Field;
  script: Field;
  element: Field;
  status: HTMLParagraphElement;
  host: HTMLElement;
  uploadBtn: HTMLButtonElement;
  progress: HTMLProgressElement;
  hostNote: HTMLParagraphElement;
  tokenSec: HTMLDivElement;
  token: Field;
  oembedHead: HTMLHeadingElement;
  oembedRow: HTMLDivElement;
  oembed: Field;
}

/** The Share dialog: createShare()'s answer (main.ts keeps it). */
export type Share = ReturnType<typeof createShare>;

/** The dialog (`dialog#share`, built on first open) with its hook (test / inspection:
 *  `dialog.refresh()` writes every link and snippet for the moment now and resolves once they are
 *  written: the texts follow the player at most every 250 ms, and the camera's pose is asked). */
export interface ShareElement extends HTMLDialogElement {
  refresh(): Promise<void>;
}

/** How often an open dialog follows the playhead (ms). */
const REFRESH_MS = 250;

/** The Share dialog of `player`, built on first open; its clip's handles on the timeline at once. */
export function createShare(
  player: SharePlayer,
  { opener, timeline, step, video = null, root = document }: ShareOptions,
) {
  const clip = createClip(player, { timeline, step, root, onChange: () => dialog?.open && refresh() });
  /** The player's folder: where index.html, embed.html, player.js and element.js are (the page's
   *  own module script's folder: a replay host's `/r/{id}` page lies elsewhere than the player). */
  const base = () => {
    const main = root.querySelector<HTMLScriptElement>('script[type="module"][src]')?.src;
    return new URL('.', main || location.href).href;
  };
  /** The replay host serving this page, or null (a static host): www/features/share/upload.ts. */
  const api = hostApi(root);
  let config: HostConfig | null = null; // the host's answer to GET config, once asked
  /** The open file's upload: { of: the File, hosted: the host's addresses } once uploaded. */
  let uploaded: { of: Blob; hosted: Hosted } | null = null;
  let uploading: AbortController | null = null; // an AbortController while an upload runs

  let dialog: HTMLDialogElement | null = null;
  let f: Parts | null = null; // the dialog's parts, once built

  function check(id: string, text: string, checked = false): [HTMLLabelElement, HTMLInputElement] {
    const label = el('label', 'share-check');
    const box = el('input');
    box.type = 'checkbox';
    box.id = id;
    box.checked = checked;
    label.append(box, document.createTextNode(` ${text}`));
    return [label, box];
  }

  /** A read-only field (an input, or a textarea for several lines) and its Copy button. */
  function copyRow(id: string, label: string, lines = 1): [HTMLDivElement, Field] {
    const row = el('div', 'share-row');
    const field = el(lines > 1 ? 'textarea' : 'input', 'share-field');
    field.id = id;
    field.readOnly = true;
    field.spellcheck = false;
    if (lines > 1) (field as HTMLTextAreaElement).rows = lines;
    else (field as HTMLInputElement).type = 'text';
    field.setAttribute('aria-label', label);
    const btn = el('button', 'btn share-copy', 'Copy');
    btn.type = 'button';
    btn.dataset.for = id;
    btn.setAttribute('aria-label', `Copy ${label.toLowerCase()}`);
    btn.addEventListener('click', () => copy(field, btn));
    row.append(field, btn);
    return [row, field];
  }

  function button(text: string, title: string, onClick: () => void): HTMLButtonElement {
    const b = el('button', 'btn', text);
    b.type = 'button';
    if (title) b.title = title;
    b.addEventListener('click', onClick);
    return b;
  }

  function build() {
    dialog = el('dialog', 'share');
    dialog.id = 'share';
    // Test / inspection: #share's refresh() (resolves once the texts are written).
    Object.defineProperty(dialog, 'refresh', { value: refresh satisfies ShareElement['refresh'], configurable: true });
    dialog.setAttribute('aria-labelledby', 'share-title');
    const box = el('div', 'share-box');
    const head = el('div', 'share-head');
    const close = button('Close', 'Close (Esc)', () => dialog?.close());
    head.append(el('h2', '', 'Share'), close);
    (head.firstChild as HTMLElement).id = 'share-title';

    const disk = el('p', 'share-disk');
    disk.id = 'share-disk';
    const [viewLabel, view] = check('share-view', 'With the view: the camera, who it follows, the speed');
    const [spoilLabel, spoilers] = check(
      'share-spoilers',
      'Spoiler-safe: hide kills and the length ahead',
      player.spoilerSafe,
    );

    const moment = el('section', 'share-section');
    const momentHead = el('h3', '', 'Link to this moment ');
    const at = el('span', 'share-at');
    momentHead.append(at);
    const [momentRow, link] = copyRow('share-link', 'The link to this moment');
    moment.append(momentHead, momentRow);

    const clipSec = el('section', 'share-section');
    const points = el('div', 'share-points');
    const inAt = el('span', 'share-time');
    inAt.id = 'share-in';
    const outAt = el('span', 'share-time');
    outAt.id = 'share-out';
    const [loopLabel, loop] = check('share-loop', 'Loop');
    loop.addEventListener('change', () => {
      const c = player.clip;
      if (c) clip.set({ ...c, loop: loop.checked });
    });
    const clearBtn = button('Clear', 'Clear the clip', () => clip.clear());
    clearBtn.id = 'share-clear';
    points.append(
      button('In', 'The clip starts at the playhead (I)', () => clip.mark('in')),
      inAt,
      button('Out', 'The clip ends at the playhead (O)', () => clip.mark('out')),
      outAt,
      loopLabel,
      clearBtn,
    );
    const clipNote = el('p', 'share-note');
    const [clipRow, clipLink] = copyRow('share-clip-link', 'The link to the clip');
    clipSec.append(el('h3', '', 'Clip'), points, clipNote, clipRow);
    // Export → Video of the clip (the whole recording without one): main.ts's `video` opens its
    // dialog (www/features/export/video.ts) in place of this one.
    if (video) {
      const videoBtn = button('Video…', 'A WebM video of the clip (the whole recording without one)', () => {
        dialog?.close();
        video();
      });
      videoBtn.id = 'share-video';
      clipSec.append(videoBtn);
    }

    const embed = el('section', 'share-section');
    const embedNote = el('p', 'share-note');
    const snippets = el('div', 'share-snippets');
    const [iframeRow, iframe] = copyRow('share-iframe', 'The iframe snippet', 3);
    const [scriptRow, script] = copyRow('share-script', 'The script snippet', 6);
    const [elementRow, element] = copyRow('share-element', 'The element snippet', 3);
    snippets.append(
      el('h4', '', 'iframe'),
      iframeRow,
      el('h4', '', 'Script'),
      scriptRow,
      el('h4', '', 'Custom element'),
      elementRow,
    );
    embed.append(el('h3', '', 'Embed'), embedNote, snippets);

    // Upload and get link: only where a replay host serves the page (www/features/share/upload.ts).
    const host = el('section', 'share-section share-host');
    host.hidden = true;
    const uploadBtn = button('Upload and get link', 'Put this file on the host that serves this page', upload);
    uploadBtn.id = 'share-upload';
    const progress = el('progress', 'share-progress');
    progress.id = 'share-progress';
    progress.max = 1;
    progress.value = 0;
    progress.hidden = true;
    const hostNote = el('p', 'share-note');
    hostNote.id = 'share-host-note';
    hostNote.setAttribute('role', 'status');
    const tokenSec = el('div', 'share-token');
    tokenSec.hidden = true;
    const tokenNote = el(
      'p',
      'share-note',
      'The delete token removes this replay from the host (DELETE with it as a Bearer token). It is ' +
        'shown only now and the host keeps no copy: save it if you may want the replay gone.',
    );
    const [tokenRow, token] = copyRow('share-token', 'The delete token');
    tokenSec.append(tokenNote, tokenRow);
    host.append(uploadBtn, progress, hostNote, tokenSec);
    const [oembedRow, oembed] = copyRow('share-oembed', 'The oEmbed address');
    const oembedHead = el('h4', '', 'oEmbed');
    oembedRow.hidden = oembedHead.hidden = true;
    snippets.append(oembedHead, oembedRow);

    const status = el('p', 'share-status');
    status.setAttribute('role', 'status');
    box.append(head, disk, host, viewLabel, spoilLabel, moment, clipSec, embed, status);
    dialog.append(box);
    root.body.append(dialog);

    for (const b of [view, spoilers]) b.addEventListener('change', refresh);
    // The page's keys stay out of the dialog (Space, ← / → would drive the player behind it);
    // I / O still mark the clip. Esc is the dialog's own (it closes).
    dialog.addEventListener('keydown', (e) => {
      e.stopPropagation();
      const k = e.key.toLowerCase();
      if ((k === 'i' || k === 'o') && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey) {
        clip.mark(k === 'i' ? 'in' : 'out');
        e.preventDefault();
      }
    });
    // A click on the backdrop (the dialog element itself, outside its box) closes it.
    dialog.addEventListener('click', (e) => {
      if (e.target === dialog) dialog?.close();
    });
    dialog.addEventListener('close', () => opener?.focus());
    f = {
      disk,
      view,
      spoilers,
      at,
      link,
      inAt,
      outAt,
      loop,
      clearBtn,
      clipNote,
      clipRow,
      clipLink,
      embedNote,
      snippets,
      iframe,
      script,
      element,
      status,
      host,
      uploadBtn,
      progress,
      hostNote,
      tokenSec,
      token,
      oembedHead,
      oembedRow,
      oembed,
    };
  }

  /** The host's addresses of the replay open: uploaded from here, or the host's own page's. */
  function hosted() {
    if (uploaded && player.file && uploaded.of === player.file) return uploaded.hosted;
    return player.url ? hostedPage(player.url, base(), root) : null;
  }

  /** Upload and get link: the open file to the host; its links replace the time-only ones. */
  async function upload() {
    const file = player.file;
    if (!api || !file || uploading || !f) return;
    const ctl = new AbortController();
    uploading = ctl;
    f.uploadBtn.disabled = true;
    f.progress.hidden = false;
    f.progress.value = 0;
    f.hostNote.textContent = 'Uploading…';
    try {
      const h = await uploadReplay(api, file, {
        signal: ctl.signal,
        // f: built (the upload runs from its button).
        onProgress: (sent, total) => {
          f!.progress.value = total > 0 ? sent / total : 0;
          f!.hostNote.textContent =
            sent < total ? `Uploading… ${Math.floor((100 * sent) / total)} %` : 'Checking the file on the host…';
        },
      });
      uploaded = { of: file, hosted: h };
      f.uploadBtn.hidden = true;
      f.hostNote.textContent = 'Uploaded: the links below open this replay on the host.';
      f.tokenSec.hidden = !h.deleteToken;
      f.token.value = h.deleteToken;
    } catch (e) {
      f.hostNote.textContent = (e as Error).name === 'AbortError' ? 'Upload cancelled.' : (e as Error).message;
      f.uploadBtn.disabled = false;
    } finally {
      uploading = null;
      f.progress.hidden = true;
    }
    refresh();
  }

  /** Shows Upload and get link when the host takes uploads of this file (asks its config once). */
  let offeredFor: Blob | null = null; // the file the host section was last written for
  async function offerUpload(file: Blob | null) {
    if (!f) return; // refresh() calls it once the dialog is built
    if (file !== offeredFor) {
      offeredFor = file;
      f.hostNote.textContent = '';
      f.tokenSec.hidden = true;
      f.token.value = '';
      f.uploadBtn.disabled = false;
    }
    if (!api || !file || hosted()) {
      f.host.hidden = !uploaded || uploaded.of !== file;
      return;
    }
    try {
      config ??= await hostConfig(api);
    } catch (e) {
      f.host.hidden = false;
      f.uploadBtn.hidden = true;
      f.hostNote.textContent = (e as Error).message;
      return;
    }
    f.host.hidden = !config.uploads;
    f.uploadBtn.hidden = false;
    if (!uploading) f.uploadBtn.disabled = config.tokenRequired || file.size > config.maxUploadBytes;
    if (uploading || f.hostNote.textContent) return;
    if (config.tokenRequired) f.hostNote.textContent = 'This host takes uploads only with its upload token.';
    else if (file.size > config.maxUploadBytes) {
      f.hostNote.textContent = `This file is larger than the ${Math.floor(config.maxUploadBytes / 1048576)} MiB this host takes.`;
    } else f.hostNote.textContent = 'This host can keep the file and give you a link to it.';
  }

  /** Seconds for a link: to the millisecond, on the tick the playhead shows. */
  function linkSeconds(t: number): number {
    const rate = player.info?.info.tick_rate_hz || 1;
    const tick = (s: number) => Math.floor(s * rate + 1e-6);
    let s = Math.round(t * 1000) / 1000;
    if (tick(s) > tick(t)) s = Math.floor(t * 1000) / 1000;
    else if (tick(s) < tick(t)) s = Math.ceil(t * 1000) / 1000;
    return s;
  }

  let seq = 0;
  /** Writes every link and snippet for the moment, the clip and the boxes ticked now. */
  async function refresh() {
    if (!f || !player.info) return;
    const mine = ++seq;
    const st = player.getState();
    const withView = f.view.checked;
    const pose = withView ? await player.cameraPose().catch(() => []) : [];
    if (mine !== seq) return; // a newer refresh is on its way
    const h = hosted();
    const url = h ? h.file : player.url;
    const common = {
      url: url || undefined,
      ...(withView ? { follow: st.follow ?? undefined, camera: st.camera, view: pose, speed: st.speed } : {}),
      spoilers: f.spoilers.checked ? false : undefined,
    };
    const momentOpts: LinkOptions = { ...common, t: { seconds: linkSeconds(player.currentTime) } };
    const c = player.clip;
    const clipOpts: LinkOptions | null = c && {
      ...common,
      t: { seconds: linkSeconds(c.start) },
      end: c.end === null ? undefined : { seconds: linkSeconds(c.end) },
      loop: c.loop,
    };
    const b = h ? new URL('.', h.embed).href : base();
    const link = (o: LinkOptions) =>
      h ? hostLink(h.page, linkQuery({ ...o, url: undefined })) : url ? pageLink(b, o) : timeParams(o);

    f.disk.hidden = !!url;
    f.disk.textContent = url
      ? ''
      : api
        ? 'This replay was opened from your computer: upload it to this host to get a link that ' +
          'opens it. Below is the moment alone, without a replay address.'
        : 'This replay was opened from your computer, so no link can open it: the people you send a ' +
          'link to do not have the file. Below is the moment alone, without a replay address: add it ' +
          'to a link of this replay once the file is on the web (?url=its address&t=…).';
    offerUpload(player.file);
    f.at.textContent = `(${fmtTime(player.currentTime)})`;
    f.link.value = link(momentOpts);

    f.inAt.textContent = c ? fmtTime(c.start) : '—';
    f.outAt.textContent = c ? (c.end === null ? 'the end' : fmtTime(c.end)) : '—';
    f.loop.checked = !!c?.loop;
    f.loop.disabled = f.clearBtn.disabled = !c;
    f.clipNote.textContent = c
      ? `Plays from ${fmtTime(c.start)} to ${c.end === null ? 'the end' : fmtTime(c.end)}${c.loop ? ', again and again' : ''}; drag its ends on the timeline.`
      : 'No clip yet: press I at its start and O at its end (or use In and Out), then drag its ends on the timeline.';
    f.clipRow.hidden = !c;
    f.clipLink.value = clipOpts ? link(clipOpts) : '';

    f.snippets.hidden = !url;
    f.embedNote.textContent = url
      ? `For a web page: the player at ${c ? 'the clip' : 'this moment'}, served from ${b}.`
      : 'An embed needs the replay at a web address too.';
    if (url) {
      const s = embedSnippets(b, { ...(clipOpts ?? momentOpts), url });
      f.iframe.value = s.iframe;
      f.script.value = s.script;
      f.element.value = s.element;
    }
    f.oembedHead.hidden = f.oembedRow.hidden = !h?.oembed;
    if (h?.oembed) {
      const o = new URL(h.oembed);
      o.searchParams.set('url', link(clipOpts ?? momentOpts));
      f.oembed.value = o.href;
    }
  }

  /** Copies a field's text (navigator.clipboard), or selects it for Ctrl+C where the page may not. */
  async function copy(field: Field, btn: HTMLButtonElement) {
    let copied = false;
    try {
      await navigator.clipboard.writeText(field.value);
      copied = true;
    } catch {
      field.focus();
      field.select();
    }
    // f: built (the button is in it).
    const what = btn.getAttribute('aria-label')?.replace(/^Copy /, '');
    f!.status.textContent = copied ? `Copied ${what}.` : `Selected ${what}: press Ctrl+C (⌘C) to copy it.`;
    btn.textContent = copied ? 'Copied' : 'Selected';
    setTimeout(() => {
      btn.textContent = 'Copy';
    }, 1500);
  }

  // While the dialog is open its links follow the player (the playhead, the clip, the camera).
  let last = 0;
  const follow = () => {
    if (!dialog?.open) return;
    const now = performance.now();
    if (now - last < REFRESH_MS) return;
    last = now;
    refresh();
  };
  player.on('timeupdate', follow);
  for (const ev of ['cameramode', 'selection', 'ratechange', 'seeked'] as const) {
    player.on(ev, () => dialog?.open && refresh());
  }

  function open() {
    if (!player.info) return;
    if (!dialog) build();
    // build() set both.
    f!.status.textContent = '';
    refresh();
    if (!dialog!.open) dialog!.showModal();
    f!.link.focus();
    f!.link.select();
  }

  return {
    open,
    close: () => dialog?.close(),
    /** I / O: a clip point at the playhead (features/share/clip.ts). */
    mark: (point: ClipPoint, t?: number) => clip.mark(point, t),
    get dialog() {
      return dialog;
    },
  };
}
