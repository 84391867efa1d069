//! GPU resources (wgpu) for one canvas: device, surface, pipelines, buffers; uploads a
//! [`FrameData`] and draws it. One code path for WebGPU and WebGL2 (downlevel WebGL2 limits,
//! uniform + vertex/instance buffers only).

use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::mesh::{self, VERTEX_FLOATS};
use super::scene::{FrameData, BACKGROUND, FLASH_FLOATS, INSTANCE_FLOATS, LINE_FLOATS, UNIFORM_FLOATS};
use super::Host;

const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Frames in a row whose canvas texture could not be used before the device is recreated.
const SURFACE_RETRIES: u32 = 3;

/// What the surface's last frames showed: whether the canvas texture could be used (docs/renderer.md,
/// "Surface acquisition"). On WebGPU the browser may hand out an invalid texture and say nothing;
/// only an error scope around its use tells, once the frame is submitted, so the check that runs
/// after each frame writes here and the next `render()` reads it.
#[derive(Default)]
struct SurfaceHealth {
    /// Reconfigure the surface (and skip that frame) before the next acquisition.
    reconfigure: Cell<bool>,
    /// Frames in a row whose texture could not be used.
    failures: Cell<u32>,
}

impl SurfaceHealth {
    fn failed(&self) {
        self.reconfigure.set(true);
        self.failures.set(self.failures.get().saturating_add(1));
    }
}

fn bytes(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::new();
    fill_bytes(v, &mut out);
    out
}

/// `v` as little-endian bytes into `out` (reused: no allocation per frame once it is big enough).
fn fill_bytes(v: &[f32], out: &mut Vec<u8>) {
    out.clear();
    out.resize(v.len() * 4, 0);
    for (d, f) in out.chunks_exact_mut(4).zip(v) {
        d.copy_from_slice(&f.to_le_bytes());
    }
}

/// A vertex buffer that grows (powers of two) as the data does.
struct DynBuf {
    buf: wgpu::Buffer,
    cap: u64,
    len: u64,
    label: &'static str,
    scratch: Vec<u8>,
}

impl DynBuf {
    fn new(device: &wgpu::Device, label: &'static str) -> DynBuf {
        let cap = 4096;
        DynBuf { buf: make_vertex_buffer(device, label, cap), cap, len: 0, label, scratch: Vec::new() }
    }
    fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, data: &[f32]) {
        let mut b = std::mem::take(&mut self.scratch);
        fill_bytes(data, &mut b);
        let need = b.len() as u64;
        if need > self.cap {
            self.cap = need.next_power_of_two();
            self.buf = make_vertex_buffer(device, self.label, self.cap);
        }
        if need > 0 {
            queue.write_buffer(&self.buf, 0, &b);
        }
        self.len = need;
        self.scratch = b;
    }
}

fn make_vertex_buffer(device: &wgpu::Device, label: &'static str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

struct Pipelines {
    ground: wgpu::RenderPipeline,
    entity: wgpu::RenderPipeline,
    outline: wgpu::RenderPipeline,
    ghost: wgpu::RenderPipeline,
    lines: wgpu::RenderPipeline,
    flash: wgpu::RenderPipeline,
}

pub struct Gpu {
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    pub backend: &'static str,
    /// The surface format is sRGB: shaders convert their (sRGB-valued) colours to linear.
    pub srgb: bool,
    pub max_dim: u32,
    msaa: u32,
    depth: wgpu::TextureView,
    color_ms: Option<wgpu::TextureView>,
    uniform: wgpu::Buffer,
    bind: wgpu::BindGroup,
    mesh: wgpu::Buffer,
    ranges: [(u32, u32); 5],
    inst: DynBuf,
    outline: DynBuf,
    /// Compare's ghosts (FrameData::ghosts).
    ghosts: DynBuf,
    lines: DynBuf,
    flashes: DynBuf,
    pipes: Pipelines,
    lost: Arc<AtomicBool>,
    health: Rc<SurfaceHealth>,
}

/// Requests an adapter and device for `canvas`: WebGPU first (unless `prefer_webgl` and the build
/// has WebGL), then WebGL2 when compiled in.
pub async fn create<H: Host>(canvas: H, prefer_webgl: bool, width: u32, height: u32) -> Result<Gpu, String> {
    let mut errors: Vec<String> = Vec::new();
    let try_webgpu = !(prefer_webgl && cfg!(feature = "webgl"));
    if try_webgpu {
        match create_webgpu(canvas.clone(), width, height).await {
            Ok(g) => return Ok(g),
            Err(e) => errors.push(format!("WebGPU: {e}")),
        }
    }
    #[cfg(feature = "webgl")]
    match create_webgl(canvas, width, height).await {
        Ok(g) => return Ok(g),
        Err(e) => errors.push(format!("WebGL2: {e}")),
    }
    #[cfg(not(feature = "webgl"))]
    drop(canvas);
    Err(format!("no GPU adapter ({})", errors.join("; ")))
}

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor { backends, ..wgpu::InstanceDescriptor::new_without_display_handle() })
}

