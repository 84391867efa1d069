//! A replay of any format behind one sans-IO interface: open (asking for byte ranges), then fetch
//! and decode chunks on demand. The Web Worker and the CLI both drive this; neither knows formats.
//!
//! A new format joins by adding a variant to [`Inner`] and its sniffed magic to [`super::sniff`]; a
//! chunked one opens into a [`ChunkTable`] (see [`Session::chunks`]) and takes its part of [`Limits`].
//!
//! `.flrep` is always built; SparkEngine `.replay` and `.foldback` join with the cargo features
//! `spark` / `foldback` (the browser has one decoder wasm per format family; the worker picks it by
//! the same magic numbers). A build without a format still recognises its magic and says so.

use super::flrep;
#[cfg(feature = "foldback")]
use super::foldback;
#[cfg(feature = "spark")]
use super::spark;
use super::{sniff, ChunkTable, IoError, Limits};
use crate::model::{DecodedChunk, Event, FormatKind, Piece, RecordingInfo, TickRange};

/// How many bytes the first read asks for (enough for every format's magic and most headers).
pub const FIRST_READ: u64 = flrep::open::FIRST_READ;

/// The chunk table of a session that has none.
static NO_CHUNKS: ChunkTable = ChunkTable::EMPTY;

/// An error from any reader, with the format it came from.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionError {
    UnknownFormat(String),
    Flrep(flrep::Error),
    #[cfg(feature = "spark")]
    Spark(spark::Error),
    #[cfg(feature = "foldback")]
    Foldback(foldback::Error),
    /// The driver handed over the wrong bytes or the session was used out of order.
    Usage(String),
    /// A native driver's read failed (`crate::io`), with its kind.
    Io(IoError),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::UnknownFormat(m) | SessionError::Usage(m) => f.write_str(m),
            SessionError::Io(e) => write!(f, "{e}"),
            SessionError::Flrep(e) => write!(f, "{e}"),
            #[cfg(feature = "spark")]
            SessionError::Spark(e) => write!(f, "{e}"),
            #[cfg(feature = "foldback")]
            SessionError::Foldback(e) => write!(f, "{e}"),
        }
    }
}
impl std::error::Error for SessionError {}

impl From<flrep::Error> for SessionError {
    fn from(e: flrep::Error) -> Self {
        SessionError::Flrep(e)
    }
}

#[cfg(feature = "foldback")]
impl From<foldback::Error> for SessionError {
    fn from(e: foldback::Error) -> Self {
        SessionError::Foldback(e)
    }
}

#[cfg(feature = "spark")]
impl From<spark::Error> for SessionError {
    fn from(e: spark::Error) -> Self {
        SessionError::Spark(e)
    }
}

/// What the session wants next while opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenStep {
    Need { offset: u64, len: u64 },
    Ready,
}

// One per session; the opening states are short-lived and the open ones are what a session is.
#[allow(clippy::large_enum_variant)]
enum Inner {
    Sniffing,
    FlrepOpening(flrep::Opener),
    Flrep {
        /// Shared with the session's forks (read only once open).
        opened: std::sync::Arc<flrep::Opened>,
        dec: flrep::ChunkDecoder,
    },
    #[cfg(feature = "spark")]
    SparkOpening(spark::Opener),
    #[cfg(feature = "spark")]
    Spark(Box<spark::Opened>),
    #[cfg(feature = "foldback")]
    FoldbackOpening(foldback::Indexer),
    /// A `.foldback` has no entity states, hence no chunks: its index is read through
    /// [`Session::foldback`] and the divergence model (`format::foldback::diverge`).
    #[cfg(feature = "foldback")]
    Foldback(Box<foldback::Index>),
}

pub struct Session {
    file_len: u64,
    /// Every format's part: the one the file's format turns out to be is used.
    limits: Limits,
    inner: Inner,
}

impl Session {
    /// A session with the player's default [`Limits`].
    pub fn new(file_len: u64) -> Self {
        Self::with_limits(file_len, Limits::default())
    }

    /// A session whose opening and decoding apply `limits` (whichever format the file is).
    pub fn with_limits(file_len: u64, limits: Limits) -> Self {
        Session { file_len, limits, inner: Inner::Sniffing }
    }

