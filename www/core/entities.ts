// Entities as the page knows them: the packed frame's words (16 i32 per entity, sorted by id, in
// the file's quantized units: docs/worker-protocol.md `piece`), their readouts in display units,
// and who is who (callsigns, types, factions from the info and the pieces' spawns). No DOM.
import type { EntityState, EntityType, KillEvent, Participant, RecordingInfo } from '../lib/types.ts';
import { bisect } from './clock.ts';
import type { PieceMessage } from './pieces.ts';

export const STRIDE = 16;
export const F_ID = 0;
export const F_TYPE = 1;
const F_FACTION = 2;
const F_POS = 3;
const F_ORIENT = 6;
const F_VEL = 10;
export const F_HEALTH = 13;
export const F_FLAGS = 14;
const F_ANIM = 15;
export const NO_ENTITY = 4294967295;
export const NO_WEAPON = 65535;
/** Entity flag bits (model::flags, SparkEngine's bitmask), in bit order. */
export const FLAG_NAMES = ['alive', 'visible', 'firing', 'crouching', 'sprinting', 'reloading', 'in vehicle', 'scoped'];

/** Three numbers (x, y, z); a quaternion [x, y, z, w]. */
type Vec3 = [number, number, number];
type Quat = [number, number, number, number];

/** Heading, pitch and roll, degrees (attitude()). */
export interface Attitude {
  heading: number;
  pitch: number;
  roll: number;
}

const u32 = (v: number) => v >>> 0;

/** Word offset of entity `id` in a packed frame (sorted by id), or -1. Falls back to a scan when
 *  the frame is not sorted (hostile input: never wrong, only slower). */
export function findEntity(f: Int32Array, id: number): number {
  const i = bisect(f, id, false, u32, STRIDE) * STRIDE;
  if (i + STRIDE <= f.length && f[i + F_ID] >>> 0 === id) return i;
  for (let k = 0; k + STRIDE <= f.length; k += STRIDE) if (f[k + F_ID] >>> 0 === id) return k;
  return -1;
}

/** Entity `id` of frame `f` (the frame of `tick`) in display units (metres, m/s, 0–1), or null.
 *  `info`: the recording's info (quanta, world). */
export function entityState(
  f: Int32Array,
  id: number,
  tick: number,
  info: Pick<RecordingInfo, 'position_quantum_m' | 'velocity_quantum_mps' | 'world'>,
): (EntityState & Attitude) | null {
  const k = findEntity(f, id);
  if (k < 0) return null;
  const q = info.position_quantum_m;
  const vq = info.velocity_quantum_mps;
  const pos: Vec3 = [f[k + F_POS] * q, f[k + F_POS + 1] * q, f[k + F_POS + 2] * q];
  const vel: Vec3 = [f[k + F_VEL] * vq, f[k + F_VEL + 1] * vq, f[k + F_VEL + 2] * vq];
  const flags = f[k + F_FLAGS] >>> 0;
  const out: EntityState = {
    id,
    tick,
    type: f[k + F_TYPE],
    faction: f[k + F_FACTION],
    pos,
    vel,
    speed: Math.hypot(vel[0], vel[1], vel[2]),
    orient: [f[k + F_ORIENT], f[k + F_ORIENT + 1], f[k + F_ORIENT + 2], f[k + F_ORIENT + 3]].map(
      (v) => v / 32767,
    ) as Quat,
    health: f[k + F_HEALTH] / 100,
    flags,
    flagNames: FLAG_NAMES.filter((_, b) => (flags >>> b) & 1),
    anim: f[k + F_ANIM],
    alive: (flags & 1) === 1,
  };
  if (info.world?.kind === 'planet') out.altitude = Math.hypot(pos[0], pos[1], pos[2]) - info.world.radius_m;
  return Object.assign(out, attitude(out.orient, pos, info.world?.kind === 'planet'));
}