async fn create_webgpu<H: Host>(canvas: H, width: u32, height: u32) -> Result<Gpu, String> {
    if !H::has_webgpu() {
        return Err("this browser has no WebGPU (navigator.gpu is missing)".into());
    }
    let inst = instance(wgpu::Backends::BROWSER_WEBGPU);
    // Adapter before surface: a canvas that got a "webgpu" context can no longer fall back to WebGL.
    let adapter = inst
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        })
        .await
        .map_err(|e| e.to_string())?;
    let (device, queue) = request_device(&adapter).await?;
    let surface = inst.create_surface(canvas.surface_target()).map_err(|e| e.to_string())?;
    finish::<H>(surface, adapter, device, queue, "webgpu", width, height)
}

#[cfg(feature = "webgl")]
async fn create_webgl<H: Host>(canvas: H, width: u32, height: u32) -> Result<Gpu, String> {
    let inst = instance(wgpu::Backends::GL);
    let surface = inst.create_surface(canvas.surface_target()).map_err(|e| e.to_string())?;
    let adapter = inst
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        })
        .await
        .map_err(|e| e.to_string())?;
    let (device, queue) = request_device(&adapter).await?;
    finish::<H>(surface, adapter, device, queue, "webgl2", width, height)
}

impl Drop for Gpu {
    /// A renderer freed on purpose destroys its device: its loss is then `Destroyed` (not the
    /// browser's "no valid external Instance" loss of a device left to the page's teardown),
    /// which the lost-device callback does not warn about.
    fn drop(&mut self) {
        self.device.destroy();
    }
}

async fn request_device(adapter: &wgpu::Adapter) -> Result<(wgpu::Device, wgpu::Queue), String> {
    let limits = wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits());
    adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("replay-player"),
            required_limits: limits,
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())
}

fn finish<H: Host>(
    surface: wgpu::Surface<'static>,
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    backend: &'static str,
    width: u32,
    height: u32,
) -> Result<Gpu, String> {
    let lost = Arc::new(AtomicBool::new(false));
    let flag = lost.clone();
    device.set_device_lost_callback(move |reason, msg| {
        if reason != wgpu::DeviceLostReason::Destroyed {
            H::warn(&format!("GPU device lost ({reason:?}): {msg}; recreating"));
        }
        flag.store(true, Ordering::SeqCst);
    });
    // The default handler panics; a validation error must not take the page down.
    device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
        H::error(&format!("wgpu: {e}"));
    }));

    let max_dim = device.limits().max_texture_dimension_2d.max(1);
    let (w, h) = (width.clamp(1, max_dim), height.clamp(1, max_dim));
    let caps = surface.get_capabilities(&adapter);
    let mut config =
        surface.get_default_config(&adapter, w, h).ok_or("the canvas surface is not supported by this adapter")?;
    // Prefer a non-sRGB 8-bit format (colours are authored in sRGB); else convert in the shaders.
    if let Some(f) = caps
        .formats
        .iter()
        .copied()
        .find(|f| matches!(f, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm))
    {
        config.format = f;
    }
    config.present_mode = wgpu::PresentMode::Fifo;
    if caps.alpha_modes.contains(&wgpu::CompositeAlphaMode::Opaque) {
        config.alpha_mode = wgpu::CompositeAlphaMode::Opaque;
    }
    surface.configure(&device, &config);
    let srgb = config.format.is_srgb();

    let msaa_ok = |f: wgpu::TextureFormat| adapter.get_texture_format_features(f).flags.sample_count_supported(4);
    let msaa = if msaa_ok(config.format) && msaa_ok(DEPTH_FORMAT) { 4 } else { 1 };

    let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("frame"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("frame uniform"),
        size: (UNIFORM_FLOATS * 4) as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("frame"),
        layout: &bind_layout,
        entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() }],
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("frame"),
        bind_group_layouts: &[Some(&bind_layout)],
        immediate_size: 0,
    });

    let (mesh_data, ranges) = mesh::build();
    let mesh_bytes = bytes(&mesh_data);
    let mesh = make_vertex_buffer(&device, "meshes", (mesh_bytes.len() as u64).max(4));
    queue.write_buffer(&mesh, 0, &mesh_bytes);

    let pipes = pipelines(&device, &layout, config.format, msaa);
    let (depth, color_ms) = targets(&device, &config, msaa);
    Ok(Gpu {
        inst: DynBuf::new(&device, "instances"),
        outline: DynBuf::new(&device, "outline"),
        ghosts: DynBuf::new(&device, "ghosts"),
        lines: DynBuf::new(&device, "lines"),
        flashes: DynBuf::new(&device, "flashes"),
        surface,
        device,
        queue,
        config,
        backend,
        srgb,
        max_dim,
        msaa,
        depth,
        color_ms,
        uniform,
        bind,
        mesh,
        ranges,
        pipes,
        lost,
        health: Rc::default(),
    })
}