    /// The limits this session reads under.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Advances the open with the bytes of the range asked for last (`None` on the first call).
    pub fn next(&mut self, input: Option<&[u8]>) -> Result<OpenStep, SessionError> {
        match &mut self.inner {
            Inner::Sniffing => {
                let Some(head) = input else {
                    return Ok(OpenStep::Need { offset: 0, len: self.file_len.min(FIRST_READ) });
                };
                match sniff(head) {
                    Some(FormatKind::Flrep) => {
                        let mut op = flrep::Opener::new(self.file_len, self.limits.flrep.clone());
                        // The flrep opener's first read is the same range: replay it.
                        op.next(None)?;
                        let step = op.next(Some(head));
                        self.inner = Inner::FlrepOpening(op);
                        self.flrep_step(step)
                    }
                    #[cfg(feature = "spark")]
                    Some(FormatKind::SparkReplay) => {
                        let mut op = spark::Opener::new(self.file_len, self.limits.spark.clone());
                        // The spark opener's first read is the same range too.
                        op.next(None)?;
                        let step = op.next(Some(head));
                        self.inner = Inner::SparkOpening(op);
                        self.spark_step(step)
                    }
                    #[cfg(feature = "foldback")]
                    Some(FormatKind::Foldback) => {
                        let mut ix = foldback::Indexer::new(self.file_len, self.limits.foldback.clone());
                        // Replay the head when it is exactly the indexer's first range, else let it ask.
                        let step = match ix.next(None)? {
                            foldback::IndexStep::Need { offset: 0, len } if len == head.len() as u64 => ix.next(Some(head)),
                            other => Ok(other),
                        };
                        self.inner = Inner::FoldbackOpening(ix);
                        self.foldback_step(step)
                    }
                    #[cfg(not(all(feature = "spark", feature = "foldback")))]
                    Some(other) => Err(SessionError::Usage(format!(
                        "this decoder build does not include the {} reader (cargo feature \"{}\"): the player loads the decoder for the file's format",
                        other.name(),
                        if other == FormatKind::Foldback { "foldback" } else { "spark" }
                    ))),
                    None => Err(SessionError::UnknownFormat(super::unknown_format_message(head))),
                }
            }
            Inner::FlrepOpening(op) => {
                let step = op.next(input);
                self.flrep_step(step)
            }
            #[cfg(feature = "spark")]
            Inner::SparkOpening(op) => {
                let step = op.next(input);
                self.spark_step(step)
            }
            #[cfg(feature = "foldback")]
            Inner::FoldbackOpening(ix) => {
                let step = ix.next(input);
                self.foldback_step(step)
            }
            _ => Err(SessionError::Usage("the session is already open".into())),
        }
    }

    fn flrep_step(&mut self, step: Result<flrep::Step, flrep::Error>) -> Result<OpenStep, SessionError> {
        match step? {
            flrep::Step::Need { offset, len } => Ok(OpenStep::Need { offset, len }),
            flrep::Step::Ready(opened) => {
                self.inner =
                    Inner::Flrep { opened: opened.into(), dec: flrep::ChunkDecoder::new(self.limits.flrep.clone()) };
                Ok(OpenStep::Ready)
            }
        }
    }

    #[cfg(feature = "foldback")]
    fn foldback_step(&mut self, step: Result<foldback::IndexStep, foldback::Error>) -> Result<OpenStep, SessionError> {
        match step? {
            foldback::IndexStep::Need { offset, len } => Ok(OpenStep::Need { offset, len }),
            foldback::IndexStep::Ready(index) => {
                self.inner = Inner::Foldback(index);
                Ok(OpenStep::Ready)
            }
        }
    }

    /// The index of an open `.foldback` (`None` for other formats). `info()` works for it too
    /// (format Foldback, ticks, metadata, warnings); it has no chunks.
    #[cfg(feature = "foldback")]
    pub fn foldback(&self) -> Option<&foldback::Index> {
        match &self.inner {
            #[cfg(feature = "foldback")]
            Inner::Foldback(ix) => Some(ix),
            _ => None,
        }
    }

    /// The opened SparkEngine replay (`None` for other formats): its frames in SparkEngine's terms
    /// ([`spark::Opened::frame_stats`]) for what the 1 kHz ticks of `info()` do not say.
    #[cfg(feature = "spark")]
    pub fn spark(&self) -> Option<&spark::Opened> {
        match &self.inner {
            Inner::Spark(opened) => Some(opened),
            _ => None,
        }
    }

    #[cfg(feature = "spark")]
    fn spark_step(&mut self, step: Result<spark::Step, spark::Error>) -> Result<OpenStep, SessionError> {
        match step? {
            spark::Step::Need { offset, len } => Ok(OpenStep::Need { offset, len }),
            spark::Step::Ready(opened) => {
                self.inner = Inner::Spark(opened);
                Ok(OpenStep::Ready)
            }
        }
    }

    pub fn is_open(&self) -> bool {
        match &self.inner {
            Inner::Flrep { .. } => true,
            #[cfg(feature = "spark")]
            Inner::Spark(_) => true,
            #[cfg(feature = "foldback")]
            Inner::Foldback(_) => true,
            _ => false,
        }
    }

    pub fn info(&self) -> Option<RecordingInfo> {
        match &self.inner {
            Inner::Flrep { opened, .. } => Some(opened.info()),
            #[cfg(feature = "spark")]
            Inner::Spark(opened) => Some(opened.info()),
            #[cfg(feature = "foldback")]
            Inner::Foldback(ix) => Some(ix.info()),
            _ => None,
        }
    }

