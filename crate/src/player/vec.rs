//! Minimal f64 vector / quaternion helpers (no dependency: the page wasm must stay small).

pub type V3 = [f64; 3];
/// Quaternion (x, y, z, w).
pub type Q = [f64; 4];

pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
/// `a + b * s`
pub fn madd(a: V3, b: V3, s: f64) -> V3 {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
pub fn len(a: V3) -> f64 {
    dot(a, a).sqrt()
}
/// Unit vector along `a`, or `fallback` when `a` is (nearly) zero or not finite.
pub fn norm_or(a: V3, fallback: V3) -> V3 {
    let l = len(a);
    if l > 1e-12 && l.is_finite() {
        scale(a, 1.0 / l)
    } else {
        fallback
    }
}
pub fn lerp(a: V3, b: V3, t: f64) -> V3 {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

pub const IDENTITY: Q = [0.0, 0.0, 0.0, 1.0];

pub fn qdot(a: Q, b: Q) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}
pub fn qnorm(q: Q) -> Q {
    let l = qdot(q, q).sqrt();
    if l > 1e-9 && l.is_finite() {
        [q[0] / l, q[1] / l, q[2] / l, q[3] / l]
    } else {
        IDENTITY
    }
}
/// Quaternion from an axis (unit) and an angle (radians).
pub fn qaxis(axis: V3, angle: f64) -> Q {
    let (s, c) = (angle * 0.5).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}
/// Shortest-path spherical interpolation between unit quaternions (handles `q` vs `-q`).
pub fn slerp(a: Q, b: Q, t: f64) -> Q {
    let mut d = qdot(a, b);
    let mut b = b;
    if d < 0.0 {
        b = [-b[0], -b[1], -b[2], -b[3]];
        d = -d;
    }
    if d > 0.9995 {
        // Nearly parallel: normalized lerp is exact enough and avoids dividing by ~0.
        return qnorm([
            a[0] + (b[0] - a[0]) * t,
            a[1] + (b[1] - a[1]) * t,
            a[2] + (b[2] - a[2]) * t,
            a[3] + (b[3] - a[3]) * t,
        ]);
    }
    let theta = d.min(1.0).acos();
    let s = theta.sin();
    let wa = ((1.0 - t) * theta).sin() / s;
    let wb = (t * theta).sin() / s;
    qnorm([a[0] * wa + b[0] * wb, a[1] * wa + b[1] * wb, a[2] * wa + b[2] * wb, a[3] * wa + b[3] * wb])
}
/// Rotates `v` by the unit quaternion `q`.
pub fn qrot(q: Q, v: V3) -> V3 {
    let u = [q[0], q[1], q[2]];
    let w = q[3];
    // v + 2w(u×v) + 2u×(u×v)
    let uv = cross(u, v);
    let uuv = cross(u, uv);
    [v[0] + 2.0 * (w * uv[0] + uuv[0]), v[1] + 2.0 * (w * uv[1] + uuv[1]), v[2] + 2.0 * (w * uv[2] + uuv[2])]
}
