// Keyboard shortcuts (the list the help overlay shows is www/app/keys.ts's KEYS: keep it in step):
// Space play/pause · J/K/L reverse/pause/forward (again = faster) · X stop · ←/→ 5 s (Shift 1 s,
// Alt 30 s) · , . one tick · [ ] previous/next kill · Home/End · C kill cam on the nearest kill ·
// 1–5 camera (orbit, free, follow, first person, kill cam) · WASD/QE fly the free camera (Shift
// faster) · I / O a clip's in / out point · N / Shift+N the next / previous matching event (the
// Analysis panel's filter) · Esc clears the selection / ends the kill cam · ? this help.
import { nextSpeed } from '../core/clock.ts';
import { SEEK_STEP_S } from '../api/constants.ts';

/** A camera mode (the renderer's names). */
type CameraMode = 'orbit' | 'free' | 'follow' | 'first' | 'kill';
type Axis = 'forward' | 'right' | 'up';

/** The free camera's held keys, as setFlyKeys() takes them (each axis -1, 0 or 1). */
export interface FlyKeys {
  forward?: number;
  right?: number;
  up?: number;
  fast?: boolean;
}

/** What the shortcuts ask of the player (the handle, www/api/player.ts). */
export interface KeyboardPlayer {
  readonly info: unknown;
  readonly currentTime: number;
  readonly duration: number;
  readonly speed: number;
  readonly playbackState: string;
  readonly killCamActive: boolean;
  play(): void;
  pause(): void;
  toggle(): void;
  stop(): unknown;
  rewind(): void;
  fastForward(speed?: number): void;
  seek(t: number): unknown;
  step(n: number): unknown;
  setSpeed(speed: number): void;
  prefetch(t: number): void;
  killStart(dir: -1 | 1): number | null;
  select(id: number): void;
  cameraMode(): string;
  setCameraMode(mode: CameraMode): void;
  setFlyKeys(keys: FlyKeys): void;
  startKillCam(): unknown;
  stopKillCam(): void;
}

/** The events the shortcuts listen to. */
type KeyEvents = Pick<GlobalEventHandlersEventMap, 'pointerdown' | 'focusin' | 'keydown' | 'keyup'>;
/** Where keys are listened for: the document, or the player's element (only while it has focus). */
export interface KeyTarget {
  addEventListener<K extends keyof KeyEvents>(type: K, fn: (e: KeyEvents[K]) => void, capture?: boolean): void;
  removeEventListener<K extends keyof KeyEvents>(type: K, fn: (e: KeyEvents[K]) => void, capture?: boolean): void;
}

/** bindKeyboard()'s callbacks: `?`, Escape (true: it was handled), I / O and N / Shift+N. */
export interface KeyboardOptions {
  onHelp?: () => void;
  onEscape?: () => boolean;
  onClip?: (point: 'in' | 'out') => void;
  onMatch?: ((dir: 1 | -1) => void) | null;
}

const FLY: Record<string, [Axis, number]> = {
  w: ['forward', 1],
  s: ['forward', -1],
  d: ['right', 1],
  a: ['right', -1],
  e: ['up', 1],
  q: ['up', -1],
};
const CAMERA_KEYS: Record<string, CameraMode> = { 1: 'orbit', 2: 'free', 3: 'follow', 4: 'first', 5: 'kill' };
// Inputs that are not text fields: they take Space / Enter (and a range its arrows), not letters.
const PRESSABLE = new Set(['button', 'submit', 'reset', 'checkbox', 'radio', 'file', 'image', 'color', 'range']);
// The keys a select or a range input moves its own value with.
const OWN_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/** A field that takes typed text: every key is its own. */
function isTextField(t: EventTarget | null) {
  if (t instanceof HTMLTextAreaElement || (t as HTMLElement | null)?.isContentEditable) return true;
  return t instanceof HTMLInputElement && !PRESSABLE.has(t.type);
}

