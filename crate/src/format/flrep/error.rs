use crate::bytes::{Short, StrError};
use crate::format::zstd::ZstdError;
use crate::format::IoError;

/// Everything that can be wrong with a `.flrep` file. Each defect has its own variant, and the
/// message says where (file offset, chunk) and the numbers involved.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    BadMagic {
        found: [u8; 4],
    },
    /// `.flrep` shorter than its fixed header.
    TooShort {
        len: u64,
    },
    NewerMajor {
        file_major: u16,
        file_minor: u16,
        engine_version: String,
    },
    UnsupportedMajor {
        file_major: u16,
    },
    HeaderTooLarge {
        len: u32,
        max: u32,
    },
    PrefixTooLarge {
        len: u64,
        max: u64,
    },
    Truncated {
        what: &'static str,
        short: Short,
    },
    BadString {
        what: &'static str,
        at: u64,
        reason: String,
    },
    BadHeaderField {
        field: &'static str,
        value: String,
    },
    SectionOverrun {
        id: u16,
        at: u64,
        len: u64,
        remaining: u64,
    },
    DuplicateSection {
        id: u16,
    },
    MissingSection {
        id: u16,
        name: &'static str,
    },
    CountTooLarge {
        what: &'static str,
        count: u64,
        max: u64,
    },
    /// A chunk header where one was expected is not a chunk header.
    NotAChunk {
        at: u64,
        found: [u8; 4],
    },
    ChunkTooLarge {
        at: u64,
        field: &'static str,
        len: u64,
        max: u64,
    },
    ChunkBeyondFile {
        at: u64,
        end: u64,
        file_len: u64,
    },
    Zstd {
        chunk_at: u64,
        err: ZstdError,
    },
    ChunkSizeMismatch {
        chunk_at: u64,
        declared: u64,
        actual: u64,
    },
    ChunkChecksum {
        chunk_at: u64,
        declared: u32,
        actual: u32,
    },
    BadTick {
        chunk_at: u64,
        tick: u64,
        reason: String,
    },
    BadRecord {
        chunk_at: u64,
        tick: u64,
        entity: u32,
        reason: String,
    },
    TooManyEntities {
        chunk_at: u64,
        tick: u64,
        count: u64,
        max: u64,
    },
    /// The chunk's ticks × live entities exceed [`super::Limits::max_chunk_states`].
    TooManyStates {
        chunk_at: u64,
        tick: u64,
        count: u64,
        max: u64,
    },
    ChunkTickMismatch {
        chunk_at: u64,
        reason: String,
    },
    IndexEntryMismatch {
        at: u64,
        expected_tick: u64,
        reason: String,
    },
    NoChunks,
    /// The caller broke the opener's contract: bytes other than those asked for, or a call after it
    /// finished.
    Usage(String),
    /// A native driver's read failed (`crate::io`).
    Io(IoError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Error::*;
        match self {
            BadMagic { found } => write!(f, "not a .flrep file: expected magic \"FLRP\", found {}", show4(found)),
            TooShort { len } => write!(f, "file is {len} bytes: too short for a .flrep header (12 bytes at least)"),
            NewerMajor { file_major, file_minor, engine_version } => write!(
                f,
                "this replay was recorded by {} (format {file_major}.{file_minor}); this build reads format {}.x",
                if engine_version.is_empty() {
                    "an unknown engine version".to_string()
                } else {
                    format!("engine version {engine_version}")
                },
                super::FORMAT_MAJOR
            ),
            UnsupportedMajor { file_major } => write!(
                f,
                "format major version {file_major} is not one this build reads (it reads {}.x)",
                super::FORMAT_MAJOR
            ),
            HeaderTooLarge { len, max } => write!(f, "header remainder of {len} bytes exceeds the {max}-byte limit"),
            PrefixTooLarge { len, max } => write!(f, "header and sections need {len} bytes, over the {max}-byte limit"),
            Truncated { what, short } => write!(
                f,
                "file ends inside the {what} at offset {}: {} bytes needed, {} left",
                short.at, short.need, short.have
            ),
            BadString { what, at, reason } => write!(f, "bad string in {what} at offset {at}: {reason}"),
            BadHeaderField { field, value } => write!(f, "header field {field} has an invalid value: {value}"),
            SectionOverrun { id, at, len, remaining } => {
                write!(f, "section 0x{id:04X} at offset {at} declares {len} bytes but only {remaining} remain")
            }
            DuplicateSection { id } => write!(f, "section 0x{id:04X} appears twice"),
            MissingSection { id, name } => write!(f, "required section 0x{id:04X} ({name}) is missing"),
            CountTooLarge { what, count, max } => write!(f, "{what} count {count} exceeds what fits ({max})"),
            NotAChunk { at, found } => write!(f, "expected a chunk at offset {at}, found {}", show4(found)),
            ChunkTooLarge { at, field, len, max } => {
                write!(f, "chunk at offset {at}: {field} {len} exceeds the limit of {max} bytes")
            }
            ChunkBeyondFile { at, end, file_len } => {
                write!(f, "chunk at offset {at} ends at {end}, past the end of the file ({file_len} bytes)")
            }
            Zstd { chunk_at, err } => write!(f, "chunk at offset {chunk_at}: {err}"),
            ChunkSizeMismatch { chunk_at, declared, actual } => {
                write!(f, "chunk at offset {chunk_at} declares {declared} decompressed bytes but holds {actual}")
            }
            ChunkChecksum { chunk_at, declared, actual } => {
                write!(f, "chunk at offset {chunk_at} is corrupt: CRC-32 {actual:08x}, header says {declared:08x}")
            }
            BadTick { chunk_at, tick, reason } => write!(f, "chunk at offset {chunk_at}, tick {tick}: {reason}"),
            BadRecord { chunk_at, tick, entity, reason } => {
                write!(f, "chunk at offset {chunk_at}, tick {tick}, entity {entity}: {reason}")
            }
            TooManyEntities { chunk_at, tick, count, max } => {
                write!(f, "chunk at offset {chunk_at}, tick {tick}: {count} live entities exceeds the limit of {max}")
            }
            TooManyStates { chunk_at, tick, count, max } => write!(
                f,
                "chunk at offset {chunk_at}, tick {tick}: {count} entity states in one chunk exceed the limit of {max}"
            ),
            ChunkTickMismatch { chunk_at, reason } => write!(f, "chunk at offset {chunk_at}: {reason}"),
            IndexEntryMismatch { at, expected_tick, reason } => {
                write!(f, "index entry for keyframe tick {expected_tick} points at offset {at}: {reason}")
            }
            NoChunks => write!(f, "the recording holds no complete chunk: nothing to play"),
            Usage(m) => write!(f, "read error: {m}"),
            Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for Error {}

fn show4(b: &[u8; 4]) -> String {
    if b.iter().all(|c| c.is_ascii_graphic()) {
        format!("\"{}\"", String::from_utf8_lossy(b))
    } else {
        format!("bytes {:02X} {:02X} {:02X} {:02X}", b[0], b[1], b[2], b[3])
    }
}

pub(crate) fn trunc(what: &'static str) -> impl Fn(Short) -> Error {
    move |short| Error::Truncated { what, short }
}

pub(crate) fn strerr(what: &'static str) -> impl Fn(StrError) -> Error {
    move |e| match e {
        StrError::Short(short) => Error::Truncated { what, short },
        StrError::TooLong { at, len, max } => {
            Error::BadString { what, at, reason: format!("{len} bytes, over the {max}-byte limit") }
        }
        StrError::NotUtf8 { at } => Error::BadString { what, at, reason: "not valid UTF-8".into() },
    }
}
