//! The header and frame codec: one parser for file frames and live messages.

use super::{frame_type as ft, Error, Limits, FORMAT_VERSION, FRAME_HEADER_LEN, HEADER_LEN, MAGIC};
use crate::bytes::{Cursor, PutLe, Short};

/// The fixed 32-byte file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub format_version: u16,
    pub flags: u16,
    pub tick_rate_hz: u32,
    pub peer_count: u32,
    /// Opaque, game-supplied (e.g. a hash of the game build).
    pub build_id: [u8; 16],
}

impl Header {
    pub fn new(tick_rate_hz: u32, peer_count: u32, build_id: [u8; 16]) -> Self {
        Header { format_version: FORMAT_VERSION, flags: 0, tick_rate_hz, peer_count, build_id }
    }

    /// Parses the header from the first bytes of a file of `file_len` bytes.
    pub fn parse(head: &[u8], file_len: u64, limits: &Limits) -> Result<Header, Error> {
        // The magic is checked first so a short non-foldback file says "not a .foldback file".
        if let Some(m) = head.get(..4) {
            if m != MAGIC {
                let mut found = [0u8; 4];
                found.copy_from_slice(m);
                return Err(Error::BadMagic { found });
            }
        }
        if file_len < HEADER_LEN as u64 || head.len() < HEADER_LEN {
            return Err(Error::TooShort { len: file_len.min(head.len() as u64) });
        }
        let mut c = Cursor::new(head);
        let short = |_: Short| Error::TooShort { len: file_len };
        c.skip(4).map_err(short)?;
        let format_version = c.u16().map_err(short)?;
        let flags = c.u16().map_err(short)?;
        let tick_rate_hz = c.u32().map_err(short)?;
        let peer_count = c.u32().map_err(short)?;
        let build_id = c.array::<16>().map_err(short)?;
        if format_version == 0 {
            return Err(Error::BadVersion { version: 0 });
        }
        if format_version > FORMAT_VERSION {
            return Err(Error::NewerVersion { file_version: format_version, supported: FORMAT_VERSION });
        }
        if flags != 0 {
            return Err(Error::BadFlags { flags });
        }
        if peer_count > limits.max_peers {
            return Err(Error::TooManyPeers { count: peer_count, max: limits.max_peers });
        }
        Ok(Header { format_version, flags, tick_rate_hz, peer_count, build_id })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(HEADER_LEN);
        v.extend_from_slice(MAGIC);
        v.put_u16(self.format_version);
        v.put_u16(self.flags);
        v.put_u32(self.tick_rate_hz);
        v.put_u32(self.peer_count);
        v.extend_from_slice(&self.build_id);
        v
    }

    pub fn build_id_hex(&self) -> String {
        super::hex(&self.build_id)
    }
}

/// One frame, borrowing its strings and bytes from the buffer it was parsed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Frame<'a> {
    /// Level 1: one peer's hash of its whole state at a tick.
    TickHash {
        tick: u64,
        peer: u16,
        hash: u64,
    },
    /// Level 2: one peer's hash of one entity at a tick.
    EntityHash {
        tick: u64,
        peer: u16,
        entity: u64,
        hash: u64,
    },
    /// Level 3: one peer's hash of one field of one entity, with the value itself.
    FieldHash {
        tick: u64,
        peer: u16,
        entity: u64,
        name: &'a str,
        hash: u64,
        value: &'a [u8],
    },
    /// A zstd-compressed, game-defined snapshot (decompressed only on demand).
    Snapshot {
        tick: u64,
        peer: u16,
        data: &'a [u8],
    },
    /// A free-form annotation (the key is UTF-8; the value is bytes, shown as text when it is UTF-8).
    Metadata {
        key: &'a str,
        value: &'a [u8],
    },
    EndOfStream,
    /// A frame type this build does not read (skipped by length).
    Unknown {
        frame_type: u8,
        payload: &'a [u8],
    },
}

impl<'a> Frame<'a> {
    pub fn frame_type(&self) -> u8 {
        match self {
            Frame::TickHash { .. } => ft::TICK_HASH,
            Frame::EntityHash { .. } => ft::ENTITY_HASH,
            Frame::FieldHash { .. } => ft::FIELD_HASH,
            Frame::Snapshot { .. } => ft::SNAPSHOT,
            Frame::Metadata { .. } => ft::METADATA,
            Frame::EndOfStream => ft::END_OF_STREAM,
            Frame::Unknown { frame_type, .. } => *frame_type,
        }
    }

