// The Export dialog of the full page (the top bar's Export button; docs/export.md "In the player"):
// the range (the whole recording, or the in / out selection: the player's clip, from I / O, the
// Share dialog or a link), then one item per way out: ACMI for Tacview, a replay clip, and the
// items other modules add (Video…: see `items` below). The running export shows its progress bar
// and a Cancel button; what it produces is downloaded under a name from the recording's.
// Loaded on first use (www/features/export/open.ts, a root module, imports it and hands in the items); it imports
// nothing of the first load but widgets/format.ts. A modal <dialog> with the Share dialog's styles.
import type { Controller } from '../../api/controller.ts';
import { el, fmtTime } from '../../widgets/format.ts';

/**
 * An item of the dialog: `{id, label, title, run(ctx)}` where `run` does the export and resolves
 * when it is done (or rejects; an AbortError when cancelled). `ctx`:
 *   player   the handle
 *   src      what the player opened (a File / Blob, or a URL string)
 *   name     the recording's file name without its extension
 *   range    `{from, to}` seconds from the start (inclusive; null: that end of the recording)
 *   signal   an AbortSignal: Cancel (or closing the dialog) aborts it
 *   progress(fraction, text)   the progress bar and its words
 *   download(blob, fileName)   hands the result to the browser as a download
 * A module that adds a way out (the WebM video) appends its item to the list www/features/export/open.ts passes.
 * An item with `handOff()` in place of `run` has a dialog of its own: the click closes this one
 * and calls it (Video…: www/features/export/video.ts's dialog, its range, rate and size).
 */
export interface ExportItem {
  id: string;
  label: string;
  title?: string;
  run?: (ctx: ExportContext) => Promise<unknown>;
  handOff?: () => unknown;
}

/** What the Export dialog reads of the player (www/api/player.ts's handle: types/player.d.ts). */
export type ExportPlayer = Pick<Controller, 'clip'>;

/** The range of an export: seconds from the start (inclusive; null: that end of the recording). */
export interface ExportRange {
  from: number | null;
  to: number | null;
}

/** An item's `ctx` (above). */
export interface ExportContext {
  player: ExportPlayer;
  src: unknown;
  name: string;
  range: ExportRange;
  signal: AbortSignal;
  progress: (fraction: number, text?: string) => void;
  download: (blob: Blob, fileName: string) => void;
}

/** The Export dialog: createExport()'s answer (www/features/export/open.ts keeps it). */
export type ExportDialog = ReturnType<typeof createExport>;

/** What #export's inspect() answers: the last export's item, status words, file name and size,
 *  what it reported of itself (`detail`: a worker export's {workers, ms, reads, bytesRead}); whether
 *  one runs; whether the dialog is open. */
export interface ExportInspection {
  item: string;
  status: string;
  fileName: string;
  bytes: number;
  detail: unknown;
  running: boolean;
  open: boolean;
}

/** The dialog (`dialog#export`) with its hook (test / inspection: `dialog.inspect()`). */
export interface ExportElement extends HTMLDialogElement {
  inspect(): ExportInspection;
}

