//! The live WebSocket messages (docs/live.md "WebSocket"): every message is binary, its first byte
//! its kind, then little-endian fields:
//!
//! | kind | message | fields after the kind byte |
//! |---:|---|---|
//! | 1 | hello | `"FLLV"`, `u16` protocol version, `u32` stream id, `u64` first seq, `u64` head seq, `u32` tick rate, `u32` chunk ticks |
//! | 2 | prefix | `u32` stream id, the file's header + sections (bytes `[0, streamStart)`) |
//! | 3 | chunk | `u64` seq, `u64` file offset, one whole chunk (36-byte header + its zstd frame) |
//! | 4 | goodbye | `u64` end seq (chunks in the recording), `u16` reason length, reason (UTF-8, ≤ 256 bytes) |
//!
//! [`Message::parse`] checks one message alone; [`LiveStream`] checks the order of a connection's
//! messages (hello, prefix, chunks with rising seq, goodbye) and across a reconnect (same stream, the
//! next seq, nothing twice).

use crate::bytes::{Cursor, PutLe};
use crate::format::flrep::chunk::{ChunkHeader, CHUNK_HEADER_LEN};
use crate::format::flrep::header::{parse_prefix, Prefix};
use crate::format::flrep::{Error as FlrepError, Limits};

pub const PROTOCOL_VERSION: u16 = 1;
pub const HELLO_MAGIC: &[u8; 4] = b"FLLV";
pub const KIND_HELLO: u8 = 1;
pub const KIND_PREFIX: u8 = 2;
pub const KIND_CHUNK: u8 = 3;
pub const KIND_GOODBYE: u8 = 4;
/// Longest goodbye reason, in bytes.
pub const MAX_REASON: usize = 256;
/// Longest hello (a newer minor may append fields; this bounds them).
pub const MAX_HELLO: usize = 1024;
const HELLO_LEN: usize = 1 + 4 + 2 + 4 + 8 + 8 + 4 + 4;
const CHUNK_PREAMBLE: usize = 1 + 8 + 8;
/// The largest file offset a chunk message may name (2^62: a file no recorder writes).
pub const MAX_OFFSET: u64 = 1 << 62;

/// The first message of every connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub version: u16,
    /// [`super::stream_id`] of the recording's prefix.
    pub stream_id: u32,
    /// The seq of the first chunk this connection sends.
    pub first_seq: u64,
    /// Chunks the source has closed so far (the next chunk's seq).
    pub head_seq: u64,
    pub tick_rate_hz: u32,
    /// Ticks per chunk the source writes (the last chunk may be shorter).
    pub chunk_ticks: u32,
}

/// The last message: the recording is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goodbye {
    /// Chunks in the whole recording (the seq after the last).
    pub end_seq: u64,
    pub reason: String,
}