    /// The tick a frame belongs to (Metadata, EndOfStream and unknown frames have none).
    pub fn tick(&self) -> Option<u64> {
        match self {
            Frame::TickHash { tick, .. }
            | Frame::EntityHash { tick, .. }
            | Frame::FieldHash { tick, .. }
            | Frame::Snapshot { tick, .. } => Some(*tick),
            _ => None,
        }
    }

    pub fn peer(&self) -> Option<u16> {
        match self {
            Frame::TickHash { peer, .. }
            | Frame::EntityHash { peer, .. }
            | Frame::FieldHash { peer, .. }
            | Frame::Snapshot { peer, .. } => Some(*peer),
            _ => None,
        }
    }

    /// The same frame with another peer id (used when per-peer files are merged or re-labelled).
    pub fn with_peer(self, new_peer: u16) -> Frame<'a> {
        match self {
            Frame::TickHash { tick, hash, .. } => Frame::TickHash { tick, peer: new_peer, hash },
            Frame::EntityHash { tick, entity, hash, .. } => Frame::EntityHash { tick, peer: new_peer, entity, hash },
            Frame::FieldHash { tick, entity, name, hash, value, .. } => {
                Frame::FieldHash { tick, peer: new_peer, entity, name, hash, value }
            }
            Frame::Snapshot { tick, data, .. } => Frame::Snapshot { tick, peer: new_peer, data },
            other => other,
        }
    }
}

/// Reads the 5-byte frame header at the start of `buf`: `(frame_type, payload_len)`, or `None` when
/// fewer than 5 bytes are there.
pub fn frame_header(buf: &[u8]) -> Option<(u8, u32)> {
    let t = *buf.first()?;
    let len = buf.get(1..FRAME_HEADER_LEN)?;
    let mut a = [0u8; 4];
    a.copy_from_slice(len);
    Some((t, u32::from_le_bytes(a)))
}

/// Parses one live message: exactly one frame (`[u8 type][u32 len][payload]`) with the default
/// limits. The browser feeds each binary WebSocket message to this.
pub fn parse_frame(bytes: &[u8]) -> Result<Frame<'_>, Error> {
    parse_frame_with(bytes, 0, &Limits::default())
}

/// [`parse_frame`] with limits; `base` is the offset of `bytes[0]` (a file offset, or 0 for a live
/// message) so errors name it. The bytes must hold exactly one frame.
pub fn parse_frame_with<'a>(bytes: &'a [u8], base: u64, limits: &Limits) -> Result<Frame<'a>, Error> {
    let (frame, used) = parse_frame_prefix(bytes, base, limits)?;
    let extra = bytes.len().saturating_sub(used);
    if extra > 0 {
        return Err(Error::TrailingBytes { at: base + used as u64, extra: extra as u64 });
    }
    Ok(frame)
}

/// Parses the frame at the start of `bytes` (more bytes may follow); returns it and its total length.
pub fn parse_frame_prefix<'a>(bytes: &'a [u8], base: u64, limits: &Limits) -> Result<(Frame<'a>, usize), Error> {
    let Some((t, len)) = frame_header(bytes) else {
        if bytes.is_empty() {
            return Err(Error::EmptyMessage);
        }
        return Err(Error::FrameTruncated {
            at: base,
            frame_type: bytes.first().copied().unwrap_or(0),
            need: FRAME_HEADER_LEN as u64,
            have: bytes.len() as u64,
        });
    };
    if len > limits.max_frame_payload {
        return Err(Error::FrameTooLarge {
            at: base,
            frame_type: t,
            len: u64::from(len),
            max: u64::from(limits.max_frame_payload),
        });
    }
    let total = FRAME_HEADER_LEN + len as usize;
    let Some(payload) = bytes.get(FRAME_HEADER_LEN..total) else {
        return Err(Error::FrameTruncated { at: base, frame_type: t, need: total as u64, have: bytes.len() as u64 });
    };
    Ok((parse_payload(t, payload, base, limits)?, total))
}