/** The Export dialog over `player` with `items`; `opener` gets the focus back on close. */
export function createExport(
  player: ExportPlayer,
  { opener, items, root = document }: { opener?: HTMLElement | null; items: ExportItem[]; root?: Document },
) {
  let src: unknown = null;
  let running: { ctl: AbortController } | null = null; // while an export runs
  const last = { status: '', item: '', fileName: '', bytes: 0, detail: null as unknown };

  const dialog = el('dialog', 'share export');
  dialog.id = 'export';
  dialog.setAttribute('aria-labelledby', 'export-title');
  const box = el('div', 'share-box');
  const head = el('div', 'share-head');
  const title = el('h2', '', 'Export');
  title.id = 'export-title';
  const close = el('button', 'btn', 'Close');
  close.type = 'button';
  close.title = 'Close (Esc); a running export is cancelled';
  close.addEventListener('click', () => dialog.close());
  head.append(title, close);

  const radio = (value: string, text: string): [HTMLLabelElement, HTMLInputElement] => {
    const label = el('label', 'share-check');
    const r = el('input');
    r.type = 'radio';
    r.name = 'export-range';
    r.value = value;
    r.id = `export-range-${value}`;
    label.append(r, ` ${text}`);
    return [label, r];
  };
  const [wholeLabel, whole] = radio('whole', 'The whole recording');
  const [clipLabel, clipped] = radio('clip', 'The in / out selection');
  const clipAt = el('span', 'share-at');
  clipLabel.append(' ', clipAt);
  const rangeNote = el('p', 'share-note');

  const list = el('div', 'share-points export-items');
  for (const item of items) {
    const b = el('button', 'btn', item.label);
    b.type = 'button';
    b.dataset.export = item.id;
    if (item.title) b.title = item.title;
    b.addEventListener('click', () => start(item));
    list.append(b);
  }

  const bar = el('progress', 'export-progress');
  bar.max = 1;
  bar.value = 0;
  bar.hidden = true;
  bar.style.width = '100%';
  const cancel = el('button', 'btn', 'Cancel');
  cancel.type = 'button';
  cancel.id = 'export-cancel';
  cancel.hidden = true;
  cancel.addEventListener('click', () => running?.ctl.abort());
  const status = el('p', 'share-status');
  status.id = 'export-status';
  status.setAttribute('role', 'status');

  box.append(
    head,
    el('h3', '', 'Range'),
    wholeLabel,
    clipLabel,
    rangeNote,
    el('h3', '', 'Export as'),
    list,
    bar,
    cancel,
    status,
  );
  dialog.append(box);
  dialog.addEventListener('close', () => {
    running?.ctl.abort();
    opener?.focus();
  });
  root.body.append(dialog);

  function say(text: string) {
    status.textContent = text;
    last.status = text;
  }

  /** The selection's ends in seconds, or null when there is none. */
  function selection(): { from: number; to: number | null } | null {
    const c = player.clip;
    return c ? { from: c.start, to: c.end ?? null } : null;
  }

  function refresh() {
    const sel = selection();
    clipped.disabled = !sel;
    if (!sel) whole.checked = true;
    else if (!whole.checked && !clipped.checked) clipped.checked = true;
    clipAt.textContent = sel ? `${fmtTime(sel.from)} – ${sel.to === null ? 'the end' : fmtTime(sel.to)}` : '(none)';
    rangeNote.textContent = sel
      ? ''
      : 'No in / out selection: set one with I and O (or in Share) to export a part of the recording.';
    for (const b of list.querySelectorAll('button')) b.disabled = !!running;
  }

  function baseName() {
    const n = src instanceof Blob ? (src as Blob & { name?: string }).name || 'replay' : String(src ?? 'replay');
    const file = n.slice(n.lastIndexOf('/') + 1).split(/[?#]/)[0] || 'replay';
    return file.replace(/\.(flrep|replay|foldback)$/i, '') || 'replay';
  }

  function download(blob: Blob, fileName: string) {
    const url = URL.createObjectURL(blob);
    const a = el('a');
    a.href = url;
    a.download = fileName;
    a.hidden = true;
    root.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    last.fileName = fileName;
    last.bytes = blob.size;
  }

  async function start(item: ExportItem) {
    if (running) return;
    if (item.handOff) {
      dialog.close();
      item.handOff();
      return;
    }
    const ctl = new AbortController();
    running = { ctl };
    // selection() twice: the same answer (ExportRange: not null).
    const range = (clipped.checked && selection() ? selection() : { from: null, to: null }) as ExportRange;
    last.item = item.id;
    last.fileName = '';
    bar.hidden = cancel.hidden = false;
    bar.value = 0;
    refresh();
    say(`${item.label}: starting…`);
    try {
      last.detail = null;
      // What the export reports of itself (a worker export: {workers, ms, reads, bytesRead}).
      // An item without handOff() runs (item.run!).
      last.detail =
        (await item.run!({
          player,
          src,
          name: baseName(),
          range,
          signal: ctl.signal,
          progress: (f: number, text?: string) => {
            bar.value = Math.max(0, Math.min(1, f));
            if (text) say(text);
          },
          download,
        })) ?? null;
      bar.value = 1;
      say(last.fileName ? `Saved ${last.fileName} (${last.bytes.toLocaleString('en')} bytes).` : 'Done.');
    } catch (e) {
      say(
        ctl.signal.aborted || (e as Error | null)?.name === 'AbortError'
          ? 'Cancelled.'
          : `Export failed: ${(e as Error | null)?.message ?? e}`,
      );
    } finally {
      running = null;
      cancel.hidden = true;
      refresh();
    }
  }

  // Test / inspection: #export's inspect() (computed on call).
  const inspect = (): ExportInspection => ({ ...last, running: !!running, open: dialog.open });
  Object.defineProperty(dialog, 'inspect', { value: inspect satisfies ExportElement['inspect'], configurable: true });

  return {
    /** Opens the dialog for the recording `source` (what the player opened). */
    open(source: unknown) {
      if (source !== src && !running) src = source;
      refresh();
      if (!dialog.open) dialog.showModal();
    },
    close: () => dialog.close(),
    dialog,
  };
}
