//! Everything the renderer computes on the CPU each frame, with no GPU types: interpolation,
//! camera, trails, flashes, per-instance data, picking and label positions. The GPU side
//! ([`super::gpu`]) only uploads what [`Scene::build`] produces.

use std::collections::{HashMap, VecDeque};

use super::mesh::{MIN_SIZE_PX, NOMINAL_SIZE_M};
use crate::model::{flags, Category, WorldKind};
use crate::player::camera::local_frame;
use crate::player::vec::{dot, len, madd, scale, sub, V3};
use crate::player::{interpolate, Camera, CameraMode, Instance, View};

/// Colours by faction index (repeats after 14): the Okabe–Ito palette (colour-blind safe), then
/// seven of Paul Tol's "muted" scheme (also made for colour-blind viewers), which keep apart from the
/// first seven, the most distinct first (the closest pairs, teal and green, rose and pink, come
/// last) — a SparkEngine match gives each player a faction of its own (up to 14 distinct).
/// `www/api/player.ts` FACTION_COLOURS is the same list (the roster's swatches).
pub const FACTION_RGB: [[f32; 3]; 14] = [
    [0.0, 0.447, 0.698],   // #0072B2 blue
    [0.902, 0.624, 0.0],   // #E69F00 orange
    [0.0, 0.620, 0.451],   // #009E73 green
    [0.800, 0.475, 0.655], // #CC79A7 pink
    [0.337, 0.706, 0.914], // #56B4E9 sky
    [0.835, 0.369, 0.0],   // #D55E00 vermillion
    [0.941, 0.894, 0.259], // #F0E442 yellow
    [0.533, 0.133, 0.333], // #882255 wine
    [0.600, 0.600, 0.200], // #999933 olive
    [0.667, 0.267, 0.600], // #AA4499 purple
    [0.867, 0.867, 0.867], // #DDDDDD pale grey
    [0.800, 0.400, 0.467], // #CC6677 rose
    [0.867, 0.800, 0.467], // #DDCC77 sand
    [0.267, 0.667, 0.600], // #44AA99 teal
];
pub const DEAD_RGB: [f32; 3] = [0.27, 0.27, 0.29];
/// Background #10141c.
pub const BACKGROUND: [f64; 3] = [16.0 / 255.0, 20.0 / 255.0, 28.0 / 255.0];

pub const FLASH_SECONDS: f64 = 0.6;
const TRAIL_SAMPLE_S: f64 = 1.0 / 30.0;
const TRAIL_MAX_SAMPLES: usize = 600;
const SEEK_BACK_S: f64 = 0.25;
const PICK_RADIUS_PX: f64 = 14.0;
/// Most trail segments drawn per frame, all entities together (line-list vertices = 2×). Trails
/// are sampled more sparsely as their number grows (`Scene::trail_interval`), and should they still
/// exceed it (e.g. just after the entity count jumped) every trail is drawn with every k-th sample,
/// so a 2,000-entity scene uploads ~1 MB of lines a frame instead of ~17 MB; 200 entities × 4 s at
/// 30 samples/s fit whole.
pub const TRAIL_SEGMENT_BUDGET: usize = 24_000;

/// Floats per entity instance: rel pos (3), scale (1), rotation (4), colour (4).
pub const INSTANCE_FLOATS: usize = 12;
/// How opaque a ghost (Compare's second recording) is drawn.
pub const GHOST_ALPHA: f32 = 0.45;
/// Floats per line vertex: rel pos (3), colour (4).
pub const LINE_FLOATS: usize = 7;
/// Floats per flash instance: rel centre (3), radius (1), colour (4).
pub const FLASH_FLOATS: usize = 8;
/// Floats in the per-frame uniform (see shaders/*.wgsl `Frame`).
pub const UNIFORM_FLOATS: usize = 44;

pub fn faction_rgb(faction: u8) -> [f32; 3] {
    FACTION_RGB.get(usize::from(faction) % FACTION_RGB.len()).copied().unwrap_or([1.0; 3])
}

struct Flash {
    pos: V3,
    t0: f64,
    rgb: [f32; 3],
}

/// What one frame draws, in upload-ready f32 arrays.
#[derive(Default)]
pub struct FrameData {
    pub uniform: Vec<f32>,
    /// Entity instances grouped by category (index = `Category as usize`).
    pub instances: Vec<f32>,
    /// (first instance, count) per category.
    pub groups: [(u32, u32); 5],
    /// The selected entity, inflated, flat colour (drawn with front faces culled).
    pub outline: Vec<f32>,
    pub outline_category: usize,
    pub lines: Vec<f32>,
    pub flashes: Vec<f32>,
    /// A second recording's entities (Compare: B over A), translucent, grouped by category as
    /// `instances` are; empty without one.
    pub ghosts: Vec<f32>,
    pub ghost_groups: [(u32, u32); 5],
}

/// Projected entity for picking / labels.
#[derive(Clone, Copy, Debug)]
pub struct Projected {
    pub id: u32,
    pub x: f64,
    pub y: f64,
    pub depth: f64,
    pub radius_px: f64,
    pub visible: bool,
}

