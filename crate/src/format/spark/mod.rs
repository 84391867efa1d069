//! SparkEngine `.replay` (ReplaySystem::SaveToFile), version 1. Mapping and decisions:
//! docs/format/spark-replay.md.
//!
//! - [`open`]: the sans-IO opener: header and metadata, one forward scan of the frame headers
//!   (1 MiB reads, entity states skipped) that groups frames into chunks, then the events block.
//! - [`map`]: float ↔ quantized mapping and the Y-up left-handed → Z-up right-handed axis change.
//! - [`writer`]: the streaming writer (memory: one frame plus the events).
//!
//! Layout (little-endian): magic u32 0x52504C59 ("YLPR" on disk), version u32, mapName (u32 length +
//! bytes), gameMode (same), duration f32, frameCount u32, frames (timestamp f32, frameNumber u32,
//! entityCount u32, entityCount × 56-byte states), eventCount u32, events (timestamp f32, type
//! (u32 length + bytes), sourceEntity u32, targetEntity u32, position 3 × f32).

mod error;
pub mod map;
pub mod open;
pub mod writer;

pub use error::Error;
pub use open::{ChunkRef, FrameRun, FrameStats, Opened, Opener, Step};
pub use writer::Writer;

/// "YLPR": 0x52504C59 written little-endian.
pub const MAGIC: &[u8; 4] = b"YLPR";
/// "RPLY": the same magic written big-endian.
pub const MAGIC_BIG_ENDIAN: &[u8; 4] = b"RPLY";
/// The version this build reads and writes.
pub const VERSION: u32 = 1;
/// Bytes of one ReplayEntityState on disk.
pub const ENTITY_LEN: u64 = 56;
/// Bytes of a frame header (timestamp, frameNumber, entityCount).
pub const FRAME_HEADER_LEN: u64 = 12;
/// Fixed bytes of an event besides its type string (timestamp, type length, source, target, position).
pub const EVENT_FIXED_LEN: u64 = 4 + 4 + 4 + 4 + 12;

/// The limits of SparkEngine's LoadFromFile (kMax*), plus the player's own.
#[derive(Clone, Debug)]
pub struct Limits {
    /// kMaxStringLength: map name, game mode, event type (bytes).
    pub max_string: u32,
    /// kMaxFrameCount.
    pub max_frames: u32,
    /// kMaxEntityCount (per frame).
    pub max_entities: u32,
    /// kMaxEventCount.
    pub max_events: u32,
    /// Most participants listed (entity ids of the first frame plus killers, victims and spawns).
    pub max_participants: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_string: 4096,
            max_frames: 1_000_000,
            max_entities: 100_000,
            max_events: 1_000_000,
            max_participants: 4096,
        }
    }
}

/// One ReplayEntityState as stored (SparkEngine's axes and units).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SparkEntity {
    pub id: u32,
    pub position: [f32; 3],
    /// (x, y, z, w)
    pub rotation: [f32; 4],
    pub velocity: [f32; 3],
    pub health: f32,
    pub animation_state: i32,
    pub flags: u32,
}

/// One ReplayEvent as stored (the file has no `data` field).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SparkEvent {
    pub timestamp: f32,
    pub kind: String,
    pub source: u32,
    pub target: u32,
    pub position: [f32; 3],
}

/// Reads one 56-byte entity state.
pub fn read_entity(c: &mut crate::bytes::Cursor) -> Result<SparkEntity, crate::bytes::Short> {
    let id = c.u32()?;
    let mut f = [0f32; 11];
    for v in &mut f {
        *v = c.f32()?;
    }
    let animation_state = c.i32()?;
    let flags = c.u32()?;
    let [px, py, pz, rx, ry, rz, rw, vx, vy, vz, health] = f;
    Ok(SparkEntity {
        id,
        position: [px, py, pz],
        rotation: [rx, ry, rz, rw],
        velocity: [vx, vy, vz],
        health,
        animation_state,
        flags,
    })
}

/// Appends one 56-byte entity state.
pub fn write_entity(out: &mut Vec<u8>, e: &SparkEntity) {
    use crate::bytes::PutLe;
    out.put_u32(e.id);
    for v in e.position.iter().chain(&e.rotation).chain(&e.velocity) {
        out.put_f32(*v);
    }
    out.put_f32(e.health);
    out.put_i32(e.animation_state);
    out.put_u32(e.flags);
}

/// Decodes the bytes of chunk `i` (its whole range, from [`Opened::chunks`]).
pub fn decode_chunk_bytes(opened: &Opened, i: usize, bytes: &[u8]) -> Result<crate::model::DecodedChunk, Error> {
    opened.decode_chunk(i, bytes)
}
