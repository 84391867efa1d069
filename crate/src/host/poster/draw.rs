//! The poster's drawing: pure (a [`Moment`] and the recording's info in, a pixmap or PNG out), with
//! tiny-skia. A top-down tactical map: north up, the view fitted to where the entities are and were
//! in the last seconds (the outermost few percent left out, so a stray entity far away does not
//! shrink the fight to a dot), a grid and a scale bar, trails, kill marks, entity marks in the
//! player's faction colours ([`crate::render::scene::FACTION_RGB`]) pointing where they head, a few
//! callsigns, the title and the time.
//!
//! Everything from the file is data: positions are quantized integers turned into metres (a
//! non-finite or non-positive quantum reads as 1 m), marks off the picture are skipped, strings are
//! cut to fit; zero entities still give a poster with the title.

use super::text::Glyphs;
use super::{Frame, Kill, Moment, KILL_SECONDS, TRAIL_SECONDS};
use crate::model::{flags, Category, EntityState, RecordingInfo, WorldKind};
use crate::player::camera::local_frame;
use crate::player::vec::{dot, qrot, sub, V3};
use crate::render::scene::{faction_rgb, BACKGROUND, DEAD_RGB, FACTION_RGB};
use std::collections::BTreeMap;
use tiny_skia::{Color, FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;
/// The map's box on the poster: left, top, right, bottom (below the title band, above the footer).
const MAP: [f32; 4] = [40.0, 112.0, 1160.0, 588.0];
/// The title band's height.
const HEADER: f32 = 92.0;
/// The kill marks' colour (the renderer's kill flash).
const KILL_RGB: [f32; 3] = [1.0, 0.55, 0.15];
const TEXT_RGB: [f32; 3] = [0.93, 0.95, 0.98];
const DIM_RGB: [f32; 3] = [0.62, 0.67, 0.75];
/// Most callsigns written on the map.
const MAX_LABELS: usize = 8;
/// The key of the dead entities' colour in the per-colour paths.
const DEAD: usize = FACTION_RGB.len();

/// The poster could not be made (only the PNG encoder can fail, or a pixmap not be allocated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PosterError(pub String);

impl std::fmt::Display for PosterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "poster: {}", self.0)
    }
}
impl std::error::Error for PosterError {}

/// The poster of `m` as a 1200×630 PNG.
pub fn render_png(info: &RecordingInfo, m: &Moment, title: &str) -> Result<Vec<u8>, PosterError> {
    render_png_with(info, m, title, true)
}

/// [`render_png`]; without `spoilers` the poster tells nothing past its moment (its header leaves
/// out the recording's length; kills are only ever those before the moment).
pub fn render_png_with(info: &RecordingInfo, m: &Moment, title: &str, spoilers: bool) -> Result<Vec<u8>, PosterError> {
    render_with(info, m, title, spoilers)?.encode_png().map_err(|e| PosterError(format!("PNG encoding failed: {e}")))
}

/// The poster of `m`, drawn into a 1200×630 pixmap.
pub fn render(info: &RecordingInfo, m: &Moment, title: &str) -> Result<Pixmap, PosterError> {
    render_with(info, m, title, true)
}

