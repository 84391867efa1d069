//! Cameras and view maths, all in f64.
//!
//! The renderer never puts a world position on the GPU directly: it subtracts the camera eye in f64
//! ([`View::rel`]) and only then converts to f32, so planet-sized coordinates (~6.4e6 m, where an
//! f32 step is 0.5 m) do not jitter. [`View::view_proj_rel`] is therefore a matrix for a camera at
//! the origin: a rotation plus a reverse-Z infinite perspective (depth = near / view distance; clear
//! depth to 0 and test `Greater`).
//!
//! Up: `Flat` worlds use +Z; `Planet` worlds use the radial direction at the orbit target (or at the
//! eye for the free camera). Local horizontal axes: east = up × ... (see [`local_frame`]).
//!
//! Body axes assumed for every entity (flrep aircraft convention, used for all categories for now):
//! +X forward, +Y left, +Z up.

use super::interp::Instance;
use super::vec::{add, cross, dot, len, madd, norm_or, qaxis, qrot, scale, sub, V3};
use crate::model::WorldKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CameraMode {
    /// Yaw/pitch/distance around a fixed target point.
    Orbit,
    /// Orbit whose target tracks an entity (the orbit offset is kept as it moves).
    Follow,
    /// Eye at the entity + 1.7 m along its up axis, looking along its body +X.
    FirstPerson,
    /// Fly camera: position + yaw/pitch.
    Free,
    /// Behind the killer looking at the victim.
    Kill,
}

impl CameraMode {
    pub fn parse(s: &str) -> Option<CameraMode> {
        Some(match s {
            "orbit" => CameraMode::Orbit,
            "follow" => CameraMode::Follow,
            "first" => CameraMode::FirstPerson,
            "free" => CameraMode::Free,
            "kill" => CameraMode::Kill,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            CameraMode::Orbit => "orbit",
            CameraMode::Follow => "follow",
            CameraMode::FirstPerson => "first",
            CameraMode::Free => "free",
            CameraMode::Kill => "kill",
        }
    }
}

/// Eye height above an entity's origin in first-person mode (metres).
pub const EYE_HEIGHT_M: f64 = 1.7;
const MIN_DISTANCE_M: f64 = 0.5;
const MAX_DISTANCE_M: f64 = 1.0e8;
const PITCH_LIMIT: f64 = 1.55;

/// Local (east, north, up) unit axes at world point `p`.
/// Flat: (+X, +Y, +Z). Planet: up = radial; east = +Z × up (falls back to +Y at the poles); north = up × east.
pub fn local_frame(world: WorldKind, p: V3) -> (V3, V3, V3) {
    match world {
        WorldKind::Flat => ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
        WorldKind::Planet { .. } => {
            let up = norm_or(p, [0.0, 0.0, 1.0]);
            let east = norm_or(cross([0.0, 0.0, 1.0], up), [0.0, 1.0, 0.0]);
            let north = cross(up, east);
            (east, north, up)
        }
    }
}

/// The resolved camera for one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// World eye position (metres, f64).
    pub eye: V3,
    /// Unit axes: forward (view direction), right, up (orthonormal).
    pub forward: V3,
    pub right: V3,
    pub up: V3,
    /// Vertical field of view (radians).
    pub fov_y: f64,
    /// Width / height.
    pub aspect: f64,
    /// Near plane distance (metres).
    pub near: f64,
}

impl View {
    /// Builds a view looking from `eye` along `forward` with approximate up `up_hint`.
    pub fn look(eye: V3, forward: V3, up_hint: V3, fov_y: f64, aspect: f64, near: f64) -> View {
        let forward = norm_or(forward, [1.0, 0.0, 0.0]);
        let mut right = norm_or(cross(forward, up_hint), [0.0, 0.0, 0.0]);
        if right == [0.0, 0.0, 0.0] {
            // Looking straight along the up hint: pick any perpendicular.
            let alt = if forward[2].abs() < 0.9 { [0.0, 0.0, 1.0] } else { [1.0, 0.0, 0.0] };
            right = norm_or(cross(forward, alt), [0.0, 1.0, 0.0]);
        }
        let up = cross(right, forward);
        let aspect = if aspect > 0.0 && aspect.is_finite() { aspect } else { 1.0 };
        View { eye, forward, right, up, fov_y, aspect, near: near.max(1e-3) }
    }

