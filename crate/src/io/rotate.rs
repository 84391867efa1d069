//! Files and rotation for the `.flrep` writer: a new file at a chunk boundary once the current one
//! would pass `max_file_mb`, and at most `max_files` files of a series kept on disk.

use crate::format::flrep::header::{Header, Sections};
use crate::format::flrep::writer::{ChunkEncoder, EncodedChunk, FileAssembler, WriteError, WriterOptions};
use crate::model::{EntityState, Event};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct RotationOptions {
    /// Start a new file before one would pass this many MiB (default 256).
    pub max_file_mb: u64,
    /// Keep at most this many files of the series; the oldest are deleted (default 20).
    pub max_files: u32,
}

impl Default for RotationOptions {
    fn default() -> Self {
        RotationOptions { max_file_mb: 256, max_files: 20 }
    }
}

/// Writes a recording to `path`, rotating to `stem.001.flrep`, `stem.002.flrep`, … next to it.
pub struct RotatingWriter {
    base: PathBuf,
    header: Header,
    sections: Sections,
    rot: RotationOptions,
    enc: ChunkEncoder,
    cur: Option<(BufWriter<File>, FileAssembler)>,
    written: Vec<PathBuf>,
}

fn io(e: std::io::Error) -> WriteError {
    WriteError::Io(e.to_string())
}

impl RotatingWriter {
    pub fn create(
        path: &Path,
        header: &Header,
        sections: &Sections,
        opts: WriterOptions,
        rot: RotationOptions,
    ) -> Result<Self, WriteError> {
        if rot.max_files == 0 || rot.max_file_mb == 0 {
            return Err(WriteError::BadOption("max_files and max_file_mb must be at least 1".into()));
        }
        let mut header = header.clone();
        header.keyframe_interval_ticks = opts.keyframe_interval_ticks;
        let enc = ChunkEncoder::new(opts)?;
        Ok(RotatingWriter {
            base: path.to_path_buf(),
            header,
            sections: sections.clone(),
            rot,
            enc,
            cur: None,
            written: Vec::new(),
        })
    }

    /// The path of the `n`th file of the series (0 = the path given).
    pub fn nth_path(&self, n: usize) -> PathBuf {
        if n == 0 {
            return self.base.clone();
        }
        let stem = self.base.file_stem().map(|s| s.to_os_string()).unwrap_or_default();
        let mut name = stem;
        name.push(format!(".{n:03}"));
        if let Some(ext) = self.base.extension() {
            name.push(".");
            name.push(ext);
        }
        self.base.with_file_name(name)
    }

    pub fn tick(&mut self, tick: u64, states: &[EntityState], events: &[Event]) -> Result<(), WriteError> {
        if let Some(c) = self.enc.push_tick(tick, states, events)? {
            self.place(c)?;
        }
        Ok(())
    }

    fn place(&mut self, c: EncodedChunk) -> Result<(), WriteError> {
        let limit = self.rot.max_file_mb.saturating_mul(1024 * 1024);
        let rotate = match &self.cur {
            Some((_, asm)) => !asm.is_empty() && asm.len() + c.bytes.len() as u64 + 64 * 1024 > limit,
            None => true,
        };
        if rotate {
            self.close_current()?;
            let path = self.nth_path(self.written.len());
            let mut w = BufWriter::new(File::create(&path).map_err(io)?);
            let (asm, prefix) = FileAssembler::new(&self.header, &self.sections);
            w.write_all(&prefix).map_err(io)?;
            self.cur = Some((w, asm));
            self.written.push(path);
            self.prune()?;
        }
        if let Some((w, asm)) = &mut self.cur {
            asm.add(&c);
            w.write_all(&c.bytes).map_err(io)?;
        }
        Ok(())
    }

    fn close_current(&mut self) -> Result<(), WriteError> {
        if let Some((mut w, asm)) = self.cur.take() {
            w.write_all(&asm.finish()).map_err(io)?;
            w.flush().map_err(io)?;
        }
        Ok(())
    }

    fn prune(&mut self) -> Result<(), WriteError> {
        let keep = self.rot.max_files as usize;
        if self.written.len() > keep {
            let n = self.written.len() - keep;
            for p in self.written.iter().take(n) {
                if p.exists() {
                    std::fs::remove_file(p).map_err(io)?;
                }
            }
        }
        Ok(())
    }

    /// Flushes the last chunk, writes the trailer; returns the files of the series still on disk.
    pub fn finish(mut self) -> Result<Vec<PathBuf>, WriteError> {
        if let Some(c) = self.enc.flush() {
            self.place(c)?;
        }
        self.close_current()?;
        let keep = self.rot.max_files as usize;
        let skip = self.written.len().saturating_sub(keep);
        Ok(self.written.into_iter().skip(skip).collect())
    }
}
