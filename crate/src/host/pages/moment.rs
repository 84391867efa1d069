//! A share link's moment, read from the query of `/r/{id}?t=…` (or of the link an oEmbed consumer
//! hands in): the player's own link vocabulary (`www/api/options.ts`, docs/embedding.md "Share links"),
//! kept as given so that the page, the card, the poster and the embed open the same moment.
//!
//! Values come from strangers: unknown names are dropped, a value longer than [`MAX_VALUE_LENGTH`]
//! is dropped, each name is kept once (the first). Nothing here is interpreted but `t` (the poster's
//! moment, what the card may tell) and `spoilers`; the player reads the rest itself.

use url::form_urlencoded;

use crate::host::record::ReplayRecord;

/// The link parameters a `/r/` page passes on to the player and its embed, in the order links
/// write them (`www/api/links.ts` `linkQuery()`).
pub const LINK_PARAMS: [&str; 11] =
    ["t", "end", "loop", "follow", "camera", "view", "speed", "autoplay", "spoilers", "controls", "panels"];

/// The longest value kept (as `www/api/options.ts` `MAX_VALUE_LENGTH`).
pub const MAX_VALUE_LENGTH: usize = 2048;

/// A time as links write it (`www/api/options.ts` `parseTime()`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkTime {
    /// Seconds from the start.
    Seconds(f64),
    /// A tick of the recording (`tick:5712`).
    Tick(u64),
}

/// The moment of a link: its known parameters (name, value) in the order given, and what the host
/// itself reads of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Moment {
    /// Known parameters, each once, values as given (decoded).
    pub params: Vec<(String, String)>,
    /// `t`, when it reads as a time.
    pub t: Option<LinkTime>,
    /// `false` with `spoilers=0` (or `off`, `false`, `no`): the card tells nothing past `t`.
    pub spoilers: bool,
}

impl Moment {
    /// Reads a query string (without the `?`).
    pub fn from_query(query: &str) -> Moment {
        let mut params: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            if value.len() > MAX_VALUE_LENGTH || !LINK_PARAMS.contains(&name.as_ref()) {
                continue;
            }
            if params.iter().any(|(n, _)| *n == name) {
                continue;
            }
            params.push((name.into_owned(), value.into_owned()));
        }
        let get = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        let t = get("t").and_then(parse_time);
        let spoilers = !matches!(
            get("spoilers").map(|s| s.trim().to_ascii_lowercase()).as_deref(),
            Some("0" | "false" | "no" | "off")
        );
        Moment { params, t, spoilers }
    }

    /// The parameters again as a query string (without the `?`; empty when there are none).
    pub fn query(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (n, v) in &self.params {
            q.append_pair(n, v);
        }
        q.finish()
    }

    /// `t` in seconds within the recording (0 without a `t`; a `tick:` counted at the tick rate
    /// from the first tick; past the end: the end).
    pub fn seconds(&self, rec: &ReplayRecord) -> f64 {
        let s = match self.t {
            None => 0.0,
            Some(LinkTime::Seconds(s)) => s,
            Some(LinkTime::Tick(n)) if rec.tick_rate > 0 => n as f64 / f64::from(rec.tick_rate),
            Some(LinkTime::Tick(_)) => 0.0,
        };
        let end = if rec.duration.is_finite() { rec.duration.max(0.0) } else { 0.0 };
        if s.is_finite() {
            s.clamp(0.0, end)
        } else {
            0.0
        }
    }

    /// The kills the card may count: all of them, or with `spoilers=0` those before `t` only.
    pub fn kills_told(&self, rec: &ReplayRecord) -> usize {
        if self.spoilers {
            return rec.kills.len();
        }
        let t = self.seconds(rec);
        rec.kills.iter().filter(|&&k| k < t).count()
    }
}

