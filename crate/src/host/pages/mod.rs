//! Pure builders of what the host answers as HTML and JSON: the replay page `/r/{id}` (the player's
//! page with Open Graph / Twitter card tags and the oEmbed discovery link in its head), the oEmbed
//! answer, and the gallery. No I/O: the server hands in records and templates.
//!
//! Every string from a file (titles, callsigns, mission names, file names) reaches HTML through
//! `html-escape` (text and double-quoted attributes) and JSON through serde; URLs are built with
//! `url`'s form encoding, then escaped as attributes. The pages carry no inline script or style:
//! they run under [`PAGE_CSP`].
//!
//! Parts: [`moment`] (a link's `t`, `spoilers`… read from its query), [`replay`] (`/r/{id}`),
//! [`oembed`], [`gallery`] (`/`), and the routes that serve them ([`routes`]).

pub mod gallery;
pub mod moment;
pub mod oembed;
pub mod replay;
pub mod routes;

use html_escape::{encode_double_quoted_attribute, encode_text};

use crate::host::record::ReplayRecord;
use moment::{clock_text, Moment};

/// The policy of the host's pages (`/r/{id}` and the gallery): the player's strict one
/// (docs/security.md "CSP"), but `form-action 'self'` for the gallery's search form.
pub const PAGE_CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The poster's size (`/r/{id}/poster.png`): what every card shows full width.
pub const POSTER_WIDTH: u32 = 1200;
/// See [`POSTER_WIDTH`].
pub const POSTER_HEIGHT: u32 = 630;

/// Where the host is and what it calls itself.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// The public URL links are written with, without a trailing slash (`https://replays.example`).
    pub public_url: String,
    /// The path the player's files are served under, starting and ending with `/` (`/`).
    pub player_path: String,
    /// The name on cards and in oEmbed's `provider_name`.
    pub name: String,
}

impl Site {
    /// A site at `public_url` (a trailing `/` is dropped) with the player's files under
    /// `player_path` (made to start and end with `/`).
    pub fn new(public_url: &str, player_path: &str, name: &str) -> Site {
        let trimmed = player_path.trim_matches('/');
        let player_path = if trimmed.is_empty() { "/".to_string() } else { format!("/{trimmed}/") };
        Site { public_url: public_url.trim_end_matches('/').to_string(), player_path, name: name.to_string() }
    }

    /// The upload API's path, which the host's pages name in `<meta name="replay-host">` (the page's
    /// Share dialog offers "Upload and get link" where it finds it: www/features/share/upload.ts).
    pub const API_PATH: &'static str = "/api/";

    /// The replay's page, a path: `/r/{id}`.
    pub fn page_path(id: &str) -> String {
        format!("/r/{id}")
    }

    /// The replay's page with a moment, absolute: what a person shares.
    pub fn page_url(&self, id: &str, moment: &Moment) -> String {
        with_query(format!("{}{}", self.public_url, Site::page_path(id)), &moment.query())
    }

    /// The replay file, a path (the server's `GET /files/{id}`, Range and CORS).
    pub fn file_path(id: &str) -> String {
        format!("/files/{id}")
    }

    /// The poster of the moment `t` (seconds, rounded to 0.1 s: one cached poster per tenth), a path.
    pub fn poster_path(id: &str, t: f64) -> String {
        let tenths = if t.is_finite() && t > 0.0 { (t * 10.0).round() as u64 } else { 0 };
        format!("/r/{id}/poster.png?t={}.{}", tenths / 10, tenths % 10)
    }

    /// The poster of a link's moment, absolute.
    /// A spoiler-safe link's poster says so (`&spoilers=0`): the poster of such a link must tell
    /// nothing past `t` either (no length).
    pub fn poster_url(&self, rec: &ReplayRecord, moment: &Moment) -> String {
        let safe = if moment.spoilers { "" } else { "&spoilers=0" };
        format!("{}{}{safe}", self.public_url, Site::poster_path(&rec.id, moment.seconds(rec)))
    }

    /// `embed.html` on this replay at the link's moment, absolute (docs/embedding.md "Embedding").
    pub fn embed_url(&self, id: &str, moment: &Moment) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        q.append_pair("url", &format!("{}{}", self.public_url, Site::file_path(id)));
        for (n, v) in &moment.params {
            q.append_pair(n, v);
        }
        format!("{}{}embed.html?{}", self.public_url, self.player_path, q.finish())
    }

    /// The oEmbed endpoint's URL for a page URL (the discovery link).
    pub fn oembed_url(&self, page_url: &str) -> String {
        let q = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("url", page_url)
            .append_pair("format", "json")
            .finish();
        format!("{}/oembed?{q}", self.public_url)
    }
}

fn with_query(base: String, query: &str) -> String {
    if query.is_empty() {
        base
    } else {
        format!("{base}?{query}")
    }
}

/// What a card says of a replay at a link's moment. With `spoilers=0` nothing past `t`: no length,
/// no total of kills (only those before `t`, when `t` is past the start).
#[derive(Clone, Debug, PartialEq)]
pub struct Card {
    /// The record's title (the mission and the sides or callsigns).
    pub title: String,
    /// One line: the moment, the length, kills, players, the format.
    pub description: String,
    /// The poster's alternative text.
    pub image_alt: String,
}

