//! Where an object is and how it points, as ACMI's `T=` says it: longitude, latitude, altitude
//! (`world_to_geodetic` with the stored planet radius) and roll, pitch, yaw in the local east /
//! north / up frame; a flat world adds its native `u|v` (docs/export.md).

use super::number::{decimals_for_step, fixed};
use super::pair::{pair_by_id, same_ids, Step};
use super::Span;
use crate::model::{world_to_geodetic, DecodedChunk, EntityState, RecordingInfo, WorldKind};

/// Metres per degree of the sphere that places a flat map's `u|v` on the globe (Earth's mean
/// radius: a flat map is drawn near latitude 0 / longitude 0).
pub const FLAT_M_PER_DEG: f64 = 6_371_000.0 * std::f64::consts::PI / 180.0;
/// Angles are written to 0.01°.
pub const ANGLE_DECIMALS: u32 = 2;
/// How positions are written.
#[derive(Clone, Copy)]
pub struct Geo {
    /// Planet radius, or `None` for a flat world (`T=lon|lat|alt|roll|pitch|yaw|u|v|heading`).
    pub radius: Option<f64>,
    pub quantum: f64,
    pub deg_decimals: u32,
    pub metre_decimals: u32,
    /// ReferenceLongitude / ReferenceLatitude (whole degrees), subtracted from what `T=` holds:
    /// fewer digits to write and to read.
    pub ref_lon: f64,
    pub ref_lat: f64,
}

impl Geo {
    /// How `info`'s positions are written (the reference longitude / latitude 0 until
    /// [`reference`](Self::reference)).
    pub fn of(info: &RecordingInfo) -> Geo {
        let quantum = if info.position_quantum_m.is_finite() && info.position_quantum_m > 0.0 {
            info.position_quantum_m
        } else {
            1.0
        };
        let (radius, m_per_deg) = match info.world {
            WorldKind::Planet { radius_m } => (Some(radius_m), radius_m * std::f64::consts::PI / 180.0),
            WorldKind::Flat => (None, FLAT_M_PER_DEG),
        };
        Geo {
            radius,
            quantum,
            deg_decimals: decimals_for_step(quantum / m_per_deg.max(1e-9)),
            metre_decimals: decimals_for_step(quantum),
            ref_lon: 0.0,
            ref_lat: 0.0,
        }
    }

    /// ReferenceLongitude / ReferenceLatitude from the first tick's states: on a planet the whole
    /// degrees nearest its first entity, on a flat map (or with no entity) 0.
    pub fn reference(&mut self, states: &[EntityState]) {
        if let (Some(radius), Some(s)) = (self.radius, states.first()) {
            let g = world_to_geodetic(s.pos.map(|v| f64::from(v) * self.quantum), radius);
            if g.lon_deg.is_finite() && g.lat_deg.is_finite() {
                self.ref_lon = g.lon_deg.round();
                self.ref_lat = g.lat_deg.round();
            }
        }
    }
}

/// An object's `T=` components as fixed-point integers: `n` of them (6 on a planet, 9 flat), or
/// none (`n` 0) where it did not move since the tick before. A flat world's ninth, the heading,
/// is the yaw (`t[5]`), so the components are 64 bytes, which a copy (the writer keeps what it
/// wrote) moves in eight stores. Anything longer is a `memory.copy` call in wasm: a `Pose` itself
/// is written in its slot and read by reference (docs/performance-history.md "Exports").
#[derive(Clone, Copy, Default)]
pub struct Pose {
    pub t: [i64; 8],
    pub n: u8,
}

/// Component `i` of the `T=` components `t` (the ninth is the yaw; 0 past it).
pub fn component(t: &[i64; 8], i: usize) -> i64 {
    t.get(if i == 8 { 5 } else { i }).copied().unwrap_or(0)
}

/// What a [`Poser`] keeps of an object from the tick before.
struct Seen {
    id: u32,
    pos: [i32; 3],
    orient: [i16; 4],
    track: Track,
}

/// The poses of a recording's ticks, fed in order: for each state, its `T=` where it is new or
/// moved since the tick before, its angles followed from tick to tick ([`Track`]). The ACMI
/// writer's one source of positions: it runs one itself (`AcmiWriter::tick`), or takes what one
/// computed on the thread that decodes (`AcmiWriter::tick_posed`, `io::export::acmi`); the bytes
/// are the same.
pub struct Poser {
    geo: Geo,
    referenced: bool,
    prev: Vec<Seen>,
    next: Vec<Seen>,
}

impl Poser {
    pub fn new(geo: Geo) -> Poser {
        Poser { geo, referenced: false, prev: Vec::new(), next: Vec::new() }
    }