/// [`render`], with or without what lies past the moment ([`render_png_with`]).
pub fn render_with(info: &RecordingInfo, m: &Moment, title: &str, spoilers: bool) -> Result<Pixmap, PosterError> {
    let mut pm = Pixmap::new(WIDTH, HEIGHT).ok_or_else(|| PosterError("no 1200×630 pixmap".into()))?;
    let bg = rgb64(BACKGROUND);
    pm.fill(color(bg, 1.0));
    let mut glyphs = Glyphs::default();
    let now: &[EntityState] = m.frames.last().map_or(&[], |f| f.states.as_slice());
    let now_tick = m.frames.last().map_or(m.tick, |f| f.tick);
    let rate = f64::from(info.tick_rate_hz.max(1));
    let proj = Projection::new(info.world, now, quantum(info.position_quantum_m), quantum(info.velocity_quantum_mps));
    let trail_from = now_tick.saturating_sub((TRAIL_SECONDS * rate) as u64);
    let trail_frames: Vec<&Frame> = m.frames.iter().filter(|f| f.tick >= trail_from && f.tick < now_tick).collect();

    // Fit the view to where the entities are and were in the trails' seconds.
    let mut pts: Vec<(f64, f64)> = now.iter().map(|s| proj.xy(s)).collect();
    for f in &trail_frames {
        pts.extend(f.states.iter().filter(|s| by_id(now, s.id).is_some()).map(|s| proj.xy(s)));
    }
    let view = View::fit(&pts);
    let size = match now.len() {
        0..=300 => 9.0,
        301..=1000 => 7.0,
        _ => 5.0,
    };

    draw_grid(&mut pm, &view, &mut glyphs);
    draw_trails(&mut pm, &view, &proj, now, &trail_frames, now_tick, rate);
    draw_kills(&mut pm, &view, &proj, m, now_tick, rate);
    draw_marks(&mut pm, &view, &proj, info, now, size);
    draw_labels(&mut pm, &view, &proj, info, m, now, size, &mut glyphs);
    draw_header(&mut pm, info, m, now, now_tick, title, spoilers, &mut glyphs);
    draw_legend(&mut pm, info, now, &mut glyphs);
    if now.is_empty() {
        let msg = "No entities at this moment";
        let w = glyphs.width(msg, 24.0);
        glyphs.draw(&mut pm, msg, (WIDTH as f32 - w) / 2.0, 360.0, 24.0, DIM_RGB, 1.0, None);
    }
    Ok(pm)
}

fn rgb64(c: [f64; 3]) -> [f32; 3] {
    [c[0] as f32, c[1] as f32, c[2] as f32]
}

fn color(rgb: [f32; 3], a: f32) -> Color {
    let c = |v: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { 0.0 };
    Color::from_rgba(c(rgb[0]), c(rgb[1]), c(rgb[2]), c(a)).unwrap_or(Color::WHITE)
}

fn paint(rgb: [f32; 3], a: f32) -> Paint<'static> {
    let mut p = Paint { anti_alias: true, ..Paint::default() };
    p.set_color(color(rgb, a));
    p
}

fn stroke(width: f32) -> Stroke {
    Stroke { width, line_cap: LineCap::Round, line_join: LineJoin::Round, ..Stroke::default() }
}

/// `rgb` mixed towards white by `k`.
fn lighten(rgb: [f32; 3], k: f32) -> [f32; 3] {
    [rgb[0] + (1.0 - rgb[0]) * k, rgb[1] + (1.0 - rgb[1]) * k, rgb[2] + (1.0 - rgb[2]) * k]
}

fn quantum(q: f64) -> f64 {
    if q.is_finite() && q > 0.0 {
        q
    } else {
        1.0
    }
}

/// The colour key of a state: its faction's palette index, or [`DEAD`].
fn colour_key(s: &EntityState) -> usize {
    if s.flags & flags::ALIVE == 0 {
        DEAD
    } else {
        usize::from(s.faction) % FACTION_RGB.len()
    }
}

fn key_rgb(key: usize) -> [f32; 3] {
    FACTION_RGB.get(key).copied().unwrap_or(DEAD_RGB)
}

/// A state of `states` (sorted by id) with this id.
fn by_id(states: &[EntityState], id: u32) -> Option<&EntityState> {
    states.binary_search_by_key(&id, |s| s.id).ok().and_then(|i| states.get(i))
}

/// World to the map's plane: east and north of the entities' median position, in metres.
struct Projection {
    origin: V3,
    east: V3,
    north: V3,
    q: f64,
    vq: f64,
}

impl Projection {
    fn new(world: WorldKind, now: &[EntityState], q: f64, vq: f64) -> Self {
        let median = |k: usize| {
            let mut v: Vec<f64> = now.iter().map(|s| f64::from(s.pos.get(k).copied().unwrap_or(0)) * q).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied().unwrap_or(0.0)
        };
        let origin = [median(0), median(1), median(2)];
        let (east, north, _) = local_frame(world, origin);
        Projection { origin, east, north, q, vq }
    }

    fn xy(&self, s: &EntityState) -> (f64, f64) {
        let p = [f64::from(s.pos[0]) * self.q, f64::from(s.pos[1]) * self.q, f64::from(s.pos[2]) * self.q];
        let d = sub(p, self.origin);
        (dot(d, self.east), dot(d, self.north))
    }