/// A time as links write it: `95.2`, `1:35.2`, `1:02:03`, `1m35.2s` / `2h`, `tick:5712`. `None` when
/// it is none of these (as `parseTime()` of `www/api/options.ts`).
pub fn parse_time(value: &str) -> Option<LinkTime> {
    let s = value.trim();
    if s.is_empty() || s.len() > 32 {
        return None;
    }
    if let Some(n) = s.get(..5).filter(|p| p.eq_ignore_ascii_case("tick:")).and_then(|_| s.get(5..)) {
        return (n.len() <= 15 && all_digits(n)).then(|| n.parse().ok().map(LinkTime::Tick)).flatten();
    }
    if is_decimal(s) {
        return s.parse().ok().map(LinkTime::Seconds);
    }
    if s.contains(':') {
        return clock(s).map(LinkTime::Seconds);
    }
    units(s).map(LinkTime::Seconds)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `\d+(\.\d+)?`
fn is_decimal(s: &str) -> bool {
    match s.split_once('.') {
        Some((a, b)) => all_digits(a) && all_digits(b),
        None => all_digits(s),
    }
}

/// `(h:)?m:ss(.s)?`: seconds below 60, minutes below 60 when hours are given.
fn clock(s: &str) -> Option<f64> {
    let parts: Vec<&str> = s.split(':').collect();
    let (h, m, sec) = match parts.as_slice() {
        [m, sec] => ("0", *m, *sec),
        [h, m, sec] => (*h, *m, *sec),
        _ => return None,
    };
    let whole = sec.split_once('.').map_or(sec, |(a, _)| a);
    if !all_digits(h) || !all_digits(m) || !is_decimal(sec) || whole.len() > 2 {
        return None;
    }
    let (h, m, sec): (f64, f64, f64) = (h.parse().ok()?, m.parse().ok()?, sec.parse().ok()?);
    if sec >= 60.0 || (parts.len() == 3 && m >= 60.0) {
        return None;
    }
    Some(h * 3600.0 + m * 60.0 + sec)
}

/// `1h2m3.5s`, `1m35s`, `2h`, `90s` (each unit at most once, in that order, at least one).
fn units(s: &str) -> Option<f64> {
    let mut rest = s;
    let mut total = 0.0;
    let mut any = false;
    for (unit, scale, fraction) in [('h', 3600.0, false), ('m', 60.0, false), ('s', 1.0, true)] {
        let Some(at) = rest.find(|c: char| c.eq_ignore_ascii_case(&unit)) else { continue };
        let (number, after) = rest.split_at(at);
        let ok = if fraction { is_decimal(number) } else { all_digits(number) };
        if !ok {
            return None;
        }
        total += number.parse::<f64>().ok()? * scale;
        rest = after.get(1..)?;
        any = true;
    }
    (any && rest.is_empty()).then_some(total)
}

/// A time for people: `m:ss`, or `h:mm:ss` from an hour on (whole seconds).
pub fn clock_text(seconds: f64) -> String {
    let s = if seconds.is_finite() && seconds > 0.0 { seconds.round() as u64 } else { 0 };
    let (h, m, s) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_as_links_write_them() {
        assert_eq!(parse_time("95.2"), Some(LinkTime::Seconds(95.2)));
        assert_eq!(parse_time(" 1:35.5 "), Some(LinkTime::Seconds(95.5)));
        assert_eq!(parse_time("1:02:03"), Some(LinkTime::Seconds(3723.0)));
        assert_eq!(parse_time("1m35.5s"), Some(LinkTime::Seconds(95.5)));
        assert_eq!(parse_time("2h"), Some(LinkTime::Seconds(7200.0)));
        assert_eq!(parse_time("90S"), Some(LinkTime::Seconds(90.0)));
        assert_eq!(parse_time("TICK:5712"), Some(LinkTime::Tick(5712)));
        for bad in
            ["", "abc", "-3", "1:60", "1:60:00", "1:2:3:4", "tick:", "tick:-1", "1.5m", "s", "3x", "1e3", "NaN", "inf"]
        {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
        assert_eq!(parse_time(&"9".repeat(33)), None);
    }

    #[test]
    fn only_known_parameters_once_each() {
        let m = Moment::from_query("t=1%3A35&x=<b>&t=9&follow=%3Cimg%3E&spoilers=off&view=1,2,3");
        assert_eq!(
            m.params,
            vec![
                ("t".into(), "1:35".into()),
                ("follow".into(), "<img>".into()),
                ("spoilers".into(), "off".into()),
                ("view".into(), "1,2,3".into())
            ]
        );
        assert_eq!(m.t, Some(LinkTime::Seconds(95.0)));
        assert!(!m.spoilers);
        assert_eq!(m.query(), "t=1%3A35&follow=%3Cimg%3E&spoilers=off&view=1%2C2%2C3");
        assert!(Moment::from_query("").params.is_empty());
        assert!(Moment::from_query("t=5").spoilers);
        let long = format!("follow={}", "a".repeat(MAX_VALUE_LENGTH + 1));
        assert!(Moment::from_query(&long).params.is_empty());
    }

    #[test]
    fn clock_text_for_people() {
        assert_eq!(clock_text(0.0), "0:00");
        assert_eq!(clock_text(95.4), "1:35");
        assert_eq!(clock_text(3723.0), "1:02:03");
        assert_eq!(clock_text(f64::NAN), "0:00");
    }
}
