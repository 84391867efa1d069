//! `ExportSession`: an ACMI export or a replay clip of a tick range, in the export worker
//! (www/export-worker.ts; feature `decoder-export`, the `decoder_export` wasm that the page fetches
//! on the first Export only). A thin wasm-bindgen wrapper around the same sans-IO code the CLI
//! drives (`replay export --acmi`, `replay clip`: `crate::io::export`): the [`AcmiWriter`] and
//! the [`Clip`] writers over a [`Parts`] sink, fed the range's chunks in order. So the bytes are
//! the CLI's, and the file's text is escaped by the same `export::escape`.
//!
//! The worker opens the file as the decoder worker does (`want` / `feed`), calls `begin(kind,
//! from, to)` for the chunks to read (then, in a helper writing the later part of an ACMI export,
//! `writeFrom(k)`), hands each chunk's bytes to `chunk(i, bytes)` and posts the
//! bytes it returns (the output so far, taken out: the wasm never holds the whole output), then
//! `finish()` for the rest and `patches()` (a SparkEngine clip's header, patched at the end).
//! Shapes: docs/worker-protocol.md "The export worker".

use wasm_bindgen::prelude::*;

use super::super::js_error;
use super::{usize_of, DecoderSession};
use crate::export::acmi::{AcmiWriter, Take};
use crate::export::parts::Parts;
use crate::export::{Span, TimeSpec};
use crate::format::clip::Clip;

enum Job {
    Acmi(Box<AcmiWriter<Parts>>),
    Clip(Box<Clip<Parts>>),
}

/// A recording being exported.
#[wasm_bindgen]
pub struct ExportSession {
    open: DecoderSession,
    job: Option<Job>,
    span: Option<Span>,
    /// The chunks `begin` asked for; `chunk` must be handed them in this order.
    next: usize,
    end: usize,
    patches: Vec<(u64, Vec<u8>)>,
    /// The first chunk this session writes (`writeFrom`); 0: all of them.
    write_from: usize,
    /// The CRC-32 of the ACMI text returned so far, and its length, once asked for
    /// (`keepTextCrc`: a `.zip.acmi` entry's, written in JS; not made for the text alone, where
    /// it cost 5 % of the export).
    crc: Option<crc32fast::Hasher>,
    text_len: u64,
}

/// `a` then `b` in a new `Uint8Array`.
fn concat(a: &[u8], b: &[u8]) -> js_sys::Uint8Array {
    let out = js_sys::Uint8Array::new_with_length((a.len() + b.len()) as u32);
    out.subarray(0, a.len() as u32).copy_from(a);
    out.subarray(a.len() as u32, (a.len() + b.len()) as u32).copy_from(b);
    out
}

/// A time in seconds from the recording's start (as share links and the player count it), or
/// none for `null` / `undefined` / NaN.
fn time_of(v: Option<f64>) -> Option<TimeSpec> {
    v.filter(|s| s.is_finite()).map(|s| TimeSpec::Seconds(s.max(0.0)))
}