/// One parsed message; the byte slices borrow from the message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message<'a> {
    Hello(Hello),
    Prefix { stream_id: u32, bytes: &'a [u8] },
    Chunk { seq: u64, offset: u64, header: ChunkHeader, bytes: &'a [u8] },
    Goodbye(Goodbye),
}

#[derive(Clone, Debug, PartialEq)]
pub enum LiveError {
    Empty,
    UnknownKind(u8),
    Truncated {
        what: &'static str,
        need: usize,
        have: usize,
    },
    TooLong {
        what: &'static str,
        len: u64,
        max: u64,
    },
    TrailingBytes {
        what: &'static str,
        extra: usize,
    },
    BadMagic {
        found: [u8; 4],
    },
    NewerVersion {
        got: u16,
    },
    BadVersion,
    BadHello(String),
    Prefix(FlrepError),
    PrefixLength {
        stream_start: u64,
        len: usize,
    },
    StreamId {
        declared: u32,
        actual: u32,
    },
    Chunk {
        seq: u64,
        err: FlrepError,
    },
    ChunkLength {
        seq: u64,
        end: u64,
        message_end: u64,
    },
    BadReason(String),
    /// A message the connection's state does not allow here.
    Order {
        expected: &'static str,
        got: &'static str,
    },
    Duplicate {
        seq: u64,
        expected: u64,
    },
    Offset {
        seq: u64,
        offset: u64,
        expected: u64,
    },
    TickOrder {
        seq: u64,
        first_tick: u64,
        last_tick: u64,
    },
    StreamChanged {
        was: u32,
        now: u32,
    },
    SeqRange {
        seq: u64,
    },
    ResumeBehind {
        first_seq: u64,
        expected: u64,
    },
    EndBefore {
        end_seq: u64,
        received: u64,
    },
}

impl std::fmt::Display for LiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveError::Empty => write!(f, "empty live message"),
            LiveError::UnknownKind(k) => write!(f, "unknown live message kind {k}"),
            LiveError::Truncated { what, need, have } => {
                write!(f, "{what} message too short: needs {need} bytes, has {have}")
            }
            LiveError::TooLong { what, len, max } => write!(f, "{what} of {len} bytes is over the limit of {max}"),
            LiveError::TrailingBytes { what, extra } => write!(f, "{extra} bytes after the {what} message"),
            LiveError::BadMagic { found } => write!(f, "hello does not start with FLLV (found {found:02X?})"),
            LiveError::NewerVersion { got } => {
                write!(f, "live protocol version {got}; this build speaks version {PROTOCOL_VERSION}")
            }
            LiveError::BadVersion => write!(f, "live protocol version 0 is not a version"),
            LiveError::BadHello(m) => write!(f, "bad hello: {m}"),
            LiveError::Prefix(e) => write!(f, "prefix message: {e}"),
            LiveError::PrefixLength { stream_start, len } => {
                write!(f, "prefix message holds {len} bytes but its sections end at {stream_start}")
            }
            LiveError::StreamId { declared, actual } => {
                write!(f, "prefix declares stream {declared:08x} but its bytes are stream {actual:08x}")
            }
            LiveError::Chunk { seq, err } => write!(f, "chunk {seq}: {err}"),
            LiveError::ChunkLength { seq, end, message_end } => {
                write!(f, "chunk {seq} ends at offset {end} but its message ends at {message_end}")
            }
            LiveError::BadReason(m) => write!(f, "goodbye reason: {m}"),
            LiveError::Order { expected, got } => write!(f, "expected {expected}, got {got}"),
            LiveError::Duplicate { seq, expected } => write!(f, "chunk {seq} again (expected chunk {expected})"),
            LiveError::Offset { seq, offset, expected } => {
                write!(f, "chunk {seq} at offset {offset}; the previous chunk ended at {expected}")
            }
            LiveError::TickOrder { seq, first_tick, last_tick } => {
                write!(f, "chunk {seq} starts at tick {first_tick}, not after tick {last_tick}")
            }
            LiveError::StreamChanged { was, now } => {
                write!(f, "the source now serves stream {now:08x}, not stream {was:08x}")
            }
            LiveError::ResumeBehind { first_seq, expected } => {
                write!(f, "resumed at chunk {first_seq}, before chunk {expected} (it would be sent twice)")
            }
            LiveError::SeqRange { seq } => write!(f, "chunk seq {seq} is out of range"),
            LiveError::EndBefore { end_seq, received } => {
                write!(f, "goodbye says {end_seq} chunks but chunks up to {received} were received")
            }
        }
    }
}
impl std::error::Error for LiveError {}

fn short(what: &'static str, need: usize, have: usize) -> LiveError {
    LiveError::Truncated { what, need, have }
}

/// The largest message [`Message::parse`] accepts under `limits` (a prefix or a chunk at its limit).
pub fn max_message(limits: &Limits) -> u64 {
    let chunk = (CHUNK_PREAMBLE + CHUNK_HEADER_LEN) as u64 + u64::from(limits.max_chunk_compressed);
    chunk.max(5 + limits.max_prefix_bytes)
}

