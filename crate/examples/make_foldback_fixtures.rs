//! Writes the `.foldback` fixtures: the golden files with their expected dumps to
//! tests/fixtures/foldback/, and the hostile files to tests/fixtures/foldback/hostile/.
//! Run: `cargo run -p replay-player --example make_foldback_fixtures`
//! (crate/tests/foldback.rs includes this file and checks the committed files are exactly these.)

use replay_player::bytes::PutLe;
use replay_player::format::foldback::frame::encode_unchecked;
use replay_player::format::foldback::{Frame, Header};
use std::path::PathBuf;

pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/foldback")
}

fn header(version: u16, flags: u16, peers: u32) -> Vec<u8> {
    let mut h = Header::new(60, peers, [0x5A; 16]);
    h.format_version = version;
    h.flags = flags;
    h.encode()
}

fn frame(f: &Frame<'_>) -> Vec<u8> {
    let mut v = Vec::new();
    encode_unchecked(f, &mut v);
    v
}

fn raw(t: u8, payload: &[u8]) -> Vec<u8> {
    let mut v = vec![t];
    v.put_u32(payload.len() as u32);
    v.extend_from_slice(payload);
    v
}

fn file(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

/// One zstd frame (RFC 8878) of `len` zero bytes made of RLE blocks of 128 KiB each (4 bytes per
/// block): Frame_Header_Descriptor 0x00 (no content size, no checksum), Window_Descriptor 0x38
/// (windowLog 17 = the block size). `len` is a multiple of 128 KiB.
pub fn rle_frame(len: usize) -> Vec<u8> {
    const BLOCK: usize = 128 * 1024;
    let blocks = len / BLOCK;
    let mut v = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38];
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        // Block_Header: bit 0 Last_Block, bits 1-2 Block_Type (1 = RLE), bits 3-23 Block_Size.
        let h = last | (1 << 1) | ((BLOCK as u32) << 3);
        v.extend_from_slice(h.to_le_bytes().get(..3).unwrap_or(&[]));
        v.push(0);
    }
    v
}

/// (name, bytes): each must fail (or recover) in ONE specific way, asserted in tests/foldback.rs.
pub fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    let ok = |tick: u64, peer: u16| frame(&Frame::TickHash { tick, peer, hash: 0xABCD + tick });
    let eos = frame(&Frame::EndOfStream);
    // A FieldHash whose name length (5000) is over the 4096 limit, with the bytes present.
    let mut long_name = Vec::new();
    long_name.put_u64(1);
    long_name.put_u16(0);
    long_name.put_u64(7);
    long_name.put_u32(5000);
    long_name.extend_from_slice(&[b'a'; 5000]);
    long_name.put_u64(0);
    long_name.put_u32(0);
    // A FieldHash whose name is not UTF-8.
    let mut bad_utf8 = Vec::new();
    bad_utf8.put_u64(1);
    bad_utf8.put_u16(0);
    bad_utf8.put_u64(7);
    bad_utf8.put_u32(2);
    bad_utf8.extend_from_slice(&[0xC3, 0x28]);
    bad_utf8.put_u64(0);
    bad_utf8.put_u32(0);
    // A FieldHash whose value length points past its payload.
    let mut value_overrun = Vec::new();
    value_overrun.put_u64(1);
    value_overrun.put_u16(0);
    value_overrun.put_u64(7);
    value_overrun.put_u32(1);
    value_overrun.push(b'x');
    value_overrun.put_u64(0);
    value_overrun.put_u32(1000);
    value_overrun.extend_from_slice(&[1, 2, 3]);
    // A snapshot of 1 MiB of zeros (a few dozen bytes compressed): a bomb under a small cap.
    let bomb = replay_player::format::zstd::compress(&vec![0u8; 1 << 20]);
    let mut snap = Vec::new();
    snap.put_u64(0);
    snap.put_u16(0);
    snap.put_u32(bomb.len() as u32);
    snap.extend_from_slice(&bomb);
    // A snapshot whose zstd frame (8 KiB of RLE blocks, no content size) inflates to 256 MiB: four
    // times the default cap, so `validate` refuses it with the numbers (it opened as "ok" before).
    let inflate_256 = frame(&Frame::Snapshot { tick: 1, peer: 1, data: &rle_frame(256 << 20) });
    let corrupt_snapshot = frame(&Frame::Snapshot {
        tick: 0,
        peer: 0,
        data: &[0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF],
    });
    vec![
        ("newer-version", file(&[header(2, 0, 2), ok(0, 0), eos.clone()])),
        ("version-zero", file(&[header(0, 0, 2), eos.clone()])),
        ("nonzero-flags", file(&[header(1, 4, 2), eos.clone()])),
        ("too-many-peers", file(&[header(1, 0, 5000), eos.clone()])),
        ("short-header", header(1, 0, 2).get(..20).unwrap_or(&[]).to_vec()),
        ("short-tickhash", file(&[header(1, 0, 2), ok(0, 0), raw(0x01, &[0u8; 10]), ok(1, 0), eos.clone()])),
        ("long-field-name", file(&[header(1, 0, 2), ok(1, 0), raw(0x03, &long_name), eos.clone()])),
        ("bad-utf8-name", file(&[header(1, 0, 2), ok(1, 0), raw(0x03, &bad_utf8), eos.clone()])),
        ("value-overrun", file(&[header(1, 0, 2), ok(1, 0), raw(0x03, &value_overrun), eos.clone()])),
        ("undeclared-peer", file(&[header(1, 0, 2), ok(0, 0), ok(0, 1), ok(0, 9), eos.clone()])),
        (
            "impossible-length",
            file(&[header(1, 0, 2), ok(0, 0), ok(0, 1), vec![0x01, 0xF0, 0xFF, 0xFF, 0xFF, 1, 2, 3]]),
        ),
        ("snapshot-bomb", file(&[header(1, 0, 2), ok(0, 0), raw(0x10, &snap), eos.clone()])),
        (
            "snapshot-over-cap",
            file(&[header(1, 0, 2), ok(0, 0), ok(0, 1), ok(1, 0), inflate_256, ok(1, 1), eos.clone()]),
        ),
        ("snapshot-corrupt", file(&[header(1, 0, 2), ok(0, 0), corrupt_snapshot, eos.clone()])),
        ("frames-after-eos", file(&[header(1, 0, 2), ok(0, 0), ok(0, 1), eos, ok(1, 0), vec![0xDE, 0xAD]])),
    ]
}

#[allow(dead_code)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use replay_player::io::{dump::write_dump, open_session};
    let dir = fixtures_dir();
    std::fs::create_dir_all(dir.join("hostile"))?;
    for (name, bytes) in replay_player::sim::foldback::golden()? {
        std::fs::write(dir.join(name), &bytes)?;
        let mut src = bytes.clone();
        let mut s = open_session(&mut src)?;
        let mut out = Vec::new();
        write_dump(&mut s, &mut src, &mut out).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name.replace(".foldback", ".jsonl")), &out)?;
        println!("{name}: {} bytes, dump {} lines", bytes.len(), out.iter().filter(|b| **b == b'\n').count());
    }
    for (name, bytes) in hostile() {
        std::fs::write(dir.join("hostile").join(format!("{name}.foldback")), &bytes)?;
    }
    println!("{} hostile files", hostile().len());
    Ok(())
}
