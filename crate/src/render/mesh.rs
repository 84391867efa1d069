//! Low-poly meshes, one per [`Category`], flat-shaded triangle lists in mesh units
//! (body axes: +X forward, +Y left, +Z up; origin at the entity position).

use crate::model::Category;

/// Vertex: position (3 × f32), normal (3 × f32).
pub const VERTEX_FLOATS: usize = 6;

/// All categories in vertex-buffer order (index = `Category as usize`).
pub const CATEGORIES: [Category; 5] =
    [Category::Other, Category::Aircraft, Category::Projectile, Category::Ground, Category::Character];

/// Nominal size in metres of one mesh unit, per category (index = `Category as usize`).
pub const NOMINAL_SIZE_M: [f64; 5] = [4.0, 16.0, 4.0, 8.0, 1.8];
/// Minimum on-screen size in CSS pixels, per category.
pub const MIN_SIZE_PX: [f64; 5] = [12.0, 22.0, 12.0, 14.0, 22.0];

type P = [f32; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: P, b: P) -> P {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn dot(a: P, b: P) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn normalize(a: P) -> P {
    let l = dot(a, a).sqrt();
    if l > 0.0 {
        [a[0] / l, a[1] / l, a[2] / l]
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Emits triangles of a convex hull, fixing each winding to face away from the centroid (CCW outward).
fn convex(points: &[P], tris: &[[usize; 3]], out: &mut Vec<f32>) {
    let n = points.len().max(1) as f32;
    let c = points.iter().fold([0.0f32; 3], |a, p| [a[0] + p[0] / n, a[1] + p[1] / n, a[2] + p[2] / n]);
    for t in tris {
        let (Some(&a), Some(&b), Some(&d)) = (points.get(t[0]), points.get(t[1]), points.get(t[2])) else {
            continue;
        };
        let mut nrm = cross(sub(b, a), sub(d, a));
        let mid = [(a[0] + b[0] + d[0]) / 3.0, (a[1] + b[1] + d[1]) / 3.0, (a[2] + b[2] + d[2]) / 3.0];
        let (b, d) = if dot(nrm, sub(mid, c)) < 0.0 {
            nrm = [-nrm[0], -nrm[1], -nrm[2]];
            (d, b)
        } else {
            (b, d)
        };
        tri(a, b, d, normalize(nrm), out);
    }
}

fn tri(a: P, b: P, c: P, n: P, out: &mut Vec<f32>) {
    for p in [a, b, c] {
        out.extend_from_slice(&p);
        out.extend_from_slice(&n);
    }
}

/// A two-sided flat triangle (both windings).
fn two_sided(a: P, b: P, c: P, out: &mut Vec<f32>) {
    let n = normalize(cross(sub(b, a), sub(c, a)));
    tri(a, b, c, n, out);
    tri(a, c, b, [-n[0], -n[1], -n[2]], out);
}

/// Aircraft: a delta dart, nose +X, wings along ±Y, with a small tail fin (+Z).
fn aircraft(out: &mut Vec<f32>) {
    let pts = [
        [0.55, 0.0, 0.0],   // 0 nose
        [-0.45, 0.5, 0.0],  // 1 left wing tip
        [-0.45, -0.5, 0.0], // 2 right wing tip
        [-0.3, 0.0, 0.09],  // 3 spine top
        [-0.3, 0.0, -0.06], // 4 belly
    ];
    convex(&pts, &[[0, 1, 3], [0, 3, 2], [1, 2, 3], [0, 4, 1], [0, 2, 4], [1, 4, 2]], out);
    two_sided([-0.05, 0.0, 0.05], [-0.42, 0.0, 0.07], [-0.45, 0.0, 0.28], out);
}

/// Projectile: a thin needle along X.
fn projectile(out: &mut Vec<f32>) {
    let r = 0.1;
    let pts = [[0.5, 0.0, 0.0], [-0.5, 0.0, 0.0], [0.25, r, 0.0], [0.25, 0.0, r], [0.25, -r, 0.0], [0.25, 0.0, -r]];
    convex(&pts, &[[0, 2, 3], [0, 3, 4], [0, 4, 5], [0, 5, 2], [1, 3, 2], [1, 4, 3], [1, 5, 4], [1, 2, 5]], out);
}

/// Ground vehicle: a box standing on z = 0, longer along X, plus a turret box.
fn ground(out: &mut Vec<f32>) {
    let bx = |x0: f32, x1: f32, y: f32, z0: f32, z1: f32, out: &mut Vec<f32>| {
        let pts = [
            [x0, -y, z0],
            [x1, -y, z0],
            [x1, y, z0],
            [x0, y, z0],
            [x0, -y, z1],
            [x1, -y, z1],
            [x1, y, z1],
            [x0, y, z1],
        ];
        let quads = [[0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]];
        let tris: Vec<[usize; 3]> = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
        convex(&pts, &tris, out);
    };
    bx(-0.5, 0.5, 0.3, 0.0, 0.3, out);
    bx(-0.2, 0.15, 0.17, 0.3, 0.45, out);
}

/// Character: an upright hexagonal prism with pointed caps, feet at z = 0, 1 unit tall.
fn character(out: &mut Vec<f32>) {
    let r = 0.2;
    let mut pts: Vec<P> = vec![[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    for z in [0.15f32, 0.85] {
        for k in 0..6 {
            let a = k as f32 * std::f32::consts::PI / 3.0;
            pts.push([r * a.cos(), r * a.sin(), z]);
        }
    }
    let mut tris = Vec::new();
    for k in 0..6 {
        let (lo, lo2) = (2 + k, 2 + (k + 1) % 6);
        let (hi, hi2) = (8 + k, 8 + (k + 1) % 6);
        tris.push([0, lo, lo2]);
        tris.push([1, hi, hi2]);
        tris.push([lo, lo2, hi2]);
        tris.push([lo, hi2, hi]);
    }
    convex(&pts, &tris, out);
    // A nose so the facing (+X) reads.
    convex(
        &[[0.18, 0.0, 0.75], [0.34, 0.0, 0.7], [0.18, 0.08, 0.66], [0.18, -0.08, 0.66]],
        &[[0, 1, 2], [0, 3, 1], [1, 3, 2], [0, 2, 3]],
        out,
    );
}

/// Other: an octahedron.
fn other(out: &mut Vec<f32>) {
    let h = 0.5;
    let pts = [[h, 0.0, 0.0], [-h, 0.0, 0.0], [0.0, h, 0.0], [0.0, -h, 0.0], [0.0, 0.0, h], [0.0, 0.0, -h]];
    let mut tris = Vec::new();
    for x in [0usize, 1] {
        for y in [2usize, 3] {
            for z in [4usize, 5] {
                tris.push([x, y, z]);
            }
        }
    }
    convex(&pts, &tris, out);
}

/// All meshes in one vertex array, and each category's (first vertex, vertex count).
pub fn build() -> (Vec<f32>, [(u32, u32); 5]) {
    let mut v = Vec::new();
    let mut ranges = [(0u32, 0u32); 5];
    for (slot, cat) in ranges.iter_mut().zip(CATEGORIES) {
        let first = v.len() / VERTEX_FLOATS;
        match cat {
            Category::Other => other(&mut v),
            Category::Aircraft => aircraft(&mut v),
            Category::Projectile => projectile(&mut v),
            Category::Ground => ground(&mut v),
            Category::Character => character(&mut v),
        }
        *slot = (first as u32, (v.len() / VERTEX_FLOATS - first) as u32);
    }
    (v, ranges)
}
