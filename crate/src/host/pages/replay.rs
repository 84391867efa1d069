//! The replay page `/r/{id}`: the player's own page (the built `index.html`, read by the server at
//! its start and handed in as the template) with, in its `<head>`, the card's tags (Open Graph,
//! Twitter) and the oEmbed discovery link, so that an unfurler, which runs no script, reads them in
//! the HTML answered at `/r/{id}`.
//!
//! The page opens the player on the replay by `<meta name="replay-src" content="/files/{id}">`,
//! which `www/main.ts` reads as the link's `url`; the link's own parameters (`t`, `end`, `follow`…)
//! are in the page's address, where the player reads them as on any share link. No inline script:
//! the page runs under the player's strict CSP (`base-uri 'none'` too, hence no `<base>`: the
//! template's relative `src` / `href` are rewritten to the player's path instead).

use super::{attr, card, moment::Moment, text, Card, Site, POSTER_HEIGHT, POSTER_WIDTH};
use crate::host::record::ReplayRecord;

/// The page of `rec` at `moment`, from the player's `index.html`.
pub fn replay_page(template: &str, site: &Site, rec: &ReplayRecord, moment: &Moment) -> String {
    let page = absolute_urls(template, &site.player_path);
    let tags = head_tags(site, rec, moment);
    let Card { title, .. } = card(rec, moment);
    let title_el = format!("<title>{} · {}</title>", text(&title), text(&site.name));
    match (page.find("<title>"), page.find("</title>")) {
        (Some(a), Some(b)) if a < b => {
            let after = b + "</title>".len();
            format!("{}{title_el}\n{tags}{}", page.get(..a).unwrap_or_default(), page.get(after..).unwrap_or_default())
        }
        _ => match page.find("</head>") {
            Some(h) => {
                format!("{}{title_el}\n{tags}{}", page.get(..h).unwrap_or_default(), page.get(h..).unwrap_or_default())
            }
            None => format!("<!doctype html><head><meta charset=\"utf-8\">{title_el}\n{tags}</head>{page}"),
        },
    }
}

/// The player's own page as the host serves it (`/index.html`): the built page, its files' URLs
/// under the player's path, and `<meta name="replay-host">` so that its Share dialog offers
/// "Upload and get link" for a file opened from the disk (a static host's page has no such tag).
pub fn player_page(template: &str, site: &Site) -> String {
    let page = absolute_urls(template, &site.player_path);
    let tag = host_tag();
    match page.find("</head>") {
        Some(h) => format!("{}{tag}{}", page.get(..h).unwrap_or_default(), page.get(h..).unwrap_or_default()),
        None => format!("<!doctype html><head><meta charset=\"utf-8\">\n{tag}</head>{page}"),
    }
}

/// `<meta name="replay-host" content="/api/">`: this page is served by a replay host.
fn host_tag() -> String {
    format!("  <meta name=\"replay-host\" content=\"{}\">\n", Site::API_PATH)
}

/// The tags of the page's `<head>`: the replay's source for the player, the card, the oEmbed link.
pub fn head_tags(site: &Site, rec: &ReplayRecord, moment: &Moment) -> String {
    let Card { title, description, image_alt } = card(rec, moment);
    let page_url = site.page_url(&rec.id, moment);
    let poster = site.poster_url(rec, moment);
    let mut out = String::new();
    let mut meta = |key: &str, name: &str, content: &str| {
        out.push_str(&format!("  <meta {key}=\"{name}\" content=\"{}\">\n", attr(content)));
    };
    meta("name", "replay-src", &Site::file_path(&rec.id));
    meta("name", "replay-host", Site::API_PATH);
    meta("name", "description", &description);
    meta("property", "og:type", "website");
    meta("property", "og:site_name", &site.name);
    meta("property", "og:title", &title);
    meta("property", "og:description", &description);
    meta("property", "og:url", &page_url);
    meta("property", "og:image", &poster);
    meta("property", "og:image:type", "image/png");
    meta("property", "og:image:width", &POSTER_WIDTH.to_string());
    meta("property", "og:image:height", &POSTER_HEIGHT.to_string());
    meta("property", "og:image:alt", &image_alt);
    meta("name", "twitter:card", "summary_large_image");
    meta("name", "twitter:title", &title);
    meta("name", "twitter:description", &description);
    meta("name", "twitter:image", &poster);
    meta("name", "twitter:image:alt", &image_alt);
    out.push_str(&format!("  <link rel=\"canonical\" href=\"{}\">\n", attr(&page_url)));
    out.push_str(&format!(
        "  <link rel=\"alternate\" type=\"application/json+oembed\" href=\"{}\" title=\"{}\">\n",
        attr(&site.oembed_url(&page_url)),
        attr(&title)
    ));
    out
}

