//! `.flrep` format 1.0 (normative spec: docs/format/flrep.md).
//!
//! - [`open`]: the sans-IO opener (header, sections, index trailer or forward scan).
//! - [`chunk`]: chunk headers and chunk decoding (zstd + tick records) into full per-tick state.
//! - [`record`]: the QuantEntity record codec and the per-entity prediction state.
//! - [`event`]: match-event records.
//! - [`writer`]: the streaming, deterministic writer with rotation.

pub mod chunk;
mod error;
pub mod event;
pub mod header;
pub mod open;
pub mod record;
pub mod trailer;
pub mod writer;

pub use chunk::{ChunkDecoder, ChunkHeader, DecodedChunk, Piece, TickRange};
pub use error::Error;
pub use open::{Opened, Opener, Step};
pub use writer::{Writer, WriterOptions};

pub const MAGIC: &[u8; 4] = b"FLRP";
pub const CHUNK_MAGIC: &[u8; 4] = b"FLCK";
pub const TRAILER_MAGIC: &[u8; 4] = b"FLIX";
/// The major version this build reads and writes.
pub const FORMAT_MAJOR: u16 = 1;
/// The minor version this build writes.
pub const FORMAT_MINOR: u16 = 0;

pub const DEFAULT_POSITION_QUANTUM_M: f64 = 0.125;
pub const DEFAULT_VELOCITY_QUANTUM_MPS: f64 = 1.0 / 32.0;

/// Default [`Limits::max_chunk_states`]: ~100 MiB of decoded states (120-tick chunks of 16,000
/// entities). The writer closes a chunk early rather than exceed it.
pub const MAX_CHUNK_STATES: usize = 2_000_000;

/// Limits applied while reading. Every one has a named error. Defaults are the player's.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Longest string (bytes) in any header field, section or event.
    pub max_string: usize,
    /// Largest header remainder.
    pub max_header_bytes: u32,
    /// Largest total of header + all sections before the frame stream.
    pub max_prefix_bytes: u64,
    /// Largest compressed chunk.
    pub max_chunk_compressed: u32,
    /// Largest decompressed chunk (the zstd output cap).
    pub max_chunk_uncompressed: u32,
    /// Most entities alive at once.
    pub max_live_entities: usize,
    /// Largest index trailer.
    pub max_trailer_bytes: u64,
    /// Most entity states one decoded chunk may hold (the sum over its ticks of the live entities):
    /// bounds the decoded chunk's memory, which a small payload of empty ticks would otherwise
    /// multiply (14 bytes per tick re-emit every live entity, 52 bytes each).
    pub max_chunk_states: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_string: 4096,
            max_header_bytes: 64 * 1024,
            max_prefix_bytes: 16 * 1024 * 1024,
            max_chunk_compressed: 16 * 1024 * 1024,
            max_chunk_uncompressed: 16 * 1024 * 1024,
            max_live_entities: 100_000,
            max_trailer_bytes: 64 * 1024 * 1024,
            max_chunk_states: MAX_CHUNK_STATES,
        }
    }
}

/// Decodes the bytes of chunk `i` (header + frame, as one range) after checking them against the index.
pub fn decode_chunk_bytes(
    opened: &Opened,
    dec: &mut ChunkDecoder,
    limits: &Limits,
    i: usize,
    bytes: &[u8],
) -> Result<DecodedChunk, Error> {
    let (h, frame) = chunk_of_bytes(opened, limits, i, bytes)?;
    dec.decode(&h, frame)
}

/// Decodes the ticks `r` of chunk `i` (see [`ChunkDecoder::decode_range`]). `bytes` (header + frame)
/// may be empty when the decoder holds that chunk's payload ([`ChunkDecoder::holds`]).
pub fn decode_chunk_range(
    opened: &Opened,
    dec: &mut ChunkDecoder,
    limits: &Limits,
    i: usize,
    bytes: &[u8],
    r: TickRange,
) -> Result<Piece, Error> {
    let offset = opened.chunks.get(i).map(|c| c.offset).unwrap_or(0);
    if bytes.is_empty() {
        if let Some(h) = dec.holds(offset) {
            return dec.decode_range(&h, &[], r);
        }
    }
    let (h, frame) = chunk_of_bytes(opened, limits, i, bytes)?;
    dec.decode_range(&h, frame, r)
}

/// The checked header of chunk `i` and its compressed frame, out of the chunk's bytes.
fn chunk_of_bytes<'a>(
    opened: &Opened,
    limits: &Limits,
    i: usize,
    bytes: &'a [u8],
) -> Result<(ChunkHeader, &'a [u8]), Error> {
    let offset = opened.chunks.get(i).map(|c| c.offset).unwrap_or(0);
    let hb = bytes.get(..chunk::CHUNK_HEADER_LEN).unwrap_or(bytes);
    let h = match ChunkHeader::parse(hb, offset, opened.file_len, limits) {
        Ok(h) => h,
        Err(Error::NotAChunk { found, .. }) => {
            return Err(Error::IndexEntryMismatch {
                at: offset,
                expected_tick: opened.chunks.get(i).map(|c| c.first_tick).unwrap_or(0),
                reason: format!("no chunk starts there (found bytes {:02X?})", found),
            })
        }
        Err(e) => return Err(e),
    };
    opened.check_chunk(i, &h)?;
    Ok((h, bytes.get(chunk::CHUNK_HEADER_LEN..).unwrap_or(&[])))
}