    /// `p - eye` as f32: the only way a world position reaches the GPU.
    pub fn rel(&self, p: V3) -> [f32; 3] {
        let d = sub(p, self.eye);
        [d[0] as f32, d[1] as f32, d[2] as f32]
    }

    fn focal(&self) -> f64 {
        1.0 / (self.fov_y * 0.5).tan()
    }

    /// Column-major view-projection for camera-relative positions (eye at the origin), reverse-Z
    /// infinite far plane: clip = (f/aspect·x_v, f·y_v, near, d) where d is the distance along forward.
    pub fn view_proj_rel(&self) -> [f32; 16] {
        let f = self.focal();
        let rows: [[f64; 4]; 4] = [
            [self.right[0] * f / self.aspect, self.right[1] * f / self.aspect, self.right[2] * f / self.aspect, 0.0],
            [self.up[0] * f, self.up[1] * f, self.up[2] * f, 0.0],
            [0.0, 0.0, 0.0, self.near],
            [self.forward[0], self.forward[1], self.forward[2], 0.0],
        ];
        let mut m = [0.0f32; 16];
        for (col, chunk) in m.chunks_exact_mut(4).enumerate() {
            for (row, v) in chunk.iter_mut().enumerate() {
                *v = rows.get(row).and_then(|r| r.get(col)).copied().unwrap_or(0.0) as f32;
            }
        }
        m
    }

    /// Projects a world point to pixels (origin top-left) of a `w`×`h` viewport.
    /// Returns (x, y, distance along forward), or `None` when it is at or behind the near plane.
    pub fn project(&self, p: V3, w: f64, h: f64) -> Option<[f64; 3]> {
        let rel = sub(p, self.eye);
        let d = dot(self.forward, rel);
        if d.is_nan() || d <= self.near {
            return None;
        }
        let f = self.focal();
        let xn = f / self.aspect * dot(self.right, rel) / d;
        let yn = f * dot(self.up, rel) / d;
        Some([(xn + 1.0) * 0.5 * w, (1.0 - yn) * 0.5 * h, d])
    }

    /// World-space unit ray direction through pixel (x, y) of a `w`×`h` viewport.
    pub fn ray(&self, x: f64, y: f64, w: f64, h: f64) -> V3 {
        let t = (self.fov_y * 0.5).tan();
        let xn = (x / w.max(1.0)) * 2.0 - 1.0;
        let yn = 1.0 - (y / h.max(1.0)) * 2.0;
        let d = madd(madd(self.forward, self.right, xn * t * self.aspect), self.up, yn * t);
        norm_or(d, self.forward)
    }

    /// Metres covered by one pixel at distance `d` along forward, for a viewport `h_px` tall.
    pub fn metres_per_pixel(&self, d: f64, h_px: f64) -> f64 {
        2.0 * (self.fov_y * 0.5).tan() * d.max(0.0) / h_px.max(1.0)
    }
}

/// Camera state driven by the UI (plain Rust; the wasm export forwards to it).
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    pub mode: CameraMode,
    pub world: WorldKind,
    /// Orbit target (world metres). Follow/kill modes keep it updated to the tracked entity.
    pub target: V3,
    /// Orbit angles (radians) in the local frame at the target: yaw from east towards north, pitch above the horizon.
    pub yaw: f64,
    pub pitch: f64,
    /// Orbit distance (metres).
    pub distance: f64,
    /// Entity tracked by follow / first-person.
    pub follow: Option<u32>,
    /// (killer, victim) for the kill camera.
    pub kill: Option<(u32, u32)>,
    /// Free camera position and angles (local frame at the position).
    pub free_pos: V3,
    pub free_yaw: f64,
    pub free_pitch: f64,
    /// First-person look offset (radians).
    pub look_yaw: f64,
    pub look_pitch: f64,
    /// Vertical field of view (radians).
    pub fov_y: f64,
}

impl Camera {
    pub fn new(world: WorldKind) -> Camera {
        let target = match world {
            WorldKind::Flat => [0.0; 3],
            WorldKind::Planet { radius_m } => [radius_m, 0.0, 0.0],
        };
        Camera {
            mode: CameraMode::Orbit,
            world,
            target,
            yaw: -std::f64::consts::FRAC_PI_2,
            pitch: 0.6,
            distance: 500.0,
            follow: None,
            kill: None,
            free_pos: target,
            free_yaw: 0.0,
            free_pitch: 0.0,
            look_yaw: 0.0,
            look_pitch: 0.0,
            fov_y: 55f64.to_radians(),
        }
    }

