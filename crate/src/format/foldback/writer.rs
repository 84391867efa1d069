//! The streaming `.foldback` writer: header, frames as they happen, EndOfStream on clean shutdown.
//! It refuses what readers refuse (lengths over the default [`Limits`]), so it never writes a file its
//! own reader rejects.

use super::frame::encode_unchecked;
use super::{Frame, Header, Limits};
use std::io::Write;

#[derive(Debug)]
pub enum WriteError {
    Io(std::io::Error),
    /// A field or frame over a limit (the writer refuses it before writing anything of the frame).
    TooLarge {
        what: &'static str,
        len: u64,
        max: u64,
    },
    /// EndOfStream is written by [`Writer::finish`], not as a frame.
    Misuse(&'static str),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Io(e) => write!(f, "write error: {e}"),
            WriteError::TooLarge { what, len, max } => write!(f, "{what} of {len} bytes exceeds the limit of {max}"),
            WriteError::Misuse(m) => f.write_str(m),
        }
    }
}
impl std::error::Error for WriteError {}
impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

/// Encodes one frame after checking it against `limits` (the bytes a live game sends as one binary
/// WebSocket message, and what a file holds).
pub fn encode_frame(f: &Frame<'_>, limits: &Limits) -> Result<Vec<u8>, WriteError> {
    let check = |what: &'static str, len: usize, max: u32| {
        if len as u64 > u64::from(max) {
            Err(WriteError::TooLarge { what, len: len as u64, max: u64::from(max) })
        } else {
            Ok(())
        }
    };
    match f {
        Frame::FieldHash { name, value, .. } => {
            check("field name", name.len(), limits.max_name)?;
            check("value", value.len(), limits.max_value)?;
        }
        Frame::Metadata { key, value } => {
            check("metadata key", key.len(), limits.max_name)?;
            check("metadata value", value.len(), limits.max_value)?;
        }
        Frame::Snapshot { data, .. } => check("snapshot", data.len(), limits.max_frame_payload.saturating_sub(14))?,
        Frame::Unknown { payload, .. } => check("payload", payload.len(), limits.max_frame_payload)?,
        _ => {}
    }
    let mut out = Vec::new();
    encode_unchecked(f, &mut out);
    Ok(out)
}

/// Writes a `.foldback` stream to any [`Write`] (a file, a socket buffer, memory).
pub struct Writer<W: Write> {
    w: W,
    limits: Limits,
    bytes: u64,
}

impl<W: Write> Writer<W> {
    pub fn new(mut w: W, header: &Header) -> Result<Self, WriteError> {
        let h = header.encode();
        w.write_all(&h)?;
        Ok(Writer { w, limits: Limits::default(), bytes: h.len() as u64 })
    }

    pub fn frame(&mut self, f: &Frame<'_>) -> Result<(), WriteError> {
        if matches!(f, Frame::EndOfStream) {
            return Err(WriteError::Misuse("EndOfStream is written by finish()"));
        }
        let b = encode_frame(f, &self.limits)?;
        self.raw(&b)
    }

    /// Writes bytes that are already one or more encoded frames.
    pub fn raw(&mut self, encoded: &[u8]) -> Result<(), WriteError> {
        self.w.write_all(encoded)?;
        self.bytes += encoded.len() as u64;
        Ok(())
    }

    pub fn bytes_written(&self) -> u64 {
        self.bytes
    }

    /// Writes EndOfStream and flushes; returns the sink.
    pub fn finish(mut self) -> Result<W, WriteError> {
        let mut b = Vec::new();
        encode_unchecked(&Frame::EndOfStream, &mut b);
        self.w.write_all(&b)?;
        self.w.flush()?;
        Ok(self.w)
    }

    /// Flushes and returns the sink without EndOfStream (what a crash leaves).
    pub fn abandon(mut self) -> Result<W, WriteError> {
        self.w.flush()?;
        Ok(self.w)
    }
}
