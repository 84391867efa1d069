//! Following a `.flrep` that a recorder is still writing (`replay live-serve --follow FILE`): the
//! prefix once it is whole, then each chunk once its last byte is there (decoded, so that a chunk
//! that does not decode is never published, and for its kills), until the index trailer appears.
//! A file that stops growing is waited for; what does not parse while the file grows is read
//! again, and becomes an error only once the file has stopped growing ([`Follower::poll`]'s caller
//! decides how long that is).

use crate::format::flrep::chunk::{ChunkDecoder, ChunkHeader, CHUNK_HEADER_LEN};
use crate::format::flrep::header::{parse_prefix, Header, Prefix};
use crate::format::flrep::writer::EncodedChunk;
use crate::format::flrep::{Error, Limits, CHUNK_MAGIC, TRAILER_MAGIC};
use crate::model::EventBody;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

pub enum Followed {
    /// The header and sections, and their bytes.
    Prefix {
        header: Box<Header>,
        bytes: Vec<u8>,
    },
    Chunk(EncodedChunk),
    /// The index trailer began: the recording is complete.
    Ended,
    /// Nothing new yet; `problem` says what did not parse (it may be a write in progress).
    Waiting {
        problem: Option<String>,
    },
}

pub struct Follower {
    file: File,
    limits: Limits,
    dec: ChunkDecoder,
    /// Where the next chunk starts, once the prefix is read.
    pos: Option<u64>,
    header: Option<Header>,
}

impl Follower {
    pub fn open(path: &Path, limits: Limits) -> std::io::Result<Follower> {
        Ok(Follower {
            file: File::open(path)?,
            dec: ChunkDecoder::new(limits.clone()),
            limits,
            pos: None,
            header: None,
        })
    }

    fn read(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        self.file.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::new();
        (&mut self.file).take(len).read_to_end(&mut buf)?;
        Ok(buf)
    }

    /// One look at the file.
    pub fn poll(&mut self) -> std::io::Result<Followed> {
        let len = self.file.metadata()?.len();
        let waiting = |e: Error| Ok(Followed::Waiting { problem: Some(e.to_string()) });
        let Some(pos) = self.pos else {
            let want = len.min(self.limits.max_prefix_bytes);
            let buf = self.read(0, want)?;
            return match parse_prefix(&buf, buf.len() as u64, &self.limits) {
                Ok(Prefix::Done { header, stream_start, .. }) => {
                    let bytes = buf.get(..stream_start as usize).unwrap_or(&buf).to_vec();
                    self.pos = Some(stream_start);
                    self.header = Some(header.clone());
                    Ok(Followed::Prefix { header: Box::new(header), bytes })
                }
                Ok(Prefix::NeedBytes(_)) => Ok(Followed::Waiting { problem: None }),
                Err(e) => waiting(e),
            };
        };
        if len < pos + 4 {
            return Ok(Followed::Waiting { problem: None });
        }
        let head = self.read(pos, CHUNK_HEADER_LEN as u64)?;
        if head.get(..4) == Some(TRAILER_MAGIC.as_slice()) {
            return Ok(Followed::Ended);
        }
        if head.get(..4) != Some(CHUNK_MAGIC.as_slice()) {
            return Ok(Followed::Waiting {
                problem: Some(format!("no chunk or trailer at offset {pos} (found {:02X?})", head.get(..4))),
            });
        }
        if head.len() < CHUNK_HEADER_LEN {
            return Ok(Followed::Waiting { problem: None });
        }
        let h = match ChunkHeader::parse(&head, pos, len, &self.limits) {
            Ok(h) => h,
            Err(Error::ChunkBeyondFile { .. }) => return Ok(Followed::Waiting { problem: None }),
            Err(e) => return waiting(e),
        };
        let bytes = self.read(pos, h.end() - pos)?;
        let chunk = match self.dec.decode(&h, bytes.get(CHUNK_HEADER_LEN..).unwrap_or(&[])) {
            Ok(c) => c,
            Err(e) => return waiting(e),
        };
        let markers = chunk.events.into_iter().filter(|e| matches!(e.body, EventBody::Kill { .. })).collect();
        self.pos = Some(h.end());
        Ok(Followed::Chunk(EncodedChunk { bytes, first_tick: h.first_tick, last_tick: h.last_tick, markers }))
    }

    /// The header, once the prefix has been read.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }
}