/// Two packed frames (docs/renderer.md `setFrames`) at times `ta <= tb`: what is interpolated.
#[derive(Default)]
struct FramePair {
    a: Vec<i32>,
    ta: f64,
    b: Vec<i32>,
    tb: f64,
}

impl FramePair {
    fn set(&mut self, a: &[i32], ta: f64, b: &[i32], tb: f64) {
        self.a.clear();
        self.a.extend_from_slice(a);
        self.b.clear();
        self.b.extend_from_slice(b);
        (self.ta, self.tb) = (ta, tb);
    }

    /// On by one frame: the old B becomes A (no copy), `b` is copied.
    fn push(&mut self, b: &[i32], tb: f64) {
        std::mem::swap(&mut self.a, &mut self.b);
        self.ta = self.tb;
        self.b.clear();
        self.b.extend_from_slice(b);
        self.tb = tb;
    }

    /// The instances at time `t` (none for two empty frames).
    fn interpolate(&self, t: f64, quantum: f64, out: &mut Vec<Instance>) {
        interpolate(&self.a, self.ta, &self.b, self.tb, t, quantum, out);
    }
}

pub struct Scene {
    pub world: WorldKind,
    pub quantum: f64,
    pub categories: Vec<u8>,
    /// The two packed frames the playhead is between.
    frames: FramePair,
    pub t: f64,
    pub instances: Vec<Instance>,
    pub camera: Camera,
    pub selected: Option<u32>,
    trails: HashMap<u32, VecDeque<(f64, V3)>>,
    pub trail_seconds: f64,
    last_trail_t: Option<f64>,
    flashes: Vec<Flash>,
    /// Viewport in CSS pixels and the device pixel ratio.
    pub css_w: f64,
    pub css_h: f64,
    pub dpr: f64,
    pub last_view: Option<View>,
    projected: Vec<Projected>,
    auto_fit: bool,
    sorted: Vec<(usize, usize)>,
    /// Frames changed since the last interpolation (`set_frames` defers it to `set_time`/`build`).
    dirty: bool,
    /// Scratch for `labels_near`: (depth, index into `projected`).
    near: Vec<(f64, usize)>,
    /// A second recording drawn translucent over this one (Compare's ghosts of B over A): its
    /// frame pair on the same clock, interpolated at the same `t`; empty without one.
    ghost: FramePair,
    pub ghosts: Vec<Instance>,
}

impl Scene {
    pub fn new() -> Scene {
        let world = WorldKind::Flat;
        Scene {
            world,
            quantum: 0.01,
            categories: Vec::new(),
            frames: FramePair::default(),
            t: 0.0,
            instances: Vec::new(),
            camera: Camera::new(world),
            selected: None,
            trails: HashMap::new(),
            trail_seconds: 4.0,
            last_trail_t: None,
            flashes: Vec::new(),
            css_w: 1.0,
            css_h: 1.0,
            dpr: 1.0,
            last_view: None,
            projected: Vec::new(),
            auto_fit: true,
            sorted: Vec::new(),
            dirty: false,
            near: Vec::new(),
            ghost: FramePair::default(),
            ghosts: Vec::new(),
        }
    }

    pub fn set_world(&mut self, world: WorldKind, quantum: f64) {
        self.world = world;
        self.quantum = quantum;
        self.camera = Camera::new(world);
        self.auto_fit = true;
        self.clear_trails();
        self.flashes.clear();
    }

    pub fn set_frames(&mut self, a: &[i32], ta: f64, b: &[i32], tb: f64) {
        self.frames.set(a, ta, b, tb);
        // Interpolated by the next `set_time` (the shell calls it right after) or `build`: one
        // interpolation per frame, not two.
        self.dirty = true;
    }

    /// The next pair when playback moves on by one frame: the old B becomes A (no copy) and only
    /// `b` is copied. Same as `set_frames(old_b, old_tb, b, tb)`.
    pub fn push_frame(&mut self, b: &[i32], tb: f64) {
        self.frames.push(b, tb);
        self.dirty = true;
    }

    /// The ghosts' frame pair (packed frames as `set_frames` takes them, at times on the same
    /// clock); two empty frames remove them.
    pub fn set_ghost_frames(&mut self, a: &[i32], ta: f64, b: &[i32], tb: f64) {
        self.ghost.set(a, ta, b, tb);
        self.dirty = true;
    }

    fn refresh(&mut self) {
        self.dirty = false;
        self.frames.interpolate(self.t, self.quantum, &mut self.instances);
        self.ghost.interpolate(self.t, self.quantum, &mut self.ghosts);
    }

    /// Sets the playback time: interpolates, advances trails and expires flashes.
    pub fn set_time(&mut self, t: f64) {
        if !t.is_finite() {
            return;
        }
        if let Some(last) = self.last_trail_t {
            if t < last - SEEK_BACK_S {
                self.clear_trails();
            }
        }
        self.flashes.retain(|f| t >= f.t0 - 0.05 && t - f.t0 < FLASH_SECONDS);
        self.t = t;
        self.refresh();
        if self.auto_fit && !self.instances.is_empty() {
            self.camera.fit(&self.instances);
            self.auto_fit = false;
        }
        self.push_trails();
    }