    /// The unit direction (east, north) the entity's nose points along, or its velocity where the
    /// nose points nearly straight up or down; `None` when neither says.
    fn heading(&self, s: &EntityState) -> Option<(f64, f64)> {
        let o = s.orient.map(|c| f64::from(c) / 32767.0);
        let f = qrot(o, [1.0, 0.0, 0.0]);
        let v = [f64::from(s.vel[0]) * self.vq, f64::from(s.vel[1]) * self.vq, f64::from(s.vel[2]) * self.vq];
        let flat = |d: V3| {
            let (e, n) = (dot(d, self.east), dot(d, self.north));
            let l = (e * e + n * n).sqrt();
            (l.is_finite() && l > 1e-6).then_some((e / l, n / l, l / (dot(d, d).sqrt().max(1e-12))))
        };
        match flat(f) {
            Some((e, n, k)) if k > 0.25 => Some((e, n)),
            _ => flat(v).map(|(e, n, _)| (e, n)),
        }
    }
}

/// The map's plane to pixels.
struct View {
    cx: f64,
    cy: f64,
    /// Pixels per metre.
    scale: f64,
}

impl View {
    /// The view holding `pts` (the 6th to 94th percentile of each axis when there are 20 or more,
    /// so a few far-off bases or strays do not shrink the fight), at least 60 m across, with a margin.
    fn fit(pts: &[(f64, f64)]) -> View {
        let range = |mut v: Vec<f64>| {
            v.retain(|x| x.is_finite());
            v.sort_by(f64::total_cmp);
            let n = v.len();
            if n == 0 {
                return (0.0, 0.0);
            }
            let (lo, hi) = if n >= 20 { (0.06, 0.94) } else { (0.0, 1.0) };
            let at = |f: f64| v.get(((n - 1) as f64 * f).round() as usize).copied().unwrap_or(0.0);
            (at(lo), at(hi))
        };
        let (x0, x1) = range(pts.iter().map(|p| p.0).collect());
        let (y0, y1) = range(pts.iter().map(|p| p.1).collect());
        // Room around the kept middle (more where the outer few percent were left out).
        let margin = if pts.len() >= 20 { 1.35 } else { 1.15 };
        let ex = (x1 - x0).max(60.0) * margin;
        let ey = (y1 - y0).max(60.0) * margin;
        let (w, h) = (f64::from(MAP[2] - MAP[0]), f64::from(MAP[3] - MAP[1]));
        let scale = (w / ex).min(h / ey);
        let scale = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
        View { cx: (x0 + x1) / 2.0, cy: (y0 + y1) / 2.0, scale }
    }

    fn px(&self, p: (f64, f64)) -> (f32, f32) {
        let mx = f64::from(MAP[0] + MAP[2]) / 2.0;
        let my = f64::from(MAP[1] + MAP[3]) / 2.0;
        ((mx + (p.0 - self.cx) * self.scale) as f32, (my - (p.1 - self.cy) * self.scale) as f32)
    }

    /// Whether a pixel is on the poster or near it (marks further out are skipped).
    fn near(p: (f32, f32)) -> bool {
        p.0.is_finite()
            && p.1.is_finite()
            && p.0 > -60.0
            && p.0 < WIDTH as f32 + 60.0
            && p.1 > -60.0
            && p.1 < HEIGHT as f32 + 60.0
    }
}

/// A round step (1, 2 or 5 × 10ⁿ metres) near `x`.
fn nice_step(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 100.0;
    }
    let p = 10f64.powf(x.log10().floor());
    let m = x / p;
    p * if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    }
}

fn distance_text(m: f64) -> String {
    if m >= 1000.0 {
        format!("{} km", m / 1000.0)
    } else if m >= 1.0 {
        format!("{} m", m.round())
    } else {
        format!("{m} m")
    }
}

