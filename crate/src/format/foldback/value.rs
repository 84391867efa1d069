//! Decoded views of a Level-3 value: the format stores opaque bytes; the diff view shows them as
//! hex and as every little-endian number whose width matches the length, and as text when they are
//! valid UTF-8 without control characters.

/// Most value bytes shown as hex (the length is always exact).
pub const MAX_HEX_BYTES: usize = 1024;

/// Views of one value. 64-bit integers and floats are strings (exact in JSON/JS; floats in Rust's
/// shortest round-trip form, `NaN`/`inf` included); 32-bit integers are numbers.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct ValueView {
    pub len: usize,
    /// Lowercase hex of the first [`MAX_HEX_BYTES`] bytes.
    pub hex: String,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "std::ops::Not::not"))]
    pub hex_truncated: bool,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub utf8: Option<String>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub i32: Option<i32>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub u32: Option<u32>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub f32: Option<String>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub i64: Option<String>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub u64: Option<String>,
    #[cfg_attr(feature = "json", serde(skip_serializing_if = "Option::is_none"))]
    pub f64: Option<String>,
}

impl ValueView {
    pub fn of(v: &[u8]) -> Self {
        let shown = v.get(..MAX_HEX_BYTES).unwrap_or(v);
        let mut out = ValueView {
            len: v.len(),
            hex: super::hex(shown),
            hex_truncated: shown.len() < v.len(),
            ..Default::default()
        };
        if let Ok(a) = <[u8; 4]>::try_from(v) {
            out.i32 = Some(i32::from_le_bytes(a));
            out.u32 = Some(u32::from_le_bytes(a));
            out.f32 = Some(format!("{}", f32::from_le_bytes(a)));
        }
        if let Ok(a) = <[u8; 8]>::try_from(v) {
            out.i64 = Some(i64::from_le_bytes(a).to_string());
            out.u64 = Some(u64::from_le_bytes(a).to_string());
            out.f64 = Some(format!("{}", f64::from_le_bytes(a)));
        }
        if let Ok(s) = std::str::from_utf8(v) {
            if !s.chars().any(|c| (c.is_control() && c != '\t' && c != '\n') || crate::bytes::is_bidi_control(c)) {
                out.utf8 = Some(s.to_owned());
            }
        }
        out
    }

    /// One line for a terminal: every view that applies.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = &self.utf8 {
            parts.push(format!("utf8 {s:?}"));
        }
        if let Some(x) = &self.f32 {
            parts.push(format!("f32 {x}"));
        }
        if let Some(x) = self.i32 {
            parts.push(format!("i32 {x}"));
        }
        if let Some(x) = &self.f64 {
            parts.push(format!("f64 {x}"));
        }
        if let Some(x) = &self.i64 {
            parts.push(format!("i64 {x}"));
        }
        parts.push(format!(
            "hex {}{}",
            if self.hex.is_empty() { "(empty)" } else { &self.hex },
            if self.hex_truncated { "…" } else { "" }
        ));
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_by_length() {
        let v = ValueView::of(&1.5f32.to_le_bytes());
        assert_eq!(v.f32.as_deref(), Some("1.5"));
        assert_eq!(v.i32, Some(0x3fc0_0000));
        assert!(v.f64.is_none());
        let v = ValueView::of(&(-3i64).to_le_bytes());
        assert_eq!(v.i64.as_deref(), Some("-3"));
        assert_eq!(v.hex, "fdffffffffffffff");
        assert_eq!(ValueView::of(b"unit-1").utf8.as_deref(), Some("unit-1"));
        assert!(ValueView::of(&[0, 0, 0, 0]).utf8.is_none());
        assert!(ValueView::of(&vec![7u8; 5000]).hex_truncated);
    }
}
