//! The streaming SparkEngine `.replay` writer.
//!
//! The layout puts `frameCount` (and `duration`) before the frames, so the writer writes zeros there
//! and patches them in [`Writer::finish`] through `Seek` (no counting pass, no second copy). Frames
//! go to the sink as they come, one `write_all` per frame; events come after all frames in the
//! layout, so they are kept until `finish` (memory: one frame plus the events, which the format
//! bounds at 1,000,000).
//!
//! The writer refuses what the reader would refuse or drop (non-finite values, positions out of the
//! quantized range, timestamps that do not advance by at least 1 ms, duplicate ids, over-limit
//! counts), so everything it writes reads back. Strings are cleaned like `.flrep` names (control and
//! bidirectional characters replaced with U+FFFD, at most 4,096 bytes).

use super::map;
use super::{write_entity, Limits, SparkEntity, SparkEvent, MAGIC, VERSION};
use crate::bytes::PutLe;
use crate::format::flrep::writer::WriteError;
use std::io::{Seek, SeekFrom, Write};

pub struct Writer<W: Write + Seek> {
    sink: W,
    /// Offset of `duration` (followed by `frameCount`).
    patch_at: u64,
    frames: u32,
    last: Option<(f32, u64)>,
    events: Vec<SparkEvent>,
    buf: Vec<u8>,
    ids: Vec<u32>,
    limits: Limits,
}

fn io(e: std::io::Error) -> WriteError {
    WriteError::Io(e.to_string())
}

impl<W: Write + Seek> Writer<W> {
    /// Starts a file at the sink's current position: header, metadata and placeholders.
    pub fn new(mut sink: W, map_name: &str, game_mode: &str) -> Result<Self, WriteError> {
        let limits = Limits::default();
        let start = sink.stream_position().map_err(io)?;
        let max = limits.max_string as usize;
        let mut h = Vec::with_capacity(64);
        h.extend_from_slice(MAGIC);
        h.put_u32(VERSION);
        h.put_str32(&crate::bytes::clean_name(map_name, max));
        h.put_str32(&crate::bytes::clean_name(game_mode, max));
        let patch_at = start + h.len() as u64;
        h.put_f32(0.0);
        h.put_u32(0);
        sink.write_all(&h).map_err(io)?;
        Ok(Writer {
            sink,
            patch_at,
            frames: 0,
            last: None,
            events: Vec::new(),
            buf: Vec::new(),
            ids: Vec::new(),
            limits,
        })
    }

    pub fn frames(&self) -> u32 {
        self.frames
    }

    /// Writes one frame. Timestamps must advance by at least 1 ms (the reader's tick).
    pub fn frame(&mut self, timestamp: f32, frame_number: u32, entities: &[SparkEntity]) -> Result<(), WriteError> {
        if self.frames >= self.limits.max_frames {
            return Err(WriteError::BadInput(format!("over {} frames", self.limits.max_frames)));
        }
        if entities.len() > self.limits.max_entities as usize {
            return Err(WriteError::BadInput(format!(
                "frame {frame_number}: {} entities, over {}",
                entities.len(),
                self.limits.max_entities
            )));
        }
        let tick = map::timestamp_to_tick(timestamp)
            .map_err(|r| WriteError::BadInput(format!("frame {frame_number}: {r}")))?;
        if let Some((t, last)) = self.last {
            if tick <= last {
                return Err(WriteError::BadInput(format!("frame {frame_number}: timestamp {timestamp} s is not at least 1 ms after the previous frame's {t} s")));
            }
        }
        self.ids.clear();
        self.ids.extend(entities.iter().map(|e| e.id));
        self.ids.sort_unstable();
        if let Some(w) = self.ids.windows(2).find(|w| w.first() == w.get(1)) {
            return Err(WriteError::BadInput(format!("frame {frame_number}: entity {:?} appears twice", w.first())));
        }
        self.buf.clear();
        self.buf.put_f32(timestamp);
        self.buf.put_u32(frame_number);
        self.buf.put_u32(entities.len() as u32);
        for e in entities {
            if let Err(m) = map::entity_to_model(e) {
                return Err(WriteError::BadInput(format!(
                    "frame {frame_number}, entity {}: {} {}",
                    e.id, m.field, m.reason
                )));
            }
            write_entity(&mut self.buf, e);
        }
        self.sink.write_all(&self.buf).map_err(io)?;
        self.frames += 1;
        self.last = Some((timestamp, tick));
        Ok(())
    }

    /// Queues one event (written after the frames by [`Self::finish`]).
    pub fn event(&mut self, mut e: SparkEvent) -> Result<(), WriteError> {
        if self.events.len() >= self.limits.max_events as usize {
            return Err(WriteError::BadInput(format!("over {} events", self.limits.max_events)));
        }
        map::timestamp_to_tick(e.timestamp).map_err(|r| WriteError::BadInput(format!("event {:?}: {r}", e.kind)))?;
        map::position_to_model(e.position)
            .map_err(|m| WriteError::BadInput(format!("event {:?}: {} {}", e.kind, m.field, m.reason)))?;
        e.kind = crate::bytes::clean_name(&e.kind, self.limits.max_string as usize);
        self.events.push(e);
        Ok(())
    }

    /// The sink: the frames written so far are in it (the header is patched by [`Writer::finish`]).
    pub fn sink_mut(&mut self) -> &mut W {
        &mut self.sink
    }

    /// Writes the events, patches `duration` (the last frame's timestamp unless given) and
    /// `frameCount`, and returns the sink positioned at the end of the file.
    pub fn finish(mut self, duration: Option<f32>) -> Result<W, WriteError> {
        // Chronological order (stable: equal timestamps keep the order they were given in).
        self.events.sort_by(|a, b| a.timestamp.total_cmp(&b.timestamp));
        let mut out = Vec::with_capacity(4 + self.events.len() * 40);
        out.put_u32(self.events.len() as u32);
        for e in &self.events {
            out.put_f32(e.timestamp);
            out.put_str32(&e.kind);
            out.put_u32(e.source);
            out.put_u32(e.target);
            for v in e.position {
                out.put_f32(v);
            }
        }
        self.sink.write_all(&out).map_err(io)?;
        let end = self.sink.stream_position().map_err(io)?;
        let duration = duration.filter(|d| d.is_finite()).unwrap_or_else(|| self.last.map(|l| l.0).unwrap_or(0.0));
        let mut patch = Vec::with_capacity(8);
        patch.put_f32(duration);
        patch.put_u32(self.frames);
        self.sink.seek(SeekFrom::Start(self.patch_at)).map_err(io)?;
        self.sink.write_all(&patch).map_err(io)?;
        self.sink.seek(SeekFrom::Start(end)).map_err(io)?;
        self.sink.flush().map_err(io)?;
        Ok(self.sink)
    }
}
