//! [`Parts`]: a `Write + Seek` sink whose bytes a driver takes out as they come ([`Parts::take`]),
//! so that an export is handed on chunk by chunk (the export worker posts each part to the page,
//! which keeps it as a Blob part) and never held whole. A write at an offset already taken out (a
//! SparkEngine writer patching its header at the end) is kept as a patch, `(offset, bytes)`, for
//! the driver to apply to what it already has ([`Parts::take_patches`]). No I/O.

use std::io::{Seek, SeekFrom, Write};

#[derive(Debug, Default)]
pub struct Parts {
    /// The bytes from `base` on, not yet taken.
    buf: Vec<u8>,
    /// How many bytes were taken before `buf`.
    base: u64,
    pos: u64,
    patches: Vec<(u64, Vec<u8>)>,
}

impl Parts {
    pub fn new() -> Self {
        Parts::default()
    }

    /// The bytes written since the last take (at their file offset `taken()` before the call).
    pub fn take(&mut self) -> Vec<u8> {
        let b = std::mem::take(&mut self.buf);
        self.base += b.len() as u64;
        b
    }

    /// Bytes taken out so far.
    pub fn taken(&self) -> u64 {
        self.base
    }

    /// Writes that landed before `taken()`: `(offset, bytes)`, in the order written.
    pub fn take_patches(&mut self) -> Vec<(u64, Vec<u8>)> {
        std::mem::take(&mut self.patches)
    }

    fn end(&self) -> u64 {
        self.base + self.buf.len() as u64
    }
}

impl Write for Parts {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let total = data.len();
        let mut data = data;
        if self.pos < self.base {
            // `as`: the difference is at most data.len() here.
            let n = (self.base - self.pos).min(data.len() as u64) as usize;
            let (patch, rest) = data.split_at(n);
            self.patches.push((self.pos, patch.to_vec()));
            self.pos += n as u64;
            data = rest;
        }
        if !data.is_empty() {
            let at = usize::try_from(self.pos - self.base).map_err(|_| std::io::ErrorKind::InvalidInput)?;
            let over = self.buf.len().saturating_sub(at).min(data.len());
            let (head, tail) = data.split_at(over);
            if let Some(dst) = self.buf.get_mut(at..at + over) {
                dst.copy_from_slice(head);
            }
            self.buf.extend_from_slice(tail);
            self.pos += data.len() as u64;
        }
        Ok(total)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for Parts {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let p = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.end().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match p {
            Some(p) if p <= self.end() => {
                self.pos = p;
                Ok(p)
            }
            _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek outside the written bytes")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies the parts and patches as the export worker's page does, to compare with a Cursor.
    fn assemble(parts: &[(u64, Vec<u8>)], patches: &[(u64, Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (at, p) in parts {
            assert_eq!(*at, out.len() as u64);
            out.extend_from_slice(p);
        }
        for (at, p) in patches {
            let at = *at as usize;
            out[at..at + p.len()].copy_from_slice(p);
        }
        out
    }

    #[test]
    fn parts_and_patches_make_what_a_cursor_holds() {
        let mut a = Parts::new();
        let mut c = std::io::Cursor::new(Vec::new());
        let mut parts = Vec::new();
        for (i, w) in [&b"header--"[..], b"frame one", b"frame two", b"end"].iter().enumerate() {
            a.write_all(w).unwrap();
            c.write_all(w).unwrap();
            if i % 2 == 1 {
                let at = a.taken();
                parts.push((at, a.take()));
            }
        }
        // A patch across the taken part and the bytes still held, then back to the end.
        let end = a.seek(SeekFrom::End(0)).unwrap();
        a.seek(SeekFrom::Start(2)).unwrap();
        c.seek(SeekFrom::Start(2)).unwrap();
        a.write_all(b"PATCH").unwrap();
        c.write_all(b"PATCH").unwrap();
        a.seek(SeekFrom::Start(end - 2)).unwrap();
        c.seek(SeekFrom::Start(end - 2)).unwrap();
        a.write_all(b"XYZ").unwrap();
        c.write_all(b"XYZ").unwrap();
        assert!(a.seek(SeekFrom::Start(end + 10)).is_err());
        let at = a.taken();
        parts.push((at, a.take()));
        assert_eq!(assemble(&parts, &a.take_patches()), c.into_inner());
    }
}