#[wasm_bindgen]
impl ExportSession {
    /// `new ExportSession(fileLength)`: starts opening a file of `fileLength` bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(file_length: f64) -> Result<ExportSession, JsValue> {
        Ok(ExportSession {
            open: DecoderSession::new(file_length)?,
            job: None,
            span: None,
            next: 0,
            end: 0,
            patches: Vec::new(),
            write_from: 0,
            crc: None,
            text_len: 0,
        })
    }

    /// The byte range the open needs next (`Float64Array [offset, len]`), or `undefined` once open.
    pub fn want(&self) -> Option<Vec<f64>> {
        self.open.want()
    }

    /// Hands over the bytes of `want()`'s range. Throws the reader's error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.open.feed(bytes)
    }

    /// `begin(kind, from, to)`: `kind` `'acmi'` (ACMI 2.2 text) or `'clip'` (the recording's own
    /// format), `from` / `to` seconds from the start (inclusive; `null`: the recording's ends),
    /// read as `replay export --from / --to` read them. Returns `Float64Array [firstChunk,
    /// endChunk, fromTick, toTick]`: hand chunks `firstChunk..endChunk` to `chunk()` in order.
    pub fn begin(&mut self, kind: &str, from: Option<f64>, to: Option<f64>) -> Result<Vec<f64>, JsValue> {
        if self.job.is_some() {
            return Err(js_error("begin() called twice"));
        }
        let s = &self.open.session;
        let info = s.info().ok_or_else(|| js_error("the replay is not open yet"))?;
        let span = Span::of(&info, time_of(from), time_of(to)).map_err(js_error)?;
        self.job = Some(match kind {
            "acmi" => {
                let mut w = AcmiWriter::new(Parts::new(), &info).map_err(js_error)?;
                w.hold_output();
                Job::Acmi(Box::new(w))
            }
            "clip" => {
                Job::Clip(Box::new(Clip::same_format(&info, Parts::new(), span.from, span.to).map_err(js_error)?))
            }
            other => return Err(js_error(format!("unknown export kind {other:?} (acmi or clip)"))),
        });
        let n = s.chunk_count();
        (self.next, self.end) = if n == 0 {
            (0, 0)
        } else {
            (s.chunk_for_tick(span.from), s.chunk_for_tick(span.to).saturating_add(1).min(n))
        };
        self.span = Some(span);
        Ok(vec![self.next as f64, self.end as f64, span.from as f64, span.to as f64])
    }

    /// `writeFrom(k)`, after `begin('acmi', …)`: this session writes the export from chunk `k` on
    /// (`begin`'s `firstChunk < k < endChunk`), another the chunks before. They are still handed
    /// over, in order, and return nothing: chunk `k - 1` is followed as writing it would, the ones
    /// before only for what outlives a chunk (`Take`, docs/export.md "Two writers, one export"). Nor is the
    /// header returned. The two outputs, one after the other, are the export's bytes.
    #[wasm_bindgen(js_name = writeFrom)]
    pub fn write_from(&mut self, k: f64) -> Result<(), JsValue> {
        let k = usize_of(k, "chunk index")?;
        let Some(Job::Acmi(w)) = self.job.as_mut() else {
            return Err(js_error("writeFrom() needs begin('acmi', …) first"));
        };
        if k <= self.next || k >= self.end {
            return Err(js_error(format!(
                "writeFrom({k}): the export's chunks are {}..{}; another session must write some",
                self.next, self.end
            )));
        }
        self.write_from = k;
        // The header, written by `begin`: the other session's.
        w.drain(|parts, _| drop(parts.take()));
        Ok(())
    }

    /// `Float64Array [offset, len]` of chunk `i` in the file.
    #[wasm_bindgen(js_name = chunkRange)]
    pub fn chunk_range(&self, i: f64) -> Result<Vec<f64>, JsValue> {
        self.open.chunk_range(i)
    }

    /// Decodes chunk `i` (the next of `begin`'s) from its bytes, writes its ticks in the range and
    /// returns the output written so far that was not returned before (a `Uint8Array`, maybe empty).
    pub fn chunk(&mut self, i: f64, bytes: &[u8]) -> Result<js_sys::Uint8Array, JsValue> {
        let idx = usize_of(i, "chunk index")?;
        if idx != self.next || idx >= self.end {
            return Err(js_error(format!(
                "chunk {idx} handed over; the export needs chunk {} next (of {}..{})",
                self.next, self.next, self.end
            )));
        }
        let span = self.span.ok_or_else(|| js_error("begin() was not called"))?;
        let c = self.open.session.decode_chunk(idx, bytes).map_err(js_error)?;
        self.next += 1;
        match self.job.as_mut() {
            Some(Job::Acmi(w)) => {
                let take = match self.write_from.checked_sub(idx) {
                    Some(2..) => Take::Skim,
                    Some(1) => Take::Quiet,
                    _ => Take::Write,
                };
                w.chunk(&c, span, take).map_err(js_error)?;
                // Copied once, straight from the writer's buffer into JS memory.
                let (crc, len) = (&mut self.crc, &mut self.text_len);
                Ok(w.drain(|parts, text| {
                    let head = parts.take();
                    if let Some(crc) = crc {
                        crc.update(&head);
                        crc.update(text);
                    }
                    *len += (head.len() + text.len()) as u64;
                    concat(&head, text)
                }))
            }
            Some(Job::Clip(w)) => {
                w.chunk(&c).map_err(js_error)?;
                Ok(concat(&w.sink_mut().map(Parts::take).unwrap_or_default(), &[]))
            }
            None => Err(js_error("begin() was not called")),
        }
    }

    /// Ends the export after the last chunk: returns the rest of the output. Then `patches()`.
    pub fn finish(&mut self) -> Result<Vec<u8>, JsValue> {
        if self.next < self.end {
            return Err(js_error(format!("finish() before chunks {}..{} were handed over", self.next, self.end)));
        }
        let mut parts = match self.job.take() {
            Some(Job::Acmi(w)) => w.finish().map_err(js_error)?.0,
            Some(Job::Clip(w)) => w.finish().map_err(js_error)?.0,
            None => return Err(js_error("begin() was not called")),
        };
        self.patches = parts.take_patches();
        let rest = parts.take();
        if let Some(crc) = &mut self.crc {
            crc.update(&rest);
        }
        self.text_len += rest.len() as u64;
        Ok(rest)
    }

    /// `keepTextCrc()`, before the first `chunk()`: the session keeps the CRC-32 of the ACMI text
    /// it returns, for `textCrc()` (a zipped export's entry).
    #[wasm_bindgen(js_name = keepTextCrc)]
    pub fn keep_text_crc(&mut self) -> Result<(), JsValue> {
        if self.text_len > 0 {
            return Err(js_error("keepTextCrc() after text was returned"));
        }
        self.crc.get_or_insert_with(crc32fast::Hasher::new);
        Ok(())
    }

    /// `Float64Array [crc, length]`: the CRC-32 (as a zip entry's) and the length of the ACMI
    /// text `chunk()` and `finish()` returned (a helper's: its part, with no header), after
    /// `keepTextCrc()`. For a zipped export written by two workers, whose entry's CRC is
    /// `crc32Combine` of the two.
    #[wasm_bindgen(js_name = textCrc)]
    pub fn text_crc(&self) -> Result<Vec<f64>, JsValue> {
        let crc = self.crc.as_ref().ok_or_else(|| js_error("textCrc() needs keepTextCrc() first"))?;
        Ok(vec![f64::from(crc.clone().finalize()), self.text_len as f64])
    }

    /// After `finish()`: `[[offset, Uint8Array]]`, bytes to write over what was returned before,
    /// in order (a SparkEngine clip's duration and frame count; none for ACMI or `.flrep`).
    pub fn patches(&mut self) -> js_sys::Array {
        let out = js_sys::Array::new();
        for (at, bytes) in std::mem::take(&mut self.patches) {
            out.push(&js_sys::Array::of2(&(at as f64).into(), &js_sys::Uint8Array::from(bytes.as_slice()).into()));
        }
        out
    }

    /// The recording's format: `'flrep'`, `'spark'` or `'foldback'` (for the clip's file name).
    pub fn format(&self) -> Result<String, JsValue> {
        let info = self.open.session.info().ok_or_else(|| js_error("the replay is not open yet"))?;
        Ok(match info.format {
            crate::model::FormatKind::Flrep => "flrep",
            crate::model::FormatKind::SparkReplay => "spark",
            crate::model::FormatKind::Foldback => "foldback",
        }
        .into())
    }
}

/// `crc32Combine(a, b, lengthB)`: the CRC-32 of bytes whose first part has CRC `a` and whose
/// second part, `lengthB` bytes long, has CRC `b` (zlib's `crc32_combine`).
#[wasm_bindgen(js_name = crc32Combine)]
pub fn crc32_combine(a: u32, b: u32, length_b: f64) -> Result<u32, JsValue> {
    if !(length_b.is_finite() && length_b >= 0.0 && length_b.fract() == 0.0 && length_b <= 9.0e15) {
        return Err(js_error(format!("length must be a non-negative integer, got {length_b}")));
    }
    let len = length_b as u64;
    let mut h = crc32fast::Hasher::new_with_initial(a);
    h.combine(&crc32fast::Hasher::new_with_initial_len(b, len));
    Ok(h.finalize())
}