impl<'a> Message<'a> {
    /// Parses and checks one message (its order is [`LiveStream`]'s business).
    pub fn parse(msg: &'a [u8], limits: &Limits) -> Result<Message<'a>, LiveError> {
        let max = max_message(limits);
        if msg.len() as u64 > max {
            return Err(LiveError::TooLong { what: "live message", len: msg.len() as u64, max });
        }
        let (&kind, body) = msg.split_first().ok_or(LiveError::Empty)?;
        match kind {
            KIND_HELLO => parse_hello(msg).map(Message::Hello),
            KIND_PREFIX => {
                let mut c = Cursor::new(body);
                let declared = c.u32().map_err(|_| short("prefix", 5, msg.len()))?;
                let bytes = c.rest();
                let actual = super::stream_id(bytes);
                if actual != declared {
                    return Err(LiveError::StreamId { declared, actual });
                }
                match parse_prefix(bytes, bytes.len() as u64, limits).map_err(LiveError::Prefix)? {
                    Prefix::Done { stream_start, .. } if stream_start == bytes.len() as u64 => {}
                    Prefix::Done { stream_start, .. } => {
                        return Err(LiveError::PrefixLength { stream_start, len: bytes.len() })
                    }
                    Prefix::NeedBytes(n) => {
                        return Err(LiveError::PrefixLength { stream_start: n, len: bytes.len() });
                    }
                }
                Ok(Message::Prefix { stream_id: declared, bytes })
            }
            KIND_CHUNK => {
                let mut c = Cursor::new(body);
                let have = msg.len();
                let seq = c.u64().map_err(|_| short("chunk", CHUNK_PREAMBLE, have))?;
                let offset = c.u64().map_err(|_| short("chunk", CHUNK_PREAMBLE, have))?;
                let bytes = c.rest();
                // (Far below where `offset + 36 + compressedLength` could overflow.)
                if offset > MAX_OFFSET {
                    return Err(LiveError::TooLong { what: "chunk offset", len: offset, max: MAX_OFFSET });
                }
                let message_end = offset + bytes.len() as u64;
                let header = ChunkHeader::parse(bytes, offset, message_end, limits)
                    .map_err(|err| LiveError::Chunk { seq, err })?;
                if header.end() != message_end {
                    return Err(LiveError::ChunkLength { seq, end: header.end(), message_end });
                }
                Ok(Message::Chunk { seq, offset, header, bytes })
            }
            KIND_GOODBYE => {
                let mut c = Cursor::new(body);
                let have = msg.len();
                let end_seq = c.u64().map_err(|_| short("goodbye", 11, have))?;
                let n = usize::from(c.u16().map_err(|_| short("goodbye", 11, have))?);
                if n > MAX_REASON {
                    return Err(LiveError::TooLong { what: "goodbye reason", len: n as u64, max: MAX_REASON as u64 });
                }
                let raw = c.take(n).map_err(|_| short("goodbye", 11 + n, have))?;
                let reason = std::str::from_utf8(raw).map_err(|e| LiveError::BadReason(e.to_string()))?;
                if !c.is_empty() {
                    return Err(LiveError::TrailingBytes { what: "goodbye", extra: c.remaining() });
                }
                Ok(Message::Goodbye(Goodbye { end_seq, reason: crate::bytes::sanitize_text(reason.to_owned()) }))
            }
            k => Err(LiveError::UnknownKind(k)),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Message::Hello(_) => "hello",
            Message::Prefix { .. } => "prefix",
            Message::Chunk { .. } => "chunk",
            Message::Goodbye(_) => "goodbye",
        }
    }
}

fn parse_hello(msg: &[u8]) -> Result<Hello, LiveError> {
    if msg.len() > MAX_HELLO {
        return Err(LiveError::TooLong { what: "hello", len: msg.len() as u64, max: MAX_HELLO as u64 });
    }
    let mut c = Cursor::new(msg.get(1..).unwrap_or(&[]));
    let magic: [u8; 4] = c.array().map_err(|_| short("hello", HELLO_LEN, msg.len()))?;
    if &magic != HELLO_MAGIC {
        return Err(LiveError::BadMagic { found: magic });
    }
    let version = c.u16().map_err(|_| short("hello", HELLO_LEN, msg.len()))?;
    if version == 0 {
        return Err(LiveError::BadVersion);
    }
    if version > PROTOCOL_VERSION {
        return Err(LiveError::NewerVersion { got: version });
    }
    let t = |_| short("hello", HELLO_LEN, msg.len());
    // (Fields a newer minor appends after these are ignored: MAX_HELLO bounds them.)
    let h = Hello {
        version,
        stream_id: c.u32().map_err(t)?,
        first_seq: c.u64().map_err(t)?,
        head_seq: c.u64().map_err(t)?,
        tick_rate_hz: c.u32().map_err(t)?,
        chunk_ticks: c.u32().map_err(t)?,
    };
    if h.first_seq > h.head_seq {
        return Err(LiveError::BadHello(format!("first seq {} is after the head seq {}", h.first_seq, h.head_seq)));
    }
    if h.tick_rate_hz == 0 || h.chunk_ticks == 0 {
        return Err(LiveError::BadHello(format!(
            "tick rate {} Hz and {} ticks per chunk must be positive",
            h.tick_rate_hz, h.chunk_ticks
        )));
    }
    Ok(h)
}

/// The bytes of a hello message.
pub fn encode_hello(h: &Hello) -> Vec<u8> {
    let mut out = Vec::with_capacity(HELLO_LEN);
    out.push(KIND_HELLO);
    out.extend_from_slice(HELLO_MAGIC);
    out.put_u16(h.version);
    out.put_u32(h.stream_id);
    out.put_u64(h.first_seq);
    out.put_u64(h.head_seq);
    out.put_u32(h.tick_rate_hz);
    out.put_u32(h.chunk_ticks);
    out
}

/// The bytes of a prefix message for the file prefix `prefix` (header + sections).
pub fn encode_prefix(prefix: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(prefix.len() + 5);
    out.push(KIND_PREFIX);
    out.put_u32(super::stream_id(prefix));
    out.extend_from_slice(prefix);
    out
}

/// The bytes of a chunk message: chunk `seq`, which starts at `offset` of the file.
pub fn encode_chunk(seq: u64, offset: u64, chunk: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunk.len() + CHUNK_PREAMBLE);
    out.push(KIND_CHUNK);
    out.put_u64(seq);
    out.put_u64(offset);
    out.extend_from_slice(chunk);
    out
}

