use super::frame_type;
use crate::format::zstd::ZstdError;

/// Everything that can be wrong with a `.foldback` file or a live frame. Each defect has its own
/// variant; the message names the file offset (for a live frame: the offset inside the message) and
/// the numbers involved.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The file is shorter than the 32-byte header.
    TooShort {
        len: u64,
    },
    BadMagic {
        found: [u8; 4],
    },
    /// `format_version` is newer than this build reads.
    NewerVersion {
        file_version: u16,
        supported: u16,
    },
    /// `format_version` 0 was never defined.
    BadVersion {
        version: u16,
    },
    /// The v1 `flags` field must be 0.
    BadFlags {
        flags: u16,
    },
    TooManyPeers {
        count: u32,
        max: u32,
    },
    /// A frame's `payload_len` is over [`super::Limits::max_frame_payload`].
    FrameTooLarge {
        at: u64,
        frame_type: u8,
        len: u64,
        max: u64,
    },
    /// The file holds no complete frame with a tick: nothing to compare (a file with nothing
    /// playable is refused, in every format).
    NoTicks,
    /// A live message (or a byte range) ends before the frame it starts does.
    FrameTruncated {
        at: u64,
        frame_type: u8,
        need: u64,
        have: u64,
    },
    /// A payload shorter than its frame type's fields (the frame is refused; others are still read).
    /// `at` is the frame's offset (as in every frame error); `field` names what did not fit.
    PayloadTooShort {
        at: u64,
        frame_type: u8,
        field: &'static str,
        need: u64,
        have: u64,
    },
    /// A length-prefixed field over its limit.
    FieldTooLong {
        at: u64,
        frame_type: u8,
        field: &'static str,
        len: u64,
        max: u64,
    },
    NotUtf8 {
        at: u64,
        frame_type: u8,
        field: &'static str,
    },
    /// A live message holds bytes after its one frame.
    TrailingBytes {
        at: u64,
        extra: u64,
    },
    /// A live message with no bytes at all.
    EmptyMessage,
    /// A frame names a peer the header does not declare.
    PeerOutOfRange {
        at: u64,
        frame_type: u8,
        peer: u16,
        peer_count: u32,
    },
    /// A snapshot failed to decompress (or is over [`super::Limits::max_snapshot_decompressed`]).
    Snapshot {
        at: u64,
        tick: u64,
        peer: u16,
        err: ZstdError,
    },
    /// A live control message that is not the JSON this build understands.
    BadControl(String),
    /// A live hello with a newer protocol version.
    NewerProtocol {
        version: u64,
        supported: u64,
    },
    /// The caller broke a reader's contract: bytes other than those asked for, or a range that is not
    /// the frame it should hold.
    Usage(String),
    /// A native driver's read failed (`crate::io::foldback`).
    Io(crate::format::IoError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Error::*;
        let ft = |t: &u8| format!("{} frame (type 0x{t:02X})", frame_type::name(*t));
        match self {
            TooShort { len } => write!(f, "file is {len} bytes: too short for a .foldback header ({} bytes)", super::HEADER_LEN),
            BadMagic { found } => write!(f, "not a .foldback file: expected magic \"FBK1\", found bytes {:02X} {:02X} {:02X} {:02X}", found[0], found[1], found[2], found[3]),
            NewerVersion { file_version, supported } => write!(f, "this session file is .foldback format version {file_version}; this build reads version {supported} (and older): update the player"),
            BadVersion { version } => write!(f, "format_version {version} is not a .foldback version (versions start at 1)"),
            BadFlags { flags } => write!(f, "header flags are 0x{flags:04X}; format version 1 requires 0"),
            TooManyPeers { count, max } => write!(f, "header declares {count} peers, over the limit of {max}"),
            FrameTooLarge { at, frame_type, len, max } => write!(f, "{} at offset {at} declares a {len}-byte payload, over the limit of {max} bytes", ft(frame_type)),
            NoTicks => write!(f, "the recording holds no complete frame with a tick: nothing to compare"),
            FrameTruncated { at, frame_type, need, have } => write!(f, "{} at offset {at} is cut short: {need} bytes needed, {have} present", ft(frame_type)),
            PayloadTooShort { at, frame_type, field, need, have } => write!(f, "{} at offset {at}: payload too short for {field} ({need} bytes needed, {have} left)", ft(frame_type)),
            FieldTooLong { at, frame_type, field, len, max } => write!(f, "{} at offset {at}: {field} of {len} bytes exceeds the limit of {max}", ft(frame_type)),
            NotUtf8 { at, frame_type, field } => write!(f, "{} at offset {at}: {field} is not valid UTF-8", ft(frame_type)),
            TrailingBytes { at, extra } => write!(f, "live message holds {extra} bytes after its frame (which ends at offset {at}); one frame per message"),
            EmptyMessage => write!(f, "empty live message: a frame needs at least 5 bytes"),
            PeerOutOfRange { at, frame_type, peer, peer_count } => write!(f, "{} at offset {at} names peer {peer}, but the header declares {peer_count} peers", ft(frame_type)),
            Snapshot { at, tick, peer, err: ZstdError::TooLarge { cap } } => write!(f, "snapshot of peer {peer} at tick {tick} (frame at offset {at}) decompresses to more than {cap} bytes, the limit (max_snapshot_decompressed)"),
            Snapshot { at, tick, peer, err } => write!(f, "snapshot of peer {peer} at tick {tick} (frame at offset {at}): {err}"),
            BadControl(m) => write!(f, "bad live control message: {m}"),
            NewerProtocol { version, supported } => write!(f, "the game speaks live protocol version {version}; this build speaks version {supported}: update the player"),
            Usage(m) => write!(f, "read error: {m}"),
            Io(e) => write!(f, "read error: {e}"),
        }
    }
}

impl std::error::Error for Error {}