/**
 * Heading (degrees from north, clockwise, [0, 360)), pitch (degrees, nose up +) and roll (degrees,
 * right wing down +) of orientation `q` ([x, y, z, w]; body +X forward, +Y left, +Z up) at world
 * position `pos`, in the local east / north / up frame there (a planet's at the point, a flat
 * world's its axes: as the renderer's `local_frame`).
 */
export function attitude(q: Quat, pos: Vec3, planet: boolean): Attitude {
  const [x, y, z, w] = q;
  const n = Math.hypot(x, y, z, w) || 1;
  const [a, b, c, d] = [x / n, y / n, z / n, w / n];
  // The rotated body axes (columns of the rotation matrix).
  const fwd = [1 - 2 * (b * b + c * c), 2 * (a * b + c * d), 2 * (a * c - b * d)];
  const left = [2 * (a * b - c * d), 1 - 2 * (a * a + c * c), 2 * (b * c + a * d)];
  const up = [2 * (a * c + b * d), 2 * (b * c - a * d), 1 - 2 * (a * a + b * b)];
  let E = [1, 0, 0];
  let N = [0, 1, 0];
  let U = [0, 0, 1];
  if (planet) {
    const r = Math.hypot(pos[0], pos[1], pos[2]);
    if (r > 0) {
      U = pos.map((v) => v / r);
      const e = [-U[1], U[0], 0];
      const el = Math.hypot(e[0], e[1]);
      E = el > 1e-9 ? [e[0] / el, e[1] / el, 0] : [0, 1, 0];
      N = [U[1] * E[2] - U[2] * E[1], U[2] * E[0] - U[0] * E[2], U[0] * E[1] - U[1] * E[0]];
    }
  }
  const dot = (p: number[], q2: number[]) => p[0] * q2[0] + p[1] * q2[1] + p[2] * q2[2];
  const deg = 180 / Math.PI;
  const heading = (Math.atan2(dot(fwd, E), dot(fwd, N)) * deg + 360) % 360;
  const pitch = Math.asin(Math.max(-1, Math.min(1, dot(fwd, U)))) * deg;
  const roll = Math.atan2(dot(left, U), dot(up, U)) * deg;
  return { heading, pitch, roll };
}

/** Diagonal of the bounding box of frame `f` in metres (position quantum `q`); 0 when empty. */
export function frameExtent(f: Int32Array, q: number): number {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let k = 0; k + STRIDE <= f.length; k += STRIDE) {
    for (let j = 0; j < 3; j++) {
      const v = f[k + F_POS + j];
      if (v < min[j]) min[j] = v;
      if (v > max[j]) max[j] = v;
    }
  }
  return f.length >= STRIDE ? Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) * q : 0;
}

/** Alive flag (flags bit 0) of each entity of frame `f`, by id. */
export function aliveIn(f: Int32Array): Map<number, boolean> {
  const out = new Map<number, boolean>();
  for (let k = 0; k + STRIDE <= f.length; k += STRIDE) out.set(f[k + F_ID] >>> 0, (f[k + F_FLAGS] & 1) === 1);
  return out;
}

/** Names, types and factions of the recording's entities and participants. */
export class Entities {
  /** Callsign by entity id (participants' entities, and spawns). */
  names = new Map<number, string>();
  /** Type index by entity id (from the first frame a piece shows it in). */
  #types = new Map<number, number>();
  #factions = new Map<number, number>();
  #participants = new Map<number, Participant>();
  /** The recording's entity types (info.entity_types). */
  #typeList: EntityType[] = [];
  /** Whether the file records kill weapons: a SparkEngine replay does not (its events have no
   *  data field on disk: docs/format/spark-replay.md), so its kills without one name none.
   *  (Undefined before an info is learned.) */
  weaponsRecorded: boolean | undefined;