    /// Mouse / one-finger drag in CSS pixels.
    pub fn drag(&mut self, dx: f64, dy: f64) {
        if !dx.is_finite() || !dy.is_finite() {
            return;
        }
        match self.mode {
            CameraMode::Free => {
                self.free_yaw -= dx * 0.003;
                self.free_pitch = (self.free_pitch - dy * 0.003).clamp(-PITCH_LIMIT, PITCH_LIMIT);
            }
            CameraMode::FirstPerson => {
                self.look_yaw = (self.look_yaw - dx * 0.003).clamp(-3.0, 3.0);
                self.look_pitch = (self.look_pitch - dy * 0.003).clamp(-1.4, 1.4);
            }
            _ => {
                self.yaw -= dx * 0.005;
                self.pitch = (self.pitch + dy * 0.005).clamp(-PITCH_LIMIT, PITCH_LIMIT);
            }
        }
    }

    /// Wheel-like delta (positive = out / backwards).
    pub fn zoom(&mut self, delta: f64) {
        if !delta.is_finite() {
            return;
        }
        if self.mode == CameraMode::Free {
            let step = self.free_height().abs().max(10.0) * 0.001 * -delta;
            let (fwd, _, _) = self.free_axes();
            self.free_pos = madd(self.free_pos, fwd, step);
        } else {
            self.distance =
                (self.distance * (delta * 0.001).clamp(-5.0, 5.0).exp()).clamp(MIN_DISTANCE_M, MAX_DISTANCE_M);
        }
    }

    /// Free-camera movement in metres (forward, right, up). Ignored in other modes.
    pub fn fly(&mut self, forward: f64, right: f64, up: f64) {
        if self.mode != CameraMode::Free || !(forward.is_finite() && right.is_finite() && up.is_finite()) {
            return;
        }
        let (fwd, rt, _) = self.free_axes();
        let (_, _, lup) = local_frame(self.world, self.free_pos);
        self.free_pos = madd(madd(madd(self.free_pos, fwd, forward), rt, right), lup, up);
    }

    /// Switches mode; entering free mode starts at the current eye looking the same way.
    pub fn set_mode(&mut self, mode: CameraMode, current: Option<&View>) {
        if mode == CameraMode::Free && self.mode != CameraMode::Free {
            if let Some(v) = current {
                self.free_pos = v.eye;
                let (e, n, u) = local_frame(self.world, v.eye);
                self.free_yaw = dot(v.forward, n).atan2(dot(v.forward, e));
                self.free_pitch = dot(v.forward, u).clamp(-1.0, 1.0).asin().clamp(-PITCH_LIMIT, PITCH_LIMIT);
            }
        }
        if mode == CameraMode::FirstPerson {
            self.look_yaw = 0.0;
            self.look_pitch = 0.0;
        }
        self.mode = mode;
    }

    /// The view a share link carries (docs/renderer.md "Camera pose"), as numbers for the current
    /// mode: orbit `[target x, y, z (m), yaw, pitch, distance]`; follow and kill
    /// `[yaw, pitch, distance]` (the orbit around what they track); free `[x, y, z, yaw, pitch]`;
    /// first person `[look yaw, look pitch]`. Angles in radians.
    pub fn pose(&self) -> Vec<f64> {
        match self.mode {
            CameraMode::Orbit => {
                let [x, y, z] = self.target;
                vec![x, y, z, self.yaw, self.pitch, self.distance]
            }
            CameraMode::Follow | CameraMode::Kill => vec![self.yaw, self.pitch, self.distance],
            CameraMode::Free => {
                let [x, y, z] = self.free_pos;
                vec![x, y, z, self.free_yaw, self.free_pitch]
            }
            CameraMode::FirstPerson => vec![self.look_yaw, self.look_pitch],
        }
    }

