// Where an entity is and how it moves, as a pilot reads it, and the range and bearing between two
// (the Analysis panel and its range line: www/features/analysis/panel.ts). Pure functions over the player's
// entity states (`handle.entityState(id)`: metres, m/s, quaternion x y z w) and the recording's
// world (`info.info.world`): a planet-centred frame on a sphere of `radius_m`, or a flat world
// (+X east, +Y north, +Z up) (docs/format/flrep.md "World frames"). `geodetic` is the same formula
// as the crate's `model::world_to_geodetic` (tests/e2e/analysis.test.mjs compares the two through
// `replay dump --geodetic`). Loaded with the panel; no DOM.

/** A vector of the world frame (metres, m/s), or a quaternion (x, y, z, w). */
export type Vec = readonly number[];
/** The recording's world (`info.info.world`, docs/format/flrep.md "World frames"). */
export type World = { kind: 'planet'; radius_m: number } | { kind: 'flat' };
/** What these functions read of an entity state (handle.entityState, telemetry-series stateIn). */
export interface Moving {
  pos: Vec;
  vel: Vec;
  orient: Vec;
}
/** Local east, north and up unit vectors. */
export interface Frame {
  east: Vec;
  north: Vec;
  up: Vec;
}
/** The units figures are shown in. */
export type Units = 'imperial' | 'metric';

const DEG = 180 / Math.PI;
export const FT_PER_M = 1 / 0.3048;
export const KT_PER_MPS = 3600 / 1852;
export const M_PER_NM = 1852;

const dot = (a: Vec, b: Vec): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const sub = (a: Vec, b: Vec): number[] => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const norm = (a: Vec): number => Math.hypot(a[0], a[1], a[2]);
const isPlanet = (world: World | null | undefined): world is { kind: 'planet'; radius_m: number } =>
  world?.kind === 'planet' && world.radius_m > 0;

/** Latitude, longitude (degrees) and altitude (m above the sphere) of world position `p` on a
 *  sphere of `radius` (model::world_to_geodetic). */
export function worldToGeodetic(p: Vec, radius: number): { lat: number; lon: number; alt: number } {
  const r = norm(p);
  if (r === 0) return { lat: 0, lon: 0, alt: -radius };
  return {
    lat: Math.asin(Math.min(1, Math.max(-1, p[2] / r))) * DEG,
    lon: Math.atan2(p[1], p[0]) * DEG,
    alt: r - radius,
  };
}

/** The local east, north and up unit vectors at `p` (a flat world: the axes). */
export function localFrame(p: Vec, world: World | null | undefined): Frame {
  if (!isPlanet(world)) {
    return {
      east: [1, 0, 0],
      north: [0, 1, 0],
      up: [0, 0, 1],
    };
  }
  const g = worldToGeodetic(p, world.radius_m);
  const la = g.lat / DEG;
  const lo = g.lon / DEG;
  const [sla, cla, slo, clo] = [Math.sin(la), Math.cos(la), Math.sin(lo), Math.cos(lo)];
  return {
    east: [-slo, clo, 0],
    north: [-sla * clo, -sla * slo, cla],
    up: [cla * clo, cla * slo, sla],
  };
}

/** The body's nose (+X, docs/format/flrep.md: +X forward, +Y left, +Z up) in the world frame, from
 *  the orientation quaternion (x, y, z, w). */
export function noseOf(q: Vec): number[] {
  const [x, y, z, w] = q;
  return [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)];
}

/** Compass degrees [0, 360) of a vector's horizontal part in frame `f` (north 0, east 90), or null
 *  when it is (nearly) vertical. */
function compass(v: Vec, f: Frame): number | null {
  const e = dot(v, f.east);
  const n = dot(v, f.north);
  if (Math.hypot(e, n) < 1e-9) return null;
  return (((Math.atan2(e, n) * DEG) % 360) + 360) % 360;
}

/** motion()'s figures (see there). */
export interface Motion {
  lat: number | null;
  lon: number | null;
  alt: number;
  east: number | null;
  north: number | null;
  heading: number | null;
  track: number | null;
  speed: number;
  groundSpeed: number;
  verticalSpeed: number;
}

/** rangeBearing()'s figures (see there). */
export interface Range {
  distance: number;
  bearing: number;
  altDiff: number;
  closure: number;
}

/**
 * What the inspector shows of entity state `st` (handle.entityState) in world `world`: `lat`,
 * `lon` (null in a flat world), `alt` (m: above the sphere, or z), `east` / `north` (a flat world's
 * x, y), `heading` (the nose's compass degrees, null when it points straight up or down), `track`
 * (the velocity's), `speed` (|v|), `groundSpeed`, `verticalSpeed` (m/s, up positive).
 */