/// The bytes of a goodbye message (the reason cut to [`MAX_REASON`] bytes).
pub fn encode_goodbye(g: &Goodbye) -> Vec<u8> {
    let reason = crate::bytes::truncate_utf8(&g.reason, MAX_REASON);
    let mut out = Vec::with_capacity(reason.len() + 11);
    out.push(KIND_GOODBYE);
    out.put_u64(g.end_seq);
    out.put_u16(reason.len() as u16);
    out.extend_from_slice(reason.as_bytes());
    out
}

/// What a message meant for the stream.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent<'a> {
    Hello(Hello),
    /// The file's header + sections (the same bytes on every connection of one stream).
    Prefix(&'a [u8]),
    /// The next chunk; `skipped` chunks before it were not sent (the viewer fell behind, or the
    /// server no longer held them): fetch them from the segments or go without.
    Chunk {
        seq: u64,
        offset: u64,
        header: ChunkHeader,
        bytes: &'a [u8],
        skipped: u64,
    },
    /// The recording is over; `missing` chunks at its end were not received.
    Goodbye {
        goodbye: Goodbye,
        missing: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Hello,
    Prefix,
    Chunks,
    Ended,
}

/// The order of one viewer's messages, over any number of connections ([`Self::reconnect`]).
#[derive(Clone, Debug)]
pub struct LiveStream {
    limits: Limits,
    state: State,
    stream_id: Option<u32>,
    /// The seq the next chunk must have (or above, as a skip).
    next_seq: u64,
    /// Where the next chunk must start when it follows the last one received.
    next_offset: Option<u64>,
    last_tick: Option<u64>,
    prefix_len: u64,
}

impl LiveStream {
    pub fn new(limits: Limits) -> Self {
        LiveStream {
            limits,
            state: State::Hello,
            stream_id: None,
            next_seq: 0,
            next_offset: None,
            last_tick: None,
            prefix_len: 0,
        }
    }

    /// The seq to ask for after a reconnect (`?from=N`): the chunk after the last one received.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }
    pub fn stream_id(&self) -> Option<u32> {
        self.stream_id
    }
    pub fn ended(&self) -> bool {
        self.state == State::Ended
    }

    /// A new connection to the same source: it starts with a hello again; what was received stays.
    pub fn reconnect(&mut self) {
        if self.state != State::Ended {
            self.state = State::Hello;
        }
    }

    /// Checks one message against the stream so far.
    pub fn push<'a>(&mut self, msg: &'a [u8]) -> Result<StreamEvent<'a>, LiveError> {
        let m = Message::parse(msg, &self.limits)?;
        match (self.state, m) {
            (State::Hello, Message::Hello(h)) => {
                if let Some(was) = self.stream_id {
                    if was != h.stream_id {
                        return Err(LiveError::StreamChanged { was, now: h.stream_id });
                    }
                    if self.last_tick.is_some() && h.first_seq < self.next_seq {
                        return Err(LiveError::ResumeBehind { first_seq: h.first_seq, expected: self.next_seq });
                    }
                }
                self.stream_id = Some(h.stream_id);
                self.state = State::Prefix;
                Ok(StreamEvent::Hello(h))
            }
            (State::Prefix, Message::Prefix { stream_id, bytes }) => {
                if let Some(was) = self.stream_id.filter(|w| *w != stream_id) {
                    return Err(LiveError::StreamChanged { was, now: stream_id });
                }
                self.prefix_len = bytes.len() as u64;
                self.state = State::Chunks;
                Ok(StreamEvent::Prefix(bytes))
            }
            (State::Chunks, Message::Chunk { seq, offset, header, bytes }) => {
                if seq == u64::MAX {
                    return Err(LiveError::SeqRange { seq });
                }
                if seq < self.next_seq {
                    return Err(LiveError::Duplicate { seq, expected: self.next_seq });
                }
                let skipped = seq - self.next_seq;
                match self.next_offset {
                    Some(expected) if skipped == 0 && offset != expected => {
                        return Err(LiveError::Offset { seq, offset, expected })
                    }
                    Some(expected) if offset < expected => return Err(LiveError::Offset { seq, offset, expected }),
                    None if offset < self.prefix_len => {
                        return Err(LiveError::Offset { seq, offset, expected: self.prefix_len })
                    }
                    _ => {}
                }
                if let Some(last_tick) = self.last_tick.filter(|t| header.first_tick <= *t) {
                    return Err(LiveError::TickOrder { seq, first_tick: header.first_tick, last_tick });
                }
                self.next_seq = seq + 1;
                self.next_offset = Some(header.end());
                self.last_tick = Some(header.last_tick);
                Ok(StreamEvent::Chunk { seq, offset, header, bytes, skipped })
            }
            (State::Chunks, Message::Goodbye(g)) => {
                if g.end_seq < self.next_seq {
                    return Err(LiveError::EndBefore { end_seq: g.end_seq, received: self.next_seq });
                }
                self.state = State::Ended;
                let missing = g.end_seq - self.next_seq;
                Ok(StreamEvent::Goodbye { goodbye: g, missing })
            }
            (state, m) => Err(LiveError::Order {
                expected: match state {
                    State::Hello => "hello",
                    State::Prefix => "prefix",
                    State::Chunks => "chunk or goodbye",
                    State::Ended => "nothing after goodbye",
                },
                got: m.name(),
            }),
        }
    }
}
