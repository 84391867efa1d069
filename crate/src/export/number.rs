//! Numbers as the ACMI exporter writes them: fixed-point integers, their digits written on the
//! stack two at a time (no float formatting), and object ids in hex.

/// The fewest decimals whose last place is at most `step`.
pub fn decimals_for_step(step: f64) -> u32 {
    let mut d = 0u32;
    let mut place = 1.0f64;
    while place > step && d < 10 {
        place /= 10.0;
        d += 1;
    }
    d
}

/// `10^d` for the decimals the writer uses (at most 10: `decimals_for_step`'s bound).
pub fn pow10(d: u32) -> i64 {
    POW10_U.get((d as usize).min(10)).map_or(10_000_000_000, |&p| p as i64)
}

pub fn fixed(v: f64, d: u32) -> i64 {
    // Half away from zero, without a libm call (`f64::round` is one on baseline x86-64); `as`
    // saturates and maps NaN to 0: a non-finite value cannot panic.
    let x = v * pow10(d) as f64;
    (x + 0.5f64.copysign(x)) as i64
}

const POW10_U: [u64; 20] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
    100_000_000_000_000,
    1_000_000_000_000_000,
    10_000_000_000_000_000,
    100_000_000_000_000_000,
    1_000_000_000_000_000_000,
    10_000_000_000_000_000_000,
];

/// "00", "01", … "99": two digits written at a time.
const PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/// How many decimal digits `u` has (1 for 0): from its bit length, corrected by one comparison.
fn digit_count(u: u64) -> usize {
    let bits = 64 - u.leading_zeros() as usize;
    // bits × log10(2), rounded down: the digits of 2^(bits-1), one short of u's at most.
    let guess = (bits * 1233) >> 12;
    (guess + usize::from(POW10_U.get(guess).is_some_and(|&p| u >= p))).max(1)
}

/// The writer's output: a buffer whose bytes are all initialised, with a cursor. Bytes are
/// written in place (no capacity check per byte as `Vec::push` makes, no line assembled apart and
/// copied: docs/performance-history.md "Exports"); the buffer grows, zeroed, only when a write would pass
/// its end, so text of any length fits, and [`clear`](Self::clear) keeps it for the next bytes.
#[derive(Default)]
pub struct Text {
    b: Vec<u8>,
    /// Bytes written: at most `b.len()`.
    n: usize,
}

impl Text {
    pub fn with_capacity(bytes: usize) -> Text {
        Text { b: vec![0; bytes], n: 0 }
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.b.get(..self.n).unwrap_or(&[])
    }

    pub fn len(&self) -> usize {
        self.n
    }

    /// Forgets the bytes written; the buffer stays.
    pub fn clear(&mut self) {
        self.n = 0;
    }

    /// Forgets the bytes after the first `n`.
    pub fn truncate(&mut self, n: usize) {
        self.n = self.n.min(n);
    }

    /// Room for `k` more bytes.
    fn room(&mut self, k: usize) {
        let need = self.n.saturating_add(k);
        if self.b.len() < need {
            self.b.resize(need.max(self.b.len().saturating_mul(2)).max(1024), 0);
        }
    }

    pub fn push(&mut self, c: u8) {
        match self.b.get_mut(self.n) {
            Some(x) => *x = c,
            None => {
                self.b.truncate(self.n);
                self.b.push(c);
            }
        }
        self.n += 1;
    }

    pub fn extend(&mut self, s: &[u8]) {
        self.room(s.len());
        if let Some(dst) = self.b.get_mut(self.n..self.n + s.len()) {
            dst.copy_from_slice(s);
            self.n += s.len();
        }
    }

    /// `n / 10^d` with trailing zeros dropped (`12.5`, `-0.125`, `7`). The digits are written
    /// from the back in one pass, two at a time (divisions by constants only), the point put in
    /// its place as they go.
    pub fn fixed(&mut self, n: i64, d: u32) {
        // A sign, 20 digits and a point at most.
        self.room(24);
        let mut u = n.unsigned_abs();
        let mut d = (d as usize).min(19);
        while d > 0 && u.is_multiple_of(10) {
            u /= 10;
            d -= 1;
        }
        if n < 0 {
            self.push(b'-');
        }
        // Digits: all of u's, and at least one before the point.
        let digits = digit_count(u).max(d + 1);
        let len = digits + usize::from(d > 0);
        let end = self.n + len;
        let Some(dst) = self.b.get_mut(self.n..end) else { return };
        // The fraction's d digits, then the point, then the integer part's.
        let (int_part, rest) = dst.split_at_mut(len - d);
        let fill = |out: &mut [u8], v: &mut u64| {
            let mut pairs = out.rchunks_exact_mut(2);
            for pair in &mut pairs {
                let k = (*v % 100) as usize * 2;
                if let (Some(&[a, b]), [x, y]) = (PAIRS.get(k..k + 2), pair) {
                    *x = a;
                    *y = b;
                }
                *v /= 100;
            }
            if let [x] = pairs.into_remainder() {
                *x = b'0' + (*v % 10) as u8;
                *v /= 10;
            }
        };
        fill(rest, &mut u);
        match int_part.split_last_mut() {
            Some((point, int)) if d > 0 => {
                *point = b'.';
                fill(int, &mut u);
            }
            _ => fill(int_part, &mut u),
        }
        self.n = end;
    }

