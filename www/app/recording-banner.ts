// A line over the stage about the recording itself, where a viewer sees it: a file cut short
// (no index trailer: "the recording was cut short") and, while the worker scans such a file for
// its kills in the background (docs/worker-protocol.md `scan`), how far it got and how many it
// found. Text only (a warning is the reader's, a file's name is the file's).
import { el, fmtTime } from '../widgets/format.ts';
import type { Controller } from '../api/controller.ts';

/** A reader's warning that says the file was cut (crate/src/format/flrep/open.rs). */
const CUT = /cut short|no index trailer/i;

/** What the banner reads of an open's answer (the `info` event's payload): the reader's warnings. */
interface OpenWarnings {
  info?: { warnings?: readonly string[] };
}

/** The banner's test / inspection hook, its box's own (`.rec-banner`'s inspect()). */
export interface RecordingBanner {
  inspect(): { hidden: boolean; text: string | null };
}

/** The banner's box with its hook (test / inspection: `box.inspect()`, shown or not and its text). */
export interface BannerElement extends HTMLElement, RecordingBanner {}

/** The note for `player`'s recordings on `stage`; `open`: the open's answer it is made for (later
 *  ones arrive as `info` events). */
export function createRecordingBanner(
  player: Controller,
  stage: HTMLElement,
  open: OpenWarnings | null = null,
): RecordingBanner {
  const box = el('div', 'rec-banner');
  box.setAttribute('role', 'status');
  box.hidden = true;
  const text = el('span', 'rec-banner-text');
  const close = el('button', 'rec-banner-close', '×');
  close.type = 'button';
  close.title = 'Hide';
  close.setAttribute('aria-label', 'Hide this note');
  box.append(text, close);
  stage.append(box);

  let cut = '';
  let dismissed = false;
  function render() {
    const s = player.scan;
    let line = cut || (s ? 'This recording has no index of its kills.' : '');
    if (s && !s.complete) {
      const pct = s.total > 0 ? Math.floor((100 * s.done) / s.total) : 0;
      line += ` Finding its kills… ${pct} % (${s.kills.toLocaleString('en')} so far).`;
    } else if (s?.complete) {
      line += ` ${s.kills.toLocaleString('en')} kill${s.kills === 1 ? '' : 's'} found in what remains.`;
    }
    text.textContent = line;
    box.hidden = dismissed || !line;
  }

  close.addEventListener('click', () => {
    dismissed = true;
    render();
  });
  player.on('loadstart', () => {
    cut = '';
    dismissed = false;
    render();
  });
  function opened(o: OpenWarnings | null) {
    const warnings = o?.info?.warnings ?? [];
    cut = warnings.some((w) => CUT.test(w))
      ? `This recording was cut short: it ends at ${fmtTime(player.duration)}, and it has no index.`
      : '';
    render();
  }
  player.on('info', opened);
  player.on('scan', render);
  opened(open);
  const banner: RecordingBanner = { inspect: () => ({ hidden: box.hidden, text: text.textContent }) };
  // Test / inspection: .rec-banner's inspect() (computed on call).
  Object.defineProperty(box, 'inspect', {
    value: banner.inspect satisfies BannerElement['inspect'],
    configurable: true,
  });
  return banner;
}
