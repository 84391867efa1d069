//! The sans-IO frame scanner: reads the header, then the frame stream in big windows
//! ([`super::Limits::scan_window`], 1 MiB by default), handing every frame to a visitor. It never
//! holds more than one window (or one frame, when a frame is larger than a window).
//!
//! ```text
//!  Start ─► Need(0, min(len, FIRST_READ)) ─► header ─► frames in that window ─► Need(pos, window) ─► …
//!  stops at: EndOfStream (clean) │ end of file (no EndOfStream) │ a frame cut by the end of the file
//!            │ a frame over the payload limit (even one that runs past the end: corruption, not a
//!            cut) — the last three are "did not end cleanly"
//! ```
//! A frame larger than a window is asked for whole, except Snapshots and unknown types: a Snapshot's
//! 19-byte prefix is enough to index it (its bytes are read on demand), an unknown frame is skipped by
//! its length.

use super::frame::{frame_header, parse_payload, snapshot_prefix, SNAPSHOT_PREFIX_LEN};
use super::{frame_type as ft, Error, Frame, Header, Limits, FRAME_HEADER_LEN, HEADER_LEN};

/// The first read: the header and the first frames.
pub const FIRST_READ: u64 = 64 * 1024;

/// What the scanner wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanStep {
    /// Hand over `file[offset .. offset + len]` with the next call.
    Need {
        offset: u64,
        len: u64,
    },
    Done,
}

/// One frame seen by the scanner. `offset` is the frame's first byte; `len` its total length.
#[derive(Debug, Clone, PartialEq)]
pub enum Item<'a> {
    /// The file header, visited once before any frame.
    Header(Header),
    Frame {
        offset: u64,
        len: u64,
        frame: Frame<'a>,
    },
    /// A Snapshot larger than the scan window: indexed from its prefix, bytes not read.
    SnapshotRef {
        offset: u64,
        len: u64,
        tick: u64,
        peer: u16,
        data_offset: u64,
        compressed_len: u32,
    },
    /// An unknown frame type larger than the scan window, skipped by length.
    Skipped {
        offset: u64,
        len: u64,
        frame_type: u8,
    },
    /// A frame whose outer length is sound but whose payload is not (too short, a field over its
    /// limit, bad UTF-8): refused, and the scan goes on after it.
    Bad {
        offset: u64,
        len: u64,
        frame_type: u8,
        error: Error,
    },
}

/// How the frame stream ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanEnd {
    /// EndOfStream was read.
    pub clean: bool,
    /// Offset just past the last complete frame (the EndOfStream frame included).
    pub frames_end: u64,
    /// Bytes after EndOfStream (ignored: a later version may append an index block there).
    pub trailing_bytes: u64,
    /// Why the stream stopped early, when it did ("the file ends inside the frame at offset N").
    pub cut: Option<String>,
    /// A frame over the payload limit stopped the scan (an error for `validate`, not a truncation).
    pub oversized: Option<Error>,
}

enum State {
    Start,
    Header { asked: u64 },
    Frames { asked_at: u64, asked: u64 },
    Done,
}

pub struct Scanner {
    file_len: u64,
    limits: Limits,
    state: State,
    pos: u64,
    header: Option<Header>,
    end: Option<ScanEnd>,
}

