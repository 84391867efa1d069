// Instanced low-poly entity meshes (one mesh per category), camera-relative.
// Vertex buffer 0 (per vertex): position, normal (mesh units).
// Vertex buffer 1 (per instance): position relative to the eye (m), scale (m per mesh unit),
// rotation quaternion (x, y, z, w), colour (rgb, a = highlight 0..1).

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
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) i_pos: vec3<f32>,
    @location(3) i_scale: f32,
    @location(4) i_rot: vec4<f32>,
    @location(5) i_color: vec4<f32>,
};

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) color: vec4<f32>,
};

fn qrot(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn to_target(c: vec3<f32>) -> vec3<f32> {
    if (frame.params.x > 0.5) {
        return pow(max(c, vec3<f32>(0.0)), vec3<f32>(2.2));
    }
    return c;
}

@vertex
fn vs_main(in: VIn) -> VOut {
    let p = in.i_pos + qrot(in.i_rot, in.pos * in.i_scale);
    var out: VOut;
    out.pos = frame.view_proj * vec4<f32>(p, 1.0);
    out.normal = qrot(in.i_rot, in.normal);
    out.color = in.i_color;
    return out;
}

@fragment
fn fs_main(in: VOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let ambient = frame.light.w;
    let lambert = max(dot(n, frame.light.xyz), 0.0);
    // A little back light so the unlit side still reads against the dark background.
    let back = max(-dot(n, frame.light.xyz), 0.0) * 0.15;
    var c = in.color.rgb * (ambient + (1.0 - ambient) * lambert + back);
    c = mix(c, vec3<f32>(1.0), in.color.a * 0.35);
    return vec4<f32>(to_target(c), 1.0);
}

// Selection outline: the same mesh inflated and drawn with front faces culled, flat colour.
@fragment
fn fs_outline(in: VOut) -> @location(0) vec4<f32> {
    return vec4<f32>(to_target(in.color.rgb), 1.0);
}

// Compare's ghosts (a second recording over this one): lit as the entities are, lightened,
// translucent (alpha from the instance colour's a); blended, depth-tested, not depth-written.
@fragment
fn fs_ghost(in: VOut) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let lambert = max(dot(n, frame.light.xyz), 0.0);
    var c = in.color.rgb * (0.55 + 0.45 * lambert);
    c = mix(c, vec3<f32>(1.0), 0.45);
    return vec4<f32>(to_target(c), in.color.a);
}
