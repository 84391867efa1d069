//! The sans-IO opener: asks for byte ranges, is handed the bytes, and ends with an [`Opened`] file.
//!
//! ```text
//!  Start ──► Prefix (header + sections, re-asked with a larger range until complete)
//!              │
//!              ▼
//!            Tail (last 8 bytes) ──► Trailer ──► Ready (indexed: the open costs 3 reads)
//!              │ missing/corrupt        │ corrupt
//!              ▼                        ▼
//!            Scan (one 36-byte chunk header per step, skipping frames) ──► Ready (warning)
//! ```
//! Opening never decodes a chunk, so its cost does not grow with the file (except on the scan path).

use super::chunk::{ChunkHeader, CHUNK_HEADER_LEN};
use super::header::{parse_prefix, Header, Prefix, Sections};
use super::{trailer, Error, Limits, TRAILER_MAGIC};
use crate::model::{Event, FormatKind, RecordingInfo, WorldKind};

/// The first read: most files' header and sections fit in it.
pub const FIRST_READ: u64 = 64 * 1024;

/// What the opener wants next.
pub type Step = crate::format::Step<Opened>;

// A chunk as known from the index or the scan: the offset of its chunk header, its bytes up to the
// next chunk (header + frame) and its keyframe tick.
pub use crate::format::chunks::{ChunkRef, ChunkTable};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexSource {
    Trailer,
    Scan,
}

/// An opened `.flrep`: header, tables, chunk list, kill markers (when the trailer had them).
#[derive(Clone, Debug)]
pub struct Opened {
    pub file_len: u64,
    pub header: Header,
    pub sections: Sections,
    pub stream_start: u64,
    pub chunks: ChunkTable,
    pub first_tick: u64,
    pub last_tick: u64,
    pub index_source: IndexSource,
    /// Kill events copied into the trailer; empty after a scan (events then come from chunks).
    pub markers: Vec<Event>,
    pub warnings: Vec<String>,
    /// Why a forward scan stopped before the end when that was not a cut (a chunk header over a
    /// limit or not a chunk header at all, docs/format/flrep.md §13.3): also a warning; `validate`
    /// fails on it.
    pub problems: Vec<String>,
}

impl Opened {
    /// Index of the chunk holding `tick` (the last chunk whose keyframe is at or before it).
    pub fn chunk_for_tick(&self, tick: u64) -> usize {
        self.chunks.for_tick(tick)
    }

    /// Checks a chunk header read at a chunk's offset against what the index said.
    pub fn check_chunk(&self, i: usize, header: &ChunkHeader) -> Result<(), Error> {
        let Some(c) = self.chunks.get(i) else {
            return Err(Error::IndexEntryMismatch {
                at: header.offset,
                expected_tick: 0,
                reason: format!("no chunk {i}"),
            });
        };
        if header.first_tick != c.first_tick {
            return Err(Error::IndexEntryMismatch {
                at: c.offset,
                expected_tick: c.first_tick,
                reason: format!("the chunk there starts at tick {}", header.first_tick),
            });
        }
        if header.end() != c.offset + c.len {
            return Err(Error::IndexEntryMismatch {
                at: c.offset,
                expected_tick: c.first_tick,
                reason: format!("the chunk there ends at {}, the index says {}", header.end(), c.offset + c.len),
            });
        }
        // The scan refuses overlapping chunks when it opens; an index cannot vouch for them either
        // (docs/format/flrep.md §13.2).
        if let Some(next) = self.chunks.get(i + 1) {
            if header.last_tick >= next.first_tick {
                return Err(Error::ChunkTickMismatch {
                    chunk_at: c.offset,
                    reason: format!(
                        "ends at tick {}, not before the next chunk's keyframe tick {}",
                        header.last_tick, next.first_tick
                    ),
                });
            }
        } else if header.last_tick != self.last_tick {
            // The last chunk ends where the recording does: the trailer's lastTick (§9, §13.2), which
            // the timeline showed before any chunk was read.
            return Err(Error::ChunkTickMismatch {
                chunk_at: c.offset,
                reason: format!("ends at tick {}, but the index's lastTick is {}", header.last_tick, self.last_tick),
            });
        }
        Ok(())
    }

