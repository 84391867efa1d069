// The page's side of a live `.flrep` (docs/live.md "The player"): the LIVE badge, the source's
// state, and the playhead kept a fixed delay behind the live edge (a chunk plus a margin) while
// following: a pause or a seek back leaves the edge (the timeline is a DVR of what was received),
// "Go live" returns there. When the source says the match is over the badge goes and the session
// is an ordinary replay; a session that lacks part of the match (it joined late, or segments went
// unread) opens the complete recording the manifest names instead, at the same tick. Text from
// the source reaches the DOM only as text. Imports nothing of the first load (the handle and the
// stage are handed in).
//
// Two ways in: the full page (main.ts, `?live=`) calls `createLiveView`, which opens the source
// (`load({live})`: the decoder worker reads it, workers/decode/live.ts); the embed forms' UI
// (embed/mount.ts: create(), `<replay-player live>`, embed.html?live=) calls `attachLiveView` once
// a live open has answered, whoever asked for it.

/** A live source's state (the decoder's `live` news), and 'failed'. */
type LiveStatus = 'live' | 'stalled' | 'reconnecting' | 'ended' | 'failed';

/** A live open's answer (the `info` event), as this view reads it: its `live` field (none: not live). */
export interface LiveOpen {
  live?: { status: LiveStatus; chunkS?: number; pollMs?: number; file?: string | null; partial?: boolean } | null;
}

/** A live recording's news (the `live` event): a growth, or a status (a failure's `error`). */
interface LiveNews {
  status: LiveStatus;
  lastTick?: number;
  error?: string;
  file?: string | null;
  partial?: boolean;
}

/** The player's events this view listens to, and their payloads. */
interface LiveEvents {
  info: LiveOpen;
  ready: unknown;
  live: LiveNews;
  pause: unknown;
  seeking: number;
  ended: unknown;
  timeupdate: unknown;
  error: unknown;
}

/** What the live view reads and drives of the player (www/api/player.ts's handle). */
export interface LivePlayer {
  on<K extends keyof LiveEvents>(event: K, fn: (payload: LiveEvents[K]) => void): () => void;
  load(
    src: string | { live: string },
    options?: { t?: string; speed?: number; autoplay?: boolean; follow?: string },
  ): unknown;
  notice(text: string): void;
  seek(t: number): unknown;
  play(): void;
  setSpeed?(speed: number): void;
  readonly info: unknown;
  readonly currentTime: number;
  readonly duration: number;
  readonly ended: boolean;
  readonly paused: boolean;
  readonly playing: boolean;
  readonly speed: number;
  readonly tick: number;
  readonly followed: number;
  readonly url: string;
}

/** The live view: attachLiveView()'s answer (main.ts and the embed's UI keep it). */
export type LiveView = ReturnType<typeof attachLiveView>;

/** What the badge's inspect() answers: the view's state (see attachLiveView's answer). */
export interface LiveInspection {
  status: LiveStatus | 'connecting';
  following: boolean;
  delay: number;
  sessions: number;
  whole: string;
}

/** The LIVE badge (`.live-badge`) with its hook (test / inspection: `badge.inspect()`, the view's
 *  state; it stays on the badge once the view is disposed and the badge removed). */
export interface LiveBadgeElement extends HTMLElement {
  inspect(): LiveInspection;
}

/** The margin behind the newest chunk's end on top of a chunk (s); the worker's poll interval is
 *  added for segments (a chunk is seen up to one poll after it closes). */
export const MARGIN_S = 0.15;
/** Behind where it follows by more than this (s), the playhead seeks there. */
export const LAG_S = 0.25;

const CSS = `
.live-badge{position:absolute;top:14px;left:14px;z-index:3;display:flex;align-items:center;gap:8px;
padding:5px 10px;border-radius:6px;background:rgba(16,20,28,.86);border:1px solid #ff5b5b;
font:600 13px/1.2 var(--font,system-ui);color:#fff;max-width:min(70%,560px)}
.live-badge .live-word{letter-spacing:.16em;font-weight:700}
.live-badge .live-dot{width:8px;height:8px;border-radius:50%;background:#ff3b3b;flex:none}
.live-badge[data-state=behind] .live-dot,.live-badge[data-state=stalled] .live-dot,
.live-badge[data-state=reconnecting] .live-dot{background:#999}
.live-badge[data-state=failed]{border-color:#ffb35b}
.live-badge .live-note{font-weight:400;color:#d8dde6;overflow-wrap:anywhere}
.live-badge button{font:inherit;color:#fff;background:#b3261e;border:0;border-radius:4px;padding:2px 8px;cursor:pointer}
.live-badge button[hidden],.live-badge [hidden]{display:none}
`;

