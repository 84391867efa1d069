//! Native drivers for the sans-IO readers and writers: files and memory.
//! (The browser's drivers are the Web Worker's `Blob.slice` and HTTP Range reads, in www/workers/decode/sources.ts.)

pub mod convert;
#[cfg(feature = "json")]
pub mod dump;
#[cfg(feature = "export")]
pub mod export;
#[cfg(feature = "cli")]
pub mod flrep_live;
pub mod foldback;
pub mod follow;
#[cfg(feature = "cli")]
pub mod live;
mod rotate;
#[cfg(feature = "cli")]
pub mod segments;
pub mod validate;
#[cfg(feature = "cli")]
pub mod viewers;
pub use rotate::{RotatingWriter, RotationOptions};

use crate::format::flrep::{self, ChunkDecoder, DecodedChunk, Error, Limits, Opened, Opener, Step};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Something that can hand over a byte range.
pub trait ReadAt {
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>>;
}

impl ReadAt for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        let start = usize::try_from(offset).map_err(|_| std::io::ErrorKind::InvalidInput)?;
        let end = start
            .checked_add(usize::try_from(len).map_err(|_| std::io::ErrorKind::InvalidInput)?)
            .ok_or(std::io::ErrorKind::InvalidInput)?;
        self.get(start..end).map(<[u8]>::to_vec).ok_or_else(|| std::io::ErrorKind::UnexpectedEof.into())
    }
}

impl ReadAt for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        let mut s: &[u8] = self.as_slice();
        s.read_at(offset, len)
    }
}

/// A file read with seeks; counts the bytes it read (for benchmarks of open cost).
pub struct FileSource {
    file: File,
    len: u64,
    pub bytes_read: u64,
    pub reads: u64,
}

impl FileSource {
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FileSource { file, len, bytes_read: 0, reads: 0 })
    }
}

impl FileSource {
    pub fn len_bytes(&self) -> u64 {
        self.len
    }
}

impl ReadAt for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        if offset.checked_add(len).is_none_or(|end| end > self.len) {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.file.seek(SeekFrom::Start(offset))?;
        let mut buf = vec![0u8; usize::try_from(len).map_err(|_| std::io::ErrorKind::InvalidInput)?];
        self.file.read_exact(&mut buf)?;
        self.bytes_read += len;
        self.reads += 1;
        Ok(buf)
    }
}

/// Drives an [`Opener`] to completion over a [`ReadAt`].
pub fn open_flrep<R: ReadAt>(src: &mut R, limits: &Limits) -> Result<Opened, Error> {
    let mut op = Opener::new(src.len(), limits.clone());
    let mut data: Option<Vec<u8>> = None;
    loop {
        match op.next(data.as_deref())? {
            Step::Need { offset, len } => data = Some(src.read_at(offset, len).map_err(|e| Error::Io(e.into()))?),
            Step::Ready(o) => return Ok(*o),
        }
    }
}

/// An opened `.flrep` over a source, with a decoder: the indexed reader.
pub struct FlrepFile<R: ReadAt> {
    pub src: R,
    pub opened: Opened,
    dec: ChunkDecoder,
    limits: Limits,
}

impl<R: ReadAt> FlrepFile<R> {
    pub fn open(mut src: R, limits: Limits) -> Result<Self, Error> {
        let opened = open_flrep(&mut src, &limits)?;
        Ok(FlrepFile { src, opened, dec: ChunkDecoder::new(limits.clone()), limits })
    }

    /// Reads and decodes chunk `i` (one read: header and frame together).
    pub fn chunk(&mut self, i: usize) -> Result<DecodedChunk, Error> {
        let Some(c) = self.opened.chunks.get(i).copied() else {
            return Err(Error::Usage(format!("no chunk {i} (the file has {})", self.opened.chunks.len())));
        };
        let bytes = self.src.read_at(c.offset, c.len).map_err(|e| Error::Io(e.into()))?;
        flrep::decode_chunk_bytes(&self.opened, &mut self.dec, &self.limits, i, &bytes)
    }

    /// Decodes the chunk holding `tick`; returns it with the index of `tick` in it (or of the last
    /// tick before it).
    pub fn seek(&mut self, tick: u64) -> Result<(DecodedChunk, usize), Error> {
        let i = self.opened.chunk_for_tick(tick);
        let c = self.chunk(i)?;
        let at = c.ticks.partition_point(|t| *t <= tick).saturating_sub(1);
        Ok((c, at))
    }
}

/// Opens a replay of any format over a [`ReadAt`] (the native twin of the worker's open loop), under
/// the player's default limits.
pub fn open_session<R: ReadAt>(src: &mut R) -> Result<crate::format::Session, crate::format::SessionError> {
    open_session_with_limits(src, crate::format::Limits::default())
}

/// [`open_session`] under the caller's limits (every format's part; docs/security.md "The limits").
pub fn open_session_with_limits<R: ReadAt>(
    src: &mut R,
    limits: crate::format::Limits,
) -> Result<crate::format::Session, crate::format::SessionError> {
    use crate::format::{OpenStep, Session};
    let mut s = Session::with_limits(src.len(), limits);
    let mut data: Option<Vec<u8>> = None;
    loop {
        match s.next(data.as_deref())? {
            OpenStep::Need { offset, len } => data = Some(src.read_at(offset, len).map_err(|e| read_error(offset, e))?),
            OpenStep::Ready => return Ok(s),
        }
    }
}

/// Reads and decodes chunk `i` of an open session.
pub fn read_chunk<R: ReadAt>(
    s: &mut crate::format::Session,
    src: &mut R,
    i: usize,
) -> Result<DecodedChunk, crate::format::SessionError> {
    use crate::format::SessionError;
    let (offset, len) = s.chunk_range(i).ok_or_else(|| SessionError::Usage(format!("no chunk {i}")))?;
    let bytes = src.read_at(offset, len).map_err(|e| read_error(offset, e))?;
    s.decode_chunk(i, &bytes)
}

/// A failed read of a session's range, with the offset and the operating system's words.
fn read_error(offset: u64, e: std::io::Error) -> crate::format::SessionError {
    let message = format!("read error at offset {offset}: {e}");
    crate::format::SessionError::Io(crate::format::IoError::new(&e, message))
}

/// Compares two recordings tick by tick over two [`ReadAt`]s (the native driver of
/// [`crate::format::compare::Comparison`]: `replay diff`), under the player's default limits.
pub fn compare_sources<A: ReadAt, B: ReadAt>(
    a: &mut A,
    b: &mut B,
) -> Result<crate::model::compare::Outcome, crate::format::compare::CompareError> {
    use crate::format::compare::{CompareError, Comparison};
    use crate::model::compare::Side;
    let mut c = Comparison::new(a.len(), b.len(), crate::format::Limits::default())?;
    while let Some(w) = c.want() {
        let read = match w.side {
            Side::A => a.read_at(w.offset, w.len),
            Side::B => b.read_at(w.offset, w.len),
        };
        let bytes = read.map_err(|e| CompareError { side: w.side, error: read_error(w.offset, e) })?;
        c.feed(&bytes)?;
    }
    c.outcome().cloned().ok_or_else(|| CompareError {
        side: Side::A,
        error: crate::format::SessionError::Usage("the comparison stopped without an outcome".into()),
    })
}