    pub fn info(&self) -> RecordingInfo {
        let h = &self.header;
        RecordingInfo {
            format: FormatKind::Flrep,
            format_major: h.format_major,
            format_minor: h.format_minor,
            engine_version: h.engine_version.clone(),
            tick_rate_hz: h.tick_rate_hz,
            // −0.0 is a flat world too (docs/format/flrep.md §4.2).
            world: if h.planet_radius_m == 0.0 {
                WorldKind::Flat
            } else {
                WorldKind::Planet { radius_m: h.planet_radius_m }
            },
            position_quantum_m: h.position_quantum_m,
            velocity_quantum_mps: h.velocity_quantum_mps,
            start_unix_seconds: h.start_unix_seconds,
            mission_id: h.mission_id.clone(),
            session_flags: h.session_flags,
            keyframe_interval_ticks: h.keyframe_interval_ticks,
            first_tick: self.first_tick,
            last_tick: self.last_tick,
            entity_types: self.sections.entity_types.clone(),
            factions: self.sections.factions.clone(),
            participants: self.sections.participants.clone(),
            mission_objects: self.sections.mission_objects.clone(),
            metadata: self.sections.metadata.clone(),
            warnings: self.warnings.clone(),
            problems: self.problems.clone(),
        }
    }
}

enum State {
    Start,
    Prefix { asked: u64 },
    Tail,
    Trailer { table_offset: u64 },
    Scan { offset: u64 },
    Done,
}

pub struct Opener {
    file_len: u64,
    limits: Limits,
    state: State,
    prefix: Option<(Header, Sections, u64)>,
    scanned: Vec<ChunkHeader>,
    warnings: Vec<String>,
    problems: Vec<String>,
    trailer_problem: Option<String>,
}

impl Opener {
    pub fn new(file_len: u64, limits: Limits) -> Self {
        Opener {
            file_len,
            limits,
            state: State::Start,
            prefix: None,
            scanned: Vec::new(),
            warnings: Vec::new(),
            problems: Vec::new(),
            trailer_problem: None,
        }
    }

    /// Advances with the bytes of the range asked for last (`None` on the first call).
    pub fn next(&mut self, input: Option<&[u8]>) -> Result<Step, Error> {
        let input = input.unwrap_or(&[]);
        match std::mem::replace(&mut self.state, State::Done) {
            State::Start => {
                let len = self.file_len.min(FIRST_READ);
                self.state = State::Prefix { asked: len };
                Ok(Step::Need { offset: 0, len })
            }
            State::Prefix { asked } => {
                if (input.len() as u64) < asked {
                    return Err(Error::Usage(format!("asked for {asked} bytes at offset 0, got {}", input.len())));
                }
                match parse_prefix(input, self.file_len, &self.limits)? {
                    Prefix::NeedBytes(n) => {
                        if n <= asked {
                            return Err(Error::Usage("header parser asked for bytes it already had".into()));
                        }
                        if n > self.limits.max_prefix_bytes {
                            return Err(Error::PrefixTooLarge { len: n, max: self.limits.max_prefix_bytes });
                        }
                        // Grow geometrically so a large section list costs few reads.
                        let len = n.max(asked.saturating_mul(2)).min(self.file_len).min(self.limits.max_prefix_bytes);
                        self.state = State::Prefix { asked: len };
                        Ok(Step::Need { offset: 0, len })
                    }
                    Prefix::Done { header, sections, stream_start } => {
                        if !sections.skipped.is_empty() {
                            let ids: Vec<String> = sections.skipped.iter().map(|i| format!("0x{i:04X}")).collect();
                            self.warnings
                                .push(format!("skipped sections this build does not read: {}", ids.join(", ")));
                        }
                        self.prefix = Some((header, sections, stream_start));
                        if self.file_len >= stream_start + trailer::MIN_TRAILER_LEN {
                            self.state = State::Tail;
                            Ok(Step::Need { offset: self.file_len - 8, len: 8 })
                        } else {
                            self.trailer_problem = Some("no index trailer".into());
                            self.scan_from(stream_start)
                        }
                    }
                }
            }
            State::Tail => {
                let stream_start = self.stream_start();
                match trailer::table_offset(input, self.file_len, stream_start, &self.limits) {
                    Ok(table_offset) => {
                        self.state = State::Trailer { table_offset };
                        Ok(Step::Need { offset: table_offset, len: self.file_len - table_offset })
                    }
                    Err(_) => {
                        self.trailer_problem = Some("no index trailer".into());
                        self.scan_from(stream_start)
                    }
                }
            }
            State::Trailer { table_offset } => {
                let stream_start = self.stream_start();
                match trailer::parse(input, table_offset, stream_start, &self.limits) {
                    Ok(t) => self.finish_indexed(t, table_offset),
                    Err(reason) => {
                        self.trailer_problem = Some(format!("index trailer corrupt ({reason})"));
                        self.scan_from(stream_start)
                    }
                }
            }
            State::Scan { offset } => {
                let remaining = self.file_len - offset;
                if input.len() >= 4 && input.get(..4) == Some(TRAILER_MAGIC.as_slice()) {
                    return self.finish_scan(None);
                }
                match ChunkHeader::parse(input, offset, self.file_len, &self.limits) {
                    Ok(h) => {
                        self.scanned.push(h);
                        self.scan_from(h.end())
                    }
                    // A cut (an interrupted recording) is a warning; anything else, a length over a
                    // limit included, is corruption (docs/format/flrep.md §13.3).
                    Err(Error::ChunkBeyondFile { .. } | Error::Truncated { .. }) => self.finish_scan(Some(format!(
                        "the file ends inside the chunk at offset {offset}: the recording was cut short"
                    ))),
                    Err(other) if remaining > 0 => {
                        let why = format!("stopped at offset {offset}: {other}");
                        self.problems.push(why.clone());
                        self.finish_scan(Some(why))
                    }
                    Err(_) => self.finish_scan(None),
                }
            }
            State::Done => Err(Error::Usage("opener already finished".into())),
        }
    }

