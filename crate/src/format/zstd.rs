//! The only file that names ruzstd (its module paths move between releases; pin and keep it here).
//!
//! Decompression is bounded twice: the frame's window is capped ([`MAX_WINDOW`]) before the decoder
//! allocates it, and the output is decoded into a buffer whose length is the caller's cap, so a small
//! frame that would expand to gigabytes fails with "output larger than declared" instead of growing.
//!
//! The input is exactly one zstd frame (docs/format/flrep.md §6.2, docs/format/foldback.md §3.1): a
//! skippable frame, a second frame or any byte after the frame is refused ([`ZstdError::NotOneFrame`]).
//!
//! A frame that carries a content checksum (Content_Checksum_flag) is verified: the low 32 bits of
//! XXH64 (seed 0) of the decoded bytes must equal the 4 bytes after the last block, else
//! [`ZstdError::Checksum`] (flrep.md §6.2: every conforming reader verifies it when present). ruzstd
//! reads those 4 bytes; it computes XXH64 only with its `hash` feature, which also makes its encoder
//! write checksums, so the hash is `twox-hash`'s, the crate ruzstd itself uses.

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use ruzstd::encoding::{compress_to_vec, CompressionLevel};
use ruzstd::io::Read;

/// Largest zstd window accepted (windowLog 23). Writers keep windowLog ≤ 23.
pub const MAX_WINDOW: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ZstdError {
    /// The frame decoded to more than `cap` bytes.
    TooLarge {
        cap: usize,
    },
    /// The frame's window exceeds [`MAX_WINDOW`].
    Window(String),
    /// The bytes are not exactly one zstd frame: a skippable frame, or bytes after the frame.
    NotOneFrame(String),
    /// The frame's content checksum is not that of the bytes it decoded to.
    Checksum {
        stored: u32,
        computed: u32,
    },
    Corrupt(String),
}

impl std::fmt::Display for ZstdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZstdError::TooLarge { cap } => write!(f, "zstd frame decompresses to more than the declared {cap} bytes"),
            ZstdError::Window(m) => write!(f, "zstd window too large (cap {} MiB): {m}", MAX_WINDOW >> 20),
            ZstdError::NotOneFrame(m) => write!(f, "not exactly one zstd frame: {m}"),
            ZstdError::Checksum { stored, computed } => {
                write!(f, "zstd content checksum mismatch (stored {stored:08x}, computed {computed:08x})")
            }
            ZstdError::Corrupt(m) => write!(f, "corrupt zstd data: {m}"),
        }
    }
}

/// One decoder, reused for every chunk (its window buffer is allocated once).
pub struct Decompressor {
    dec: FrameDecoder,
    out: Vec<u8>,
}

impl Default for Decompressor {
    fn default() -> Self {
        Self::new()
    }
}

impl Decompressor {
    pub fn new() -> Self {
        let mut dec = FrameDecoder::new();
        dec.set_max_window_size(MAX_WINDOW);
        Decompressor { dec, out: Vec::new() }
    }

    /// Decompresses `frame`, which must be exactly one zstd frame, into an internal buffer of
    /// `expected` bytes (already checked against the caller's cap). Returns the decoded bytes; fewer
    /// or more than `expected` is an error reported by the caller through the returned length (more
    /// is [`ZstdError::TooLarge`]).
    pub fn decompress(&mut self, frame: &[u8], expected: usize) -> Result<&[u8], ZstdError> {
        // One spare byte lets us tell "exactly expected" from "more than expected".
        let want = expected.saturating_add(1);
        if self.out.len() < want {
            self.out.resize(want, 0);
        }
        let out = self.out.get_mut(..want).ok_or(ZstdError::TooLarge { cap: expected })?;
        let n = one_frame(&mut self.dec, frame, out).map_err(|e| match e {
            FrameError::Decoder(FrameDecoderError::TargetTooSmall) => ZstdError::TooLarge { cap: expected },
            FrameError::Decoder(e) => {
                let msg = e.to_string();
                if msg.contains("indow") {
                    ZstdError::Window(msg)
                } else {
                    ZstdError::Corrupt(msg)
                }
            }
            FrameError::NotOne(m) => ZstdError::NotOneFrame(m),
        })?;
        if n > expected {
            return Err(ZstdError::TooLarge { cap: expected });
        }
        let out = self.out.get(..n).unwrap_or(&[]);
        if let Some(stored) = self.dec.get_checksum_from_data() {
            // XXH64's low 32 bits (RFC 8878 §3.1.1): checked after the output bound and the one-frame
            // rule, before the caller's length and CRC checks.
            let computed = twox_hash::XxHash64::oneshot(0, out) as u32;
            if computed != stored {
                return Err(ZstdError::Checksum { stored, computed });
            }
        }
        Ok(out)
    }

    /// The first `len` bytes of the last frame decompressed (empty when it was shorter): valid until
    /// the next [`decompress`](Self::decompress) or [`shrink`](Self::shrink).
    pub fn output(&self, len: usize) -> &[u8] {
        self.out.get(..len).unwrap_or(&[])
    }

    /// Releases the output buffer when it grew past `keep` bytes (after an unusually large chunk).
    pub fn shrink(&mut self, keep: usize) {
        if self.out.len() > keep {
            self.out = Vec::new();
        }
    }
}

enum FrameError {
    Decoder(FrameDecoderError),
    NotOne(String),
}

impl From<FrameDecoderError> for FrameError {
    fn from(e: FrameDecoderError) -> Self {
        FrameError::Decoder(e)
    }
}

