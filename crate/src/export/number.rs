//! Numbers as the ACMI exporter writes them: fixed-point integers formatted with `itoa` (no float
//! formatting), and object ids in hex.

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

const POW10: [i64; 11] =
    [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000];

pub fn pow10(d: u32) -> i64 {
    POW10.get(d as usize).copied().unwrap_or(10_000_000_000)
}

pub fn fixed(v: f64, d: u32) -> i64 {
    // Half away from zero, without a libm call (`f64::round` is one on baseline x86-64); `as`
    // saturates and maps NaN to 0: a non-finite value cannot panic.
    let x = v * pow10(d) as f64;
    (x + 0.5f64.copysign(x)) as i64
}

/// Appends `n / 10^d` with trailing zeros dropped (`12.5`, `-0.125`, `7`): one integer
/// formatting, the point put in its place. Byte by byte: a number is a few bytes, and a `memcpy`
/// call per piece cost more than the digits (`export_bench`).
pub fn push_fixed(buf: &mut Vec<u8>, n: i64, d: u32) {
    let mut it = itoa::Buffer::new();
    let digits = it.format(n.unsigned_abs()).as_bytes();
    let d = d as usize;
    let (int, frac): (&[u8], &[u8]) = match digits.len().checked_sub(d) {
        Some(k) => (digits.get(..k).unwrap_or(b""), digits.get(k..).unwrap_or(b"")),
        None => (b"", digits),
    };
    let frac = frac.get(..frac.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1)).unwrap_or(b"");
    if n < 0 {
        buf.push(b'-');
    }
    if int.is_empty() {
        buf.push(b'0');
    }
    for &c in int {
        buf.push(c);
    }
    if !frac.is_empty() {
        buf.push(b'.');
        for _ in digits.len()..d {
            buf.push(b'0');
        }
        for &c in frac {
            buf.push(c);
        }
    }
}

pub fn push_hex(buf: &mut Vec<u8>, id: u32) {
    // ACMI ids are hex, 0 is the global object: entity id + 1.
    let v = u64::from(id) + 1;
    let digits = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for i in (0..digits).rev() {
        let nib = ((v >> (i * 4)) & 0xf) as u8;
        buf.push(if nib < 10 { b'0' + nib } else { b'a' + nib - 10 });
    }
}

/// The ACMI id of an entity (hex of `id + 1`), as `AcmiWriter` writes it.
pub fn object_id(entity: u32) -> String {
    let mut v = Vec::new();
    push_hex(&mut v, entity);
    String::from_utf8(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_point_numbers() {
        let f = |n: i64, d: u32| {
            let mut v = Vec::new();
            push_fixed(&mut v, n, d);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(f(125, 3), "0.125");
        assert_eq!(f(-125, 3), "-0.125");
        assert_eq!(f(1200, 2), "12");
        assert_eq!(f(1205, 2), "12.05");
        assert_eq!(f(-5, 2), "-0.05");
        assert_eq!(f(7, 0), "7");
        assert_eq!(f(i64::MIN, 4), "-922337203685477.5808");
        assert_eq!(object_id(0), "1");
        assert_eq!(object_id(255), "100");
        assert_eq!(object_id(u32::MAX), "100000000");
        assert_eq!(decimals_for_step(0.125), 1);
        assert_eq!(decimals_for_step(1.0 / 1024.0), 4);
    }
}
