//! The gallery `/`: the host's replays newest first, a page at a time, each with its poster, title,
//! length, kills, players and upload date, opening `/r/{id}`; a search over titles, mission names
//! and callsigns (a plain GET form: no script). Styled by [`STYLESHEET`] (served by the host at
//! [`STYLESHEET_PATH`]: the page's CSP allows no inline style).

use std::time::{Duration, UNIX_EPOCH};

use super::{attr, format_name, moment::clock_text, plural, text, Site};
use crate::host::record::ReplayRecord;

/// Replays on a page of the gallery.
pub const PER_PAGE: usize = 24;
/// The longest search kept (longer ones are cut, by characters).
pub const MAX_QUERY_CHARS: usize = 100;
/// Where the host serves [`STYLESHEET`].
pub const STYLESHEET_PATH: &str = "/gallery.css";
/// The gallery's stylesheet.
pub const STYLESHEET: &str = include_str!("gallery.css");

/// What the gallery was asked for: `?q=…&page=N` (pages count from 1).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GalleryQuery {
    pub q: String,
    pub page: usize,
}

impl GalleryQuery {
    /// Reads `q` (trimmed, cut to [`MAX_QUERY_CHARS`]) and `page` (1 when absent or not a number).
    pub fn from_query(query: &str) -> GalleryQuery {
        let mut out = GalleryQuery { q: String::new(), page: 1 };
        for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
            match name.as_ref() {
                "q" => out.q = value.trim().chars().take(MAX_QUERY_CHARS).collect(),
                "page" => out.page = value.trim().parse().ok().filter(|&p| p >= 1).unwrap_or(1),
                _ => {}
            }
        }
        out
    }

    fn link(&self, page: usize) -> String {
        let mut q = url::form_urlencoded::Serializer::new(String::new());
        if !self.q.is_empty() {
            q.append_pair("q", &self.q);
        }
        if page > 1 {
            q.append_pair("page", &page.to_string());
        }
        let q = q.finish();
        if q.is_empty() {
            "/".to_string()
        } else {
            format!("/?{q}")
        }
    }
}

/// Whether `rec` matches a search: every word of `q` (ignoring case) in its title, mission or a
/// callsign. An empty search matches everything.
pub fn matches(rec: &ReplayRecord, q: &str) -> bool {
    let hay: Vec<String> = std::iter::once(&rec.title)
        .chain(std::iter::once(&rec.mission))
        .chain(rec.callsigns.iter())
        .map(|s| s.to_lowercase())
        .collect();
    q.to_lowercase().split_whitespace().all(|w| hay.iter().any(|h| h.contains(w)))
}

/// One page of the gallery: the records matching `q`, newest first (ties by id), and whether a
/// next page exists.
pub fn select<'a>(records: &'a [ReplayRecord], query: &GalleryQuery) -> (Vec<&'a ReplayRecord>, bool) {
    let mut hits: Vec<&ReplayRecord> = records.iter().filter(|r| matches(r, &query.q)).collect();
    hits.sort_by(|a, b| b.uploaded.cmp(&a.uploaded).then_with(|| a.id.cmp(&b.id)));
    let start = query.page.saturating_sub(1).saturating_mul(PER_PAGE);
    let next = hits.len() > start.saturating_add(PER_PAGE);
    (hits.into_iter().skip(start).take(PER_PAGE).collect(), next)
}

/// The poster a gallery entry shows: a third of the way in (past the spawn, before the end).
pub fn poster_t(rec: &ReplayRecord) -> f64 {
    if rec.duration.is_finite() && rec.duration > 0.0 {
        rec.duration / 3.0
    } else {
        0.0
    }
}

/// An upload time as a UTC date, `2026-12-05`.
pub fn date(uploaded: u64) -> String {
    let at = UNIX_EPOCH.checked_add(Duration::from_secs(uploaded)).unwrap_or(UNIX_EPOCH);
    let s = humantime::format_rfc3339_seconds(at).to_string();
    s.get(..10).unwrap_or(&s).to_string()
}

