// Coloured line lists: trails and selection rings. Positions are relative to the eye (m).

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
    @location(1) color: vec4<f32>,
};

struct VOut {
    @builtin(position) pos: vec4<f32>,
    @location(0) color: vec4<f32>,
};

fn to_target(c: vec3<f32>) -> vec3<f32> {
    if (frame.params.x > 0.5) {
        return pow(max(c, vec3<f32>(0.0)), vec3<f32>(2.2));
    }
    return c;
}

@vertex
fn vs_main(in: VIn) -> VOut {
    var out: VOut;
    out.pos = frame.view_proj * vec4<f32>(in.pos, 1.0);
    out.color = in.color;
    return out;
}

@fragment
fn fs_main(in: VOut) -> @location(0) vec4<f32> {
    return vec4<f32>(to_target(in.color.rgb), in.color.a);
}