    /// Seconds between two stored trail samples: 1/30 s while every trail fits the segment
    /// budget whole; with more trails, longer, so that `trails` × samples stays within the budget
    /// (2,000 trails × 4 s: a sample every 0.4 s, 10 per trail instead of 120). Sampling sparsely
    /// gives the same picture as storing densely and drawing every k-th sample, without keeping,
    /// walking and skipping the samples never drawn (`examples/scene_bench.rs`, 2,000 entities: 1.9 →
    /// 0.83 ms a frame natively, p50).
    fn trail_interval(&self, trails: usize) -> f64 {
        let per_trail = (TRAIL_SEGMENT_BUDGET / trails.max(1)).saturating_sub(2).max(1);
        TRAIL_SAMPLE_S.max(self.trail_seconds / per_trail as f64)
    }

    fn push_trails(&mut self) {
        let t = self.t;
        let keep = self.trail_seconds.max(0.0);
        if keep <= 0.0 {
            self.trails.clear();
            self.last_trail_t = Some(t);
            return;
        }
        let interval = self.trail_interval(self.trails.len().max(self.instances.len()));
        for i in &self.instances {
            if i.flags & flags::ALIVE == 0 {
                continue;
            }
            let trail = self.trails.entry(i.id).or_default();
            let due = trail.back().is_none_or(|(lt, _)| t - lt >= interval || t < *lt);
            if due {
                trail.push_back((t, i.pos));
                if trail.len() > TRAIL_MAX_SAMPLES {
                    trail.pop_front();
                }
            }
        }
        for trail in self.trails.values_mut() {
            while trail.front().is_some_and(|(st, _)| t - st > keep) {
                trail.pop_front();
            }
        }
        self.trails.retain(|_, tr| !tr.is_empty());
        self.last_trail_t = Some(t);
    }

    pub fn clear_trails(&mut self) {
        self.trails.clear();
        self.last_trail_t = None;
    }

    /// Interpolates now if `set_frames` changed the frames since the last interpolation.
    fn ensure_fresh(&mut self) {
        if self.dirty {
            self.refresh();
        }
    }

    pub fn find(&self, id: u32) -> Option<&Instance> {
        self.instances.binary_search_by_key(&id, |i| i.id).ok().and_then(|k| self.instances.get(k))
    }

    pub fn flash_entity(&mut self, id: u32) {
        self.ensure_fresh();
        if let Some(i) = self.find(id).copied() {
            self.flashes.push(Flash { pos: i.pos, t0: self.t, rgb: [1.0, 0.55, 0.15] });
        }
    }

    pub fn flash_at(&mut self, q: [f64; 3]) {
        let pos = scale(q, self.quantum);
        if pos.iter().all(|v| v.is_finite()) {
            self.flashes.push(Flash { pos, t0: self.t, rgb: [1.0, 0.55, 0.15] });
        }
    }

    pub fn fit_camera(&mut self) {
        self.ensure_fresh();
        self.camera.fit(&self.instances);
        self.auto_fit = self.instances.is_empty();
    }

    /// Applies a camera pose of the current mode (a share link's view: [`Camera::set_pose`]); once
    /// one is applied the new world's automatic fit does not move the camera again.
    pub fn set_camera_pose(&mut self, pose: &[f64]) -> bool {
        let ok = self.camera.set_pose(pose);
        if ok {
            self.auto_fit = false;
        }
        ok
    }

    pub fn set_camera_mode(&mut self, mode: CameraMode) {
        let current = self.last_view;
        self.camera.set_mode(mode, current.as_ref());
    }

    fn category(&self, type_index: u16) -> usize {
        Category::from_u8(self.categories.get(usize::from(type_index)).copied().unwrap_or(0)) as usize
    }

    fn px_w(&self) -> f64 {
        (self.css_w * self.dpr).max(1.0)
    }
    fn px_h(&self) -> f64 {
        (self.css_h * self.dpr).max(1.0)
    }

    /// Is world point `p` hidden from `eye` by the ground (planet sphere or the plane z = 0)?
    fn occluded(&self, eye: V3, p: V3) -> bool {
        match self.world {
            WorldKind::Flat => (eye[2] >= 0.0) != (p[2] >= -1.0),
            WorldKind::Planet { radius_m } => {
                let d = sub(p, eye);
                let dist = len(d);
                if dist <= 0.0 {
                    return false;
                }
                let dir = scale(d, 1.0 / dist);
                // Slightly smaller sphere so things on the surface still count as visible.
                let r = radius_m - 30.0;
                let b = dot(dir, eye);
                let c = dot(eye, eye) - r * r;
                let disc = b * b - c;
                if c <= 0.0 || disc < 0.0 || b >= 0.0 {
                    return false;
                }
                let t_hit = c / (-b + disc.sqrt());
                t_hit < dist
            }
        }
    }

