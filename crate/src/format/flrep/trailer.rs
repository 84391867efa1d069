//! The index trailer: keyframe tick → chunk offset, the recording's first and last tick, and a copy of
//! the kill events (so a timeline can show kill markers before any chunk is fetched).
//!
//! `magic "FLIX", entryCount u32, firstTick u64, lastTick u64, markerCount u32,
//! entries (keyframeTick u64, chunkOffset u64) × entryCount, markers (event records) × markerCount,
//! crc32 u32 (of everything from the magic through the markers), tableOffset u64 (offset of the magic;
//! the last 8 bytes of the file)`.

use super::{event, Limits, TRAILER_MAGIC};
use crate::bytes::{Cursor, PutLe};
use crate::model::Event;

/// The smallest trailer: magic + counts + ticks + crc + offset, no entries. A table offset that
/// leaves fewer bytes is "no trailer", like one outside the stream (docs/format/flrep.md §13.1).
pub const MIN_TRAILER_LEN: u64 = 4 + 4 + 8 + 8 + 4 + 4 + 8;

#[derive(Clone, Debug, PartialEq)]
pub struct Trailer {
    pub first_tick: u64,
    pub last_tick: u64,
    /// (keyframe tick, chunk offset), strictly increasing in both.
    pub entries: Vec<(u64, u64)>,
    pub markers: Vec<Event>,
}

/// Reads the table offset from the file's last 8 bytes and checks it could be a trailer.
pub fn table_offset(last8: &[u8], file_len: u64, stream_start: u64, limits: &Limits) -> Result<u64, String> {
    let off = Cursor::new(last8).u64().map_err(|_| "file too short for an index trailer".to_string())?;
    if off < stream_start || off > file_len.saturating_sub(MIN_TRAILER_LEN) {
        return Err(format!(
            "the last 8 bytes give table offset {off}, outside the stream ({stream_start}..{file_len})"
        ));
    }
    if file_len - off > limits.max_trailer_bytes {
        return Err(format!("index of {} bytes exceeds the {}-byte limit", file_len - off, limits.max_trailer_bytes));
    }
    Ok(off)
}

/// Parses the trailer (`bytes` = file[table_offset..file_len]) and checks it against the file.
/// An `Err` means "missing or corrupt": the caller rebuilds the index by scanning.
pub fn parse(bytes: &[u8], table_offset: u64, stream_start: u64, limits: &Limits) -> Result<Trailer, String> {
    let body_len = bytes.len().checked_sub(12).ok_or("trailer too short")?;
    let body = bytes.get(..body_len).ok_or("trailer too short")?;
    let mut tail = Cursor::new(bytes.get(body_len..).unwrap_or(&[]));
    let crc = tail.u32().map_err(|_| "trailer too short")?;
    let actual = crc32fast::hash(body);
    if crc != actual {
        return Err(format!("index checksum mismatch (stored {crc:08x}, computed {actual:08x})"));
    }
    let mut c = Cursor::at(body, table_offset);
    let magic: [u8; 4] = c.array().map_err(|_| "trailer too short")?;
    if &magic != TRAILER_MAGIC {
        return Err("no index magic \"FLIX\" at the table offset".into());
    }
    let n = c.u32().map_err(|_| "trailer too short")?;
    let first_tick = c.u64().map_err(|_| "trailer too short")?;
    let last_tick = c.u64().map_err(|_| "trailer too short")?;
    let m = c.u32().map_err(|_| "trailer too short")?;
    if u64::from(n) * 16 > c.remaining() as u64 {
        return Err(format!("index declares {n} entries but holds room for {}", c.remaining() / 16));
    }
    if u64::from(m) * 3 > c.remaining() as u64 {
        return Err(format!("index declares {m} markers, more than fit"));
    }
    let mut entries = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let t = c.u64().map_err(|_| "trailer too short")?;
        let o = c.u64().map_err(|_| "trailer too short")?;
        if let Some(&(pt, po)) = entries.last() {
            if t <= pt || o <= po {
                return Err(format!("index entries out of order at keyframe tick {t}"));
            }
        }
        if o < stream_start || o.saturating_add(super::chunk::CHUNK_HEADER_LEN as u64) > table_offset {
            return Err(format!("index entry for tick {t} points at offset {o}, outside the frame stream"));
        }
        entries.push((t, o));
    }
    match entries.first() {
        None => return Err("index has no entries".into()),
        Some(&(t, o)) => {
            if o != stream_start {
                return Err(format!(
                    "first index entry points at {o}, not at the start of the frame stream ({stream_start})"
                ));
            }
            if t != first_tick {
                return Err(format!("first keyframe tick {t} differs from the index's first tick {first_tick}"));
            }
        }
    }
    if entries.last().is_some_and(|&(t, _)| t > last_tick) {
        return Err("last keyframe tick is after the index's last tick".into());
    }
    let mut markers = Vec::with_capacity(m as usize);
    for _ in 0..m {
        if let Some(e) = event::read(&mut c, limits.max_string)? {
            markers.push(e);
        }
    }
    if !c.is_empty() {
        return Err(format!("{} unexpected bytes in the index", c.remaining()));
    }
    Ok(Trailer { first_tick, last_tick, entries, markers })
}

pub fn write(out: &mut Vec<u8>, table_offset: u64, t: &Trailer) {
    let start = out.len();
    out.extend_from_slice(TRAILER_MAGIC);
    out.put_u32(t.entries.len() as u32);
    out.put_u64(t.first_tick);
    out.put_u64(t.last_tick);
    out.put_u32(t.markers.len() as u32);
    for (tick, off) in &t.entries {
        out.put_u64(*tick);
        out.put_u64(*off);
    }
    for e in &t.markers {
        event::write(out, e);
    }
    let crc = crc32fast::hash(out.get(start..).unwrap_or(&[]));
    out.put_u32(crc);
    out.put_u64(table_offset);
}