/// The gallery's page: `shown` (from [`select`]), `next` whether there is a later page.
pub fn gallery_page(site: &Site, query: &GalleryQuery, shown: &[&ReplayRecord], next: bool) -> String {
    let mut items = String::new();
    for rec in shown {
        let page = Site::page_path(&rec.id);
        let poster = Site::poster_path(&rec.id, poster_t(rec));
        let when = date(rec.uploaded);
        let callsigns: Vec<&str> = rec.callsigns.iter().take(6).map(String::as_str).collect();
        let more = rec.callsigns.len().saturating_sub(callsigns.len());
        let mut who = callsigns.join(", ");
        if more > 0 {
            who.push_str(&format!(" and {more} more"));
        }
        items.push_str(&format!(
            "<li class=\"replay\"><a class=\"poster\" href=\"{page}\" tabindex=\"-1\" aria-hidden=\"true\">\
<img src=\"{poster}\" width=\"600\" height=\"315\" alt=\"\" loading=\"lazy\"></a>\
<h2><a href=\"{page}\">{title}</a></h2>\
<p class=\"facts\">{len} · {kills} · {players} · {format} · <time datetime=\"{when}\">{when}</time></p>\
<p class=\"who\">{who}</p></li>\n",
            page = attr(&page),
            poster = attr(&poster),
            title = text(&rec.title),
            len = clock_text(rec.duration),
            kills = plural(rec.kills.len() as u64, "kill"),
            players = plural(u64::from(rec.players), "player"),
            format = format_name(&rec.format),
            when = when,
            who = text(&who),
        ));
    }
    let list = if items.is_empty() {
        let none = if query.q.is_empty() {
            "No replays yet. Upload one: <code>curl --data-binary @match.flrep -H 'Content-Type: application/octet-stream' HOST/api/replays</code> (docs/hosting.md).".to_string()
        } else {
            format!("Nothing matches “{}”.", text(&query.q))
        };
        format!("<p class=\"empty\">{none}</p>")
    } else {
        format!("<ul class=\"replays\">\n{items}</ul>")
    };
    let mut nav = Vec::new();
    if query.page > 1 {
        nav.push(format!("<a rel=\"prev\" href=\"{}\">← Newer</a>", attr(&query.link(query.page - 1))));
    }
    if next {
        nav.push(format!("<a rel=\"next\" href=\"{}\">Older →</a>", attr(&query.link(query.page + 1))));
    }
    let nav = if nav.is_empty() { String::new() } else { format!("<nav class=\"pages\">{}</nav>\n", nav.join(" ")) };
    let heading =
        if query.q.is_empty() { "Replays".to_string() } else { format!("Replays matching “{}”", text(&query.q)) };
    format!(
        "<!doctype html>
<html lang=\"en\">
<head>
  <meta charset=\"utf-8\">
  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">
  <meta name=\"color-scheme\" content=\"dark\">
  <title>{name}</title>
  <meta property=\"og:type\" content=\"website\">
  <meta property=\"og:site_name\" content=\"{name_attr}\">
  <meta property=\"og:title\" content=\"{name_attr}\">
  <meta property=\"og:url\" content=\"{public}/\">
  <link rel=\"icon\" href=\"{player}favicon.svg\" type=\"image/svg+xml\">
  <link rel=\"stylesheet\" href=\"{css}\">
</head>
<body>
<header class=\"top\">
  <a class=\"brand\" href=\"/\">{name}</a>
  <form class=\"search\" method=\"get\" action=\"/\" role=\"search\">
    <input type=\"search\" name=\"q\" value=\"{q}\" placeholder=\"Title, mission or callsign\" aria-label=\"Search the replays\" maxlength=\"{max}\">
    <button type=\"submit\">Search</button>
  </form>
  <a class=\"player\" href=\"{player}index.html\">Open the player</a>
</header>
<main>
<h1>{heading}</h1>
{list}
{nav}</main>
</body>
</html>
",
        name = text(&site.name),
        name_attr = attr(&site.name),
        public = attr(&site.public_url),
        player = attr(&site.player_path),
        css = STYLESHEET_PATH,
        q = attr(&query.q),
        max = MAX_QUERY_CHARS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::pages::tests::hostile_record;

    fn records(n: usize) -> Vec<ReplayRecord> {
        (0..n)
            .map(|i| {
                let mut r = hostile_record();
                r.id = format!("{i:032x}");
                r.uploaded = 1_700_000_000 + (i as u64 % 7) * 1000 + i as u64;
                r.title = format!("Mission {i}");
                r.callsigns = vec![format!("Pilot{i}"), "Goose".into()];
                r
            })
            .collect()
    }

    #[test]
    fn newest_first_a_page_at_a_time() {
        let all = records(60);
        let (first, next) = select(&all, &GalleryQuery::from_query(""));
        assert_eq!(first.len(), PER_PAGE);
        assert!(next);
        assert!(first.windows(2).all(|w| w[0].uploaded >= w[1].uploaded));
        let (third, next) = select(&all, &GalleryQuery::from_query("page=3"));
        assert_eq!((third.len(), next), (60 - 2 * PER_PAGE, false));
        let mut seen: Vec<&str> = Vec::new();
        for p in 1..=3 {
            seen.extend(select(&all, &GalleryQuery::from_query(&format!("page={p}"))).0.iter().map(|r| r.id.as_str()));
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 60, "every replay once over the pages");
        assert!(select(&all, &GalleryQuery::from_query("page=99")).0.is_empty());
        assert_eq!(GalleryQuery::from_query("page=x").page, 1);
        assert_eq!(GalleryQuery::from_query("page=0").page, 1);
    }

    #[test]
    fn search_over_titles_missions_and_callsigns() {
        let all = records(30);
        let hits = |q: &str| select(&all, &GalleryQuery { q: q.into(), page: 1 }).0.len();
        assert_eq!(hits("pilot7"), 1);
        assert_eq!(hits("MISSION 1"), 12); // 1, 10..19, 21
        assert_eq!(hits("goose"), PER_PAGE);
        assert_eq!(hits("goose pilot29"), 1);
        assert_eq!(hits("svg onload"), PER_PAGE); // the mission name
        assert_eq!(hits("maverick"), 0);
        assert_eq!(GalleryQuery::from_query(&format!("q={}", "x".repeat(500))).q.len(), MAX_QUERY_CHARS);
    }

    #[test]
    fn entries_link_their_page_and_poster() {
        let all = records(30);
        let query = GalleryQuery::from_query("q=goose&page=2");
        let (shown, next) = select(&all, &query);
        let site = Site::new("https://replays.example", "/", "Replays");
        let html = gallery_page(&site, &query, &shown, next);
        let r = shown.first().unwrap();
        assert!(html.contains(&format!("<h2><a href=\"/r/{}\">{}</a></h2>", r.id, r.title)));
        assert!(html.contains(&format!("<img src=\"/r/{}/poster.png?t=251.3\"", r.id)));
        assert!(html.contains("12:34 · 4 kills · 8 players · .flrep · <time datetime=\""));
        assert!(html.contains("<a rel=\"prev\" href=\"/?q=goose\">"));
        assert!(!html.contains("rel=\"next\""));
        assert!(html.contains("value=\"goose\""));
        assert_eq!(html.matches("<li class=\"replay\">").count(), 6);
        assert_eq!(date(1_764_979_200), "2025-12-06");
    }

    #[test]
    fn markup_from_files_and_searches_stays_text() {
        let rec = hostile_record();
        let site = Site::new("https://replays.example", "/", "<i>Site</i>");
        let query = GalleryQuery::from_query("q=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
        let html = gallery_page(&site, &query, &[&rec], false);
        for injected in ["<img src=x", "<script", "<svg", "<b>", "<i>"] {
            assert!(!html.contains(injected), "{injected} in the gallery");
        }
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt; vs \"Red\" &amp; 'Blue'"));
        assert!(html.contains("Viper&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;, Ice\"man"));
        assert!(html.contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""));
        let empty = gallery_page(&site, &query, &[], false);
        assert!(empty.contains("Nothing matches “\"&gt;&lt;script&gt;alert(1)&lt;/script&gt;”."));
    }
}