    /// Drawn size (metres per mesh unit) of an instance at distance `depth`.
    fn drawn_scale(&self, view: &View, cat: usize, depth: f64) -> f64 {
        let nominal = NOMINAL_SIZE_M.get(cat).copied().unwrap_or(4.0);
        let min_px = MIN_SIZE_PX.get(cat).copied().unwrap_or(12.0) * self.dpr;
        nominal.max(view.metres_per_pixel(depth, self.px_h()) * min_px)
    }

    /// Computes the camera and everything to upload for one frame.
    pub fn build(&mut self, out: &mut FrameData, srgb_target: bool) {
        self.ensure_fresh();
        let (w, h) = (self.px_w(), self.px_h());
        let instances = std::mem::take(&mut self.instances);
        let view = self
            .camera
            .view(|id| instances.binary_search_by_key(&id, |i| i.id).ok().and_then(|k| instances.get(k)), w / h);
        self.instances = instances;
        self.last_view = Some(view);

        self.build_uniform(&view, srgb_target, &mut out.uniform);

        // Entities, grouped by category; projections for pick/labels.
        out.instances.clear();
        out.outline.clear();
        out.lines.clear();
        out.flashes.clear();
        self.projected.clear();
        self.sorted.clear();
        for (k, i) in self.instances.iter().enumerate() {
            self.sorted.push((self.category(i.type_index), k));
        }
        self.sorted.sort_unstable();
        out.groups = [(0, 0); 5];
        let sorted = std::mem::take(&mut self.sorted);
        let hidden = self.hidden_id();
        for &(cat, k) in &sorted {
            let Some(i) = self.instances.get(k).copied() else {
                continue;
            };
            if Some(i.id) == hidden {
                continue;
            }
            let depth = dot(sub(i.pos, view.eye), view.forward).max(view.near);
            let s = self.drawn_scale(&view, cat, depth);
            let alive = i.flags & flags::ALIVE != 0;
            let selected = self.selected == Some(i.id);
            let rgb = if alive { faction_rgb(i.faction) } else { DEAD_RGB };
            let s_draw = if selected { s * 1.3 } else { s };
            let rel = view.rel(i.pos);
            let rot = i.orient.map(|c| c as f32);
            out.instances.extend_from_slice(&[rel[0], rel[1], rel[2], s_draw as f32]);
            out.instances.extend_from_slice(&rot);
            out.instances.extend_from_slice(&[rgb[0], rgb[1], rgb[2], if selected { 1.0 } else { 0.0 }]);
            if let Some(g) = out.groups.get_mut(cat) {
                if g.1 == 0 {
                    g.0 = ((out.instances.len() / INSTANCE_FLOATS) - 1) as u32;
                }
                g.1 += 1;
            }
            if selected {
                out.outline_category = cat;
                out.outline.extend_from_slice(&[rel[0], rel[1], rel[2], (s_draw * 1.18) as f32]);
                out.outline.extend_from_slice(&rot);
                out.outline.extend_from_slice(&[1.0, 1.0, 1.0, 0.0]);
                self.ring(&view, i.pos, s_draw * 0.85, &mut out.lines);
            }
            let proj = view.project(i.pos, w, h);
            let radius_px = s_draw / view.metres_per_pixel(depth, h).max(1e-12) * 0.5 / self.dpr;
            let (x, y, d) = proj.map(|p| (p[0] / self.dpr, p[1] / self.dpr, p[2])).unwrap_or((-1.0, -1.0, -1.0));
            let inside = proj.is_some() && x >= 0.0 && y >= 0.0 && x <= self.css_w && y <= self.css_h;
            let visible = inside && !self.occluded(view.eye, i.pos);
            self.projected.push(Projected { id: i.id, x, y, depth: d, radius_px, visible });
        }
        self.sorted = sorted;
        self.projected.sort_unstable_by_key(|p| p.id);

        self.build_ghosts(&view, out);
        self.build_trails(&view, &mut out.lines);
        self.build_flashes(&view, &mut out.flashes);
    }

    /// The ghosts' instances, grouped by category (at most a few hundred: sorted here, not kept).
    /// Sized as the entities are; their colour is the faction's, lightened: the shader draws them
    /// translucent over the opaque scene.
    fn build_ghosts(&self, view: &View, out: &mut FrameData) {
        out.ghosts.clear();
        out.ghost_groups = [(0, 0); 5];
        if self.ghosts.is_empty() {
            return;
        }
        let mut order: Vec<(usize, usize)> =
            self.ghosts.iter().enumerate().map(|(k, g)| (self.category(g.type_index), k)).collect();
        order.sort_unstable();
        for (cat, k) in order {
            let Some(g) = self.ghosts.get(k) else {
                continue;
            };
            let depth = dot(sub(g.pos, view.eye), view.forward).max(view.near);
            let s = self.drawn_scale(view, cat, depth);
            let rgb = if g.flags & flags::ALIVE != 0 { faction_rgb(g.faction) } else { DEAD_RGB };
            let rel = view.rel(g.pos);
            out.ghosts.extend_from_slice(&[rel[0], rel[1], rel[2], s as f32]);
            out.ghosts.extend_from_slice(&g.orient.map(|c| c as f32));
            out.ghosts.extend_from_slice(&[rgb[0], rgb[1], rgb[2], GHOST_ALPHA]);
            if let Some(grp) = out.ghost_groups.get_mut(cat) {
                if grp.1 == 0 {
                    grp.0 = ((out.ghosts.len() / INSTANCE_FLOATS) - 1) as u32;
                }
                grp.1 += 1;
            }
        }
    }