export function motion(st: Moving, world: World | null | undefined): Motion {
  const f = localFrame(st.pos, world);
  const planet = isPlanet(world);
  const g = planet ? worldToGeodetic(st.pos, world.radius_m) : null;
  const vs = dot(st.vel, f.up);
  const ve = dot(st.vel, f.east);
  const vn = dot(st.vel, f.north);
  return {
    lat: g ? g.lat : null,
    lon: g ? g.lon : null,
    alt: g ? g.alt : st.pos[2],
    east: planet ? null : st.pos[0],
    north: planet ? null : st.pos[1],
    heading: compass(noseOf(st.orient), f),
    track: Math.hypot(ve, vn) > 0.5 ? compass(st.vel, f) : null,
    speed: norm(st.vel),
    groundSpeed: Math.hypot(ve, vn),
    verticalSpeed: vs,
  };
}

/**
 * From `a` to `b` (entity states): `distance` (m, straight line), `bearing` (compass degrees from
 * a to b: the initial great-circle bearing on a planet, the plane's on a flat world), `altDiff`
 * (b's altitude − a's, m) and `closure` (m/s the distance shrinks: positive closing, negative
 * opening).
 */
export function rangeBearing(a: Moving, b: Moving, world: World | null | undefined): Range {
  const d = sub(b.pos, a.pos);
  const distance = norm(d);
  const dv = sub(b.vel, a.vel);
  const closure = distance > 0 ? -dot(d, dv) / distance : 0;
  let bearing: number;
  let altDiff: number;
  if (isPlanet(world)) {
    const ga = worldToGeodetic(a.pos, world.radius_m);
    const gb = worldToGeodetic(b.pos, world.radius_m);
    const p1 = ga.lat / DEG;
    const p2 = gb.lat / DEG;
    const dl = (gb.lon - ga.lon) / DEG;
    const y = Math.sin(dl) * Math.cos(p2);
    const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
    bearing = x === 0 && y === 0 ? 0 : (((Math.atan2(y, x) * DEG) % 360) + 360) % 360;
    altDiff = gb.alt - ga.alt;
  } else {
    bearing = d[0] === 0 && d[1] === 0 ? 0 : (((Math.atan2(d[0], d[1]) * DEG) % 360) + 360) % 360;
    altDiff = d[2];
  }
  return { distance, bearing, altDiff, closure };
}

// ---------------------------------------------------------------- units

/** 'imperial': what a pilot reads (ft, kt, NM, ft/min); 'metric': m, km/h, km, m/s. */
export const UNITS: readonly Units[] = ['imperial', 'metric'];

// One formatter per precision (toLocaleString builds a new one each call: the range line formats
// every frame).
const formats: Intl.NumberFormat[] = [];
const num = (v: number, digits = 0): string => {
  formats[digits] ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return formats[digits].format(v);
};

/** An altitude (or an altitude difference with `signed`) in `units`. */
export function fmtAlt(m: number, units: Units, signed = false): string {
  const s = signed && m > 0 ? '+' : '';
  return units === 'metric' ? `${s}${num(m, 1)} m` : `${s}${num(m * FT_PER_M)} ft`;
}

/** A distance: NM (ft under 0.1 NM) or km (m under 1 km). */
export function fmtDist(m: number, units: Units): string {
  if (units === 'metric') return m < 1000 ? `${num(m, 1)} m` : `${num(m / 1000, 2)} km`;
  const nm = m / M_PER_NM;
  return nm < 0.1 ? `${num(m * FT_PER_M)} ft` : `${num(nm, 2)} NM`;
}

/** A speed: kt or km/h. */
export function fmtSpeed(mps: number, units: Units, signed = false): string {
  const s = signed && mps > 0 ? '+' : '';
  return units === 'metric' ? `${s}${num(mps * 3.6, 1)} km/h` : `${s}${num(mps * KT_PER_MPS)} kt`;
}

/** A vertical speed: ft/min or m/s. */
export function fmtVs(mps: number, units: Units): string {
  const s = mps > 0 ? '+' : '';
  return units === 'metric' ? `${s}${num(mps, 1)} m/s` : `${s}${num(mps * 60 * FT_PER_M)} ft/min`;
}

/** Compass degrees as three digits ("047°"), or "—". */
export function fmtHeading(deg: number | null): string {
  if (deg === null || !Number.isFinite(deg)) return '—';
  return `${String(Math.round(deg) % 360).padStart(3, '0')}°`;
}

/** A latitude or longitude in degrees with its hemisphere ("47.51234° N"). */
export function fmtLatLon(deg: number | null, isLat: boolean): string {
  if (deg === null || !Number.isFinite(deg)) return '—';
  const h = isLat ? (deg < 0 ? 'S' : 'N') : deg < 0 ? 'W' : 'E';
  return `${Math.abs(deg).toFixed(5)}° ${h}`;
}
