// What the view looks at: the selected and followed entities, the renderer's camera modes, the free
// camera's flight and the kill cam (docs/playback.md, "Kill cam" and "Camera modes"). The clock's
// side of the kill cam is core/clock.ts's; this drives the renderer's.
import type { CameraMode, FlyKeys, KillEvent, PlayerEventMap } from '../lib/types.ts';
import { KILLCAM_REWIND } from './clock.ts';
import type { KillCam } from './clock.ts';
import { NO_ENTITY } from './entities.ts';

/** What a kill cam keeps to restore when it ends: the camera mode, the followed and selected entity. */
export interface KillCamRestore {
  mode: string;
  follow: number;
  selected: number;
}

/** The free camera's held keys (−1, 0, 1 each way) and whether it flies fast. */
interface FlyState {
  forward: number;
  right: number;
  up: number;
  fast: boolean;
}

/** The renderer's camera calls the camera makes (bridge/renderer.ts AnyRenderer has them). */
export interface CameraRenderer {
  cameraMode(): string;
  setSelected(id: number): void;
  follow(id: number): void;
  setCameraMode(mode: string): void;
  killCam(killer: number, victim: number): void;
  fly(forward: number, right: number, up: number): void;
}

/** The clock's kill cam as the camera reads and drives it (core/clock.ts Playback). */
export interface CameraClock {
  readonly killCam: KillCam<KillCamRestore> | null;
  endKillCam(): void;
  startKillCam(killTime: number, opts: { rewind: number; data: KillCamRestore }): unknown;
}

/** What afterChange() compares (core.ts Snap): the camera reads and clears its kill cam. */
export interface CameraSnap {
  kc: KillCam<KillCamRestore> | null;
}

/** What the camera uses of the player (core.ts's Core): the renderer, the clock and its commands,
 *  the open recording's participants, the scene, the frame loop and the events it emits. */
export interface CameraHost {
  /** The renderer once it has started, else null. */
  readonly renderer: CameraRenderer | null;
  readonly pb: CameraClock;
  /** The open's answer, once it came (the participants "follow"/"first" fall back to). */
  readonly info: { readonly info: { readonly participants: readonly { readonly entity: number }[] } } | null;
  readonly stage: { fitCamera(): void };
  readonly ledger: { killTime(k: Pick<KillEvent, 'tick'>): number };
  readonly loop: { restartClock(): void; wake(): void };
  /** Diagonal of the current frame in metres (the free camera's speed). */
  readonly sceneExtentM: number;
  nearestKill(): KillEvent | null;
  snap(): CameraSnap;
  afterChange(before: CameraSnap): void;
  cmd(fn: (pb: CameraClock) => unknown): unknown;
  jumped(): unknown;
  emit<K extends keyof PlayerEventMap>(ev: K, detail?: PlayerEventMap[K]): void;
}

export class Camera {
  #p: CameraHost;
  #fly: FlyState;
  /** The selected entity (the inspector's), or -1. */
  selected: number;
  /** The followed entity, or -1. */
  followId: number;
  /** The kill the kill cam is on, or null. */
  killCamKill: KillEvent | null;
  /** Seconds a kill cam starts before its kill. */
  killCamRewind: number;

  constructor(player: CameraHost) {
    this.#p = player;
    this.selected = -1;
    this.followId = -1;
    this.killCamKill = null;
    this.killCamRewind = KILLCAM_REWIND;
    /** Free camera keys held (keyboard.ts). */
    this.#fly = { forward: 0, right: 0, up: 0, fast: false };
  }

  /** A new replay: nothing selected or followed. */
  reset(): void {
    this.selected = -1;
    this.followId = -1;
  }

  /** Whether a free-camera key is held (the loop does not rest while one is). */
  get flying(): boolean {
    const k = this.#fly;
    return !!(k.forward || k.right || k.up);
  }

  /** The renderer's camera mode ('orbit' before there is a renderer). */
  mode(): CameraMode {
    const r = this.#p.renderer;
    // The renderer's mode names are the shell's (docs/renderer.md "Cameras").
    return r ? (r.cameraMode() as CameraMode) : 'orbit';
  }

  select(id: number, { follow = false }: { follow?: boolean } = {}): void {
    const p = this.#p;
    this.selected = id >= 0 ? id : -1;
    if (p.renderer) {
      p.renderer.setSelected(this.selected);
      if (follow) {
        this.followId = this.selected;
        p.renderer.follow(this.selected);
      }
    }
    p.emit('selection', this.selected);
    if (follow) p.emit('cameramode', this.mode());
  }