/** Style sheets adopted, by the document or shadow root they went to. */
const adopted = new WeakSet<Document | ShadowRoot>();

/** The badge's style sheet, once per document or shadow root (the custom element's). */
function sheet(root: Document | ShadowRoot) {
  if (adopted.has(root) || !('adoptedStyleSheets' in root)) return;
  try {
    const s = new CSSStyleSheet();
    s.replaceSync(CSS);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, s];
    adopted.add(root);
  } catch {
    /* an older browser: the badge unstyled */
  }
}

/**
 * Opens `url` live in `player` (the handle) over `stage` (the element the badge goes on).
 * Returns the view (see attachLiveView; its badge's inspect(): the tests' hook).
 */
export function createLiveView(player: LivePlayer, stage: HTMLElement, url: string): LiveView {
  const view = attachLiveView(player, stage);
  player.load({ live: url });
  return view;
}

/**
 * The live view of `player` (the handle) over `stage` (the element the badge goes on), for the live
 * open under way or, given `open` (a live open's `info` that already came), that one.
 * Returns {status, following, delay, sessions, goLive(), dispose()}.
 */
export function attachLiveView(player: LivePlayer, stage: HTMLElement, open: LiveOpen | null = null) {
  const doc = stage.ownerDocument;
  // A document or a shadow root (sheet() leaves anything else: a stage not in one).
  sheet(stage.getRootNode() as Document | ShadowRoot);
  const badge = doc.createElement('div');
  badge.className = 'live-badge';
  badge.setAttribute('role', 'status');
  const dot = doc.createElement('span');
  dot.className = 'live-dot';
  const word = doc.createElement('span');
  word.className = 'live-word';
  word.textContent = 'LIVE';
  const note = doc.createElement('span');
  note.className = 'live-note';
  const go = doc.createElement('button');
  go.type = 'button';
  go.textContent = 'Go live';
  go.title = 'Back to the live edge';
  go.hidden = true;
  badge.append(dot, word, note, go);
  badge.hidden = true;
  stage.append(badge);

  let status: LiveStatus | 'connecting' = 'connecting';
  let following = true;
  let error = '';
  /** Our own seeks and plays (not the viewer's: those leave the edge). */
  let steering = false;
  let delay = 2;
  let chunkS = 2;
  let session = 0;

  const live = () => status !== 'ended' && status !== 'failed';
  function render() {
    badge.hidden = status === 'ended';
    const state = status === 'live' ? (following ? 'live' : 'behind') : status;
    badge.dataset.state = state;
    word.textContent = status === 'failed' ? 'LIVE ENDED' : 'LIVE';
    note.textContent =
      status === 'failed'
        ? error
        : status === 'stalled'
          ? 'stalled: the source has sent nothing new'
          : status === 'reconnecting'
            ? 'reconnecting…'
            : status === 'connecting'
              ? 'connecting…'
              : following
                ? ''
                : `${Math.max(0, edge() - player.currentTime).toFixed(0)} s behind`;
    go.hidden = following || !live();
  }

  /** The live edge: the end of the newest chunk received (s of playback). */
  const edge = () => player.duration;
  /** (wall seconds − the edge) when each of the latest chunks came: their least is the source's
   *  clock as seen here (the chunk that came soonest after it closed), what the playhead follows. */
  let arrivals: number[] = [];
  const now = () => performance.now() / 1000;
  /** Where the playhead follows: a chunk and a margin behind the source's clock (not past the
   *  edge less 0.1 s). */
  const target = () => {
    const source = arrivals.length ? now() - Math.min(...arrivals) : edge();
    return Math.max(0, Math.min(source - delay, edge() - 0.1));
  };

  function steer(fn: () => void) {
    steering = true;
    try {
      fn();
    } finally {
      steering = false;
    }
  }

  /** To the edge and playing: a seek forward when the playhead is more than LAG_S behind where
   *  it follows (a start that took time, a clock that waited for frames); never back (ahead is
   *  less margin: a chunk late makes the clock wait for it, which gives the margin back). */
  function follow(force = false) {
    if (!following || !player.info) return;
    const to = target();
    const lag = to - player.currentTime;
    steer(() => {
      if (force || lag > LAG_S || player.ended) player.seek(to);
      if (player.paused && live()) player.play();
    });
  }

  function goLive() {
    following = true;
    if (player.speed !== 1) steer(() => player.setSpeed?.(1));
    follow(true);
    render();
  }
  go.addEventListener('click', goLive);

  /**
   * The match is over and the manifest names its complete recording: a session that lacks part of
   * it (joined late, segments unread) opens that file instead, at the same tick, playing on if it
   * played, following what it followed (docs/live.md "The player"). Once.
   */
  let whole = '';
  function openWhole(file: unknown, partial: boolean | undefined) {
    if (whole || !file || !partial || typeof file !== 'string') return;
    whole = file;
    const o: { t: string; speed: number; autoplay: boolean; follow?: string } = {
      t: `tick:${player.tick}`,
      speed: player.speed,
      autoplay: player.playing,
    };
    if (player.followed >= 0) o.follow = String(player.followed);
    queueMicrotask(() => {
      // (Once it is open: a new recording's loadstart clears the page's notices.)
      Promise.resolve(player.load(file, o)).then(() => {
        if (player.url === file)
          player.notice('The match is over: its whole recording is open, from its start, at the same moment.');
      });
    });
  }

  function onInfo(open: LiveOpen) {
    session++;
    arrivals = [];
    // Another recording opened since: the live view goes.
    if (!open.live) return view.dispose();
    status = open.live.status;
    if (status === 'ended') openWhole(open.live.file, open.live.partial);
    chunkS = open.live.chunkS || chunkS;
    delay = chunkS + MARGIN_S + (open.live.pollMs ?? 0) / 1000;
    if (status === 'ended') following = false;
    render();
    if (following) steer(() => player.seek(target()));
  }

  const off = [
    player.on('info', onInfo),
    player.on('ready', () => {
      if (live()) follow();
      render();
    }),
    player.on('live', (m) => {
      if (m.lastTick !== undefined) arrivals = [...arrivals.slice(-19), now() - edge()];
      if (m.status === 'failed') error = `the live source failed: ${m.error}`;
      const was = status;
      status = m.status;
      if (status === 'ended' && was !== 'ended') following = false;
      if (status === 'ended') openWhole(m.file, m.partial);
      if (m.lastTick !== undefined) follow();
      render();
    }),
    // The viewer's own pause or seek leaves the edge; reaching the edge again follows it.
    player.on('pause', () => {
      if (steering || !live() || player.ended) return;
      following = false;
      render();
    }),
    player.on('seeking', (t) => {
      if (steering || !live()) return;
      following = t >= target() - 0.05 && !player.paused;
      render();
    }),
    player.on('ended', () => {
      if (!live()) return;
      following = true;
      render();
    }),
    player.on('timeupdate', () => {
      if (!following && live()) render();
    }),
    // The open failed (the page's error box says why): no badge.
    player.on('error', () => {
      if (status !== 'connecting') return;
      status = 'failed';
      render();
      badge.hidden = true;
    }),
  ];

  // The page's clock can fall behind the source's (frames slower than 4 a second count at most
  // 0.25 s each; a clock that waited for frames): looked at four times a second.
  const timer = setInterval(() => {
    if (following && live() && !player.paused) follow();
  }, 250);

  render();
  badge.hidden = false;

  const view = {
    get status() {
      return status;
    },
    get following() {
      return following;
    },
    get delay() {
      return delay;
    },
    get sessions() {
      return session;
    },
    /** The complete recording opened at the end ('' when none was). */
    get whole() {
      return whole;
    },
    goLive,
    dispose() {
      clearInterval(timer);
      for (const f of off) f();
      badge.remove();
      disposed = true;
    },
    get disposed() {
      return disposed;
    },
  };
  let disposed = false;
  // Test / inspection: .live-badge's inspect() (computed on call).
  const inspect = (): LiveInspection => ({ status, following, delay, sessions: session, whole });
  Object.defineProperty(badge, 'inspect', { value: inspect satisfies LiveBadgeElement['inspect'], configurable: true });
  // Attached after the open answered (the embed forms): its answer now, then the edge.
  if (open) {
    onInfo(open);
    if (!disposed && player.info) follow();
  }
  return view;
}