    fn build_uniform(&self, view: &View, srgb_target: bool, u: &mut Vec<f32>) {
        u.clear();
        u.extend_from_slice(&view.view_proj_rel());
        let tan = (view.fov_y * 0.5).tan();
        let push4 =
            |u: &mut Vec<f32>, v: V3, w: f64| u.extend_from_slice(&[v[0] as f32, v[1] as f32, v[2] as f32, w as f32]);
        push4(u, scale(view.right, tan * view.aspect), self.px_w());
        push4(u, scale(view.up, tan), self.px_h());
        push4(u, view.forward, view.near);
        let (e, n, up) = local_frame(self.world, self.camera.target);
        let light = madd(madd(scale(e, 0.35), n, -0.45), up, 0.82);
        let light = scale(light, 1.0 / len(light).max(1e-9));
        push4(u, light, 0.38);
        match self.world {
            WorldKind::Flat => {
                let hgt = view.eye[2].abs().max(1.0);
                let spacing = 10f64.powf((hgt.max(10.0).log10().floor() - 1.0).max(0.0));
                push4(u, [1.0, 0.0, view.eye[2]], spacing);
                let period = spacing * 10.0;
                let fade = 3000.0 + hgt * 40.0;
                push4(u, [view.eye[0].rem_euclid(period), view.eye[1].rem_euclid(period), 0.0], fade);
            }
            WorldKind::Planet { radius_m } => {
                let c = dot(view.eye, view.eye) - radius_m * radius_m;
                push4(u, [2.0, radius_m, c], 0.0);
                push4(u, view.eye, 0.0);
            }
        }
        u.extend_from_slice(&[if srgb_target { 1.0 } else { 0.0 }, self.t as f32, self.dpr as f32, 0.0]);
    }

    /// A circle around `p` in the local horizontal plane.
    fn ring(&self, view: &View, p: V3, radius: f64, lines: &mut Vec<f32>) {
        let (e, n, _) = local_frame(self.world, p);
        let seg = 40;
        let point = |k: usize| {
            let a = k as f64 / seg as f64 * std::f64::consts::TAU;
            madd(madd(p, e, radius * a.cos()), n, radius * a.sin())
        };
        for k in 0..seg {
            for q in [point(k), point(k + 1)] {
                let r = view.rel(q);
                lines.extend_from_slice(&[r[0], r[1], r[2], 1.0, 1.0, 1.0, 0.95]);
            }
        }
    }

    /// The entity the camera sits in (first person): not drawn, no label.
    fn hidden_id(&self) -> Option<u32> {
        if self.camera.mode == CameraMode::FirstPerson {
            self.camera.follow
        } else {
            None
        }
    }

    fn build_trails(&self, view: &View, lines: &mut Vec<f32>) {
        if self.trail_seconds <= 0.0 {
            return;
        }
        let keep = self.trail_seconds;
        let hidden = self.hidden_id();
        let total: usize = self.trails.values().map(VecDeque::len).sum();
        // Every `step`-th sample (the newest always) when all trails together exceed the budget.
        let step = total.div_ceil(TRAIL_SEGMENT_BUDGET).max(1);
        lines.reserve((total / step + self.trails.len()) * 2 * LINE_FLOATS);
        for i in &self.instances {
            if Some(i.id) == hidden {
                continue;
            }
            let Some(trail) = self.trails.get(&i.id) else {
                continue;
            };
            let n = trail.len();
            let rgb = if i.flags & flags::ALIVE != 0 { faction_rgb(i.faction) } else { DEAD_RGB };
            let mut prev: Option<(f64, V3)> = None;
            let current = (self.t, i.pos);
            // Keep samples whose distance from the newest is a multiple of `step`.
            let kept = trail.iter().enumerate().filter(|(k, _)| (n - 1 - k) % step == 0).map(|(_, s)| s);
            for &(st, sp) in kept.chain(std::iter::once(&current)) {
                if let Some((pt, pp)) = prev {
                    let a0 = (1.0 - (self.t - pt) / keep).clamp(0.0, 1.0) * 0.85;
                    let a1 = (1.0 - (self.t - st) / keep).clamp(0.0, 1.0) * 0.85;
                    let (r0, r1) = (view.rel(pp), view.rel(sp));
                    lines.extend_from_slice(&[r0[0], r0[1], r0[2], rgb[0], rgb[1], rgb[2], a0 as f32]);
                    lines.extend_from_slice(&[r1[0], r1[1], r1[2], rgb[0], rgb[1], rgb[2], a1 as f32]);
                }
                prev = Some((st, sp));
            }
        }
    }