  /**
   * Camera mode: "orbit", "free", "follow", "first" or "kill". "kill" runs the kill cam on the
   * nearest kill; another mode during a kill cam ends it (playback goes on at 1×).
   * "follow"/"first" with nothing followed follow the selected entity or the first participant.
   */
  setMode(mode: CameraMode): void {
    const p = this.#p;
    if (!p.renderer) return;
    if (mode === 'kill') {
      if (!this.startKillCam()) p.emit('cameramode', this.mode());
      return;
    }
    if (p.pb.killCam) {
      const before = p.snap();
      p.pb.endKillCam();
      this.killCamKill = null;
      p.afterChange({ ...before, kc: null });
      p.emit('killcam', { active: false, holding: false, kill: null });
    }
    try {
      if ((mode === 'follow' || mode === 'first') && this.followId < 0) {
        const id =
          this.selected >= 0
            ? this.selected
            : (p.info?.info.participants.find((x) => x.entity !== NO_ENTITY)?.entity ?? -1);
        if (id >= 0) this.select(id, { follow: true });
      }
      p.renderer.setCameraMode(mode);
    } catch (e) {
      console.warn(e);
    }
    p.emit('cameramode', this.mode());
  }

  /** Back to the orbit camera's fitted view, following nothing (ends a kill cam). */
  resetView(): void {
    const p = this.#p;
    if (!p.renderer) return;
    if (p.pb.killCam) this.setMode('orbit');
    this.followId = -1;
    p.renderer.follow(-1);
    p.stage.fitCamera();
    p.emit('cameramode', this.mode());
  }

  /**
   * Kill cam on `kill` (default: the nearest): seeks `rewind` seconds before it (default
   * `killCamRewind`), plays at 0.5× with the renderer's kill camera (killer → victim, following the
   * victim), pauses exactly on the kill's tick, holds there briefly, then restores the camera mode
   * it started from at 1×. Returns the kill, or null when there is none.
   */
  startKillCam(
    kill: KillEvent | null = this.#p.nearestKill(),
    { rewind = this.killCamRewind }: { rewind?: number } = {},
  ): KillEvent | null {
    const p = this.#p;
    if (!p.info || !kill) return null;
    const r = p.renderer;
    const restore: KillCamRestore = p.pb.killCam?.data ?? {
      mode: this.mode() === 'kill' ? 'orbit' : this.mode(),
      follow: this.followId,
      selected: this.selected,
    };
    const t = p.ledger.killTime(kill);
    this.killCamKill = kill;
    p.loop.restartClock();
    p.cmd((pb) => pb.startKillCam(t, { rewind, data: restore }));
    try {
      r?.setSelected(kill.victim);
      r?.follow(kill.victim);
      r?.killCam(kill.killer, kill.victim);
    } catch (e) {
      console.warn(e);
    }
    p.jumped();
    p.emit('killcam', { active: true, holding: false, kill });
    p.emit('cameramode', this.mode());
    return kill;
  }

  /** The clock ended kill cam `kc`: the camera it started from comes back. */
  killCamEnded(kc: KillCam<KillCamRestore>): void {
    const p = this.#p;
    const d: Partial<KillCamRestore> = kc.data ?? {};
    const r = p.renderer;
    this.killCamKill = null;
    if (r) {
      try {
        r.setSelected(d.selected ?? -1);
        r.follow(d.follow ?? -1);
        r.setCameraMode(d.mode ?? 'orbit');
      } catch (e) {
        console.warn(e);
      }
    }
    p.emit('killcam', { active: false, holding: false, kill: null });
    p.emit('cameramode', this.mode());
  }

  /** Free camera: WASD/QE held keys (set by the keyboard module) fly it, scaled by dt and the scene. */
  setFlyKeys(k: FlyKeys): void {
    this.#fly = { ...this.#fly, ...k };
    this.#p.loop.wake();
  }

  /** One frame of free-camera flight (`dt` seconds). */
  flyStep(dt: number): void {
    const k = this.#fly;
    const r = this.#p.renderer;
    if (!dt || !(k.forward || k.right || k.up) || !r) return;
    if (r.cameraMode() !== 'free') return;
    const base = Math.min(3000, Math.max(4, this.#p.sceneExtentM * 0.12));
    const v = base * (k.fast ? 4 : 1) * dt;
    r.fly(k.forward * v, k.right * v, k.up * v);
  }
}