fn targets(
    device: &wgpu::Device,
    config: &wgpu::SurfaceConfiguration,
    msaa: u32,
) -> (wgpu::TextureView, Option<wgpu::TextureView>) {
    let size = wgpu::Extent3d { width: config.width, height: config.height, depth_or_array_layers: 1 };
    let tex = |label, format| {
        device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: msaa,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor::default())
    };
    let depth = tex("depth", DEPTH_FORMAT);
    let color = if msaa > 1 { Some(tex("msaa colour", config.format)) } else { None };
    (depth, color)
}

fn pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    format: wgpu::TextureFormat,
    msaa: u32,
) -> Pipelines {
    let module = |label: &'static str, src: &'static str| {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(src)),
        })
    };
    let ground = module("ground.wgsl", include_str!("../../../shaders/ground.wgsl"));
    let entity = module("entity.wgsl", include_str!("../../../shaders/entity.wgsl"));
    let lines = module("lines.wgsl", include_str!("../../../shaders/lines.wgsl"));
    let flash = module("flash.wgsl", include_str!("../../../shaders/flash.wgsl"));

    let depth = |write: bool| {
        Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            // Reverse-Z: nearer is greater.
            depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
            stencil: wgpu::StencilState::default(),
            bias: wgpu::DepthBiasState::default(),
        })
    };
    let multisample = wgpu::MultisampleState { count: msaa, mask: !0, alpha_to_coverage_enabled: false };
    let alpha = wgpu::BlendState::ALPHA_BLENDING;
    let additive = wgpu::BlendState {
        color: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
        alpha: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::Zero,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
    };

    let mesh_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
    let inst_attrs = wgpu::vertex_attr_array![2 => Float32x3, 3 => Float32, 4 => Float32x4, 5 => Float32x4];
    let line_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];
    let flash_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Float32x4];
    let mesh_buffers = [
        Some(wgpu::VertexBufferLayout {
            array_stride: (VERTEX_FLOATS * 4) as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &mesh_attrs,
        }),
        Some(wgpu::VertexBufferLayout {
            array_stride: (INSTANCE_FLOATS * 4) as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &inst_attrs,
        }),
    ];
    let line_buffers = [Some(wgpu::VertexBufferLayout {
        array_stride: (LINE_FLOATS * 4) as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &line_attrs,
    })];
    let flash_buffers = [Some(wgpu::VertexBufferLayout {
        array_stride: (FLASH_FLOATS * 4) as u64,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &flash_attrs,
    })];

    struct P<'a> {
        label: &'static str,
        module: &'a wgpu::ShaderModule,
        fs: &'static str,
        buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
        topology: wgpu::PrimitiveTopology,
        cull: Option<wgpu::Face>,
        depth_write: bool,
        blend: Option<wgpu::BlendState>,
    }
    let make = |p: P<'_>| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(p.label),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module: p.module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: p.buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: p.topology,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: p.cull,
                ..Default::default()
            },
            depth_stencil: depth(p.depth_write),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: p.module,
                entry_point: Some(p.fs),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: p.blend, write_mask: wgpu::ColorWrites::ALL })],
            }),
            multiview_mask: None,
            cache: None,
        })
    };
    let tri = wgpu::PrimitiveTopology::TriangleList;
    Pipelines {
        ground: make(P {
            label: "ground",
            module: &ground,
            fs: "fs_main",
            buffers: &[],
            topology: tri,
            cull: None,
            depth_write: true,
            blend: None,
        }),
        entity: make(P {
            label: "entity",
            module: &entity,
            fs: "fs_main",
            buffers: &mesh_buffers,
            topology: tri,
            cull: Some(wgpu::Face::Back),
            depth_write: true,
            blend: None,
        }),
        outline: make(P {
            label: "outline",
            module: &entity,
            fs: "fs_outline",
            buffers: &mesh_buffers,
            topology: tri,
            cull: Some(wgpu::Face::Front),
            depth_write: true,
            blend: None,
        }),
        // Compare's ghosts: blended over the opaque scene, depth-tested but not written, so a ghost
        // inside its own entity still shows and ghosts do not hide each other.
        ghost: make(P {
            label: "ghost",
            module: &entity,
            fs: "fs_ghost",
            buffers: &mesh_buffers,
            topology: tri,
            cull: Some(wgpu::Face::Back),
            depth_write: false,
            blend: Some(alpha),
        }),
        lines: make(P {
            label: "lines",
            module: &lines,
            fs: "fs_main",
            buffers: &line_buffers,
            topology: wgpu::PrimitiveTopology::LineList,
            cull: None,
            depth_write: false,
            blend: Some(alpha),
        }),
        flash: make(P {
            label: "flash",
            module: &flash,
            fs: "fs_main",
            buffers: &flash_buffers,
            topology: tri,
            cull: None,
            depth_write: false,
            blend: Some(additive),
        }),
    }
}

