// Kill flashes: camera-facing billboards (6 vertices per instance, no vertex buffer for the quad),
// additive blending. Instance: centre relative to the eye (m), radius (m), colour (rgb, a = intensity).

struct Frame {
    view_proj: mat4x4<f32>,
    ray_right: vec4<f32>,
    ray_up: vec4<f32>,
    forward: vec4<f32>,
    light: vec4<f32>,
    ground: vec4<f32>,
    eye: vec4<f32>,
    params: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;

struct VIn {
    @builtin(vertex_index) vi: u32,
    @location(0) center: vec3<f32>,
    @location(1) radius: f32,
    @location(2) color: vec4<f32>,
};

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) color: vec4<f32>,
};

fn to_target(c: vec3<f32>) -> vec3<f32> {
    if (frame.params.x > 0.5) {
        return pow(max(c, vec3<f32>(0.0)), vec3<f32>(2.2));
    }
    return c;
}

@vertex
fn vs_main(in: VIn) -> VOut {
    // Two triangles: (0,1,2) (2,1,3) over corners (-1,-1) (1,-1) (-1,1) (1,1).
    var corner_index = in.vi;
    if (in.vi == 3u) { corner_index = 2u; }
    if (in.vi == 4u) { corner_index = 1u; }
    if (in.vi == 5u) { corner_index = 3u; }
    let uv = vec2<f32>(f32(corner_index & 1u) * 2.0 - 1.0, f32(corner_index >> 1u) * 2.0 - 1.0);
    let right = normalize(frame.ray_right.xyz);
    let up = normalize(frame.ray_up.xyz);
    // Pull the billboard towards the eye by its radius so half of it is not buried in the ground.
    let towards_eye = -normalize(in.center) * in.radius * 0.5;
    let p = in.center + towards_eye + (right * uv.x + up * uv.y) * in.radius;
    var out: VOut;
    out.pos = frame.view_proj * vec4<f32>(p, 1.0);
    out.uv = uv;
    out.color = in.color;
    return out;
}

@fragment
fn fs_main(in: VOut) -> @location(0) vec4<f32> {
    let d = length(in.uv);
    let core = 1.0 - smoothstep(0.0, 1.0, d);
    let ring = (1.0 - smoothstep(0.0, 0.12, abs(d - 0.85))) * 0.6;
    let a = clamp((core * core + ring) * in.color.a, 0.0, 1.0);
    let hot = mix(in.color.rgb, vec3<f32>(1.0, 1.0, 0.9), core * core);
    // Premultiplied, blended additively (One, One).
    return vec4<f32>(to_target(hot) * a, a);
}