/// Parses a payload of type `t` for the frame starting at `frame_at`. The one payload parser, used
/// by the file scanner and by live messages.
///
/// Forward compatibility: bytes after the last field a type defines are ignored (a later minor
/// revision may append fields); a payload shorter than its fields is [`Error::PayloadTooShort`].
pub fn parse_payload<'a>(t: u8, payload: &'a [u8], frame_at: u64, limits: &Limits) -> Result<Frame<'a>, Error> {
    let mut p = P { c: Cursor::at(payload, frame_at + FRAME_HEADER_LEN as u64), t, frame_at };
    Ok(match t {
        ft::TICK_HASH => Frame::TickHash { tick: p.u64("tick")?, peer: p.u16("peer_id")?, hash: p.u64("hash")? },
        ft::ENTITY_HASH => Frame::EntityHash {
            tick: p.u64("tick")?,
            peer: p.u16("peer_id")?,
            entity: p.u64("entity_id")?,
            hash: p.u64("hash")?,
        },
        ft::FIELD_HASH => {
            let tick = p.u64("tick")?;
            let peer = p.u16("peer_id")?;
            let entity = p.u64("entity_id")?;
            let name = p.str("field name", limits.max_name)?;
            let hash = p.u64("hash")?;
            let value = p.bytes("value", limits.max_value)?;
            Frame::FieldHash { tick, peer, entity, name, hash, value }
        }
        ft::SNAPSHOT => {
            let tick = p.u64("tick")?;
            let peer = p.u16("peer_id")?;
            // The compressed bytes are bounded by the frame payload (itself under the frame limit).
            let data = p.bytes("snapshot data", u32::MAX)?;
            Frame::Snapshot { tick, peer, data }
        }
        ft::METADATA => {
            let key = p.str("metadata key", limits.max_name)?;
            let value = p.bytes("metadata value", limits.max_value)?;
            Frame::Metadata { key, value }
        }
        ft::END_OF_STREAM => Frame::EndOfStream,
        other => Frame::Unknown { frame_type: other, payload },
    })
}

/// The fixed part of a Snapshot payload: `u64 tick, u16 peer_id, u32 compressed_len`.
pub const SNAPSHOT_PREFIX_LEN: usize = 14;

/// Reads a snapshot frame's fixed prefix (from at least [`SNAPSHOT_PREFIX_LEN`] payload bytes) and
/// checks `compressed_len` against `payload_len`: `(tick, peer, compressed_len)`.
pub fn snapshot_prefix(prefix: &[u8], payload_len: u32, frame_at: u64) -> Result<(u64, u16, u32), Error> {
    let mut p = P { c: Cursor::at(prefix, frame_at + FRAME_HEADER_LEN as u64), t: ft::SNAPSHOT, frame_at };
    let tick = p.u64("tick")?;
    let peer = p.u16("peer_id")?;
    let at = frame_at;
    let clen = p.u32("compressed_len")?;
    let room = u64::from(payload_len).saturating_sub(SNAPSHOT_PREFIX_LEN as u64);
    if u64::from(clen) > room {
        return Err(Error::PayloadTooShort {
            at,
            frame_type: ft::SNAPSHOT,
            field: "snapshot data",
            need: u64::from(clen),
            have: room,
        });
    }
    Ok((tick, peer, clen))
}

struct P<'a> {
    c: Cursor<'a>,
    t: u8,
    frame_at: u64,
}

