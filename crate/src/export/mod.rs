//! Exports over the one model (docs/export.md): ACMI 2.2 text for Tacview and its tools
//! ([`acmi::AcmiWriter`], to any `std::io::Write`, streaming), and the time vocabulary of ranges
//! (`--from` / `--to`, as share links write times: `www/api/options.ts`). Replay clips re-encode a tick
//! range with the formats' own writers (`crate::io::convert`); `crate::io::export` drives both.
//!
//! No file system, no wasm, no GPU: the native driver is `crate::io::export`.

pub mod acmi;
mod escape;
mod number;
mod pair;
pub mod parts;
mod pose;

use crate::model::RecordingInfo;

/// A time as a share link writes it: seconds from the recording's start (`95.2`, `1:35.2`,
/// `1:02:03.5`) or a tick number (`tick:5712`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSpec {
    Seconds(f64),
    Tick(u64),
}

impl TimeSpec {
    /// Reads `95.2`, `1:35.2` (m:ss.s), `1:02:03` (h:mm:ss) or `tick:5712`.
    pub fn parse(s: &str) -> Result<TimeSpec, String> {
        let t = s.trim();
        let help = "use seconds (95.2), m:ss (1:35.2), h:mm:ss or tick:5712";
        if let Some(n) = t.strip_prefix("tick:").or_else(|| t.strip_prefix("TICK:")) {
            return n.parse::<u64>().map(TimeSpec::Tick).map_err(|_| format!("\"{s}\" is not a tick number: {help}"));
        }
        let parts: Vec<&str> = t.split(':').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(format!("\"{s}\" is not a time: {help}"));
        }
        let mut total = 0.0f64;
        for (i, p) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let ok = !p.is_empty()
                && p.chars().all(|c| c.is_ascii_digit() || (last && c == '.'))
                && p.chars().filter(|c| *c == '.').count() <= 1;
            let v: f64 = if ok { p.parse().map_err(|_| format!("\"{s}\" is not a time: {help}"))? } else { -1.0 };
            // Minutes and seconds after the first field are below 60.
            if v < 0.0 || (i > 0 && v >= 60.0) {
                return Err(format!("\"{s}\" is not a time: {help}"));
            }
            total = total * 60.0 + v;
        }
        if !total.is_finite() {
            return Err(format!("\"{s}\" is not a time: {help}"));
        }
        Ok(TimeSpec::Seconds(total))
    }

    /// The tick this time names in `info` (seconds count from the first tick).
    pub fn tick(self, info: &RecordingInfo) -> u64 {
        match self {
            TimeSpec::Tick(t) => t,
            TimeSpec::Seconds(s) => {
                let ticks = (s * f64::from(info.tick_rate_hz)).round();
                // `as` saturates: a time past the end is past the last tick.
                info.first_tick.saturating_add(ticks as u64)
            }
        }
    }
}

/// An inclusive tick range `[from, to]` of a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub from: u64,
    pub to: u64,
}

impl Span {
    /// The whole recording.
    pub fn all(info: &RecordingInfo) -> Span {
        Span { from: info.first_tick, to: info.last_tick }
    }

    /// `--from` / `--to` of a recording (either may be absent), checked: a range that holds no
    /// tick of the recording is an error naming both ends.
    pub fn of(info: &RecordingInfo, from: Option<TimeSpec>, to: Option<TimeSpec>) -> Result<Span, String> {
        let from_t = from.map_or(info.first_tick, |t| t.tick(info)).max(info.first_tick);
        let to_t = to.map_or(info.last_tick, |t| t.tick(info)).min(info.last_tick);
        if from_t > to_t {
            return Err(format!(
                "the range from tick {from_t} to tick {to_t} holds no tick of this recording (ticks {}..={})",
                info.first_tick, info.last_tick
            ));
        }
        Ok(Span { from: from_t, to: to_t })
    }

    pub fn contains(self, tick: u64) -> bool {
        tick >= self.from && tick <= self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_links_write_them() {
        assert_eq!(TimeSpec::parse("95.2"), Ok(TimeSpec::Seconds(95.2)));
        assert_eq!(TimeSpec::parse("1:35.5"), Ok(TimeSpec::Seconds(95.5)));
        assert_eq!(TimeSpec::parse("1:02:03"), Ok(TimeSpec::Seconds(3723.0)));
        assert_eq!(TimeSpec::parse("tick:5712"), Ok(TimeSpec::Tick(5712)));
        for bad in ["", "1:60", "-3", "1e3", "tick:", "tick:-1", "1::2", "a", "1:2:3:4", "1.2.3", "NaN", "inf"] {
            assert!(TimeSpec::parse(bad).is_err(), "{bad:?} must be refused");
        }
    }

    #[test]
    fn a_span_is_clamped_to_the_recording_and_never_empty() {
        let info = RecordingInfo {
            format: crate::model::FormatKind::Flrep,
            format_major: 1,
            format_minor: 0,
            engine_version: String::new(),
            tick_rate_hz: 60,
            world: crate::model::WorldKind::Flat,
            position_quantum_m: 0.125,
            velocity_quantum_mps: 0.01,
            start_unix_seconds: 0,
            mission_id: String::new(),
            session_flags: 0,
            keyframe_interval_ticks: 120,
            first_tick: 100,
            last_tick: 700,
            entity_types: vec![],
            factions: vec![],
            participants: vec![],
            mission_objects: vec![],
            metadata: vec![],
            warnings: vec![],
            problems: vec![],
        };
        let s = |a: &str, b: &str| Span::of(&info, TimeSpec::parse(a).ok(), TimeSpec::parse(b).ok());
        assert_eq!(s("1", "2"), Ok(Span { from: 160, to: 220 }));
        assert_eq!(s("tick:0", "99"), Ok(Span { from: 100, to: 700 }));
        assert!(s("20", "30").is_err());
        assert!(s("5", "4").is_err());
    }
}