/// The card of `rec` at `moment`.
pub fn card(rec: &ReplayRecord, moment: &Moment) -> Card {
    let t = moment.seconds(rec);
    let mut parts = Vec::new();
    if t > 0.0 {
        parts.push(format!("at {}", clock_text(t)));
    }
    if moment.spoilers {
        parts.push(format!("{} long", clock_text(rec.duration)));
        parts.push(plural(rec.kills.len() as u64, "kill"));
    } else if t > 0.0 {
        parts.push(format!("{} by then", plural(moment.kills_told(rec) as u64, "kill")));
    }
    parts.push(plural(u64::from(rec.players), "player"));
    parts.push(format_name(&rec.format).to_string());
    if !moment.spoilers {
        parts.push("spoiler-free".to_string());
    }
    let mut description = parts.join(" · ");
    if let Some(first) = description.get(..1) {
        description = format!("{}{}", first.to_uppercase(), description.get(1..).unwrap_or_default());
    }
    let at = if t > 0.0 { format!(" at {}", clock_text(t)) } else { String::new() };
    let image_alt = format!("A top-down view of the replay {}{at}", rec.title);
    Card { title: rec.title.clone(), description, image_alt }
}

/// `1 kill`, `3 kills`.
pub fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The format for people.
pub fn format_name(format: &str) -> &'static str {
    match format {
        "flrep" => ".flrep",
        "spark" => "SparkEngine .replay",
        "foldback" => ".foldback",
        _ => "replay",
    }
}

/// Text for HTML text content.
pub(crate) fn text(s: &str) -> std::borrow::Cow<'_, str> {
    encode_text(s)
}

/// Text for a double-quoted HTML attribute value.
pub(crate) fn attr(s: &str) -> std::borrow::Cow<'_, str> {
    encode_double_quoted_attribute(s)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A record whose strings are markup (the hostile corpus' idea: every string an injection).
    pub fn hostile_record() -> ReplayRecord {
        ReplayRecord {
            id: "0123456789abcdef0123456789abcdef".into(),
            format: "flrep".into(),
            filename: Some("\"><script>alert(1)</script>.flrep".into()),
            size: 1234,
            uploaded: 1_764_979_200,
            title: "<img src=x onerror=alert(1)> vs \"Red\" & 'Blue'".into(),
            mission: "<svg onload=alert(2)>".into(),
            callsigns: vec!["Viper</title><script>x()</script>".into(), "Ice\"man".into()],
            sides: vec!["Blue".into(), "<b>Red</b>".into()],
            duration: 754.0,
            ticks: 45_241,
            tick_rate: 60,
            kills: vec![10.0, 95.0, 300.0, 700.0],
            players: 8,
            warnings: vec![],
            delete_token_sha256: "00".into(),
        }
    }

    #[test]
    fn card_tells_everything_with_spoilers() {
        let rec = hostile_record();
        let c = card(&rec, &Moment::from_query("t=1:40"));
        assert_eq!(c.description, "At 1:40 · 12:34 long · 4 kills · 8 players · .flrep");
        let c = card(&rec, &Moment::from_query(""));
        assert_eq!(c.description, "12:34 long · 4 kills · 8 players · .flrep");
    }

    #[test]
    fn card_tells_nothing_past_t_without_spoilers() {
        let rec = hostile_record();
        let c = card(&rec, &Moment::from_query("t=1:40&spoilers=0"));
        assert_eq!(c.description, "At 1:40 · 2 kills by then · 8 players · .flrep · spoiler-free");
        assert!(!c.description.contains("12:34") && !c.description.contains("4 kills"));
        let c = card(&rec, &Moment::from_query("spoilers=0"));
        assert_eq!(c.description, "8 players · .flrep · spoiler-free");
        let site = Site::new("https://h", "/", "R");
        assert_eq!(
            site.poster_url(&rec, &Moment::from_query("t=1:40&spoilers=off")),
            format!("https://h/r/{}/poster.png?t=100.0&spoilers=0", rec.id)
        );
        assert_eq!(
            site.poster_url(&rec, &Moment::from_query("t=1:40")),
            format!("https://h/r/{}/poster.png?t=100.0", rec.id)
        );
    }

    #[test]
    fn links() {
        let site = Site::new("http://h.example:8080/", "player", "Replays");
        assert_eq!(site.player_path, "/player/");
        assert_eq!(Site::new("http://h", "/", "R").player_path, "/");
        let m = Moment::from_query("t=95.25&follow=A%26B");
        assert_eq!(site.page_url("ab", &m), "http://h.example:8080/r/ab?t=95.25&follow=A%26B");
        assert_eq!(
            site.embed_url("ab", &m),
            "http://h.example:8080/player/embed.html?url=http%3A%2F%2Fh.example%3A8080%2Ffiles%2Fab&t=95.25&follow=A%26B"
        );
        assert_eq!(Site::poster_path("ab", 95.25), "/r/ab/poster.png?t=95.3");
        assert_eq!(Site::poster_path("ab", f64::NAN), "/r/ab/poster.png?t=0.0");
        assert_eq!(
            site.oembed_url("http://h/r/ab?t=1"),
            "http://h.example:8080/oembed?url=http%3A%2F%2Fh%2Fr%2Fab%3Ft%3D1&format=json"
        );
    }
}
