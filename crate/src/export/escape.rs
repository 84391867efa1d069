//! ACMI text escaping (docs/export.md "Text from the file"): a value from a file can never end a
//! line, start an object or a property, or hide an escape.
//!
//! - `,` → `\,` (the format's one escape inside a value);
//! - a line feed → `\` + line feed (the format's line continuation: readers join the lines and keep
//!   the line feed); `\r\n` counts as one line feed;
//! - `\` → `＼` (U+FF3C): the format has no escape for a backslash, and one before a comma or at a
//!   line's end would change what the reader sees;
//! - in event text, `|` → `¦` (U+00A6): the format has no escape for it there;
//! - every other control character and the Unicode line breaks (CR, U+0085, U+2028, U+2029) and a
//!   byte-order mark → a space: readers that split lines on them would otherwise see a new line.
//!
//! Everything else, non-ASCII included, is written as UTF-8 unchanged (the format is UTF-8).

use super::number::Text;

/// Where a value goes: a property value, or the text of an event (last field of `Event=`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Property,
    EventText,
}

/// Appends `s` escaped to `out`.
pub fn push(out: &mut Text, s: &str, ctx: Context) {
    // The common case, nothing to escape, is one copy.
    if !s.bytes().any(|b| b < 0x20 || b == b',' || b == b'\\' || b == 0x7f || b >= 0x80 || b == b'|') {
        out.extend(s.as_bytes());
        return;
    }
    let mut chars = s.chars().peekable();
    let mut buf = [0u8; 4];
    while let Some(c) = chars.next() {
        match c {
            ',' => out.extend(b"\\,"),
            '\n' => out.extend(b"\\\n"),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\\' => out.extend("\u{FF3C}".as_bytes()),
            '|' if ctx == Context::EventText => out.extend("\u{A6}".as_bytes()),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}') => out.push(b' '),
            c => out.extend(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str, ctx: Context) -> String {
        let mut v = Text::default();
        push(&mut v, s, ctx);
        String::from_utf8(v.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn hostile_text_cannot_break_out() {
        assert_eq!(esc("plain", Context::Property), "plain");
        assert_eq!(esc("a,Name=x", Context::Property), "a\\,Name=x");
        assert_eq!(esc("a\n-1\n#9", Context::Property), "a\\\n-1\\\n#9");
        assert_eq!(esc("a\r\nb\rc", Context::Property), "a\\\nb c");
        assert_eq!(esc("end\\", Context::Property), "end\u{FF3C}");
        assert_eq!(esc("x\\,y", Context::Property), "x\u{FF3C}\\,y");
        assert_eq!(esc("a|b", Context::Property), "a|b");
        assert_eq!(esc("a|b", Context::EventText), "a\u{A6}b");
        assert_eq!(esc("é\u{2028}\u{85}\u{0}", Context::Property), "é   ");
        // After escaping, every raw line break is preceded by the continuation backslash.
        let e = esc("x\n\n,\n", Context::EventText);
        for (i, b) in e.bytes().enumerate() {
            if b == b'\n' {
                assert_eq!(e.as_bytes().get(i.wrapping_sub(1)), Some(&b'\\'));
            }
        }
    }
}