    fn build_flashes(&self, view: &View, out: &mut Vec<f32>) {
        for f in &self.flashes {
            let age = (self.t - f.t0).clamp(0.0, FLASH_SECONDS);
            let k = age / FLASH_SECONDS;
            let depth = dot(sub(f.pos, view.eye), view.forward);
            if depth <= view.near {
                continue;
            }
            let base = 12f64.max(view.metres_per_pixel(depth, self.px_h()) * 28.0 * self.dpr);
            let radius = base * (0.5 + 1.8 * k);
            let intensity = (1.0 - k).powf(1.5);
            let r = view.rel(f.pos);
            out.extend_from_slice(&[r[0], r[1], r[2], radius as f32, f.rgb[0], f.rgb[1], f.rgb[2], intensity as f32]);
        }
    }

    /// Entity nearest to the CSS pixel (x, y) within its drawn radius (at least 14 px), or `None`.
    pub fn pick(&self, x: f64, y: f64) -> Option<u32> {
        let mut best: Option<(f64, f64, u32)> = None;
        for p in &self.projected {
            if p.depth <= 0.0 || !p.visible {
                continue;
            }
            let d = ((p.x - x).powi(2) + (p.y - y).powi(2)).sqrt();
            if d <= p.radius_px.max(PICK_RADIUS_PX) {
                let better = match best {
                    None => true,
                    Some((bd, bdepth, _)) => d < bd - 2.0 || (d <= bd + 2.0 && p.depth < bdepth),
                };
                if better {
                    best = Some((d, p.depth, p.id));
                }
            }
        }
        best.map(|b| b.2)
    }

    /// [id, x, y, 1] for at most `max` visible entities nearest to the camera, nearest first,
    /// from the last build (the label candidates: `labels` lists every entity).
    pub fn labels_near(&mut self, max: usize, out: &mut Vec<f64>) {
        out.clear();
        self.near.clear();
        for (k, p) in self.projected.iter().enumerate() {
            if p.visible {
                self.near.push((p.depth, k));
            }
        }
        let by_depth = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
        if self.near.len() > max {
            if max == 0 {
                self.near.clear();
            } else {
                self.near.select_nth_unstable_by(max - 1, by_depth);
                self.near.truncate(max);
            }
        }
        self.near.sort_unstable_by(by_depth);
        for &(_, k) in &self.near {
            if let Some(p) = self.projected.get(k) {
                out.extend_from_slice(&[f64::from(p.id), p.x, p.y, 1.0]);
            }
        }
    }

    /// [id, x, y, visible] of entity `id` from the last build, or `None` when it was not drawn.
    pub fn label_of(&self, id: u32) -> Option<[f64; 4]> {
        let k = self.projected.binary_search_by_key(&id, |p| p.id).ok()?;
        let p = self.projected.get(k)?;
        Some([f64::from(p.id), p.x, p.y, if p.visible { 1.0 } else { 0.0 }])
    }

    /// [id, x, y, visible] per entity (CSS px), from the last build.
    pub fn labels(&self, out: &mut Vec<f64>) {
        out.clear();
        for p in &self.projected {
            out.extend_from_slice(&[f64::from(p.id), p.x, p.y, if p.visible { 1.0 } else { 0.0 }]);
        }
    }
}

