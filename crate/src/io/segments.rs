//! Live `.flrep` over HTTP segments (docs/live.md "Segments"), as HLS does for video: each closed
//! chunk becomes an immutable file `chunk-<seq>.flck` beside the prefix `prefix.flrep`, and
//! `manifest.json` lists them (first ticks, kills) and is replaced atomically after each one
//! (written to a temporary name, then renamed over the old), so that a reader never sees a manifest
//! naming a missing or half-written segment. At the end the manifest says `ended` and names the
//! complete file (`recording.flrep`, with its index trailer), published the same way. Any static
//! server or CDN serves the directory: nothing here runs per viewer.

use super::flrep_live::{LiveChunk, LiveSink, StreamInfo};
use crate::format::live::manifest::{FileRef, Kill, Manifest, Segment, MANIFEST_VERSION};
use crate::model::EventBody;
use std::io::Write;
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "manifest.json";
pub const PREFIX: &str = "prefix.flrep";
pub const RECORDING: &str = "recording.flrep";

/// A segment's file name.
pub fn segment_name(seq: u64) -> String {
    format!("chunk-{seq:08}.flck")
}

#[derive(Clone, Debug, Default)]
pub struct SegmentOptions {
    /// Segments listed in the manifest: the latest N (0: all, a DVR window of the whole match).
    /// Older segment files stay in the directory.
    pub window: usize,
}

pub struct SegmentWriter {
    dir: PathBuf,
    opts: SegmentOptions,
    manifest: Option<Manifest>,
    /// The complete file as it grows, under a temporary name until the end.
    whole: Option<std::io::BufWriter<std::fs::File>>,
    whole_len: u64,
    /// Manifests written (for the figures).
    pub manifests_written: u64,
}

/// Writes `bytes` to `dir/name` through a temporary file and a rename.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.flush()?;
    drop(f);
    std::fs::rename(&tmp, dir.join(name))
}

impl SegmentWriter {
    /// Publishes into `dir` (created if missing). A directory that already holds a manifest is refused:
    /// a segment's name must never be given other bytes (caches keep them for a year).
    pub fn create(dir: &Path, opts: SegmentOptions) -> std::io::Result<SegmentWriter> {
        std::fs::create_dir_all(dir)?;
        if dir.join(MANIFEST).exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} already holds a {MANIFEST}: use an empty directory per recording", dir.display()),
            ));
        }
        Ok(SegmentWriter { dir: dir.to_owned(), opts, manifest: None, whole: None, whole_len: 0, manifests_written: 0 })
    }

    fn manifest(&mut self) -> std::io::Result<&mut Manifest> {
        self.manifest.as_mut().ok_or_else(|| std::io::Error::other("the segments were not started"))
    }

    fn write_manifest(&mut self) -> std::io::Result<()> {
        let json = self.manifest()?.to_json();
        write_atomic(&self.dir, MANIFEST, json.as_bytes())?;
        self.manifests_written += 1;
        Ok(())
    }
}

impl LiveSink for SegmentWriter {
    fn start(&mut self, info: &StreamInfo) -> std::io::Result<()> {
        write_atomic(&self.dir, PREFIX, &info.prefix)?;
        let mut whole = std::io::BufWriter::new(std::fs::File::create(self.dir.join(format!(".{RECORDING}.part")))?);
        whole.write_all(&info.prefix)?;
        self.whole = Some(whole);
        self.whole_len = info.prefix.len() as u64;
        self.manifest = Some(Manifest {
            version: MANIFEST_VERSION,
            stream: format!("{:08x}", crate::format::live::stream_id(&info.prefix)),
            tick_rate_hz: info.tick_rate_hz,
            chunk_ticks: info.chunk_ticks,
            target_duration_s: info.chunk_ticks.div_ceil(info.tick_rate_hz.max(1)),
            prefix: FileRef { uri: PREFIX.into(), bytes: info.prefix.len() as u64 },
            segments: Vec::new(),
            ended: false,
            file: None,
        });
        self.write_manifest()
    }

    fn chunk(&mut self, c: &LiveChunk) -> std::io::Result<()> {
        let name = segment_name(c.seq);
        write_atomic(&self.dir, &name, &c.chunk.bytes)?;
        if let Some(w) = self.whole.as_mut() {
            w.write_all(&c.chunk.bytes)?;
        }
        self.whole_len += c.chunk.bytes.len() as u64;
        let kills = c
            .chunk
            .markers
            .iter()
            .filter_map(|e| match e.body {
                EventBody::Kill { killer, victim, weapon_type } => {
                    Some(Kill { tick: e.tick, killer, victim, weapon: weapon_type })
                }
                _ => None,
            })
            .collect();
        let window = self.opts.window;
        let m = self.manifest()?;
        m.segments.push(Segment {
            seq: c.seq,
            uri: name,
            offset: c.offset,
            bytes: c.chunk.bytes.len() as u64,
            first_tick: c.chunk.first_tick,
            last_tick: c.chunk.last_tick,
            kills,
        });
        if window > 0 && m.segments.len() > window {
            let extra = m.segments.len() - window;
            m.segments.drain(..extra);
        }
        let ticks = c.chunk.last_tick.saturating_sub(c.chunk.first_tick) + 1;
        let secs = ticks.div_ceil(u64::from(m.tick_rate_hz.max(1)));
        m.target_duration_s = m.target_duration_s.max(u32::try_from(secs).unwrap_or(u32::MAX));
        self.write_manifest()
    }

    fn end(&mut self, trailer: &[u8], _reason: &str) -> std::io::Result<()> {
        if let Some(mut w) = self.whole.take() {
            w.write_all(trailer)?;
            w.flush()?;
        }
        self.whole_len += trailer.len() as u64;
        std::fs::rename(self.dir.join(format!(".{RECORDING}.part")), self.dir.join(RECORDING))?;
        let len = self.whole_len;
        let m = self.manifest()?;
        m.ended = true;
        m.file = Some(FileRef { uri: RECORDING.into(), bytes: len });
        self.write_manifest()
    }
}