fn draw_grid(pm: &mut Pixmap, view: &View, glyphs: &mut Glyphs) {
    let step_m = nice_step(160.0 / view.scale);
    let step_px = step_m * view.scale;
    let mut pb = PathBuilder::new();
    // Grid lines through multiples of the step, within the picture.
    let (mx, my) = (f64::from(MAP[0] + MAP[2]) / 2.0, f64::from(MAP[1] + MAP[3]) / 2.0);
    let gx = ((view.cx - mx / view.scale) / step_m).floor();
    let gy = ((view.cy - (f64::from(HEIGHT) - my) / view.scale) / step_m).floor();
    if step_px.is_finite() && step_px >= 20.0 && gx.is_finite() && gy.is_finite() {
        for k in 0..(f64::from(WIDTH) / step_px) as i64 + 2 {
            let (x, _) = view.px(((gx + k as f64) * step_m, 0.0));
            pb.move_to(x, HEADER);
            pb.line_to(x, HEIGHT as f32);
        }
        for k in 0..(f64::from(HEIGHT) / step_px) as i64 + 2 {
            let (_, y) = view.px((0.0, (gy + k as f64) * step_m));
            if y > HEADER {
                pb.move_to(0.0, y);
                pb.line_to(WIDTH as f32, y);
            }
        }
    }
    if let Some(path) = pb.finish() {
        pm.stroke_path(&path, &paint([1.0; 3], 0.05), &stroke(1.0), Transform::identity(), None);
    }
    // The scale bar, bottom left: one grid step.
    let (x0, y) = (MAP[0], HEIGHT as f32 - 18.0);
    let len = step_px as f32;
    if len.is_finite() && len > 0.0 && len < 600.0 {
        let mut pb = PathBuilder::new();
        pb.move_to(x0, y - 5.0);
        pb.line_to(x0, y);
        pb.line_to(x0 + len, y);
        pb.line_to(x0 + len, y - 5.0);
        if let Some(path) = pb.finish() {
            pm.stroke_path(&path, &paint(DIM_RGB, 0.9), &stroke(1.5), Transform::identity(), None);
        }
        glyphs.draw(pm, &distance_text(step_m), x0 + len + 8.0, y + 1.0, 13.0, DIM_RGB, 1.0, None);
    }
}

fn draw_trails(
    pm: &mut Pixmap,
    view: &View,
    proj: &Projection,
    now: &[EntityState],
    frames: &[&Frame],
    now_tick: u64,
    rate: f64,
) {
    // Two ages: the older half of the trail fainter than the newer.
    let half = (TRAIL_SECONDS / 2.0 * rate) as u64;
    let mut paths: BTreeMap<(usize, bool), PathBuilder> = BTreeMap::new();
    let longest = f32::hypot(WIDTH as f32, HEIGHT as f32) * 0.2;
    let mut points: Vec<(u64, (f32, f32))> = Vec::with_capacity(frames.len() + 1);
    for s in now {
        points.clear();
        for f in frames {
            if let Some(p) = by_id(&f.states, s.id) {
                points.push((f.tick, view.px(proj.xy(p))));
            }
        }
        points.push((now_tick, view.px(proj.xy(s))));
        let key = colour_key(s);
        // A jump far longer than the entity's usual step is a respawn or a teleport: not a trail.
        let mut steps: Vec<f32> = points.windows(2).map(seg_len).collect();
        steps.sort_by(f32::total_cmp);
        let usual = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
        let longest = (usual * 4.0).max(24.0).min(longest);
        // One polyline per run of kept steps of one age (a subpath per step costs a stroke each).
        let mut run: Option<bool> = None;
        for w in points.windows(2) {
            let &[(ta, a), (_, b)] = w else { continue };
            if !View::near(a) || !View::near(b) || seg_len(w) > longest {
                run = None;
                continue;
            }
            let old = now_tick.saturating_sub(ta) > half;
            let pb = paths.entry((key, old)).or_default();
            if run != Some(old) {
                pb.move_to(a.0, a.1);
            }
            pb.line_to(b.0, b.1);
            run = Some(old);
        }
    }
    let line = Stroke { width: 1.6, line_cap: LineCap::Butt, line_join: LineJoin::Bevel, ..Stroke::default() };
    for ((key, old), pb) in paths {
        if let Some(path) = pb.finish() {
            let a = if old { 0.3 } else { 0.65 };
            pm.stroke_path(&path, &paint(key_rgb(key), a), &line, Transform::identity(), None);
        }
    }
}

/// The length in pixels of a trail's step (infinite for fewer than two points).
fn seg_len(w: &[(u64, (f32, f32))]) -> f32 {
    match w {
        [(_, a), (_, b)] => (a.0 - b.0).hypot(a.1 - b.1),
        _ => f32::INFINITY,
    }
}