impl Default for Scene {
    fn default() -> Self {
        Scene::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{pack_entities, EntityState};

    /// A scene of a flat world with `quantum`, drawn on an 800 × 600 canvas.
    fn flat_scene(quantum: f64) -> Scene {
        let mut s = Scene::new();
        s.set_world(WorldKind::Flat, quantum);
        s.css_w = 800.0;
        s.css_h = 600.0;
        s
    }

    fn frame(es: &[(u32, i32, u8, u32)]) -> Vec<i32> {
        let states: Vec<EntityState> = es
            .iter()
            .map(|&(id, x, faction, fl)| EntityState {
                id,
                faction,
                pos: [x, 0, 1000],
                orient: [0, 0, 0, 32767],
                flags: fl,
                ..Default::default()
            })
            .collect();
        let mut v = Vec::new();
        pack_entities(&states, &mut v);
        v
    }

    #[test]
    fn a_pose_set_before_the_first_frame_is_not_fitted_away() {
        let mut s = Scene::new();
        s.set_world(WorldKind::Flat, 0.01);
        assert!(s.set_camera_pose(&[10.0, 20.0, 30.0, 0.4, 0.3, 250.0]));
        let f = frame(&[(1, 0, 0, 1), (2, 900_000, 1, 1)]);
        s.set_frames(&f, 0.0, &f, 1.0);
        s.set_time(0.5);
        assert_eq!(s.camera.pose(), vec![10.0, 20.0, 30.0, 0.4, 0.3, 250.0]);
        assert!(!s.set_camera_pose(&[1.0]), "not an orbit pose");
        // Without a pose the first frame fits the camera to the entities.
        let mut fitted = Scene::new();
        fitted.set_world(WorldKind::Flat, 0.01);
        fitted.set_frames(&f, 0.0, &f, 1.0);
        fitted.set_time(0.5);
        assert_ne!(fitted.camera.pose(), vec![10.0, 20.0, 30.0, 0.4, 0.3, 250.0]);
        assert_ne!(fitted.camera.pose(), Camera::new(WorldKind::Flat).pose());
    }

    /// Compare's ghosts: B's pair is interpolated at the scene's time like A's, drawn as a group of
    /// its own (translucent colour), never picked or labelled; two empty frames remove them.
    #[test]
    fn ghosts_follow_the_clock_and_go_when_emptied() {
        let mut s = flat_scene(0.01);
        let a = frame(&[(1, 0, 0, 1), (2, 5000, 1, 1)]);
        s.set_frames(&a, 0.0, &a, 1.0);
        // B: entity 1 one metre further at 0 s, three metres further at 1 s; entity 9 only in B.
        let (ga, gb) = (frame(&[(1, 100, 0, 1), (9, 7000, 2, 1)]), frame(&[(1, 300, 0, 1), (9, 7000, 2, 1)]));
        s.set_ghost_frames(&ga, 0.0, &gb, 1.0);
        s.set_time(0.5);
        assert_eq!(s.ghosts.len(), 2);
        let g1 = s.ghosts.iter().find(|g| g.id == 1).map(|g| g.pos[0]);
        assert!(g1.is_some_and(|x| (x - 2.0).abs() < 1e-9), "B's entity 1 halfway: {g1:?}");
        let mut out = FrameData::default();
        s.build(&mut out, false);
        assert_eq!(out.ghosts.len(), 2 * INSTANCE_FLOATS);
        assert_eq!(out.ghost_groups.iter().map(|g| g.1).sum::<u32>(), 2);
        assert!(out.ghosts.chunks_exact(INSTANCE_FLOATS).all(|g| g.get(11) == Some(&GHOST_ALPHA)));
        assert_eq!(out.instances.len(), 2 * INSTANCE_FLOATS, "A's entities are drawn as before");
        assert_eq!(s.pick(-100.0, -100.0), None);
        let mut labels = Vec::new();
        s.labels(&mut labels);
        assert!(!labels.chunks_exact(4).any(|l| l.first() == Some(&9.0)), "a ghost has no label");
        s.set_ghost_frames(&[], 0.0, &[], 0.0);
        s.build(&mut out, false);
        assert!(s.ghosts.is_empty() && out.ghosts.is_empty());
        assert_eq!(out.ghost_groups, [(0, 0); 5]);
    }

    #[test]
    fn build_groups_colours_and_picks() {
        let mut s = flat_scene(0.01);
        s.categories = vec![1, 3];
        let f = frame(&[(1, 0, 0, 1), (2, 5000, 1, 1), (3, -5000, 1, 0)]);
        s.set_frames(&f, 0.0, &f, 1.0);
        s.set_time(0.5);
        s.selected = Some(2);
        let mut out = FrameData::default();
        s.build(&mut out, false);
        assert_eq!(out.uniform.len(), UNIFORM_FLOATS);
        assert_eq!(out.instances.len(), 3 * INSTANCE_FLOATS);
        assert_eq!(out.outline.len(), INSTANCE_FLOATS);
        // Dead entity 3 is grey; entity 1 is faction-0 blue.
        let colours: Vec<&[f32]> = out.instances.chunks(INSTANCE_FLOATS).map(|c| &c[8..11]).collect();
        assert!(colours.contains(&&DEAD_RGB[..]));
        assert!(colours.contains(&&FACTION_RGB[0][..]));
        let mut labels = Vec::new();
        s.labels(&mut labels);
        assert_eq!(labels.len(), 12);
        // The camera was auto-fitted: every entity is on screen and pickable at its label position.
        for l in labels.chunks(4) {
            assert_eq!(l[3], 1.0, "{labels:?}");
            assert_eq!(s.pick(l[1], l[2]), Some(l[0] as u32));
        }
        assert_eq!(s.pick(-100.0, -100.0), None);
    }

    #[test]
    fn trails_grow_and_seeking_back_clears_them() {
        let mut s = Scene::new();
        s.set_world(WorldKind::Flat, 1.0);
        let a = frame(&[(1, 0, 0, 1)]);
        let b = frame(&[(1, 100, 0, 1)]);
        s.set_frames(&a, 0.0, &b, 10.0);
        for k in 0..100 {
            s.set_time(k as f64 * 0.05);
        }
        let n = s.trails.get(&1).map(|t| t.len()).unwrap_or(0);
        assert!(n > 40 && n <= 81, "{n}"); // 4 s at >= 1/30 s spacing, sampled every 0.05 s
        s.set_time(1.0);
        assert!(s.trails.get(&1).map(|t| t.len()).unwrap_or(0) <= 1);
    }

    #[test]
    fn trails_stay_within_the_segment_budget() {
        let mut s = flat_scene(1.0);
        let n = 2_000u32;
        let at = |x: i32| {
            let es: Vec<(u32, i32, u8, u32)> = (1..=n).map(|id| (id, x + id as i32 * 10, 0, 1)).collect();
            frame(&es)
        };
        let (a, b) = (at(0), at(1_000));
        s.set_frames(&a, 0.0, &b, 10.0);
        for k in 0..150 {
            s.set_time(k as f64 / 30.0);
        }
        // Sampled sparsely: 5 s at 30 samples/s would be 150 samples per trail (300,000 in all).
        let samples: usize = s.trails.values().map(VecDeque::len).sum();
        assert!(samples <= TRAIL_SEGMENT_BUDGET, "{samples}");
        assert!(s.trails.values().all(|tr| tr.len() >= 8), "each 4 s trail keeps ~10 samples");
        let mut out = FrameData::default();
        s.build(&mut out, false);
        let segments = out.lines.len() / LINE_FLOATS / 2;
        // Every stored sample is drawn, plus one segment per entity to its current position.
        assert_eq!(segments, samples, "{segments}");
        assert!(segments <= TRAIL_SEGMENT_BUDGET, "{segments}");
        assert!(segments >= TRAIL_SEGMENT_BUDGET * 3 / 4, "{segments}");
        // Trails off: nothing kept.
        s.trail_seconds = 0.0;
        s.set_time(5.1);
        assert!(s.trails.is_empty());
        // Few entities: every sample is drawn.
        let mut s = Scene::new();
        s.set_world(WorldKind::Flat, 1.0);
        let (a, b) = (frame(&[(1, 0, 0, 1)]), frame(&[(1, 100, 0, 1)]));
        s.set_frames(&a, 0.0, &b, 10.0);
        for k in 0..60 {
            s.set_time(k as f64 / 30.0);
        }
        let samples: usize = s.trails.values().map(VecDeque::len).sum();
        s.build(&mut out, false);
        assert_eq!(out.lines.len() / LINE_FLOATS / 2, samples);
    }

    #[test]
    fn set_frames_interpolates_once_by_set_time_or_build() {
        let mut s = Scene::new();
        s.set_world(WorldKind::Flat, 1.0);
        let (a, b) = (frame(&[(1, 0, 0, 1)]), frame(&[(1, 100, 0, 1)]));
        s.set_frames(&a, 0.0, &b, 1.0);
        s.set_time(0.5);
        assert!((s.instances[0].pos[0] - 50.0).abs() < 1e-9);
        // New frames without a set_time: build() still draws them (at the current time).
        // push_frame: B becomes A, the new frame B.
        s.push_frame(&frame(&[(1, 300, 0, 1)]), 2.0);
        s.set_time(1.5);
        assert!((s.instances[0].pos[0] - 200.0).abs() < 1e-9, "{:?}", s.instances[0].pos);
        let c = frame(&[(1, 200, 0, 1), (2, 0, 0, 1)]);
        s.set_frames(&c, 0.0, &c, 1.0);
        let mut out = FrameData::default();
        s.build(&mut out, false);
        assert_eq!(s.instances.len(), 2);
        assert_eq!(out.instances.len(), 2 * INSTANCE_FLOATS);
    }

    #[test]
    fn labels_near_are_the_nearest_visible_ones_first() {
        let mut s = flat_scene(1.0);
        let es: Vec<(u32, i32, u8, u32)> = (1..=50).map(|id| (id, id as i32 * 20, 0, 1)).collect();
        let f = frame(&es);
        s.set_frames(&f, 0.0, &f, 1.0);
        s.set_time(0.0);
        let mut out = FrameData::default();
        s.build(&mut out, false);
        let mut all = Vec::new();
        s.labels(&mut all);
        let mut near = Vec::new();
        s.labels_near(10, &mut near);
        assert_eq!(near.len(), 40);
        let depth = |id: f64| s.projected.iter().find(|p| f64::from(p.id) == id).map(|p| p.depth).unwrap_or(f64::NAN);
        let ds: Vec<f64> = near.chunks(4).map(|l| depth(l[0])).collect();
        assert!(ds.windows(2).all(|w| w[0] <= w[1]), "{ds:?}");
        // No visible entity left out is nearer than the 10th (ties allowed: a top-down camera).
        let visible_depths: Vec<f64> = s.projected.iter().filter(|p| p.visible).map(|p| p.depth).collect();
        assert!(visible_depths.iter().filter(|&&d| d < ds[9]).count() <= 9);
        assert!(visible_depths.iter().filter(|&&d| d <= ds[9]).count() >= 10);
        // Same positions as labels().
        for l in near.chunks(4) {
            let m = all.chunks(4).find(|m| m[0] == l[0]).unwrap();
            assert_eq!((l[1], l[2], l[3]), (m[1], m[2], 1.0));
        }
        assert_eq!(s.label_of(7).map(|l| l[0]), Some(7.0));
        assert_eq!(s.label_of(999), None);
        s.labels_near(0, &mut near);
        assert!(near.is_empty());
        s.labels_near(1000, &mut near);
        assert_eq!(near.len(), visible_depths.len() * 4);
    }

    #[test]
    fn planet_occlusion() {
        let mut s = Scene::new();
        let r = 6_371_000.0;
        s.set_world(WorldKind::Planet { radius_m: r }, 0.01);
        let eye = [r + 1000.0, 0.0, 0.0];
        assert!(!s.occluded(eye, [r + 10.0, 5000.0, 0.0]));
        assert!(s.occluded(eye, [-r, 0.0, 0.0]));
    }
}
