//! A checked little-endian cursor over untrusted bytes, and the matching writer helpers.
//!
//! Every read is bounds-checked and returns [`Short`] instead of panicking; no read ever allocates
//! more than the bytes that remain. Formats wrap [`Short`] into their own errors with the field name.

/// Not enough bytes: `need` bytes were wanted at `at`, only `have` remained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    pub at: u64,
    pub need: u64,
    pub have: u64,
}

/// Why a string could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StrError {
    Short(Short),
    TooLong { at: u64, len: u64, max: u64 },
    NotUtf8 { at: u64 },
}

/// A cursor over a byte slice. `base` is the absolute offset of `buf[0]` in the file, so errors name
/// file offsets rather than slice offsets.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0, base: 0 }
    }
    pub fn at(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }
    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }
    fn short(&self, need: usize) -> Short {
        Short { at: self.offset(), need: need as u64, have: self.remaining() as u64 }
    }
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Short> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.short(n))?;
        let s = self.buf.get(self.pos..end).ok_or_else(|| self.short(n))?;
        self.pos = end;
        Ok(s)
    }
    /// Takes `n` bytes where `n` came from the file: checked against what remains before any use.
    pub fn take_u64(&mut self, n: u64) -> Result<&'a [u8], Short> {
        let n_usize =
            usize::try_from(n).map_err(|_| Short { at: self.offset(), need: n, have: self.remaining() as u64 })?;
        self.take(n_usize).map_err(|mut s| {
            s.need = n;
            s
        })
    }
    pub fn skip(&mut self, n: usize) -> Result<(), Short> {
        self.take(n).map(|_| ())
    }
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Short> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    pub fn u8(&mut self) -> Result<u8, Short> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u16(&mut self) -> Result<u16, Short> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32, Short> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn i32(&mut self) -> Result<i32, Short> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, Short> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32, Short> {
        Ok(f32::from_bits(self.u32()?))
    }
    pub fn f64(&mut self) -> Result<f64, Short> {
        Ok(f64::from_bits(self.u64()?))
    }
    /// Unsigned LEB128, at most 10 bytes; over-long or overflowing encodings are `None`.
    #[inline]
    pub fn varint(&mut self) -> Result<Option<u64>, Short> {
        // Most varints in a chunk are one or two bytes (ids' gaps, masks, residuals).
        match self.buf.get(self.pos..).unwrap_or(&[]) {
            [b, ..] if *b < 0x80 => {
                self.pos += 1;
                Ok(Some(u64::from(*b)))
            }
            [b0, b1, ..] if *b1 < 0x80 => {
                self.pos += 2;
                Ok(Some(u64::from(*b0 & 0x7f) | u64::from(*b1) << 7))
            }
            _ => self.varint_long(),
        }
    }
    fn varint_long(&mut self) -> Result<Option<u64>, Short> {
        let mut v: u64 = 0;
        for i in 0..10u32 {
            let b = self.u8()?;
            let bits = u64::from(b & 0x7f);
            if i == 9 && b > 1 {
                return Ok(None);
            }
            v |= bits << (7 * i);
            if b & 0x80 == 0 {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }
    /// A UTF-8 string with a u16 length prefix, at most `max` bytes.
    pub fn str16(&mut self, max: usize) -> Result<String, StrError> {
        let at = self.offset();
        let len = self.u16().map_err(StrError::Short)?;
        self.str_body(at, u64::from(len), max)
    }
    /// A UTF-8 string with a u32 length prefix, at most `max` bytes.
    pub fn str32(&mut self, max: usize) -> Result<String, StrError> {
        let at = self.offset();
        let len = self.u32().map_err(StrError::Short)?;
        self.str_body(at, u64::from(len), max)
    }
    fn str_body(&mut self, at: u64, len: u64, max: usize) -> Result<String, StrError> {
        if len > max as u64 {
            return Err(StrError::TooLong { at, len, max: max as u64 });
        }
        let bytes = self.take_u64(len).map_err(StrError::Short)?;
        std::str::from_utf8(bytes).map(str::to_owned).map_err(|_| StrError::NotUtf8 { at })
    }
}

/// Zigzag-encodes a signed value for LEB128.
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Little-endian writer helpers over a `Vec<u8>`.
pub trait PutLe {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32);
    fn put_u64(&mut self, v: u64);
    fn put_f32(&mut self, v: f32);
    fn put_f64(&mut self, v: f64);
    fn put_varint(&mut self, v: u64);
    fn put_svarint(&mut self, v: i64);
    /// u16 length + UTF-8 bytes; the caller guarantees `s.len() <= u16::MAX` (writers truncate first).
    fn put_str16(&mut self, s: &str);
    fn put_str32(&mut self, s: &str);
}