/// The template's relative `src="…"` / `href="…"` made absolute paths under `player_path` (the
/// page lives at `/r/{id}`, its files under the player's path). Absolute URLs, root paths,
/// fragments and `scheme:` values are left as they are.
pub fn absolute_urls(template: &str, player_path: &str) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    loop {
        let next = [" src=\"", " href=\"", "\tsrc=\"", "\thref=\"", "\nsrc=\"", "\nhref=\""]
            .iter()
            .filter_map(|p| rest.find(p).map(|i| (i, p.len())))
            .min();
        let Some((i, len)) = next else { break };
        let (head, tail) = rest.split_at(i + len);
        out.push_str(head);
        if is_relative(tail) {
            out.push_str(player_path);
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// Whether an attribute value (up to its closing quote) is a relative reference.
fn is_relative(value: &str) -> bool {
    let v = value.split('"').next().unwrap_or_default();
    if v.is_empty() || v.starts_with('/') || v.starts_with('#') || v.starts_with('?') {
        return false;
    }
    // `scheme:` (a letter, then letters, digits, `+`, `-`, `.`, then `:` before any `/`, `?`, `#`).
    let scheme_end = v.find(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'));
    let has_scheme = matches!(scheme_end, Some(i) if i > 0 && v.get(i..i + 1) == Some(":"))
        && v.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    !has_scheme
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::pages::tests::hostile_record;

    const TEMPLATE: &str = "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  <title>Replay Player</title>\n  <link rel=\"icon\" href=\"favicon.svg\" type=\"image/svg+xml\">\n  <link rel=\"stylesheet\" href=\"style.css\">\n  <script type=\"module\" src=\"main.js\"></script>\n</head>\n<body><a href=\"https://x.example/a\">x</a><a href=\"#k\">k</a><a href=\"/abs\">a</a><img src=\"data:image/png;base64,AA\"></body>\n</html>\n";

    fn site() -> Site {
        Site::new("https://replays.example", "/", "Replays & <Co>")
    }

    #[test]
    fn the_player_page_says_it_is_served_by_a_host() {
        let p = player_page(TEMPLATE, &Site::new("https://replays.example", "/player/", "R"));
        let head = p.split("</head>").next().unwrap();
        assert_eq!(head.matches("<meta name=\"replay-host\" content=\"/api/\">").count(), 1);
        assert!(p.contains("src=\"/player/main.js\""), "{p}");
        // The replay page says so too: a file picked there is offered for upload as well.
        let r = replay_page(TEMPLATE, &site(), &hostile_record(), &Moment::default());
        assert_eq!(r.matches("name=\"replay-host\"").count(), 1);
    }

    #[test]
    fn relative_urls_resolve_from_the_page() {
        let p = absolute_urls(TEMPLATE, "/player/");
        assert!(p.contains("href=\"/player/favicon.svg\""));
        assert!(p.contains("href=\"/player/style.css\""));
        assert!(p.contains("src=\"/player/main.js\""));
        assert!(p.contains("href=\"https://x.example/a\"") && p.contains("href=\"#k\"") && p.contains("href=\"/abs\""));
        assert!(p.contains("src=\"data:image/png;base64,AA\""));
        assert_eq!(absolute_urls("no tags", "/"), "no tags");
    }

    #[test]
    fn the_page_carries_the_card_and_the_replay() {
        let rec = hostile_record();
        let page = replay_page(TEMPLATE, &site(), &rec, &Moment::from_query("t=95&follow=Ice%22man&bogus=1"));
        let id = &rec.id;
        assert!(page.contains(&format!("<meta name=\"replay-src\" content=\"/files/{id}\">")));
        assert!(page.contains(&format!(
            "<meta property=\"og:url\" content=\"https://replays.example/r/{id}?t=95&amp;follow=Ice%22man\">"
        )));
        assert!(page.contains(&format!(
            "<meta property=\"og:image\" content=\"https://replays.example/r/{id}/poster.png?t=95.0\">"
        )));
        assert!(page.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"));
        assert!(page.contains("<meta property=\"og:image:width\" content=\"1200\">"));
        assert!(page.contains(&format!("type=\"application/json+oembed\" href=\"https://replays.example/oembed?url=https%3A%2F%2Freplays.example%2Fr%2F{id}%3Ft%3D95%26follow%3DIce%2522man&amp;format=json\"")));
        assert!(page.contains("At 1:35 · 12:34 long · 4 kills · 8 players · .flrep"));
        assert_eq!(page.matches("<title>").count(), 1);
        assert!(!page.contains("Replay Player</title>"));
        assert!(page.contains("src=\"/main.js\""));
    }

    #[test]
    fn markup_from_the_file_stays_text() {
        let rec = hostile_record();
        let page = replay_page(TEMPLATE, &site(), &rec, &Moment::default());
        // The title and the site name as text in <title>, as attribute values in the tags.
        assert!(page.contains(
            "<title>&lt;img src=x onerror=alert(1)&gt; vs \"Red\" &amp; 'Blue' · Replays &amp; &lt;Co&gt;</title>"
        ));
        assert!(page.contains(
            "<meta property=\"og:title\" content=\"&lt;img src=x onerror=alert(1)&gt; vs &quot;Red&quot; &amp; 'Blue'\">"
        ));
        // No element but the template's and ours: one <img> (the template's), one script.
        assert_eq!(page.matches("<img").count(), 1);
        assert_eq!(page.matches("<script").count(), 1);
        assert!(!page.contains("<svg") && !page.contains("<b>"));
    }
}