/// Decodes the one frame `input` holds into `out` (ruzstd's `decode_all` for a single frame: it would
/// skip skippable frames and go on into further frames). Returns the bytes written.
fn one_frame(dec: &mut FrameDecoder, input: &[u8], mut out: &mut [u8]) -> Result<usize, FrameError> {
    let mut src = input;
    match dec.init(&mut src) {
        Ok(()) => {}
        Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { magic_number, length })) => {
            return Err(FrameError::NotOne(format!(
                "a skippable frame (magic 0x{magic_number:08X}, {length} bytes) where the frame should start"
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let mut written = 0;
    loop {
        dec.decode_blocks(&mut src, BlockDecodingStrategy::UptoBytes(1024 * 1024))?;
        let n = dec.read(out).map_err(FrameDecoderError::FailedToDrainDecodebuffer)?;
        out = out.get_mut(n..).unwrap_or(&mut []);
        written += n;
        if dec.can_collect() != 0 {
            return Err(FrameDecoderError::TargetTooSmall.into());
        }
        if dec.is_finished() {
            break;
        }
    }
    if !src.is_empty() {
        return Err(FrameError::NotOne(format!("{} bytes after the end of the frame", src.len())));
    }
    Ok(written)
}

/// Compresses one frame (deterministic: same input, same bytes). ruzstd's `Fastest` level keeps
/// the window well under [`MAX_WINDOW`].
pub fn compress(data: &[u8]) -> Vec<u8> {
    compress_to_vec(data, CompressionLevel::Fastest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_caps() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let z = compress(&data);
        let mut d = Decompressor::new();
        assert_eq!(d.decompress(&z, data.len()).unwrap(), &data[..]);
        assert_eq!(d.decompress(&z, 1000), Err(ZstdError::TooLarge { cap: 1000 }));
        assert!(matches!(d.decompress(&[1, 2, 3, 4, 5], 10), Err(ZstdError::Corrupt(_))));
    }

    #[test]
    fn exactly_one_frame() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let (a, b) = (compress(&data[..2500]), compress(&data[2500..]));
        let mut d = Decompressor::new();
        assert_eq!(d.decompress(&a, 2500).unwrap(), &data[..2500]);
        // Two frames that together hold the payload: refused, not concatenated.
        let two = [a.as_slice(), b.as_slice()].concat();
        assert_eq!(
            d.decompress(&two, data.len()),
            Err(ZstdError::NotOneFrame(format!("{} bytes after the end of the frame", b.len())))
        );
        // A skippable frame (magic 0x184D2A50, 4 bytes) in front of the real one: refused.
        let skip = [&[0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 1, 2, 3, 4][..], a.as_slice()].concat();
        assert!(matches!(d.decompress(&skip, 2500), Err(ZstdError::NotOneFrame(m)) if m.contains("skippable")));
        // Stray bytes after the frame, and a frame cut short.
        assert!(matches!(d.decompress(&[a.as_slice(), &[0]].concat(), 2500), Err(ZstdError::NotOneFrame(_))));
        assert!(matches!(d.decompress(&a[..a.len() - 1], 2500), Err(ZstdError::Corrupt(_))));
        // The decoder is fine for the next frame after each refusal.
        assert_eq!(d.decompress(&b, 2500).unwrap(), &data[2500..]);
    }

    /// A frame with Content_Checksum_flag: C libzstd writes it (`zstd` is a dev-dependency).
    #[test]
    fn content_checksum_verified_when_present() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i % 13) as u8).collect();
        let mut enc = zstd::bulk::Compressor::new(3).unwrap();
        enc.include_checksum(true).unwrap();
        let good = enc.compress(&data).unwrap();
        assert_ne!(good[4] & 0x04, 0, "the frame carries a checksum");
        let mut d = Decompressor::new();
        assert_eq!(d.decompress(&good, data.len()).unwrap(), &data[..]);
        // The stored checksum flipped: refused with both numbers.
        let mut bad = good.clone();
        let at = bad.len() - 4;
        bad[at] ^= 0xFF;
        let stored = u32::from_le_bytes(bad[at..].try_into().unwrap());
        let computed = stored ^ 0xFF;
        assert_eq!(d.decompress(&bad, data.len()), Err(ZstdError::Checksum { stored, computed }));
        assert_eq!(
            ZstdError::Checksum { stored, computed }.to_string(),
            format!("zstd content checksum mismatch (stored {stored:08x}, computed {computed:08x})")
        );
        // Over the bound is reported first (the frame is not decoded to its end).
        assert_eq!(d.decompress(&bad, 1000), Err(ZstdError::TooLarge { cap: 1000 }));
        // The checksum cut off: a frame cut short, not a checksum error.
        assert!(matches!(d.decompress(&good[..at], data.len()), Err(ZstdError::Corrupt(_))));
        // A frame without a checksum (this crate's writer) is not checked, and the next one is.
        assert_eq!(d.decompress(&compress(&data), data.len()).unwrap(), &data[..]);
        assert!(matches!(d.decompress(&bad, data.len()), Err(ZstdError::Checksum { .. })));
    }

    #[test]
    fn big_window_refused() {
        // A frame header declaring a 1 GiB window (Window_Descriptor exponent 30-10=20 → 0xA0).
        let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA0, 0x01, 0x00, 0x00];
        let mut d = Decompressor::new();
        assert!(matches!(d.decompress(&frame, 10), Err(ZstdError::Window(_))), "{:?}", d.decompress(&frame, 10));
    }
}
