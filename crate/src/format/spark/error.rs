/// Everything that can be wrong with a SparkEngine `.replay`. One variant per defect; the message
/// says where (file offset, frame or event index) and the numbers involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The first four bytes are neither "YLPR" nor "RPLY".
    BadMagic { found: [u8; 4] },
    /// The file starts "RPLY": the magic written big-endian. SparkEngine writes little-endian; a
    /// big-endian writer's floats and counts would be misread, so the file is refused.
    BigEndian,
    /// Version 0 (never written by SparkEngine).
    UnsupportedVersion { version: u32 },
    /// A version newer than this build reads.
    NewerVersion { version: u32, supported: u32 },
    /// The file ends inside `what` (header and metadata, or the first frame: nothing to play).
    Truncated { what: &'static str, at: u64, need: u64, have: u64 },
    /// A length-prefixed string over the 4,096-byte limit (kMaxStringLength).
    StringTooLong { what: &'static str, at: u64, len: u64, max: u64 },
    /// frameCount over kMaxFrameCount.
    TooManyFrames { count: u64, max: u64 },
    /// A frame's entityCount over kMaxEntityCount.
    TooManyEntities { frame: u64, at: u64, count: u64, max: u64 },
    /// eventCount over kMaxEventCount.
    TooManyEvents { count: u64, max: u64 },
    /// A frame or event timestamp that is not finite, negative, or absurdly large.
    BadTimestamp { what: &'static str, index: u64, at: u64, reason: String },
    /// An entity state field that cannot be mapped (not finite, out of the 32-bit quantized range).
    BadEntity { frame: u64, at: u64, entity: u32, field: &'static str, reason: String },
    /// An event position that cannot be mapped.
    BadEvent { index: u64, at: u64, field: &'static str, reason: String },
    /// The same entity id twice in one frame.
    DuplicateEntity { frame: u64, at: u64, entity: u32 },
    /// The recording holds no frame.
    NoFrames,
    /// The bytes handed to the chunk decoder are not what the open scan indexed there.
    ChunkMismatch { chunk: usize, at: u64, reason: String },
    /// The caller broke the opener's contract: bytes other than those asked for, or a call after it
    /// finished. (No native driver reads SparkEngine files outside [`crate::format::Session`], whose
    /// own error carries a failed read.)
    Usage(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Error::*;
        match self {
            BadMagic { found } => write!(f, "not a SparkEngine replay: expected magic \"YLPR\" (0x52504C59 little-endian), found bytes {:02X} {:02X} {:02X} {:02X}", found[0], found[1], found[2], found[3]),
            BigEndian => write!(f, "this SparkEngine replay was written big-endian (it starts \"RPLY\"); SparkEngine writes little-endian (\"YLPR\") and this player reads only that"),
            UnsupportedVersion { version } => write!(f, "SparkEngine replay version {version} is not one this build reads (it reads version {})", super::VERSION),
            NewerVersion { version, supported } => write!(f, "this SparkEngine replay is version {version}; this build reads version {supported} only"),
            Truncated { what, at, need, have } => write!(f, "file ends inside the {what} at offset {at}: {need} bytes needed, {have} left"),
            StringTooLong { what, at, len, max } => write!(f, "{what} at offset {at} is {len} bytes long, over the {max}-byte limit"),
            TooManyFrames { count, max } => write!(f, "frame count {count} exceeds the limit of {max}"),
            TooManyEntities { frame, at, count, max } => write!(f, "frame {frame} at offset {at}: entity count {count} exceeds the limit of {max}"),
            TooManyEvents { count, max } => write!(f, "event count {count} exceeds the limit of {max}"),
            BadTimestamp { what, index, at, reason } => write!(f, "{what} {index} at offset {at}: {reason}"),
            BadEntity { frame, at, entity, field, reason } => write!(f, "frame {frame}, entity {entity} at offset {at}: {field} {reason}"),
            BadEvent { index, at, field, reason } => write!(f, "event {index} at offset {at}: {field} {reason}"),
            DuplicateEntity { frame, at, entity } => write!(f, "frame {frame} at offset {at}: entity {entity} appears twice"),
            NoFrames => write!(f, "the recording holds no frame: nothing to play"),
            ChunkMismatch { chunk, at, reason } => write!(f, "chunk {chunk} at offset {at}: {reason}"),
            Usage(m) => write!(f, "read error: {m}"),
        }
    }
}

impl std::error::Error for Error {}
