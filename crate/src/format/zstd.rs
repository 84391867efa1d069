//! The only file that names ruzstd (its module paths move between releases; pin and keep it here).
//!
//! Decompression is bounded twice: the frame's window is capped ([`MAX_WINDOW`]) before the decoder
//! allocates it, and the output is decoded into a buffer whose length is the caller's cap, so a small
//! frame that would expand to gigabytes fails with "output larger than declared" instead of growing.

use ruzstd::decoding::FrameDecoder;
use ruzstd::encoding::{compress_to_vec, CompressionLevel};

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
    Corrupt(String),
}

impl std::fmt::Display for ZstdError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZstdError::TooLarge { cap } => write!(f, "zstd frame decompresses to more than the declared {cap} bytes"),
            ZstdError::Window(m) => write!(f, "zstd window too large (cap {} MiB): {m}", MAX_WINDOW >> 20),
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

    /// Decompresses exactly one frame into an internal buffer of `expected` bytes (already checked
    /// against the caller's cap). Returns the decoded bytes; fewer or more than `expected` is an error
    /// reported by the caller through the returned length (more is [`ZstdError::TooLarge`]).
    pub fn decompress(&mut self, frame: &[u8], expected: usize) -> Result<&[u8], ZstdError> {
        // One spare byte lets us tell "exactly expected" from "more than expected".
        let want = expected.saturating_add(1);
        if self.out.len() < want {
            self.out.resize(want, 0);
        }
        let out = self.out.get_mut(..want).ok_or(ZstdError::TooLarge { cap: expected })?;
        match self.dec.decode_all(frame, out) {
            Ok(n) if n > expected => Err(ZstdError::TooLarge { cap: expected }),
            Ok(n) => Ok(self.out.get(..n).unwrap_or(&[])),
            Err(e) => {
                let msg = e.to_string();
                if matches!(e, ruzstd::decoding::errors::FrameDecoderError::TargetTooSmall) {
                    Err(ZstdError::TooLarge { cap: expected })
                } else if msg.contains("indow") {
                    Err(ZstdError::Window(msg))
                } else {
                    Err(ZstdError::Corrupt(msg))
                }
            }
        }
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
    fn big_window_refused() {
        // A frame header declaring a 1 GiB window (Window_Descriptor exponent 30-10=20 → 0xA0).
        let frame = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0xA0, 0x01, 0x00, 0x00];
        let mut d = Decompressor::new();
        assert!(matches!(d.decompress(&frame, 10), Err(ZstdError::Window(_))), "{:?}", d.decompress(&frame, 10));
    }
}