impl Scanner {
    pub fn new(file_len: u64, limits: Limits) -> Self {
        Scanner { file_len, limits, state: State::Start, pos: 0, header: None, end: None }
    }

    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }
    pub fn end(&self) -> Option<&ScanEnd> {
        self.end.as_ref()
    }
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Offset of the next frame to read.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Advances with the bytes of the range asked for last (`None` on the first call); every
    /// complete frame in them goes to `visit`. Errors are header defects and driver mistakes only:
    /// frame defects are [`Item::Bad`] or end the scan ([`ScanEnd`]).
    pub fn next(&mut self, input: Option<&[u8]>, visit: &mut dyn FnMut(Item<'_>)) -> Result<ScanStep, Error> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Start => {
                let len = self.file_len.min(FIRST_READ);
                self.state = State::Header { asked: len };
                Ok(ScanStep::Need { offset: 0, len })
            }
            State::Header { asked } => {
                let input = input.unwrap_or(&[]);
                check_len(input, 0, asked)?;
                let h = Header::parse(input, self.file_len, &self.limits)?;
                self.header = Some(h);
                visit(Item::Header(h));
                self.pos = HEADER_LEN as u64;
                self.frames(input, 0, visit)
            }
            State::Frames { asked_at, asked } => {
                let input = input.unwrap_or(&[]);
                check_len(input, asked_at, asked)?;
                self.frames(input, asked_at, visit)
            }
            State::Done => Ok(ScanStep::Done),
        }
    }

    fn finish(&mut self, clean: bool, cut: Option<String>, oversized: Option<Error>) -> Result<ScanStep, Error> {
        let trailing_bytes = if clean { self.file_len.saturating_sub(self.pos) } else { 0 };
        self.end = Some(ScanEnd { clean, frames_end: self.pos, trailing_bytes, cut, oversized });
        self.state = State::Done;
        Ok(ScanStep::Done)
    }

    /// Visits the frames of `win` (which starts at file offset `base`), from `self.pos` on.
    fn frames(&mut self, win: &[u8], base: u64, visit: &mut dyn FnMut(Item<'_>)) -> Result<ScanStep, Error> {
        loop {
            let remaining_file = self.file_len.saturating_sub(self.pos);
            if remaining_file == 0 {
                return self.finish(
                    false,
                    Some(format!("the file ends at offset {} without an EndOfStream frame", self.pos)),
                    None,
                );
            }
            let rel = usize::try_from(self.pos - base).map_err(|_| Error::Usage("window offset overflow".into()))?;
            let here = win.get(rel..).unwrap_or(&[]);
            if remaining_file < FRAME_HEADER_LEN as u64 {
                return self.finish(
                    false,
                    Some(format!(
                        "the file ends inside the frame header at offset {} ({remaining_file} of 5 bytes)",
                        self.pos
                    )),
                    None,
                );
            }
            let Some((t, plen)) = frame_header(here) else {
                return self.ask();
            };
            let total = FRAME_HEADER_LEN as u64 + u64::from(plen);
            // A length over the limit is corruption, not a cut, whether or not it fits the file
            // (docs/format/foldback.md §3.3): checked before the end of the file is.
            if plen > self.limits.max_frame_payload {
                let e = Error::FrameTooLarge {
                    at: self.pos,
                    frame_type: t,
                    len: u64::from(plen),
                    max: u64::from(self.limits.max_frame_payload),
                };
                return self.finish(false, Some(format!("stopped at offset {}: {e}", self.pos)), Some(e));
            }
            if total > remaining_file {
                return self.finish(
                    false,
                    Some(format!("the file ends inside the {} frame at offset {}: it declares {total} bytes, {remaining_file} remain", ft::name(t), self.pos)),
                    None,
                );
            }
            let offset = self.pos;
            let total_us = usize::try_from(total).map_err(|_| Error::Usage("frame length overflow".into()))?;
            if let Some(bytes) = here.get(..total_us) {
                let payload = bytes.get(FRAME_HEADER_LEN..).unwrap_or(&[]);
                self.pos += total;
                match parse_payload(t, payload, offset, &self.limits) {
                    Ok(Frame::EndOfStream) => {
                        visit(Item::Frame { offset, len: total, frame: Frame::EndOfStream });
                        return self.finish(true, None, None);
                    }
                    Ok(frame) => visit(Item::Frame { offset, len: total, frame }),
                    Err(error) => visit(Item::Bad { offset, len: total, frame_type: t, error }),
                }
                continue;
            }
            // The frame does not fit what we hold.
            let window = u64::from(self.limits.scan_window).max(64);
            if total > window && t == ft::SNAPSHOT {
                if let Some(prefix) = here.get(FRAME_HEADER_LEN..FRAME_HEADER_LEN + SNAPSHOT_PREFIX_LEN) {
                    self.pos += total;
                    match snapshot_prefix(prefix, plen, offset) {
                        Ok((tick, peer, compressed_len)) => visit(Item::SnapshotRef {
                            offset,
                            len: total,
                            tick,
                            peer,
                            data_offset: offset + (FRAME_HEADER_LEN + SNAPSHOT_PREFIX_LEN) as u64,
                            compressed_len,
                        }),
                        Err(error) => visit(Item::Bad { offset, len: total, frame_type: t, error }),
                    }
                    continue;
                }
                // The prefix is not in this window: a fresh window from here holds it.
                if rel > 0 {
                    return self.ask();
                }
            } else if total > window && !is_known(t) {
                self.pos += total;
                visit(Item::Skipped { offset, len: total, frame_type: t });
                continue;
            }
            return self.ask_at_least(total);
        }
    }

    fn ask(&mut self) -> Result<ScanStep, Error> {
        self.ask_at_least(0)
    }

    fn ask_at_least(&mut self, need: u64) -> Result<ScanStep, Error> {
        let window = u64::from(self.limits.scan_window).max(64);
        let len = window.max(need).min(self.file_len.saturating_sub(self.pos));
        self.state = State::Frames { asked_at: self.pos, asked: len };
        Ok(ScanStep::Need { offset: self.pos, len })
    }
}

fn is_known(t: u8) -> bool {
    matches!(t, ft::TICK_HASH | ft::ENTITY_HASH | ft::FIELD_HASH | ft::SNAPSHOT | ft::METADATA | ft::END_OF_STREAM)
}

fn check_len(input: &[u8], offset: u64, asked: u64) -> Result<(), Error> {
    if input.len() as u64 != asked {
        return Err(Error::Usage(format!("asked for {asked} bytes at offset {offset}, got {}", input.len())));
    }
    Ok(())
}

/// Iterates the frames of a byte range read on demand (a tick's range from the index): `base` is
/// the file offset of `bytes[0]`, which must be a frame boundary. Stops at the first frame the range
/// cuts (an error item), never panics.
pub fn frames_in<'a>(bytes: &'a [u8], base: u64, limits: &Limits) -> FramesIn<'a> {
    FramesIn { bytes, pos: 0, base, limits: limits.clone(), done: false }
}

pub struct FramesIn<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
    limits: Limits,
    done: bool,
}

impl<'a> Iterator for FramesIn<'a> {
    type Item = (u64, Result<Frame<'a>, Error>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let here = self.bytes.get(self.pos..).unwrap_or(&[]);
        if here.is_empty() {
            self.done = true;
            return None;
        }
        let at = self.base + self.pos as u64;
        match super::frame::parse_frame_prefix(here, at, &self.limits) {
            Ok((f, used)) => {
                self.pos += used;
                Some((at, Ok(f)))
            }
            Err(e @ (Error::FrameTruncated { .. } | Error::FrameTooLarge { .. } | Error::EmptyMessage)) => {
                self.done = true;
                Some((at, Err(e)))
            }
            Err(e) => {
                // The outer length is sound: skip the bad frame.
                let skip = frame_header(here).map(|(_, l)| FRAME_HEADER_LEN + l as usize).unwrap_or(here.len());
                self.pos += skip.max(1);
                Some((at, Err(e)))
            }
        }
    }
}
