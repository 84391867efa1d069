//! Text on the poster: tiny-skia draws no text, so glyphs come from `fontdue` (outlines to coverage)
//! and a font committed with the crate: `crate/assets/fonts/DejaVuSans-Bold-subset.ttf`, DejaVu Sans
//! Bold cut to the Latin scripts (31 KB; its licence, the Bitstream Vera one, lies beside it).
//!
//! Strings come from files: a character the font lacks is drawn as `?`, control characters as a
//! space, and every string is cut to fit the width it is given, with an ellipsis.

use std::collections::HashMap;
use std::sync::OnceLock;
use tiny_skia::Pixmap;

static FONT_BYTES: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold-subset.ttf");

/// The parsed font, once per process (`None` if it failed to parse: the poster is then drawn
/// without text rather than not at all).
fn font() -> Option<&'static fontdue::Font> {
    static FONT: OnceLock<Option<fontdue::Font>> = OnceLock::new();
    FONT.get_or_init(|| fontdue::Font::from_bytes(FONT_BYTES, fontdue::FontSettings::default()).ok()).as_ref()
}

/// Glyph coverage bitmaps of one poster, by character and pixel size (a poster draws a few hundred
/// glyphs of a few dozen distinct characters).
#[derive(Default)]
pub struct Glyphs {
    cache: HashMap<(char, u32), (fontdue::Metrics, Vec<u8>)>,
}

/// What a character of a string from a file is drawn as.
fn drawable(c: char) -> char {
    if c.is_control() {
        ' '
    } else if font().is_some_and(|f| f.lookup_glyph_index(c) != 0) {
        c
    } else {
        '?'
    }
}

impl Glyphs {
    fn glyph(&mut self, c: char, px: f32) -> Option<&(fontdue::Metrics, Vec<u8>)> {
        let f = font()?;
        let key = (c, px.to_bits());
        Some(self.cache.entry(key).or_insert_with(|| f.rasterize(c, px)))
    }

    /// The advance of `s` at `px` pixels.
    pub fn width(&mut self, s: &str, px: f32) -> f32 {
        s.chars().map(|c| self.glyph(drawable(c), px).map_or(0.0, |(m, _)| m.advance_width)).sum()
    }

    /// `s` with control characters made spaces, cut to `max_chars` characters and then to
    /// `max_width` pixels at `px`, ending with `…` where it was cut.
    pub fn fit(&mut self, s: &str, px: f32, max_width: f32, max_chars: usize) -> String {
        let clean: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let clean = clean.trim();
        let mut out: String = clean.chars().take(max_chars).collect();
        let mut cut = out.chars().count() < clean.chars().count();
        let ell = self.width("…", px);
        while !out.is_empty() && self.width(&out, px) + if cut { ell } else { 0.0 } > max_width.max(0.0) {
            out.pop();
            cut = true;
        }
        if cut {
            let trimmed = out.trim_end().len();
            out.truncate(trimmed);
            out.push('…');
        }
        out
    }

    /// Draws `s` with its baseline's left end at (`x`, `baseline`), in `rgb` at `alpha`, over a
    /// dark halo when `halo`. Returns the advance. Pixels off the pixmap are skipped.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        pm: &mut Pixmap,
        s: &str,
        x: f32,
        baseline: f32,
        px: f32,
        rgb: [f32; 3],
        alpha: f32,
        halo: Option<[f32; 3]>,
    ) -> f32 {
        if let Some(h) = halo {
            for (dx, dy) in [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0), (1.0, 1.0)] {
                self.draw_once(pm, s, x + dx, baseline + dy, px, h, alpha * 0.85);
            }
        }
        self.draw_once(pm, s, x, baseline, px, rgb, alpha)
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_once(
        &mut self,
        pm: &mut Pixmap,
        s: &str,
        x: f32,
        baseline: f32,
        px: f32,
        rgb: [f32; 3],
        alpha: f32,
    ) -> f32 {
        let (w, h) = (i64::from(pm.width()), i64::from(pm.height()));
        if !(x.is_finite() && baseline.is_finite() && x.abs() < 1e6 && baseline.abs() < 1e6) {
            return 0.0;
        }
        let mut pen = x;
        for c in s.chars() {
            let Some((m, bitmap)) = self.glyph(drawable(c), px) else { return 0.0 };
            let left = (pen + m.xmin as f32).round() as i64;
            let top = (baseline - (m.ymin as f32 + m.height as f32)).round() as i64;
            let data = pm.data_mut();
            for (row, line) in bitmap.chunks(m.width.max(1)).enumerate() {
                let y = top + row as i64;
                if y < 0 || y >= h {
                    continue;
                }
                for (col, &cov) in line.iter().enumerate() {
                    let xx = left + col as i64;
                    if cov == 0 || xx < 0 || xx >= w {
                        continue;
                    }
                    let at = ((y * w + xx) * 4) as usize;
                    if let Some(px) = data.get_mut(at..at + 4) {
                        blend(px, rgb, alpha * f32::from(cov) / 255.0);
                    }
                }
            }
            pen += m.advance_width;
        }
        pen - x
    }
}

/// Source-over of a colour at coverage `a` onto one premultiplied RGBA pixel.
fn blend(px: &mut [u8], rgb: [f32; 3], a: f32) {
    let a = a.clamp(0.0, 1.0);
    let keep = 1.0 - a;
    for (d, s) in px.iter_mut().zip([rgb[0], rgb[1], rgb[2], 1.0]) {
        let v = s.clamp(0.0, 1.0) * a * 255.0 + f32::from(*d) * keep;
        *d = v.round().clamp(0.0, 255.0) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_font_parses_and_strings_are_cut_to_fit() {
        assert!(font().is_some());
        let mut g = Glyphs::default();
        let long = "Maverick ".repeat(40);
        let cut = g.fit(&long, 20.0, 300.0, 500);
        assert!(cut.ends_with('…'), "{cut}");
        assert!(g.width(&cut, 20.0) <= 300.0);
        assert_eq!(g.fit("Goose", 20.0, 300.0, 64), "Goose");
        assert_eq!(g.fit("a\u{0}b\nc", 20.0, 300.0, 64), "a b c");
        assert_eq!(g.fit("abcdef", 20.0, 1000.0, 3), "abc…");
        // A character outside the subset is drawn as '?', which has a width.
        assert!(g.width("\u{4e2d}", 20.0) > 0.0);
    }

    #[test]
    fn text_marks_pixels_and_clips_at_the_edges() {
        let mut pm = Pixmap::new(64, 32).unwrap();
        let mut g = Glyphs::default();
        g.draw(&mut pm, "Hi", 2.0, 24.0, 20.0, [1.0, 1.0, 1.0], 1.0, None);
        assert!(pm.data().chunks(4).any(|p| p[0] > 200));
        // Off the pixmap on every side: nothing drawn, nothing panics.
        let mut pm = Pixmap::new(8, 8).unwrap();
        for (x, y) in [(-500.0, 4.0), (500.0, 4.0), (0.0, -500.0), (0.0, 500.0), (f32::NAN, f32::INFINITY)] {
            g.draw(&mut pm, "WWW", x, y, 20.0, [1.0; 3], 1.0, Some([0.0; 3]));
        }
        assert!(pm.data().iter().all(|&b| b == 0));
    }
}