impl PutLe for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.put_u32(v.to_bits());
    }
    fn put_f64(&mut self, v: f64) {
        self.put_u64(v.to_bits());
    }
    fn put_varint(&mut self, mut v: u64) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.push(b);
                return;
            }
            self.push(b | 0x80);
        }
    }
    fn put_svarint(&mut self, v: i64) {
        self.put_varint(zigzag(v));
    }
    fn put_str16(&mut self, s: &str) {
        let s = truncate_utf8(s, usize::from(u16::MAX));
        self.put_u16(s.len() as u16);
        self.extend_from_slice(s.as_bytes());
    }
    fn put_str32(&mut self, s: &str) {
        self.put_u32(s.len() as u32);
        self.extend_from_slice(s.as_bytes());
    }
}

/// The longest prefix of `s` that is at most `max` bytes and ends on a char boundary.
pub fn truncate_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// Why a name from a file is refused (see [`check_name`]).
pub fn name_problem(s: &str) -> Option<&'static str> {
    for c in s.chars() {
        if c == '\0' {
            return Some("contains NUL");
        }
        if c.is_control() {
            return Some("contains a control character");
        }
        if is_bidi_control(c) {
            return Some("contains a bidirectional-override character");
        }
    }
    None
}

/// Bidirectional formatting characters that can make displayed text lie about its content.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// What a writer stores for a name: at most `max` bytes, with the characters readers refuse in names
/// (see [`name_problem`]) replaced by U+FFFD, so a writer never produces a file its reader refuses.
pub fn clean_name(s: &str, max: usize) -> String {
    let cleaned: String =
        s.chars().map(|c| if c.is_control() || is_bidi_control(c) { '\u{FFFD}' } else { c }).collect();
    truncate_utf8(&cleaned, max).to_owned()
}

/// Free text (chat, admin detail): keeps it, replacing NUL, control characters other than tab and
/// bidi controls with U+FFFD so it cannot reorder or hide what the reader sees.
pub fn sanitize_text(s: String) -> String {
    if !s.chars().any(|c| (c.is_control() && c != '\t') || is_bidi_control(c)) {
        return s;
    }
    s.chars().map(|c| if (c.is_control() && c != '\t') || is_bidi_control(c) { '\u{FFFD}' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn short_reads_report_where() {
        let mut c = Cursor::at(&[1, 2, 3], 100);
        assert_eq!(c.u16().unwrap(), 0x0201);
        assert_eq!(c.u32(), Err(Short { at: 102, need: 4, have: 1 }));
        assert_eq!(c.take_u64(u64::MAX).unwrap_err().need, u64::MAX);
    }

    #[test]
    fn overlong_varint_is_rejected() {
        let bytes = [0xffu8; 11];
        assert_eq!(Cursor::new(&bytes).varint(), Ok(None));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(Cursor::new(&max).varint(), Ok(Some(u64::MAX)));
    }

    #[test]
    fn short_varints_take_their_bytes() {
        // The one- and two-byte fast paths: boundaries, what follows is left, a cut is `Short`.
        for v in [0u64, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152] {
            let mut b = Vec::new();
            b.put_varint(v);
            b.push(0x2a);
            let mut c = Cursor::at(&b, 10);
            assert_eq!(c.varint(), Ok(Some(v)), "{v}");
            assert_eq!(c.u8(), Ok(0x2a), "{v}");
            let cut = b.len() - 2;
            assert_eq!(Cursor::at(&b[..cut], 10).varint(), Err(Short { at: 10 + cut as u64, need: 1, have: 0 }), "{v}");
        }
        // A two-byte form of a one-byte value is read as the value (as any reader of LEB128 does).
        assert_eq!(Cursor::new(&[0x81, 0x00]).varint(), Ok(Some(1)));
    }

    #[test]
    fn strings_checked() {
        let mut v = Vec::new();
        v.put_str16("héllo");
        assert_eq!(Cursor::new(&v).str16(64).unwrap(), "héllo");
        assert!(matches!(Cursor::new(&v).str16(3), Err(StrError::TooLong { len: 6, .. })));
        let bad = [2u8, 0, 0xff, 0xfe];
        assert!(matches!(Cursor::new(&bad).str16(64), Err(StrError::NotUtf8 { .. })));
        assert_eq!(truncate_utf8("héllo", 2), "h");
    }

    proptest! {
        #[test]
        fn varint_round_trip(v in any::<u64>(), s in any::<i64>()) {
            let mut b = Vec::new();
            b.put_varint(v);
            b.put_svarint(s);
            let mut c = Cursor::new(&b);
            prop_assert_eq!(c.varint().unwrap(), Some(v));
            prop_assert_eq!(c.varint().unwrap().map(unzigzag), Some(s));
            prop_assert!(c.is_empty());
        }
    }
}