  /** The participants and types of a recording's info (`info.info`). */
  learnInfo(i: Pick<RecordingInfo, 'entity_types' | 'format' | 'participants'>): void {
    this.#typeList = i.entity_types;
    this.weaponsRecorded = i.format !== 'spark_replay';
    for (const p of i.participants) {
      this.#participants.set(p.id, p);
      if (p.entity !== NO_ENTITY) {
        this.names.set(p.entity, p.callsign);
        this.#factions.set(p.entity, p.faction);
      }
    }
  }

  /** What piece `c` tells: its spawns' callsigns, and the types of the entities of its first frame
   *  (for names of entities without callsigns). */
  learnPiece(c: Pick<PieceMessage, 'events' | 'offsets' | 'entities'>): void {
    for (const e of c.events) {
      if (e.kind !== 'spawn') continue;
      const p = this.#participants.get(e.participant);
      if (p) {
        this.names.set(e.entity, p.callsign);
        this.#factions.set(e.entity, p.faction);
      }
    }
    const end = c.offsets.length > 1 ? c.offsets[1] : 0;
    for (let k = 0; k < end; k++) {
      const id = c.entities[k * STRIDE + F_ID] >>> 0;
      if (!this.#types.has(id)) this.#types.set(id, c.entities[k * STRIDE + F_TYPE]);
    }
  }

  /**
   * The entity a link or a command names: a callsign (exact, else ignoring case), or an entity id
   * (`12` or `#12`) the recording knows of. -1 when it names nobody.
   */
  find(who: unknown): number {
    if (typeof who === 'number') return Number.isSafeInteger(who) && who >= 0 && who < NO_ENTITY ? who : -1;
    const s = String(who ?? '').trim();
    if (!s) return -1;
    let folded = -1;
    const lower = s.toLowerCase();
    for (const [id, name] of this.names) {
      if (name === s) return id;
      if (folded < 0 && name.toLowerCase() === lower) folded = id;
    }
    if (folded >= 0) return folded;
    const m = /^#?(\d{1,10})$/.exec(s);
    if (m) {
      const id = Number(m[1]);
      if (this.names.has(id) || this.#types.has(id) || this.#factions.has(id)) return id;
    }
    return -1;
  }

  /** How a link names entity `id`: its callsign when find() gives it back, else `#id`. */
  ref(id: number): string {
    const n = this.names.get(id);
    return n && this.find(n) === id ? n : `#${id}`;
  }

  /** The participant with id `id` (info.participants), or undefined. */
  participant(id: number): Participant | undefined {
    return this.#participants.get(id);
  }

  /** Entity `id`'s callsign, else its type and id ("Tank #12"), else "#12". */
  name(id: number): string {
    const n = this.names.get(id);
    if (n) return n;
    const t = this.#types.get(id);
    if (t !== undefined) {
      const name = this.typeName(t);
      if (name) return `${name} #${id}`;
    }
    return `#${id}`;
  }

  /** Display name of entity type `index`, or ''. */
  typeName(index: number): string {
    const t = this.#typeList.find((e) => e.index === index);
    // (`id` is the model's String: types/player.d.ts declares a number.)
    return t ? t.display_name || String(t.id) : '';
  }

  /** A kill's weapon: its entity type's name, "unknown weapon", or '' where the file records
   *  none (`weaponsRecorded`). */
  weaponName(index: number): string {
    if (index === NO_WEAPON) return this.weaponsRecorded === false ? '' : 'unknown weapon';
    return this.typeName(index) || `weapon ${index}`;
  }

  /** "killer → victim (weapon)", or "killer → victim" when no weapon is named. */
  killText(k: Pick<KillEvent, 'killer' | 'victim' | 'weapon_type'>): string {
    const w = this.weaponName(k.weapon_type);
    return `${this.name(k.killer)} → ${this.name(k.victim)}${w ? ` (${w})` : ''}`;
  }

  /** Faction of entity `id`, or undefined. */
  factionOf(id: number): number | undefined {
    return this.#factions.get(id);
  }
}