    /// [`fixed`](Self::fixed) with 2 decimals, as the angles are written (under 360°: at most
    /// three digits before the point): the integer part from digit pairs by its size, the
    /// fraction from one pair, assembled in six bytes and stored at once, with no digit count and
    /// no loop. Larger values take `fixed`.
    pub fn fixed2(&mut self, n: i64) {
        let u = n.unsigned_abs();
        if u >= 100_000 {
            return self.fixed(n, 2);
        }
        // A sign, three digits, a point and two digits at most.
        self.room(8);
        if n < 0 {
            self.push(b'-');
        }
        let (int, frac) = ((u / 100) as usize, (u % 100) as usize);
        let pair = |v: usize| match PAIRS.get(v * 2..v * 2 + 2) {
            Some(&[a, b]) => (a, b),
            _ => (b'0', b'0'),
        };
        let mut w = [0u8; 6];
        let (a, b) = pair(int % 100);
        let mut k = if int >= 100 {
            w = [b'0' + (int / 100) as u8, a, b, 0, 0, 0];
            3
        } else if int >= 10 {
            w = [a, b, 0, 0, 0, 0];
            2
        } else {
            w[0] = b;
            1
        };
        if frac != 0 {
            let (a, b) = pair(frac);
            if let Some(tail) = w.get_mut(k..k + 3) {
                tail.copy_from_slice(&[b'.', a, b]);
                // A trailing zero is dropped: `.50` is `.5`.
                k += if frac % 10 == 0 { 2 } else { 3 };
            }
        }
        let at = self.n;
        if let Some(dst) = self.b.get_mut(at..at + 6) {
            dst.copy_from_slice(&w);
            self.n = at + k;
        }
    }

    /// An ACMI object id: hex of `id + 1` (0 is the global object).
    pub fn hex(&mut self, id: u32) {
        self.room(9);
        let v = u64::from(id) + 1;
        let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
        for i in (0..digits).rev() {
            let nib = ((v >> (i * 4)) & 0xf) as u8;
            self.push(if nib < 10 { b'0' + nib } else { b'a' + nib - 10 });
        }
    }
}

/// The ACMI id of an entity (hex of `id + 1`), as `AcmiWriter` writes it.
pub fn object_id(entity: u32) -> String {
    let mut t = Text::default();
    t.hex(entity);
    String::from_utf8_lossy(t.as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_numbers() {
        let f = |n: i64, d: u32| {
            let mut t = Text::default();
            t.fixed(n, d);
            String::from_utf8(t.as_bytes().to_vec()).unwrap()
        };
        assert_eq!(f(125, 3), "0.125");
        assert_eq!(f(-125, 3), "-0.125");
        assert_eq!(f(1200, 2), "12");
        assert_eq!(f(1205, 2), "12.05");
        assert_eq!(f(-5, 2), "-0.05");
        assert_eq!(f(7, 0), "7");
        assert_eq!(f(i64::MIN, 4), "-922337203685477.5808");
        assert_eq!(f(i64::MAX, 0), "9223372036854775807");
        assert_eq!(f(0, 3), "0");
        assert_eq!(f(-100, 2), "-1");
        assert_eq!(f(1_000_001, 6), "1.000001");
        assert_eq!(f(5, 7), "0.0000005");
        assert_eq!(f(123_456_789, 25), "0.0000000000123456789", "more decimals than an i64 has: 19");
        // Every value of a few magnitudes and decimals agrees with the float formatting's digits.
        for d in 0..8u32 {
            for n in (-2_000i64..2_000).chain([99_999_999, -10_000_000_000]) {
                let want = format!("{:.*}", d as usize, n as f64 / 10f64.powi(d as i32));
                let want = if want.contains('.') { want.trim_end_matches('0').trim_end_matches('.') } else { &want };
                let want = if want == "-0" { "0" } else { want };
                assert_eq!(f(n, d), want, "{n} / 10^{d}");
            }
        }
        // The angles' path writes what the general one writes, at every value up to past its
        // bound and at the ends of an i64.
        for n in (-100_500i64..=100_500)
            .chain((0..20_000).map(|k| k * 499 + 100_000))
            .chain((0..2_000).flat_map(|k| [k * 4_999 + 9_990_000, -(k * 4_999) - 1]))
            .chain([i64::MIN, i64::MAX, 9_999_999, 10_000_000, -9_999_999, -10_000_000, 123_456_789])
        {
            let mut t = Text::default();
            t.fixed2(n);
            assert_eq!(std::str::from_utf8(t.as_bytes()).unwrap(), f(n, 2), "{n}");
        }
        assert_eq!(object_id(0), "1");
        assert_eq!(object_id(255), "100");
        assert_eq!(object_id(u32::MAX), "100000000");
        assert_eq!(decimals_for_step(0.125), 1);
        assert_eq!(decimals_for_step(1.0 / 1024.0), 4);
    }
}