/// Where a kill happened: the victim's place in the last frame at or before it (else the first
/// after it).
fn kill_place<'a>(frames: &'a [Frame], k: &Kill) -> Option<&'a EntityState> {
    frames
        .iter()
        .rev()
        .filter(|f| f.tick <= k.tick)
        .find_map(|f| by_id(&f.states, k.victim))
        .or_else(|| frames.iter().filter(|f| f.tick > k.tick).find_map(|f| by_id(&f.states, k.victim)))
}

fn draw_kills(pm: &mut Pixmap, view: &View, proj: &Projection, m: &Moment, now_tick: u64, rate: f64) {
    for k in m.kills.iter().filter(|k| k.tick <= now_tick) {
        let Some(v) = kill_place(&m.frames, k) else { continue };
        let p = view.px(proj.xy(v));
        if !View::near(p) {
            continue;
        }
        let age = (now_tick - k.tick) as f64 / rate;
        let a = (1.0 - 0.65 * (age / KILL_SECONDS).clamp(0.0, 1.0)) as f32;
        let mut glow = PathBuilder::new();
        glow.push_circle(p.0, p.1, 17.0);
        if let Some(path) = glow.finish() {
            pm.fill_path(&path, &paint(KILL_RGB, 0.16 * a), FillRule::Winding, Transform::identity(), None);
        }
        let mut pb = PathBuilder::new();
        pb.push_circle(p.0, p.1, 11.0);
        let r = 5.5;
        pb.move_to(p.0 - r, p.1 - r);
        pb.line_to(p.0 + r, p.1 + r);
        pb.move_to(p.0 - r, p.1 + r);
        pb.line_to(p.0 + r, p.1 - r);
        if let Some(path) = pb.finish() {
            pm.stroke_path(&path, &paint(KILL_RGB, a), &stroke(2.2), Transform::identity(), None);
        }
    }
}

fn draw_marks(pm: &mut Pixmap, view: &View, proj: &Projection, info: &RecordingInfo, now: &[EntityState], s: f32) {
    let mut fills: BTreeMap<usize, PathBuilder> = BTreeMap::new();
    let mut lines: BTreeMap<usize, PathBuilder> = BTreeMap::new();
    let mut shots: BTreeMap<usize, PathBuilder> = BTreeMap::new();
    for e in now {
        let p = view.px(proj.xy(e));
        if !View::near(p) {
            continue;
        }
        let key = colour_key(e);
        let cat = info.entity_type(e.type_index).map_or(Category::Other, |t| t.category);
        // The heading on the picture (y grows downwards).
        let dir = proj.heading(e).map(|(x, y)| (x as f32, -y as f32));
        let at = |d: (f32, f32), fwd: f32, side: f32| (p.0 + d.0 * fwd - d.1 * side, p.1 + d.1 * fwd + d.0 * side);
        match (cat, dir) {
            (Category::Projectile, Some(d)) => {
                let pb = shots.entry(key).or_default();
                let tail = at(d, -1.2 * s, 0.0);
                pb.move_to(tail.0, tail.1);
                pb.line_to(p.0, p.1);
            }
            (Category::Projectile, None) => shots.entry(key).or_default().push_circle(p.0, p.1, 1.2),
            (Category::Aircraft, Some(d)) => {
                let pb = fills.entry(key).or_default();
                polygon(pb, &[at(d, 1.5 * s, 0.0), at(d, -s, 0.95 * s), at(d, -0.4 * s, 0.0), at(d, -s, -0.95 * s)]);
            }
            (Category::Ground, d) => {
                let d = d.unwrap_or((1.0, 0.0));
                let h = 0.75 * s;
                let pb = fills.entry(key).or_default();
                polygon(pb, &[at(d, h, h), at(d, h, -h), at(d, -h, -h), at(d, -h, h)]);
                let nose = at(d, 1.6 * s, 0.0);
                let lb = lines.entry(key).or_default();
                lb.move_to(p.0, p.1);
                lb.line_to(nose.0, nose.1);
            }
            (_, d) => {
                fills.entry(key).or_default().push_circle(p.0, p.1, 0.6 * s);
                if let Some(d) = d {
                    let nose = at(d, 1.5 * s, 0.0);
                    let lb = lines.entry(key).or_default();
                    lb.move_to(p.0, p.1);
                    lb.line_to(nose.0, nose.1);
                }
            }
        }
    }
    let bg = rgb64(BACKGROUND);
    let id = Transform::identity();
    // Mitred (not round) joins: a round join is an arc per corner of thousands of darts.
    let halo = Stroke { width: 3.0, line_join: LineJoin::Miter, miter_limit: 2.0, ..Stroke::default() };
    for (key, pb) in shots {
        if let Some(path) = pb.finish() {
            pm.stroke_path(&path, &paint(lighten(key_rgb(key), 0.35), 0.95), &stroke(2.0), id, None);
        }
    }
    for (key, pb) in lines {
        if let Some(path) = pb.finish() {
            pm.stroke_path(&path, &paint(bg, 0.85), &stroke(4.0), id, None);
            pm.stroke_path(&path, &paint(key_rgb(key), 1.0), &stroke(2.0), id, None);
        }
    }
    for (key, pb) in fills {
        if let Some(path) = pb.finish() {
            pm.stroke_path(&path, &paint(bg, 0.85), &halo, id, None);
            pm.fill_path(&path, &paint(key_rgb(key), 1.0), FillRule::Winding, id, None);
        }
    }
}