impl<'a> P<'a> {
    fn short(&self, field: &'static str) -> impl Fn(Short) -> Error + '_ {
        move |s| Error::PayloadTooShort { at: self.frame_at, frame_type: self.t, field, need: s.need, have: s.have }
    }
    fn u16(&mut self, field: &'static str) -> Result<u16, Error> {
        let r = self.c.u16();
        r.map_err(self.short(field))
    }
    fn u64(&mut self, field: &'static str) -> Result<u64, Error> {
        let r = self.c.u64();
        r.map_err(self.short(field))
    }
    fn u32(&mut self, field: &'static str) -> Result<u32, Error> {
        let r = self.c.u32();
        r.map_err(self.short(field))
    }
    /// `u32 len` + bytes, at most `max`.
    fn bytes(&mut self, field: &'static str, max: u32) -> Result<&'a [u8], Error> {
        let at = self.frame_at;
        let len = self.u32(field)?;
        if len > max {
            return Err(Error::FieldTooLong {
                at,
                frame_type: self.t,
                field,
                len: u64::from(len),
                max: u64::from(max),
            });
        }
        let r = self.c.take_u64(u64::from(len));
        r.map_err(self.short(field))
    }
    fn str(&mut self, field: &'static str, max: u32) -> Result<&'a str, Error> {
        let at = self.frame_at;
        let b = self.bytes(field, max)?;
        std::str::from_utf8(b).map_err(|_| Error::NotUtf8 { at, frame_type: self.t, field })
    }
}

/// Encodes a frame (`[u8 type][u32 len][payload]`). Length fields that do not fit a u32 are the
/// writer's to refuse first ([`super::writer::encode_frame`] checks limits); this only lays bytes.
pub fn encode_unchecked(f: &Frame<'_>, out: &mut Vec<u8>) {
    let start = out.len();
    out.put_u8(f.frame_type());
    out.put_u32(0);
    match f {
        Frame::TickHash { tick, peer, hash } => {
            out.put_u64(*tick);
            out.put_u16(*peer);
            out.put_u64(*hash);
        }
        Frame::EntityHash { tick, peer, entity, hash } => {
            out.put_u64(*tick);
            out.put_u16(*peer);
            out.put_u64(*entity);
            out.put_u64(*hash);
        }
        Frame::FieldHash { tick, peer, entity, name, hash, value } => {
            out.put_u64(*tick);
            out.put_u16(*peer);
            out.put_u64(*entity);
            out.put_u32(name.len() as u32);
            out.extend_from_slice(name.as_bytes());
            out.put_u64(*hash);
            out.put_u32(value.len() as u32);
            out.extend_from_slice(value);
        }
        Frame::Snapshot { tick, peer, data } => {
            out.put_u64(*tick);
            out.put_u16(*peer);
            out.put_u32(data.len() as u32);
            out.extend_from_slice(data);
        }
        Frame::Metadata { key, value } => {
            out.put_u32(key.len() as u32);
            out.extend_from_slice(key.as_bytes());
            out.put_u32(value.len() as u32);
            out.extend_from_slice(value);
        }
        Frame::EndOfStream => {}
        Frame::Unknown { payload, .. } => out.extend_from_slice(payload),
    }
    let len = (out.len() - start - FRAME_HEADER_LEN) as u32;
    if let Some(slot) = out.get_mut(start + 1..start + FRAME_HEADER_LEN) {
        slot.copy_from_slice(&len.to_le_bytes());
    }
}

/// A frame as JSON (the dump line's `frame` object; what the browser's live log shows):
/// `{"kind":"tick_hash","tick":…,"peer":…,"hash":"<16 hex>"}` and so on; entity ids as strings,
/// Level-3 values as a [`super::value::ValueView`], snapshot bytes as their length only.
#[cfg(feature = "json")]
pub fn frame_json(f: &Frame<'_>) -> serde_json::Value {
    use serde_json::json;
    let h = super::hash_hex;
    match *f {
        Frame::TickHash { tick, peer, hash } => {
            json!({"kind": "tick_hash", "tick": tick, "peer": peer, "hash": h(hash)})
        }
        Frame::EntityHash { tick, peer, entity, hash } => {
            json!({"kind": "entity_hash", "tick": tick, "peer": peer, "entity": entity.to_string(), "hash": h(hash)})
        }
        Frame::FieldHash { tick, peer, entity, name, hash, value } => json!({
            "kind": "field_hash", "tick": tick, "peer": peer, "entity": entity.to_string(), "field": name, "hash": h(hash),
            "value": super::value::ValueView::of(value),
        }),
        Frame::Snapshot { tick, peer, data } => {
            json!({"kind": "snapshot", "tick": tick, "peer": peer, "compressed_len": data.len()})
        }
        Frame::Metadata { key, value } => {
            json!({"kind": "metadata", "key": key, "value": super::index::value_text(value)})
        }
        Frame::EndOfStream => json!({"kind": "end_of_stream"}),
        Frame::Unknown { frame_type, payload } => {
            json!({"kind": "unknown", "frame_type": frame_type, "payload_len": payload.len()})
        }
    }
}
