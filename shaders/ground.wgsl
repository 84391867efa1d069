// Ground reference, drawn as one full-screen triangle that ray-casts the ground per pixel:
//  - flat world: the plane z = 0 with a two-level grid that fades into the background with distance;
//  - planet world: a dark sphere of radius R with latitude/longitude lines every 10 degrees.
// Everything is camera-relative (the eye is the origin); the CPU passes the f64-derived quantities
// that would lose precision in f32 (|eye|^2 - R^2, the eye modulo the grid period).
// Writes frag_depth in the same reverse-Z convention as every other pass (depth = near / view distance).

struct Frame {
    view_proj: mat4x4<f32>,
    ray_right: vec4<f32>, // xyz: right * tan(fov/2) * aspect; w: viewport width (px)
    ray_up: vec4<f32>,    // xyz: up * tan(fov/2);             w: viewport height (px)
    forward: vec4<f32>,   // xyz: forward;                     w: near plane (m)
    light: vec4<f32>,     // xyz: unit vector towards the light; w: ambient
    ground: vec4<f32>,    // x: 0 none / 1 flat / 2 planet; y: radius (m); z: planet |eye|^2-R^2, flat eye z; w: grid spacing (m)
    eye: vec4<f32>,       // planet: eye position (f32, for lat/lon only); flat: eye xy modulo 10*spacing; w: fade distance (m)
    params: vec4<f32>,    // x: 1 when the target is sRGB (convert to linear); y: time (s); z: dpr
};

@group(0) @binding(0) var<uniform> frame: Frame;

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> VOut {
    let x = f32(i32(vi & 1u) * 4 - 1);
    let y = f32(i32(vi >> 1u) * 4 - 1);
    var out: VOut;
    out.pos = vec4<f32>(x, y, 0.0, 1.0);
    out.ndc = vec2<f32>(x, y);
    return out;
}

struct FOut {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
};

const BG: vec3<f32> = vec3<f32>(0.0627, 0.0784, 0.1098); // #10141c

fn to_target(c: vec3<f32>) -> vec3<f32> {
    if (frame.params.x > 0.5) {
        return pow(max(c, vec3<f32>(0.0)), vec3<f32>(2.2));
    }
    return c;
}

// 1 on a line of period 1 in `f`, anti-aliased with the screen-space width `w` of one unit.
fn grid_line(f: f32, w: f32, px: f32) -> f32 {
    let d = abs(fract(f + 0.5) - 0.5);
    let ww = max(w * px, 1e-6);
    // Lines denser than ~3 px fade out instead of turning into moire.
    let density_fade = 1.0 - smoothstep(0.08, 0.3, w);
    return (1.0 - smoothstep(0.0, ww, d)) * density_fade;
}

@fragment
fn fs_main(in: VOut) -> FOut {
    let dir = normalize(frame.forward.xyz + frame.ray_right.xyz * in.ndc.x + frame.ray_up.xyz * in.ndc.y);
    let kind = frame.ground.x;
    var hit = false;
    var t = 1.0;
    var color = BG;

    // Planet: |eye + t dir|^2 = R^2, with c = |eye|^2 - R^2 computed in f64 on the CPU.
    let b = dot(dir, frame.eye.xyz);
    let c = frame.ground.z;
    let disc = b * b - c;
    let planet_hit = kind > 1.5 && c > 0.0 && b < 0.0 && disc >= 0.0;
    // Near root in the cancellation-free form t = c / (-b + sqrt(disc)).
    let tp = c / max(-b + sqrt(max(disc, 0.0)), 1e-6);
    let p = frame.eye.xyz + dir * tp;
    let n = normalize(p);
    let lat_deg = degrees(asin(clamp(n.z, -1.0, 1.0)));
    let lon1_deg = degrees(atan2(n.y, n.x));
    let lon2_deg = degrees(atan2(-n.y, -n.x)); // same lines, seam on the other side
    // 10 degree lines always; 1, 0.1 and 0.01 degree lines fade in as the camera gets close.
    var graticule = 0.0;
    var strength = 1.0;
    var period = 10.0;
    for (var k = 0; k < 4; k = k + 1) {
        let la = lat_deg / period;
        let l1 = lon1_deg / period;
        let l2 = lon2_deg / period;
        let wla = fwidth(la);
        let wlo = min(fwidth(l1), fwidth(l2));
        graticule = max(graticule, max(grid_line(la, wla, 1.2), grid_line(l1, wlo, 1.2)) * strength);
        strength = strength * 0.55;
        period = period * 0.1;
    }
    // Flat: the plane z = 0 (eye height in ground.z), grid period in ground.w.
    let ez = frame.ground.z;
    let flat_hit = kind > 0.5 && kind < 1.5 && dir.z * ez < 0.0;
    let tf = -ez / select(dir.z, 1e-6, abs(dir.z) < 1e-6);
    let q = frame.eye.xy + dir.xy * tf;
    let s = max(frame.ground.w, 1e-3);
    let f1 = q / s;
    let f2 = q / (s * 10.0);
    let w1 = fwidth(f1);
    let w2 = fwidth(f2);
    let minor = max(grid_line(f1.x, w1.x, 1.0), grid_line(f1.y, w1.y, 1.0));
    let major = max(grid_line(f2.x, w2.x, 1.5), grid_line(f2.y, w2.y, 1.5));

    if (planet_hit) {
        hit = true;
        t = tp;
        let lambert = max(dot(n, frame.light.xyz), 0.0);
        let base = vec3<f32>(0.11, 0.145, 0.19) * (0.55 + 0.45 * lambert);
        color = mix(base, vec3<f32>(0.32, 0.42, 0.54), graticule * 0.7);
    } else if (flat_hit) {
        hit = true;
        t = tf;
        let base = select(vec3<f32>(0.085, 0.10, 0.13), vec3<f32>(0.05, 0.06, 0.08), ez < 0.0);
        var g = mix(base, vec3<f32>(0.17, 0.21, 0.27), minor * 0.5);
        g = mix(g, vec3<f32>(0.27, 0.33, 0.42), major * 0.7);
        let fade = smoothstep(0.0, max(frame.eye.w, 1.0), t);
        color = mix(g, BG, fade);
    }
    if (!hit) {
        discard;
    }
    var out: FOut;
    out.color = vec4<f32>(to_target(color), 1.0);
    let view_depth = max(t * dot(dir, frame.forward.xyz), frame.forward.w);
    out.depth = clamp(frame.forward.w / view_depth, 0.0, 1.0);
    return out;
}