/// A closed polygon through `pts`.
fn polygon(pb: &mut PathBuilder, pts: &[(f32, f32)]) {
    for (i, q) in pts.iter().enumerate() {
        if i == 0 {
            pb.move_to(q.0, q.1);
        } else {
            pb.line_to(q.0, q.1);
        }
    }
    pb.close();
}

#[allow(clippy::too_many_arguments)]
fn draw_labels(
    pm: &mut Pixmap,
    view: &View,
    proj: &Projection,
    info: &RecordingInfo,
    m: &Moment,
    now: &[EntityState],
    s: f32,
    glyphs: &mut Glyphs,
) {
    let callsign = |id: u32| m.callsigns.binary_search_by_key(&id, |(e, _)| *e).ok().and_then(|i| m.callsigns.get(i));
    // The entities of the latest kills first, then the others nearest the middle of the map.
    let mut order: Vec<u32> = Vec::new();
    for k in m.kills.iter().rev() {
        for id in [k.killer, k.victim] {
            if !order.contains(&id) {
                order.push(id);
            }
        }
    }
    let mut rest: Vec<(f64, u32)> = now
        .iter()
        .filter(|e| !order.contains(&e.id))
        .map(|e| {
            let (x, y) = proj.xy(e);
            ((x - view.cx).hypot(y - view.cy), e.id)
        })
        .collect();
    rest.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    order.extend(rest.into_iter().map(|(_, id)| id));
    let mut placed: Vec<[f32; 4]> = Vec::new();
    let overlaps = |r: &[f32; 4], placed: &[[f32; 4]]| {
        r[0] < 4.0
            || r[2] > WIDTH as f32 - 4.0
            || r[1] < HEADER + 4.0
            || r[3] > HEIGHT as f32 - 34.0
            || placed.iter().any(|q| r[0] < q[2] && q[0] < r[2] && r[1] < q[3] && q[1] < r[3])
    };
    let px = 15.0;
    let mut labels = 0;
    for id in order {
        if labels >= MAX_LABELS {
            break;
        }
        let Some(e) = by_id(now, id) else { continue };
        let cat = info.entity_type(e.type_index).map_or(Category::Other, |t| t.category);
        let Some((_, name)) = callsign(id).filter(|_| cat != Category::Projectile) else { continue };
        let p = view.px(proj.xy(e));
        if !View::near(p) {
            continue;
        }
        let text = glyphs.fit(name, px, 220.0, 24);
        let w = glyphs.width(&text, px);
        let gap = 1.6 * s + 4.0;
        let spots = [(p.0 + gap, p.1 + 5.0), (p.0 - gap - w, p.1 + 5.0), (p.0 - w / 2.0, p.1 - gap)];
        let Some(&(x, base)) =
            spots.iter().find(|(x, b)| !overlaps(&[*x - 2.0, b - 14.0, x + w + 2.0, b + 5.0], &placed))
        else {
            continue;
        };
        placed.push([x - 2.0, base - 14.0, x + w + 2.0, base + 5.0]);
        // The rest of the pass leaves room around the entity's own mark too.
        placed.push([p.0 - s, p.1 - s, p.0 + s, p.1 + s]);
        labels += 1;
        let rgb = lighten(key_rgb(colour_key(e)), 0.55);
        glyphs.draw(pm, &text, x, base, px, rgb, 1.0, Some(rgb64(BACKGROUND)));
    }
}

