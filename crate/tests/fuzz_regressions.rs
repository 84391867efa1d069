//! Replays every committed fuzz crash input (crate/fuzz/regressions/<target>/*) through the same
//! harness function the libFuzzer target runs (crate/fuzz/src/lib.rs, included here), plus the seed
//! corpora (crate/fuzz/seeds/<target>/*), in an ordinary `cargo test`: no nightly, no libFuzzer.
//!
//! A crash found by `scripts/fuzz.sh` is fixed in the reader and its input committed under
//! crate/fuzz/regressions/<target>/ (any file name); this test then keeps it fixed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../fuzz/src/lib.rs"]
mod harness;

use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Runs every file under `dir/<target>/` through its target; returns how many ran.
fn replay_dir(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else { return 0 };
    let mut n = 0;
    let mut targets: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect();
    targets.sort();
    for t in targets {
        let name = t.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let Some((_, f)) = harness::TARGETS.iter().find(|(n, _)| *n == name) else {
            panic!(
                "{}: no fuzz target named {name:?} (targets: {:?})",
                t.display(),
                harness::TARGETS.iter().map(|t| t.0).collect::<Vec<_>>()
            );
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&t)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            if file
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.') || n.to_string_lossy().ends_with(".md"))
            {
                continue;
            }
            let data = std::fs::read(&file).expect("read");
            let r = std::panic::catch_unwind(|| f(&data));
            assert!(r.is_ok(), "{name}: {} panics again", file.display());
            n += 1;
        }
    }
    n
}

/// Every input file under `dir`, at any depth (notes — `*.md`, dot files — aside): what
/// [`replay_dir`] must have replayed, counted independently of it, so an input in the wrong place
/// (not in a `<target>/` directory) fails instead of being passed over.
fn inputs_present(dir: &Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").filter_map(|e| e.ok()) {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                stack.push(p);
            } else if !name.starts_with('.') && !name.ends_with(".md") {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn fuzz_regressions_replay() {
    let dir = fuzz_dir().join("regressions");
    let n = replay_dir(&dir);
    let present = inputs_present(&dir);
    assert!(n > 0, "no crash inputs replayed from {}", dir.display());
    assert_eq!(n, present, "replayed {n} crash inputs of the {present} files in {}", dir.display());
}

#[test]
fn fuzz_seeds_replay() {
    let dir = fuzz_dir().join("seeds");
    let n = replay_dir(&dir);
    assert!(n > 0, "no seeds in crate/fuzz/seeds (run `cargo run --example make_hostile`)");
    assert_eq!(n, inputs_present(&dir), "seeds replayed vs files in {}", dir.display());
}

#[test]
fn every_target_has_seeds() {
    for (name, _) in harness::TARGETS {
        let d = fuzz_dir().join("seeds").join(name);
        let n = std::fs::read_dir(&d).map(|r| r.count()).unwrap_or(0);
        assert!(n > 0, "fuzz target {name} has no seeds in {}", d.display());
        assert!(fuzz_dir().join("fuzz_targets").join(format!("{name}.rs")).is_file(), "no fuzz_targets/{name}.rs");
    }
}

#[test]
fn hostile_corpus_through_open_and_play() {
    // The hand-made hostile files are also inputs to the open and play harnesses.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hostile");
    let mut n = 0;
    // Per-format subdirectories (hostile/spark/, ...) hold other formats' files: not flrep inputs.
    for e in
        std::fs::read_dir(&dir).expect("tests/fixtures/hostile").filter_map(|e| e.ok()).filter(|e| e.path().is_file())
    {
        let data = std::fs::read(e.path()).expect("read");
        harness::flrep_open(&data);
        harness::flrep_play(&data);
        n += 1;
    }
    assert!(n >= 30);
}