    /// Applies a [`Camera::pose`] of the current mode. The numbers come from a link (a stranger's):
    /// a pose of the wrong length or with a number that is not finite changes nothing and returns
    /// `false`; angles and distances are clamped to what the controls can reach.
    pub fn set_pose(&mut self, p: &[f64]) -> bool {
        if !p.iter().all(|v| v.is_finite()) {
            return false;
        }
        let pitch = |v: f64| v.clamp(-PITCH_LIMIT, PITCH_LIMIT);
        let dist = |v: f64| v.clamp(MIN_DISTANCE_M, MAX_DISTANCE_M);
        match (self.mode, p) {
            (CameraMode::Orbit, &[x, y, z, yaw, pi, d]) => {
                self.target = [x, y, z];
                (self.yaw, self.pitch, self.distance) = (yaw, pitch(pi), dist(d));
            }
            (CameraMode::Follow | CameraMode::Kill, &[yaw, pi, d]) => {
                (self.yaw, self.pitch, self.distance) = (yaw, pitch(pi), dist(d));
            }
            (CameraMode::Free, &[x, y, z, yaw, pi]) => {
                self.free_pos = [x, y, z];
                (self.free_yaw, self.free_pitch) = (yaw, pitch(pi));
            }
            (CameraMode::FirstPerson, &[yaw, pi]) => {
                (self.look_yaw, self.look_pitch) = (yaw.clamp(-3.0, 3.0), pi.clamp(-1.4, 1.4));
            }
            _ => return false,
        }
        true
    }

    /// Centres the orbit on `instances` (centroid) at a distance that fits them.
    pub fn fit(&mut self, instances: &[Instance]) {
        if instances.is_empty() {
            return;
        }
        let n = instances.len() as f64;
        let c = scale(instances.iter().fold([0.0; 3], |acc, i| add(acc, i.pos)), 1.0 / n);
        let r = instances.iter().map(|i| len(sub(i.pos, c))).fold(0.0, f64::max);
        if !c.iter().all(|v| v.is_finite()) {
            return;
        }
        self.mode = CameraMode::Orbit;
        self.target = c;
        // The margin scales with the scene (an arena of 100 m is framed as closely as a theatre of
        // 100 km), up to 60 m.
        self.distance = (r * 2.2 + (r * 0.25).min(60.0)).clamp(MIN_DISTANCE_M, MAX_DISTANCE_M);
        self.yaw = -std::f64::consts::FRAC_PI_2;
        self.pitch = 0.6;
    }

    fn free_height(&self) -> f64 {
        match self.world {
            WorldKind::Flat => self.free_pos[2],
            WorldKind::Planet { radius_m } => len(self.free_pos) - radius_m,
        }
    }

    fn free_axes(&self) -> (V3, V3, V3) {
        let (e, n, u) = local_frame(self.world, self.free_pos);
        let (sy, cy) = self.free_yaw.sin_cos();
        let (sp, cp) = self.free_pitch.sin_cos();
        let fwd = add(scale(add(scale(e, cy), scale(n, sy)), cp), scale(u, sp));
        let right = norm_or(cross(fwd, u), e);
        (fwd, right, u)
    }

    fn orbit_view(&self, target: V3, aspect: f64) -> View {
        let (e, n, u) = local_frame(self.world, target);
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        let dir = add(scale(add(scale(e, cy), scale(n, sy)), cp), scale(u, sp));
        let eye = madd(target, dir, self.distance);
        View::look(eye, scale(dir, -1.0), u, self.fov_y, aspect, near_for(self.distance))
    }