    /// Takes the reference longitude / latitude from `states` if it has none yet (from the first
    /// tick it is given, as the writer takes its own: [`Geo::reference`]).
    pub fn refer(&mut self, states: &[EntityState]) {
        if !self.referenced {
            self.referenced = true;
            self.geo.reference(states);
        }
    }

    /// Forgets the objects: each of the next tick's is posed afresh, its angles computed, not
    /// followed. Done at each chunk's start ([`chunk`](Self::chunk)), so the poses of a chunk
    /// depend on that chunk's states alone: a writer that starts a chunk after following only
    /// the chunk before writes what one writing from the start writes (docs/export.md
    /// "Two writers, one export").
    pub fn restart(&mut self) {
        self.prev.clear();
    }

    /// [`restart`](Self::restart), then [`tick`](Self::tick) for each tick of `c` in `span`.
    pub fn chunk(&mut self, c: &DecodedChunk, span: Span, out: &mut Vec<Pose>) {
        self.restart();
        let _ = c.for_each_tick(span.from, span.to, |_, states, _| {
            self.tick(states, out);
            Ok::<(), std::convert::Infallible>(())
        });
    }

    /// Appends to `out` one [`Pose`] per state of one tick (`states` sorted by ascending id, as
    /// every reader gives them), paired with the tick before's as the writer pairs them
    /// (`export::pair`).
    pub fn tick(&mut self, states: &[EntityState], out: &mut Vec<Pose>) {
        self.refer(states);
        let geo = self.geo;
        // Each pose is written in its slot: none is built apart and copied in.
        let start = out.len();
        out.resize(start + states.len(), Pose::default());
        let slots = out.get_mut(start..).unwrap_or_default();
        let moved = |o: &mut Seen, s: &EntityState, slot: &mut Pose| {
            if o.pos != s.pos || o.orient != s.orient {
                o.pos = s.pos;
                o.orient = s.orient;
                slot.n = transform_into(geo, s.pos, s.orient, Some(&mut o.track), &mut slot.t);
            }
        };
        if same_ids(&self.prev, states, |o| o.id) {
            // The same entities as the tick before (the common case): in place, back to back.
            for ((o, s), slot) in self.prev.iter_mut().zip(states).zip(slots) {
                moved(o, s, slot);
            }
            return;
        }
        pair_by_id(
            &mut self.prev,
            &mut self.next,
            states,
            |o| o.id,
            |step| match step {
                Step::Kept(i, s, o) => {
                    if let Some(slot) = slots.get_mut(i) {
                        moved(o, s, slot);
                    }
                    None
                }
                Step::New(i, s) => {
                    let mut o = Seen { id: s.id, pos: s.pos, orient: s.orient, track: Track::default() };
                    if let Some(slot) = slots.get_mut(i) {
                        slot.n = transform_into(geo, s.pos, s.orient, Some(&mut o.track), &mut slot.t);
                    }
                    Some(o)
                }
                Step::Gone(_) => None,
            },
        );
    }
}

/// How many angles a step can follow from the one before before [`Track`] computes them afresh
/// (bounds the rounding drift of the steps to a few hundred ulps, far below the last written place).
const STEPS_BETWEEN_EXACT: u8 = 64;
/// A step is followed with the series only while |tan(step)| stays below this (2.9° a tick): the
/// series' first left-out term, t¹¹/11, is then under 5e-16 rad.
const SMALL_STEP: f64 = 0.05;

/// The angles of an object as last computed (radians), and the 2-D vectors they are the angles of:
/// from one tick to the next an object turns little, so the new angle is the old one plus the angle
/// between the old and the new vector, `atan(cross / dot)` by a short series: no `atan2` / `asin`
/// call (a third of the export's time, docs/performance-history.md "Exports"). Longitude, latitude, yaw,
/// pitch, roll.
#[derive(Clone, Copy, Default)]
pub struct Track {
    angle: [f64; 5],
    vec: [[f64; 2]; 5],
    steps: u8,
}

impl Track {
    /// The angle of `v` (as `v[1].atan2(v[0])`) for slot `i`, from the last one where the turn is small.
    fn angle(&mut self, i: usize, v: [f64; 2], fresh: bool) -> f64 {
        let (Some(a0), Some(v0)) = (self.angle.get(i).copied(), self.vec.get(i).copied()) else {
            return v[1].atan2(v[0]);
        };
        let cross = v0[0] * v[1] - v0[1] * v[0];
        let dot = v0[0] * v[0] + v0[1] * v[1];
        let a = if !fresh && dot > 0.0 && cross.abs() < SMALL_STEP * dot {
            let t = cross / dot;
            let t2 = t * t;
            let series = 1.0 / 5.0 - t2 * (1.0 / 7.0 - t2 * (1.0 / 9.0));
            let mut a = a0 + t * (1.0 - t2 * (1.0 / 3.0 - t2 * series));
            if a > std::f64::consts::PI {
                a -= std::f64::consts::TAU;
            } else if a <= -std::f64::consts::PI {
                a += std::f64::consts::TAU;
            }
            a
        } else {
            v[1].atan2(v[0])
        };
        if let (Some(sa), Some(sv)) = (self.angle.get_mut(i), self.vec.get_mut(i)) {
            *sa = a;
            *sv = v;
        }
        a
    }
}

