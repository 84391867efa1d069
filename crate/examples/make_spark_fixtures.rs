//! Writes the SparkEngine golden fixtures (with their expected dumps) to tests/fixtures/spark/ and the
//! hostile ones to tests/fixtures/hostile/spark/.
//! Run: `cargo run -p replay-player --example make_spark_fixtures`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../tests/spark_fixtures/mod.rs"]
mod spark_fixtures;

use replay_player::io::{dump::write_dump, open_session};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let dir = root.join("spark");
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in spark_fixtures::golden() {
        std::fs::write(dir.join(name), &bytes)?;
        let mut src = bytes.clone();
        let mut s = open_session(&mut src)?;
        let mut out = Vec::new();
        write_dump(&mut s, &mut src, &mut out).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name.replace(".replay", ".jsonl")), &out)?;
        println!("{name}: {} bytes, dump {} lines", bytes.len(), out.iter().filter(|b| **b == b'\n').count());
    }
    let hdir = root.join("hostile/spark");
    std::fs::create_dir_all(&hdir)?;
    for (name, bytes) in spark_fixtures::hostile() {
        std::fs::write(hdir.join(format!("{name}.replay")), &bytes)?;
    }
    println!("{} hostile files in {}", spark_fixtures::hostile().len(), hdir.display());
    Ok(())
}