    /// Resolves the camera for this frame. `find` looks an entity up by id among the interpolated
    /// instances. Follow/kill modes update [`Camera::target`] so switching back to orbit stays put.
    pub fn view<'a>(&mut self, find: impl Fn(u32) -> Option<&'a Instance>, aspect: f64) -> View {
        let followed = self.follow.and_then(&find).copied();
        match self.mode {
            CameraMode::Orbit => self.orbit_view(self.target, aspect),
            CameraMode::Follow => {
                if let Some(i) = followed {
                    self.target = i.pos;
                }
                self.orbit_view(self.target, aspect)
            }
            CameraMode::FirstPerson => match followed {
                Some(i) => {
                    let body_up = qrot(i.orient, [0.0, 0.0, 1.0]);
                    let body_fwd = qrot(i.orient, [1.0, 0.0, 0.0]);
                    let eye = madd(i.pos, body_up, EYE_HEIGHT_M);
                    let yawed = qrot(qaxis(norm_or(body_up, [0.0, 0.0, 1.0]), self.look_yaw), body_fwd);
                    let side = norm_or(cross(yawed, body_up), [0.0, 1.0, 0.0]);
                    let fwd = qrot(qaxis(side, self.look_pitch), yawed);
                    self.target = i.pos;
                    View::look(eye, fwd, body_up, self.fov_y, aspect, 0.1)
                }
                None => self.orbit_view(self.target, aspect),
            },
            CameraMode::Free => {
                let (fwd, _, u) = self.free_axes();
                let near = (self.free_height().abs() * 0.002).clamp(0.05, 1000.0);
                View::look(self.free_pos, fwd, u, self.fov_y, aspect, near)
            }
            CameraMode::Kill => {
                let pair = self.kill.map(|(k, v)| (find(k).copied(), find(v).copied()));
                match pair {
                    Some((Some(k), Some(v))) => {
                        let (_, _, u) = local_frame(self.world, k.pos);
                        let kv = sub(v.pos, k.pos);
                        let dist = len(kv);
                        let dir = norm_or(kv, [1.0, 0.0, 0.0]);
                        let back = (dist * 0.35).clamp(15.0, 2000.0);
                        let eye = madd(madd(k.pos, dir, -back), u, back * 0.3);
                        self.target = v.pos;
                        View::look(eye, sub(v.pos, eye), u, self.fov_y, aspect, near_for(back))
                    }
                    Some((Some(one), None)) | Some((None, Some(one))) => {
                        self.target = one.pos;
                        self.orbit_view(self.target, aspect)
                    }
                    _ => self.orbit_view(self.target, aspect),
                }
            }
        }
    }
}

