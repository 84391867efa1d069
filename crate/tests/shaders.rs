//! Parses and validates every WGSL file in `shaders/` with naga, reporting all failures at once.
//! Also enforces the WebGL2 downlevel rules the renderer relies on: no storage buffers or storage
//! textures anywhere (uniform + vertex/instance buffers only), at most 4 bind groups.

#![allow(clippy::panic)]
use std::path::PathBuf;

/// The number of shaders the renderer ships; raise it when adding one.
const MIN_SHADERS: usize = 4;

fn shader_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("shaders")
}

#[test]
fn every_wgsl_file_parses_and_validates() {
    let dir = shader_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let src = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: read: {e}"));
                continue;
            }
        };
        let module = match naga::front::wgsl::parse_str(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: parse:\n{}", e.emit_to_string_with_path(&src, &path.to_string_lossy())));
                continue;
            }
        };
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::empty());
        if let Err(e) = validator.validate(&module) {
            failures.push(format!("{name}: validate:\n{}", e.emit_to_string_with_path(&src, &path.to_string_lossy())));
        }
        for (_, g) in module.global_variables.iter() {
            if matches!(g.space, naga::AddressSpace::Storage { .. }) {
                failures.push(format!("{name}: global {:?} is a storage buffer (not available on WebGL2)", g.name));
            }
            if let Some(b) = &g.binding {
                if b.group >= 4 {
                    failures.push(format!("{name}: bind group {} >= 4", b.group));
                }
            }
            if let naga::TypeInner::Image { class: naga::ImageClass::Storage { .. }, .. } = module.types[g.ty].inner {
                failures.push(format!("{name}: storage texture {:?} (not available on WebGL2)", g.name));
            }
        }
        if module.entry_points.is_empty() {
            failures.push(format!("{name}: no entry points"));
        }
    }
    assert!(failures.is_empty(), "{} shader failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(
        files.len() >= MIN_SHADERS,
        "expected at least {MIN_SHADERS} .wgsl files in {}, found {}",
        dir.display(),
        files.len()
    );
}
