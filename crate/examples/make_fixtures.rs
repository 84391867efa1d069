//! Writes the golden fixtures and their expected dumps to tests/fixtures/golden/.
//! Run: `cargo run -p replay-player --example make_fixtures`

use replay_player::io::{dump::write_dump, open_session};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/golden");
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in replay_player::sim::fixtures::golden()? {
        std::fs::write(dir.join(name), &bytes)?;
        let mut src = bytes.clone();
        let mut s = open_session(&mut src)?;
        let mut out = Vec::new();
        write_dump(&mut s, &mut src, &mut out).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name.replace(".flrep", ".jsonl")), &out)?;
        println!("{name}: {} bytes, dump {} lines", bytes.len(), out.iter().filter(|b| **b == b'\n').count());
    }
    Ok(())
}