fn near_for(distance: f64) -> f64 {
    (distance * 0.002).clamp(0.05, 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::vec::IDENTITY;

    fn inst(id: u32, pos: V3) -> Instance {
        Instance { id, type_index: 0, faction: 0, pos, orient: IDENTITY, health: 0, flags: 1, anim: 0 }
    }

    #[test]
    fn a_pose_read_back_gives_the_same_view_in_every_mode() {
        let r = 6_371_000.0;
        let e = inst(7, [r + 2000.0, 300.0, -40.0]);
        let find = |id: u32| if id == 7 { Some(&e) } else { None };
        for mode in [CameraMode::Orbit, CameraMode::Follow, CameraMode::Free, CameraMode::FirstPerson] {
            let mut a = Camera::new(WorldKind::Planet { radius_m: r });
            a.follow = Some(7);
            a.target = [r + 1500.0, 10.0, 20.0];
            a.set_mode(mode, Some(&a.clone().view(find, 1.5)));
            a.drag(37.0, -12.0);
            a.zoom(-250.0);
            a.fly(120.0, -30.0, 15.0);
            let want = a.view(find, 1.5);
            let mut b = Camera::new(WorldKind::Planet { radius_m: r });
            b.follow = Some(7);
            b.set_mode(mode, None);
            assert!(b.set_pose(&a.pose()), "{mode:?}");
            let got = b.view(find, 1.5);
            assert!(len(sub(got.eye, want.eye)) < 1e-6, "{mode:?}: {:?} vs {:?}", got.eye, want.eye);
            assert!(dot(got.forward, want.forward) > 1.0 - 1e-12, "{mode:?}");
        }
    }

    #[test]
    fn a_pose_from_a_link_is_checked() {
        let mut c = Camera::new(WorldKind::Flat);
        let before = c.clone();
        assert!(!c.set_pose(&[1.0, 2.0, 3.0]), "an orbit pose has 6 numbers");
        assert!(!c.set_pose(&[1.0, 2.0, 3.0, 0.1, f64::NAN, 100.0]));
        assert!(!c.set_pose(&[1.0, 2.0, f64::INFINITY, 0.1, 0.2, 100.0]));
        assert!(!c.set_pose(&[]));
        assert_eq!(c, before, "a refused pose changes nothing");
        assert!(c.set_pose(&[1.0, 2.0, 3.0, 0.1, 9.0, 1e300]));
        assert_eq!(c.pose(), vec![1.0, 2.0, 3.0, 0.1, PITCH_LIMIT, MAX_DISTANCE_M]);
    }

    #[test]
    fn camera_relative_positions_keep_precision_on_a_planet() {
        let r = 6_371_000.0;
        let mut cam = Camera::new(WorldKind::Planet { radius_m: r });
        cam.target = [r + 1000.0, 0.0, 0.0];
        cam.distance = 50.0;
        let v = cam.view(|_| None, 1.5);
        let a = v.rel([r + 1000.0, 0.0, 0.0]);
        let b = v.rel([r + 1000.0, 0.1, 0.0]);
        // 0.1 m apart stays 0.1 m apart after the f32 conversion (an absolute f32 would round to 0.5 m).
        assert!(((b[1] - a[1]) - 0.1).abs() < 1e-4, "{a:?} {b:?}");
        assert!((a[0] as f64 + v.eye[0] - (r + 1000.0)).abs() < 1e-3);
    }

    #[test]
    fn planet_up_is_radial_at_the_target_and_flat_up_is_z() {
        let r = 600_000.0;
        let mut cam = Camera::new(WorldKind::Planet { radius_m: r });
        cam.target = [0.0, r, 0.0];
        cam.pitch = 0.3;
        let v = cam.view(|_| None, 1.0);
        assert!(dot(v.up, [0.0, 1.0, 0.0]) > 0.9, "{:?}", v.up);
        // Eye is above the surface at the target.
        assert!(len(v.eye) > r);
        let mut flat = Camera::new(WorldKind::Flat);
        flat.pitch = 0.3;
        let v = flat.view(|_| None, 1.0);
        assert!(v.up[2] > 0.9 && v.eye[2] > 0.0);
    }

    #[test]
    fn follow_keeps_the_orbit_offset() {
        let mut cam = Camera::new(WorldKind::Flat);
        cam.follow = Some(7);
        cam.set_mode(CameraMode::Follow, None);
        let e1 = [inst(7, [100.0, 50.0, 20.0])];
        let v1 = cam.view(|id| e1.iter().find(|i| i.id == id), 1.0);
        let e2 = [inst(7, [400.0, -20.0, 80.0])];
        let v2 = cam.view(|id| e2.iter().find(|i| i.id == id), 1.0);
        let o1 = sub(v1.eye, e1[0].pos);
        let o2 = sub(v2.eye, e2[0].pos);
        assert!(len(sub(o1, o2)) < 1e-9);
        // Looking at the entity: it projects to the centre.
        let p = v2.project(e2[0].pos, 200.0, 100.0).unwrap();
        assert!((p[0] - 100.0).abs() < 1e-6 && (p[1] - 50.0).abs() < 1e-6);
    }

    #[test]
    fn first_person_looks_along_body_x() {
        let mut cam = Camera::new(WorldKind::Flat);
        cam.follow = Some(1);
        cam.set_mode(CameraMode::FirstPerson, None);
        let mut e = inst(1, [10.0, 0.0, 100.0]);
        e.orient = qaxis([0.0, 0.0, 1.0], std::f64::consts::FRAC_PI_2); // nose to +Y
        let es = [e];
        let v = cam.view(|id| es.iter().find(|i| i.id == id), 1.0);
        assert!(dot(v.forward, [0.0, 1.0, 0.0]) > 0.999);
        assert!((v.eye[2] - 101.7).abs() < 1e-9);
    }

    #[test]
    fn free_camera_flies_and_projection_round_trips() {
        let mut cam = Camera::new(WorldKind::Flat);
        cam.free_pos = [0.0, 0.0, 10.0];
        cam.set_mode(CameraMode::Free, None);
        cam.fly(100.0, 0.0, 5.0); // yaw 0 = east
        assert!((cam.free_pos[0] - 100.0).abs() < 1e-9 && (cam.free_pos[2] - 15.0).abs() < 1e-9);
        let v = cam.view(|_| None, 2.0);
        let target = [300.0, 40.0, 30.0];
        let p = v.project(target, 800.0, 400.0).unwrap();
        let dir = v.ray(p[0], p[1], 800.0, 400.0);
        let want = norm_or(sub(target, v.eye), [0.0; 3]);
        assert!(dot(dir, want) > 0.999_999);
        // The matrix agrees with project().
        let m = v.view_proj_rel();
        let r = v.rel(target);
        let clip: Vec<f32> =
            (0..4).map(|row| (0..3).map(|c| m[c * 4 + row] * r[c]).sum::<f32>() + m[12 + row]).collect();
        let xn = clip[0] / clip[3];
        assert!((((xn as f64) + 1.0) * 400.0 - p[0]).abs() < 1e-2);
        assert!(clip[2] / clip[3] > 0.0 && clip[2] / clip[3] < 1.0);
    }
}
