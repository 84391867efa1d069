// The keyboard shortcuts as the help overlay (?) lists them; www/widgets/keyboard.ts binds them (keep
// the two in step) and docs/playback.md "Keys" lists them too. main.ts imports this module when the
// overlay first opens: the first load does not carry the table.
import { el } from '../widgets/format.ts';

/** [keys, what] for the help overlay, in groups. */
export const KEYS: [group: string, rows: [keys: string, what: string][]][] = [
  [
    'Playback',
    [
      ['Space', 'Play / pause'],
      ['J', 'Play backwards (again: faster)'],
      ['K', 'Pause'],
      ['L', 'Play forwards (again: faster, up to 16×)'],
      ['X', 'Stop (back to the start)'],
      ['← / →', 'Back / forward 5 s (Shift 1 s, Alt 30 s)'],
      [', / .', 'One tick back / forward'],
      ['Home / End', 'Start / end'],
      ['I / O', 'Clip: in / out point at the playhead'],
    ],
  ],
  [
    'Kills',
    [
      ['[ / ]', 'Previous / next kill (from 2 s before)'],
      ['C', 'Kill cam on the nearest kill'],
      ['N / Shift+N', 'Next / previous event matching the Analysis filter'],
      ['Esc', 'End the kill cam / clear the selection'],
    ],
  ],
  [
    'Camera',
    [
      ['1', 'Orbit (overview)'],
      ['2', 'Free camera'],
      ['3', 'Follow the selected entity'],
      ['4', 'First person'],
      ['5', 'Kill cam'],
      ['W A S D', 'Free camera: fly forward / left / back / right'],
      ['Q / E', 'Free camera: down / up (Shift: faster)'],
      ['Drag · wheel', 'Orbit or look around · zoom'],
      ['Shift+click', 'Range and bearing from the selection to an entity'],
      ['?', 'This help'],
    ],
  ],
];

/** Fills `root` (the overlay's #help-keys) with KEYS, as text. */
export function renderKeys(root: HTMLElement): void {
  for (const [group, rows] of KEYS) {
    const sec = el('section', 'help-group');
    sec.append(el('h3', '', group));
    const dl = el('dl', 'help-list');
    for (const [k, what] of rows) dl.append(el('dt', '', k), el('dd', '', what));
    sec.append(dl);
    root.append(sec);
  }
}
