//! Pure readers and writers. Invariant: no I/O, no wasm, no GPU. Readers are sans-IO: they say which
//! byte range they need next and are handed the bytes; drivers (crate::io natively, the Web Worker in
//! the browser) do the reading.

pub mod chunks;
#[cfg(feature = "spark")]
pub mod clip;
pub mod compare;
pub mod flrep;
#[cfg(feature = "foldback")]
pub mod foldback;
mod limits;
pub mod live;
pub mod session;
#[cfg(feature = "spark")]
pub mod spark;
pub mod zstd;

pub use chunks::{ChunkRef, ChunkTable};
pub use limits::Limits;
pub use session::{OpenStep, Session, SessionError};

/// An I/O failure in a native driver (`crate::io`: a file read that failed), with its kind. The
/// sans-IO readers never produce one; a driver that hands them the wrong bytes, or a caller that uses
/// them out of order, gets the format's usage error instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoError {
    pub kind: std::io::ErrorKind,
    /// What failed, in the driver's words (the offset, the operating system's message).
    pub message: String,
}

impl IoError {
    /// `e`'s kind with `message` (which usually quotes `e`).
    pub fn new(e: &std::io::Error, message: String) -> Self {
        IoError { kind: e.kind(), message }
    }
}

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> Self {
        IoError { kind: e.kind(), message: e.to_string() }
    }
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for IoError {}

use crate::model::FormatKind;

/// What a sans-IO opener wants next: a byte range, or it is done with `T`.
#[derive(Debug)]
pub enum Step<T> {
    /// Hand over `file[offset .. offset + len]` with the next call.
    Need {
        offset: u64,
        len: u64,
    },
    Ready(Box<T>),
}

/// Recognises a replay by its first bytes (never by file extension). Needs at most 4 bytes.
pub fn sniff(head: &[u8]) -> Option<FormatKind> {
    match head.get(..4)? {
        b"FLRP" => Some(FormatKind::Flrep),
        b"YLPR" => Some(FormatKind::SparkReplay),
        // SparkEngine's magic written big-endian: recognised so the reader can refuse it by name.
        b"RPLY" => Some(FormatKind::SparkReplay),
        b"FBK1" => Some(FormatKind::Foldback),
        _ => None,
    }
}

/// The message for a file no reader recognises.
pub fn unknown_format_message(head: &[u8]) -> String {
    let shown: Vec<String> = head.iter().take(4).map(|b| format!("{b:02X}")).collect();
    format!(
        "not a replay this player reads (first bytes {}): it reads .flrep (starts with \"FLRP\"), SparkEngine .replay (\"YLPR\") and .foldback (\"FBK1\")",
        if shown.is_empty() { "none: the file is empty".to_string() } else { shown.join(" ") }
    )
}
