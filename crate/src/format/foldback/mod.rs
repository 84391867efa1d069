//! `.foldback` 1: determinism-check session files and live frames (normative spec:
//! docs/format/foldback.md).
//!
//! A `.foldback` file is a 32-byte header followed by a log of frames
//! `[u8 frame_type][u32 payload_len][payload]`, all little-endian. The same frame bytes travel as
//! binary WebSocket messages in live mode, and one parser ([`parse_frame`] / [`frame::parse_payload`])
//! reads both.
//!
//! - [`frame`]: header and frame codec (parse and encode).
//! - [`scan`]: the sans-IO windowed frame scanner (asks for big byte ranges, never the whole file).
//! - [`index`]: the compact per-tick index built from a scan or from live frames, and the sans-IO
//!   [`Indexer`] that opens a file.
//! - [`diverge`]: the pure divergence model (which tick, entity and field first differ between peers).
//! - [`live`]: live-mode control messages and the in-memory recording a viewer builds from frames.
//! - [`writer`]: the streaming writer.

pub mod diverge;
mod error;
pub mod frame;
pub mod index;
pub mod live;
pub mod scan;
pub mod value;
pub mod writer;

pub use error::Error;
#[cfg(feature = "json")]
pub use frame::frame_json;
pub use frame::{parse_frame, parse_frame_with, Frame, Header};
pub use index::{Index, IndexStep, Indexer};
pub use scan::{Item, ScanEnd, ScanStep, Scanner};
pub use writer::{encode_frame, WriteError, Writer};

pub const MAGIC: &[u8; 4] = b"FBK1";
/// The format version this build reads and writes.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes in the fixed file header.
pub const HEADER_LEN: usize = 32;
/// Bytes before a frame's payload: `u8 frame_type, u32 payload_len`.
pub const FRAME_HEADER_LEN: usize = 5;

/// Frame type bytes.
pub mod frame_type {
    pub const TICK_HASH: u8 = 0x01;
    pub const ENTITY_HASH: u8 = 0x02;
    pub const FIELD_HASH: u8 = 0x03;
    pub const SNAPSHOT: u8 = 0x10;
    pub const METADATA: u8 = 0x20;
    pub const END_OF_STREAM: u8 = 0xFF;

    /// The name of a frame type, for messages (`"unknown"` for types this build does not read).
    pub fn name(t: u8) -> &'static str {
        match t {
            TICK_HASH => "TickHash",
            ENTITY_HASH => "EntityHash",
            FIELD_HASH => "FieldHash",
            SNAPSHOT => "Snapshot",
            METADATA => "Metadata",
            END_OF_STREAM => "EndOfStream",
            _ => "unknown",
        }
    }
}

/// Limits applied while reading (files and live frames). Every one has a named error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest frame payload (`payload_len`).
    pub max_frame_payload: u32,
    /// Longest FieldHash field name and Metadata key.
    pub max_name: u32,
    /// Longest FieldHash value and Metadata value.
    pub max_value: u32,
    /// Most peers a header (or a live hello) may declare.
    pub max_peers: u32,
    /// Largest decompressed snapshot (the zstd output cap).
    pub max_snapshot_decompressed: u32,
    /// Bytes the scanner asks for at once (a frame larger than this is asked for whole, except
    /// snapshots and unknown frames, which are skipped by length).
    pub scan_window: u32,
    /// Most Metadata bytes (keys + values) an index keeps; later Metadata frames are counted, not kept.
    pub max_metadata_bytes: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame_payload: 64 * 1024 * 1024,
            max_name: 4096,
            max_value: 1024 * 1024,
            max_peers: 1024,
            max_snapshot_decompressed: 64 * 1024 * 1024,
            scan_window: 1024 * 1024,
            max_metadata_bytes: 1024 * 1024,
        }
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0')));
        s.push(char::from(HEX.get(usize::from(b & 15)).copied().unwrap_or(b'0')));
    }
    s
}

const HEX: [u8; 16] = *b"0123456789abcdef";

/// A u64 hash as the 16 hex digits every view shows.
pub fn hash_hex(h: u64) -> String {
    format!("{h:016x}")
}

/// Parses exactly 32 hex digits into a build id.
pub fn parse_build_id(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        let hi = (*pair.first()? as char).to_digit(16)?;
        let lo = (*pair.get(1)? as char).to_digit(16)?;
        *o = (hi * 16 + lo) as u8;
    }
    Some(out)
}