export function bindKeyboard(
  player: KeyboardPlayer,
  target: KeyTarget = document,
  { onHelp = () => {}, onEscape = () => false, onClip = () => {}, onMatch = null }: KeyboardOptions = {},
): () => void {
  const held = new Set<string>();
  const applyFly = (fast: boolean) => {
    const v = { forward: 0, right: 0, up: 0 };
    for (const k of held) {
      const [axis, sign] = FLY[k];
      v[axis] += sign;
    }
    player.setFlyKeys({ ...v, fast });
  };

  // The control that a pointer press focused (a clicked kill row, roster row, the Open button):
  // Space on it plays / pauses instead of pressing it again. Focus moved by the keyboard (Tab)
  // leaves it pressable with Space and Enter, as any button.
  let pressing = false;
  let pointerFocus: EventTarget | null = null;
  const onPointerDown = () => {
    pressing = true;
  };
  const onFocusIn = (e: FocusEvent) => {
    pointerFocus = pressing ? e.target : null;
  };
  // (In the capture phase: before a list's own key handler moves the focus.)
  const onKeyFirst = () => {
    pressing = false;
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (isTextField(t)) return;
    const isSelect = t instanceof HTMLSelectElement;
    // A select or a range keeps the keys that change its value (and Space, when keyboard-focused).
    if ((isSelect || (t instanceof HTMLInputElement && t.type === 'range')) && OWN_KEYS.has(e.key)) return;
    if (isSelect && (e.key === 'Enter' || (e.key === ' ' && t !== pointerFocus))) return;
    if (e.key === '?') {
      onHelp();
      e.preventDefault();
      return;
    }
    if (e.key === 'Escape') {
      if (onEscape()) {
        e.preventDefault();
        return;
      }
      if (player.killCamActive) player.stopKillCam();
      else player.select(-1);
      return;
    }
    if (!player.info) return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    // Free camera: WASD/QE while it is active (held keys; the player moves it every frame).
    if (FLY[key] && !e.altKey && player.cameraMode() === 'free') {
      held.add(key);
      applyFly(e.shiftKey);
      e.preventDefault();
      return;
    }
    const step = e.shiftKey ? 1 : e.altKey ? 30 : SEEK_STEP_S;
    let handled = true;
    switch (key) {
      case ' ':
      case 'Spacebar':
        // A keyboard-focused control presses with Space; the play button is play / pause anyway.
        if (
          (t instanceof HTMLButtonElement || t instanceof HTMLInputElement) &&
          t.id !== 'play' &&
          t !== pointerFocus
        ) {
          handled = false;
          break;
        }
        player.toggle();
        break;
      case 'ArrowLeft':
        seekAndHint(player.currentTime - step, () => Math.max(0, player.currentTime - step));
        break;
      case 'ArrowRight':
        seekAndHint(player.currentTime + step, () => Math.min(player.duration, player.currentTime + step));
        break;
      case ',':
      case '<':
        player.step(-1);
        break;
      case '.':
      case '>':
        player.step(1);
        break;
      case '[':
      case ']': {
        const dir = key === ']' ? 1 : -1;
        const to = player.killStart(dir);
        if (to !== null) seekAndHint(to, () => player.killStart(dir));
        break;
      }
      case 'Home':
        player.seek(0);
        break;
      case 'End':
        player.seek(player.duration);
        break;
      case 'j':
        if (player.playbackState === 'Rewinding') player.setSpeed(nextSpeed(player.speed));
        else {
          player.setSpeed(1);
          player.rewind();
        }
        break;
      case 'k':
        player.pause();
        break;
      case 'l': {
        const st = player.playbackState;
        if (st === 'Playing' || st === 'FastForward') player.fastForward(nextSpeed(player.speed));
        else {
          player.setSpeed(1);
          player.play();
        }
        break;
      }
      case 'x':
        player.stop();
        break;
      case 'c':
        player.startKillCam();
        break;
      case 'n':
        // The next / previous event the Analysis panel's filter matches (Shift: previous).
        if (onMatch && !e.altKey) onMatch(e.shiftKey ? -1 : 1);
        else handled = false;
        break;
      case 'i':
      case 'o':
        if (e.shiftKey || e.altKey) handled = false;
        else onClip(key === 'i' ? 'in' : 'out');
        break;
      default:
        if (CAMERA_KEYS[key] && !e.shiftKey && !e.altKey) player.setCameraMode(CAMERA_KEYS[key]);
        else handled = false;
    }
    if (handled) e.preventDefault();
  };

  const onKeyUp = (e: KeyboardEvent) => {
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (key === 'Shift' && held.size) applyFly(false);
    if (!held.has(key)) return;
    held.delete(key);
    applyFly(e.shiftKey);
  };
  const release = () => {
    held.clear();
    player.setFlyKeys({ forward: 0, right: 0, up: 0, fast: false });
  };

  /**
   * Seeks to `t`; once there, hints the worker with where the same key would go next (`again()`):
   * stepping through kills or seconds is a key pressed again and again, and the hinted seek
   * neither reads nor decompresses (player.prefetch). A held key repeats faster than the hint's
   * delay, so only where it stops is hinted.
   */
  function seekAndHint(t: number, again: () => number | null) {
    Promise.resolve(player.seek(t)).then(() => {
      const next = again();
      if (next !== null && Number.isFinite(next) && Math.abs(next - player.currentTime) > 1e-3) player.prefetch(next);
    });
  }

  target.addEventListener('pointerdown', onPointerDown, true);
  target.addEventListener('focusin', onFocusIn, true);
  target.addEventListener('keydown', onKeyFirst, true);
  target.addEventListener('keydown', onKey);
  target.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', release);
  return () => {
    target.removeEventListener('pointerdown', onPointerDown, true);
    target.removeEventListener('focusin', onFocusIn, true);
    target.removeEventListener('keydown', onKeyFirst, true);
    target.removeEventListener('keydown', onKey);
    target.removeEventListener('keyup', onKeyUp);
    window.removeEventListener('blur', release);
  };
}