fn clock(seconds: f64) -> String {
    let s = if seconds.is_finite() { seconds.clamp(0.0, 1e9) as u64 } else { 0 };
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_header(
    pm: &mut Pixmap,
    info: &RecordingInfo,
    m: &Moment,
    now: &[EntityState],
    now_tick: u64,
    title: &str,
    spoilers: bool,
    glyphs: &mut Glyphs,
) {
    if let Some(r) = Rect::from_xywh(0.0, 0.0, WIDTH as f32, HEADER) {
        pm.fill_rect(r, &paint([0.03, 0.04, 0.06], 0.86), Transform::identity(), None);
    }
    if let Some(r) = Rect::from_xywh(0.0, HEADER - 2.0, WIDTH as f32, 2.0) {
        pm.fill_rect(r, &paint(KILL_RGB, 0.8), Transform::identity(), None);
    }
    let title = if title.trim().is_empty() { "Replay" } else { title };
    let t = glyphs.fit(title, 32.0, WIDTH as f32 - 80.0, 160);
    glyphs.draw(pm, &t, 40.0, 46.0, 32.0, TEXT_RGB, 1.0, None);
    let rate = f64::from(info.tick_rate_hz.max(1));
    let at = now_tick.saturating_sub(info.first_tick) as f64 / rate;
    let mut parts = Vec::new();
    let mission = info.mission_id.trim();
    if !mission.is_empty() && !title.contains(mission) {
        parts.push(mission.chars().take(48).collect::<String>());
    }
    parts.push(if spoilers { format!("{} / {}", clock(at), clock(info.duration_s())) } else { clock(at) });
    let alive = now.iter().filter(|e| e.flags & flags::ALIVE != 0).count();
    parts.push(format!("{} entities", now.len()));
    if alive != now.len() {
        parts.push(format!("{alive} alive"));
    }
    let kills = m.kills.iter().filter(|k| k.tick <= now_tick).count();
    if kills > 0 {
        parts.push(format!("{kills} kill{} in the last {KILL_SECONDS} s", if kills == 1 { "" } else { "s" }));
    }
    let line = glyphs.fit(&parts.join("  ·  "), 16.0, WIDTH as f32 - 80.0, 200);
    glyphs.draw(pm, &line, 40.0, 75.0, 16.0, DIM_RGB, 1.0, None);
}

/// The factions at the moment (most entities first, at most five), bottom right.
fn draw_legend(pm: &mut Pixmap, info: &RecordingInfo, now: &[EntityState], glyphs: &mut Glyphs) {
    let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
    for e in now.iter().filter(|e| e.flags & flags::ALIVE != 0) {
        *counts.entry(e.faction).or_default() += 1;
    }
    let mut sides: Vec<(u8, usize)> = counts.into_iter().collect();
    sides.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut x = WIDTH as f32 - 40.0;
    let y = HEIGHT as f32 - 18.0;
    for (faction, n) in sides.into_iter().take(5) {
        let name = info.faction(faction).map_or_else(
            || format!("Faction {faction}"),
            |f| if f.display_name.trim().is_empty() { f.id.clone() } else { f.display_name.clone() },
        );
        let text = format!("{} ({n})", glyphs.fit(&name, 14.0, 160.0, 24));
        let w = glyphs.width(&text, 14.0);
        x -= w;
        if x < 300.0 {
            break;
        }
        glyphs.draw(pm, &text, x, y + 1.0, 14.0, DIM_RGB, 1.0, None);
        let mut pb = PathBuilder::new();
        pb.push_circle(x - 10.0, y - 4.0, 5.0);
        if let Some(path) = pb.finish() {
            pm.fill_path(&path, &paint(faction_rgb(faction), 1.0), FillRule::Winding, Transform::identity(), None);
        }
        x -= 34.0;
    }
}