    fn stream_start(&self) -> u64 {
        self.prefix.as_ref().map(|p| p.2).unwrap_or(0)
    }

    fn scan_from(&mut self, offset: u64) -> Result<Step, Error> {
        if offset >= self.file_len {
            return self.finish_scan(None);
        }
        let len = (CHUNK_HEADER_LEN as u64).min(self.file_len - offset);
        self.state = State::Scan { offset };
        Ok(Step::Need { offset, len })
    }

    fn finish_indexed(&mut self, t: trailer::Trailer, table_offset: u64) -> Result<Step, Error> {
        let mut chunks = ChunkTable::with_capacity(t.entries.len());
        for (i, &(first_tick, offset)) in t.entries.iter().enumerate() {
            let end = t.entries.get(i + 1).map(|e| e.1).unwrap_or(table_offset);
            chunks.push(ChunkRef { offset, len: end - offset, first_tick });
        }
        self.ready(chunks, t.first_tick, t.last_tick, IndexSource::Trailer, t.markers)
    }

    fn finish_scan(&mut self, stop_reason: Option<String>) -> Result<Step, Error> {
        let chunks: ChunkTable = self
            .scanned
            .iter()
            .map(|h| ChunkRef { offset: h.offset, len: h.end() - h.offset, first_tick: h.first_tick })
            .collect();
        let (first, last) = match (self.scanned.first(), self.scanned.last()) {
            (Some(f), Some(l)) => (f.first_tick, l.last_tick),
            _ => return Err(Error::NoChunks),
        };
        for w in self.scanned.windows(2) {
            if let [a, b] = w {
                if b.first_tick <= a.last_tick {
                    return Err(Error::ChunkTickMismatch {
                        chunk_at: b.offset,
                        reason: format!(
                            "starts at tick {}, not after the previous chunk's last tick {}",
                            b.first_tick, a.last_tick
                        ),
                    });
                }
            }
        }
        let problem = self.trailer_problem.take().unwrap_or_else(|| "no index trailer".into());
        self.warnings.push(format!("{problem}: index rebuilt by scanning {} chunks", chunks.len()));
        if let Some(r) = stop_reason.filter(|r| !r.is_empty()) {
            self.warnings.push(r);
        }
        self.ready(chunks, first, last, IndexSource::Scan, Vec::new())
    }

    fn ready(
        &mut self,
        chunks: ChunkTable,
        first_tick: u64,
        last_tick: u64,
        index_source: IndexSource,
        markers: Vec<Event>,
    ) -> Result<Step, Error> {
        let Some((header, sections, stream_start)) = self.prefix.take() else {
            return Err(Error::Usage("opener finished without a header".into()));
        };
        self.state = State::Done;
        Ok(Step::Ready(Box::new(Opened {
            file_len: self.file_len,
            header,
            sections,
            stream_start,
            chunks,
            first_tick,
            last_tick,
            index_source,
            markers,
            warnings: std::mem::take(&mut self.warnings),
            problems: std::mem::take(&mut self.problems),
        })))
    }
}