/// Draws instance groups (first instance, count per category) of `buf` with the category meshes
/// in `ranges`, in the pass' current pipeline (mesh buffer bound at slot 0).
fn draw_groups(pass: &mut wgpu::RenderPass<'_>, ranges: &[(u32, u32)], groups: &[(u32, u32)], buf: &DynBuf) {
    let stride = (INSTANCE_FLOATS * 4) as u64;
    for (k, &(first, count)) in groups.iter().enumerate() {
        let Some(&(v0, vn)) = ranges.get(k) else {
            continue;
        };
        if count == 0 || vn == 0 {
            continue;
        }
        // Bind at an offset and draw from instance 0 (no first_instance: safest on WebGL2).
        let off = u64::from(first) * stride;
        let end = off + u64::from(count) * stride;
        if end > buf.len {
            continue;
        }
        pass.set_vertex_buffer(1, buf.buf.slice(off..end));
        pass.draw(v0..v0 + vn, 0..count);
    }
}

impl Gpu {
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }

    /// Test hook: destroys the device, which reports it lost exactly like a real loss.
    pub fn destroy_device(&self) {
        self.device.destroy();
        self.lost.store(true, Ordering::SeqCst);
    }

    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Reconfigures the surface at `width`×`height` pixels (clamped to 1..=max texture dimension).
    pub fn resize(&mut self, width: u32, height: u32) {
        let (w, h) = (width.clamp(1, self.max_dim), height.clamp(1, self.max_dim));
        if (w, h) == (self.config.width, self.config.height) {
            return;
        }
        self.config.width = w;
        self.config.height = h;
        self.surface.configure(&self.device, &self.config);
        let (depth, color) = targets(&self.device, &self.config, self.msaa);
        self.depth = depth;
        self.color_ms = color;
    }

    /// Uploads and draws one frame on `canvas`; `false` when nothing was drawn: the surface is
    /// reconfigured first (after a frame whose texture could not be used, or when the canvas' size is
    /// not the configured one), busy, or lost (docs/renderer.md, "Surface acquisition").
    pub fn render<H: Host>(&mut self, canvas: &H, data: &FrameData) -> bool {
        let health = self.health.clone();
        if health.failures.get() >= SURFACE_RETRIES {
            H::warn("the canvas gave no usable texture for several frames; recreating the GPU device");
            self.lost.store(true, Ordering::SeqCst);
            return false;
        }
        // The canvas texture has the canvas' size, the depth and MSAA targets the configured one.
        if health.reconfigure.take() || canvas.size() != self.size() {
            self.surface.configure(&self.device, &self.config);
            return false;
        }
        // Errors from here to the view are the canvas texture's; those after it, the frame's.
        let acquiring = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => t,
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                health.reconfigure.set(true);
                t
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return false,
            wgpu::CurrentSurfaceTexture::Outdated
            | wgpu::CurrentSurfaceTexture::Lost
            | wgpu::CurrentSurfaceTexture::Validation => {
                health.failed();
                return false;
            }
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
        let acquired = acquiring.pop();
        let drawing = self.device.push_error_scope(wgpu::ErrorFilter::Validation);

        self.queue.write_buffer(&self.uniform, 0, &bytes(&data.uniform));
        self.inst.upload(&self.device, &self.queue, &data.instances);
        self.outline.upload(&self.device, &self.queue, &data.outline);
        self.ghosts.upload(&self.device, &self.queue, &data.ghosts);
        self.lines.upload(&self.device, &self.queue, &data.lines);
        self.flashes.upload(&self.device, &self.queue, &data.flashes);

        let bg = BACKGROUND.map(|c| if self.srgb { c.powf(2.2) } else { c });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        {
            let (target, resolve) = match &self.color_ms {
                Some(ms) => (ms, Some(&view)),
                None => (&view, None),
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("main"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: resolve,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r: bg[0], g: bg[1], b: bg[2], a: 1.0 }),
                        store: if resolve.is_some() { wgpu::StoreOp::Discard } else { wgpu::StoreOp::Store },
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Discard }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.bind, &[]);

            // Ground first (writes depth), then entities, the selection outline, trails, flashes.
            if data.uniform.get(32).copied().unwrap_or(0.0) > 0.5 {
                pass.set_pipeline(&self.pipes.ground);
                pass.draw(0..3, 0..1);
            }
            pass.set_pipeline(&self.pipes.entity);
            pass.set_vertex_buffer(0, self.mesh.slice(..));
            draw_groups(&mut pass, &self.ranges, &data.groups, &self.inst);
            if self.outline.len > 0 {
                if let Some(&(v0, vn)) = self.ranges.get(data.outline_category) {
                    pass.set_pipeline(&self.pipes.outline);
                    pass.set_vertex_buffer(1, self.outline.buf.slice(..self.outline.len));
                    pass.draw(v0..v0 + vn, 0..1);
                }
            }
            if self.ghosts.len > 0 {
                pass.set_pipeline(&self.pipes.ghost);
                draw_groups(&mut pass, &self.ranges, &data.ghost_groups, &self.ghosts);
            }
            let nlines = (data.lines.len() / LINE_FLOATS) as u32;
            if nlines > 0 {
                pass.set_pipeline(&self.pipes.lines);
                pass.set_vertex_buffer(0, self.lines.buf.slice(..self.lines.len));
                pass.draw(0..nlines, 0..1);
            }
            let nflash = (data.flashes.len() / FLASH_FLOATS) as u32;
            if nflash > 0 {
                pass.set_pipeline(&self.pipes.flash);
                pass.set_vertex_buffer(0, self.flashes.buf.slice(..self.flashes.len));
                pass.draw(0..6, 0..nflash);
            }
        }
        self.queue.submit(Some(encoder.finish()));
        self.queue.present(frame);
        let drawn = drawing.pop();
        H::spawn(Box::pin(async move {
            if acquired.await.is_some() {
                // An invalid canvas texture (nothing else in that scope can fail): the frame drawn
                // with it failed for that reason alone. Not an error of ours; the next frame
                // reconfigures and is skipped, the one after draws.
                health.failed();
            } else {
                health.failures.set(0);
                if let Some(e) = drawn.await {
                    H::error(&format!("wgpu: {e}"));
                }
            }
        }));
        true
    }
}