/// The `T=` components of a state (fixed-point) into `t` (a [`Pose`]'s: the ninth implied) and
/// how many there are (6 on a planet, 9 flat). `track` holds the object's angles from its last
/// call (`None`: computed afresh, not kept).
pub fn transform_into(geo: Geo, pos: [i32; 3], orient: [i16; 4], track: Option<&mut Track>, t: &mut [i64; 8]) -> u8 {
    // Made only where there is no track (zeroing it is a `memory.fill` call in wasm).
    let mut scratch: Track;
    let fresh = track.is_none() || track.as_ref().is_some_and(|t| t.steps == 0);
    let track = match track {
        Some(t) => {
            t.steps = if t.steps + 1 >= STEPS_BETWEEN_EXACT { 0 } else { t.steps + 1 };
            t
        }
        None => {
            scratch = Track::default();
            &mut scratch
        }
    };
    let q = geo.quantum;
    let p = [f64::from(pos[0]) * q, f64::from(pos[1]) * q, f64::from(pos[2]) * q];
    // Body axes (+X forward, +Y left, +Z up) in world axes, from the quaternion.
    let [x, y, z, w] = orient.map(f64::from);
    let n = x * x + y * y + z * z + w * w;
    let s = if n > 0.0 { 2.0 / n } else { 0.0 };
    let fwd = [1.0 - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y)];
    let left = [s * (x * y - w * z), 1.0 - s * (x * x + z * z), s * (y * z + w * x)];
    let up = [s * (x * z + w * y), s * (y * z - w * x), 1.0 - s * (x * x + y * y)];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    // The local east / north / up at the position; longitude and latitude as `world_to_geodetic`
    // gives them (the angles of (x, y) and of (horizontal distance, z)).
    let (east, north, vert, lon, lat, alt) = match geo.radius {
        Some(radius) => {
            let h = (p[0] * p[0] + p[1] * p[1]).sqrt();
            let r = (h * h + p[2] * p[2]).sqrt();
            let lon = track.angle(0, [p[0], p[1]], fresh).to_degrees();
            let lat = track.angle(1, [h, p[2]], fresh).to_degrees();
            let alt = if r == 0.0 { -radius } else { r - radius };
            // One division each, then products (a division costs several multiplications).
            let vert = if r > 0.0 {
                let k = 1.0 / r;
                [p[0] * k, p[1] * k, p[2] * k]
            } else {
                [1.0, 0.0, 0.0]
            };
            let east = if h > 0.0 {
                let k = 1.0 / h;
                [-p[1] * k, p[0] * k, 0.0]
            } else {
                [0.0, 1.0, 0.0]
            };
            let north = [
                vert[1] * east[2] - vert[2] * east[1],
                vert[2] * east[0] - vert[0] * east[2],
                vert[0] * east[1] - vert[1] * east[0],
            ];
            (east, north, vert, lon, lat, alt)
        }
        None => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], p[0] / FLAT_M_PER_DEG, p[1] / FLAT_M_PER_DEG, p[2]),
    };
    let (fe, fnorth, fv) = (dot(fwd, east), dot(fwd, north), dot(fwd, vert));
    let mut yaw = track.angle(2, [fnorth, fe], fresh).to_degrees();
    if yaw < 0.0 {
        yaw += 360.0;
    }
    let pitch = track.angle(3, [(fe * fe + fnorth * fnorth).sqrt(), fv], fresh).to_degrees();
    let roll = track.angle(4, [dot(up, vert), dot(left, vert)], fresh).to_degrees();
    let (dd, md) = (geo.deg_decimals, geo.metre_decimals);
    *t = [
        fixed(lon - geo.ref_lon, dd),
        fixed(lat - geo.ref_lat, dd),
        fixed(alt, md),
        fixed(roll, ANGLE_DECIMALS),
        fixed(pitch, ANGLE_DECIMALS),
        fixed(yaw, ANGLE_DECIMALS),
        0,
        0,
    ];
    if geo.radius.is_some() {
        return 6;
    }
    t[6] = fixed(p[0], md);
    t[7] = fixed(p[1], md);
    9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transform(geo: Geo, pos: [i32; 3], orient: [i16; 4], track: Option<&mut Track>) -> ([i64; 8], usize) {
        let mut t = [0; 8];
        let n = transform_into(geo, pos, orient, track, &mut t);
        (t, usize::from(n))
    }

    #[test]
    fn level_flight_north_and_a_right_bank() {
        let geo = Geo { radius: None, quantum: 1.0, deg_decimals: 6, metre_decimals: 0, ref_lon: 0.0, ref_lat: 0.0 };
        // Identity: body +X forward = east → heading 90°, level.
        let (t, n) = transform(geo, [10, 20, 30], [0, 0, 0, 32767], None);
        assert_eq!(n, 9);
        assert_eq!((t[3], t[4], t[5], t[6], t[7], t[2]), (0, 0, 9000, 10, 20, 30));
        // +30° about body X (forward): the left wing rises = a right bank of +30°.
        let h = (15.0f64.to_radians().sin() * 32767.0).round() as i16;
        let c = (15.0f64.to_radians().cos() * 32767.0).round() as i16;
        let (t, _) = transform(geo, [0, 0, 0], [h, 0, 0, c], None);
        assert!((t[3] - 3000).abs() <= 1, "roll {}", t[3]);
        // On a planet at lat 0 / lon 0 the local north is world +Z: nose along +Z is heading 0,
        // and nose along world +X (straight up) is pitch 90.
        let geo =
            Geo { radius: Some(1000.0), quantum: 1.0, deg_decimals: 6, metre_decimals: 0, ref_lon: 0.0, ref_lat: 0.0 };
        let s = (45.0f64.to_radians().sin() * 32767.0).round() as i16;
        let (t, n) = transform(geo, [1100, 0, 0], [0, -s, 0, s], None);
        assert_eq!(n, 6);
        assert_eq!((t[0], t[1], t[2]), (0, 0, 100));
        assert!(t[5] == 0 || t[5] == 36000, "yaw {}", t[5]);
        assert!(t[4].abs() <= 1);
        let (t, _) = transform(geo, [1100, 0, 0], [0, 0, 0, 32767], None);
        assert!((t[4] - 9000).abs() <= 1, "pitch {}", t[4]);
    }

    /// A turning, rolling aircraft flying east across the antimeridian for 6,000 ticks: every
    /// `T=` component followed by [`Track`] equals the one computed afresh within the last written
    /// place (angles modulo a full turn: 0° and 360° are one heading).
    #[test]
    fn followed_angles_equal_fresh_ones() {
        let radius = 6_371_000.0f64;
        let quantum = 1.0 / 64.0;
        let geo =
            Geo { radius: Some(radius), quantum, deg_decimals: 7, metre_decimals: 2, ref_lon: 179.0, ref_lat: 40.0 };
        let (mut lat, mut lon, mut alt) = (40.0f64.to_radians(), 179.95f64.to_radians(), 3_000.0f64);
        // Attitude quaternion (x, y, z, w), body rates (rad per tick).
        let mut q = [0.0f64, 0.0, 0.0, 1.0];
        let mut seed = 12_345u64;
        let mut rnd = || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let mut rate = [0.0f64; 3];
        let mut track = Track::default();
        let (mut compared, mut differ, mut wrapped) = (0, 0, false);
        for tick in 0..6_000 {
            // Rates wander up to about ±4° a tick (240°/s: the series and the fallback both run).
            for r in &mut rate {
                *r = (*r + rnd() * 0.01).clamp(-0.07, 0.07);
            }
            let [rx, ry, rz] = rate.map(|r| r * 0.5);
            let [x, y, z, w] = q;
            q = [
                w * rx + x + y * rz - z * ry,
                w * ry - x * rz + y + z * rx,
                w * rz + x * ry - y * rx + z,
                w - x * rx - y * ry - z * rz,
            ];
            let n = q.iter().map(|v| v * v).sum::<f64>().sqrt();
            q = q.map(|v| v / n);
            lon += 250.0 / 60.0 / ((radius + alt) * lat.cos());
            lat += 30.0 / 60.0 / (radius + alt);
            alt += rnd();
            if lon > std::f64::consts::PI {
                lon -= std::f64::consts::TAU;
                wrapped = true;
            }
            let r = radius + alt;
            let pos = [r * lat.cos() * lon.cos(), r * lat.cos() * lon.sin(), r * lat.sin()]
                .map(|v| (v / quantum).round() as i32);
            let orient = q.map(|v| (v * 32767.0).round() as i16);
            let (a, n) = transform(geo, pos, orient, Some(&mut track));
            let (b, _) = transform(geo, pos, orient, None);
            for i in 0..n {
                let d = (a[i] - b[i]).abs();
                let d = if i >= 3 { d.min((36_000 - d).abs()) } else { d };
                assert!(d <= 1, "tick {tick}, component {i}: followed {} fresh {}", a[i], b[i]);
                compared += 1;
                differ += usize::from(d != 0);
            }
        }
        assert!(wrapped, "the flight crossed the antimeridian");
        assert!(differ * 1_000 <= compared, "{differ} of {compared} components off by one");
    }
}