    /// The chunks of the open recording (empty before the open is done, and for a `.foldback`).
    pub fn chunks(&self) -> &ChunkTable {
        match &self.inner {
            Inner::Flrep { opened, .. } => &opened.chunks,
            #[cfg(feature = "spark")]
            Inner::Spark(opened) => &opened.chunks,
            _ => &NO_CHUNKS,
        }
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks().len()
    }

    /// File range `(offset, len)` holding chunk `i`.
    pub fn chunk_range(&self, i: usize) -> Option<(u64, u64)> {
        self.chunks().range(i)
    }

    pub fn chunk_first_tick(&self, i: usize) -> Option<u64> {
        self.chunks().first_tick(i)
    }

    /// The chunk holding `tick` (the last one starting at or before it).
    pub fn chunk_for_tick(&self, tick: u64) -> usize {
        self.chunks().for_tick(tick)
    }

    /// Events known without decoding chunks (kill markers from an index), and whether that list is
    /// complete for the whole recording.
    pub fn markers(&self) -> (&[Event], bool) {
        match &self.inner {
            Inner::Flrep { opened, .. } => (&opened.markers, opened.index_source == flrep::open::IndexSource::Trailer),
            // The events block is read whole at open: complete unless the file was cut inside it.
            #[cfg(feature = "spark")]
            Inner::Spark(opened) => (&opened.markers, opened.events_complete),
            _ => (&[], false),
        }
    }

    /// Decodes chunk `i` from the bytes of [`Self::chunk_range`].
    pub fn decode_chunk(&mut self, i: usize, bytes: &[u8]) -> Result<DecodedChunk, SessionError> {
        match &mut self.inner {
            Inner::Flrep { opened, dec } => {
                // Header check + decode, exactly as the native indexed reader does.
                Ok(crate::format::flrep::decode_chunk_bytes(opened, dec, &self.limits.flrep, i, bytes)?)
            }
            #[cfg(feature = "spark")]
            Inner::Spark(opened) => Ok(opened.decode_chunk(i, bytes)?),
            _ => Err(self.no_chunks()),
        }
    }

    /// A second session over the same open `.flrep` file: its index and recording info, a decoder
    /// of its own (holding no chunk). The browser's worker keeps one to get a likely next seek's
    /// chunk ready without moving the decoder the playback uses. `None` before the open is done
    /// and for the other formats (a SparkEngine chunk is decoded whole; a `.foldback` has none).
    pub fn fork(&self) -> Option<Session> {
        match &self.inner {
            Inner::Flrep { opened, .. } => Some(Session {
                file_len: self.file_len,
                limits: self.limits.clone(),
                inner: Inner::Flrep {
                    opened: std::sync::Arc::clone(opened),
                    dec: flrep::ChunkDecoder::new(self.limits.flrep.clone()),
                },
            }),
            _ => None,
        }
    }

    /// Whether [`decode_range`](Self::decode_range) of chunk `i` needs no bytes (pass an empty
    /// slice): the decoder holds the chunk's checked payload, and resumes where the last range
    /// stopped when that was at or before the range's start, or rolls forward again from the
    /// keyframe without decompressing.
    pub fn holds_chunk(&self, i: usize) -> bool {
        match &self.inner {
            Inner::Flrep { opened, dec } => opened.chunks.get(i).is_some_and(|c| dec.holds(c.offset).is_some()),
            _ => false,
        }
    }

    /// Decodes the ticks `r` of chunk `i`: a piece of at most about `r.max_states` states, thinned
    /// to `r.stride` (see [`TickRange`]). `.flrep` rolls forward from the keyframe and stays there,
    /// so the next range of the same chunk resumes without the chunk's bytes; a SparkEngine chunk
    /// (full states, at most 64 frames) is decoded whole and cut.
    pub fn decode_range(&mut self, i: usize, bytes: &[u8], r: TickRange) -> Result<Piece, SessionError> {
        match &mut self.inner {
            Inner::Flrep { opened, dec } => {
                Ok(crate::format::flrep::decode_chunk_range(opened, dec, &self.limits.flrep, i, bytes, r)?)
            }
            #[cfg(feature = "spark")]
            Inner::Spark(opened) => Ok(opened.decode_chunk(i, bytes)?.range(r)),
            _ => Err(self.no_chunks()),
        }
    }

    fn no_chunks(&self) -> SessionError {
        match &self.inner {
            #[cfg(feature = "foldback")]
            Inner::Foldback(_) => {
                SessionError::Usage("a .foldback recording has no chunks: read it through Session::foldback()".into())
            }
            _ => SessionError::Usage("decode_chunk before the session is open".into()),
        }
    }
}
