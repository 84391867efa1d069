// Kills announced to screen readers (the Analysis panel's "Announce kills" toggle; off by default):
// an aria-live region that says each kill the playhead crosses, at most one announcement every
// MIN_GAP_MS (kills in between are said together: "Iceman → Viper (AIM-9), and 2 more kills").
// Text only (textContent).

import type { Kill } from './event-filter.ts';

export const MIN_GAP_MS = 2000;

/** What the announcer reads of the handle: its `kill` event, `killText`. */
export interface AnnouncerPlayer {
  on(event: 'kill', fn: (k: Kill) => void): () => void;
  killText(k: Kill): string;
}

/** createAnnouncer()'s answer. */
export interface Announcer {
  readonly enabled: boolean;
  setEnabled(v: unknown): void;
  said: string[];
  dispose(): void;
}

/**
 * Announces the kills of `player` (the handle) in a live region put in `parent` (visually hidden).
 */
export function createAnnouncer(
  player: AnnouncerPlayer,
  parent: HTMLElement,
  now = () => performance.now(),
): Announcer {
  const region = document.createElement('div');
  region.className = 'sr-only';
  region.id = 'kill-announcer';
  region.setAttribute('aria-live', 'polite');
  region.setAttribute('aria-atomic', 'true');
  parent.append(region);

  let on = false;
  let lastAt = -Infinity;
  let pending: string[] = []; // kill texts waiting for the gap
  let timer = 0;
  /** Everything said (tests read it). */
  const said: string[] = [];

  function say() {
    timer = 0;
    if (!pending.length) return;
    const [first, ...rest] = pending;
    pending = [];
    const text = rest.length ? `${first}, and ${rest.length} more kill${rest.length > 1 ? 's' : ''}` : first;
    region.textContent = text;
    said.push(text);
    lastAt = now();
  }

  const off = player.on('kill', (k) => {
    if (!on) return;
    pending.push(player.killText(k));
    if (timer) return;
    const wait = lastAt + MIN_GAP_MS - now();
    if (wait <= 0) say();
    else timer = setTimeout(say, wait);
  });

  return {
    get enabled() {
      return on;
    },
    /** Turns the announcements on or off (off drops what was waiting). */
    setEnabled(v: unknown) {
      on = !!v;
      if (!on) {
        clearTimeout(timer);
        timer = 0;
        pending = [];
        region.textContent = '';
      }
    },
    said,
    dispose() {
      off();
      clearTimeout(timer);
      region.remove();
    },
  };
}
